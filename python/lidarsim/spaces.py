"""Action and observation spaces: gymnasium's when it is importable, else small compatible stand-ins.

Debian 12 has no package for gymnasium, so the stand-ins offer the part of ``gymnasium.spaces`` that training code
uses: ``shape``, ``dtype``, ``sample()``, ``contains()`` / ``in``, ``seed()``, ``n`` and ``start`` (Discrete),
``low`` and ``high`` (Box), ``nvec`` (MultiDiscrete).
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

try:  # pragma: no cover - depends on what is installed
    import gymnasium as _gym
    from gymnasium.spaces import Box, Discrete, MultiDiscrete

    HAVE_GYMNASIUM = True
except ImportError:
    _gym = None
    HAVE_GYMNASIUM = False

    class _Space:
        def __init__(self, shape, dtype, seed: Optional[int]):
            self.shape = tuple(shape)
            self.dtype = np.dtype(dtype)
            self.np_random = np.random.default_rng(seed)

        def seed(self, seed: Optional[int] = None) -> list:
            """Reseeds sample()."""
            self.np_random = np.random.default_rng(seed)
            return [seed]

        def __contains__(self, x) -> bool:
            return self.contains(x)

    class Discrete(_Space):
        """The integers start, ..., start + n - 1 (gymnasium.spaces.Discrete)."""

        def __init__(self, n: int, seed: Optional[int] = None, start: int = 0):
            if int(n) < 1:
                raise ValueError(f"Discrete: n must be positive, got {n}")
            super().__init__((), np.int64, seed)
            self.n = np.int64(n)
            self.start = np.int64(start)

        def sample(self) -> np.int64:
            return np.int64(self.start + self.np_random.integers(self.n))

        def contains(self, x) -> bool:
            if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
                return bool(self.start <= x < self.start + self.n)
            if isinstance(x, np.ndarray) and x.shape == () and np.issubdtype(x.dtype, np.integer):
                return bool(self.start <= x.item() < self.start + self.n)
            return False

        def __repr__(self) -> str:
            return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

        def __eq__(self, other) -> bool:
            return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

    class Box(_Space):
        """A box of real vectors between low and high (gymnasium.spaces.Box, bounded boxes only)."""

        def __init__(self, low, high, shape: Optional[Sequence[int]] = None, dtype=np.float32, seed=None):
            dtype = np.dtype(dtype)
            if shape is None:
                shape = np.broadcast(np.asarray(low), np.asarray(high)).shape
            super().__init__(shape, dtype, seed)
            self.low = np.broadcast_to(np.asarray(low, dtype), self.shape).copy()
            self.high = np.broadcast_to(np.asarray(high, dtype), self.shape).copy()

        def sample(self) -> np.ndarray:
            return self.np_random.uniform(self.low, self.high).astype(self.dtype)

        def contains(self, x) -> bool:
            if not isinstance(x, np.ndarray):  # as gymnasium: a list or a number is read in the box's dtype
                try:
                    x = np.asarray(x, dtype=self.dtype)
                except (TypeError, ValueError):
                    return False
            return bool(
                x.shape == self.shape
                and np.can_cast(x.dtype, self.dtype)
                and np.all(x >= self.low)
                and np.all(x <= self.high)
            )

        def __repr__(self) -> str:
            return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"

        def __eq__(self, other) -> bool:
            return (
                isinstance(other, Box)
                and self.shape == other.shape
                and np.array_equal(self.low, other.low)
                and np.array_equal(self.high, other.high)
            )

    class MultiDiscrete(_Space):
        """One Discrete(nvec[i]) per entry (gymnasium.spaces.MultiDiscrete)."""

        def __init__(self, nvec, dtype=np.int64, seed: Optional[int] = None):
            self.nvec = np.asarray(nvec, dtype=np.int64)
            super().__init__(self.nvec.shape, dtype, seed)

        def sample(self) -> np.ndarray:
            return self.np_random.integers(self.nvec).astype(self.dtype)

        def contains(self, x) -> bool:
            x = np.asarray(x)
            return bool(
                x.shape == self.shape and np.issubdtype(x.dtype, np.integer) and np.all((0 <= x) & (x < self.nvec))
            )

        def __repr__(self) -> str:
            return f"MultiDiscrete({self.nvec})"


__all__ = ["Box", "Discrete", "MultiDiscrete", "HAVE_GYMNASIUM"]

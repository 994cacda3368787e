"""Shared fixtures. The tests import the package from this checkout (python/) and its libraries from
$LIDARSIM_LIBRARY (ctest sets it to the build's liblidarsim.so) or build/; $LIDARSIM_PROGRAM names the lidarsim
program the results are compared with (default build/lidarsim)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def world_path(name: str) -> str:
    return str(ROOT / "worlds" / f"{name}.json")


@pytest.fixture(scope="session")
def program() -> str:
    path = os.environ.get("LIDARSIM_PROGRAM", str(ROOT / "build" / "lidarsim"))
    if not os.path.isfile(path):
        pytest.skip(f"no lidarsim program at {path}")
    return path


def run_python(code: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter (so a crash cannot take the test runner with it)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)

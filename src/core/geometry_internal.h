// lidarsim core (private): what the geometry files (shape.c, ray_cast.c, segment.c) share: a few helpers (the
// floating-point filters' constants are in exact.h).
#pragma once

#include "core/exact.h"
#include "lidarsim/geometry.h"

#include <math.h>

// x clamped into [lo, hi]; NaN gives lo.
static inline double lsClamp(double x, double lo, double hi)
{
    if (!(x >= lo))
    {
        return lo;
    }
    return x > hi ? hi : x;
}

// b - a, halved when the difference overflows (only its direction is used).
static inline lsVec2 lsDirectionOf(lsVec2 a, lsVec2 b)
{
    lsVec2 e = {b.x - a.x, b.y - a.y};
    if (!isfinite(e.x) || !isfinite(e.y))
    {
        e = (lsVec2){0.5 * b.x - 0.5 * a.x, 0.5 * b.y - 0.5 * a.y};
    }
    return e;
}

// The point clamped into the box of a and b (keeps a rounded hit point on its segment's bounds, and finite).
static inline lsVec2 lsClampToSegmentBox(lsVec2 p, lsVec2 a, lsVec2 b)
{
    return (lsVec2){lsClamp(p.x, fmin(a.x, b.x), fmax(a.x, b.x)), lsClamp(p.y, fmin(a.y, b.y), fmax(a.y, b.y))};
}

/// Unit vector along v for any finite nonzero v (scaled first when its squared length would underflow or overflow);
/// (0, 0) for zero or non-finite v. Defined in shape.c.
lsVec2 lsUnitVector(lsVec2 v);
/// Exact sign of |p - c|^2 - r^2: negative inside the circle, zero on it. Defined in shape.c.
int lsCircleSideSign(lsVec2 p, lsVec2 c, double r);

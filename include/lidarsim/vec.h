// lidarsim core: small value types for 2D geometry and their one-line helpers.
// World coordinates are metres in double precision, x right, y up, angles in radians counter-clockwise.
#pragma once

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

/// A 2D vector or point, metres.
typedef struct lsVec2
{
    double x, y;
} lsVec2;

/// A rotation stored as cosine and sine.
typedef struct lsRot
{
    double c, s;
} lsRot;

/// A rigid transform: rotate then translate.
typedef struct lsTransform
{
    lsVec2 p;
    lsRot q;
} lsTransform;

/// An axis-aligned box, lower and upper corners (closed).
typedef struct lsAABB
{
    lsVec2 lower, upper;
} lsAABB;

#define LS_PI 3.14159265358979323846

/// Makes a vector.
static inline lsVec2 lsV(double x, double y) { return (lsVec2){x, y}; }
/// a + b
static inline lsVec2 lsAdd(lsVec2 a, lsVec2 b) { return (lsVec2){a.x + b.x, a.y + b.y}; }
/// a - b
static inline lsVec2 lsSub(lsVec2 a, lsVec2 b) { return (lsVec2){a.x - b.x, a.y - b.y}; }
/// -a
static inline lsVec2 lsNeg(lsVec2 a) { return (lsVec2){-a.x, -a.y}; }
/// s * a
static inline lsVec2 lsScale(double s, lsVec2 a) { return (lsVec2){s * a.x, s * a.y}; }
/// a + s * b
static inline lsVec2 lsMulAdd(lsVec2 a, double s, lsVec2 b) { return (lsVec2){a.x + s * b.x, a.y + s * b.y}; }
/// a - s * b
static inline lsVec2 lsMulSub(lsVec2 a, double s, lsVec2 b) { return (lsVec2){a.x - s * b.x, a.y - s * b.y}; }
/// Dot product.
static inline double lsDot(lsVec2 a, lsVec2 b) { return a.x * b.x + a.y * b.y; }
/// 2D cross product (the z of the 3D cross product): positive when b is counter-clockwise from a.
static inline double lsCross(lsVec2 a, lsVec2 b) { return a.x * b.y - a.y * b.x; }
/// Left perpendicular (counter-clockwise by 90 degrees).
static inline lsVec2 lsLeftPerp(lsVec2 v) { return (lsVec2){-v.y, v.x}; }
/// Right perpendicular (clockwise by 90 degrees).
static inline lsVec2 lsRightPerp(lsVec2 v) { return (lsVec2){v.y, -v.x}; }
/// Squared length.
static inline double lsLengthSquared(lsVec2 v) { return v.x * v.x + v.y * v.y; }
/// Length, without overflow for huge components (hypot).
static inline double lsLength(lsVec2 v) { return hypot(v.x, v.y); }
/// Distance between two points.
static inline double lsDistance(lsVec2 a, lsVec2 b) { return hypot(b.x - a.x, b.y - a.y); }
/// Squared distance between two points.
static inline double lsDistanceSquared(lsVec2 a, lsVec2 b) { return lsLengthSquared(lsSub(b, a)); }
/// Unit vector along v; the zero vector (and anything non-finite) gives (0, 0), never NaN.
static inline lsVec2 lsNormalize(lsVec2 v)
{
    double len = lsLength(v);
    if (!(len > 0.0) || !isfinite(len))
        return (lsVec2){0.0, 0.0};
    return (lsVec2){v.x / len, v.y / len};
}
/// Linear interpolation a + t (b - a); t = 0 gives a exactly, t = 1 gives b exactly.
static inline lsVec2 lsLerp(lsVec2 a, lsVec2 b, double t)
{
    return (lsVec2){(1.0 - t) * a.x + t * b.x, (1.0 - t) * a.y + t * b.y};
}
/// The smaller of x and y; the other when one is a NaN, y when they are equal (so of -0 and +0, y). These are the
/// bits glibc's fmin gives on x86-64, but inline: fmin is a call, and a call makes the compiler spill every live
/// vector register around it (the vehicles' steps ran 10 % faster without them). The same bits on any platform.
static inline double lsFmin(double x, double y) { return x < y ? x : (y == y ? y : x); }
/// The larger of x and y, as lsFmin: the other when one is a NaN, y when they are equal.
static inline double lsFmax(double x, double y) { return x > y ? x : (y == y ? y : x); }
/// Component-wise minimum.
static inline lsVec2 lsMin(lsVec2 a, lsVec2 b) { return (lsVec2){lsFmin(a.x, b.x), lsFmin(a.y, b.y)}; }
/// Component-wise maximum.
static inline lsVec2 lsMax(lsVec2 a, lsVec2 b) { return (lsVec2){lsFmax(a.x, b.x), lsFmax(a.y, b.y)}; }
/// True when both components are finite (the one finite check for points: single, and lsAreValidVec2s for arrays).
static inline bool lsIsValidVec2(lsVec2 v) { return isfinite(v.x) && isfinite(v.y); }
/// True when every one of the count points is finite (lsIsValidVec2).
static inline bool lsAreValidVec2s(const lsVec2* points, int count)
{
    for (int i = 0; i < count; ++i)
    {
        if (!lsIsValidVec2(points[i]))
        {
            return false;
        }
    }
    return true;
}
/// True when a and b are bitwise-equal in value.
static inline bool lsVecEqual(lsVec2 a, lsVec2 b) { return a.x == b.x && a.y == b.y; }
/// The first segment i -> i + 1 of a polyline (closed: also the closing count - 1 -> 0) whose ends are equal, or -1
/// when every segment has a length: the one rule for point chains (walls, paths) in the loader and the editor.
static inline int lsFindZeroSegment(const lsVec2* points, int count, bool closed)
{
    int segments = closed ? count : count - 1;
    for (int i = 0; i < segments; ++i)
    {
        if (lsVecEqual(points[i], points[i + 1 < count ? i + 1 : 0]))
        {
            return i;
        }
    }
    return -1;
}

/// Rotation by angle (radians, counter-clockwise).
static inline lsRot lsMakeRot(double angle) { return (lsRot){cos(angle), sin(angle)}; }
/// The identity rotation.
static inline lsRot lsRotIdentity(void) { return (lsRot){1.0, 0.0}; }
/// Angle of a rotation in (-pi, pi].
static inline double lsRot_GetAngle(lsRot q) { return atan2(q.s, q.c); }
/// Rotates v by q.
static inline lsVec2 lsRotate(lsRot q, lsVec2 v) { return (lsVec2){q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y}; }
/// Rotates v by the inverse of q.
static inline lsVec2 lsInvRotate(lsRot q, lsVec2 v) { return (lsVec2){q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y}; }
/// Rotates v by angle radians.
static inline lsVec2 lsRotateAngle(lsVec2 v, double angle) { return lsRotate(lsMakeRot(angle), v); }
/// Unit vector at angle radians from +x.
static inline lsVec2 lsDirection(double angle) { return (lsVec2){cos(angle), sin(angle)}; }
/// Transforms a local point into the frame's parent: q v + p.
static inline lsVec2 lsTransformPoint(lsTransform t, lsVec2 v) { return lsAdd(lsRotate(t.q, v), t.p); }
/// Inverse of lsTransformPoint.
static inline lsVec2 lsInvTransformPoint(lsTransform t, lsVec2 v) { return lsInvRotate(t.q, lsSub(v, t.p)); }
/// Wraps an angle into (-pi, pi].
static inline double lsWrapAngle(double a)
{
    double w = remainder(a, 2.0 * LS_PI);
    return w <= -LS_PI ? w + 2.0 * LS_PI : w;
}
/// Degrees to radians.
static inline double lsDegToRad(double deg) { return deg * (LS_PI / 180.0); }
/// Radians to degrees.
static inline double lsRadToDeg(double rad) { return rad * (180.0 / LS_PI); }

/// True when the two closed boxes share at least one point.
static inline bool lsAABB_Overlaps(lsAABB a, lsAABB b)
{
    return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y;
}
/// The smallest box holding both.
static inline lsAABB lsAABB_Union(lsAABB a, lsAABB b)
{
    return (lsAABB){lsMin(a.lower, b.lower), lsMax(a.upper, b.upper)};
}
/// The box of a segment.
static inline lsAABB lsAABB_OfSegment(lsVec2 a, lsVec2 b) { return (lsAABB){lsMin(a, b), lsMax(a, b)}; }
/// True when the closed box holds p.
static inline bool lsAABB_Contains(lsAABB box, lsVec2 p)
{
    return box.lower.x <= p.x && p.x <= box.upper.x && box.lower.y <= p.y && p.y <= box.upper.y;
}
/// Clips the line p + t d to the closed box (Liang-Barsky, slab by slab): narrows [*t0, *t1] to the parameters
/// inside and returns true, or false when none is. Rounded, not exact; the one clip that segment-box tests and the
/// screen's line drawing share.
static inline bool lsAABB_ClipLine(lsAABB box, lsVec2 p, lsVec2 d, double* t0, double* t1)
{
    double lo[2] = {box.lower.x, box.lower.y}, hi[2] = {box.upper.x, box.upper.y};
    double pc[2] = {p.x, p.y}, dc[2] = {d.x, d.y};
    for (int k = 0; k < 2; ++k)
    {
        if (dc[k] == 0.0)
        {
            if (pc[k] < lo[k] || pc[k] > hi[k])
            {
                return false;
            }
            continue;
        }
        double ta = (lo[k] - pc[k]) / dc[k];
        double tb = (hi[k] - pc[k]) / dc[k];
        *t0 = lsFmax(*t0, lsFmin(ta, tb));
        *t1 = lsFmin(*t1, lsFmax(ta, tb));
        if (*t0 > *t1)
        {
            return false;
        }
    }
    return true;
}
/// Clips the segment a-b to the closed box in place (lsAABB_ClipLine); false, a and b unchanged, when it misses.
static inline bool lsAABB_ClipSegment(lsAABB box, lsVec2* a, lsVec2* b)
{
    lsVec2 p = *a, d = lsSub(*b, *a);
    double t0 = 0.0, t1 = 1.0;
    if (!lsAABB_ClipLine(box, p, d, &t0, &t1))
    {
        return false;
    }
    *a = lsMulAdd(p, t0, d);
    *b = lsMulAdd(p, t1, d);
    return true;
}

#ifdef __cplusplus
}
#endif

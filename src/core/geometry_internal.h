// lidarsim core (private): what the geometry files (shape.c, ray_cast.c, segment.c) share: a few helpers (the
// floating-point filters' constants are in exact.h).
#pragma once

#include "core/exact.h"
#include "lidarsim/geometry.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Inlined by force where the compiler allows it: GCC otherwise calls the segment cast's common case (the scene's
// winner then pays the call and its arguments) and lsOrderPair (whose minimum and maximum become a branch).
#if defined(__GNUC__)
#define LS_GEOMETRY_INLINE inline __attribute__((always_inline))
#else
#define LS_GEOMETRY_INLINE inline
#endif

// x clamped into [lo, hi]; NaN gives lo.
static inline double lsClamp(double x, double lo, double hi)
{
    if (!(x >= lo))
    {
        return lo;
    }
    return x > hi ? hi : x;
}

// A ray's fraction t clamped into [0, L] (L >= 0), with +0 for every t that is not positive (NaN, -0 included): a ray
// from a point of a shape has t = 0 / den or (p - o) / d, which is -0 when den or d is negative, and the lidar
// reports the fraction as a range. Positive t gives lsClamp's bits.
static inline double lsClampFraction(double t, double L) { return t > 0.0 ? (t > L ? L : t) : 0.0; }

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
    return (lsVec2){lsClamp(p.x, lsFmin(a.x, b.x), lsFmax(a.x, b.x)), lsClamp(p.y, lsFmin(a.y, b.y), lsFmax(a.y, b.y))};
}

/// *lo = lsFmin(x, y) and *hi = lsFmax(x, y) for x and y not NaN, bit for bit, in one compare; false for zeros of
/// opposite signs, where *hi is x and lsFmax's is y (equal values of one sign are the same bits whichever is taken: a
/// wall along an axis, from 0 to 0, stays in the common case).
static LS_GEOMETRY_INLINE bool lsOrderPair(double x, double y, double* lo, double* hi)
{
    *lo = x < y ? x : y;
    *hi = x < y ? y : x;
    return x != y || !signbit(x) == !signbit(y);
}

/// atan2(y, x) within 1e-5 rad for (x, y) != 0: Abramowitz and Stegun 4.4.49 (|error| <= 1e-5 on [0, 1]) on the
/// octant, a division and a polynomial instead of the library's exact atan2, for the beam runs of scans (which are
/// widened by more than this).
static inline double lsRoughAngle(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    double t = (ax < ay ? ax : ay) / (ax < ay ? ay : ax), t2 = t * t;
    double a = t * (0.9998660 + t2 * (-0.3302995 + t2 * (0.1801410 + t2 * (-0.0851330 + t2 * 0.0208351))));
    a = ay > ax ? 0.5 * LS_PI - a : a;
    a = x < 0.0 ? LS_PI - a : a;
    return y < 0.0 ? -a : a;
}

/// Unit vector along v for any finite nonzero v (scaled first when its squared length would underflow or overflow);
/// (0, 0) for zero or non-finite v. Defined in shape.c.
lsVec2 lsUnitVector(lsVec2 v);

/// The square root of a positive finite x: the instruction where there is one (the library's sqrt is also correctly
/// rounded, so the bits are the same, but GCC calls it to keep errno).
static inline double lsSqrtPositive(double x)
{
#if defined(__SSE2__)
    return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
#else
    return sqrt(x);
#endif
}

/// lsUnitVector with its common case (a squared length far from underflow and overflow) inlined: the same bits.
static inline lsVec2 lsUnitVectorInline(lsVec2 v)
{
    double len2 = v.x * v.x + v.y * v.y;
    if (len2 > 0x1p-1000 && len2 < 0x1p1000)
    {
        double inv = 1.0 / lsSqrtPositive(len2);
        return (lsVec2){v.x * inv, v.y * inv};
    }
    return lsUnitVector(v);
}

/// lsRayCastSegment without its inlined common case (lsRayCastSegmentCommon): every case decided by the general code.
/// Tests compare the two. Defined in ray_cast.c.
lsCastOutput lsRayCastSegmentFull(const lsSegment* segment, const lsRayInput* input);

/// Two doubles in one register (the vector extensions of GCC and Clang: SSE2 lanes on x86-64). Each lane's +, -, *,
/// /, square root and comparisons are IEEE's, as the scalar code's, and -ffp-contract=off keeps products and sums
/// apart, so a lane computes the scalar expression's bits. A mask is an lsDouble2 whose lanes are all ones (true) or
/// all zeros; the helpers below are SSE2's instructions where there are some (what the compiler makes of the
/// extensions' own masks is branches and moves between registers).
typedef double lsDouble2 __attribute__((vector_size(16)));
/// The lane masks' bits as an integer vector.
typedef int64_t lsBits2 __attribute__((vector_size(16)));

/// The mask of a < b per lane (false for NaN, as in C).
static inline lsDouble2 lsLess2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_cmplt_pd(a, b);
#else
    return (lsDouble2)(a < b);
#endif
}
/// The mask of a <= b per lane (false for NaN, as in C).
static inline lsDouble2 lsLessEqual2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_cmple_pd(a, b);
#else
    return (lsDouble2)(a <= b);
#endif
}
/// The mask of a != b per lane (true for NaN, as in C).
static inline lsDouble2 lsNotEqual2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_cmpneq_pd(a, b);
#else
    return (lsDouble2)(a != b);
#endif
}
/// a & b, bitwise.
static inline lsDouble2 lsAnd2(lsDouble2 a, lsDouble2 b) { return (lsDouble2)((lsBits2)a & (lsBits2)b); }
/// a | b, bitwise.
static inline lsDouble2 lsOr2(lsDouble2 a, lsDouble2 b) { return (lsDouble2)((lsBits2)a | (lsBits2)b); }
/// ~a & b, bitwise.
static inline lsDouble2 lsAndNot2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_andnot_pd(a, b);
#else
    return (lsDouble2)(~(lsBits2)a & (lsBits2)b);
#endif
}
/// Bit k set when lane k of mask m is.
static inline int lsLanes2(lsDouble2 m)
{
#if defined(__SSE2__)
    return _mm_movemask_pd(m);
#else
    return (int)(((lsBits2)m)[0] & 1) | (int)(((lsBits2)m)[1] & 2);
#endif
}
/// |x| per lane.
static inline lsDouble2 lsAbs2(lsDouble2 x) { return lsAnd2(x, (lsDouble2)((lsBits2){0, 0} + INT64_MAX)); }
/// The mask of isfinite per lane.
static inline lsDouble2 lsIsFinite2(lsDouble2 x) { return lsLessEqual2(lsAbs2(x), (lsDouble2){DBL_MAX, DBL_MAX}); }
/// m ? a : b per lane.
static inline lsDouble2 lsSelect2(lsDouble2 m, lsDouble2 a, lsDouble2 b)
{
    return lsOr2(lsAnd2(m, a), lsAndNot2(m, b));
}
/// a < b ? a : b per lane (b when either is NaN), as a scalar minimum written so.
static inline lsDouble2 lsMin2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_min_pd(a, b);
#else
    return lsSelect2(lsLess2(a, b), a, b);
#endif
}
/// a > b ? a : b per lane (b when either is NaN), as a scalar maximum written so.
static inline lsDouble2 lsMax2(lsDouble2 a, lsDouble2 b)
{
#if defined(__SSE2__)
    return _mm_max_pd(a, b);
#else
    return lsSelect2(lsLess2(b, a), a, b);
#endif
}
/// The correctly rounded square root per lane (NaN for a negative lane).
static inline lsDouble2 lsSqrt2(lsDouble2 x)
{
#if defined(__SSE2__)
    return _mm_sqrt_pd(x);
#else
    return (lsDouble2){sqrt(x[0]), sqrt(x[1])};
#endif
}

/// The sides of a segment's endpoints a and b relative to the ray's line along d, cross(d, p - o), from a - o in lane
/// 0 and b - o in lane 1 of rx and ry, filtered as SideOfRay (and exact.c's lsOrientDir) filter them (each lane the
/// scalar expression's bits; the filters' six comparisons in three and one branch): bit 0 set when a's is positive,
/// bit 1 when b's is, in *positive; false when a filter does not decide either sign. The first step of the exact
/// casts' common case (lsRayCastSegmentPrepared, lsRayCastSegmentCrossing).
static LS_GEOMETRY_INLINE bool lsEndpointSides2(lsVec2 d, lsDouble2 rx, lsDouble2 ry, int* positive)
{
    lsDouble2 l = d.x * ry, r = d.y * rx;
    lsDouble2 c = l - r; // ca, cb
    lsDouble2 bound = LS_FILTER_ORIENT * (lsAbs2(l) + lsAbs2(r));
    lsDouble2 decided =
        lsAnd2(lsLess2(bound, lsAbs2(c)), lsAnd2(lsLessEqual2((lsDouble2){LS_FILTER_TINY, LS_FILTER_TINY}, bound),
                                                 lsLessEqual2(bound, (lsDouble2){DBL_MAX, DBL_MAX})));
    *positive = lsLanes2(lsLess2((lsDouble2){0.0, 0.0}, c));
    return lsLanes2(decided) == 3;
}

/// The crossing's fraction in the exact casts' common case (lsRayCastSegmentPrepared, lsRayCastSegmentCrossing), once
/// the endpoints lie strictly on opposite sides of the ray's line along d and num = cross(p - o, e) (p the endpoint
/// nearer the origin, e = b - a) passed its filter; up: cross(d, e) > 0. As CastCrossing decides it, on the same
/// doubles: 0 for a miss (behind the origin, or beyond L), 1 for a hit at *t = num / cross(d, e), -1 when a filter
/// does not decide or the crossing is ill-conditioned (the whole routine's case). The signs are compared, not
/// branched on: which way a crossing goes is random to the predictor.
static LS_GEOMETRY_INLINE int lsCrossingFraction(lsVec2 d, double L, double ex, double ey, double num, double sNum,
                                                 bool up, double* t)
{
    if ((num > 0.0) != up) // (num > 0 ? denSign : -denSign) < 0
    {
        return 0; // behind the origin
    }
    double d1 = d.x * ey, d2 = d.y * ex;
    double den = d1 - d2;
    double sDen = fabs(d1) + fabs(d2);
    double lden = L * den;
    double range = lden - num;
    double rangeBound = LS_FILTER_BOUND8 * (L * sDen + sNum);
    if (!(fabs(range) > rangeBound && rangeBound >= LS_FILTER_TINY && rangeBound <= DBL_MAX))
    {
        return -1;
    }
    if ((range > 0.0) != up)
    {
        return 0; // beyond maxFraction
    }
    *t = num / den;
    if ((sDen > LS_CROSSING_ILL * fabs(den) || sNum > LS_CROSSING_ILL * fabs(num)) && isfinite(sDen) && isfinite(sNum))
    {
        return -1; // ill-conditioned: the whole routine recomputes the crossing in double-double
    }
    return den * (up ? 1.0 : -1.0) > 0.0 && isfinite(*t) ? 1 : -1;
}

/// What lsRayCastSegmentCommon computes from the origin and the segment alone, the same for every direction (a scan's
/// beams share it): the endpoints relative to the origin, b - a, the crossing's numerator cross(p - o, b - a) (p the
/// endpoint nearer the origin) and whether its filter decides its sign, the segment's box, and its unit normals once
/// a hit needs them.
typedef struct lsSegmentCastPrep
{
    lsDouble2 o;      // the origin's x and y
    lsDouble2 rx, ry; // a - o in lane 0 and b - o in lane 1: their x, their y
    lsDouble2 lo, hi; // the segment's box: its least x and y, its greatest
    double ex, ey;    // b - a
    double num, sNum; // cross(p - o, b - a) and the sum of its terms' magnitudes
    lsVec2 normal[2]; // facing rays with cross(d, b - a) < 0 ([0]) and > 0 ([1]), once known
    bool numDecided;  // the filter decides num's sign
    bool boxOrdered;  // the box's bounds were ordered without library calls (see lsOrderPair)
    bool normalKnown[2];
} lsSegmentCastPrep;

/// Fills *s for rays from o against segment a-b (the same operations as lsRayCastSegmentCommon).
static inline void lsPrepareSegmentCast(lsVec2 o, lsVec2 a, lsVec2 b, lsSegmentCastPrep* s)
{
    s->o = (lsDouble2){o.x, o.y};
    double aox = a.x - o.x, aoy = a.y - o.y, box = b.x - o.x, boy = b.y - o.y;
    s->rx = (lsDouble2){aox, box}, s->ry = (lsDouble2){aoy, boy};
    // CastCrossing's numerator: the nearer endpoint rounds less.
    bool nearA = fabs(aox) + fabs(aoy) <= fabs(box) + fabs(boy);
    double px = nearA ? aox : box, py = nearA ? aoy : boy;
    s->ex = b.x - a.x, s->ey = b.y - a.y;
    double n1 = px * s->ey, n2 = py * s->ex;
    s->num = n1 - n2;
    s->sNum = fabs(n1) + fabs(n2);
    double numBound = LS_FILTER_BOUND8 * s->sNum;
    s->numDecided = fabs(s->num) > numBound && numBound >= LS_FILTER_TINY && s->sNum <= DBL_MAX;
    double loX, hiX, loY, hiY;
    bool orderedX = lsOrderPair(a.x, b.x, &loX, &hiX), orderedY = lsOrderPair(a.y, b.y, &loY, &hiY);
    s->lo = (lsDouble2){loX, loY}, s->hi = (lsDouble2){hiX, hiY};
    s->boxOrdered = orderedX && orderedY;
    s->normalKnown[0] = false, s->normalKnown[1] = false;
}

/// lsRayCastSegmentCommon for the ray from s's origin along d with L = min(maxFraction, DBL_MAX): the same
/// decisions in the same order on the same doubles (a copy of it that reads the per-segment part from s; the
/// geometry tests compare both with the whole routine). For the rays of one origin (lsScene_CastFan). A copy, not
/// shared: lsRayCastSegmentCommon written as a one-ray prepare and this (or both over a shared crossing step) cast
/// the same bits with 4.5 % more instructions per ray (callgrind, ls_bench_cast on city-10k and maze-2k). As
/// lsRayCastSegmentCrossing, the decisions whose outcome is random to the predictor (the endpoints' sides, the
/// crossing's direction, the point's clamp) are taken in SSE2 lanes or by comparing signs, not by branches.
static LS_GEOMETRY_INLINE bool lsRayCastSegmentPrepared(lsSegmentCastPrep* s, lsVec2 d, double L, lsCastOutput* out)
{
    int positive; // the endpoints' sides: bit 0 ca > 0, bit 1 cb > 0
    if (!lsEndpointSides2(d, s->rx, s->ry, &positive))
    {
        return false;
    }
    *out = (lsCastOutput){{0.0, 0.0}, {0.0, 0.0}, 0.0, false};
    if (((positive ^ (positive >> 1)) & 1) == 0)
    {
        return true; // both strictly on one side
    }
    // CastCrossing's interior case: den = cross(d, b - a) has the sign of sb - sa.
    bool up = (positive & 2) != 0; // cb > 0: denSign 1, else -1
    double num = s->num, sNum = s->sNum, ex = s->ex, ey = s->ey;
    if (!s->numDecided)
    {
        return false;
    }
    double t;
    int crossing = lsCrossingFraction(d, L, ex, ey, num, sNum, up, &t);
    if (crossing <= 0 || !s->boxOrdered)
    {
        return crossing == 0; // a miss behind the origin or beyond maxFraction, or the whole routine's case
    }
    // lsClampToSegmentBox with the bounds ordered above; lsClamp per lane: lo where the point is not at least lo (NaN
    // too), else the smaller of it and hi.
    out->hit = true;
    out->fraction = lsClampFraction(t, L);
    lsDouble2 point = s->o + out->fraction * (lsDouble2){d.x, d.y};
    point = lsSelect2(lsLessEqual2(s->lo, point), lsMin2(s->hi, point), s->lo);
    out->point = (lsVec2){point[0], point[1]};
    // SegmentNormal: lsDirectionOf(a, b) is (ex, ey), finite here (else sNum would not be).
    int side = up;
    if (!s->normalKnown[side])
    {
        s->normal[side] = lsUnitVectorInline(side ? (lsVec2){-ey, ex} : (lsVec2){ey, -ex});
        s->normalKnown[side] = true;
    }
    out->normal = s->normal[side];
    return true;
}

/// lsRayCastSegmentCommon (below) but for a hit's normal, left zero: *denSign (the sign of cross(d, b - a)) says
/// which one it is, lsUnitVectorInline((-ey, ex)) for 1 and its negation, lsUnitVectorInline((ey, -ex)), for -1
/// (e = b - a). For a caller that has the normal already (the scene's records, scene_internal.h's CellRef).
static LS_GEOMETRY_INLINE bool lsRayCastSegmentCrossing(lsVec2 o, lsVec2 d, double L, lsVec2 a, lsVec2 b,
                                                        lsCastOutput* out, int* denSign)
{
    lsDouble2 rx = (lsDouble2){a.x, b.x} - o.x, ry = (lsDouble2){a.y, b.y} - o.y; // a - o, b - o
    int positive; // the endpoints' sides: bit 0 ca > 0, bit 1 cb > 0
    if (!lsEndpointSides2(d, rx, ry, &positive))
    {
        return false;
    }
    *out = (lsCastOutput){{0.0, 0.0}, {0.0, 0.0}, 0.0, false};
    if (((positive ^ (positive >> 1)) & 1) == 0)
    {
        return true; // both strictly on one side
    }
    // CastCrossing's interior case: den = cross(d, b - a) has the sign of sb - sa.
    *denSign = (positive & 2) - 1; // cb > 0 ? 1 : -1
    // The endpoint nearer the origin, relative to it (p - o is a - o or b - o, the same bits).
    // Selected by a mask, not a branch: which endpoint is nearer is random to the predictor.
    lsDouble2 reach = lsAbs2(rx) + lsAbs2(ry);
#if defined(__SSE2__)
    __m128d nearA = _mm_cmple_pd(reach, _mm_shuffle_pd(reach, reach, 1)); // lane 0: |a - o|_1 <= |b - o|_1
    lsDouble2 p = lsSelect2(_mm_unpacklo_pd(nearA, nearA), _mm_unpacklo_pd(rx, ry), _mm_unpackhi_pd(rx, ry));
    double px = p[0], py = p[1];
#else
    bool nearA = reach[0] <= reach[1];
    double px = nearA ? rx[0] : rx[1], py = nearA ? ry[0] : ry[1];
#endif
    double ex = b.x - a.x, ey = b.y - a.y;
    double n1 = px * ey, n2 = py * ex;
    double num = n1 - n2;
    double sNum = fabs(n1) + fabs(n2);
    double numBound = LS_FILTER_BOUND8 * sNum;
    if (!(fabs(num) > numBound && numBound >= LS_FILTER_TINY && sNum <= DBL_MAX))
    {
        return false;
    }
    double t;
    int crossing = lsCrossingFraction(d, L, ex, ey, num, sNum, *denSign > 0, &t);
    if (crossing <= 0)
    {
        return crossing == 0; // a miss behind the origin or beyond maxFraction, or the whole routine's case
    }
    // lsClampToSegmentBox with the box's bounds ordered as lsOrderPair orders them, x in lane 0 and y in lane 1: the
    // minimum and maximum are minpd's and maxpd's selections (ab < bb ? ab : bb, bb > ab ? bb : ab), and equal bounds
    // of opposite signs (zeros) go to the whole routine.
    lsDouble2 ab = {a.x, a.y}, bb = {b.x, b.y};
    lsDouble2 lo = lsMin2(ab, bb), hi = lsMax2(bb, ab);
    if (((lsLanes2(ab) ^ lsLanes2(bb)) & ~lsLanes2(lsNotEqual2(ab, bb))) != 0)
    {
        return false;
    }
    out->hit = true;
    out->fraction = lsClampFraction(t, L);
    // lsClamp per lane: lo where the point is not at least lo (NaN too), else the smaller of it and hi.
    lsDouble2 point = (lsDouble2){o.x, o.y} + out->fraction * (lsDouble2){d.x, d.y};
    point = lsSelect2(lsLessEqual2(lo, point), lsMin2(hi, point), lo);
    out->point = (lsVec2){point[0], point[1]};
    return true;
}

/// The common case of lsRayCastSegment, inlined for the scene's casts (one per ray) and run first by
/// lsRayCastSegment itself: both endpoints strictly on one side of the ray's line (a miss), or strictly on opposite
/// sides with every floating-point filter of the crossing deciding and the crossing well conditioned. Returns false
/// when any of that does not hold (the caller then runs the whole routine, which decides those cases exactly);
/// when it returns true, *out is what the whole routine returns, bit for bit: these are its operations on the same
/// doubles in the same order (ray_cast.c's SideOfRay and CastCrossing), only without the calls. L is
/// min(maxFraction, DBL_MAX) >= 0 and d is not zero.
static inline bool lsRayCastSegmentCommon(lsVec2 o, lsVec2 d, double L, lsVec2 a, lsVec2 b, lsCastOutput* out)
{
    int denSign;
    if (!lsRayCastSegmentCrossing(o, d, L, a, b, out, &denSign))
    {
        return false;
    }
    if (out->hit)
    {
        // lsDirectionOf(a, b) is (ex, ey): they are finite here (else sNum would not be).
        double ex = b.x - a.x, ey = b.y - a.y;
        out->normal = lsUnitVectorInline(denSign > 0 ? (lsVec2){-ey, ex} : (lsVec2){ey, -ex});
    }
    return true;
}
/// Exact sign of |p - c|^2 - r^2: negative inside the circle, zero on it. Defined in shape.c.
int lsCircleSideSign(lsVec2 p, lsVec2 c, double r);

/// lsRayCastCircle without its inlined common case (lsRayCastCircleCommon): every case decided by the general code.
/// Tests compare the two. Defined in ray_cast.c.
lsCastOutput lsRayCastCircleFull(const lsCircle* circle, const lsRayInput* input);

/// The common case of lsRayCastCircle without its hit's point and normal (lsCompleteCircleHit adds them, so a caller
/// can leave them out for a hit that cannot win; the robots of a swarm hide each other): the origin outside the
/// circle and every floating-point filter deciding (moving towards the centre, the line's distance from it against
/// r, the near root against the range), and the root well conditioned. Returns false when any of that does not hold
/// (the caller then runs the whole routine, which decides those cases exactly); when it returns true, *out is what
/// the whole routine returns, bit for bit, but for a hit's point and normal: these are its operations on the same
/// doubles in the same order (ray_cast.c's lsRayCastCircleFull), only without the calls. L is min(maxFraction,
/// DBL_MAX) >= 0 and d is not zero.
static inline bool lsRayCastCircleCommon(lsVec2 o, lsVec2 d, double L, lsVec2 c, double r, lsCastOutput* out)
{
    double fx = o.x - c.x, fy = o.y - c.y;
    double ff = fx * fx + fy * fy, rr = r * r;
    double cSide = ff - rr; // C of the quadratic dd t^2 + 2 fd t + C
    double sideBound = LS_FILTER_BOUND8 * (ff + rr);
    if (!(cSide > sideBound && sideBound >= LS_FILTER_TINY && isfinite(sideBound)))
    {
        return false; // inside, on the circle or undecided
    }
    *out = (lsCastOutput){{0.0, 0.0}, {0.0, 0.0}, 0.0, false};
    double p1 = d.x * fx, p2 = d.y * fy;
    double fd = p1 + p2;
    double fdBound = LS_FILTER_BOUND8 * (fabs(p1) + fabs(p2));
    if (!(fabs(fd) > fdBound && fdBound >= LS_FILTER_TINY && isfinite(fdBound)))
    {
        return false;
    }
    if (fd > 0.0)
    {
        return true; // moving away from the centre
    }
    double dd = d.x * d.x + d.y * d.y;
    double c1 = d.x * fy, c2 = d.y * fx;
    double cr = c1 - c2;
    double crErr = 0x1p-51 * (fabs(c1) + fabs(c2));
    double rdd = rr * dd;
    double cr2 = cr * cr;
    double disc = rdd - cr2;
    double discBound = LS_FILTER_BOUND8 * (rdd + cr2) + 2.5 * fabs(cr) * crErr + 2.0 * crErr * crErr;
    if (!(fabs(disc) > discBound && discBound >= LS_FILTER_TINY && isfinite(discBound)))
    {
        return false;
    }
    if (disc < 0.0)
    {
        return true; // the line passes by
    }
    double ldd = L * dd;
    double g = -fd - ldd;
    double gErr = LS_FILTER_BOUND8 * (fabs(p1) + fabs(p2) + ldd);
    if (!(g < -gErr && isfinite(gErr)))
    {
        double h = disc - g * g;
        double hBound = discBound + 2.5 * fabs(g) * gErr + 2.0 * gErr * gErr + 0x1p-51 * (fabs(disc) + g * g);
        if (!(g > gErr && fabs(h) > hBound && hBound >= LS_FILTER_TINY && isfinite(hBound)))
        {
            return false;
        }
        if (h < 0.0)
        {
            return true; // beyond maxFraction
        }
    }
    // disc > discBound > 0 and finite (discBound is), so lsFmax(disc, 0) is disc and the square root the instruction's.
    double q = -fd + lsSqrtPositive(disc);
    double t = cSide / q;
    if ((rdd > LS_CIRCLE_ILL * fabs(disc) || ff > LS_CIRCLE_ILL * fabs(cSide)) && isfinite(rdd + ff))
    {
        return false; // nearly tangent or the origin near the circle: the whole routine recomputes in double-double
    }
    if (!isfinite(t) || !(q > 0.0))
    {
        return false;
    }
    out->hit = true;
    out->fraction = lsClampFraction(t, L);
    return true;
}

/// A circle hit's point and normal from its fraction, as lsRayCastCircle computes them: o + fraction d (kept in the
/// circle's box when it overflows) and the unit vector from the centre (-unit(d) for a point of radius 0).
static inline void lsCompleteCircleHit(lsVec2 o, lsVec2 d, lsVec2 c, double r, lsCastOutput* out)
{
    out->point = lsMulAdd(o, out->fraction, d);
    if (!lsIsValidVec2(out->point))
    {
        out->point = (lsVec2){lsClamp(out->point.x, c.x - r, c.x + r), lsClamp(out->point.y, c.y - r, c.y + r)};
    }
    lsVec2 n = lsUnitVectorInline(lsSub(out->point, c));
    if (n.x == 0.0 && n.y == 0.0)
    {
        n = lsNeg(lsUnitVectorInline(d)); // radius 0: a point has no surface direction
    }
    out->normal = n;
}

/// What lsRayCastCircleCommon computes from the origin and the circle alone, the same for every direction (a scan's
/// beams share the origin).
typedef struct lsCircleCastPrep
{
    lsVec2 o, c;
    double r, fx, fy, ff, rr, cSide;
    bool outside;    ///< the origin is outside by the filter's margin, so the common case may decide
    bool nearOrigin; ///< ff > 2^13 |cSide|: the origin near the circle, every hit left to the whole routine
} lsCircleCastPrep;

/// The part of the circle cast from o that does not depend on the direction.
static inline void lsPrepareCircleCast(lsVec2 o, lsVec2 c, double r, lsCircleCastPrep* p)
{
    p->o = o;
    p->c = c;
    p->r = r;
    p->fx = o.x - c.x;
    p->fy = o.y - c.y;
    p->ff = p->fx * p->fx + p->fy * p->fy;
    p->rr = r * r;
    p->cSide = p->ff - p->rr;
    double sideBound = LS_FILTER_BOUND8 * (p->ff + p->rr);
    p->outside = p->cSide > sideBound && sideBound >= LS_FILTER_TINY && isfinite(sideBound);
    p->nearOrigin = p->ff > LS_CIRCLE_ILL * fabs(p->cSide);
}

/// lsRayCastCircleCommon for two directions at once (lanes 0 and 1 of dx, dy, with L as there), from a prepared
/// origin outside the circle (p->outside). Returns the lanes (bit k for lane k) it decides are misses; *hits gets
/// those it decides are hits, with their fractions in *fraction (the same bits); the rest it leaves undecided. The
/// filters are the scalar routine's, each lane's branches turned into masks. The misses are known before the square
/// root and the division, so a caller's branch on them does not wait for those.
static inline int lsRayCastCircleCommon2(const lsCircleCastPrep* p, lsDouble2 dx, lsDouble2 dy, lsDouble2 L, int* hits,
                                         lsDouble2* fraction)
{
    const lsDouble2 zero = {0.0, 0.0}, tiny = {LS_FILTER_TINY, LS_FILTER_TINY};
    lsDouble2 valid = lsAnd2(lsLessEqual2(zero, L), lsOr2(lsNotEqual2(dx, zero), lsNotEqual2(dy, zero)));
    lsDouble2 p1 = dx * p->fx, p2 = dy * p->fy;
    lsDouble2 fd = p1 + p2;
    lsDouble2 a12 = lsAbs2(p1) + lsAbs2(p2);
    lsDouble2 fdBound = LS_FILTER_BOUND8 * a12;
    lsDouble2 live =
        lsAnd2(lsAnd2(valid, lsLess2(fdBound, lsAbs2(fd))), lsAnd2(lsLessEqual2(tiny, fdBound), lsIsFinite2(fdBound)));
    lsDouble2 away = lsLess2(zero, fd);
    lsDouble2 miss = lsAnd2(live, away); // moving away from the centre
    live = lsAndNot2(away, live);
    lsDouble2 dd = dx * dx + dy * dy;
    lsDouble2 c1 = dx * p->fy, c2 = dy * p->fx;
    lsDouble2 cr = c1 - c2;
    lsDouble2 crErr = 0x1p-51 * (lsAbs2(c1) + lsAbs2(c2));
    lsDouble2 rdd = p->rr * dd;
    lsDouble2 cr2 = cr * cr;
    lsDouble2 disc = rdd - cr2;
    lsDouble2 discBound = LS_FILTER_BOUND8 * (rdd + cr2) + 2.5 * lsAbs2(cr) * crErr + 2.0 * crErr * crErr;
    live = lsAnd2(lsAnd2(live, lsLess2(discBound, lsAbs2(disc))),
                  lsAnd2(lsLessEqual2(tiny, discBound), lsIsFinite2(discBound)));
    lsDouble2 passes = lsLess2(disc, zero);
    miss = lsOr2(miss, lsAnd2(live, passes)); // the line passes by
    live = lsAndNot2(passes, live);
    lsDouble2 ldd = L * dd;
    lsDouble2 g = -fd - ldd;
    lsDouble2 gErr = LS_FILTER_BOUND8 * (a12 + ldd);
    lsDouble2 within = lsAnd2(lsLess2(g, -gErr), lsIsFinite2(gErr));
    if (lsLanes2(lsAndNot2(within, live)) != 0) // a hit may lie beyond L: decide it as the scalar routine does
    {
        lsDouble2 h = disc - g * g;
        lsDouble2 hBound = discBound + 2.5 * lsAbs2(g) * gErr + 2.0 * gErr * gErr + 0x1p-51 * (lsAbs2(disc) + g * g);
        lsDouble2 decides = lsAnd2(lsAnd2(lsLess2(gErr, g), lsLess2(hBound, lsAbs2(h))),
                                   lsAnd2(lsLessEqual2(tiny, hBound), lsIsFinite2(hBound)));
        lsDouble2 beyond = lsAndNot2(within, lsAnd2(decides, lsLess2(h, zero)));
        live = lsAnd2(live, lsOr2(within, decides));
        miss = lsOr2(miss, lsAnd2(live, beyond)); // beyond maxFraction
        live = lsAndNot2(beyond, live);
    }
    lsDouble2 illConditioned =
        p->nearOrigin ? (lsDouble2)((lsBits2){-1, -1}) : lsLess2(LS_CIRCLE_ILL * lsAbs2(disc), rdd);
    illConditioned = lsAnd2(illConditioned, lsIsFinite2(rdd + p->ff));
    lsDouble2 q = -fd + lsSqrt2(disc);
    lsDouble2 t = p->cSide / q;
    *hits = lsLanes2(lsAnd2(lsAndNot2(illConditioned, live), lsAnd2(lsIsFinite2(t), lsLess2(zero, q))));
    *fraction = lsSelect2(lsLessEqual2(zero, t), lsSelect2(lsLess2(L, t), L, t), zero); // lsClamp(t, 0, L)
    return lsLanes2(miss);
}

/// lsCompleteCircleHit for the hits of two lanes (fraction along dx, dy from the prepared origin). Returns the lanes
/// (bit k for lane k) it completed, with their points and normals (the same bits); the others (a point that
/// overflows, a normal's length out of the inline range) are left to lsCompleteCircleHit.
static inline int lsCompleteCircleHit2(const lsCircleCastPrep* p, lsDouble2 dx, lsDouble2 dy, lsDouble2 fraction,
                                       lsDouble2 point[2], lsDouble2 normal[2])
{
    lsDouble2 px = p->o.x + fraction * dx, py = p->o.y + fraction * dy;
    lsDouble2 vx = px - p->c.x, vy = py - p->c.y;
    lsDouble2 len2 = vx * vx + vy * vy;
    lsDouble2 inv = 1.0 / lsSqrt2(len2);
    point[0] = px;
    point[1] = py;
    normal[0] = vx * inv;
    normal[1] = vy * inv;
    lsDouble2 inRange =
        lsAnd2(lsLess2((lsDouble2){0x1p-1000, 0x1p-1000}, len2), lsLess2(len2, (lsDouble2){0x1p1000, 0x1p1000}));
    return lsLanes2(lsAnd2(lsAnd2(lsIsFinite2(px), lsIsFinite2(py)), inRange));
}

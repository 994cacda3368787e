// Tests of sweep.c: a moving point against a moving segment, and the time of first contact of a moving circle with
// a static or moving segment. Hand cases for every degenerate situation, then randomized comparisons against slow
// references (sampling and bisection, conservative advancement in long double) from fixed seeds.
#include "core/sweep.h"
#include "test.h"

#include "lidarsim/geometry.h"

#include <float.h>

// ---------------------------------------------------------------------------------------------------------------------
// Hand cases

static int SweepHandTest(void)
{
    lsSweepHit hits[2];
    // A point crossing a static segment.
    int n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 1), lsV(1, -1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5 && hits[0].point.x == 1.0 && hits[0].point.y == 0.0);
    // Missing it (passes beyond the end), and parallel to it.
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(3, 1), lsV(3, -1), hits) == 0);
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 1), lsV(2, 1), hits) == 0);
    // Through an endpoint exactly (closed segment).
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(2, 1), lsV(2, -1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 1.0);
    // Starting and ending on the segment.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 0), lsV(1, 3), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.5);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 3), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 1.0 && hits[0].s == 0.5);
    // Moving along the segment's line: the first time it is on the closed segment; never on it; already on it.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(-1, 0), lsV(3, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.25 && hits[0].s == 0.0);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(7, 0), lsV(-1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.625 && hits[0].s == 1.0);
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(3, 0), lsV(5, 0), hits) == 0);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0.5, 0), lsV(5, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.25);
    // The segment moving along its own line onto a static point.
    n = lsSweepPointSegment(lsV(-4, 0), lsV(0, 0), lsV(-2, 0), lsV(2, 0), lsV(1, 0), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.75 && hits[0].s == 1.0);
    // A double root: the rotating segment p = 0, q = (1, 2t - 1) touches the point (1.5 - 2t, t - 0.5) at t = 0.5
    // (cross = -(2t - 1)^2), reported once.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(1, -1), lsV(1, 1), lsV(1.5, -0.5), lsV(-0.5, 0.5), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5);
    // Two roots, one of them off the segment: q = (2, 4t - 2), point (1 - 2t, -0.25): cross = 2 (2t - 1)^2 - 0.5.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, -2), lsV(2, 2), lsV(1, -0.25), lsV(-1, -0.25), hits);
    ENSURE(n == 1 && hits[0].t == 0.25 && hits[0].s == 0.25);
    // A swinging segment p = 0, q = (4t - 2, 2) sweeping over the static point (1, 1.5): cross = 6t - 5.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(-2, 2), lsV(2, 2), lsV(1, 1.5), lsV(1, 1.5), hits);
    ENSURE(n == 1);
    ENSURE_SMALL(hits[0].t - 5.0 / 6.0, 1e-15);
    ENSURE_SMALL(hits[0].s - 0.75, 1e-15);
    // Zero-length segment: a point; hit only when the moving point passes exactly through it.
    n = lsSweepPointSegment(lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(0, 0), lsV(2, 2), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.0);
    ENSURE(lsSweepPointSegment(lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(0, 0.1), lsV(2, 2.1), hits) == 0);
    // The segment shrinks to a point at t = 0.5 (a root of the cross product) far from the moving point: no hit.
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 0), lsV(5, 5), lsV(5, 5), hits) == 0);
    // ... and at the point itself: a hit.
    n = lsSweepPointSegment(lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 0), lsV(1, 0), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.5);
    // Huge coordinates.
    n = lsSweepPointSegment(lsV(1e4, 1e4), lsV(1e4, 1e4), lsV(1e4 + 2, 1e4), lsV(1e4 + 2, 1e4), lsV(1e4 + 1, 1e4 + 1),
                            lsV(1e4 + 1, 1e4 - 1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5);
    return 0;
}

static int TimeOfImpactHandTest(void)
{
    lsSegment floor = {{-1, 0}, {1, 0}};
    double t = -1.0;
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, -2), 0.5, &floor, &t) && t == 0.375);
    // End cap: moving along the segment's line onto its end.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(2, 0), lsV(0, 0), 0.5, &floor, &t) && t == 0.25);
    // Cap at an angle: centre passes (1.3, y): contact when the distance to (1, 0) is 0.5, y = 0.4.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(1.3, 2), lsV(1.3, -2), 0.5, &floor, &t));
    ENSURE_SMALL(t - 0.4, 1e-15);
    // Passing by, already touching, tangent touch at the end of the step, not moving.
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(3, 2), lsV(3, -2), 0.5, &floor, &t));
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 0.5), lsV(0, 3), 0.5, &floor, &t) && t == 0.0);
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, 0.5), 0.5, &floor, &t) && t == 1.0);
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, 2), 0.5, &floor, &t));
    // A robot resting against a wall at the skin, a few ulps farther than the radius by the exact test but not by the
    // rounded one, moving into it: contact now (it went through the wall, issue 15's crowd).
    lsSegment wall = {{0, 12}, {0, 0}};
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0.20000100000000004, 1.28), lsV(0.16, 1.29), 0.200001, &wall, &t) &&
           t == 0.0);
    // Grazing: moving parallel at exactly the radius touches where the segment starts (a tangent double root of the
    // cap's quadratic, x = -1); a hair further never touches.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(-3, 0.5), lsV(3, 0.5), 0.5, &floor, &t));
    ENSURE_SMALL(t - 1.0 / 3.0, 1e-15);
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(-3, 0.5000001), lsV(3, 0.5000001), 0.5, &floor, &t));
    // Zero-length segment (a point obstacle) and radius 0 (a moving point).
    lsSegment dot = {{0, 0}, {0, 0}};
    ENSURE(lsTimeOfImpactCircleSegment(lsV(-2, 0), lsV(2, 0), 1.0, &dot, &t) && t == 0.25);
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 1), lsV(0, -1), 0.0, &floor, &t) && t == 0.5);
    // Far away.
    lsSegment far = {{1e4 - 1, 1e4}, {1e4 + 1, 1e4}};
    ENSURE(lsTimeOfImpactCircleSegment(lsV(1e4, 1e4 + 2), lsV(1e4, 1e4 - 2), 0.5, &far, &t) && t == 0.375);

    // Moving segment: a wall sliding down onto a static circle, contact when the wall is at y = 0.5.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, 0), lsV(0, 0), 0.5, lsV(-1, 1), lsV(-1, -1), lsV(1, 1), lsV(1, -1),
                                             &t));
    ENSURE_SMALL(t - 0.25, 1e-12);
    // Both moving towards each other.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, -1), lsV(0, 1), 0.5, lsV(-1, 1), lsV(-1, -1), lsV(1, 1), lsV(1, -1),
                                             &t));
    ENSURE_SMALL(t - 0.25 * 1.5, 1e-12);
    // A zero-length moving segment (a moving point).
    ENSURE(
        lsTimeOfImpactCircleMovingSegment(lsV(0, 0), lsV(0, 0), 1.0, lsV(3, 0), lsV(-3, 0), lsV(3, 0), lsV(-3, 0), &t));
    ENSURE_SMALL(t - 1.0 / 3.0, 1e-15);
    // A rotating segment sweeping past: p fixed at the origin, q swinging from (2, -2) to (2, 2); circle at (1.5, 0).
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(1.5, 0), lsV(1.5, 0), 0.25, lsV(0, 0), lsV(0, 0), lsV(2, -2),
                                             lsV(2, 2), &t));
    ENSURE(t > 0.0 && t < 0.5);
    // At that time the distance from the centre to the segment is the radius.
    lsSegment at = {{0, 0}, {2, -2 + 4 * t}};
    ENSURE_SMALL(lsClosestPointOnSegment(&at, lsV(1.5, 0)).distance - 0.25, 1e-12);
    // Grazing along a (here static) segment at exactly the radius: the quartic vanishes identically, and the first
    // contact is the tangent double root of the end cap's quadratic, x = -1.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(-3, 0.5), lsV(3, 0.5), 0.5, lsV(-1, 0), lsV(-1, 0), lsV(1, 0),
                                             lsV(1, 0), &t));
    ENSURE_SMALL(t - 1.0 / 3.0, 1e-15);
    // Already touching; moving apart; never touching.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, 0.5), lsV(0, 3), 0.5, lsV(-1, 0), lsV(-1, 0), lsV(1, 0), lsV(1, 0),
                                             &t) &&
           t == 0.0);
    ENSURE(!lsTimeOfImpactCircleMovingSegment(lsV(0, 1), lsV(0, 3), 0.5, lsV(-1, 0), lsV(-1, -1), lsV(1, 0), lsV(1, -1),
                                              &t));
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Randomized: the point-segment sweep on an integer grid against an exact reference (signs of integer polynomials at
// quadratic irrational roots), and on real coordinates against fine time sampling with bisection in long double.

__extension__ typedef __int128 Int128;

typedef struct IV
{
    long long x, y;
} IV;

static long long IRand(lsRng* rng, int lo, int hi)
{
    return lo + (long long)(lsRng_Next(rng) % (uint64_t)(hi - lo + 1));
}

static IV IRandVec(lsRng* rng, int lo, int hi)
{
    IV v;
    v.x = IRand(rng, lo, hi);
    v.y = IRand(rng, lo, hi);
    return v;
}

static IV ISubV(IV a, IV b)
{
    IV v = {a.x - b.x, a.y - b.y};
    return v;
}

static long long IDotV(IV a, IV b) { return a.x * b.x + a.y * b.y; }

static long long ICrossV(IV a, IV b) { return a.x * b.y - a.y * b.x; }

// An integer quadratic p2 t^2 + p1 t + p0.
typedef struct IPoly
{
    long long p0, p1, p2;
} IPoly;

// sign(u + v sqrt(D)) for D >= 0.
static int SignSurd(Int128 u, Int128 v, Int128 D)
{
    int su = u > 0 ? 1 : (u < 0 ? -1 : 0), sv = (v > 0 && D > 0) ? 1 : ((v < 0 && D > 0) ? -1 : 0);
    if (sv == 0 || su == sv)
    {
        return su != 0 ? su : sv;
    }
    if (su == 0)
    {
        return sv;
    }
    Int128 uu = u * u, vvD = v * v * D;
    return uu > vvD ? su : (uu < vvD ? sv : 0);
}

// Exact sign of P at the root t = (-B + sigma sqrt(D)) / (2 A) of A t^2 + B t + C (A != 0, D = B^2 - 4 A C >= 0).
// A P(t) = (A p1 - p2 B) t + (A p0 - p2 C) = beta t + alpha, and 2 A (beta t + alpha) = (2 A alpha - beta B) +
// sigma beta sqrt(D), whose sign times sign(A) sign(2A) = +1 is the sign of P(t).
static int SignAtRoot(IPoly P, long long A, long long B, long long C, long long D, int sigma)
{
    Int128 beta = (Int128)A * P.p1 - (Int128)P.p2 * B;
    Int128 alpha = (Int128)A * P.p0 - (Int128)P.p2 * C;
    return SignSurd(2 * (Int128)A * alpha - beta * B, sigma * beta, D);
}

// Exact sign of P at the rational t = n / m (m > 0).
static int SignAtRational(IPoly P, long long n, long long m)
{
    Int128 v = (Int128)P.p2 * n * n + (Int128)P.p1 * n * m + (Int128)P.p0 * m * m;
    return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

typedef struct SweepRef
{
    int count;
    long double t[2], s[2];
} SweepRef;

// Long double position of the point's fraction on the segment at time t (0 when the segment is a point).
static long double FractionAt(IV a, IV b, IV c, IV d, long double t)
{
    long double zx = a.x + t * b.x, zy = a.y + t * b.y, wx = c.x + t * d.x, wy = c.y + t * d.y;
    long double ww = wx * wx + wy * wy;
    return ww > 0 ? (zx * wx + zy * wy) / ww : 0;
}

// Is the point on the closed segment at a root (exact): by signs of |w|^2, |z|^2, dot(z, w) and dot(z, w - z).
typedef struct RootSigns
{
    int ww, zz, zw, zwz, t, oneMinusT;
} RootSigns;

static bool OnSegment(RootSigns r)
{
    if (r.t < 0 || r.oneMinusT < 0)
    {
        return false;
    }
    if (r.ww == 0)
    {
        return r.zz == 0;
    }
    return r.zw >= 0 && r.zwz >= 0;
}

static SweepRef ExactSweep(IV a, IV b, IV c, IV d)
{
    SweepRef ref = {0, {0, 0}, {0, 0}};
    IPoly zw = {IDotV(a, c), IDotV(a, d) + IDotV(b, c), IDotV(b, d)};
    IPoly zz = {IDotV(a, a), 2 * IDotV(a, b), IDotV(b, b)};
    IPoly ww = {IDotV(c, c), 2 * IDotV(c, d), IDotV(d, d)};
    IPoly zwz = {zw.p0 - zz.p0, zw.p1 - zz.p1, zw.p2 - zz.p2};
    IPoly tp = {0, 1, 0}, omt = {1, -1, 0};
    long long A = ICrossV(b, d), B = ICrossV(a, d) + ICrossV(b, c), C = ICrossV(a, c);
    if (A == 0 && B == 0 && C == 0)
    {
        // Along the line for all t: the first t in [0, 1] with dot(z, w - z) >= 0.
        if (zwz.p0 >= 0)
        {
            ref.count = 1;
            ref.t[0] = 0;
        }
        else if (zwz.p2 == 0)
        {
            if (zwz.p1 > 0 && -zwz.p0 <= zwz.p1)
            {
                ref.count = 1;
                ref.t[0] = (long double)-zwz.p0 / zwz.p1;
            }
        }
        else
        {
            long long D = zwz.p1 * zwz.p1 - 4 * zwz.p2 * zwz.p0;
            if (D >= 0)
            {
                long double best = 2;
                for (int sigma = -1; sigma <= 1; sigma += 2)
                {
                    int s0 = SignAtRoot(tp, zwz.p2, zwz.p1, zwz.p0, D, sigma);
                    int s1 = SignAtRoot(omt, zwz.p2, zwz.p1, zwz.p0, D, sigma);
                    long double t = (-(long double)zwz.p1 + sigma * sqrtl((long double)D)) / (2.0L * zwz.p2);
                    if (s0 >= 0 && s1 >= 0 && t < best)
                    {
                        best = t;
                    }
                }
                if (best <= 1)
                {
                    ref.count = 1;
                    ref.t[0] = best;
                }
            }
        }
        if (ref.count == 1)
        {
            ref.s[0] = FractionAt(a, b, c, d, ref.t[0]);
        }
        return ref;
    }
    if (A == 0)
    {
        if (B == 0)
        {
            return ref;
        }
        long long n = -C, m = B;
        if (m < 0)
        {
            n = -n;
            m = -m;
        }
        RootSigns r = {SignAtRational(ww, n, m),  SignAtRational(zz, n, m), SignAtRational(zw, n, m),
                       SignAtRational(zwz, n, m), SignAtRational(tp, n, m), SignAtRational(omt, n, m)};
        if (OnSegment(r))
        {
            ref.count = 1;
            ref.t[0] = (long double)n / m;
            ref.s[0] = FractionAt(a, b, c, d, ref.t[0]);
        }
        return ref;
    }
    long long D = B * B - 4 * A * C;
    if (D < 0)
    {
        return ref;
    }
    long double roots[2];
    int sigmas[2] = {-1, 1};
    int n = 0;
    for (int i = 0; i < (D == 0 ? 1 : 2); ++i)
    {
        int sigma = sigmas[i];
        RootSigns r = {SignAtRoot(ww, A, B, C, D, sigma), SignAtRoot(zz, A, B, C, D, sigma),
                       SignAtRoot(zw, A, B, C, D, sigma), SignAtRoot(zwz, A, B, C, D, sigma),
                       SignAtRoot(tp, A, B, C, D, sigma), SignAtRoot(omt, A, B, C, D, sigma)};
        if (OnSegment(r))
        {
            roots[n++] = (-(long double)B + sigma * sqrtl((long double)D)) / (2.0L * A);
        }
    }
    if (n == 2 && roots[1] < roots[0])
    {
        long double tmp = roots[0];
        roots[0] = roots[1];
        roots[1] = tmp;
    }
    ref.count = n;
    for (int i = 0; i < n; ++i)
    {
        ref.t[i] = roots[i];
        ref.s[i] = FractionAt(a, b, c, d, roots[i]);
    }
    return ref;
}

static int SweepGridTest(void)
{
    lsRng rng = lsMakeRng(2020);
    int mismatches = 0, hits = 0, doubles = 0, alongLine = 0, twoHits = 0;
    static const double units[3] = {1.0, 0.25, 8.0};
    static const double offsets[3] = {0.0, 1e4, -512.5};
    for (int i = 0; i < 150000; ++i)
    {
        // Small integer positions; about a third of the cases put the point's path or the segment on special lines.
        IV p0 = IRandVec(&rng, -4, 4), p1 = IRandVec(&rng, -4, 4), q0 = IRandVec(&rng, -4, 4),
           q1 = IRandVec(&rng, -4, 4), c0 = IRandVec(&rng, -4, 4), c1 = IRandVec(&rng, -4, 4);
        int kind = i % 6;
        if (kind == 0)
        {
            p1 = p0; // static segment
            q1 = q0;
        }
        else if (kind == 1)
        {
            q0 = p0; // zero-length at the start or throughout
            if (i % 12 == 1)
            {
                q1 = p1;
            }
        }
        else if (kind == 2)
        {
            // The point moves along the static segment's line.
            p1 = p0;
            q1 = q0;
            IV e = ISubV(q0, p0);
            long long j0 = IRand(&rng, -2, 3), j1 = IRand(&rng, -2, 3);
            c0 = (IV){p0.x + j0 * e.x, p0.y + j0 * e.y};
            c1 = (IV){p0.x + j1 * e.x, p0.y + j1 * e.y};
        }
        else if (kind == 3)
        {
            c1 = c0; // a static point, moving segment
        }
        IV a = ISubV(c0, p0), b = ISubV(ISubV(c1, c0), ISubV(p1, p0)), c = ISubV(q0, p0),
           d = ISubV(ISubV(q1, q0), ISubV(p1, p0));
        SweepRef ref = ExactSweep(a, b, c, d);
        double unit = units[lsRng_Next(&rng) % 3], ox = offsets[lsRng_Next(&rng) % 3],
               oy = offsets[lsRng_Next(&rng) % 3];
#define MAP(v) lsV((double)(v).x* unit + ox, (double)(v).y * unit + oy)
        lsSweepHit out[2];
        int n = lsSweepPointSegment(MAP(p0), MAP(p1), MAP(q0), MAP(q1), MAP(c0), MAP(c1), out);
#undef MAP
        int bad = n != ref.count;
        for (int k = 0; k < n && !bad; ++k)
        {
            bad += !(fabsl((long double)out[k].t - ref.t[k]) <= 1e-12L &&
                     fabsl((long double)out[k].s - ref.s[k]) <= 1e-9L);
            bad += !(out[k].t >= 0.0 && out[k].t <= 1.0 && out[k].s >= 0.0 && out[k].s <= 1.0);
        }
        bad += n == 2 && !(out[0].t < out[1].t);
        if (bad && mismatches < 5)
        {
            printf("      sweep grid %d: got %d (t %.17g s %.17g), expected %d (t %.17Lg s %.17Lg)\n", i, n,
                   n > 0 ? out[0].t : -1.0, n > 0 ? out[0].s : -1.0, ref.count, ref.t[0], ref.s[0]);
        }
        mismatches += bad != 0;
        hits += ref.count > 0;
        twoHits += ref.count == 2;
        long long A = ICrossV(b, d), B = ICrossV(a, d) + ICrossV(b, c), C = ICrossV(a, c);
        doubles += ref.count == 1 && A != 0 && B * B == 4 * A * C;
        alongLine += ref.count == 1 && A == 0 && B == 0 && C == 0;
    }
    printf("    sweep grid: %d with hits (%d two, %d double roots, %d along the line), %d mismatches\n", hits, twoHits,
           doubles, alongLine, mismatches);
    ENSURE(doubles > 100 && alongLine > 5000 && twoHits > 1000);
    ENSURE(mismatches == 0);
    return 0;
}

// Long double K(t) = cross(q - p, c - p) from positions interpolated in long double.
typedef struct LSweep
{
    long double p0x, p0y, p1x, p1y, q0x, q0y, q1x, q1y, c0x, c0y, c1x, c1y;
} LSweep;

static void LPositions(const LSweep* w, long double t, long double* px, long double* py, long double* qx,
                       long double* qy, long double* cx, long double* cy)
{
    *px = w->p0x + t * (w->p1x - w->p0x);
    *py = w->p0y + t * (w->p1y - w->p0y);
    *qx = w->q0x + t * (w->q1x - w->q0x);
    *qy = w->q0y + t * (w->q1y - w->q0y);
    *cx = w->c0x + t * (w->c1x - w->c0x);
    *cy = w->c0y + t * (w->c1y - w->c0y);
}

static long double LK(const LSweep* w, long double t)
{
    long double px, py, qx, qy, cx, cy;
    LPositions(w, t, &px, &py, &qx, &qy, &cx, &cy);
    return (qx - px) * (cy - py) - (qy - py) * (cx - px);
}

static long double LFraction(const LSweep* w, long double t, long double* len)
{
    long double px, py, qx, qy, cx, cy;
    LPositions(w, t, &px, &py, &qx, &qy, &cx, &cy);
    long double wx = qx - px, wy = qy - py;
    *len = sqrtl(wx * wx + wy * wy);
    return ((cx - px) * wx + (cy - py) * wy) / (wx * wx + wy * wy);
}

static int SweepSamplingTest(void)
{
    lsRng rng = lsMakeRng(3030);
    int mismatches = 0, skipped = 0, hits = 0, twoHits = 0;
    const int samples = 64;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, -2.0, 3.0));
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 v[6];
        for (int k = 0; k < 6; ++k)
        {
            v[k] = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        }
        if (i % 2 == 0)
        {
            // Constructed to meet: at a random time the point is at a random fraction of the segment.
            double ts = lsRng_Range(&rng, 0.05, 1.0), ss = lsRng_Range(&rng, 0.0, 1.0);
            lsVec2 x = lsLerp(lsLerp(v[0], v[1], ts), lsLerp(v[2], v[3], ts), ss);
            v[5] = lsMulAdd(v[4], 1.0 / ts, lsSub(x, v[4]));
        }
        LSweep w = {(long double)v[0].x, (long double)v[0].y, (long double)v[1].x, (long double)v[1].y,
                    (long double)v[2].x, (long double)v[2].y, (long double)v[3].x, (long double)v[3].y,
                    (long double)v[4].x, (long double)v[4].y, (long double)v[5].x, (long double)v[5].y};
        // Sample K, including the vertex of the quadratic through K(0), K(1/2), K(1), so no pair of roots hides
        // between samples; bisect each sign change.
        long double k0 = LK(&w, 0), kh = LK(&w, 0.5L), k1 = LK(&w, 1);
        long double qa = 2 * (k1 - 2 * kh + k0), qb = k1 - k0 - qa; // K = qa t^2 + qb t + k0
        long double ts[samples + 2];
        int nt = 0;
        for (int k = 0; k <= samples; ++k)
        {
            ts[nt++] = (long double)k / samples;
        }
        long double vertex = qa != 0 ? -qb / (2 * qa) : -1;
        bool ambiguous = false;
        long double kScale = (long double)(scale * scale * 4);
        if (vertex > 0 && vertex < 1)
        {
            ts[nt++] = vertex;
            ambiguous = fabsl(LK(&w, vertex)) < 1e-9L * kScale; // a near-double root
        }
        for (int a = 1; a < nt; ++a) // insertion sort (only the vertex is out of place)
        {
            for (int b = a; b > 0 && ts[b] < ts[b - 1]; --b)
            {
                long double tmp = ts[b];
                ts[b] = ts[b - 1];
                ts[b - 1] = tmp;
            }
        }
        long double refT[4];
        long double refS[4];
        int nr = 0;
        for (int k = 0; k + 1 < nt && !ambiguous; ++k)
        {
            long double lo = ts[k], hi = ts[k + 1], flo = LK(&w, lo), fhi = LK(&w, hi);
            if ((flo < 0) == (fhi < 0) || flo == 0)
            {
                continue;
            }
            for (int it = 0; it < 80; ++it)
            {
                long double mid = 0.5L * (lo + hi), fm = LK(&w, mid);
                if ((fm < 0) == (flo < 0))
                {
                    lo = mid;
                }
                else
                {
                    hi = mid;
                }
            }
            long double t = 0.5L * (lo + hi), len;
            long double sf = LFraction(&w, t, &len);
            long double margin = 1e-8L;
            if (t < margin || t > 1 - margin || fabsl(sf) < margin || fabsl(sf - 1) < margin ||
                len < 1e-6L * (long double)scale)
            {
                ambiguous = true;
                break;
            }
            if (sf > 0 && sf < 1 && nr < 4)
            {
                refT[nr] = t;
                refS[nr] = sf;
                ++nr;
            }
        }
        if (ambiguous || fabsl(k0) < 1e-9L * kScale || fabsl(k1) < 1e-9L * kScale)
        {
            ++skipped;
            continue;
        }
        lsSweepHit out[2];
        int n = lsSweepPointSegment(v[0], v[1], v[2], v[3], v[4], v[5], out);
        int bad = n != nr;
        for (int k = 0; k < n && !bad; ++k)
        {
            bad +=
                !(fabsl((long double)out[k].t - refT[k]) <= 1e-9L && fabsl((long double)out[k].s - refS[k]) <= 1e-8L);
        }
        if (bad && mismatches < 5)
        {
            printf("      sweep sampling %d: got %d (t %.17g), expected %d (t %.17Lg)\n", i, n, n > 0 ? out[0].t : -1.0,
                   nr, nr > 0 ? refT[0] : -1.0L);
        }
        mismatches += bad != 0;
        hits += nr > 0;
        twoHits += nr == 2;
    }
    printf("    sweep sampling: %d with hits (%d two), %d skipped, %d mismatches\n", hits, twoHits, skipped,
           mismatches);
    ENSURE(skipped < 3000 && hits > 40000 && twoHits > 500);
    ENSURE(mismatches == 0);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Time of impact against conservative advancement in long double: the distance can shrink no faster than the
// largest relative speed, so stepping by distance / speed never passes a contact.

typedef struct LToi
{
    long double c0x, c0y, c1x, c1y, p0x, p0y, p1x, p1y, q0x, q0y, q1x, q1y, r;
} LToi;

static long double LGap(const LToi* m, long double t) // distance from the centre to the segment, minus r
{
    long double cx = m->c0x + t * (m->c1x - m->c0x), cy = m->c0y + t * (m->c1y - m->c0y);
    long double px = m->p0x + t * (m->p1x - m->p0x), py = m->p0y + t * (m->p1y - m->p0y);
    long double qx = m->q0x + t * (m->q1x - m->q0x), qy = m->q0y + t * (m->q1y - m->q0y);
    long double ex = qx - px, ey = qy - py, fx = cx - px, fy = cy - py;
    long double ee = ex * ex + ey * ey;
    long double u = ee > 0 ? (fx * ex + fy * ey) / ee : 0;
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    long double dx = fx - u * ex, dy = fy - u * ey;
    return sqrtl(dx * dx + dy * dy) - m->r;
}

static int ToiRandom(bool moving, uint64_t seed, int* hitsOut, int* skippedOut)
{
    lsRng rng = lsMakeRng(seed);
    int mismatches = 0, skipped = 0, hits = 0;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, -2.0, 3.0));
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 v[6];
        for (int k = 0; k < 6; ++k)
        {
            v[k] = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        }
        if (!moving)
        {
            v[3] = v[2]; // p static
            v[5] = v[4]; // q static
        }
        if (i % 10 == 0)
        {
            v[4] = v[2]; // zero-length segment at the start
            v[5] = moving && i % 20 == 0 ? v[5] : v[3];
        }
        double r = scale * lsRng_Range(&rng, 0.0, 0.3);
        lsVec2 c0 = v[0], c1 = v[1];
        LToi m = {(long double)c0.x,   (long double)c0.y,   (long double)c1.x,   (long double)c1.y,
                  (long double)v[2].x, (long double)v[2].y, (long double)v[3].x, (long double)v[3].y,
                  (long double)v[4].x, (long double)v[4].y, (long double)v[5].x, (long double)v[5].y,
                  (long double)r};
        long double speed = sqrtl((m.c1x - m.c0x) * (m.c1x - m.c0x) + (m.c1y - m.c0y) * (m.c1y - m.c0y)) +
                            fmaxl(sqrtl((m.p1x - m.p0x) * (m.p1x - m.p0x) + (m.p1y - m.p0y) * (m.p1y - m.p0y)),
                                  sqrtl((m.q1x - m.q0x) * (m.q1x - m.q0x) + (m.q1y - m.q0y) * (m.q1y - m.q0y)));
        long double tol = 1e-9L * (long double)scale;
        long double tRef = -1, t = 0;
        bool capped = true;
        for (int it = 0; it < 20000; ++it)
        {
            long double gap = LGap(&m, t);
            if (gap <= tol)
            {
                tRef = t;
                capped = false;
                break;
            }
            t += gap / speed;
            if (t > 1)
            {
                capped = false;
                break;
            }
        }
        double tOut = -1.0;
        bool hit = moving ? lsTimeOfImpactCircleMovingSegment(c0, c1, r, v[2], v[3], v[4], v[5], &tOut)
                          : lsTimeOfImpactCircleSegment(c0, c1, r, &(lsSegment){v[2], v[4]}, &tOut);
        if (capped)
        {
            ++skipped;
            continue;
        }
        int bad = 0;
        if (tRef < 0)
        {
            // No contact anywhere (the gap stayed positive); a touch within the tolerance is acceptable.
            bad = hit && !(LGap(&m, (long double)tOut) <= tol);
        }
        else if (!hit)
        {
            // The reference came within tol; a miss is right only for a graze that never goes deeper.
            long double minGap = 1e300L;
            for (int k = 0; k <= 400; ++k)
            {
                minGap = fminl(minGap, LGap(&m, tRef + (1 - tRef) * k / 400));
            }
            if (minGap >= -tol)
            {
                ++skipped;
                continue;
            }
            bad = 1;
        }
        else
        {
            ++hits;
            // Not before the reference (no contact there), touching at tOut, nothing deeper in between.
            bad += !((long double)tOut >= tRef - 1e-12L && tOut >= 0.0 && tOut <= 1.0);
            bad += !(LGap(&m, (long double)tOut) <= 4 * tol);
            // Already overlapping at the start must give 0.
            bad += LGap(&m, 0) < -tol && tOut != 0.0;
            for (int k = 0; k < 64 && !bad && (long double)tOut > tRef; ++k)
            {
                bad += LGap(&m, tRef + ((long double)tOut - tRef) * k / 64) < -4 * tol;
            }
        }
        if (bad && mismatches < 5)
        {
            printf("      toi %s %d: got %d t %.17g, reference t %.17Lg\n", moving ? "moving" : "static", i, hit, tOut,
                   tRef);
        }
        mismatches += bad != 0;
    }
    *hitsOut = hits;
    *skippedOut = skipped;
    return mismatches;
}

static int ToiRandomTest(void)
{
    int hits = 0, skipped = 0;
    int mismatches = ToiRandom(false, 4040, &hits, &skipped);
    printf("    toi static segment: %d contacts, %d skipped, %d mismatches\n", hits, skipped, mismatches);
    ENSURE(mismatches == 0 && hits > 20000 && skipped < 2000);
    mismatches = ToiRandom(true, 5050, &hits, &skipped);
    printf("    toi moving segment: %d contacts, %d skipped, %d mismatches\n", hits, skipped, mismatches);
    ENSURE(mismatches == 0 && hits > 20000 && skipped < 2000);
    return 0;
}

static int SweepFiniteTest(void)
{
    lsRng rng = lsMakeRng(6060);
    int bad = 0;
    for (int i = 0; i < 100000; ++i)
    {
        int e = i % 2 ? 150 : 20;
        lsVec2 v[6];
        for (int k = 0; k < 6; ++k)
        {
            int yExponent = (int)IRand(&rng, -e, e);
            double y = ldexp(lsRng_Range(&rng, -1, 1), yExponent);
            int xExponent = (int)IRand(&rng, -e, e);
            v[k] = lsV(ldexp(lsRng_Range(&rng, -1, 1), xExponent), y);
        }
        lsSweepHit hits[2];
        int n = lsSweepPointSegment(v[0], v[1], v[2], v[3], v[4], v[5], hits);
        for (int k = 0; k < n; ++k)
        {
            bad += !(hits[k].t >= 0.0 && hits[k].t <= 1.0 && hits[k].s >= 0.0 && hits[k].s <= 1.0 &&
                     lsIsValidVec2(hits[k].point));
        }
        int rExponent = (int)IRand(&rng, -e, e);
        double r = ldexp(lsRng_Range(&rng, 0, 1), rExponent), t = -1.0;
        lsSegment seg = {v[2], v[3]};
        if (lsTimeOfImpactCircleSegment(v[0], v[1], r, &seg, &t))
        {
            bad += !(t >= 0.0 && t <= 1.0);
        }
        if (lsTimeOfImpactCircleMovingSegment(v[0], v[1], r, v[2], v[3], v[4], v[5], &t))
        {
            bad += !(t >= 0.0 && t <= 1.0);
        }
    }
    printf("    sweep finite outputs: %d bad\n", bad);
    ENSURE(bad == 0);
    return 0;
}

int SweepTest(void)
{
    RUN_SUBTEST(SweepHandTest);
    RUN_SUBTEST(TimeOfImpactHandTest);
    RUN_SUBTEST(SweepGridTest);
    RUN_SUBTEST(SweepSamplingTest);
    RUN_SUBTEST(ToiRandomTest);
    RUN_SUBTEST(SweepFiniteTest);
    return 0;
}

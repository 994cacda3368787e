// Tests of the geometry files and exact.c: hand-made degenerate cases, then randomized properties against independent
// slow references (long double arithmetic, dense sampling) from fixed seeds.
#include "test.h"

#include "core/exact.h"
#include "core/geometry_internal.h"
#include "lidarsim/geometry.h"

#include <float.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Predicates

static int OrientHandTest(void)
{
    ENSURE(lsOrient(lsV(0, 0), lsV(1, 0), lsV(0, 1)) == 1);
    ENSURE(lsOrient(lsV(0, 0), lsV(1, 0), lsV(0, -1)) == -1);
    ENSURE(lsOrient(lsV(0, 0), lsV(1, 0), lsV(5, 0)) == 0);
    ENSURE(lsOrient(lsV(1, 1), lsV(1, 1), lsV(3, 7)) == 0);
    // Shewchuk's classic: points nearly on y = x, where the naive determinant gives wrong or zero signs.
    lsVec2 a = {0.5, 0.5}, b = {12.0, 12.0}, c = {24.0, 24.0};
    int wrong = 0;
    for (int i = 0; i < 64; ++i)
    {
        for (int j = 0; j < 64; ++j)
        {
            lsVec2 p = {a.x + i * 0x1p-53, a.y + j * 0x1p-53};
            // Exact sign: the line y = x through b and c; p is left of b->c when p.y > p.x.
            int expected = p.y > p.x ? 1 : (p.y < p.x ? -1 : 0);
            wrong += lsOrient(b, c, p) != expected;
            wrong += lsOrient(p, b, c) != expected;
            wrong += lsOrient(c, p, b) != expected;
        }
    }
    ENSURE(wrong == 0);
    // Extreme magnitudes: huge cancelling terms leave a tiny one, subnormals, overflowing differences.
    ENSURE(lsOrient(lsV(0, 0), lsV(1e300, 0), lsV(2e300, 1e-300)) == 1);
    ENSURE(lsOrient(lsV(-1e308, 0), lsV(1e308, 0), lsV(0, -4.9e-324)) == -1);
    ENSURE(lsOrient(lsV(-1e308, -1e308), lsV(1e308, 1e308), lsV(0, 0)) == 0);
    ENSURE(lsOrient(lsV(-1e308, -1e308), lsV(1e308, 1e308), lsV(0, 4.9e-324)) == 1);
    ENSURE(lsOrient(lsV(4.9e-324, 0), lsV(0, 4.9e-324), lsV(0, 0)) == 1);
    ENSURE(lsOrientDir(lsV(0, 0), lsV(1e-300, 1e-300), lsV(1e300, 1e300)) == 0);
    ENSURE(lsOrientDir(lsV(0, 0), lsV(1e-300, 1e-300), lsV(1e300, nextafter(1e300, 2e300))) == 1);
    // o + d is never formed: a direction that would round away still gives the exact side.
    ENSURE(lsOrientDir(lsV(1e16, 0), lsV(1, 1e-20), lsV(1e16 + 2, 0)) == -1);
    return 0;
}

// Exact sign of a*b + c*d*e - f by the engine against a long double evaluation where that is exact.
static int ExactEngineTest(void)
{
    lsRng rng = lsMakeRng(11);
    int wrong = 0;
    for (int i = 0; i < 100000; ++i)
    {
        // 20-bit integers scaled by powers of two: products fit in long double's 64-bit mantissa exactly.
        double a = ldexp((double)(lsRng_Next(&rng) % 2000001) - 1e6, -10);
        double b = ldexp((double)(lsRng_Next(&rng) % 2000001) - 1e6, -10);
        double c = ldexp((double)(lsRng_Next(&rng) % 2001) - 1000, -5);
        double d = ldexp((double)(lsRng_Next(&rng) % 2001) - 1000, -5);
        double e = ldexp((double)(lsRng_Next(&rng) % 2001) - 1000, -5);
        double f = (i % 3 == 0) ? a * b + c * d * e : ldexp((double)(lsRng_Next(&rng) % 2000001) - 1e6, 5);
        long double v =
            (long double)a * (long double)b + (long double)c * (long double)d * (long double)e - (long double)f;
        int expected = v > 0 ? 1 : (v < 0 ? -1 : 0);
        lsExactTerm terms[3] = {{{a, b}, 2}, {{c, d, e}, 3}, {{-f}, 1}};
        wrong += lsExactSign(terms, 3) != expected;
    }
    ENSURE(wrong == 0);
    // Terms far apart in magnitude: 2^1000 - 2^1000 + 2^-1000 * 2^-74 > 0.
    lsExactTerm terms[3] = {{{0x1p500, 0x1p500}, 2}, {{-0x1p1000}, 1}, {{0x1p-1000, 0x1p-74}, 2}};
    ENSURE(lsExactSign(terms, 3) == 1);
    // DBL_MAX 2^-1074 = 2^-50 - 2^-103, so its cube lies just below 2^-150.
    lsExactTerm six[2] = {{{DBL_MAX, DBL_MAX, DBL_MAX, 4.9e-324, 4.9e-324, 4.9e-324}, 6}, {{-0x1p-150}, 1}};
    ENSURE(lsExactSign(six, 2) == -1);
    six[1].f[0] = -0x1p-151;
    ENSURE(lsExactSign(six, 2) == 1);

    // The accumulator: (sum x)(sum y) - (sum y)(sum x) is exactly zero over 32 x 32 x 2 products of wildly scaled
    // doubles; adding the smallest subnormal (times 1) makes it positive, subtracting it negative.
    lsRng r = lsMakeRng(12);
    lsExactTerm xs[32], ys[32];
    for (int i = 0; i < 32; ++i)
    {
        int xExponent = (int)(lsRng_Next(&r) % 1200) - 600;
        xs[i] = (lsExactTerm){{ldexp(lsRng_Range(&r, -1, 1), xExponent)}, 1};
        int yExponent = (int)(lsRng_Next(&r) % 1200) - 600;
        ys[i] = (lsExactTerm){{ldexp(lsRng_Range(&r, -1, 1), yExponent), 3.0}, 2};
    }
    lsExactSum sum;
    lsExactSum_Clear(&sum);
    lsExactSum_AddProduct(&sum, xs, 32, ys, 32, 1.0);
    lsExactSum_AddProduct(&sum, ys, 32, xs, 32, -1.0);
    ENSURE(lsExactSum_Sign(&sum) == 0);
    lsExactSum_Add(&sum, &(lsExactTerm){{4.9e-324, 1.0}, 2});
    ENSURE(lsExactSum_Sign(&sum) == 1);
    lsExactSum_Add(&sum, &(lsExactTerm){{-4.9e-324, 2.0}, 2});
    ENSURE(lsExactSum_Sign(&sum) == -1);
    // Agrees with lsExactSign on random short sums.
    for (int i = 0; i < 20000; ++i)
    {
        lsExactTerm shortTerms[5];
        int n = 1 + (int)(lsRng_Next(&r) % 5);
        for (int k = 0; k < n; ++k)
        {
            shortTerms[k].count = 1 + (int)(lsRng_Next(&r) % 3);
            for (int f = 0; f < shortTerms[k].count; ++f)
            {
                int exponent = (int)(lsRng_Next(&r) % 9) - 4;
                shortTerms[k].f[f] = ldexp((double)(int)lsRng_Range(&r, -8, 8), exponent);
            }
        }
        lsExactSum_Clear(&sum);
        for (int k = 0; k < n; ++k)
        {
            lsExactSum_Add(&sum, shortTerms + k);
        }
        // Small integers times small powers of two: every partial sum is exact in long double's 64-bit mantissa.
        long double v = 0;
        for (int k = 0; k < n; ++k)
        {
            long double p = 1;
            for (int f = 0; f < shortTerms[k].count; ++f)
            {
                p *= (long double)shortTerms[k].f[f];
            }
            v += p;
        }
        int expected = v > 0 ? 1 : (v < 0 ? -1 : 0);
        wrong += lsExactSum_Sign(&sum) != expected || lsExactSign(shortTerms, n) != expected;
    }
    ENSURE(wrong == 0);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts: hand cases

static int RaySegmentHandTest(void)
{
    lsSegment wall = {{2, -1}, {2, 1}};
    lsCastOutput out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 2.0 && out.point.x == 2.0 && out.point.y == 0.0);
    ENSURE(out.normal.x == -1.0 && out.normal.y == 0.0);
    // Two-sided: from the other side the normal faces back.
    out = lsRayCastSegment(&wall, &(lsRayInput){{5, 0}, {-1, 0}, 10});
    ENSURE(out.hit && out.fraction == 3.0 && out.normal.x == 1.0);
    // Exactly at max range counts; just short does not.
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {1, 0}, 2});
    ENSURE(out.hit && out.fraction == 2.0);
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {1, 0}, nextafter(2.0, 0.0)});
    ENSURE(!out.hit);
    // Through an endpoint (closed) and just past it.
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, 1}, {1, 0}, 10});
    ENSURE(out.hit && out.point.x == 2.0 && out.point.y == 1.0);
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, nextafter(1.0, 2.0)}, {1, 0}, 10});
    ENSURE(!out.hit);
    // Behind the origin, parallel, zero direction, negative range.
    ENSURE(!lsRayCastSegment(&wall, &(lsRayInput){{3, 0}, {1, 0}, 10}).hit);
    ENSURE(!lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {0, 1}, 10}).hit);
    ENSURE(!lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {0, 0}, 10}).hit);
    ENSURE(!lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {1, 0}, -1}).hit);
    // Origin on the segment: fraction 0.
    out = lsRayCastSegment(&wall, &(lsRayInput){{2, 0.5}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 0.0);
    // Collinear: nearer endpoint, origin inside, behind, beyond range.
    lsSegment floor = {{3, 0}, {7, 0}};
    out = lsRayCastSegment(&floor, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 3.0 && out.point.x == 3.0 && out.normal.x == -1.0 && out.normal.y == 0.0);
    out = lsRayCastSegment(&floor, &(lsRayInput){{10, 0}, {-1, 0}, 10});
    ENSURE(out.hit && out.fraction == 3.0 && out.point.x == 7.0 && out.normal.x == 1.0);
    out = lsRayCastSegment(&floor, &(lsRayInput){{5, 0}, {-1, 0}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && out.point.x == 5.0);
    ENSURE(!lsRayCastSegment(&floor, &(lsRayInput){{8, 0}, {1, 0}, 10}).hit);
    ENSURE(!lsRayCastSegment(&floor, &(lsRayInput){{0, 0}, {1, 0}, 2.5}).hit);
    ENSURE(lsRayCastSegment(&floor, &(lsRayInput){{0, 0}, {1, 0}, 3}).hit);
    // Diagonal collinear with non-unit direction.
    lsSegment diag = {{1, 1}, {3, 3}};
    out = lsRayCastSegment(&diag, &(lsRayInput){{0, 0}, {2, 2}, 10});
    ENSURE(out.hit && out.fraction == 0.5 && out.point.x == 1.0);
    // Zero-length segment: a point, hit only exactly.
    lsSegment dot = {{4, 4}, {4, 4}};
    out = lsRayCastSegment(&dot, &(lsRayInput){{0, 0}, {1, 1}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.point.x == 4.0);
    ENSURE(!lsRayCastSegment(&dot, &(lsRayInput){{0, 0}, {1, nextafter(1.0, 2.0)}, 10}).hit);
    ENSURE(!lsRayCastSegment(&dot, &(lsRayInput){{0, 0}, {-1, -1}, 10}).hit);
    // Huge coordinates (10 km and far beyond).
    lsSegment far = {{1e4, 1e4 - 1}, {1e4, 1e4 + 1}};
    out = lsRayCastSegment(&far, &(lsRayInput){{1e4 - 5, 1e4}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 5.0);
    lsSegment vast = {{1e300, -1e300}, {1e300, 1e300}};
    out = lsRayCastSegment(&vast, &(lsRayInput){{-1e300, 0}, {1, 0}, DBL_MAX});
    ENSURE(out.hit && isfinite(out.fraction) && lsIsValidVec2(out.point) && lsIsValidVec2(out.normal));
    ENSURE_SMALL(out.fraction / 2e300 - 1.0, 1e-15);
    // An infinite range is allowed (treated as the largest finite one).
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {1, 0}, HUGE_VAL});
    ENSURE(out.hit && out.fraction == 2.0);
    lsCircle disc = {{5, 0}, 1};
    ENSURE(lsRayCastCircle(&disc, &(lsRayInput){{0, 0}, {1, 0}, HUGE_VAL}).fraction == 4.0);
    lsBox square = lsMakeBox(lsV(5, 0), lsV(2, 2), 0.0);
    ENSURE(lsRayCastBox(&square, &(lsRayInput){{0, 0}, {1, 0}, HUGE_VAL}).fraction == 4.0);
    return 0;
}

// A ray from a point of a shape reports +0, never -0: the lidar prints fractions as ranges, and a LaserScan range
// of -0.0 (the origin at a wall's corner, a beam pointing left) is no distance a reader expects.
static int ZeroFractionSignTest(void)
{
    // The origin is the wall's endpoint; the beam leaves it to the left, off the wall's line (the corner case of a
    // 4-beam scan from a robot standing on a corner: direction (cos, sin)(-pi)).
    lsSegment wall = {{0, 0}, {1, 0}};
    lsCastOutput out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {-1.0, -1.2246467991473532e-16}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    out = lsRayCastSegment(&wall, &(lsRayInput){{0, 0}, {-1.0, 1.0}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    // The origin inside a wall, crossed with cross(d, b - a) < 0: num is exactly 0 and den negative.
    lsSegment diag = {{-1, -1}, {1, 1}};
    out = lsRayCastSegment(&diag, &(lsRayInput){{0, 0}, {-1.0, 0.5}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    out = lsRayCastSegment(&diag, &(lsRayInput){{0, 0}, {1.0, -0.5}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    // Collinear, the origin at the far end, and polygons entered at a vertex the origin sits on.
    out = lsRayCastSegment(&wall, &(lsRayInput){{1, 0}, {-1, 0}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    lsPolygon triangle;
    ENSURE(lsMakePolygon(&triangle, (lsVec2[]){{0, 0}, {1, 0}, {0, 1}}, 3));
    for (int k = 0; k < 16; ++k)
    {
        lsVec2 d = lsDirection(2.0 * LS_PI * k / 16.0);
        out = lsRayCastPolygon(&triangle, &(lsRayInput){{0, 0}, d, 10});
        ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
        out = lsRayCastSegment(&wall, &(lsRayInput){{0.5, 0}, d, 10});
        ENSURE(out.hit && out.fraction == 0.0 && !signbit(out.fraction));
    }
    return 0;
}

// Beams aimed at the corners of closed rooms (shared endpoints) from many origins: every beam hits a wall, at the
// corner within rounding.
static int CornerLeakTest(void)
{
    lsRng rng = lsMakeRng(3);
    int leaks = 0, far = 0, cases = 0;
    for (int room = 0; room < 200; ++room)
    {
        // A random convex room (regular polygon, random rotation, centre and scale up to 10 km).
        int n = 3 + room % 6;
        double scale = room % 2 ? lsRng_Range(&rng, 0.5, 20.0) : lsRng_Range(&rng, 100.0, 5000.0);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        double phase = lsRng_Range(&rng, 0.0, 2.0 * LS_PI);
        lsVec2 corners[8];
        for (int i = 0; i < n; ++i)
        {
            corners[i] = lsMulAdd(center, scale, lsDirection(phase + 2.0 * LS_PI * i / n));
        }
        for (int k = 0; k < 200; ++k)
        {
            // An origin inside the room, a beam aimed at corner c (direction rounded, so it passes a hair's breadth
            // to one side of the corner, or exactly through it when the rounding cancels).
            double u = lsRng_Range(&rng, 0.0, 0.9), w = lsRng_Range(&rng, 0.0, 2.0 * LS_PI);
            lsVec2 o = lsMulAdd(center, u * scale * cos(LS_PI / n), lsDirection(w));
            int c = k % n;
            lsVec2 d = lsNormalize(lsSub(corners[c], o));
            lsRayInput in = {o, d, 3.0 * scale};
            double best = HUGE_VAL;
            for (int i = 0; i < n; ++i)
            {
                lsSegment wall = {corners[i], corners[(i + 1) % n]};
                lsCastOutput out = lsRayCastSegment(&wall, &in);
                if (out.hit && out.fraction < best)
                {
                    best = out.fraction;
                }
            }
            ++cases;
            if (!(best < HUGE_VAL))
            {
                ++leaks;
            }
            else if (fabs(best - lsDistance(o, corners[c])) > 1e-9 * scale)
            {
                ++far;
            }
        }
    }
    ENSURE(cases == 40000);
    ENSURE(leaks == 0);
    ENSURE(far == 0);
    // Non-convex closed rooms (star-shaped around their centre, walls sharing endpoints): beams from the centre
    // aimed at every corner and in 720 directions always hit a wall.
    for (int room = 0; room < 200; ++room)
    {
        int n = 5 + room % 20;
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 corners[24];
        for (int i = 0; i < n; ++i)
        {
            double turn = 2.0 * LS_PI * (i + lsRng_Range(&rng, 0.0, 0.9)) / n;
            corners[i] = lsMulAdd(center, lsRng_Range(&rng, 1.0, 50.0), lsDirection(turn));
        }
        for (int k = 0; k < n + 720; ++k)
        {
            lsVec2 d = k < n ? lsNormalize(lsSub(corners[k], center)) : lsDirection(2.0 * LS_PI * (k - n) / 720.0);
            lsRayInput in = {center, d, 100.0};
            bool hit = false;
            for (int i = 0; i < n && !hit; ++i)
            {
                lsSegment wall = {corners[i], corners[(i + 1) % n]};
                hit = lsRayCastSegment(&wall, &in).hit;
            }
            leaks += !hit;
        }
    }
    ENSURE(leaks == 0);
    // A beam exactly through a shared corner hits both walls at that corner.
    lsSegment w1 = {{0, 0}, {4, 0}}, w2 = {{4, 0}, {4, 4}};
    for (int i = 1; i < 40; ++i)
    {
        lsRayInput in = {{4.0 - i, (double)i * 0.25}, {(double)i, -(double)i * 0.25}, 2.0};
        lsCastOutput a = lsRayCastSegment(&w1, &in), b = lsRayCastSegment(&w2, &in);
        ENSURE(a.hit && b.hit && a.fraction == 1.0 && b.fraction == 1.0);
        ENSURE(lsVecEqual(a.point, lsV(4, 0)) && lsVecEqual(b.point, lsV(4, 0)));
    }
    return 0;
}

static int RayCircleHandTest(void)
{
    lsCircle circle = {{5, 0}, 1};
    lsCastOutput out = lsRayCastCircle(&circle, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.point.x == 4.0 && out.normal.x == -1.0);
    // Exactly at range, just short.
    ENSURE(lsRayCastCircle(&circle, &(lsRayInput){{0, 0}, {1, 0}, 4}).hit);
    ENSURE(!lsRayCastCircle(&circle, &(lsRayInput){{0, 0}, {1, 0}, nextafter(4.0, 0.0)}).hit);
    // Tangent: hits once at the touching point; a hair further misses.
    out = lsRayCastCircle(&circle, &(lsRayInput){{0, 1}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 5.0 && out.point.y == 1.0 && out.normal.y == 1.0);
    ENSURE(!lsRayCastCircle(&circle, &(lsRayInput){{0, nextafter(1.0, 2.0)}, {1, 0}, 10}).hit);
    // Inside and on the boundary: fraction 0, normal against the direction.
    out = lsRayCastCircle(&circle, &(lsRayInput){{5, 0.5}, {0, 2}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && out.normal.y == -1.0);
    out = lsRayCastCircle(&circle, &(lsRayInput){{6, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 0.0);
    // Behind and moving away.
    ENSURE(!lsRayCastCircle(&circle, &(lsRayInput){{0, 0}, {-1, 0}, 10}).hit);
    ENSURE(!lsRayCastCircle(&circle, &(lsRayInput){{7, 0}, {1, 0}, 10}).hit);
    // Radius zero: a point.
    lsCircle dot = {{3, 3}, 0};
    out = lsRayCastCircle(&dot, &(lsRayInput){{0, 0}, {1, 1}, 10});
    ENSURE(out.hit && out.fraction == 3.0 && lsIsValidVec2(out.normal));
    ENSURE(!lsRayCastCircle(&dot, &(lsRayInput){{0, 0}, {1, nextafter(1.0, 2.0)}, 10}).hit);
    // Far away and large.
    lsCircle far = {{1e4, 1e4}, 0.25};
    out = lsRayCastCircle(&far, &(lsRayInput){{-1e4, 1e4}, {1, 0}, 3e4});
    ENSURE(out.hit && out.fraction == 2e4 - 0.25);
    lsCircle vast = {{0, 0}, 1e200};
    out = lsRayCastCircle(&vast, &(lsRayInput){{-1e250, 0}, {1e100, 0}, 1e200});
    ENSURE(out.hit && isfinite(out.fraction) && lsIsValidVec2(out.point) && lsIsValidVec2(out.normal));
    return 0;
}

static int RayBoxPolygonHandTest(void)
{
    lsBox box = lsMakeBox(lsV(5, 0), lsV(2, 2), 0.0);
    lsCastOutput out = lsRayCastBox(&box, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.normal.x == -1.0 && out.normal.y == 0.0);
    // Grazing along the top face: hits at the face's entry.
    out = lsRayCastBox(&box, &(lsRayInput){{0, 1}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0);
    ENSURE(!lsRayCastBox(&box, &(lsRayInput){{0, nextafter(1.0, 2.0)}, {1, 0}, 10}).hit);
    out = lsRayCastBox(&box, &(lsRayInput){{5, 0}, {0, 1}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && out.normal.y == -1.0);
    ENSURE(!lsRayCastBox(&box, &(lsRayInput){{0, 0}, {1, 0}, 3.5}).hit);
    // Rotated 45 degrees: a diamond with its corner at x = 5 - sqrt(2).
    lsBox diamond = lsMakeBox(lsV(5, 0), lsV(2, 2), LS_PI / 4);
    out = lsRayCastBox(&diamond, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit);
    ENSURE_SMALL(out.fraction - (5.0 - sqrt(2.0)), 1e-14);

    lsPolygon tri;
    lsVec2 pts[3] = {{4, -1}, {6, 0}, {4, 1}};
    ENSURE(lsMakePolygon(&tri, pts, 3));
    out = lsRayCastPolygon(&tri, &(lsRayInput){{0, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.normal.x == -1.0);
    // Through a vertex from outside, exactly: hits at the vertex.
    out = lsRayCastPolygon(&tri, &(lsRayInput){{0, 1}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.point.y == 1.0);
    out = lsRayCastPolygon(&tri, &(lsRayInput){{10, 0}, {-1, 0}, 10});
    ENSURE(out.hit && out.fraction == 4.0 && out.point.x == 6.0);
    ENSURE(!lsRayCastPolygon(&tri, &(lsRayInput){{10, 0}, {1, 0}, 10}).hit);
    out = lsRayCastPolygon(&tri, &(lsRayInput){{5, 0}, {1, 0}, 10});
    ENSURE(out.hit && out.fraction == 0.0 && out.normal.x == -1.0);
    // Along an edge (grazing): entry at the edge's first vertex.
    out = lsRayCastPolygon(&tri, &(lsRayInput){{4, -3}, {0, 1}, 10});
    ENSURE(out.hit && out.fraction == 2.0 && out.point.y == -1.0 && out.normal.y <= 0.0);
    return 0;
}

static int SegmentHandTest(void)
{
    lsSegment a = {{0, 0}, {4, 0}};
    // Proper crossing.
    lsSegmentHit h = lsIntersectSegments(&a, &(lsSegment){{1, -1}, {1, 3}});
    ENSURE(h.hit && !h.collinear && h.point.x == 1.0 && h.point.y == 0.0 && h.s == 0.25 && h.t == 0.25);
    // Parallel apart, collinear apart, collinear touching end to end (one point: not "collinear").
    ENSURE(!lsIntersectSegments(&a, &(lsSegment){{0, 1}, {4, 1}}).hit);
    ENSURE(!lsIntersectSegments(&a, &(lsSegment){{5, 0}, {7, 0}}).hit);
    h = lsIntersectSegments(&a, &(lsSegment){{4, 0}, {7, 0}});
    ENSURE(h.hit && !h.collinear && h.point.x == 4.0 && h.s == 1.0 && h.t == 0.0 && h.sEnd == 1.0);
    // Collinear overlap, either direction: the overlap's end nearest a.a, and the other end's parameter.
    h = lsIntersectSegments(&a, &(lsSegment){{6, 0}, {2, 0}});
    ENSURE(h.hit && h.collinear && h.point.x == 2.0 && h.s == 0.5 && h.sEnd == 1.0 && h.t == 1.0);
    h = lsIntersectSegments(&a, &(lsSegment){{1, 0}, {3, 0}});
    ENSURE(h.hit && h.collinear && h.point.x == 1.0 && h.s == 0.25 && h.sEnd == 0.75 && h.t == 0.0);
    h = lsIntersectSegments(&a, &(lsSegment){{-1, 0}, {9, 0}});
    ENSURE(h.hit && h.collinear && h.point.x == 0.0 && h.s == 0.0 && h.sEnd == 1.0 && h.t == 0.1);
    // Touching at endpoints (an L corner) and a T junction.
    h = lsIntersectSegments(&a, &(lsSegment){{4, 0}, {4, 4}});
    ENSURE(h.hit && h.point.x == 4.0 && h.point.y == 0.0 && h.s == 1.0 && h.t == 0.0);
    h = lsIntersectSegments(&a, &(lsSegment){{2, 3}, {2, 0}});
    ENSURE(h.hit && h.point.x == 2.0 && h.point.y == 0.0 && h.s == 0.5 && h.t == 1.0);
    ENSURE(!lsIntersectSegments(&a, &(lsSegment){{2, 3}, {2, nextafter(0.0, 1.0)}}).hit);
    // Zero-length segments are points.
    h = lsIntersectSegments(&a, &(lsSegment){{3, 0}, {3, 0}});
    ENSURE(h.hit && h.s == 0.75 && h.t == 0.0 && h.point.x == 3.0);
    ENSURE(!lsIntersectSegments(&a, &(lsSegment){{3, 1e-300}, {3, 1e-300}}).hit);
    ENSURE(lsIntersectSegments(&(lsSegment){{1, 1}, {1, 1}}, &(lsSegment){{1, 1}, {1, 1}}).hit);
    ENSURE(!lsIntersectSegments(&(lsSegment){{1, 1}, {1, 1}}, &(lsSegment){{1, 2}, {1, 2}}).hit);
    // Huge coordinates.
    lsSegment far = {{1e4, 1e4}, {1e4 + 4, 1e4}};
    h = lsIntersectSegments(&far, &(lsSegment){{1e4 + 1, 1e4 - 1}, {1e4 + 1, 1e4 + 3}});
    ENSURE(h.hit && h.point.x == 1e4 + 1 && h.point.y == 1e4 && h.s == 0.25 && h.t == 0.25);

    // Segment against circle: endpoint inside, crossing, tangent, a hair off, zero-length, radius zero.
    lsCircle c = {{2, 1}, 1};
    ENSURE(lsSegmentOverlapsCircle(&a, &c)); // tangent at (2, 0)
    ENSURE(!lsSegmentOverlapsCircle(&(lsSegment){{0, -1e-12}, {4, -1e-12}}, &c));
    ENSURE(lsSegmentOverlapsCircle(&(lsSegment){{2, 1}, {9, 9}}, &c));  // endpoint inside
    ENSURE(lsSegmentOverlapsCircle(&(lsSegment){{0, 1}, {4, 1}}, &c));  // crossing through the centre
    ENSURE(!lsSegmentOverlapsCircle(&(lsSegment){{4, 0}, {5, 0}}, &c)); // beyond the projection
    ENSURE(lsSegmentOverlapsCircle(&(lsSegment){{3, 1}, {3, 1}}, &c));  // a point on the boundary
    ENSURE(lsSegmentOverlapsCircle(&a, &(lsCircle){{3, 0}, 0}));        // a point circle on the segment
    ENSURE(lsCircle_Contains(&c, lsV(2, 2)) && !lsCircle_Contains(&c, lsV(2, nextafter(2.0, 3.0))));

    // Segment against box: endpoint inside, crossing, along a face, touching a corner, missing.
    lsBox box = lsMakeBox(lsV(0, 0), lsV(2, 2), 0.0);
    ENSURE(lsSegmentOverlapsBox(&(lsSegment){{0, 0}, {5, 5}}, &box));
    ENSURE(lsSegmentOverlapsBox(&(lsSegment){{-5, 0}, {5, 0}}, &box));
    ENSURE(lsSegmentOverlapsBox(&(lsSegment){{-5, 1}, {5, 1}}, &box));
    ENSURE(lsSegmentOverlapsBox(&(lsSegment){{1, 3}, {3, 1}}, &(lsBox){{0, 0}, {1, 1}, {1, 0}}) == false);
    ENSURE(lsSegmentOverlapsBox(&(lsSegment){{0, 2}, {2, 0}}, &box)); // through the corner (1, 1)
    ENSURE(!lsSegmentOverlapsBox(&(lsSegment){{-5, 2}, {5, 2}}, &box));
    ENSURE(lsBox_Contains(&box, lsV(1, 1)) && !lsBox_Contains(&box, lsV(1, nextafter(1.0, 2.0))));
    // The same as a polygon: exact, through a vertex, along an edge, one point.
    lsVec2 corners[4];
    lsBox_Corners(&box, corners);
    lsPolygon poly;
    ENSURE(lsMakePolygon(&poly, corners, 4));
    ENSURE(lsSegmentOverlapsPolygon(&(lsSegment){{0, 2}, {2, 0}}, &poly));
    ENSURE(!lsSegmentOverlapsPolygon(&(lsSegment){{0, 2.5}, {2.5, 0}}, &poly));
    ENSURE(lsSegmentOverlapsPolygon(&(lsSegment){{-5, 1}, {5, 1}}, &poly));
    ENSURE(lsSegmentOverlapsPolygon(&(lsSegment){{1, 1}, {1, 1}}, &poly));
    ENSURE(!lsSegmentOverlapsPolygon(&(lsSegment){{1, nextafter(1.0, 2.0)}, {5, 1}}, &poly));
    ENSURE(lsSegmentOverlapsPolygon(&(lsSegment){{-0.5, -0.5}, {0.5, 0.5}}, &poly)); // inside
    return 0;
}

static int MakePolygonTest(void)
{
    lsPolygon p;
    lsVec2 cw[4] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    ENSURE(lsMakePolygon(&p, cw, 4));
    ENSURE(p.count == 4 && lsOrient(p.vertices[0], p.vertices[1], p.vertices[2]) == 1);
    for (int i = 0; i < 4; ++i)
    {
        ENSURE_SMALL(lsLength(p.normals[i]) - 1.0, 1e-15);
        lsVec2 mid = lsLerp(p.vertices[i], p.vertices[(i + 1) % 4], 0.5);
        ENSURE(!lsPolygon_Contains(&p, lsMulAdd(mid, 1e-9, p.normals[i])));
        ENSURE(lsPolygon_Contains(&p, mid));
    }
    lsVec2 collinear[4] = {{0, 0}, {1, 0}, {2, 0}, {1, 1}};
    ENSURE(!lsMakePolygon(&p, collinear, 4));
    lsVec2 repeated[4] = {{0, 0}, {1, 0}, {1, 0}, {1, 1}};
    ENSURE(!lsMakePolygon(&p, repeated, 4));
    lsVec2 reflex[4] = {{0, 0}, {2, 0}, {1, 0.5}, {1, 2}};
    ENSURE(!lsMakePolygon(&p, reflex, 4));
    lsVec2 star[5];
    for (int i = 0; i < 5; ++i)
    {
        star[i] = lsDirection(4.0 * LS_PI * i / 5);
    }
    ENSURE(!lsMakePolygon(&p, star, 5));
    ENSURE(!lsMakePolygon(&p, cw, 2));
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Randomized properties. Integer-grid cases (small integers scaled by powers of two and shifted by exact offsets)
// make degenerate configurations common and have exact int64 references; real-valued cases are compared with long
// double references, skipping those the reference itself cannot decide (within its margin of a boundary).

typedef struct GridMap
{
    double unit, offsetX, offsetY;
} GridMap;

// A random exact map from small integers to doubles: k unit + offset, with unit a power of two and offsets that
// keep every coordinate exact (up to about 1e4, the size of a large world).
static GridMap RandomGridMap(lsRng* rng)
{
    static const double units[4] = {1.0, 0.25, 0x1p-10, 16.0};
    static const double offsets[4] = {0.0, 1e4, -8192.5, 3.0};
    GridMap m;
    m.unit = units[lsRng_Next(rng) % 4];
    m.offsetX = offsets[lsRng_Next(rng) % 4];
    m.offsetY = offsets[lsRng_Next(rng) % 4];
    return m;
}

static long long RandomInt(lsRng* rng, int lo, int hi)
{
    return lo + (long long)(lsRng_Next(rng) % (uint64_t)(hi - lo + 1));
}

typedef struct IVec
{
    long long x, y;
} IVec;

static IVec RandomIVec(lsRng* rng, int lo, int hi)
{
    IVec v;
    v.x = RandomInt(rng, lo, hi);
    v.y = RandomInt(rng, lo, hi);
    return v;
}

static lsVec2 MapPoint(GridMap m, IVec v)
{
    return lsV((double)v.x * m.unit + m.offsetX, (double)v.y * m.unit + m.offsetY);
}

static lsVec2 MapVector(GridMap m, IVec v) { return lsV((double)v.x * m.unit, (double)v.y * m.unit); }

static long long ICross(IVec a, IVec b) { return a.x * b.y - a.y * b.x; }

static long long IDot(IVec a, IVec b) { return a.x * b.x + a.y * b.y; }

static IVec ISub(IVec a, IVec b)
{
    IVec v = {a.x - b.x, a.y - b.y};
    return v;
}

// Exact reference of a ray against a closed segment on integers: hit, and the fraction as num / den (den > 0).
typedef struct IRayHit
{
    bool hit;
    long long num, den;
} IRayHit;

static IRayHit IRayCastSegment(IVec o, IVec d, long long L, IVec a, IVec b)
{
    IRayHit r = {false, 0, 1};
    IVec e = ISub(b, a), ao = ISub(a, o);
    long long den = ICross(d, e);
    if (den != 0)
    {
        long long tNum = ICross(ao, e), sNum = ICross(ao, d);
        if (den < 0)
        {
            den = -den;
            tNum = -tNum;
            sNum = -sNum;
        }
        if (tNum >= 0 && tNum <= L * den && sNum >= 0 && sNum <= den)
        {
            r.hit = true;
            r.num = tNum;
            r.den = den;
        }
        return r;
    }
    if (ICross(d, ao) != 0)
    {
        return r;
    }
    long long dd = IDot(d, d);
    long long ta = IDot(ao, d), tb = IDot(ISub(b, o), d);
    long long lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
    if (lo <= 0 && hi >= 0)
    {
        r.hit = true;
        r.num = 0;
        r.den = 1;
    }
    else if (lo > 0 && lo <= L * dd)
    {
        r.hit = true;
        r.num = lo;
        r.den = dd;
    }
    return r;
}

// Checks a cast output against an exact expected fraction; returns 1 when it disagrees.
static int CheckCast(lsCastOutput out, bool hit, long double fraction, lsRayInput in, double tol)
{
    if (out.hit != hit)
    {
        return 1;
    }
    if (!hit)
    {
        return out.fraction == 0.0 && out.point.x == 0.0 && out.normal.x == 0.0 ? 0 : 1;
    }
    long double err = fabsl((long double)out.fraction - fraction);
    if (!(err <= (long double)tol * fmaxl(1.0L, fabsl(fraction))) || out.fraction < 0.0 ||
        out.fraction > in.maxFraction)
    {
        return 1;
    }
    double nlen = lsLength(out.normal);
    if (!(fabs(nlen - 1.0) < 1e-12) || lsDot(out.normal, in.direction) > 1e-12 * lsLength(in.direction))
    {
        return 1;
    }
    lsVec2 expected = lsMulAdd(in.origin, (double)fraction, in.direction);
    double scale = fmax(1.0, fmax(fabs(expected.x), fabs(expected.y)));
    return lsDistance(out.point, expected) <= tol * scale * fmax(1.0, lsLength(in.direction)) ? 0 : 1;
}

static int RaySegmentGridTest(void)
{
    lsRng rng = lsMakeRng(101);
    int mismatches = 0, hits = 0, collinear = 0;
    for (int i = 0; i < 150000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec o = RandomIVec(&rng, -8, 8), a = RandomIVec(&rng, -8, 8);
        // Every fourth segment lies on a line through the origin's grid neighbours, so collinear cases are common.
        IVec b = i % 4 == 0 ? (IVec){2 * a.x - o.x, 2 * a.y - o.y} : RandomIVec(&rng, -8, 8);
        // Every eighth ray is aimed along o->a (through the segment's endpoint, along the line when collinear).
        IVec d = i % 8 == 0 ? ISub(a, o) : RandomIVec(&rng, -4, 4);
        if (d.x == 0 && d.y == 0)
        {
            d.x = 1;
        }
        long long L = RandomInt(&rng, 0, 12);
        IRayHit ref = IRayCastSegment(o, d, L, a, b);
        lsSegment seg = {MapPoint(m, a), MapPoint(m, b)};
        // The fraction does not depend on the unit when both origin and direction scale with it.
        lsRayInput in = {MapPoint(m, o), MapVector(m, d), (double)L};
        lsCastOutput out = lsRayCastSegment(&seg, &in);
        mismatches += CheckCast(out, ref.hit, (long double)ref.num / ref.den, in, 1e-12);
        hits += ref.hit;
        collinear += ref.hit && ICross(d, ISub(b, a)) == 0;
    }
    printf("    ray-segment grid: %d hits (%d collinear), %d mismatches\n", hits, collinear, mismatches);
    ENSURE(hits > 10000 && collinear > 1000);
    ENSURE(mismatches == 0);
    return 0;
}

// Long double reference of a ray against a segment; returns 0 miss, 1 hit, -1 undecidable within its margin.
static int LRayCastSegment(lsRayInput in, lsSegment seg, long double* fraction)
{
    long double ox = (long double)in.origin.x, oy = (long double)in.origin.y, dx = (long double)in.direction.x,
                dy = (long double)in.direction.y;
    long double ex = (long double)seg.b.x - (long double)seg.a.x, ey = (long double)seg.b.y - (long double)seg.a.y;
    long double ax = (long double)seg.a.x - ox, ay = (long double)seg.a.y - oy;
    long double den = dx * ey - dy * ex;
    long double dl = sqrtl(dx * dx + dy * dy), el = sqrtl(ex * ex + ey * ey);
    if (fabsl(den) < 1e-6L * dl * el)
    {
        return -1; // nearly parallel: left to the grid and hand tests
    }
    long double t = (ax * ey - ay * ex) / den;
    long double s = (ax * dy - ay * dx) / den;
    long double L = (long double)in.maxFraction;
    long double scaleT = 1e-9L * (1.0L + fabsl(t));
    if (fabsl(s) < 1e-9L || fabsl(s - 1) < 1e-9L || fabsl(t) < scaleT || fabsl(t - L) < scaleT)
    {
        return -1;
    }
    *fraction = t;
    return s > 0 && s < 1 && t > 0 && t < L;
}

static double RandomScale(lsRng* rng) { return pow(10.0, lsRng_Range(rng, -3.0, 4.0)); }

static int RaySegmentRealTest(void)
{
    lsRng rng = lsMakeRng(202);
    int mismatches = 0, skipped = 0, hits = 0;
    double worst = 0.0;
    for (int i = 0; i < 150000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 o = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        lsVec2 u0 = lsTestRandomPoint(&rng, -1, 1, -1, 1), u1 = lsTestRandomPoint(&rng, -1, 1, -1, 1);
        lsSegment seg = {lsMulAdd(center, scale, u0), lsMulAdd(center, scale, u1)};
        // Aim at a random point of the segment's neighbourhood, so about half the rays hit.
        lsVec2 target = lsLerp(seg.a, seg.b, lsRng_Range(&rng, -0.5, 1.5));
        lsVec2 d = lsNormalize(lsSub(target, o));
        if (d.x == 0.0 && d.y == 0.0)
        {
            continue;
        }
        lsRayInput in = {o, d, scale * lsRng_Range(&rng, 0.2, 3.0)};
        long double ref = 0;
        int expected = LRayCastSegment(in, seg, &ref);
        if (expected < 0)
        {
            ++skipped;
            continue;
        }
        lsCastOutput out = lsRayCastSegment(&seg, &in);
        if (out.hit != (expected == 1))
        {
            ++mismatches;
            continue;
        }
        if (out.hit)
        {
            ++hits;
            double rel = (double)(fabsl((long double)out.fraction - ref) / ref);
            worst = fmax(worst, rel);
            mismatches += !(rel <= 1e-9);
        }
    }
    printf("    ray-segment real: %d hits, %d skipped, %d mismatches, worst relative error %.3g\n", hits, skipped,
           mismatches, worst);
    ENSURE(mismatches == 0);
    ENSURE(skipped < 3000 && hits > 40000);
    return 0;
}

static int RayCircleGridTest(void)
{
    lsRng rng = lsMakeRng(303);
    int mismatches = 0, hits = 0, tangents = 0, atRange = 0;
    for (int i = 0; i < 150000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec o = RandomIVec(&rng, -8, 8), c = RandomIVec(&rng, -8, 8), d = RandomIVec(&rng, -3, 3);
        if (d.x == 0 && d.y == 0)
        {
            d.y = 1;
        }
        long long r = RandomInt(&rng, 0, 5), L = RandomInt(&rng, 0, 10);
        IVec f = ISub(o, c);
        long long dd = IDot(d, d), fd = IDot(d, f), cr = ICross(d, f);
        long long disc = r * r * dd - cr * cr;
        bool hit;
        long double fraction = 0;
        if (IDot(f, f) <= r * r)
        {
            hit = true;
        }
        else if (fd >= 0 || disc < 0)
        {
            hit = false;
        }
        else
        {
            long long g = -fd - L * dd; // t1 <= L  <=>  g <= sqrt(disc)
            hit = g <= 0 || g * g <= disc;
            fraction = (-(long double)fd - sqrtl((long double)disc)) / dd;
            tangents += disc == 0;
            atRange += g > 0 && g * g == disc;
        }
        lsCircle circle = {MapPoint(m, c), (double)r * m.unit};
        lsRayInput in = {MapPoint(m, o), MapVector(m, d), (double)L};
        lsCastOutput out = lsRayCastCircle(&circle, &in);
        mismatches += CheckCast(out, hit, fraction, in, 1e-12);
        hits += hit;
    }
    printf("    ray-circle grid: %d hits, %d tangent, %d at max range, %d mismatches\n", hits, tangents, atRange,
           mismatches);
    ENSURE(tangents > 100 && atRange > 10);
    ENSURE(mismatches == 0);
    return 0;
}

static int RayCircleRealTest(void)
{
    lsRng rng = lsMakeRng(404);
    int mismatches = 0, skipped = 0, hits = 0;
    double worst = 0.0;
    for (int i = 0; i < 150000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 u = lsTestRandomPoint(&rng, -1, 1, -1, 1);
        lsCircle circle = {lsMulAdd(center, scale, u), scale * lsRng_Range(&rng, 0.01, 0.5)};
        lsVec2 o = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -2, 2, -2, 2));
        lsVec2 aim = lsMulAdd(circle.center, 1.5 * circle.radius, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        lsVec2 d = lsNormalize(lsSub(aim, o));
        if (d.x == 0.0 && d.y == 0.0)
        {
            continue;
        }
        lsRayInput in = {o, d, scale * lsRng_Range(&rng, 0.1, 4.0)};
        // Long double reference with the textbook quadratic.
        long double fx = (long double)o.x - (long double)circle.center.x,
                    fy = (long double)o.y - (long double)circle.center.y;
        long double r = (long double)circle.radius, L = (long double)in.maxFraction;
        long double c = fx * fx + fy * fy - r * r;
        long double b = fx * (long double)d.x + fy * (long double)d.y;
        long double disc = b * b - c * ((long double)d.x * (long double)d.x + (long double)d.y * (long double)d.y);
        int expected;
        long double ref = 0;
        if (fabsl(c) < 1e-9L * r * r || fabsl(disc) < 1e-9L * r * r)
        {
            expected = -1; // origin on the boundary or a tangent ray: the grid test decides those exactly
        }
        else if (c < 0)
        {
            expected = 1;
        }
        else if (b >= 0 || disc < 0)
        {
            expected = 0;
        }
        else
        {
            ref = -b - sqrtl(disc);
            expected = fabsl(ref - L) < 1e-9L * L ? -1 : ref <= L;
        }
        if (expected < 0)
        {
            ++skipped;
            continue;
        }
        lsCastOutput out = lsRayCastCircle(&circle, &in);
        if (out.hit != (expected == 1))
        {
            ++mismatches;
            continue;
        }
        if (out.hit)
        {
            ++hits;
            double err = (double)fabsl((long double)out.fraction - ref);
            double rel = err / fmax((double)ref, 1e-300);
            worst = fmax(worst, ref > 0 ? rel : err);
            mismatches += !(err <= 1e-9 * (double)ref || (ref == 0 && out.fraction == 0.0));
        }
    }
    printf("    ray-circle real: %d hits, %d skipped, %d mismatches, worst relative error %.3g\n", hits, skipped,
           mismatches, worst);
    ENSURE(mismatches == 0);
    ENSURE(skipped < 3000 && hits > 30000);
    return 0;
}

// A random strictly convex integer polygon: the convex hull (monotone chain, collinear points dropped) of random
// grid points; returns its vertex count (0 when fewer than 3 remain).
static int RandomIPolygon(lsRng* rng, IVec* hull, int range)
{
    IVec pts[12];
    int n = 4 + (int)(lsRng_Next(rng) % 8);
    for (int i = 0; i < n; ++i)
    {
        pts[i] = RandomIVec(rng, -range, range);
    }
    // Insertion sort by x then y.
    for (int i = 1; i < n; ++i)
    {
        IVec v = pts[i];
        int j = i - 1;
        while (j >= 0 && (pts[j].x > v.x || (pts[j].x == v.x && pts[j].y > v.y)))
        {
            pts[j + 1] = pts[j];
            --j;
        }
        pts[j + 1] = v;
    }
    int k = 0;
    for (int i = 0; i < n; ++i)
    {
        while (k >= 2 && ICross(ISub(hull[k - 1], hull[k - 2]), ISub(pts[i], hull[k - 2])) <= 0)
        {
            --k;
        }
        hull[k++] = pts[i];
    }
    for (int i = n - 2, lower = k + 1; i >= 0; --i)
    {
        while (k >= lower && ICross(ISub(hull[k - 1], hull[k - 2]), ISub(pts[i], hull[k - 2])) <= 0)
        {
            --k;
        }
        hull[k++] = pts[i];
    }
    k -= 1; // the last point repeats the first
    return k >= 3 ? k : 0;
}

static int RayPolygonGridTest(void)
{
    lsRng rng = lsMakeRng(505);
    int mismatches = 0, hits = 0, polygons = 0;
    for (int i = 0; i < 100000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec hull[24];
        int n = RandomIPolygon(&rng, hull, 6);
        if (n == 0)
        {
            continue;
        }
        lsVec2 pts[24];
        for (int k = 0; k < n; ++k)
        {
            pts[k] = MapPoint(m, hull[k]);
        }
        lsPolygon poly;
        if (!lsMakePolygon(&poly, pts, n))
        {
            ++mismatches; // a strictly convex hull must be accepted
            continue;
        }
        ++polygons;
        IVec o = RandomIVec(&rng, -9, 9), d = RandomIVec(&rng, -3, 3);
        if (d.x == 0 && d.y == 0)
        {
            d.x = -1;
        }
        long long L = RandomInt(&rng, 0, 16);
        bool inside = true;
        for (int k = 0; k < n; ++k)
        {
            inside = inside && ICross(ISub(hull[(k + 1) % n], hull[k]), ISub(o, hull[k])) >= 0;
        }
        bool hit = inside;
        long double fraction = 0;
        if (!inside)
        {
            for (int k = 0; k < n; ++k)
            {
                IRayHit h = IRayCastSegment(o, d, L, hull[k], hull[(k + 1) % n]);
                long double f = (long double)h.num / h.den;
                if (h.hit && (!hit || f < fraction))
                {
                    hit = true;
                    fraction = f;
                }
            }
        }
        lsRayInput in = {MapPoint(m, o), MapVector(m, d), (double)L};
        lsCastOutput out = lsRayCastPolygon(&poly, &in);
        mismatches += CheckCast(out, hit, fraction, in, 1e-12);
        hits += hit;
        // Containment agrees with the integer test too.
        mismatches += lsPolygon_Contains(&poly, in.origin) != inside;
    }
    printf("    ray-polygon grid: %d polygons, %d hits, %d mismatches\n", polygons, hits, mismatches);
    ENSURE(polygons > 90000 && hits > 20000);
    ENSURE(mismatches == 0);
    return 0;
}

static int RayBoxRealTest(void)
{
    lsRng rng = lsMakeRng(606);
    int mismatches = 0, skipped = 0, hits = 0;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        double angle = i % 5 == 0 ? 0.0 : lsRng_Range(&rng, -LS_PI, LS_PI);
        double sy = scale * lsRng_Range(&rng, 0.01, 1), sx = scale * lsRng_Range(&rng, 0.01, 1);
        lsBox box = lsMakeBox(center, lsV(sx, sy), angle);
        lsVec2 o = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -2, 2, -2, 2));
        lsVec2 aim = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -0.7, 0.7, -0.7, 0.7));
        lsVec2 d = lsNormalize(lsSub(aim, o));
        lsRayInput in = {o, d, scale * lsRng_Range(&rng, 0.1, 3.0)};
        // Reference: clip the ray against the box's four edge half-planes in long double (Cyrus-Beck).
        long double c = (long double)box.rot.c, s = (long double)box.rot.s;
        long double lox =
            c * ((long double)o.x - (long double)center.x) + s * ((long double)o.y - (long double)center.y);
        long double loy =
            -s * ((long double)o.x - (long double)center.x) + c * ((long double)o.y - (long double)center.y);
        long double ldx = c * (long double)d.x + s * (long double)d.y,
                    ldy = -s * (long double)d.x + c * (long double)d.y;
        long double lo = 0, hi = (long double)in.maxFraction, margin = 1e-9L * (long double)scale;
        bool ambiguous = false, miss = false;
        long double lp[2] = {lox, loy}, ld[2] = {ldx, ldy},
                    h[2] = {(long double)box.halfSize.x, (long double)box.halfSize.y};
        for (int k = 0; k < 2; ++k)
        {
            if (fabsl(ld[k]) < 1e-12L)
            {
                ambiguous = true;
                break;
            }
            long double t1 = (-h[k] - lp[k]) / ld[k], t2 = (h[k] - lp[k]) / ld[k];
            lo = fmaxl(lo, fminl(t1, t2));
            hi = fminl(hi, fmaxl(t1, t2));
        }
        long double edge = fmaxl(fabsl(lox) - h[0], fabsl(loy) - h[1]); // < 0 inside
        ambiguous = ambiguous || fabsl(lo - hi) < margin || fabsl(edge) < margin ||
                    fabsl(lo - (long double)in.maxFraction) < margin;
        miss = lo > hi;
        if (ambiguous)
        {
            ++skipped;
            continue;
        }
        lsCastOutput out = lsRayCastBox(&box, &in);
        int bad = out.hit == miss;
        if (out.hit && !miss)
        {
            ++hits;
            bad += !(fabsl((long double)out.fraction - lo) <= 1e-9L * fmaxl(lo, (long double)scale * 1e-3L));
            // The hit point lies on the box's boundary.
            long double px = (long double)out.point.x - (long double)center.x,
                        py = (long double)out.point.y - (long double)center.y;
            long double qx = c * px + s * py, qy = -s * px + c * py;
            bad += edge > 0 && !(fabsl(fmaxl(fabsl(qx) - h[0], fabsl(qy) - h[1])) <= 1e-9L * (long double)scale);
        }
        if (bad)
        {
            printf("      box miss %d: hit %d frac %.17g ref %.17Lg..%.17Lg scale %g edge %Lg\n", i, out.hit,
                   out.fraction, lo, hi, scale, edge);
        }
        mismatches += bad != 0;
    }
    printf("    ray-box real: %d hits, %d skipped, %d mismatches\n", hits, skipped, mismatches);
    ENSURE(mismatches == 0);
    ENSURE(skipped < 2000 && hits > 20000);
    return 0;
}

// Accuracy where it is hardest, against a quad-precision reference: beams grazing long walls at 1e-8 .. 0.1 rad and
// beams passing circles within 1e-14 .. 0.1 of tangency, 10 km from the origin.
#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 Quad;
#else
typedef long double Quad; // where long double is the IEEE quad format (aarch64)
#endif

static Quad QuadAbs(Quad x) { return x < 0 ? -x : x; }

static Quad QuadSqrt(Quad x) // long double estimate, then one Newton step in quad precision
{
    if (!(x > 0))
    {
        return 0;
    }
    Quad s = (Quad)sqrtl((long double)x);
    return (Quad)0.5 * (s + x / s);
}

static int GrazingAccuracyTest(void)
{
    lsRng rng = lsMakeRng(1515);
    double worstSegment = 0.0, worstCircle = 0.0;
    int misses = 0, segments = 0, circles = 0;
    for (int i = 0; i < 100000; ++i)
    {
        // A wall of 1 m .. 10 km and a beam at a tiny angle to it, hitting it at 1 m .. 10 km.
        double angle = pow(10.0, lsRng_Range(&rng, -8, -1)) * (i % 2 ? 1.0 : -1.0);
        lsVec2 a = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        double wallAngle = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsVec2 b = lsMulAdd(a, lsRng_Range(&rng, 1.0, 1e4), lsDirection(wallAngle));
        lsVec2 d = lsDirection(wallAngle + angle);
        double back = lsRng_Range(&rng, 1.0, 1e4);
        lsVec2 o = lsMulSub(lsLerp(a, b, lsRng_Range(&rng, 0.1, 0.9)), back, d);
        lsRayInput in = {o, d, 3e4};
        lsSegment wall = {a, b};
        Quad ex = (Quad)b.x - (Quad)a.x, ey = (Quad)b.y - (Quad)a.y, ax = (Quad)a.x - (Quad)o.x,
             ay = (Quad)a.y - (Quad)o.y;
        Quad den = (Quad)d.x * ey - (Quad)d.y * ex;
        Quad t = (ax * ey - ay * ex) / den, s = (ax * (Quad)d.y - ay * (Quad)d.x) / den;
        if (s > (Quad)1e-6 && s < (Quad)(1 - 1e-6))
        {
            lsCastOutput out = lsRayCastSegment(&wall, &in);
            misses += !out.hit;
            worstSegment = fmax(worstSegment, (double)(QuadAbs((Quad)out.fraction - t) / t));
            ++segments;
        }

        // A circle of 1 cm .. 100 m passed at (1 - 10^-14 .. 1 - 0.1) of its radius from its centre.
        double cx = lsRng_Range(&rng, -1e4, 1e4), cy = lsRng_Range(&rng, -1e4, 1e4);
        lsCircle circle = {{cx, cy}, pow(10.0, lsRng_Range(&rng, -2, 2))};
        double offset = 1.0 - pow(10.0, lsRng_Range(&rng, -14, -1));
        lsVec2 dc = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        lsVec2 oc =
            lsMulSub(lsMulAdd(circle.center, offset * circle.radius, lsLeftPerp(dc)), lsRng_Range(&rng, 1.0, 1e4), dc);
        lsRayInput inc = {oc, dc, 3e4};
        Quad fx = (Quad)oc.x - (Quad)circle.center.x, fy = (Quad)oc.y - (Quad)circle.center.y;
        Quad fd = fx * (Quad)dc.x + fy * (Quad)dc.y, cr = (Quad)dc.x * fy - (Quad)dc.y * fx;
        Quad dd = (Quad)dc.x * (Quad)dc.x + (Quad)dc.y * (Quad)dc.y, rq = (Quad)circle.radius;
        Quad disc = rq * rq * dd - cr * cr;
        if (disc > 0 && fd < 0)
        {
            Quad tc = (-fd - QuadSqrt(disc)) / dd;
            lsCastOutput out = lsRayCastCircle(&circle, &inc);
            misses += !out.hit;
            worstCircle = fmax(worstCircle, (double)(QuadAbs((Quad)out.fraction - tc) / tc));
            ++circles;
        }
    }
    printf("    grazing accuracy: %d walls (worst relative error %.3g), %d circles (worst %.3g), %d misses\n", segments,
           worstSegment, circles, worstCircle, misses);
    ENSURE(segments > 90000 && circles > 90000);
    ENSURE(misses == 0);
    // About 4 LS_CROSSING_ILL (LS_CIRCLE_ILL) eps at worst: 2^13 let walls come back 1.05e-12 off, circles 2.3e-13.
    ENSURE(worstSegment <= 1e-13 && worstCircle <= 1e-13);

    // Walls and rays at 2^-990 .. 2^-1010 of the scale above (coordinates near 1e-300, products far below a double's
    // least normal): a wall of 2e-300 m seen from 2e-300 m came back at fraction 0, one of 1e-160 m 1e-5 short. Half
    // the beams aimed at a point of the wall, half grazing it at 1e-10 .. 1e-2 rad (long double kept 4e-10 there).
    double worstTiny = 0.0;
    int tiny = 0;
    for (int i = 0; i < 20000; ++i)
    {
        int e = -990 - (int)(lsRng_Next(&rng) % 21);
        lsVec2 a = lsTestRandomPoint(&rng, -1.0, 1.0, -1.0, 1.0), b = lsTestRandomPoint(&rng, -1.0, 1.0, -1.0, 1.0);
        lsVec2 o = lsTestRandomPoint(&rng, -1.0, 1.0, -1.0, 1.0);
        lsVec2 d = lsSub(lsLerp(a, b, lsRng_Range(&rng, 0.05, 0.95)), o); // aimed at a point of the wall
        if (i % 2 == 1)
        {
            double along = atan2(b.y - a.y, b.x - a.x) + pow(10.0, lsRng_Range(&rng, -10, -2)) * (i % 4 == 1 ? 1 : -1);
            d = lsDirection(along);
            o = lsMulSub(lsLerp(a, b, lsRng_Range(&rng, 0.3, 0.7)), lsRng_Range(&rng, 0.1, 0.5), d);
        }
        a = lsV(ldexp(a.x, e), ldexp(a.y, e)), b = lsV(ldexp(b.x, e), ldexp(b.y, e));
        o = lsV(ldexp(o.x, e), ldexp(o.y, e));
        d = i % 4 == 0 ? lsV(ldexp(d.x, e), ldexp(d.y, e)) : d; // a quarter with a tiny direction too
        lsRayInput in = {o, d, i % 4 == 0 ? 10.0 : 1.0};
        lsSegment wall = {a, b};
        Quad ex = (Quad)b.x - (Quad)a.x, ey = (Quad)b.y - (Quad)a.y, ax = (Quad)a.x - (Quad)o.x,
             ay = (Quad)a.y - (Quad)o.y;
        Quad den = (Quad)d.x * ey - (Quad)d.y * ex;
        Quad t = (ax * ey - ay * ex) / den, s = (ax * (Quad)d.y - ay * (Quad)d.x) / den;
        if (t > 0 && t < (Quad)in.maxFraction && s > (Quad)1e-3 && s < (Quad)(1 - 1e-3))
        {
            lsCastOutput out = lsRayCastSegment(&wall, &in);
            ENSURE(out.hit);
            worstTiny = fmax(worstTiny, (double)(QuadAbs((Quad)out.fraction - t) / t));
            ++tiny;
        }
    }
    printf("    tiny walls: %d (worst relative error %.3g)\n", tiny, worstTiny);
    ENSURE(tiny > 5000 && worstTiny <= 1e-13);
    return 0;
}

// Sign of num - tau den for the crossing of ray (o, d) with segment a-b (num = cross(a - o, b - a), den = cross(d,
// b - a)), exact: tau is the ray parameter of the crossing when the sign is 0.
static int CrossingParameterSign(lsVec2 o, lsVec2 d, lsVec2 a, lsVec2 b, double tau)
{
    lsExactTerm terms[10] = {
        {{a.x, b.y}, 2},  {{-o.x, b.y}, 2},      {{o.x, a.y}, 2},      {{-a.y, b.x}, 2},     {{o.y, b.x}, 2},
        {{-o.y, a.x}, 2}, {{-tau, d.x, b.y}, 3}, {{tau, d.x, a.y}, 3}, {{tau, d.y, b.x}, 3}, {{-tau, d.y, a.x}, 3},
    };
    return lsExactSign(terms, 10);
}

// Robots standing on walls: an origin rounded onto a wall of 100 km coordinates lies a tiny distance off its line
// (sometimes 10^-28 m), so the crossing's num = cross(a - o, b - a) cancels far below double-double's 2^-104 of its
// terms. The fraction must still be the crossing's parameter to a few ulps (checked exactly, not against a rounded
// reference): double-double alone gave 0 (then -0) for a crossing at 4.6e-28 m (scripts/exact_check.py, seed 2 world
// 1091), and relative errors up to 1 for others.
static int CrossingAccuracyTest(void)
{
    // The case exact_check found: the origin is the rounded midpoint of the wall; the exact parameter, from rational
    // arithmetic, is 4.6159350662614345e-28.
    lsSegment wall = {{-163841.0, -16384.1}, {-49152.299999999996, -131072.8}};
    lsRayInput in = {{-106496.65, -73728.45}, {-1.8369701987210297e-16, 1.0}, 259614.34451253386};
    lsCastOutput out = lsRayCastSegment(&wall, &in);
    ENSURE(out.hit);
    ENSURE_SMALL(out.fraction / 4.6159350662614345e-28 - 1.0, 1e-15);

    lsRng rng = lsMakeRng(2718);
    int checked = 0, cancelled = 0, wrong = 0;
    for (int i = 0; i < 200000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, -3, 6));
        lsVec2 a = lsTestRandomPoint(&rng, -scale, scale, -scale, scale);
        lsVec2 b = lsTestRandomPoint(&rng, -scale, scale, -scale, scale);
        lsVec2 o = lsLerp(a, b, lsRng_Range(&rng, 0.0, 1.0));
        lsVec2 d = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        lsSegment seg = {a, b};
        lsRayInput ray = {o, d, 4.0 * scale};
        out = lsRayCastSegment(&seg, &ray);
        int numSign = lsOrient(o, a, b); // cross(a - o, b - a)
        if (!out.hit || numSign == 0)
        {
            continue; // o exactly on the segment, or the ray leaves the line on the other side
        }
        ++checked;
        double ex = b.x - a.x, ey = b.y - a.y;
        double sNum = fabs((a.x - o.x) * ey) + fabs((a.y - o.y) * ex);
        double num = (a.x - o.x) * ey - (a.y - o.y) * ex;
        cancelled += fabs(num) < 0x1p-60 * sNum;
        // The exact parameter lies in [t (1 - 4 eps), t (1 + 4 eps)]: num - tau den changes sign there.
        int below = CrossingParameterSign(o, d, a, b, out.fraction * (1.0 - 0x1p-51));
        int above = CrossingParameterSign(o, d, a, b, out.fraction * (1.0 + 0x1p-51));
        wrong += !(out.fraction > 0.0) || below * above > 0;
    }
    printf("    crossings from origins rounded onto walls: %d checked, %d cancelled below 2^-60 of their terms, %d "
           "off by more than 4 ulps\n",
           checked, cancelled, wrong);
    ENSURE(checked > 50000 && cancelled > 10);
    ENSURE(wrong == 0);
    return 0;
}

// Sign of num - tau den for a box's face (axis k, side sign): num = sign h - u . (o - c), den = u . d with u the
// box frame's axis k as doubles, exact: tau is the face's ray parameter when the sign is 0.
static int BoxFaceParameterSign(const lsBox* box, lsVec2 o, lsVec2 d, int k, double sign, double tau)
{
    lsVec2 u = k == 0 ? lsV(box->rot.c, box->rot.s) : lsV(-box->rot.s, box->rot.c);
    double h = k == 0 ? box->halfSize.x : box->halfSize.y;
    lsVec2 c = box->center;
    lsExactTerm terms[7] = {
        {{sign, h}, 2},  {{-u.x, o.x}, 2},      {{u.x, c.x}, 2},       {{-u.y, o.y}, 2},
        {{u.y, c.y}, 2}, {{-tau, u.x, d.x}, 3}, {{-tau, u.y, d.y}, 3},
    };
    return lsExactSign(terms, 7);
}

// Beams grazing a rotated box's long face, and robots standing a hair off a face: the entry fraction must be the
// face's ray parameter to a few ulps, as a wall's is. The slab method in the box frame rounded the beam's component
// across the face (eps against a component of sin 10^-9) and the origin's distance to the face: a beam at 10^-9 rad
// to a rotated shelf was 1.5e-7 off at 200 m, one at 10^-11 rad 4 mm (scripts/exact_check.py's box envelope).
static int RayBoxAccuracyTest(void)
{
    lsRng rng = lsMakeRng(4242);
    int checked = 0, wrong = 0;
    double worst = 0.0;
    for (int i = 0; i < 20000; ++i)
    {
        double angle = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsVec2 center = lsTestRandomPoint(&rng, -1e3, 1e3, -1e3, 1e3);
        lsBox box = lsMakeBox(center, lsV(1000.0, 2.0), angle);
        lsVec2 local, d;
        if (i % 2 == 0)
        {
            // 600 m along the face from the centre, below the face's line by 200 tan(delta): the beam rises at delta
            // and enters the face y' = -1 about 200 m on.
            double delta = pow(10.0, lsRng_Range(&rng, -12, -3));
            local = lsV(-600.0, -1.0 - 200.0 * tan(delta));
            d = lsDirection(angle + delta);
        }
        else
        {
            // A hair (10^-11 .. 10^-6 m, above the rounding of the box frame at 1 km) below the face, anywhere along
            // it, the beam at any angle into the box.
            double below = -1.0 - pow(10.0, lsRng_Range(&rng, -11, -6));
            local = lsV(lsRng_Range(&rng, -499.0, 499.0), below);
            d = lsDirection(angle + lsRng_Range(&rng, 0.1, LS_PI - 0.1));
        }
        lsVec2 o = lsTransformPoint((lsTransform){center, box.rot}, local);
        lsCastOutput out = lsRayCastBox(&box, &(lsRayInput){o, d, 2000.0});
        if (BoxFaceParameterSign(&box, o, d, 1, -1.0, 0.0) <= 0)
        {
            continue; // rounded onto or into the box: not this case
        }
        ++checked;
        ENSURE(out.hit && out.fraction > 0.0);
        int below = BoxFaceParameterSign(&box, o, d, 1, -1.0, out.fraction * (1.0 - 0x1p-51));
        int above = BoxFaceParameterSign(&box, o, d, 1, -1.0, out.fraction * (1.0 + 0x1p-51));
        if (below * above > 0)
        {
            ++wrong;
            long double den = (long double)(-box.rot.s) * (long double)d.x + (long double)box.rot.c * (long double)d.y;
            long double num = -1.0L - ((long double)(-box.rot.s) * ((long double)o.x - (long double)center.x) +
                                       (long double)box.rot.c * ((long double)o.y - (long double)center.y));
            worst = fmax(worst, fabs((double)((long double)out.fraction / (num / den) - 1.0L)));
        }
    }
    printf("    box faces: %d grazing or near entries, %d off by more than 4 ulps (worst about %.3g)\n", checked, wrong,
           worst);
    ENSURE(checked > 15000);
    ENSURE(wrong == 0);
    return 0;
}

// A ray parameter p = num / den as exact terms (den != 0).
typedef struct ExactRatio
{
    lsExactTerm num[7], den[2];
    int numCount;
} ExactRatio;

// Sign of p - q for two ratios, exact.
static int CompareRatios(const ExactRatio* p, const ExactRatio* q)
{
    lsExactTerm terms[LS_EXACT_MAX_TERMS];
    int count = 0;
    lsExactAppendProduct(terms, &count, p->num, p->numCount, q->den, 2, 1.0);
    lsExactAppendProduct(terms, &count, q->num, q->numCount, p->den, 2, -1.0);
    return lsExactSign(terms, count) * lsExactSign(p->den, 2) * lsExactSign(q->den, 2);
}

// Liang-Barsky on the box's exact slabs (|u_k . (p - c)| <= h_k, u_k the rows of lsInvRotate as doubles): whether the
// ray meets the closed box within [0, L], and where it enters (*inside when at 0; else *entry, the entering face's
// parameter). An independent formulation of what lsRayCastBox decides.
static bool ExactBoxHit(const lsBox* box, lsVec2 o, lsVec2 d, double L, bool* inside, ExactRatio* entry)
{
    ExactRatio zero = {{{{0.0}, 1}}, {{{1.0}, 1}, {{0.0}, 1}}, 1}, range = {{{{L}, 1}}, {{{1.0}, 1}, {{0.0}, 1}}, 1};
    ExactRatio lo = zero, hi = range;
    bool entered = false;
    for (int k = 0; k < 2; ++k)
    {
        lsVec2 u = k == 0 ? lsV(box->rot.c, box->rot.s) : lsV(-box->rot.s, box->rot.c);
        double h = k == 0 ? box->halfSize.x : box->halfSize.y;
        lsExactTerm den[2] = {{{u.x, d.x}, 2}, {{u.y, d.y}, 2}};
        int dSign = lsExactSign(den, 2);
        ExactRatio face[2]; // g = -1 and g = +1: (g h - u . (o - c)) / (u . d)
        for (int g = 0; g < 2; ++g)
        {
            ExactRatio* r = face + g;
            r->num[0] = (lsExactTerm){{g ? h : -h}, 1};
            r->num[1] = (lsExactTerm){{-u.x, o.x}, 2};
            r->num[2] = (lsExactTerm){{u.x, box->center.x}, 2};
            r->num[3] = (lsExactTerm){{-u.y, o.y}, 2};
            r->num[4] = (lsExactTerm){{u.y, box->center.y}, 2};
            r->numCount = 5;
            r->den[0] = den[0];
            r->den[1] = den[1];
        }
        if (dSign == 0)
        {
            if (lsExactSign(face[1].num, 5) < 0 || lsExactSign(face[0].num, 5) > 0)
            {
                return false;
            }
            continue;
        }
        const ExactRatio* in = dSign > 0 ? face : face + 1;
        const ExactRatio* out = dSign > 0 ? face + 1 : face;
        if (CompareRatios(in, &lo) > 0)
        {
            lo = *in;
            entered = true;
        }
        if (CompareRatios(out, &hi) < 0)
        {
            hi = *out;
        }
    }
    if (CompareRatios(&lo, &hi) > 0)
    {
        return false;
    }
    *inside = !entered;
    *entry = lo;
    return true;
}

// Robots standing on a box's face or corner, or a hair (down to 10^-20 of the coordinates) off it, and beams along a
// face or through a corner: hit or miss and the entry are exact. The slab method decided them from the box frame's
// rounded values, so a robot 5.5e-17 m outside a rotated box's face (at 10^6 m) was taken as inside: every beam hit it
// at 0, which range_min then dropped, and the walls behind went unseen (scripts/exact_check.py seed 5 world 817).
static int RayBoxExactTest(void)
{
    lsBox found = lsMakeBox(lsV(-999965.0105780136, -999972.3663546526), lsV(1.0, 1.0), lsDegToRad(180.0));
    lsVec2 o = {-999965.4595090137, -999972.8663546526};
    bool inside;
    ExactRatio entry;
    lsVec2 away = {-0.9762960071199334, -0.216439613938103};
    ENSURE(!ExactBoxHit(&found, o, away, 26.0, &inside, &entry));
    ENSURE(!lsRayCastBox(&found, &(lsRayInput){o, away, 26.0}).hit);
    lsCastOutput out = lsRayCastBox(&found, &(lsRayInput){o, {0.0, 1.0}, 26.0});
    ENSURE(out.hit && out.fraction > 0.0 && out.fraction < 1e-15);

    lsRng rng = lsMakeRng(1717);
    int hits = 0, zeros = 0, wrong = 0;
    for (int i = 0; i < 20000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, -3, 5));
        lsVec2 center = lsTestRandomPoint(&rng, -1e6 + 2 * scale, 1e6 - 2 * scale, -1e6 + 2 * scale, 1e6 - 2 * scale);
        double angle = i % 4 == 0 ? 0.0 : (i % 4 == 1 ? LS_PI : lsRng_Range(&rng, -LS_PI, LS_PI));
        double sy = scale * lsRng_Range(&rng, 0.1, 2), sx = scale * lsRng_Range(&rng, 0.1, 2);
        lsBox box = lsMakeBox(center, lsV(sx, sy), angle);
        // A point of the boundary (a corner one time in four) in the box frame, nudged by 0 or a hair along the
        // face's normal, taken to the world (rounded there).
        double side = lsRng_Next(&rng) % 2 ? 1.0 : -1.0, hair = 0.0;
        if (lsRng_Next(&rng) % 3 != 0)
        {
            double sign = lsRng_Next(&rng) % 2 ? 1.0 : -1.0;
            hair = sign * scale * pow(10.0, lsRng_Range(&rng, -20, -8));
        }
        lsVec2 local = {lsRng_Range(&rng, -1, 1) * box.halfSize.x, side * box.halfSize.y + hair};
        if (i % 4 == 3)
        {
            local.x = (lsRng_Next(&rng) % 2 ? 1.0 : -1.0) * box.halfSize.x;
        }
        o = lsTransformPoint((lsTransform){center, box.rot}, local);
        // Any direction, or one along the face (the box's axis, either way).
        lsVec2 d = lsRng_Next(&rng) % 3 == 0 ? lsV(side * box.rot.c, side * box.rot.s)
                                             : lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        double L = 4.0 * scale;
        out = lsRayCastBox(&box, &(lsRayInput){o, d, L});
        bool hit = ExactBoxHit(&box, o, d, L, &inside, &entry);
        if (hit != out.hit)
        {
            ++wrong;
            continue;
        }
        if (!hit)
        {
            continue;
        }
        ++hits;
        if (inside)
        {
            zeros += 1;
            wrong += !(out.fraction == 0.0);
            continue;
        }
        // The entry parameter lies within 4 ulps of the fraction.
        ExactRatio below = {{{{out.fraction * (1.0 - 0x1p-51)}, 1}}, {{{1.0}, 1}, {{0.0}, 1}}, 1};
        ExactRatio above = {{{{out.fraction * (1.0 + 0x1p-51)}, 1}}, {{{1.0}, 1}, {{0.0}, 1}}, 1};
        wrong += !(out.fraction > 0.0) || CompareRatios(&entry, &below) < 0 || CompareRatios(&entry, &above) > 0;
    }
    printf("    boxes from points on or a hair off their boundary: %d hits (%d from inside or on), %d wrong\n", hits,
           zeros, wrong);
    ENSURE(hits > 5000 && zeros > 1000);
    ENSURE(wrong == 0);
    return 0;
}

// Exact sign of |o + tau d - c|^2 - r^2 (the circle's quadratic at ray parameter tau): positive outside.
static int CircleQuadraticSign(lsVec2 o, lsVec2 d, lsVec2 c, double r, double tau)
{
    lsExactTerm terms[13] = {
        {{tau, tau, d.x, d.x}, 4},
        {{tau, tau, d.y, d.y}, 4},
        {{2.0 * tau, d.x, o.x}, 3},
        {{-2.0 * tau, d.x, c.x}, 3},
        {{2.0 * tau, d.y, o.y}, 3},
        {{-2.0 * tau, d.y, c.y}, 3},
        {{o.x, o.x}, 2},
        {{-2.0 * o.x, c.x}, 2},
        {{c.x, c.x}, 2},
        {{o.y, o.y}, 2},
        {{-2.0 * o.y, c.y}, 2},
        {{c.y, c.y}, 2},
        {{-r, r}, 2},
    };
    return lsExactSign(terms, 13);
}

// Robots standing on a target's circle with a beam along the tangent, tipped into the circle: the near root must be
// exact to a few ulps. dot(d, o - c) cancels there (d is nearly perpendicular to o - c) and was left in double while
// the rest was recomputed in double-double: a beam from a robot rounded onto a circle of 6 m was 2.85e-12 off
// (scripts/exact_check.py seed 7 world 1286).
static int RayCircleAccuracyTest(void)
{
    lsRng rng = lsMakeRng(6262);
    int checked = 0, wrong = 0;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, -3, 3));
        lsVec2 centre = lsTestRandomPoint(&rng, -1e5, 1e5, -1e5, 1e5);
        lsCircle circle = {centre, scale * lsRng_Range(&rng, 0.5, 1.0)};
        double phi = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsVec2 o = lsMulAdd(circle.center, circle.radius, lsDirection(phi));
        // The tangent at o, turned towards the centre by 10^-12 .. 10^-2 rad (or away, half of the time: a miss or
        // a hit at 0 when o rounded inside).
        double tip = pow(10.0, lsRng_Range(&rng, -12, -2)) * (i % 4 == 0 ? -1.0 : 1.0);
        lsVec2 d = lsDirection(phi + 0.5 * LS_PI + tip);
        lsCastOutput out = lsRayCastCircle(&circle, &(lsRayInput){o, d, 4.0 * scale});
        if (!out.hit || out.fraction == 0.0)
        {
            continue;
        }
        ++checked;
        wrong += CircleQuadraticSign(o, d, circle.center, circle.radius, out.fraction * (1.0 - 0x1p-50)) < 0 ||
                 CircleQuadraticSign(o, d, circle.center, circle.radius, out.fraction * (1.0 + 0x1p-50)) > 0;
    }
    printf("    circles entered along a tangent from a point rounded onto them: %d checked, %d off by more than 8 "
           "eps\n",
           checked, wrong);
    ENSURE(checked > 10000);
    ENSURE(wrong == 0);
    return 0;
}

// Orientation of nearly collinear points on a 2^-42 grid (|coordinates| < 1024) against exact 128-bit integers.
__extension__ typedef __int128 Int128;

static int OrientRandomTest(void)
{
    lsRng rng = lsMakeRng(707);
    int wrong = 0, zeros = 0;
    const double unit = 0x1p-42;
    for (int i = 0; i < 100000; ++i)
    {
        long long ax = (long long)(lsRng_Next(&rng) >> 13) - (1LL << 50),
                  ay = (long long)(lsRng_Next(&rng) >> 13) - (1LL << 50);
        long long bx = (long long)(lsRng_Next(&rng) >> 13) - (1LL << 50),
                  by = (long long)(lsRng_Next(&rng) >> 13) - (1LL << 50);
        double lambda = lsRng_Range(&rng, -2.0, 3.0);
        long long cx = ax + (long long)(lambda * (double)(bx - ax)) + RandomInt(&rng, -2, 2);
        long long cy = ay + (long long)(lambda * (double)(by - ay)) + RandomInt(&rng, -2, 2);
        if (i % 3 == 0)
        {
            // Exactly collinear: c = a + k (b - a) / 2^j with the division exact.
            long long k = RandomInt(&rng, -3, 3);
            cx = ax + k * ((bx - ax) / 4);
            cy = ay + k * ((by - ay) / 4);
            bx = ax + 4 * ((bx - ax) / 4);
            by = ay + 4 * ((by - ay) / 4);
        }
        Int128 det = (Int128)(bx - ax) * (cy - ay) - (Int128)(by - ay) * (cx - ax);
        int expected = det > 0 ? 1 : (det < 0 ? -1 : 0);
        zeros += expected == 0;
        lsVec2 a = {(double)ax * unit, (double)ay * unit}, b = {(double)bx * unit, (double)by * unit};
        lsVec2 c = {(double)cx * unit, (double)cy * unit};
        wrong += lsOrient(a, b, c) != expected;
        wrong += lsOrient(b, c, a) != expected;
        wrong += lsOrient(c, a, b) != expected;
        wrong += lsOrient(b, a, c) != -expected;
        wrong += lsOrientDir(a, lsSub(b, a), c) != expected; // b - a is exact on this grid
    }
    printf("    orient: %d exactly collinear, %d wrong signs\n", zeros, wrong);
    ENSURE(zeros > 30000);
    ENSURE(wrong == 0);
    return 0;
}

// Exact reference of lsIntersectSegments on integers.
typedef struct ISegHit
{
    bool hit, collinear;
    long double s, t, sEnd;
} ISegHit;

static long double IParam(IVec a0, IVec a1, IVec p) // parameter of p (on the line) along a0->a1
{
    IVec e = ISub(a1, a0);
    return (long double)IDot(ISub(p, a0), e) / (long double)IDot(e, e);
}

static bool IOnSegment(IVec a, IVec b, IVec p)
{
    return ICross(ISub(b, a), ISub(p, a)) == 0 && IDot(ISub(p, a), ISub(p, b)) <= 0;
}

static ISegHit IIntersect(IVec a0, IVec a1, IVec b0, IVec b1)
{
    ISegHit r = {false, false, 0, 0, 0};
    bool aPoint = a0.x == a1.x && a0.y == a1.y, bPoint = b0.x == b1.x && b0.y == b1.y;
    if (aPoint || bPoint)
    {
        if (aPoint && bPoint)
        {
            r.hit = a0.x == b0.x && a0.y == b0.y;
        }
        else if (aPoint)
        {
            r.hit = IOnSegment(b0, b1, a0);
            r.t = r.hit ? IParam(b0, b1, a0) : 0;
        }
        else
        {
            r.hit = IOnSegment(a0, a1, b0);
            r.s = r.hit ? IParam(a0, a1, b0) : 0;
        }
        r.sEnd = r.s;
        return r;
    }
    IVec ea = ISub(a1, a0), eb = ISub(b1, b0), f = ISub(b0, a0);
    long long den = ICross(ea, eb);
    if (den != 0)
    {
        long long sn = ICross(f, eb), tn = ICross(f, ea);
        if (den < 0)
        {
            den = -den;
            sn = -sn;
            tn = -tn;
        }
        if (sn >= 0 && sn <= den && tn >= 0 && tn <= den)
        {
            r.hit = true;
            r.s = r.sEnd = (long double)sn / den;
            r.t = (long double)tn / den;
        }
        return r;
    }
    if (ICross(ea, f) != 0)
    {
        return r;
    }
    long long ee = IDot(ea, ea);
    long long s0 = IDot(f, ea), s1 = IDot(ISub(b1, a0), ea);
    long long lo = s0 < s1 ? s0 : s1, hi = s0 < s1 ? s1 : s0;
    lo = lo > 0 ? lo : 0;
    hi = hi < ee ? hi : ee;
    if (lo > hi)
    {
        return r;
    }
    r.hit = true;
    r.collinear = lo < hi;
    r.s = (long double)lo / ee;
    r.sEnd = (long double)hi / ee;
    // t of the start point a0 + s ea on b: dot(a0 + s ea - b0, eb) / |eb|^2
    long double px = a0.x + r.s * ea.x, py = a0.y + r.s * ea.y;
    r.t = ((px - b0.x) * eb.x + (py - b0.y) * eb.y) / (long double)IDot(eb, eb);
    return r;
}

static int SegmentSegmentGridTest(void)
{
    lsRng rng = lsMakeRng(808);
    int mismatches = 0, hits = 0, collinear = 0, touching = 0;
    for (int i = 0; i < 150000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec a0 = RandomIVec(&rng, -6, 6), a1 = RandomIVec(&rng, -6, 6);
        IVec b0 = RandomIVec(&rng, -6, 6), b1 = RandomIVec(&rng, -6, 6);
        if (i % 3 == 0)
        {
            // On a's line: integer multiples of a's direction (overlapping, touching end to end, or apart).
            IVec e = ISub(a1, a0);
            long long j0 = RandomInt(&rng, -2, 3), j1 = RandomInt(&rng, -2, 3);
            b0 = (IVec){a0.x + j0 * e.x, a0.y + j0 * e.y};
            b1 = (IVec){a0.x + j1 * e.x, a0.y + j1 * e.y};
        }
        ISegHit ref = IIntersect(a0, a1, b0, b1);
        lsSegment sa = {MapPoint(m, a0), MapPoint(m, a1)}, sb = {MapPoint(m, b0), MapPoint(m, b1)};
        lsSegmentHit out = lsIntersectSegments(&sa, &sb);
        int bad = out.hit != ref.hit || out.collinear != ref.collinear;
        if (!bad && out.hit)
        {
            bad += !(fabsl((long double)out.s - ref.s) <= 1e-12L && fabsl((long double)out.t - ref.t) <= 1e-12L);
            bad += !(fabsl((long double)out.sEnd - ref.sEnd) <= 1e-12L);
            lsVec2 expected = lsLerp(sa.a, sa.b, (double)ref.s);
            bad += !(lsDistance(out.point, expected) <= 1e-12 * (1.0 + fabs(m.offsetX) + fabs(m.offsetY)));
        }
        // Symmetric in whether they meet.
        bad += lsIntersectSegments(&sb, &sa).hit != ref.hit;
        mismatches += bad != 0;
        hits += ref.hit;
        collinear += ref.collinear;
        touching += ref.hit && !ref.collinear && (ref.s == 0 || ref.s == 1 || ref.t == 0 || ref.t == 1);
    }
    printf("    segment-segment grid: %d hits, %d collinear overlaps, %d touching at an end, %d mismatches\n", hits,
           collinear, touching, mismatches);
    ENSURE(collinear > 5000 && touching > 5000);
    ENSURE(mismatches == 0);
    return 0;
}

static int SegmentSegmentRealTest(void)
{
    lsRng rng = lsMakeRng(909);
    int mismatches = 0, hits = 0, skipped = 0;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 p[4];
        for (int k = 0; k < 4; ++k)
        {
            p[k] = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        }
        lsSegment sa = {p[0], p[1]}, sb = {p[2], p[3]};
        long double eax = (long double)p[1].x - (long double)p[0].x, eay = (long double)p[1].y - (long double)p[0].y;
        long double ebx = (long double)p[3].x - (long double)p[2].x, eby = (long double)p[3].y - (long double)p[2].y;
        long double fx = (long double)p[2].x - (long double)p[0].x, fy = (long double)p[2].y - (long double)p[0].y;
        long double den = eax * eby - eay * ebx;
        long double sRef = (fx * eby - fy * ebx) / den, tRef = (fx * eay - fy * eax) / den;
        long double margin = 1e-9L;
        if (fabsl(den) < 1e-6L * (long double)scale * (long double)scale || fabsl(sRef) < margin ||
            fabsl(sRef - 1) < margin || fabsl(tRef) < margin || fabsl(tRef - 1) < margin)
        {
            ++skipped;
            continue;
        }
        bool hit = sRef > 0 && sRef < 1 && tRef > 0 && tRef < 1;
        lsSegmentHit out = lsIntersectSegments(&sa, &sb);
        int bad = out.hit != hit || out.collinear;
        if (!bad && hit)
        {
            ++hits;
            bad += !(fabsl((long double)out.s - sRef) <= 1e-9L && fabsl((long double)out.t - tRef) <= 1e-9L);
        }
        mismatches += bad != 0;
    }
    printf("    segment-segment real: %d hits, %d skipped, %d mismatches\n", hits, skipped, mismatches);
    ENSURE(skipped < 2000 && hits > 10000);
    ENSURE(mismatches == 0);
    return 0;
}

static int SegmentCircleGridTest(void)
{
    lsRng rng = lsMakeRng(1010);
    int mismatches = 0, hits = 0, tangent = 0;
    for (int i = 0; i < 150000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec a = RandomIVec(&rng, -6, 6), b = i % 5 == 0 ? a : RandomIVec(&rng, -6, 6), c = RandomIVec(&rng, -6, 6);
        long long r = RandomInt(&rng, 0, 4);
        // Exact: squared distance from c to the closed segment against r^2, as num / den.
        IVec e = ISub(b, a), f = ISub(c, a);
        long long ee = IDot(e, e), u = IDot(f, e), num, den = 1;
        if (ee == 0 || u <= 0)
        {
            num = IDot(f, f);
        }
        else if (u >= ee)
        {
            num = IDot(ISub(c, b), ISub(c, b));
        }
        else
        {
            long long cr = ICross(e, f);
            num = cr * cr;
            den = ee;
        }
        bool hit = num <= r * r * den;
        tangent += num == r * r * den;
        lsSegment seg = {MapPoint(m, a), MapPoint(m, b)};
        lsCircle circle = {MapPoint(m, c), (double)r * m.unit};
        mismatches += lsSegmentOverlapsCircle(&seg, &circle) != hit;
        hits += hit;
        // Point containment on the same grid.
        IVec q = RandomIVec(&rng, -6, 6);
        IVec cq = ISub(q, c);
        mismatches += lsCircle_Contains(&circle, MapPoint(m, q)) != (IDot(cq, cq) <= r * r);
    }
    printf("    segment-circle grid: %d overlaps, %d tangent, %d mismatches\n", hits, tangent, mismatches);
    ENSURE(tangent > 1000);
    ENSURE(mismatches == 0);
    return 0;
}

static int SegmentPolygonGridTest(void)
{
    lsRng rng = lsMakeRng(1111);
    int mismatches = 0, hits = 0, polygons = 0;
    for (int i = 0; i < 100000; ++i)
    {
        GridMap m = RandomGridMap(&rng);
        IVec hull[24];
        int n = RandomIPolygon(&rng, hull, 5);
        if (n == 0)
        {
            continue;
        }
        lsVec2 pts[24];
        for (int k = 0; k < n; ++k)
        {
            pts[k] = MapPoint(m, hull[k]);
        }
        lsPolygon poly;
        ENSURE(lsMakePolygon(&poly, pts, n));
        ++polygons;
        IVec a = RandomIVec(&rng, -7, 7), b = RandomIVec(&rng, -7, 7);
        // Exact: an endpoint inside, or the segment meets an edge.
        bool hit = false;
        for (int e = 0; e < 2 && !hit; ++e)
        {
            IVec p = e == 0 ? a : b;
            bool inside = true;
            for (int k = 0; k < n; ++k)
            {
                inside = inside && ICross(ISub(hull[(k + 1) % n], hull[k]), ISub(p, hull[k])) >= 0;
            }
            hit = inside;
        }
        for (int k = 0; k < n && !hit; ++k)
        {
            hit = IIntersect(a, b, hull[k], hull[(k + 1) % n]).hit;
        }
        lsSegment seg = {MapPoint(m, a), MapPoint(m, b)};
        mismatches += lsSegmentOverlapsPolygon(&seg, &poly) != hit;
        hits += hit;
    }
    printf("    segment-polygon grid: %d polygons, %d overlaps, %d mismatches\n", polygons, hits, mismatches);
    ENSURE(mismatches == 0);
    return 0;
}

// Segment against an oriented box by brute-force sampling: the box's signed distance bound
// h(p) = max(|x| - hx, |y| - hy) in the box frame is 1-Lipschitz, so samples decide unless h is near zero.
static int SegmentBoxSamplingTest(void)
{
    lsRng rng = lsMakeRng(1212);
    int mismatches = 0, hits = 0, skipped = 0;
    const int samples = 64;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        double angle = lsRng_Range(&rng, -LS_PI, LS_PI);
        double sy = scale * lsRng_Range(&rng, 0.05, 1), sx = scale * lsRng_Range(&rng, 0.05, 1);
        lsBox box = lsMakeBox(center, lsV(sx, sy), angle);
        lsVec2 u0 = lsTestRandomPoint(&rng, -1.5, 1.5, -1.5, 1.5), u1 = lsTestRandomPoint(&rng, -1.5, 1.5, -1.5, 1.5);
        lsSegment seg = {lsMulAdd(center, scale, u0), lsMulAdd(center, scale, u1)};
        long double c = (long double)box.rot.c, s = (long double)box.rot.s, minH = 1e300L;
        for (int k = 0; k <= samples; ++k)
        {
            long double u = (long double)k / samples;
            long double px =
                (long double)seg.a.x + u * ((long double)seg.b.x - (long double)seg.a.x) - (long double)center.x;
            long double py =
                (long double)seg.a.y + u * ((long double)seg.b.y - (long double)seg.a.y) - (long double)center.y;
            long double lx = c * px + s * py, ly = -s * px + c * py;
            long double h = fmaxl(fabsl(lx) - (long double)box.halfSize.x, fabsl(ly) - (long double)box.halfSize.y);
            minH = fminl(minH, h);
        }
        long double spacing =
            sqrtl(((long double)seg.b.x - (long double)seg.a.x) * ((long double)seg.b.x - (long double)seg.a.x) +
                  ((long double)seg.b.y - (long double)seg.a.y) * ((long double)seg.b.y - (long double)seg.a.y)) /
            samples;
        long double margin = 1e-9L * (long double)scale;
        int expected = minH < -margin ? 1 : (minH > 0.5L * spacing + margin ? 0 : -1);
        if (expected < 0)
        {
            ++skipped;
            continue;
        }
        mismatches += lsSegmentOverlapsBox(&seg, &box) != (expected == 1);
        hits += expected;
        // The box and the polygon of its corners agree away from the boundary.
        lsVec2 corners[4];
        lsBox_Corners(&box, corners);
        lsPolygon poly;
        ENSURE(lsMakePolygon(&poly, corners, 4));
        mismatches += lsSegmentOverlapsPolygon(&seg, &poly) != (expected == 1);
    }
    printf("    segment-box sampling: %d overlaps, %d skipped, %d mismatches\n", hits, skipped, mismatches);
    ENSURE(skipped < 10000 && hits > 20000);
    ENSURE(mismatches == 0);
    return 0;
}

static int ClosestPointTest(void)
{
    lsRng rng = lsMakeRng(1313);
    int mismatches = 0;
    for (int i = 0; i < 100000; ++i)
    {
        double scale = RandomScale(&rng);
        lsVec2 center = lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsVec2 pts[6];
        int count = 1 + (int)(lsRng_Next(&rng) % 6);
        for (int k = 0; k < count; ++k)
        {
            pts[k] = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        }
        if (i % 7 == 0 && count > 1)
        {
            pts[1] = pts[0]; // a zero-length segment
        }
        lsVec2 p = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -2, 2, -2, 2));
        bool closed = (lsRng_Next(&rng) & 1) != 0;
        lsClosestPoint out = lsClosestPointOnPolyline(pts, count, closed, p);
        // Reference: ternary search of the (convex) squared distance along each segment, in long double.
        long double best = 1e300L;
        int segments = count == 1 ? 1 : (closed ? count : count - 1);
        for (int k = 0; k < segments; ++k)
        {
            lsVec2 a = pts[k], b = pts[(k + 1) % count];
            long double lo = 0, hi = 1;
            for (int it = 0; it < 100; ++it)
            {
                long double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
                long double x1 = (long double)a.x + m1 * ((long double)b.x - (long double)a.x) - (long double)p.x,
                            y1 = (long double)a.y + m1 * ((long double)b.y - (long double)a.y) - (long double)p.y;
                long double x2 = (long double)a.x + m2 * ((long double)b.x - (long double)a.x) - (long double)p.x,
                            y2 = (long double)a.y + m2 * ((long double)b.y - (long double)a.y) - (long double)p.y;
                if (x1 * x1 + y1 * y1 <= x2 * x2 + y2 * y2)
                {
                    hi = m2;
                }
                else
                {
                    lo = m1;
                }
            }
            long double x = (long double)a.x + lo * ((long double)b.x - (long double)a.x) - (long double)p.x,
                        y = (long double)a.y + lo * ((long double)b.y - (long double)a.y) - (long double)p.y;
            best = fminl(best, sqrtl(x * x + y * y));
        }
        int bad = !(fabsl((long double)out.distance - best) <= 1e-12L * ((long double)scale + 1e4L));
        bad += !(out.fraction >= 0.0 && out.fraction <= 1.0 && out.index >= 0 && out.index < segments);
        bad += !(fabs(lsDistance(out.point, p) - out.distance) <= 1e-12 * (scale + 1e4));
        mismatches += bad != 0;
    }
    // Hand cases: clamping at both ends, exact endpoints, zero length, first segment on ties.
    lsSegment seg = {{0, 0}, {4, 0}};
    lsClosestPoint c = lsClosestPointOnSegment(&seg, lsV(-3, 4));
    ENSURE(c.fraction == 0.0 && lsVecEqual(c.point, lsV(0, 0)) && c.distance == 5.0);
    c = lsClosestPointOnSegment(&seg, lsV(7, -4));
    ENSURE(c.fraction == 1.0 && lsVecEqual(c.point, lsV(4, 0)) && c.distance == 5.0);
    c = lsClosestPointOnSegment(&seg, lsV(1, 2));
    ENSURE(c.fraction == 0.25 && lsVecEqual(c.point, lsV(1, 0)) && c.distance == 2.0);
    lsSegment dot = {{1, 1}, {1, 1}};
    c = lsClosestPointOnSegment(&dot, lsV(4, 5));
    ENSURE(c.fraction == 0.0 && c.distance == 5.0);
    lsVec2 square[4] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    c = lsClosestPointOnPolyline(square, 4, true, lsV(1, 1));
    ENSURE(c.index == 0 && c.distance == 1.0);
    c = lsClosestPointOnPolyline(square, 4, true, lsV(-1, 1));
    ENSURE(c.index == 3 && c.distance == 1.0);
    c = lsClosestPointOnPolyline(square, 4, false, lsV(-1, 1));
    ENSURE(c.index == 0 && c.distance == sqrt(2.0));
    c = lsClosestPointOnPolyline(square, 1, false, lsV(3, 4));
    ENSURE(c.index == 0 && c.distance == 5.0);
    printf("    closest point: %d mismatches\n", mismatches);
    ENSURE(mismatches == 0);
    return 0;
}

// A double of random sign with a random exponent in [lo, hi].
static double Extreme(lsRng* rng, int lo, int hi)
{
    int exponent = (int)RandomInt(rng, lo, hi);
    double v = ldexp(lsRng_Range(rng, 1.0, 2.0), exponent);
    return (lsRng_Next(rng) & 1) ? v : -v;
}

static bool FiniteCast(lsCastOutput out, double maxFraction)
{
    return isfinite(out.fraction) && lsIsValidVec2(out.point) && lsIsValidVec2(out.normal) &&
           (!out.hit ||
            (out.fraction >= 0.0 && out.fraction <= maxFraction && fabs(lsLength(out.normal) - 1.0) < 1e-9));
}

// No NaN or infinity from finite input at extreme scales (every value of a case has its own exponent).
static int FiniteOutputTest(void)
{
    lsRng rng = lsMakeRng(1414);
    int bad = 0;
    for (int i = 0; i < 100000; ++i)
    {
        int lo = i % 2 ? -300 : -20, hi = i % 2 ? 300 : 20;
        lsVec2 v[6];
        for (int k = 0; k < 6; ++k)
        {
            double y = Extreme(&rng, lo, hi);
            v[k] = lsV(Extreme(&rng, lo, hi), y);
        }
        lsRayInput in = {v[0], v[1], fabs(Extreme(&rng, lo, hi))};
        lsSegment seg = {v[2], v[3]};
        lsCircle circle = {v[4], fabs(Extreme(&rng, lo, hi))};
        double hx = fabs(Extreme(&rng, lo, hi)), hy = fabs(Extreme(&rng, lo, hi));
        lsBox box = {v[5], {hx, hy}, lsMakeRot(lsRng_Range(&rng, -4, 4))};
        bad += !FiniteCast(lsRayCastSegment(&seg, &in), in.maxFraction);
        bad += !FiniteCast(lsRayCastCircle(&circle, &in), in.maxFraction);
        bad += !FiniteCast(lsRayCastBox(&box, &in), in.maxFraction);
        lsVec2 tri[3] = {v[2], v[3], v[4]};
        lsPolygon poly;
        if (lsMakePolygon(&poly, tri, 3))
        {
            bad += !FiniteCast(lsRayCastPolygon(&poly, &in), in.maxFraction);
            bad += !(lsIsValidVec2(poly.normals[0]) && fabs(lsLength(poly.normals[0]) - 1.0) < 1e-9);
        }
        lsSegment other = {v[4], v[5]};
        lsSegmentHit sh = lsIntersectSegments(&seg, &other);
        bad += !(lsIsValidVec2(sh.point) && isfinite(sh.s) && isfinite(sh.t) && isfinite(sh.sEnd));
        lsClosestPoint cp = lsClosestPointOnSegment(&seg, v[0]);
        bad += !(lsIsValidVec2(cp.point) && isfinite(cp.fraction) && cp.fraction >= 0.0 && cp.fraction <= 1.0);
        (void)lsSegmentOverlapsCircle(&seg, &circle);
        (void)lsSegmentOverlapsBox(&seg, &box);
    }
    printf("    finite outputs: %d bad\n", bad);
    ENSURE(bad == 0);
    return 0;
}

// Bit for bit: -0 differs from +0 (== would call them equal), a NaN equals itself.
static bool SameBits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static bool SameOutput(const lsCastOutput* a, const lsCastOutput* b)
{
    return a->hit == b->hit && SameBits(a->fraction, b->fraction) && SameBits(a->point.x, b->point.x) &&
           SameBits(a->point.y, b->point.y) && SameBits(a->normal.x, b->normal.x) && SameBits(a->normal.y, b->normal.y);
}

// The inlined common case of the segment cast (lsRayCastSegmentCommon, which the scene's walk and
// lsRayCastSegment use, and lsRayCastSegmentPrepared, which scans use) gives the whole routine's bits whenever it
// decides: rays on a grid through endpoints and shared corners, grazing rays, origins on the line, axis-aligned walls
// at zero (signed zeros in the clamp), huge and tiny scales, ranges ending at the crossing. It must also leave the
// undecidable cases to the whole routine.
static int RaySegmentCommonTest(void)
{
    lsRng rng = lsMakeRng(1616);
    int decided = 0, decidedPrepared = 0, left = 0, bad = 0;
    for (int i = 0; i < 400000; ++i)
    {
        int kind = (int)(lsRng_Next(&rng) % 6);
        double scale = ldexp(1.0, (int)(lsRng_Next(&rng) % 60) - 30);
        lsVec2 center = kind == 5 ? lsV(0.0, 0.0) : lsTestRandomPoint(&rng, -1e4, 1e4, -1e4, 1e4);
        lsSegment seg;
        seg.a = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        seg.b = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -1, 1, -1, 1));
        lsVec2 o = lsMulAdd(center, scale, lsTestRandomPoint(&rng, -2, 2, -2, 2));
        lsVec2 aim = lsMulAdd(seg.a, lsRng_Uniform(&rng), lsSub(seg.b, seg.a));
        if (kind == 1)
        {
            aim = lsRng_Uniform(&rng) < 0.5 ? seg.a : seg.b; // through an endpoint
        }
        else if (kind == 2)
        {
            // grazing: aim along the segment's line, from a point on it or just off it
            o = lsMulAdd(seg.a, -lsRng_Uniform(&rng), lsSub(seg.b, seg.a));
            o.y += (lsRng_Uniform(&rng) - 0.5) * 1e-12 * scale;
            aim = seg.b;
        }
        else if (kind == 3)
        {
            seg.b.x = seg.a.x; // axis-aligned, as most walls of the bench worlds
        }
        else if (kind == 5)
        {
            seg.a.x = lsRng_Uniform(&rng) < 0.5 ? 0.0 : -0.0; // a vertical wall at x = +-0
            seg.b.x = lsRng_Uniform(&rng) < 0.5 ? 0.0 : -0.0;
            o = lsV(-scale, scale * (lsRng_Uniform(&rng) - 0.5));
        }
        lsVec2 d = lsSub(aim, o);
        if (lsRng_Uniform(&rng) < 0.5)
        {
            d = lsUnitVector(d);
        }
        if (d.x == 0.0 && d.y == 0.0)
        {
            continue;
        }
        double range = lsRng_Uniform(&rng) < 0.2 ? (double)INFINITY : 3.0 * lsRng_Uniform(&rng);
        if (kind == 4)
        {
            // the range ends at the crossing (the range test's filter fails there)
            range = lsRayCastSegmentFull(&seg, &(lsRayInput){o, d, HUGE_VAL}).fraction;
        }
        lsRayInput in = {o, d, range};
        lsCastOutput common, full = lsRayCastSegmentFull(&seg, &in);
        if (lsRayCastSegmentCommon(o, d, fmin(range, DBL_MAX), seg.a, seg.b, &common))
        {
            decided += 1;
            bad += !SameOutput(&common, &full);
        }
        else
        {
            left += 1;
        }
        lsCastOutput whole = lsRayCastSegment(&seg, &in);
        bad += !SameOutput(&whole, &full);
        // The prepared form, its per-segment part reused by a fan of directions around d (normals cached).
        lsSegmentCastPrep prep;
        lsPrepareSegmentCast(o, seg.a, seg.b, &prep);
        for (int k = -2; k <= 2; ++k)
        {
            lsRayInput turned = {o, k == 0 ? d : lsRotateAngle(d, 1e-3 * k), range};
            lsCastOutput prepared, reference = lsRayCastSegmentFull(&seg, &turned);
            if (lsRayCastSegmentPrepared(&prep, turned.direction, fmin(range, DBL_MAX), &prepared))
            {
                decidedPrepared += 1;
                bad += !SameOutput(&prepared, &reference);
            }
        }
    }
    printf("    common case decided %d, left %d to the whole routine; prepared decided %d; %d different\n", decided,
           left, decidedPrepared, bad);
    ENSURE(bad == 0 && decided > 100000 && left > 1000 && decidedPrepared > 500000);
    return 0;
}

// One ray of the circle casts' adversarial mix (RayCircleCommonTest): *circleOut and *in; false for a zero
// direction, drawn no further.
static bool RandomCircleRay(lsRng* rng, lsCircle* circleOut, lsRayInput* in)
{
    int kind = (int)(lsRng_Next(rng) % 9);
    int exponent = (int)(lsRng_Next(rng) % 121) - 60;
    double r = ldexp(lsRng_Range(rng, 0.5, 1.0), exponent);
    double far = lsRng_Uniform(rng) < 0.3 ? 1e4 : ldexp(r, (int)(lsRng_Next(rng) % 48)); // centre's scale
    lsCircle circle = {lsTestRandomPoint(rng, -far, far, -far, far), r};
    lsVec2 u = lsRotateAngle(lsV(1.0, 0.0), lsRng_Range(rng, -LS_PI, LS_PI));
    lsVec2 o = lsMulAdd(circle.center, r * lsRng_Range(rng, 1.0, 8.0), u);
    lsVec2 aim = lsMulAdd(circle.center, 1.5 * r, lsTestRandomPoint(rng, -1, 1, -1, 1));
    if (kind == 1)
    {
        // tangent: turned from the centre's direction by asin(r / |c - o|), and a few ulps either side
        lsVec2 f = lsSub(circle.center, o);
        double turn = asin(fmin(r / lsLength(f), 1.0)) * (lsRng_Uniform(rng) < 0.5 ? 1.0 : -1.0);
        turn *= 1.0 + ldexp((double)((int)(lsRng_Next(rng) % 9) - 4), -50);
        aim = lsAdd(o, lsRotateAngle(f, turn));
    }
    else if (kind == 2)
    {
        // the origin on the circle (rounded onto it, or exactly on it: a 3-4-5 triangle of the radius)
        o = lsMulAdd(circle.center, r, u);
        if (lsRng_Uniform(rng) < 0.5)
        {
            o = lsAdd(circle.center, lsV(0.6 * r * (u.x < 0.0 ? -1.0 : 1.0), 0.8 * r * (u.y < 0.0 ? -1.0 : 1.0)));
            circle.radius = lsLength(lsSub(o, circle.center));
        }
    }
    else if (kind == 3)
    {
        // the origin just outside or just inside: a few ulps of the radius off the circle
        o = lsMulAdd(circle.center, r * (1.0 + ldexp((double)((int)(lsRng_Next(rng) % 33) - 16), -52)), u);
    }
    else if (kind == 4)
    {
        o = lsMulAdd(circle.center, r * lsRng_Uniform(rng), u); // inside
    }
    else if (kind == 5)
    {
        // everything scaled by 2^500 (squares overflow) or 2^-500 (they underflow), or a radius of 0
        int e = lsRng_Uniform(rng) < 0.5 ? 500 : -500;
        circle = (lsCircle){lsScale(ldexp(1.0, e), circle.center), ldexp(r, e)};
        o = lsScale(ldexp(1.0, e), o), aim = lsScale(ldexp(1.0, e), aim);
        circle.radius = lsRng_Uniform(rng) < 0.3 ? 0.0 : circle.radius;
    }
    else if (kind == 6)
    {
        // along an axis, through the centre or beside it by a fraction of the radius
        o = lsV(circle.center.x + (lsRng_Uniform(rng) < 0.5 ? -3.0 : 3.0) * r, circle.center.y);
        aim = lsV(circle.center.x, circle.center.y + r * (double)((int)(lsRng_Next(rng) % 5) - 2) * 0.5);
    }
    lsVec2 d = lsSub(aim, o);
    double length = lsRng_Uniform(rng);
    if (length < 0.4)
    {
        d = lsUnitVector(d);
    }
    else if (length < 0.6)
    {
        d = lsScale(ldexp(1.0, (int)(lsRng_Next(rng) % 200) - 100), lsUnitVector(d));
    }
    if (d.x == 0.0 && d.y == 0.0)
    {
        return false;
    }
    double range = lsRng_Uniform(rng) < 0.2 ? (double)INFINITY : 4.0 * lsLength(lsSub(aim, o)) / lsLength(d);
    if (kind == 7 || kind == 8)
    {
        // the range ends at the hit or an ulp before it (the range test's filter fails there)
        range = lsRayCastCircleFull(&circle, &(lsRayInput){o, d, HUGE_VAL}).fraction;
        range = kind == 8 ? nextafter(range, 0.0) : range;
    }
    *circleOut = circle;
    *in = (lsRayInput){o, d, range};
    return true;
}

// The inlined common case of the circle cast (lsRayCastCircleCommon and lsCompleteCircleHit, which the moving
// discs' casts and lsRayCastCircle use) gives the whole routine's bits whenever it decides: tangent and nearly
// tangent rays, origins on, inside and just outside the circle (exactly representable ones too), ranges ending at
// the hit, radii from 2^-60 to 2^60 and 0, centres far from zero and beyond the squares' range, directions of any
// length and along the axes. It must also leave the undecidable cases to the whole routine.
static int RayCircleCommonTest(void)
{
    lsRng rng = lsMakeRng(1717);
    int decided = 0, decidedHits = 0, left = 0, bad = 0;
    for (int i = 0; i < 400000; ++i)
    {
        lsCircle circle;
        lsRayInput in;
        if (!RandomCircleRay(&rng, &circle, &in))
        {
            continue;
        }
        lsVec2 o = in.origin, d = in.direction;
        double range = in.maxFraction;
        lsCastOutput common, full = lsRayCastCircleFull(&circle, &in);
        if (lsRayCastCircleCommon(o, d, fmin(range, DBL_MAX), circle.center, circle.radius, &common))
        {
            if (common.hit)
            {
                lsCompleteCircleHit(o, d, circle.center, circle.radius, &common);
                decidedHits += 1;
            }
            decided += 1;
            bad += !SameOutput(&common, &full);
        }
        else
        {
            left += 1;
        }
        lsCastOutput whole = lsRayCastCircle(&circle, &in);
        bad += !SameOutput(&whole, &full);
    }
    printf("    common case decided %d (%d hits), left %d to the whole routine; %d different\n", decided, decidedHits,
           left, bad);
    ENSURE(bad == 0 && decided > 100000 && decidedHits > 50000 && left > 20000);
    return 0;
}

// The two-lane common case of the circle cast (lsRayCastCircleCommon2 and lsCompleteCircleHit2, which scans use for
// the robots near them) gives the whole routine's bits in every lane it decides. Lane 0 is a ray of the adversarial
// mix above; lane 1 leaves the same origin along the same direction, one turned by a few ulps or by up to a tenth of a
// radian, or another ray's direction, with the same range or another one (so lanes differ in what they decide).
static int RayCircleCommon2Test(void)
{
    lsRng rng = lsMakeRng(1718);
    int misses = 0, hits = 0, completed = 0, left = 0, inside = 0, bad = 0;
    for (int i = 0; i < 400000; ++i)
    {
        lsCircle circle, other;
        lsRayInput in[2];
        if (!RandomCircleRay(&rng, &circle, &in[0]) || !RandomCircleRay(&rng, &other, &in[1]))
        {
            continue;
        }
        lsVec2 d = in[0].direction;
        int how = (int)(lsRng_Next(&rng) % 4);
        if (how == 0)
        {
            d = lsRotateAngle(d, ldexp((double)((int)(lsRng_Next(&rng) % 9) - 4), -52));
        }
        else if (how == 1)
        {
            d = lsRotateAngle(d, lsRng_Range(&rng, -0.1, 0.1));
        }
        else if (how == 2)
        {
            d = in[1].direction;
        }
        in[1] = (lsRayInput){in[0].origin, d, lsRng_Uniform(&rng) < 0.5 ? in[0].maxFraction : in[1].maxFraction};
        if (d.x == 0.0 && d.y == 0.0)
        {
            continue;
        }
        lsCircleCastPrep prep;
        lsPrepareCircleCast(in[0].origin, circle.center, circle.radius, &prep);
        if (!prep.outside)
        {
            inside += 1;
            continue;
        }
        lsDouble2 dx = {in[0].direction.x, in[1].direction.x}, dy = {in[0].direction.y, in[1].direction.y};
        lsDouble2 L = {fmin(in[0].maxFraction, DBL_MAX), fmin(in[1].maxFraction, DBL_MAX)};
        int hitLanes;
        lsDouble2 fraction, point[2], normal[2];
        int missLanes = lsRayCastCircleCommon2(&prep, dx, dy, L, &hitLanes, &fraction);
        int completeLanes = lsCompleteCircleHit2(&prep, dx, dy, fraction, point, normal);
        for (int k = 0; k < 2; ++k)
        {
            lsCastOutput full = lsRayCastCircleFull(&circle, in + k);
            if (missLanes >> k & 1)
            {
                misses += 1;
                bad += full.hit || (hitLanes >> k & 1);
            }
            else if (hitLanes >> k & 1)
            {
                lsCastOutput out = {{point[0][k], point[1][k]}, {normal[0][k], normal[1][k]}, fraction[k], true};
                if (completeLanes >> k & 1)
                {
                    completed += 1;
                }
                else
                {
                    lsCompleteCircleHit(in[k].origin, in[k].direction, circle.center, circle.radius, &out);
                }
                hits += 1;
                bad += !SameOutput(&out, &full);
            }
            else
            {
                left += 1;
            }
        }
    }
    printf("    two lanes: %d misses, %d hits (%d completed), %d left to the whole routine, %d origins not outside; %d "
           "different\n",
           misses, hits, completed, left, inside, bad);
    ENSURE(bad == 0 && misses > 100000 && hits > 100000 && completed > 50000 && left > 20000);
    return 0;
}

int GeometryTest(void)
{
    RUN_SUBTEST(OrientHandTest);
    RUN_SUBTEST(ExactEngineTest);
    RUN_SUBTEST(RaySegmentHandTest);
    RUN_SUBTEST(ZeroFractionSignTest);
    RUN_SUBTEST(CornerLeakTest);
    RUN_SUBTEST(RayCircleHandTest);
    RUN_SUBTEST(RayBoxPolygonHandTest);
    RUN_SUBTEST(MakePolygonTest);
    RUN_SUBTEST(SegmentHandTest);
    RUN_SUBTEST(RaySegmentGridTest);
    RUN_SUBTEST(RaySegmentRealTest);
    RUN_SUBTEST(RaySegmentCommonTest);
    RUN_SUBTEST(RayCircleGridTest);
    RUN_SUBTEST(RayCircleRealTest);
    RUN_SUBTEST(RayCircleCommonTest);
    RUN_SUBTEST(RayCircleCommon2Test);
    RUN_SUBTEST(RayPolygonGridTest);
    RUN_SUBTEST(RayBoxRealTest);
    RUN_SUBTEST(GrazingAccuracyTest);
    RUN_SUBTEST(CrossingAccuracyTest);
    RUN_SUBTEST(RayBoxAccuracyTest);
    RUN_SUBTEST(RayBoxExactTest);
    RUN_SUBTEST(RayCircleAccuracyTest);
    RUN_SUBTEST(OrientRandomTest);
    RUN_SUBTEST(SegmentSegmentGridTest);
    RUN_SUBTEST(SegmentSegmentRealTest);
    RUN_SUBTEST(SegmentCircleGridTest);
    RUN_SUBTEST(SegmentPolygonGridTest);
    RUN_SUBTEST(SegmentBoxSamplingTest);
    RUN_SUBTEST(ClosestPointTest);
    RUN_SUBTEST(FiniteOutputTest);
    return 0;
}

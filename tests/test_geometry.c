// Tests of geometry.c and predicates.c: hand-made degenerate cases, then randomized properties against independent
// slow references (long double arithmetic, dense sampling) from fixed seeds.
#include "test.h"

#include "core/geometry.h"
#include "core/predicates.h"

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
        long double v = (long double)a * b + (long double)c * d * e - f;
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
        lsVec2 center = {lsRng_Range(&rng, -1e4, 1e4), lsRng_Range(&rng, -1e4, 1e4)};
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

int GeometryTest(void)
{
    RUN_SUBTEST(OrientHandTest);
    RUN_SUBTEST(ExactEngineTest);
    RUN_SUBTEST(RaySegmentHandTest);
    RUN_SUBTEST(CornerLeakTest);
    RUN_SUBTEST(RayCircleHandTest);
    RUN_SUBTEST(RayBoxPolygonHandTest);
    RUN_SUBTEST(MakePolygonTest);
    return 0;
}

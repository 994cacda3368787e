// Tests of distance.c (GJK) and epa.c (EPA): hand cases for every degenerate situation, then randomized property
// tests against independent slow references written here in long double: brute-force vertex-edge distance and the
// separating axis test (SAT), over float polygon pairs (apart, overlapping, nested, 10 km from the origin), exact
// integer polygon pairs (touching, nested, apart, degenerate segments and points) and rounded shapes.
#include "test.h"

#include "core/distance.h"
#include "core/exact.h"

#include <float.h>
#include <stdint.h>

// ---------------------------------------------------------------------------------------------------------------------
// Independent references (long double, brute force)

typedef long double ld;

// Wide: quadruple precision where the compiler has it (113-bit significand), so that differences of doubles and their
// products are exact and the references' projections and cross products round only once; long double otherwise.
#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 wide;
#else
typedef long double wide;
#endif

typedef struct RefShape
{
    lsVec2 p[LS_MAX_POLYGON_VERTICES];
    int count;
} RefShape;

static ld RefPointSegmentDistance(lsVec2 p, lsVec2 a, lsVec2 b)
{
    ld ex = (ld)b.x - (ld)a.x, ey = (ld)b.y - (ld)a.y;
    ld px = (ld)p.x - (ld)a.x, py = (ld)p.y - (ld)a.y;
    ld ee = ex * ex + ey * ey;
    ld t = ee > 0 ? (px * ex + py * ey) / ee : 0;
    if (t > 0 && t < 1)
    {
        // Inside: the distance to the line by the cross product; when it cancels (a tiny gap to a long edge), again
        // in wide, where it is exact.
        ld c = ex * py - ey * px;
        if (fabsl(c) < 1e-6L * (fabsl(ex * py) + fabsl(ey * px)))
        {
            c = (ld)(((wide)b.x - (wide)a.x) * ((wide)p.y - (wide)a.y) -
                     ((wide)b.y - (wide)a.y) * ((wide)p.x - (wide)a.x));
        }
        return fabsl(c) / sqrtl(ee);
    }
    t = t <= 0 ? 0 : 1;
    ld dx = px - t * ex, dy = py - t * ey;
    return sqrtl(dx * dx + dy * dy);
}

// Projection interval of a shape on an axis (an edge vector, not unit), relative to origin o so that coordinates 5 km
// from the world origin cost little precision: in long double, and in wide, where the differences and products are
// exact (used again when the long double overlap suffers cancellation: a tiny overlap against long edges).
static void RefProject(const RefShape* s, lsVec2 o, ld ax, ld ay, ld* lo, ld* hi, ld* reach)
{
    *lo = *hi = ax * ((ld)s->p[0].x - (ld)o.x) + ay * ((ld)s->p[0].y - (ld)o.y);
    for (int i = 0; i < s->count; ++i)
    {
        ld dx = (ld)s->p[i].x - (ld)o.x, dy = (ld)s->p[i].y - (ld)o.y;
        ld v = ax * dx + ay * dy;
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
        ld r = fabsl(dx) + fabsl(dy);
        *reach = r > *reach ? r : *reach;
    }
}

static void RefProjectWide(const RefShape* s, lsVec2 o, wide ax, wide ay, wide* lo, wide* hi)
{
    *lo = *hi = ax * ((wide)s->p[0].x - (wide)o.x) + ay * ((wide)s->p[0].y - (wide)o.y);
    for (int i = 1; i < s->count; ++i)
    {
        wide v = ax * ((wide)s->p[i].x - (wide)o.x) + ay * ((wide)s->p[i].y - (wide)o.y);
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
}

// Overlap of the two shapes' projections on edge axis (ax, ay) (exact differences of doubles), divided by its length.
static ld RefAxisOverlap(const RefShape* a, const RefShape* b, ld ax, ld ay, ld len)
{
    ld loA, hiA, loB, hiB, reach = 0;
    RefProject(a, a->p[0], ax, ay, &loA, &hiA, &reach);
    RefProject(b, a->p[0], ax, ay, &loB, &hiB, &reach);
    ld o1 = hiA - loB, o2 = hiB - loA;
    ld overlap = o1 < o2 ? o1 : o2;
    // The products' size bounds the rounding; an overlap far below it has cancelled.
    if (fabsl(overlap) < 1e-6L * (fabsl(ax) + fabsl(ay)) * reach)
    {
        wide wLoA, wHiA, wLoB, wHiB;
        RefProjectWide(a, a->p[0], (wide)ax, (wide)ay, &wLoA, &wHiA);
        RefProjectWide(b, a->p[0], (wide)ax, (wide)ay, &wLoB, &wHiB);
        wide w1 = wHiA - wLoB, w2 = wHiB - wLoA;
        overlap = (ld)(w1 < w2 ? w1 : w2);
    }
    return overlap / len;
}

// SAT over every edge normal and edge direction of both shapes (directions matter only for degenerate shapes:
// collinear segments). Returns the minimum overlap along unit axes: negative when separated (some axis has a gap),
// otherwise the penetration depth (the minimum over axes of the overlap is attained at a face normal of B - A).
static ld RefSat(const RefShape* a, const RefShape* b)
{
    ld best = LDBL_MAX;
    bool separated = false;
    ld gapBest = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        const RefShape* s = pass == 0 ? a : b;
        int edges = s->count == 2 ? 1 : s->count;
        if (s->count < 2)
        {
            continue;
        }
        for (int i = 0; i < edges; ++i)
        {
            lsVec2 p = s->p[i], q = s->p[(i + 1) % s->count];
            ld ex = (ld)q.x - (ld)p.x, ey = (ld)q.y - (ld)p.y;
            ld len = sqrtl(ex * ex + ey * ey);
            if (!(len > 0))
            {
                continue;
            }
            // Unnormalized axes (exact differences of doubles); the overlap is divided by the length once.
            ld axes[2][2] = {{ey, -ex}, {ex, ey}};
            for (int k = 0; k < 2; ++k)
            {
                ld overlap = RefAxisOverlap(a, b, axes[k][0], axes[k][1], len);
                if (overlap < 0)
                {
                    separated = true;
                    gapBest = overlap < gapBest ? overlap : gapBest;
                }
                best = overlap < best ? overlap : best;
            }
        }
    }
    if (a->count == 1 && b->count == 1)
    {
        ld dx = (ld)b->p[0].x - (ld)a->p[0].x, dy = (ld)b->p[0].y - (ld)a->p[0].y;
        return -sqrtl(dx * dx + dy * dy);
    }
    return separated ? gapBest : best;
}

// Distance between disjoint convex shapes: the minimum over vertex-to-edge distances both ways.
static ld RefDistance(const RefShape* a, const RefShape* b)
{
    ld best = LDBL_MAX;
    for (int pass = 0; pass < 2; ++pass)
    {
        const RefShape* s = pass == 0 ? a : b;
        const RefShape* t = pass == 0 ? b : a;
        for (int i = 0; i < s->count; ++i)
        {
            for (int j = 0; j < t->count; ++j)
            {
                ld d = RefPointSegmentDistance(s->p[i], t->p[j], t->p[(j + 1) % t->count]);
                best = d < best ? d : best;
            }
        }
    }
    return best;
}

// Distance from p to a convex shape (0 inside), counter-clockwise vertices.
static ld RefPointShapeDistance(const RefShape* s, lsVec2 p)
{
    if (s->count >= 3)
    {
        bool inside = true;
        for (int i = 0; i < s->count; ++i)
        {
            lsVec2 a = s->p[i], b = s->p[(i + 1) % s->count];
            ld c = ((ld)b.x - (ld)a.x) * ((ld)p.y - (ld)a.y) - ((ld)b.y - (ld)a.y) * ((ld)p.x - (ld)a.x);
            if (c < 0)
            {
                inside = false;
            }
        }
        if (inside)
        {
            return 0;
        }
    }
    ld best = LDBL_MAX;
    for (int i = 0; i < s->count; ++i)
    {
        ld d = RefPointSegmentDistance(p, s->p[i], s->p[(i + 1) % s->count]);
        best = d < best ? d : best;
    }
    return best;
}

static RefShape RefFromProxy(const lsShapeProxy* proxy)
{
    RefShape s = {.count = proxy->count};
    for (int i = 0; i < proxy->count; ++i)
    {
        s.p[i] = proxy->points[i];
    }
    return s;
}

static RefShape RefTranslated(const RefShape* s, lsVec2 d)
{
    RefShape t = *s;
    for (int i = 0; i < t.count; ++i)
    {
        t.p[i] = lsAdd(t.p[i], d);
    }
    return t;
}

// Position tolerance: relative to the shapes' size, plus a few ulps of the coordinates (10 km worlds).
static double Slack(const RefShape* a, const RefShape* b, double scale)
{
    double far = 0.0;
    for (int i = 0; i < a->count; ++i)
    {
        far = fmax(far, fmax(fabs(a->p[i].x), fabs(a->p[i].y)));
    }
    for (int i = 0; i < b->count; ++i)
    {
        far = fmax(far, fmax(fabs(b->p[i].x), fabs(b->p[i].y)));
    }
    return 1e-12 * scale + 8.0 * DBL_EPSILON * far;
}

static bool IsUnit(lsVec2 n) { return fabs(lsLength(n) - 1.0) <= 1e-12; }

static bool IsFiniteDistance(const lsDistanceOutput* o)
{
    return isfinite(o->distance) && isfinite(o->coreDistance) && lsIsValidVec2(o->pointA) && lsIsValidVec2(o->pointB) &&
           lsIsValidVec2(o->normal) && o->distance >= 0.0 && o->coreDistance >= 0.0;
}

static bool IsFinitePenetration(const lsPenetration* p)
{
    return isfinite(p->depth) && p->depth >= 0.0 && lsIsValidVec2(p->normal) && lsIsValidVec2(p->pointA) &&
           lsIsValidVec2(p->pointB);
}

static bool Near(double value, double expected, double tol) { return fabs(value - expected) <= tol; }

static bool NearVec(lsVec2 v, double x, double y, double tol) { return Near(v.x, x, tol) && Near(v.y, y, tol); }

static lsShapeProxy BoxProxy(double x0, double y0, double x1, double y1)
{
    lsVec2 p[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    return lsMakeProxy(p, 4, 0.0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Hand cases

static int ProxyTest(void)
{
    lsBox box = {{10.0, 20.0}, {2.0, 1.0}, lsMakeRot(0.5 * LS_PI)};
    lsShapeProxy p = lsProxyFromBox(&box);
    ENSURE(p.count == 4 && p.radius == 0.0);
    // Corners counter-clockwise from local (-hx, -hy); rotated a quarter turn, local x points up.
    ENSURE(NearVec(p.points[0], 11.0, 18.0, 1e-12));
    ENSURE(NearVec(p.points[1], 11.0, 22.0, 1e-12));
    ENSURE(NearVec(p.points[2], 9.0, 22.0, 1e-12));
    ENSURE(NearVec(p.points[3], 9.0, 18.0, 1e-12));

    lsCircle circle = {{1.0, 2.0}, 0.5};
    p = lsProxyFromCircle(&circle);
    ENSURE(p.count == 1 && p.radius == 0.5 && lsVecEqual(p.points[0], circle.center));

    lsSegment segment = {{0.0, 0.0}, {3.0, 4.0}};
    p = lsProxyFromSegment(&segment);
    ENSURE(p.count == 2 && lsVecEqual(p.points[1], segment.b));

    lsPolygon polygon = {.count = 3};
    polygon.vertices[0] = lsV(0.0, 0.0);
    polygon.vertices[1] = lsV(1.0, 0.0);
    polygon.vertices[2] = lsV(0.0, 1.0);
    p = lsProxyFromPolygon(&polygon);
    ENSURE(p.count == 3 && lsVecEqual(p.points[2], lsV(0.0, 1.0)));

    p = lsProxyFromPoint(lsV(7.0, 8.0));
    ENSURE(p.count == 1 && p.radius == 0.0);

    lsVec2 local[2] = {{1.0, 0.0}, {0.0, 0.0}};
    lsTransform xf = {{5.0, 5.0}, lsMakeRot(0.5 * LS_PI)};
    p = lsMakeProxyTransformed(local, 2, 0.25, xf);
    ENSURE(NearVec(p.points[0], 5.0, 6.0, 1e-12) && p.radius == 0.25);

    lsShapeProxy square = BoxProxy(0.0, 0.0, 1.0, 1.0);
    ENSURE(lsProxy_FindSupport(&square, lsV(1.0, 1.0)) == 2);
    ENSURE(lsProxy_FindSupport(&square, lsV(-1.0, 0.0)) == 0); // tie between 0 and 3: the first
    return 0;
}

static int PredicateTest(void)
{
    // Exact cross signs where the rounded products cancel to 0 or to the wrong side.
    double eps = DBL_EPSILON;
    ENSURE(lsCrossSign(lsV(1.0 + eps, 1.0), lsV(1.0, 1.0 - eps)) == -1); // (1 + e)(1 - e) - 1 = -e^2
    ENSURE(lsCrossSign(lsV(1.0, 1.0 - eps), lsV(1.0 + eps, 1.0)) == 1);
    ENSURE(lsCrossSign(lsV(1e10 + 1.0, 1e10), lsV(1e10, 1e10 - 1.0)) == -1); // 1e20 - 1 - 1e20
    ENSURE(lsCrossSign(lsV(3.0, 7.0), lsV(6.0, 14.0)) == 0);
    ENSURE(lsCrossSign(lsV(0.1, 0.3), lsV(0.1, 0.3)) == 0);
    ENSURE(lsCrossSign(lsV(0.0, 0.0), lsV(5.0, 1.0)) == 0);
    ENSURE(lsCrossSign(lsV(1.0, 0.0), lsV(0.0, 1e-300)) == 1);
    // Products that underflow to zero (1e-400) or overflow still give the exact sign.
    ENSURE(lsCrossSign(lsV(1e-200, 1e-200), lsV(1e-200, 1e-200 * (1.0 + eps))) == 1);
    ENSURE(lsCrossSign(lsV(1e200, 1e200 * (1.0 + eps)), lsV(1e200, 1e200)) == -1);
    // Point to line distance, compensated: a 10 km line and a point 1 micrometre off it.
    lsVec2 q0 = {-5000.0, -5000.0}, q1 = {5000.0, 5000.0 + 1e-9};
    lsVec2 p = {1234.5678, 1234.5678 + 1e-6};
    wide cross =
        ((wide)q1.x - (wide)q0.x) * ((wide)p.y - (wide)q0.y) - ((wide)q1.y - (wide)q0.y) * ((wide)p.x - (wide)q0.x);
    ld len = sqrtl(((ld)q1.x - (ld)q0.x) * ((ld)q1.x - (ld)q0.x) + ((ld)q1.y - (ld)q0.y) * ((ld)q1.y - (ld)q0.y));
    ld ref = fabsl((ld)cross) / len;
    ENSURE_SMALL((double)(((ld)lsPointLineDistance(q0, q1, p) - ref) / ref), 1e-14);
    ENSURE(lsPointLineDistance(q0, q0, lsV(-5000.0, -4997.0)) == 3.0);
    return 0;
}

static int ApartTest(void)
{
    // Boxes apart along x: distance 2, closest points on the facing edges, normal +x.
    lsShapeProxy a = BoxProxy(0.0, 0.0, 1.0, 1.0);
    lsShapeProxy b = BoxProxy(3.0, 0.0, 4.0, 1.0);
    lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
    ENSURE(!o.overlap);
    ENSURE(o.distance == 2.0);
    ENSURE(NearVec(o.normal, 1.0, 0.0, 0.0));
    ENSURE(o.pointA.x == 1.0 && o.pointB.x == 3.0);
    ENSURE(o.pointA.y >= 0.0 && o.pointA.y <= 1.0 && Near(o.pointA.y, o.pointB.y, 1e-15));
    lsPenetration pen = lsShapePenetration(&a, &b);
    ENSURE(!pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));
    ENSURE(!lsShapesOverlap(&a, &b));

    // Apart diagonally: corner to corner.
    b = BoxProxy(4.0, 5.0, 6.0, 7.0);
    o = lsShapeDistance(&a, &b, NULL);
    ENSURE(!o.overlap && o.distance == 5.0);
    ENSURE(NearVec(o.pointA, 1.0, 1.0, 0.0) && NearVec(o.pointB, 4.0, 5.0, 0.0));
    ENSURE(NearVec(o.normal, 0.6, 0.8, 1e-15));

    // Point to segment, projection inside the segment; then off the end.
    lsSegment seg = {{0.0, 0.0}, {10.0, 0.0}};
    lsShapeProxy s = lsProxyFromSegment(&seg);
    lsShapeProxy p = lsProxyFromPoint(lsV(3.0, -2.0));
    o = lsShapeDistance(&s, &p, NULL);
    ENSURE(!o.overlap && o.distance == 2.0 && NearVec(o.pointA, 3.0, 0.0, 1e-15) && NearVec(o.normal, 0.0, -1.0, 0.0));
    p = lsProxyFromPoint(lsV(13.0, 4.0));
    o = lsShapeDistance(&s, &p, NULL);
    ENSURE(o.distance == 5.0 && NearVec(o.pointA, 10.0, 0.0, 0.0));

    // Parallel segments.
    lsSegment seg2 = {{2.0, 1.0}, {12.0, 1.0}};
    lsShapeProxy s2 = lsProxyFromSegment(&seg2);
    o = lsShapeDistance(&s, &s2, NULL);
    ENSURE(!o.overlap && o.distance == 1.0 && NearVec(o.normal, 0.0, 1.0, 0.0));
    ENSURE(Near(o.pointB.y - o.pointA.y, 1.0, 1e-15) && o.pointA.x >= 2.0 && o.pointA.x <= 10.0);
    return 0;
}

static int TouchingTest(void)
{
    lsShapeProxy a = BoxProxy(0.0, 0.0, 1.0, 1.0);
    // Sharing an edge: overlap (touching counts), distance 0, zero depth along the contact normal.
    lsShapeProxy b = BoxProxy(1.0, 0.0, 2.0, 1.0);
    lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && o.coreDistance == 0.0);
    ENSURE(lsVecEqual(o.pointA, o.pointB) && o.pointA.x == 1.0);
    lsPenetration pen = lsShapePenetration(&a, &b);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));
    ENSURE(IsFinitePenetration(&pen));
    // Sharing part of an edge (offset box).
    b = BoxProxy(0.5, 1.0, 1.5, 2.0);
    pen = lsShapePenetration(&a, &b);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 0.0, 1.0, 0.0));
    // Touching at a vertex only.
    b = BoxProxy(1.0, 1.0, 2.0, 2.0);
    o = lsShapeDistance(&a, &b, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && NearVec(o.pointA, 1.0, 1.0, 0.0));
    pen = lsShapePenetration(&a, &b);
    ENSURE(pen.overlap && pen.depth == 0.0 && IsUnit(pen.normal));
    // The normal must separate: moving B a little along it leaves a gap.
    lsShapeProxy moved = b;
    for (int i = 0; i < moved.count; ++i)
    {
        moved.points[i] = lsMulAdd(moved.points[i], 1e-6, pen.normal);
    }
    ENSURE(!lsShapesOverlap(&a, &moved));
    // A vertex touching the middle of an edge (triangle tip on the box top).
    lsVec2 tri[3] = {{0.5, 1.0}, {1.0, 2.0}, {0.0, 2.0}};
    lsShapeProxy t = lsMakeProxy(tri, 3, 0.0);
    pen = lsShapePenetration(&a, &t);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 0.0, 1.0, 0.0));
    ENSURE(NearVec(pen.pointA, 0.5, 1.0, 0.0) && NearVec(pen.pointB, 0.5, 1.0, 0.0));
    // Segments meeting end to end, and a T junction.
    lsSegment s1 = {{0.0, 0.0}, {1.0, 0.0}}, s2 = {{1.0, 0.0}, {2.0, 0.0}}, s3 = {{0.5, 0.0}, {0.5, 3.0}};
    lsShapeProxy p1 = lsProxyFromSegment(&s1), p2 = lsProxyFromSegment(&s2), p3 = lsProxyFromSegment(&s3);
    ENSURE(lsShapesOverlap(&p1, &p2));
    pen = lsShapePenetration(&p1, &p2);
    ENSURE(pen.overlap && pen.depth == 0.0 && IsUnit(pen.normal));
    o = lsShapeDistance(&p1, &p3, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && NearVec(o.pointA, 0.5, 0.0, 0.0));
    // Tangent circles: centres 3 apart, radii 1 and 2.
    lsCircle c1 = {{0.0, 0.0}, 1.0}, c2 = {{3.0, 0.0}, 2.0};
    lsShapeProxy q1 = lsProxyFromCircle(&c1), q2 = lsProxyFromCircle(&c2);
    o = lsShapeDistance(&q1, &q2, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && o.coreDistance == 3.0 && NearVec(o.pointA, 1.0, 0.0, 0.0));
    pen = lsShapePenetration(&q1, &q2);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));
    // Far from the origin (10 km world), dyadic coordinates: still exactly touching.
    lsShapeProxy far1 = BoxProxy(5000.25, -4000.5, 5001.25, -3999.5);
    lsShapeProxy far2 = BoxProxy(5001.25, -4000.0, 5003.0, -3990.0);
    o = lsShapeDistance(&far1, &far2, NULL);
    ENSURE(o.overlap && o.distance == 0.0);
    pen = lsShapePenetration(&far1, &far2);
    ENSURE(pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));
    return 0;
}

static int OverlapTest(void)
{
    // Coincident boxes 2 x 1: the cheapest way out is along y, depth 1.
    lsShapeProxy a = BoxProxy(0.0, 0.0, 2.0, 1.0);
    lsDistanceOutput o = lsShapeDistance(&a, &a, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && NearVec(o.normal, 0.0, 0.0, 0.0));
    lsPenetration pen = lsShapePenetration(&a, &a);
    ENSURE(pen.overlap && Near(pen.depth, 1.0, 1e-15) && Near(fabs(pen.normal.y), 1.0, 1e-15));
    ENSURE(Near(lsDistance(lsMulAdd(pen.pointB, pen.depth, pen.normal), pen.pointA), 0.0, 1e-15));

    // One inside another: small box near the big box's right side leaves through it.
    lsShapeProxy big = BoxProxy(0.0, 0.0, 10.0, 10.0);
    lsShapeProxy small = BoxProxy(8.0, 4.0, 9.0, 6.0);
    pen = lsShapePenetration(&big, &small);
    ENSURE(pen.overlap && Near(pen.depth, 10.0 - 8.0, 1e-14) && NearVec(pen.normal, 1.0, 0.0, 1e-15));
    // Swapped roles: moving the big box by depth * normal clears the small one, so the normal points left.
    pen = lsShapePenetration(&small, &big);
    ENSURE(Near(pen.depth, 2.0, 1e-14) && NearVec(pen.normal, -1.0, 0.0, 1e-15));

    // Overlapping boxes: depth 0.25 along x.
    lsShapeProxy b = BoxProxy(1.75, 0.5, 3.0, 3.0);
    pen = lsShapePenetration(&a, &b);
    ENSURE(Near(pen.depth, 0.25, 1e-15) && NearVec(pen.normal, 1.0, 0.0, 1e-15));
    ENSURE(pen.iterations > 0 && pen.iterations <= LS_EPA_MAX_ITERATIONS);

    // Point in polygon: point (0.5, 0.2) in the unit square leaves through the bottom edge.
    lsShapeProxy unit = BoxProxy(0.0, 0.0, 1.0, 1.0);
    lsShapeProxy pt = lsProxyFromPoint(lsV(0.5, 0.2));
    o = lsShapeDistance(&unit, &pt, NULL);
    ENSURE(o.overlap && NearVec(o.pointA, 0.5, 0.2, 1e-15));
    pen = lsShapePenetration(&unit, &pt);
    ENSURE(Near(pen.depth, 0.2, 1e-15) && NearVec(pen.normal, 0.0, -1.0, 1e-15));
    ENSURE(NearVec(pen.pointA, 0.5, 0.0, 1e-15) && NearVec(pen.pointB, 0.5, 0.2, 1e-15));
    // Point on the boundary: touching.
    pt = lsProxyFromPoint(lsV(1.0, 0.3));
    pen = lsShapePenetration(&unit, &pt);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));
    // Identical points: zero-area overlap, the documented normal (1, 0).
    lsShapeProxy p0 = lsProxyFromPoint(lsV(3.0, 4.0));
    pen = lsShapePenetration(&p0, &p0);
    ENSURE(pen.overlap && pen.depth == 0.0 && NearVec(pen.normal, 1.0, 0.0, 0.0));

    // Segment crossing a box through its middle: out by 0.5 up or down.
    lsSegment seg = {{-1.0, 0.5}, {2.0, 0.5}};
    lsShapeProxy s = lsProxyFromSegment(&seg);
    ENSURE(lsShapesOverlap(&unit, &s));
    pen = lsShapePenetration(&unit, &s);
    ENSURE(Near(pen.depth, 0.5, 1e-15) && Near(fabs(pen.normal.y), 1.0, 1e-15));
    // Segment crossing diagonally, from below-left: the cheapest exit is off a corner region.
    lsSegment diag = {{-1.0, -0.5}, {1.5, 2.0}};
    lsShapeProxy d = lsProxyFromSegment(&diag);
    pen = lsShapePenetration(&unit, &d);
    RefShape ru = RefFromProxy(&unit), rd = RefFromProxy(&d);
    ENSURE(Near(pen.depth, (double)RefSat(&ru, &rd), 1e-14));

    // Collinear segments overlapping: zero-area overlap, depth 0, normal perpendicular to them.
    lsSegment c1 = {{0.0, 0.0}, {2.0, 0.0}}, c2 = {{1.0, 0.0}, {3.0, 0.0}};
    lsShapeProxy q1 = lsProxyFromSegment(&c1), q2 = lsProxyFromSegment(&c2);
    pen = lsShapePenetration(&q1, &q2);
    ENSURE(pen.overlap && pen.depth == 0.0 && Near(fabs(pen.normal.y), 1.0, 0.0));
    // A segment lying inside another.
    lsSegment c3 = {{0.5, 0.0}, {1.5, 0.0}};
    lsShapeProxy q3 = lsProxyFromSegment(&c3);
    pen = lsShapePenetration(&q1, &q3);
    ENSURE(pen.overlap && pen.depth == 0.0 && Near(fabs(pen.normal.y), 1.0, 0.0));
    // Crossing segments (an X): depth is the shorter way out, the smaller tip.
    lsSegment x1 = {{0.0, 0.0}, {4.0, 0.0}}, x2 = {{1.5, -1.0}, {1.5, 3.0}};
    lsShapeProxy r1 = lsProxyFromSegment(&x1), r2 = lsProxyFromSegment(&x2);
    pen = lsShapePenetration(&r1, &r2);
    ENSURE(Near(pen.depth, 1.0, 1e-15) && NearVec(pen.normal, 0.0, 1.0, 1e-15));
    return 0;
}

static int CircleTest(void)
{
    // Circle-circle exact: centres 5 apart, radii 1 and 2.
    lsCircle c1 = {{0.0, 0.0}, 1.0}, c2 = {{3.0, 4.0}, 2.0};
    lsShapeProxy a = lsProxyFromCircle(&c1), b = lsProxyFromCircle(&c2);
    lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
    ENSURE(!o.overlap && o.distance == 2.0 && o.coreDistance == 5.0);
    ENSURE(NearVec(o.pointA, 0.6, 0.8, 1e-15) && NearVec(o.pointB, 1.8, 2.4, 1e-15));
    ENSURE(NearVec(o.normal, 0.6, 0.8, 1e-15));
    // Overlapping circles: depth 1, common witness point within both.
    lsCircle c3 = {{3.0, 4.0}, 5.0};
    b = lsProxyFromCircle(&c3);
    o = lsShapeDistance(&a, &b, NULL);
    ENSURE(o.overlap && o.distance == 0.0 && lsVecEqual(o.pointA, o.pointB));
    ENSURE(lsDistance(o.pointA, c1.center) <= 1.0 && lsDistance(o.pointA, c3.center) <= 5.0);
    lsPenetration pen = lsShapePenetration(&a, &b);
    ENSURE(Near(pen.depth, 1.0, 1e-15) && NearVec(pen.normal, 0.6, 0.8, 1e-15));
    ENSURE(NearVec(pen.pointA, 0.6, 0.8, 1e-15) && NearVec(pen.pointB, 0.0, 0.0, 1e-14));
    ENSURE(Near(lsDistance(lsMulAdd(pen.pointB, pen.depth, pen.normal), pen.pointA), 0.0, 1e-15));
    // Concentric circles: the cores are the same point; depth is the radius sum, defined normal.
    lsCircle c4 = {{0.0, 0.0}, 0.5};
    b = lsProxyFromCircle(&c4);
    pen = lsShapePenetration(&a, &b);
    ENSURE(pen.overlap && pen.depth == 1.5 && NearVec(pen.normal, 1.0, 0.0, 0.0));

    // Circle against a box: centre outside (rounded overlap), centre inside (EPA plus radius), apart.
    lsShapeProxy box = BoxProxy(0.0, 0.0, 2.0, 2.0);
    lsCircle ci = {{2.5, 1.0}, 1.0};
    lsShapeProxy cp = lsProxyFromCircle(&ci);
    pen = lsShapePenetration(&box, &cp);
    ENSURE(Near(pen.depth, 0.5, 1e-15) && NearVec(pen.normal, 1.0, 0.0, 1e-15));
    ENSURE(NearVec(pen.pointA, 2.0, 1.0, 1e-15) && NearVec(pen.pointB, 1.5, 1.0, 1e-15));
    ci.center = lsV(1.5, 1.0);
    cp = lsProxyFromCircle(&ci);
    pen = lsShapePenetration(&box, &cp);
    ENSURE(Near(pen.depth, 1.5, 1e-15) && NearVec(pen.normal, 1.0, 0.0, 1e-15));
    ci.center = lsV(5.0, 6.0);
    cp = lsProxyFromCircle(&ci);
    o = lsShapeDistance(&box, &cp, NULL);
    ENSURE(!o.overlap && Near(o.distance, 4.0, 1e-15) && NearVec(o.pointA, 2.0, 2.0, 1e-15));
    ENSURE(NearVec(o.pointB, 5.0 - 0.6, 6.0 - 0.8, 1e-15));

    // Capsules on one line, overlapping: the cores' overlap has zero area, so the way out is sideways by r1 + r2.
    lsVec2 line1[2] = {{0.0, 0.0}, {2.0, 0.0}}, line2[2] = {{1.0, 0.0}, {5.0, 0.0}};
    lsShapeProxy k1 = lsMakeProxy(line1, 2, 0.25), k2 = lsMakeProxy(line2, 2, 0.5);
    pen = lsShapePenetration(&k1, &k2);
    ENSURE(pen.overlap && pen.depth == 0.75 && Near(fabs(pen.normal.y), 1.0, 0.0));
    ENSURE(Near(lsDistance(lsMulAdd(pen.pointB, pen.depth, pen.normal), pen.pointA), 0.0, 1e-15));
    // Crossing capsules: core depth 1 (the shorter tip) plus both radii.
    lsVec2 cross1[2] = {{0.0, 0.0}, {4.0, 0.0}}, cross2[2] = {{1.5, -1.0}, {1.5, 3.0}};
    k1 = lsMakeProxy(cross1, 2, 0.25);
    k2 = lsMakeProxy(cross2, 2, 0.5);
    pen = lsShapePenetration(&k1, &k2);
    ENSURE(Near(pen.depth, 1.75, 1e-15) && NearVec(pen.normal, 0.0, 1.0, 1e-15));

    // Capsule (a rounded segment) above a box.
    lsVec2 capsule[2] = {{-1.0, 3.0}, {3.0, 3.0}};
    lsShapeProxy cap = lsMakeProxy(capsule, 2, 0.5);
    o = lsShapeDistance(&box, &cap, NULL);
    ENSURE(!o.overlap && Near(o.distance, 0.5, 1e-15) && NearVec(o.normal, 0.0, 1.0, 1e-15));
    ENSURE(Near(o.pointB.y, 2.5, 1e-15) && Near(o.pointA.y, 2.0, 1e-15));
    return 0;
}

static int FootprintTest(void)
{
    // A robot footprint (a hexagon in the robot frame) placed by a pose, against a wall box.
    lsVec2 hexagon[6];
    for (int i = 0; i < 6; ++i)
    {
        hexagon[i] = lsScale(0.3, lsDirection(i * LS_PI / 3.0));
    }
    lsBox wall = {{5.0, 0.0}, {0.1, 3.0}, lsRotIdentity()};
    lsShapeProxy wallProxy = lsProxyFromBox(&wall);
    // Heading 0: the vertex at +x is nearest the wall's left face at x = 4.9.
    lsTransform pose = {{4.0, 0.5}, lsMakeRot(0.0)};
    lsShapeProxy robot = lsMakeProxyTransformed(hexagon, 6, 0.0, pose);
    lsDistanceOutput o = lsShapeDistance(&robot, &wallProxy, NULL);
    ENSURE(!o.overlap && Near(o.distance, 0.6, 1e-14) && NearVec(o.pointA, 4.3, 0.5, 1e-14));
    // Turned by 30 degrees a flat face meets the wall: the distance is the apothem.
    pose.q = lsMakeRot(LS_PI / 6.0);
    robot = lsMakeProxyTransformed(hexagon, 6, 0.0, pose);
    o = lsShapeDistance(&robot, &wallProxy, NULL);
    ENSURE(!o.overlap && Near(o.distance, 0.9 - 0.3 * cos(LS_PI / 6.0), 1e-14) && NearVec(o.normal, 1.0, 0.0, 1e-14));
    // Pushed into the wall: penetration along -x for the wall (B = wall moves +x).
    pose.p = lsV(4.75, 0.5);
    robot = lsMakeProxyTransformed(hexagon, 6, 0.0, pose);
    lsPenetration pen = lsShapePenetration(&robot, &wallProxy);
    ENSURE(pen.overlap && Near(pen.depth, 4.75 + 0.3 * cos(LS_PI / 6.0) - 4.9, 1e-14));
    ENSURE(NearVec(pen.normal, 1.0, 0.0, 1e-14));
    // A circular footprint is a rounded point.
    lsShapeProxy disc = lsMakeProxyTransformed(&(lsVec2){0.0, 0.0}, 1, 0.3, pose);
    pen = lsShapePenetration(&disc, &wallProxy);
    ENSURE(Near(pen.depth, 4.75 + 0.3 - 4.9, 1e-14) && NearVec(pen.normal, 1.0, 0.0, 1e-14));
    return 0;
}

static int WarmStartTest(void)
{
    // A box moving past another in small steps, then into it: the cached simplex gives the same answers in fewer
    // iterations, also when a cached triangle (overlap) no longer holds the origin and the other way round.
    lsVec2 local[4] = {{-0.5, -0.25}, {0.5, -0.25}, {0.5, 0.25}, {-0.5, 0.25}};
    lsShapeProxy wall = BoxProxy(0.0, 0.0, 10.0, 1.0);
    lsSimplexCache cache = {0};
    int coldTotal = 0, warmTotal = 0, overlapping = 0;
    for (int step = 0; step < 200; ++step)
    {
        lsTransform pose = {{-2.0 + 0.07 * step, 2.0 - 0.01 * step}, lsMakeRot(0.01 * step)};
        lsShapeProxy mover = lsMakeProxyTransformed(local, 4, 0.0, pose);
        lsDistanceOutput cold = lsShapeDistance(&wall, &mover, NULL);
        lsDistanceOutput warm = lsShapeDistance(&wall, &mover, &cache);
        ENSURE(cold.overlap == warm.overlap);
        ENSURE(Near(cold.distance, warm.distance, 1e-13 * (1.0 + cold.distance)));
        ENSURE(cache.count == warm.simplex.count);
        coldTotal += cold.iterations;
        warmTotal += warm.iterations;
        overlapping += warm.overlap;
    }
    ENSURE(warmTotal < coldTotal);
    ENSURE(overlapping > 20 && overlapping < 180);
    // A cache from other shapes (indices out of range) is ignored, not trusted.
    lsSimplexCache bad = {3, {0, 1, 30}, {0, 0, 0}};
    lsShapeProxy p = lsProxyFromPoint(lsV(20.0, 0.5));
    lsDistanceOutput o = lsShapeDistance(&wall, &p, &bad);
    ENSURE(Near(o.distance, 10.0, 1e-15) && bad.count == 2 && bad.indexA[0] < 4 && bad.indexA[1] < 4);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Randomized property tests

// A random strictly convex polygon: count points on an ellipse at jittered, well separated angles, rotated.
static RefShape RandomPolygon(lsRng* rng, lsVec2 center, double size, int maxCount)
{
    RefShape s;
    s.count = 3 + (int)(lsRng_Next(rng) % (uint64_t)(maxCount - 2));
    double rx = size * lsRng_Range(rng, 0.2, 1.0), ry = size * lsRng_Range(rng, 0.2, 1.0);
    lsRot q = lsMakeRot(lsRng_Range(rng, 0.0, 2.0 * LS_PI));
    double start = lsRng_Range(rng, 0.0, 2.0 * LS_PI);
    for (int i = 0; i < s.count; ++i)
    {
        double angle = start + 2.0 * LS_PI * (i + 0.8 * lsRng_Uniform(rng)) / s.count;
        s.p[i] = lsAdd(center, lsRotate(q, lsV(rx * cos(angle), ry * sin(angle))));
    }
    return s;
}

static lsShapeProxy ProxyFromRef(const RefShape* s, double radius) { return lsMakeProxy(s->p, s->count, radius); }

// Checks shared by every random pair: finite outputs, caps respected, and the witness-point contracts.
typedef struct Stats
{
    int maxGjk, maxEpa;
    int apart, overlapping, touching, nested, skipped;
    double worstDistance, worstDepth; // worst relative errors seen
} Stats;

static int CheckApart(const RefShape* ra, const RefShape* rb, const lsDistanceOutput* o, ld refDistance, double scale,
                      Stats* stats)
{
    ENSURE(!o->overlap);
    double err = fabs(o->distance - (double)refDistance) / (double)refDistance;
    stats->worstDistance = fmax(stats->worstDistance, err);
    ENSURE(err <= 1e-9);
    ENSURE(IsUnit(o->normal));
    // The closest points lie on the shapes and are the reported distance apart.
    double slack = Slack(ra, rb, scale);
    ENSURE((double)RefPointShapeDistance(ra, o->pointA) <= slack);
    ENSURE((double)RefPointShapeDistance(rb, o->pointB) <= slack);
    ENSURE(fabs(lsDistance(o->pointA, o->pointB) - o->distance) <= slack);
    return 0;
}

static int CheckPenetration(const RefShape* ra, const RefShape* rb, const lsPenetration* pen, ld refDepth, double scale,
                            Stats* stats)
{
    ENSURE(pen->overlap && IsUnit(pen->normal));
    double err = fabs(pen->depth - (double)refDepth) / (double)refDepth;
    stats->worstDepth = fmax(stats->worstDepth, err);
    ENSURE(err <= 1e-9);
    // Translating B by depth * normal leaves the shapes just touching: SAT's value becomes ~0.
    double slack = Slack(ra, rb, scale);
    RefShape moved = RefTranslated(rb, lsScale(pen->depth, pen->normal));
    ENSURE(fabsl(RefSat(ra, &moved)) <= 100.0L * (ld)slack);
    // The witness points: A's deepest point on A, B's on B, pointB + depth * normal == pointA.
    ENSURE((double)RefPointShapeDistance(ra, pen->pointA) <= slack);
    ENSURE((double)RefPointShapeDistance(rb, pen->pointB) <= slack);
    ENSURE(lsDistance(lsMulAdd(pen->pointB, pen->depth, pen->normal), pen->pointA) <= 100.0 * slack);
    return 0;
}

// One pair of convex polygons against the references.
static int CheckPolygonPair(const RefShape* ra, const RefShape* rb, double scale, Stats* stats)
{
    lsShapeProxy a = ProxyFromRef(ra, 0.0), b = ProxyFromRef(rb, 0.0);
    lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
    lsPenetration pen = lsShapePenetration(&a, &b);
    ENSURE(IsFiniteDistance(&o) && IsFinitePenetration(&pen));
    ENSURE(o.iterations <= LS_GJK_MAX_ITERATIONS && pen.iterations <= LS_EPA_MAX_ITERATIONS);
    ENSURE(o.overlap == pen.overlap);
    stats->maxGjk = o.iterations > stats->maxGjk ? o.iterations : stats->maxGjk;
    stats->maxEpa = pen.iterations > stats->maxEpa ? pen.iterations : stats->maxEpa;

    ld sat = RefSat(ra, rb);
    // Within rounding of touching, either answer is right; only finiteness is checked.
    if (fabsl(sat) <= 1e-11L * (ld)scale)
    {
        stats->skipped += 1;
        return 0;
    }
    if (sat < 0)
    {
        stats->apart += 1;
        ENSURE(o.distance > 0.0);
        return CheckApart(ra, rb, &o, RefDistance(ra, rb), scale, stats);
    }
    stats->overlapping += 1;
    ENSURE(o.overlap && o.distance == 0.0);
    // The overlap witness is a point of both shapes.
    ENSURE((double)RefPointShapeDistance(ra, o.pointA) <= Slack(ra, rb, scale));
    ENSURE((double)RefPointShapeDistance(rb, o.pointA) <= Slack(ra, rb, scale));
    return CheckPenetration(ra, rb, &pen, sat, scale, stats);
}

static int RandomPolygonPairsTest(void)
{
    // Polygon pairs apart, overlapping and nested, sizes 1 cm to 100 m, up to 5 km from the origin.
    lsRng rng = lsMakeRng(20261122);
    Stats stats = {0};
    int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        double size = pow(10.0, lsRng_Range(&rng, -2.0, 2.0));
        lsVec2 base = lsTestRandomPoint(&rng, -5000.0, 5000.0, -5000.0, 5000.0);
        int kind = (int)(lsRng_Next(&rng) % 4);
        int maxCount = (i % 10 == 0) ? LS_MAX_POLYGON_VERTICES : 8;
        RefShape ra = RandomPolygon(&rng, base, size, maxCount);
        RefShape rb;
        if (kind == 3)
        {
            // Nested: a small B around the centroid of A's vertices (strictly inside A), counted when all of B's
            // vertices are inside A; half the time the roles are swapped (A inside B).
            lsVec2 c = {0.0, 0.0};
            for (int k = 0; k < ra.count; ++k)
            {
                c = lsMulAdd(c, 1.0 / ra.count, ra.p[k]);
            }
            rb = RandomPolygon(&rng, c, size * pow(10.0, lsRng_Range(&rng, -3.0, -1.0)), maxCount);
            bool inside = true;
            for (int k = 0; k < rb.count; ++k)
            {
                inside = inside && RefPointShapeDistance(&ra, rb.p[k]) == 0;
            }
            stats.nested += inside;
            if (i % 2 == 0)
            {
                RefShape t = ra;
                ra = rb;
                rb = t;
            }
        }
        else
        {
            double sizeB = size * pow(10.0, lsRng_Range(&rng, -1.0, 1.0));
            double reach = kind == 0 ? 0.6 : (kind == 1 ? 1.2 : 2.5);
            double angle = lsRng_Range(&rng, 0.0, 2.0 * LS_PI);
            lsVec2 offset = lsScale(reach * (size + sizeB) * lsRng_Uniform(&rng), lsDirection(angle));
            rb = RandomPolygon(&rng, lsAdd(base, offset), sizeB, maxCount);
        }
        if (CheckPolygonPair(&ra, &rb, size, &stats) != 0)
        {
            fprintf(stderr, "pair %d (kind %d) failed\n", i, kind);
            return 1;
        }
    }
    printf("    %d apart, %d overlapping (%d nested), %d within rounding of touching; max GJK %d, max EPA %d "
           "iterations; worst relative error distance %.3g, depth %.3g\n",
           stats.apart, stats.overlapping, stats.nested, stats.skipped, stats.maxGjk, stats.maxEpa, stats.worstDistance,
           stats.worstDepth);
    ENSURE(stats.apart > n / 5 && stats.overlapping > n / 5 && stats.nested > n / 10 && stats.skipped < n / 1000);
    return 0;
}

// Exact integer geometry: convex hulls of random grid points (which may collapse to segments and points), placed
// by integer offsets so that many pairs touch exactly. The classification is exact in 64-bit integers.
static int64_t Cross64(lsVec2 o, lsVec2 a, lsVec2 b)
{
    return ((int64_t)a.x - (int64_t)o.x) * ((int64_t)b.y - (int64_t)o.y) -
           ((int64_t)a.y - (int64_t)o.y) * ((int64_t)b.x - (int64_t)o.x);
}

// Andrew's monotone chain on integer points; collinear points dropped, so the hull is strictly convex (or 1-2 points).
static RefShape IntegerHull(lsVec2* pts, int n)
{
    for (int i = 1; i < n; ++i)
    {
        for (int j = i; j > 0 && (pts[j].x < pts[j - 1].x || (pts[j].x == pts[j - 1].x && pts[j].y < pts[j - 1].y));
             --j)
        {
            lsVec2 t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    }
    lsVec2 hull[2 * LS_MAX_POLYGON_VERTICES];
    int k = 0;
    for (int i = 0; i < n; ++i)
    {
        while (k >= 2 && Cross64(hull[k - 2], hull[k - 1], pts[i]) <= 0)
        {
            --k;
        }
        hull[k++] = pts[i];
    }
    for (int i = n - 2, lower = k + 1; i >= 0; --i)
    {
        while (k >= lower && Cross64(hull[k - 2], hull[k - 1], pts[i]) <= 0)
        {
            --k;
        }
        hull[k++] = pts[i];
    }
    RefShape s = {.count = 0};
    int count = k > 1 ? k - 1 : k;
    for (int i = 0; i < count; ++i)
    {
        if (s.count == 0 || !lsVecEqual(s.p[s.count - 1], hull[i]))
        {
            s.p[s.count++] = hull[i];
        }
    }
    if (s.count == 2 && lsVecEqual(s.p[0], s.p[1]))
    {
        s.count = 1;
    }
    return s;
}

// Exact SAT over integer axes: returns -1 apart, 0 touching (depth 0), +1 overlapping with positive depth.
static int ExactClassify(const RefShape* a, const RefShape* b)
{
    bool zero = false;
    int axes = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        const RefShape* s = pass == 0 ? a : b;
        int edges = s->count == 2 ? 1 : (s->count == 1 ? 0 : s->count);
        for (int i = 0; i < edges; ++i)
        {
            lsVec2 p = s->p[i], q = s->p[(i + 1) % s->count];
            int64_t ex = (int64_t)q.x - (int64_t)p.x, ey = (int64_t)q.y - (int64_t)p.y;
            int64_t dirs[2][2] = {{ey, -ex}, {ex, ey}};
            for (int k = 0; k < 2; ++k)
            {
                int64_t loA = INT64_MAX, hiA = INT64_MIN, loB = INT64_MAX, hiB = INT64_MIN;
                for (int m = 0; m < a->count; ++m)
                {
                    int64_t v = dirs[k][0] * (int64_t)a->p[m].x + dirs[k][1] * (int64_t)a->p[m].y;
                    loA = v < loA ? v : loA;
                    hiA = v > hiA ? v : hiA;
                }
                for (int m = 0; m < b->count; ++m)
                {
                    int64_t v = dirs[k][0] * (int64_t)b->p[m].x + dirs[k][1] * (int64_t)b->p[m].y;
                    loB = v < loB ? v : loB;
                    hiB = v > hiB ? v : hiB;
                }
                if (hiA < loB || hiB < loA)
                {
                    return -1;
                }
                zero = zero || hiA == loB || hiB == loA;
                ++axes;
            }
        }
    }
    if (axes == 0)
    {
        // Two points.
        return lsVecEqual(a->p[0], b->p[0]) ? 0 : -1;
    }
    return zero ? 0 : 1;
}

static RefShape RandomIntegerShape(lsRng* rng, int span, int maxPoints)
{
    lsVec2 pts[8];
    int n = 1 + (int)(lsRng_Next(rng) % (uint64_t)maxPoints);
    for (int i = 0; i < n; ++i)
    {
        double y = (double)(int)(lsRng_Next(rng) % (uint64_t)(2 * span + 1)) - span;
        double x = (double)(int)(lsRng_Next(rng) % (uint64_t)(2 * span + 1)) - span;
        pts[i] = lsV(x, y);
    }
    return IntegerHull(pts, n);
}

static int IntegerPairsTest(void)
{
    lsRng rng = lsMakeRng(77);
    Stats stats = {0};
    int touchingSegments = 0;
    int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        // Mostly proper polygons, some collapsed to segments or points (at most 2 or 1 input points).
        int maxPoints = (i % 8 == 0) ? 2 : 8;
        RefShape ra = RandomIntegerShape(&rng, 4, 8);
        RefShape rb = RandomIntegerShape(&rng, 4, maxPoints);
        double dy = (double)(int)(lsRng_Next(&rng) % 13) - 6;
        double dx = (double)(int)(lsRng_Next(&rng) % 13) - 6;
        lsVec2 offset = lsV(dx, dy);
        rb = RefTranslated(&rb, offset);
        int truth = ExactClassify(&ra, &rb);
        // Every other pair is moved to a 10 km world and scaled by 1/4 (dyadic, so still exact).
        double scale = 1.0;
        if (i % 2 == 1)
        {
            lsVec2 far = lsV(4096.0, -3072.0);
            for (int k = 0; k < ra.count; ++k)
            {
                ra.p[k] = lsMulAdd(far, 0.25, ra.p[k]);
            }
            for (int k = 0; k < rb.count; ++k)
            {
                rb.p[k] = lsMulAdd(far, 0.25, rb.p[k]);
            }
            scale = 0.25;
        }
        lsShapeProxy a = ProxyFromRef(&ra, 0.0), b = ProxyFromRef(&rb, 0.0);
        lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
        lsPenetration pen = lsShapePenetration(&a, &b);
        ENSURE(IsFiniteDistance(&o) && IsFinitePenetration(&pen));
        ENSURE(o.iterations <= LS_GJK_MAX_ITERATIONS && pen.iterations <= LS_EPA_MAX_ITERATIONS);
        stats.maxGjk = o.iterations > stats.maxGjk ? o.iterations : stats.maxGjk;
        stats.maxEpa = pen.iterations > stats.maxEpa ? pen.iterations : stats.maxEpa;
        int failed = 0;
        if (truth < 0)
        {
            stats.apart += 1;
            failed = CheckApart(&ra, &rb, &o, RefDistance(&ra, &rb), scale, &stats);
        }
        else if (truth == 0)
        {
            // Touching: exactly zero distance and zero depth, and the normal separates.
            stats.touching += 1;
            touchingSegments += (ra.count <= 2 || rb.count <= 2);
            if (!(o.overlap && o.distance == 0.0 && pen.overlap && pen.depth == 0.0 && IsUnit(pen.normal)))
            {
                failed = 1;
            }
            else
            {
                RefShape moved = RefTranslated(&rb, lsScale(1e-3 * scale, pen.normal));
                failed = RefSat(&ra, &moved) < 0 ? 0 : 1;
            }
        }
        else
        {
            stats.overlapping += 1;
            failed = o.overlap ? CheckPenetration(&ra, &rb, &pen, RefSat(&ra, &rb), 10.0 * scale, &stats) : 1;
        }
        if (failed)
        {
            fprintf(stderr, "integer pair %d (truth %d, counts %d %d) failed: overlap %d distance %.17g depth %.17g\n",
                    i, truth, ra.count, rb.count, o.overlap, o.distance, pen.depth);
            return 1;
        }
    }
    printf("    %d apart, %d touching (%d with a segment or point), %d overlapping; max GJK %d, max EPA %d; "
           "worst relative error distance %.3g, depth %.3g\n",
           stats.apart, stats.touching, touchingSegments, stats.overlapping, stats.maxGjk, stats.maxEpa,
           stats.worstDistance, stats.worstDepth);
    ENSURE(stats.touching > n / 20 && stats.apart > n / 10 && stats.overlapping > n / 10 && touchingSegments > 100);
    return 0;
}

// Messy proxies: a polygon's vertices shuffled, repeated, and mixed with interior points (convex combinations) give
// the same shape, so distance and depth must match the clean polygon's references. Interior points exercise EPA's
// hull repair (GJK may start from an interior point of B - A). Half the pairs use slivers (aspect up to 1e6).
static RefShape Messy(lsRng* rng, const RefShape* clean)
{
    RefShape m = {.count = 0};
    int extra = LS_MAX_POLYGON_VERTICES - clean->count;
    int interior = extra > 0 ? (int)(lsRng_Next(rng) % (uint64_t)(extra + 1)) : 0;
    for (int i = 0; i < clean->count; ++i)
    {
        m.p[m.count++] = clean->p[i];
    }
    for (int i = 0; i < interior; ++i)
    {
        // Either a repeated vertex or a point inside (a convex combination of three vertices).
        if (lsRng_Next(rng) % 2 == 0)
        {
            m.p[m.count++] = clean->p[lsRng_Next(rng) % (uint64_t)clean->count];
            continue;
        }
        double u = lsRng_Uniform(rng), v = lsRng_Uniform(rng) * (1.0 - u);
        lsVec2 p0 = clean->p[lsRng_Next(rng) % (uint64_t)clean->count];
        lsVec2 p1 = clean->p[lsRng_Next(rng) % (uint64_t)clean->count];
        lsVec2 p2 = clean->p[lsRng_Next(rng) % (uint64_t)clean->count];
        lsVec2 q = lsAdd(lsScale(u, p0), lsAdd(lsScale(v, p1), lsScale(1.0 - u - v, p2)));
        // Keep it strictly inside so the hull is unchanged by rounding: pull it towards the vertex centroid.
        lsVec2 c = {0.0, 0.0};
        for (int k = 0; k < clean->count; ++k)
        {
            c = lsMulAdd(c, 1.0 / clean->count, clean->p[k]);
        }
        m.p[m.count++] = lsLerp(c, q, 0.9);
    }
    for (int i = m.count - 1; i > 0; --i)
    {
        int j = (int)(lsRng_Next(rng) % (uint64_t)(i + 1));
        lsVec2 t = m.p[i];
        m.p[i] = m.p[j];
        m.p[j] = t;
    }
    return m;
}

static RefShape RandomSliver(lsRng* rng, lsVec2 center, double size, int maxCount, double aspect)
{
    RefShape s = RandomPolygon(rng, lsV(0.0, 0.0), size, maxCount);
    lsRot q = lsMakeRot(lsRng_Range(rng, 0.0, 2.0 * LS_PI));
    for (int i = 0; i < s.count; ++i)
    {
        // Squash along a random direction, keeping the polygon convex.
        lsVec2 local = lsInvRotate(q, s.p[i]);
        s.p[i] = lsAdd(center, lsRotate(q, lsV(local.x, local.y / aspect)));
    }
    return s;
}

static int MessyProxyTest(void)
{
    lsRng rng = lsMakeRng(9001);
    Stats stats = {0};
    int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        double size = pow(10.0, lsRng_Range(&rng, -1.0, 1.0));
        lsVec2 base = lsTestRandomPoint(&rng, -1000.0, 1000.0, -1000.0, 1000.0);
        bool sliver = i % 2 == 1;
        double aspect = sliver ? pow(10.0, lsRng_Range(&rng, 1.0, 6.0)) : 1.0;
        RefShape ra = RandomSliver(&rng, base, size, 8, aspect);
        double angle = lsRng_Range(&rng, 0.0, 2.0 * LS_PI);
        lsVec2 offset = lsScale(2.0 * size * lsRng_Uniform(&rng), lsDirection(angle));
        RefShape rb = RandomSliver(&rng, lsAdd(base, offset), size, 8, sliver ? aspect : 1.0);
        RefShape ma = Messy(&rng, &ra), mb = Messy(&rng, &rb);
        lsShapeProxy a = ProxyFromRef(&ma, 0.0), b = ProxyFromRef(&mb, 0.0);
        lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
        lsPenetration pen = lsShapePenetration(&a, &b);
        ENSURE(IsFiniteDistance(&o) && IsFinitePenetration(&pen));
        ENSURE(o.iterations <= LS_GJK_MAX_ITERATIONS && pen.iterations <= LS_EPA_MAX_ITERATIONS);
        stats.maxGjk = o.iterations > stats.maxGjk ? o.iterations : stats.maxGjk;
        stats.maxEpa = pen.iterations > stats.maxEpa ? pen.iterations : stats.maxEpa;
        ld sat = RefSat(&ra, &rb);
        double slack = Slack(&ra, &rb, size);
        int failed = 0;
        if (fabsl(sat) <= 1e-11L * (ld)size)
        {
            stats.skipped += 1;
        }
        else if (sat < 0)
        {
            stats.apart += 1;
            ld ref = RefDistance(&ra, &rb);
            double err = fabs(o.distance - (double)ref) / (double)ref;
            stats.worstDistance = fmax(stats.worstDistance, err);
            failed = !(!o.overlap && err <= 1e-9 && (double)RefPointShapeDistance(&ra, o.pointA) <= slack &&
                       (double)RefPointShapeDistance(&rb, o.pointB) <= slack);
        }
        else
        {
            stats.overlapping += 1;
            double err = fabs(pen.depth - (double)sat) / (double)sat;
            stats.worstDepth = fmax(stats.worstDepth, err);
            RefShape moved = RefTranslated(&rb, lsScale(pen.depth, pen.normal));
            failed = !(o.overlap && pen.overlap && err <= 1e-9 && fabsl(RefSat(&ra, &moved)) <= 100.0L * (ld)slack);
        }
        if (failed)
        {
            fprintf(stderr, "messy pair %d (sliver %d, aspect %.3g): sat %.17Lg distance %.17g depth %.17g\n", i,
                    sliver, aspect, sat, o.distance, pen.depth);
            return 1;
        }
    }
    printf("    %d apart, %d overlapping, %d within rounding of touching; max GJK %d, max EPA %d; worst relative "
           "error distance %.3g, depth %.3g\n",
           stats.apart, stats.overlapping, stats.skipped, stats.maxGjk, stats.maxEpa, stats.worstDistance,
           stats.worstDepth);
    ENSURE(stats.apart > n / 10 && stats.overlapping > n / 10);
    return 0;
}

// Long walls: a wall segment up to 14 km long across a 10 km world and a small polygon (a robot footprint) beside
// its middle part, either apart by a gap or crossing its line by a depth, each from 1 micrometre to 10 cm (10 m for
// gaps). Distance and depth must stay within 1e-9 relative; a plain cross product of B - A points errs by a few eps
// times the coordinates, so GJK and EPA measure tiny gaps and depths again with compensated arithmetic.
static int LongWallTest(void)
{
    lsRng rng = lsMakeRng(31337);
    Stats stats = {0};
    int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        RefShape wall = {.count = 2};
        wall.p[0] = lsTestRandomPoint(&rng, -5000.0, 5000.0, -5000.0, 5000.0);
        wall.p[1] = lsTestRandomPoint(&rng, -5000.0, 5000.0, -5000.0, 5000.0);
        lsVec2 e = lsSub(wall.p[1], wall.p[0]);
        if (lsLength(e) < 100.0)
        {
            --i;
            continue;
        }
        lsVec2 away = lsScale(lsRng_Next(&rng) % 2 == 0 ? 1.0 : -1.0, lsLeftPerp(lsNormalize(e)));
        double size = lsRng_Range(&rng, 0.1, 0.5);
        bool crossing = i % 2 == 1;
        double amount = pow(10.0, lsRng_Range(&rng, -6.0, crossing ? -1.0 : 1.0));
        lsVec2 foot = lsLerp(wall.p[0], wall.p[1], lsRng_Range(&rng, 0.05, 0.95));
        RefShape robot = RandomPolygon(&rng, lsMulAdd(foot, size, away), size, 8);
        // Shift the footprint so its nearest vertex is `amount` from the wall's line, on the far side when crossing.
        double nearest = DBL_MAX;
        for (int k = 0; k < robot.count; ++k)
        {
            nearest = fmin(nearest, lsDot(lsSub(robot.p[k], foot), away));
        }
        robot = RefTranslated(&robot, lsScale((crossing ? -amount : amount) - nearest, away));
        lsShapeProxy a = ProxyFromRef(&wall, 0.0), b = ProxyFromRef(&robot, 0.0);
        lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
        lsPenetration pen = lsShapePenetration(&a, &b);
        ENSURE(IsFiniteDistance(&o) && IsFinitePenetration(&pen));
        ld sat = RefSat(&wall, &robot);
        if (fabsl(sat) <= 1e-8L)
        {
            stats.skipped += 1; // the shift itself is rounded at 1e-12 m: too close to call
            continue;
        }
        int failed = 0;
        if (sat < 0)
        {
            ld ref = RefDistance(&wall, &robot);
            double err = fabs(o.distance - (double)ref) / (double)ref;
            stats.worstDistance = fmax(stats.worstDistance, err);
            stats.apart += 1;
            failed = !(!o.overlap && err <= 1e-9);
        }
        else
        {
            double err = fabs(pen.depth - (double)sat) / (double)sat;
            stats.worstDepth = fmax(stats.worstDepth, err);
            stats.overlapping += 1;
            failed = !(o.overlap && pen.overlap && err <= 1e-9);
        }
        if (failed)
        {
            fprintf(stderr, "long wall %d: distance %.17g depth %.17g, SAT %.17Lg\n", i, o.distance, pen.depth, sat);
            return 1;
        }
    }
    printf("    %d apart, %d crossing, %d too close to call; worst relative error distance %.3g, depth %.3g\n",
           stats.apart, stats.overlapping, stats.skipped, stats.worstDistance, stats.worstDepth);
    ENSURE(stats.apart > n / 3 && stats.overlapping > n / 3);
    return 0;
}

// Touching float polygons, which rounding can only approximate: B is A reflected through a point p of A's boundary
// (on an edge, or a vertex), so B touches A along that edge's line, or at that vertex only. The gap or overlap is at
// the rounding of the coordinates; GJK must report distance 0 and overlap (gaps below the inputs' rounding count as
// touching), and EPA a depth at that rounding level with a normal that separates them.
static int RandomTouchingTest(void)
{
    lsRng rng = lsMakeRng(515);
    int n = 100000, atVertex = 0;
    for (int i = 0; i < n; ++i)
    {
        double size = pow(10.0, lsRng_Range(&rng, -2.0, 2.0));
        lsVec2 base = lsTestRandomPoint(&rng, -5000.0, 5000.0, -5000.0, 5000.0);
        RefShape ra = RandomPolygon(&rng, base, size, 8);
        int edge = (int)(lsRng_Next(&rng) % (uint64_t)ra.count);
        bool vertex = i % 4 == 0;
        lsVec2 p = vertex ? ra.p[edge] : lsLerp(ra.p[edge], ra.p[(edge + 1) % ra.count], lsRng_Range(&rng, 0.1, 0.9));
        atVertex += vertex;
        RefShape rb = {.count = ra.count};
        for (int k = 0; k < ra.count; ++k)
        {
            rb.p[k] = lsSub(lsScale(2.0, p), ra.p[k]);
        }
        lsShapeProxy a = ProxyFromRef(&ra, 0.0), b = ProxyFromRef(&rb, 0.0);
        lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
        lsPenetration pen = lsShapePenetration(&a, &b);
        double slack = Slack(&ra, &rb, size);
        if (!(IsFiniteDistance(&o) && IsFinitePenetration(&pen) && o.overlap && o.distance == 0.0 && pen.overlap &&
              pen.depth <= slack && IsUnit(pen.normal) && o.iterations <= LS_GJK_MAX_ITERATIONS &&
              pen.iterations <= LS_EPA_MAX_ITERATIONS))
        {
            fprintf(stderr, "touching pair %d: overlap %d distance %.3g core %.3g depth %.3g (slack %.3g)\n", i,
                    o.overlap, o.distance, o.coreDistance, pen.depth, slack);
            return 1;
        }
        // The normal separates: moving B a little along it leaves a clear gap.
        RefShape moved = RefTranslated(&rb, lsScale(1e-6 * size, pen.normal));
        ENSURE(RefSat(&ra, &moved) < 0);
    }
    printf("    %d touching pairs (%d at a vertex only)\n", n, atVertex);
    return 0;
}

// Rounded shapes: circles and capsules against polygons, references from the core distance and SAT.
static int RoundedPairsTest(void)
{
    lsRng rng = lsMakeRng(4242);
    Stats stats = {0};
    int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        double size = pow(10.0, lsRng_Range(&rng, -1.0, 1.0));
        lsVec2 base = lsTestRandomPoint(&rng, -5000.0, 5000.0, -5000.0, 5000.0);
        RefShape ra = RandomPolygon(&rng, base, size, 8);
        RefShape rb = {.count = 1 + (int)(lsRng_Next(&rng) % 2)};
        double angle = lsRng_Range(&rng, 0.0, 6.3);
        lsVec2 c = lsAdd(base, lsScale(2.0 * size * lsRng_Uniform(&rng), lsDirection(angle)));
        rb.p[0] = c;
        if (rb.count == 2)
        {
            double angle1 = lsRng_Range(&rng, 0.0, 6.3);
            rb.p[1] = lsAdd(c, lsScale(size * lsRng_Uniform(&rng), lsDirection(angle1)));
        }
        double radius = size * lsRng_Range(&rng, 0.0, 1.0);
        lsShapeProxy a = ProxyFromRef(&ra, 0.0), b = ProxyFromRef(&rb, radius);
        lsDistanceOutput o = lsShapeDistance(&a, &b, NULL);
        lsPenetration pen = lsShapePenetration(&a, &b);
        ENSURE(IsFiniteDistance(&o) && IsFinitePenetration(&pen));
        ENSURE(o.iterations <= LS_GJK_MAX_ITERATIONS && pen.iterations <= LS_EPA_MAX_ITERATIONS);

        ld sat = RefSat(&ra, &rb);
        ld core = sat < 0 ? RefDistance(&ra, &rb) : 0;
        ld gap = core - (ld)radius;
        if (fabsl(gap) <= 1e-11L * (ld)size || fabsl(sat) <= 1e-11L * (ld)size)
        {
            stats.skipped += 1;
            continue;
        }
        if (gap > 0)
        {
            stats.apart += 1;
            ENSURE(!o.overlap && Near(o.distance, (double)gap, 1e-9 * (double)gap));
            ENSURE(Near(o.coreDistance, (double)core, 1e-9 * (double)core));
            // Closest points: on A, and on B's rounded surface (radius from B's core).
            double slack = Slack(&ra, &rb, size);
            ENSURE((double)RefPointShapeDistance(&ra, o.pointA) <= slack);
            ENSURE(Near((double)RefPointShapeDistance(&rb, o.pointB), radius, 10.0 * slack));
            ENSURE(Near(lsDistance(o.pointA, o.pointB), o.distance, 10.0 * slack));
            continue;
        }
        stats.overlapping += 1;
        ld refDepth = sat < 0 ? -gap : sat + (ld)radius;
        ENSURE(o.overlap && o.distance == 0.0 && pen.overlap);
        ENSURE(Near(pen.depth, (double)refDepth, 1e-9 * (double)refDepth));
        ENSURE(IsUnit(pen.normal));
        // B moved by the MTV just touches: its core is then radius away from A.
        RefShape moved = RefTranslated(&rb, lsScale(pen.depth, pen.normal));
        ld movedSat = RefSat(&ra, &moved);
        double slack = Slack(&ra, &rb, size);
        ENSURE(movedSat <= 100.0L * (ld)slack);
        ENSURE(fabsl(RefDistance(&ra, &moved) - (ld)radius) <= 100.0L * (ld)slack);
    }
    printf("    %d apart, %d overlapping, %d within rounding of touching\n", stats.apart, stats.overlapping,
           stats.skipped);
    ENSURE(stats.apart > n / 5 && stats.overlapping > n / 5);
    return 0;
}

int DistanceTest(void)
{
    RUN_SUBTEST(ProxyTest);
    RUN_SUBTEST(PredicateTest);
    RUN_SUBTEST(ApartTest);
    RUN_SUBTEST(TouchingTest);
    RUN_SUBTEST(OverlapTest);
    RUN_SUBTEST(CircleTest);
    RUN_SUBTEST(FootprintTest);
    RUN_SUBTEST(WarmStartTest);
    RUN_SUBTEST(RandomPolygonPairsTest);
    RUN_SUBTEST(IntegerPairsTest);
    RUN_SUBTEST(RandomTouchingTest);
    RUN_SUBTEST(LongWallTest);
    RUN_SUBTEST(MessyProxyTest);
    RUN_SUBTEST(RoundedPairsTest);
    return 0;
}

// GJK distance between convex proxies (Gilbert, Johnson, Keerthi 1988), after box2d v3's src/distance.c:
// one public entry, static helpers, a warm-start cache and a hard iteration cap. The simplex solver finds the point
// of a point, segment or triangle of the Minkowski difference B - A closest to the origin by Voronoi regions in
// barycentric form (Ericson, Real-Time Collision Detection, 5.1.9 and 9.5). Whether the origin lies exactly on a
// simplex edge is decided with exact orientation signs, so touching shapes report distance exactly 0.
#include "core/distance.h"

#include "core/exact.h"
#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

// ---------------------------------------------------------------------------------------------------------------------
// Proxies

lsShapeProxy lsMakeProxy(const lsVec2* points, int count, double radius)
{
    LS_ASSERT(points != NULL);
    LS_ASSERT(1 <= count && count <= LS_MAX_POLYGON_VERTICES);
    LS_ASSERT(isfinite(radius) && radius >= 0.0);
    lsShapeProxy proxy = {.count = count, .radius = radius};
    for (int i = 0; i < count; ++i)
    {
        LS_ASSERT(lsIsValidVec2(points[i]));
        proxy.points[i] = points[i];
    }
    return proxy;
}

lsShapeProxy lsMakeProxyTransformed(const lsVec2* localPoints, int count, double radius, lsTransform transform)
{
    LS_ASSERT(localPoints != NULL);
    LS_ASSERT(1 <= count && count <= LS_MAX_POLYGON_VERTICES);
    lsVec2 points[LS_MAX_POLYGON_VERTICES];
    for (int i = 0; i < count; ++i)
    {
        points[i] = lsTransformPoint(transform, localPoints[i]);
    }
    return lsMakeProxy(points, count, radius);
}

lsShapeProxy lsProxyFromPoint(lsVec2 point) { return lsMakeProxy(&point, 1, 0.0); }

lsShapeProxy lsProxyFromCircle(const lsCircle* circle) { return lsMakeProxy(&circle->center, 1, circle->radius); }

lsShapeProxy lsProxyFromSegment(const lsSegment* segment)
{
    lsVec2 points[2] = {segment->a, segment->b};
    return lsMakeProxy(points, 2, 0.0);
}

lsShapeProxy lsProxyFromBox(const lsBox* box)
{
    // Computed here rather than through lsBox_Corners so the distance module stands on its own; same order.
    double hx = box->halfSize.x, hy = box->halfSize.y;
    lsVec2 local[4] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
    lsTransform xf = {box->center, box->rot};
    return lsMakeProxyTransformed(local, 4, 0.0, xf);
}

lsShapeProxy lsProxyFromPolygon(const lsPolygon* polygon)
{
    return lsMakeProxy(polygon->vertices, polygon->count, 0.0);
}

int lsProxy_FindSupport(const lsShapeProxy* proxy, lsVec2 direction)
{
    int best = 0;
    double bestValue = lsDot(proxy->points[0], direction);
    for (int i = 1; i < proxy->count; ++i)
    {
        double value = lsDot(proxy->points[i], direction);
        if (value > bestValue)
        {
            best = i;
            bestValue = value;
        }
    }
    return best;
}

// ---------------------------------------------------------------------------------------------------------------------
// Simplex solver

static lsSimplexVertex lsMakeSimplexVertex(const lsShapeProxy* a, int indexA, const lsShapeProxy* b, int indexB)
{
    lsSimplexVertex v;
    v.wA = a->points[indexA];
    v.wB = b->points[indexB];
    v.w = lsSub(v.wB, v.wA);
    v.a = 1.0;
    v.indexA = indexA;
    v.indexB = indexB;
    return v;
}

// Closest point of segment [v0, v1] to the origin (Ericson 5.1.9, barycentric form): with e = w2 - w1, the origin
// projects before w1 when dot(-w1, e) <= 0, after w2 when dot(w2, e) <= 0, else inside with weights proportional to
// (dot(w2, e), -dot(w1, e)). Reduces the simplex to the vertex whose region holds the origin.
static void lsSolveSimplex2(lsSimplex* s)
{
    lsVec2 w1 = s->v[0].w, w2 = s->v[1].w;
    lsVec2 e12 = lsSub(w2, w1);
    double d12n2 = -lsDot(w1, e12);
    if (d12n2 <= 0.0)
    {
        s->v[0].a = 1.0;
        s->count = 1;
        return;
    }
    double d12n1 = lsDot(w2, e12);
    if (d12n1 <= 0.0)
    {
        s->v[0] = s->v[1];
        s->v[0].a = 1.0;
        s->count = 1;
        return;
    }
    double inv = 1.0 / (d12n1 + d12n2);
    s->v[0].a = d12n1 * inv;
    s->v[1].a = d12n2 * inv;
    s->count = 2;
}

// Squared distance from the origin to segment [w1, w2] as lsSolveSimplex2 would reduce it (for the fallback).
static double lsSegmentDistanceSquared(lsVec2 w1, lsVec2 w2)
{
    lsVec2 e = lsSub(w2, w1);
    double t = -lsDot(w1, e);
    double ee = lsDot(e, e);
    if (t <= 0.0 || !(ee > 0.0))
    {
        return lsLengthSquared(w1);
    }
    if (t >= ee)
    {
        return lsLengthSquared(w2);
    }
    double c = lsCross(w1, w2);
    return c * c / ee;
}

static void lsKeepEdge(lsSimplex* s, int i, int j)
{
    lsSimplexVertex vi = s->v[i], vj = s->v[j];
    s->v[0] = vi;
    s->v[1] = vj;
    s->count = 2;
    lsSolveSimplex2(s);
}

static void lsKeepVertex(lsSimplex* s, int i)
{
    s->v[0] = s->v[i];
    s->v[0].a = 1.0;
    s->count = 1;
}

// Closest point of triangle [w1, w2, w3] to the origin by its seven Voronoi regions (Ericson 5.1.5 and 5.1.9):
// vertex regions by the signs of the edge dot products, edge regions additionally by the sign of the barycentric
// coordinate opposite the edge (n123 * cross(wj, wk)), the interior otherwise. The interior test uses exact cross
// signs so an origin on an edge is decided consistently; when rounding leaves the region tests inconsistent, the
// nearest of the three edges is taken.
static void lsSolveSimplex3(lsSimplex* s)
{
    lsVec2 w1 = s->v[0].w, w2 = s->v[1].w, w3 = s->v[2].w;

    lsVec2 e12 = lsSub(w2, w1);
    double d12n1 = lsDot(w2, e12);
    double d12n2 = -lsDot(w1, e12);
    lsVec2 e13 = lsSub(w3, w1);
    double d13n1 = lsDot(w3, e13);
    double d13n2 = -lsDot(w1, e13);
    lsVec2 e23 = lsSub(w3, w2);
    double d23n1 = lsDot(w3, e23);
    double d23n2 = -lsDot(w2, e23);

    if (d12n2 <= 0.0 && d13n2 <= 0.0)
    {
        lsKeepVertex(s, 0);
        return;
    }

    // Barycentric coordinates of the origin are proportional to cross(w2, w3), cross(w3, w1), cross(w1, w2).
    int s1 = lsCrossSign(w2, w3), s2 = lsCrossSign(w3, w1), s3 = lsCrossSign(w1, w2);
    bool allNonNegative = s1 >= 0 && s2 >= 0 && s3 >= 0;
    bool allNonPositive = s1 <= 0 && s2 <= 0 && s3 <= 0;
    bool anyNonZero = s1 != 0 || s2 != 0 || s3 != 0;
    if ((allNonNegative || allNonPositive) && anyNonZero)
    {
        // The origin is in the closed triangle: weights for the witness points.
        double c1 = fabs(lsCross(w2, w3)) * (s1 != 0), c2 = fabs(lsCross(w3, w1)) * (s2 != 0);
        double c3 = fabs(lsCross(w1, w2)) * (s3 != 0);
        double sum = c1 + c2 + c3;
        if (sum > 0.0)
        {
            s->v[0].a = c1 / sum;
            s->v[1].a = c2 / sum;
            s->v[2].a = c3 / sum;
        }
        else
        {
            s->v[0].a = s->v[1].a = s->v[2].a = 1.0 / 3.0;
        }
        s->count = 3;
        return;
    }

    double n123 = lsCross(e12, e13);
    int sigma = (n123 > 0.0) - (n123 < 0.0);
    int d123n1 = sigma * s1, d123n2 = sigma * s2, d123n3 = sigma * s3;

    if (d12n1 > 0.0 && d12n2 > 0.0 && d123n3 <= 0)
    {
        lsKeepEdge(s, 0, 1);
        return;
    }
    if (d13n1 > 0.0 && d13n2 > 0.0 && d123n2 <= 0)
    {
        lsKeepEdge(s, 0, 2);
        return;
    }
    if (d12n1 <= 0.0 && d23n2 <= 0.0)
    {
        lsKeepVertex(s, 1);
        return;
    }
    if (d13n1 <= 0.0 && d23n1 <= 0.0)
    {
        lsKeepVertex(s, 2);
        return;
    }
    if (d23n1 > 0.0 && d23n2 > 0.0 && d123n1 <= 0)
    {
        lsKeepEdge(s, 1, 2);
        return;
    }

    // Rounding made the regions inconsistent (a sliver triangle): the origin is outside, so the nearest edge wins.
    double d01 = lsSegmentDistanceSquared(w1, w2);
    double d02 = lsSegmentDistanceSquared(w1, w3);
    double d12 = lsSegmentDistanceSquared(w2, w3);
    if (d01 <= d02 && d01 <= d12)
    {
        lsKeepEdge(s, 0, 1);
    }
    else if (d02 <= d12)
    {
        lsKeepEdge(s, 0, 2);
    }
    else
    {
        lsKeepEdge(s, 1, 2);
    }
}

// Direction from the solved simplex (count 1 or 2) towards the origin. For a segment it is the edge's perpendicular
// on the origin's side, exact in direction however far the origin is. Returns false when the origin lies on the
// simplex (the point is the origin, or the origin is exactly on the segment): the cores touch or overlap.
static bool lsSearchDirection(const lsSimplex* s, lsVec2* direction)
{
    if (s->count == 1)
    {
        lsVec2 w1 = s->v[0].w;
        *direction = lsNeg(w1);
        return !(w1.x == 0.0 && w1.y == 0.0);
    }
    lsVec2 w1 = s->v[0].w, w2 = s->v[1].w;
    lsVec2 e12 = lsSub(w2, w1);
    // cross(e12, -w1) == cross(w1, w2): positive when the origin is left of w1 -> w2.
    int side = lsCrossSign(w1, w2);
    if (side > 0)
    {
        *direction = lsLeftPerp(e12);
        return true;
    }
    if (side < 0)
    {
        *direction = lsRightPerp(e12);
        return true;
    }
    *direction = (lsVec2){0.0, 0.0};
    return false;
}

// Tolerance of the touching decision, in units of DBL_EPSILON times the largest coordinate involved.
#define LS_TOUCH_ULPS 8.0

// Length by sqrt of the squared length when that neither overflows nor underflows (within an ulp of hypot, and much
// cheaper); hypot otherwise.
static double lsFastLength(lsVec2 v)
{
    double ss = v.x * v.x + v.y * v.y;
    if (ss > 1e-290 && ss < 1e290)
    {
        return sqrt(ss);
    }
    return hypot(v.x, v.y);
}

static double lsLarger(double a, double b) { return a > b ? a : b; }

// Accurate to a few ulps even for a long edge and a tiny gap (a 10 km wall and a robot a millimetre away), where the
// plain cross product would lose eps * |edge| * |p - q0| / |edge| to cancellation: both differences are formed exactly
// as hi + lo (Two-Diff), the leading products exactly with fma, and cross(e, d) is summed from the leading
// difference (exact when it cancels, by Sterbenz's lemma) and the first-order correction terms.
double lsPointLineDistance(lsVec2 q0, lsVec2 q1, lsVec2 p)
{
    double ex, exLo, ey, eyLo, dx, dxLo, dy, dyLo;
    lsTwoDiff(q1.x, q0.x, &ex, &exLo);
    lsTwoDiff(q1.y, q0.y, &ey, &eyLo);
    lsTwoDiff(p.x, q0.x, &dx, &dxLo);
    lsTwoDiff(p.y, q0.y, &dy, &dyLo);
    double p1 = ex * dy, p2 = ey * dx;
    double p1Lo = lsTwoProductTail(ex, dy, p1), p2Lo = lsTwoProductTail(ey, dx, p2);
    double correction = (p1Lo - p2Lo) + ((ex * dyLo + exLo * dy) - (ey * dxLo + eyLo * dx));
    double cross = (p1 - p2) + correction;
    double length = lsFastLength((lsVec2){ex, ey});
    return length > 0.0 ? fabs(cross) / length : lsFastLength((lsVec2){dx, dy});
}

static double lsNormL1(lsVec2 v) { return fabs(v.x) + fabs(v.y); }

// Rebuilds the simplex from a warm-start cache; returns false when the cache does not fit these proxies.
static bool lsReadCache(lsSimplex* s, const lsSimplexCache* cache, const lsShapeProxy* a, const lsShapeProxy* b)
{
    if (cache == NULL || cache->count < 1 || cache->count > 3)
    {
        return false;
    }
    for (int i = 0; i < cache->count; ++i)
    {
        int ia = cache->indexA[i], ib = cache->indexB[i];
        if (ia >= a->count || ib >= b->count)
        {
            return false;
        }
        for (int j = 0; j < i; ++j)
        {
            if (cache->indexA[j] == ia && cache->indexB[j] == ib)
            {
                return false;
            }
        }
        s->v[i] = lsMakeSimplexVertex(a, ia, b, ib);
    }
    s->count = cache->count;
    return true;
}

lsDistanceOutput lsShapeDistance(const lsShapeProxy* a, const lsShapeProxy* b, lsSimplexCache* cache)
{
    LS_ASSERT(a != NULL && b != NULL);
    LS_ASSERT(1 <= a->count && a->count <= LS_MAX_POLYGON_VERTICES);
    LS_ASSERT(1 <= b->count && b->count <= LS_MAX_POLYGON_VERTICES);

    lsSimplex s = {0};
    if (!lsReadCache(&s, cache, a, b))
    {
        s.v[0] = lsMakeSimplexVertex(a, 0, b, 0);
        s.count = 1;
    }

    bool coresOverlap = false;
    int iterations = 0;
    lsVec2 direction = {0.0, 0.0};
    for (;;)
    {
        int saveCount = s.count;
        int saveA[3], saveB[3];
        for (int i = 0; i < saveCount; ++i)
        {
            saveA[i] = s.v[i].indexA;
            saveB[i] = s.v[i].indexB;
        }

        if (s.count == 2)
        {
            lsSolveSimplex2(&s);
        }
        else if (s.count == 3)
        {
            lsSolveSimplex3(&s);
        }
        else
        {
            s.v[0].a = 1.0;
        }

        if (s.count == 3)
        {
            coresOverlap = true;
            break;
        }
        if (!lsSearchDirection(&s, &direction))
        {
            coresOverlap = true;
            break;
        }
        if (iterations == LS_GJK_MAX_ITERATIONS)
        {
            break;
        }

        // Support point of B - A in the direction: B's support along d minus A's support along -d.
        int indexA = lsProxy_FindSupport(a, lsNeg(direction));
        int indexB = lsProxy_FindSupport(b, direction);
        lsSimplexVertex vertex = lsMakeSimplexVertex(a, indexA, b, indexB);
        ++iterations;

        // Main termination: a support point already in the simplex (before reduction) means no closer feature.
        bool duplicate = false;
        for (int i = 0; i < saveCount; ++i)
        {
            if (saveA[i] == indexA && saveB[i] == indexB)
            {
                duplicate = true;
                break;
            }
        }
        if (duplicate)
        {
            break;
        }

        // No progress: the new point is not beyond the current feature along d, so the feature is optimal
        // (the whole difference lies in the half-plane dot(x, d) <= dot(w, d)). The tolerance covers rounding.
        double along = lsDot(vertex.w, direction);
        double current = lsDot(s.v[0].w, direction);
        double scale = lsLarger(lsNormL1(vertex.w), lsNormL1(s.v[0].w));
        if (s.count == 2)
        {
            current = lsLarger(current, lsDot(s.v[1].w, direction));
            scale = lsLarger(scale, lsNormL1(s.v[1].w));
        }
        if (along - current <= 4.0 * DBL_EPSILON * lsNormL1(direction) * scale)
        {
            break;
        }

        s.v[s.count] = vertex;
        s.count += 1;
    }

    lsDistanceOutput out = {0};
    out.iterations = iterations;
    out.simplex = s;

    lsVec2 coreA = {0.0, 0.0}, coreB = {0.0, 0.0};
    for (int i = 0; i < s.count; ++i)
    {
        coreA = lsMulAdd(coreA, s.v[i].a, s.v[i].wA);
        coreB = lsMulAdd(coreB, s.v[i].a, s.v[i].wB);
    }
    if (s.count == 1)
    {
        // Exact, not a weighted sum.
        coreA = s.v[0].wA;
        coreB = s.v[0].wB;
    }

    double radiusSum = a->radius + b->radius;
    if (coresOverlap)
    {
        out.overlap = true;
        out.pointA = coreA;
        out.pointB = coreA;
    }
    else
    {
        // The distance comes from the closest features, not from the world-frame witness points (which carry the
        // rounding of kilometre coordinates): |w1| for two vertices; for a vertex against an edge, the vertex's
        // distance to the edge's line computed with compensated arithmetic (the solver put its projection inside).
        // Largest coordinate of the closest features: the scale of the inputs' rounding.
        double magnitude = radiusSum;
        for (int i = 0; i < s.count; ++i)
        {
            magnitude = lsLarger(magnitude, lsLarger(lsLarger(fabs(s.v[i].wA.x), fabs(s.v[i].wA.y)),
                                                     lsLarger(fabs(s.v[i].wB.x), fabs(s.v[i].wB.y))));
        }
        double coreDistance;
        if (s.count == 1)
        {
            coreDistance = lsFastLength(s.v[0].w);
        }
        else
        {
            lsVec2 e = lsSub(s.v[1].w, s.v[0].w);
            coreDistance = fabs(lsCross(s.v[0].w, s.v[1].w)) / lsFastLength(e);
            // The plain cross product errs by a few eps * magnitude (cancellation, and the rounding of w = b - a),
            // which is below 1e-11 relative unless the gap is tiny against the coordinates. Then a vertex against an
            // edge is measured again on the original points with compensated arithmetic (see lsPointLineDistance).
            if (coreDistance < 1e-4 * magnitude)
            {
                if (s.v[0].indexA == s.v[1].indexA)
                {
                    coreDistance = lsPointLineDistance(s.v[0].wB, s.v[1].wB, s.v[0].wA);
                }
                else if (s.v[0].indexB == s.v[1].indexB)
                {
                    coreDistance = lsPointLineDistance(s.v[0].wA, s.v[1].wA, s.v[0].wB);
                }
            }
        }
        double directionLength = lsFastLength(direction);
        lsVec2 normal = {1.0, 0.0}; // unreachable: the search direction is non-zero whenever the cores are apart
        if (directionLength > 0.0)
        {
            normal = (lsVec2){-direction.x / directionLength, -direction.y / directionLength};
        }
        out.normal = normal;
        out.coreDistance = coreDistance;
        // Gaps below the rounding of the coordinates involved (a few ulps of the largest) are touching: the shapes'
        // own points are not known better than that, and a contact should not flicker between touching and apart.
        if (coreDistance - radiusSum > LS_TOUCH_ULPS * DBL_EPSILON * magnitude)
        {
            out.distance = coreDistance - radiusSum;
            out.pointA = lsMulAdd(coreA, a->radius, normal);
            out.pointB = lsMulSub(coreB, b->radius, normal);
        }
        else
        {
            // The shapes touch or their rounded parts overlap: a common point splits the core gap by the radii.
            out.overlap = true;
            double t = radiusSum > 0.0 ? coreDistance * (a->radius / radiusSum) : 0.0;
            out.pointA = lsMulAdd(coreA, t, normal);
            out.pointB = out.pointA;
        }
    }

    if (cache != NULL)
    {
        cache->count = s.count;
        for (int i = 0; i < s.count; ++i)
        {
            cache->indexA[i] = (uint8_t)s.v[i].indexA;
            cache->indexB[i] = (uint8_t)s.v[i].indexB;
        }
    }
    return out;
}

bool lsShapesOverlap(const lsShapeProxy* a, const lsShapeProxy* b)
{
    lsDistanceOutput output = lsShapeDistance(a, b, NULL);
    return output.overlap;
}

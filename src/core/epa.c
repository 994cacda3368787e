// EPA, the expanding polytope algorithm (van den Bergen 2001), in 2D: starting from GJK's final simplex, which holds
// the origin, grow a convex polygon inside the Minkowski difference B - A towards the boundary. Each step takes the
// polygon edge nearest the origin and adds the difference's support point along that edge's outward normal; when no
// support point lies beyond the edge, that edge is on the difference's boundary and its distance is the penetration
// depth (the support function of B - A is minimal there over all directions).
#include "core/distance.h"
#include "core/exact.h"

#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

#define LS_EPA_CAPACITY (LS_EPA_MAX_ITERATIONS + 3)

typedef struct lsPolytopeVertex
{
    lsVec2 wA, wB, w;
    int indexA, indexB;
} lsPolytopeVertex;

static lsPolytopeVertex lsSupportVertex(const lsShapeProxy* a, const lsShapeProxy* b, lsVec2 direction)
{
    lsPolytopeVertex v;
    v.indexA = lsProxy_FindSupport(a, lsNeg(direction));
    v.indexB = lsProxy_FindSupport(b, direction);
    v.wA = a->points[v.indexA];
    v.wB = b->points[v.indexB];
    v.w = lsSub(v.wB, v.wA);
    return v;
}

static lsPolytopeVertex lsFromSimplexVertex(const lsSimplexVertex* s)
{
    return (lsPolytopeVertex){s->wA, s->wB, s->w, s->indexA, s->indexB};
}

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

static double lsNormL1(lsVec2 v) { return fabs(v.x) + fabs(v.y); }

// Edge i of the polygon runs from vertex i to vertex i + 1 (cyclic). For a counter-clockwise polygon its outward
// normal is the right perpendicular, and the origin's distance to its line is cross(vi, vj) / |vj - vi|. Edges are
// cached beside the vertices and recomputed only where the polygon changed.
typedef struct lsPolytopeEdge
{
    double distance; ///< DBL_MAX for a zero-length edge (never the nearest)
    lsVec2 normal;
} lsPolytopeEdge;

static lsPolytopeEdge lsMakeEdge(const lsPolytopeVertex* poly, int count, int i)
{
    int j = i + 1 < count ? i + 1 : 0;
    lsVec2 e = lsSub(poly[j].w, poly[i].w);
    double length = lsFastLength(e);
    if (!(length > 0.0))
    {
        return (lsPolytopeEdge){DBL_MAX, {1.0, 0.0}};
    }
    return (lsPolytopeEdge){lsCross(poly[i].w, poly[j].w) / length, {e.y / length, -e.x / length}};
}

static void lsRemoveVertex(lsPolytopeVertex* poly, lsPolytopeEdge* edges, int* count, int index)
{
    for (int i = index; i + 1 < *count; ++i)
    {
        poly[i] = poly[i + 1];
        edges[i] = edges[i + 1];
    }
    *count -= 1;
}

// The answer for overlapping shapes: core depth (negative when the cores are apart by -coreDepth), the cores' witness
// points and the MTV normal; the witness points move onto the rounded surfaces.
static lsPenetration lsFinish(const lsShapeProxy* a, const lsShapeProxy* b, lsVec2 coreA, lsVec2 coreB,
                              double coreDepth, lsVec2 normal, int iterations)
{
    lsPenetration out = {0};
    out.overlap = true;
    out.depth = lsFmax(coreDepth + a->radius + b->radius, 0.0);
    out.normal = normal;
    out.pointA = lsMulAdd(coreA, a->radius, normal);
    out.pointB = lsMulSub(coreB, b->radius, normal);
    out.iterations = iterations;
    return out;
}

lsPenetration lsShapePenetration(const lsShapeProxy* a, const lsShapeProxy* b)
{
    lsDistanceOutput gjk = lsShapeDistance(a, b, NULL);
    const lsSimplex* s = &gjk.simplex;

    lsVec2 coreA = {0.0, 0.0}, coreB = {0.0, 0.0};
    for (int i = 0; i < s->count; ++i)
    {
        coreA = lsMulAdd(coreA, s->v[i].a, s->v[i].wA);
        coreB = lsMulAdd(coreB, s->v[i].a, s->v[i].wB);
    }
    if (s->count == 1)
    {
        coreA = s->v[0].wA;
        coreB = s->v[0].wB;
    }

    if (!gjk.overlap)
    {
        lsPenetration out = {0};
        out.normal = gjk.normal;
        out.pointA = gjk.pointA;
        out.pointB = gjk.pointB;
        return out;
    }
    if (gjk.coreDistance > 0.0)
    {
        // Only the rounded parts overlap: push B out along the line between the cores' closest points.
        return lsFinish(a, b, coreA, coreB, -gjk.coreDistance, gjk.normal, 0);
    }

    lsPolytopeVertex poly[LS_EPA_CAPACITY];
    int count = 0;
    for (int i = 0; i < s->count; ++i)
    {
        poly[count++] = lsFromSimplexVertex(&s->v[i]);
    }

    if (count == 1)
    {
        // The origin is the point w1 itself (a shared vertex). Find a second difference point along an axis.
        static const lsVec2 axes[4] = {{1.0, 0.0}, {0.0, 1.0}, {-1.0, 0.0}, {0.0, -1.0}};
        for (int k = 0; k < 4 && count == 1; ++k)
        {
            lsPolytopeVertex v = lsSupportVertex(a, b, axes[k]);
            if (lsDot(lsSub(v.w, poly[0].w), axes[k]) > 0.0)
            {
                poly[count++] = v;
            }
        }
        if (count == 1)
        {
            // B - A is a single point: both cores are the same point.
            return lsFinish(a, b, coreA, coreB, 0.0, (lsVec2){1.0, 0.0}, 0);
        }
    }

    if (count == 2)
    {
        // The origin lies on segment [w1, w2]. Look for area on either side of its line; a side with none is the
        // difference's boundary through the origin (a zero-area contact), and B moves away from that side.
        lsVec2 e = lsSub(poly[1].w, poly[0].w);
        lsVec2 left = lsLeftPerp(e);
        lsPolytopeVertex up = lsSupportVertex(a, b, left);
        lsPolytopeVertex down = lsSupportVertex(a, b, lsNeg(left));
        double upHeight = lsDot(lsSub(up.w, poly[0].w), left);
        double downHeight = -lsDot(lsSub(down.w, poly[0].w), left);
        lsVec2 unitLeft = lsNormalize(left);
        if (!(upHeight > 0.0))
        {
            return lsFinish(a, b, coreA, coreB, 0.0, lsNeg(unitLeft), 0);
        }
        if (!(downHeight > 0.0))
        {
            return lsFinish(a, b, coreA, coreB, 0.0, unitLeft, 0);
        }
        // Counter-clockwise triangle w1, w2, up (up is left of w1 -> w2).
        poly[count++] = up;
    }
    else
    {
        LS_ASSERT(count == 3); // GJK's simplex has 1 to 3 vertices; 1 and 2 were handled above
        // GJK's triangle holds the origin, so the exact signs of cross(w2, w3), cross(w3, w1), cross(w1, w2) (the
        // barycentric coordinates) are all >= 0 for a counter-clockwise triangle and <= 0 for a clockwise one.
        int orientation = lsCrossSign(poly[1].w, poly[2].w);
        orientation = orientation != 0 ? orientation : lsCrossSign(poly[2].w, poly[0].w);
        orientation = orientation != 0 ? orientation : lsCrossSign(poly[0].w, poly[1].w);
        if (orientation < 0)
        {
            lsPolytopeVertex t = poly[1];
            poly[1] = poly[2];
            poly[2] = t;
        }
    }

    lsPolytopeEdge edges[LS_EPA_CAPACITY];
    for (int i = 0; i < count; ++i)
    {
        edges[i] = lsMakeEdge(poly, count, i);
    }

    int iterations = 0;
    int best = 0;
    double bestDistance = 0.0;
    lsVec2 bestNormal = {1.0, 0.0};
    for (;;)
    {
        // The edge nearest the origin.
        best = -1;
        bestDistance = DBL_MAX;
        for (int i = 0; i < count; ++i)
        {
            if (edges[i].distance < bestDistance)
            {
                best = i;
                bestDistance = edges[i].distance;
            }
        }
        if (best < 0)
        {
            // Cannot happen for a proper seed triangle; answer zero depth rather than fail.
            bestDistance = 0.0;
            best = 0;
            bestNormal = (lsVec2){1.0, 0.0};
            break;
        }
        bestNormal = edges[best].normal;
        if (iterations == LS_EPA_MAX_ITERATIONS)
        {
            break;
        }

        lsPolytopeVertex v = lsSupportVertex(a, b, bestNormal);
        ++iterations;

        bool duplicate = false;
        for (int i = 0; i < count; ++i)
        {
            if (poly[i].indexA == v.indexA && poly[i].indexB == v.indexB)
            {
                duplicate = true;
                break;
            }
        }
        if (duplicate)
        {
            break;
        }
        double gain = lsDot(v.w, bestNormal) - bestDistance;
        if (gain <= 4.0 * DBL_EPSILON * (lsNormL1(v.w) + lsNormL1(poly[best].w)))
        {
            break;
        }

        // Insert the new vertex between best and best + 1.
        int at = best + 1;
        for (int i = count; i > at; --i)
        {
            poly[i] = poly[i - 1];
            edges[i] = edges[i - 1];
        }
        poly[at] = v;
        count += 1;

        // Keep the polygon convex: the new vertex may also lie beyond a neighbouring edge's line when a vertex is
        // not on the boundary of B - A (GJK's starting vertex can be interior, e.g. for coincident shapes); such
        // neighbours are no longer hull vertices and are dropped (collinear ones too). The hull only grows, so
        // it still holds the origin.
        while (count > 3)
        {
            int prev = (at + count - 1) % count, prev2 = (at + count - 2) % count;
            if (lsCross(lsSub(poly[prev].w, poly[prev2].w), lsSub(poly[at].w, poly[prev].w)) > 0.0)
            {
                break;
            }
            lsRemoveVertex(poly, edges, &count, prev);
            at = prev < at ? at - 1 : at;
        }
        while (count > 3)
        {
            int next = (at + 1) % count, next2 = (at + 2) % count;
            if (lsCross(lsSub(poly[next].w, poly[at].w), lsSub(poly[next2].w, poly[next].w)) > 0.0)
            {
                break;
            }
            lsRemoveVertex(poly, edges, &count, next);
            at = next < at ? at - 1 : at;
        }
        // Only the two edges at the new vertex changed (a removed neighbour's edges merged into them).
        int before = (at + count - 1) % count;
        edges[before] = lsMakeEdge(poly, count, before);
        edges[at] = lsMakeEdge(poly, count, at);
    }

    // The closest point of the nearest edge to the origin, as barycentric weights on its two vertices.
    int i = best, j = best + 1 < count ? best + 1 : 0;
    lsVec2 e = lsSub(poly[j].w, poly[i].w);
    double ee = lsDot(e, e);
    double t = ee > 0.0 ? -lsDot(poly[i].w, e) / ee : 0.0;
    t = lsFmin(lsFmax(t, 0.0), 1.0);
    lsVec2 edgeA = lsLerp(poly[i].wA, poly[j].wA, t);
    lsVec2 edgeB = lsLerp(poly[i].wB, poly[j].wB, t);
    // The depth is the origin's distance to the edge's line. Its cross product errs by a few eps times the coordinates
    // (cancellation, and the rounding of w = b - a); when the depth is tiny against them (a robot grazing a long
    // wall), a vertex against an edge is measured again on the original points with compensated arithmetic.
    double depth = lsFmax(bestDistance, 0.0);
    double magnitude =
        lsFmax(lsFmax(lsFmax(fabs(poly[i].wA.x), fabs(poly[i].wA.y)), lsFmax(fabs(poly[i].wB.x), fabs(poly[i].wB.y))),
               lsFmax(lsFmax(fabs(poly[j].wA.x), fabs(poly[j].wA.y)), lsFmax(fabs(poly[j].wB.x), fabs(poly[j].wB.y))));
    if (depth < 1e-4 * magnitude)
    {
        if (poly[i].indexA == poly[j].indexA)
        {
            depth = lsPointLineDistance(poly[i].wB, poly[j].wB, poly[i].wA);
        }
        else if (poly[i].indexB == poly[j].indexB)
        {
            depth = lsPointLineDistance(poly[i].wA, poly[j].wA, poly[i].wB);
        }
    }
    // bestNormal is the difference's outward normal; B moves the opposite way to bring the origin to the boundary.
    return lsFinish(a, b, edgeA, edgeB, depth, lsNeg(bestNormal), iterations);
}

// lidarsim core: resolving residual overlap after a move (the plane solver): the nearest free place for a circle or a
// footprint among static solids and moving walls, reached by a swept move; crushed when none exists.
//
#include "core/move_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Residual overlap: after the sweep and the pushes, the centre may still be closer than radius to something (a
// moving wall squeezing it against a static one, into a crease the push could not leave, or rounding). The free
// space near the centre is the intersection of one constraint per solid, "at least radius + skin from it"; each is
// replaced by the half-plane beyond the tangent line at its closest point, which lies wholly in the free space (the
// solid is convex and on the other side of that line). The nearest point of that intersection of half-planes is a
// 2D quadratic program (at most two constraints are active: try each single one and each pair). Re-linearised at
// the answer and solved again (still measuring from the start), the answers stay free and converge to the nearest
// free place (sequential quadratic programming); the robot then makes a swept move there, so it never crosses a
// wall on the way. When the half-planes have no common point (a gap truly narrower than the body), the robot is
// crushed: it takes the place of least overlap (Jacobi averaging of the pushes), again by a swept move, and the
// result says so. Where the answer lies far, an exact search of the free space near the body (lsNearestFreeCircle,
// NearestFreeFootprint) decides.
#define LS_MAX_CONSTRAINTS 48
#define LS_RESOLVE_ITERATIONS 12

typedef struct Constraint
{
    lsVec2 normal;   // unit, from the solid's closest point towards the linearisation point
    double offset;   // the half-plane: dot(normal, x) >= offset (already includes radius + skin)
    double distance; // from the linearisation point to the solid, metres
} Constraint;

typedef struct GatherContext
{
    const lsScene* scene;
    lsMoveBody body;
    lsVec2 center; // the linearisation point
    lsVec2 hint;   // the step's motion: a centre lying on a segment is put back on the side it came from
    Constraint items[LS_MAX_CONSTRAINTS];
    int count;
    int farthest; // once full: the first of the items farthest away, the one a nearer constraint replaces
    double worst; // largest clearance - distance over the constraints (> 0: something is too close)
} GatherContext;

static int FarthestConstraint(const GatherContext* ctx)
{
    int farthest = 0;
    for (int i = 1; i < ctx->count; ++i)
    {
        farthest = ctx->items[i].distance > ctx->items[farthest].distance ? i : farthest;
    }
    return farthest;
}

static void AddConstraint(GatherContext* ctx, Constraint c)
{
    ctx->worst = lsFmax(ctx->worst, ctx->body.clearance - c.distance);
    if (ctx->count < LS_MAX_CONSTRAINTS)
    {
        ctx->items[ctx->count++] = c;
        ctx->farthest = ctx->count == LS_MAX_CONSTRAINTS ? FarthestConstraint(ctx) : 0;
        return;
    }
    // Full (a dense clutter of walls): keep the nearest ones. The farthest is found again only when it changes,
    // not for every candidate (thousands of walls through a body).
    if (c.distance < ctx->items[ctx->farthest].distance)
    {
        ctx->items[ctx->farthest] = c;
        ctx->farthest = FarthestConstraint(ctx);
    }
}

// True when the gather is full and the segment lies certainly farther from the centre than its farthest kept
// constraint: such a constraint would be neither kept nor raise `worst` (the farthest kept one already gave
// worst >= clearance - its distance), so it changes nothing. Decided from the distance to the segment's line (at most
// the distance to the segment), squared, with a margin far above rounding: no square root, no closest point, for
// most of the thousands of walls through a crushed body.
static bool CertainlyFarther(const GatherContext* ctx, const lsSegment* seg)
{
    if (ctx->count < LS_MAX_CONSTRAINTS)
    {
        return false;
    }
    double far = ctx->items[ctx->farthest].distance;
    if (!(far > 1e-100))
    {
        return false; // squares of smaller distances lose precision to underflow
    }
    lsVec2 e = lsSub(seg->b, seg->a), w = lsSub(ctx->center, seg->a);
    double cross = lsCross(e, w), ee = lsDot(e, e);
    return cross * cross > far * far * ee * (1.0 + 1e-9);
}

// A circle's constraint against one segment: beyond the tangent line at the closest point.
static void GatherSegment(void* context, const lsSegment* seg)
{
    GatherContext* ctx = context;
    if (CertainlyFarther(ctx, seg))
    {
        return;
    }
    lsClosestPoint cp = lsClosestPointOnSegment(seg, ctx->center);
    lsVec2 n = lsAwayFromSegment(seg, ctx->center, ctx->hint);
    if (n.x == 0.0 && n.y == 0.0)
    {
        n = lsV(1.0, 0.0);
    }
    AddConstraint(ctx, (Constraint){n, lsDot(n, cp.point) + ctx->body.clearance, cp.distance});
}

// A footprint's constraint against one convex solid. With n the separating direction (GJK's, or EPA's when they
// overlap) and d the signed distance (minus the depth when overlapping), the solid lies below a line the body is d
// above, so the body moved by delta is at least d + dot(n, delta) from the solid: the half-plane
// dot(n, y) >= dot(n, center) + clearance - d lies wholly in the free space, like a circle's tangent half-plane.
static void GatherProxy(GatherContext* ctx, const lsShapeProxy* solid)
{
    lsShapeProxy body = lsFootprintAt(ctx->body.points, ctx->body.count, ctx->center, ctx->body.angle);
    lsDistanceOutput out = lsShapeDistance(solid, &body, NULL);
    lsVec2 n = out.normal;
    double d = out.distance;
    if (out.overlap)
    {
        lsPenetration pen = lsShapePenetration(solid, &body);
        n = pen.normal;
        d = -pen.depth;
    }
    if (n.x == 0.0 && n.y == 0.0)
    {
        // Touching with no area in common: back the way it came.
        n = lsNormalize(lsNeg(ctx->hint));
        n = n.x == 0.0 && n.y == 0.0 ? lsV(1.0, 0.0) : n;
    }
    AddConstraint(ctx, (Constraint){n, lsDot(n, ctx->center) + ctx->body.clearance - d, d});
}

// A constraint against another body's circle, which a footprint meets with its bounding circle (as in its moves):
// beyond the tangent line of the circle grown by what the body keeps from it.
static void GatherCircle(GatherContext* ctx, const lsCircle* circle)
{
    double radius = circle->radius + (ctx->body.points == NULL ? 0.0 : ctx->body.reach);
    lsVec2 away = lsSub(ctx->center, circle->center);
    double distance = lsLength(away);
    lsVec2 n = distance > 0.0 ? lsScale(1.0 / distance, away) : lsNormalize(lsNeg(ctx->hint));
    if (n.x == 0.0 && n.y == 0.0)
    {
        n = lsV(1.0, 0.0);
    }
    AddConstraint(ctx, (Constraint){n, lsDot(n, circle->center) + radius + ctx->body.clearance, distance - radius});
}

static bool GatherQuery(void* context, lsHitKind kind, int index, int part)
{
    GatherContext* ctx = context;
    if (ctx->body.points == NULL)
    {
        return lsForEachStaticSegment(ctx->scene, kind, index, part, GatherSegment, ctx);
    }
    lsShapeProxy solid;
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(ctx->scene, index, part);
        solid = lsProxyFromSegment(&seg);
    }
    else if (kind == ls_hitBox)
    {
        solid = lsProxyFromBox(lsScene_Box(ctx->scene, index));
    }
    else if (kind == ls_hitPolygon)
    {
        solid = lsProxyFromPolygon(lsScene_Polygon(ctx->scene, index));
    }
    else
    {
        return true;
    }
    GatherProxy(ctx, &solid);
    return true;
}

// The constraints of every static solid, every moving wall (where it is at the end of the step) and every circle of
// cw within box, linearised at center.
static void Gather(GatherContext* ctx, const lsCollisionWorld* cw, lsAABB box, lsVec2 center, lsVec2 hint,
                   const lsMoveBody* body)
{
    ctx->scene = cw->scene;
    ctx->body = *body;
    ctx->center = center;
    ctx->hint = hint;
    ctx->count = 0;
    ctx->farthest = 0;
    ctx->worst = -HUGE_VAL;
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, box, GatherQuery, ctx);
    }
    for (int i = 0; i < cw->moverCount; ++i)
    {
        if (!lsAABB_Overlaps(lsAABB_OfSegment(cw->moversEnd[i].a, cw->moversEnd[i].b), box))
        {
            continue;
        }
        if (body->points == NULL)
        {
            GatherSegment(ctx, &cw->moversEnd[i]);
        }
        else
        {
            lsShapeProxy solid = lsProxyFromSegment(&cw->moversEnd[i]);
            GatherProxy(ctx, &solid);
        }
    }
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle && lsAABB_Overlaps(lsCircle_Bounds(&cw->circles[i]), box))
        {
            GatherCircle(ctx, &cw->circles[i]);
        }
    }
}

static bool SatisfiesAll(const Constraint* items, int count, lsVec2 x)
{
    for (int i = 0; i < count; ++i)
    {
        // Inner approximations with a skin to spare: a shortfall of a rounding error is harmless.
        if (lsDot(items[i].normal, x) < items[i].offset - 1e-12 * (1.0 + fabs(items[i].offset)))
        {
            return false;
        }
    }
    return true;
}

// The point of the half-planes' intersection nearest to origin; false when they have none.
static bool NearestFeasible(const Constraint* items, int count, lsVec2 origin, lsVec2* best)
{
    if (SatisfiesAll(items, count, origin))
    {
        *best = origin;
        return true;
    }
    double bestDistance = HUGE_VAL;
    for (int i = 0; i < count; ++i)
    {
        double gap = items[i].offset - lsDot(items[i].normal, origin);
        if (gap > 0.0)
        {
            lsVec2 x = lsMulAdd(origin, gap, items[i].normal);
            double dist = lsDistance(x, origin);
            if (dist < bestDistance && SatisfiesAll(items, count, x))
            {
                bestDistance = dist;
                *best = x;
            }
        }
        for (int j = i + 1; j < count; ++j)
        {
            lsVec2 ni = items[i].normal, nj = items[j].normal;
            double det = lsCross(ni, nj);
            if (fabs(det) < 1e-12)
            {
                continue; // parallel lines: a single constraint's projection covers it
            }
            // Both lines: dot(ni, x) = offset_i, dot(nj, x) = offset_j (Cramer's rule).
            double bi = items[i].offset, bj = items[j].offset;
            lsVec2 x = lsV((bi * nj.y - bj * ni.y) / det, (ni.x * bj - nj.x * bi) / det);
            double dist = lsDistance(x, origin);
            if (isfinite(dist) && dist < bestDistance && SatisfiesAll(items, count, x))
            {
                bestDistance = dist;
                *best = x;
            }
        }
    }
    return isfinite(bestDistance);
}

// A footprint squeezed between solids from opposite sides (a door closing onto a body in its doorway, against the
// wall's end) gets tangent half-planes with opposite normals, which have no common point although the body could
// step sideways out of the doorway. Its exact free space is the complement of one configuration-space obstacle per
// solid: the centre positions where the body (at its angle) overlaps it, the Minkowski difference solid - body, a
// convex polygon (hull of the vertex differences), here with each edge pushed out by the skin and the solid's radius.
// The free point nearest to the start is the closest point of some obstacle's edge or a crossing of two obstacles'
// edges (de Berg et al., Computational Geometry, ch. 13); trying each of those is cheap for the few solids around a
// body, and is only done when the half-planes found no free place.
#define LS_CSO_MAX_OBSTACLES 64
#define LS_CSO_MAX_VERTICES (2 * LS_MAX_POLYGON_VERTICES)

typedef struct Cso
{
    lsVec2 vertices[LS_CSO_MAX_VERTICES]; // counter-clockwise, of the grown polygon
    lsVec2 normals[LS_CSO_MAX_VERTICES];  // outward unit normal of the edge from vertices[i] to vertices[i + 1]
    double offsets[LS_CSO_MAX_VERTICES];  // inside: dot(normals[i], x) < offsets[i] for every i
    int count;
} Cso;

static int CompareVec2(const void* a, const void* b)
{
    const lsVec2* u = a;
    const lsVec2* v = b;
    return u->x < v->x ? -1 : u->x > v->x ? 1 : u->y < v->y ? -1 : u->y > v->y ? 1 : 0;
}

// Convex hull of points (counter-clockwise, no collinear points) by Andrew's monotone chain, written over points;
// returns its vertex count.
static int ConvexHull(lsVec2* points, int count, lsVec2* hull)
{
    qsort(points, (size_t)count, sizeof(lsVec2), CompareVec2);
    int k = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        int lower = k;
        for (int j = 0; j < count; ++j)
        {
            lsVec2 p = points[pass == 0 ? j : count - 1 - j];
            // Nearly collinear points go too (a footprint turned by 90 degrees has corners off by 1e-17), so
            // consecutive edges are never parallel within rounding.
            while (k >= lower + 2)
            {
                lsVec2 a = lsSub(hull[k - 1], hull[k - 2]), b = lsSub(p, hull[k - 2]);
                if (lsCross(a, b) > 1e-9 * lsLength(a) * lsLength(b))
                {
                    break;
                }
                --k;
            }
            hull[k++] = p;
        }
        --k; // the last point starts the other chain
    }
    return k;
}

// The grown obstacle of a body with world offsets `arms` (footprint points minus centre) against solid; false when
// it has no area (then it is left out).
static bool MakeCso(const lsShapeProxy* solid, const lsVec2* arms, int armCount, double grow, Cso* cso)
{
    lsVec2 points[LS_MAX_POLYGON_VERTICES * LS_MAX_POLYGON_VERTICES];
    lsVec2 hull[LS_MAX_POLYGON_VERTICES * LS_MAX_POLYGON_VERTICES + 1];
    int n = 0;
    for (int i = 0; i < solid->count; ++i)
    {
        for (int j = 0; j < armCount; ++j)
        {
            points[n++] = lsSub(solid->points[i], arms[j]);
        }
    }
    if (n < 3)
    {
        return false; // no area (and no point to sort)
    }
    int h = ConvexHull(points, n, hull);
    if (h < 3 || h > LS_CSO_MAX_VERTICES)
    {
        return false;
    }
    for (int i = 0; i < h; ++i)
    {
        lsVec2 edge = lsSub(hull[i + 1 == h ? 0 : i + 1], hull[i]);
        cso->normals[i] = lsNormalize(lsRightPerp(edge));
        cso->offsets[i] = lsDot(cso->normals[i], hull[i]) + grow;
    }
    // Vertices of the grown polygon: crossings of consecutive grown edge lines (mitred corners, a superset of the
    // rounded growth, so a point outside is free).
    for (int i = 0; i < h; ++i)
    {
        int prev = i == 0 ? h - 1 : i - 1;
        lsVec2 a = cso->normals[prev], b = cso->normals[i];
        double det = lsCross(a, b);
        if (!(fabs(det) > 1e-12))
        {
            return false;
        }
        double oa = cso->offsets[prev], ob = cso->offsets[i];
        cso->vertices[i] = lsV((oa * b.y - ob * a.y) / det, (a.x * ob - b.x * oa) / det);
    }
    cso->count = h;
    return true;
}

static bool InsideCso(const Cso* cso, lsVec2 x)
{
    for (int i = 0; i < cso->count; ++i)
    {
        if (lsDot(cso->normals[i], x) >= cso->offsets[i] - 1e-9 * (1.0 + fabs(cso->offsets[i])))
        {
            return false;
        }
    }
    return true;
}

// True when the straight way from `from` to `to` enters no obstacle that does not hold `from` (leaving one that does
// is the point of the move): Cyrus-Beck clipping against each obstacle's open half-planes.
static bool PathClearOfCsos(const Cso* csos, int count, lsVec2 from, lsVec2 to)
{
    lsVec2 d = lsSub(to, from);
    for (int i = 0; i < count; ++i)
    {
        if (InsideCso(&csos[i], from))
        {
            continue;
        }
        double lo = 0.0, hi = 1.0;
        for (int e = 0; e < csos[i].count && lo < hi; ++e)
        {
            // Inside the open half-plane dot(n, from + t d) < offset - tolerance.
            double limit = csos[i].offsets[e] - 1e-9 * (1.0 + fabs(csos[i].offsets[e]));
            double at = lsDot(csos[i].normals[e], from) - limit, rate = lsDot(csos[i].normals[e], d);
            if (rate == 0.0)
            {
                hi = at < 0.0 ? hi : lo;
            }
            else if (rate > 0.0)
            {
                hi = lsFmin(hi, -at / rate);
            }
            else
            {
                lo = lsFmax(lo, -at / rate);
            }
        }
        if (lo < hi)
        {
            return false;
        }
    }
    return true;
}

// x becomes the best candidate when it is nearer start than the best so far, within limit, outside every obstacle,
// and (straight) reached from start in a straight line.
static void TryFreeCandidate(const Cso* csos, int count, lsVec2 start, double limit, bool straight, lsVec2 x,
                             lsVec2* best, double* bestDistance)
{
    double dist = lsDistance(x, start);
    if (!(dist < *bestDistance) || dist > limit)
    {
        return;
    }
    for (int i = 0; i < count; ++i)
    {
        if (InsideCso(&csos[i], x))
        {
            return;
        }
    }
    if (straight && !PathClearOfCsos(csos, count, start, x))
    {
        return;
    }
    *best = x;
    *bestDistance = dist;
}

// The obstacle of a footprint's bounding circle (its reach) against a circle of radius r at c, grown by grow: the
// regular polygon of LS_CIRCLE_CSO_SIDES sides around the disc of radius apothem = r + reach + grow (a superset, so a
// point outside it is free; its corners stray 2 % of that radius).
#define LS_CIRCLE_CSO_SIDES 16

static void CircleCso(lsVec2 c, double apothem, Cso* cso)
{
    double circumradius = apothem / cos(LS_PI / LS_CIRCLE_CSO_SIDES);
    for (int i = 0; i < LS_CIRCLE_CSO_SIDES; ++i)
    {
        lsRot q = lsMakeRot(2.0 * LS_PI * (i + 0.5) / LS_CIRCLE_CSO_SIDES);
        cso->normals[i] = lsV(q.c, q.s);
        cso->offsets[i] = lsDot(cso->normals[i], c) + apothem;
        lsRot corner = lsMakeRot(2.0 * LS_PI * i / LS_CIRCLE_CSO_SIDES);
        cso->vertices[i] = lsMulAdd(c, circumradius, lsV(corner.c, corner.s));
    }
    cso->count = LS_CIRCLE_CSO_SIDES;
}

// The obstacles (each grown by grow plus the solid's radius) of the solids and moving walls near box, and with
// bodies those of cw's circles there (CircleCso: a footprint meets another body with its bounding circle); free with
// lsFree(csos, *capacity * sizeof(Cso)). NULL when more than LS_CSO_MAX_OBSTACLES crowd the box.
static Cso* BuildCsos(const lsCollisionWorld* cw, const lsMoveBody* body, lsAABB box, double grow, bool bodies,
                      int* count, size_t* capacity)
{
    lsCollisionWorld solids = *cw;
    solids.circleCount = 0;
    lsObstacles obs;
    lsGatherObstacles(&obs, &solids, box, true);
    int circles = 0;
    for (int i = 0; bodies && i < cw->circleCount; ++i)
    {
        circles += i != cw->skipCircle && lsAABB_Overlaps(lsCircle_Bounds(&cw->circles[i]), box) ? 1 : 0;
    }
    if (obs.count + circles > LS_CSO_MAX_OBSTACLES)
    {
        lsReleaseObstacles(&obs);
        return NULL;
    }
    lsShapeProxy arms = lsFootprintAt(body->points, body->count, lsV(0.0, 0.0), body->angle);
    *capacity = (size_t)(obs.count + circles > 0 ? obs.count + circles : 1);
    Cso* csos = lsAlloc(*capacity * sizeof(Cso));
    *count = 0;
    bool ok = true;
    for (int i = 0; ok && i < obs.count; ++i)
    {
        ok = MakeCso(&obs.items[i], arms.points, arms.count, obs.items[i].radius + grow, &csos[i]);
    }
    *count = obs.count;
    for (int i = 0; bodies && i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle && lsAABB_Overlaps(lsCircle_Bounds(&cw->circles[i]), box))
        {
            CircleCso(cw->circles[i].center, cw->circles[i].radius + body->reach + grow, &csos[(*count)++]);
        }
    }
    lsReleaseObstacles(&obs);
    if (!ok)
    {
        // An obstacle without area (a footprint of fewer than three points along a wall): no exact answer.
        lsFree(csos, *capacity * sizeof(Cso));
        return NULL;
    }
    return csos;
}

// Where segments p and q cross, both parameters in [0, 1]; false when they are parallel or apart.
static bool CrossSegments(lsSegment p, lsSegment q, lsVec2* at)
{
    lsVec2 r = lsSub(p.b, p.a), s = lsSub(q.b, q.a);
    double det = lsCross(r, s);
    if (!(fabs(det) > 0.0))
    {
        return false;
    }
    lsVec2 w = lsSub(q.a, p.a);
    double t = lsCross(w, s) / det, u = lsCross(w, r) / det;
    *at = lsMulAdd(p.a, t, r);
    return t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0;
}

// The free centre nearest to start for a footprint body, within limit: clear of the solids and moving walls, and with
// bodies also of cw's circles and reached from start in a straight line (lsNearestFreeFootprint). The obstacles are
// polygons (mitred growth, circles as CircleCso), so the nearest free point is start, the nearest point of an edge,
// or where two edges cross.
static lsFreeSearch NearestFreeFootprint(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 start, double limit,
                                         bool bodies, lsVec2* free)
{
    int count;
    size_t capacity;
    Cso* csos = BuildCsos(cw, body, lsInflatedBox(start, start, limit + body->reach + 2.0 * LS_CONTACT_SKIN),
                          LS_CONTACT_SKIN, bodies, &count, &capacity);
    if (csos == NULL)
    {
        return ls_freeCrowded;
    }
    lsVec2 best = start;
    double bestDistance = HUGE_VAL;
    TryFreeCandidate(csos, count, start, limit, bodies, start, &best, &bestDistance);
    for (int i = 0; i < count; ++i)
    {
        for (int e = 0; e < csos[i].count; ++e)
        {
            lsSegment edge = {csos[i].vertices[e], csos[i].vertices[e + 1 == csos[i].count ? 0 : e + 1]};
            TryFreeCandidate(csos, count, start, limit, bodies, lsClosestPointOnSegment(&edge, start).point, &best,
                             &bestDistance);
            for (int j = i + 1; j < count; ++j)
            {
                for (int f = 0; f < csos[j].count; ++f)
                {
                    lsSegment other = {csos[j].vertices[f], csos[j].vertices[f + 1 == csos[j].count ? 0 : f + 1]};
                    lsVec2 at;
                    if (CrossSegments(edge, other, &at))
                    {
                        TryFreeCandidate(csos, count, start, limit, bodies, at, &best, &bestDistance);
                    }
                }
            }
        }
    }
    lsFree(csos, capacity * sizeof(Cso));
    *free = best;
    return isfinite(bestDistance) ? ls_freeFound : ls_freeNone;
}

lsFreeSearch lsNearestFreeFootprint(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 start, double limit,
                                    lsVec2* free)
{
    LS_ASSERT(body->points != NULL);
    return NearestFreeFootprint(cw, body, start, limit, true, free);
}

// A circle body's exact nearest free place. Each solid, moving wall and other body near start is a convex core (its
// proxy's hull: a point, a segment or a polygon) grown by its radius plus the body's clearance, and the free space is
// the complement of their union. Its point nearest to start is start itself, the nearest point of one piece of a
// grown boundary (an edge of the core pushed out, or the circle around a core vertex), or where two pieces cross (a
// corner of the union's boundary): the footprint's candidates above, with arcs for the rounded corners; where only
// straight ways count, also where a shadow (of a core's vertex, or a tangent to a body) crosses a piece. Used where
// the half-planes' answer lies far (a robot wedged in a row of robots along a wall, 7e-7 m into both neighbours, got
// two nearly parallel tangents that met metres away, and linearised there the room's walls were seen from their far
// side: it went 11.6 m across the room onto another robot), and by the sim's Separate.
typedef struct Grown
{
    lsVec2 points[LS_MAX_POLYGON_VERTICES]; // the core's hull, counter-clockwise (one point; two: a segment)
    int count;
    double radius; // the core's radius plus the body's clearance
    lsAABB bounds; // of the grown core: a point outside it is clear of it
} Grown;

// The most pieces searched: their pairs cost the square (64 polygons of 32 vertices took 23 s), and a clutter that
// makes more (many shapes, or solids with many vertices, within reach) is reported crowded.
#define LS_FREE_MAX_PIECES 256

typedef struct Piece
{
    lsVec2 a, b;   // an edge from a to b; an arc: its centre a
    double radius; // an arc's radius; 0 for an edge
    double gap;    // the distance from the start to its nearest point: no point of it is nearer
    int order;     // its place as made (ties of gap keep it, so the search is the same on every library)
} Piece;

// Distance from x to g's core (0 inside a polygon).
static double CoreDistance(const Grown* g, lsVec2 x)
{
    if (g->count == 1)
    {
        return lsDistance(g->points[0], x);
    }
    bool inside = g->count >= 3;
    double best = HUGE_VAL;
    for (int i = 0; i < g->count; ++i)
    {
        lsSegment edge = {g->points[i], g->points[i + 1 == g->count ? 0 : i + 1]};
        inside = inside && lsCross(lsSub(edge.b, edge.a), lsSub(x, edge.a)) > 0.0;
        best = lsFmin(best, lsClosestPointOnSegment(&edge, x).distance);
    }
    return inside ? 0.0 : best;
}

static bool OutsideAll(const Grown* grown, int count, lsVec2 x)
{
    for (int i = 0; i < count; ++i)
    {
        // On the boundary counts as free: candidates are computed on it, within rounding.
        if (lsAABB_Contains(grown[i].bounds, x) &&
            CoreDistance(&grown[i], x) < grown[i].radius - 1e-10 * (1.0 + grown[i].radius))
        {
            return false;
        }
    }
    return true;
}

// The piece's point nearest to p.
static lsVec2 PieceNearest(const Piece* piece, lsVec2 p)
{
    if (piece->radius > 0.0)
    {
        lsVec2 away = lsSub(p, piece->a);
        double length = lsLength(away);
        return length > 0.0 ? lsMulAdd(piece->a, piece->radius / length, away)
                            : lsV(piece->a.x + piece->radius, piece->a.y);
    }
    lsSegment edge = {piece->a, piece->b};
    return lsClosestPointOnSegment(&edge, p).point;
}

// Where two pieces cross (at most two points); returns their count.
static int PieceCrossings(const Piece* p, const Piece* q, lsVec2 out[2])
{
    if (p->radius > 0.0 && q->radius > 0.0)
    {
        lsVec2 between = lsSub(q->a, p->a);
        double d = lsLength(between);
        if (!(d > 0.0) || d > p->radius + q->radius || d < fabs(p->radius - q->radius))
        {
            return 0;
        }
        lsVec2 u = lsScale(1.0 / d, between);
        double along = (p->radius * p->radius - q->radius * q->radius + d * d) / (2.0 * d);
        double h = sqrt(lsFmax(0.0, p->radius * p->radius - along * along));
        lsVec2 foot = lsMulAdd(p->a, along, u);
        out[0] = lsMulAdd(foot, h, lsLeftPerp(u));
        out[1] = lsMulSub(foot, h, lsLeftPerp(u));
        return 2;
    }
    if (p->radius > 0.0 || q->radius > 0.0)
    {
        const Piece* arc = p->radius > 0.0 ? p : q;
        const Piece* edge = p->radius > 0.0 ? q : p;
        // |a + t e - c|^2 = r^2 for t in [0, 1].
        lsVec2 e = lsSub(edge->b, edge->a), w = lsSub(edge->a, arc->a);
        double ee = lsDot(e, e), half = lsDot(e, w), c = lsDot(w, w) - arc->radius * arc->radius;
        double disc = half * half - ee * c;
        if (!(ee > 0.0) || disc < 0.0)
        {
            return 0;
        }
        double root = sqrt(disc);
        int n = 0;
        for (int k = 0; k < 2; ++k)
        {
            double t = (-half + (k == 0 ? -root : root)) / ee;
            if (t >= 0.0 && t <= 1.0)
            {
                out[n++] = lsMulAdd(edge->a, t, e);
            }
        }
        return n;
    }
    return CrossSegments((lsSegment){p->a, p->b}, (lsSegment){q->a, q->b}, &out[0]) ? 1 : 0;
}

// Appends piece when it comes within limit of start (only those can hold a candidate within limit).
static void AddPiece(Piece* pieces, int* count, Piece piece, lsVec2 start, double limit)
{
    piece.gap = piece.radius > 0.0 ? lsFmax(0.0, lsDistance(piece.a, start) - piece.radius)
                                   : lsDistance(PieceNearest(&piece, start), start);
    piece.order = *count;
    if (piece.gap <= limit)
    {
        pieces[(*count)++] = piece;
    }
}

static int CompareGaps(const void* a, const void* b)
{
    const Piece* p = a;
    const Piece* q = b;
    return p->gap < q->gap ? -1 : p->gap > q->gap ? 1 : (p->order > q->order) - (p->order < q->order);
}

// How near the centre's way may pass a body (a grown point): its clearance less the skin. A way from a body it rests
// against to a place on its clearance is a chord, which dips into it by the sagitta (7e-8 m for 0.85 mm along a
// robot of radius 0.2); deeper is through it.
static double BodyKeep(const Grown* g) { return g->radius - LS_CONTACT_SKIN; }

// True when the way start + t d, t in [0, 1], runs through the open interior of g's polygon for a positive length
// (Cyrus-Beck clipping), unless start lies strictly inside it (leaving it is the point). Along an edge or through a
// corner it only touches; through two opposite corners it crosses.
static bool WayEntersPolygon(const Grown* g, lsVec2 start, lsVec2 d)
{
    double lo = 0.0, hi = 1.0;
    bool inside = true;
    for (int k = 0; k < g->count; ++k)
    {
        lsVec2 a = g->points[k], e = lsSub(g->points[k + 1 == g->count ? 0 : k + 1], a);
        double at = lsCross(e, lsSub(start, a)), rate = lsCross(e, d); // inside: at + t rate > 0
        inside = inside && at > 0.0;
        if (rate > 0.0)
        {
            lo = lsFmax(lo, -at / rate);
        }
        else if (rate < 0.0)
        {
            hi = lsFmin(hi, -at / rate);
        }
        else if (!(at > 0.0))
        {
            return false; // along or outside this edge's line
        }
    }
    return !inside && hi - lo > 1e-12;
}

// True when the centre's straight way from start to x crosses a solid's core (a wall, a moving wall, the outline of
// a box or polygon it is not inside), or enters the clearance of another body that start keeps clear of: the free
// place on a wall's far side or beyond a robot is not where a push may put it (through the robot).
static bool Blocked(const Grown* grown, int count, lsVec2 start, lsVec2 x)
{
    lsVec2 d = lsSub(x, start);
    lsSegment way = {start, x};
    for (int i = 0; i < count; ++i)
    {
        if (grown[i].count == 1)
        {
            // A candidate on a tangent from start (a shadow ray) is seen within rounding.
            double keep = BodyKeep(&grown[i]);
            if (lsDistance(start, grown[i].points[0]) >= keep &&
                lsClosestPointOnSegment(&way, grown[i].points[0]).distance < keep - 1e-10 * (1.0 + keep))
            {
                return true;
            }
            continue;
        }
        if (grown[i].count == 2)
        {
            // A wall: the way crosses it where each lies strictly on both sides of the other.
            lsVec2 a = grown[i].points[0], e = lsSub(grown[i].points[1], a);
            double sa = lsCross(d, lsSub(a, start)), sb = lsCross(d, lsSub(grown[i].points[1], start));
            double ss = lsCross(e, lsSub(start, a)), sx = lsCross(e, lsSub(x, a));
            if (((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0)) &&
                ((ss < 0.0 && sx > 0.0) || (ss > 0.0 && sx < 0.0)))
            {
                return true;
            }
            continue;
        }
        if (WayEntersPolygon(&grown[i], start, d))
        {
            return true;
        }
    }
    return false;
}

// The shadows g casts from start within limit, as straight pieces from where each leaves g to limit; returns their
// count: a ray through each core vertex beyond it (a solid), or the two tangents to the clearance beyond their points
// of contact (a body whose clearance start is outside).
static int ShadowRays(const Grown* g, lsVec2 start, double limit, Piece rays[LS_MAX_POLYGON_VERTICES])
{
    if (g->count == 1)
    {
        lsVec2 towards = lsSub(g->points[0], start);
        double d = lsLength(towards), keep = BodyKeep(g);
        if (!(d >= keep) || d - keep >= limit)
        {
            return 0;
        }
        double along = sqrt((d - keep) * (d + keep));
        if (!(along < limit))
        {
            return 0;
        }
        lsVec2 u = lsScale(1.0 / d, towards);
        for (int side = 0; side < 2; ++side)
        {
            // Turned from u by the tangent's angle: cos = along / d, sin = keep / d.
            lsVec2 dir = lsMulAdd(lsScale(along / d, u), (side == 0 ? -keep : keep) / d, lsLeftPerp(u));
            rays[side] = (Piece){lsMulAdd(start, along, dir), lsMulAdd(start, limit, dir), 0.0, along, side};
        }
        return 2;
    }
    int count = 0;
    for (int v = 0; v < g->count; ++v)
    {
        lsVec2 p = g->points[v];
        double along = lsDistance(start, p);
        if (along > 0.0 && along < limit)
        {
            rays[count] = (Piece){p, lsMulAdd(start, limit / along, lsSub(p, start)), 0.0, along, count};
            count += 1;
        }
    }
    return count;
}

static void TryCircleCandidate(const Grown* grown, int count, lsVec2 start, double limit, lsVec2 x, lsVec2* best,
                               double* bestDistance)
{
    double dist = lsDistance(x, start);
    if (dist < *bestDistance && dist <= limit && OutsideAll(grown, count, x) && !Blocked(grown, count, start, x))
    {
        *best = x;
        *bestDistance = dist;
    }
}

lsFreeSearch lsNearestFreeCircle(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 start, double limit,
                                 lsVec2* free)
{
    lsObstacles obs;
    lsGatherObstacles(&obs, cw, lsInflatedBox(start, start, limit + body->clearance + LS_CONTACT_SKIN), true);
    if (obs.count > LS_CSO_MAX_OBSTACLES)
    {
        lsReleaseObstacles(&obs);
        return ls_freeCrowded;
    }
    Grown* grown = lsAlloc((size_t)(obs.count > 0 ? obs.count : 1) * sizeof(Grown));
    int pieceCapacity = 1;
    for (int i = 0; i < obs.count; ++i)
    {
        Grown* g = &grown[i];
        lsVec2 points[LS_MAX_POLYGON_VERTICES], hull[LS_MAX_POLYGON_VERTICES + 1];
        int n = obs.items[i].count;
        memcpy(points, obs.items[i].points, (size_t)n * sizeof(lsVec2));
        g->count = n < 3 ? n : ConvexHull(points, n, hull);
        memcpy(g->points, n < 3 ? points : hull, (size_t)g->count * sizeof(lsVec2));
        g->count = g->count == 2 && lsVecEqual(g->points[0], g->points[1]) ? 1 : g->count;
        g->radius = obs.items[i].radius + body->clearance;
        g->bounds = (lsAABB){g->points[0], g->points[0]};
        for (int k = 1; k < g->count; ++k)
        {
            g->bounds = (lsAABB){lsMin(g->bounds.lower, g->points[k]), lsMax(g->bounds.upper, g->points[k])};
        }
        lsVec2 grow = {2.0 * g->radius, 2.0 * g->radius}; // twice: rounding at the boundary stays inside
        g->bounds = (lsAABB){lsSub(g->bounds.lower, grow), lsAdd(g->bounds.upper, grow)};
        pieceCapacity += 2 * g->count;
    }
    // The pieces: the circle around each core vertex and each core edge pushed out along its outward normal (a
    // segment's two edges face both ways).
    Piece* pieces = lsAlloc((size_t)pieceCapacity * sizeof(Piece));
    int pieceCount = 0;
    for (int i = 0; i < obs.count; ++i)
    {
        const Grown* g = &grown[i];
        for (int k = 0; k < g->count; ++k)
        {
            AddPiece(pieces, &pieceCount, (Piece){g->points[k], g->points[k], g->radius, 0.0, 0}, start, limit);
            if (g->count > 1)
            {
                lsVec2 a = g->points[k], b = g->points[k + 1 == g->count ? 0 : k + 1];
                lsVec2 out = lsScale(g->radius, lsNormalize(lsRightPerp(lsSub(b, a))));
                AddPiece(pieces, &pieceCount, (Piece){lsAdd(a, out), lsAdd(b, out), 0.0, 0.0, 0}, start, limit);
            }
        }
    }
    int grownCount = obs.count;
    lsReleaseObstacles(&obs);
    if (pieceCount > LS_FREE_MAX_PIECES)
    {
        lsFree(pieces, (size_t)pieceCapacity * sizeof(Piece));
        lsFree(grown, (size_t)(grownCount > 0 ? grownCount : 1) * sizeof(Grown));
        return ls_freeCrowded;
    }
    lsVec2 best = start;
    double bestDistance = HUGE_VAL;
    TryCircleCandidate(grown, grownCount, start, limit, start, &best, &bestDistance);
    // Nearest pieces first: a candidate on a piece is no nearer than its gap, so once the gaps reach the best
    // distance, the rest cannot improve it (a clutter of 32-gons took seconds when every pair was tried).
    qsort(pieces, (size_t)pieceCount, sizeof(Piece), CompareGaps);
    for (int i = 0; i < pieceCount && pieces[i].gap < bestDistance; ++i)
    {
        TryCircleCandidate(grown, grownCount, start, limit, PieceNearest(&pieces[i], start), &best, &bestDistance);
        for (int j = i + 1; j < pieceCount && pieces[j].gap < bestDistance; ++j)
        {
            lsVec2 crossings[2];
            int n = PieceCrossings(&pieces[i], &pieces[j], crossings);
            for (int k = 0; k < n; ++k)
            {
                TryCircleCandidate(grown, grownCount, start, limit, crossings[k], &best, &bestDistance);
            }
        }
    }
    // The places reachable straight from start are bounded by the pieces and by the shadows of what blocks the way
    // (the rays from start through a core's vertices, and along the tangents to a body's clearance that start keeps
    // clear of): where a shadow leaves a piece is a candidate too.
    for (int g = 0; g < grownCount && bestDistance > 0.0; ++g)
    {
        Piece rays[LS_MAX_POLYGON_VERTICES];
        int rayCount = ShadowRays(&grown[g], start, limit, rays);
        for (int r = 0; r < rayCount && rays[r].gap < bestDistance; ++r)
        {
            for (int i = 0; i < pieceCount && pieces[i].gap < bestDistance; ++i)
            {
                lsVec2 crossings[2];
                int n = PieceCrossings(&rays[r], &pieces[i], crossings);
                for (int k = 0; k < n; ++k)
                {
                    TryCircleCandidate(grown, grownCount, start, limit, crossings[k], &best, &bestDistance);
                }
            }
        }
    }
    lsFree(pieces, (size_t)pieceCapacity * sizeof(Piece));
    lsFree(grown, (size_t)(grownCount > 0 ? grownCount : 1) * sizeof(Grown));
    *free = best;
    return isfinite(bestDistance) ? ls_freeFound : ls_freeNone;
}

// True when a footprint body can move straight from `from` to `to` without entering any solid it does not overlap
// already (Cyrus-Beck clipping of the path against each obstacle). Sliding along a solid it touches is allowed,
// which a sweep by conservative advancement refuses within rounding; false when too many solids crowd the path.
static bool FootprintPathClear(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 from, lsVec2 to)
{
    int count;
    size_t capacity;
    Cso* csos = BuildCsos(cw, body, lsInflatedBox(from, to, body->reach + 2.0 * LS_CONTACT_SKIN), 0.0, false, &count,
                          &capacity);
    if (csos == NULL)
    {
        return false;
    }
    bool clear = PathClearOfCsos(csos, count, from, to);
    lsFree(csos, capacity * sizeof(Cso));
    return clear;
}

// Where the centre should go from start: the nearest free place (or, crushed, the place of least overlap). Pure
// computation; the caller moves there with a sweep.
// first: the constraints gathered at start (what the first iteration would gather).
static lsVec2 FreePlace(const lsCollisionWorld* cw, lsVec2 start, lsVec2 hint, const lsMoveBody* body,
                        const GatherContext* first, bool* crushed)
{
    double margin = body->reach + LS_CONTACT_SKIN;
    lsVec2 x = start;
    GatherContext ctx = *first;
    *crushed = false;
    for (int iteration = 0; iteration < LS_RESOLVE_ITERATIONS; ++iteration)
    {
        // Everything that could touch the body anywhere between start and the current answer.
        if (iteration > 0)
        {
            Gather(&ctx, cw, lsInflatedBox(start, x, margin), x, hint, body);
        }
        lsVec2 next = x; // written by NearestFeasible when it succeeds
        if (!NearestFeasible(ctx.items, ctx.count, start, &next))
        {
            if (body->points != NULL &&
                NearestFreeFootprint(cw, body, start, 2.0 * body->reach, false, &next) == ls_freeFound)
            {
                return next;
            }
            *crushed = true;
            break;
        }
        // A footprint deep in solids gets half-planes from EPA's directions, whose nearest common point can lie
        // metres away (beyond the room's wall: a body in boxes that overlap each other jumped 4.7 m in one step).
        // Farther than the exact search's range, the exact search decides.
        if (body->points != NULL && lsDistance(next, start) > 2.0 * body->reach)
        {
            if (NearestFreeFootprint(cw, body, start, 2.0 * body->reach, false, &next) == ls_freeFound)
            {
                return next;
            }
            *crushed = true;
            break;
        }
        bool settled = lsDistance(next, x) <= 1e-12 * (1.0 + lsLength(x));
        x = next;
        if (settled && iteration > 0)
        {
            break;
        }
    }
    if (!*crushed)
    {
        // A circle's far answer: linearised far off, the half-planes may have seen walls from their far side and
        // ignored the bodies between (see lsNearestFreeCircle); a free place within twice its reach is nearer, and
        // is exact. Farther, the answer stands (a circle pushed out along a narrow wedge between a bar and a wall).
        lsVec2 exact;
        if (body->points == NULL && lsDistance(x, start) > 2.0 * body->reach &&
            lsNearestFreeCircle(cw, body, start, 2.0 * body->reach, &exact) == ls_freeFound)
        {
            return exact;
        }
        return x; // the last answer is free of what it was linearised against
    }
    // Crushed: relaxed Jacobi averaging of the pushes out of every overlapped solid, which settles where the overlaps
    // balance (the relaxation, 1 / (pushes + 1), keeps a body resting exactly at the skin of one solid from flipping
    // between that one and the other; with two opposite solids the error shrinks threefold per iteration).
    // The half-planes are gathered once, linearised at start, from everything the search above looked at (between
    // start and its last iterate), not again at each iteration: with more solids around than LS_MAX_CONSTRAINTS
    // (thousands of walls through the body), gathering the nearest ones at every iterate changed the set as the
    // iterate moved, and the relaxation wandered (0.1 m a step, and 50 queries of thousands of segments per step).
    // On a fixed set it settles, and a body already at the balance stays there.
    if (x.x != start.x || x.y != start.y)
    {
        Gather(&ctx, cw, lsInflatedBox(start, x, margin), start, hint, body);
    }
    x = start;
    for (int iteration = 0; iteration < 3 * LS_RESOLVE_ITERATIONS; ++iteration)
    {
        lsVec2 push = {0.0, 0.0};
        int pushes = 0;
        for (int i = 0; i < ctx.count; ++i)
        {
            double depth = ctx.items[i].offset - lsDot(ctx.items[i].normal, x);
            if (depth > 0.0)
            {
                push = lsMulAdd(push, depth, ctx.items[i].normal);
                pushes += 1;
            }
        }
        if (pushes == 0)
        {
            break;
        }
        x = lsMulAdd(x, 1.0 / (pushes + 1), push);
    }
    return x;
}

// The deepest overlap of the body at center with the static solids and moving walls (negative: the clearance).
static double WorstOverlap(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 center, lsVec2 stepStart)
{
    GatherContext ctx;
    Gather(&ctx, cw, lsInflatedBox(center, center, body->reach + LS_CONTACT_SKIN), center, lsSub(center, stepStart),
           body);
    return ctx.worst;
}

// True when a moving wall (at the start or the end of the step) comes into box.
static bool MoversNear(const lsCollisionWorld* cw, lsAABB box)
{
    for (int i = 0; i < cw->moverCount; ++i)
    {
        if (lsAABB_Overlaps(lsAABB_OfSegment(cw->moversStart[i].a, cw->moversStart[i].b), box) ||
            lsAABB_Overlaps(lsAABB_OfSegment(cw->moversEnd[i].a, cw->moversEnd[i].b), box))
        {
            return true;
        }
    }
    return false;
}

// Resolves residual overlap with what cw holds (see FreePlace). Returns true when it moved.
static bool Resolve(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 stepStart, const lsMoveBody* body)
{
    lsCollisionWorld frozen = *cw; // moving walls where they are at the end of the step, no circles
    frozen.moversStart = cw->moversEnd;
    frozen.circleCount = 0;
    bool moved = false;
    // The deepest overlap at the step's start, when the first pass gathers there (the body did not move before
    // resolving: crushed where it stands): the same gather as WorstOverlap's below.
    bool knowStart = false, settled = false;
    double startOverlap = 0.0;
    double allowed = body->points == NULL ? 0.5 * LS_CONTACT_SKIN : 0.75 * LS_CONTACT_SKIN;
    for (int pass = 0; pass < 3 && !settled; ++pass)
    {
        lsVec2 pos = result->position;
        GatherContext ctx;
        Gather(&ctx, cw, lsInflatedBox(pos, pos, body->reach + LS_CONTACT_SKIN), pos, lsSub(pos, stepStart), body);
        if (pass == 0 && pos.x == stepStart.x && pos.y == stepStart.y)
        {
            knowStart = true;
            startOverlap = ctx.worst;
        }
        // A footprint's pushes above leave it at least a quarter skin from every solid it did not overlap; only
        // closer than that (an overlap) is resolved here, so a body resting against a wall is not nudged each step.
        if (ctx.worst <= allowed)
        {
            settled = true;
            break;
        }
        bool crushed;
        lsVec2 target = FreePlace(cw, pos, lsSub(pos, stepStart), body, &ctx, &crushed);
        result->crushed = result->crushed || crushed;
        lsVec2 d = lsSub(target, pos);
        if (d.x == 0.0 && d.y == 0.0)
        {
            break;
        }
        bool hit;
        double t = 1.0;
        if (body->points == NULL)
        {
            // The way there is swept with the centre: a wall between the two places stops it (the next pass
            // resolves from there), so the centre never crosses a wall. Not the whole disc: on its way out of a
            // crease it moves along a chord of the clearance circle around the solid it leaves, dipping back in by
            // the sagitta.
            lsSweepContext sweep = lsSweepOnce(&frozen, pos, d, 0.0, 0.0, true);
            hit = sweep.hit;
            t = sweep.t;
        }
        else
        {
            // A footprint goes straight when the way is exactly clear, else sweeps its whole outline (conservative
            // advancement); solids it overlaps are passed through on the way out, any other stops it.
            hit = false;
            if (!FootprintPathClear(&frozen, body, pos, target))
            {
                // Blocked (the free place lies round a corner): slide towards it along what is in the way.
                lsObstacles obs;
                lsGatherObstacles(&obs, &frozen, lsSlideBox(pos, d, body->reach), true);
                double angle = body->angle;
                int contacts = result->contacts;
                lsVec2 end = lsSlidePolygon(&obs, body->points, body->count, body->reach, pos, &angle, d, 0.0, result);
                lsReleaseObstacles(&obs);
                hit = result->contacts > contacts;
                d = lsSub(end, pos);
            }
        }
        result->position = hit ? lsMulAdd(pos, t, d) : target;
        result->contacts += 1;
        result->lastNormal = lsNormalize(d);
        lsAddLeg(result, result->position);
        moved = true;
        settled = !hit || crushed; // at the free place, or crushed
    }
    // Three passes each stopped on the way (a free place behind a wall that a moving wall's push is blocked by) and
    // still overlapping: no free place was reached, which is a crush (a door swept over a long robot standing 0.1 m
    // from a wall left it 0.9 m deep in the door, uncounted).
    if (!settled && !result->crushed && WorstOverlap(cw, body, result->position, stepStart) > allowed)
    {
        result->crushed = true;
    }
    // A crushed body ends where its overlap is smaller than where the step started, or stays there: driven into
    // boxes that overlap each other, two places each looked better from the other (the directions out of deep
    // overlaps flip) and a footprint jumped between them every step. The deepest overlap is a function of the place
    // alone, so the body now settles. Not with a moving wall near: the wall may have passed over the start.
    bool away = result->position.x != stepStart.x || result->position.y != stepStart.y;
    if (result->crushed && away &&
        !MoversNear(cw, lsInflatedBox(stepStart, result->position, body->reach + LS_CONTACT_SKIN)))
    {
        double there = WorstOverlap(cw, body, result->position, stepStart);
        double before = knowStart ? startOverlap : WorstOverlap(cw, body, stepStart, stepStart);
        if (!(there < before - LS_CONTACT_SKIN))
        {
            moved = true;
            result->position = stepStart;
            lsAddLeg(result, stepStart);
        }
    }
    return moved;
}

bool lsResolveOverlap(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 stepStart, const lsMoveBody* body)
{
    // First to a place clear of the other bodies' circles too (a moving wall pushed it into a robot); where none is
    // near (a squeeze with no room), clear of the solids alone, never pushed into a wall for another body's sake.
    lsCollisionWorld solids = *cw;
    solids.circleCount = 0;
    if (cw->circleCount > 0)
    {
        lsMoveResult tried = *result;
        bool moved = Resolve(cw, &tried, stepStart, body);
        // Kept only where the solids alone would not move it again: a huge body's linearised tangent can point
        // into a wall (a vehicle of radius 1e6 put a robot 0.25 m into one).
        lsMoveResult check = tried;
        if ((!tried.crushed || result->crushed) && !Resolve(&solids, &check, stepStart, body))
        {
            *result = tried;
            return moved;
        }
    }
    return Resolve(&solids, result, stepStart, body);
}

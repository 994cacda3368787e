// lidarsim core: the robot's motion. Differential-drive kinematics (exact arcs), and continuous collision of a
// moving circle (the robot, and the vehicles) against the scene, the moving walls and other circles:
// first time of impact, slide along the contact tangent, pushes by moving walls, residual overlap resolution.
#include "core/robot.h"
#include "core/sweep.h"
#include "lidarsim/sim.h"

#include "core/distance.h"

#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Kinematics

double lsApproachSpeed(double speed, double command, double maxSpeed, double maxAccel, double dt)
{
    command = fmin(fmax(command, -maxSpeed), maxSpeed);
    double step = maxAccel * dt;
    double next = speed < command ? fmin(speed + step, command) : fmax(speed - step, command);
    return fmin(fmax(next, -maxSpeed), maxSpeed);
}

void lsIntegrateUnicycle(lsVec2 position, double angle, double v, double w, double dt, lsVec2* newPosition,
                         double* newAngle)
{
    double turn = w * dt;
    if (fabs(turn) < 1e-9)
    {
        // The arc formula loses precision as w -> 0; the midpoint heading is exact to O(turn^2) here.
        lsVec2 dir = lsDirection(angle + 0.5 * turn);
        *newPosition = lsMulAdd(position, v * dt, dir);
    }
    else
    {
        double r = v / w;
        double a1 = angle + turn;
        *newPosition = lsAdd(position, lsV(r * (sin(a1) - sin(angle)), -r * (cos(a1) - cos(angle))));
    }
    *newAngle = lsWrapAngle(angle + turn);
}

void lsAction_Command(lsAction action, const lsRobotDef* robot, double* v, double* w)
{
    LS_ASSERT(robot != NULL && v != NULL && w != NULL);
    static const double table[ls_actionCount][2] = {
        [ls_actionForward] = {1.0, 0.0},     [ls_actionLeft] = {0.0, 1.0},          [ls_actionRight] = {0.0, -1.0},
        [ls_actionForwardLeft] = {0.5, 0.5}, [ls_actionForwardRight] = {0.5, -0.5}, [ls_actionStop] = {0.0, 0.0},
    };
    LS_ASSERT((int)action >= 0 && action < ls_actionCount);
    *v = table[action][0] * robot->maxSpeed;
    *w = table[action][1] * robot->maxTurnRate;
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving a circle with continuous collision

// A contact whose approach speed along the normal is below this fraction of the motion is sliding, not hitting.
#define LS_SLIDE_TOLERANCE 1e-9
#define LS_MAX_SLIDES 4

static lsAABB InflatedBox(lsVec2 a, lsVec2 b, double margin)
{
    lsAABB box = lsAABB_OfSegment(a, b);
    box.lower = lsSub(box.lower, lsV(margin, margin));
    box.upper = lsAdd(box.upper, lsV(margin, margin));
    return box;
}

// Unit normal from the segment towards c; when c lies on the segment, the side facing against the motion d.
static lsVec2 AwayFromSegment(const lsSegment* seg, lsVec2 c, lsVec2 d)
{
    lsClosestPoint cp = lsClosestPointOnSegment(seg, c);
    lsVec2 n = lsNormalize(lsSub(c, cp.point));
    if (n.x == 0.0 && n.y == 0.0)
    {
        n = lsNormalize(lsLeftPerp(lsSub(seg->b, seg->a)));
        if (lsDot(n, d) > 0.0)
        {
            n = lsNeg(n);
        }
        if (n.x == 0.0 && n.y == 0.0)
        {
            n = lsNeg(lsNormalize(d));
        }
    }
    return n;
}

// Calls fn on every segment of a static object reported by the scene (wall segment, box or polygon edges).
typedef void SegmentFcn(void* context, const lsSegment* segment);

static bool ForEachSegment(const lsScene* scene, lsHitKind kind, int index, int part, SegmentFcn* fn, void* context)
{
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(scene, index, part);
        fn(context, &seg);
    }
    else if (kind == ls_hitBox)
    {
        lsVec2 corners[4];
        lsBox_Corners(lsScene_Box(scene, index), corners);
        for (int i = 0; i < 4; ++i)
        {
            lsSegment seg = {corners[i], corners[(i + 1) & 3]};
            fn(context, &seg);
        }
    }
    else if (kind == ls_hitPolygon)
    {
        const lsPolygon* polygon = lsScene_Polygon(scene, index);
        for (int i = 0; i < polygon->count; ++i)
        {
            lsSegment seg = {polygon->vertices[i], polygon->vertices[i + 1 == polygon->count ? 0 : i + 1]};
            fn(context, &seg);
        }
    }
    return true;
}

typedef struct SweepContext
{
    const lsScene* scene;
    lsVec2 c0, c1, d;
    double radius; // radius + skin
    double t;
    lsVec2 normal;
    bool hit;
} SweepContext;

static void SweepStaticSegment(void* context, const lsSegment* seg)
{
    SweepContext* ctx = context;
    double t;
    if (!lsTimeOfImpactCircleSegment(ctx->c0, ctx->c1, ctx->radius, seg, &t) || t >= ctx->t)
    {
        return;
    }
    lsVec2 n = AwayFromSegment(seg, lsLerp(ctx->c0, ctx->c1, t), ctx->d);
    if (lsDot(ctx->d, n) >= -LS_SLIDE_TOLERANCE * lsLength(ctx->d))
    {
        return; // touching already and moving along or away: sliding, not a new contact
    }
    ctx->t = t;
    ctx->normal = n;
    ctx->hit = true;
}

static bool SweepQuery(void* context, lsHitKind kind, int index, int part)
{
    SweepContext* ctx = context;
    return ForEachSegment(ctx->scene, kind, index, part, SweepStaticSegment, ctx);
}

// One straight sweep from c0 to c0 + d over the step times [tFrom, 1]: the earliest contact (fraction of d).
static SweepContext SweepOnce(const lsCollisionWorld* cw, lsVec2 c0, lsVec2 d, double radius, double tFrom,
                              bool withMovers)
{
    SweepContext ctx = {cw->scene, c0, lsAdd(c0, d), d, radius + LS_CONTACT_SKIN, HUGE_VAL, {0.0, 0.0}, false};
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, InflatedBox(ctx.c0, ctx.c1, ctx.radius), SweepQuery, &ctx);
    }
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i == cw->skipCircle)
        {
            continue;
        }
        lsSegment point = {cw->circles[i].center, cw->circles[i].center};
        SweepContext sub = ctx;
        sub.radius = ctx.radius + cw->circles[i].radius;
        SweepStaticSegment(&sub, &point);
        if (sub.hit && sub.t < ctx.t)
        {
            ctx.t = sub.t;
            ctx.normal = sub.normal;
            ctx.hit = true;
        }
    }
    if (withMovers)
    {
        for (int i = 0; i < cw->moverCount; ++i)
        {
            lsSegment s0 = cw->moversStart[i];
            lsSegment s1 = cw->moversEnd[i];
            lsVec2 p0 = lsLerp(s0.a, s1.a, tFrom);
            lsVec2 q0 = lsLerp(s0.b, s1.b, tFrom);
            // Endpoints move linearly, so the wall stays inside the box of its start and end segments.
            lsAABB wallBox = lsAABB_Union(lsAABB_OfSegment(p0, q0), lsAABB_OfSegment(s1.a, s1.b));
            if (!lsAABB_Overlaps(wallBox, InflatedBox(ctx.c0, ctx.c1, ctx.radius)))
            {
                continue;
            }
            double t;
            if (!lsTimeOfImpactCircleMovingSegment(ctx.c0, ctx.c1, ctx.radius, p0, s1.a, q0, s1.b, &t) || t >= ctx.t)
            {
                continue;
            }
            lsSegment at = {lsLerp(p0, s1.a, t), lsLerp(q0, s1.b, t)};
            lsVec2 c = lsLerp(ctx.c0, ctx.c1, t);
            lsClosestPoint cp = lsClosestPointOnSegment(&at, c);
            // Velocity of the touching point of the wall over the rest of the step, for the approach test.
            lsVec2 wallMotion = lsLerp(lsSub(s1.a, p0), lsSub(s1.b, q0), cp.fraction);
            lsVec2 relative = lsSub(d, wallMotion);
            lsVec2 n = AwayFromSegment(&at, c, relative);
            if (lsDot(relative, n) >= -LS_SLIDE_TOLERANCE * (lsLength(d) + lsLength(wallMotion)))
            {
                continue;
            }
            ctx.t = t;
            ctx.normal = n;
            ctx.hit = true;
        }
    }
    return ctx;
}

// Collide and slide: moves the centre along d, recording legs and contacts, at most LS_MAX_SLIDES contacts.
static void SlideMove(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 d, double radius, bool withMovers)
{
    lsVec2 normals[LS_MAX_SLIDES];
    int normalCount = 0;
    double tNow = 0.0;
    lsVec2 pos = result->position;
    for (int iteration = 0; iteration <= LS_MAX_SLIDES; ++iteration)
    {
        if (d.x == 0.0 && d.y == 0.0)
        {
            break;
        }
        SweepContext hit = SweepOnce(cw, pos, d, radius, tNow, withMovers);
        if (!hit.hit || iteration == LS_MAX_SLIDES)
        {
            if (!hit.hit)
            {
                pos = lsAdd(pos, d);
            }
            else
            {
                pos = lsMulAdd(pos, hit.t, d);
                result->contacts += 1;
                result->lastNormal = hit.normal;
            }
            if (result->legCount < 6)
            {
                result->legs[result->legCount++] = pos;
            }
            break;
        }
        pos = lsMulAdd(pos, hit.t, d);
        if (result->legCount < 5)
        {
            result->legs[result->legCount++] = pos;
        }
        result->contacts += 1;
        result->lastNormal = hit.normal;
        tNow += (1.0 - tNow) * hit.t;

        // Keep the tangential part of what is left; in a crease (it would push into an earlier contact) stop.
        lsVec2 rest = lsScale(1.0 - hit.t, d);
        double into = lsDot(rest, hit.normal);
        if (into < 0.0)
        {
            rest = lsMulSub(rest, into, hit.normal);
        }
        for (int i = 0; i < normalCount; ++i)
        {
            if (lsDot(rest, normals[i]) < -LS_SLIDE_TOLERANCE * lsLength(rest))
            {
                rest = lsV(0.0, 0.0);
            }
        }
        normals[normalCount++] = hit.normal;
        d = rest;
    }
    result->position = pos;
}

// Moving walls that reached the centre push it out on the side it was on at the start of the step (so a wall
// that swept over the whole circle within one step still pushes it forward, never leaves it behind).
static lsVec2 MoverPush(const lsCollisionWorld* cw, lsVec2 start, lsVec2 end, double radius, int* contacts)
{
    lsVec2 pos = end;
    for (int i = 0; i < cw->moverCount; ++i)
    {
        lsSegment s0 = cw->moversStart[i];
        lsSegment s1 = cw->moversEnd[i];
        lsAABB wallBox = lsAABB_Union(lsAABB_OfSegment(s0.a, s0.b), lsAABB_OfSegment(s1.a, s1.b));
        if (!lsAABB_Overlaps(wallBox, InflatedBox(start, pos, radius + LS_CONTACT_SKIN)))
        {
            continue;
        }
        lsSweepHit hits[2];
        bool crossed = lsSweepPointSegment(s0.a, s1.a, s0.b, s1.b, start, pos, hits) > 0;
        lsClosestPoint cp = lsClosestPointOnSegment(&s1, pos);
        if (!crossed && cp.distance >= radius + 0.5 * LS_CONTACT_SKIN)
        {
            continue;
        }
        int side0 = lsOrient(s0.a, s0.b, start);
        int side1 = lsOrient(s1.a, s1.b, pos);
        lsVec2 n;
        double depth;
        if (!crossed && side1 != 0 && (side1 == side0 || side0 == 0))
        {
            n = lsNormalize(lsSub(pos, cp.point));
            depth = radius + LS_CONTACT_SKIN - cp.distance;
        }
        else
        {
            // The centre is on the wrong side (or on the wall): push across the wall's line to the start side.
            lsVec2 axis = lsNormalize(lsSub(s1.b, s1.a));
            n = lsLeftPerp(axis);
            if (side0 < 0)
            {
                n = lsNeg(n);
            }
            double signedDistance = lsDot(lsSub(pos, s1.a), n);
            depth = radius + LS_CONTACT_SKIN - signedDistance;
            if (axis.x == 0.0 && axis.y == 0.0)
            {
                n = lsNormalize(lsSub(pos, cp.point));
                depth = radius + LS_CONTACT_SKIN - cp.distance;
            }
        }
        if (depth > 0.0)
        {
            pos = lsMulAdd(pos, depth, n);
            *contacts += 1;
        }
    }
    return lsSub(pos, end);
}

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
// result says so.
#define LS_MAX_CONSTRAINTS 48
#define LS_RESOLVE_ITERATIONS 12

typedef struct Constraint
{
    lsVec2 normal;   // unit, from the solid's closest point towards the linearisation point
    double offset;   // the half-plane: dot(normal, x) >= offset (already includes radius + skin)
    double distance; // from the linearisation point to the solid, metres
} Constraint;

// The body being resolved: a circle (points NULL; reach = its radius) or a convex footprint at a fixed angle (reach =
// its farthest point from the centre). clearance is the distance to keep from every solid: radius + skin for a
// circle (measured from the centre), the skin for a footprint (measured from its outline).
typedef struct Body
{
    const lsVec2* points;
    int count;
    double angle;
    double reach;
    double clearance;
} Body;

// Candidate solids for moving a footprint (filled by GatherObstacles).
typedef struct Obstacles
{
    const lsScene* scene;
    lsShapeProxy* items;
    int count, capacity;
    lsShapeProxy local[48]; // no heap use for the usual handful of candidates
} Obstacles;

static double Advance(const Obstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double angle,
                      lsVec2 d, double turn, bool* contact, lsVec2* normal);
static void GatherObstacles(Obstacles* obs, const lsCollisionWorld* cw, lsAABB box, bool withMovers);
static void ReleaseObstacles(Obstacles* obs);
static lsVec2 SlidePolygon(const Obstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos,
                           double* angle, lsVec2 d, double turn, lsMoveResult* result);

// Appends a point to the centre's path (the last leg is overwritten once all six are used).
static void AddLeg(lsMoveResult* result, lsVec2 p)
{
    if (result->legCount < 6)
    {
        result->legs[result->legCount++] = p;
    }
    else
    {
        result->legs[5] = p;
    }
}

static Body CircleBody(double radius) { return (Body){NULL, 0, 0.0, radius, radius + LS_CONTACT_SKIN}; }

static lsShapeProxy FootprintAt(const lsVec2* points, int count, lsVec2 position, double angle)
{
    return lsMakeProxyTransformed(points, count, 0.0, (lsTransform){position, lsMakeRot(angle)});
}

typedef struct GatherContext
{
    const lsScene* scene;
    Body body;
    lsVec2 center; // the linearisation point
    lsVec2 hint;   // the step's motion: a centre lying on a segment is put back on the side it came from
    Constraint items[LS_MAX_CONSTRAINTS];
    int count;
    double worst; // largest clearance - distance over the constraints (> 0: something is too close)
} GatherContext;

static void AddConstraint(GatherContext* ctx, Constraint c)
{
    ctx->worst = fmax(ctx->worst, ctx->body.clearance - c.distance);
    if (ctx->count < LS_MAX_CONSTRAINTS)
    {
        ctx->items[ctx->count++] = c;
        return;
    }
    // Full (a dense clutter of walls): keep the nearest ones.
    int farthest = 0;
    for (int i = 1; i < ctx->count; ++i)
    {
        farthest = ctx->items[i].distance > ctx->items[farthest].distance ? i : farthest;
    }
    if (c.distance < ctx->items[farthest].distance)
    {
        ctx->items[farthest] = c;
    }
}

// A circle's constraint against one segment: beyond the tangent line at the closest point.
static void GatherSegment(void* context, const lsSegment* seg)
{
    GatherContext* ctx = context;
    lsClosestPoint cp = lsClosestPointOnSegment(seg, ctx->center);
    lsVec2 n = AwayFromSegment(seg, ctx->center, ctx->hint);
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
    lsShapeProxy body = FootprintAt(ctx->body.points, ctx->body.count, ctx->center, ctx->body.angle);
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

static bool GatherQuery(void* context, lsHitKind kind, int index, int part)
{
    GatherContext* ctx = context;
    if (ctx->body.points == NULL)
    {
        return ForEachSegment(ctx->scene, kind, index, part, GatherSegment, ctx);
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

// The constraints of every static solid and every moving wall (where it is at the end of the step) within box,
// linearised at center.
static void Gather(GatherContext* ctx, const lsCollisionWorld* cw, lsAABB box, lsVec2 center, lsVec2 hint,
                   const Body* body)
{
    ctx->scene = cw->scene;
    ctx->body = *body;
    ctx->center = center;
    ctx->hint = hint;
    ctx->count = 0;
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

static void TryFreeCandidate(const Cso* csos, int count, lsVec2 start, double limit, lsVec2 x, lsVec2* best,
                             double* bestDistance)
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
    *best = x;
    *bestDistance = dist;
}

// The obstacles (each grown by grow plus the solid's radius) of every solid except circles near box; free with
// lsFree(csos, *capacity * sizeof(Cso)). NULL when more than LS_CSO_MAX_OBSTACLES crowd the box.
static Cso* BuildCsos(const lsCollisionWorld* cw, const Body* body, lsAABB box, double grow, int* count,
                      size_t* capacity)
{
    lsCollisionWorld solids = *cw;
    solids.circleCount = 0;
    Obstacles obs;
    GatherObstacles(&obs, &solids, box, true);
    if (obs.count > LS_CSO_MAX_OBSTACLES)
    {
        ReleaseObstacles(&obs);
        return NULL;
    }
    lsShapeProxy arms = FootprintAt(body->points, body->count, lsV(0.0, 0.0), body->angle);
    *capacity = (size_t)(obs.count > 0 ? obs.count : 1);
    Cso* csos = lsAlloc(*capacity * sizeof(Cso));
    *count = 0;
    bool ok = true;
    for (int i = 0; ok && i < obs.count; ++i)
    {
        ok = MakeCso(&obs.items[i], arms.points, arms.count, obs.items[i].radius + grow, &csos[i]);
    }
    *count = obs.count;
    ReleaseObstacles(&obs);
    if (!ok)
    {
        // An obstacle without area (a footprint of fewer than three points along a wall): no exact answer.
        lsFree(csos, *capacity * sizeof(Cso));
        return NULL;
    }
    return csos;
}

// The free centre nearest to start for a footprint body, within twice its reach; false when there is none or too
// many solids crowd it.
static bool NearestFreeFootprint(const lsCollisionWorld* cw, const Body* body, lsVec2 start, lsVec2* free)
{
    double limit = 2.0 * body->reach;
    int count;
    size_t capacity;
    Cso* csos = BuildCsos(cw, body, InflatedBox(start, start, limit + body->reach + 2.0 * LS_CONTACT_SKIN),
                          LS_CONTACT_SKIN, &count, &capacity);
    if (csos == NULL)
    {
        return false;
    }
    lsVec2 best = start;
    double bestDistance = HUGE_VAL;
    TryFreeCandidate(csos, count, start, limit, start, &best, &bestDistance);
    for (int i = 0; i < count; ++i)
    {
        for (int e = 0; e < csos[i].count; ++e)
        {
            lsSegment edge = {csos[i].vertices[e], csos[i].vertices[e + 1 == csos[i].count ? 0 : e + 1]};
            TryFreeCandidate(csos, count, start, limit, lsClosestPointOnSegment(&edge, start).point, &best,
                             &bestDistance);
            for (int j = i + 1; j < count; ++j)
            {
                for (int f = 0; f < csos[j].count; ++f)
                {
                    lsSegment other = {csos[j].vertices[f], csos[j].vertices[f + 1 == csos[j].count ? 0 : f + 1]};
                    lsVec2 r = lsSub(edge.b, edge.a), q = lsSub(other.b, other.a);
                    double det = lsCross(r, q);
                    if (!(fabs(det) > 0.0))
                    {
                        continue;
                    }
                    lsVec2 w = lsSub(other.a, edge.a);
                    double t = lsCross(w, q) / det, u = lsCross(w, r) / det;
                    if (t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0)
                    {
                        TryFreeCandidate(csos, count, start, limit, lsMulAdd(edge.a, t, r), &best, &bestDistance);
                    }
                }
            }
        }
    }
    lsFree(csos, capacity * sizeof(Cso));
    *free = best;
    return isfinite(bestDistance);
}

// True when a footprint body can move straight from `from` to `to` without entering any solid it does not overlap
// already (Cyrus-Beck clipping of the path against each obstacle). Sliding along a solid it touches is allowed,
// which a sweep by conservative advancement refuses within rounding; false when too many solids crowd the path.
static bool FootprintPathClear(const lsCollisionWorld* cw, const Body* body, lsVec2 from, lsVec2 to)
{
    int count;
    size_t capacity;
    Cso* csos = BuildCsos(cw, body, InflatedBox(from, to, body->reach + 2.0 * LS_CONTACT_SKIN), 0.0, &count, &capacity);
    if (csos == NULL)
    {
        return false;
    }
    lsVec2 d = lsSub(to, from);
    bool clear = true;
    for (int i = 0; clear && i < count; ++i)
    {
        if (InsideCso(&csos[i], from))
        {
            continue; // overlapped at the start: leaving it is the point of the move
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
                hi = fmin(hi, -at / rate);
            }
            else
            {
                lo = fmax(lo, -at / rate);
            }
        }
        clear = !(lo < hi);
    }
    lsFree(csos, capacity * sizeof(Cso));
    return clear;
}

// Where the centre should go from start: the nearest free place (or, crushed, the place of least overlap). Pure
// computation; the caller moves there with a sweep.
static lsVec2 FreePlace(const lsCollisionWorld* cw, lsVec2 start, lsVec2 hint, const Body* body, bool* crushed)
{
    double margin = body->reach + LS_CONTACT_SKIN;
    lsVec2 x = start;
    GatherContext ctx;
    *crushed = false;
    for (int iteration = 0; iteration < LS_RESOLVE_ITERATIONS; ++iteration)
    {
        // Everything that could touch the body anywhere between start and the current answer.
        Gather(&ctx, cw, InflatedBox(start, x, margin), x, hint, body);
        lsVec2 next = x; // written by NearestFeasible when it succeeds
        if (!NearestFeasible(ctx.items, ctx.count, start, &next))
        {
            if (body->points != NULL && NearestFreeFootprint(cw, body, start, &next))
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
            return x;
        }
    }
    if (!*crushed)
    {
        return x; // the last answer is free of what it was linearised against
    }
    // Crushed: relaxed Jacobi averaging of the pushes out of every overlapped solid, which settles where the overlaps
    // balance (the relaxation, 1 / (pushes + 1), keeps a body resting exactly at the skin of one solid from flipping
    // between that one and the other; with two opposite solids the error shrinks threefold per iteration).
    x = start;
    for (int iteration = 0; iteration < 3 * LS_RESOLVE_ITERATIONS; ++iteration)
    {
        Gather(&ctx, cw, InflatedBox(x, x, margin), x, hint, body);
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

// Resolves residual overlap with static solids and moving walls (see FreePlace). Returns true when it moved.
static bool ResolveOverlap(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 stepStart, const Body* body)
{
    lsCollisionWorld frozen = *cw; // moving walls where they are at the end of the step, no circles
    frozen.moversStart = cw->moversEnd;
    frozen.circleCount = 0;
    bool moved = false;
    for (int pass = 0; pass < 3; ++pass)
    {
        lsVec2 pos = result->position;
        GatherContext ctx;
        Gather(&ctx, cw, InflatedBox(pos, pos, body->reach + LS_CONTACT_SKIN), pos, lsSub(pos, stepStart), body);
        // A footprint's pushes above leave it at least a quarter skin from every solid it did not overlap; only
        // closer than that (an overlap) is resolved here, so a body resting against a wall is not nudged each step.
        double allowed = body->points == NULL ? 0.5 * LS_CONTACT_SKIN : 0.75 * LS_CONTACT_SKIN;
        if (ctx.worst <= allowed)
        {
            break;
        }
        bool crushed;
        lsVec2 target = FreePlace(cw, pos, lsSub(pos, stepStart), body, &crushed);
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
            SweepContext sweep = SweepOnce(&frozen, pos, d, 0.0, 0.0, true);
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
                Obstacles obs;
                GatherObstacles(&obs, &frozen, InflatedBox(pos, target, body->reach + 2.0 * LS_CONTACT_SKIN), true);
                double angle = body->angle;
                int contacts = result->contacts;
                lsVec2 end = SlidePolygon(&obs, body->points, body->count, body->reach, pos, &angle, d, 0.0, result);
                ReleaseObstacles(&obs);
                hit = result->contacts > contacts;
                d = lsSub(end, pos);
            }
        }
        result->position = hit ? lsMulAdd(pos, t, d) : target;
        result->contacts += 1;
        result->lastNormal = lsNormalize(d);
        AddLeg(result, result->position);
        moved = true;
        if (!hit || crushed)
        {
            break;
        }
    }
    return moved;
}

lsMoveResult lsMoveCircle(const lsCollisionWorld* cw, lsVec2 start, lsVec2 displacement, double radius)
{
    LS_ASSERT(cw != NULL && radius > 0.0 && lsIsValidVec2(start) && lsIsValidVec2(displacement));
    lsMoveResult result = {0};
    result.position = start;
    result.legs[0] = start;
    result.legCount = 1;
    SlideMove(cw, &result, displacement, radius, true);

    // A moving wall that caught the circle pushes it; the push is itself a swept move against the static world.
    // Other circles do not stop a push (they are bodies that give way, by separation, on the next steps): walls
    // come first, so a body squeezed between a wall and another body ends overlapping the body, not the wall.
    lsVec2 push = MoverPush(cw, start, result.position, radius, &result.contacts);
    if (push.x != 0.0 || push.y != 0.0)
    {
        lsCollisionWorld staticOnly = *cw;
        staticOnly.moverCount = 0;
        staticOnly.circleCount = 0;
        SlideMove(&staticOnly, &result, push, radius, false);
        result.lastNormal = lsNormalize(push);
    }

    // Residual overlap with static walls and moving walls: a multi-constraint projection (see ResolveOverlap).
    // Only solids: pushing out of another circle here could push into a wall.
    Body body = CircleBody(radius);
    ResolveOverlap(cw, &result, start, &body);
    return result;
}

typedef struct ClearanceContext
{
    const lsScene* scene;
    lsVec2 center;
    double best;
} ClearanceContext;

static void ClearanceSegment(void* context, const lsSegment* seg)
{
    ClearanceContext* ctx = context;
    ctx->best = fmin(ctx->best, lsClosestPointOnSegment(seg, ctx->center).distance);
}

static bool ClearanceQuery(void* context, lsHitKind kind, int index, int part)
{
    ClearanceContext* ctx = context;
    return ForEachSegment(ctx->scene, kind, index, part, ClearanceSegment, ctx);
}

double lsCollisionWorld_Clearance(const lsCollisionWorld* cw, lsVec2 center, double radius, double maxDistance)
{
    LS_ASSERT(cw != NULL);
    ClearanceContext ctx = {cw->scene, center, radius + maxDistance};
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, InflatedBox(center, center, radius + maxDistance), ClearanceQuery, &ctx);
    }
    for (int i = 0; i < cw->moverCount; ++i)
    {
        ClearanceSegment(&ctx, &cw->moversEnd[i]);
    }
    double best = ctx.best - radius;
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle)
        {
            best = fmin(best, lsDistance(center, cw->circles[i].center) - radius - cw->circles[i].radius);
        }
    }
    return fmin(best, maxDistance);
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving a convex polygon: conservative advancement with GJK distances

static void AddObstacle(Obstacles* obs, lsShapeProxy proxy)
{
    if (obs->count == obs->capacity)
    {
        int capacity = 2 * obs->capacity;
        lsShapeProxy* items = lsAlloc((size_t)capacity * sizeof(lsShapeProxy));
        memcpy(items, obs->items, (size_t)obs->count * sizeof(lsShapeProxy));
        if (obs->items != obs->local)
        {
            lsFree(obs->items, (size_t)obs->capacity * sizeof(lsShapeProxy));
        }
        obs->items = items;
        obs->capacity = capacity;
    }
    obs->items[obs->count++] = proxy;
}

static bool ObstacleQuery(void* context, lsHitKind kind, int index, int part)
{
    Obstacles* obs = context;
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(obs->scene, index, part);
        AddObstacle(obs, lsProxyFromSegment(&seg));
    }
    else if (kind == ls_hitBox)
    {
        AddObstacle(obs, lsProxyFromBox(lsScene_Box(obs->scene, index)));
    }
    else if (kind == ls_hitPolygon)
    {
        AddObstacle(obs, lsProxyFromPolygon(lsScene_Polygon(obs->scene, index)));
    }
    return true;
}

// Everything a body within reach of box could touch: static candidates from the index, then circles and movers.
static void GatherObstacles(Obstacles* obs, const lsCollisionWorld* cw, lsAABB box, bool withMovers)
{
    obs->scene = cw->scene;
    obs->items = obs->local;
    obs->count = 0;
    obs->capacity = (int)(sizeof obs->local / sizeof obs->local[0]);
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, box, ObstacleQuery, obs);
    }
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle && lsAABB_Overlaps(lsCircle_Bounds(&cw->circles[i]), box))
        {
            AddObstacle(obs, lsProxyFromCircle(&cw->circles[i]));
        }
    }
    for (int i = 0; withMovers && i < cw->moverCount; ++i)
    {
        AddObstacle(obs, lsProxyFromSegment(&cw->moversEnd[i]));
    }
}

static void ReleaseObstacles(Obstacles* obs)
{
    if (obs->items != obs->local)
    {
        lsFree(obs->items, (size_t)obs->capacity * sizeof(lsShapeProxy));
    }
}

// One conservative advancement pass along (d, turn) from (pos, angle); returns the fraction reached in [0, 1] and
// whether it stopped at a contact (with the contact normal pointing away from the obstacle).
static double Advance(const Obstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double angle,
                      lsVec2 d, double turn, bool* contact, lsVec2* normal)
{
    *contact = false;
    double bound = lsLength(d) + fabs(turn) * reach;
    if (bound == 0.0 || obs->count == 0)
    {
        return 1.0;
    }
    // Each obstacle's allowed gap: the skin, or half of the present gap if it is already closer (sliding along it).
    double targets[256];
    int tracked = obs->count < 256 ? obs->count : 256;
    lsShapeProxy body = FootprintAt(points, count, pos, angle);
    for (int i = 0; i < tracked; ++i)
    {
        double dist = lsShapeDistance(&obs->items[i], &body, NULL).distance;
        targets[i] = fmin(LS_CONTACT_SKIN, 0.5 * dist);
    }
    double t = 0.0;
    for (int iteration = 0; iteration < 40; ++iteration)
    {
        body = FootprintAt(points, count, lsMulAdd(pos, t, d), angle + t * turn);
        double gap = HUGE_VAL;
        double advance = HUGE_VAL;
        lsVec2 n = {0.0, 0.0};
        lsVec2 center = lsMulAdd(pos, t, d);
        for (int i = 0; i < obs->count; ++i)
        {
            lsDistanceOutput out = lsShapeDistance(&obs->items[i], &body, NULL);
            // targets[i] was set above for every i < tracked (cppcheck does not follow the guard).
            // cppcheck-suppress uninitvar
            double target = i < tracked ? targets[i] : 0.5 * LS_CONTACT_SKIN;
            if (out.overlap)
            {
                continue; // already overlapping (it started so): left to the residual resolution
            }
            if (out.distance - target < 0.05 * LS_CONTACT_SKIN)
            {
                // At contact: only an obstacle the body's closest point is moving towards stops the motion; one it
                // slides along or leaves does not (velocity of a body point: d + turn x (point - centre)).
                lsVec2 velocity = lsAdd(d, lsScale(turn, lsLeftPerp(lsSub(out.pointB, center))));
                if (lsDot(velocity, out.normal) >= -LS_SLIDE_TOLERANCE * bound)
                {
                    continue;
                }
            }
            // How fast the gap can close: the separating line's argument bounds it by the body's approach along
            // the normal plus what the turn adds at its farthest point. Bounding every obstacle by the whole speed
            // instead made a body sliding along a wall crawl (steps of the tiny gap over the whole motion).
            double rate = fmax(0.0, -lsDot(d, out.normal)) + fabs(turn) * reach;
            if (!(rate > 0.0))
            {
                continue; // moving along it or away: it cannot come closer
            }
            if (out.distance - target < gap)
            {
                gap = out.distance - target;
                n = out.normal;
            }
            advance = fmin(advance, (out.distance - target) / rate);
        }
        if (isinf(gap))
        {
            return 1.0;
        }
        if (gap < 0.05 * LS_CONTACT_SKIN || iteration == 39)
        {
            *contact = true;
            *normal = n;
            return t;
        }
        if (t + advance >= 1.0)
        {
            return 1.0;
        }
        t += advance;
    }
    return t;
}

// Collide and slide for a footprint: conservative advancement along (d, turn) from pos, then along the contact
// tangent for the rest, up to LS_MAX_SLIDES contacts (recorded in result). Returns where it ended; *angle turns.
static lsVec2 SlidePolygon(const Obstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos,
                           double* angle, lsVec2 d, double turn, lsMoveResult* result)
{
    lsVec2 normals[LS_MAX_SLIDES];
    int normalCount = 0;
    for (int pass = 0; pass < LS_MAX_SLIDES; ++pass)
    {
        bool contact;
        lsVec2 n;
        double t = Advance(obs, points, count, reach, pos, *angle, d, turn, &contact, &n);
        pos = lsMulAdd(pos, t, d);
        *angle += t * turn;
        if (!contact)
        {
            break;
        }
        result->contacts += 1;
        result->lastNormal = n;
        AddLeg(result, pos);
        lsVec2 rest = lsScale(1.0 - t, d);
        double into = lsDot(rest, n);
        if (into < 0.0)
        {
            rest = lsMulSub(rest, into, n);
        }
        for (int i = 0; i < normalCount; ++i)
        {
            if (lsDot(rest, normals[i]) < -LS_SLIDE_TOLERANCE * lsLength(rest))
            {
                rest = lsV(0.0, 0.0);
            }
        }
        normals[normalCount++] = n;
        // A turn that ran into something is given up after the first try: sliding keeps the translation only.
        turn = pass == 0 ? (1.0 - t) * turn : 0.0;
        d = rest;
    }
    return pos;
}

lsMoveResult lsMovePolygon(const lsCollisionWorld* cw, const lsVec2* points, int count, lsVec2 start, double angle,
                           lsVec2 displacement, double turn, double* newAngle)
{
    LS_ASSERT(cw != NULL && points != NULL && count >= 1 && count <= LS_MAX_POLYGON_VERTICES);
    LS_ASSERT(lsIsValidVec2(start) && lsIsValidVec2(displacement) && isfinite(turn) && newAngle != NULL);
    double reach = 0.0;
    for (int i = 0; i < count; ++i)
    {
        reach = fmax(reach, lsLength(points[i]));
    }
    lsMoveResult result = {0};
    result.legs[0] = start;
    result.legCount = 1;

    Obstacles obs;
    GatherObstacles(&obs, cw, InflatedBox(start, lsAdd(start, displacement), reach + 2.0 * LS_CONTACT_SKIN), true);
    double finalAngle = angle;
    lsVec2 pos = SlidePolygon(&obs, points, count, reach, start, &finalAngle, displacement, turn, &result);
    angle = finalAngle;
    ReleaseObstacles(&obs);

    // Residual overlap (a moving wall or vehicle that came into the body, or rounding): EPA's minimum translation
    // vector, applied as a swept move against the static world so the push never crosses a wall.
    for (int pass = 0; pass < 3; ++pass)
    {
        GatherObstacles(&obs, cw, InflatedBox(pos, pos, reach + 2.0 * LS_CONTACT_SKIN), true);
        lsShapeProxy shape = FootprintAt(points, count, pos, angle);
        lsVec2 push = {0.0, 0.0};
        for (int i = 0; i < obs.count; ++i)
        {
            // The obstacle is A and the body B, so normals point from the obstacle to the body.
            lsDistanceOutput out = lsShapeDistance(&obs.items[i], &shape, NULL);
            if (out.overlap)
            {
                lsPenetration pen = lsShapePenetration(&obs.items[i], &shape);
                push = lsMulAdd(push, pen.depth + LS_CONTACT_SKIN, pen.normal);
            }
            else if (out.distance < 0.25 * LS_CONTACT_SKIN)
            {
                push = lsMulAdd(push, LS_CONTACT_SKIN - out.distance, out.normal);
            }
        }
        ReleaseObstacles(&obs);
        if (push.x == 0.0 && push.y == 0.0)
        {
            break;
        }
        result.contacts += 1;
        result.lastNormal = lsNormalize(push);
        lsCollisionWorld staticOnly = *cw;
        staticOnly.moverCount = 0;
        staticOnly.circleCount = 0;
        GatherObstacles(&obs, &staticOnly, InflatedBox(pos, lsAdd(pos, push), reach + 2.0 * LS_CONTACT_SKIN), false);
        bool contact;
        lsVec2 n;
        double t = Advance(&obs, points, count, reach, pos, angle, push, 0.0, &contact, &n);
        ReleaseObstacles(&obs);
        pos = lsMulAdd(pos, t, push);
    }
    // Those pushes, each out of one solid alone, can push into the next one: a door closing onto a body standing in
    // its doorway pushed it into the wall's end, step after step. What overlap is left is resolved against all the
    // solids at once, as for a circle: the nearest free place (ResolveOverlap), reached by a swept move.
    result.position = pos;
    Body body = {points, count, angle, reach, LS_CONTACT_SKIN};
    ResolveOverlap(cw, &result, start, &body);
    pos = result.position;
    result.position = pos;
    AddLeg(&result, pos);
    *newAngle = lsWrapAngle(angle);
    return result;
}

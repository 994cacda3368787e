// Invariants of a running simulation (see invariants.h): finiteness of every state, no robot overlap with solids,
// vehicles inside the world.
#include "core/invariants.h"

#include "core/distance.h"

#include <math.h>
#include <stdlib.h>

// Fails with the name of the first non-finite field of the robot's state.
static bool CheckRobotFinite(const lsRobotState* robot, lsError* err)
{
    if (!lsIsValidVec2(robot->position))
    {
        return lsFail(err, "robot position is not finite (%g, %g)", robot->position.x, robot->position.y);
    }
    const double scalars[] = {robot->angle, robot->v, robot->w, robot->commandV, robot->commandW, robot->radius};
    const char* names[] = {"angle", "v", "w", "commandV", "commandW", "radius"};
    for (int i = 0; i < (int)(sizeof scalars / sizeof scalars[0]); ++i)
    {
        if (!isfinite(scalars[i]))
        {
            return lsFail(err, "robot %s is not finite (%g)", names[i], scalars[i]);
        }
    }
    for (int i = 0; i < robot->footprintCount; ++i)
    {
        if (!lsIsValidVec2(robot->footprint[i]))
        {
            return lsFail(err, "robot footprint point %d is not finite", i);
        }
    }
    return true;
}

static bool CheckStateFinite(const lsSim* sim, const lsSimState* state, lsError* err)
{
    if (!isfinite(state->time) || !isfinite(state->score) || !isfinite(state->distance))
    {
        return lsFail(err, "time, score or distance is not finite (%g, %g, %g)", state->time, state->score,
                      state->distance);
    }
    for (int i = 0; i < state->robotCount; ++i)
    {
        if (!CheckRobotFinite(state->robots + i, err))
        {
            return false;
        }
    }
    for (int i = 0; i < state->targetCount; ++i)
    {
        const lsTargetState* t = state->targets + i;
        if (!lsIsValidVec2(t->center) || !isfinite(t->radius))
        {
            return lsFail(err, "target %d is not finite", i);
        }
    }
    for (int i = 0; i < state->vehicleCount; ++i)
    {
        const lsVehicleState* v = state->vehicles + i;
        if (!lsIsValidVec2(v->position) || !lsIsValidVec2(v->velocity) || !isfinite(v->radius))
        {
            return lsFail(err, "vehicle %d position or velocity is not finite (%g, %g) (%g, %g)", i, v->position.x,
                          v->position.y, v->velocity.x, v->velocity.y);
        }
        if (!lsIsValidVec2(v->predicted) || !lsIsValidVec2(v->normalPoint) || !lsIsValidVec2(v->target))
        {
            return lsFail(err, "vehicle %d path-following points are not finite", i);
        }
    }
    for (int i = 0; i < state->moverCount; ++i)
    {
        if (!lsIsValidVec2(state->movers[i].a) || !lsIsValidVec2(state->movers[i].b))
        {
            return lsFail(err, "moving wall %d is not finite", i);
        }
    }
    // INFINITY is the scan's "no return"; only NaN is a broken range.
    const lsScan* scan = lsSim_GetScan(sim);
    for (int i = 0; scan != NULL && i < scan->count; ++i)
    {
        if (isnan(scan->ranges[i]) || isnan(scan->intensities[i]) || !lsIsValidVec2(scan->points[i]))
        {
            return lsFail(err, "scan beam %d is NaN (range %g)", i, scan->ranges[i]);
        }
    }
    return true;
}

// The robot as a GJK proxy: its polygon footprint (world frame) or its disc.
static lsShapeProxy RobotProxy(const lsRobotState* robot)
{
    if (robot->footprintCount > 0)
    {
        return lsMakeProxy(robot->footprint, robot->footprintCount, 0.0);
    }
    return lsMakeProxy(&robot->position, 1, robot->radius);
}

// Penetration of the robot into one solid, metres (0 when apart or just touching).
static double Penetration(const lsShapeProxy* robot, const lsShapeProxy* solid)
{
    lsDistanceOutput d = lsShapeDistance(robot, solid, NULL);
    if (!d.overlap)
    {
        return 0.0;
    }
    return lsShapePenetration(robot, solid).depth;
}

typedef struct OverlapQuery
{
    const lsScene* scene;
    lsShapeProxy robot;
    double depth; // deepest penetration found, metres
    lsHitKind kind;
    int index, part;
} OverlapQuery;

static bool OverlapCallback(void* context, lsHitKind kind, int index, int part)
{
    OverlapQuery* q = context;
    lsShapeProxy solid;
    switch (kind)
    {
    case ls_hitWall:
    {
        lsSegment s = lsScene_WallSegment(q->scene, index, part);
        solid = lsProxyFromSegment(&s);
        break;
    }
    case ls_hitBox:
        solid = lsProxyFromBox(lsScene_Box(q->scene, index));
        break;
    case ls_hitPolygon:
        solid = lsProxyFromPolygon(lsScene_Polygon(q->scene, index));
        break;
    default:
        return true; // targets are collected, not solid
    }
    double depth = Penetration(&q->robot, &solid);
    if (depth > q->depth)
    {
        q->depth = depth;
        q->kind = kind;
        q->index = index;
        q->part = part;
    }
    return true;
}

static lsAABB ProxyBounds(const lsShapeProxy* proxy)
{
    lsAABB box = {proxy->points[0], proxy->points[0]};
    for (int i = 1; i < proxy->count; ++i)
    {
        box.lower = lsMin(box.lower, proxy->points[i]);
        box.upper = lsMax(box.upper, proxy->points[i]);
    }
    lsVec2 r = lsV(proxy->radius, proxy->radius);
    return (lsAABB){lsSub(box.lower, r), lsAdd(box.upper, r)};
}

static bool CheckRobotOverlap(const lsSim* sim, const lsSimState* state, const lsRobotState* robot, lsError* err)
{
    OverlapQuery q = {lsSim_GetScene(sim), RobotProxy(robot), 0.0, ls_hitNone, -1, -1};
    lsScene_QueryAABB(q.scene, ProxyBounds(&q.robot), OverlapCallback, &q);
    for (int i = 0; i < state->moverCount; ++i)
    {
        lsShapeProxy solid = lsProxyFromSegment(state->movers + i);
        double depth = Penetration(&q.robot, &solid);
        if (depth > q.depth)
        {
            q.depth = depth;
            q.kind = ls_hitMover;
            q.index = i;
            q.part = 0;
        }
    }
    if (q.depth > LS_INVARIANT_OVERLAP_TOLERANCE)
    {
        return lsFail(err, "robot %d at (%.9g, %.9g) overlaps %s %d (part %d) by %.3g m", (int)(robot - state->robots),
                      robot->position.x, robot->position.y, lsHitKindName(q.kind), q.index, q.part, q.depth);
    }
    return true;
}

static int CompareLeft(const void* a, const void* b)
{
    const lsRobotState *x = *(const lsRobotState*const*)a, *y = *(const lsRobotState*const*)b;
    double lx = x->position.x - x->radius, ly = y->position.x - y->radius;
    return (lx > ly) - (lx < ly);
}

// No two robots' footprints may overlap by more than the tolerance. Sort and sweep along x on the bounding circles,
// so a thousand robots cost a few thousand tests; GJK/EPA decides when a polygon footprint is involved.
static bool CheckRobotsApart(const lsSimState* state, lsError* err)
{
    int n = state->robotCount;
    if (n < 2)
    {
        return true;
    }
    const lsRobotState** order = lsAlloc((size_t)n * sizeof(const lsRobotState*));
    for (int i = 0; i < n; ++i)
    {
        order[i] = state->robots + i;
    }
    qsort(order, (size_t)n, sizeof(const lsRobotState*), CompareLeft);
    bool ok = true;
    for (int i = 0; i < n && ok; ++i)
    {
        const lsRobotState* a = order[i];
        for (int j = i + 1; j < n && order[j]->position.x - order[j]->radius <= a->position.x + a->radius; ++j)
        {
            const lsRobotState* b = order[j];
            double depth = a->radius + b->radius - lsDistance(a->position, b->position);
            if (depth > LS_INVARIANT_OVERLAP_TOLERANCE && (a->footprintCount > 0 || b->footprintCount > 0))
            {
                lsShapeProxy pa = RobotProxy(a), pb = RobotProxy(b);
                depth = Penetration(&pa, &pb);
            }
            if (depth > LS_INVARIANT_OVERLAP_TOLERANCE)
            {
                ok = lsFail(err, "robots %d and %d overlap by %.3g m", (int)(a - state->robots),
                            (int)(b - state->robots), depth);
                break;
            }
        }
    }
    lsFree(order, (size_t)n * sizeof(const lsRobotState*));
    return ok;
}

static bool CheckVehiclesInside(const lsSim* sim, const lsSimState* state, lsError* err)
{
    if (state->vehicleCount == 0)
    {
        return true;
    }
    const lsWorld* world = lsSim_GetWorld(sim);
    lsAABB bounds = lsWorld_Bounds(world);
    for (int i = 0; i < state->vehicleCount; ++i)
    {
        const lsVehicleState* v = state->vehicles + i;
        double margin = v->radius;
        if (v->path >= 0 && v->path < world->pathCount)
        {
            margin += world->paths[v->path].radius;
        }
        lsVec2 p = v->position;
        if (p.x < bounds.lower.x - margin || p.x > bounds.upper.x + margin || p.y < bounds.lower.y - margin ||
            p.y > bounds.upper.y + margin)
        {
            return lsFail(err, "vehicle %d at (%.9g, %.9g) left the world's bounds [%g, %g] x [%g, %g] (margin %g m)",
                          i, p.x, p.y, bounds.lower.x, bounds.upper.x, bounds.lower.y, bounds.upper.y, margin);
        }
    }
    return true;
}

bool lsSim_CheckInvariants(const lsSim* sim, lsError* err)
{
    LS_ASSERT(sim != NULL);
    const lsSimState* state = lsSim_GetState(sim);
    if (!CheckStateFinite(sim, state, err))
    {
        return false;
    }
    for (int i = 0; i < state->robotCount; ++i)
    {
        if (!CheckRobotOverlap(sim, state, state->robots + i, err))
        {
            return false;
        }
    }
    return CheckRobotsApart(state, err) && CheckVehiclesInside(sim, state, err);
}

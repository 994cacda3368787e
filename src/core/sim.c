// lidarsim core: the simulation step. Order within one step of dt (from time t0 to t1 = t0 + dt):
// 1. moving walls go from their segments at t0 to those at t1 (pure functions of time);
// 2. vehicles steer (path following + separation), then move with continuous collision, one after another;
// 3. the robot's command is chosen (manual, action or autopilot), its speeds approach it within the limits, and it
//    moves along the exact arc's chord with continuous collision (walls, shapes, moving walls, vehicles);
// 4. targets swept by moving walls are pushed; targets the robot touched on its way are collected (and respawn);
// 5. the lidar scans when its period has elapsed (counted in steps, so the schedule has no rounding drift).
// Nothing here reads the clock or calls rand(): same world, seed and controls give bit-identical states.
#include "lidarsim/sim.h"
#include "core/autopilot.h"
#include "core/robot.h"
#include "core/sweep.h"
#include "core/vehicle.h"

#include "core/distance.h"

#include <stdlib.h>
#include <string.h>

struct lsSim
{
    const lsWorld* world;
    lsScene* scene;
    lsScan* scan;
    lsLidarDef lidar; ///< the world's lidar with the beam count in use
    lsRng rng;        ///< respawn places
    lsRng lidarRng;   ///< lidar noise
    uint64_t seed;
    lsPathFollowDef pathTuning;
    lsAutopilot autopilot;
    lsSimState state;
    lsTargetState* targets;
    lsVehicleState* vehicles;
    lsCircle* circles;         ///< vehicleCount + 1: the vehicles' bodies, then the robot's bounding circle
    lsSegment* movers;         ///< at state.time
    lsSegment* moversPrevious; ///< scratch: at the start of the step
    lsVec2 footprintLocal[LS_MAX_POLYGON_VERTICES];
    int footprintCount;
    double boundingRadius; ///< robot: radius, or the largest |vertex| of the polygon footprint
    double targetMaxRadius;
    bool autopilotFresh; ///< the autopilot has seen the latest scan
    bool wasInContact;
};

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

static lsTransform RobotTransform(const lsRobotState* robot)
{
    return (lsTransform){robot->position, lsMakeRot(robot->angle)};
}

static void UpdateFootprint(lsSim* sim)
{
    lsRobotState* robot = &sim->state.robot;
    robot->footprintCount = sim->footprintCount;
    lsTransform xf = RobotTransform(robot);
    for (int i = 0; i < sim->footprintCount; ++i)
    {
        robot->footprint[i] = lsTransformPoint(xf, sim->footprintLocal[i]);
    }
}

static lsDynamicObjects DynamicObjects(const lsSim* sim)
{
    return (lsDynamicObjects){.vehicles = sim->circles,
                              .vehicleCount = sim->state.vehicleCount,
                              .movers = sim->movers,
                              .moverCount = sim->state.moverCount,
                              .skipRobot = -1};
}

static void TakeScan(lsSim* sim)
{
    lsDynamicObjects dyn = DynamicObjects(sim);
    lsTransform sensor = lsLidar_SensorPose(&sim->lidar, RobotTransform(&sim->state.robot));
    lsLidar_Scan(sim->scene, &dyn, &sim->lidar, sensor, &sim->lidarRng, sim->scan);
    sim->state.scanned = true;
    sim->autopilotFresh = false;
}

// Index of the lidar period that holds step k: a new scan is due when it changes. The first scan is at step 0.
// The small bias keeps a period that is a whole number of steps (0.1 s at 1/60 s) from slipping a step by rounding.
static long long ScanSlot(const lsSim* sim, long long step)
{
    return (long long)floor((double)step * sim->state.dt * sim->lidar.rate + 1e-9);
}

// ---------------------------------------------------------------------------------------------------------------------
// Targets

typedef struct FreeContext
{
    const lsScene* scene;
    lsCircle circle;
    int self;
    bool blocked;
} FreeContext;

static bool FreeQuery(void* context, lsHitKind kind, int index, int part)
{
    FreeContext* ctx = context;
    const lsScene* scene = ctx->scene;
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(scene, index, part);
        ctx->blocked = lsSegmentOverlapsCircle(&seg, &ctx->circle);
    }
    else if (kind == ls_hitTarget)
    {
        bool active;
        lsCircle other = lsScene_Target(scene, index, &active);
        ctx->blocked = index != ctx->self && active &&
                       lsDistance(other.center, ctx->circle.center) <= other.radius + ctx->circle.radius;
    }
    else if (kind == ls_hitBox || kind == ls_hitPolygon)
    {
        lsShapeProxy a = lsProxyFromCircle(&ctx->circle);
        lsShapeProxy b = kind == ls_hitBox ? lsProxyFromBox(lsScene_Box(scene, index))
                                           : lsProxyFromPolygon(lsScene_Polygon(scene, index));
        ctx->blocked = lsShapesOverlap(&a, &b);
    }
    return !ctx->blocked;
}

// True when a disc at center with radius (plus a margin) touches nothing: static geometry, other active targets,
// moving walls now, vehicles, the robot.
static bool IsFree(const lsSim* sim, lsVec2 center, double radius, int self)
{
    double margin = 0.05 * radius;
    FreeContext ctx = {sim->scene, {center, radius + margin}, self, false};
    lsAABB box = lsCircle_Bounds(&ctx.circle);
    lsScene_QueryAABB(sim->scene, box, FreeQuery, &ctx);
    if (ctx.blocked)
    {
        return false;
    }
    for (int i = 0; i < sim->state.moverCount; ++i)
    {
        if (lsSegmentOverlapsCircle(&sim->movers[i], &ctx.circle))
        {
            return false;
        }
    }
    for (int i = 0; i <= sim->state.vehicleCount; ++i)
    {
        if (lsDistance(sim->circles[i].center, center) <= sim->circles[i].radius + ctx.circle.radius)
        {
            return false;
        }
    }
    return true;
}

// A collected target reappears at a random free place of the world's bounds (at most 200 tries); if none is
// found it stays collected. Drawn from the sim's own generator, so respawns are reproducible.
static void Respawn(lsSim* sim, int index)
{
    lsTargetState* target = &sim->targets[index];
    lsAABB bounds = lsWorld_Bounds(sim->world);
    for (int attempt = 0; attempt < 200; ++attempt)
    {
        lsVec2 p = lsV(lsRng_Range(&sim->rng, bounds.lower.x + target->radius, bounds.upper.x - target->radius),
                       lsRng_Range(&sim->rng, bounds.lower.y + target->radius, bounds.upper.y - target->radius));
        if (IsFree(sim, p, target->radius, index))
        {
            target->center = p;
            target->active = true;
            lsScene_SetTarget(sim->scene, index, p, true);
            return;
        }
    }
}

static void Collect(lsSim* sim, int index)
{
    lsTargetState* target = &sim->targets[index];
    target->active = false;
    lsScene_SetTarget(sim->scene, index, target->center, false);
    if (target->kind == ls_food)
    {
        sim->state.food += 1;
        sim->state.score += sim->world->sim.foodReward;
    }
    else
    {
        sim->state.poison += 1;
        sim->state.score += sim->world->sim.poisonReward;
    }
}

typedef struct TouchContext
{
    const lsScene* scene;
    lsVec2 a, b;            ///< one leg of the robot's centre path
    double radius;          ///< robot radius
    lsShapeProxy footprint; ///< polygon footprint at the end of the step (count 0: circle)
    int* touched;
    int touchedCount, touchedCapacity;
} TouchContext;

static bool TouchQuery(void* context, lsHitKind kind, int index, int part)
{
    (void)part;
    TouchContext* ctx = context;
    if (kind != ls_hitTarget)
    {
        return true;
    }
    bool active;
    lsCircle c = lsScene_Target(ctx->scene, index, &active);
    bool touch = false;
    if (ctx->footprint.count > 0)
    {
        lsShapeProxy t = lsProxyFromCircle(&c);
        touch = lsShapesOverlap(&ctx->footprint, &t);
    }
    else
    {
        lsSegment point = {c.center, c.center};
        double t;
        touch = lsTimeOfImpactCircleSegment(ctx->a, ctx->b, ctx->radius + c.radius, &point, &t);
    }
    if (active && touch && ctx->touchedCount < ctx->touchedCapacity)
    {
        ctx->touched[ctx->touchedCount++] = index;
    }
    return true;
}

static int CompareInts(const void* a, const void* b)
{
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

// Targets the robot touched along its path this step (by index, each once), collected in index order.
static void CollectTouched(lsSim* sim, const lsVec2* legs, int legCount, double oldAngle)
{
    if (sim->state.targetCount == 0)
    {
        return;
    }
    int touched[64];
    TouchContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = sim->scene;
    ctx.a = ctx.b = legs[0];
    ctx.radius = sim->state.robot.radius;
    ctx.touched = touched;
    ctx.touchedCapacity = 64;
    if (sim->footprintCount > 0)
    {
        // Each leg sweeps the footprint: the convex hull of the footprint at both ends of the leg (exact for the
        // translation; the turn is taken at the leg's ends). The first leg starts at the old heading.
        int n = sim->footprintCount;
        for (int k = 0; k + 1 < legCount || (legCount == 1 && k == 0); ++k)
        {
            lsVec2 points[2 * LS_MAX_POLYGON_VERTICES];
            lsTransform from = {legs[k], lsMakeRot(k == 0 ? oldAngle : sim->state.robot.angle)};
            lsTransform to = {legs[legCount == 1 ? 0 : k + 1], lsMakeRot(sim->state.robot.angle)};
            lsAABB box = {legs[k], legs[k]};
            for (int i = 0; i < n; ++i)
            {
                points[i] = lsTransformPoint(from, sim->footprintLocal[i]);
                points[n + i] = lsTransformPoint(to, sim->footprintLocal[i]);
                box.lower = lsMin(box.lower, lsMin(points[i], points[n + i]));
                box.upper = lsMax(box.upper, lsMax(points[i], points[n + i]));
            }
            // A proxy holds at most LS_MAX_POLYGON_VERTICES points: a large footprint is checked at the leg's end.
            ctx.footprint =
                2 * n <= LS_MAX_POLYGON_VERTICES ? lsMakeProxy(points, 2 * n, 0.0) : lsMakeProxy(points + n, n, 0.0);
            lsScene_QueryAABB(sim->scene, box, TouchQuery, &ctx);
        }
    }
    else
    {
        for (int k = 0; k + 1 < legCount || (legCount == 1 && k == 0); ++k)
        {
            ctx.a = legs[k];
            ctx.b = legs[legCount == 1 ? 0 : k + 1];
            lsAABB box = lsAABB_OfSegment(ctx.a, ctx.b);
            double m = ctx.radius;
            box.lower = lsSub(box.lower, lsV(m, m));
            box.upper = lsAdd(box.upper, lsV(m, m));
            lsScene_QueryAABB(sim->scene, box, TouchQuery, &ctx);
        }
    }
    qsort(touched, (size_t)ctx.touchedCount, sizeof(int), CompareInts);
    int previous = -1;
    for (int i = 0; i < ctx.touchedCount; ++i)
    {
        if (touched[i] != previous && sim->targets[touched[i]].active)
        {
            Collect(sim, touched[i]);
        }
        previous = touched[i];
    }
    // Respawn after all collections, so a respawned target is not collected in the same step.
    for (int i = 0; i < ctx.touchedCount; ++i)
    {
        if (sim->world->sim.respawn && !sim->targets[touched[i]].active)
        {
            Respawn(sim, touched[i]);
        }
    }
}

// A moving wall whose segment swept over a target's centre this step (exact moving-point/moving-segment sweep)
// pushes the target: it is put just in front of the wall, on the side it came from.
static void PushTargets(lsSim* sim)
{
    for (int m = 0; m < sim->state.moverCount; ++m)
    {
        lsSegment s0 = sim->moversPrevious[m];
        lsSegment s1 = sim->movers[m];
        // Endpoints move linearly over the step, so the wall stays inside the box of its two positions.
        lsAABB wallBox = lsAABB_Union(lsAABB_OfSegment(s0.a, s0.b), lsAABB_OfSegment(s1.a, s1.b));
        for (int i = 0; i < sim->state.targetCount; ++i)
        {
            lsTargetState* target = &sim->targets[i];
            if (!target->active || !lsAABB_Contains(wallBox, target->center))
            {
                continue;
            }
            lsSweepHit hits[2];
            if (lsSweepPointSegment(s0.a, s1.a, s0.b, s1.b, target->center, target->center, hits) == 0)
            {
                continue;
            }
            int side = lsOrient(s0.a, s0.b, target->center);
            lsVec2 n = lsNormalize(lsLeftPerp(lsSub(s1.b, s1.a)));
            if (side < 0 || (side == 0 && lsDot(n, lsSub(lsLerp(s1.a, s1.b, 0.5), lsLerp(s0.a, s0.b, 0.5))) < 0.0))
            {
                n = lsNeg(n);
            }
            lsClosestPoint cp = lsClosestPointOnSegment(&s1, target->center);
            target->center = lsMulAdd(cp.point, target->radius + LS_CONTACT_SKIN, n);
            lsScene_SetTarget(sim->scene, i, target->center, true);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Vehicles

// Separation (Reynolds): steer away from neighbours closer than twice the sum of the radii, weighted by 1/distance.
static lsVec2 SeparationForce(const lsSim* sim, int self, const lsVehicleDef* def)
{
    const lsVehicleState* v = &sim->vehicles[self];
    lsVec2 sum = {0.0, 0.0};
    int count = 0;
    for (int j = 0; j <= sim->state.vehicleCount; ++j)
    {
        if (j == self)
        {
            continue;
        }
        lsCircle other = sim->circles[j];
        lsVec2 away = lsSub(v->position, other.center);
        double d = lsLength(away);
        if (d > 0.0 && d < 2.0 * (def->radius + other.radius))
        {
            sum = lsMulAdd(sum, 1.0 / (d * d), away);
            count += 1;
        }
    }
    if (count == 0)
    {
        return lsV(0.0, 0.0);
    }
    lsVec2 desired = lsScale(def->maxSpeed, lsNormalize(sum));
    lsVec2 steer = lsScale(1.0 / sim->pathTuning.responseTime, lsSub(desired, v->velocity));
    double len = lsLength(steer);
    return len > def->maxForce ? lsScale(def->maxForce / len, steer) : steer;
}

static void StepVehicles(lsSim* sim)
{
    const lsWorld* world = sim->world;
    double dt = sim->state.dt;
    lsCollisionWorld cw = {sim->scene,   sim->moversPrevious,         sim->movers, sim->state.moverCount,
                           sim->circles, sim->state.vehicleCount + 1, -1};
    for (int i = 0; i < sim->state.vehicleCount; ++i)
    {
        const lsVehicleDef* def = &world->vehicles[i];
        lsVehicleState* v = &sim->vehicles[i];
        lsVec2 force = lsVehicle_PathForce(&world->paths[def->path], def, &sim->pathTuning, v);
        force = lsMulAdd(force, 1.5, SeparationForce(sim, i, def));
        double len = lsLength(force);
        if (len > def->maxForce)
        {
            force = lsScale(def->maxForce / len, force);
        }
        v->velocity = lsMulAdd(v->velocity, dt, force);
        double speed = lsLength(v->velocity);
        if (speed > def->maxSpeed)
        {
            v->velocity = lsScale(def->maxSpeed / speed, v->velocity);
        }
        cw.skipCircle = i;
        lsMoveResult moved = lsMoveCircle(&cw, v->position, lsScale(dt, v->velocity), def->radius);
        if (moved.contacts > 0)
        {
            // Lose the velocity into the obstacle, keep the tangential part (it slides along).
            double into = lsDot(v->velocity, moved.lastNormal);
            if (into < 0.0)
            {
                v->velocity = lsMulSub(v->velocity, into, moved.lastNormal);
            }
        }
        v->position = moved.position;
        sim->circles[i].center = moved.position;
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// The robot

static void StepRobot(lsSim* sim, const lsControl* control)
{
    const lsRobotDef* def = &sim->world->robot;
    lsRobotState* robot = &sim->state.robot;
    double dt = sim->state.dt;

    double cv = 0.0, cw = 0.0;
    lsControl chosen = control != NULL ? *control : lsMakeManualControl(0.0, 0.0);
    if (chosen.mode == ls_controlAutopilot)
    {
        chosen = lsSim_AutopilotControl(sim);
    }
    if (chosen.mode == ls_controlAction)
    {
        lsAction_Command(chosen.action, def, &cv, &cw);
    }
    else
    {
        LS_ASSERT(isfinite(chosen.v) && isfinite(chosen.w));
        cv = chosen.v;
        cw = chosen.w;
    }
    robot->commandV = fmin(fmax(cv, -def->maxSpeed), def->maxSpeed);
    robot->commandW = fmin(fmax(cw, -def->maxTurnRate), def->maxTurnRate);
    robot->v = lsApproachSpeed(robot->v, cv, def->maxSpeed, def->maxAccel, dt);
    robot->w = lsApproachSpeed(robot->w, cw, def->maxTurnRate, def->maxTurnAccel, dt);

    lsVec2 target;
    double newAngle;
    lsIntegrateUnicycle(robot->position, robot->angle, robot->v, robot->w, dt, &target, &newAngle);
    lsVec2 start = robot->position;
    lsVec2 wanted = lsSub(target, start);

    lsCollisionWorld world = {sim->scene,   sim->moversPrevious,     sim->movers, sim->state.moverCount,
                              sim->circles, sim->state.vehicleCount, -1};
    lsMoveResult moved;
    if (sim->footprintCount > 0)
    {
        moved = lsMovePolygon(&world, sim->footprintLocal, sim->footprintCount, start, robot->angle, wanted,
                              lsWrapAngle(newAngle - robot->angle), &newAngle);
    }
    else
    {
        moved = lsMoveCircle(&world, start, wanted, robot->radius);
    }
    robot->position = moved.position;
    double oldAngle = robot->angle;
    robot->angle = newAngle;
    for (int k = 0; k + 1 < moved.legCount; ++k)
    {
        sim->state.distance += lsDistance(moved.legs[k], moved.legs[k + 1]);
    }
    robot->inContact = moved.contacts > 0;
    sim->state.crushes += moved.crushed ? 1 : 0;
    if (robot->inContact)
    {
        if (!sim->wasInContact)
        {
            sim->state.collisions += 1;
        }
    }
    sim->wasInContact = robot->inContact;
    UpdateFootprint(sim);
    sim->circles[sim->state.vehicleCount] = (lsCircle){robot->position, sim->boundingRadius};
    CollectTouched(sim, moved.legs, moved.legCount, oldAngle);
}

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle

lsSim* lsCreateSim(const lsWorld* world)
{
    LS_ASSERT(world != NULL);
    LS_ASSERT(world->sim.dt > 0.0 && world->robot.lidar.rate > 0.0);
    lsSim* sim = lsAllocZero(1, sizeof(lsSim));
    sim->world = world;
    sim->scene = lsCreateScene(world);
    sim->lidar = world->robot.lidar;
    sim->scan = lsCreateScan(sim->lidar.beams);
    sim->pathTuning = lsDefaultPathFollowDef();
    int targetCount = world->targetCount, vehicleCount = world->vehicleCount, moverCount = world->moverCount;
    sim->targets = lsAllocZero((size_t)(targetCount > 0 ? targetCount : 1), sizeof(lsTargetState));
    sim->vehicles = lsAllocZero((size_t)(vehicleCount > 0 ? vehicleCount : 1), sizeof(lsVehicleState));
    sim->circles = lsAllocZero((size_t)vehicleCount + 1, sizeof(lsCircle));
    sim->movers = lsAllocZero((size_t)(moverCount > 0 ? moverCount : 1), sizeof(lsSegment));
    sim->moversPrevious = lsAllocZero((size_t)(moverCount > 0 ? moverCount : 1), sizeof(lsSegment));
    sim->state.targetCount = targetCount;
    sim->state.vehicleCount = vehicleCount;
    sim->state.moverCount = moverCount;
    sim->state.targets = sim->targets;
    sim->state.vehicles = sim->vehicles;
    sim->state.movers = sim->movers;
    sim->footprintCount = world->robot.footprintCount;
    sim->boundingRadius = world->robot.radius;
    if (sim->footprintCount > 0)
    {
        sim->boundingRadius = 0.0;
        for (int i = 0; i < sim->footprintCount; ++i)
        {
            sim->footprintLocal[i] = world->robot.footprint[i];
            sim->boundingRadius = fmax(sim->boundingRadius, lsLength(world->robot.footprint[i]));
        }
    }
    for (int i = 0; i < targetCount; ++i)
    {
        sim->targetMaxRadius = fmax(sim->targetMaxRadius, world->targets[i].radius);
    }
    lsSim_Reset(sim, world->sim.seed);
    return sim;
}

void lsDestroySim(lsSim* sim)
{
    if (sim == NULL)
    {
        return;
    }
    const lsWorld* world = sim->world;
    size_t targets = (size_t)(world->targetCount > 0 ? world->targetCount : 1);
    size_t vehicles = (size_t)(world->vehicleCount > 0 ? world->vehicleCount : 1);
    size_t movers = (size_t)(world->moverCount > 0 ? world->moverCount : 1);
    lsFree(sim->targets, targets * sizeof(lsTargetState));
    lsFree(sim->vehicles, vehicles * sizeof(lsVehicleState));
    lsFree(sim->circles, ((size_t)world->vehicleCount + 1) * sizeof(lsCircle));
    lsFree(sim->movers, movers * sizeof(lsSegment));
    lsFree(sim->moversPrevious, movers * sizeof(lsSegment));
    lsDestroyScan(sim->scan);
    lsDestroyScene(sim->scene);
    lsFree(sim, sizeof(lsSim));
}

void lsSim_Reset(lsSim* sim, uint64_t seed)
{
    LS_ASSERT(sim != NULL);
    const lsWorld* world = sim->world;
    // The world must not have changed shape under the sim (the caller keeps it unchanged).
    LS_ASSERT(world->targetCount == sim->state.targetCount && world->vehicleCount == sim->state.vehicleCount &&
              world->moverCount == sim->state.moverCount);
    sim->seed = seed;
    sim->rng = lsMakeRng(seed);
    // Separate streams for respawns, lidar noise and the autopilot, so using one never shifts another.
    sim->lidarRng = lsMakeRng(world->robot.lidar.seed ^ (seed * 0x9E3779B97F4A7C15ull));
    sim->autopilot = lsMakeAutopilot(seed ^ 0xA5A5A5A5DEADBEEFull);
    sim->wasInContact = false;

    lsSimState* state = &sim->state;
    state->time = 0.0;
    state->step = 0;
    state->dt = world->sim.dt;
    state->score = 0.0;
    state->food = 0;
    state->poison = 0;
    state->collisions = 0;
    state->crushes = 0;
    state->distance = 0.0;

    lsRobotState* robot = &state->robot;
    memset(robot, 0, sizeof *robot);
    robot->position = world->robot.position;
    robot->angle = lsWrapAngle(world->robot.angle);
    robot->radius = sim->boundingRadius;

    for (int i = 0; i < state->moverCount; ++i)
    {
        sim->movers[i] = lsMover_SegmentAt(&world->movers[i], 0.0);
        sim->moversPrevious[i] = sim->movers[i];
    }
    for (int i = 0; i < state->targetCount; ++i)
    {
        const lsTargetDef* def = &world->targets[i];
        sim->targets[i] = (lsTargetState){def->center, def->radius, def->kind, true};
        lsScene_SetTarget(sim->scene, i, def->center, true);
    }
    for (int i = 0; i < state->vehicleCount; ++i)
    {
        const lsVehicleDef* def = &world->vehicles[i];
        lsVehicleState* v = &sim->vehicles[i];
        memset(v, 0, sizeof *v);
        v->position = def->position;
        v->velocity = def->velocity;
        v->radius = def->radius;
        v->path = def->path;
        v->direction = 1;
        v->predicted = v->normalPoint = v->target = def->position;
        sim->circles[i] = (lsCircle){def->position, def->radius};
    }
    sim->circles[state->vehicleCount] = (lsCircle){robot->position, sim->boundingRadius};

    // A robot placed overlapping something is pushed out once (zero motion: only the residual resolution runs).
    lsCollisionWorld cw = {sim->scene,   sim->movers,         sim->movers, state->moverCount,
                           sim->circles, state->vehicleCount, -1};
    if (sim->footprintCount == 0)
    {
        robot->position = lsMoveCircle(&cw, robot->position, lsV(0.0, 0.0), robot->radius).position;
    }
    else
    {
        double angle = robot->angle;
        robot->position = lsMovePolygon(&cw, sim->footprintLocal, sim->footprintCount, robot->position, angle,
                                        lsV(0.0, 0.0), 0.0, &angle)
                              .position;
    }
    sim->circles[state->vehicleCount].center = robot->position;
    UpdateFootprint(sim);
    TakeScan(sim);
}

void lsSim_Step(lsSim* sim, const lsControl* control)
{
    LS_ASSERT(sim != NULL);
    lsSimState* state = &sim->state;
    const lsWorld* world = sim->world;
    state->scanned = false;
    long long next = state->step + 1;
    double t1 = (double)next * state->dt;

    for (int i = 0; i < state->moverCount; ++i)
    {
        sim->moversPrevious[i] = sim->movers[i];
        sim->movers[i] = lsMover_SegmentAt(&world->movers[i], t1);
    }
    StepVehicles(sim);
    StepRobot(sim, control);
    PushTargets(sim);

    state->step = next;
    state->time = t1;
    if (ScanSlot(sim, next) != ScanSlot(sim, next - 1))
    {
        TakeScan(sim);
    }
}

const lsSimState* lsSim_GetState(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return &sim->state;
}

const lsScan* lsSim_GetScan(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return sim->scan;
}

const lsScene* lsSim_GetScene(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return sim->scene;
}

lsDynamicObjects lsSim_GetDynamicObjects(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return DynamicObjects(sim);
}

const lsWorld* lsSim_GetWorld(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return sim->world;
}

void lsSim_SetBeams(lsSim* sim, int beams)
{
    LS_ASSERT(sim != NULL);
    beams = beams < 1 ? 1 : (beams > LS_MAX_BEAMS ? LS_MAX_BEAMS : beams);
    if (beams > sim->scan->capacity)
    {
        lsDestroyScan(sim->scan);
        sim->scan = lsCreateScan(beams);
    }
    sim->lidar.beams = beams;
    TakeScan(sim);
}

int lsSim_GetBeams(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return sim->lidar.beams;
}

lsControl lsSim_AutopilotControl(lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    bool fresh = !sim->autopilotFresh;
    sim->autopilotFresh = true;
    return lsAutopilot_Decide(&sim->autopilot, sim->scan, sim->scene, &sim->world->robot, &sim->state.robot,
                              sim->state.time, fresh);
}

// ---------------------------------------------------------------------------------------------------------------------
// Determinism

static void HashBytes(uint64_t* h, const void* data, size_t size)
{
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i)
    {
        *h ^= p[i];
        *h *= 0x100000001B3ull;
    }
}

static void HashDouble(uint64_t* h, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    HashBytes(h, &bits, sizeof bits);
}

static void HashVec(uint64_t* h, lsVec2 v)
{
    HashDouble(h, v.x);
    HashDouble(h, v.y);
}

uint64_t lsSim_Hash(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    const lsSimState* s = &sim->state;
    uint64_t h = 0xCBF29CE484222325ull;
    HashDouble(&h, s->time);
    int64_t counters[4] = {s->step, s->food, s->poison, s->collisions};
    HashBytes(&h, counters, sizeof counters);
    HashDouble(&h, s->score);
    HashDouble(&h, s->distance);
    HashVec(&h, s->robot.position);
    HashDouble(&h, s->robot.angle);
    HashDouble(&h, s->robot.v);
    HashDouble(&h, s->robot.w);
    for (int i = 0; i < s->targetCount; ++i)
    {
        HashVec(&h, s->targets[i].center);
        unsigned char active = s->targets[i].active ? 1 : 0;
        HashBytes(&h, &active, 1);
    }
    for (int i = 0; i < s->vehicleCount; ++i)
    {
        HashVec(&h, s->vehicles[i].position);
        HashVec(&h, s->vehicles[i].velocity);
    }
    for (int i = 0; i < s->moverCount; ++i)
    {
        HashVec(&h, s->movers[i].a);
        HashVec(&h, s->movers[i].b);
    }
    return h;
}

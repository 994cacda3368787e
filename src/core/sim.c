// lidarsim core: the simulation step. Order within one step of dt (from time t0 to t1 = t0 + dt); steps 1 to 4 run
// once, or once per sub-step when a moving wall moves too fast for a straight in-step path (MoverSubsteps):
// 1. moving walls go from their segments at t0 to those at t1 (pure functions of time);
// 2. vehicles steer (path following + separation), then move with continuous collision, one after another (each
//    meets the bodies near it, found through the collision index when there are many: the same results as all);
// 3. the robots, one after another in list order: each one's command is chosen (manual, action or autopilot), its
//    speeds approach it within the limits, and it moves along the exact arc's chord with continuous collision
//    (walls, shapes, moving walls, vehicles, the other robots where they are at that moment: the robots before it
//    where they ended this step, those after it where they started). A robot that runs into another pushes it
//    (one level: a pushed robot gives way against everything but does not push a third). A robot that a moving wall
//    drove into other bodies where it cannot stay clear of them (the wall cannot stop) pushes them in a chain: each
//    that cannot give way pushes, forced, the robots and vehicles in its own way, level by level (bounded), so the
//    crowd gives way wherever there is room along the chain; an overlap is left only where the chain ends against
//    the solids (a crush). Then it collects the targets it touched on its way. After the turns, robots that a moving
//    wall left inside each other are moved apart where the solids leave room (Separate). The list order is the rule
//    that makes the outcome deterministic: it decides who moves into a gap first and which robot pushes which.
//    What does not depend on the other robots' moves is prepared first for every robot, in parallel on the pool: its
//    command, its speeds and its move with the other robots out of the way. In its turn a robot takes that move when
//    its path stays clear of the robots where they are at that moment (and no chain moved a vehicle this step); a
//    robot pushed before its turn prepares again from where it now stands. So the turns left one after another are
//    short, and every robot ends where moving it in turn from scratch would put it;
// 4. targets swept by moving walls are pushed; a later sub-step repeats 1 to 4, the robots keeping the commands they
//    chose in the first, and each robot's crushes of the whole step count once;
// 5. every lidar whose period has elapsed scans (counted in steps, so the schedule has no rounding drift), in
//    parallel on the pool when there are several: each lidar writes only its own scan and draws from its own noise
//    stream, so the results do not depend on the thread count.
// Nothing here reads the clock or calls rand(): same world, seed and controls give bit-identical states.
#include "lidarsim/sim.h"
#include "core/autopilot.h"
#include "core/robot.h"
#include "core/sim_replay.h"
#include "core/sweep.h"
#include "core/vehicle.h"

#include "core/distance.h"
#include "core/dynamic.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/move_internal.h"
#include "core/sim_phases.h"
#include "lidarsim/pool.h"

#include <stdlib.h>
#include <string.h>

// What the sim keeps per robot besides its public lsRobotState.
typedef struct SimRobot
{
    const lsRobotDef* def;
    lsScan* scan;
    lsLidarDef lidar; ///< the robot's lidar with the beam count in use
    lsRng lidarRng;   ///< lidar noise
    lsAutopilot autopilot;
    lsVec2 footprintLocal[LS_MAX_POLYGON_VERTICES];
    int footprintCount;
    double boundingRadius; ///< radius, or the largest |vertex| of the polygon footprint
    bool autopilotFresh;   ///< the autopilot has seen the latest scan
    bool wasInContact;
    bool pushed;  ///< another robot pushed it this step
    bool squeeze; ///< a chain or Separate left it where it may overlap a body: a crush if it still does (EndSqueezes)
    bool crushed; ///< crushed this step: counted once when the step ends (CountCrushes)
    bool scanDue;
} SimRobot;

// An autopilot robot's state before it decided this step (Command), to decide again when pushed before its turn.
typedef struct Plan
{
    lsAutopilotUndo before;
    bool freshBefore;
    bool decided;
} Plan;

// Crushes of the robots pushed in a turn that are counted when the turn ends (SettleCrushes: a chain of pushes after
// them may still make room); more are counted at once.
#define LS_PENDING_CRUSHES 64

// Bodies a robot's preparation gathers at most (Move); with more, its turn asks the index itself.
#define LS_MOVE_CANDIDATES 32

// A robot's part of the step that does not depend on the other robots' moves, prepared for every robot ahead of the
// turns (Prepare, on the pool): its command, its speeds, and its move with the other robots out of the way.
typedef struct Move
{
    lsMoveResult alone; ///< the move against the scene, the moving walls and the vehicles only
    double aloneAngle;  ///< the heading at its end
    lsVec2 wanted;      ///< the displacement the speeds ask for
    double angle;       ///< the heading they ask for
    double turn;        ///< from the heading at the start to angle
    double reach;       ///< how far from its centre it looks for bodies (GatherNeighbours)
    double v, w, commandV, commandW;
    bool prepared;                      ///< alone is set (not when the bodies near it were too many to gather)
    int candidateCount;                 ///< bodies the index found within reach + slack of it (-1: not gathered)
    int candidates[LS_MOVE_CANDIDATES]; ///< their ids in circles, ascending
} Move;

// Above this many moving objects the lidars cast through a broad phase and the robots find their neighbours
// through one; below it, testing them all is cheaper. (Both give identical results.)
#define LS_BROAD_PHASE_MIN 32

// A body as an escape found it (EscapePushing), to put it back.
typedef struct SavedBody
{
    lsVec2 center;
    bool pushed; ///< a robot's flag
} SavedBody;

struct lsSim
{
    const lsWorld* world;
    lsScene* scene;
    lsRng rng; ///< respawn places
    uint64_t seed;
    lsPathFollowDef pathTuning;
    lsSimState state;
    lsTargetState* targets;
    lsVehicleState* vehicles;
    int robotCount;
    SimRobot* robots;
    lsRobotState* robotStates;
    lsCircle* circles;          ///< vehicleCount + robotCount: the vehicles' bodies, then the robots' bounding circles
    lsPolygon* robotPolygons;   ///< robotCount world-frame footprints (count 0 for circles); NULL if all are circles
    lsSegment* movers;          ///< at state.time
    lsSegment* moversPrevious;  ///< scratch: at the start of the step
    lsDynamicIndex* lidarIndex; ///< the moving objects where the scans of this step see them
    lsDynamicIndex* collisionIndex; ///< vehicles and robots at the start of the vehicles' moves, then of the robots
    double drift;                   ///< the farthest any body has moved since collisionIndex was built (Drift)
    lsVec2* anchors;                ///< where the bodies were then (vehicleCount + robotCount)
    SavedBody* saved;               ///< scratch: the bodies before an escape (EscapePushing)
    double slack;        ///< how far the robots may have moved for the candidates gathered in their Move to hold
    bool vehiclesPushed; ///< a chain of pushes moved a vehicle during the robots' turns (PushOut)
    bool pressed;        ///< a moving wall came near a robot in its turn this step (the robots may overlap: Separate)
    int turn;            ///< the robot taking its turn
    int pending[LS_PENDING_CRUSHES]; ///< robots the turn's pushes crushed, counted when it ends
    int pendingCount;
    double moverTravel;   ///< the farthest a moving wall's end moves this (sub-)step
    double stepDt;        ///< the length of this (sub-)step: dt, or a part of it (MoverSubsteps)
    bool holdCommands;    ///< a later sub-step: the robots keep the commands they chose in the first
    lsCircle* neighbours; ///< scratch: the bodies near the moving robot (vehicleCount + robotCount)
    int* neighbourIds;    ///< scratch: their ids in circles
    lsDynamicItem* found; ///< scratch for index queries
    int* due;             ///< scratch: robots scanning this step
    Plan* plans;          ///< per robot
    Move* moves;          ///< per robot
    lsPool* pool;
    lsSimPhaseFcn* phaseFcn;
    void* phaseContext;
    double targetMaxRadius;
    lsAABB bounds; ///< lsWorld_Bounds of the world (which does not change under the sim): where targets respawn
};

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

static lsTransform RobotTransform(const lsRobotState* robot)
{
    return (lsTransform){robot->position, lsMakeRot(robot->angle)};
}

// Robot i's world footprint, bounding circle (in circles) and polygon (for the lidars) after it moved.
static void UpdateFootprint(lsSim* sim, int i)
{
    SimRobot* r = &sim->robots[i];
    lsRobotState* robot = &sim->robotStates[i];
    robot->footprintCount = r->footprintCount;
    if (r->footprintCount > 0)
    {
        lsTransform xf = RobotTransform(robot);
        for (int k = 0; k < r->footprintCount; ++k)
        {
            robot->footprint[k] = lsTransformPoint(xf, r->footprintLocal[k]);
        }
    }
    sim->circles[sim->state.vehicleCount + i] = (lsCircle){robot->position, r->boundingRadius};
    if (sim->robotPolygons != NULL)
    {
        sim->robotPolygons[i].count = 0;
        if (r->footprintCount > 0 && !lsMakePolygon(&sim->robotPolygons[i], robot->footprint, r->footprintCount))
        {
            sim->robotPolygons[i].count = 0; // degenerate after rounding: the lidar sees the bounding circle
        }
    }
}

static void Phase(const lsSim* sim, lsSimPhase phase)
{
    if (sim->phaseFcn != NULL)
    {
        sim->phaseFcn(sim->phaseContext, phase);
    }
}

// The public state's one-robot view follows robots[0].
static void SyncFirstRobot(lsSim* sim) { sim->state.robot = sim->robotStates[0]; }

static lsDynamicObjects DynamicObjects(const lsSim* sim)
{
    return (lsDynamicObjects){.vehicles = sim->circles,
                              .vehicleCount = sim->state.vehicleCount,
                              .movers = sim->movers,
                              .moverCount = sim->state.moverCount,
                              .robots = sim->circles + sim->state.vehicleCount,
                              .robotPolygons = sim->robotPolygons,
                              .robotCount = sim->robotCount,
                              .skipRobot = -1,
                              .index = NULL};
}

static void TakeScan(lsSim* sim, int i, const lsDynamicObjects* shared)
{
    SimRobot* r = &sim->robots[i];
    lsDynamicObjects dyn = *shared;
    dyn.skipRobot = i;
    lsTransform sensor = lsLidar_SensorPose(&r->lidar, RobotTransform(&sim->robotStates[i]));
    lsLidar_Scan(sim->scene, &dyn, &r->lidar, sensor, &r->lidarRng, r->scan);
    sim->robotStates[i].scanned = true;
    r->autopilotFresh = false;
}

typedef struct ScanTask
{
    lsSim* sim;
    const lsDynamicObjects* dyn;
} ScanTask;

static void ScanChunk(void* context, int begin, int end, int worker)
{
    (void)worker;
    ScanTask* task = context;
    for (int k = begin; k < end; ++k)
    {
        TakeScan(task->sim, task->sim->due[k], task->dyn);
    }
}

// Scans of every robot marked scanDue, through the broad phase when the moving objects are many, in parallel on the
// pool. Each scan writes only its robot's scan and draws only from its robot's noise stream.
static void TakeDueScans(lsSim* sim)
{
    int count = 0;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        if (sim->robots[i].scanDue)
        {
            sim->due[count++] = i;
            sim->robots[i].scanDue = false;
        }
    }
    if (count == 0)
    {
        return;
    }
    lsDynamicObjects dyn = DynamicObjects(sim);
    if (dyn.robotCount + dyn.vehicleCount + dyn.moverCount >= LS_BROAD_PHASE_MIN)
    {
        Phase(sim, ls_phaseBroadPhase);
        lsDynamicIndex_Build(sim->lidarIndex, &dyn);
        dyn.index = sim->lidarIndex;
    }
    Phase(sim, ls_phaseLidar);
    ScanTask task = {sim, &dyn};
    lsPool_ParallelFor(sim->pool, count, 4, ScanChunk, &task);
    Phase(sim, ls_phaseOther);
    sim->state.scanned = true;
}

// Index of robot i's lidar period that holds step k: a new scan is due when it changes. The first scan is at step 0.
// The small bias keeps a period that is a whole number of steps (0.1 s at 1/60 s) from slipping a step by rounding.
static long long ScanSlot(const lsSim* sim, int i, long long step)
{
    return (long long)floor((double)step * sim->state.dt * sim->robots[i].lidar.rate + 1e-9);
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

// Whether p is a point a world file may hold (limits.h: |x|, |y| <= 1e6 m), as every pose a run reports must be.
static bool IsCoordinate(lsVec2 p)
{
    return lsLimit_Holds(ls_quantityCoordinate, p.x) && lsLimit_Holds(ls_quantityCoordinate, p.y);
}

// True when a disc at center with radius (plus a margin) touches nothing: static geometry, other active targets,
// moving walls now, vehicles, the robots.
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
    for (int i = 0; i < sim->state.vehicleCount + sim->robotCount; ++i)
    {
        if (lsDistance(sim->circles[i].center, center) <= sim->circles[i].radius + ctx.circle.radius)
        {
            return false;
        }
    }
    return true;
}

// A collected target reappears at a random free place of the world's bounds (at most 200 tries); if none is
// found it stays collected. Drawn from the sim's own generator, so respawns are reproducible. The bounds hold the
// moving walls' sweeps, which may reach past the coordinates' bound: a place there is drawn again (a recording could
// not hold it).
static void Respawn(lsSim* sim, int index)
{
    lsTargetState* target = &sim->targets[index];
    lsAABB bounds = sim->bounds;
    for (int attempt = 0; attempt < 200; ++attempt)
    {
        // Two statements: the order of two draws given as arguments of one call is up to the compiler. y first, the
        // order gcc chose when the stored hashes were taken.
        double y = lsRng_Range(&sim->rng, bounds.lower.y + target->radius, bounds.upper.y - target->radius);
        double x = lsRng_Range(&sim->rng, bounds.lower.x + target->radius, bounds.upper.x - target->radius);
        lsVec2 p = lsV(x, y);
        if (IsCoordinate(p) && IsFree(sim, p, target->radius, index))
        {
            target->center = p;
            target->active = true;
            lsScene_SetTarget(sim->scene, index, p, true);
            return;
        }
    }
}

// Robot `robot` collects target `index`: the reward goes to it and to the fleet's totals.
static void Collect(lsSim* sim, int robot, int index)
{
    lsTargetState* target = &sim->targets[index];
    lsRobotState* r = &sim->robotStates[robot];
    target->active = false;
    lsScene_SetTarget(sim->scene, index, target->center, false);
    double reward = target->kind == ls_food ? sim->world->sim.foodReward : sim->world->sim.poisonReward;
    if (target->kind == ls_food)
    {
        sim->state.food += 1;
        r->food += 1;
    }
    else
    {
        sim->state.poison += 1;
        r->poison += 1;
    }
    sim->state.score += reward;
    r->score += reward;
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

// Targets robot `robot` touched along its path this step (by index, each once), collected in index order.
static void CollectTouched(lsSim* sim, int robot, const lsVec2* legs, int legCount, double oldAngle)
{
    const SimRobot* r = &sim->robots[robot];
    const lsRobotState* state = &sim->robotStates[robot];
    if (sim->state.targetCount == 0)
    {
        return;
    }
    int touched[64];
    TouchContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = sim->scene;
    ctx.a = ctx.b = legs[0];
    ctx.radius = state->radius;
    ctx.touched = touched;
    ctx.touchedCapacity = 64;
    if (r->footprintCount > 0)
    {
        // Each leg sweeps the footprint: the convex hull of the footprint at both ends of the leg (exact for the
        // translation; the turn is taken at the leg's ends). The first leg starts at the old heading.
        int n = r->footprintCount;
        for (int k = 0; k + 1 < legCount || (legCount == 1 && k == 0); ++k)
        {
            lsVec2 points[2 * LS_MAX_POLYGON_VERTICES];
            lsTransform from = {legs[k], lsMakeRot(k == 0 ? oldAngle : state->angle)};
            lsTransform to = {legs[legCount == 1 ? 0 : k + 1], lsMakeRot(state->angle)};
            lsAABB box = {legs[k], legs[k]};
            for (int i = 0; i < n; ++i)
            {
                points[i] = lsTransformPoint(from, r->footprintLocal[i]);
                points[n + i] = lsTransformPoint(to, r->footprintLocal[i]);
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
            Collect(sim, robot, touched[i]);
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
// The bodies' collision index (vehicles and robots), for the vehicles' moves and then the robots'

// Ids in circles (ascending) of the bodies whose boxes in the collision index overlap the square of half-size grow
// around c; returns how many, or -1 when there are more than capacity.
static int QueryBodies(const lsSim* sim, lsVec2 c, double grow, lsDynamicItem* found, int* ids, int capacity)
{
    lsAABB box = {lsSub(c, lsV(grow, grow)), lsAdd(c, lsV(grow, grow))};
    int count = lsDynamicIndex_Query(sim->collisionIndex, box, found, capacity);
    if (count > capacity)
    {
        return -1;
    }
    for (int k = 0; k < count; ++k)
    {
        ids[k] = found[k].kind == ls_hitVehicle ? found[k].index : sim->state.vehicleCount + found[k].index;
    }
    qsort(ids, (size_t)count, sizeof(int), CompareInts);
    return count;
}

// Body id moved: how far it now is from where it was when the collision index was built widens the index's queries
// (a body moved several times in a step, by its turn and by pushes, may be farther than any one move took it).
static void Drift(lsSim* sim, int id)
{
    sim->drift = lsFmax(sim->drift, lsDistance(sim->anchors[id], sim->circles[id].center));
}

// The collision index over the vehicles and the robots where they are now (when they are at least
// LS_BROAD_PHASE_MIN; returns whether it was built), those places as the anchors, and no drift yet.
static bool IndexBodies(lsSim* sim)
{
    int total = sim->state.vehicleCount + sim->robotCount;
    sim->drift = 0.0;
    for (int id = 0; id < total; ++id)
    {
        sim->anchors[id] = sim->circles[id].center;
    }
    if (total < LS_BROAD_PHASE_MIN)
    {
        return false;
    }
    Phase(sim, ls_phaseBroadPhase);
    lsDynamicObjects bodies = {.vehicles = sim->circles,
                               .vehicleCount = sim->state.vehicleCount,
                               .robots = sim->circles + sim->state.vehicleCount,
                               .robotCount = sim->robotCount,
                               .skipRobot = -1};
    lsDynamicIndex_Build(sim->collisionIndex, &bodies);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// Vehicles

// Separation (Reynolds): steer away from neighbours closer than twice the sum of the radii, weighted by 1/distance.
// The neighbours are the bodies (ids in circles, ascending) of ids, or every body when ids is NULL: given all the
// bodies within reach, the same sum over the same bodies in the same order, so the same force bit for bit.
static lsVec2 SeparationForce(const lsSim* sim, int self, const lsVehicleDef* def, double responseTime, const int* ids,
                              int idCount)
{
    const lsVehicleState* v = &sim->vehicles[self];
    lsVec2 sum = {0.0, 0.0};
    int count = 0;
    int bodies = ids != NULL ? idCount : sim->state.vehicleCount + sim->robotCount;
    for (int k = 0; k < bodies; ++k)
    {
        int j = ids != NULL ? ids[k] : k;
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
    lsVec2 steer = lsScale(1.0 / responseTime, lsSub(desired, v->velocity));
    double len = lsLength(steer);
    return len > def->maxForce ? lsScale(def->maxForce / len, steer) : steer;
}

// How far from its centre vehicle i looks for bodies this step: its separation's reach against the widest body
// (twice the sum of the radii), and its move's (a step at full speed, its radius, the skins), with room to spare.
static double VehicleReach(const lsVehicleDef* def, double dt, double widest)
{
    double reach = lsFmax(2.0 * def->radius + widest, def->maxSpeed * dt + def->radius + 4.0 * LS_CONTACT_SKIN);
    return reach + 16.0 * LS_CONTACT_SKIN;
}

// The bodies other than vehicle i within reach of where it stands (their centres within reach + their radius), ids in
// circles ascending into sim->neighbourIds, their circles into sim->neighbours; returns how many. Through the
// collision index, widened by how far any body has moved since it was built (the vehicles before it moved this step).
static int GatherVehicleNeighbours(lsSim* sim, int i, double reach)
{
    lsVec2 c = sim->vehicles[i].position;
    int total = sim->state.vehicleCount + sim->robotCount;
    int found = QueryBodies(sim, c, reach + sim->drift, sim->found, sim->neighbourIds, total);
    LS_ASSERT(found >= 0);
    int count = 0;
    for (int k = 0; k < found; ++k)
    {
        int id = sim->neighbourIds[k];
        lsCircle body = sim->circles[id];
        if (id != i && lsDistance(body.center, c) <= reach + body.radius)
        {
            sim->neighbourIds[count] = id;
            sim->neighbours[count++] = body;
        }
    }
    return count;
}

// Vehicle i's move by displacement among the count bodies gathered within reach of it (GatherVehicleNeighbours), the
// same bit for bit as its move among all the bodies (cw, which skips it) whenever the bodies left out play no part (the
// gathered ones are in the same order). Its sweeps stay within the length of displacement of the start, so they cannot
// touch a body left out; the moving walls' pushes meet no bodies. The residual resolution (lsResolveOverlap) starts
// where the sweeps and pushes ended, a leg of the result (the start when nothing moved it), kept among the legs unless
// they overflow (the resolution adds one each time it moves it). There, clear of everything by more than half a skin,
// it settles at once and looks at nothing farther; and a clearance of 3/4 of a skin among the gathered bodies is the
// clearance among all of them. Otherwise (a moving wall pushed it out of reach, it was left inside a body, or the
// legs overflowed) the move among all the bodies decides.
static lsMoveResult MoveVehicle(lsSim* sim, int i, const lsCollisionWorld* cw, int count, double reach,
                                lsVec2 displacement)
{
    const lsVehicleDef* def = &sim->world->vehicles[i];
    lsVec2 start = sim->vehicles[i].position;
    lsCollisionWorld nearby = *cw;
    nearby.circles = sim->neighbours;
    nearby.circleCount = count;
    nearby.skipCircle = -1;
    lsMoveResult moved = lsMoveCircle(&nearby, start, displacement, def->radius);
    double covered = reach - def->radius - 4.0 * LS_CONTACT_SKIN;
    bool same = moved.legCount < 6 && lsLength(displacement) <= covered;
    // Where the sweeps and pushes ended is a leg after the start, or the start when they did not move it.
    for (int k = displacement.x == 0.0 && displacement.y == 0.0 ? 0 : 1; same && k < moved.legCount; ++k)
    {
        same =
            lsDistance(moved.legs[k], start) <= covered &&
            lsCollisionWorld_Clearance(&nearby, moved.legs[k], def->radius, LS_CONTACT_SKIN) >= 0.75 * LS_CONTACT_SKIN;
    }
    if (same)
    {
        return moved;
    }
    lsCollisionWorld all = *cw;
    all.skipCircle = i;
    return lsMoveCircle(&all, start, displacement, def->radius);
}

static void StepVehicles(lsSim* sim)
{
    const lsWorld* world = sim->world;
    double dt = sim->stepDt;
    lsCollisionWorld cw = {sim->scene,
                           sim->moversPrevious,
                           sim->movers,
                           sim->state.moverCount,
                           sim->circles,
                           sim->state.vehicleCount + sim->robotCount,
                           -1};
    // A steering force reaches the velocity it aims at in responseTime; applied for a longer step it would overshoot
    // that velocity (at dt 0.5 s a vehicle arriving at a path's end swung about it for ever), so it takes a step.
    lsPathFollowDef tuning = sim->pathTuning;
    tuning.responseTime = lsFmax(tuning.responseTime, dt);
    tuning.stepTime = dt;
    // Many bodies: each vehicle finds those near it through the collision index (the vehicles before it where they
    // moved to, those after it where they stand), so a step costs O(n), not O(n^2), with the same results.
    bool indexed = sim->state.vehicleCount > 0 && IndexBodies(sim);
    double widest = 0.0;
    for (int id = 0; indexed && id < sim->state.vehicleCount + sim->robotCount; ++id)
    {
        widest = lsFmax(widest, sim->circles[id].radius);
    }
    if (indexed)
    {
        Phase(sim, ls_phaseOther);
    }
    for (int i = 0; i < sim->state.vehicleCount; ++i)
    {
        const lsVehicleDef* def = &world->vehicles[i];
        lsVehicleState* v = &sim->vehicles[i];
        double nearReach = VehicleReach(def, dt, widest);
        int nearCount = indexed ? GatherVehicleNeighbours(sim, i, nearReach) : 0;
        lsVec2 force = lsVehicle_PathForce(&world->paths[def->path], def, &tuning, v);
        force =
            lsMulAdd(force, 1.5,
                     SeparationForce(sim, i, def, tuning.responseTime, indexed ? sim->neighbourIds : NULL, nearCount));
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
        // Arriving at the end of an open path where it stops, a step does not carry the vehicle past the end point:
        // Reynolds' arrival slows down continuously, and at a coarse step (dt of a second) it overshot by up to
        // max_speed dt, out of the world where no wall closes the path's end.
        const lsPathDef* path = &world->paths[def->path];
        if (!path->closed && def->pathEnd == ls_pathEndStop && v->seeking)
        {
            lsVec2 end = v->direction > 0 ? path->points[path->pointCount - 1] : path->points[0];
            double reach = lsLength(v->velocity) * dt, left = lsDistance(v->position, end);
            if (lsVecEqual(v->target, end) && reach > left)
            {
                v->velocity = lsScale(left / reach, v->velocity);
            }
        }
        lsMoveResult moved;
        if (indexed)
        {
            moved = MoveVehicle(sim, i, &cw, nearCount, nearReach, lsScale(dt, v->velocity));
        }
        else
        {
            cw.skipCircle = i;
            moved = lsMoveCircle(&cw, v->position, lsScale(dt, v->velocity), def->radius);
        }
        if (moved.contacts > 0)
        {
            // Lose the velocity into the obstacle, keep the tangential part (it slides along).
            double into = lsDot(v->velocity, moved.lastNormal);
            if (into < 0.0)
            {
                v->velocity = lsMulSub(v->velocity, into, moved.lastNormal);
            }
        }
        if (!IsCoordinate(moved.position))
        {
            moved.position = v->position; // as a robot's move (MoveBody): it stands, as against a wall
            v->velocity = lsV(0.0, 0.0);
        }
        v->position = moved.position;
        sim->circles[i].center = moved.position;
        if (indexed)
        {
            Drift(sim, i);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// The robots

// Moves robot i's body (circle or polygon) from its current pose with continuous collision against cw. *newAngle
// holds the heading it would reach turning freely; a polygon's contacts may change it, a circle's never do.
static lsMoveResult MoveBody(const lsSim* sim, int i, const lsCollisionWorld* cw, lsVec2 displacement, double turn,
                             double* newAngle)
{
    const SimRobot* r = &sim->robots[i];
    const lsRobotState* robot = &sim->robotStates[i];
    double angle = *newAngle; // a circle's is the caller's (lsMoveCircle turns nothing)
    lsMoveResult moved = r->footprintCount > 0
                             ? lsMovePolygon(cw, r->footprintLocal, r->footprintCount, robot->position, robot->angle,
                                             displacement, turn, &angle)
                             : lsMoveCircle(cw, robot->position, displacement, robot->radius);
    if (!IsCoordinate(moved.position))
    {
        // Pushed out of the coordinates' bound (a footprint a million metres wide, resolved against the walls it
        // covers, went 3.8e6 m away): it stays where it stood, as a squeezed robot does, so every pose the run
        // reports or records is one a world file may hold.
        *newAngle = robot->angle;
        return (lsMoveResult){.position = robot->position, .legs = {robot->position}, .legCount = 1, .contacts = 1};
    }
    *newAngle = angle;
    return moved;
}

// The other bodies (vehicles and robots) that body `self` (its id in circles) could meet within reach of its centre
// this step, in id order (vehicles, then robots, by index), into sim->neighbours; returns how many. Few bodies: all of
// them. Many: those within reach among candidates (ids in circles, ascending, from an index query around where it
// stands that covers where every body is now; NULL: none), else among those the collision index finds, widened by how
// far any body has moved since it was built.
static int GatherBodies(lsSim* sim, int self, double reach, const int* candidates, int candidateCount)
{
    int total = sim->state.vehicleCount + sim->robotCount;
    int count = 0;
    lsVec2 c = sim->circles[self].center;
    if (total < LS_BROAD_PHASE_MIN)
    {
        for (int id = 0; id < total; ++id)
        {
            if (id != self)
            {
                sim->neighbourIds[count] = id;
                sim->neighbours[count++] = sim->circles[id];
            }
        }
        return count;
    }
    if (candidates == NULL)
    {
        candidateCount = QueryBodies(sim, c, reach + sim->drift, sim->found, sim->neighbourIds, total);
        LS_ASSERT(candidateCount >= 0);
        candidates = sim->neighbourIds;
    }
    for (int k = 0; k < candidateCount; ++k)
    {
        int id = candidates[k];
        lsCircle body = sim->circles[id];
        if (id != self && lsDistance(body.center, c) <= reach + body.radius)
        {
            sim->neighbourIds[count] = id;
            sim->neighbours[count++] = body;
        }
    }
    return count;
}

// The bodies that robot i could meet within reach of its centre this step (GatherBodies).
static int GatherNeighbours(lsSim* sim, int i, double reach, const int* candidates, int candidateCount)
{
    return GatherBodies(sim, sim->state.vehicleCount + i, reach, candidates, candidateCount);
}

// True when the circle of radius swept along legs comes within `radius + body` of a robot among the neighbours.
static bool PathTouchesRobot(const lsSim* sim, const lsMoveResult* moved, double radius, int count)
{
    lsAABB legs = {moved->legs[0], moved->legs[0]};
    for (int leg = 1; leg < moved->legCount; ++leg)
    {
        legs.lower = lsMin(legs.lower, moved->legs[leg]);
        legs.upper = lsMax(legs.upper, moved->legs[leg]);
    }
    for (int k = 0; k < count; ++k)
    {
        if (sim->neighbourIds[k] < sim->state.vehicleCount)
        {
            continue;
        }
        lsCircle body = {sim->neighbours[k].center, sim->neighbours[k].radius + radius + LS_CONTACT_SKIN};
        // Farther than that from the legs' box (by a margin far above rounding), it meets no leg: the exact tests
        // are left to the robots near the path.
        lsVec2 c = body.center;
        double margin = body.radius + 1e-7 * (body.radius + fabs(c.x) + fabs(c.y));
        if (c.x < legs.lower.x - margin || c.x > legs.upper.x + margin || c.y < legs.lower.y - margin ||
            c.y > legs.upper.y + margin)
        {
            continue;
        }
        for (int leg = 0; leg == 0 || leg + 1 < moved->legCount; ++leg)
        {
            lsSegment path = {moved->legs[leg], moved->legs[moved->legCount > 1 ? leg + 1 : 0]};
            if (lsSegmentOverlapsCircle(&path, &body))
            {
                return true;
            }
        }
    }
    return false;
}

// True when a robot's bounding circle (radius) moved from `from` to `to` ends inside one of cw's circles, deeper than
// it was at from: what the movers may leave in a squeeze (a footprint pushed out of one robot into the next, the
// residual resolution that sees only the solids).
static bool OverlapsMore(const lsCollisionWorld* cw, lsVec2 from, lsVec2 to, double radius)
{
    for (int k = 0; k < cw->circleCount; ++k)
    {
        lsCircle body = cw->circles[k];
        double after = body.radius + radius - lsDistance(body.center, to);
        if (after > 0.0 && after > body.radius + radius - lsDistance(body.center, from))
        {
            return true;
        }
    }
    return false;
}

// True when a moving wall comes near a body of the given radius moving from `from` to `to` this step.
static bool MoverNear(const lsSim* sim, lsVec2 from, lsVec2 to, double radius)
{
    lsAABB box = lsAABB_OfSegment(from, to);
    lsVec2 grow = lsV(radius + LS_CONTACT_SKIN, radius + LS_CONTACT_SKIN);
    box = (lsAABB){lsSub(box.lower, grow), lsAdd(box.upper, grow)};
    for (int m = 0; m < sim->state.moverCount; ++m)
    {
        if (lsAABB_Overlaps(lsAABB_OfSegment(sim->moversPrevious[m].a, sim->moversPrevious[m].b), box) ||
            lsAABB_Overlaps(lsAABB_OfSegment(sim->movers[m].a, sim->movers[m].b), box))
        {
            return true;
        }
    }
    return false;
}

// Where body `id` (its index in circles: a vehicle or a robot) ends moving (not turning) by displacement from where it
// stands, against the bodies within reach of its centre, the solids and the moving walls where they end the step:
// where the move takes it, or where it stands when that would end deeper inside another body than it began (squeezed
// where there is no room for it) or beyond what the bodies gathered cover (the resolution of a squeeze may jump past
// them, metres away, through robots it does not see). chained: in a chain of pushes (ChainPush); extra (or NULL):
// where its pusher goes, one more circle to keep out of.
static lsVec2 GiveWay(lsSim* sim, int id, lsVec2 displacement, double reach, bool chained, const lsCircle* extra)
{
    lsCircle body = sim->circles[id];
    int j = id - sim->state.vehicleCount;
    // A robot whose turn is still to come stands where it started the step, where the moving walls may have passed
    // since: in a chain, they carry it on this move as they would on its own (by up to how far they travel).
    bool carried = chained && j > sim->turn;
    reach += carried ? sim->moverTravel + body.radius : 0.0;
    // Its own neighbours, the pusher among them: the pusher moves again from where it stands, stopping at it, which
    // it cannot do from inside it (a push deflected by its neighbours carried it back into the pusher).
    int count = GatherBodies(sim, id, reach, NULL, 0);
    if (extra != NULL)
    {
        sim->neighbours[count++] = *extra; // it never gathers itself: there is room for one more
    }
    lsCollisionWorld cw = {sim->scene,
                           carried ? sim->moversPrevious : sim->movers,
                           sim->movers,
                           sim->state.moverCount,
                           sim->neighbours,
                           count,
                           -1};
    lsMoveResult moved;
    if (j >= 0)
    {
        double angle = sim->robotStates[j].angle;
        moved = MoveBody(sim, j, &cw, displacement, 0.0, &angle);
    }
    else
    {
        moved = lsMoveCircle(&cw, body.center, displacement, body.radius);
    }
    if (OverlapsMore(&cw, body.center, moved.position, body.radius) ||
        lsDistance(body.center, moved.position) > reach - body.radius)
    {
        return body.center;
    }
    return moved.position;
}

// Body id (a vehicle or a robot) goes to position; it stays where it is when position lies beyond the coordinates'
// bound (a push from a moving wall near it: a recording could not hold the place).
static void PlaceBody(lsSim* sim, int id, lsVec2 position)
{
    if (!IsCoordinate(position))
    {
        return;
    }
    int j = id - sim->state.vehicleCount;
    if (j >= 0)
    {
        sim->robotStates[j].position = position;
        UpdateFootprint(sim, j);
    }
    else
    {
        sim->vehicles[id].position = position;
        sim->circles[id].center = position;
        sim->vehiclesPushed = true;
    }
}

// A chain of forced pushes (PushOut): the bodies pushing, from the robot a moving wall carried, and how many pushes a
// round made. Bounded in depth and count, so a crowd pressed against a wall costs a bounded number of moves.
#define LS_CHAIN_LEVELS 32
#define LS_CHAIN_PUSHES 192
#define LS_CHAIN_ROUNDS 8
#define LS_CHAIN_MEMBERS LS_CHAIN_PUSHES

typedef struct Chain
{
    int path[LS_CHAIN_LEVELS]; ///< ids in circles of the bodies pushing, the first the robot the moving wall carried
    int level;                 ///< how many of path are set
    int pushes;                ///< pushes made in this round
    int members[LS_CHAIN_MEMBERS]; ///< the bodies it pushed (ids in circles), each once, as many as fit
    int memberCount;
} Chain;

// Counts a crush of robot j.
static void Crush(lsSim* sim, int j) { sim->robots[j].crushed = true; }

// A robot crushed in a step counts once, however many of the step's pushes, turns and sub-steps crushed it.
static void CountCrushes(lsSim* sim)
{
    for (int i = 0; i < sim->robotCount; ++i)
    {
        if (sim->robots[i].crushed)
        {
            sim->robotStates[i].crushes += 1;
            sim->state.crushes += 1;
            sim->robots[i].crushed = false;
        }
    }
}

// Robot j gives way to a robot whose body (bounding circle `from`, where its move would end) reached it: it moves out
// along the line of centres by the overlap, swept against everything, the pusher where it stands before its move
// included (it stops at what it meets, never pushes on). When it cannot give way by half of that (a wall, a robot
// behind it) it is crushed, as by a moving wall. A robot driving towards the pusher holds its ground instead (two
// robots pushing head-on stall where they meet), unless forced (a moving wall carries the pusher, which cannot stop).
static void Push(lsSim* sim, int j, lsCircle from, lsVec2 fallback, bool forced)
{
    lsRobotState* robot = &sim->robotStates[j];
    SimRobot* r = &sim->robots[j];
    lsVec2 away = lsSub(robot->position, from.center);
    double distance = lsLength(away);
    lsVec2 n = distance > 0.0 ? lsScale(1.0 / distance, away) : lsNormalize(fallback);
    double depth = from.radius + r->boundingRadius - distance + 2.0 * LS_CONTACT_SKIN;
    lsVec2 velocity = lsScale(robot->v, lsDirection(robot->angle));
    if (depth <= 0.0 || !lsIsValidVec2(n) || (n.x == 0.0 && n.y == 0.0) || (!forced && lsDot(velocity, n) < 0.0))
    {
        return;
    }
    lsVec2 start = robot->position;
    PlaceBody(sim, sim->state.vehicleCount + j,
              GiveWay(sim, sim->state.vehicleCount + j, lsScale(depth, n), r->boundingRadius + depth + LS_CONTACT_SKIN,
                      false, NULL));
    r->pushed = true;
    if (lsDot(lsSub(robot->position, start), n) < 0.5 * depth)
    {
        if (sim->pendingCount < LS_PENDING_CRUSHES)
        {
            sim->pending[sim->pendingCount++] = j; // counted when the turn ends (SettleCrushes)
        }
        else
        {
            Crush(sim, j);
        }
    }
    Drift(sim, sim->state.vehicleCount + j);
}

static void ChainTouched(lsSim* sim, lsSegment way, double radius, lsVec2 fallback, int count, Chain* chain);

// Where body id would go moving by displacement with nothing around but the solids, the moving walls and the given
// circles: sliding along what it meets, then to the nearest place clear of them (the residual resolution).
static lsVec2 ClearOf(lsSim* sim, int id, lsVec2 displacement, const lsCircle* circles, int count)
{
    lsCircle body = sim->circles[id];
    int j = id - sim->state.vehicleCount;
    bool carried = j > sim->turn;
    lsCollisionWorld cw = {
        sim->scene, carried ? sim->moversPrevious : sim->movers, sim->movers, sim->state.moverCount, circles, count,
        -1};
    if (j >= 0)
    {
        double angle = sim->robotStates[j].angle;
        return MoveBody(sim, j, &cw, displacement, 0.0, &angle).position;
    }
    return lsMoveCircle(&cw, body.center, displacement, body.radius).position;
}

// How a body at c gets out of the way of a pusher moving along `way` (or standing, way a point) that comes within
// `reach` (the sum of their radii) of it: false when it does not. One the pusher's end overlaps is struck: it goes out
// along the line of centres where the pusher first touches it (head on: forward), by what clears the pusher's end. One
// only beside the way steps aside, away from the nearest point of the way. *depth includes four skins: a body pushed
// aside by two was still met by its pusher sliding along a wall right under it (a crease exactly the pusher's width).
static bool PushDirection(lsSegment way, double reach, lsVec2 c, lsVec2 fallback, lsVec2* n, double* depth)
{
    double clear = reach + 4.0 * LS_CONTACT_SKIN;
    lsVec2 w = lsSub(c, way.b);
    lsVec2 away;
    if (lsLength(w) < reach)
    {
        // The first touch: |way.a + t u - c| = reach, the smaller root (0 when they touch at the start).
        lsVec2 u = lsSub(way.b, way.a), f = lsSub(way.a, c);
        double uu = lsDot(u, u), fu = lsDot(f, u), ff = lsDot(f, f) - reach * reach;
        double t = 0.0;
        if (ff > 0.0 && uu > 0.0)
        {
            double disc = fu * fu - uu * ff;
            t = disc > 0.0 ? lsFmin(lsFmax((-fu - sqrt(disc)) / uu, 0.0), 1.0) : 1.0;
        }
        away = lsSub(c, lsMulAdd(way.a, t, u));
        double length = lsLength(away);
        *n = length > 0.0 ? lsScale(1.0 / length, away) : lsNormalize(fallback);
        // Along n until clear of the end: |w + d n| = clear, the larger root.
        double wn = lsDot(w, *n);
        *depth = -wn + sqrt(lsFmax(wn * wn - lsDot(w, w) + clear * clear, 0.0));
    }
    else
    {
        away = lsSub(c, lsClosestPointOnSegment(&way, c).point);
        double distance = lsLength(away);
        *n = distance > 0.0 ? lsScale(1.0 / distance, away) : lsNormalize(fallback);
        *depth = clear - distance;
    }
    return *depth > 0.0 && lsIsValidVec2(*n) && (n->x != 0.0 || n->y != 0.0);
}

// Body id (a robot, or a vehicle) gives way to a body of the chain that a moving wall drives into it, moving along
// `way` with the given radius (or standing, way a point). Its goal is where it would go with only the solids, the
// moving walls and that body around: out of its way (PushDirection), sliding along what it meets (along the moving
// wall that carries them both), to the nearest place clear of them. It moves there against everything, forced; when
// the other bodies stop it short, those in its way there give way in turn (chained: their own chains first), and it
// moves on from where it stopped.
static void ChainPush(lsSim* sim, int id, lsSegment way, double wayRadius, lsVec2 fallback, Chain* chain)
{
    lsVec2 start = sim->circles[id].center;
    double radius = sim->circles[id].radius;
    lsVec2 n;
    double depth;
    if (!PushDirection(way, wayRadius + radius, start, fallback, &n, &depth))
    {
        return;
    }
    // The pusher where it stands and where it goes (the two circles cover the short way between).
    lsCircle pusher[2] = {{way.a, wayRadius}, {way.b, wayRadius}};
    lsVec2 goal = ClearOf(sim, id, lsScale(depth, n), pusher, 2);
    double reach = radius + depth + lsDistance(start, goal) + LS_CONTACT_SKIN;
    PlaceBody(sim, id, GiveWay(sim, id, lsSub(goal, start), reach, true, &pusher[1]));
    if (lsDistance(sim->circles[id].center, goal) > LS_CONTACT_SKIN && chain->level < LS_CHAIN_LEVELS &&
        chain->pushes < LS_CHAIN_PUSHES)
    {
        lsSegment next = {sim->circles[id].center, goal};
        int count = GatherBodies(sim, id, reach, NULL, 0);
        chain->path[chain->level++] = id;
        ChainTouched(sim, next, radius, n, count, chain);
        chain->level -= 1;
        PlaceBody(sim, id, GiveWay(sim, id, lsSub(goal, sim->circles[id].center), reach, true, &pusher[1]));
    }
    if (id >= sim->state.vehicleCount)
    {
        sim->robots[id - sim->state.vehicleCount].pushed = true;
    }
    Drift(sim, id);
}

static bool IsMember(const Chain* chain, int id)
{
    for (int k = 0; k < chain->memberCount; ++k)
    {
        if (chain->members[k] == id)
        {
            return true;
        }
    }
    return false;
}

static bool InChain(const Chain* chain, int id)
{
    for (int k = 0; k < chain->level; ++k)
    {
        if (chain->path[k] == id)
        {
            return true;
        }
    }
    return false;
}

// Pushes, in a chain (ChainPush), the bodies (robots and vehicles not in the chain) among the count neighbours
// gathered for a body of the chain that the circle of radius moving along `way` would overlap on its way: those its
// end overlaps, and those ahead of its start that its path passes (not those beside where it stands, which it moves
// away from). In id order; the list is taken first: each push gathers anew.
static void ChainTouched(lsSim* sim, lsSegment way, double radius, lsVec2 fallback, int count, Chain* chain)
{
    int touchedCount = 0;
    int touched[64];
    for (int k = 0; k < count && touchedCount < 64; ++k)
    {
        lsCircle body = sim->neighbours[k];
        lsClosestPoint cp = lsClosestPointOnSegment(&way, body.center);
        // Within the skin too: the sweep stops at a body it comes closer to than that.
        double reach = radius + body.radius + LS_CONTACT_SKIN;
        bool ahead = cp.fraction > 0.0 || lsDistance(body.center, way.b) < reach;
        if (cp.distance < reach && ahead && !InChain(chain, sim->neighbourIds[k]))
        {
            touched[touchedCount++] = sim->neighbourIds[k];
        }
    }
    for (int k = 0; k < touchedCount && chain->pushes < LS_CHAIN_PUSHES; ++k)
    {
        chain->pushes += 1;
        if (!IsMember(chain, touched[k]) && chain->memberCount < LS_CHAIN_MEMBERS)
        {
            chain->members[chain->memberCount++] = touched[k];
        }
        ChainPush(sim, touched[k], way, radius, fallback, chain);
    }
}

// Pushes the robots among the count neighbours gathered for a robot whose circle `end` (where its move would end)
// overlaps them (Push; forced: even those driving towards it). The list is taken first: each push gathers anew.
static void PushTouched(lsSim* sim, lsCircle end, lsVec2 wanted, int count, bool forced)
{
    int touchedCount = 0;
    int touched[64];
    for (int k = 0; k < count && touchedCount < 64; ++k)
    {
        if (sim->neighbourIds[k] >= sim->state.vehicleCount &&
            lsDistance(sim->neighbours[k].center, end.center) < end.radius + sim->neighbours[k].radius)
        {
            touched[touchedCount++] = sim->neighbourIds[k] - sim->state.vehicleCount;
        }
    }
    for (int k = 0; k < touchedCount; ++k)
    {
        Push(sim, touched[k], end, wanted, forced);
    }
}

// True when body id overlaps another body.
static bool Overlaps(lsSim* sim, int id)
{
    lsCircle body = sim->circles[id];
    int count = GatherBodies(sim, id, body.radius, NULL, 0);
    for (int k = 0; k < count; ++k)
    {
        if (lsDistance(sim->neighbours[k].center, body.center) < body.radius + sim->neighbours[k].radius)
        {
            return true;
        }
    }
    return false;
}

#define LS_SEPARATE_ROUNDS 16
#define LS_SEPARATE_PASSES 8

// Robot i moves by displacement against the solids, the moving walls (where they end the step) and the vehicles
// alone, sliding along them; returns how far it went along direction n.
static double SeparateMove(lsSim* sim, int i, lsVec2 displacement, lsVec2 n)
{
    lsCollisionWorld cw = {
        sim->scene, sim->movers, sim->movers, sim->state.moverCount, sim->circles, sim->state.vehicleCount, -1};
    double angle = sim->robotStates[i].angle;
    lsVec2 start = sim->robotStates[i].position;
    lsVec2 end = MoveBody(sim, i, &cw, displacement, 0.0, &angle).position;
    PlaceBody(sim, sim->state.vehicleCount + i, end);
    sim->robots[i].squeeze = true;
    Drift(sim, sim->state.vehicleCount + i);
    return lsDot(lsSub(end, start), n);
}

// The deepest overlap (metres; 0 or less when none) of robot i with the other robots among the count bodies last
// gathered (sim->neighbours): the invariants allow a vehicle's overlap.
static double RobotDepth(const lsSim* sim, int i, int count)
{
    lsCircle body = sim->circles[sim->state.vehicleCount + i];
    double depth = 0.0;
    for (int k = 0; k < count; ++k)
    {
        if (sim->neighbourIds[k] >= sim->state.vehicleCount)
        {
            lsCircle other = sim->neighbours[k];
            depth = lsFmax(depth, body.radius + other.radius - lsDistance(other.center, body.center));
        }
    }
    return depth;
}

// One round of pairs (Separate): every pair of robots overlapping deeper than the skin moves apart along its line of
// centres, the first of the pair half the overlap, the second the rest, each against the solids and vehicles. False
// when no pair overlapped.
static bool SeparatePairs(lsSim* sim)
{
    int first = sim->state.vehicleCount;
    bool moved = false;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        int count = GatherBodies(sim, first + i, sim->circles[first + i].radius, NULL, 0);
        int others[64];
        int otherCount = 0;
        for (int k = 0; k < count && otherCount < 64; ++k)
        {
            others[otherCount] = sim->neighbourIds[k];
            otherCount += sim->neighbourIds[k] > first + i ? 1 : 0; // each pair once, from its first robot
        }
        for (int k = 0; k < otherCount; ++k)
        {
            lsCircle a = sim->circles[first + i], b = sim->circles[others[k]];
            lsVec2 between = lsSub(b.center, a.center);
            double distance = lsLength(between);
            double depth = a.radius + b.radius - distance;
            if (!(depth > LS_CONTACT_SKIN))
            {
                continue;
            }
            lsVec2 n = distance > 0.0 ? lsScale(1.0 / distance, between) : lsV(1.0, 0.0);
            double gap = depth + 2.0 * LS_CONTACT_SKIN;
            double went = SeparateMove(sim, i, lsScale(-0.5 * gap, n), lsNeg(n));
            SeparateMove(sim, others[k] - first, lsScale(gap - went, n), n);
            moved = true;
        }
    }
    return moved;
}

// The nearest place within its diameter (of its bounding circle) where robot i is clear of what cw holds, reached
// straight: its circle's exact place, or its footprint's (the other bodies met by its bounding circle).
static lsFreeSearch NearestFree(const lsSim* sim, int i, const lsCollisionWorld* cw, lsVec2* place)
{
    const SimRobot* r = &sim->robots[i];
    const lsRobotState* robot = &sim->robotStates[i];
    if (r->footprintCount > 0)
    {
        lsMoveBody body = {r->footprintLocal, r->footprintCount, robot->angle, r->boundingRadius, LS_CONTACT_SKIN};
        return lsNearestFreeFootprint(cw, &body, robot->position, 2.0 * r->boundingRadius, place);
    }
    lsMoveBody circle = lsCircleBody(robot->radius);
    return lsNearestFreeCircle(cw, &circle, robot->position, 2.0 * robot->radius, place);
}

// Robot i, overlapping robots by depth where no place within its diameter is clear of every body, escapes as a push:
// it goes to the nearest place clear of the solids, the vehicles and the robots it overlaps, and the robots in its
// way there give way in a chain (ChainTouched), as to a robot a moving wall carries. A robot squeezed out of a row
// between two that a door and a wall hold climbs onto the row and the robot above it makes room. Kept only when the
// robots it moved overlap less deeply than it did; else every body goes back where it stood. True when kept. The
// count bodies near it are those Separate gathered (sim->neighbours).
static bool EscapePushing(lsSim* sim, int i, double depth, int count)
{
    int first = sim->state.vehicleCount, self = first + i;
    lsCircle body = sim->circles[self];
    int kept = 0;
    for (int k = 0; k < count; ++k)
    {
        lsCircle other = sim->neighbours[k];
        bool overlapping = body.radius + other.radius - lsDistance(other.center, body.center) > LS_CONTACT_SKIN;
        if (sim->neighbourIds[k] < first || overlapping)
        {
            sim->neighbourIds[kept] = sim->neighbourIds[k];
            sim->neighbours[kept++] = other;
        }
    }
    lsCollisionWorld cw = {sim->scene, sim->movers, sim->movers, sim->state.moverCount, sim->neighbours, kept, -1};
    lsVec2 place;
    if (NearestFree(sim, i, &cw, &place) != ls_freeFound)
    {
        return false;
    }
    int bodies = first + sim->robotCount;
    for (int id = 0; id < bodies; ++id)
    {
        sim->saved[id] = (SavedBody){sim->circles[id].center, id >= first && sim->robots[id - first].pushed};
    }
    PlaceBody(sim, self, place);
    Drift(sim, self);
    Chain chain = {.path = {self}, .level = 1};
    lsSegment way = {body.center, place};
    int near = GatherBodies(sim, self, lsDistance(body.center, place) + body.radius, NULL, 0);
    ChainTouched(sim, way, body.radius, lsSub(place, body.center), near, &chain);

    double after = RobotDepth(sim, i, GatherBodies(sim, self, body.radius, NULL, 0));
    for (int k = 0; k < chain.memberCount; ++k)
    {
        int j = chain.members[k] - first;
        if (j >= 0)
        {
            after = lsFmax(after,
                           RobotDepth(sim, j, GatherBodies(sim, first + j, sim->circles[first + j].radius, NULL, 0)));
        }
    }
    if (!(after < depth))
    {
        for (int id = 0; id < bodies; ++id)
        {
            if (!lsVecEqual(sim->circles[id].center, sim->saved[id].center))
            {
                PlaceBody(sim, id, sim->saved[id].center);
                Drift(sim, id);
            }
            if (id >= first)
            {
                sim->robots[id - first].pushed = sim->saved[id].pushed;
            }
        }
        return false;
    }
    sim->robots[i].squeeze = true;
    for (int k = 0; k < chain.memberCount; ++k)
    {
        int j = chain.members[k] - first;
        if (j >= 0)
        {
            sim->robots[j].squeeze = true;
        }
    }
    return true;
}

// After the turns, robots that the pushes left overlapping each other (a chain that reached its bounds; a jam of a few
// robots that must all move a little, which a chain, one body after another along its line, does not find) are moved
// apart: pair by pair along their line of centres, a few rounds in list order while some pair overlaps (a position
// solver, Gauss-Seidel); then each robot still overlapping steps to the nearest place clear of every body and solid
// within its diameter, reached straight without crossing a wall or passing through a body it was clear of, or where
// there is none escapes pushing the robots in its way (EscapePushing); and all of that again while robots overlap
// and one moved, LS_SEPARATE_PASSES times at most (in a column squeezed between a door and a wall each pass left about
// a seventh of the overlap). A pair that the solids hold together (a true crush) stays overlapping, crushed
// (EndSqueezes counts it). Only overlaps deeper than the skin count, so a step that leaves none is unchanged.
static void Separate(lsSim* sim)
{
    int first = sim->state.vehicleCount;
    for (int pass = 0; pass < LS_SEPARATE_PASSES; ++pass)
    {
        bool overlapping = SeparatePairs(sim);
        for (int round = 1; round < LS_SEPARATE_ROUNDS && overlapping; ++round)
        {
            overlapping = SeparatePairs(sim);
        }
        if (!overlapping)
        {
            return; // no pair overlaps
        }
        bool moved = false;
        for (int i = 0; i < sim->robotCount; ++i)
        {
            lsCircle body = sim->circles[first + i];
            int count = GatherBodies(sim, first + i, 3.0 * body.radius + LS_CONTACT_SKIN, NULL, 0);
            double depth = RobotDepth(sim, i, count);
            if (!(depth > LS_CONTACT_SKIN))
            {
                continue;
            }
            lsCollisionWorld cw = {sim->scene,      sim->movers, sim->movers, sim->state.moverCount,
                                   sim->neighbours, count,       -1};
            lsVec2 place;
            lsFreeSearch found = NearestFree(sim, i, &cw, &place);
            if (found == ls_freeFound)
            {
                PlaceBody(sim, first + i, place);
                Drift(sim, first + i);
                sim->robots[i].squeeze = true;
                moved = true;
            }
            else if (found == ls_freeNone)
            {
                moved = EscapePushing(sim, i, depth, count) || moved;
            }
        }
        if (!moved)
        {
            return;
        }
    }
}

// Robot i, which a moving wall drove into other bodies where it cannot stay clear of them (the wall is a function of
// time, it cannot stop), pushes them out of its way: they give way in a chain (ChainPush), a few rounds (a body sliding
// along a wall gives way less than it is pushed). chain lists the bodies it pushed. It still overlaps one only where
// the chain ended against the solids with no room, a crush.
static void PushOut(lsSim* sim, int i, lsVec2 wanted, Chain* chain)
{
    int self = sim->state.vehicleCount + i;
    chain->path[0] = self;
    chain->memberCount = 0;
    for (int round = 0; round < LS_CHAIN_ROUNDS && Overlaps(sim, self); ++round)
    {
        chain->level = 1;
        chain->pushes = 0;
        lsCircle body = sim->circles[self];
        int count = GatherBodies(sim, self, body.radius, NULL, 0);
        ChainTouched(sim, (lsSegment){body.center, body.center}, body.radius, wanted, count, chain);
    }
}

// The crushes of robot i's turn: the robots it pushed that could not give way (Push), and when a chain of pushes
// followed (chain not NULL), instead of those it pushed, the robots of the chain (i and those it pushed) marked to be
// counted at the step's end if they still overlap another body then (after Separate).
static void SettleCrushes(lsSim* sim, int i, const Chain* chain)
{
    for (int k = 0; k < sim->pendingCount; ++k)
    {
        if (chain == NULL || !IsMember(chain, sim->state.vehicleCount + sim->pending[k]))
        {
            Crush(sim, sim->pending[k]);
        }
    }
    sim->pendingCount = 0;
    if (chain == NULL)
    {
        return;
    }
    // Whether they are crushed is known once the step's turns and Separate have ended (EndSqueezes).
    sim->robots[i].squeeze = true;
    for (int k = 0; k < chain->memberCount; ++k)
    {
        int j = chain->members[k] - sim->state.vehicleCount;
        if (j >= 0)
        {
            sim->robots[j].squeeze = true;
        }
    }
}

// The crushes of a step with chains of pushes: each robot that a chain pushed (or carried into the others) or that
// Separate moved, and that still overlaps another body, once.
static void EndSqueezes(lsSim* sim)
{
    for (int i = 0; i < sim->robotCount; ++i)
    {
        if (sim->robots[i].squeeze && Overlaps(sim, sim->state.vehicleCount + i))
        {
            Crush(sim, i);
        }
        sim->robots[i].squeeze = false;
    }
}

// The command of robot i for this step: control when given, else what its controller does alone (the autopilot
// drives autopilot robots; manual and external robots without a command brake to a stop).
static lsControl ChooseControl(lsSim* sim, int i, const lsControl* control)
{
    if (control != NULL)
    {
        return *control;
    }
    return sim->robots[i].def->controller == ls_controllerAutopilot ? lsMakeAutopilotControl()
                                                                    : lsMakeManualControl(0.0, 0.0);
}

// Robot i's command for this step, the autopilot deciding for autopilot control. The autopilot decides from its
// state at the start of the step: when an earlier robot pushed this one before its turn, it decides again where it
// now stands from that saved state, so every command is the one deciding in turn would give.
static lsControl Command(lsSim* sim, int i, const lsControl* control)
{
    lsControl chosen = ChooseControl(sim, i, control);
    if (chosen.mode != ls_controlAutopilot)
    {
        return chosen;
    }
    Plan* plan = &sim->plans[i];
    SimRobot* r = &sim->robots[i];
    if (plan->decided)
    {
        lsAutopilot_Undo(&r->autopilot, &plan->before);
        r->autopilotFresh = plan->freshBefore;
    }
    else
    {
        plan->before = lsAutopilot_SaveUndo(&r->autopilot);
        plan->freshBefore = r->autopilotFresh;
        plan->decided = true;
    }
    return lsSim_RobotAutopilotControl(sim, i);
}

// Robot i's part of the step that the other robots' moves do not change, from where it stands (Move). Reads only
// its own robot, the bodies' circles and the collision index as they were when the moves began, and writes only its
// own robot's autopilot, plan and move, so the robots are prepared in parallel.
static void Prepare(lsSim* sim, int i, const lsControl* control, Move* move)
{
    const SimRobot* r = &sim->robots[i];
    const lsRobotDef* def = r->def;
    const lsRobotState* robot = &sim->robotStates[i];
    double dt = sim->stepDt;

    double cv = 0.0, cw = 0.0;
    lsControl chosen =
        sim->holdCommands ? lsMakeManualControl(robot->commandV, robot->commandW) : Command(sim, i, control);
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
    move->commandV = lsFmin(lsFmax(cv, -def->maxSpeed), def->maxSpeed);
    move->commandW = lsFmin(lsFmax(cw, -def->maxTurnRate), def->maxTurnRate);
    move->v = lsApproachSpeed(robot->v, cv, def->maxSpeed, def->maxAccel, dt);
    move->w = lsApproachSpeed(robot->w, cw, def->maxTurnRate, def->maxTurnAccel, dt);

    lsVec2 target;
    lsIntegrateUnicycle(robot->position, robot->angle, move->v, move->w, dt, &target, &move->angle);
    move->wanted = lsSub(target, robot->position);
    move->turn = lsWrapAngle(move->angle - robot->angle);
    // Bodies within reach: the step's travel plus the farthest a moving wall could carry it is not known here, so
    // the reach is generous (the travel, its size, the largest body, a moving wall's push of up to its own size).
    move->reach = lsLength(move->wanted) + 4.0 * r->boundingRadius + sim->targetMaxRadius + 1.0;

    // The vehicles within reach, as its turn's GatherNeighbours finds them (vehicles do not move during the turns),
    // and every body the index finds within reach + slack: its turn picks its neighbours among those.
    int total = sim->state.vehicleCount + sim->robotCount;
    lsCircle vehicles[LS_MOVE_CANDIDATES];
    int vehicleCount = 0;
    move->candidateCount = -1;
    move->prepared = false;
    if (total < LS_BROAD_PHASE_MIN)
    {
        for (int id = 0; id < sim->state.vehicleCount; ++id)
        {
            vehicles[vehicleCount++] = sim->circles[id];
        }
    }
    else
    {
        lsDynamicItem found[LS_MOVE_CANDIDATES];
        int count =
            QueryBodies(sim, robot->position, move->reach + sim->slack, found, move->candidates, LS_MOVE_CANDIDATES);
        if (count < 0)
        {
            return; // crowded: its turn gathers and moves
        }
        move->candidateCount = count;
        for (int k = 0; k < count && move->candidates[k] < sim->state.vehicleCount; ++k)
        {
            lsCircle body = sim->circles[move->candidates[k]];
            if (lsDistance(body.center, robot->position) <= move->reach + body.radius)
            {
                vehicles[vehicleCount++] = body;
            }
        }
    }
    lsCollisionWorld world = {sim->scene, sim->moversPrevious, sim->movers, sim->state.moverCount,
                              vehicles,   vehicleCount,        -1};
    move->aloneAngle = move->angle;
    move->alone = MoveBody(sim, i, &world, move->wanted, move->turn, &move->aloneAngle);
    move->prepared = true;
}

// Robot i's turn: its speeds and move become its state. The move it prepared with the other robots out of the way is
// its move when its path stays clear of the robots where they are now. Else the robots it reached are pushed out of
// where it would have ended, and it moves again with them in place.
static void TakeTurn(lsSim* sim, int i, const lsControl* control)
{
    SimRobot* r = &sim->robots[i];
    lsRobotState* robot = &sim->robotStates[i];
    Move* move = &sim->moves[i];
    if (r->pushed)
    {
        Prepare(sim, i, control, move); // pushed before its turn: again from where it now stands
    }
    sim->plans[i].decided = false;
    robot->commandV = move->commandV;
    robot->commandW = move->commandW;
    robot->v = move->v;
    robot->w = move->w;

    // The candidates cover the bodies where they are now while no robot has moved farther than the slack since the
    // index was built.
    const int* candidates = sim->drift <= sim->slack && move->candidateCount >= 0 ? move->candidates : NULL;
    int count = GatherNeighbours(sim, i, move->reach, candidates, move->candidateCount);
    lsCollisionWorld world = {
        sim->scene, sim->moversPrevious, sim->movers, sim->state.moverCount, sim->neighbours, count, -1};
    int vehicles = 0;
    while (vehicles < count && sim->neighbourIds[vehicles] < sim->state.vehicleCount)
    {
        vehicles += 1;
    }
    if (!move->prepared || sim->vehiclesPushed)
    {
        lsCollisionWorld vehiclesOnly = world;
        vehiclesOnly.circleCount = vehicles;
        move->aloneAngle = move->angle;
        move->alone = MoveBody(sim, i, &vehiclesOnly, move->wanted, move->turn, &move->aloneAngle);
    }
    const lsMoveResult* moved = &move->alone;
    double newAngle = move->aloneAngle;
    lsMoveResult again;
    if (PathTouchesRobot(sim, moved, r->boundingRadius, count))
    {
        // The robots it reached give way, and it moves again with them in place. When a moving wall carries it into
        // robots that held their ground (driving towards it), it cannot stop: they give way after all.
        for (bool forced = false;; forced = true)
        {
            PushTouched(sim, (lsCircle){moved->position, r->boundingRadius}, move->wanted, world.circleCount, forced);
            world.circleCount = GatherNeighbours(sim, i, move->reach, NULL, 0);
            newAngle = move->angle;
            again = MoveBody(sim, i, &world, move->wanted, move->turn, &newAngle);
            moved = &again;
            if (forced || !OverlapsMore(&world, robot->position, again.position, r->boundingRadius) ||
                !MoverNear(sim, robot->position, again.position, r->boundingRadius))
            {
                break;
            }
        }
    }
    lsVec2 start = robot->position;
    lsMoveResult stay;
    if (OverlapsMore(&world, start, moved->position, r->boundingRadius) &&
        !MoverNear(sim, start, moved->position, r->boundingRadius))
    {
        // Its move would end inside another body (squeezed where it has no room): it stays where it stood, which
        // every body moved this step kept clear of. Not with a moving wall near, which may have swept over it.
        stay = (lsMoveResult){.position = start, .legs = {start}, .legCount = 1, .contacts = 1};
        newAngle = robot->angle;
        moved = &stay;
    }
    robot->position = moved->position;
    double oldAngle = robot->angle;
    robot->angle = newAngle;
    double travelled = 0.0;
    for (int k = 0; k + 1 < moved->legCount; ++k)
    {
        travelled += lsDistance(moved->legs[k], moved->legs[k + 1]);
        sim->state.distance += lsDistance(moved->legs[k], moved->legs[k + 1]);
    }
    robot->distance += travelled;
    robot->inContact = moved->contacts > 0;
    if (moved->crushed)
    {
        Crush(sim, i);
    }
    UpdateFootprint(sim, i);
    Drift(sim, sim->state.vehicleCount + i);
    if (sim->state.moverCount > 0 && MoverNear(sim, start, robot->position, r->boundingRadius))
    {
        // A moving wall may have driven it into bodies that could not give way one level deep.
        sim->pressed = true;
        Chain chain;
        PushOut(sim, i, move->wanted, &chain);
        SettleCrushes(sim, i, &chain);
    }
    else
    {
        SettleCrushes(sim, i, NULL);
    }
    CollectTouched(sim, i, moved->legs, moved->legCount, oldAngle);
}

// Contacts begun this step, per robot and in total: a robot in contact (its own move met something, or it was
// pushed) after a step without.
static void CountCollisions(lsSim* sim)
{
    for (int i = 0; i < sim->robotCount; ++i)
    {
        SimRobot* r = &sim->robots[i];
        lsRobotState* robot = &sim->robotStates[i];
        robot->inContact = robot->inContact || r->pushed;
        if (robot->inContact && !r->wasInContact)
        {
            robot->collisions += 1;
            sim->state.collisions += 1;
        }
        r->wasInContact = robot->inContact;
        r->pushed = false;
    }
}

// Robot i's control this step: one per robot (controls), or the first robot's (first) and the others' controllers.
static const lsControl* RobotControl(const lsControl* controls, const lsControl* first, int i)
{
    if (controls != NULL)
    {
        return controls + i;
    }
    if (i == 0 && first == NULL)
    {
        // lsSim_Step(sim, NULL): the first robot brakes to a stop, whatever its controller.
        static const lsControl stop = {ls_controlManual, 0.0, 0.0, ls_actionStop};
        return &stop;
    }
    return i == 0 ? first : NULL;
}

typedef struct PrepareTask
{
    lsSim* sim;
    const lsControl* controls;
    const lsControl* first;
} PrepareTask;

static void PrepareChunk(void* context, int begin, int end, int worker)
{
    (void)worker;
    PrepareTask* task = context;
    for (int i = begin; i < end; ++i)
    {
        Prepare(task->sim, i, RobotControl(task->controls, task->first, i), &task->sim->moves[i]);
    }
}

// The robots are prepared on the pool, then take their turns one after another in list order.
static void StepRobots(lsSim* sim, const lsControl* controls, const lsControl* first)
{
    sim->vehiclesPushed = false;
    sim->pressed = false;
    IndexBodies(sim);
    Phase(sim, ls_phasePrepare);
    PrepareTask task = {sim, controls, first};
    lsPool_ParallelFor(sim->pool, sim->robotCount, 8, PrepareChunk, &task);
    Phase(sim, ls_phaseTurns);
    for (int i = 0; i < sim->robotCount; ++i)
    {
        sim->turn = i;
        TakeTurn(sim, i, RobotControl(controls, first, i));
    }
    if (sim->pressed) // without moving walls, pushes and moves never leave robots inside each other
    {
        Separate(sim);
        EndSqueezes(sim);
    }
    Phase(sim, ls_phaseOther);
    CountCollisions(sim);
}

void lsSim_SetPhaseHook(lsSim* sim, lsSimPhaseFcn* fcn, void* context)
{
    LS_ASSERT(sim != NULL);
    sim->phaseFcn = fcn;
    sim->phaseContext = context;
}

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle

// A world built in code has not been through the loader's checks: what the sim divides by must be positive.
static bool CanSimulate(const lsWorld* world)
{
    if (world == NULL || !(world->sim.dt > 0.0 && isfinite(world->sim.dt)))
    {
        return false;
    }
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsLidarDef* lidar = &lsWorld_GetRobot(world, i)->lidar;
        if (!(lidar->rate > 0.0) || lidar->beams < 1 || lidar->beams > LS_MAX_BEAMS)
        {
            return false;
        }
    }
    return true;
}

lsSim* lsCreateSim(const lsWorld* world)
{
    lsScene* scene = CanSimulate(world) ? lsCreateScene(world) : NULL;
    if (scene == NULL)
    {
        return NULL;
    }
    lsSim* sim = lsAllocZero(1, sizeof(lsSim));
    sim->world = world;
    sim->scene = scene;
    // Once, not at every respawn: it visits every wall point and target (100 000 targets made each respawn cost
    // more than a whole step).
    sim->bounds = lsWorld_Bounds(world);
    sim->pathTuning = lsDefaultPathFollowDef();
    int targetCount = world->targetCount, vehicleCount = world->vehicleCount, moverCount = world->moverCount;
    int robotCount = lsWorld_RobotCount(world);
    int bodies = vehicleCount + robotCount;
    sim->targets = lsAllocZero((size_t)(targetCount > 0 ? targetCount : 1), sizeof(lsTargetState));
    sim->vehicles = lsAllocZero((size_t)(vehicleCount > 0 ? vehicleCount : 1), sizeof(lsVehicleState));
    sim->circles = lsAllocZero((size_t)bodies, sizeof(lsCircle));
    sim->neighbours = lsAllocZero((size_t)bodies, sizeof(lsCircle));
    sim->neighbourIds = lsAllocZero((size_t)bodies, sizeof(int));
    sim->anchors = lsAllocZero((size_t)bodies, sizeof(lsVec2));
    sim->saved = lsAllocZero((size_t)bodies, sizeof(SavedBody));
    sim->found = lsAllocZero((size_t)bodies, sizeof(lsDynamicItem));
    sim->movers = lsAllocZero((size_t)(moverCount > 0 ? moverCount : 1), sizeof(lsSegment));
    sim->moversPrevious = lsAllocZero((size_t)(moverCount > 0 ? moverCount : 1), sizeof(lsSegment));
    sim->robotCount = robotCount;
    sim->robots = lsAllocZero((size_t)robotCount, sizeof(SimRobot));
    sim->robotStates = lsAllocZero((size_t)robotCount, sizeof(lsRobotState));
    sim->due = lsAllocZero((size_t)robotCount, sizeof(int));
    sim->plans = lsAllocZero((size_t)robotCount, sizeof(Plan));
    sim->moves = lsAllocZero((size_t)robotCount, sizeof(Move));
    sim->lidarIndex = lsCreateDynamicIndex();
    sim->collisionIndex = lsCreateDynamicIndex();
    sim->state.targetCount = targetCount;
    sim->state.vehicleCount = vehicleCount;
    sim->state.moverCount = moverCount;
    sim->state.targets = sim->targets;
    sim->state.vehicles = sim->vehicles;
    sim->state.movers = sim->movers;
    sim->state.robots = sim->robotStates;
    sim->state.robotCount = robotCount;
    for (int i = 0; i < robotCount; ++i)
    {
        SimRobot* r = &sim->robots[i];
        const lsRobotDef* def = lsWorld_GetRobot(world, i);
        r->def = def;
        r->lidar = def->lidar;
        r->scan = lsCreateScan(r->lidar.beams);
        r->footprintCount = def->footprintCount;
        r->boundingRadius = lsRobotDef_Reach(def);
        for (int k = 0; k < r->footprintCount; ++k)
        {
            r->footprintLocal[k] = def->footprint[k];
        }
        if (r->footprintCount > 0 && sim->robotPolygons == NULL)
        {
            sim->robotPolygons = lsAllocZero((size_t)robotCount, sizeof(lsPolygon));
        }
    }
    for (int i = 0; i < targetCount; ++i)
    {
        sim->targetMaxRadius = lsFmax(sim->targetMaxRadius, world->targets[i].radius);
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
    // Sized from the sim's own counts, fixed at creation: the world may have been edited (or destroyed) since.
    const lsSimState* state = &sim->state;
    size_t targets = (size_t)(state->targetCount > 0 ? state->targetCount : 1);
    size_t vehicles = (size_t)(state->vehicleCount > 0 ? state->vehicleCount : 1);
    size_t movers = (size_t)(state->moverCount > 0 ? state->moverCount : 1);
    size_t robots = (size_t)sim->robotCount;
    size_t bodies = (size_t)state->vehicleCount + robots;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        lsDestroyScan(sim->robots[i].scan);
    }
    lsFree(sim->targets, targets * sizeof(lsTargetState));
    lsFree(sim->vehicles, vehicles * sizeof(lsVehicleState));
    lsFree(sim->circles, bodies * sizeof(lsCircle));
    lsFree(sim->neighbours, bodies * sizeof(lsCircle));
    lsFree(sim->neighbourIds, bodies * sizeof(int));
    lsFree(sim->anchors, bodies * sizeof(lsVec2));
    lsFree(sim->saved, bodies * sizeof(SavedBody));
    lsFree(sim->found, bodies * sizeof(lsDynamicItem));
    lsFree(sim->movers, movers * sizeof(lsSegment));
    lsFree(sim->moversPrevious, movers * sizeof(lsSegment));
    lsFree(sim->robots, robots * sizeof(SimRobot));
    lsFree(sim->robotStates, robots * sizeof(lsRobotState));
    lsFree(sim->due, robots * sizeof(int));
    lsFree(sim->plans, robots * sizeof(Plan));
    lsFree(sim->moves, robots * sizeof(Move));
    if (sim->robotPolygons != NULL)
    {
        lsFree(sim->robotPolygons, robots * sizeof(lsPolygon));
    }
    lsDestroyDynamicIndex(sim->lidarIndex);
    lsDestroyDynamicIndex(sim->collisionIndex);
    lsDestroyScene(sim->scene);
    lsFree(sim, sizeof(lsSim));
}

// Robot i's noise and autopilot streams: the first robot's are those of the one-robot sim (so every existing world
// runs as before); the others are offset by their index, so identical robots do not see identical noise.
static uint64_t RobotStream(int i) { return (uint64_t)i * 0xD1B54A32D192ED03ull; }

// Circle tests that placing the robots clear of each other may take in one reset or carry-over: a pile of thousands of
// robots on one spot would take hours; past it, the rest stay where the overlap resolution left them.
#define LS_PLACE_BUDGET 50000000

// What robot i is placed against: the solids, the moving walls, the vehicles, and the robots before it in the list
// (already placed) that come within reach of its centre, gathered into sim->neighbours after the vehicles.
static lsCollisionWorld PlaceWorld(lsSim* sim, int i, double reach)
{
    int n = sim->state.vehicleCount;
    memcpy(sim->neighbours, sim->circles, (size_t)n * sizeof *sim->neighbours);
    lsVec2 c = sim->robotStates[i].position;
    for (int j = 0; j < i; ++j)
    {
        lsCircle other = sim->circles[sim->state.vehicleCount + j];
        if (lsDistance(other.center, c) <= reach + other.radius)
        {
            sim->neighbours[n++] = other;
        }
    }
    return (lsCollisionWorld){sim->scene, sim->movers, sim->movers, sim->state.moverCount, sim->neighbours, n, -1};
}

// A zero motion of robot i in cw: only the move's residual resolution runs (the crush resolver's QP over tangent
// half-planes), which pushes it out of what it overlaps.
static void SettleRobot(lsSim* sim, int i, const lsCollisionWorld* cw)
{
    double angle = sim->robotStates[i].angle;
    sim->robotStates[i].position = MoveBody(sim, i, cw, lsV(0.0, 0.0), 0.0, &angle).position;
    UpdateFootprint(sim, i);
}

// Robot i placed overlapping something (at the start, or left inside what an edit added) goes to the nearest free
// place, clear of the solids, the moving walls, the vehicles and the robots before it, so robots are placed in list
// order. First SettleRobot. That needs the centre outside what the robot overlaps: a solid dropped right onto it, or
// a robot placed on another's centre, defeats it. Then, when it still overlaps a robot before it (or, when `anything`
// is set, after an edit, anything it is placed against; a robot deliberately started in a squeeze stays there), it goes
// to the nearest free place on rings around it (a quarter of its radius apart, 24 directions each, up to 50 radii
// away), bisects back towards where it was along that direction for the edge of the free space, and settles there.
// budget counts circle tests.
static void PlaceRobot(lsSim* sim, int i, bool anything, int64_t* budget)
{
    lsRobotState* robot = &sim->robotStates[i];
    double radius = sim->robots[i].boundingRadius;
    lsCollisionWorld cw = PlaceWorld(sim, i, 3.0 * radius); // the resolution moves it by less than its radius
    SettleRobot(sim, i, &cw);
    lsCollisionWorld robots = {
        NULL, NULL, NULL, 0, cw.circles + sim->state.vehicleCount, cw.circleCount - sim->state.vehicleCount, -1};
    if (lsCollisionWorld_Clearance(anything ? &cw : &robots, robot->position, radius, radius) >= -LS_CONTACT_SKIN)
    {
        return;
    }
    lsVec2 start = robot->position;
    cw = PlaceWorld(sim, i, 51.0 * radius);
    for (int ring = 1; ring <= 200 && *budget > 0; ++ring)
    {
        for (int k = 0; k < 24; ++k)
        {
            double angle = 2.0 * LS_PI * k / 24.0;
            lsVec2 u = lsV(cos(angle), sin(angle));
            double hi = 0.25 * radius * ring;
            lsVec2 at = lsMulAdd(start, hi, u);
            *budget -= cw.circleCount + 1;
            if (!IsCoordinate(at) || lsCollisionWorld_Clearance(&cw, at, radius, radius) <= LS_CONTACT_SKIN)
            {
                continue; // taken, or beyond the coordinates' bound
            }
            // Free there: bisect back towards the start for the edge of the free space along this direction.
            double lo = hi - 0.25 * radius;
            for (int b = 0; b < 30; ++b)
            {
                double mid = 0.5 * (lo + hi);
                bool free = lsCollisionWorld_Clearance(&cw, lsMulAdd(start, mid, u), radius, radius) > LS_CONTACT_SKIN;
                lo = free ? lo : mid;
                hi = free ? mid : hi;
            }
            robot->position = lsMulAdd(start, hi, u);
            SettleRobot(sim, i, &cw);
            return;
        }
    }
}

void lsSim_Reset(lsSim* sim, uint64_t seed)
{
    LS_ASSERT(sim != NULL);
    const lsWorld* world = sim->world;
    // The world must not have changed shape under the sim (the caller keeps it unchanged).
    LS_ASSERT(world->targetCount == sim->state.targetCount && world->vehicleCount == sim->state.vehicleCount &&
              world->moverCount == sim->state.moverCount && lsWorld_RobotCount(world) == sim->robotCount);
    sim->seed = seed;
    sim->rng = lsMakeRng(seed);

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
    // A robot drives at most maxSpeed * dt in a step, and a push moves it by about its pusher's overlap, no farther:
    // the slack covers both (a moving wall may carry a robot farther; then the turns after it ask the index).
    sim->slack = 0.0;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        sim->slack = lsFmax(sim->slack, 2.0 * sim->robots[i].def->maxSpeed * state->dt);
    }
    for (int i = 0; i < sim->robotCount; ++i)
    {
        SimRobot* r = &sim->robots[i];
        // Separate streams for respawns, lidar noise and the autopilot, so using one never shifts another.
        r->lidarRng = lsMakeRng(r->def->lidar.seed ^ (seed * 0x9E3779B97F4A7C15ull) ^ RobotStream(i));
        r->autopilot = lsMakeAutopilot(seed ^ 0xA5A5A5A5DEADBEEFull ^ RobotStream(i));
        r->wasInContact = false;
        r->pushed = false;
        lsRobotState* robot = &sim->robotStates[i];
        memset(robot, 0, sizeof *robot);
        robot->position = r->def->position;
        robot->angle = lsWrapAngle(r->def->angle);
        robot->radius = r->boundingRadius;
        sim->circles[state->vehicleCount + i] = (lsCircle){robot->position, r->boundingRadius};
    }

    // A robot placed overlapping something (a solid, a robot before it) is pushed out once.
    int64_t budget = LS_PLACE_BUDGET;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        PlaceRobot(sim, i, false, &budget);
        sim->robots[i].scanDue = true;
    }
    state->scanned = false;
    TakeDueScans(sim);
    SyncFirstRobot(sim);
}

// One step with control for the first robot (first) or one control per robot (controls).
// Moving walls move their ends in straight lines within a step: every collision routine interpolates them linearly.
// A bar turning by theta in a step cuts the corner of its arc by R (1 - cos(theta / 2)) at radius R from its pivot,
// and a door turning back within a step cuts off up to half its step's travel. Such a step is cut into sub-steps, the
// fewest that keep every wall within LS_MOVER_CHORD of its true path (at most LS_MOVER_SUBSTEPS): a bar at 1 080
// degrees per second and dt 0.05 s strays 0.22 m, a robot's radius, and robots that it pushes end inside each other.
// Every other world keeps one sub-step, so it steps as it always did.
#define LS_MOVER_CHORD 0.01
#define LS_MOVER_SUBSTEPS 16

static int MoverSubsteps(const lsSim* sim)
{
    const lsWorld* world = sim->world;
    double dt = sim->state.dt, t0 = (double)sim->state.step * dt;
    int substeps = 1;
    for (int i = 0; i < sim->state.moverCount; ++i)
    {
        const lsMoverDef* m = &world->movers[i];
        if (m->kind == ls_moverDoor)
        {
            // A door's ends move at |offset| 2 / period, turning back at phases 0 and 1/2: a sub-step of length h
            // that holds a turn strays at most speed h / 2 from the door's path.
            double p0 = t0 / m->period + m->phase, p1 = p0 + dt / m->period;
            if (floor(2.0 * p1) != floor(2.0 * p0))
            {
                double stray = lsLength(m->offset) / m->period * dt;
                substeps = (int)lsFmin(lsFmax(substeps, ceil(stray / LS_MOVER_CHORD)), LS_MOVER_SUBSTEPS);
            }
            continue;
        }
        double radius = lsFmax(lsDistance(m->a, m->pivot), lsDistance(m->b, m->pivot));
        double turn = fabs(m->angularSpeed) * dt;
        // 1 - cos(x / 2) = 2 sin^2(x / 4), which keeps its precision for small turns; past half a turn per sub-step
        // the chord strays by the whole diameter.
        while (substeps < LS_MOVER_SUBSTEPS)
        {
            double part = lsFmin(turn / substeps, LS_PI);
            double s = sin(0.25 * part);
            if (2.0 * radius * s * s <= LS_MOVER_CHORD)
            {
                break;
            }
            substeps += 1;
        }
    }
    return substeps;
}

static void Step(lsSim* sim, const lsControl* controls, const lsControl* first)
{
    LS_ASSERT(sim != NULL);
    Phase(sim, ls_phaseOther);
    lsSimState* state = &sim->state;
    const lsWorld* world = sim->world;
    state->scanned = false;
    long long next = state->step + 1;
    double t1 = (double)next * state->dt;

    int substeps = MoverSubsteps(sim);
    sim->stepDt = state->dt / substeps;
    for (int k = 1; k <= substeps; ++k)
    {
        double t = k == substeps ? t1 : ((double)state->step + (double)k / substeps) * state->dt;
        sim->moverTravel = 0.0;
        for (int i = 0; i < state->moverCount; ++i)
        {
            sim->moversPrevious[i] = sim->movers[i];
            sim->movers[i] = lsMover_SegmentAt(&world->movers[i], t);
            sim->moverTravel = lsFmax(sim->moverTravel, lsFmax(lsDistance(sim->moversPrevious[i].a, sim->movers[i].a),
                                                               lsDistance(sim->moversPrevious[i].b, sim->movers[i].b)));
        }
        sim->holdCommands = k > 1;
        StepVehicles(sim);
        StepRobots(sim, controls, first);
        PushTargets(sim);
    }
    sim->holdCommands = false;
    CountCrushes(sim);

    state->step = next;
    state->time = t1;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        sim->robotStates[i].scanned = false;
        sim->robots[i].scanDue = ScanSlot(sim, i, next) != ScanSlot(sim, i, next - 1);
    }
    TakeDueScans(sim);
    SyncFirstRobot(sim);
}

void lsSim_Step(lsSim* sim, const lsControl* control) { Step(sim, NULL, control); }

void lsSim_StepRobots(lsSim* sim, const lsControl* controls)
{
    LS_ASSERT(sim != NULL);
    if (controls == NULL)
    {
        // Every robot by its controller; the first one too (lsSim_Step(sim, NULL) would brake it instead).
        lsControl first = ChooseControl(sim, 0, NULL);
        Step(sim, NULL, &first);
        return;
    }
    Step(sim, controls, NULL);
}

const lsSimState* lsSim_GetState(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return &sim->state;
}

const lsScan* lsSim_GetScan(const lsSim* sim) { return lsSim_GetRobotScan(sim, 0); }

// What a caller gives is checked, never asserted (docs/library.md): a robot index names one of the sim's robots.
static bool IsRobot(const lsSim* sim, int robot) { return sim != NULL && robot >= 0 && robot < sim->robotCount; }

const lsScan* lsSim_GetRobotScan(const lsSim* sim, int robot)
{
    if (!IsRobot(sim, robot))
    {
        return NULL;
    }
    return sim->robots[robot].scan;
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

void lsSim_SetPool(lsSim* sim, lsPool* pool)
{
    LS_ASSERT(sim != NULL);
    sim->pool = pool;
}

bool lsSim_SetBeams(lsSim* sim, int beams) { return lsSim_SetRobotBeams(sim, 0, beams); }

bool lsSim_SetRobotBeams(lsSim* sim, int robot, int beams)
{
    if (!IsRobot(sim, robot))
    {
        return false;
    }
    SimRobot* r = &sim->robots[robot];
    beams = beams < 1 ? 1 : (beams > LS_MAX_BEAMS ? LS_MAX_BEAMS : beams);
    if (beams > r->scan->capacity)
    {
        lsDestroyScan(r->scan);
        r->scan = lsCreateScan(beams);
    }
    r->lidar.beams = beams;
    lsDynamicObjects dyn = DynamicObjects(sim);
    TakeScan(sim, robot, &dyn);
    sim->state.scanned = true;
    SyncFirstRobot(sim);
    return true;
}

int lsSim_GetBeams(const lsSim* sim) { return lsSim_GetRobotBeams(sim, 0); }

int lsSim_GetRobotBeams(const lsSim* sim, int robot)
{
    if (!IsRobot(sim, robot))
    {
        return -1;
    }
    return sim->robots[robot].lidar.beams;
}

lsControl lsSim_AutopilotControl(lsSim* sim) { return lsSim_RobotAutopilotControl(sim, 0); }

lsControl lsSim_RobotAutopilotControl(lsSim* sim, int robot)
{
    if (!IsRobot(sim, robot))
    {
        return lsMakeManualControl(0.0, 0.0);
    }
    SimRobot* r = &sim->robots[robot];
    bool fresh = !r->autopilotFresh;
    r->autopilotFresh = true;
    return lsAutopilot_Decide(&r->autopilot, r->scan, sim->scene, r->def, &sim->robotStates[robot], sim->state.time,
                              fresh);
}

// ---------------------------------------------------------------------------------------------------------------------
// Live editing: the moving state of a sim carried over to a sim of the edited world

// An object's identity across an edit: the exact bits of its definition. Objects whose keys are equal in the old and
// the new world were not touched by the edit.
#define LS_KEY_WORDS 12

typedef struct MatchKey
{
    uint64_t words[LS_KEY_WORDS];
    int index;
} MatchKey;

static void KeyPut(MatchKey* key, int* used, double x)
{
    LS_ASSERT(*used < LS_KEY_WORDS);
    memcpy(&key->words[*used], &x, sizeof x);
    *used += 1;
}

static int CompareKeys(const void* a, const void* b)
{
    const MatchKey* x = a;
    const MatchKey* y = b;
    for (int i = 0; i < LS_KEY_WORDS; ++i)
    {
        if (x->words[i] != y->words[i])
        {
            return x->words[i] < y->words[i] ? -1 : 1;
        }
    }
    return (x->index > y->index) - (x->index < y->index);
}

// For each of the n new keys, the index of an equal old key (each old key used once, the first of equals first), or
// -1. O((n + m) log m): an edit can shift every index after the one it removed.
static void MatchKeys(MatchKey* oldKeys, int m, const MatchKey* newKeys, int n, int* match)
{
    qsort(oldKeys, (size_t)m, sizeof(MatchKey), CompareKeys);
    bool* used = lsAllocZero((size_t)(m > 0 ? m : 1), sizeof(bool));
    for (int i = 0; i < n; ++i)
    {
        match[i] = -1;
        // Lower bound of the new key's words among the old keys (index -1 sorts before every real index).
        MatchKey probe = newKeys[i];
        probe.index = -1;
        int lo = 0, hi = m;
        while (lo < hi)
        {
            int mid = lo + (hi - lo) / 2;
            if (CompareKeys(&oldKeys[mid], &probe) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int k = lo; k < m && memcmp(oldKeys[k].words, probe.words, sizeof probe.words) == 0; ++k)
        {
            if (!used[k])
            {
                used[k] = true;
                match[i] = oldKeys[k].index;
                break;
            }
        }
    }
    lsFree(used, (size_t)(m > 0 ? m : 1) * sizeof(bool));
}

static MatchKey TargetKey(const lsTargetDef* def, int index)
{
    MatchKey key;
    memset(&key, 0, sizeof key);
    key.index = index;
    int used = 0;
    KeyPut(&key, &used, def->center.x);
    KeyPut(&key, &used, def->center.y);
    KeyPut(&key, &used, def->radius);
    KeyPut(&key, &used, (double)def->kind);
    KeyPut(&key, &used, def->reflectance);
    return key;
}

// path is the index of the vehicle's path in the OLD world (-1 when its path is new), so a vehicle on a path that
// survived keeps its identity even when paths before it were removed.
static MatchKey VehicleKey(const lsVehicleDef* def, int path, int index)
{
    MatchKey key;
    memset(&key, 0, sizeof key);
    key.index = index;
    int used = 0;
    KeyPut(&key, &used, (double)path);
    KeyPut(&key, &used, def->position.x);
    KeyPut(&key, &used, def->position.y);
    KeyPut(&key, &used, def->velocity.x);
    KeyPut(&key, &used, def->velocity.y);
    KeyPut(&key, &used, def->maxSpeed);
    KeyPut(&key, &used, def->maxForce);
    KeyPut(&key, &used, def->radius);
    KeyPut(&key, &used, (double)def->pathEnd);
    KeyPut(&key, &used, def->reflectance);
    return key;
}

// The old world's index of the path with the new path's id (ids are unique), or -1.
static int OldPathIndex(const lsWorld* before, const lsPathDef* path)
{
    for (int i = 0; i < before->pathCount; ++i)
    {
        if (strcmp(before->paths[i].id, path->id) == 0)
        {
            return i;
        }
    }
    return -1;
}

static void CarryTargets(lsSim* sim, const lsSim* old)
{
    const lsWorld* world = sim->world;
    const lsWorld* before = old->world;
    int n = world->targetCount, m = before->targetCount;
    MatchKey* oldKeys = lsAlloc((size_t)(m > 0 ? m : 1) * sizeof(MatchKey));
    MatchKey* newKeys = lsAlloc((size_t)(n > 0 ? n : 1) * sizeof(MatchKey));
    int* match = lsAlloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    for (int i = 0; i < m; ++i)
        oldKeys[i] = TargetKey(&before->targets[i], i);
    for (int i = 0; i < n; ++i)
        newKeys[i] = TargetKey(&world->targets[i], i);
    MatchKeys(oldKeys, m, newKeys, n, match);
    for (int i = 0; i < n; ++i)
    {
        if (match[i] >= 0)
        {
            // Collected (and not respawned) stays collected; a respawned target stays where it respawned.
            sim->targets[i] = old->targets[match[i]];
            lsScene_SetTarget(sim->scene, i, sim->targets[i].center, sim->targets[i].active);
        }
    }
    lsFree(match, (size_t)(n > 0 ? n : 1) * sizeof(int));
    lsFree(newKeys, (size_t)(n > 0 ? n : 1) * sizeof(MatchKey));
    lsFree(oldKeys, (size_t)(m > 0 ? m : 1) * sizeof(MatchKey));
}

// The same polyline (points and closure; the radius and id do not move arc lengths).
static bool SamePath(const lsPathDef* a, const lsPathDef* b)
{
    if (a->pointCount != b->pointCount || a->closed != b->closed)
    {
        return false;
    }
    for (int i = 0; i < a->pointCount; ++i)
    {
        if (!lsVecEqual(a->points[i], b->points[i]))
        {
            return false;
        }
    }
    return true;
}

static void CarryVehicles(lsSim* sim, const lsSim* old)
{
    const lsWorld* world = sim->world;
    const lsWorld* before = old->world;
    int n = world->vehicleCount, m = before->vehicleCount;
    int* pathMap = lsAlloc((size_t)(world->pathCount > 0 ? world->pathCount : 1) * sizeof(int));
    for (int p = 0; p < world->pathCount; ++p)
        pathMap[p] = OldPathIndex(before, &world->paths[p]);
    MatchKey* oldKeys = lsAlloc((size_t)(m > 0 ? m : 1) * sizeof(MatchKey));
    MatchKey* newKeys = lsAlloc((size_t)(n > 0 ? n : 1) * sizeof(MatchKey));
    int* match = lsAlloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    for (int i = 0; i < m; ++i)
        oldKeys[i] = VehicleKey(&before->vehicles[i], before->vehicles[i].path, i);
    for (int i = 0; i < n; ++i)
        newKeys[i] = VehicleKey(&world->vehicles[i], pathMap[world->vehicles[i].path], i);
    MatchKeys(oldKeys, m, newKeys, n, match);
    for (int i = 0; i < n; ++i)
    {
        // A new path (-1) never matches an old vehicle: its keys would need an old path index of -1.
        if (match[i] >= 0 && pathMap[world->vehicles[i].path] >= 0)
        {
            lsVehicleState carried = old->vehicles[match[i]];
            carried.path = world->vehicles[i].path;
            // Its progress is an arc length along the old path: on a path whose points changed it is found again.
            if (!SamePath(&world->paths[carried.path], &before->paths[pathMap[carried.path]]))
            {
                carried.tracking = false;
            }
            sim->vehicles[i] = carried;
            sim->circles[i] = (lsCircle){carried.position, carried.radius};
        }
    }
    lsFree(match, (size_t)(n > 0 ? n : 1) * sizeof(int));
    lsFree(newKeys, (size_t)(n > 0 ? n : 1) * sizeof(MatchKey));
    lsFree(oldKeys, (size_t)(m > 0 ? m : 1) * sizeof(MatchKey));
    lsFree(pathMap, (size_t)(world->pathCount > 0 ? world->pathCount : 1) * sizeof(int));
}

// The old sim's robot with robot i's id (ids are unique), or -1.
static int OldRobotIndex(const lsSim* old, const lsRobotDef* def)
{
    for (int j = 0; j < old->robotCount; ++j)
    {
        if (strcmp(lsWorld_GetRobot(old->world, j)->id, def->id) == 0)
        {
            return j;
        }
    }
    return -1;
}

// A robot's run: what CarryRobot reads, copied out of a sim (lsCreateRobotRun) or of the old sim's robot in place.
struct lsRobotRun
{
    char id[LS_ROBOT_ID_CAPACITY];
    lsVec2 startPosition; ///< its def's start pose: a robot of its id with another one is another robot
    double startAngle;
    lsRobotState state;
    lsRng lidarRng;
    lsAutopilot autopilot;
    bool wasInContact;
};

// Robot j's run in sim.
static void SaveRun(const lsSim* sim, int j, lsRobotRun* run)
{
    const SimRobot* r = &sim->robots[j];
    memcpy(run->id, r->def->id, sizeof run->id);
    run->startPosition = r->def->position;
    run->startAngle = r->def->angle;
    run->state = sim->robotStates[j];
    run->lidarRng = r->lidarRng;
    run->autopilot = r->autopilot;
    run->wasInContact = r->wasInContact;
}

lsRobotRun* lsCreateRobotRun(const lsSim* sim, int robot)
{
    LS_ASSERT(sim != NULL && robot >= 0 && robot < sim->robotCount);
    lsRobotRun* run = lsAlloc(sizeof(lsRobotRun));
    SaveRun(sim, robot, run);
    return run;
}

void lsDestroyRobotRun(lsRobotRun* run)
{
    if (run != NULL)
    {
        lsFree(run, sizeof(lsRobotRun));
    }
}

// Robot i takes over a run (the old sim's robot of its id, or one brought back): pose and speeds (unless the edit
// moved its start pose: then the user put it somewhere on purpose, and it starts there, at rest), its share of the
// score, its noise stream and its autopilot's memory. Its footprint and limits are the new world's.
static void CarryRobot(lsSim* sim, int i, const lsRobotRun* run)
{
    SimRobot* r = &sim->robots[i];
    lsRobotState* robot = &sim->robotStates[i];
    const lsRobotState* before = &run->state;
    r->lidarRng = run->lidarRng;
    r->autopilot = run->autopilot;
    robot->score = before->score;
    robot->food = before->food;
    robot->poison = before->poison;
    robot->collisions = before->collisions;
    robot->crushes = before->crushes;
    robot->distance = before->distance;
    const lsRobotDef* start = r->def;
    if (!lsVecEqual(start->position, run->startPosition) || start->angle != run->startAngle)
    {
        return;
    }
    robot->position = before->position;
    robot->angle = before->angle;
    robot->v = lsFmin(lsFmax(before->v, -start->maxSpeed), start->maxSpeed);
    robot->w = lsFmin(lsFmax(before->w, -start->maxTurnRate), start->maxTurnRate);
    robot->commandV = before->commandV;
    robot->commandW = before->commandW;
    robot->inContact = before->inContact;
    r->wasInContact = run->wasInContact;
    UpdateFootprint(sim, i);
}

// The first of runs with def's id and start pose, or -1.
static int RunIndex(const lsRobotRun* const* runs, int runCount, const lsRobotDef* def)
{
    for (int k = 0; k < runCount; ++k)
    {
        const lsRobotRun* run = runs[k];
        if (strcmp(run->id, def->id) == 0 && lsVecEqual(run->startPosition, def->position) &&
            run->startAngle == def->angle)
        {
            return k;
        }
    }
    return -1;
}

void lsSim_CarryOver(lsSim* sim, const lsSim* old) { lsSim_CarryOverFrom(sim, old, NULL, 0, NULL); }

void lsSim_CarryOverFrom(lsSim* sim, const lsSim* old, const lsRobotRun* const* runs, int runCount, bool* used)
{
    LS_ASSERT(sim != NULL && old != NULL && sim != old && runCount >= 0 && (runs != NULL || runCount == 0));
    const lsWorld* world = sim->world;
    lsSimState* state = &sim->state;
    const lsSimState* was = &old->state;
    // Time, and with it the moving walls' phase (pure functions of time). A changed dt keeps the time as near as
    // a whole number of the new steps allows, so step * dt stays the sim's clock.
    state->step = was->dt == state->dt ? was->step : llround(was->time / state->dt);
    state->time = (double)state->step * state->dt;
    for (int i = 0; i < state->moverCount; ++i)
    {
        sim->movers[i] = lsMover_SegmentAt(&world->movers[i], state->time);
        sim->moversPrevious[i] = sim->movers[i];
    }

    // Score and counters, the generators and the autopilot's memory: the run goes on as if nothing had happened.
    state->score = was->score;
    state->food = was->food;
    state->poison = was->poison;
    state->collisions = was->collisions;
    state->crushes = was->crushes;
    state->distance = was->distance;
    sim->seed = old->seed;
    sim->rng = old->rng;

    CarryTargets(sim, old);
    CarryVehicles(sim, old);

    // Robots by id; one left overlapping what the edit added (a box dropped on it, a wall drawn through it, a robot
    // moved onto it) goes to the nearest free place.
    for (int k = 0; used != NULL && k < runCount; ++k)
    {
        used[k] = false;
    }
    for (int i = 0; i < sim->robotCount; ++i)
    {
        int j = OldRobotIndex(old, sim->robots[i].def);
        if (j >= 0)
        {
            lsRobotRun run;
            SaveRun(old, j, &run);
            CarryRobot(sim, i, &run);
        }
        else if ((j = RunIndex(runs, runCount, sim->robots[i].def)) >= 0)
        {
            // A robot brought back (an undone deletion) resumes the run it had when it went; the fleet's totals,
            // which kept its share, are old's.
            CarryRobot(sim, i, runs[j]);
            if (used != NULL)
            {
                used[j] = true;
            }
        }
    }
    int64_t budget = LS_PLACE_BUDGET;
    for (int i = 0; i < sim->robotCount; ++i)
    {
        PlaceRobot(sim, i, true, &budget);
        sim->robots[i].scanDue = true;
    }
    state->scanned = false;
    TakeDueScans(sim);
    SyncFirstRobot(sim);
}

// ---------------------------------------------------------------------------------------------------------------------
// Determinism

uint64_t lsSim_Hash(const lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    const lsSimState* s = &sim->state;
    uint64_t h = LS_HASH_BASIS;
    lsHashDouble(&h, s->time);
    int64_t counters[4] = {s->step, s->food, s->poison, s->collisions};
    lsHashBytes(&h, counters, sizeof counters);
    lsHashDouble(&h, s->score);
    lsHashDouble(&h, s->distance);
    lsHashVec(&h, s->robot.position);
    lsHashDouble(&h, s->robot.angle);
    lsHashDouble(&h, s->robot.v);
    lsHashDouble(&h, s->robot.w);
    for (int i = 0; i < s->targetCount; ++i)
    {
        lsHashVec(&h, s->targets[i].center);
        unsigned char active = s->targets[i].active ? 1 : 0;
        lsHashBytes(&h, &active, 1);
    }
    for (int i = 0; i < s->vehicleCount; ++i)
    {
        lsHashVec(&h, s->vehicles[i].position);
        lsHashVec(&h, s->vehicles[i].velocity);
    }
    for (int i = 0; i < s->moverCount; ++i)
    {
        lsHashVec(&h, s->movers[i].a);
        lsHashVec(&h, s->movers[i].b);
    }
    // The other robots (none in a one-robot world, whose hash is thus what it always was).
    for (int i = 1; i < s->robotCount; ++i)
    {
        lsHashVec(&h, s->robots[i].position);
        lsHashDouble(&h, s->robots[i].angle);
        lsHashDouble(&h, s->robots[i].v);
        lsHashDouble(&h, s->robots[i].w);
        int64_t robotCounters[4] = {s->robots[i].food, s->robots[i].poison, s->robots[i].collisions,
                                    s->robots[i].crushes};
        lsHashBytes(&h, robotCounters, sizeof robotCounters);
    }
    return h;
}

// ---------------------------------------------------------------------------------------------------------------------
// Replay (core/sim_replay.h)

lsSimReplayAccess lsSim_ReplayAccess(lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    return (lsSimReplayAccess){&sim->state, sim->robotStates, sim->targets, sim->vehicles};
}

lsScan* lsSim_ReplayScan(lsSim* sim, int robot)
{
    LS_ASSERT(sim != NULL && robot >= 0 && robot < sim->robotCount);
    return sim->robots[robot].scan;
}

void lsSim_ReplaySync(lsSim* sim)
{
    LS_ASSERT(sim != NULL);
    lsSimState* state = &sim->state;
    for (int i = 0; i < state->moverCount; ++i)
    {
        sim->movers[i] = lsMover_SegmentAt(&sim->world->movers[i], state->time);
        sim->moversPrevious[i] = sim->movers[i];
    }
    for (int i = 0; i < state->vehicleCount; ++i)
    {
        sim->circles[i].center = sim->vehicles[i].position;
    }
    for (int i = 0; i < sim->robotCount; ++i)
    {
        UpdateFootprint(sim, i);
    }
    SyncFirstRobot(sim);
}

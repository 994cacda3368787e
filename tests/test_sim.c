// Tests of the simulation: kinematics against closed form, the robot never ending a step inside anything over long
// randomized runs (circle and polygon footprints, fast enough to move more than its radius per step), moving walls
// pushing rather than passing, targets and respawn, the lidar's schedule, the autopilot, and determinism.
#include "core/robot.h"
#include "test.h"

#include "core/distance.h"
#include "core/invariants.h"
#include "core/move_internal.h"
#include "lidarsim/agent.h"
#include "lidarsim/scene.h"
#include "lidarsim/sim.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Worlds

static void AddRect(lsWorld* world, double x0, double y0, double x1, double y1)
{
    lsVec2 points[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    lsWorld_AddWall(world, points, 4, true);
}

static void AddSegment(lsWorld* world, double x0, double y0, double x1, double y1)
{
    lsVec2 points[2] = {{x0, y0}, {x1, y1}};
    lsWorld_AddWall(world, points, 2, false);
}

// A 20 x 20 m room with inner walls, corners, a narrow gap (just wider than the robot), a gap narrower than the
// robot, a box and a polygon. Fast robot: up to 30 m/s, i.e. 0.5 m per 1/60 s step, twice its radius.
static lsWorld* MakeObstacleWorld(double maxSpeed)
{
    lsWorld* world = lsCreateWorld();
    AddRect(world, -10.0, -10.0, 10.0, 10.0);
    // A wall across the room with a gap of 0.52 m (robot diameter 0.5) and one of 0.4 m.
    AddSegment(world, -10.0, 0.0, -3.0, 0.0);
    AddSegment(world, -2.48, 0.0, 2.0, 0.0);
    AddSegment(world, 2.4, 0.0, 10.0, 0.0);
    // A corner (V shape) and a zig-zag chain.
    lsVec2 v[3] = {{3.0, 3.0}, {6.0, 6.0}, {9.0, 3.0}};
    lsWorld_AddWall(world, v, 3, false);
    lsVec2 zig[5] = {{-9.0, 5.0}, {-7.0, 7.0}, {-5.0, 5.0}, {-3.0, 7.0}, {-1.0, 5.0}};
    lsWorld_AddWall(world, zig, 5, false);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(5.0, -5.0);
    box.size = lsV(2.0, 1.0);
    box.angle = 0.4;
    lsWorld_AddBox(world, box);
    lsPolygonDef poly;
    memset(&poly, 0, sizeof poly);
    poly.count = 5;
    for (int i = 0; i < 5; ++i)
    {
        poly.points[i] = lsAdd(lsV(-5.0, -5.0), lsScale(1.2, lsDirection(2.0 * LS_PI * i / 5.0)));
    }
    poly.reflectance = 0.5;
    lsWorld_AddPolygon(world, &poly);
    world->robot.position = lsV(0.0, -5.0);
    world->robot.radius = 0.25;
    world->robot.maxSpeed = maxSpeed;
    world->robot.maxAccel = 200.0;
    world->robot.maxTurnRate = 8.0;
    world->robot.maxTurnAccel = 100.0;
    world->robot.lidar.beams = 16;
    return world;
}

// Independent check of the final pose: the true distance from the robot's footprint to every wall segment, box
// and polygon of the world, by brute force (no index, no sweep code).
static double BruteClearance(const lsWorld* world, const lsSimState* state)
{
    lsShapeProxy body;
    if (state->robot.footprintCount > 0)
    {
        body = lsMakeProxy(state->robot.footprint, state->robot.footprintCount, 0.0);
    }
    else
    {
        lsCircle c = {state->robot.position, state->robot.radius};
        body = lsProxyFromCircle(&c);
    }
    double best = HUGE_VAL;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = &world->walls[w];
        int n = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int i = 0; i < n; ++i)
        {
            lsSegment seg = {wall->points[i], wall->points[(i + 1) % wall->pointCount]};
            if (state->robot.footprintCount == 0)
            {
                best = fmin(best, lsClosestPointOnSegment(&seg, state->robot.position).distance - state->robot.radius);
            }
            else
            {
                lsShapeProxy s = lsProxyFromSegment(&seg);
                best = fmin(best, lsShapeDistance(&body, &s, NULL).distance);
            }
        }
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        lsBox box = lsMakeBox(world->boxes[i].center, world->boxes[i].size, world->boxes[i].angle);
        lsShapeProxy s = lsProxyFromBox(&box);
        lsDistanceOutput out = lsShapeDistance(&body, &s, NULL);
        best = fmin(best, out.overlap ? -1.0 : out.distance);
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        lsPolygon polygon;
        lsMakePolygon(&polygon, world->polygons[i].points, world->polygons[i].count);
        lsShapeProxy s = lsProxyFromPolygon(&polygon);
        lsDistanceOutput out = lsShapeDistance(&body, &s, NULL);
        best = fmin(best, out.overlap ? -1.0 : out.distance);
    }
    for (int i = 0; i < state->moverCount; ++i)
    {
        lsShapeProxy s = lsProxyFromSegment(&state->movers[i]);
        lsDistanceOutput out = lsShapeDistance(&body, &s, NULL);
        best = fmin(best, out.overlap ? -1.0 : out.distance);
    }
    return best;
}

// ---------------------------------------------------------------------------------------------------------------------
// Kinematics

static int KinematicsClosedForm(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.maxSpeed = 2.0;
    world->robot.maxAccel = 1.0;
    world->robot.maxTurnRate = 1.0;
    world->robot.maxTurnAccel = 2.0;
    world->robot.lidar.beams = 8;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    double dt = state->dt;

    // Straight line from rest: speed ramps at maxAccel to maxSpeed. The step integrates the speed after its
    // update, so after k steps x = dt^2 a k(k+1)/2 during the ramp: within a dt a t / 2 of the continuous a t^2/2.
    lsControl forward = lsMakeManualControl(5.0, 0.0); // clamped to maxSpeed
    for (int k = 1; k <= 600; ++k)
    {
        lsSim_Step(sim, &forward);
        double t = state->time;
        double ramp = world->robot.maxSpeed / world->robot.maxAccel;
        double x = t <= ramp ? 0.5 * world->robot.maxAccel * t * t
                             : world->robot.maxSpeed * t - 0.5 * world->robot.maxSpeed * ramp;
        ENSURE_SMALL(state->robot.position.x - x, world->robot.maxAccel * dt * ramp);
        ENSURE(state->robot.position.y == 0.0 && state->robot.angle == 0.0);
        ENSURE(state->robot.v <= world->robot.maxSpeed);
    }
    ENSURE_SMALL(state->robot.v - world->robot.maxSpeed, 0.0);
    ENSURE_SMALL(state->distance - state->robot.position.x, 1e-9);

    // Constant (v, w) once both have saturated: a circle of radius v / w about a fixed centre, angle w t.
    lsControl arc = lsMakeManualControl(1.5, 0.75);
    for (int k = 0; k < 120; ++k)
    {
        lsSim_Step(sim, &arc);
    }
    ENSURE_SMALL(state->robot.v - 1.5, 1e-12);
    ENSURE_SMALL(state->robot.w - 0.75, 1e-12);
    lsVec2 p0 = state->robot.position;
    double a0 = state->robot.angle;
    double r = 1.5 / 0.75;
    lsVec2 center = lsAdd(p0, lsScale(r, lsLeftPerp(lsDirection(a0))));
    double t0 = state->time;
    for (int k = 0; k < 1000; ++k)
    {
        lsSim_Step(sim, &arc);
        double t = state->time - t0;
        double a = a0 + 0.75 * t;
        lsVec2 expected = lsSub(center, lsScale(r, lsLeftPerp(lsDirection(a))));
        ENSURE_SMALL(lsDistance(state->robot.position, expected), 1e-9);
        ENSURE_SMALL(lsWrapAngle(state->robot.angle - a), 1e-9);
    }

    // Braking: a zero command brings it to rest within maxSpeed / maxAccel seconds.
    for (int k = 0; k < 130; ++k)
    {
        lsSim_Step(sim, NULL);
    }
    ENSURE(state->robot.v == 0.0 && state->robot.w == 0.0);
    ENSURE(state->collisions == 0);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int ActionsAndScanSchedule(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.lidar.rate = 10.0;
    world->robot.lidar.beams = 32;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    ENSURE(lsSim_GetScan(sim)->count == 32);
    int scans = 0;
    for (int k = 0; k < 600; ++k)
    {
        lsControl c = lsMakeActionControl(ls_actionForwardLeft);
        lsSim_Step(sim, &c);
        scans += state->scanned ? 1 : 0;
    }
    // 10 s at 10 scans per second.
    ENSURE(scans == 100);
    double v, w;
    lsAction_Command(ls_actionForwardLeft, &world->robot, &v, &w);
    ENSURE_SMALL(state->robot.v - v, 1e-12);
    ENSURE_SMALL(state->robot.w - w, 1e-12);
    lsAction_Command(ls_actionRight, &world->robot, &v, &w);
    ENSURE(v == 0.0 && w == -world->robot.maxTurnRate);

    lsSim_SetBeams(sim, 720);
    ENSURE(lsSim_GetBeams(sim) == 720 && lsSim_GetScan(sim)->count == 720);
    lsSim_SetBeams(sim, 0);
    ENSURE(lsSim_GetBeams(sim) == 1);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Collisions

// Drives a fast robot with random commands (changed every 0.25 s) for steps steps; after every step the footprint
// must be clear of everything (checked by brute force) and inside the outer room.
static int RandomRun(lsWorld* world, int steps, uint64_t seed, int* collisionsOut)
{
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsRng rng = lsMakeRng(seed);
    lsControl control = lsMakeManualControl(0.0, 0.0);
    double minClearance = HUGE_VAL;
    for (int k = 0; k < steps; ++k)
    {
        if (k % 15 == 0)
        {
            double v = lsRng_Range(&rng, -0.3, 1.0) * world->robot.maxSpeed;
            double turn = lsRng_Range(&rng, -1.0, 1.0);
            double w = turn * world->robot.maxTurnRate * (lsRng_Uniform(&rng) < 0.5 ? 0.1 : 1.0);
            control = lsMakeManualControl(v, w);
        }
        lsSim_Step(sim, &control);
        double clearance = BruteClearance(world, state);
        minClearance = fmin(minClearance, clearance);
        if (!(clearance > 0.0))
        {
            fprintf(stderr, "step %d: robot at (%.17g, %.17g) clearance %g\n", k, state->robot.position.x,
                    state->robot.position.y, clearance);
        }
        ENSURE(clearance > 0.0);
        ENSURE(fabs(state->robot.position.x) < 10.0 && fabs(state->robot.position.y) < 10.0);
    }
    ENSURE(minClearance < 1e-4); // it did press against things
    *collisionsOut = state->collisions;
    lsDestroySim(sim);
    return 0;
}

static int CircleNeverOverlaps(void)
{
    // At 30 m/s a step is 0.5 m, twice the radius; at 3 m/s it is slow and grinds along the walls.
    double speeds[3] = {3.0, 12.0, 30.0};
    for (int s = 0; s < 3; ++s)
    {
        lsWorld* world = MakeObstacleWorld(speeds[s]);
        int collisions = 0;
        int failed = RandomRun(world, 12000, 100 + (uint64_t)s, &collisions);
        lsDestroyWorld(world);
        ENSURE(failed == 0);
        printf("    circle speed %g: %d collisions\n", speeds[s], collisions);
        ENSURE(collisions > 10);
    }
    return 0;
}

// A footprint a million metres wide (the default world's, one vertex moved to x = -1e6; tests/data) overlaps a
// vehicle: settling it (an overlap resolved against that long sliver) put the robot at (-3.8e6, 6.3e5) m, a pose
// beyond the coordinates' bound that its own recording refused. It stays within the bound, crushed where it stood.
static int HugeFootprintStaysInBounds(void)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(LS_TEST_DATA_DIR "/huge_footprint.json", &err, NULL);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsControl drive = lsMakeManualControl(1.5, 1.0);
    for (int k = 0; k <= 60; ++k)
    {
        ENSURE(fabs(state->robot.position.x) <= 1e6 && fabs(state->robot.position.y) <= 1e6);
        lsSim_Step(sim, &drive);
    }
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Near the coordinates' bound, a respawned target (drawn from the world's bounds, which hold a bar's sweep out to 3e6
// m) and a vehicle a door pushes stay within it: both went beyond, and their run's recording was refused.
static int EdgeOfBoundsStaysInBounds(void)
{
    static const char* worlds[2] = {
        "{\"walls\": [{\"from\": [-1, -1], \"to\": [1, -1]}], \"targets\": [{\"center\": [0, 0], \"radius\": 0.3}], "
        "\"robot\": {\"pose\": [0, 0, 0]}, \"sim\": {\"seed\": 2}, \"movers\": [{\"type\": \"bar\", \"from\": "
        "[999000, 0], \"to\": [1000000, 0], \"pivot\": [-1000000, 0]}]}",
        "{\"walls\": [{\"from\": [999990, -3], \"to\": [999990, 3]}], \"robot\": {\"pose\": [999991, 2.5, 0], "
        "\"radius\": 0.2}, \"paths\": [{\"id\": \"p\", \"points\": [[999996, 0], [999999.5, 0]]}], \"vehicles\": "
        "[{\"path\": \"p\", \"position\": [999999.5, 0], \"radius\": 0.5}], \"movers\": [{\"type\": \"door\", "
        "\"from\": [999994, -1], \"to\": [999994, 1], \"offset\": [20, 0], \"period\": 8}]}"};
    for (int w = 0; w < 2; ++w)
    {
        lsError err = {{0}};
        lsWorld* world = lsLoadWorldFromString(worlds[w], strlen(worlds[w]), "edge.json", &err, NULL);
        ENSURE(world != NULL);
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        double pushed = 0.0; // how far the door took the vehicle
        for (int k = 0; k < 300; ++k)
        {
            lsSim_Step(sim, NULL);
            for (int i = 0; i < state->targetCount; ++i)
                ENSURE(fabs(state->targets[i].center.x) <= 1e6 && fabs(state->targets[i].center.y) <= 1e6);
            for (int i = 0; i < state->vehicleCount; ++i)
            {
                lsVec2 p = state->vehicles[i].position;
                ENSURE(fabs(p.x) <= 1e6 && fabs(p.y) <= 1e6);
                pushed = fmax(pushed, p.x - 999999.5);
            }
        }
        // The target was collected and came back; the door reached the vehicle and pushed it to the bound.
        ENSURE(w == 1 || (state->food == 1 && state->targets[0].active));
        ENSURE(w == 0 || pushed > 0.4);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

static int PolygonNeverOverlaps(void)
{
    double speeds[2] = {4.0, 30.0};
    for (int s = 0; s < 2; ++s)
    {
        lsWorld* world = MakeObstacleWorld(speeds[s]);
        // A 0.6 x 0.36 m rectangle with a pointed nose.
        lsVec2 footprint[5] = {{-0.3, -0.18}, {0.2, -0.18}, {0.34, 0.0}, {0.2, 0.18}, {-0.3, 0.18}};
        memcpy(world->robot.footprint, footprint, sizeof footprint);
        world->robot.footprintCount = 5;
        int collisions = 0;
        int failed = RandomRun(world, 4000, 7 + (uint64_t)s, &collisions);
        lsDestroyWorld(world);
        ENSURE(failed == 0);
        printf("    polygon speed %g: %d collisions\n", speeds[s], collisions);
        ENSURE(collisions > 5);
    }
    return 0;
}

static int SlidesAlongWalls(void)
{
    // Driving at 45 degrees into a long wall, the robot slides along it instead of stopping.
    lsWorld* world = lsCreateWorld();
    AddSegment(world, -100.0, 1.0, 100.0, 1.0);
    world->robot.angle = LS_PI / 4.0;
    world->robot.lidar.beams = 4;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsControl c = lsMakeManualControl(1.0, 0.0);
    for (int k = 0; k < 600; ++k)
    {
        lsSim_Step(sim, &c);
        ENSURE(state->robot.position.y < 1.0 - world->robot.radius);
    }
    ENSURE_SMALL(state->robot.position.y - (1.0 - world->robot.radius), 1e-5);
    ENSURE(state->robot.position.x > 2.0);
    ENSURE(state->collisions == 1);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int PolygonSlideStaysInside(void)
{
    // A square footprint driven 10 m to the left in one step meets a slanted wall at x = -1 and slides down along
    // it, 1.5 m, across a floor 0.5 m below its start. The floor lies outside the box of the commanded motion (the
    // line y = 1 grown by the footprint's reach), so obstacles gathered over that box alone missed it and the slide
    // went through. Driving straight and turning: the robot must stop on the floor, above it.
    for (int turning = 0; turning < 2; ++turning)
    {
        lsWorld* world = lsCreateWorld();
        AddSegment(world, -1.0, 3.0, -2.0, -3.0);
        AddSegment(world, -5.0, 0.5, 5.0, 0.5);
        const lsVec2 corners[4] = {{-0.1, -0.1}, {0.1, -0.1}, {0.1, 0.1}, {-0.1, 0.1}};
        memcpy(world->robot.footprint, corners, sizeof corners);
        world->robot.footprintCount = 4;
        world->robot.position = lsV(0.0, 1.0);
        world->robot.angle = LS_PI;
        world->robot.maxSpeed = 20.0;
        world->robot.maxAccel = 1e5;
        world->robot.maxTurnAccel = 1e7;
        world->robot.lidar.beams = 4;
        world->sim.dt = 0.5;
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        lsControl c = lsMakeManualControl(20.0, turning ? 0.01 : 0.0);
        lsSim_Step(sim, &c);
        lsError err = {{0}};
        ENSURE(lsSim_CheckInvariants(sim, &err));
        ENSURE(state->robot.inContact);
        ENSURE(state->robot.position.x < -1.0);
        ENSURE(state->robot.position.y > 0.5 + 0.1);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving walls

static int BarPushes(bool polygon)
{
    // A bar 4 m long turning at 3 rad/s about the origin sweeps over a robot standing still at (1.5, 0.8): the
    // bar's tip moves 0.1 m per step. The robot must be pushed around, never overlapped or passed.
    lsWorld* world = lsCreateWorld();
    if (polygon)
    {
        lsVec2 footprint[4] = {{-0.3, -0.2}, {0.3, -0.2}, {0.3, 0.2}, {-0.3, 0.2}};
        memcpy(world->robot.footprint, footprint, sizeof footprint);
        world->robot.footprintCount = 4;
    }
    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    bar.a = lsV(-2.0, 0.0);
    bar.b = lsV(2.0, 0.0);
    bar.pivot = lsV(0.0, 0.0);
    bar.angularSpeed = 3.0;
    lsWorld_AddMover(world, bar);
    world->robot.position = lsV(1.5, 0.8);
    world->robot.lidar.beams = 8;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    int pushed = 0;
    for (int k = 0; k < 300; ++k)
    {
        lsVec2 before = state->robot.position;
        lsSim_Step(sim, NULL);
        ENSURE(BruteClearance(world, state) > 0.0);
        pushed += lsVecEqual(before, state->robot.position) ? 0 : 1;
    }
    ENSURE(pushed > 0);
    ENSURE(state->collisions >= 1);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int BarPushesRobot(void) { return BarPushes(false); }
static int BarPushesPolygonRobot(void) { return BarPushes(true); }

// A bar turning 54 degrees a step (1 080 degrees per second at dt 0.05 s) over a robot standing 1.9 m from its
// pivot, half way into the step's turn. Interpolated end to end, the bar's segment passes there 1.78 m long and
// missed the robot, which the turning bar sweeps: the step is cut into sub-steps (sim.c's MoverSubsteps), and the bar
// pushes the robot ahead of it, around the pivot, past where the bar ends the step.
static int FastBarSubsteps(void)
{
    lsWorld* world = lsCreateWorld();
    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    bar.a = lsV(-2.0, 0.0);
    bar.b = lsV(2.0, 0.0);
    bar.pivot = lsV(0.0, 0.0);
    bar.angularSpeed = 6.0 * LS_PI;
    lsWorld_AddMover(world, bar);
    world->sim.dt = 0.05;
    world->robot.radius = 0.1;
    double half = 0.5 * bar.angularSpeed * world->sim.dt;
    world->robot.position = lsV(1.9 * cos(half), 1.9 * sin(half));
    world->robot.lidar.beams = 8;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsVec2 start = state->robot.position;
    lsSim_Step(sim, NULL);
    ENSURE(BruteClearance(world, state) > 0.0);
    lsVec2 p = state->robot.position;
    ENSURE(lsDistance(p, start) > 0.5);
    ENSURE(atan2(p.y, p.x) > 2.0 * half);
    ENSURE(state->collisions == 1);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int FastDoorNeverPassesTargets(void)
{
    // A door moving 6 m in a quarter second (1.6 m per step) past targets placed at random on its path: each
    // target is caught by the exact moving-point sweep and pushed, staying on the side it started.
    lsWorld* world = lsCreateWorld();
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(-3.0, -5.0);
    door.b = lsV(-3.0, 5.0);
    door.offset = lsV(6.0, 0.0);
    door.period = 0.5;
    door.phase = 0.0;
    lsWorld_AddMover(world, door);
    lsRng rng = lsMakeRng(99);
    for (int i = 0; i < 40; ++i)
    {
        lsTargetDef t = lsDefaultTargetDef();
        t.center = lsTestRandomPoint(&rng, -2.9, 2.9, -4.0, 4.0);
        t.radius = 0.05;
        lsWorld_AddTarget(world, t);
    }
    world->robot.position = lsV(0.0, 20.0);
    world->robot.lidar.beams = 4;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    for (int k = 0; k < 15; ++k)
    {
        lsSim_Step(sim, NULL);
        // While the door moves right (first half period) every target is right of it.
        double phase = fmod(state->time / door.period, 1.0);
        if (phase > 0.0 && phase < 0.5)
        {
            for (int i = 0; i < state->targetCount; ++i)
            {
                ENSURE(state->targets[i].center.x > state->movers[0].a.x);
            }
        }
    }
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Runs sim for steps idle steps, checking lsSim_CheckInvariants after each; returns the robot's deepest overlap with
// anything solid by BruteClearance (0 when always apart; 1 stands for any overlap with a box, polygon or moving wall).
static double RunIdleChecked(lsSim* sim, const lsWorld* world, int steps, bool* invariantsHeld)
{
    const lsSimState* state = lsSim_GetState(sim);
    double deepest = 0.0;
    *invariantsHeld = true;
    for (int k = 0; k < steps; ++k)
    {
        lsSim_Step(sim, NULL);
        lsError err = {{0}};
        if (!lsSim_CheckInvariants(sim, &err))
        {
            if (*invariantsHeld)
            {
                printf("    step %d: %s\n", k, err.message);
            }
            *invariantsHeld = false;
        }
        deepest = fmax(deepest, -BruteClearance(world, state));
    }
    return deepest;
}

static int DoorSqueezesAgainstWall(void)
{
    // The hardening engineer's reproduction: a door slides down onto the end of a static wall and squeezes an idle
    // robot straddling the wall's line between the two ends. A free place exists (to the left, off the line), so
    // over a whole door period the robot must never be left overlapping the door or the wall.
    lsWorld* world = lsCreateWorld();
    AddSegment(world, 10.0, 0.0, 10.0, 7.0);
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(10.0, 7.0);
    door.b = lsV(10.0, 10.0);
    door.offset = lsV(0.0, 2.8);
    door.period = 6.0;
    door.phase = 0.5;
    lsWorld_AddMover(world, door);
    world->robot.position = lsV(9.95, 7.26);
    world->robot.radius = 0.25;
    world->robot.lidar.beams = 8;
    lsSim* sim = lsCreateSim(world);
    bool held;
    double deepest = RunIdleChecked(sim, world, 2 * 360, &held);
    printf("    door squeeze: deepest overlap %.3g (m, or 1: overlap), robot ends at (%.6f, %.6f)\n", deepest,
           lsSim_GetState(sim)->robot.position.x, lsSim_GetState(sim)->robot.position.y);
    ENSURE(held);
    ENSURE(deepest <= 1e-9);
    // It was squeezed out to the left, off the wall's line.
    ENSURE(lsSim_GetState(sim)->robot.position.x <= 10.0 - 0.2);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A bar turning 30 degrees a step sweeps over a circle of radius 0.15 resting 0.3 from its pivot, which it left half
// its radius ahead the step before: the bar's end segment passes exactly through the centre, which rounding puts on
// the wall's closest point while the exact orientation still gives the side it came from. The push had no direction
// there: the circle stayed with the bar through it (a crowd's robot orbiting the pivot, issue 15). It goes ahead of
// the bar, clear of it, on the side it was on.
static int BarOverCentre(void)
{
    lsSegment before = {{10.0, 8.0000000000002487}, {6.0, 7.9999999999997513}};
    lsSegment after = {{9.7320508075687364, 9.0000000000002451}, {6.2679491924312645, 6.9999999999997549}};
    lsVec2 start = {8.2598093531861068, 8.1500010000000316};
    lsCollisionWorld cw = {NULL, &before, &after, 1, NULL, 0, -1};
    lsMoveResult moved = lsMoveCircle(&cw, start, lsV(0.0, 0.0), 0.15);
    ENSURE(lsClosestPointOnSegment(&after, moved.position).distance >= 0.15);
    ENSURE(lsOrient(after.a, after.b, moved.position) == lsOrient(before.a, before.b, start));
    ENSURE(lsDistance(moved.position, start) < 0.16);
    return 0;
}

// Squeezes whose tangent half-planes meet far off (issue 15's test crowd). Linearised there, the room's walls were
// seen from their far side and the bodies between ignored; the exact search for the nearest free place decides now.
// 1. A bar turning 240 degrees per second carries a circle into a vehicle lying nearly along the bar, in a 12 m room:
//    it went 2.1 m through the crowd to the top wall.
// 2. A robot in a row of robots along the top wall, 7e-7 m into both neighbours (their tangents nearly parallel): it
//    went 11.6 m across the room, onto a robot at the bottom wall. A move of 0.85 mm away from the wall frees it.
static int FarTangentsStayNear(void)
{
    lsWorld* world = lsCreateWorld();
    AddRect(world, 0.0, 0.0, 12.0, 12.0);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    {
        lsSegment before = {{7.7909430734646952, 9.989043790736547}, {8.2090569265353039, 6.010956209263453}};
        lsSegment after = {{7.3819660112501051, 9.9021130325903073}, {8.6180339887498949, 6.0978869674096927}};
        lsCircle vehicle = {{6.9345297553337133, 9.5663018159489681}, 0.3};
        lsVec2 start = {7.6088443729372299, 9.8082331807218264};
        lsVec2 drive = {-0.031041944674267796, -0.02522527183683998};
        lsCollisionWorld cw = {scene, &before, &after, 1, &vehicle, 1, -1};
        lsMoveResult moved = lsMoveCircle(&cw, start, drive, 0.2);
        ENSURE(lsDistance(moved.position, start) < 0.5);
        ENSURE(lsClosestPointOnSegment(&after, moved.position).distance >= 0.2);
        ENSURE(lsDistance(moved.position, vehicle.center) >= 0.5);
    }
    {
        lsSegment before = {{9.7320508075689496, 7.0000000000001243}, {6.2679491924310513, 8.9999999999998757}};
        lsSegment after = {{9.9318516525782066, 7.4823619097952232}, {6.0681483474217925, 8.5176380902047768}};
        lsCircle row[5] = {{{11.399998, 11.799999}, 0.2},
                           {{9.9170673369769009, 11.799999030132019}, 0.29154759474226499},
                           {{11.799999, 11.799999}, 0.2},
                           {{10.808616198147604, 11.799999}, 0.2},
                           {{10.830545446295906, 11.106852899974573}, 0.15}};
        lsVec2 start = {10.408615198147604, 11.799999};
        lsCollisionWorld cw = {scene, &before, &after, 1, row, 5, -1};
        lsMoveResult moved = lsMoveCircle(&cw, start, lsV(0.0, 0.0), 0.2);
        ENSURE(lsDistance(moved.position, start) < 0.01);
        for (int i = 0; i < 5; ++i)
        {
            ENSURE(lsDistance(moved.position, row[i].center) >= row[i].radius + 0.2);
        }
        ENSURE(moved.position.y <= 12.0 - 0.2 && moved.position.x <= 12.0 - 0.2);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Distance from p to segment ab, written apart from the library's (a reference).
static double RefSegmentDistance(lsVec2 p, lsVec2 a, lsVec2 b)
{
    lsVec2 e = lsSub(b, a);
    double ee = lsDot(e, e);
    double t = ee > 0.0 ? lsDot(lsSub(p, a), e) / ee : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return lsDistance(p, lsMulAdd(a, t, e));
}

static bool RefProperlyCross(lsVec2 p, lsVec2 q, lsVec2 a, lsVec2 b)
{
    double s1 = lsCross(lsSub(q, p), lsSub(a, p)), s2 = lsCross(lsSub(q, p), lsSub(b, p));
    double s3 = lsCross(lsSub(b, a), lsSub(p, a)), s4 = lsCross(lsSub(b, a), lsSub(q, a));
    return s1 * s2 < 0.0 && s3 * s4 < 0.0;
}

typedef struct FreeScene
{
    lsSegment walls[6];
    int wallCount;
    lsVec2 boxes[2][4]; // corners, counter-clockwise
    int boxCount;
    lsCircle circles[6];
    int circleCount;
} FreeScene;

// True when a centre at p keeps clearance from everything and start sees it without crossing a wall or a box's
// outline (one start is not inside) or entering the clearance of a circle (one start is outside): the brute-force
// reference of lsNearestFreeCircle.
static bool RefFreeAndSeen(const FreeScene* fs, lsVec2 start, lsVec2 p, double clearance)
{
    const double tol = 1e-9;
    for (int i = 0; i < fs->wallCount; ++i)
    {
        if (RefSegmentDistance(p, fs->walls[i].a, fs->walls[i].b) < clearance - tol ||
            RefProperlyCross(start, p, fs->walls[i].a, fs->walls[i].b))
        {
            return false;
        }
    }
    for (int i = 0; i < fs->circleCount; ++i)
    {
        // The way may dip into a circle's clearance by the skin (a chord from a circle it rests against).
        double keep = fs->circles[i].radius + clearance, way = keep - 1e-6;
        bool outside = lsDistance(start, fs->circles[i].center) >= way;
        if (lsDistance(p, fs->circles[i].center) < keep - tol ||
            (outside && RefSegmentDistance(fs->circles[i].center, start, p) < way - tol))
        {
            return false;
        }
    }
    for (int b = 0; b < fs->boxCount; ++b)
    {
        bool inside = true, startInside = true;
        double distance = HUGE_VAL;
        for (int k = 0; k < 4; ++k)
        {
            lsVec2 u = fs->boxes[b][k], v = fs->boxes[b][(k + 1) % 4];
            inside = inside && lsCross(lsSub(v, u), lsSub(p, u)) > 0.0;
            startInside = startInside && lsCross(lsSub(v, u), lsSub(start, u)) > 0.0;
            distance = fmin(distance, RefSegmentDistance(p, u, v));
        }
        if (inside || distance < clearance - tol)
        {
            return false;
        }
        // The way runs through the box when a point of it lies strictly inside (sampled finely: through two opposite
        // corners crosses, along an edge does not).
        for (int step = 1; step < 400 && !startInside; ++step)
        {
            lsVec2 q = lsLerp(start, p, (double)step / 400.0);
            bool in = true;
            for (int k = 0; k < 4; ++k)
            {
                lsVec2 u = fs->boxes[b][k], v = fs->boxes[b][(k + 1) % 4];
                in = in && lsCross(lsSub(v, u), lsSub(q, u)) > 1e-9;
            }
            if (in)
            {
                return false;
            }
        }
    }
    return true;
}

// A random clutter near the origin: up to 5 walls, a box, 5 circles (bodies), in fs and (the solids) in the world.
static lsWorld* RandomClutter(lsRng* rng, FreeScene* fs)
{
    lsWorld* world = lsCreateWorld();
    fs->wallCount = (int)lsRng_Range(rng, 0.0, 6.0);
    for (int i = 0; i < fs->wallCount; ++i)
    {
        lsVec2 a = lsTestRandomPoint(rng, -1.0, 1.0, -1.0, 1.0);
        lsVec2 b = lsTestRandomPoint(rng, -1.0, 1.0, -1.0, 1.0);
        fs->walls[i] = (lsSegment){a, b};
        AddSegment(world, a.x, a.y, b.x, b.y);
    }
    fs->boxCount = (int)lsRng_Range(rng, 0.0, 2.0);
    for (int i = 0; i < fs->boxCount; ++i)
    {
        lsBoxDef box = lsDefaultBoxDef();
        box.center = lsTestRandomPoint(rng, -1.0, 1.0, -1.0, 1.0);
        double w = lsRng_Range(rng, 0.05, 0.6);
        double h = lsRng_Range(rng, 0.05, 0.6);
        box.size = lsV(w, h);
        box.angle = lsRng_Range(rng, -LS_PI, LS_PI);
        lsWorld_AddBox(world, box);
        lsBox made = lsMakeBox(box.center, box.size, box.angle);
        lsBox_Corners(&made, fs->boxes[i]);
        if (lsCross(lsSub(fs->boxes[i][1], fs->boxes[i][0]), lsSub(fs->boxes[i][2], fs->boxes[i][1])) < 0.0)
        {
            lsVec2 t = fs->boxes[i][1];
            fs->boxes[i][1] = fs->boxes[i][3];
            fs->boxes[i][3] = t;
        }
    }
    fs->circleCount = (int)lsRng_Range(rng, 0.0, 6.0);
    for (int i = 0; i < fs->circleCount; ++i)
    {
        fs->circles[i].center = lsTestRandomPoint(rng, -1.0, 1.0, -1.0, 1.0);
        fs->circles[i].radius = lsRng_Range(rng, 0.05, 0.3);
    }
    return world;
}

// lsNearestFreeCircle against a brute-force reference on random clutters of walls, boxes and circles (the other
// robots): its answer is free and seen from the start, and no free point of a fine polar grid around the start (150
// rings by 720 directions) is nearer; when some grid point is free, it finds a place.
static int NearestFreeCircleReference(void)
{
    lsRng rng = lsMakeRng(4242);
    int found = 0, moved = 0;
    for (int trial = 0; trial < 150; ++trial)
    {
        FreeScene fs = {0};
        lsWorld* world = RandomClutter(&rng, &fs);
        double radius = lsRng_Range(&rng, 0.05, 0.3);
        lsVec2 start = lsTestRandomPoint(&rng, -0.5, 0.5, -0.5, 0.5);
        double limit = 4.0 * radius;
        lsScene* scene = lsCreateScene(world);
        ENSURE(scene != NULL);
        lsCollisionWorld cw = {scene, NULL, NULL, 0, fs.circles, fs.circleCount, -1};
        lsMoveBody body = lsCircleBody(radius);
        lsVec2 place = start;
        lsFreeSearch search = lsNearestFreeCircle(&cw, &body, start, limit, &place);
        ENSURE(search != ls_freeCrowded);
        double best = HUGE_VAL;
        for (int ring = 0; ring <= 150; ++ring)
        {
            double r = limit * (double)ring / 150.0;
            for (int k = 0; k < (ring == 0 ? 1 : 720); ++k)
            {
                lsVec2 p = lsMulAdd(start, r, lsDirection(2.0 * LS_PI * (double)k / 720.0));
                if (r < best && RefFreeAndSeen(&fs, start, p, body.clearance))
                {
                    best = r;
                }
            }
        }
        if (search == ls_freeFound)
        {
            found += 1;
            moved += lsVecEqual(place, start) ? 0 : 1;
            ENSURE(lsDistance(place, start) <= limit * (1.0 + 1e-9));
            ENSURE(RefFreeAndSeen(&fs, start, place, body.clearance - 1e-9));
            ENSURE(lsDistance(place, start) <= best + 1e-9);
        }
        else
        {
            ENSURE(best == HUGE_VAL);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    150 clutters: %d free places found, %d away from the start\n", found, moved);
    ENSURE(moved > 30);
    return 0;
}

// The reference's obstacles for a footprint body (lsNearestFreeFootprint): true when the footprint at p comes nearer
// than the skin plus margin to a wall or box, or its bounding circle (reach) inside the 16-sided polygon around a
// circle grown by reach and the skin, plus margin (the search's model of a body: a polygon around the disc).
static bool RefFootprintInside(const FreeScene* fs, const lsVec2* local, int count, double angle, double reach,
                               int obstacle, lsVec2 p, double margin)
{
    lsShapeProxy body = lsMakeProxyTransformed(local, count, 0.0, (lsTransform){p, lsMakeRot(angle)});
    double keep = LS_CONTACT_SKIN + margin;
    if (obstacle < fs->wallCount)
    {
        lsShapeProxy wall = lsProxyFromSegment(&fs->walls[obstacle]);
        return lsShapeDistance(&body, &wall, NULL).distance < keep;
    }
    obstacle -= fs->wallCount;
    if (obstacle < fs->boxCount)
    {
        lsShapeProxy box = lsMakeProxy(fs->boxes[obstacle], 4, 0.0);
        return lsShapeDistance(&body, &box, NULL).distance < keep;
    }
    lsCircle c = fs->circles[obstacle - fs->boxCount];
    double outside = -HUGE_VAL;
    for (int k = 0; k < 16; ++k)
    {
        outside = fmax(outside, lsDot(lsDirection(2.0 * LS_PI * ((double)k + 0.5) / 16.0), lsSub(p, c.center)));
    }
    return outside < c.radius + reach + keep;
}

// Free at p, and seen from start: 400 points along the way enter no obstacle start is not inside (margin > 0: a
// stricter reference, < 0: a more lenient one).
static bool RefFootprintFreeAndSeen(const FreeScene* fs, const lsVec2* local, int count, double angle, double reach,
                                    lsVec2 start, lsVec2 p, double margin)
{
    int obstacles = fs->wallCount + fs->boxCount + fs->circleCount;
    for (int o = 0; o < obstacles; ++o)
    {
        if (RefFootprintInside(fs, local, count, angle, reach, o, p, margin))
        {
            return false;
        }
    }
    for (int o = 0; o < obstacles; ++o)
    {
        if (RefFootprintInside(fs, local, count, angle, reach, o, start, 0.0))
        {
            continue;
        }
        for (int k = 1; k < 400; ++k)
        {
            if (RefFootprintInside(fs, local, count, angle, reach, o, lsLerp(start, p, (double)k / 400.0), margin))
            {
                return false;
            }
        }
    }
    return true;
}

// lsNearestFreeFootprint (the separation's search for a polygon robot) against a brute-force reference on random
// clutters: a rectangle among walls, a box and circles (other robots, met by its bounding circle). Its answer is free
// and seen from the start; no point of a polar grid (60 rings by 240 directions) that is free and seen by a margin of
// 1e-4 m is nearer; when such a point exists, it finds a place. Rings are searched outward and stop at the first
// free one. In a corridor narrower than its bounding circle the rectangle finds a place along it.
static int NearestFreeFootprintReference(void)
{
    lsRng rng = lsMakeRng(977);
    int found = 0, moved = 0;
    for (int trial = 0; trial < 60; ++trial)
    {
        FreeScene fs = {0};
        lsWorld* world = RandomClutter(&rng, &fs);
        double hx = lsRng_Range(&rng, 0.05, 0.3);
        double hy = lsRng_Range(&rng, 0.03, 0.15);
        double angle = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsVec2 start = lsTestRandomPoint(&rng, -0.5, 0.5, -0.5, 0.5);
        lsVec2 local[4] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
        double reach = hypot(hx, hy), limit = 2.0 * reach;
        lsScene* scene = lsCreateScene(world);
        ENSURE(scene != NULL);
        lsCollisionWorld cw = {scene, NULL, NULL, 0, fs.circles, fs.circleCount, -1};
        lsMoveBody body = {local, 4, angle, reach, LS_CONTACT_SKIN};
        lsVec2 place = start;
        lsFreeSearch search = lsNearestFreeFootprint(&cw, &body, start, limit, &place);
        ENSURE(search != ls_freeCrowded);
        double best = HUGE_VAL;
        for (int ring = 0; ring <= 60 && best == HUGE_VAL; ++ring)
        {
            double r = limit * (double)ring / 60.0;
            for (int k = 0; k < (ring == 0 ? 1 : 240) && best == HUGE_VAL; ++k)
            {
                lsVec2 p = lsMulAdd(start, r, lsDirection(2.0 * LS_PI * (double)k / 240.0));
                best = RefFootprintFreeAndSeen(&fs, local, 4, angle, reach, start, p, 1e-4) ? r : best;
            }
        }
        if (search == ls_freeFound)
        {
            found += 1;
            moved += lsVecEqual(place, start) ? 0 : 1;
            ENSURE(lsDistance(place, start) <= limit * (1.0 + 1e-9));
            ENSURE(RefFootprintFreeAndSeen(&fs, local, 4, angle, reach, start, place, -1e-6));
            ENSURE(lsDistance(place, start) <= best + 1e-9);
        }
        else
        {
            ENSURE(best == HUGE_VAL);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    60 clutters: %d free places for a rectangle found, %d away from the start\n", found, moved);
    ENSURE(moved > 15);

    // A 0.8 x 0.3 rectangle along a corridor 0.4 wide (its bounding circle is 0.85 across, and finds no place),
    // overlapping a body of radius 0.1 ahead of it by 0.05 m: it backs off along the corridor, out of the body's
    // 16-gon (at most 2 % farther than out of its disc).
    lsWorld* world = lsCreateWorld();
    AddSegment(world, -3.0, -0.2, 3.0, -0.2);
    AddSegment(world, -3.0, 0.2, 3.0, 0.2);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    lsVec2 local[4] = {{-0.4, -0.15}, {0.4, -0.15}, {0.4, 0.15}, {-0.4, 0.15}};
    double reach = hypot(0.4, 0.15);
    lsCircle ahead = {{reach + 0.1 - 0.05, 0.0}, 0.1};
    lsCollisionWorld cw = {scene, NULL, NULL, 0, &ahead, 1, -1};
    lsMoveBody body = {local, 4, 0.0, reach, LS_CONTACT_SKIN};
    lsVec2 place;
    ENSURE(lsNearestFreeFootprint(&cw, &body, lsV(0.0, 0.0), 2.0 * reach, &place) == ls_freeFound);
    double apart = lsDistance(place, ahead.center), keep = 0.1 + reach + LS_CONTACT_SKIN;
    ENSURE(place.x < -0.05 && fabs(place.y) <= 0.05 - LS_CONTACT_SKIN);
    ENSURE(apart >= keep && apart <= keep / cos(LS_PI / 16.0) + 1e-9);
    lsMoveBody circle = lsCircleBody(reach);
    ENSURE(lsNearestFreeCircle(&cw, &circle, lsV(0.0, 0.0), 2.0 * reach, &place) == ls_freeNone);
    lsDestroyScene(scene);
    lsDestroyWorld(world);

    // A 0.2 x 0.8 rectangle beside a wall, a body of radius 0.35 overlapping it from the other side: the nearest place
    // clear of the body lies beyond the wall (0.66 m away), the nearest it reaches straight on its side (0.72 m).
    world = lsCreateWorld();
    AddSegment(world, 0.15, -3.0, 0.15, 3.0);
    scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    lsVec2 tall[4] = {{-0.1, -0.4}, {0.1, -0.4}, {0.1, 0.4}, {-0.1, 0.4}};
    reach = hypot(0.1, 0.4);
    lsCircle beside = {{-0.2, 0.0}, 0.35};
    cw = (lsCollisionWorld){scene, NULL, NULL, 0, &beside, 1, -1};
    body = (lsMoveBody){tall, 4, 0.0, reach, LS_CONTACT_SKIN};
    ENSURE(lsNearestFreeFootprint(&cw, &body, lsV(0.0, 0.0), 2.0 * reach, &place) == ls_freeFound);
    ENSURE(place.x < 0.05 && fabs(place.y) > 0.7);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// lsNearestFreeCircle never leaves through a box it is not strictly inside: from a start on the box's edge (between
// it and a wall too near below for the body), or through two opposite corners of the box.
static int NearestFreeNotThroughBoxes(void)
{
    lsWorld* world = lsCreateWorld();
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(0.5, 0.05);
    box.size = lsV(1.0, 0.1);
    lsWorld_AddBox(world, box);
    AddSegment(world, -2.0, -0.15, 3.0, -0.15);
    box.center = lsV(10.05, 0.05);
    box.size = lsV(0.1, 0.1);
    lsWorld_AddBox(world, box);
    AddSegment(world, 9.75, -0.25, 9.75, 0.5);
    AddSegment(world, 9.75, -0.25, 10.6, -0.25);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    lsCollisionWorld cw = {scene, NULL, NULL, 0, NULL, 0, -1};
    lsMoveBody body = lsCircleBody(0.2);
    lsVec2 place = {0.0, 0.0};
    // On the edge: the free places are beyond the box only.
    ENSURE(lsNearestFreeCircle(&cw, &body, lsV(0.5, 0.0), 0.4, &place) == ls_freeNone);
    // Next to the corner (10, 0) of the small box, in a pocket of walls: not out through its diagonal.
    lsVec2 start = {9.99, -0.01};
    if (lsNearestFreeCircle(&cw, &body, start, 0.6, &place) == ls_freeFound)
    {
        for (int k = 1; k < 400; ++k)
        {
            lsVec2 q = lsLerp(start, place, (double)k / 400.0);
            ENSURE(!(q.x > 10.0 + 1e-9 && q.x < 10.1 - 1e-9 && q.y > 1e-9 && q.y < 0.1 - 1e-9));
        }
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int FootprintDoorSqueeze(void)
{
    // warehouse.json at step 6059: a rectangular robot stands in a doorway, across the wall's line, and the sliding
    // door closes onto it against the wall's end. Pushing it out of the door alone pushed it into the wall's end for
    // ever (0.19 m deep); it must step sideways out of the doorway instead, at every heading, without overlapping
    // anything at any step.
    for (int heading = 0; heading < 180; heading += 15)
    {
        lsWorld* world = lsCreateWorld();
        AddSegment(world, 0.0, 0.0, 0.0, 13.0);
        lsMoverDef door = lsDefaultMoverDef();
        door.kind = ls_moverDoor;
        door.a = lsV(0.0, 13.0);
        door.b = lsV(0.0, 16.0);
        door.offset = lsV(0.0, 2.9);
        door.period = 8.0;
        door.phase = 0.5;
        lsWorld_AddMover(world, door);
        world->robot.position = lsV(0.03, 13.35);
        world->robot.angle = heading * 3.14159265358979 / 180.0;
        const lsVec2 corners[4] = {{-0.45, -0.3}, {0.45, -0.3}, {0.45, 0.3}, {-0.45, 0.3}};
        memcpy(world->robot.footprint, corners, sizeof corners);
        world->robot.footprintCount = 4;
        world->robot.lidar.beams = 8;
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        int jumps = 0;
        for (int k = 0; k < 480; ++k)
        {
            lsVec2 before = state->robot.position;
            lsSim_Step(sim, NULL);
            lsError err = {{0}};
            if (!lsSim_CheckInvariants(sim, &err))
            {
                printf("    heading %d, step %d: %s\n", heading, k, err.message);
                ENSURE(false);
            }
            // Once the gap is narrower than the body it steps out of the doorway, once: no jitter back and forth.
            jumps += lsDistance(before, state->robot.position) > 0.05 ? 1 : 0;
        }
        ENSURE(jumps <= 1);
        // Out of the doorway, on one side of the wall's line.
        ENSURE(fabs(state->robot.position.x) >= 0.3 - 1e-6);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

static lsVec2 Place(lsVec2 origin, lsVec2 u, double along, double across)
{
    return lsAdd(origin, lsAdd(lsScale(along, u), lsScale(across, lsLeftPerp(u))));
}

static int RandomCrushesWithEscape(void)
{
    // Randomized squeezes, each with a free place to escape to, run for a whole mover cycle with the invariants
    // checked after every step. Doors: a door closes end to end onto a static wall's end (gap down to 0) with the
    // robot straddling their line a little off it (it must leave sideways). Bars: a bar pivoting at a static wall's
    // end closes onto the wall like scissors with the robot in the wedge (it must be pushed out along the wedge).
    lsRng rng = lsMakeRng(2026);
    int failures = 0;
    double deepestOverall = 0.0;
    for (int scenario = 0; scenario < 40; ++scenario)
    {
        bool bar = scenario % 2 == 1;
        lsWorld* world = lsCreateWorld();
        double radius = lsRng_Range(&rng, 0.1, 0.4);
        lsVec2 origin = lsTestRandomPoint(&rng, -5.0, 5.0, -5.0, 5.0);
        lsVec2 u = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        lsMoverDef mover = lsDefaultMoverDef();
        int steps;
        if (!bar)
        {
            double length = lsRng_Range(&rng, 1.0, 5.0);
            AddSegment(world, origin.x - length * u.x, origin.y - length * u.y, origin.x, origin.y);
            double gapEnd = lsRng_Range(&rng, 0.0, 0.4 * radius);
            double gapStart = lsRng_Range(&rng, 2.4 * radius, 4.0 * radius);
            mover.kind = ls_moverDoor;
            mover.a = Place(origin, u, gapEnd, 0.0);
            mover.b = Place(origin, u, gapEnd + lsRng_Range(&rng, 1.0, 3.0), 0.0);
            mover.offset = lsScale(gapStart - gapEnd, u);
            mover.period = lsRng_Range(&rng, 0.5, 6.0);
            mover.phase = 0.5; // starts open
            double away = lsRng_Range(&rng, 0.05, 0.6);
            double side = away * radius * (lsRng_Range(&rng, 0.0, 1.0) < 0.5 ? -1.0 : 1.0);
            world->robot.position = Place(origin, u, 0.5 * gapStart, side);
            steps = (int)(mover.period * 60.0) + 1;
        }
        else
        {
            double length = lsRng_Range(&rng, 1.5, 4.0);
            AddSegment(world, origin.x, origin.y, origin.x + length * u.x, origin.y + length * u.y);
            double open = lsRng_Range(&rng, 0.6, 1.5);
            double barLength = lsRng_Range(&rng, 1.5, 4.0);
            mover.kind = ls_moverBar;
            mover.pivot = origin;
            mover.a = origin;
            mover.b = lsAdd(origin, lsScale(barLength, lsRotateAngle(u, open)));
            mover.angularSpeed = -lsRng_Range(&rng, 0.5, 3.0);
            double reach = lsRng_Range(&rng, 1.2 * radius / sin(0.5 * open), fmin(length, barLength) - 0.1);
            world->robot.position = lsAdd(origin, lsScale(fmax(reach, 0.0), lsRotateAngle(u, 0.5 * open)));
            steps = (int)(2.0 * LS_PI / -mover.angularSpeed * 60.0) + 1;
        }
        lsWorld_AddMover(world, mover);
        world->robot.radius = radius;
        world->robot.lidar.beams = 4;
        lsSim* sim = lsCreateSim(world);
        bool held;
        double deepest = RunIdleChecked(sim, world, steps, &held);
        deepestOverall = fmax(deepestOverall, deepest);
        if (!held || deepest > 1e-9)
        {
            printf("    scenario %d (%s): deepest overlap %.3g (m, or 1: overlap)\n", scenario, bar ? "bar" : "door",
                   deepest);
            failures += 1;
        }
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    printf("    40 crush scenarios: %d failed, deepest overlap %.3g (m, or 1: overlap)\n", failures, deepestOverall);
    ENSURE(failures == 0);
    return 0;
}

static int OverlapLeftIsCrush(void)
{
    // A door sweeps over a long footprint standing still 0.1 m from the room's right wall (a box beside it): the
    // push out of the door is blocked by the wall, and three resolving passes each stop on the way to a free place.
    // The robot was left 0.9 m deep in the door with no crush counted; an overlap that stays is a crush.
    static const char text[] =
        "{\"walls\":[{\"points\":[[0,0],[10,0],[10,10],[0,10]],\"closed\":true}],"
        "\"boxes\":[{\"center\":[6.6242021852725985,3.0806420550280613],\"size\":[1.8320442526688903,"
        "1.4731307083193432],\"angle\":349.1384398711642}],\"robot\":{\"pose\":[8.614419504974475,"
        "1.4723347020884465,\"0.095423350997400569 rad\"],\"radius\":0.3095180050562503,"
        "\"footprint\":[[-1.646649698651673,-0.24383014004345133],[1.2645811575964214,"
        "-0.24383014004345133],[1.2645811575964214,0.24383014004345133],[-1.646649698651673,"
        "0.24383014004345133]],\"max_speed\":3.501102808305466,\"max_turn_rate\":256.16544478299096,"
        "\"max_accel\":100000.0,\"max_turn_accel\":10000000.0,\"lidar\":{\"beams\":8}},\"movers\":[{\"type\":\"door\","
        "\"from\":[7.427471163835792,2.571430960260763],\"to\":[8.890029667105619,-0.5578910436333056],"
        "\"offset\":[-2.9567399358159623,0.5335026531896947],\"period\":1.4185987692272226,"
        "\"phase\":0.5517824466891534}],\"sim\":{\"dt\":0.5}}";
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "door.json", &err, NULL);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl still = lsMakeManualControl(0.0, 0.0);
    lsSim_Step(sim, &still);
    const lsRobotState* robot = &lsSim_GetState(sim)->robot;
    ENSURE(lsSim_CheckInvariants(sim, &err) || robot->crushes == 1);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int CrushWithoutEscape(void)
{
    // A door 10 m wide closes down onto a parallel wall to a gap of 0.1 m, narrower than the robot (0.5 m): there is
    // no free place. The defined behaviour: the robot sits where the overlaps balance (midway), its centre never
    // crosses the wall or the door, nothing becomes NaN, lsMoveCircle reports crushed, and when the door opens again
    // the robot is free.
    lsWorld* world = lsCreateWorld();
    AddSegment(world, -5.0, 0.0, 5.0, 0.0);
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(-5.0, 2.0);
    door.b = lsV(5.0, 2.0);
    door.offset = lsV(0.0, -1.9);
    door.period = 4.0;
    lsWorld_AddMover(world, door);
    world->robot.position = lsV(0.0, 1.0);
    world->robot.radius = 0.25;
    world->robot.lidar.beams = 4;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    bool crushedSeen = false;
    for (int k = 0; k < 240; ++k)
    {
        lsVec2 before = state->robot.position;
        lsSim_Step(sim, NULL);
        lsVec2 p = state->robot.position;
        ENSURE(isfinite(p.x) && isfinite(p.y));
        ENSURE(p.y > 0.0 && p.y < state->movers[0].a.y); // between the wall and the door, always
        ENSURE(lsDistance(before, p) < 0.1);             // no jumps
        lsCollisionWorld cw = {lsSim_GetScene(sim), state->movers, state->movers, 1, NULL, 0, -1};
        lsMoveResult still = lsMoveCircle(&cw, p, lsV(0.0, 0.0), state->robot.radius);
        ENSURE(isfinite(still.position.x) && isfinite(still.position.y));
        if (state->movers[0].a.y - 0.0 < 0.5 - 1e-3)
        {
            ENSURE(still.crushed);
            // Midway: the two overlaps balance.
            ENSURE_SMALL(p.y - 0.5 * state->movers[0].a.y, 1e-6);
            crushedSeen = true;
        }
    }
    ENSURE(crushedSeen);
    lsError err = {{0}};
    ENSURE(lsSim_CheckInvariants(sim, &err)); // the door is open again
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Steps a crushed robot with a fixed control; over the last `window` steps (after settling) its position moves by at
// most `tolerance` per step, its pose stays finite and every one of those steps counts a crush.
static int HoldsStillWhileCrushed(lsWorld* world, lsControl control, int steps, int window, double tolerance)
{
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    double largest = 0.0;
    int crushesBefore = 0;
    for (int k = 0; k < steps; ++k)
    {
        crushesBefore = k == steps - window ? state->crushes : crushesBefore;
        lsVec2 before = state->robot.position;
        lsSim_Step(sim, &control);
        ENSURE(lsIsValidVec2(state->robot.position) && isfinite(state->robot.angle));
        largest = k >= steps - window ? fmax(largest, lsDistance(before, state->robot.position)) : largest;
    }
    printf("    %s: largest move %.3g m per step over the last %d steps, %d crushes\n", world->name, largest, window,
           state->crushes - crushesBefore);
    ENSURE(largest <= tolerance);
    ENSURE(state->crushes - crushesBefore == window);
    lsDestroySim(sim);
    return 0;
}

static int CrushedDoesNotJitter(void)
{
    // A circle robot in a slot 0.2 m wide (it is 0.5 m) between two boxes, closed at both ends by boxes that overlap
    // them, driving forward into the slot's end; then turning in place.
    for (int turn = 0; turn < 2; ++turn)
    {
        lsWorld* world = lsCreateWorld();
        snprintf(world->name, sizeof world->name, "%s",
                 turn ? "circle in a slot, turning" : "circle in a slot, driving");
        AddRect(world, -10.0, -10.0, 10.0, 10.0);
        lsBoxDef box = lsDefaultBoxDef();
        box.size = lsV(3.0, 0.6);
        box.center = lsV(0.0, 0.4);
        lsWorld_AddBox(world, box);
        box.center = lsV(0.0, -0.4);
        lsWorld_AddBox(world, box);
        box.size = lsV(0.6, 2.0);
        box.center = lsV(-1.4, 0.0);
        lsWorld_AddBox(world, box);
        box.center = lsV(1.4, 0.0);
        lsWorld_AddBox(world, box);
        world->robot.lidar.beams = 8;
        ENSURE(HoldsStillWhileCrushed(world, lsMakeManualControl(turn ? 0.0 : 1.5, turn ? 3.0 : 0.0), 600, 300, 1e-6) ==
               0);
        lsDestroyWorld(world);
    }
    // A rectangular footprint driven into three boxes that overlap each other and it: it jumped 0.055 m back and
    // forth between two places every step (each looked better from the other).
    {
        lsWorld* world = lsCreateWorld();
        snprintf(world->name, sizeof world->name, "footprint in overlapping boxes");
        AddRect(world, -5.0, -5.0, 5.0, 5.0);
        const double boxes[3][5] = {
            {-0.3570854878503584, 0.44389283074970876, 0.36922836503322143, 0.7388136568761725, -64.25738160168325},
            {0.4718418848312591, -0.16771789216937028, 1.8053235529398854, 1.3342312589133374, -136.90700274551972},
            {-0.6824965381445751, 0.40430818850063477, 1.0100918013973008, 0.8118293463413935, 59.1074302294444},
        };
        for (int i = 0; i < 3; ++i)
        {
            lsBoxDef box = lsDefaultBoxDef();
            box.center = lsV(boxes[i][0], boxes[i][1]);
            box.size = lsV(boxes[i][2], boxes[i][3]);
            box.angle = lsDegToRad(boxes[i][4]);
            lsWorld_AddBox(world, box);
        }
        double r = 0.2518284961917904, h = 0.1510970977150742;
        world->robot.angle = lsDegToRad(-2.6016997420710815);
        world->robot.footprintCount = 4;
        world->robot.footprint[0] = lsV(-r, -h);
        world->robot.footprint[1] = lsV(r, -h);
        world->robot.footprint[2] = lsV(r, h);
        world->robot.footprint[3] = lsV(-r, h);
        world->robot.radius = r;
        world->robot.lidar.beams = 8;
        ENSURE(HoldsStillWhileCrushed(world, lsMakeManualControl(1.5, 0.0), 600, 300, 1e-6) == 0);
        lsDestroyWorld(world);
    }
    // Squeezed by a moving wall: a press (a door coming down to 0.2 m above the floor of a pit, every 4 s) onto a
    // robot driving into the pit's side. While crushed it sits midway between the press and the floor (moving with
    // the press, half its speed) and never sideways.
    {
        lsWorld* world = lsCreateWorld();
        AddRect(world, -10.0, -10.0, 10.0, 10.0);
        lsVec2 pit[4] = {{-0.6, 2.0}, {-0.6, 0.0}, {0.6, 0.0}, {0.6, 2.0}};
        lsWorld_AddWall(world, pit, 4, false);
        lsMoverDef press = lsDefaultMoverDef();
        press.kind = ls_moverDoor;
        press.a = lsV(-0.6, 1.5);
        press.b = lsV(0.6, 1.5);
        press.offset = lsV(0.0, -1.3);
        press.period = 4.0;
        lsWorld_AddMover(world, press);
        world->robot.position = lsV(0.0, 0.3);
        world->robot.lidar.beams = 8;
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        lsControl forward = lsMakeManualControl(1.5, 0.0);
        int crushed = 0;
        bool wasCrushed = false;
        for (int k = 0; k < 480; ++k)
        {
            lsVec2 before = state->robot.position;
            double pressBefore = state->movers[0].a.y;
            int crushes = state->crushes;
            lsSim_Step(sim, &forward);
            lsVec2 p = state->robot.position;
            ENSURE(lsIsValidVec2(p) && isfinite(state->robot.angle));
            ENSURE(p.y > 0.0 && p.y < state->movers[0].a.y);       // between the floor and the press, always
            bool settled = wasCrushed && state->crushes > crushes; // crushed in this step and the one before
            wasCrushed = state->crushes > crushes;
            if (settled)
            {
                if (fabs(p.y - before.y) > 0.5 * fabs(state->movers[0].a.y - pressBefore) + 1e-9)
                    printf("    step %d: y %.9f -> %.9f, press %.9f -> %.9f\n", k, before.y, p.y, pressBefore,
                           state->movers[0].a.y);
                crushed += 1;
                ENSURE_SMALL(p.x - before.x, 1e-9);
                ENSURE(fabs(p.y - before.y) <= 0.5 * fabs(state->movers[0].a.y - pressBefore) + 1e-9);
            }
        }
        printf("    press: %d crushed steps, never sideways\n", crushed);
        ENSURE(crushed > 60);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Targets, autopilot, determinism

static int CollectsAndRespawns(void)
{
    lsWorld* world = lsCreateWorld();
    AddRect(world, -5.0, -5.0, 5.0, 5.0);
    lsTargetDef food = lsDefaultTargetDef();
    food.center = lsV(2.25, 0.0);
    lsWorld_AddTarget(world, food);
    lsTargetDef poison = lsDefaultTargetDef();
    poison.center = lsV(3.9, 0.0);
    poison.kind = ls_poison;
    lsWorld_AddTarget(world, poison);
    world->sim.foodReward = 2.0;
    world->sim.poisonReward = -0.5;
    world->robot.lidar.beams = 8;
    world->robot.maxSpeed = 40.0; // 0.67 m per step: it passes over the food in one step and must still touch it
    world->robot.maxAccel = 1000.0;
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsControl c = lsMakeManualControl(40.0, 0.0);
    for (int k = 0; k < 20; ++k)
    {
        lsSim_Step(sim, &c);
    }
    ENSURE(state->food == 1 && state->poison == 1);
    ENSURE_SMALL(state->score - 1.5, 0.0);
    for (int i = 0; i < 2; ++i)
    {
        // Respawned somewhere free inside the room, away from the robot.
        ENSURE(state->targets[i].active);
        ENSURE(fabs(state->targets[i].center.x) < 5.0 && fabs(state->targets[i].center.y) < 5.0);
        ENSURE(lsDistance(state->targets[i].center, state->robot.position) > 0.55);
    }
    lsDestroySim(sim);

    // A polygon footprint moving as fast touches the targets on its way too (its swept hull, not only its end).
    lsVec2 square[4] = {{-0.2, -0.2}, {0.2, -0.2}, {0.2, 0.2}, {-0.2, 0.2}};
    // At 90 m/s from the first step it is at x = 1.5, 3, 4.5: no end pose touches either target.
    memcpy(world->robot.footprint, square, sizeof square);
    world->robot.footprintCount = 4;
    world->robot.maxSpeed = 90.0;
    world->robot.maxAccel = 1e6;
    sim = lsCreateSim(world);
    state = lsSim_GetState(sim);
    lsControl fast = lsMakeManualControl(90.0, 0.0);
    for (int k = 0; k < 20; ++k)
    {
        lsSim_Step(sim, &fast);
    }
    ENSURE(state->food == 1 && state->poison == 1);
    lsDestroySim(sim);
    world->robot.footprintCount = 0;
    world->robot.maxSpeed = 40.0;
    world->robot.maxAccel = 1000.0;

    world->sim.respawn = false;
    sim = lsCreateSim(world);
    state = lsSim_GetState(sim);
    for (int k = 0; k < 20; ++k)
    {
        lsSim_Step(sim, &c);
    }
    ENSURE(state->food == 1 && state->poison == 1);
    ENSURE(!state->targets[0].active && !state->targets[1].active);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A room with scattered obstacles, food and poison, two vehicles on a loop and a door: the autopilot world.
static lsWorld* MakeBusyWorld(void)
{
    lsWorld* world = MakeObstacleWorld(1.5);
    world->robot.maxAccel = 3.0;
    world->robot.maxTurnRate = 3.0;
    world->robot.maxTurnAccel = 12.0;
    world->robot.lidar.beams = 90;
    world->robot.lidar.range = 8.0;
    lsRng rng = lsMakeRng(5);
    for (int i = 0; i < 12; ++i)
    {
        lsTargetDef t = lsDefaultTargetDef();
        t.center = lsTestRandomPoint(&rng, -9.0, 9.0, -9.0, -1.0);
        t.kind = i % 3 == 0 ? ls_poison : ls_food;
        t.radius = 0.2;
        lsWorld_AddTarget(world, t);
    }
    lsVec2 loop[4] = {{-8.0, -8.5}, {8.0, -8.5}, {8.0, -1.5}, {-8.0, -1.5}};
    int path = lsWorld_AddPath(world, "loop", loop, 4, 0.4, true);
    for (int i = 0; i < 2; ++i)
    {
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = path;
        v.position = i == 0 ? lsV(-6.0, -8.5) : lsV(6.0, -1.5);
        v.maxSpeed = 1.0;
        v.maxForce = 2.0;
        v.radius = 0.3;
        lsWorld_AddVehicle(world, v);
    }
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(-3.0, 0.0);
    door.b = lsV(-2.48, 0.0);
    door.offset = lsV(0.0, 0.6);
    door.period = 4.0;
    lsWorld_AddMover(world, door);
    return world;
}

static int AutopilotExplores(void)
{
    lsWorld* world = MakeBusyWorld();
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsControl autopilot = lsMakeAutopilotControl();
    lsAABB visited = {state->robot.position, state->robot.position};
    for (int k = 0; k < 60 * 120; ++k)
    {
        lsSim_Step(sim, &autopilot);
        visited.lower = lsMin(visited.lower, state->robot.position);
        visited.upper = lsMax(visited.upper, state->robot.position);
    }
    // In two minutes it covers ground and eats more food than poison.
    printf("    autopilot: distance %.1f m, food %d, poison %d, collisions %d, box %.1f x %.1f\n", state->distance,
           state->food, state->poison, state->collisions, visited.upper.x - visited.lower.x,
           visited.upper.y - visited.lower.y);
    ENSURE(state->distance > 40.0);
    ENSURE(visited.upper.x - visited.lower.x > 6.0);
    ENSURE(state->food > state->poison);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int Deterministic(void)
{
    lsWorld* world = MakeBusyWorld();
    world->robot.lidar.noise = 0.01;
    world->robot.lidar.dropout = 0.05;
    uint64_t hashes[3];
    for (int run = 0; run < 3; ++run)
    {
        lsSim* sim = lsCreateSim(world);
        if (run == 2)
        {
            // A different seed gives a different run (respawn places, lidar noise, wander)...
            lsSim_Reset(sim, 12345);
        }
        lsControl autopilot = lsMakeAutopilotControl();
        for (int k = 0; k < 3000; ++k)
        {
            lsSim_Step(sim, &autopilot);
        }
        hashes[run] = lsSim_Hash(sim);
        // ...and resetting to the world's seed replays the same one.
        if (run == 0)
        {
            lsSim_Reset(sim, world->sim.seed);
            for (int k = 0; k < 3000; ++k)
            {
                lsSim_Step(sim, &autopilot);
            }
            ENSURE(lsSim_Hash(sim) == hashes[0]);
        }
        lsDestroySim(sim);
    }
    ENSURE(hashes[0] == hashes[1]);
    ENSURE(hashes[0] != hashes[2]);
    lsDestroyWorld(world);
    return 0;
}

// Every step's full observable output (pose, speeds, the scan's ranges, kinds and indices, vehicles, targets,
// score): what a recording holds, hashed step by step, so two runs that would write different bytes differ here.
static uint64_t RunHash(const lsWorld* world, int steps, uint64_t* finalStateHash)
{
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    uint64_t h = 0xCBF29CE484222325ull;
    lsControl autopilot = lsMakeAutopilotControl();
    for (int k = 0; k < steps; ++k)
    {
        lsSim_Step(sim, &autopilot);
        uint64_t stepHash = lsSim_Hash(sim);
        h = (h ^ stepHash) * 0x100000001B3ull;
        if (state->scanned)
        {
            const lsScan* scan = lsSim_GetScan(sim);
            for (int i = 0; i < scan->count; ++i)
            {
                uint64_t bits;
                memcpy(&bits, &scan->ranges[i], sizeof bits);
                h = (h ^ bits ^ ((uint64_t)scan->kinds[i] << 56) ^ (uint64_t)(uint32_t)scan->indices[i]) *
                    0x100000001B3ull;
            }
        }
    }
    *finalStateHash = lsSim_Hash(sim);
    lsDestroySim(sim);
    return h;
}

static int DefaultWorldHash(void)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/default.json", &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
    }
    ENSURE(world != NULL);
    uint64_t final1, final2;
    uint64_t run1 = RunHash(world, 1200, &final1);
    uint64_t run2 = RunHash(world, 1200, &final2);
    ENSURE(run1 == run2 && final1 == final2);
    // The stored constant (box2d's test_determinism): any change to the step, the lidar or the geometry that
    // moves a single bit shows here. Update it deliberately, with the reason in the commit message.
    // Retaken when vehicles began to follow their paths in order (the normal point looked for in a window ahead of
    // their progress): one vehicle rounding the loop's corner at (22.5, 8) predicted itself nearer the top side
    // (y = 10.5) than the notch's side (y = 8) for 18 steps, and the projection onto the whole path took the top
    // side, 11 m further along, cutting the notch; now it keeps to the notch. Nothing else in the run changed.
    const uint64_t expected = 0xd41d02ae3f471865ull;
    if (final1 != expected)
    {
        fprintf(stderr, "    default.json after 1200 autopilot steps: state hash 0x%016llxull, expected 0x%016llxull\n",
                (unsigned long long)final1, (unsigned long long)expected);
    }
    ENSURE(final1 == expected);
    lsDestroyWorld(world);
    return 0;
}

static int AgentInterface(void)
{
    lsWorld* world = MakeBusyWorld();
    lsAgentDef def = lsDefaultAgentDef();
    def.maxSteps = 50;
    def.collisionPenalty = -0.25;
    lsAgent* agent = lsCreateAgent(world, &def);
    int beams = world->robot.lidar.beams;
    int size = lsAgent_ObservationSize(agent);
    ENSURE(size == beams * (1 + ls_seenCount) + 2);
    double* obs = lsAlloc((size_t)size * sizeof(double));
    double* first = lsAlloc((size_t)size * sizeof(double));
    for (int episode = 0; episode < 2; ++episode)
    {
        lsAgent_Reset(agent, 77);
        ENSURE(lsAgent_StepCount(agent) == 0);
        ENSURE(lsAgent_Observe(agent, obs, size) == size);
        if (episode == 0)
        {
            memcpy(first, obs, (size_t)size * sizeof(double));
        }
        else
        {
            ENSURE(memcmp(first, obs, (size_t)size * sizeof(double)) == 0); // same seed, same observation
        }
        const lsSimState* state = lsSim_GetState(lsAgent_GetSim(agent));
        for (int k = 0; k < 50; ++k)
        {
            double score = state->score;
            int collisions = state->collisions;
            long long stepBefore = state->step;
            lsAgentStep result = k % 2 == 0 ? lsAgent_Step(agent, (lsAction)(k % ls_actionCount))
                                            : lsAgent_StepContinuous(agent, 1.0, 0.5);
            // One agent step lasts until the next scan: 6 steps of 1/60 s at 10 scans per second.
            ENSURE(state->step - stepBefore == 6 && state->scanned);
            ENSURE_SMALL(result.reward - ((state->score - score) - 0.25 * (state->collisions - collisions)), 1e-12);
            ENSURE(result.done == (k == 49));
            lsAgent_Observe(agent, obs, size);
            for (int i = 0; i < beams; ++i)
            {
                ENSURE(obs[i] >= 0.0 && obs[i] <= 1.0);
                double hot = 0.0;
                for (int c = 0; c < ls_seenCount; ++c)
                {
                    double x = obs[beams + i * ls_seenCount + c];
                    ENSURE(x == 0.0 || x == 1.0);
                    hot += x;
                }
                ENSURE(hot == 1.0);
            }
            ENSURE(fabs(obs[size - 2]) <= 1.0 && fabs(obs[size - 1]) <= 1.0);
        }
    }
    lsFree(obs, (size_t)size * sizeof(double));
    lsFree(first, (size_t)size * sizeof(double));
    lsDestroyAgent(agent);
    lsDestroyWorld(world);
    return 0;
}

int SimTest(void)
{
    RUN_SUBTEST(KinematicsClosedForm);
    RUN_SUBTEST(EdgeOfBoundsStaysInBounds);
    RUN_SUBTEST(ActionsAndScanSchedule);
    RUN_SUBTEST(SlidesAlongWalls);
    RUN_SUBTEST(PolygonSlideStaysInside);
    RUN_SUBTEST(CircleNeverOverlaps);
    RUN_SUBTEST(PolygonNeverOverlaps);
    RUN_SUBTEST(BarPushesRobot);
    RUN_SUBTEST(BarPushesPolygonRobot);
    RUN_SUBTEST(FastBarSubsteps);
    RUN_SUBTEST(FastDoorNeverPassesTargets);
    RUN_SUBTEST(DoorSqueezesAgainstWall);
    RUN_SUBTEST(BarOverCentre);
    RUN_SUBTEST(FarTangentsStayNear);
    RUN_SUBTEST(NearestFreeCircleReference);
    RUN_SUBTEST(NearestFreeFootprintReference);
    RUN_SUBTEST(NearestFreeNotThroughBoxes);
    RUN_SUBTEST(RandomCrushesWithEscape);
    RUN_SUBTEST(CrushWithoutEscape);
    RUN_SUBTEST(OverlapLeftIsCrush);
    RUN_SUBTEST(FootprintDoorSqueeze);
    RUN_SUBTEST(CrushedDoesNotJitter);
    RUN_SUBTEST(CollectsAndRespawns);
    RUN_SUBTEST(AutopilotExplores);
    RUN_SUBTEST(HugeFootprintStaysInBounds);
    RUN_SUBTEST(Deterministic);
    RUN_SUBTEST(DefaultWorldHash);
    RUN_SUBTEST(AgentInterface);
    return 0;
}

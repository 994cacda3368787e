// Tests of the path-following vehicles (Reynolds): the steering points, staying within the path's radius on
// straight and curved paths once joined, the ends of open paths (stop, reverse), walls, and separation.
#include "core/sweep.h"
#include "core/vehicle.h"
#include "test.h"

#include "lidarsim/sim.h"

#include <string.h>

static double DistanceToPath(const lsPathDef* path, lsVec2 p)
{
    return lsClosestPointOnPolyline(path->points, path->pointCount, path->closed, p).distance;
}

static int SteeringPoints(void)
{
    lsVec2 points[3] = {{0.0, 0.0}, {10.0, 0.0}, {10.0, 10.0}};
    lsPathDef path;
    memset(&path, 0, sizeof path);
    path.points = points;
    path.pointCount = 3;
    path.radius = 0.5;
    lsVehicleDef def = lsDefaultVehicleDef();
    def.maxSpeed = 2.0;
    def.maxForce = 1.0;
    lsPathFollowDef tuning = lsDefaultPathFollowDef();

    // Moving along the path inside the radius: no seeking, normal point straight below the prediction.
    lsVehicleState v;
    memset(&v, 0, sizeof v);
    v.position = lsV(2.0, 0.3);
    v.velocity = lsV(2.0, 0.0);
    v.direction = 1;
    lsVec2 force = lsVehicle_PathForce(&path, &def, &tuning, &v);
    ENSURE(!v.seeking);
    double ahead = 2.0 + def.maxSpeed * tuning.predictTime;
    ENSURE_SMALL(v.predicted.x - ahead, 1e-12);
    ENSURE_SMALL(v.predicted.y - 0.3, 1e-12);
    ENSURE_SMALL(v.normalPoint.x - ahead, 1e-12);
    ENSURE_SMALL(v.normalPoint.y, 1e-12);
    ENSURE_SMALL(v.target.x - (ahead + def.maxSpeed * tuning.targetTime), 1e-12);
    ENSURE_SMALL(lsLength(force), 1e-12); // already at full speed

    // Heading away from the path: the prediction leaves the radius, so it seeks the target.
    v.velocity = lsV(0.0, 2.0);
    force = lsVehicle_PathForce(&path, &def, &tuning, &v);
    ENSURE(v.seeking);
    ENSURE(force.y < 0.0 && force.x > 0.0);
    ENSURE(lsLength(force) <= def.maxForce * (1.0 + 1e-12));

    // Near the corner the target continues onto the next segment (arc length, not the segment's line).
    v.position = lsV(9.8, 0.0);
    v.velocity = lsV(2.0, 0.0);
    lsVehicle_PathForce(&path, &def, &tuning, &v);
    ENSURE_SMALL(v.normalPoint.x - 10.0, 1e-12);
    ENSURE_SMALL(v.target.x - 10.0, 1e-12);
    ENSURE(v.target.y > 0.0);
    return 0;
}

// Runs a world; once a vehicle has joined its path (see below), it must stay inside the radius.
static int CheckStaysOnPath(const lsWorld* world, int steps, double* worstOut)
{
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    bool joined[8] = {false};
    double worst = 0.0;
    for (int k = 0; k < steps; ++k)
    {
        lsSim_Step(sim, NULL);
        for (int i = 0; i < state->vehicleCount && i < 8; ++i)
        {
            const lsPathDef* path = &world->paths[world->vehicles[i].path];
            double d = DistanceToPath(path, state->vehicles[i].position);
            if (joined[i])
            {
                worst = fmax(worst, d / path->radius);
                if (d > path->radius)
                {
                    fprintf(stderr, "vehicle %d left the path at step %d: distance %g\n", i, k, d);
                }
                ENSURE(d <= path->radius);
            }
            // Joined: inside the radius, heading along the path (within 30 degrees of its direction there) and its
            // prediction inside the radius too (not seeking): the approach turn is over.
            lsClosestPoint cp =
                lsClosestPointOnPolyline(path->points, path->pointCount, path->closed, state->vehicles[i].position);
            lsVec2 a = path->points[cp.index];
            lsVec2 b = path->points[(cp.index + 1) % path->pointCount];
            double along = fabs(lsDot(lsNormalize(lsSub(b, a)), lsNormalize(state->vehicles[i].velocity)));
            joined[i] = joined[i] || (d < path->radius && along > cos(LS_PI / 6.0) && !state->vehicles[i].seeking);
        }
    }
    for (int i = 0; i < state->vehicleCount && i < 8; ++i)
    {
        ENSURE(joined[i]);
    }
    *worstOut = worst;
    lsDestroySim(sim);
    return 0;
}

static int StraightAndCurvedPaths(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(0.0, 80.0);
    world->robot.lidar.beams = 4;
    // For each speed, on paths of their own (vehicles on a shared path would push each other off by separation):
    // a long straight open path, and a circle of radius 6 (48 sides), both with radius 0.5.
    double speeds[3] = {1.0, 2.0, 3.0};
    for (int s = 0; s < 3; ++s)
    {
        double y = -20.0 - 10.0 * s;
        lsVec2 line[2] = {{-40.0, y}, {40.0, y}};
        int straight = lsWorld_AddPath(world, "line", line, 2, 0.5, false);
        lsVec2 circle[48];
        lsVec2 center = lsV(-20.0 + 20.0 * s, 20.0);
        for (int i = 0; i < 48; ++i)
        {
            circle[i] = lsAdd(center, lsScale(6.0, lsDirection(2.0 * LS_PI * i / 48.0)));
        }
        int round = lsWorld_AddPath(world, "circle", circle, 48, 0.5, true);

        lsVehicleDef v = lsDefaultVehicleDef();
        v.maxSpeed = speeds[s];
        v.maxForce = 2.0 * speeds[s];
        v.radius = 0.3;
        v.path = straight;
        v.position = lsV(-38.0, y + 3.0);
        v.velocity = lsV(0.0, 0.0);
        lsWorld_AddVehicle(world, v);
        v.path = round;
        v.position = lsAdd(center, lsScale(8.0, lsDirection(2.0 * s)));
        v.velocity = lsScale(speeds[s], lsDirection(2.0 * s + 2.0));
        lsWorld_AddVehicle(world, v);
    }
    // An S-bend of two opposite half circles of radius 4, followed back and forth.
    lsVec2 bend[40];
    for (int i = 0; i < 20; ++i)
    {
        double a = LS_PI * i / 19.0;
        bend[i] = lsAdd(lsV(20.0, 50.0), lsScale(4.0, lsV(-cos(a), sin(a))));
        bend[39 - i] = lsAdd(lsV(28.0, 50.0), lsScale(4.0, lsV(cos(a), -sin(a))));
    }
    int sbend = lsWorld_AddPath(world, "bend", bend, 40, 0.6, false);
    lsVehicleDef v = lsDefaultVehicleDef();
    v.maxSpeed = 1.5;
    v.maxForce = 3.0;
    v.radius = 0.3;
    v.path = sbend;
    v.position = lsV(15.0, 49.0);
    v.pathEnd = ls_pathEndReverse;
    lsWorld_AddVehicle(world, v);

    double worst = 0.0;
    int failed = CheckStaysOnPath(world, 60 * 40, &worst);
    printf("    worst distance from the path once joined: %.3f of its radius\n", worst);
    lsDestroyWorld(world);
    ENSURE(failed == 0);
    return 0;
}

static int OpenPathEnds(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(0.0, 50.0);
    world->robot.lidar.beams = 4;
    lsVec2 line[3] = {{0.0, 0.0}, {10.0, 0.0}, {10.0, 5.0}};
    int path = lsWorld_AddPath(world, "l", line, 3, 0.5, false);
    lsVehicleDef stop = lsDefaultVehicleDef();
    stop.path = path;
    stop.position = lsV(0.5, 0.0);
    stop.velocity = lsV(1.0, 0.0);
    stop.maxSpeed = 2.0;
    stop.maxForce = 3.0;
    stop.radius = 0.2;
    lsWorld_AddVehicle(world, stop);
    lsVehicleDef reverse = stop;
    reverse.pathEnd = ls_pathEndReverse;
    reverse.position = lsV(0.5, 0.2);
    lsWorld_AddVehicle(world, reverse);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    int reversals = 0;
    int direction = 1;
    for (int k = 0; k < 60 * 40; ++k)
    {
        lsSim_Step(sim, NULL);
        if (state->vehicles[1].direction != direction)
        {
            direction = state->vehicles[1].direction;
            reversals += 1;
        }
    }
    // The first arrives at the end and stops there; the second shuttles back and forth.
    ENSURE(lsDistance(state->vehicles[0].position, lsV(10.0, 5.0)) < 0.05);
    ENSURE(lsLength(state->vehicles[0].velocity) < 0.05);
    ENSURE(state->vehicles[0].stopped);
    ENSURE(reversals >= 4);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// "reverse" on an open path shorter than twice the turning distance (max_speed times targetTime from each end): both
// ends are that near at once, and the vehicle used to turn back on every step (600 times in 10 s on a 0.3 m path),
// jittering in place. It turns back only at the nearer end, so it shuttles from end to end.
static int ShortPathReverses(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(0.0, 50.0);
    world->robot.lidar.beams = 4;
    lsVec2 line[2] = {{0.0, 0.0}, {0.3, 0.0}};
    int path = lsWorld_AddPath(world, "short", line, 2, 0.5, false);
    lsVehicleDef v = lsDefaultVehicleDef(); // 1.5 m/s: it turns within 0.375 m of an end, farther than 0.3 m
    v.path = path;
    v.position = line[0];
    v.pathEnd = ls_pathEndReverse;
    lsWorld_AddVehicle(world, v);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    int reversals = 0, direction = 1;
    double low = 0.0, high = 0.0;
    for (int k = 0; k < 600; ++k)
    {
        lsSim_Step(sim, NULL);
        const lsVehicleState* s = &state->vehicles[0];
        reversals += s->direction != direction ? 1 : 0;
        direction = s->direction;
        low = fmin(low, s->position.x);
        high = fmax(high, s->position.x);
    }
    printf("    %d reversals in 600 steps, x from %.3f to %.3f\n", reversals, low, high);
    // Each reversal needs the vehicle to come back across the middle: at most 2 m/s^2 there, a few a second.
    ENSURE(reversals >= 4 && reversals <= 60);
    ENSURE(low < 0.05 && high > 0.25); // it goes from end to end
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// At a step longer than the steering's response time (0.1 s), the steering force, applied for the whole step,
// overshot the velocity it aimed at: a "stop" vehicle at dt 0.5 s swung between 19.5 and 19.75 m short of the end
// of a 20 m path for ever (0.5 m/s one way, then the other), never stopping. It stops at every step size.
static int CoarseStepArrives(void)
{
    double steps[3] = {0.2, 0.5, 1.0};
    for (int s = 0; s < 3; ++s)
    {
        lsWorld* world = lsCreateWorld();
        world->robot.position = lsV(0.0, 50.0);
        world->robot.lidar.beams = 4;
        world->sim.dt = steps[s];
        lsVec2 line[2] = {{0.0, 0.0}, {20.0, 0.0}};
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = lsWorld_AddPath(world, "line", line, 2, 1.0, false);
        v.position = line[0];
        lsWorld_AddVehicle(world, v);
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        for (int k = 0; k < (int)(60.0 / steps[s]); ++k)
        {
            lsSim_Step(sim, NULL);
        }
        const lsVehicleState* a = &state->vehicles[0];
        printf("    dt %g: at %.6f, %.2g m/s after 60 s\n", steps[s], a->position.x, lsLength(a->velocity));
        ENSURE(a->stopped);
        ENSURE(lsDistance(a->position, line[1]) < 1e-3);
        ENSURE(lsLength(a->velocity) < 1e-3);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

static int WallsAndSeparation(void)
{
    // Four fast vehicles on one loop, crowded, with a wall across the loop: they pile up at the wall without
    // passing it and without overlapping each other or the robot parked on the path.
    lsWorld* world = lsCreateWorld();
    lsVec2 loop[4] = {{-5.0, -5.0}, {5.0, -5.0}, {5.0, 5.0}, {-5.0, 5.0}};
    int path = lsWorld_AddPath(world, "loop", loop, 4, 0.5, true);
    lsVec2 wall[2] = {{0.0, 3.0}, {0.0, 7.0}};
    lsWorld_AddWall(world, wall, 2, false);
    world->robot.position = lsV(5.0, 0.0);
    world->robot.lidar.beams = 4;
    for (int i = 0; i < 4; ++i)
    {
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = path;
        v.position = lsV(-4.0 + 1.0 * i, -5.0);
        v.velocity = lsV(3.0, 0.0);
        v.maxSpeed = 6.0; // 0.1 m per step
        v.maxForce = 12.0;
        v.radius = 0.3;
        lsWorld_AddVehicle(world, v);
    }
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    for (int k = 0; k < 60 * 30; ++k)
    {
        lsSim_Step(sim, NULL);
        for (int i = 0; i < state->vehicleCount; ++i)
        {
            const lsVehicleState* a = &state->vehicles[i];
            lsSegment seg = {wall[0], wall[1]};
            ENSURE(lsClosestPointOnSegment(&seg, a->position).distance > a->radius);
            // The wall at x = 0 is never crossed in the top half (vehicles stay on its right: they came from there).
            if (a->position.y > 3.0 && a->position.y < 7.0)
            {
                ENSURE(a->position.x > 0.0);
            }
            ENSURE(lsDistance(a->position, state->robot.position) > a->radius + state->robot.radius);
            for (int j = i + 1; j < state->vehicleCount; ++j)
            {
                ENSURE(lsDistance(a->position, state->vehicles[j].position) > a->radius + state->vehicles[j].radius);
            }
        }
    }
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static int MovingWallsBlockVehicles(void)
{
    // Vehicles shuttle along a line that a fast door (4 m per 0.5 s) and a spinning bar keep crossing. The exact
    // moving-point sweep of each centre against each wall over each step must never find a touch, and no body ends a
    // step overlapping a wall.
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(0.0, 30.0);
    world->robot.lidar.beams = 4;
    lsVec2 line[2] = {{-10.0, 0.0}, {10.0, 0.0}};
    int path = lsWorld_AddPath(world, "line", line, 2, 0.5, false);
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(-4.0, -2.0);
    door.b = lsV(-4.0, -1.0);
    door.offset = lsV(0.0, 4.0);
    door.period = 1.0;
    lsWorld_AddMover(world, door);
    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    bar.a = lsV(3.0, -1.5);
    bar.b = lsV(3.0, 1.5);
    bar.pivot = lsV(3.0, 0.0);
    bar.angularSpeed = 4.0;
    lsWorld_AddMover(world, bar);
    for (int i = 0; i < 3; ++i)
    {
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = path;
        v.position = lsV(-9.0 + 7.5 * i, 0.0); // -9, -1.5, 6: clear of both walls at time 0
        v.velocity = lsV(2.0, 0.0);
        v.maxSpeed = 4.0;
        v.maxForce = 8.0;
        v.radius = 0.25;
        v.pathEnd = ls_pathEndReverse;
        lsWorld_AddVehicle(world, v);
    }
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    lsVec2 before[3];
    lsSegment wallsBefore[2];
    int pushed = 0;
    for (int k = 0; k < 60 * 30; ++k)
    {
        for (int i = 0; i < 3; ++i)
        {
            before[i] = state->vehicles[i].position;
        }
        wallsBefore[0] = state->movers[0];
        wallsBefore[1] = state->movers[1];
        lsSim_Step(sim, NULL);
        for (int i = 0; i < 3; ++i)
        {
            for (int m = 0; m < 2; ++m)
            {
                lsSweepHit hits[2];
                int n = lsSweepPointSegment(wallsBefore[m].a, state->movers[m].a, wallsBefore[m].b, state->movers[m].b,
                                            before[i], state->vehicles[i].position, hits);
                if (n != 0)
                {
                    fprintf(stderr, "step %d vehicle %d wall %d: centre (%g, %g) -> (%g, %g) met the wall at t = %g\n",
                            k, i, m, before[i].x, before[i].y, state->vehicles[i].position.x,
                            state->vehicles[i].position.y, hits[0].t);
                }
                ENSURE(n == 0);
                double d = lsClosestPointOnSegment(&state->movers[m], state->vehicles[i].position).distance;
                if (!(d > state->vehicles[i].radius))
                {
                    fprintf(stderr, "step %d vehicle %d wall %d: centre (%g, %g) -> (%g, %g) distance %.17g\n", k, i, m,
                            before[i].x, before[i].y, state->vehicles[i].position.x, state->vehicles[i].position.y, d);
                }
                ENSURE(d > state->vehicles[i].radius);
                pushed += d < state->vehicles[i].radius + 1e-3 ? 1 : 0;
            }
        }
    }
    ENSURE(pushed > 0); // the walls did reach the vehicles
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

int VehicleTest(void)
{
    RUN_SUBTEST(SteeringPoints);
    RUN_SUBTEST(StraightAndCurvedPaths);
    RUN_SUBTEST(OpenPathEnds);
    RUN_SUBTEST(ShortPathReverses);
    RUN_SUBTEST(CoarseStepArrives);
    RUN_SUBTEST(WallsAndSeparation);
    RUN_SUBTEST(MovingWallsBlockVehicles);
    return 0;
}

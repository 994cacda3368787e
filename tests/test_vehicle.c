// Tests of the path-following vehicles (Reynolds): the steering points, staying within the path's radius on
// straight and curved paths once joined, the ends of open paths (stop, reverse), walls, and separation; following
// in order where a path comes back near itself (out-and-back, figure eight, two-lane turnaround), picking the path
// up again when thrown off it, across a live edit, the same for any thread count, and in a dense crowd (found through
// the collision index) the same as testing every body.
#include "core/robot.h"
#include "core/sim_replay.h"
#include "core/sweep.h"
#include "core/vehicle.h"
#include "test.h"

#include "lidarsim/pool.h"
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
    lsVec2 before[4];
    lsSweepHit through[2];
    ENSURE(lsSweepPointSegment(wall[0], wall[0], wall[1], wall[1], lsV(1.0, 5.0), lsV(-1.0, 5.0), through) == 1);
    for (int k = 0; k < 60 * 30; ++k)
    {
        for (int i = 0; i < state->vehicleCount; ++i)
        {
            before[i] = state->vehicles[i].position;
        }
        lsSim_Step(sim, NULL);
        for (int i = 0; i < state->vehicleCount; ++i)
        {
            const lsVehicleState* a = &state->vehicles[i];
            lsSegment seg = {wall[0], wall[1]};
            ENSURE(lsClosestPointOnSegment(&seg, a->position).distance > a->radius);
            // No centre passes through the wall in a step. (Around it is allowed: the queue's leader, squeezed along
            // the wall by the separation of the vehicles behind it, may come round the wall's end 2 m off its path
            // and seek its path beyond; the vehicles did that on main too, up to 3.5 m off, and only by chance
            // never all the way round.)
            lsSweepHit hits[2];
            ENSURE(lsSweepPointSegment(wall[0], wall[0], wall[1], wall[1], before[i], a->position, hits) == 0);
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

// ---------------------------------------------------------------------------------------------------------------------
// Following in order

// A world with one vehicle (v, its path set here) on a path of the given points and radius, the robot far away.
static lsWorld* OneVehicleWorld(const lsVec2* points, int count, bool closed, double radius, lsVehicleDef v)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(0.0, 80.0);
    world->robot.lidar.beams = 4;
    v.path = lsWorld_AddPath(world, "p", points, count, radius, closed);
    lsWorld_AddVehicle(world, v);
    return world;
}

// The out-and-back [[0, 0], [10, 0], [0, 0]] with "stop": out to the far end, back, and it stops at the end (which is
// also the start) and stays there. Projecting on the whole path, the way back was as near as the way out everywhere,
// and the vehicle shuttled between the ends for ever (the limit docs/world-format.md used to state).
static int OutAndBackStops(void)
{
    lsVec2 points[3] = {{0.0, 0.0}, {10.0, 0.0}, {0.0, 0.0}};
    lsVehicleDef v = lsDefaultVehicleDef(); // 1.5 m/s, 2 m/s^2, at the first point, at rest
    v.position = points[0];
    lsWorld* world = OneVehicleWorld(points, 3, false, 0.5, v);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    double farthest = 0.0;
    int turns = 0, heading = 1, stoppedAt = -1;
    for (int k = 0; k < 60 * 40; ++k)
    {
        lsSim_Step(sim, NULL);
        const lsVehicleState* a = &state->vehicles[0];
        farthest = fmax(farthest, a->position.x);
        if (fabs(a->velocity.x) > 0.5 && (a->velocity.x > 0.0 ? 1 : -1) != heading)
        {
            heading = -heading;
            turns += 1;
        }
        if (a->stopped && stoppedAt < 0)
        {
            stoppedAt = k;
        }
        if (stoppedAt >= 0)
        {
            // Once stopped it stays stopped, on the end point.
            ENSURE(a->stopped);
            ENSURE(lsDistance(a->position, points[2]) < 1e-3);
        }
    }
    printf("    out to x = %.3f, %d turns, stopped at step %d\n", farthest, turns, stoppedAt);
    ENSURE(farthest > 9.5); // it went all the way out
    ENSURE(turns == 1);     // and turned back once
    ENSURE(stoppedAt > 0 && stoppedAt < 60 * 30);
    ENSURE(lsLength(state->vehicles[0].velocity) < 1e-3);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A figure eight (x = 8 sin t, y = 2.4 sin t cos t, 64 points, closed): its two branches cross at the origin at 33
// degrees, within each other's radius for 1.7 m either side of the crossing.
static void FigureEight(lsVec2 points[64])
{
    for (int i = 0; i < 64; ++i)
    {
        double t = 2.0 * LS_PI * i / 64.0;
        points[i] = lsV(8.0 * sin(t), 2.4 * sin(t) * cos(t));
    }
}

// Follows the segments a vehicle is nearest over the steps, away from the figure eight's crossing (where both
// branches are near): each change must go forward by 1 to 10 segments (the crossing skips about 6), never back.
typedef struct LapOrder
{
    int last;  ///< the last segment seen, -1 before the first
    int laps;  ///< times it went from the last segments to the first ones
    int wrong; ///< changes that went back or jumped
    int steps; ///< steps seen away from the crossing
} LapOrder;

static void LapOrder_See(LapOrder* order, const lsVec2* points, lsVec2 position)
{
    if (lsLength(position) < 2.0)
    {
        return;
    }
    order->steps += 1;
    int segment = lsClosestPointOnPolyline(points, 64, true, position).index;
    if (order->last >= 0 && segment != order->last)
    {
        int forward = (segment - order->last + 64) % 64;
        if (forward < 1 || forward > 10)
        {
            if (order->wrong == 0)
            {
                fprintf(stderr, "    from segment %d to %d at (%g, %g)\n", order->last, segment, position.x,
                        position.y);
            }
            order->wrong += 1;
        }
        order->laps += segment < order->last ? 1 : 0;
    }
    order->last = segment;
}

static lsVehicleDef FastVehicle(void)
{
    lsVehicleDef v = lsDefaultVehicleDef();
    v.maxSpeed = 3.0; // predicts 1.5 m ahead: past the crossing onto the other branch when the branches are near
    v.maxForce = 4.0;
    return v;
}

// Round the figure eight in order: through the crossing on the same branch, every lap. Projecting on the whole path,
// the prediction landed on the other branch at the crossing and the vehicle went round the second lobe backwards.
static int FigureEightInOrder(void)
{
    lsVec2 points[64];
    FigureEight(points);
    lsVehicleDef v = FastVehicle();
    v.position = points[0]; // on the crossing itself: it starts on the first segment
    lsWorld* world = OneVehicleWorld(points, 64, true, 0.5, v);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    LapOrder order = {-1, 0, 0, 0};
    double worst = 0.0;
    for (int k = 0; k < 60 * 45; ++k)
    {
        lsSim_Step(sim, NULL);
        LapOrder_See(&order, points, state->vehicles[0].position);
        worst = fmax(worst, DistanceToPath(&world->paths[0], state->vehicles[0].position));
    }
    printf("    %d laps, %d changes out of order, %.2f m from the path at worst\n", order.laps, order.wrong, worst);
    ENSURE(order.wrong == 0);
    ENSURE(order.laps >= 3);
    ENSURE(worst < 0.5);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Two-lane turnarounds: out along y = 0, a hairpin w wide (tighter than the vehicle turns at speed: 1.1 m at 1.5 m/s,
// 4.5 m at 3 m/s), back along y = w, the lanes within each other's radius (0.5). The vehicle starts drifting towards
// the other lane (no force acts inside the radius): it must still go out to the hairpin, round it once and come back
// to stop at the end. Projecting on the whole path, the lane back was nearer as soon as the prediction drifted past
// the middle, and it turned back there (the first case); the last two, lanes 0.4 m apart, once swung it round the
// hairpin across the lane it came along, which it then followed backwards.
static int TwoLaneTurnaround(void)
{
    double cases[3][3] = {{0.6, 1.5, 0.6}, {0.4, 1.5, 0.3}, {0.4, 3.0, 1.2}}; // width, max_speed, drift (m/s)
    for (int c = 0; c < 3; ++c)
    {
        double w = cases[c][0];
        lsVec2 points[4] = {{0.0, 0.0}, {20.0, 0.0}, {20.0, w}, {0.0, w}};
        lsVehicleDef v = lsDefaultVehicleDef();
        v.position = points[0];
        v.maxSpeed = cases[c][1];
        v.velocity = lsV(cases[c][1], cases[c][2]);
        lsWorld* world = OneVehicleWorld(points, 4, false, 0.5, v);
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        double farthest = 0.0;
        int trips = 0; // times it went past x = 19.5 after having been back below x = 17
        bool out = false;
        for (int k = 0; k < 60 * 40; ++k)
        {
            lsSim_Step(sim, NULL);
            lsVec2 p = state->vehicles[0].position;
            farthest = fmax(farthest, p.x);
            if (!out && p.x > 19.5)
            {
                out = true;
                trips += 1;
            }
            out = out && p.x > 17.0;
        }
        const lsVehicleState* a = &state->vehicles[0];
        printf("    lanes %.1f m apart, %.1f m/s: out to x = %.3f, %d trips to the hairpin, ends at (%.4f, %.4f)\n", w,
               v.maxSpeed, farthest, trips, a->position.x, a->position.y);
        ENSURE(farthest > 19.5 && trips == 1);
        ENSURE(a->stopped);
        ENSURE(lsDistance(a->position, points[3]) < 1e-3);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

// Thrown far off its path (5 m beyond the figure eight's right end, where nothing of the window about its progress
// is near), the vehicle picks the path up at its nearest point there and goes on in order from it, at rest to begin
// with; pushed 1 m aside (not lost), it comes back to the place it was at.
static int ThrownOffPicksUp(void)
{
    lsVec2 points[64];
    FigureEight(points);
    lsVehicleDef v = FastVehicle();
    v.position = points[0];
    lsWorld* world = OneVehicleWorld(points, 64, true, 0.5, v);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    // The far throw, from the left lobe: the window about its progress is more than 10 m away.
    for (int k = 0; k < 60 * 20 && state->vehicles[0].position.x > -3.0; ++k)
    {
        lsSim_Step(sim, NULL);
    }
    ENSURE(state->vehicles[0].position.x <= -3.0);
    lsSimReplayAccess access = lsSim_ReplayAccess(sim);
    access.vehicles[0].position = lsV(13.0, 0.0);
    access.vehicles[0].velocity = lsV(0.0, 0.0);
    lsSim_ReplaySync(sim);
    LapOrder order = {-1, 0, 0, 0};
    int first = -1, back = -1;
    for (int k = 0; k < 60 * 30; ++k)
    {
        lsSim_Step(sim, NULL);
        lsVec2 p = state->vehicles[0].position;
        LapOrder_See(&order, points, p);
        first = first < 0 ? order.last : first;
        if (back < 0 && DistanceToPath(&world->paths[0], p) < world->paths[0].radius)
        {
            back = k;
        }
    }
    printf("    picked up at segment %d, inside the radius after %d steps, %d laps, %d out of order\n", first, back,
           order.laps, order.wrong);
    ENSURE(first >= 14 && first <= 18); // the right end (segment 16 starts at (8, 0))
    ENSURE(back >= 0 && back < 60 * 4);
    ENSURE(order.wrong == 0 && order.laps >= 2);

    // The near push: 1 m up, by the crossing (where it happens to be): the foot on its own branch moves a little
    // along it, and the other branch, nearer now but half a lap away in arc length, is not taken.
    lsVec2 at = state->vehicles[0].position;
    double progress = state->vehicles[0].progress;
    access.vehicles[0].position = lsAdd(at, lsV(0.0, 1.0));
    lsSim_ReplaySync(sim);
    lsSim_Step(sim, NULL);
    printf("    pushed from (%.3f, %.3f), progress %.3f, to %.3f\n", at.x, at.y, progress, state->vehicles[0].progress);
    ENSURE(lsLength(at) < 1.0);
    ENSURE(fabs(state->vehicles[0].progress - progress) < 1.0);
    ENSURE(lsDistance(state->vehicles[0].normalPoint, at) < 2.0 * FastVehicle().maxSpeed * 0.5);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A live edit (lsSim_CarryOver) keeps a vehicle's place along its path: on the way back of the out-and-back it goes
// on back and stops at the end. After an edit of the path's points it picks the path up again near the old place
// (the lane back, not the way out it would meet first).
static int CarryOverKeepsProgress(void)
{
    for (int edit = 0; edit < 2; ++edit)
    {
        lsVec2 points[3] = {{0.0, 0.0}, {10.0, 0.0}, {0.0, 0.0}};
        lsVehicleDef v = lsDefaultVehicleDef();
        v.position = points[0];
        lsWorld* world = OneVehicleWorld(points, 3, false, 0.5, v);
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        // On the way back, at x < 6.
        int k = 0;
        while (!(state->vehicles[0].velocity.x < -1.0 && state->vehicles[0].position.x < 6.0) && k < 60 * 20)
        {
            lsSim_Step(sim, NULL);
            k += 1;
        }
        ENSURE(k < 60 * 20);
        lsWorld* copy = lsCloneWorld(world);
        if (edit == 1)
        {
            copy->paths[0].points[1] = lsV(12.0, 0.0); // the far end 2 m farther
        }
        lsSim* fresh = lsCreateSim(copy);
        lsSim_CarryOver(fresh, sim);
        lsDestroySim(sim);
        state = lsSim_GetState(fresh);
        double x = state->vehicles[0].position.x, highest = x;
        for (k = 0; k < 60 * 20; ++k)
        {
            lsSim_Step(fresh, NULL);
            highest = fmax(highest, state->vehicles[0].position.x);
        }
        printf("    %s: from x = %.3f, at most %.3f after, ends at %.4f\n", edit ? "path edited" : "unchanged", x,
               highest, state->vehicles[0].position.x);
        ENSURE(highest < x + 0.01); // it went on back
        ENSURE(state->vehicles[0].stopped);
        ENSURE(lsDistance(state->vehicles[0].position, points[0]) < 1e-3);
        lsDestroySim(fresh);
        lsDestroyWorld(copy);
        lsDestroyWorld(world);
    }
    return 0;
}

// Vehicles step one after another on the calling thread; the fleet's scans run on the pool. Two vehicles on the
// figure eight and a dozen autopilot robots in a room beside it: every vehicle's state (position, velocity, progress)
// is the same bits at every step with no pool and with 1, 2 and 4 threads, and the vehicles go round in order.
static int VehiclesSameForAnyThreadCount(void)
{
    lsVec2 points[64];
    FigureEight(points);
    lsWorld* world = lsCreateWorld();
    lsVec2 room[4] = {{-10.0, 6.0}, {10.0, 6.0}, {10.0, 16.0}, {-10.0, 16.0}};
    lsWorld_AddWall(world, room, 4, true);
    world->robot.position = lsV(-8.0, 8.0);
    world->robot.controller = ls_controllerAutopilot;
    for (int i = 0; i < 11; ++i)
    {
        lsRobotDef r = world->robot;
        snprintf(r.id, sizeof r.id, "r%d", i);
        r.position = lsV(-6.0 + 1.5 * i, 8.0 + 2.0 * (i % 4));
        r.angle = 0.7 * i;
        r.lidar.beams = 60;
        r.lidar.noise = 0.01;
        r.lidar.seed = (uint64_t)i;
        lsWorld_AddRobot(world, &r);
    }
    int path = lsWorld_AddPath(world, "eight", points, 64, 0.5, true);
    for (int i = 0; i < 2; ++i)
    {
        lsVehicleDef v = FastVehicle();
        v.path = path;
        v.position = i == 0 ? points[0] : points[32];
        lsWorld_AddVehicle(world, v);
    }
    enum
    {
        steps = 60 * 30
    };
    lsVehicleState* reference = lsAlloc(sizeof(lsVehicleState) * 2 * steps);
    for (int run = 0; run < 4; ++run)
    {
        int threads[4] = {0, 1, 2, 4};
        lsPool* pool = threads[run] > 0 ? lsCreatePool(threads[run]) : NULL;
        lsSim* sim = lsCreateSim(world);
        lsSim_SetPool(sim, pool);
        const lsSimState* state = lsSim_GetState(sim);
        LapOrder orders[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
        int differ = 0;
        for (int k = 0; k < steps; ++k)
        {
            lsSim_StepRobots(sim, NULL);
            for (int i = 0; i < 2; ++i)
            {
                const lsVehicleState* a = &state->vehicles[i];
                lsVehicleState* r = &reference[2 * k + i];
                if (run == 0)
                {
                    *r = *a;
                    LapOrder_See(&orders[i], points, a->position);
                }
                differ += lsVecEqual(a->position, r->position) && lsVecEqual(a->velocity, r->velocity) &&
                                  a->progress == r->progress && a->tracking == r->tracking
                              ? 0
                              : 1;
            }
        }
        printf("    %d threads: %d vehicle states differ", threads[run], differ);
        if (run == 0)
        {
            printf(", %d and %d laps, %d and %d out of order", orders[0].laps, orders[1].laps, orders[0].wrong,
                   orders[1].wrong);
            ENSURE(orders[0].wrong == 0 && orders[1].wrong == 0);
            ENSURE(orders[0].laps >= 2 && orders[1].laps >= 2);
            ENSURE(lsSim_GetState(sim)->distance > 20.0); // the robots drive (and scan on the pool)
        }
        printf("\n");
        ENSURE(differ == 0);
        lsDestroySim(sim);
        lsDestroyPool(pool);
    }
    lsFree(reference, sizeof(lsVehicleState) * 2 * steps);
    lsDestroyWorld(world);
    return 0;
}

// The vehicles' part of a step as the simulation took it with every body tested, in index order: the separation over
// every other body (vehicles, then robots) and the move among all of them (circles: the vehicles, then the robots).
// Counts the vehicles that felt a separation and those whose move met something.
static void BruteForceVehicles(const lsWorld* world, const lsCollisionWorld* bodies, lsVehicleState* vehicles,
                               lsCircle* circles, double dt, int* separated, int* contacts)
{
    lsPathFollowDef tuning = lsDefaultPathFollowDef();
    tuning.responseTime = fmax(tuning.responseTime, dt);
    tuning.stepTime = dt;
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        const lsVehicleDef* def = &world->vehicles[i];
        lsVehicleState* v = &vehicles[i];
        lsVec2 force = lsVehicle_PathForce(&world->paths[def->path], def, &tuning, v);
        lsVec2 sum = {0.0, 0.0};
        int count = 0;
        for (int j = 0; j < bodies->circleCount; ++j)
        {
            lsVec2 away = lsSub(v->position, circles[j].center);
            double d = lsLength(away);
            if (j != i && d > 0.0 && d < 2.0 * (def->radius + circles[j].radius))
            {
                sum = lsMulAdd(sum, 1.0 / (d * d), away);
                count += 1;
            }
        }
        lsVec2 separation = {0.0, 0.0};
        if (count > 0)
        {
            lsVec2 steer =
                lsScale(1.0 / tuning.responseTime, lsSub(lsScale(def->maxSpeed, lsNormalize(sum)), v->velocity));
            double steerLength = lsLength(steer);
            separation = steerLength > def->maxForce ? lsScale(def->maxForce / steerLength, steer) : steer;
            *separated += 1;
        }
        force = lsMulAdd(force, 1.5, separation);
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
        lsCollisionWorld cw = *bodies;
        cw.skipCircle = i;
        lsMoveResult moved = lsMoveCircle(&cw, v->position, lsScale(dt, v->velocity), def->radius);
        if (moved.contacts > 0)
        {
            double into = lsDot(v->velocity, moved.lastNormal);
            if (into < 0.0)
            {
                v->velocity = lsMulSub(v->velocity, into, moved.lastNormal);
            }
            *contacts += 1;
        }
        v->position = moved.position;
        circles[i].center = moved.position;
    }
}

// The same bits in both coordinates (through memcpy: -0.0 and 0.0 differ; clang-tidy refuses memcmp of doubles).
static bool SameVecBits(lsVec2 a, lsVec2 b)
{
    uint64_t bits[4];
    memcpy(bits, &a.x, 8), memcpy(bits + 1, &a.y, 8), memcpy(bits + 2, &b.x, 8), memcpy(bits + 3, &b.y, 8);
    return bits[0] == bits[2] && bits[1] == bits[3];
}

static int VehiclesMatchBruteForce(void)
{
    // A dense crowd of 400 vehicles (radii 0.1 to 0.6 m, started overlapping each other) on crossing paths in a 30 m
    // room with boxes, eight parked robots among them and a door pushing through them: a step finds each vehicle's
    // neighbours through the collision index, and must give what testing every body gave, bit for bit, every step.
    lsWorld* world = lsCreateWorld();
    lsVec2 room[4] = {{0.0, 0.0}, {30.0, 0.0}, {30.0, 30.0}, {0.0, 30.0}};
    lsWorld_AddWall(world, room, 4, true);
    lsRng rng = lsMakeRng(7);
    for (int k = 0; k < 6; ++k)
    {
        lsBoxDef box = lsDefaultBoxDef();
        box.center = lsV(lsRng_Range(&rng, 3.0, 27.0), lsRng_Range(&rng, 3.0, 27.0));
        box.size = lsV(1.0, 0.6);
        box.angle = lsRng_Range(&rng, 0.0, LS_PI);
        lsWorld_AddBox(world, box);
    }
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(20.0, 10.0);
    door.b = lsV(20.0, 14.0);
    door.offset = lsV(4.0, 0.0);
    door.period = 8.0; // 1 m/s: one sub-step
    lsWorld_AddMover(world, door);
    for (int k = 0; k < 10; ++k)
    {
        char id[16];
        snprintf(id, sizeof id, "p%d", k);
        lsVec2 points[3] = {{lsRng_Range(&rng, 1.0, 29.0), lsRng_Range(&rng, 1.0, 29.0)},
                            {lsRng_Range(&rng, 1.0, 29.0), lsRng_Range(&rng, 1.0, 29.0)},
                            {lsRng_Range(&rng, 1.0, 29.0), lsRng_Range(&rng, 1.0, 29.0)}};
        lsWorld_AddPath(world, id, points, 3, 0.5, k % 3 == 0);
    }
    for (int i = 0; i < 400; ++i)
    {
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = (int)(lsRng_Uniform(&rng) * 10.0) % 10;
        v.position = lsV(lsRng_Range(&rng, 1.0, 29.0), lsRng_Range(&rng, 1.0, 29.0));
        v.velocity = lsV(lsRng_Range(&rng, -1.0, 1.0), lsRng_Range(&rng, -1.0, 1.0));
        v.maxSpeed = lsRng_Range(&rng, 0.5, 3.0);
        v.maxForce = lsRng_Range(&rng, 1.0, 5.0);
        v.radius = 0.1 + 0.1 * (i % 6);
        v.pathEnd = i % 2 == 0 ? ls_pathEndStop : ls_pathEndReverse;
        lsWorld_AddVehicle(world, v);
    }
    world->robot.position = lsV(4.0, 4.0);
    world->robot.lidar.beams = 8;
    for (int k = 1; k < 8; ++k)
    {
        lsRobotDef r = world->robot;
        snprintf(r.id, sizeof r.id, "r%d", k);
        r.position = lsV(3.0 + 2.0 * k, 3.0 + 2.5 * k); // away from the door: nothing moves them into a vehicle
        r.radius = 0.2 + 0.1 * k;
        lsWorld_AddRobot(world, &r);
    }
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    int n = state->vehicleCount, bodyCount = n + state->robotCount;
    lsVehicleState* vehicles = lsAlloc(sizeof(lsVehicleState) * (size_t)n);
    lsCircle* circles = lsAlloc(sizeof(lsCircle) * (size_t)bodyCount);
    memcpy(vehicles, state->vehicles, sizeof(lsVehicleState) * (size_t)n);
    int separated = 0, contacts = 0, differ = 0;
    for (int k = 0; k < 300 && differ == 0; ++k)
    {
        // The robots where they stand (they move after the vehicles), the door from now to the step's end.
        for (int i = 0; i < n; ++i)
        {
            circles[i] = (lsCircle){vehicles[i].position, world->vehicles[i].radius};
        }
        for (int j = 0; j < state->robotCount; ++j)
        {
            circles[n + j] = (lsCircle){state->robots[j].position, state->robots[j].radius};
        }
        lsSegment doorStart = state->movers[0];
        lsSegment doorEnd = lsMover_SegmentAt(&world->movers[0], (double)(state->step + 1) * state->dt);
        lsCollisionWorld bodies = {lsSim_GetScene(sim), &doorStart, &doorEnd, 1, circles, bodyCount, -1};
        BruteForceVehicles(world, &bodies, vehicles, circles, state->dt, &separated, &contacts);
        lsSim_Step(sim, NULL);
        for (int i = 0; i < n; ++i)
        {
            // Bit for bit (-0.0 and 0.0 differ, as in the state hash).
            differ += SameVecBits(vehicles[i].position, state->vehicles[i].position) &&
                              SameVecBits(vehicles[i].velocity, state->vehicles[i].velocity)
                          ? 0
                          : 1;
        }
    }
    printf("    %d vehicle states differ; separations %d, contacts %d\n", differ, separated, contacts);
    ENSURE(differ == 0);
    ENSURE(separated > 10000 && contacts > 1000); // a crowd: they meet and push each other
    lsFree(vehicles, sizeof(lsVehicleState) * (size_t)n);
    lsFree(circles, sizeof(lsCircle) * (size_t)bodyCount);
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
    RUN_SUBTEST(OutAndBackStops);
    RUN_SUBTEST(FigureEightInOrder);
    RUN_SUBTEST(TwoLaneTurnaround);
    RUN_SUBTEST(ThrownOffPicksUp);
    RUN_SUBTEST(CarryOverKeepsProgress);
    RUN_SUBTEST(VehiclesSameForAnyThreadCount);
    RUN_SUBTEST(VehiclesMatchBruteForce);
    return 0;
}

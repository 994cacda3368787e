// Tests of several robots in one world: the "robots" list in files, robots seeing each other exactly (against the
// brute-force cast), colliding without overlap (head on, pushed against a wall: crushed, driven by a moving wall into
// a crowd: pushed on in a chain), the one-robot shorthand simulating bit for bit like a one-entry list, the thread
// count not changing anything, and the moves prepared ahead of the robots' turns giving the state of moving each
// robot in turn.
#include "core/autopilot.h"
#include "core/invariants.h"
#include "lidarsim/agent.h"
#include "lidarsim/pool.h"
#include "lidarsim/sim.h"
#include "test.h"

#include <stdio.h>
#include <string.h>

static lsWorld* Load(const char* text)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "fleet.json", &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "    %s\n", err.message);
    }
    return world;
}

static bool LoadFails(const char* text, const char* expected)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "bad.json", &err, NULL);
    lsDestroyWorld(world);
    if (world != NULL || strstr(err.message, expected) == NULL)
    {
        fprintf(stderr, "    expected '%s', got '%s'\n", expected, world != NULL ? "(loaded)" : err.message);
        return false;
    }
    return true;
}

// The list form loads every robot with its own settings, saves back as a list, and reloads equal; errors are located.
static int FormatTest(void)
{
    const char* text =
        "{\"walls\": [], \"robots\": ["
        "{\"id\": \"a\", \"pose\": [1, 2, 90], \"controller\": \"autopilot\", \"lidar\": {\"beams\": 30, \"seed\": 4}},"
        "{\"id\": \"b\", \"pose\": [5, 2, 0], \"footprint\": [[-0.3, -0.2], [0.3, -0.2], [0.3, 0.2], [-0.3, 0.2]],"
        " \"max_speed\": 0.5, \"controller\": \"external\", \"lidar\": {\"mount\": [0.2, 0, 0]}},"
        "{\"id\": \"c\", \"pose\": [9, 2, 0]}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    ENSURE(lsWorld_RobotCount(world) == 3 && world->robotList);
    ENSURE(strcmp(world->robot.id, "a") == 0 && world->robot.controller == ls_controllerAutopilot);
    ENSURE(world->robot.lidar.beams == 30 && world->robot.lidar.seed == 4);
    const lsRobotDef* b = lsWorld_GetRobot(world, 1);
    ENSURE(strcmp(b->id, "b") == 0 && b->footprintCount == 4 && b->maxSpeed == 0.5);
    ENSURE(b->controller == ls_controllerExternal && b->lidar.mountOffset.x == 0.2);
    ENSURE(lsWorld_GetRobot(world, 2)->controller == ls_controllerManual);
    ENSURE(lsWorld_FindRobot(world, "c") == 2 && lsWorld_FindRobot(world, "d") == -1);
    char* saved = lsSaveWorldToString(world);
    ENSURE(strstr(saved, "\"robots\": [") != NULL && strstr(saved, "\"robot\":") == NULL);
    lsWorld* again = Load(saved);
    lsFreeString(saved);
    ENSURE(again != NULL && lsWorld_Equal(world, again));

    // Editing: remove the first (the second takes its place), add one with a fresh id.
    ENSURE(lsWorld_RemoveRobot(again, 0) && strcmp(again->robot.id, "b") == 0 && lsWorld_RobotCount(again) == 2);
    lsRobotDef extra = lsDefaultRobotDef();
    lsWorld_UniqueRobotId(again, "c", extra.id);
    ENSURE(strcmp(extra.id, "c2") == 0);
    ENSURE(lsWorld_AddRobot(again, &extra) == 2 && lsWorld_RobotCount(again) == 3);
    ENSURE(lsWorld_RemoveRobot(again, 2) && lsWorld_RemoveRobot(again, 1) && !lsWorld_RemoveRobot(again, 0));
    lsDestroyWorld(again);
    lsDestroyWorld(world);

    // The shorthand saves back as the shorthand.
    world = Load("{\"walls\": [], \"robot\": {\"pose\": [1, 1, 0]}}");
    ENSURE(world != NULL && lsWorld_RobotCount(world) == 1 && !world->robotList);
    saved = lsSaveWorldToString(world);
    ENSURE(strstr(saved, "\"robot\": {") != NULL && strstr(saved, "\"robots\"") == NULL);
    lsFreeString(saved);
    lsDestroyWorld(world);

    ENSURE(LoadFails("{\"walls\": [], \"robots\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}",
                     "bad.json:1:46: robots[1].id: duplicate id \"a\" (robots[0] has it)"));
    ENSURE(LoadFails("{\"walls\": [], \"robots\": [{\"pose\": [0, 0, 0]}]}", "robots[0]: missing key 'id'"));
    ENSURE(LoadFails("{\"walls\": [], \"robots\": []}", "robots: expected at least one robot"));
    ENSURE(LoadFails("{\"walls\": [], \"robots\": [{\"id\": \"\"}]}", "robots[0].id: expected a non-empty id"));
    ENSURE(LoadFails("{\"walls\": [], \"robot\": {}, \"robots\": [{\"id\": \"a\"}]}", "not both"));
    ENSURE(LoadFails("{\"walls\": [], \"robots\": [{\"id\": \"a\", \"controller\": \"remote\"}]}",
                     "robots[0].controller: expected \"manual\", \"autopilot\" or \"external\""));
    return 0;
}

static uint64_t RunHash(const lsWorld* world, int steps, lsPool* pool)
{
    lsSim* sim = lsCreateSim(world);
    lsSim_SetPool(sim, pool);
    for (int k = 0; k < steps; ++k)
    {
        lsSim_StepRobots(sim, NULL);
    }
    uint64_t h = lsSim_Hash(sim);
    // The scans too: every robot's ranges.
    const lsSimState* state = lsSim_GetState(sim);
    for (int i = 0; i < state->robotCount; ++i)
    {
        const lsScan* scan = lsSim_GetRobotScan(sim, i);
        for (int b = 0; b < scan->count; ++b)
        {
            uint64_t bits;
            memcpy(&bits, &scan->ranges[b], sizeof bits);
            h = (h ^ bits ^ (uint64_t)scan->kinds[b]) * 0x100000001B3ull;
        }
    }
    lsDestroySim(sim);
    return h;
}

// Every shipped world, its "robot" rewritten as a one-entry "robots" list with the same id: the same run, bit for bit.
static int ShorthandTest(void)
{
    const char* names[] = {"default", "warehouse", "maze"};
    for (int n = 0; n < 3; ++n)
    {
        char path[512];
        snprintf(path, sizeof path, "%s/worlds/%s.json", LS_SOURCE_DIR, names[n]);
        lsError err = {{0}};
        lsWorld* world = lsLoadWorld(path, &err, NULL);
        ENSURE(world != NULL);
        lsWorld* listed = lsCloneWorld(world);
        listed->robotList = true;
        char* text = lsSaveWorldToString(listed);
        lsDestroyWorld(listed);
        ENSURE(strstr(text, "\"robots\": [{") != NULL);
        listed = Load(text);
        lsFreeString(text);
        ENSURE(listed != NULL);
        lsControl autopilot = lsMakeAutopilotControl();
        lsSim* a = lsCreateSim(world);
        lsSim* b = lsCreateSim(listed);
        for (int k = 0; k < 300; ++k)
        {
            lsSim_Step(a, &autopilot);
            lsSim_Step(b, &autopilot);
        }
        ENSURE(lsSim_Hash(a) == lsSim_Hash(b));
        lsDestroySim(a);
        lsDestroySim(b);
        lsDestroyWorld(listed);
        lsDestroyWorld(world);
    }
    return 0;
}

// A square room with robots: three circles and a polygon around the first robot. Its scan sees the others exactly
// where the brute-force cast does, with their indices, and never itself.
static int SeeEachOtherTest(void)
{
    const char* text =
        "{\"walls\": [{\"points\": [[-6, -6], [6, -6], [6, 6], [-6, 6]], \"closed\": true}], \"robots\": ["
        "{\"id\": \"me\", \"pose\": [0, 0, 10], \"radius\": 0.3, \"lidar\": {\"beams\": 3600, \"mount\": [0.1, 0, 0]}},"
        "{\"id\": \"n\", \"pose\": [0, 3, 0], \"radius\": 0.4},"
        "{\"id\": \"w\", \"pose\": [-3, 0, 0], \"radius\": 0.25},"
        "{\"id\": \"s\", \"pose\": [0.5, -2.5, 30], \"footprint\": [[-0.4, -0.3], [0.4, -0.3], [0.4, 0.3], [-0.4, "
        "0.3]]},"
        "{\"id\": \"e\", \"pose\": [4, 0.2, 0], \"radius\": 0.5}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    const lsScan* scan = lsSim_GetScan(sim);
    lsDynamicObjects dyn = lsSim_GetDynamicObjects(sim);
    dyn.skipRobot = 0;
    int seen[5] = {0};
    for (int b = 0; b < scan->count; ++b)
    {
        lsRayInput in = {scan->pose.p, lsScan_BeamDirection(scan, b), scan->rangeMax};
        lsRayHit hit = lsScene_CastRayBrute(lsSim_GetScene(sim), &dyn, &in);
        ENSURE(hit.kind == scan->kinds[b] && hit.index == scan->indices[b]);
        ENSURE(hit.fraction == scan->ranges[b]);
        if (hit.kind == ls_hitRobot)
        {
            ENSURE(hit.index != 0);
            seen[hit.index] += 1;
        }
    }
    for (int i = 1; i < 5; ++i)
    {
        ENSURE(seen[i] > 20);
    }
    // The straight-ahead beam family: robot "e" (radius 0.5 at x = 4, y = 0.2) seen from the mount at (0.1, 0)
    // rotated by 10 degrees: the beam towards its centre stops on its circle.
    const lsRobotState* e = &lsSim_GetState(sim)->robots[4];
    lsVec2 toCentre = lsSub(e->position, scan->pose.p);
    double a = atan2(toCentre.y, toCentre.x) - scan->heading;
    int beam = (int)lround((a - scan->layout.angleMin) / scan->layout.angleIncrement);
    lsRayInput in = {scan->pose.p, lsScan_BeamDirection(scan, beam), 100.0};
    lsCircle body = {e->position, 0.5};
    lsCastOutput exact = lsRayCastCircle(&body, &in);
    ENSURE(scan->kinds[beam] == ls_hitRobot && scan->indices[beam] == 4 && scan->ranges[beam] == exact.fraction);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A crowd of 400 robots (circles of many sizes and boxes, random headings and lidar mounts) among obstacles: the
// scans of 16 of them equal the brute-force cast against every object, beam for beam (range, kind and index
// bit for bit), so the broad phase of the moving objects and the beam runs lose nothing in a crowd.
static int CrowdScanTest(void)
{
    enum
    {
        side = 20,
        capacity = 1 << 17
    };
    char* text = lsAlloc(capacity);
    int n = snprintf(text, capacity,
                     "{\"walls\": [{\"points\": [[0, 0], [32, 0], [32, 32], [0, 32]], \"closed\": true}],"
                     " \"polygons\": [{\"points\": [[30.6, 30.6], [31.6, 30.6], [31.1, 31.6]]}], \"robots\": [");
    lsRng rng = lsMakeRng(77);
    for (int i = 0; i < side * side; ++i)
    {
        lsVec2 jitter = lsTestRandomPoint(&rng, -0.25, 0.25, -0.25, 0.25);
        int column = i % side, row = i / side;
        double x = 1.25 + 1.5 * (double)column + jitter.x, y = 1.25 + 1.5 * (double)row + jitter.y;
        double heading = lsRng_Range(&rng, -180.0, 180.0), radius = lsRng_Range(&rng, 0.15, 0.4);
        double mount = lsRng_Range(&rng, 0.0, 0.1);
        n += snprintf(text + n, (size_t)(capacity - n),
                      "%s{\"id\": \"r%d\", \"pose\": [%.6f, %.6f, %.3f], \"radius\": %.4f, %s"
                      "\"lidar\": {\"beams\": 720, \"range\": 9, \"mount\": [%.4f, 0, 0]}}",
                      i > 0 ? "," : "", i, x, y, heading, radius,
                      i % 5 == 2 ? "\"footprint\": [[-0.35, -0.25], [0.35, -0.25], [0.35, 0.25], [-0.35, 0.25]], " : "",
                      mount);
    }
    snprintf(text + n, (size_t)(capacity - n), "]}");
    lsWorld* world = Load(text);
    lsFree(text, capacity);
    ENSURE(world != NULL && lsWorld_RobotCount(world) == side * side);
    lsSim* sim = lsCreateSim(world);
    lsError err = {{0}};
    if (!lsSim_CheckInvariants(sim, &err))
    {
        fprintf(stderr, "    %s\n", err.message);
        ENSURE(false);
    }
    int robotHits = 0;
    for (int r = 7; r < side * side; r += 25)
    {
        const lsScan* scan = lsSim_GetRobotScan(sim, r);
        lsDynamicObjects dyn = lsSim_GetDynamicObjects(sim);
        dyn.skipRobot = r;
        for (int b = 0; b < scan->count; ++b)
        {
            lsRayInput in = {scan->pose.p, lsScan_BeamDirection(scan, b), scan->rangeMax};
            lsRayHit hit = lsScene_CastRayBrute(lsSim_GetScene(sim), &dyn, &in);
            // No return: the scan's range is +inf (the brute-force cast's fraction means nothing then).
            bool same = hit.kind == scan->kinds[b] && hit.index == scan->indices[b] &&
                        (hit.kind == ls_hitNone ? isinf(scan->ranges[b]) : hit.fraction == scan->ranges[b]);
            if (!same)
            {
                fprintf(stderr, "    robot %d beam %d: brute force kind %d index %d range %.17g, scan %d %d %.17g\n", r,
                        b, (int)hit.kind, hit.index, hit.fraction, (int)scan->kinds[b], scan->indices[b],
                        scan->ranges[b]);
                ENSURE(false);
            }
            ENSURE(!(hit.kind == ls_hitRobot && hit.index == r));
            robotHits += hit.kind == ls_hitRobot;
        }
    }
    ENSURE(robotHits > 16 * 720 / 2); // in a crowd most beams stop on another robot
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Two robots driving at each other in a corridor stop in contact without overlap, each counting one collision.
static int HeadOnTest(void)
{
    const char* text =
        "{\"walls\": [{\"from\": [-5, -1], \"to\": [5, -1]}, {\"from\": [-5, 1], \"to\": [5, 1]}], \"robots\": ["
        "{\"id\": \"l\", \"pose\": [-2, 0, 0], \"radius\": 0.3},"
        "{\"id\": \"r\", \"pose\": [2, 0, 180], \"radius\": 0.3}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl forward[2] = {lsMakeManualControl(1.0, 0.0), lsMakeManualControl(1.0, 0.0)};
    const lsSimState* state = lsSim_GetState(sim);
    lsVec2 before[2] = {{0.0, 0.0}, {0.0, 0.0}};
    for (int k = 0; k < 600; ++k)
    {
        if (k == 590)
        {
            before[0] = state->robots[0].position;
            before[1] = state->robots[1].position;
        }
        lsSim_StepRobots(sim, forward);
        double gap = lsDistance(state->robots[0].position, state->robots[1].position) - 0.6;
        ENSURE(gap >= -1e-9);
        lsError err = {{0}};
        if (!lsSim_CheckInvariants(sim, &err))
        {
            fprintf(stderr, "    step %d: %s\n", k, err.message);
            ENSURE(false);
        }
    }
    double gap = lsDistance(state->robots[0].position, state->robots[1].position) - 0.6;
    ENSURE(gap < 1e-3); // in contact
    // Stopped: no progress along the corridor over the last 10 steps. (Sideways they may creep by micrometres: 180
    // degrees is not exactly pi in doubles, and sliding along each other is what circles in contact do.)
    ENSURE(fabs(before[0].x - state->robots[0].position.x) < 1e-6);
    ENSURE(fabs(before[1].x - state->robots[1].position.x) < 1e-6);
    ENSURE(fabs(state->robots[0].position.y) < 1e-3 && fabs(state->robots[1].position.y) < 1e-3);
    ENSURE(state->robots[0].collisions == 1 && state->robots[1].collisions == 1 && state->collisions == 2);
    ENSURE(state->robots[0].inContact && state->robots[1].inContact);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// A robot drives into another standing in front of a wall: the other is pushed until it meets the wall, then it is
// crushed (counted, as by a moving wall), and neither overlaps the wall or the other. Either list order.
static int PushedAgainstWallTest(void)
{
    for (int order = 0; order < 2; ++order)
    {
        const char* pusher = "{\"id\": \"pusher\", \"pose\": [-2, 0, 0], \"radius\": 0.3}";
        const char* pushed = "{\"id\": \"pushed\", \"pose\": [0, 0, 90], \"radius\": 0.3}";
        char text[1024];
        snprintf(text, sizeof text, "{\"walls\": [{\"from\": [1.5, -3], \"to\": [1.5, 3]}], \"robots\": [%s, %s]}",
                 order == 0 ? pusher : pushed, order == 0 ? pushed : pusher);
        lsWorld* world = Load(text);
        ENSURE(world != NULL);
        int a = order == 0 ? 0 : 1, b = 1 - a;
        lsSim* sim = lsCreateSim(world);
        const lsSimState* state = lsSim_GetState(sim);
        lsControl controls[2];
        controls[a] = lsMakeManualControl(1.0, 0.0);
        controls[b] = lsMakeManualControl(0.0, 0.0);
        for (int k = 0; k < 400; ++k)
        {
            lsSim_StepRobots(sim, controls);
            lsError err = {{0}};
            if (!lsSim_CheckInvariants(sim, &err))
            {
                fprintf(stderr, "    order %d step %d: %s\n", order, k, err.message);
                ENSURE(false);
            }
        }
        // Pushed all the way to the wall (centre 0.3 from it), the pusher against it.
        ENSURE(fabs(state->robots[b].position.x - 1.2) < 1e-3);
        ENSURE(fabs(state->robots[b].position.y) < 1e-9);
        ENSURE(lsDistance(state->robots[a].position, state->robots[b].position) >= 0.6 - 1e-9);
        ENSURE(state->robots[a].position.x > 0.59);
        ENSURE(state->robots[b].crushes > 100 && state->robots[a].crushes == 0 && state->crushes > 100);
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

// Robots placed on top of each other (the same centre, half overlapping, a stack of eight, a box robot on a circle
// one) are separated in list order when the sim starts and when a run carries over to an edited world that stacks
// them: the invariants hold from step 0, and the robots then drive 200 steps without overlap.
static int StackedStartTest(void)
{
    const char* robots[2] = {
        "{\"id\": \"a\", \"pose\": [0, 0, 0], \"radius\": 0.3},"
        "{\"id\": \"b\", \"pose\": [0, 0, 90], \"radius\": 0.3},"
        "{\"id\": \"c\", \"pose\": [0.2, 0.1, 0], \"radius\": 0.3},"
        "{\"id\": \"d\", \"pose\": [0, 0, 0], \"footprint\": [[-0.3, -0.2], [0.3, -0.2], [0.3, 0.2], [-0.3, 0.2]]},"
        "{\"id\": \"e\", \"pose\": [0, 0, 0], \"radius\": 0.2},"
        "{\"id\": \"f\", \"pose\": [0, 0, 0], \"radius\": 0.5},"
        "{\"id\": \"g\", \"pose\": [3, 0, 0], \"radius\": 0.3},"
        "{\"id\": \"h\", \"pose\": [3.3, 0, 0], \"radius\": 0.3}",
        "{\"id\": \"a\", \"pose\": [-3, 0, 0], \"radius\": 0.3}, {\"id\": \"b\", \"pose\": [-1, 0, 0], \"radius\": "
        "0.3},"
        "{\"id\": \"c\", \"pose\": [1, 0, 0], \"radius\": 0.3}, {\"id\": \"d\", \"pose\": [3, 2, 0], \"radius\": 0.3},"
        "{\"id\": \"e\", \"pose\": [3, -2, 0], \"radius\": 0.2}, {\"id\": \"f\", \"pose\": [-3, 2, 0], \"radius\": "
        "0.5},"
        "{\"id\": \"g\", \"pose\": [-3, -2, 0], \"radius\": 0.3}, {\"id\": \"h\", \"pose\": [0, 2, 0], \"radius\": "
        "0.3}",
    };
    for (int carry = 0; carry < 2; ++carry)
    {
        char text[2048];
        const char* room = "{\"walls\": [{\"points\": [[-6, -5], [6, -5], [6, 5], [-6, 5]], \"closed\": true}], ";
        snprintf(text, sizeof text, "%s\"robots\": [%s]}", room, robots[0]);
        lsWorld* stacked = Load(text);
        ENSURE(stacked != NULL);
        lsWorld* apart = NULL;
        lsSim* sim = lsCreateSim(stacked);
        if (carry == 1)
        {
            // Run apart first, then carry over to the stacked world (an edit that drops every robot on one spot).
            snprintf(text, sizeof text, "%s\"robots\": [%s]}", room, robots[1]);
            apart = Load(text);
            ENSURE(apart != NULL);
            lsSim* old = lsCreateSim(apart);
            lsDestroySim(sim);
            sim = lsCreateSim(stacked);
            lsSim_CarryOver(sim, old);
            lsDestroySim(old);
        }
        lsControl controls[8];
        for (int i = 0; i < 8; ++i)
        {
            controls[i] = lsMakeManualControl(0.5, i % 2 == 0 ? 0.5 : -0.5);
        }
        for (int k = 0; k <= 200; ++k)
        {
            lsError err = {{0}};
            if (!lsSim_CheckInvariants(sim, &err))
            {
                fprintf(stderr, "    carry %d step %d: %s\n", carry, k, err.message);
                ENSURE(false);
            }
            lsSim_StepRobots(sim, controls);
        }
        lsDestroySim(sim);
        lsDestroyWorld(apart);
        lsDestroyWorld(stacked);
    }
    return 0;
}

// 60 autopilot robots (circles and boxes) in a room with obstacles: invariants every step, and the same hash and
// scans on no pool, 1, 2 and 3 threads.
static int ThreadCountTest(void)
{
    char* text = lsAlloc(65536);
    int n = snprintf(text, 65536,
                     "{\"walls\": [{\"points\": [[0, 0], [20, 0], [20, 20], [0, 20]], \"closed\": true}],"
                     " \"boxes\": [{\"center\": [10, 10], \"size\": [2, 3]}, {\"center\": [5, 14], \"size\": [1, 1]}],"
                     " \"robots\": [");
    for (int i = 0; i < 60; ++i)
    {
        int column = i % 8, row = i / 8;
        double x = 1.5 + (double)column * 2.3, y = 1.5 + (double)row * 2.3;
        if (fabs(x - 10.0) < 2.0 && fabs(y - 10.0) < 2.5)
        {
            x += 4.0;
        }
        n += snprintf(text + n, (size_t)(65536 - n),
                      "%s{\"id\": \"r%d\", \"pose\": [%g, %g, %d], \"controller\": \"autopilot\", %s"
                      "\"lidar\": {\"beams\": 90, \"rate\": 10, \"noise\": 0.01, \"seed\": %d}}",
                      i > 0 ? "," : "", i, x, y, i * 37,
                      i % 4 == 3 ? "\"footprint\": [[-0.3, -0.2], [0.3, -0.2], [0.3, 0.2], [-0.3, 0.2]], " : "", i);
    }
    snprintf(text + n, (size_t)(65536 - n), "]}");
    lsWorld* world = Load(text);
    lsFree(text, 65536);
    ENSURE(world != NULL);

    lsSim* sim = lsCreateSim(world);
    for (int k = 0; k < 300; ++k)
    {
        lsSim_StepRobots(sim, NULL);
        lsError err = {{0}};
        if (!lsSim_CheckInvariants(sim, &err))
        {
            fprintf(stderr, "    step %d: %s\n", k, err.message);
            ENSURE(false);
        }
    }
    ENSURE(lsSim_GetState(sim)->distance > 60.0); // they do drive
    lsDestroySim(sim);

    uint64_t reference = RunHash(world, 200, NULL);
    for (int threads = 1; threads <= 3; ++threads)
    {
        lsPool* pool = lsCreatePool(threads);
        ENSURE(RunHash(world, 200, pool) == reference);
        lsDestroyPool(pool);
    }
    lsDestroyWorld(world);
    return 0;
}

// A crowd of robotCount (48 or more) in a small room, with two vehicles, targets that respawn and a bar sweeping at
// barSpeed degrees per second: the first 36 robots in rows of 6 in a corner, 12 in rows of 4 mid-room, the others in
// rows of 24 along the far wall; circles and boxes, driven by actions, manual speeds and the autopilot (controls).
static lsWorld* LoadCrowd(int robotCount, double barSpeed, lsControl* controls)
{
    size_t size = 65536 + 256 * (size_t)robotCount;
    char* text = lsAlloc(size);
    int n =
        snprintf(text, size,
                 "{\"walls\": [{\"points\": [[0, 0], [12, 0], [12, 12], [0, 12]], \"closed\": true}],"
                 " \"paths\": [{\"id\": \"loop\", \"points\": [[2, 6], [10, 6], [10, 10], [2, 10]], \"closed\": true}],"
                 " \"vehicles\": [{\"path\": \"loop\", \"position\": [3, 6], \"velocity\": [1, 0], \"radius\": 0.3},"
                 " {\"path\": \"loop\", \"position\": [10, 9], \"velocity\": [0, 1], \"radius\": 0.3}],"
                 " \"movers\": [{\"type\": \"bar\", \"from\": [6, 8], \"to\": [10, 8], \"pivot\": [8, 8],"
                 " \"speed\": %g}],"
                 " \"sim\": {\"dt\": 0.05, \"seed\": 7, \"respawn\": true}, \"targets\": [",
                 barSpeed);
    for (int i = 0; i < 12; ++i)
    {
        n += snprintf(text + n, size - (size_t)n, "%s{\"center\": [%g, %g], \"radius\": 0.15%s}", i > 0 ? "," : "",
                      1.0 + 0.8 * (double)i, 1.0 + 0.83 * (double)((i * 5) % 12),
                      i % 3 == 0 ? ", \"kind\": \"poison\"" : "");
    }
    n += snprintf(text + n, size - (size_t)n, "], \"robots\": [");
    for (int i = 0; i < robotCount; ++i)
    {
        int row = i < 36 ? i / 6 : i < 48 ? (i - 36) / 4 : (i - 48) / 24;
        double x = i < 36   ? 0.6 + 0.45 * (double)(i % 6)
                   : i < 48 ? 6.0 + 1.2 * (double)(i % 4)
                            : 0.6 + 0.45 * (double)((i - 48) % 24);
        double y = i < 36 ? 0.6 + 0.45 * (double)row : i < 48 ? 2.0 + 1.5 * (double)row : 11.0 - 0.45 * (double)row;
        n += snprintf(text + n, size - (size_t)n,
                      "%s{\"id\": \"r%d\", \"pose\": [%g, %g, %d], \"radius\": %g, \"max_speed\": %g, %s"
                      "\"controller\": \"autopilot\", \"lidar\": {\"beams\": 30, \"rate\": 10, \"seed\": %d}}",
                      i > 0 ? "," : "", i, x, y, i * 53, i % 2 == 0 ? 0.2 : 0.15, i % 5 == 0 ? 1.5 : 0.8,
                      i % 7 == 3 ? "\"footprint\": [[-0.25, -0.15], [0.2, -0.15], [0.2, 0.15], [-0.25, 0.15]], " : "",
                      i);
        int kind = i % 4;
        controls[i] = kind == 0   ? lsMakeActionControl(ls_actionForward)
                      : kind == 1 ? lsMakeAutopilotControl()
                      : kind == 2 ? lsMakeManualControl(1.0, 0.5 * (double)(i % 3 - 1))
                                  : lsMakeActionControl(ls_actionForwardLeft);
    }
    snprintf(text + n, size - (size_t)n, "]}");
    lsWorld* world = Load(text);
    lsFree(text, size);
    return world;
}

// Steps the sim with controls, checking the invariants (no two robots overlap, ...) after every step, and that no
// robot's crushes rise by more than one a step (a robot that several pushes crushed in one step counted each).
static bool StepChecked(lsSim* sim, const lsControl* controls, int steps)
{
    const lsSimState* state = lsSim_GetState(sim);
    for (int k = 0; k < steps; ++k)
    {
        int crushes[128];
        int n = state->robotCount < 128 ? state->robotCount : 128;
        for (int i = 0; i < n; ++i)
        {
            crushes[i] = state->robots[i].crushes;
        }
        lsSim_StepRobots(sim, controls);
        lsError err = {{0}};
        if (!lsSim_CheckInvariants(sim, &err))
        {
            fprintf(stderr, "    step %d: %s\n", k + 1, err.message);
            return false;
        }
        for (int i = 0; i < n; ++i)
        {
            if (state->robots[i].crushes > crushes[i] + 1)
            {
                fprintf(stderr, "    step %d: robot %d counted %d crushes\n", k + 1, i,
                        state->robots[i].crushes - crushes[i]);
                return false;
            }
        }
    }
    return true;
}

// The crowd of 48 robots, 36 of them packed closer than a turn gathers ahead, with the bar sweeping through them
// faster than they drive, so that robots push each other every step. Each robot's move is prepared ahead of the
// turns with the other robots out of the way (sim.c's Prepare); the state must be that of moving each robot in its
// turn from scratch: the stored hash was taken with that algorithm (main at 0e2d5cd; retaken when robots stopped
// overlapping each other, issue 15, when a robot crushed twice in a step stopped counting twice: 2 391 crushes
// became 1 890, and when a footprint's slides gathered their obstacles over every place a slide can reach, not the
// box of the commanded motion alone: the conservative advancement of the two rectangles, 10 and 24, then sees
// obstacles ahead of its slides and stops at other points within the skin, and the crowd ends up to 2e-5 m
// elsewhere, with the same 169 collisions and 1 890 crushes), and holds on 1 to 3 threads. No two robots overlap
// after any step.
static int CrowdedTurnsTest(void)
{
    lsControl controls[48];
    lsWorld* world = LoadCrowd(48, 120.0, controls);
    ENSURE(world != NULL);
    uint64_t hashes[4];
    for (int threads = 0; threads <= 3; ++threads)
    {
        lsPool* pool = threads > 0 ? lsCreatePool(threads) : NULL;
        lsSim* sim = lsCreateSim(world);
        lsSim_SetPool(sim, pool);
        ENSURE(StepChecked(sim, controls, 400));
        const lsSimState* state = lsSim_GetState(sim);
        ENSURE(state->collisions > 100 && state->crushes > 0);
        if (threads == 0)
        {
            printf("    %d collisions, %d crushes\n", state->collisions, state->crushes);
        }
        hashes[threads] = lsSim_Hash(sim);
        lsDestroySim(sim);
        lsDestroyPool(pool);
    }
    const uint64_t expected = 0x8584b3d875671b89ull;
    if (hashes[0] != expected)
    {
        fprintf(stderr, "    hash %016llx, expected %016llx\n", (unsigned long long)hashes[0],
                (unsigned long long)expected);
    }
    for (int threads = 0; threads <= 3; ++threads)
    {
        ENSURE(hashes[threads] == expected);
    }
    lsDestroyWorld(world);
    return 0;
}

// Robots squeezed (issue 15): twice the crowd with the bar at rest, among others and the walls, boxes among circles
// (boxes pushed into a gap narrower than their bounding circle, and a robot sliding along a wall it rests against at
// the skin, ended inside other robots); the crowd for 1 000 steps with the bar sweeping it (the bar carried robots into
// others that held their ground, or left them where the residual resolution, blind to the robots, put them); and the
// crowds of 48, 64 and 96 under a bar three to six times as fast, which drives robots into others pinned by a third
// robot, a vehicle or the bar itself (pushes one level deep left the carried robot inside the pinned one, from step
// 352, 240 and 119 on; now the pinned ones push on in a chain). The fastest also on three threads, the same.
static int SqueezedCrowdTest(void)
{
    const int robots[5] = {96, 48, 48, 64, 96}, steps[5] = {300, 1000, 1000, 600, 600};
    const double barSpeed[5] = {0.0, 120.0, 360.0, 600.0, 720.0};
    for (int run = 0; run < 5; ++run)
    {
        lsControl controls[96];
        lsWorld* world = LoadCrowd(robots[run], barSpeed[run], controls);
        ENSURE(world != NULL);
        lsSim* sim = lsCreateSim(world);
        if (!StepChecked(sim, controls, steps[run]))
        {
            fprintf(stderr, "    %d robots, bar at %g degrees per second\n", robots[run], barSpeed[run]);
            ENSURE(false);
        }
        ENSURE(lsSim_GetState(sim)->crushes > 0);
        if (run == 4)
        {
            uint64_t hash = lsSim_Hash(sim);
            lsPool* pool = lsCreatePool(3);
            lsSim* pooled = lsCreateSim(world);
            lsSim_SetPool(pooled, pool);
            for (int k = 0; k < steps[run]; ++k)
            {
                lsSim_StepRobots(pooled, controls);
            }
            ENSURE(lsSim_Hash(pooled) == hash);
            lsDestroySim(pooled);
            lsDestroyPool(pool);
        }
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return 0;
}

// A door sliding at 2 m/s drives robot a into a row that has room behind it: b alone, b pinned by c, a vehicle v
// pinned by b. One-level pushes left a inside b (or v) from the first step (b held by c, v by b: a, b and v ended on
// one spot); in a chain the row gives way: after 1 s it lies in contact ahead of the door, no body inside another,
// nobody crushed. Every list order. With the room's end wall 0.6 m behind the door's reach the chain ends against the
// wall: a crush, counted, and nothing leaves the room.
static int ChainedPushTest(void)
{
    const char* rows[4] = {
        "ab",  // b has room
        "abc", // b is pinned by c, which has room
        "avb", // the vehicle v is pinned by b
        "abc", // against the end wall: a true crush
    };
    const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int row = 0; row < 4; ++row)
    {
        int n = (int)strlen(rows[row]);
        for (int order = 0; order < 6; ++order)
        {
            if (n == 2 && orders[order][2] != 2)
            {
                continue; // two robots: the orders that list them 0, 1 and 1, 0
            }
            double end = row == 3 ? 3.0 : 6.0;
            char text[2048];
            int used = snprintf(
                text, sizeof text,
                "{\"walls\": [{\"points\": [[-1, -1.5], [%g, -1.5], [%g, 1.5], [-1, 1.5]], \"closed\": true}],"
                " \"movers\": [{\"type\": \"door\", \"from\": [0, -1], \"to\": [0, 1], \"offset\": [4, 0],"
                " \"period\": 4}], \"paths\": [{\"id\": \"p\", \"points\": [[0, 0], [5, 0]]}], \"vehicles\": [",
                end, end);
            for (int k = 0; k < n; ++k)
            {
                if (rows[row][k] == 'v')
                {
                    used +=
                        snprintf(text + used, sizeof text - (size_t)used,
                                 "{\"path\": \"p\", \"position\": [%g, 0], \"max_speed\": 0.001, \"max_force\": 0.001,"
                                 " \"radius\": 0.3}",
                                 0.35 + 0.6 * k);
                }
            }
            used += snprintf(text + used, sizeof text - (size_t)used, "], \"sim\": {\"dt\": 0.05}, \"robots\": [");
            int listed = 0;
            for (int slot = 0; slot < 3; ++slot)
            {
                int k = orders[order][slot];
                if (k < n && rows[row][k] != 'v')
                {
                    used += snprintf(text + used, sizeof text - (size_t)used,
                                     "%s{\"id\": \"%c\", \"pose\": [%g, 0, 90], \"radius\": 0.3}",
                                     listed++ > 0 ? "," : "", rows[row][k], 0.35 + 0.6 * k);
                }
            }
            snprintf(text + used, sizeof text - (size_t)used, "]}");
            lsWorld* world = Load(text);
            ENSURE(world != NULL);
            lsSim* sim = lsCreateSim(world);
            const lsSimState* state = lsSim_GetState(sim);
            lsControl controls[3] = {lsMakeManualControl(0.0, 0.0), lsMakeManualControl(0.0, 0.0),
                                     lsMakeManualControl(0.0, 0.0)};
            // The bodies by their place in the row: a robot's index in the list, or -1 - the vehicle's.
            int body[3];
            for (int k = 0; k < n; ++k)
            {
                body[k] = rows[row][k] == 'v' ? -1 : 0;
            }
            for (int i = 0; i < state->robotCount; ++i)
            {
                const char* id = lsWorld_GetRobot(world, i)->id;
                body[strchr(rows[row], id[0]) - rows[row]] = i;
            }
            for (int step = 1; step <= 20; ++step)
            {
                lsSim_StepRobots(sim, controls);
                lsError err = {{0}};
                if (row < 3 && !lsSim_CheckInvariants(sim, &err))
                {
                    fprintf(stderr, "    row %s order %d step %d: %s\n", rows[row], order, step, err.message);
                    ENSURE(false);
                }
            }
            // The door is at x = 2 after 1 s.
            for (int k = 0; k < n; ++k)
            {
                lsVec2 p = body[k] < 0 ? state->vehicles[0].position : state->robots[body[k]].position;
                if (row < 3)
                {
                    ENSURE(fabs(p.x - (2.3 + 0.6 * k)) < 1e-3 && fabs(p.y) < 1e-3);
                }
                else
                {
                    ENSURE(p.x <= end - 0.3 + 1e-6);
                }
            }
            ENSURE(row < 3 ? state->crushes == 0 : state->crushes > 0);
            lsDestroySim(sim);
            lsDestroyWorld(world);
        }
    }
    return 0;
}

// A door 1.5 m tall pushes a row of touching robots (radius 0.3, 0.6 apart) along a wall of a corridor 3 m wide and
// `end` m long, at 1.5 m/s for `steps` steps; the invariants (no two robots overlap) hold after every step.
static lsSim* PushRow(int n, double end, int steps, lsWorld** world)
{
    char text[8192];
    int used = snprintf(text, sizeof text,
                        "{\"walls\": [{\"points\": [[-1, 0], [%g, 0], [%g, 3], [-1, 3]], \"closed\": true}],"
                        " \"movers\": [{\"type\": \"door\", \"from\": [0, 0], \"to\": [0, 1.5], \"offset\": [6, 0],"
                        " \"period\": 8}], \"sim\": {\"dt\": 0.05}, \"robots\": [",
                        end, end);
    for (int k = 0; k < n; ++k)
    {
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "%s{\"id\": \"r%d\", \"pose\": [%g, 0.3, 90], \"radius\": 0.3}", k > 0 ? "," : "", k,
                         0.35 + 0.6 * k);
    }
    snprintf(text + used, sizeof text - (size_t)used, "]}");
    *world = Load(text);
    if (*world == NULL)
    {
        return NULL;
    }
    lsSim* sim = lsCreateSim(*world);
    lsControl controls[32];
    for (int k = 0; k < n; ++k)
    {
        controls[k] = lsMakeManualControl(0.0, 0.0);
    }
    if (!StepChecked(sim, controls, steps))
    {
        fprintf(stderr, "    a row of %d robots, corridor %g m long\n", n, end);
        lsDestroySim(sim);
        lsDestroyWorld(*world);
        *world = NULL;
        return NULL;
    }
    return sim;
}

// Rows pushed by a door (issue 15). 20 robots down a long corridor: the chain of pushes reaches the end of the row,
// which moves as one, in line, no robot crushed (8 levels of chain left robot 0 inside robot 1 at the first step). 6
// robots against the corridor's end wall, where the row cannot go on but the corridor is open above the door's
// reach: the robots the door presses together climb out of the row instead of staying inside each other (robots 0
// and 1 overlapped from step 19). A robot squeezed out of the row between two that the door and the wall hold, under
// another robot, needs that one to move too: it escapes pushing it (sim.c's EscapePushing). Without, two robots
// overlapped from step 43 (end wall at 5 m) and 79 (at 7 m). With the wall at 5 m the robots keep clear until step
// 58, the last before the door comes nearer the wall than a robot's width (a vise, where even one robot is crushed);
// at 7 m, through the door's whole stroke and back.
static int RowPushTest(void)
{
    lsWorld* world;
    lsSim* sim = PushRow(20, 30.0, 80, &world);
    ENSURE(sim != NULL);
    const lsSimState* state = lsSim_GetState(sim);
    double door = state->movers[0].a.x;
    ENSURE(fabs(door - 6.0) < 1e-9);
    for (int k = 0; k < 20; ++k)
    {
        ENSURE(fabs(state->robots[k].position.x - (door + 0.3 + 0.6 * k)) < 1e-3);
        ENSURE(fabs(state->robots[k].position.y - 0.3) < 1e-3);
    }
    ENSURE(state->crushes == 0);
    lsDestroySim(sim);
    lsDestroyWorld(world);

    sim = PushRow(6, 5.0, 58, &world);
    ENSURE(sim != NULL);
    state = lsSim_GetState(sim);
    ENSURE(state->movers[0].a.x > 5.0 - 0.65);
    int climbed = 0;
    for (int k = 0; k < 6; ++k)
    {
        climbed += state->robots[k].position.y > 0.6 ? 1 : 0;
    }
    ENSURE(climbed >= 4);
    lsDestroySim(sim);
    lsDestroyWorld(world);

    sim = PushRow(6, 7.0, 160, &world);
    ENSURE(sim != NULL);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Bit for bit (-0.0 is not 0.0 here).
static bool SameBytes(const void* a, const void* b, size_t size)
{
    const unsigned char* x = a;
    const unsigned char* y = b;
    for (size_t i = 0; i < size; ++i)
    {
        if (x[i] != y[i])
        {
            return false;
        }
    }
    return true;
}

// A decision undone (lsAutopilot_Undo, for a robot pushed before its turn) leaves the autopilot bit for bit as it was,
// also once the trail is full and each decision that remembers a position overwrites its oldest entry.
static int AutopilotUndoTest(void)
{
    lsWorld* world =
        Load("{\"walls\": [{\"points\": [[0, 0], [10, 0], [10, 10], [0, 10]], \"closed\": true}], \"robot\": {}}");
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsRobotState robot = lsSim_GetState(sim)->robots[0];
    lsAutopilot autopilot = lsMakeAutopilot(7);
    for (int k = 0; k < 200; ++k)
    {
        lsAutopilot before = autopilot;
        lsAutopilotUndo undo = lsAutopilot_SaveUndo(&autopilot);
        lsAutopilot_Decide(&autopilot, lsSim_GetRobotScan(sim, 0), lsSim_GetScene(sim), lsWorld_GetRobot(world, 0),
                           &robot, 0.5 * (double)k, true);
        lsAutopilot after = autopilot;
        lsAutopilot_Undo(&autopilot, &undo);
        ENSURE(SameBytes(&autopilot, &before, sizeof autopilot));
        autopilot = after;
        robot.position.x += 0.02; // fast enough not to seem stuck, so every decision reaches the trail
    }
    ENSURE(autopilot.trailCount == LS_AUTOPILOT_TRAIL);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Autopilots reading lidars of every layout the openness has a path for: strides of 1, 2 and 3 beams, fields of view
// from one beam to a full turn, sensors mounted backwards and sideways (their beams wrap past -pi and pi in the
// robot frame), jittered beams, food and poison. Any change to a decision shows in the stored hash. It pinned the
// autopilot's walks over the beams' runs (OpenRange) to the autopilot before them; it was taken again when the beams'
// directions became their sensor-frame directions rotated by the heading (lsScan_BeamDirection), and when crossings
// and circle roots went to double-double from 2^5 of ill-conditioning (LS_CROSSING_ILL, LS_CIRCLE_ILL; 2^13 before).
static int AutopilotLayoutsTest(void)
{
    const char* lidars[] = {
        "\"beams\": 360, \"fov\": 360",
        "\"beams\": 721, \"fov\": 360, \"mount\": [0.1, 0, 175]",
        "\"beams\": 1000, \"fov\": 270, \"mount\": [0, 0, -150]",
        "\"beams\": 45, \"fov\": 90, \"mount\": [0, 0.1, 90]",
        "\"beams\": 1, \"fov\": 10",
        "\"beams\": 200, \"fov\": 359.5, \"mount\": [0, 0, 180]",
        "\"beams\": 90, \"fov\": 360, \"angle_noise\": 2, \"noise\": 0.02",
        "\"beams\": 361, \"fov\": 200, \"mount\": [0, 0, -179.9]",
    };
    char* text = lsAlloc(65536);
    int n =
        snprintf(text, 65536,
                 "{\"walls\": [{\"points\": [[0, 0], [16, 0], [16, 12], [0, 12]], \"closed\": true}],"
                 " \"boxes\": [{\"center\": [8, 6], \"size\": [2, 1.5], \"angle\": 30}],"
                 " \"targets\": [{\"center\": [3, 9], \"kind\": \"food\"}, {\"center\": [12, 3], \"kind\": \"poison\"},"
                 " {\"center\": [13, 9], \"kind\": \"food\"}],"
                 " \"robots\": [");
    for (int i = 0; i < 8; ++i)
    {
        n += snprintf(text + n, (size_t)(65536 - n),
                      "%s{\"id\": \"r%d\", \"pose\": [%g, %g, %d], \"controller\": \"autopilot\","
                      " \"lidar\": {%s, \"range\": 6, \"rate\": 20, \"seed\": %d}}",
                      i > 0 ? "," : "", i, 2.0 + (double)(i % 4) * 4.0, i < 4 ? 2.5 : 9.5, i * 97 - 300, lidars[i], i);
    }
    snprintf(text + n, (size_t)(65536 - n), "]}");
    lsWorld* world = Load(text);
    lsFree(text, 65536);
    ENSURE(world != NULL);
    uint64_t hash = RunHash(world, 1500, NULL);
    const uint64_t expected = 0xc9290c92e296023aull;
    if (hash != expected)
    {
        fprintf(stderr, "    8 autopilot layouts after 1500 steps: hash 0x%016llxull, expected 0x%016llxull\n",
                (unsigned long long)hash, (unsigned long long)expected);
    }
    ENSURE(hash == expected);
    lsDestroyWorld(world);
    return 0;
}

// Autopilots whose candidate directions score close together, where the decision's bounds (a candidate is skipped
// once a bound of its score falls below the best so far) decide most: food and poison all around (attraction and
// repulsion), robots of several sizes and speeds, and a minute of driving, so the trail of 48 places is full and
// penalises many directions alike. The stored hash was taken with the autopilot that scored every candidate.
static int AutopilotBoundsTest(void)
{
    char* text = lsAlloc(65536);
    int n = snprintf(text, 65536,
                     "{\"walls\": [{\"points\": [[0, 0], [18, 0], [18, 14], [0, 14]], \"closed\": true}],"
                     " \"boxes\": [{\"center\": [6, 5], \"size\": [1.5, 1], \"angle\": 20},"
                     " {\"center\": [12, 9], \"size\": [1, 2.5], \"angle\": -35}],"
                     " \"sim\": {\"respawn\": true, \"seed\": 11}, \"targets\": [");
    for (int i = 0; i < 24; ++i)
    {
        n += snprintf(text + n, (size_t)(65536 - n), "%s{\"center\": [%d.5, %d.5], \"kind\": \"%s\"}", i > 0 ? "," : "",
                      1 + (i * 7) % 16, 1 + (i * 5) % 12, i % 3 == 0 ? "poison" : "food");
    }
    n += snprintf(text + n, (size_t)(65536 - n), "], \"robots\": [");
    for (int i = 0; i < 6; ++i)
    {
        n += snprintf(text + n, (size_t)(65536 - n),
                      "%s{\"id\": \"r%d\", \"pose\": [%d, %d, %d], \"radius\": %g, \"max_speed\": %g,"
                      " \"controller\": \"autopilot\", \"lidar\": {\"beams\": %d, \"fov\": 360, \"range\": %d,"
                      " \"seed\": %d}}",
                      i > 0 ? "," : "", i, 3 + 2 * i, i % 2 == 0 ? 3 : 11, i * 61 - 170, 0.15 + 0.05 * (double)(i % 3),
                      0.6 + 0.3 * (double)(i % 4), 120 + 60 * i, 4 + i, i + 1);
    }
    snprintf(text + n, (size_t)(65536 - n), "]}");
    lsWorld* world = Load(text);
    lsFree(text, 65536);
    ENSURE(world != NULL);
    uint64_t hash = RunHash(world, 3600, NULL);
    const uint64_t expected = 0x8582fb58f89243a7ull;
    if (hash != expected)
    {
        fprintf(stderr,
                "    6 autopilots among food and poison after 3600 steps: hash 0x%016llxull, expected 0x%016llxull\n",
                (unsigned long long)hash, (unsigned long long)expected);
    }
    ENSURE(hash == expected);
    lsDestroyWorld(world);
    return 0;
}

// The multi-agent step: the external robots are the agents, each gets its own observation and reward; a world with
// no external robot has one agent, its first robot, stepping exactly like lsAgent_Step.
static int MultiAgentTest(void)
{
    const char* text =
        "{\"walls\": [{\"points\": [[0, 0], [10, 0], [10, 10], [0, 10]], \"closed\": true}],"
        " \"targets\": [{\"center\": [2.8, 2], \"radius\": 0.2}, {\"center\": [7, 8.2], \"radius\": 0.2}],"
        " \"robots\": [{\"id\": \"auto\", \"pose\": [5, 5, 0], \"controller\": \"autopilot\"},"
        " {\"id\": \"p1\", \"pose\": [2, 2, 0], \"controller\": \"external\", \"lidar\": {\"beams\": 16}},"
        " {\"id\": \"idle\", \"pose\": [8, 2, 0]},"
        " {\"id\": \"p2\", \"pose\": [7, 7, 90], \"controller\": \"external\", \"lidar\": {\"beams\": 24}}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    lsAgent* agent = lsCreateAgent(world, NULL);
    ENSURE(lsAgent_AgentCount(agent) == 2 && lsAgent_AgentRobot(agent, 0) == 1 && lsAgent_AgentRobot(agent, 1) == 3);
    ENSURE(lsAgent_RobotObservationSize(agent, 1) == 16 * 7 + 2 &&
           lsAgent_RobotObservationSize(agent, 3) == 24 * 7 + 2);
    lsAction actions[2] = {ls_actionForward, ls_actionForward};
    double rewards[2] = {0.0, 0.0}, total[2] = {0.0, 0.0};
    for (int k = 0; k < 20; ++k)
    {
        lsAgentStep step = lsAgent_StepAgents(agent, actions, rewards);
        ENSURE(step.reward == rewards[0] + rewards[1]);
        total[0] += rewards[0];
        total[1] += rewards[1];
    }
    // Each drove straight into its own food: its reward, not the other's.
    ENSURE(total[0] == 1.0 && total[1] == 1.0);
    const lsSimState* state = lsSim_GetState(lsAgent_GetSim(agent));
    ENSURE(state->robots[2].distance == 0.0 && state->robots[0].distance > 0.5); // idle stands, autopilot drives
    double observation[24 * 7 + 2];
    ENSURE(lsAgent_ObserveRobot(agent, 3, observation, 24 * 7 + 2) == 24 * 7 + 2);
    ENSURE(observation[(size_t)24 * 7] > 0.9); // p2 drives at nearly full speed
    lsDestroyAgent(agent);
    lsDestroyWorld(world);

    // One robot: StepAgents is Step.
    world = Load("{\"walls\": [{\"points\": [[0, 0], [6, 0], [6, 6], [0, 6]], \"closed\": true}],"
                 " \"robot\": {\"pose\": [1, 1, 30]}}");
    ENSURE(world != NULL);
    lsAgent* a = lsCreateAgent(world, NULL);
    lsAgent* b = lsCreateAgent(world, NULL);
    ENSURE(lsAgent_AgentCount(a) == 1 && lsAgent_AgentRobot(a, 0) == 0);
    for (int k = 0; k < 30; ++k)
    {
        lsAction action = (lsAction)(k % ls_actionCount);
        double reward;
        lsAgent_StepAgents(a, &action, &reward);
        lsAgent_Step(b, action);
    }
    ENSURE(lsSim_Hash(lsAgent_GetSim(a)) == lsSim_Hash(lsAgent_GetSim(b)));
    lsDestroyAgent(a);
    lsDestroyAgent(b);
    lsDestroyWorld(world);
    return 0;
}

int FleetTest(void)
{
    RUN_SUBTEST(FormatTest);
    RUN_SUBTEST(ShorthandTest);
    RUN_SUBTEST(SeeEachOtherTest);
    RUN_SUBTEST(CrowdScanTest);
    RUN_SUBTEST(HeadOnTest);
    RUN_SUBTEST(PushedAgainstWallTest);
    RUN_SUBTEST(StackedStartTest);
    RUN_SUBTEST(ThreadCountTest);
    RUN_SUBTEST(CrowdedTurnsTest);
    RUN_SUBTEST(SqueezedCrowdTest);
    RUN_SUBTEST(ChainedPushTest);
    RUN_SUBTEST(RowPushTest);
    RUN_SUBTEST(AutopilotUndoTest);
    RUN_SUBTEST(AutopilotLayoutsTest);
    RUN_SUBTEST(AutopilotBoundsTest);
    RUN_SUBTEST(MultiAgentTest);
    return 0;
}

// Cliff benchmark: pathological worlds built in code, each simulated with the robot on autopilot and its default
// lidar (360 beams over 360 degrees, 12 m range, 10 scans/s; dt 1/60 s), printing simulated steps per second of one
// core, headless. Asserts nothing about time (goal, issue 10: every scene >= 1 000 steps/s). Scenes:
//   baseline       worlds/default.json (the reference: an ordinary world)
//   walls-through  a 20 m room with 3 000 walls: 2 000 crossing the robot's disc, 1 000 short ones around it
//   walls-hub      a 20 m room with 4 000 walls meeting at the robot's centre, where its lidar is (each beam hits all
//                  of them at fraction 0, the lowest index winning: 1.4 M exact casts a scan when every one was cast)
//   targets-100k   a 100 m room with 100 000 targets (radius 0.2 m, respawn on: most of the floor is taken)
//   crushed        the robot in a 0.2 m slot between two boxes, both overlapped by a third at each end
//   door-squeeze   the robot in a pit, a door coming down onto it like a press to a gap narrower than the robot
//   long-walls     a 200 m field of 10 000 short walls crossed by 200 walls 100 km long
//   loops-row      50 000 closed triangles of 1 cm in a row 1 km long (a sparse grid whose scans skip back faces:
//                  the build counted each loop's winding number over the row's 150 000 edges, 13 s)
//   vehicles-20k   20 000 vehicles 10 m apart on a grid, each going round its own 4 m square path (separation
//                  and moves tested every other body for each vehicle: O(n^2) a step)
// Besides steps/s it prints how far the robot moved in the last step and the largest move in one step after the
// first 600 steps (10 simulated seconds), which is how a crushed robot's jitter shows.
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "cli/clock.h"
#include "lidarsim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LS_SOURCE_DIR
#define LS_SOURCE_DIR "."
#endif

typedef lsWorld* SceneBuilder(const char* worldsDir);

typedef struct Scene
{
    const char* name;
    SceneBuilder* build;
} Scene;

static void AddSegment(lsWorld* world, lsVec2 a, lsVec2 b)
{
    lsVec2 points[2] = {a, b};
    lsWorld_AddWall(world, points, 2, false);
}

static void AddRoom(lsWorld* world, double x0, double y0, double x1, double y1)
{
    lsVec2 points[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    lsWorld_AddWall(world, points, 4, true);
}

static lsWorld* NewWorld(const char* name, lsVec2 robot)
{
    lsWorld* world = lsCreateWorld();
    snprintf(world->name, sizeof world->name, "%s", name);
    world->robot.position = robot;
    world->robot.controller = ls_controllerAutopilot;
    return world;
}

static lsWorld* BuildBaseline(const char* worldsDir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/default.json", worldsDir);
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "ls_bench_cliffs: baseline: %s\n", err.message);
        return NULL;
    }
    world->robot.lidar.beams = 360;
    return world;
}

static lsWorld* BuildWallsThrough(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("walls-through", lsV(10.0, 10.0));
    AddRoom(world, 0.0, 0.0, 20.0, 20.0);
    lsRng rng = lsMakeRng(10);
    for (int i = 0; i < 3000; ++i)
    {
        // Through a point of the robot's disc for the first 2 000, anywhere within 3 m for the rest.
        double reach = i < 2000 ? 0.25 : 3.0;
        double r = reach * sqrt(lsRng_Uniform(&rng));
        double a = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsVec2 p = lsAdd(lsV(10.0, 10.0), lsScale(r, lsDirection(a)));
        lsVec2 dir = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        double half = i < 2000 ? lsRng_Range(&rng, 1.0, 3.0) : lsRng_Range(&rng, 0.2, 0.6);
        AddSegment(world, lsMulSub(p, half, dir), lsMulAdd(p, half, dir));
    }
    return world;
}

static lsWorld* BuildWallsHub(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("walls-hub", lsV(10.0, 10.0));
    AddRoom(world, 0.0, 0.0, 20.0, 20.0);
    lsRng rng = lsMakeRng(12);
    for (int i = 0; i < 4000; ++i)
    {
        // From the lidar's origin (the robot's centre) outward: every beam hits each at fraction 0.
        lsVec2 end =
            lsAdd(lsV(10.0, 10.0), lsScale(lsRng_Range(&rng, 1.0, 3.0), lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI))));
        AddSegment(world, i % 2 == 0 ? lsV(10.0, 10.0) : end, i % 2 == 0 ? end : lsV(10.0, 10.0));
    }
    return world;
}

static lsWorld* BuildTargets(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("targets-100k", lsV(50.0, 50.0));
    AddRoom(world, 0.0, 0.0, 100.0, 100.0);
    lsRng rng = lsMakeRng(11);
    for (int i = 0; i < 100000; ++i)
    {
        lsTargetDef def = lsDefaultTargetDef();
        def.radius = 0.2;
        double y = lsRng_Range(&rng, 0.5, 99.5); // y first: the order GCC gave the call's arguments
        double x = lsRng_Range(&rng, 0.5, 99.5);
        def.center = lsV(x, y);
        def.kind = i % 4 == 0 ? ls_poison : ls_food;
        lsWorld_AddTarget(world, def);
    }
    return world;
}

static lsWorld* BuildCrushed(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("crushed", lsV(0.0, 0.0));
    AddRoom(world, -10.0, -10.0, 10.0, 10.0);
    lsBoxDef box = lsDefaultBoxDef();
    box.size = lsV(3.0, 0.6);
    box.center = lsV(0.0, 0.4); // y 0.1 .. 0.7
    lsWorld_AddBox(world, box);
    box.center = lsV(0.0, -0.4); // y -0.7 .. -0.1
    lsWorld_AddBox(world, box);
    box.size = lsV(0.6, 2.0);
    box.center = lsV(-1.4, 0.0); // the slot's ends, overlapping both
    lsWorld_AddBox(world, box);
    box.center = lsV(1.4, 0.0);
    lsWorld_AddBox(world, box);
    return world;
}

static lsWorld* BuildDoorSqueeze(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("door-squeeze", lsV(0.0, 0.3));
    AddRoom(world, -10.0, -10.0, 10.0, 10.0);
    // A 1.2 m wide pit (floor and two sides) with a door that comes down like a press to 0.2 m above the floor
    // (narrower than the robot, 0.5 m) and back up, every 4 s: crushed for about a second of each cycle.
    lsVec2 pit[4] = {{-0.6, 2.0}, {-0.6, 0.0}, {0.6, 0.0}, {0.6, 2.0}};
    lsWorld_AddWall(world, pit, 4, false);
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    door.a = lsV(-0.6, 1.5);
    door.b = lsV(0.6, 1.5);
    door.offset = lsV(0.0, -1.3);
    door.period = 4.0;
    lsWorld_AddMover(world, door);
    return world;
}

static lsWorld* BuildLongWalls(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("long-walls", lsV(100.0, 100.0));
    AddRoom(world, 0.0, 0.0, 200.0, 200.0);
    lsRng rng = lsMakeRng(12);
    for (int i = 0; i < 10000; ++i)
    {
        double y = lsRng_Range(&rng, 1.0, 199.0); // y first: the order GCC gave the call's arguments
        double x = lsRng_Range(&rng, 1.0, 199.0);
        lsVec2 p = lsV(x, y);
        if (lsDistance(p, lsV(100.0, 100.0)) < 2.0)
        {
            continue; // room to start in
        }
        lsVec2 dir = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        double half = lsRng_Range(&rng, 0.15, 0.5);
        AddSegment(world, lsMulSub(p, half, dir), lsMulAdd(p, half, dir));
    }
    for (int i = 0; i < 200; ++i)
    {
        double y = lsRng_Range(&rng, 0.0, 200.0);
        double x = lsRng_Range(&rng, 0.0, 200.0);
        lsVec2 p = lsV(x, y);
        if (lsDistance(p, lsV(100.0, 100.0)) < 2.0)
        {
            continue;
        }
        lsVec2 dir = lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI));
        AddSegment(world, lsMulSub(p, 5e4, dir), lsMulAdd(p, 5e4, dir));
    }
    return world;
}

static lsWorld* BuildLoopsRow(const char* worldsDir)
{
    (void)worldsDir;
    lsWorld* world = NewWorld("loops-row", lsV(500.0, 5.0));
    AddRoom(world, -1.0, -1.0, 1001.0, 50.0);
    for (int i = 0; i < 50000; ++i)
    {
        double x = 0.02 * (double)i;
        lsVec2 triangle[3] = {{x, 0.0}, {x + 0.01, 0.0}, {x, 0.01}};
        lsWorld_AddWall(world, triangle, 3, true);
    }
    return world;
}

static lsWorld* BuildVehicles(const char* worldsDir)
{
    (void)worldsDir;
    enum
    {
        side = 142 // 142 x 142 = 20 164 places for 20 000 vehicles
    };
    lsWorld* world = NewWorld("vehicles-20k", lsV(2.0 + 5.0 * side, 2.0 + 5.0 * side));
    AddRoom(world, 0.0, 0.0, 10.0 * side + 4.0, 10.0 * side + 4.0);
    for (int i = 0; i < 20000; ++i)
    {
        int column = i % side, row = i / side;
        lsVec2 p = {5.0 + 10.0 * (double)column, 5.0 + 10.0 * (double)row};
        lsVec2 square[4] = {p, lsAdd(p, lsV(4.0, 0.0)), lsAdd(p, lsV(4.0, 4.0)), lsAdd(p, lsV(0.0, 4.0))};
        char id[16];
        snprintf(id, sizeof id, "p%d", i);
        lsVehicleDef v = lsDefaultVehicleDef();
        v.path = lsWorld_AddPath(world, id, square, 4, 0.5, true);
        v.position = p;
        lsWorld_AddVehicle(world, v);
    }
    return world;
}

static void PrintUsage(void)
{
    printf("usage: ls_bench_cliffs [--seconds S] [--steps N] [--only NAME] [--worlds DIR] [--csv]\n"
           "Simulated steps per second (one core, headless, autopilot, 360-beam lidar at 10 scans/s, dt 1/60 s) on\n"
           "pathological worlds built in code: baseline, walls-through, walls-hub, targets-100k, crushed,\n"
           "door-squeeze, long-walls, loops-row, vehicles-20k.\n"
           "  --seconds S   stop a scene after S wall seconds (default 2)\n"
           "  --steps N     stop a scene after N steps (default 20000)\n"
           "  --only NAME   run one scene\n"
           "  --worlds DIR  folder of default.json (default: the source tree's worlds)\n"
           "  --csv         print CSV: scene,walls,targets,steps,seconds,steps_per_s,cpu_steps_per_s,build_s,"
           "last_move,max_move,crushes,collisions\n");
}

int main(int argc, char** argv)
{
    const char* worldsDir = LS_SOURCE_DIR "/worlds";
    const char* only = NULL;
    double budget = 2.0;
    long long maxSteps = 20000;
    bool csv = false;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "--csv") == 0)
        {
            csv = true;
        }
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
        {
            PrintUsage();
            return 0;
        }
        else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
        {
            if (!lsBenchNumberArg("ls_bench_cliffs", "--seconds", argv[++i], 0.0, 1e5, &budget))
            {
                return 2;
            }
        }
        else if (i + 1 < argc && strcmp(argv[i], "--steps") == 0)
        {
            if (!lsBenchIntegerArg("ls_bench_cliffs", "--steps", argv[++i], 1, 1000000000, &maxSteps))
            {
                return 2;
            }
        }
        else if (i + 1 < argc && strcmp(argv[i], "--only") == 0)
        {
            only = argv[++i];
        }
        else if (i + 1 < argc && strcmp(argv[i], "--worlds") == 0)
        {
            worldsDir = argv[++i];
        }
        else
        {
            fprintf(stderr, "ls_bench_cliffs: unknown argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    const Scene scenes[] = {
        {"baseline", BuildBaseline},     {"walls-through", BuildWallsThrough},
        {"walls-hub", BuildWallsHub},    {"targets-100k", BuildTargets},
        {"crushed", BuildCrushed},       {"door-squeeze", BuildDoorSqueeze},
        {"long-walls", BuildLongWalls},  {"loops-row", BuildLoopsRow},
        {"vehicles-20k", BuildVehicles},
    };
    if (csv)
    {
        printf("scene,walls,targets,steps,seconds,steps_per_s,cpu_steps_per_s,build_s,last_move,max_move,crushes,"
               "collisions\n");
    }
    int failures = 0;
    for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; ++s)
    {
        const Scene* scene = &scenes[s];
        if (only != NULL && strcmp(only, scene->name) != 0)
        {
            continue;
        }
        lsWorld* world = scene->build(worldsDir);
        if (world == NULL)
        {
            failures += 1;
            continue;
        }
        double t0 = lsNowSeconds();
        lsSim* sim = lsCreateSim(world);
        double build = lsNowSeconds() - t0;
        lsControl control = lsMakeAutopilotControl();
        double start = lsNowSeconds(), cpuStart = lsCpuSeconds();
        long long steps = 0;
        double lastMove = 0.0, maxMove = 0.0;
        bool finite = true;
        // The clock is read every 16 steps; a scene stops at its step count or its time budget.
        while (steps < maxSteps && (steps % 16 != 0 || lsNowSeconds() - start < budget))
        {
            const lsRobotState* robot = &lsSim_GetState(sim)->robots[0];
            lsVec2 before = robot->position;
            lsSim_Step(sim, &control);
            steps += 1;
            robot = &lsSim_GetState(sim)->robots[0];
            finite = finite && lsIsValidVec2(robot->position) && isfinite(robot->angle);
            lastMove = lsDistance(before, robot->position);
            maxMove = steps > 600 ? fmax(maxMove, lastMove) : maxMove; // after 10 simulated seconds of settling
        }
        double seconds = lsNowSeconds() - start;
        double cpu = lsCpuSeconds() - cpuStart;
        const lsSimState* state = lsSim_GetState(sim);
        double rate = seconds > 0.0 ? (double)steps / seconds : 0.0;
        double cpuRate = cpu > 0.0 ? (double)steps / cpu : 0.0;
        if (csv)
        {
            printf("%s,%d,%d,%lld,%.6f,%.1f,%.1f,%.6f,%.3g,%.3g,%d,%d\n", scene->name, lsWorld_SegmentCount(world),
                   world->targetCount, steps, seconds, rate, cpuRate, build, lastMove, maxMove,
                   state->robots[0].crushes, state->collisions);
        }
        else
        {
            printf("%-14s %6d walls %6d targets %6lld steps: %8.0f steps/s wall, %8.0f steps/s cpu  (setup %.3f s, "
                   "last move %.3g m, max move %.3g m, crushes %d, collisions %d%s)\n",
                   scene->name, lsWorld_SegmentCount(world), world->targetCount, steps, rate, cpuRate, build, lastMove,
                   maxMove, state->robots[0].crushes, state->collisions, finite ? "" : ", NOT FINITE");
        }
        failures += finite ? 0 : 1;
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return failures == 0 ? 0 : 1;
}

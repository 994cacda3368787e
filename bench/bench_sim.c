// Simulation benchmark: steps per second, headless, one core. Prints figures (and CSV with --csv); asserts
// nothing about time. Scenes:
//   default-360   worlds/default.json, 360-beam lidar, autopilot (target: >= 20 000 steps/s)
//   default-manual worlds/default.json, 360-beam lidar, fixed command (no autopilot)
//   city-100k     the largest bench world (100 000 walls, 10 000 targets), its own lidar, autopilot (>= 1 000)
//   maze-20k      the maze bench world, autopilot
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "cli/clock.h"
#include "lidarsim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Scene
{
    const char* name;
    const char* file; // relative to its folder
    bool benchFolder; // in the bench-worlds folder (else the worlds folder)
    int beams;        // 0: the world's own
    bool autopilot;
    long long steps;
} Scene;

// The source tree (set by bench/CMakeLists.txt), where the default worlds are found; nothing else is assumed.
#ifndef LS_SOURCE_DIR
#define LS_SOURCE_DIR "."
#endif

static void PrintUsage(void)
{
    printf("usage: ls_bench_sim [--csv] [--steps-scale F] [--worlds DIR] [--bench-worlds DIR] [--only NAME]\n"
           "Steps per second of lidarsim's simulation on named scenes (one core, headless, lidar at its rate).\n"
           "  --worlds DIR        folder of worlds/default.json (default: the source tree's worlds)\n"
           "  --bench-worlds DIR  folder of the bench worlds (default: ../shared/bench-worlds beside the source tree)\n"
           "  --steps-scale F     multiply every scene's step count (default 1)\n"
           "  --only NAME         run one scene\n"
           "  --csv               print CSV: scene,world,walls,beams,autopilot,steps,seconds,steps_per_s,"
           "cpu_seconds,cpu_steps_per_s,score,collisions\n");
}

int main(int argc, char** argv)
{
    const char* worldsDir = LS_SOURCE_DIR "/worlds";
    const char* benchDir = LS_SOURCE_DIR "/../shared/bench-worlds";
    const char* only = NULL;
    double scale = 1.0;
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
        else if (i + 1 < argc && strcmp(argv[i], "--worlds") == 0)
        {
            worldsDir = argv[++i];
        }
        else if (i + 1 < argc && strcmp(argv[i], "--bench-worlds") == 0)
        {
            benchDir = argv[++i];
        }
        else if (i + 1 < argc && strcmp(argv[i], "--steps-scale") == 0)
        {
            if (!lsBenchNumberArg("ls_bench_sim", "--steps-scale", argv[++i], 1e-6, 1e3, &scale))
            {
                return 2;
            }
        }
        else if (i + 1 < argc && strcmp(argv[i], "--only") == 0)
        {
            only = argv[++i];
        }
        else
        {
            fprintf(stderr, "ls_bench_sim: unknown argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }

    const Scene scenes[] = {
        {"default-360", "default.json", false, 360, true, 60000},
        {"default-manual", "default.json", false, 360, false, 60000},
        {"city-100k", "city-100k.json", true, 0, true, 6000},
        {"maze-20k", "maze-20k.json", true, 0, true, 6000},
    };
    if (csv)
    {
        printf("scene,world,walls,beams,autopilot,steps,seconds,steps_per_s,cpu_seconds,cpu_steps_per_s,score,"
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
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", scene->benchFolder ? benchDir : worldsDir, scene->file);
        lsError err = {{0}};
        lsWorld* world = lsLoadWorld(path, &err, NULL);
        if (world == NULL)
        {
            fprintf(stderr, "ls_bench_sim: %s: skipped: %s\n", scene->name, err.message);
            failures += 1;
            continue;
        }
        if (scene->beams > 0)
        {
            world->robot.lidar.beams = scene->beams;
        }
        long long steps = (long long)((double)scene->steps * scale);
        if (steps < 1)
        {
            steps = 1;
        }
        double t0 = lsNowSeconds();
        lsSim* sim = lsCreateSim(world);
        double build = lsNowSeconds() - t0;
        lsControl control = scene->autopilot ? lsMakeAutopilotControl() : lsMakeManualControl(0.6, 0.4);
        double start = lsNowSeconds();
        double cpuStart = lsCpuSeconds();
        for (long long k = 0; k < steps; ++k)
        {
            lsSim_Step(sim, &control);
        }
        double seconds = lsNowSeconds() - start;
        double cpu = lsCpuSeconds() - cpuStart;
        const lsSimState* state = lsSim_GetState(sim);
        double rate = seconds > 0.0 ? (double)steps / seconds : 0.0;
        double cpuRate = cpu > 0.0 ? (double)steps / cpu : 0.0;
        if (csv)
        {
            printf("%s,%s,%d,%d,%d,%lld,%.6f,%.1f,%.6f,%.1f,%g,%d\n", scene->name, world->name,
                   lsWorld_SegmentCount(world), lsSim_GetBeams(sim), scene->autopilot ? 1 : 0, steps, seconds, rate,
                   cpu, cpuRate, state->score, state->collisions);
        }
        else
        {
            printf("%-15s %7d walls %5d beams %-9s %6lld steps: %8.0f steps/s wall, %8.0f steps/s cpu  (setup %.3f s, "
                   "score %g, collisions %d, %.1f m)\n",
                   scene->name, lsWorld_SegmentCount(world), lsSim_GetBeams(sim),
                   scene->autopilot ? "autopilot" : "manual", steps, rate, cpuRate, build, state->score,
                   state->collisions, state->distance);
        }
        lsDestroySim(sim);
        lsDestroyWorld(world);
    }
    return failures == 0 ? 0 : 1;
}

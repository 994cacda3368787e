// Benchmark: loading and saving world files. Prints, per file, the best of N runs of lsLoadWorld (read + parse +
// validate) and of lsSaveWorldToString, with sizes; --csv prints CSV instead. Never asserts timings.
//
//   ls_bench_load [--runs N] [--csv] [FILE.json...]
// Without files it runs from the repository root on ../shared/bench-worlds/*.json and worlds/*.json.
#define _POSIX_C_SOURCE 200809L

#include "bench_args.h"
#include "cli/clock.h"
#include "lidarsim/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LS_SOURCE_DIR
#define LS_SOURCE_DIR "."
#endif

static void PrintUsage(void)
{
    printf("usage: ls_bench_load [--runs N] [--csv] [FILE.json...]\n"
           "Times lsLoadWorld and lsSaveWorldToString (best of N runs, default 5; wall and CPU time) on each file.\n"
           "Without files: the shared bench worlds (../shared/bench-worlds) and the shipped worlds.\n");
}

static bool BenchFile(const char* path, int runs, bool csv)
{
    double bestLoad = 1e30, bestSave = 1e30, bestLoadCpu = 1e30, bestSaveCpu = 1e30;
    size_t jsonBytes = 0;
    int segments = 0, targets = 0;
    for (int run = 0; run < runs; ++run)
    {
        lsError err;
        double c0 = lsCpuSeconds();
        double t0 = lsNowSeconds();
        lsWorld* world = lsLoadWorld(path, &err, NULL);
        double t1 = lsNowSeconds();
        double c1 = lsCpuSeconds();
        if (world == NULL)
        {
            fprintf(stderr, "%s\n", err.message);
            return false;
        }
        char* json = lsSaveWorldToString(world);
        double t2 = lsNowSeconds();
        double c2 = lsCpuSeconds();
        jsonBytes = strlen(json);
        segments = lsWorld_SegmentCount(world);
        targets = world->targetCount;
        lsFreeString(json);
        lsDestroyWorld(world);
        bestLoad = t1 - t0 < bestLoad ? t1 - t0 : bestLoad;
        bestSave = t2 - t1 < bestSave ? t2 - t1 : bestSave;
        bestLoadCpu = c1 - c0 < bestLoadCpu ? c1 - c0 : bestLoadCpu;
        bestSaveCpu = c2 - c1 < bestSaveCpu ? c2 - c1 : bestSaveCpu;
    }
    if (csv)
    {
        printf("%s,%d,%d,%zu,%.3f,%.3f,%.3f,%.3f\n", path, segments, targets, jsonBytes, 1e3 * bestLoad,
               1e3 * bestLoadCpu, 1e3 * bestSave, 1e3 * bestSaveCpu);
    }
    else
    {
        printf("%-44s %7d walls %6d targets  load %8.2f ms (cpu %8.2f)  save %8.2f ms (cpu %8.2f), %zu bytes\n", path,
               segments, targets, 1e3 * bestLoad, 1e3 * bestLoadCpu, 1e3 * bestSave, 1e3 * bestSaveCpu, jsonBytes);
    }
    return true;
}

int main(int argc, char** argv)
{
    int runs = 5;
    bool csv = false;
    int firstFile = argc;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
        {
            PrintUsage();
            return 0;
        }
        if (strcmp(argv[i], "--csv") == 0)
        {
            csv = true;
        }
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
        {
            long long n = 0;
            if (!lsBenchIntegerArg("ls_bench_load", "--runs", argv[++i], 1, 1000000, &n))
            {
                return 2;
            }
            runs = (int)n;
        }
        else
        {
            firstFile = i;
            break;
        }
    }
    if (csv)
    {
        printf("file,wall_segments,targets,saved_bytes,load_ms,load_cpu_ms,save_ms,save_cpu_ms\n");
    }
    bool ok = true;
    if (firstFile < argc)
    {
        for (int i = firstFile; i < argc; ++i)
        {
            ok = BenchFile(argv[i], runs, csv) && ok;
        }
        return ok ? 0 : 1;
    }
    const char* defaults[] = {"../shared/bench-worlds/city-1k.json",
                              "../shared/bench-worlds/city-10k.json",
                              "../shared/bench-worlds/city-100k.json",
                              "../shared/bench-worlds/maze-2k.json",
                              "../shared/bench-worlds/maze-20k.json",
                              "worlds/default.json",
                              "worlds/rldemo.json",
                              "worlds/maze.json",
                              "worlds/warehouse.json"};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i)
    {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", LS_SOURCE_DIR, defaults[i]);
        ok = BenchFile(path, runs, csv) && ok;
    }
    return ok ? 0 : 1;
}

// lidarsim bench [--worlds DIR] [--csv] [--brute-sample N]: the ray-casting benchmark. For every NAME.json with a
// NAME.rays.txt beside it (rays "ox oy dx dy", max range 30 m), it builds the scene, casts every ray through the
// grid, casts a sample by brute force, checks that both agree beam for beam and times a 1080-beam scan. It prints
// figures; it never asserts timings. Timing lives here, in the program, not in the core.
// clock_gettime, opendir and stat are POSIX, not C17.
#define _POSIX_C_SOURCE 200809L

#include "cli/clock.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/lidar.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LS_BENCH_RANGE 30.0
#define LS_BENCH_MAX_WORLDS 64
#define LS_BENCH_CHUNK 1000

static void PrintUsage(FILE* out)
{
    fprintf(out,
            "usage: lidarsim bench [--worlds DIR] [--csv] [--brute-sample N] [--reps N]\n\n"
            "Ray-casting benchmark. For each NAME.json in DIR that has NAME.rays.txt beside it (one ray per line,\n"
            "'ox oy dx dy', directions normalized here, max range 30 m), prints: walls (segments), shapes (targets,\n"
            "boxes, polygons), rays, rays per second through the grid index (all rays; each chunk of 1000 rays is\n"
            "timed alone and kept at its best over the repetitions, so time slices lost to other processes on a\n"
            "busy machine do not count; the table also shows the best whole run),\n"
            "rays per second by brute force (on an evenly spaced sample), index build time (best of the\n"
            "repetitions) and heap bytes, a checksum (sum of ranges of the hits, count of hits), whether the\n"
            "index agrees with brute force on every sampled ray (same object, part and fraction within 1e-9\n"
            "relative), and the microseconds of one 1080-beam 270-degree scan from the world's robot pose.\n\n"
            "options:\n"
            "  --worlds DIR       folder of worlds (default ../shared/bench-worlds, else /work/shared/bench-worlds)\n"
            "  --csv              one header line, then one line per world:\n"
            "                     world,walls,shapes,rays,accel_rays_per_s,brute_rays_per_s,build_ms,index_bytes,agree,"
            "scan1080_us\n"
            "  --brute-sample N   rays cast by brute force per world (default 2000; 0 skips it)\n"
            "  --reps N           repetitions of each timing, the best is kept (default 5)\n"
            "  -h, --help         this help\n"
            "Single thread. Exit status: 0 success (whether or not the paths agree), 1 no worlds or unreadable\n"
            "files, 2 bad usage.\n");
}

typedef struct Rays
{
    lsRayInput* rays;
    int count, capacity;
} Rays;

static bool ReadRays(const char* path, Rays* out, lsError* err)
{
    FILE* file = fopen(path, "r");
    if (file == NULL)
    {
        return lsFail(err, "%s: cannot open: %s", path, strerror(errno));
    }
    char line[512];
    int lineNumber = 0;
    bool ok = true;
    while (fgets(line, sizeof line, file) != NULL)
    {
        lineNumber += 1;
        double v[4];
        char* p = line;
        int n = 0;
        for (; n < 4; ++n)
        {
            char* end;
            v[n] = strtod(p, &end);
            if (end == p || !isfinite(v[n]))
            {
                break;
            }
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        {
            ++p;
        }
        if (n == 0 && *p == '\0')
        {
            continue; // blank line
        }
        lsVec2 d = n == 4 ? lsNormalize(lsV(v[2], v[3])) : lsV(0.0, 0.0); // v[2], v[3] set only when n == 4
        if (n != 4 || *p != '\0' || (d.x == 0.0 && d.y == 0.0))
        {
            ok = lsFail(err, "%s:%d: expected 'ox oy dx dy' (four finite numbers, non-zero direction)", path,
                        lineNumber);
            break;
        }
        if (out->count == out->capacity)
        {
            int capacity = out->capacity == 0 ? 1024 : 2 * out->capacity;
            out->rays =
                lsRealloc(out->rays, (size_t)out->capacity * sizeof(lsRayInput), (size_t)capacity * sizeof(lsRayInput));
            out->capacity = capacity;
        }
        out->rays[out->count++] = (lsRayInput){lsV(v[0], v[1]), d, LS_BENCH_RANGE};
    }
    fclose(file);
    if (ok && out->count == 0)
    {
        ok = lsFail(err, "%s: no rays", path);
    }
    return ok;
}

typedef struct Result
{
    char name[256];
    int walls, shapes, rays;
    double accelRaysPerS, accelWholeRunRaysPerS, bruteRaysPerS, buildMs;
    size_t indexBytes;
    bool agree;
    int mismatches, sampled;
    double scanUs;
    double sumRanges;
    int hits;
    double cellsPerRay, candidatesPerRay, exactPerRay;
} Result;

static bool SameWithin(const lsRayHit* a, const lsRayHit* b)
{
    if (a->hit != b->hit)
    {
        return false;
    }
    if (!a->hit)
    {
        return true;
    }
    double scale = fmax(fabs(a->fraction), fabs(b->fraction));
    return a->kind == b->kind && a->index == b->index && a->part == b->part &&
           fabs(a->fraction - b->fraction) <= 1e-9 * scale;
}

static bool BenchWorld(const char* dir, const char* name, int sample, int reps, Result* r, lsError* err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.json", dir, name) >= (int)sizeof path)
    {
        return lsFail(err, "%s/%s: path too long", dir, name);
    }
    lsWorld* world = lsLoadWorld(path, err, NULL);
    if (world == NULL)
    {
        return false;
    }
    if (snprintf(path, sizeof path, "%s/%s.rays.txt", dir, name) >= (int)sizeof path)
    {
        lsDestroyWorld(world);
        return lsFail(err, "%s/%s: path too long", dir, name);
    }
    Rays rays = {NULL, 0, 0};
    if (!ReadRays(path, &rays, err))
    {
        lsFree(rays.rays, (size_t)rays.capacity * sizeof(lsRayInput));
        lsDestroyWorld(world);
        return false;
    }
    memset(r, 0, sizeof *r);
    if (snprintf(r->name, sizeof r->name, "%s", name) >= (int)sizeof r->name)
    {
        r->name[sizeof r->name - 1] = '\0'; // names come from the listing, which keeps them shorter
    }
    r->walls = lsWorld_SegmentCount(world);
    r->shapes = world->targetCount + world->boxCount + world->polygonCount;
    r->rays = rays.count;

    // Build: best of twice the repetitions (one build is short, so a busy machine interrupts it less often).
    double bestBuild = INFINITY;
    for (int k = 0; k < 2 * reps; ++k)
    {
        double t0 = lsNowSeconds();
        lsScene* scene = lsCreateScene(world);
        double t1 = lsNowSeconds();
        lsDestroyScene(scene);
        bestBuild = fmin(bestBuild, t1 - t0);
    }
    r->buildMs = 1e3 * bestBuild;
    lsScene* scene = lsCreateScene(world);
    r->indexBytes = lsScene_GetInfo(scene).indexBytes;

    // Every ray through the index. The rays go in chunks of LS_BENCH_CHUNK, each timed on its own and kept at its
    // best over the repetitions, so that time slices lost to other processes on a busy machine do not count; the
    // best whole run is reported too.
    lsRayHit* hits = lsAlloc((size_t)rays.count * sizeof(lsRayHit));
    int chunks = (rays.count + LS_BENCH_CHUNK - 1) / LS_BENCH_CHUNK;
    double* bestChunk = lsAlloc((size_t)chunks * sizeof(double));
    for (int c = 0; c < chunks; ++c)
    {
        bestChunk[c] = INFINITY;
    }
    double bestRun = INFINITY;
    for (int k = 0; k < reps; ++k)
    {
        double run = 0.0;
        for (int c = 0; c < chunks; ++c)
        {
            int end = (c + 1) * LS_BENCH_CHUNK < rays.count ? (c + 1) * LS_BENCH_CHUNK : rays.count;
            double t0 = lsNowSeconds();
            lsScene_CastRays(scene, NULL, rays.rays + (ptrdiff_t)c * LS_BENCH_CHUNK, end - c * LS_BENCH_CHUNK,
                             hits + (ptrdiff_t)c * LS_BENCH_CHUNK);
            double dt = lsNowSeconds() - t0;
            bestChunk[c] = fmin(bestChunk[c], dt);
            run += dt;
        }
        bestRun = fmin(bestRun, run);
    }
    double sumChunks = 0.0;
    for (int c = 0; c < chunks; ++c)
    {
        sumChunks += bestChunk[c];
    }
    lsFree(bestChunk, (size_t)chunks * sizeof(double));
    r->accelRaysPerS = (double)rays.count / sumChunks;
    r->accelWholeRunRaysPerS = (double)rays.count / bestRun;
    for (int i = 0; i < rays.count; ++i)
    {
        if (hits[i].hit)
        {
            r->sumRanges += hits[i].fraction;
            r->hits += 1;
        }
    }
    lsCastStats stats = {0, 0, 0, 0};
    for (int i = 0; i < rays.count; ++i)
    {
        lsRayHit h = lsScene_CastRayStats(scene, NULL, rays.rays + i, &stats);
        (void)h;
    }
    r->cellsPerRay = (double)stats.cells / (double)stats.rays;
    r->candidatesPerRay = (double)stats.candidates / (double)stats.rays;
    r->exactPerRay = (double)stats.exactTests / (double)stats.rays;

    // Brute force on an evenly spaced sample, compared with the index's results for the same rays.
    r->agree = true;
    int n = sample < rays.count ? sample : rays.count;
    if (n > 0)
    {
        double bruteTime = 0.0;
        for (int s = 0; s < n; ++s)
        {
            int i = (int)((long long)s * rays.count / n);
            double t0 = lsNowSeconds();
            lsRayHit b = lsScene_CastRayBrute(scene, NULL, rays.rays + i);
            bruteTime += lsNowSeconds() - t0;
            if (!SameWithin(hits + i, &b))
            {
                r->mismatches += 1;
                if (r->mismatches <= 3)
                {
                    const lsRayInput* in = rays.rays + i;
                    fprintf(stderr,
                            "%s: ray %d (%.17g %.17g %.17g %.17g): index %s[%d].%d at %.17g, brute force %s[%d].%d at "
                            "%.17g\n",
                            name, i, in->origin.x, in->origin.y, in->direction.x, in->direction.y,
                            lsHitKindName(hits[i].kind), hits[i].index, hits[i].part, hits[i].fraction,
                            lsHitKindName(b.kind), b.index, b.part, b.fraction);
                }
            }
        }
        r->bruteRaysPerS = (double)n / bruteTime;
        r->agree = r->mismatches == 0;
    }
    r->sampled = n;

    // One 1080-beam 270-degree scan from the robot pose, noiseless; best of many.
    lsLidarDef def = world->robot.lidar;
    def.beams = 1080;
    def.fov = lsDegToRad(270.0);
    lsScan* scan = lsCreateScan(def.beams);
    lsVec2 sensor = lsLidar_SensorPosition(&def, world->robot.position, world->robot.angle);
    double heading = world->robot.angle + def.mountAngle;
    double bestScan = INFINITY;
    for (int k = 0; k < 40 * reps; ++k)
    {
        double t0 = lsNowSeconds();
        lsLidar_ScanFrom(scene, NULL, &def, sensor, heading, NULL, scan);
        bestScan = fmin(bestScan, lsNowSeconds() - t0);
    }
    r->scanUs = 1e6 * bestScan;

    lsDestroyScan(scan);
    lsFree(hits, (size_t)rays.count * sizeof(lsRayHit));
    lsDestroyScene(scene);
    lsFree(rays.rays, (size_t)rays.capacity * sizeof(lsRayInput));
    lsDestroyWorld(world);
    return true;
}

static int CompareNames(const void* a, const void* b) { return strcmp((const char*)a, (const char*)b); }

static bool IsDirectory(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

enum
{
    optWorlds = 256,
    optCsv,
    optBruteSample,
    optReps,
};

static const struct option s_options[] = {
    {"worlds", required_argument, NULL, optWorlds},
    {"csv", no_argument, NULL, optCsv},
    {"brute-sample", required_argument, NULL, optBruteSample},
    {"reps", required_argument, NULL, optReps},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int lsCmdBench(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintUsage(stdout);
        return 0;
    }
    const char* dir = NULL;
    bool csv = false;
    long long sample = 2000, reps = 5; // long long for lsParseInteger; both are at most 10^8
    lsOptions options;
    lsBeginOptions(&options, "bench", argc, argv, s_options, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
    {
        if (c == optWorlds)
            dir = value;
        else if (c == optCsv)
            csv = true;
        else if (c == optBruteSample && !lsParseInteger(value, 0, 100000000, &sample))
            ok = lsFail(&err, "--brute-sample: expected an integer in 0..100000000, got '%s'", value);
        else if (c == optReps && !lsParseInteger(value, 1, 100000000, &reps))
            ok = lsFail(&err, "--reps: expected an integer in 1..100000000, got '%s'", value);
        else if (c == '?')
            ok = false;
    }
    if (ok && options.positionalCount > 0)
        ok = lsFail(&err, "unexpected argument '%s' (the worlds come from --worlds DIR)", options.positionals[0]);
    lsEndOptions(&options);
    if (!ok)
    {
        fprintf(stderr, "lidarsim bench: %s (see lidarsim bench --help)\n", err.message);
        return 2;
    }
    if (dir == NULL)
    {
        dir = IsDirectory("../shared/bench-worlds") ? "../shared/bench-worlds" : "/work/shared/bench-worlds";
    }
    DIR* d = opendir(dir);
    if (d == NULL)
    {
        fprintf(stderr, "lidarsim bench: %s: cannot open: %s\n", dir, strerror(errno));
        return 1;
    }
    static char names[LS_BENCH_MAX_WORLDS][256];
    int count = 0;
    for (struct dirent* e = readdir(d); e != NULL; e = readdir(d))
    {
        size_t len = strlen(e->d_name);
        if (len <= 5 || len >= 250 || strcmp(e->d_name + len - 5, ".json") != 0 || count == LS_BENCH_MAX_WORLDS)
        {
            continue;
        }
        char rays[4096];
        snprintf(rays, sizeof rays, "%s/%.*s.rays.txt", dir, (int)(len - 5), e->d_name);
        FILE* f = fopen(rays, "r");
        if (f == NULL)
        {
            continue; // not a bench world (manifest.json and the like)
        }
        fclose(f);
        snprintf(names[count], sizeof names[count], "%.*s", (int)(len - 5), e->d_name);
        count += 1;
    }
    closedir(d);
    if (count == 0)
    {
        fprintf(stderr, "lidarsim bench: %s: no NAME.json with NAME.rays.txt beside it\n", dir);
        return 1;
    }
    // Natural order for the usual names: by walls is what matters, so sort by name, then by size below.
    qsort(names, (size_t)count, sizeof names[0], CompareNames);

    static Result results[LS_BENCH_MAX_WORLDS];
    if (csv)
    {
        printf("world,walls,shapes,rays,accel_rays_per_s,brute_rays_per_s,build_ms,index_bytes,agree,scan1080_us\n");
    }
    else
    {
        printf("lidarsim bench: %s, max range %.0f m, single thread, brute force on %d rays per world\n", dir,
               LS_BENCH_RANGE, (int)sample);
        printf("%-12s %7s %6s %7s %12s %10s %12s %9s %9s %5s %11s %14s %7s %s\n", "world", "walls", "shapes", "rays",
               "accel Mray/s", "(run)", "brute Mray/s", "build ms", "index MB", "agree", "scan1080 us", "sum of ranges",
               "hits", "cells/cand/exact per ray");
        fflush(stdout);
    }
    int failed = 0;
    for (int w = 0; w < count; ++w)
    {
        err = (lsError){{0}};
        Result* r = results + w;
        if (!BenchWorld(dir, names[w], (int)sample, (int)reps, r, &err))
        {
            fprintf(stderr, "lidarsim bench: %s\n", err.message);
            r->rays = 0;
            failed += 1;
            continue;
        }
        if (csv)
        {
            printf("%s,%d,%d,%d,%.0f,%.0f,%.3f,%zu,%s,%.1f\n", r->name, r->walls, r->shapes, r->rays, r->accelRaysPerS,
                   r->bruteRaysPerS, r->buildMs, r->indexBytes, r->agree ? "yes" : "no", r->scanUs);
        }
        else
        {
            printf("%-12s %7d %6d %7d %12.2f %10.2f %12.4f %9.2f %9.2f %5s %11.1f %14.6f %7d %.2f/%.2f/%.2f\n", r->name,
                   r->walls, r->shapes, r->rays, 1e-6 * r->accelRaysPerS, 1e-6 * r->accelWholeRunRaysPerS,
                   1e-6 * r->bruteRaysPerS, r->buildMs, (double)r->indexBytes / 1048576.0, r->agree ? "yes" : "no",
                   r->scanUs, r->sumRanges, r->hits, r->cellsPerRay, r->candidatesPerRay, r->exactPerRay);
        }
        fflush(stdout);
    }
    if (!csv)
    {
        // Per-ray cost of the largest world against the smallest one of the same family (the name before '-').
        for (int a = 0; a < count; ++a)
        {
            const Result* small = results + a;
            const Result* large = NULL;
            if (small->rays == 0)
            {
                continue;
            }
            size_t prefix = strcspn(small->name, "-");
            bool smallest = true;
            for (int b = 0; b < count; ++b)
            {
                const Result* o = results + b;
                if (b == a || o->rays == 0 || strncmp(o->name, small->name, prefix) != 0 ||
                    o->name[prefix] != small->name[prefix])
                {
                    continue;
                }
                smallest = smallest && o->walls > small->walls;
                if (large == NULL || o->walls > large->walls)
                {
                    large = o;
                }
            }
            if (smallest && large != NULL && large->walls > small->walls)
            {
                printf("per-ray cost %s / %s: %.2f\n", large->name, small->name,
                       small->accelRaysPerS / large->accelRaysPerS);
            }
        }
    }
    return failed > 0 ? 1 : 0;
}

// lidarsim bench [--worlds DIR] [--world NAME] [--threads N] [--csv]: the ray-casting benchmark. For every
// NAME.json with a NAME.rays.txt beside it (rays "ox oy dx dy", max range 30 m), it builds the scene, casts every
// ray through the path the lidar uses (lsScene_CastRays), on one thread and on the pool, casts a sample by brute
// force, checks that all agree bit for bit, times a 1080-beam scan and a batch of scans on the pool. It prints
// figures; it never asserts timings. Timing lives here, in the program, not in the core.
// To bench another kind of world (a map), load it into an lsWorld, read or make its rays, and call BenchScene.
// clock_gettime, opendir and stat are POSIX, not C17.
#define _POSIX_C_SOURCE 200809L

#include "cli/clock.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/limits.h"
#include "lidarsim/lidar.h"
#include "lidarsim/pool.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LS_BENCH_RANGE 30.0
#define LS_BENCH_MAX_WORLDS 64
#define LS_BENCH_GRAIN 1024     // rays per pool chunk
#define LS_BENCH_SCAN_POSES 256 // scans in the batch-of-scans figure

static void PrintUsage(FILE* out)
{
    fprintf(out,
            "usage: lidarsim bench [--worlds DIR] [--world NAME] [--threads N] [--csv] [--brute-sample N]"
            " [--reps N]\n\n"
            "Ray-casting benchmark. For each NAME.json in DIR that has NAME.rays.txt beside it (one ray per line,\n"
            "'ox oy dx dy', directions normalized here, max range 30 m), prints: walls (segments), shapes (targets,\n"
            "boxes, polygons), rays, rays per second through lsScene_CastRays (the path every scan takes), the whole\n"
            "run of all rays uninterrupted on one thread (best of the repetitions; also per second of CPU time,\n"
            "which leaves out time slices lost to other processes), the same on N threads of the pool, the speedup\n"
            "between the two (measured in alternation) and the cores the threaded run had (its CPU seconds per wall\n"
            "second: below N, other processes held cores, and the speedup measures the machine's load, not the\n"
            "pool), rays per second by brute force (on an evenly spaced sample), index build time (best of the\n"
            "repetitions) and heap bytes, whether every answer is bit-identical to brute force and to the one-thread\n"
            "run (object, part, fraction, point, normal), the microseconds of one 1080-beam 270-degree scan from the\n"
            "world's robot pose (best and median of many), scans per second of %d such scans from the rays' origins\n"
            "on 1 and on N threads (with the speedup and cores as for the rays), and the work per ray (cells\n"
            "visited, candidates met, exact casts).\n\n"
            "options:\n"
            "  --worlds DIR       folder of worlds (default: ../shared/bench-worlds beside the source tree)\n"
            "  --world NAME       only this world (NAME.json in DIR)\n"
            "  --threads N        threads of the pool for the threaded figures (default 2; 0: one per core)\n"
            "  --csv              one header line, then one line per world:\n"
            "                     world,walls,shapes,rays,threads,rays_per_s,rays_per_s_cpu,rays_per_s_threads,speedup,"
            "brute_rays_per_s,\n"
            "                     build_ms,index_bytes,agree,scan1080_us,scan1080_median_us,scans_per_s,"
            "scans_per_s_threads,\n"
            "                     cells_per_ray,candidates_per_ray,exact_per_ray,rays_cores,scans_cores\n"
            "  --brute-sample N   rays cast by brute force per world (default 2000; 0 skips it)\n"
            "  --reps N           repetitions of each timing, the best is kept (default 5)\n"
            "  -h, --help         this help\n"
            "Exit status: 0 success (whether or not the paths agree), 1 no worlds or unreadable files, 2 bad usage.\n",
            LS_BENCH_SCAN_POSES);
}

typedef struct Rays
{
    lsRayInput* rays;
    int count, capacity;
} Rays;

// The rays file goes through lsReadFile like every other input (a regular file within 64 MiB, never waited on: a
// FIFO named NAME.rays.txt hung the bench in fopen); each origin is a world coordinate (limits.h).
static bool ReadRays(const char* path, Rays* out, lsError* err)
{
    size_t size = 0;
    char* text = lsReadFile(path, (size_t)64 << 20, &size, err);
    if (text == NULL)
    {
        return false;
    }
    int lineNumber = 0;
    bool ok = true;
    for (char* line = text; ok && line < text + size;)
    {
        char* newline = memchr(line, '\n', (size_t)(text + size - line));
        char* stop = newline != NULL ? newline : text + size;
        *stop = '\0';
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
        while (*p == ' ' || *p == '\t' || *p == '\r')
        {
            ++p;
        }
        line = stop + 1;
        if (n == 0 && *p == '\0')
        {
            continue; // blank line
        }
        lsVec2 d = n == 4 ? lsNormalize(lsV(v[2], v[3])) : lsV(0.0, 0.0); // v[2], v[3] set only when n == 4
        if (n != 4 || *p != '\0' || (d.x == 0.0 && d.y == 0.0) || !lsLimit_Holds(ls_quantityCoordinate, v[0]) ||
            !lsLimit_Holds(ls_quantityCoordinate, v[1]))
        {
            ok = lsFail(err,
                        "%s:%d: expected 'ox oy dx dy' (four finite numbers, the origin within [-1e+06, 1e+06] m, a "
                        "non-zero direction)",
                        path, lineNumber);
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
    lsFree(text, size + 1);
    if (ok && out->count == 0)
    {
        ok = lsFail(err, "%s: no rays", path);
    }
    return ok;
}

typedef struct Result
{
    char name[256];
    int walls, shapes, rays, threads;
    double raysPerS, raysPerSCpu, raysPerSThreads, bruteRaysPerS, buildMs;
    size_t indexBytes;
    bool agree;
    int mismatches, sampled;
    double scanUs, scanMedianUs, scansPerS, scansPerSThreads;
    double raysCores, scansCores; // CPU seconds in chunks per wall second of the best threaded runs

    double sumRanges;
    int hits;
    double cellsPerRay, candidatesPerRay, exactPerRay;
} Result;

/// Bit for bit the same answer (hit, object, part, fraction, point and normal).
static bool SameHit(const lsRayHit* a, const lsRayHit* b)
{
    if (a->hit != b->hit)
    {
        return false;
    }
    if (!a->hit)
    {
        return true;
    }
    // == on doubles is bit-identity here: no NaN comes back, and a hit's -0 and 0 would be the same answer.
    return a->kind == b->kind && a->index == b->index && a->part == b->part && a->fraction == b->fraction &&
           lsVecEqual(a->point, b->point) && lsVecEqual(a->normal, b->normal);
}

typedef struct RayJob
{
    const lsScene* scene;
    const lsRayInput* rays;
    lsRayHit* hits;
    double* busy; // per worker: CPU seconds in chunks during the run (NULL: not counted)
} RayJob;

static void CastRayChunk(void* context, int begin, int end, int worker)
{
    const RayJob* job = context;
    double cpu0 = job->busy != NULL ? lsThreadCpuSeconds() : 0.0;
    lsScene_CastRays(job->scene, NULL, job->rays + begin, end - begin, job->hits + begin);
    if (job->busy != NULL)
    {
        job->busy[worker] += lsThreadCpuSeconds() - cpu0;
    }
}

/// The cores a run had: the CPU seconds its threads spent in chunks (busy, one per thread of pool) per wall second.
/// Read inside each thread, where the clock is exact: the process's CPU clock leaves out the time the other
/// threads ran since their last tick, which made a 2 ms run on two cores read as one core.
static double Cores(const lsPool* pool, const double* busy, double seconds)
{
    double sum = 0.0;
    for (int t = 0; t < lsPool_ThreadCount(pool); ++t)
    {
        sum += busy[t];
    }
    return sum / seconds;
}

/// Seconds of one whole run of every ray through the pool (NULL: this thread alone).
static double TimeRays(lsPool* pool, const RayJob* job, int count)
{
    if (job->busy != NULL)
    {
        memset(job->busy, 0, (size_t)lsPool_ThreadCount(pool) * sizeof(double));
    }
    double t0 = lsNowSeconds();
    lsPool_ParallelFor(pool, count, LS_BENCH_GRAIN, CastRayChunk, (void*)job);
    return lsNowSeconds() - t0;
}

typedef struct ScanJob
{
    const lsScene* scene;
    const lsLidarDef* def;
    const lsRayInput* poses; // origin and heading direction of each scan
    lsScan** scans;          // one per worker
    double* sums;            // per scan: the sum of its ranges (compared between thread counts)
    double* busy;            // as in RayJob
} ScanJob;

static void ScanChunk(void* context, int begin, int end, int worker)
{
    const ScanJob* job = context;
    double cpu0 = job->busy != NULL ? lsThreadCpuSeconds() : 0.0;
    lsScan* scan = job->scans[worker];
    for (int i = begin; i < end; ++i)
    {
        lsVec2 d = job->poses[i].direction;
        lsLidar_ScanFrom(job->scene, NULL, job->def, job->poses[i].origin, atan2(d.y, d.x), NULL, scan);
        double sum = 0.0;
        for (int b = 0; b < scan->count; ++b)
        {
            sum += isfinite(scan->ranges[b]) ? scan->ranges[b] : 0.0;
        }
        job->sums[i] = sum;
    }
    if (job->busy != NULL)
    {
        job->busy[worker] += lsThreadCpuSeconds() - cpu0;
    }
}

static double TimeScans(lsPool* pool, const ScanJob* job, int count)
{
    if (job->busy != NULL)
    {
        memset(job->busy, 0, (size_t)lsPool_ThreadCount(pool) * sizeof(double));
    }
    double t0 = lsNowSeconds();
    lsPool_ParallelFor(pool, count, 1, ScanChunk, (void*)job);
    return lsNowSeconds() - t0;
}

static int CompareDoubles(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/// Benchmarks one world with its rays (directions of unit length, max range LS_BENCH_RANGE) into r.
static void BenchScene(const char* name, const lsWorld* world, const lsRayInput* rays, int rayCount, int sample,
                       int reps, lsPool* pool, Result* r)
{
    memset(r, 0, sizeof *r);
    if (snprintf(r->name, sizeof r->name, "%s", name) >= (int)sizeof r->name)
    {
        r->name[sizeof r->name - 1] = '\0'; // names come from the listing, which keeps them shorter
    }
    r->walls = lsWorld_SegmentCount(world);
    r->shapes = world->targetCount + world->boxCount + world->polygonCount;
    r->rays = rayCount;
    r->threads = lsPool_ThreadCount(pool);

    // Build: best of twice the repetitions (one build is short, so a busy machine interrupts it less often).
    double bestBuild = (double)INFINITY;
    for (int k = 0; k < 2 * reps; ++k)
    {
        double t0 = lsNowSeconds();
        lsScene* scene = lsCreateScene(world);
        double t1 = lsNowSeconds();
        lsDestroyScene(scene);
        bestBuild = lsFmin(bestBuild, t1 - t0);
    }
    r->buildMs = 1e3 * bestBuild;
    lsScene* scene = lsCreateScene(world);
    r->indexBytes = lsScene_GetInfo(scene).indexBytes;

    // Every ray, one whole uninterrupted run per repetition, alternately on this thread and on the pool (so both
    // see the same load on a shared machine); the best run of each is kept.
    lsRayHit* hits = lsAlloc((size_t)rayCount * sizeof(lsRayHit));
    lsRayHit* hitsThreaded = lsAlloc((size_t)rayCount * sizeof(lsRayHit));
    int threadCount = lsPool_ThreadCount(pool);
    double* busy = lsAlloc((size_t)threadCount * sizeof(double));
    RayJob single = {scene, rays, hits, NULL}, threaded = {scene, rays, hitsThreaded, busy};
    double bestRun = (double)INFINITY, bestCpu = (double)INFINITY, bestThreaded = (double)INFINITY;
    for (int k = 0; k < reps; ++k)
    {
        double cpu0 = lsCpuSeconds(); // the workers sleep meanwhile: the process's CPU time is this thread's
        bestRun = lsFmin(bestRun, TimeRays(NULL, &single, rayCount));
        bestCpu = lsFmin(bestCpu, lsCpuSeconds() - cpu0);
        double seconds = TimeRays(pool, &threaded, rayCount);
        if (seconds < bestThreaded)
        {
            bestThreaded = seconds;
            r->raysCores = Cores(pool, busy, seconds);
        }
    }
    r->raysPerS = (double)rayCount / bestRun;
    r->raysPerSCpu = (double)rayCount / bestCpu;
    r->raysPerSThreads = (double)rayCount / bestThreaded;
    r->agree = true;
    for (int i = 0; i < rayCount; ++i)
    {
        if (!SameHit(hits + i, hitsThreaded + i))
        {
            r->agree = false;
            r->mismatches += 1;
        }
        if (hits[i].hit)
        {
            r->sumRanges += hits[i].fraction;
            r->hits += 1;
        }
    }
    lsFree(hitsThreaded, (size_t)rayCount * sizeof(lsRayHit));
    lsCastStats stats = {0, 0, 0, 0};
    for (int i = 0; i < rayCount; ++i)
    {
        lsRayHit h = lsScene_CastRayStats(scene, NULL, rays + i, &stats);
        if (!SameHit(&h, hits + i))
        {
            r->agree = false;
            r->mismatches += 1;
        }
    }
    r->cellsPerRay = (double)stats.cells / (double)stats.rays;
    r->candidatesPerRay = (double)stats.candidates / (double)stats.rays;
    r->exactPerRay = (double)stats.exactTests / (double)stats.rays;

    // Brute force on an evenly spaced sample, compared with the index's results for the same rays.
    int n = sample < rayCount ? sample : rayCount;
    if (n > 0)
    {
        double bruteTime = 0.0;
        for (int s = 0; s < n; ++s)
        {
            int i = (int)((long long)s * rayCount / n);
            double t0 = lsNowSeconds();
            lsRayHit b = lsScene_CastRayBrute(scene, NULL, rays + i);
            bruteTime += lsNowSeconds() - t0;
            if (!SameHit(hits + i, &b))
            {
                r->agree = false;
                r->mismatches += 1;
                if (r->mismatches <= 3)
                {
                    const lsRayInput* in = rays + i;
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
    }
    r->sampled = n;

    // One 1080-beam 270-degree scan from the robot pose, noiseless: best and median of many.
    lsLidarDef def = world->robot.lidar;
    def.beams = 1080;
    def.fov = lsDegToRad(270.0);
    def.range = LS_BENCH_RANGE;
    def.rangeMin = 0.0;
    lsVec2 sensor = lsLidar_SensorPosition(&def, world->robot.position, world->robot.angle);
    double heading = world->robot.angle + def.mountAngle;
    int scanRuns = 40 * reps;
    double* scanTimes = lsAlloc((size_t)scanRuns * sizeof(double));
    lsScan** scans = lsAlloc((size_t)threadCount * sizeof(lsScan*));
    for (int t = 0; t < threadCount; ++t)
    {
        scans[t] = lsCreateScan(def.beams);
    }
    for (int k = 0; k < scanRuns; ++k)
    {
        double t0 = lsNowSeconds();
        lsLidar_ScanFrom(scene, NULL, &def, sensor, heading, NULL, scans[0]);
        scanTimes[k] = lsNowSeconds() - t0;
    }
    qsort(scanTimes, (size_t)scanRuns, sizeof(double), CompareDoubles);
    r->scanUs = 1e6 * scanTimes[0];
    r->scanMedianUs = 1e6 * scanTimes[scanRuns / 2];
    lsFree(scanTimes, (size_t)scanRuns * sizeof(double));

    // A batch of scans from the first rays' origins and headings, on this thread and on the pool, alternately.
    int poseCount = rayCount < LS_BENCH_SCAN_POSES ? rayCount : LS_BENCH_SCAN_POSES;
    double* sums = lsAlloc((size_t)poseCount * sizeof(double));
    double* sumsThreaded = lsAlloc((size_t)poseCount * sizeof(double));
    ScanJob scanSingle = {scene, &def, rays, scans, sums, NULL};
    ScanJob scanThreaded = {scene, &def, rays, scans, sumsThreaded, busy};
    double bestScans = (double)INFINITY, bestScansThreaded = (double)INFINITY;
    for (int k = 0; k < reps; ++k)
    {
        bestScans = lsFmin(bestScans, TimeScans(NULL, &scanSingle, poseCount));
        double seconds = TimeScans(pool, &scanThreaded, poseCount);
        if (seconds < bestScansThreaded)
        {
            bestScansThreaded = seconds;
            r->scansCores = Cores(pool, busy, seconds);
        }
    }
    r->scansPerS = (double)poseCount / bestScans;
    r->scansPerSThreads = (double)poseCount / bestScansThreaded;
    for (int i = 0; i < poseCount; ++i)
    {
        if (sums[i] != sumsThreaded[i])
        {
            r->agree = false;
            r->mismatches += 1;
        }
    }
    lsFree(sums, (size_t)poseCount * sizeof(double));
    lsFree(sumsThreaded, (size_t)poseCount * sizeof(double));
    for (int t = 0; t < threadCount; ++t)
    {
        lsDestroyScan(scans[t]);
    }
    lsFree(scans, (size_t)threadCount * sizeof(lsScan*));
    lsFree(busy, (size_t)threadCount * sizeof(double));
    lsFree(hits, (size_t)rayCount * sizeof(lsRayHit));
    lsDestroyScene(scene);
}

/// Loads DIR/NAME.json and DIR/NAME.rays.txt and benchmarks them.
static bool BenchWorldFile(const char* dir, const char* name, int sample, int reps, lsPool* pool, Result* r,
                           lsError* err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.json", dir, name) >= (int)sizeof path)
    {
        return lsFail(err, "%s/%s: path too long", dir, name);
    }
    if (access(path, F_OK) != 0)
    {
        // a map_server map (docs/maps.md): ".yaml" has the same length as ".json", so it fits
        memcpy(path + strlen(path) - 5, ".yaml", sizeof ".yaml");
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
    bool ok = ReadRays(path, &rays, err);
    if (ok)
    {
        BenchScene(name, world, rays.rays, rays.count, sample, reps, pool, r);
    }
    lsFree(rays.rays, (size_t)rays.capacity * sizeof(lsRayInput));
    lsDestroyWorld(world);
    return ok;
}

static int CompareNames(const void* a, const void* b) { return strcmp((const char*)a, (const char*)b); }

static bool IsDirectory(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/// Whether two paths name the same folder (however they are spelled: relative, absolute, through links).
static bool SameDirectory(const char* a, const char* b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

#ifndef LS_SOURCE_DIR
#define LS_SOURCE_DIR "."
#endif

/// The bench worlds beside the source tree (the shared folder next to the checkout), else NULL.
static const char* DefaultWorldsDir(void)
{
    static const char* const candidates[] = {LS_SOURCE_DIR "/../shared/bench-worlds", LS_SOURCE_DIR "/bench/worlds"};
    for (int i = 0; i < (int)(sizeof candidates / sizeof candidates[0]); ++i)
    {
        if (IsDirectory(candidates[i]))
        {
            return candidates[i];
        }
    }
    return NULL;
}

/// The NAME of every NAME.json in dir with NAME.rays.txt beside it (only `only` when not NULL), sorted.
static int ListWorlds(const char* dir, const char* only, char names[][256], int capacity)
{
    DIR* d = opendir(dir);
    if (d == NULL)
    {
        return -1;
    }
    int count = 0;
    for (struct dirent* e = readdir(d); e != NULL; e = readdir(d))
    {
        size_t len = strlen(e->d_name);
        if (len <= 5 || len >= 250 || count == capacity ||
            (strcmp(e->d_name + len - 5, ".json") != 0 && strcmp(e->d_name + len - 5, ".yaml") != 0))
        {
            continue;
        }
        if (only != NULL && (strlen(only) != len - 5 || strncmp(only, e->d_name, len - 5) != 0))
        {
            continue;
        }
        char rays[4096];
        snprintf(rays, sizeof rays, "%s/%.*s.rays.txt", dir, (int)(len - 5), e->d_name);
        struct stat st;
        if (stat(rays, &st) != 0 || !S_ISREG(st.st_mode))
        {
            continue; // not a bench world (manifest.json and the like); never opened here (a FIFO would block)
        }
        snprintf(names[count], sizeof names[count], "%.*s", (int)(len - 5), e->d_name);
        count += 1;
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], CompareNames);
    return count;
}

static void PrintResult(const Result* r, bool csv)
{
    if (csv)
    {
        printf("%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.3f,%.0f,%.3f,%zu,%s,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%.2f,%.2f\n",
               r->name, r->walls, r->shapes, r->rays, r->threads, r->raysPerS, r->raysPerSCpu, r->raysPerSThreads,
               r->raysPerSThreads / r->raysPerS, r->bruteRaysPerS, r->buildMs, r->indexBytes, r->agree ? "yes" : "no",
               r->scanUs, r->scanMedianUs, r->scansPerS, r->scansPerSThreads, r->cellsPerRay, r->candidatesPerRay,
               r->exactPerRay, r->raysCores, r->scansCores);
        return;
    }
    printf("%-10s %6d %6d %6d %8.2f %8.2f %8.2f %5.2fx %5.2f %8.4f %7.2f %7.2f %5s %7.1f %7.1f %7.0f %7.0f %5.2fx "
           "%5.2f %.2f/%.2f/%.2f\n",
           r->name, r->walls, r->shapes, r->rays, 1e-6 * r->raysPerS, 1e-6 * r->raysPerSCpu, 1e-6 * r->raysPerSThreads,
           r->raysPerSThreads / r->raysPerS, r->raysCores, 1e-6 * r->bruteRaysPerS, r->buildMs,
           (double)r->indexBytes / 1048576.0, r->agree ? "yes" : "no", r->scanUs, r->scanMedianUs, r->scansPerS,
           r->scansPerSThreads, r->scansPerSThreads / r->scansPerS, r->scansCores, r->cellsPerRay, r->candidatesPerRay,
           r->exactPerRay);
}

// Per-ray cost of the largest world against the smallest one of the same family (the name before '-').
static void PrintScaling(const Result* results, int count)
{
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
            // Per CPU second: the ratio of two wall-clock runs on a shared machine is mostly noise.
            printf("per-ray cost %s / %s: %.2f (CPU time)\n", large->name, small->name,
                   small->raysPerSCpu / large->raysPerSCpu);
        }
    }
}

enum
{
    optWorlds = 256,
    optWorld,
    optThreads,
    optCsv,
    optBruteSample,
    optReps,
};

static const struct option s_options[] = {
    {"worlds", required_argument, NULL, optWorlds},
    {"world", required_argument, NULL, optWorld},
    {"threads", required_argument, NULL, optThreads},
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
    const char* only = NULL;
    bool csv = false;
    long long sample = 2000, reps = 5, threads = 2; // long long for lsParseInteger; all are at most 10^8
    lsOptions options;
    lsBeginOptions(&options, "bench", argc, argv, s_options, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
    {
        if (c == optWorlds)
            dir = value;
        else if (c == optWorld)
            only = value;
        else if (c == optCsv)
            csv = true;
        else if (c == optThreads && !lsParseInteger(value, 0, LS_POOL_MAX_THREADS, &threads))
            ok = lsFail(&err, "--threads: expected an integer in 0..%d (0: one per core), got '%s'",
                        LS_POOL_MAX_THREADS, value);
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
    // The real maps shipped with the source (bench/maps): benchmarked after the bench worlds, or alone in a clone
    // without the bench worlds beside it (they are not in the repository).
    static const char* const mapsDir = LS_SOURCE_DIR "/bench/maps";
    if (dir == NULL)
    {
        dir = DefaultWorldsDir();
        if (dir == NULL)
        {
            fprintf(stderr,
                    "lidarsim bench: no bench worlds beside the source tree (%s/../shared/bench-worlds): the maps "
                    "of bench/maps only (--worlds DIR for others)\n",
                    LS_SOURCE_DIR);
            dir = mapsDir;
        }
    }
    static char names[LS_BENCH_MAX_WORLDS][256];
    static const char* dirs[LS_BENCH_MAX_WORLDS];
    int count = ListWorlds(dir, only, names, LS_BENCH_MAX_WORLDS);
    int maps = count < 0 || SameDirectory(dir, mapsDir)
                   ? 0
                   : ListWorlds(mapsDir, only, names + count, LS_BENCH_MAX_WORLDS - count);
    for (int w = 0; w < count + (maps > 0 ? maps : 0); ++w)
    {
        dirs[w] = w < count ? dir : mapsDir;
    }
    count += count >= 0 && maps > 0 ? maps : 0;
    if (count < 0)
    {
        char shown[1024];
        fprintf(stderr, "lidarsim bench: %s: cannot open: %s\n", lsShown(dir, shown, sizeof shown), strerror(errno));
        return 1;
    }
    if (count == 0)
    {
        char shownDir[1024], shownOnly[256];
        only = only != NULL ? lsShown(only, shownOnly, sizeof shownOnly) : "NAME";
        fprintf(stderr, "lidarsim bench: %s: no %s.json with %s.rays.txt beside it\n",
                lsShown(dir, shownDir, sizeof shownDir), only, only);
        return 1;
    }

    lsPool* pool = lsCreatePool((int)threads);
    static Result results[LS_BENCH_MAX_WORLDS];
    if (csv)
    {
        printf("world,walls,shapes,rays,threads,rays_per_s,rays_per_s_cpu,rays_per_s_threads,speedup,brute_rays_per_s,"
               "build_ms,"
               "index_bytes,agree,scan1080_us,scan1080_median_us,scans_per_s,scans_per_s_threads,cells_per_ray,"
               "candidates_per_ray,exact_per_ray,rays_cores,scans_cores\n");
    }
    else
    {
        char shown[1024];
        printf("lidarsim bench: %s, max range %.0f m, %d threads for the threaded figures, brute force on %d rays\n",
               lsShown(dir, shown, sizeof shown), LS_BENCH_RANGE, lsPool_ThreadCount(pool), (int)sample);
        printf("%-10s %6s %6s %6s %8s %8s %8s %6s %5s %8s %7s %7s %5s %7s %7s %7s %7s %6s %5s %s\n", "world", "walls",
               "shapes", "rays", "Mray/s", "Mray/s", "threads", "", "", "brute", "build", "index", "agree", "scan us",
               "median", "scans/s", "threads", "", "", "cells/cand/exact");
        printf("%-10s %6s %6s %6s %8s %8s %8s %6s %5s %8s %7s %7s %5s %7s %7s %7s %7s %6s %5s %s\n", "", "", "", "",
               "1 thread", "cpu time", "Mray/s", "", "cores", "Mray/s", "ms", "MB", "", "1080", "us", "1 thr",
               "scans/s", "", "cores", "per ray");
    }
    fflush(stdout);
    int failed = 0;
    for (int w = 0; w < count; ++w)
    {
        err = (lsError){{0}};
        Result* r = results + w;
        if (!BenchWorldFile(dirs[w], names[w], (int)sample, (int)reps, pool, r, &err))
        {
            fprintf(stderr, "lidarsim bench: %s\n", err.message);
            r->rays = 0;
            failed += 1;
            continue;
        }
        PrintResult(r, csv);
        fflush(stdout);
    }
    if (!csv)
    {
        PrintScaling(results, count);
    }
    lsDestroyPool(pool);
    return failed > 0 ? 1 : 0;
}

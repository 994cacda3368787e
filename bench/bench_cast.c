// ls_bench_cast: a fixed amount of casting to count instructions with callgrind (counts do not depend on the machine's
// load, unlike times): a world's bench rays once through lsScene_CastRays, then 1080-beam 270-degree scans of range
// 30 m from the first rays' origins and headings (--pose: all from the world's robot pose), and a hash of every
// answer, so two builds can be compared bit for bit. Each part is a function of its own to toggle on, as in
// docs/performance.md:
//
//   valgrind --tool=callgrind --toggle-collect=CastAllRays build/bench/ls_bench_cast W.json W.rays.txt --scans 0
//   valgrind --tool=callgrind --toggle-collect=lsLidar_ScanFrom build/bench/ls_bench_cast W.json W.rays.txt
//
//   ls_bench_cast WORLD RAYS [--scans N] [--pose] [--noise] [--jitter]
#include "bench_args.h"
#include "lidarsim/lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// FNV-1a over the bytes of the answers.
static void Mix(uint64_t* hash, const void* data, size_t size)
{
    const unsigned char* bytes = data;
    for (size_t i = 0; i < size; ++i)
    {
        *hash = (*hash ^ bytes[i]) * 1099511628211ull;
    }
}

static void MixHit(uint64_t* hash, const lsRayHit* h)
{
    Mix(hash, &h->hit, sizeof h->hit);
    Mix(hash, &h->fraction, sizeof h->fraction);
    Mix(hash, &h->point, sizeof h->point);
    Mix(hash, &h->normal, sizeof h->normal);
    Mix(hash, &h->kind, sizeof h->kind);
    Mix(hash, &h->index, sizeof h->index);
    Mix(hash, &h->part, sizeof h->part);
}

// The rays of a .rays.txt file ('ox oy dx dy' per line), directions normalized, range 30 m; NULL when unreadable.
static lsRayInput* ReadRays(const char* path, int* count)
{
    FILE* file = fopen(path, "r");
    if (file == NULL)
    {
        return NULL;
    }
    int capacity = 1024;
    lsRayInput* rays = lsAlloc((size_t)capacity * sizeof(lsRayInput));
    char line[512];
    *count = 0;
    while (fgets(line, sizeof line, file) != NULL)
    {
        double v[4];
        char* at = line;
        int n = 0;
        for (char* end = NULL; n < 4; ++n, at = end)
        {
            v[n] = strtod(at, &end);
            if (end == at)
            {
                break;
            }
        }
        if (n < 4)
        {
            continue; // not a ray (a blank line)
        }
        if (*count == capacity)
        {
            rays = lsRealloc(rays, (size_t)capacity * sizeof(lsRayInput), 2 * (size_t)capacity * sizeof(lsRayInput));
            capacity *= 2;
        }
        double length = sqrt(v[2] * v[2] + v[3] * v[3]);
        rays[(*count)++] = (lsRayInput){{v[0], v[1]}, {v[2] / length, v[3] / length}, 30.0};
    }
    fclose(file);
    // Shrink to the count so the caller frees what it knows.
    rays =
        lsRealloc(rays, (size_t)capacity * sizeof(lsRayInput), (size_t)(*count > 0 ? *count : 1) * sizeof(lsRayInput));
    return rays;
}

// Kept out of line so callgrind can toggle on it.
__attribute__((noinline)) void CastAllRays(const lsScene* scene, const lsRayInput* rays, int count, lsRayHit* hits);

void CastAllRays(const lsScene* scene, const lsRayInput* rays, int count, lsRayHit* hits)
{
    lsScene_CastRays(scene, NULL, rays, count, hits);
}

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        fprintf(stderr, "usage: ls_bench_cast WORLD RAYS [--scans N] [--pose] [--noise] [--jitter]\n");
        return 2;
    }
    int scans = 20;
    bool pose = false, noise = false, jitter = false;
    for (int i = 3; i < argc; ++i)
    {
        long long n = 0;
        if (strcmp(argv[i], "--scans") == 0 && i + 1 < argc)
        {
            if (!lsBenchIntegerArg("ls_bench_cast", "--scans", argv[++i], 0, 1000000, &n))
            {
                return 2;
            }
            scans = (int)n;
        }
        else if (strcmp(argv[i], "--pose") == 0 || strcmp(argv[i], "--noise") == 0 || strcmp(argv[i], "--jitter") == 0)
        {
            pose = pose || strcmp(argv[i], "--pose") == 0;
            noise = noise || strcmp(argv[i], "--noise") == 0;
            jitter = jitter || strcmp(argv[i], "--jitter") == 0;
        }
        else
        {
            fprintf(stderr, "ls_bench_cast: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    lsError err;
    lsWorld* world = lsLoadWorld(argv[1], &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    int count = 0;
    lsRayInput* rays = ReadRays(argv[2], &count);
    if (rays == NULL)
    {
        fprintf(stderr, "%s: cannot read\n", argv[2]);
        lsDestroyWorld(world);
        return 1;
    }
    lsScene* scene = lsCreateScene(world);
    uint64_t hash = 1469598103934665603ull;
    lsRayHit* hits = lsAlloc((size_t)(count > 0 ? count : 1) * sizeof(lsRayHit));
    CastAllRays(scene, rays, count, hits);
    for (int i = 0; i < count; ++i)
    {
        MixHit(&hash, hits + i);
    }
    printf("rays %d, hash %016llx\n", count, (unsigned long long)hash);

    lsLidarDef def = world->robot.lidar;
    def.beams = 1080;
    def.fov = lsDegToRad(270.0);
    def.range = 30.0;
    def.rangeMin = 0.0;
    def.noise = noise ? 0.01 : 0.0;
    def.dropout = noise ? 0.05 : 0.0;
    def.angleNoise = jitter ? 0.01 : 0.0;
    lsScan* scan = lsCreateScan(def.beams);
    lsRng rng = lsMakeRng(7);
    lsVec2 sensor = lsLidar_SensorPosition(&def, world->robot.position, world->robot.angle);
    for (int i = 0; i < scans && i < count; ++i)
    {
        lsVec2 o = pose ? sensor : rays[i].origin;
        double heading = pose ? world->robot.angle + def.mountAngle : atan2(rays[i].direction.y, rays[i].direction.x);
        lsLidar_ScanFrom(scene, NULL, &def, o, heading, noise || jitter ? &rng : NULL, scan);
        for (int b = 0; b < scan->count; ++b)
        {
            Mix(&hash, scan->ranges + b, sizeof(double));
            Mix(&hash, scan->points + b, sizeof(lsVec2));
            Mix(&hash, scan->normals + b, sizeof(lsVec2));
            Mix(&hash, scan->indices + b, sizeof(int));
            Mix(&hash, scan->parts + b, sizeof(int));
            Mix(&hash, scan->intensities + b, sizeof(double));
        }
    }
    printf("scans %d of %d beams, hash %016llx\n", scans < count ? scans : count, def.beams, (unsigned long long)hash);
    lsDestroyScan(scan);
    lsFree(hits, (size_t)(count > 0 ? count : 1) * sizeof(lsRayHit));
    lsFree(rays, (size_t)(count > 0 ? count : 1) * sizeof(lsRayInput));
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

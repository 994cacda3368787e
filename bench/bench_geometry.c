// Geometry microbenchmark: nanoseconds per call of each routine over a pre-generated array of random inputs.
// Usage: ls_bench_geometry [--csv] [--min-ms N] [--calls N] [NAME...]   (NAME filters rows by substring)
// Prints a table (or CSV with --csv). Never asserts timings; the checksum column only keeps calls from being
// optimised away and shows the hit rate of the inputs.
#define _POSIX_C_SOURCE 200809L // clock_gettime

#include "bench_args.h"
#include "cli/clock.h"
#include "core/distance.h"
#include "core/sweep.h"
#include "lidarsim/base.h"
#include "lidarsim/geometry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
    ls_inputCount = 4096, // inputs per row, cycled (a power of two)
};

// ---------------------------------------------------------------------------------------------------------------------
// Inputs: a 20 m scene placed 5 km from the origin (a large world), rays of 30 m, shapes of about a metre.

typedef struct Inputs
{
    lsRayInput rays[ls_inputCount];
    lsSegment segments[ls_inputCount];
    lsSegment others[ls_inputCount];
    lsCircle circles[ls_inputCount];
    lsBox boxes[ls_inputCount];
    lsPolygon polygons[ls_inputCount];
    lsVec2 points[ls_inputCount];
    lsVec2 moves[ls_inputCount][6]; // p0 p1 q0 q1 c0 c1
    lsVec2 collinear[ls_inputCount][3];
    lsVec2 nearCollinear[ls_inputCount][3];
    lsShapeProxy boxProxies[ls_inputCount];  // the boxes as GJK proxies
    lsShapeProxy nearBoxes[ls_inputCount];   // a box near boxProxies[i]: about half of the pairs overlap
    lsShapeProxy insideBoxes[ls_inputCount]; // a box overlapping boxProxies[i] (EPA)
    lsShapeProxy octagons[ls_inputCount];    // the octagons as GJK proxies
} Inputs;

static Inputs* s_in;

// The helpers below draw one value per statement: the order in which C evaluates a call's arguments or an
// initializer's elements is unspecified, so two draws in one expression would give each compiler other inputs.
static lsVec2 RandomPoint(lsRng* rng, lsVec2 center, double half)
{
    double x = center.x + lsRng_Range(rng, -half, half);
    double y = center.y + lsRng_Range(rng, -half, half);
    return lsV(x, y);
}

// A point at a random distance up to `reach` from `center`, in a random direction.
static lsVec2 RandomOffset(lsRng* rng, lsVec2 center, double reach)
{
    double distance = lsRng_Range(rng, 0.0, reach);
    double angle = lsRng_Range(rng, -LS_PI, LS_PI);
    return lsMulAdd(center, distance, lsDirection(angle));
}

static lsBox RandomBox(lsRng* rng, lsVec2 center)
{
    double halfX = lsRng_Range(rng, 0.3, 3);
    double halfY = lsRng_Range(rng, 0.3, 3);
    double angle = lsRng_Range(rng, -LS_PI, LS_PI);
    return lsMakeBox(center, lsV(halfX, halfY), angle);
}

static double RandomInteger(lsRng* rng, double lo, double hi) { return (double)(int)lsRng_Range(rng, lo, hi); }

static void MakeInputs(void)
{
    s_in = lsAlloc(sizeof *s_in);
    lsRng rng = lsMakeRng(2024);
    lsRng gjkRng = lsMakeRng(2025);
    lsVec2 world = {5000.0, -3000.0};
    for (int i = 0; i < ls_inputCount; ++i)
    {
        lsVec2 o = RandomPoint(&rng, world, 10.0);
        s_in->rays[i] = (lsRayInput){o, lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI)), 30.0};
        lsVec2 a = RandomPoint(&rng, world, 10.0);
        s_in->segments[i] = (lsSegment){a, lsMulAdd(a, 3.0, lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI)))};
        lsVec2 b = RandomPoint(&rng, world, 10.0);
        s_in->others[i] = (lsSegment){b, lsMulAdd(b, 3.0, lsDirection(lsRng_Range(&rng, -LS_PI, LS_PI)))};
        lsVec2 circleCenter = RandomPoint(&rng, world, 10.0);
        s_in->circles[i] = (lsCircle){circleCenter, lsRng_Range(&rng, 0.2, 1.5)};
        s_in->boxes[i] = RandomBox(&rng, RandomPoint(&rng, world, 10.0));
        // A regular octagon with a random size and rotation.
        lsVec2 c = RandomPoint(&rng, world, 10.0), pts[8];
        double r = lsRng_Range(&rng, 0.3, 1.5), phase = lsRng_Range(&rng, 0, LS_PI);
        for (int k = 0; k < 8; ++k)
        {
            pts[k] = lsMulAdd(c, r, lsDirection(phase + k * LS_PI / 4));
        }
        if (!lsMakePolygon(&s_in->polygons[i], pts, 8))
        {
            fprintf(stderr, "bench_geometry: bad octagon\n");
            exit(1);
        }
        s_in->points[i] = RandomPoint(&rng, world, 10.0);
        // One step of motion: a segment moving up to 0.5 m, a point (or circle centre) moving up to 2 m.
        lsVec2 p0 = RandomPoint(&rng, world, 2.0), q0 = lsMulAdd(p0, 2.0, lsDirection(lsRng_Range(&rng, -3, 3)));
        lsVec2 dp = RandomPoint(&rng, lsV(0, 0), 0.5), dq = RandomPoint(&rng, lsV(0, 0), 0.5);
        lsVec2 c0 = RandomPoint(&rng, world, 2.0), c1 = RandomPoint(&rng, c0, 2.0);
        lsVec2 m[6] = {p0, lsAdd(p0, dp), q0, lsAdd(q0, dq), c0, c1};
        memcpy(s_in->moves[i], m, sizeof m);
        // Exactly collinear grid points (the filter fails, the differences are exact).
        lsVec2 g0, gd;
        g0.x = RandomInteger(&rng, -50, 50);
        g0.y = RandomInteger(&rng, -50, 50);
        gd.x = RandomInteger(&rng, -5, 5);
        gd.y = RandomInteger(&rng, -5, 5);
        lsVec2 col[3] = {g0, lsAdd(g0, gd), lsMulAdd(g0, 3.0, gd)};
        memcpy(s_in->collinear[i], col, sizeof col);
        // Points of the line y = x with magnitudes from 1e-3 to 1e4: their differences round, so only the
        // big-integer path can prove the zero.
        lsVec2 diag[3];
        for (int k = 0; k < 3; ++k)
        {
            double magnitude = pow(10.0, lsRng_Range(&rng, -3, 4));
            double v = lsRng_Uniform(&rng) < 0.5 ? -magnitude : magnitude;
            diag[k] = lsV(v, v);
        }
        memcpy(s_in->nearCollinear[i], diag, sizeof diag);
        // GJK / EPA pairs: a box, a box at up to twice the first one's extent from it, a box well into it. Their own
        // generator leaves the other rows' inputs as they were.
        lsBox box = s_in->boxes[i];
        double reach = lsLength(box.halfSize);
        s_in->boxProxies[i] = lsProxyFromBox(&box);
        lsBox nearBox = RandomBox(&gjkRng, RandomOffset(&gjkRng, box.center, 2.0 * reach));
        s_in->nearBoxes[i] = lsProxyFromBox(&nearBox);
        double inset = fmin(box.halfSize.x, box.halfSize.y);
        lsBox insideBox = RandomBox(&gjkRng, RandomOffset(&gjkRng, box.center, inset));
        s_in->insideBoxes[i] = lsProxyFromBox(&insideBox);
        s_in->octagons[i] = lsProxyFromPolygon(&s_in->polygons[i]);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Rows: each runs `calls` calls cycling through the inputs and returns a checksum (hits or a sum).

static double RaySegment(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsRayCastSegment(&s_in->segments[k], &s_in->rays[k ^ 1]).hit;
    }
    return sum;
}

static double RayCircle(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsRayCastCircle(&s_in->circles[k], &s_in->rays[k]).hit;
    }
    return sum;
}

static double RayBox(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsRayCastBox(&s_in->boxes[k], &s_in->rays[k]).hit;
    }
    return sum;
}

static double RayPolygon(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsRayCastPolygon(&s_in->polygons[k], &s_in->rays[k]).hit;
    }
    return sum;
}

static double SegmentSegment(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsIntersectSegments(&s_in->segments[k], &s_in->others[k]).hit;
    }
    return sum;
}

static double SegmentCircle(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsSegmentOverlapsCircle(&s_in->segments[k], &s_in->circles[k]);
    }
    return sum;
}

static double SegmentBox(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsSegmentOverlapsBox(&s_in->segments[k], &s_in->boxes[k]);
    }
    return sum;
}

static double SegmentPolygon(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsSegmentOverlapsPolygon(&s_in->segments[k], &s_in->polygons[k]);
    }
    return sum;
}

static double ClosestPoint(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsClosestPointOnSegment(&s_in->segments[k], s_in->points[k]).fraction;
    }
    return sum;
}

static double OrientRandom(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsOrient(s_in->points[k], s_in->points[k ^ 1], s_in->points[k ^ 2]);
    }
    return sum;
}

static double OrientCollinearGrid(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* p = s_in->collinear[i & (ls_inputCount - 1)];
        sum += lsOrient(p[0], p[1], p[2]);
    }
    return sum;
}

static double OrientCollinearInexact(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* p = s_in->nearCollinear[i & (ls_inputCount - 1)];
        sum += lsOrient(p[0], p[1], p[2]);
    }
    return sum;
}

static double SweepPointSegment(int calls)
{
    double sum = 0.0;
    lsSweepHit hits[2];
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* m = s_in->moves[i & (ls_inputCount - 1)];
        sum += lsSweepPointSegment(m[0], m[1], m[2], m[3], m[4], m[5], hits);
    }
    return sum;
}

static double SweepPointStaticSegment(int calls)
{
    double sum = 0.0;
    lsSweepHit hits[2];
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* m = s_in->moves[i & (ls_inputCount - 1)];
        sum += lsSweepPointSegment(m[0], m[0], m[2], m[2], m[4], m[5], hits);
    }
    return sum;
}

static double ToiCircleSegment(int calls)
{
    double sum = 0.0, t;
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* m = s_in->moves[i & (ls_inputCount - 1)];
        lsSegment seg = {m[0], m[2]};
        sum += lsTimeOfImpactCircleSegment(m[4], m[5], 0.3, &seg, &t);
    }
    return sum;
}

static double ToiCircleMovingSegment(int calls)
{
    double sum = 0.0, t;
    for (int i = 0; i < calls; ++i)
    {
        const lsVec2* m = s_in->moves[i & (ls_inputCount - 1)];
        sum += lsTimeOfImpactCircleMovingSegment(m[4], m[5], 0.3, m[0], m[1], m[2], m[3], &t);
    }
    return sum;
}

static double GjkDistanceBoxBox(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsShapeDistance(&s_in->boxProxies[k], &s_in->boxProxies[k ^ 1], NULL).distance;
    }
    return sum;
}

static double GjkDistancePolygon(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsShapeDistance(&s_in->octagons[k], &s_in->octagons[k ^ 1], NULL).distance;
    }
    return sum;
}

static double GjkOverlapBoxBox(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsShapesOverlap(&s_in->boxProxies[k], &s_in->nearBoxes[k]);
    }
    return sum;
}

static double EpaBoxBox(int calls)
{
    double sum = 0.0;
    for (int i = 0; i < calls; ++i)
    {
        int k = i & (ls_inputCount - 1);
        sum += lsShapePenetration(&s_in->boxProxies[k], &s_in->insideBoxes[k]).depth;
    }
    return sum;
}

typedef struct BenchRow
{
    const char* name;
    double (*run)(int calls);
} BenchRow;

static const BenchRow s_rows[] = {
    {"ray-segment", RaySegment},
    {"ray-circle", RayCircle},
    {"ray-box", RayBox},
    {"ray-polygon-8", RayPolygon},
    {"segment-segment", SegmentSegment},
    {"segment-circle", SegmentCircle},
    {"segment-box", SegmentBox},
    {"segment-polygon-8", SegmentPolygon},
    {"closest-point-segment", ClosestPoint},
    {"orient-random", OrientRandom},
    {"orient-collinear-grid", OrientCollinearGrid},
    {"orient-collinear-inexact", OrientCollinearInexact},
    {"sweep-point-segment", SweepPointSegment},
    {"sweep-point-static-segment", SweepPointStaticSegment},
    {"toi-circle-segment", ToiCircleSegment},
    {"toi-circle-moving-segment", ToiCircleMovingSegment},
    {"gjk-distance-box-box", GjkDistanceBoxBox},
    {"gjk-distance-polygon-8", GjkDistancePolygon},
    {"gjk-overlap-box-box", GjkOverlapBoxBox},
    {"epa-box-box", EpaBoxBox},
};

static void Usage(void)
{
    printf("usage: ls_bench_geometry [--csv] [--min-ms N] [--calls N] [NAME...]\n"
           "  Prints ns per call of each geometry routine over %d pre-generated random inputs.\n"
           "  --csv       print name,cpu_ns_per_call,wall_ns_per_call,calls,checksum\n"
           "  --min-ms N  time each row for at least N milliseconds (default 200)\n"
           "  --calls N   exactly N timed calls per row (for cycle counters such as perf stat)\n"
           "  NAME        run only rows whose name contains NAME\n",
           (int)ls_inputCount);
}

int main(int argc, char** argv)
{
    bool csv = false;
    double minSeconds = 0.2;
    int fixedCalls = 0;
    const char* filters[16];
    int filterCount = 0;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "--csv") == 0)
        {
            csv = true;
        }
        else if (strcmp(argv[i], "--min-ms") == 0 && i + 1 < argc)
        {
            if (!lsBenchNumberArg("ls_bench_geometry", "--min-ms", argv[++i], 0.0, 1e6, &minSeconds))
            {
                return 2;
            }
            minSeconds /= 1000.0;
        }
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
        {
            long long n = 0;
            if (!lsBenchIntegerArg("ls_bench_geometry", "--calls", argv[++i], 1, 1000000000, &n))
            {
                return 2;
            }
            fixedCalls = (int)n;
        }
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
        {
            Usage();
            return 0;
        }
        else if (argv[i][0] != '-' && filterCount < 16)
        {
            filters[filterCount++] = argv[i];
        }
        else
        {
            Usage();
            return 2;
        }
    }
    MakeInputs();
    if (csv)
    {
        printf("name,cpu_ns_per_call,wall_ns_per_call,calls,checksum\n");
    }
    else
    {
        printf("%-28s %12s %12s %12s %12s\n", "routine", "cpu ns/call", "wall ns/call", "calls", "checksum");
    }
    int rowCount = (int)(sizeof s_rows / sizeof s_rows[0]);
    for (int r = 0; r < rowCount; ++r)
    {
        bool selected = filterCount == 0;
        for (int f = 0; f < filterCount; ++f)
        {
            selected = selected || strstr(s_rows[r].name, filters[f]) != NULL;
        }
        if (!selected)
        {
            continue;
        }
        // Warm up, then double the call count until the row runs long enough (or run exactly --calls).
        int calls = fixedCalls > 0 ? fixedCalls : ls_inputCount;
        if (fixedCalls <= 0)
        {
            s_rows[r].run(ls_inputCount);
        }
        double elapsed = 0.0, cpu = 0.0, checksum = 0.0;
        for (;;)
        {
            double start = lsNowSeconds(), cpuStart = lsCpuSeconds();
            checksum = s_rows[r].run(calls);
            elapsed = lsNowSeconds() - start;
            cpu = lsCpuSeconds() - cpuStart;
            if (fixedCalls > 0 || cpu >= minSeconds || calls >= (1 << 28))
            {
                break;
            }
            calls *= 2;
        }
        double ns = 1e9 * cpu / calls, wallNs = 1e9 * elapsed / calls;
        if (csv)
        {
            printf("%s,%.2f,%.2f,%d,%.17g\n", s_rows[r].name, ns, wallNs, calls, checksum);
        }
        else
        {
            printf("%-28s %12.1f %12.1f %12d %12.6g\n", s_rows[r].name, ns, wallNs, calls, checksum);
        }
    }
    lsFree(s_in, sizeof *s_in);
    return 0;
}

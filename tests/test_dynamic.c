// Tests of dynamic.c, the moving objects' broad phase: casts through the index must equal the brute-force loop bit
// for bit (robots as circles and polygons, vehicles, short and long moving walls, a skipped robot), box queries must
// report exactly the overlapping objects once each, and a short beam among a thousand robots tests only a few. Scans
// (which gather the objects near the lidar once, with the beams that can reach each, and skip the static casts of
// beams that can reach nothing static) must equal one brute-force cast per beam.
#include "core/dynamic.h"
#include "lidarsim/lidar.h"
#include "lidarsim/world.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct Crowd
{
    lsCircle robots[1000];
    lsPolygon polygons[1000];
    lsCircle vehicles[20];
    lsSegment movers[6];
    lsDynamicObjects dyn;
} Crowd;

// count robots (every third a polygon), 20 vehicles and 6 movers (two of them long bars) in a square of half side.
static void MakeCrowd(Crowd* c, int count, double half, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    lsRng rng = lsMakeRng(seed);
    for (int i = 0; i < count; ++i)
    {
        lsVec2 center = lsTestRandomPoint(&rng, -half, half, -half, half);
        double r = lsRng_Range(&rng, 0.1, 0.4);
        c->robots[i] = (lsCircle){center, r};
        if (i % 3 == 1)
        {
            lsVec2 points[5];
            double rot = lsRng_Range(&rng, -LS_PI, LS_PI);
            for (int k = 0; k < 5; ++k)
            {
                double a = rot + 2.0 * LS_PI * (double)k / 5.0;
                points[k] = lsAdd(center, lsV(r * cos(a), r * sin(a)));
            }
            lsMakePolygon(&c->polygons[i], points, 5);
        }
    }
    for (int i = 0; i < 20; ++i)
    {
        c->vehicles[i] = (lsCircle){lsTestRandomPoint(&rng, -half, half, -half, half), 0.3};
    }
    for (int i = 0; i < 6; ++i)
    {
        lsVec2 a = lsTestRandomPoint(&rng, -half, half, -half, half);
        double length = i < 2 ? half : 1.0;
        c->movers[i] = (lsSegment){a, lsAdd(a, lsV(length, 0.3 * length))};
    }
    c->dyn = (lsDynamicObjects){.vehicles = c->vehicles,
                                .vehicleCount = 20,
                                .movers = c->movers,
                                .moverCount = 6,
                                .robots = c->robots,
                                .robotPolygons = c->polygons,
                                .robotCount = count,
                                .skipRobot = -1};
}

static bool SameHit(const lsRayHit* a, const lsRayHit* b)
{
    return a->hit == b->hit && a->kind == b->kind && a->index == b->index && a->part == b->part &&
           a->fraction == b->fraction && lsVecEqual(a->point, b->point) && lsVecEqual(a->normal, b->normal);
}

static lsRayHit CastDynamicOnly(const lsDynamicObjects* dyn, const lsRayInput* in)
{
    lsRayHit best = {false, 0.0, {0.0, 0.0}, {0.0, 0.0}, ls_hitNone, -1, -1};
    lsDynamicObjects_CastRay(dyn, in, &best, NULL);
    return best;
}

// Every object's exact cast offered in turn, with no filter and no index: what both casts must equal (their quick
// rejection of discs out of reach included).
static lsRayHit CastEveryObject(const lsDynamicObjects* dyn, const lsRayInput* in)
{
    lsRayHit best = {false, 0.0, {0.0, 0.0}, {0.0, 0.0}, ls_hitNone, -1, -1};
    for (int i = 0; i < dyn->robotCount; ++i)
    {
        if (i != dyn->skipRobot)
        {
            const lsPolygon* polygon = dyn->robotPolygons + i;
            lsCastOutput out =
                polygon->count > 0 ? lsRayCastPolygon(polygon, in) : lsRayCastCircle(dyn->robots + i, in);
            lsRayHit_Offer(&best, &out, ls_hitRobot, i, 0);
        }
    }
    for (int i = 0; i < dyn->vehicleCount; ++i)
    {
        lsCastOutput out = lsRayCastCircle(dyn->vehicles + i, in);
        lsRayHit_Offer(&best, &out, ls_hitVehicle, i, 0);
    }
    for (int i = 0; i < dyn->moverCount; ++i)
    {
        lsCastOutput out = lsRayCastSegment(dyn->movers + i, in);
        lsRayHit_Offer(&best, &out, ls_hitMover, i, 0);
    }
    return best;
}

// Random rays from inside and outside the crowd, axis-aligned rays along cell lines, rays from robot centres with
// that robot skipped: indexed and brute force agree exactly.
static int AgreementTest(void)
{
    Crowd* c = lsAlloc(sizeof(Crowd));
    lsDynamicIndex* index = lsCreateDynamicIndex();
    int hits = 0;
    for (int round = 0; round < 3; ++round)
    {
        int count = round == 0 ? 1000 : (round == 1 ? 40 : 1);
        MakeCrowd(c, count, round == 0 ? 50.0 : 10.0, 7 + (uint64_t)round);
        lsDynamicIndex_Build(index, &c->dyn);
        int nx, ny;
        double cell;
        lsDynamicIndex_GetInfo(index, &nx, &ny, &cell);
        ENSURE(nx >= 1 && ny >= 1 && cell > 0.0);
        lsDynamicObjects indexed = c->dyn;
        indexed.index = index;
        lsRng rng = lsMakeRng(99);
        for (int k = 0; k < 20000; ++k)
        {
            lsRayInput in;
            int skip = -1;
            double half = round == 0 ? 60.0 : 12.0;
            in.origin = lsTestRandomPoint(&rng, -half, half, -half, half);
            double angle = lsRng_Range(&rng, -LS_PI, LS_PI);
            in.direction = lsV(cos(angle), sin(angle));
            in.maxFraction = lsRng_Range(&rng, 0.0, 30.0);
            if (k % 4 == 1)
            {
                // Along a grid line or an axis: the walk's ties.
                double line = floor(lsRng_Range(&rng, -5.0, 5.0)) * cell;
                in.origin = k % 8 == 1 ? lsV(-half, line) : lsV(line, -half);
                in.direction = k % 8 == 1 ? lsV(1.0, 0.0) : lsV(0.0, 1.0);
                in.maxFraction = 2.0 * half;
            }
            else if (k % 4 == 2)
            {
                skip = (int)(lsRng_Uniform(&rng) * (double)count);
                in.origin = c->robots[skip].center;
            }
            else if (k % 4 == 3)
            {
                in.direction = lsScale(lsRng_Range(&rng, 0.01, 100.0), in.direction);
            }
            if (k % 16 == 8)
            {
                // Grazing a robot's disc (within a few ulps of its tangent, either side, any length of direction) and
                // ending at about the tangent point, or through its centre ending about where it enters the disc: where
                // the rejection of discs out of reach must stay out of the way.
                int j = (int)(lsRng_Uniform(&rng) * (double)count);
                lsCircle disc = c->robots[j];
                lsVec2 to = lsSub(disc.center, in.origin);
                double d = lsLength(to);
                double tangent = asin(fmin(disc.radius / d, 1.0)) * (1.0 + lsRng_Range(&rng, -4e-16, 4e-16));
                double a = atan2(to.y, to.x) + (k % 32 == 8 ? tangent : -tangent);
                double scale = k % 128 < 64 ? 1.0 : lsRng_Range(&rng, 0.01, 100.0); // a scan's unit directions
                double reach = sqrt(fmax(d * d - disc.radius * disc.radius, 0.0));
                if (k % 64 == 40)
                {
                    a = atan2(to.y, to.x); // through the centre, ending about where it enters the disc
                    reach = d - disc.radius;
                }
                in.direction = lsV(scale * cos(a), scale * sin(a));
                in.maxFraction = reach / scale * (1.0 + lsRng_Range(&rng, -1e-15, 1e-15));
                skip = -1;
            }
            indexed.skipRobot = c->dyn.skipRobot = skip;
            lsRayHit a = CastDynamicOnly(&indexed, &in);
            lsRayHit b = CastDynamicOnly(&c->dyn, &in);
            lsRayHit every = CastEveryObject(&c->dyn, &in);
            if (!SameHit(&b, &every))
            {
                fprintf(stderr, "ray %d: brute force %s[%d] %.17g, every object %s[%d] %.17g\n", k,
                        lsHitKindName(b.kind), b.index, b.fraction, lsHitKindName(every.kind), every.index,
                        every.fraction);
                ENSURE(false);
            }
            if (!SameHit(&a, &b))
            {
                fprintf(stderr, "ray %d o=(%.17g, %.17g) d=(%.17g, %.17g): %s[%d] %.17g vs %s[%d] %.17g\n", k,
                        in.origin.x, in.origin.y, in.direction.x, in.direction.y, lsHitKindName(a.kind), a.index,
                        a.fraction, lsHitKindName(b.kind), b.index, b.fraction);
                ENSURE(false);
            }
            ENSURE(!(a.hit && a.kind == ls_hitRobot && a.index == skip));
            hits += a.hit ? 1 : 0;
        }
    }
    ENSURE(hits > 10000); // the rays do meet the crowd
    lsDestroyDynamicIndex(index);
    lsFree(c, sizeof(Crowd));
    return 0;
}

static int CompareItems(const void* a, const void* b)
{
    const lsDynamicItem *x = a, *y = b;
    return x->kind != y->kind ? (int)x->kind - (int)y->kind : x->index - y->index;
}

// Every object whose box overlaps the query box, once each (a brute-force list of the boxes decides).
static int QueryTest(void)
{
    Crowd* c = lsAlloc(sizeof(Crowd));
    MakeCrowd(c, 500, 20.0, 3);
    lsDynamicIndex* index = lsCreateDynamicIndex();
    lsDynamicIndex_Build(index, &c->dyn);
    lsRng rng = lsMakeRng(5);
    lsDynamicItem found[600], expected[600];
    for (int k = 0; k < 500; ++k)
    {
        lsVec2 p = lsTestRandomPoint(&rng, -25.0, 25.0, -25.0, 25.0);
        double w = lsRng_Range(&rng, 0.0, k % 10 == 0 ? 30.0 : 3.0);
        lsAABB box = {p, lsAdd(p, lsV(w, 0.7 * w))};
        int n = lsDynamicIndex_Query(index, box, found, 600);
        ENSURE(n <= 600);
        int m = 0;
        for (int i = 0; i < 500; ++i)
        {
            lsAABB b = c->polygons[i].count > 0 ? lsPolygon_Bounds(&c->polygons[i]) : lsCircle_Bounds(&c->robots[i]);
            if (lsAABB_Overlaps(b, box))
            {
                expected[m++] = (lsDynamicItem){ls_hitRobot, i};
            }
        }
        for (int i = 0; i < 20; ++i)
        {
            if (lsAABB_Overlaps(lsCircle_Bounds(&c->vehicles[i]), box))
            {
                expected[m++] = (lsDynamicItem){ls_hitVehicle, i};
            }
        }
        for (int i = 0; i < 6; ++i)
        {
            if (lsAABB_Overlaps(lsAABB_OfSegment(c->movers[i].a, c->movers[i].b), box))
            {
                expected[m++] = (lsDynamicItem){ls_hitMover, i};
            }
        }
        // The index inflates boxes by a hair (1e-7 of a cell): it may add objects within that of the box, never lose.
        qsort(found, (size_t)n, sizeof found[0], CompareItems);
        qsort(expected, (size_t)m, sizeof expected[0], CompareItems);
        int j = 0;
        for (int i = 0; i < n; ++i)
        {
            ENSURE(i == 0 || CompareItems(&found[i - 1], &found[i]) < 0); // once each
            if (j < m && CompareItems(&found[i], &expected[j]) == 0)
            {
                j += 1;
            }
        }
        ENSURE(j == m);
        ENSURE(n - m <= 2);
    }
    lsDestroyDynamicIndex(index);
    lsFree(c, sizeof(Crowd));
    return 0;
}

// A 10 m beam among 1 000 robots spread over 100 m x 100 m tests a handful of them, not 1 000.
static int WorkTest(void)
{
    Crowd* c = lsAlloc(sizeof(Crowd));
    MakeCrowd(c, 1000, 50.0, 11);
    lsDynamicIndex* index = lsCreateDynamicIndex();
    lsDynamicIndex_Build(index, &c->dyn);
    c->dyn.index = index;
    lsDynamicStats stats = {0, 0};
    lsRng rng = lsMakeRng(1);
    for (int k = 0; k < 1000; ++k)
    {
        double angle = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsRayInput in = {lsTestRandomPoint(&rng, -50.0, 50.0, -50.0, 50.0), lsV(cos(angle), sin(angle)), 10.0};
        lsRayHit best = {false, 0.0, {0.0, 0.0}, {0.0, 0.0}, ls_hitNone, -1, -1};
        lsDynamicObjects_CastRay(&c->dyn, &in, &best, &stats);
    }
    printf("    per beam: %.1f cells, %.1f exact tests\n", (double)stats.cells / 1000.0,
           (double)stats.exactTests / 1000.0);
    ENSURE(stats.exactTests < 40LL * 1000);
    // Rebuilding over fewer objects reuses the memory and forgets the rest.
    c->dyn.robotCount = 0;
    lsDynamicIndex_Build(index, &c->dyn);
    lsDynamicItem items[64];
    lsAABB all = {lsV(-1e3, -1e3), lsV(1e3, 1e3)};
    ENSURE(lsDynamicIndex_Query(index, all, items, 64) == 26);
    c->dyn.vehicleCount = c->dyn.moverCount = 0;
    lsDynamicIndex_Build(index, &c->dyn);
    ENSURE(lsDynamicIndex_Query(index, all, items, 64) == 0);
    lsDestroyDynamicIndex(index);
    lsFree(c, sizeof(Crowd));
    return 0;
}

// Every beam of scan (taken through dyn) against lsScene_CastRayBrute along its direction: false, with the first
// difference printed, unless all agree bit for bit. Counts the beams on robots and on static objects.
static bool ScanMatchesBrute(const lsScene* scene, const lsDynamicObjects* dyn, const lsScan* scan, int k,
                             int* robotHits, int* staticHits)
{
    for (int i = 0; i < scan->count; ++i)
    {
        lsRayInput in = {scan->pose.p, lsScan_BeamDirection(scan, i), scan->rangeMax};
        lsRayHit hit = lsScene_CastRayBrute(scene, dyn, &in);
        bool same = hit.kind == scan->kinds[i] && hit.index == scan->indices[i] && hit.part == scan->parts[i] &&
                    (hit.hit ? hit.fraction == scan->ranges[i] && lsVecEqual(hit.point, scan->points[i]) &&
                                   lsVecEqual(hit.normal, scan->normals[i])
                             : scan->ranges[i] == HUGE_VAL);
        if (!same)
        {
            fprintf(stderr, "    scan %d beam %d/%d: %s[%d] %.17g, brute force %s[%d] %.17g\n", k, i, scan->count,
                    lsHitKindName(scan->kinds[i]), scan->indices[i], scan->ranges[i], lsHitKindName(hit.kind),
                    hit.index, hit.fraction);
            return false;
        }
        *robotHits += hit.kind == ls_hitRobot ? 1 : 0;
        *staticHits += hit.hit && hit.kind != ls_hitRobot && hit.kind != ls_hitVehicle && hit.kind != ls_hitMover;
    }
    return true;
}

// A walled room with boxes, polygons and targets around a crowd; scans from random places (robot centres, inside
// robots, anywhere), headings (also beyond the angles whose beam runs are computed), fields of view, beam counts and
// ranges agree bit for bit with lsScene_CastRayBrute along each beam's nominal direction.
static int ScanAgreementTest(void)
{
    const char* text = "{\"walls\": [{\"points\": [[-12, -12], [12, -12], [12, 12], [-12, 12]], \"closed\": true},"
                       " {\"points\": [[-5, 3], [2, 3.5], [2, 8]]}],"
                       " \"boxes\": [{\"center\": [3, -4], \"size\": [2, 1], \"angle\": 30},"
                       " {\"center\": [-7, -7], \"size\": [0.5, 3]}],"
                       " \"polygons\": [{\"points\": [[6, 6], [8, 6], [7, 8]]}],"
                       " \"targets\": [{\"center\": [-3, -2]}, {\"center\": [5, 0], \"kind\": \"poison\"}]}";
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "scan.json", &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "    %s\n", err.message);
    }
    ENSURE(world != NULL);
    lsScene* scene = lsCreateScene(world);
    Crowd* c = lsAlloc(sizeof(Crowd));
    MakeCrowd(c, 300, 11.0, 21);
    lsDynamicIndex* index = lsCreateDynamicIndex();
    lsDynamicIndex_Build(index, &c->dyn);
    lsScan* scan = lsCreateScan(1000);
    lsRng rng = lsMakeRng(4);
    const int beamChoices[] = {1, 2, 7, 90, 360, 1000};
    int robotHits = 0, staticHits = 0;
    for (int k = 0; k < 300; ++k)
    {
        lsLidarDef def = lsDefaultLidarDef();
        def.beams = beamChoices[k % 6];
        def.fov = k % 3 == 0 ? 2.0 * LS_PI : lsRng_Range(&rng, 0.01, 2.0 * LS_PI);
        def.range = k % 5 == 0 ? 100.0 : lsRng_Range(&rng, 0.3, 12.0);
        def.rangeMin = 0.0;
        lsVec2 p = lsTestRandomPoint(&rng, -11.0, 11.0, -11.0, 11.0);
        int skip = -1;
        if (k % 4 == 1)
        {
            skip = (int)(lsRng_Uniform(&rng) * 300.0);
            p = c->robots[skip].center;
        }
        else if (k % 4 == 2)
        {
            p = lsAdd(c->robots[k].center, lsV(0.05, -0.02)); // inside (or at the edge of) robot k
        }
        double heading = k % 10 == 3 ? lsRng_Range(&rng, 5e3, 5e4) : lsRng_Range(&rng, -10.0, 10.0);
        lsDynamicObjects dyn = c->dyn;
        dyn.skipRobot = skip;
        dyn.index = k % 7 == 0 ? NULL : index;
        lsLidar_ScanFrom(scene, &dyn, &def, p, heading, NULL, scan);
        ENSURE(ScanMatchesBrute(scene, &dyn, scan, k, &robotHits, &staticHits));
    }
    ENSURE(robotHits > 1000 && staticHits > 1000); // both kinds are seen
    lsDestroyScan(scan);
    lsDestroyDynamicIndex(index);
    lsFree(c, sizeof(Crowd));
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// The scene of ScanDegenerateTest: a room with two walls and a box, and extra short walls 4 to 4.8 m around the
// lidar (300 are more static objects near it than a scan keeps runs for: its beams then go in blocks, of up to
// LS_FAN_MAX_BEAMS).
static lsScene* DegenerateScene(int extra)
{
    char text[20000];
    int length = snprintf(text, sizeof text,
                          "{\"walls\": [{\"points\": [[-9, -9], [9, -9], [9, 9], [-9, 9]], \"closed\": true},"
                          " {\"points\": [[-3, -3], [4, -4]]}, {\"points\": [[2, 2], [2, 5]]}");
    for (int i = 0; i < extra; ++i)
    {
        double a = 2.0 * LS_PI * (double)i / (double)extra, r = 4.0 + 0.8 * (double)(i % 2);
        length += snprintf(text + length, sizeof text - (size_t)length, ", {\"points\": [[%.3f, %.3f], [%.3f, %.3f]]}",
                           0.25 + r * cos(a), -0.5 + r * sin(a), 0.25 + r * cos(a + 0.01), -0.5 + r * sin(a + 0.01));
    }
    snprintf(text + length, sizeof text - (size_t)length, "], \"boxes\": [{\"center\": [-2, 3], \"size\": [1, 2]}]}");
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "degenerate.json", &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "    %s\n", err.message);
        return NULL;
    }
    lsScene* scene = lsCreateScene(world);
    lsDestroyWorld(world);
    return scene;
}

// Scans among robots in the awkward places of the discs' two-lane casts, against the brute force on every beam:
// robots straddling the range or reaching it within a hair, identical robots on top of each other (ties go by index)
// and overlapping ones, a point and a speck, and in some scans one whose circle passes exactly through the lidar (a
// 3-4-5 triangle of dyadic numbers), or one an ulp or 1e-9 off it, or one around it; 1 to 1 000 beams, any heading.
// Every robot is seen but those that cannot be: the one beyond the range, the two that lose every tie to their
// twin, the point and the speck.
static int ScanDegenerateTest(void)
{
    lsScene* scenes[2] = {DegenerateScene(0), DegenerateScene(300)};
    ENSURE(scenes[0] != NULL && scenes[1] != NULL);
    lsVec2 p = {0.25, -0.5};
    double range = 5.0;
    lsCircle robots[16] = {
        {{p.x + range, p.y}, 0.4},                           // across the range
        {{p.x, p.y + range + 0.3 - 0.01}, 0.3},              // reaching 1 cm into the range
        {{p.x - range * 0.6, p.y - range * 0.8 - 0.3}, 0.3}, // just beyond it
        {{p.x + 1.5, p.y + 1.5}, 0.35},                      // three identical robots
        {{p.x + 1.5, p.y + 1.5}, 0.35},
        {{p.x + 1.5, p.y + 1.5}, 0.35},
        {{p.x - 2.0, p.y + 1.0}, 0.5}, // overlapping ones
        {{p.x - 2.2, p.y + 1.4}, 0.45},
        {{p.x - 2.1, p.y + 0.7}, 0.3},
        {{p.x + 3.0, p.y - 2.0}, 0.0},             // a point
        {{p.x + 0.5, p.y - 3.0}, 1e-9},            // a speck
        {{p.x - 4.0, p.y - 1.0}, 2.0},             // a large disc near the range
        {{0.625, 0.0}, 0.625},                     // through the lidar: (0.375, 0.5) from it
        {{p.x - 0.75, p.y}, nextafter(0.75, 0.0)}, // the lidar an ulp outside
        {{p.x, p.y - 0.75}, 0.75 - 1e-9},          // 1e-9 outside
        {{p.x + 0.1, p.y + 0.05}, 0.3},            // around the lidar
    };
    lsDynamicIndex* index = lsCreateDynamicIndex();
    lsScan* scan = lsCreateScan(1500);
    lsRng rng = lsMakeRng(77);
    const int beamChoices[] = {1, 2, 3, 7, 360, 1500}; // 1500: more than one block of LS_FAN_MAX_BEAMS
    int robotHits = 0, staticHits = 0, seen[16] = {0};
    for (int k = 0; k < 240; ++k)
    {
        // At most one of the last four at a time (each takes every beam it can, at 0 or within ulps of it).
        lsCircle placed[16];
        memcpy(placed, robots, sizeof placed);
        for (int i = 12; i < 16; ++i)
        {
            placed[i].center = i == 12 + k % 5 ? robots[i].center : lsV(100.0 + (double)i, 100.0);
        }
        lsDynamicObjects dyn = {.robots = placed, .robotCount = 16, .skipRobot = k % 7 - 2};
        lsDynamicIndex_Build(index, &dyn);
        dyn.index = k % 3 == 0 ? NULL : index;
        lsLidarDef def = lsDefaultLidarDef();
        def.beams = beamChoices[k % 6];
        def.fov = k % 4 == 0 ? lsRng_Range(&rng, 0.01, 2.0 * LS_PI) : 2.0 * LS_PI;
        def.range = range;
        def.rangeMin = 0.0;
        const lsScene* scene = scenes[k / 3 % 2];
        lsLidar_ScanFrom(scene, &dyn, &def, p, lsRng_Range(&rng, -4.0, 4.0), NULL, scan);
        ENSURE(ScanMatchesBrute(scene, &dyn, scan, k, &robotHits, &staticHits));
        for (int i = 0; i < scan->count; ++i)
        {
            seen[scan->indices[i] & 15] += scan->kinds[i] == ls_hitRobot ? 1 : 0;
        }
    }
    printf("    %d beams on robots, %d on static objects\n", robotHits, staticHits);
    ENSURE(robotHits > 20000 && staticHits > 1000);
    for (int i = 0; i < 16; ++i)
    {
        ENSURE(seen[i] > 0 || i == 2 || i == 4 || i == 5 || i == 9 || i == 10); // all but those that cannot be
    }
    lsDestroyScan(scan);
    lsDestroyDynamicIndex(index);
    lsDestroyScene(scenes[0]);
    lsDestroyScene(scenes[1]);
    return 0;
}

int DynamicTest(void)
{
    RUN_SUBTEST(AgreementTest);
    RUN_SUBTEST(QueryTest);
    RUN_SUBTEST(WorkTest);
    RUN_SUBTEST(ScanAgreementTest);
    RUN_SUBTEST(ScanDegenerateTest);
    return 0;
}

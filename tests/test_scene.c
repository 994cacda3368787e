// Tests of scene.c: the grid-accelerated cast must equal the brute-force reference bit for bit (same object, part,
// fraction, point and normal) on random and adversarial rays; box queries; moved and disabled targets.
#include "core/alloc.h"
#include "core/scene_fan.h"
#include "core/scene_internal.h"
#include "lidarsim/lidar.h"
#include "lidarsim/map.h"
#include "lidarsim/pool.h"
#include "lidarsim/scene.h"
#include "test.h"

#include <float.h>
#include <string.h>

static bool SameHit(const lsRayHit* a, const lsRayHit* b)
{
    return a->hit == b->hit && a->kind == b->kind && a->index == b->index && a->part == b->part &&
           a->fraction == b->fraction && lsVecEqual(a->point, b->point) && lsVecEqual(a->normal, b->normal);
}

static void PrintMismatch(const lsRayInput* in, const lsRayHit* a, const lsRayHit* b)
{
    fprintf(stderr, "ray o=(%.17g, %.17g) d=(%.17g, %.17g) max=%.17g\n", in->origin.x, in->origin.y, in->direction.x,
            in->direction.y, in->maxFraction);
    fprintf(stderr, "  accel: hit=%d %s[%d].%d f=%.17g\n", a->hit, lsHitKindName(a->kind), a->index, a->part,
            a->fraction);
    fprintf(stderr, "  brute: hit=%d %s[%d].%d f=%.17g\n", b->hit, lsHitKindName(b->kind), b->index, b->part,
            b->fraction);
}

// Casts one ray both ways; returns 1 (after printing) when they differ.
static int Compare(const lsScene* scene, const lsDynamicObjects* dyn, lsRayInput in, int* hits)
{
    lsRayHit a = lsScene_CastRay(scene, dyn, &in);
    lsRayHit b = lsScene_CastRayBrute(scene, dyn, &in);
    if (!SameHit(&a, &b))
    {
        PrintMismatch(&in, &a, &b);
        return 1;
    }
    if (hits != NULL && a.hit)
    {
        *hits += 1;
    }
    return 0;
}

static lsVec2 RandomDirection(lsRng* rng)
{
    double angle = lsRng_Range(rng, -LS_PI, LS_PI);
    return lsV(cos(angle), sin(angle));
}

// A convex polygon: points on an ellipse at sorted random angles, rotated and moved.
static lsPolygonDef RandomPolygon(lsRng* rng, lsVec2 center, double size)
{
    lsPolygonDef def;
    memset(&def, 0, sizeof def);
    def.count = 3 + (int)(lsRng_Uniform(rng) * 6.0);
    double rx = size * lsRng_Range(rng, 0.5, 1.0), ry = size * lsRng_Range(rng, 0.3, 1.0);
    double rot = lsRng_Range(rng, 0.0, LS_PI);
    for (int k = 0; k < def.count; ++k)
    {
        // Evenly spaced angles with a bounded wobble stay sorted and strictly convex.
        double a = 2.0 * LS_PI * ((double)k + lsRng_Range(rng, -0.3, 0.3)) / (double)def.count;
        lsVec2 p = lsV(rx * cos(a), ry * sin(a));
        def.points[k] = lsAdd(center, lsRotateAngle(p, rot));
    }
    def.reflectance = 0.4;
    return def;
}

// A "city": short random walls, a few polylines and closed chains, targets, rotated boxes and polygons in a square
// of half-width `half` around `offset`. Coordinates are snapped to `snap` (0: no snapping) to force coincidences.
static lsWorld* MakeCity(uint64_t seed, int walls, int targets, int boxes, int polygons, double half, lsVec2 offset,
                         double snap)
{
    lsRng rng = lsMakeRng(seed);
    lsWorld* world = lsCreateWorld();
#define SNAP(v) (snap > 0.0 ? round((v) / snap) * snap : (v))
    for (int i = 0; i < walls; ++i)
    {
        lsVec2 points[6];
        int count = lsRng_Uniform(&rng) < 0.8 ? 2 : 3 + (int)(lsRng_Uniform(&rng) * 3.0);
        bool closed = count > 2 && lsRng_Uniform(&rng) < 0.4;
        lsVec2 p = lsTestRandomPoint(&rng, -half, half, -half, half);
        for (int k = 0; k < count; ++k)
        {
            points[k] = lsV(SNAP(p.x) + offset.x, SNAP(p.y) + offset.y);
            lsVec2 step = RandomDirection(&rng);
            p = lsAdd(p, lsScale(lsRng_Range(&rng, 0.3, 3.0), step));
        }
        lsWorld_AddWall(world, points, count, closed);
    }
    for (int i = 0; i < targets; ++i)
    {
        lsTargetDef t = lsDefaultTargetDef();
        double y = SNAP(lsRng_Range(&rng, -half, half)) + offset.y;
        t.center = lsV(SNAP(lsRng_Range(&rng, -half, half)) + offset.x, y);
        t.radius = lsRng_Range(&rng, 0.1, 0.6);
        t.kind = lsRng_Uniform(&rng) < 0.5 ? ls_food : ls_poison;
        lsWorld_AddTarget(world, t);
    }
    for (int i = 0; i < boxes; ++i)
    {
        lsBoxDef b = lsDefaultBoxDef();
        double y = lsRng_Range(&rng, -half, half) + offset.y;
        b.center = lsV(lsRng_Range(&rng, -half, half) + offset.x, y);
        b.size = lsTestRandomPoint(&rng, 0.2, 3.0, 0.2, 3.0);
        b.angle = lsRng_Uniform(&rng) < 0.3 ? 0.0 : lsRng_Range(&rng, -LS_PI, LS_PI);
        lsWorld_AddBox(world, b);
    }
    for (int i = 0; i < polygons; ++i)
    {
        double y = lsRng_Range(&rng, -half, half) + offset.y;
        lsVec2 c = lsV(lsRng_Range(&rng, -half, half) + offset.x, y);
        lsPolygonDef def = RandomPolygon(&rng, c, lsRng_Range(&rng, 0.3, 2.0));
        lsWorld_AddPolygon(world, &def);
    }
#undef SNAP
    return world;
}

// Random rays over the world and beyond: origins in a box 20% wider than the world, lengths up to 1.5 times its
// size, some of them zero, some of them non-unit directions.
static int RandomRays(const lsScene* scene, const lsDynamicObjects* dyn, uint64_t seed, int count, double half,
                      lsVec2 offset, int* hitCount)
{
    lsRng rng = lsMakeRng(seed);
    for (int i = 0; i < count; ++i)
    {
        lsRayInput in;
        double y = offset.y + lsRng_Range(&rng, -1.2 * half, 1.2 * half);
        in.origin = lsV(offset.x + lsRng_Range(&rng, -1.2 * half, 1.2 * half), y);
        in.direction = RandomDirection(&rng);
        double u = lsRng_Uniform(&rng);
        in.maxFraction = u < 0.01 ? 0.0 : lsRng_Range(&rng, 0.0, 1.5 * half);
        if (u > 0.95)
        {
            // A non-unit direction: fractions are in units of its length.
            in.direction = lsScale(lsRng_Range(&rng, 0.01, 10.0), in.direction);
        }
        if (Compare(scene, dyn, in, hitCount) != 0)
        {
            return 1;
        }
    }
    return 0;
}

static int CityAgreementTest(void)
{
    // A bench-like world (constant density of short walls, circles) and 100 000 random rays.
    lsWorld* world = MakeCity(11, 400, 40, 15, 15, 20.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE(info.segmentCount == lsWorld_SegmentCount(world));
    ENSURE(info.cellsX > 1 && info.cellsY > 1);
    int hits = 0;
    ENSURE(RandomRays(scene, NULL, 12, 100000, 20.0, lsV(0.0, 0.0), &hits) == 0);
    // Most rays must hit something, or the comparison proves little.
    ENSURE(hits > 60000);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A few large shapes among many walls: the cells stay the walls' (sized for the shapes alone, at a third of a box, one
// 60 m box among 20 000 walls made casts 3.5 times slower); a target far larger than the world, which is tested on
// every cast rather than registered, counts for nothing.
static int LargeShapesAmongWallsTest(void)
{
    lsWorld* world = MakeCity(41, 2000, 0, 0, 0, 50.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    double walls = lsScene_GetInfo(scene).cellSize;
    lsDestroyScene(scene);
    lsWorld_AddBox(world, (lsBoxDef){lsV(10.0, 10.0), lsV(30.0, 30.0), 0.0, 1.0});
    lsWorld_AddTarget(world, (lsTargetDef){lsV(0.0, 0.0), 1e5, ls_food, 1.0});
    scene = lsCreateScene(world);
    ENSURE(lsScene_GetInfo(scene).cellSize <= 1.1 * walls);
    ENSURE(RandomRays(scene, NULL, 42, 3000, 50.0, lsV(0.0, 0.0), NULL) == 0);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Targets stacked at one place, boxes at another: the cells are sized so that the shapes register in a few cells
// each (sized by their count alone, 5 000 targets of 0.6 m took 240 MB of records), casts still agree with the brute
// force, and moving and hiding one target among the stack updates its one record in each of its cells.
static int StackedShapesTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 room[4] = {{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}};
    lsWorld_AddWall(world, room, 4, true);
    int stacked = 5000;
    for (int i = 0; i < stacked; ++i)
    {
        lsWorld_AddTarget(world, (lsTargetDef){i % 2 == 0 ? lsV(0.0, 0.0) : lsV(0.4, 0.4), 0.3, ls_food, 1.0});
    }
    for (int i = 0; i < 50; ++i)
    {
        lsWorld_AddBox(world, (lsBoxDef){lsV(-0.5, 0.5), lsV(0.4, 0.3), 0.3 * i, 1.0});
    }
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE(info.cellItems <= 16LL * (stacked + 50) + 64);
    ENSURE(RandomRays(scene, NULL, 31, 2000, 2.0, lsV(0.0, 0.0), NULL) == 0);
    for (int i = 0; i < stacked; i += 997)
    {
        ENSURE(lsScene_SetTarget(scene, i, lsV(0.01, 0.0), true));
        ENSURE(lsScene_SetTarget(scene, i + 1, lsV(0.4, 0.4), false));
    }
    ENSURE(RandomRays(scene, NULL, 32, 2000, 2.0, lsV(0.0, 0.0), NULL) == 0);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int SnappedAgreementTest(void)
{
    // Coordinates on a 0.5 m lattice: shared endpoints, collinear overlapping walls, walls along grid lines.
    lsWorld* world = MakeCity(21, 300, 30, 10, 0, 10.0, lsV(0.0, 0.0), 0.5);
    lsScene* scene = lsCreateScene(world);
    int hits = 0;
    ENSURE(RandomRays(scene, NULL, 22, 30000, 10.0, lsV(0.0, 0.0), &hits) == 0);
    // Rays from lattice points toward lattice points (through shared corners) and along lattice lines.
    lsRng rng = lsMakeRng(23);
    for (int i = 0; i < 30000; ++i)
    {
        double oy = 0.5 * round(lsRng_Range(&rng, -24.0, 24.0));
        lsVec2 o = lsV(0.5 * round(lsRng_Range(&rng, -24.0, 24.0)), oy);
        double ty = 0.5 * round(lsRng_Range(&rng, -24.0, 24.0));
        lsVec2 t = lsV(0.5 * round(lsRng_Range(&rng, -24.0, 24.0)), ty);
        if (i % 3 == 0)
        {
            t.y = o.y; // along a lattice line
        }
        lsRayInput in = {o, lsSub(t, o), lsRng_Range(&rng, 0.5, 3.0)};
        if (i % 2 == 0)
        {
            in.direction = lsNormalize(in.direction);
            in.maxFraction = 30.0;
        }
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A maze on a lattice of spacing 2: every edge of the outer border, and random inner edges, as two-point walls
// sharing their corners (the bench's maze worlds are built the same way).
static lsWorld* MakeMaze(uint64_t seed, int n, lsVec2 offset)
{
    lsRng rng = lsMakeRng(seed);
    lsWorld* world = lsCreateWorld();
    double h = (double)n; // the maze spans [-n, n]^2 with n cells of 2 m
    for (int i = 0; i <= n; ++i)
    {
        for (int j = 0; j < n; ++j)
        {
            double x = -h + 2.0 * (double)i, y = -h + 2.0 * (double)j;
            bool border = i == 0 || i == n;
            if (border || lsRng_Uniform(&rng) < 0.45)
            {
                lsVec2 p[2] = {lsV(x + offset.x, y + offset.y), lsV(x + offset.x, y + 2.0 + offset.y)};
                lsWorld_AddWall(world, p, 2, false);
            }
            if (border || lsRng_Uniform(&rng) < 0.45)
            {
                lsVec2 p[2] = {lsV(y + offset.x, x + offset.y), lsV(y + 2.0 + offset.x, x + offset.y)};
                lsWorld_AddWall(world, p, 2, false);
            }
        }
    }
    return world;
}

static int MazeCornerTest(void)
{
    const lsVec2 offsets[3] = {{0.0, 0.0}, {10000.0, -10000.0}, {123456.789, 98765.4321}};
    for (int o = 0; o < 3; ++o)
    {
        lsVec2 off = offsets[o];
        int n = 10;
        lsWorld* world = MakeMaze(31 + (uint64_t)o, n, off);
        lsScene* scene = lsCreateScene(world);
        lsRng rng = lsMakeRng(32);
        int hits = 0;
        for (int i = 0; i < 20000; ++i)
        {
            // Origins at lattice points (on corners), cell centres and edge midpoints (on walls); targets at
            // lattice points, so many rays pass exactly through shared corners.
            int kind = i % 4;
            double ox = -n + 2.0 * round(lsRng_Range(&rng, 0.0, (double)n)),
                   oy = -n + 2.0 * round(lsRng_Range(&rng, 0.0, (double)n));
            if (kind == 1)
            {
                ox += 1.0, oy += 1.0;
            }
            else if (kind == 2)
            {
                ox += 1.0;
            }
            double tx = -n + 2.0 * round(lsRng_Range(&rng, -2.0, (double)n + 2.0));
            double ty = -n + 2.0 * round(lsRng_Range(&rng, -2.0, (double)n + 2.0));
            lsVec2 origin = lsV(ox + off.x, oy + off.y), target = lsV(tx + off.x, ty + off.y);
            if (lsVecEqual(origin, target))
            {
                continue;
            }
            lsRayInput in = {origin, lsSub(target, origin), 1.0};
            if (kind == 3)
            {
                // Unit direction and a long range, and the same ray ending exactly on the target corner.
                in.direction = lsNormalize(in.direction);
                in.maxFraction = 30.0;
            }
            ENSURE(Compare(scene, NULL, in, &hits) == 0);
        }
        ENSURE(hits > 10000);
        // A beam from a cell centre through a lattice corner, diagonally, must hit the corner's walls and never
        // slip through between the two walls meeting there.
        lsRayInput diag = {lsV(-n + 1.0 + off.x, -n + 1.0 + off.y), lsV(-1.0, -1.0), 2.0};
        lsRayHit hit = lsScene_CastRay(scene, NULL, &diag);
        ENSURE(hit.hit && hit.kind == ls_hitWall && hit.fraction <= 1.0 + 1e-9);
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    return 0;
}

static int GridBoundaryTest(void)
{
    // Rays exactly along the scene's own cell boundaries, through its cell corners, and starting on them.
    lsWorld* world = MakeCity(41, 300, 40, 10, 10, 15.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    double s = info.cellSize;
    lsVec2 g0 = info.gridBounds.lower;
    lsRng rng = lsMakeRng(42);
    for (int i = 0; i < 20000; ++i)
    {
        int cx = (int)lsRng_Range(&rng, 0.0, (double)info.cellsX + 1.0);
        int cy = (int)lsRng_Range(&rng, 0.0, (double)info.cellsY + 1.0);
        lsVec2 corner = lsV(g0.x + (double)cx * s, g0.y + (double)cy * s);
        lsVec2 d;
        switch (i % 4)
        {
        case 0:
            d = lsV(i % 8 == 0 ? 1.0 : -1.0, 0.0);
            break;
        case 1:
            d = lsV(0.0, i % 8 == 1 ? 1.0 : -1.0);
            break;
        case 2:
            d = lsV(i % 8 == 2 ? 1.0 : -1.0, i % 16 == 2 ? 1.0 : -1.0); // through every cell corner on the way
            break;
        default:
            d = RandomDirection(&rng);
            break;
        }
        lsRayInput in = {corner, d, lsRng_Range(&rng, 0.0, 40.0)};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int OriginOnWallTest(void)
{
    // Origins exactly on wall segments (their endpoints and interior points) and on circle boundaries.
    lsWorld* world = MakeCity(51, 200, 30, 0, 0, 10.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsRng rng = lsMakeRng(52);
    for (int i = 0; i < 10000; ++i)
    {
        const lsWallDef* wall = world->walls + (int)(lsRng_Uniform(&rng) * world->wallCount);
        lsVec2 origin = wall->points[i % wall->pointCount];
        if (i % 3 == 0)
        {
            origin = lsLerp(wall->points[0], wall->points[1], 0.5);
        }
        lsRayInput in = {origin, RandomDirection(&rng), 15.0};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
        lsRayHit hit = lsScene_CastRay(scene, NULL, &in);
        if (i % 3 != 0)
        {
            // Starting on a wall's corner: that wall (or another touching the same point) is hit at 0.
            ENSURE(hit.hit && hit.fraction == 0.0);
        }
    }
    for (int i = 0; i < world->targetCount; ++i)
    {
        const lsTargetDef* t = world->targets + i;
        for (int k = 0; k < 16; ++k)
        {
            lsVec2 dir = RandomDirection(&rng);
            lsRayInput in = {lsMulAdd(t->center, t->radius, dir), dir, 10.0};
            ENSURE(Compare(scene, NULL, in, NULL) == 0);
        }
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int GrazingCircleTest(void)
{
    // Rays tangent to circles (and a hair inside or outside of tangent), from near and far.
    lsWorld* world = MakeCity(61, 100, 60, 0, 0, 12.0, lsV(2500.0, -700.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsRng rng = lsMakeRng(62);
    int hits = 0;
    for (int i = 0; i < 20000; ++i)
    {
        const lsTargetDef* t = world->targets + (int)(lsRng_Uniform(&rng) * world->targetCount);
        lsVec2 dir = RandomDirection(&rng);
        lsVec2 side = lsLeftPerp(dir);
        double nudge = (i % 3 - 1) * 1e-12;
        lsVec2 touch = lsMulAdd(t->center, t->radius * (1.0 + nudge), side);
        double back = lsRng_Range(&rng, 0.1, 25.0);
        lsRayInput in = {lsMulSub(touch, back, dir), dir, 30.0};
        ENSURE(Compare(scene, NULL, in, &hits) == 0);
    }
    ENSURE(hits > 1000);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int HugeCoordinatesTest(void)
{
    const lsVec2 offset = {12345.678, -9876.54321};
    lsWorld* world = MakeCity(71, 300, 30, 10, 10, 15.0, offset, 0.0);
    lsScene* scene = lsCreateScene(world);
    int hits = 0;
    ENSURE(RandomRays(scene, NULL, 72, 20000, 15.0, offset, &hits) == 0);
    ENSURE(hits > 10000);
    // Rays from far outside the world, aimed into it.
    lsRng rng = lsMakeRng(73);
    for (int i = 0; i < 2000; ++i)
    {
        lsVec2 dir = RandomDirection(&rng);
        double y = offset.y + lsRng_Range(&rng, -10.0, 10.0);
        lsVec2 aim = lsV(offset.x + lsRng_Range(&rng, -10.0, 10.0), y);
        lsRayInput in = {lsMulSub(aim, 5000.0, dir), dir, 5010.0};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int ClosedRoomTest(void)
{
    // Star-shaped rooms around c: a closed chain, and the same outline as separate two-point walls. From inside,
    // every beam must hit the room (no leak through a corner), both paths agreeing.
    const lsVec2 centers[2] = {{0.3, -0.7}, {-15432.1, 8765.4}};
    for (int variant = 0; variant < 4; ++variant)
    {
        lsVec2 c = centers[variant / 2];
        lsRng rng = lsMakeRng(81 + (uint64_t)variant);
        enum
        {
            count = 41
        };
        lsVec2 points[count];
        for (int k = 0; k < count; ++k)
        {
            double a = 2.0 * LS_PI * ((double)k + lsRng_Range(&rng, -0.3, 0.3)) / (double)count;
            double r = lsRng_Range(&rng, 5.0, 9.0);
            points[k] = lsV(c.x + r * cos(a), c.y + r * sin(a));
        }
        lsWorld* world = lsCreateWorld();
        if (variant % 2 == 0)
        {
            lsWorld_AddWall(world, points, count, true);
        }
        else
        {
            for (int k = 0; k < count; ++k)
            {
                lsVec2 seg[2] = {points[k], points[(k + 1) % count]};
                lsWorld_AddWall(world, seg, 2, false);
            }
        }
        lsScene* scene = lsCreateScene(world);
        for (int i = 0; i < 20000; ++i)
        {
            lsVec2 away = RandomDirection(&rng);
            lsVec2 origin = lsAdd(c, lsScale(lsRng_Range(&rng, 0.0, 3.0), away));
            lsVec2 dir;
            if (i % 2 == 0)
            {
                dir = RandomDirection(&rng);
            }
            else
            {
                // Exactly toward a corner of the room.
                dir = lsSub(points[(int)(lsRng_Uniform(&rng) * count)], origin);
            }
            lsRayInput in = {origin, dir, 100.0};
            lsRayHit hit = lsScene_CastRay(scene, NULL, &in);
            ENSURE(hit.hit && hit.kind == ls_hitWall);
            ENSURE(Compare(scene, NULL, in, NULL) == 0);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    return 0;
}

static int MaxRangeTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 wall[2] = {lsV(5.0, -1.0), lsV(5.0, 1.0)};
    lsWorld_AddWall(world, wall, 2, false);
    lsTargetDef t = lsDefaultTargetDef();
    t.center = lsV(0.0, 7.0);
    t.radius = 1.0;
    lsWorld_AddTarget(world, t);
    lsScene* scene = lsCreateScene(world);
    // A hit exactly at the maximum fraction counts; a hair shorter misses.
    lsRayInput in = {lsV(0.0, 0.0), lsV(1.0, 0.0), 5.0};
    lsRayHit hit = lsScene_CastRay(scene, NULL, &in);
    ENSURE(hit.hit && hit.kind == ls_hitWall && hit.index == 0 && hit.fraction == 5.0);
    in.maxFraction = nextafter(5.0, 0.0);
    ENSURE(!lsScene_CastRay(scene, NULL, &in).hit);
    lsRayInput up = {lsV(0.0, 0.0), lsV(0.0, 1.0), 6.0};
    hit = lsScene_CastRay(scene, NULL, &up);
    ENSURE(hit.hit && hit.kind == ls_hitTarget && hit.fraction == 6.0);
    ENSURE(hit.normal.x == 0.0 && hit.normal.y == -1.0);
    // Zero-length ray from inside the target hits at 0; a zero direction hits nothing.
    lsRayInput inside = {lsV(0.0, 7.5), lsV(1.0, 0.0), 0.0};
    hit = lsScene_CastRay(scene, NULL, &inside);
    ENSURE(hit.hit && hit.kind == ls_hitTarget && hit.fraction == 0.0);
    lsRayInput none = {lsV(0.0, 0.0), lsV(0.0, 0.0), 10.0};
    ENSURE(!lsScene_CastRay(scene, NULL, &none).hit && lsScene_CastRay(scene, NULL, &none).index == -1);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int DynamicObjectsTest(void)
{
    lsWorld* world = MakeCity(91, 200, 20, 5, 5, 10.0, lsV(0.0, 0.0), 0.0);
    lsVec2 wall[2] = {lsV(30.0, -2.0), lsV(30.0, 2.0)};
    int last = lsWorld_AddWall(world, wall, 2, false);
    lsScene* scene = lsCreateScene(world);
    lsRng rng = lsMakeRng(92);
    lsCircle vehicles[6];
    lsSegment movers[5];
    for (int i = 0; i < 6; ++i)
    {
        vehicles[i] = (lsCircle){lsTestRandomPoint(&rng, -10.0, 10.0, -10.0, 10.0), 0.4};
    }
    for (int i = 0; i < 4; ++i)
    {
        lsVec2 a = lsTestRandomPoint(&rng, -10.0, 10.0, -10.0, 10.0);
        movers[i] = (lsSegment){a, lsMulAdd(a, 2.0, RandomDirection(&rng))};
    }
    // A mover lying exactly on the wall at x = 30 (outside the city): at equal fraction the wall wins (kind order), in
    // both paths.
    movers[4] = (lsSegment){lsV(30.0, -1.0), lsV(30.0, 1.0)};
    lsDynamicObjects dyn = {
        .vehicles = vehicles, .vehicleCount = 6, .movers = movers, .moverCount = 5, .skipRobot = -1};
    int hits = 0;
    ENSURE(RandomRays(scene, &dyn, 93, 20000, 10.0, lsV(0.0, 0.0), &hits) == 0);
    lsRayInput in = {lsV(29.0, 0.0), lsV(1.0, 0.0), 10.0};
    lsRayHit hit = lsScene_CastRay(scene, &dyn, &in);
    ENSURE(hit.hit && hit.kind == ls_hitWall && hit.index == last && hit.fraction == 1.0);
    // With a vehicle in front, the vehicle is seen; from inside it, at range 0.
    vehicles[0] = (lsCircle){lsV(29.5, 0.0), 0.25};
    hit = lsScene_CastRay(scene, &dyn, &in);
    ENSURE(hit.hit && hit.kind == ls_hitVehicle && hit.index == 0);
    ENSURE_SMALL(hit.fraction - 0.25, 1e-12);
    vehicles[0].center = lsV(29.0, 0.1);
    hit = lsScene_CastRay(scene, &dyn, &in);
    ENSURE(hit.hit && hit.kind == ls_hitVehicle && hit.fraction == 0.0);
    ENSURE(hit.normal.x == -1.0 && hit.normal.y == 0.0);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int MovedTargetsTest(void)
{
    lsWorld* world = MakeCity(101, 200, 80, 5, 5, 12.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsRng rng = lsMakeRng(102);
    for (int round = 0; round < 60; ++round)
    {
        // Small nudges (stay in their cells), respawns far away (possibly outside the original grid, more than
        // LS_MAX_DISPLACED of them over the rounds, forcing rebuilds), and disabling.
        for (int k = 0; k < 5; ++k)
        {
            int i = (int)(lsRng_Uniform(&rng) * world->targetCount);
            bool active;
            lsCircle c = lsScene_Target(scene, i, &active);
            lsVec2 center;
            double u = lsRng_Uniform(&rng);
            if (u < 0.4)
            {
                center = lsAdd(c.center, lsTestRandomPoint(&rng, -0.05, 0.05, -0.05, 0.05));
            }
            else if (u < 0.9)
            {
                center = lsTestRandomPoint(&rng, -16.0, 16.0, -16.0, 16.0);
            }
            else
            {
                center = c.center;
            }
            lsScene_SetTarget(scene, i, center, u < 0.9 || !active);
            lsCircle moved = lsScene_Target(scene, i, &active);
            ENSURE(lsVecEqual(moved.center, center) && moved.radius == c.radius);
        }
        ENSURE(RandomRays(scene, NULL, 103 + (uint64_t)round, 500, 12.0, lsV(0.0, 0.0), NULL) == 0);
    }
    // A disabled target is invisible.
    lsScene_SetTarget(scene, 0, lsV(50.0, 50.0), false);
    lsRayInput in = {lsV(45.0, 50.0), lsV(1.0, 0.0), 10.0};
    ENSURE(!lsScene_CastRay(scene, NULL, &in).hit && !lsScene_CastRayBrute(scene, NULL, &in).hit);
    lsScene_SetTarget(scene, 0, lsV(50.0, 50.0), true);
    lsRayHit hit = lsScene_CastRay(scene, NULL, &in);
    ENSURE(hit.hit && hit.kind == ls_hitTarget && hit.index == 0);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Query collector: a bitmap of reported objects, counting duplicates.
typedef struct QueryResult
{
    unsigned char* seen; // segments (by global id), then targets, boxes, polygons
    int segmentCount, targetBase, boxBase, polygonBase;
    const int* firstSegment;
    int duplicates;
    int reported;
    int stopAfter;
} QueryResult;

static bool Collect(void* context, lsHitKind kind, int index, int part)
{
    QueryResult* r = context;
    int slot = kind == ls_hitWall
                   ? r->firstSegment[index] + part
                   : (kind == ls_hitTarget ? r->targetBase + index
                                           : (kind == ls_hitBox ? r->boxBase + index : r->polygonBase + index));
    if (r->seen[slot])
    {
        r->duplicates += 1;
    }
    r->seen[slot] = 1;
    r->reported += 1;
    return r->stopAfter == 0 || r->reported < r->stopAfter;
}

static int QueryTest(void)
{
    lsWorld* world = MakeCity(111, 300, 40, 10, 10, 15.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    int segments = lsWorld_SegmentCount(world);
    int total = segments + world->targetCount + world->boxCount + world->polygonCount;
    int firstSegment[400];
    ENSURE(world->wallCount <= 400);
    for (int w = 0, s = 0; w < world->wallCount; ++w)
    {
        firstSegment[w] = s;
        s += lsScene_WallPartCount(scene, w);
    }
    unsigned char* seen = lsAlloc((size_t)total);
    lsRng rng = lsMakeRng(112);
    lsScene_SetTarget(scene, 3, lsV(100.0, 100.0), true); // displaced outside the grid
    lsScene_SetTarget(scene, 4, lsV(0.0, 0.0), false);    // disabled
    for (int q = 0; q < 300; ++q)
    {
        lsVec2 c = lsTestRandomPoint(&rng, -18.0, 18.0, -18.0, 18.0);
        lsVec2 h = lsTestRandomPoint(&rng, 0.0, 4.0, 0.0, 4.0);
        lsAABB box = {lsSub(c, h), lsAdd(c, h)};
        if (q == 0)
        {
            box = (lsAABB){lsV(99.0, 99.0), lsV(101.0, 101.0)};
        }
        memset(seen, 0, (size_t)total);
        QueryResult r = {seen,
                         segments,
                         segments,
                         segments + world->targetCount,
                         segments + world->targetCount + world->boxCount,
                         firstSegment,
                         0,
                         0,
                         0};
        lsScene_QueryAABB(scene, box, Collect, &r);
        ENSURE(r.duplicates == 0);
        // Exactly the objects whose bounds overlap the box.
        for (int w = 0; w < world->wallCount; ++w)
        {
            for (int p = 0; p < lsScene_WallPartCount(scene, w); ++p)
            {
                // Every segment that touches the box is reported, and only segments whose bounds overlap it.
                lsSegment seg = lsScene_WallSegment(scene, w, p);
                lsBox asBox = lsMakeBox(lsScale(0.5, lsAdd(box.lower, box.upper)), lsSub(box.upper, box.lower), 0.0);
                bool seenIt = seen[firstSegment[w] + p];
                ENSURE(!lsSegmentOverlapsBox(&seg, &asBox) || seenIt);
                ENSURE(!seenIt || lsAABB_Overlaps(lsAABB_OfSegment(seg.a, seg.b), box));
            }
        }
        for (int i = 0; i < world->targetCount; ++i)
        {
            bool active;
            lsCircle circle = lsScene_Target(scene, i, &active);
            ENSURE(seen[r.targetBase + i] == (active && lsAABB_Overlaps(lsCircle_Bounds(&circle), box)));
        }
        for (int i = 0; i < world->boxCount; ++i)
        {
            ENSURE(seen[r.boxBase + i] == lsAABB_Overlaps(lsBox_Bounds(lsScene_Box(scene, i)), box));
        }
        for (int i = 0; i < world->polygonCount; ++i)
        {
            ENSURE(seen[r.polygonBase + i] == lsAABB_Overlaps(lsPolygon_Bounds(lsScene_Polygon(scene, i)), box));
        }
        if (q == 0)
        {
            ENSURE(r.reported == 1 && seen[r.targetBase + 3]);
        }
    }
    // The callback can stop the query.
    memset(seen, 0, (size_t)total);
    QueryResult r = {seen,
                     segments,
                     segments,
                     segments + world->targetCount,
                     segments + world->targetCount + world->boxCount,
                     firstSegment,
                     0,
                     0,
                     3};
    lsScene_QueryAABB(scene, (lsAABB){lsV(-20.0, -20.0), lsV(20.0, 20.0)}, Collect, &r);
    ENSURE(r.reported == 3);
    lsFree(seen, (size_t)total);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A closed 10 m room with walls and targets inside, and huge primitives beside it or through it: one wall from
// -1e200 to 1e200, a box and a target of about 1e6 m. The grid must stay sized to the room (the huge ones are kept
// out of it and tested on every cast), and every answer and query must stay exact.
static int LongWallTest(void)
{
    for (int variant = 0; variant < 2; ++variant)
    {
        lsWorld* world = MakeCity(131, 200, 20, 5, 5, 5.0, lsV(0.0, 0.0), 0.0);
        lsVec2 room[4] = {lsV(-6.0, -6.0), lsV(6.0, -6.0), lsV(6.0, 6.0), lsV(-6.0, 6.0)};
        lsWorld_AddWall(world, room, 4, true);
        double y = variant == 0 ? 20.0 : 0.25; // beside the room, or right through it
        lsVec2 huge[2] = {lsV(-1e200, y), lsV(1e200, y + 3.0)};
        lsWorld_AddWall(world, huge, 2, false);
        lsBoxDef b = lsDefaultBoxDef();
        b.center = lsV(0.0, -2e6);
        b.size = lsV(3e6, 1e6);
        lsWorld_AddBox(world, b);
        lsTargetDef t = lsDefaultTargetDef();
        t.center = lsV(5e5, 0.0);
        t.radius = 4e5;
        lsWorld_AddTarget(world, t);
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellSize < 2.0); // sized to the room, not to 1e200
        ENSURE(info.gridBounds.upper.x - info.gridBounds.lower.x < 30.0);
        ENSURE(info.cellItems < 20 * (long long)info.segmentCount); // nothing registered across the whole grid
        int hits = 0;
        ENSURE(RandomRays(scene, NULL, 132, 20000, 8.0, lsV(0.0, 0.0), &hits) == 0);
        ENSURE(RandomRays(scene, NULL, 133, 5000, 3e6, lsV(0.0, 0.0), &hits) == 0);
        // Straight at the huge wall from inside and outside the room, and along it.
        lsRng rng = lsMakeRng(134);
        int hugeHits = 0;
        for (int i = 0; i < 2000; ++i)
        {
            lsVec2 origin = lsTestRandomPoint(&rng, -30.0, 30.0, -30.0, 30.0);
            lsRayInput in = {origin, lsNormalize(lsV(lsRng_Range(&rng, -0.2, 0.2), 1.0)), 1e3};
            in.direction = i % 3 == 0 ? lsV(1.0, 0.0) : in.direction;
            lsRayHit hit = lsScene_CastRay(scene, NULL, &in);
            hugeHits += hit.hit && hit.kind == ls_hitWall && hit.index == world->wallCount - 1 ? 1 : 0;
            ENSURE(Compare(scene, NULL, in, NULL) == 0);
        }
        ENSURE(hugeHits > 100);
        // Queries: the huge wall is reported where its bounds meet the box, once.
        int segments = lsWorld_SegmentCount(world);
        int total = segments + world->targetCount + world->boxCount + world->polygonCount;
        int firstSegment[256];
        ENSURE(world->wallCount <= 256);
        for (int w = 0, k = 0; w < world->wallCount; ++w)
        {
            firstSegment[w] = k;
            k += lsScene_WallPartCount(scene, w);
        }
        unsigned char* seen = lsAllocZero((size_t)total, 1);
        QueryResult r = {seen,
                         segments,
                         segments,
                         segments + world->targetCount,
                         segments + world->targetCount + world->boxCount,
                         firstSegment,
                         0,
                         0,
                         0};
        lsScene_QueryAABB(scene, (lsAABB){lsV(-1.0, y - 1.0), lsV(1.0, y + 4.0)}, Collect, &r);
        ENSURE(r.duplicates == 0 && seen[segments - 1]);
        lsFree(seen, (size_t)total);
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    return 0;
}

// A world whose few walls span +-1e300: the cell size and counts are computed without overflow (UBSan would catch a
// float-to-int conversion out of range) and casts stay exact.
static int HugeWorldTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 a[2] = {lsV(-1e300, -1e300), lsV(1e300, 1e300)};
    lsVec2 b[2] = {lsV(1e300, -1e300), lsV(-1e300, 1e300)};
    lsVec2 c[2] = {lsV(-1.0, 2.0), lsV(1.0, 2.0)};
    lsWorld_AddWall(world, a, 2, false);
    lsWorld_AddWall(world, b, 2, false);
    lsWorld_AddWall(world, c, 2, false);
    // A target and a box near that size: their bounds' areas would overflow in metres (the stacked shapes' cells).
    lsWorld_AddTarget(world, (lsTargetDef){lsV(0.0, 0.0), 1e200, ls_food, 1.0});
    lsWorld_AddBox(world, (lsBoxDef){lsV(0.0, -5e299), lsV(1e299, 1e299), 0.5, 1.0});
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE(info.cellsX >= 1 && info.cellsY >= 1 && (long long)info.cellsX * info.cellsY <= 4194304LL * 4);
    ENSURE(isfinite(info.cellSize) && info.cellSize > 0.0);
    lsRng rng = lsMakeRng(141);
    for (int i = 0; i < 3000; ++i)
    {
        double scale = pow(10.0, lsRng_Range(&rng, 0.0, 299.0));
        lsVec2 origin = lsTestRandomPoint(&rng, -scale, scale, -scale, scale);
        lsRayInput in = {origin, RandomDirection(&rng), 4.0 * scale};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// One scene cast and queried from several threads at once (run under ThreadSanitizer by dev.sh): the same answers
// as one thread, and a query from inside a query's callback works.
typedef struct ThreadJob
{
    const lsScene* scene;
    const lsRayInput* rays;
    lsRayHit* hits;
    int* queryCounts;
} ThreadJob;

static bool CountQuery(void* context, lsHitKind kind, int index, int part)
{
    (void)kind, (void)index, (void)part;
    *(int*)context += 1;
    return true;
}

static void ThreadTask(void* context, int begin, int end, int worker)
{
    (void)worker;
    const ThreadJob* job = context;
    lsScene_CastRays(job->scene, NULL, job->rays + begin, end - begin, job->hits + begin);
    for (int i = begin; i < end; ++i)
    {
        lsVec2 o = job->rays[i].origin;
        lsAABB box = {lsSub(o, lsV(1.5, 1.0)), lsAdd(o, lsV(1.0, 1.5))};
        job->queryCounts[i] = 0;
        lsScene_QueryAABB(job->scene, box, CountQuery, job->queryCounts + i);
    }
}

typedef struct NestedQuery
{
    const lsScene* scene;
    int outer, inner;
} NestedQuery;

static bool NestedCallback(void* context, lsHitKind kind, int index, int part)
{
    (void)kind, (void)index, (void)part;
    NestedQuery* q = context;
    q->outer += 1;
    lsScene_QueryAABB(q->scene, (lsAABB){lsV(-2.0, -2.0), lsV(2.0, 2.0)}, CountQuery, &q->inner);
    return true;
}

static int ThreadsTest(void)
{
    lsWorld* world = MakeCity(151, 400, 40, 10, 10, 15.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    enum
    {
        count = 4000
    };
    lsRayInput* rays = lsAlloc(count * sizeof(lsRayInput));
    lsRng rng = lsMakeRng(152);
    for (int i = 0; i < count; ++i)
    {
        lsVec2 origin = lsTestRandomPoint(&rng, -16.0, 16.0, -16.0, 16.0), dir = RandomDirection(&rng);
        rays[i] = (lsRayInput){origin, dir, lsRng_Range(&rng, 0.0, 30.0)};
    }
    ThreadJob one = {scene, rays, lsAlloc(count * sizeof(lsRayHit)), lsAlloc(count * sizeof(int))};
    ThreadJob many = {scene, rays, lsAlloc(count * sizeof(lsRayHit)), lsAlloc(count * sizeof(int))};
    lsPool_ParallelFor(NULL, count, 64, ThreadTask, &one);
    lsPool* pool = lsCreatePool(4);
    lsPool_ParallelFor(pool, count, 64, ThreadTask, &many);
    lsDestroyPool(pool);
    for (int i = 0; i < count; ++i)
    {
        ENSURE(SameHit(one.hits + i, many.hits + i));
        ENSURE(one.queryCounts[i] == many.queryCounts[i]);
    }
    NestedQuery q = {scene, 0, 0};
    lsScene_QueryAABB(scene, (lsAABB){lsV(-1.0, -1.0), lsV(1.0, 1.0)}, NestedCallback, &q);
    int direct = 0;
    lsScene_QueryAABB(scene, (lsAABB){lsV(-2.0, -2.0), lsV(2.0, 2.0)}, CountQuery, &direct);
    ENSURE(q.outer > 0 && q.inner == q.outer * direct);
    lsFree(one.hits, count * sizeof(lsRayHit));
    lsFree(many.hits, count * sizeof(lsRayHit));
    lsFree(one.queryCounts, count * sizeof(int));
    lsFree(many.queryCounts, count * sizeof(int));
    lsFree(rays, count * sizeof(lsRayInput));
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int EdgeWorldsTest(void)
{
    // Empty world: nothing to hit, queries report nothing.
    lsWorld* world = lsCreateWorld();
    lsScene* scene = lsCreateScene(world);
    lsRayInput in = {lsV(0.0, 0.0), lsV(1.0, 0.0), 100.0};
    ENSURE(!lsScene_CastRay(scene, NULL, &in).hit);
    lsCircle v = {lsV(5.0, 0.0), 1.0};
    lsDynamicObjects dyn = {.vehicles = &v, .vehicleCount = 1, .skipRobot = -1};
    lsRayHit hit = lsScene_CastRay(scene, &dyn, &in);
    ENSURE(hit.hit && hit.kind == ls_hitVehicle && hit.fraction == 4.0);
    lsDestroyScene(scene);
    // One huge wall (a very elongated world) and one far away point-like target.
    lsVec2 wall[2] = {lsV(-50000.0, 1.0), lsV(50000.0, 1.0)};
    lsWorld_AddWall(world, wall, 2, false);
    lsTargetDef t = lsDefaultTargetDef();
    t.center = lsV(40000.0, -3.0);
    t.radius = 0.5;
    lsWorld_AddTarget(world, t);
    scene = lsCreateScene(world);
    lsRng rng = lsMakeRng(121);
    for (int i = 0; i < 5000; ++i)
    {
        lsVec2 origin = lsTestRandomPoint(&rng, -60000.0, 60000.0, -10.0, 10.0), dir = RandomDirection(&rng);
        lsRayInput r = {origin, dir, lsRng_Range(&rng, 0.0, 100000.0)};
        ENSURE(Compare(scene, NULL, r, NULL) == 0);
    }
    hit = lsScene_CastRay(scene, NULL, &(lsRayInput){lsV(39990.0, -3.0), lsV(1.0, 0.0), 20.0});
    ENSURE(hit.hit && hit.kind == ls_hitTarget && hit.fraction == 9.5);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A sparse room: a 100 m square of 1 m wall pieces, a few clusters of short walls and targets inside, and open
// space between them, so that most blocks of cells are empty and the walk crosses them in one step.
static lsWorld* MakeSparseRoom(uint64_t seed, int clusters)
{
    lsRng rng = lsMakeRng(seed);
    lsWorld* world = lsCreateWorld();
    for (int side = 0; side < 4; ++side)
    {
        for (int k = 0; k < 100; ++k)
        {
            double u0 = -50.0 + (double)k, u1 = u0 + 1.0;
            lsVec2 p[2];
            p[0] =
                side == 0 ? lsV(u0, -50.0) : (side == 1 ? lsV(50.0, u0) : (side == 2 ? lsV(u0, 50.0) : lsV(-50.0, u0)));
            p[1] =
                side == 0 ? lsV(u1, -50.0) : (side == 1 ? lsV(50.0, u1) : (side == 2 ? lsV(u1, 50.0) : lsV(-50.0, u1)));
            lsWorld_AddWall(world, p, 2, false);
        }
    }
    for (int cluster = 0; cluster < clusters; ++cluster)
    {
        double cy = lsRng_Range(&rng, -35.0, 35.0);
        lsVec2 c = lsV(lsRng_Range(&rng, -35.0, 35.0), cy);
        for (int k = 0; k < 30; ++k)
        {
            lsVec2 p[2];
            double y = lsRng_Range(&rng, -3.0, 3.0);
            p[0] = lsAdd(c, lsV(lsRng_Range(&rng, -3.0, 3.0), y));
            lsVec2 along = RandomDirection(&rng);
            p[1] = lsAdd(p[0], lsScale(lsRng_Range(&rng, 0.3, 1.5), along));
            lsWorld_AddWall(world, p, 2, false);
        }
        lsTargetDef t = lsDefaultTargetDef();
        t.center = lsAdd(c, lsV(4.0, 0.0));
        t.radius = 0.3;
        lsWorld_AddTarget(world, t);
    }
    return world;
}

static int EmptyBlocksTest(void)
{
    lsWorld* world = MakeSparseRoom(151, 4);
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    double s = info.cellSize;
    lsVec2 g0 = info.gridBounds.lower;
    // Random rays, then rays along cell lines and through cell corners (every fourth line is a block boundary).
    ENSURE(RandomRays(scene, NULL, 152, 20000, 50.0, lsV(0.0, 0.0), NULL) == 0);
    lsRng rng = lsMakeRng(153);
    for (int i = 0; i < 20000; ++i)
    {
        int cx = (int)lsRng_Range(&rng, 0.0, (double)info.cellsX + 1.0);
        int cy = (int)lsRng_Range(&rng, 0.0, (double)info.cellsY + 1.0);
        lsVec2 corner = lsV(g0.x + (double)cx * s, g0.y + (double)cy * s);
        double sx = i % 2 == 0 ? 1.0 : -1.0, sy = i % 4 < 2 ? 1.0 : -1.0;
        lsVec2 d = i % 3 == 0 ? lsV(sx, 0.0) : (i % 3 == 1 ? lsV(sx, sy) : lsV(sx, sy * 0.25)); // 0.25: 4-cell slope
        lsRayInput in = {corner, d, lsRng_Range(&rng, 0.0, 150.0)};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    // Targets respawned into the open space (displaced, then rebuilt into cells that were empty).
    for (int round = 0; round < 40; ++round)
    {
        int i = round % world->targetCount;
        double y = lsRng_Range(&rng, -45.0, 45.0);
        lsScene_SetTarget(scene, i, lsV(lsRng_Range(&rng, -45.0, 45.0), y), true);
        ENSURE(RandomRays(scene, NULL, 154 + (uint64_t)round, 1000, 50.0, lsV(0.0, 0.0), NULL) == 0);
    }
    lsDestroyScene(scene);
    // Crossing the empty room visits far fewer cells than the cells it crosses.
    lsWorld* empty = MakeSparseRoom(151, 0);
    scene = lsCreateScene(empty);
    info = lsScene_GetInfo(scene);
    lsCastStats stats = {0, 0, 0, 0};
    lsRayInput across = {lsV(0.1, 0.2), lsV(1.0, 0.0), 100.0};
    lsRayHit hit = lsScene_CastRayStats(scene, NULL, &across, &stats);
    ENSURE(hit.hit && hit.kind == ls_hitWall && hit.fraction == 49.9);
    ENSURE((double)stats.cells < 0.5 * 49.9 / info.cellSize);
    // A sparse grid gets finer cells (three per primitive, not two: see lsSceneGrid_Build).
    ENSURE(info.cellsX * info.cellsY > 3 * info.segmentCount && info.cellItems < (long long)info.cellsX * info.cellsY);
    // Shapes alone are walked dense whatever their grid: they keep two cells per primitive.
    lsWorld* boxes = lsCreateWorld();
    lsRng boxRng = lsMakeRng(156);
    for (int k = 0; k < 400; ++k)
    {
        lsBoxDef b = lsDefaultBoxDef();
        b.center = lsTestRandomPoint(&boxRng, -50.0, 50.0, -50.0, 50.0);
        b.size = lsV(0.5, 0.5);
        lsWorld_AddBox(boxes, b);
    }
    lsScene* boxScene = lsCreateScene(boxes);
    lsSceneInfo boxInfo = lsScene_GetInfo(boxScene);
    ENSURE(boxInfo.cellsX * boxInfo.cellsY < 3 * 400);
    ENSURE(RandomRays(boxScene, NULL, 157, 2000, 50.0, lsV(0.0, 0.0), NULL) == 0);
    lsDestroyScene(boxScene);
    lsDestroyWorld(boxes);
    lsDestroyScene(scene);
    lsDestroyWorld(empty);
    lsDestroyWorld(world);
    return 0;
}

static int StatsTest(void)
{
    // The walk visits few cells and tests few candidates per ray: the cost follows what a beam can see.
    lsWorld* world = MakeCity(131, 2000, 100, 0, 0, 45.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsCastStats stats = {0, 0, 0, 0};
    lsRng rng = lsMakeRng(132);
    for (int i = 0; i < 20000; ++i)
    {
        lsVec2 origin = lsTestRandomPoint(&rng, -40.0, 40.0, -40.0, 40.0);
        lsRayInput in = {origin, RandomDirection(&rng), 30.0};
        lsRayHit a = lsScene_CastRayStats(scene, NULL, &in, &stats);
        lsRayHit b = lsScene_CastRayBrute(scene, NULL, &in);
        ENSURE(SameHit(&a, &b));
    }
    ENSURE(stats.rays == 20000);
    double exactPerRay = (double)stats.exactTests / (double)stats.rays;
    double candidatesPerRay = (double)stats.candidates / (double)stats.rays;
    printf("    cells/ray %.2f, candidates/ray %.2f, exact tests/ray %.2f\n", (double)stats.cells / (double)stats.rays,
           candidatesPerRay, exactPerRay);
    ENSURE(candidatesPerRay < 100.0 && exactPerRay < 10.0);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int NearlyParallelTest(void)
{
    // Diagonal walls and beams within a hair of their direction (as lidar beams at 45 degrees are): the exact
    // routine's fraction is poorly conditioned there, and the index must still agree with brute force.
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(141);
    for (int i = 0; i < 200; ++i)
    {
        double k = 0.1 * (double)(i % 40) - 2.0, start = lsRng_Range(&rng, -10.0, 10.0);
        double len = lsRng_Range(&rng, 0.5, 3.0);
        lsVec2 p[2] = {lsV(start, start + k), lsV(start + len, start + len * (1.0 + 1e-13 * (i % 3)) + k)};
        lsWorld_AddWall(world, p, 2, false);
    }
    lsScene* scene = lsCreateScene(world);
    const double deltas[7] = {0.0, 1e-16, -1e-16, 1e-15, -1e-14, 1e-12, -1e-9};
    for (int i = 0; i < 20000; ++i)
    {
        double k = 0.1 * (double)((int)lsRng_Range(&rng, 0.0, 40.0)) - 2.0;
        double x = lsRng_Range(&rng, -12.0, 12.0);
        lsVec2 origin = i % 2 == 0 ? lsV(x, x + k) : lsV(x, x + k + lsRng_Range(&rng, -1e-9, 1e-9));
        double angle = (i % 4 < 2 ? 0.25 * LS_PI : -0.75 * LS_PI) + deltas[i % 7];
        lsRayInput in = {origin, lsDirection(angle), 30.0};
        ENSURE(Compare(scene, NULL, in, NULL) == 0);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Clusters of short walls (10 to 30 cm) in a square of side 2 half, with open space between them.
static lsWorld* MakeClusters(uint64_t seed, int clusters, int wallsPerCluster, double half)
{
    lsRng rng = lsMakeRng(seed);
    lsWorld* world = lsCreateWorld();
    for (int cluster = 0; cluster < clusters; ++cluster)
    {
        lsVec2 c = lsTestRandomPoint(&rng, -half, half, -half, half);
        for (int k = 0; k < wallsPerCluster; ++k)
        {
            lsVec2 p[2];
            double y = lsRng_Range(&rng, -1.0, 1.0);
            p[0] = lsAdd(c, lsV(lsRng_Range(&rng, -1.0, 1.0), y));
            lsVec2 along = RandomDirection(&rng);
            p[1] = lsAdd(p[0], lsScale(lsRng_Range(&rng, 0.1, 0.3), along));
            lsWorld_AddWall(world, p, 2, false);
        }
    }
    return world;
}

static int BatchTest(void)
{
    // lsScene_CastRays gives exactly what lsScene_CastRay and the brute force give, ray by ray: in a small city (walked
    // a ray at a time) and in one whose index outgrows a core's cache (walked in lock step; then as on a machine whose
    // cache holds it, in packets or a ray at a time), with rays that start outside the grid, runs of rays from one
    // origin (a scan's beams), rays that cast nothing, and short batches.
    for (int run = 0; run < 5; ++run)
    {
        // A small city, a big one, and a big sparse map (clusters of short walls in open space: squares of empty
        // cells crossed in one step, a round of the lanes each); the big ones with the lanes from 8 MB (a 32 MB
        // cache's), then without the lanes.
        int kind = run > 2 ? run - 2 : run;
        lsScene_SetLanesMinIndexBytes(run > 2 ? SIZE_MAX : (size_t)8 << 20);
        double half = kind == 0 ? 20.0 : (kind == 1 ? 340.0 : 700.0);
        lsWorld* world = kind == 0 ? MakeCity(151, 300, 30, 5, 5, half, lsV(0.0, 0.0), 0.0)
                                   : (kind == 1 ? MakeCity(153, 60000, 300, 50, 50, half, lsV(0.0, 0.0), 0.0)
                                                : MakeClusters(154, 7000, 20, half));
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        // Headers of 16 bytes, segment records of 40 (the lanes' threshold, 8 MB, counts these).
        double cellBytes = 16.0 * info.cellsX * info.cellsY + 40.0 * (double)info.cellItems;
        ENSURE(kind > 0 ? cellBytes > 8.5 * (1 << 20) : cellBytes < 0.5 * (1 << 20));
        ENSURE(kind < 2 || (long long)info.cellsX * info.cellsY > info.cellItems); // sparse
        lsRng rng = lsMakeRng(152);
        enum
        {
            count = 3000
        };
        lsRayInput* inputs = lsAlloc(count * sizeof(lsRayInput));
        lsRayHit* hits = lsAlloc(count * sizeof(lsRayHit));
        for (int i = 0; i < count; ++i)
        {
            double reach = i % 7 == 3 ? 1.3 * half : half;
            lsVec2 origin = lsTestRandomPoint(&rng, -reach, reach, -reach, reach);
            inputs[i] = (lsRayInput){origin, RandomDirection(&rng), i % 5 == 0 ? 300.0 : 30.0};
            if (i % 13 > 9 && i > 0)
            {
                inputs[i].origin = inputs[i - 1].origin;
            }
            inputs[i].maxFraction = i % 101 == 7 ? -1.0 : inputs[i].maxFraction;
            inputs[i].direction = i % 103 == 8 ? lsV(0.0, 0.0) : inputs[i].direction;
            inputs[i].direction = i % 107 == 9 ? lsV(0.0, 1.0) : inputs[i].direction;
        }
        lsCircle vehicle = {lsV(1.0, 1.0), 0.5};
        lsDynamicObjects dyn = {.vehicles = &vehicle, .vehicleCount = 1, .skipRobot = -1};
        for (int pass = 0; pass < 3; ++pass)
        {
            // The whole batch with the vehicle, then without it in short batches of 1 to 20 rays.
            for (int begin = 0, size = count; begin < count; begin += size)
            {
                size = pass == 0 ? count : 1 + (begin / 7) % 20;
                size = size < count - begin ? size : count - begin;
                lsScene_CastRays(scene, pass == 0 ? &dyn : NULL, inputs + begin, size, hits + begin);
            }
            for (int i = 0; i < count; ++i)
            {
                lsRayHit one = lsScene_CastRay(scene, pass == 0 ? &dyn : NULL, inputs + i);
                ENSURE(SameHit(&one, hits + i));
                if (i % (kind == 0 ? 10 : 100) == 0)
                {
                    lsRayHit brute = lsScene_CastRayBrute(scene, pass == 0 ? &dyn : NULL, inputs + i);
                    ENSURE(SameHit(&brute, hits + i));
                }
            }
        }
        lsFree(inputs, count * sizeof(lsRayInput));
        lsFree(hits, count * sizeof(lsRayHit));
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    lsScene_SetLanesMinIndexBytes(0);
    return 0;
}

// The same double, signed zeros told apart (the bits through memcpy: memcmp of doubles upsets clang-tidy).
static bool SameBits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static bool SameVecBits(lsVec2 a, lsVec2 b) { return SameBits(a.x, b.x) && SameBits(a.y, b.y); }

// Bit for bit, signed zeros included.
static bool SameHitBits(const lsRayHit* a, const lsRayHit* b)
{
    return a->hit == b->hit && a->kind == b->kind && a->index == b->index && a->part == b->part &&
           SameBits(a->fraction, b->fraction) && SameVecBits(a->point, b->point) && SameVecBits(a->normal, b->normal);
}

// Casts the rays through lsScene_CastRays, whole and in batches of 8 to 13 (a packet's queue cut short), and compares
// every answer bit for bit with lsScene_CastRay and every bruteEvery-th with the brute force; returns the mismatches,
// *hitCount the hits.
static int CompareBatch(const lsScene* scene, const lsRayInput* inputs, int count, int bruteEvery, int* hitCount)
{
    lsRayHit* hits = lsAlloc((size_t)count * sizeof(lsRayHit));
    int bad = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        for (int begin = 0, size = count; begin < count; begin += size)
        {
            size = pass == 0 ? count : 8 + (begin / 8) % 6;
            size = size < count - begin ? size : count - begin;
            lsScene_CastRays(scene, NULL, inputs + begin, size, hits + begin);
        }
        for (int i = 0; i < count; ++i)
        {
            lsRayHit one = lsScene_CastRay(scene, NULL, inputs + i);
            bad += !SameHitBits(&one, hits + i);
            if (i % bruteEvery == 0)
            {
                lsRayHit brute = lsScene_CastRayBrute(scene, NULL, inputs + i);
                bad += !SameHitBits(&brute, hits + i);
            }
            *hitCount += pass == 0 && hits[i].hit;
        }
    }
    lsFree(hits, (size_t)count * sizeof(lsRayHit));
    return bad;
}

static int PacketTest(void)
{
    // lsScene_CastRays on a dense grid without moving objects (four rays at a time in AVX2 lanes where the processor
    // has them, else a ray at a time): every answer bit for bit the brute force's. A city with targets, boxes and
    // polygons in its cells; a maze far from the origin with rays from its lattice points to others (through shared
    // corners, along walls, ending on corners); a cell crowded with 1 000 walls (more candidates than a walk keeps
    // pending); short walls with rays aimed at their endpoints and a hair beside them (where the side tests' error
    // bound decides); rays from outside the grid, with no direction, a negative or an infinite range.
    enum
    {
        count = 4000
    };
    lsRayInput* inputs = lsAlloc(count * sizeof(lsRayInput));
    lsVec2 ends[600];
    for (int kind = 0; kind < 4; ++kind)
    {
        lsWorld* world = NULL;
        double half = 0.0;
        lsVec2 centre = lsV(0.0, 0.0);
        if (kind == 0)
        {
            half = 25.0, world = MakeCity(161, 600, 120, 30, 30, half, centre, 0.0);
        }
        else if (kind == 1)
        {
            half = 12.0, centre = lsV(123456.789, -98765.4321), world = MakeMaze(162, 12, centre);
        }
        else if (kind == 3)
        {
            half = 20.0, centre = lsV(-3.7, 5.1), world = lsCreateWorld();
            lsRng walls = lsMakeRng(165);
            for (lsVec2* wall = ends; wall < ends + 600; wall += 2)
            {
                lsVec2 p = lsAdd(centre, lsTestRandomPoint(&walls, -half, half, -half, half));
                wall[0] = p, wall[1] = lsMulAdd(p, lsRng_Range(&walls, 1.0, 6.0), RandomDirection(&walls));
                lsWorld_AddWall(world, wall, 2, false);
            }
        }
        else
        {
            half = 10.0, centre = lsV(10.0, 10.0), world = lsCreateWorld();
            lsRng crowd = lsMakeRng(163);
            lsVec2 room[4] = {{0.0, 0.0}, {20.0, 0.0}, {20.0, 20.0}, {0.0, 20.0}};
            lsWorld_AddWall(world, room, 4, true);
            for (int i = 0; i < 1500; ++i)
            {
                double r = i < 1000 ? 0.25 * sqrt(lsRng_Uniform(&crowd)) : 8.0 * lsRng_Uniform(&crowd);
                lsVec2 p = lsAdd(centre, lsScale(r, RandomDirection(&crowd)));
                lsVec2 dir = RandomDirection(&crowd);
                double length = lsRng_Range(&crowd, 0.2, 3.0);
                lsVec2 points[2] = {lsMulSub(p, length, dir), lsMulAdd(p, length, dir)};
                lsWorld_AddWall(world, points, 2, false);
            }
        }
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE((long long)info.cellsX * info.cellsY <= info.cellItems); // dense: the packets' grid
        lsRng rng = lsMakeRng(164 + (uint64_t)kind);
        for (int i = 0; i < count; ++i)
        {
            lsRayInput in;
            if (kind == 1 && i % 2 == 0)
            {
                // From a lattice point, a cell's centre or an edge's middle to another lattice point.
                double ox = -half + 2.0 * round(lsRng_Range(&rng, 0.0, half)) + (i % 6 == 2 ? 1.0 : 0.0);
                double oy = -half + 2.0 * round(lsRng_Range(&rng, 0.0, half)) + (i % 6 == 4 ? 1.0 : 0.0);
                double tx = -half + 2.0 * round(lsRng_Range(&rng, -2.0, half + 2.0));
                double ty = i % 8 == 0 ? oy : -half + 2.0 * round(lsRng_Range(&rng, -2.0, half + 2.0));
                lsVec2 origin = lsAdd(centre, lsV(ox, oy)), target = lsAdd(centre, lsV(tx, ty));
                in = (lsRayInput){origin, lsSub(target, origin), 1.0};
                in.direction = lsVecEqual(origin, target) ? lsV(1.0, 0.0) : in.direction;
            }
            else if (kind == 3 && i % 4 != 0)
            {
                // At an endpoint (a unit direction: its side of the ray is a rounding error), or a hair beside it.
                lsVec2 end = ends[(int)(lsRng_Uniform(&rng) * 600.0) % 600];
                lsVec2 origin = lsMulAdd(end, lsRng_Range(&rng, 0.1, 2.0), RandomDirection(&rng));
                lsVec2 d = lsSub(end, origin);
                double hair = (double)(i % 4 - 2) * 1e-15, length = lsLength(d);
                in = (lsRayInput){origin, lsNormalize(lsMulAdd(d, hair, lsV(-d.y, d.x))),
                                  length * lsRng_Range(&rng, 0.999, 1.5)};
            }
            else
            {
                double reach = i % 9 == 4 ? 1.5 * half : half;
                reach = kind == 2 && i % 3 == 0 ? 0.3 : reach; // from within the crowd
                lsVec2 origin = lsAdd(centre, lsTestRandomPoint(&rng, -reach, reach, -reach, reach));
                in = (lsRayInput){origin, lsScale(lsRng_Range(&rng, 0.2, 3.0), RandomDirection(&rng)),
                                  lsRng_Range(&rng, 0.5, 3.0) * half};
            }
            in.maxFraction = i % 97 == 5 ? -1.0 : (i % 89 == 6 ? HUGE_VAL : in.maxFraction);
            in.direction = i % 83 == 7 ? lsV(0.0, 0.0) : in.direction;
            in.direction = i % 79 == 8 ? lsV(0.0, -2.0) : (i % 73 == 9 ? lsV(0.5, 0.0) : in.direction);
            inputs[i] = in;
        }
        int hits = 0;
        ENSURE(CompareBatch(scene, inputs, count, 1, &hits) == 0);
        ENSURE(hits > count / 2);
        if (kind == 0)
        {
            // Targets moved out of their cells until the targets' records are rebuilt (the cells that hold targets
            // change, and with them the flag the packets read in a dense grid's headers), then the same rays again,
            // in packets (none displaced).
            for (int t = 0; t <= LS_MAX_DISPLACED; ++t)
            {
                lsVec2 c = lsScene_Target(scene, t, NULL).center;
                lsVec2 moved = {c.x > 0.0 ? c.x - half : c.x + half, c.y > 0.0 ? c.y - 0.5 * half : c.y + 0.5 * half};
                ENSURE(lsScene_SetTarget(scene, t, moved, true));
            }
            ENSURE(scene->displacedCount == 0);
            ENSURE(CompareBatch(scene, inputs, count, 1, &hits) == 0);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    lsFree(inputs, count * sizeof(lsRayInput));
    return 0;
}

// The lattice of ExactLatticeTest: walls at the points (i, j) for |i|, |j| <= half, those of the middle 13 x 13 (and
// the tiny walls) in ends.
static int ExactLattice(lsWorld* world, int half, lsVec2 (*ends)[2])
{
    int walls = 0;
    for (int i = -half; i <= half; ++i)
    {
        for (int j = -half; j <= half; ++j)
        {
            double x = (double)i, y = (double)j;
            bool middle = i >= -6 && i <= 6 && j >= -6 && j <= 6;
            // Along the axes, one end at -0 and the other at +0.
            lsVec2 h[2] = {{x, j == 0 ? 0.0 : y}, {x + 0.6, j == 0 ? -0.0 : y}};
            lsVec2 v[2] = {{i == 0 ? -0.0 : x, y}, {i == 0 ? 0.0 : x, y + 0.6}};
            lsVec2 diagonal[2] = {{x + 0.7, y + 0.2}, {x + 0.9, y + 0.55}}; // enough walls for a dense grid
            lsWorld_AddWall(world, h, 2, false);
            lsWorld_AddWall(world, diagonal, 2, false);
            bool vertical = i != 0 || j < 3; // the line x = 0 left open above y = 3 for the tiny walls
            if (vertical)
            {
                lsWorld_AddWall(world, v, 2, false);
            }
            for (int k = 0; middle && k < 2 + vertical; ++k)
            {
                const lsVec2* e = k == 0 ? h : (k == 1 ? diagonal : v);
                ends[walls][0] = e[0], ends[walls][1] = e[1], walls += 1;
            }
        }
    }
    return walls;
}

// The exact casts of walks that end with one segment (four in AVX2 lanes, CastExactLanes), bit for bit the brute
// force's, where each of the scalar routine's decisions goes to the whole routine or turns on a rounding: a dense
// lattice of short walls whose ends on the axes are zeros of opposite signs (the box's case the common case leaves to
// the whole routine), walls of 1e-160 m at the origin (their normal is NaN: not the inline unit vector), rays aimed at
// points of walls with the range ending there within a few ulps (the range's filter and the clamp), rays from points
// of walls (a numerator of zero), rays along the lattice's lines (parallel walls), rays from points as far from both
// ends of 45-degree walls (the nearer end's tie, which the numerator's rounding shows) and random ones. half 6: the
// packets' (an index in a core's cache); half 80: an index over 8 MB (LanesExactTest), with a long wall along y =
// 1 cast before the walk (its hit is the ray's answer so far, which a walk's queued cast must not overwrite: the rays
// to y = 1 hit it and a lattice wall at about the same fraction).
static int ExactLatticeTest(int half)
{
    lsWorld* world = lsCreateWorld();
    enum
    {
        wallCount = 3 * 13 * 13 - 4 + 8 + 8,
    };
    int count = half > 6 ? 3000 : 6000;
    lsVec2 ends[wallCount][2];
    int walls = ExactLattice(world, half, ends);
    for (int k = 0; k < 8; ++k)
    {
        // Across the line x = 0 above y = 3.
        double s = (k & 1) != 0 ? -1e-160 : 1e-160, y = (double)(3 + (k >> 1)) + ((k & 1) != 0 ? 0.6 : 0.3);
        lsVec2 tiny[2] = {{s, y}, {-s, y}};
        lsWorld_AddWall(world, tiny, 2, false);
        ends[walls][0] = tiny[0], ends[walls][1] = tiny[1], walls += 1;
    }
    lsRng tieRng = lsMakeRng(45);
    for (int k = 0; k < 8; ++k)
    {
        // At 45 degrees about a centre c, clear of the lattice's walls: a = c - (u, u), b = c + (u, u), u of 45
        // significant bits (every coordinate and difference exact, the numerator's products rounded). From a point
        // of the perpendicular through c, o = c + w (-1, 1) (exact too), both ends are as far in |x| + |y| (the same
        // two terms added the other way round), and the numerator computed from either end differs in its last bits:
        // the exact cast's choice of the nearer end (the first on a tie) decides it.
        int column = k % 4 - 2, row = k / 4 - 2;
        lsVec2 c = {(double)column + 0.375, (double)row + 0.375};
        double u = ldexp((double)(lsRng_Next(&tieRng) % (1ull << 41)) + (double)(1ull << 41) * 1.5, -45);
        lsVec2 diagonal[2] = {{c.x - u, c.y - u}, {c.x + u, c.y + u}};
        if ((k & 1) != 0)
            diagonal[0] = lsV(c.x + u, c.y + u), diagonal[1] = lsV(c.x - u, c.y - u);
        lsWorld_AddWall(world, diagonal, 2, false);
        ends[walls][0] = diagonal[0], ends[walls][1] = diagonal[1], walls += 1;
    }
    ENSURE(walls == wallCount);
    if (half > 6)
    {
        lsVec2 axis[2] = {{-200.0, 1.0}, {200.0, 1.0}}; // beyond the lattice: kept out of the grid
        lsWorld_AddWall(world, axis, 2, false);
    }
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE((long long)info.cellsX * info.cellsY <= info.cellItems); // dense
    // Headers of 16 bytes, segment records of 40 (the lanes' threshold, 8 MB, counts these).
    double cellBytes = 16.0 * info.cellsX * info.cellsY + 40.0 * (double)info.cellItems;
    ENSURE(half > 6 ? cellBytes > 8.5 * (1 << 20) : cellBytes < 0.5 * (1 << 20));
    lsRayInput* inputs = lsAlloc((size_t)count * sizeof(lsRayInput));
    lsRng rng = lsMakeRng(171);
    for (int i = 0; i < count; ++i)
    {
        int w = (int)(lsRng_Next(&rng) % (uint64_t)wallCount);
        lsVec2 a = ends[w][0], b = ends[w][1];
        lsVec2 onWall = lsMulAdd(a, lsRng_Uniform(&rng), lsSub(b, a));
        lsVec2 origin = lsTestRandomPoint(&rng, -7.0, 7.0, -7.0, 7.0);
        lsRayInput in = {origin, RandomDirection(&rng), lsRng_Range(&rng, 0.5, 20.0)};
        switch (i % 5)
        {
        case 0: // to a point of a wall, the range ending there within two ulps
            in.direction = lsSub(onWall, origin);
            in.maxFraction = 1.0 + (double)((int)(lsRng_Next(&rng) % 5) - 2) * DBL_EPSILON;
            break;
        case 1: // from a point of a wall
            in.origin = onWall;
            break;
        case 2: // along a line of the lattice, from a point of it
        {
            double line = (double)((int)(lsRng_Next(&rng) % 13) - 6);
            bool alongX = (i & 8) != 0;
            in.origin = alongX ? lsV(origin.x, line) : lsV(line, origin.y);
            in.direction = alongX ? lsV((i & 16) != 0 ? 1.0 : -1.0, 0.0) : lsV(0.0, (i & 16) != 0 ? 1.0 : -1.0);
            break;
        }
        case 3: // up the line x = 0 (or a hair beside it) through a tiny wall, nothing else in reach
        {
            double x = (double)((int)(lsRng_Next(&rng) % 5) - 2) * 0.25e-160;
            int k = (int)(lsRng_Next(&rng) % 8);
            in.origin = lsV(x, (double)(3 + (k >> 1)) + ((k & 1) != 0 ? 0.5 : 0.2));
            in.direction = lsV(0.0, lsRng_Range(&rng, 0.5, 2.0));
            in.maxFraction = 0.2 / in.direction.y;
            break;
        }
        default:
            if (half > 6 && (i & 1) != 0) // to a point of y = 1 from near it: the long wall and a lattice wall
            {
                lsVec2 target = lsV(lsRng_Range(&rng, -6.0, 6.0), 1.0);
                in.origin = lsMulAdd(target, lsRng_Range(&rng, 0.01, 0.1), RandomDirection(&rng));
                in.direction = lsSub(target, in.origin);
                in.maxFraction = 1.5;
            }
            else if ((i & 2) != 0) // from a point as far from both ends of a 45-degree wall to a point of it
            {
                const lsVec2* e = ends[wallCount - 8 + (int)(lsRng_Next(&rng) % 8)];
                lsVec2 c = lsMulAdd(e[0], 0.5, lsSub(e[1], e[0]));
                double off = ldexp((double)((int64_t)(lsRng_Next(&rng) % (1ull << 43)) - (int64_t)(1ull << 42)), -45);
                in.origin = lsV(c.x - off, c.y + off);
                in.direction = lsSub(lsMulAdd(e[0], lsRng_Uniform(&rng), lsSub(e[1], e[0])), in.origin);
                in.maxFraction = 2.0;
            }
            break;
        }
        inputs[i] = in;
    }
    int hits = 0;
    ENSURE(CompareBatch(scene, inputs, count, half > 6 ? 10 : 1, &hits) == 0);
    ENSURE(hits > count / 2);
    lsFree(inputs, (size_t)count * sizeof(lsRayInput));
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int PacketExactTest(void) { return ExactLatticeTest(6); }

// The lattice of an index over 8 MB walked in lock step (as where the last-level cache is 32 MB), then in packets (as
// where the cache holds it).
static int LanesExactTest(void)
{
    lsScene_SetLanesMinIndexBytes((size_t)8 << 20);
    int failed = ExactLatticeTest(80);
    lsScene_SetLanesMinIndexBytes(SIZE_MAX);
    failed = failed != 0 ? failed : ExactLatticeTest(80);
    lsScene_SetLanesMinIndexBytes(0);
    return failed;
}

// A wall segment drawn at random: its chain, then its part.
static lsSegment RandomWallSegment(const lsScene* scene, int wallCount, lsRng* rng)
{
    int chain = (int)(lsRng_Next(rng) % (uint64_t)wallCount);
    int part = (int)(lsRng_Next(rng) % (uint64_t)lsScene_WallPartCount(scene, chain));
    return lsScene_WallSegment(scene, chain, part);
}

// Casts the fan (start + i increment for i < beams) from o through lsScene_CastFan in blocks of up to
// LS_FAN_MAX_BEAMS, as the lidar does, and compares every beam with the brute force; returns the mismatches. *swept
// counts the blocks the sweep took, *hits the beams that hit.
static int CompareFan(const lsScene* scene, lsVec2 o, double start, double increment, int beams, double range,
                      int* swept, int* hits)
{
    static lsRayInput inputs[LS_FAN_MAX_BEAMS];
    static lsRayHit fanHits[LS_FAN_MAX_BEAMS];
    lsBeamFan fan = {o, range, start, increment, beams};
    int bad = 0;
    for (int first = 0; first < beams; first += LS_FAN_MAX_BEAMS)
    {
        int count = beams - first < LS_FAN_MAX_BEAMS ? beams - first : LS_FAN_MAX_BEAMS;
        for (int k = 0; k < count; ++k)
        {
            inputs[k] = (lsRayInput){o, lsDirection(start + (double)(first + k) * increment), range};
        }
        if (!lsScene_CastFan(scene, &fan, first, inputs, count, fanHits))
        {
            continue;
        }
        *swept += 1;
        for (int k = 0; k < count; ++k)
        {
            lsRayHit b = lsScene_CastRayBrute(scene, NULL, inputs + k);
            *hits += b.hit;
            if (!SameHitBits(fanHits + k, &b))
            {
                if (bad < 3)
                {
                    fprintf(stderr, "fan beam %d of %d (start %.17g, increment %.17g):\n", first + k, beams, start,
                            increment);
                    PrintMismatch(inputs + k, fanHits + k, &b);
                }
                bad += 1;
            }
        }
    }
    return bad;
}

// A random fan from o: 1 to 1500 beams over a full turn, 270 degrees or a narrow field, headings near the wrap of
// the angle and far from zero, ranges from 0.3 m to beyond the world.
static int RandomFan(const lsScene* scene, lsRng* rng, lsVec2 o, int* swept, int* hits)
{
    static const int beamCounts[] = {1, 2, 7, 360, 1080, 1500};
    static const double ranges[] = {0.3, 5.0, 30.0, 1e3};
    int beams = beamCounts[lsRng_Next(rng) % 6];
    double range = ranges[lsRng_Next(rng) % 4];
    double heading = lsRng_Uniform(rng) < 0.2 ? LS_PI - 1e-9 * lsRng_Uniform(rng) : lsRng_Range(rng, -LS_PI, LS_PI);
    heading += lsRng_Uniform(rng) < 0.1 ? 1000.0 : 0.0;
    lsScanLayout layout;
    double u = lsRng_Uniform(rng);
    layout = lsMakeScanLayout(beams, u < 0.3 ? 2.0 * LS_PI : (u < 0.7 ? 1.5 * LS_PI : (u < 0.9 ? 0.2 : 0.01)));
    return CompareFan(scene, o, heading + layout.angleMin, layout.angleIncrement, beams, range, swept, hits);
}

static int FanAgreementTest(void)
{
    int swept = 0, hits = 0, bad = 0;
    lsRng rng = lsMakeRng(1616);
    // A city with targets, boxes and polygons, unsnapped and snapped to a lattice (shared corners, beams through
    // endpoints and along walls from lattice origins).
    for (int snapped = 0; snapped < 2; ++snapped)
    {
        double snap = snapped ? 0.5 : 0.0;
        lsWorld* world = MakeCity(21 + (uint64_t)snapped, 400, 40, 15, 15, 20.0, lsV(0.0, 0.0), snap);
        lsScene* scene = lsCreateScene(world);
        for (int i = 0; i < 60 && bad == 0; ++i)
        {
            lsVec2 o = lsTestRandomPoint(&rng, -22.0, 22.0, -22.0, 22.0);
            if (snapped)
            {
                o = lsV(round(o.x / snap) * snap, round(o.y / snap) * snap);
                // eight beams a turn on a lattice: along the walls and through the corners
                bad += CompareFan(scene, o, -LS_PI, LS_PI / 4.0, 8, 30.0, &swept, &hits);
                bad += CompareFan(scene, o, -LS_PI, LS_PI / 720.0, 1440, 30.0, &swept, &hits);
                // beams over more than a turn (2.16 turns, 1.5, a turn and 0.3 rad): an object's beams are found
                // within the first turn only (and at its wrap), so such a fan is cast beam by beam (lsScene_CastFan
                // refuses it); 1.5 turns fail when the refusal moves to two turns, and a turn and 0.3 rad when it
                // allows 0.5 rad more
                bad += CompareFan(scene, o, 0.3, 2.0 * LS_PI / 500.0, 1080, 30.0, &swept, &hits);
                bad += CompareFan(scene, o, 0.3, 3.0 * LS_PI / 1079.0, 1080, 30.0, &swept, &hits);
                bad += CompareFan(scene, o, 0.3, (2.0 * LS_PI + 0.3) / 1079.0, 1080, 30.0, &swept, &hits);
            }
            bad += RandomFan(scene, &rng, o, &swept, &hits);
        }
        // From the grid's cell corners and edges, and a hair to either side: the origin's cell, and the rings'
        // squares, are then decided by rounding.
        lsSceneInfo info = lsScene_GetInfo(scene);
        for (int i = 0; i < 40 && bad == 0; ++i)
        {
            int ix = 1 + (int)(lsRng_Next(&rng) % (uint64_t)(info.cellsX - 2));
            int iy = 1 + (int)(lsRng_Next(&rng) % (uint64_t)(info.cellsY - 2));
            double nudge = (double)((int)(lsRng_Next(&rng) % 3) - 1) * 1e-12;
            lsVec2 o = {info.gridBounds.lower.x + (double)ix * info.cellSize + nudge,
                        info.gridBounds.lower.y + (double)iy * info.cellSize +
                            (i % 2 == 0 ? 0.0 : 0.5 * info.cellSize)};
            bad += RandomFan(scene, &rng, o, &swept, &hits);
            // Beams along the grid's lines and diagonals: through the corners of the rings' cells, which decide
            // whether a cell may be seen (the two corners each side of a ring takes).
            bad += CompareFan(scene, o, -LS_PI, LS_PI / 4.0, 8, 30.0, &swept, &hits);
        }
        // From on a wall (the middle of a segment) and from its endpoints (corners shared by a chain's segments).
        for (int i = 0; i < 40 && bad == 0; ++i)
        {
            int chain = (int)(lsRng_Next(&rng) % (uint64_t)world->wallCount);
            lsSegment seg = lsScene_WallSegment(scene, chain, 0);
            lsVec2 o = i % 2 == 0 ? lsScale(0.5, lsAdd(seg.a, seg.b)) : seg.b;
            bad += RandomFan(scene, &rng, o, &swept, &hits);
            bad +=
                CompareFan(scene, o, atan2(seg.b.y - seg.a.y, seg.b.x - seg.a.x) - 0.01, 0.005, 5, 30.0, &swept, &hits);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    // A wall far longer than the rest (out of the grid, tested on every cast) and a target moved out of the grid.
    lsWorld* world = MakeCity(23, 300, 10, 0, 0, 15.0, lsV(0.0, 0.0), 0.0);
    lsVec2 longWall[2] = {lsV(-1e5, 7.0), lsV(1e5, 7.5)};
    lsWorld_AddWall(world, longWall, 2, false);
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE(info.segmentCount == lsWorld_SegmentCount(world) && info.cellItems >= (long long)info.cellsX * info.cellsY);
    ENSURE(lsScene_SetTarget(scene, 3, lsV(500.0, 3.0), true));
    for (int i = 0; i < 60 && bad == 0; ++i)
    {
        lsVec2 o = lsTestRandomPoint(&rng, -15.0, 15.0, -15.0, 15.0);
        bad += RandomFan(scene, &rng, o, &swept, &hits);
        bad += CompareFan(scene, o, -LS_PI, 2.0 * LS_PI / 1080.0, 1080, 1e4, &swept, &hits);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    printf("    %d fan blocks swept, %d beams hit, %d mismatches\n", swept, hits, bad);
    ENSURE(bad == 0 && swept > 300 && hits > 100000);
    return 0;
}

// Sets pixel (x, y) of a w x h raster (row 0 at the bottom) when it lies inside.
static void SetPixel(uint8_t* cells, int w, int h, int x, int y, uint8_t value)
{
    if (x >= 0 && x < w && y >= 0 && y < h)
    {
        cells[(size_t)(h - 1 - y) * (size_t)w + (size_t)x] = value;
    }
}

// A map's walls as a warehouse scan leaves them (the depot map's kind): a w x h occupancy raster of 5 cm pixels with
// a ragged outer wall, shelves (blocks with holes, ragged edges), staircase walls at odd angles, pillars and specks;
// its lower-left corner at origin, turned by yaw.
static lsWorld* MakeMapWorld(uint64_t seed, int w, int h, lsVec2 origin, double yaw)
{
    lsRng rng = lsMakeRng(seed);
    lsGrid grid = {w, h, lsAllocZero((size_t)w * (size_t)h, 1), 0.05, origin, yaw};
    for (int x = 0; x < w; ++x)
    {
        for (int t = 0; t < 2 + (lsRng_Uniform(&rng) < 0.06); ++t)
        {
            SetPixel(grid.cells, w, h, x, 2 + t, ls_cellWall), SetPixel(grid.cells, w, h, x, h - 3 - t, ls_cellWall);
        }
    }
    for (int y = 0; y < h; ++y)
    {
        for (int t = 0; t < 2 + (lsRng_Uniform(&rng) < 0.06); ++t)
        {
            SetPixel(grid.cells, w, h, 2 + t, y, ls_cellWall), SetPixel(grid.cells, w, h, w - 3 - t, y, ls_cellWall);
        }
    }
    for (int i = 0; i < 4; ++i) // shelves
    {
        int x0 = 10 + (int)(lsRng_Next(&rng) % (uint64_t)(w - 40)),
            y0 = 10 + (int)(lsRng_Next(&rng) % (uint64_t)(h - 40));
        int sw = 8 + (int)(lsRng_Next(&rng) % 20), sh = 8 + (int)(lsRng_Next(&rng) % 20);
        for (int y = y0; y < y0 + sh; ++y)
        {
            for (int x = x0; x < x0 + sw; ++x)
            {
                bool edge = x == x0 || y == y0 || x == x0 + sw - 1 || y == y0 + sh - 1;
                bool keep = edge ? lsRng_Uniform(&rng) < 0.85 : lsRng_Uniform(&rng) < 0.9;
                SetPixel(grid.cells, w, h, x, y, keep ? ls_cellWall : ls_cellFree);
            }
        }
    }
    for (int i = 0; i < 5; ++i) // staircase walls
    {
        lsVec2 a = lsTestRandomPoint(&rng, 5.0, (double)w - 5.0, 5.0, (double)h - 5.0);
        double length = lsRng_Range(&rng, 10.0, 60.0); // the draws in order (arguments are evaluated in any)
        lsVec2 d = lsScale(length, RandomDirection(&rng));
        for (int k = 0; k <= 200; ++k)
        {
            lsVec2 p = lsAdd(a, lsScale((double)k / 200.0, d));
            SetPixel(grid.cells, w, h, (int)p.x, (int)p.y, ls_cellWall);
        }
    }
    for (int i = 0; i < 40; ++i) // pillars and specks
    {
        int x = (int)(lsRng_Next(&rng) % (uint64_t)w), y = (int)(lsRng_Next(&rng) % (uint64_t)h);
        int size = i % 2 == 0 ? 2 : 1;
        for (int k = 0; k < size * size; ++k)
        {
            SetPixel(grid.cells, w, h, x + k % size, y + k / size, ls_cellWall);
        }
    }
    lsWorld* world = lsCreateWorld();
    lsError err;
    bool ok = lsGrid_AddWalls(&grid, NULL, world, NULL, "map", &err);
    lsFreeGrid(&grid);
    if (!ok)
    {
        lsDestroyWorld(world);
        return NULL;
    }
    return world;
}

// A random fan from o for a map: 1 to 1500 beams over a full turn, 270 degrees or a narrow field, headings near the
// wrap and far from zero, ranges from a few cells to beyond the world.
static int RandomMapFan(const lsScene* scene, lsRng* rng, lsVec2 o, int* swept, int* hits)
{
    static const int beamCounts[] = {1, 7, 360, 1080, 1500};
    static const double ranges[] = {0.1, 0.7, 3.0, 30.0, 1e3};
    int beams = beamCounts[lsRng_Next(rng) % 5];
    double range = ranges[lsRng_Next(rng) % 5];
    double heading = lsRng_Uniform(rng) < 0.2 ? LS_PI - 1e-9 * lsRng_Uniform(rng) : lsRng_Range(rng, -LS_PI, LS_PI);
    heading += lsRng_Uniform(rng) < 0.1 ? 1000.0 : 0.0;
    double u = lsRng_Uniform(rng);
    lsScanLayout layout =
        lsMakeScanLayout(beams, u < 0.3 ? 2.0 * LS_PI : (u < 0.7 ? 1.5 * LS_PI : (u < 0.9 ? 0.2 : 0.01)));
    return CompareFan(scene, o, heading + layout.angleMin, layout.angleIncrement, beams, range, swept, hits);
}

// A map of 25 cm pixels (corners at exact binary coordinates) whose chains the sparse sweep's back faces apply to: a
// ragged outer wall, blocks, blocks with holes (a clockwise loop inside a counter-clockwise one), blocks touching at a
// pixel's corner (a chain through one point twice, split into loops there), single pixels; simplified by
// Douglas-Peucker when simplify > 0 (slanted edges).
static lsWorld* MakeBackFaceWorld(uint64_t seed, double simplify, lsVec2* holes, int* holeCount)
{
    enum
    {
        w = 200,
        h = 180
    };
    lsRng rng = lsMakeRng(seed);
    lsGrid grid = {w, h, lsAllocZero((size_t)w * (size_t)h, 1), 0.25, lsV(0.0, 0.0), 0.0};
    for (int x = 0; x < w; ++x)
    {
        for (int t = 0; t < 1 + (lsRng_Uniform(&rng) < 0.4); ++t)
        {
            SetPixel(grid.cells, w, h, x, 1 + t, ls_cellWall), SetPixel(grid.cells, w, h, x, h - 2 - t, ls_cellWall);
        }
    }
    for (int y = 0; y < h; ++y)
    {
        for (int t = 0; t < 1 + (lsRng_Uniform(&rng) < 0.4); ++t)
        {
            SetPixel(grid.cells, w, h, 1 + t, y, ls_cellWall), SetPixel(grid.cells, w, h, w - 2 - t, y, ls_cellWall);
        }
    }
    *holeCount = 0;
    for (int i = 0; i < 40; ++i)
    {
        int x0 = 4 + (int)(lsRng_Next(&rng) % (uint64_t)(w - 16)),
            y0 = 4 + (int)(lsRng_Next(&rng) % (uint64_t)(h - 16));
        int size = 1 + (int)(lsRng_Next(&rng) % 7);
        for (int y = y0; y < y0 + size; ++y)
        {
            for (int x = x0; x < x0 + size; ++x)
            {
                SetPixel(grid.cells, w, h, x, y, ls_cellWall);
            }
        }
        if (size >= 5 && i % 2 == 0) // a hole, its middle kept
        {
            for (int y = y0 + 2; y < y0 + size - 2; ++y)
            {
                for (int x = x0 + 2; x < x0 + size - 2; ++x)
                {
                    SetPixel(grid.cells, w, h, x, y, ls_cellFree);
                }
            }
            holes[(*holeCount)++] = lsV(0.25 * (x0 + 2) + 0.0625, 0.25 * (y0 + 2) + 0.125);
        }
        if (i % 3 == 0) // a pixel at a corner of the block
        {
            SetPixel(grid.cells, w, h, x0 + size, y0 + size, ls_cellWall);
            SetPixel(grid.cells, w, h, x0 - 1, y0 + size, ls_cellWall);
        }
    }
    lsWorld* world = lsCreateWorld();
    lsMapOptions options = {false, simplify};
    lsError err;
    bool ok = lsGrid_AddWalls(&grid, &options, world, NULL, "map", &err);
    lsFreeGrid(&grid);
    if (!ok)
    {
        lsDestroyWorld(world);
        return NULL;
    }
    return world;
}

// One beam along d (exact) from o, through lsScene_CastFan and by brute force: 1 when they differ (0 when the fan
// declines the origin).
static int CompareExactBeam(const lsScene* scene, lsVec2 o, lsVec2 d, double range, int* hits)
{
    lsBeamFan fan = {o, range, atan2(d.y, d.x), 0.0, 1};
    lsRayInput in = {o, d, range};
    lsRayHit hit;
    if (!lsScene_CastFan(scene, &fan, 0, &in, 1, &hit))
    {
        return 0;
    }
    lsRayHit b = lsScene_CastRayBrute(scene, NULL, &in);
    *hits += b.hit;
    if (!SameHitBits(&hit, &b))
    {
        PrintMismatch(&in, &hit, &b);
        return 1;
    }
    return 0;
}

// A sparse grid's scans skip back faces (a wall loop's record met from a side of nonzero winding number,
// BuildBackFaces): every beam as the brute force casts it, on maps whose chains are loops of exact corners. Beams
// exactly through corners from lattice points (a front and a back face meet there: their fractions tie, and the lower
// part wins, which may be the back face's), a hair beside them; origins in the open and in holes (winding number 0),
// inside wall blocks (1: nothing is skipped), on walls and at corners; random fans.
static int BackFaceTest(void)
{
    static const lsVec2 lattice[] = {{1.0, 1.0},  {-1.0, 1.0},  {1.0, -1.0}, {-1.0, -1.0}, {2.0, 1.0},  {-1.0, 2.0},
                                     {1.0, -2.0}, {-2.0, -1.0}, {1.0, 0.0},  {0.0, -1.0},  {3.0, -2.0}, {-2.0, 3.0}};
    int swept = 0, hits = 0, bad = 0, beams = 0;
    lsRng rng = lsMakeRng(6060);
    for (int m = 0; m < 3; ++m)
    {
        lsVec2 holes[40];
        int holeCount;
        lsWorld* world = MakeBackFaceWorld(60 + (uint64_t)m, m == 2 ? 0.3 : 0.0, holes, &holeCount);
        ENSURE(world != NULL && holeCount > 0);
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY); // sparse
        ENSURE(scene->sparsePairSkip != NULL);                         // back faces apply
        lsAABB g = info.gridBounds;
        for (int i = 0; i < 400 && bad == 0; ++i)
        {
            // A corner, and an origin on the lattice of 1/4 m a few steps back along an exact direction.
            lsVec2 corner = RandomWallSegment(scene, world->wallCount, &rng).a;
            for (int j = 0; j < 12; ++j)
            {
                lsVec2 d = lattice[j];
                double back = 0.25 * (double)(1 + (int)(lsRng_Next(&rng) % 24));
                lsVec2 o = lsSub(corner, lsScale(back, d));
                bad += CompareExactBeam(scene, o, d, 1e3, &hits);
                bad += CompareExactBeam(scene, o, d, back, &hits); // ending at the corner
                // A hair beside: 1e-13, and an ulp of a direction scaled by 1.5, 3, 5 or 7 (less than an ulp of the
                // fractions apart: the two faces' fractions may round to one value, a tie).
                bad += CompareExactBeam(scene, o, lsAdd(d, lsV(0.0, 1e-13)), 1e3, &hits);
                double c = j % 4 == 0 ? 1.5 : (double)(3 + 2 * (j % 3));
                bad += CompareExactBeam(scene, o, lsV(c * d.x, nextafter(c * d.y, 100.0)), 1e3, &hits);
                bad += CompareExactBeam(scene, o, lsV(nextafter(c * d.x, -100.0), c * d.y), 1e3, &hits);
                beams += 5;
            }
        }
        for (int i = 0; i < 24 && bad == 0; ++i)
        {
            lsVec2 o = lsTestRandomPoint(&rng, g.lower.x, g.upper.x, g.lower.y, g.upper.y);
            bad += RandomMapFan(scene, &rng, o, &swept, &hits);
            o = holes[i % holeCount]; // inside a hole: inside its loop
            bad += CompareFan(scene, o, -LS_PI, 2.0 * LS_PI / 1080.0, 1080, 30.0, &swept, &hits);
            bad += RandomMapFan(scene, &rng, lsAdd(o, lsV(0.0, -0.25)), &swept, &hits); // inside its block
            lsSegment seg = RandomWallSegment(scene, world->wallCount, &rng);
            bad += RandomMapFan(scene, &rng, i % 2 == 0 ? seg.a : lsScale(0.5, lsAdd(seg.a, seg.b)), &swept, &hits);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    %d exact beams, %d fan blocks swept, %d beams hit, %d mismatches\n", beams, swept, hits, bad);
    ENSURE(bad == 0 && swept > 100 && hits > 50000);
    return 0;
}

// Back faces on hand-made loops at any angle (BackFaceTest's maps are pixels): a field of small closed polygons, each a
// star-shaped ring of 3 to 9 points (and big rings of 160 around some of them), some nested two or three deep (winding
// numbers 2 and 3), some touching another at a vertex or passing through one of their own twice (split into loops),
// some crossing themselves (a bow tie) or sharing an edge with another, which BuildBackFaces must leave out, some with
// collinear points and some long and thin. Fans from the open, inside each kind, on vertices and edges, and single
// beams through the vertices from far and near, compared with the brute force beam by beam.
static int BackFaceRandomTest(void)
{
    int swept = 0, hits = 0, bad = 0, beams = 0;
    lsRng rng = lsMakeRng(7070);
    for (int m = 0; m < 2 && bad == 0; ++m)
    {
        lsWorld* world = lsCreateWorld();
        lsVec2 inside[72];
        int insideCount = 0;
        // Three big rings of many short edges, one holding a second the other way round: beams from inside meet
        // their far sides in cells the sweep visits (the cells next to the origin go through FanCell, which keeps
        // every record).
        static const lsVec2 ringCenters[3] = {{25.0, 20.0}, {72.0, 26.0}, {45.0, 62.0}};
        for (int b = 0; b < 4; ++b)
        {
            lsVec2 c = ringCenters[b % 3], ring[160];
            double radius = b == 3 ? 6.0 : lsRng_Range(&rng, 10.0, 14.0);
            for (int k = 0; k < 160; ++k)
            {
                double angle = 2.0 * LS_PI * (double)(b == 3 ? 159 - k : k) / 160.0;
                ring[k] = lsMulAdd(c, radius * lsRng_Range(&rng, 0.93, 1.0), lsDirection(angle));
            }
            lsWorld_AddWall(world, ring, 160, true);
            inside[insideCount++] = lsAdd(c, lsV(0.37, -0.21));
        }
        for (int i = 0; i < 60; ++i)
        {
            int column = i % 6, row = i / 6; // a field of 6 columns
            lsVec2 c = lsV(3.0 + 16.0 * (double)column + lsRng_Range(&rng, -1.0, 1.0),
                           3.0 + 8.0 * (double)row + lsRng_Range(&rng, -1.0, 1.0));
            double nearest = HUGE_VAL;
            for (int b = 0; b < 3; ++b)
            {
                nearest = fmin(nearest, fabs(lsDistance(c, ringCenters[b]) - (b == 0 ? 6.0 : 12.0)));
            }
            if (nearest < 3.0)
            {
                continue; // clear of the big rings (radii 6 and 9.3 to 14), which would then be left out
            }
            int n = 3 + (int)(lsRng_Next(&rng) % 7), kind = (int)(lsRng_Next(&rng) % 8);
            double r = lsRng_Range(&rng, 0.1, 0.7), phase = lsRng_Range(&rng, -LS_PI, LS_PI);
            lsVec2 pts[24];
            for (int k = 0; k < n; ++k)
            {
                double radius = r * (kind == 6 ? (k % 2 == 0 ? 1.0 : 0.08) : lsRng_Range(&rng, 0.5, 1.0));
                pts[k] = lsMulAdd(c, radius, lsDirection(phase + 2.0 * LS_PI * (double)k / (double)n));
            }
            if (kind == 5 && n >= 4) // a collinear point on the first edge: p0, mid, p1, ...
            {
                pts[n] = pts[0], pts[0] = lsScale(0.5, lsAdd(pts[n], pts[1]));
                memmove(pts + 1, pts, (size_t)(n + 1) * sizeof(lsVec2)); // the copy of p0 at n moves to n + 1
                pts[0] = pts[n + 1];
                n += 1;
            }
            if (kind == 3 && n >= 4) // a bow tie: two points swapped
            {
                lsVec2 t = pts[1];
                pts[1] = pts[2], pts[2] = t;
            }
            lsWorld_AddWall(world, pts, n, lsRng_Uniform(&rng) < 0.5 || kind != 4);
            if (kind == 4) // the first ring closed by hand, then a second through its first point (a figure eight)
            {
                lsVec2 eight[24];
                int e = 0;
                for (int k = 0; k < n; ++k)
                {
                    eight[e++] = pts[k];
                }
                for (int k = 1; k < 4; ++k)
                {
                    eight[e++] = lsMulAdd(pts[0], 0.4 * r, lsDirection(phase + LS_PI + 0.6 * (double)(k - 2)));
                }
                eight[e++] = pts[0];
                lsWorld_AddWall(world, eight, e, false);
            }
            if (kind == 1 || kind == 2) // nested rings, clockwise or not
            {
                for (int level = 1; level <= kind; ++level)
                {
                    lsVec2 inner[24];
                    for (int k = 0; k < n; ++k)
                    {
                        inner[level % 2 == 0 ? k : n - 1 - k] = lsMulAdd(c, 0.45 / (double)level, lsSub(pts[k], c));
                    }
                    lsWorld_AddWall(world, inner, n, true);
                }
            }
            if (kind == 7) // a neighbour sharing the first edge, or touching the first vertex
            {
                lsVec2 out = lsMulAdd(pts[0], 0.5, lsSub(pts[0], c));
                lsVec2 side = lsMulAdd(out, 0.3, lsV(pts[0].y - c.y, c.x - pts[0].x));
                lsVec2 shared[3] = {pts[1], pts[0], out}, touching[3] = {pts[0], out, side};
                lsWorld_AddWall(world, lsRng_Uniform(&rng) < 0.5 ? shared : touching, 3, true);
            }
            if (insideCount < 72)
            {
                inside[insideCount++] = lsMulAdd(c, 0.05, lsSub(pts[0], c));
            }
        }
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY); // sparse
        ENSURE(scene->sparsePairSkip != NULL);                         // back faces apply
        for (int b = 0; b < 4; ++b) // 360 beams from inside a big ring: its far side's cells take the sweep's test
        {
            bad += CompareFan(scene, inside[b], -LS_PI, 2.0 * LS_PI / 360.0, 360, 30.0, &swept, &hits);
        }
        for (int i = 0; i < insideCount && bad == 0; ++i)
        {
            bad += RandomMapFan(scene, &rng, inside[i], &swept, &hits);
            lsVec2 o = lsTestRandomPoint(&rng, -1.0, 99.0, -1.0, 82.0);
            bad += RandomMapFan(scene, &rng, o, &swept, &hits);
            lsSegment seg = RandomWallSegment(scene, world->wallCount, &rng);
            bad += RandomMapFan(scene, &rng, i % 2 == 0 ? seg.a : lsScale(0.5, lsAdd(seg.a, seg.b)), &swept, &hits);
            for (int j = 0; j < 8; ++j) // beams through the vertex from the open and from inside
            {
                lsVec2 from = j < 4 ? lsTestRandomPoint(&rng, -1.0, 99.0, -1.0, 82.0) : inside[i];
                bad += CompareExactBeam(scene, from, lsSub(seg.a, from), 1e3, &hits);
                bad += CompareExactBeam(scene, from, lsSub(seg.a, from), 1.0, &hits); // ending at the vertex
                beams += 2;
            }
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    %d exact beams, %d fan blocks swept, %d beams hit, %d mismatches\n", beams, swept, hits, bad);
    ENSURE(bad == 0 && swept > 100 && hits > 20000);
    return 0;
}

// A row of cells crowded with loop edges (more than LS_BACK_FACE_ROW_EDGES) counts no winding number, for free: the
// loops elsewhere keep their back faces whatever comes first in the file (the build's budget was once charged for
// the crowded row and left every later loop out), and scans from the crowded row skip nothing.
static int BackFaceCrowdedRowTest(void)
{
    lsWorld* world = lsCreateWorld();
    for (int i = 0; i < 1500; ++i) // 4 500 edges in the row of y = 1
    {
        double x = 0.6 * (double)i;
        lsVec2 triangle[3] = {{x, 1.0}, {x + 0.1, 1.0}, {x, 1.1}};
        lsWorld_AddWall(world, triangle, 3, true);
    }
    for (int i = 0; i < 40; ++i) // rings of 12 edges in the row of y = 200
    {
        lsVec2 ring[12];
        for (int k = 0; k < 12; ++k)
        {
            ring[k] = lsMulAdd(lsV(20.0 + 22.0 * (double)i, 200.0), 3.0, lsDirection(LS_PI * (double)k / 6.0));
        }
        lsWorld_AddWall(world, ring, 12, true);
    }
    lsScene* scene = lsCreateScene(world);
    lsSceneInfo info = lsScene_GetInfo(scene);
    ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY && scene->segItemSide != NULL);
    int sided = 0, crowded = 0;
    for (int i = 0; i < scene->segItemCount; ++i)
    {
        bool ring = scene->segItemRefs[i].chain >= 1500;
        sided += ring && scene->segItemSide[i] != 0;
        crowded += !ring && scene->segItemSide[i] != 0;
    }
    int swept = 0, hits = 0, bad = 0;
    lsRng rng = lsMakeRng(8080);
    for (int i = 0; i < 40; ++i)
    {
        bad += RandomMapFan(scene, &rng, lsV(20.0 + 22.0 * (double)i, 200.3), &swept, &hits);      // inside a ring
        bad += RandomMapFan(scene, &rng, lsV(lsRng_Range(&rng, 0.0, 900.0), 1.05), &swept, &hits); // the crowded row
    }
    printf("    %d ring records with back faces, %d in the crowded row, %d beams hit, %d mismatches\n", sided, crowded,
           hits, bad);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    ENSURE(sided >= 40 * 12 && crowded == 0 && bad == 0 && swept > 20);
    return 0;
}

// A sparse grid's walk side-tests each record by its piece within the cell (segPieces), so a wall of several cells
// passes only in the cells where the ray's line crosses it: every ray as the brute force casts it, on maps of ragged
// staircase walls (straight, turned, far from the origin). Random rays; rays aimed at where a wall crosses a line of
// the grid (the crossing on a piece's clipped end), at a hair either side of it along the wall, at walls' ends and at
// cells' corners; rays along the grid's lines and diagonals; rays from points on walls, along them (where only the
// pieces' error bound keeps a wall's piece: without it the turned map far from the origin fails). lsScene_CastRays
// takes these in AVX2 packets where the processor has them (CastPacketsSparse: the pieces and the empty squares'
// crossing in the lanes; a square's landing row or column clamped one row ahead fails here too), else a ray at a time.
static int SparseWalkAgreementTest(void)
{
    enum
    {
        count = 6000
    };
    lsRayInput* inputs = lsAlloc(count * sizeof(lsRayInput));
    int bad = 0, hits = 0;
    lsRng rng = lsMakeRng(5151);
    for (int m = 0; m < 4 && bad == 0; ++m)
    {
        lsWorld* world =
            m == 0 ? MakeMapWorld(17, 260, 150, lsV(0.0, 0.0), 0.0)
                   : (m < 3 ? MakeMapWorld(18 + (uint64_t)m, 200, 160, lsV(4123.4, -356.7), m == 1 ? 0.37 : -2.0)
                            : MakeSparseRoom(155, 6));
        ENSURE(world != NULL);
        lsRng shapes = lsMakeRng(156);
        for (int i = 0; m == 3 && i < 12; ++i)
        {
            // A sparse room with targets, boxes and polygons in its cells (the packets' lanes bound them by the
            // scalar code).
            lsVec2 c = lsTestRandomPoint(&shapes, -40.0, 40.0, -40.0, 40.0);
            lsBoxDef b = lsDefaultBoxDef();
            b.center = c, b.size = lsV(1.0, 0.4), b.angle = 0.3 * (double)i;
            lsWorld_AddBox(world, b);
            lsPolygonDef def = RandomPolygon(&shapes, lsAdd(c, lsV(0.0, 3.0)), 1.0);
            lsWorld_AddPolygon(world, &def);
        }
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY); // sparse
        lsAABB g = info.gridBounds;
        double s = info.cellSize;
        for (int i = 0; i < count; ++i)
        {
            lsVec2 o = lsTestRandomPoint(&rng, g.lower.x, g.upper.x, g.lower.y, g.upper.y);
            lsVec2 d = RandomDirection(&rng);
            int kind = i % 7;
            if (kind >= 5)
            {
                // From a point on a wall segment (its end, or between its ends), along the wall (a piece's clipped
                // ends then lie off the ray's line by their rounding, which the pieces' error bound covers), the other
                // way, or anywhere.
                lsSegment seg = RandomWallSegment(scene, world->wallCount, &rng);
                double u = i % 3 == 0 ? 0.0 : lsRng_Uniform(&rng);
                o = kind == 5 ? seg.a : lsAdd(seg.a, lsScale(u, lsSub(seg.b, seg.a)));
                double w = lsRng_Uniform(&rng);
                d = w < 0.4 ? lsSub(seg.b, seg.a) : (w < 0.8 ? lsSub(seg.a, seg.b) : d);
            }
            else if (kind == 1 || kind == 2)
            {
                // Where a random wall segment crosses a line of the grid (x or y), or a hair along the wall from there.
                lsSegment seg = RandomWallSegment(scene, world->wallCount, &rng);
                bool alongX = fabs(seg.b.x - seg.a.x) >= fabs(seg.b.y - seg.a.y);
                double a0 = alongX ? seg.a.x : seg.a.y, b0 = alongX ? seg.b.x : seg.b.y;
                double lower = alongX ? g.lower.x : g.lower.y;
                double line = lower + s * ceil((fmin(a0, b0) - lower) / s);
                double u = b0 != a0 ? (line - a0) / (b0 - a0) : 0.5;
                u = u >= 0.0 && u <= 1.0 ? u : 0.5;
                u += kind == 2 ? (lsRng_Uniform(&rng) < 0.5 ? 1e-9 : -1e-9) : 0.0;
                lsVec2 p = lsAdd(seg.a, lsScale(u, lsSub(seg.b, seg.a)));
                d = lsSub(p, o);
            }
            else if (kind == 3)
            {
                // At a wall's end or a cell's corner.
                int chain = (int)(lsRng_Next(&rng) % (uint64_t)world->wallCount);
                lsSegment seg = lsScene_WallSegment(scene, chain, 0);
                int cx = (int)(lsRng_Next(&rng) % (uint64_t)info.cellsX),
                    cy = (int)(lsRng_Next(&rng) % (uint64_t)info.cellsY);
                lsVec2 corner = lsV(g.lower.x + (double)cx * s, g.lower.y + (double)cy * s);
                d = lsSub(i % 2 == 0 ? seg.a : corner, o);
            }
            else if (kind == 4)
            {
                // From a cell's corner along the grid's lines and diagonals.
                int cx = (int)(lsRng_Next(&rng) % (uint64_t)info.cellsX),
                    cy = (int)(lsRng_Next(&rng) % (uint64_t)info.cellsY);
                o = lsV(g.lower.x + (double)cx * s, g.lower.y + (double)cy * s);
                double sx = i % 2 == 0 ? 1.0 : -1.0, sy = i % 4 < 2 ? 1.0 : -1.0;
                d = i % 3 == 0 ? lsV(sx, 0.0) : (i % 3 == 1 ? lsV(0.0, sy) : lsV(sx, sy));
            }
            double u = lsRng_Uniform(&rng);
            inputs[i] = (lsRayInput){o, d, u < 0.5 && kind >= 1 && kind <= 3 ? 2.0 : (u < 0.8 ? 30.0 : 1e3)};
        }
        bad += CompareBatch(scene, inputs, count, 1, &hits);
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    lsFree(inputs, count * sizeof(lsRayInput));
    printf("    %d sparse-grid rays hit, %d mismatches\n", hits, bad);
    ENSURE(bad == 0 && hits > count);
    return 0;
}

// Sparse grids (a map's open rooms of small cells: more cells than records) are swept over their occupied cells only,
// each cell tested against the beams that may still reach it; every beam as the brute force casts it. Maps of ragged
// staircase walls, straight and turned, with targets, boxes and polygons on one; origins in the open, on walls, at
// chains' corners, on the grid's lines and corners and a hair off them, inside shelves.
static int SparseFanAgreementTest(void)
{
    int swept = 0, hits = 0, bad = 0;
    lsRng rng = lsMakeRng(4242);
    lsVec2 nearWalls[16]; // the third map's targets and boxes against walls
    for (int m = 0; m < 3; ++m)
    {
        lsWorld* world = m == 0 ? MakeMapWorld(7, 260, 150, lsV(0.0, 0.0), 0.0)
                                : MakeMapWorld(8 + (uint64_t)m, 200, 160, lsV(123.4, -56.7), m == 1 ? 0.37 : -2.0);
        ENSURE(world != NULL);
        if (m == 2)
        {
            lsVec2 c = lsV(123.4, -56.7);
            for (int i = 0; i < 6; ++i)
            {
                lsTargetDef t = lsDefaultTargetDef();
                double r = lsRng_Range(&rng, 1.0, 5.0); // the draws in order (arguments are evaluated in any)
                t.center = lsAdd(c, lsScale(r, RandomDirection(&rng)));
                t.radius = lsRng_Range(&rng, 0.05, 0.4);
                lsWorld_AddTarget(world, t);
                lsBoxDef b = lsDefaultBoxDef();
                r = lsRng_Range(&rng, 1.0, 5.0);
                b.center = lsAdd(c, lsScale(r, RandomDirection(&rng)));
                b.size = lsTestRandomPoint(&rng, 0.1, 0.8, 0.1, 0.8);
                b.angle = lsRng_Range(&rng, -LS_PI, LS_PI);
                lsWorld_AddBox(world, b);
                lsVec2 at = lsAdd(c, lsScale(3.0, RandomDirection(&rng)));
                lsPolygonDef def = RandomPolygon(&rng, at, 0.3);
                lsWorld_AddPolygon(world, &def);
            }
            for (int i = 0; i < 20; ++i) // more targets, enough to have their records rebuilt when they move
            {
                lsTargetDef t = lsDefaultTargetDef();
                double r = lsRng_Range(&rng, 1.0, 5.0);
                t.center = lsAdd(c, lsScale(r, RandomDirection(&rng)));
                t.radius = lsRng_Range(&rng, 0.1, 0.3);
                lsWorld_AddTarget(world, t);
            }
            // Targets and boxes against walls, in cells with segment records (the sweep tests such a cell's beams
            // against its whole box, not only its records'): next to the middles of random segments.
            lsScene* walls = lsCreateScene(world);
            for (int i = 0; i < 16; ++i)
            {
                lsSegment seg = RandomWallSegment(walls, world->wallCount, &rng);
                double r = lsRng_Range(&rng, 0.06, 0.2);
                nearWalls[i] = lsAdd(lsScale(0.5, lsAdd(seg.a, seg.b)), lsScale(r, RandomDirection(&rng)));
                if (i % 2 == 0)
                {
                    lsTargetDef t = lsDefaultTargetDef();
                    t.center = nearWalls[i];
                    t.radius = lsRng_Range(&rng, 0.02, 0.05);
                    lsWorld_AddTarget(world, t);
                }
                else
                {
                    lsBoxDef b = lsDefaultBoxDef();
                    b.center = nearWalls[i];
                    b.size = lsTestRandomPoint(&rng, 0.03, 0.1, 0.03, 0.1);
                    b.angle = lsRng_Range(&rng, -LS_PI, LS_PI);
                    lsWorld_AddBox(world, b);
                }
            }
            lsDestroyScene(walls);
        }
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY); // sparse
        lsAABB g = info.gridBounds;
        for (int i = 0; i < 24 && bad == 0; ++i)
        {
            lsVec2 o = lsTestRandomPoint(&rng, g.lower.x, g.upper.x, g.lower.y, g.upper.y);
            bad += RandomMapFan(scene, &rng, o, &swept, &hits);
        }
        // Beams along the angle 0 whose directions lie a hair above and below it in turn ((1, 1e-300) and
        // (1, -1e-300): the same angle give or take a rounding), so that their bins of direction jump between the
        // first and the last of the turn: the sweep cannot turn their list (bins that rise around the turn once) and
        // sorts them by count. Their own generator, so that the draws below stay the same.
        lsRng along = lsMakeRng(77 + (uint64_t)m);
        for (int i = 0; i < 8 && bad == 0; ++i)
        {
            static lsRayInput inputs[64];
            static lsRayHit fanHits[64];
            lsVec2 o = lsTestRandomPoint(&along, g.lower.x, g.upper.x, g.lower.y, g.upper.y);
            lsBeamFan fan = {o, 30.0, 0.0, 0.0, 64};
            for (int k = 0; k < 64; ++k)
            {
                inputs[k] = (lsRayInput){o, lsV(1.0, (k + i) % 3 == 0 ? 1e-300 : -1e-300), 30.0};
            }
            if (lsScene_CastFan(scene, &fan, 0, inputs, 64, fanHits))
            {
                swept += 1;
                for (int k = 0; k < 64; ++k)
                {
                    lsRayHit b = lsScene_CastRayBrute(scene, NULL, inputs + k);
                    hits += b.hit;
                    bad += !SameHitBits(fanHits + k, &b);
                }
            }
        }
        // From walls and their corners: the middle or an end of a random segment of a random chain.
        for (int i = 0; i < 24 && bad == 0; ++i)
        {
            lsSegment seg = RandomWallSegment(scene, world->wallCount, &rng);
            lsVec2 o = i % 2 == 0 ? lsScale(0.5, lsAdd(seg.a, seg.b)) : seg.a;
            bad += RandomMapFan(scene, &rng, o, &swept, &hits);
            bad +=
                CompareFan(scene, o, atan2(seg.b.y - seg.a.y, seg.b.x - seg.a.x) - 0.01, 0.005, 5, 30.0, &swept, &hits);
        }
        // Beams through walls' corners from a few metres off (the side tests' rounding decides whether a corner's
        // two segments are met): the middle beam of a narrow fan along the direction to the corner.
        for (int i = 0; i < 48 && bad == 0; ++i)
        {
            lsVec2 corner = RandomWallSegment(scene, world->wallCount, &rng).a;
            double r = lsRng_Range(&rng, 0.5, 6.0);
            lsVec2 o = lsAdd(corner, lsScale(r, RandomDirection(&rng)));
            double angle = atan2(corner.y - o.y, corner.x - o.x);
            bad += CompareFan(scene, o, angle - 2e-12, 1e-12, 5, 30.0, &swept, &hits);
        }
        // From the grid's cell corners and edges, exactly and a hair to either side, with beams along the grid's
        // lines and diagonals (through the corners of the cells whose beams are picked by their corners).
        for (int i = 0; i < 16 && bad == 0; ++i)
        {
            int ix = 1 + (int)(lsRng_Next(&rng) % (uint64_t)(info.cellsX - 2));
            int iy = 1 + (int)(lsRng_Next(&rng) % (uint64_t)(info.cellsY - 2));
            double nudge = (double)((int)(lsRng_Next(&rng) % 3) - 1) * 1e-12;
            lsVec2 o = {g.lower.x + (double)ix * info.cellSize + nudge,
                        g.lower.y + (double)iy * info.cellSize + (i % 2 == 0 ? 0.0 : 0.5 * info.cellSize)};
            bad += CompareFan(scene, o, -LS_PI, LS_PI / 4.0, 8, 30.0, &swept, &hits);
            double range = i % 3 == 0 ? 1e3 : (i % 3 == 1 ? 2.5 : 1.3); // beyond the world, and ending among walls
            bad += CompareFan(scene, o, -LS_PI, LS_PI / 180.0, 360, range, &swept, &hits);
        }
        for (int i = 0; m == 2 && i < 16 && bad == 0; ++i)
        {
            lsVec2 o = lsAdd(nearWalls[i], lsScale(lsRng_Range(&rng, 0.5, 3.0), RandomDirection(&rng)));
            bad += CompareFan(scene, o, -LS_PI, 2.0 * LS_PI / 1080.0, 1080, 30.0, &swept, &hits);
        }
        // Targets moved into the open (out of their cells: displaced, then their records rebuilt, with the list of
        // occupied cells, once more than LS_MAX_DISPLACED are) and one disabled, with fans from next to them.
        for (int i = 0; m == 2 && i < 30 && bad == 0; ++i)
        {
            lsVec2 at = lsTestRandomPoint(&rng, g.lower.x + 1.0, g.upper.x - 1.0, g.lower.y + 1.0, g.upper.y - 1.0);
            ENSURE(lsScene_SetTarget(scene, i % 26, at, i != 29));
            lsVec2 o = lsAdd(at, lsScale(0.7, RandomDirection(&rng)));
            bad += CompareFan(scene, o, -LS_PI, 2.0 * LS_PI / 180.0, 180, 30.0, &swept, &hits);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    %d sparse fan blocks swept, %d beams hit, %d mismatches\n", swept, hits, bad);
    ENSURE(bad == 0 && swept > 200 && hits > 50000);
    return 0;
}

// A map whose walls tie (the sparse sweep casts a beam's first survivor in a cell exactly and makes its hit the beam's
// limit: a later record at the same fraction must still be found and win the tie-break). Walls added before the map's
// own, so that they come first in the tie-break (lower chain): duplicates of map segments, the same reversed, a
// middle piece of one (collinear to rounding), a short wall crossing one at its end or middle, zero-length walls at
// an end or a middle. With longWalls (a map along the axes), walls 200 km long (kept out of the grid, cast before the
// sweep) along the axes through ends, three before the map's chains and three after, overlapping its walls along
// those lines. *spots gets the points beams are aimed at (ends, middles); returns the world.
static lsWorld* MakeTiedMapWorld(uint64_t seed, lsVec2 origin, double yaw, bool longWalls, lsVec2* spots,
                                 int* spotCount)
{
    lsWorld* map = MakeMapWorld(seed, 200, 160, origin, yaw);
    if (map == NULL)
    {
        return NULL;
    }
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(seed * 31 + 5);
    int n = 0;
    for (int i = 0; i < 80; ++i)
    {
        const lsWallDef* w = map->walls + lsRng_Next(&rng) % (uint64_t)map->wallCount;
        int j = (int)(lsRng_Next(&rng) % (uint64_t)(w->closed ? w->pointCount : w->pointCount - 1));
        lsVec2 a = w->points[j], b = w->points[(j + 1) % w->pointCount];
        lsVec2 mid = lsScale(0.5, lsAdd(a, b)), e = lsSub(b, a);
        lsVec2 q = lsScale(lsRng_Range(&rng, 0.02, 0.2), RandomDirection(&rng));
        lsVec2 pts[2];
        switch (i % 6)
        {
        case 0:
            pts[0] = a, pts[1] = b;
            break;
        case 1:
            pts[0] = b, pts[1] = a;
            break;
        case 2:
            pts[0] = lsAdd(a, lsScale(0.25, e)), pts[1] = lsAdd(a, lsScale(0.75, e));
            break;
        case 3:
            pts[0] = lsSub(a, q), pts[1] = lsAdd(a, q);
            break;
        case 4:
            pts[0] = lsSub(mid, q), pts[1] = lsAdd(mid, q);
            break;
        default:
            pts[0] = i % 4 == 1 ? a : mid, pts[1] = pts[0];
            break;
        }
        lsWorld_AddWall(world, pts, 2, false);
        spots[n++] = a, spots[n++] = mid;
    }
    lsVec2 longs[6][2];
    for (int i = 0; i < 6; ++i)
    {
        lsVec2 p = spots[2 * (lsRng_Next(&rng) % 80)];
        longs[i][0] = i % 2 == 0 ? lsV(p.x, -1e5) : lsV(-1e5, p.y);
        longs[i][1] = i % 2 == 0 ? lsV(p.x, 1e5) : lsV(1e5, p.y);
    }
    for (int i = 0; i < 3 && longWalls; ++i)
    {
        lsWorld_AddWall(world, longs[i], 2, false);
    }
    for (int c = 0; c < map->wallCount; ++c)
    {
        lsWorld_AddWall(world, map->walls[c].points, map->walls[c].pointCount, map->walls[c].closed);
    }
    for (int i = 3; i < 6 && longWalls; ++i)
    {
        lsWorld_AddWall(world, longs[i], 2, false);
    }
    lsDestroyWorld(map);
    *spotCount = n;
    return world;
}

// Casts count beams from o along directions through lsScene_CastFan, and compares each with the brute force. The fan
// has no increment, so FanRuns makes every beam a candidate of every object and the directions need not follow its
// angles (beyond what the lidar asks: any order, so that a sparse sweep sorts its bins by count, and any length).
static int CompareUnordered(const lsScene* scene, lsVec2 o, const lsVec2* directions, int count, double range,
                            int* swept, int* hits)
{
    static lsRayInput inputs[LS_FAN_MAX_BEAMS];
    static lsRayHit fanHits[LS_FAN_MAX_BEAMS];
    lsBeamFan fan = {o, range, 0.0, 0.0, count};
    for (int k = 0; k < count; ++k)
    {
        inputs[k] = (lsRayInput){o, directions[k], range};
    }
    if (!lsScene_CastFan(scene, &fan, 0, inputs, count, fanHits))
    {
        return 0;
    }
    *swept += 1;
    int bad = 0;
    for (int k = 0; k < count; ++k)
    {
        lsRayHit b = lsScene_CastRayBrute(scene, NULL, inputs + k);
        *hits += b.hit;
        if (!SameHitBits(fanHits + k, &b))
        {
            if (bad < 3)
            {
                fprintf(stderr, "unordered beam %d of %d:\n", k, count);
                PrintMismatch(inputs + k, fanHits + k, &b);
            }
            bad += 1;
        }
    }
    return bad;
}

// Sparse scans of maps whose walls tie (MakeTiedMapWorld): narrow fans aimed at the walls' ends and middles (where
// duplicates, crossings and zero-length walls meet the beam at the same fraction) and wide fans around them; from the
// ends themselves, with beams along the wall; beams in no order of angle (the sweep's bins then sorted by count) toward
// every spot, unnormalized, of huge and tiny lengths; fans of exactly a turn, a hair more, and one beam; origins a
// hair inside the grid's edges; a map millions of metres from the origin. Every beam bit for bit the brute force's.
static int SparseFanTieTest(void)
{
    int swept = 0, hits = 0, bad = 0;
    static lsVec2 spots[160];
    static lsVec2 dirs[LS_FAN_MAX_BEAMS];
    for (int m = 0; m < 4; ++m)
    {
        int spotCount;
        lsVec2 corner = m == 0 ? lsV(0.0, 0.0) : (m == 3 ? lsV(3.1e6, -7.7e5) : lsV(123.4, -56.7));
        double yaw = m == 0 ? 0.0 : (m == 1 ? 0.37 : -2.0);
        lsWorld* world = MakeTiedMapWorld(40 + (uint64_t)m, corner, yaw, m == 0, spots, &spotCount);
        ENSURE(world != NULL);
        lsScene* scene = lsCreateScene(world);
        lsSceneInfo info = lsScene_GetInfo(scene);
        ENSURE(info.cellItems < (long long)info.cellsX * info.cellsY); // sparse
        ENSURE(scene->longSegmentCount == (m == 0 ? 6 : 0));           // out of the grid
        ENSURE(((uintptr_t)scene->segItems & 63) == 0);                // on a cache line (lsAllocIndex)
        lsAABB g = info.gridBounds;
        lsRng rng = lsMakeRng(900 + (uint64_t)m);
        for (int i = 0; i < spotCount && bad == 0; ++i)
        {
            lsVec2 p = spots[i];
            double r = lsRng_Range(&rng, 0.3, 6.0);
            lsVec2 o = lsAdd(p, lsScale(r, RandomDirection(&rng)));
            double angle = atan2(p.y - o.y, p.x - o.x);
            bad += CompareFan(scene, o, angle - 2e-12, 1e-12, 5, 30.0, &swept, &hits);
            if (i % 4 == 1)
            {
                bad += CompareFan(scene, o, angle - 0.2, 0.4 / 1079.0, 1080, 30.0, &swept, &hits);
            }
            // From the spot itself (on a wall's end or middle, or a zero-length wall).
            if (i % 4 == 0)
            {
                bad += CompareFan(scene, p, lsRng_Range(&rng, -LS_PI, LS_PI), 2.0 * LS_PI / 1080.0, 1080, 30.0, &swept,
                                  &hits);
                // From a wall's end along the wall (to its middle and away), and to the other spots.
                int along = 0;
                lsVec2 e = lsSub(spots[i + 1], p);
                dirs[along++] = e, dirs[along++] = lsScale(-1.0, e);
                for (int s = 0; s < spotCount && along < 40; s += 3)
                {
                    lsVec2 d = lsSub(spots[s], p);
                    if (d.x != 0.0 || d.y != 0.0)
                    {
                        dirs[along++] = d;
                    }
                }
                if (e.x != 0.0 || e.y != 0.0)
                {
                    bad += CompareUnordered(scene, p, dirs, along, 30.0, &swept, &hits);
                }
            }
            // Unordered: toward every spot from o, unnormalized, scaled by powers of two, and along walls.
            int count = 0;
            for (int s = 0; s < spotCount && count < LS_FAN_MAX_BEAMS; ++s)
            {
                lsVec2 d = lsSub(spots[s], o);
                int scale = (int)(lsRng_Next(&rng) % 5);
                double f = scale == 0 ? 0x1p-60 : (scale == 1 ? 0x1p60 : (scale == 2 ? 1.0 : 0.1));
                if (d.x != 0.0 || d.y != 0.0)
                {
                    dirs[count++] = lsScale(f, d);
                }
                if (s + 1 < spotCount && count < LS_FAN_MAX_BEAMS && s % 2 == 0)
                {
                    dirs[count++] = lsSub(spots[s + 1], spots[s]);
                }
            }
            bad += CompareUnordered(scene, o, dirs, count, 30.0, &swept, &hits);
            bad += CompareUnordered(scene, o, dirs, count > 3 ? 3 : count, 1e3, &swept, &hits);
            if (i % 8 == 0)
            {
                // The same directions scaled to huge and tiny lengths (|d|^2 overflows or underflows: the lengths
                // come from |dx| + |dy| and the back faces are not skipped), with ranges to match.
                static lsVec2 big[LS_FAN_MAX_BEAMS];
                for (int k = 0; k < count; ++k)
                {
                    int e = (int)(lsRng_Next(&rng) % 4);
                    big[k] = lsScale(e == 0 ? 0x1p-520 : (e == 1 ? 0x1p500 : (e == 2 ? 0x1p-1000 : 0x1p1000)),
                                     lsNormalize(dirs[k]));
                }
                bad += CompareUnordered(scene, o, big, count, DBL_MAX, &swept, &hits);
                bad += CompareUnordered(scene, o, big, count, 1e300, &swept, &hits);
                bad += CompareUnordered(scene, o, big, count, 30.0, &swept, &hits);
            }
        }
        for (int i = 0; i < 16 && bad == 0; ++i)
        {
            lsVec2 o = lsTestRandomPoint(&rng, g.lower.x, g.upper.x, g.lower.y, g.upper.y);
            bad += RandomMapFan(scene, &rng, o, &swept, &hits);
            double start = lsRng_Range(&rng, -LS_PI, LS_PI);
            bad += CompareFan(scene, o, start, 2.0 * LS_PI / 1080.0, 1081, 30.0, &swept, &hits); // exactly a turn
            bad += CompareFan(scene, o, start, (2.0 * LS_PI + 9e-7) / 1080.0, 1081, 30.0, &swept, &hits);
            bad += CompareFan(scene, o, start, 0.0, 1, 30.0, &swept, &hits);
            for (int k = 0; k < 64; ++k)
            {
                dirs[k] = RandomDirection(&rng);
            }
            bad += CompareUnordered(scene, o, dirs, 64, 30.0, &swept, &hits);
            // At the grid's edges, a hair inside.
            lsVec2 edge = i % 4 == 0   ? lsV(nextafter(g.lower.x, HUGE_VAL), o.y)
                          : i % 4 == 1 ? lsV(nextafter(g.upper.x, -HUGE_VAL), o.y)
                          : i % 4 == 2 ? lsV(o.x, nextafter(g.lower.y, HUGE_VAL))
                                       : lsV(o.x, nextafter(g.upper.y, -HUGE_VAL));
            bad += CompareFan(scene, edge, start, 2.0 * LS_PI / 1080.0, 1080, 1e3, &swept, &hits);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    %d sparse fan blocks swept, %d beams hit, %d mismatches\n", swept, hits, bad);
    ENSURE(bad == 0 && swept > 2000 && hits > 400000);
    return 0;
}

// Sparse grids' casts along the grid's own lines and through its cell corners (SparseStep's crossed coordinate lies
// exactly on a boundary), and beams whose pseudo-angles lie at 0 and 4 and a hair either side (BoxSlots' margin of
// 1e-12 and its wrap), through the fan, the packets and the one-ray walk, each bit for bit the brute force's. Maps at
// the origin, turned and 1e8 m out. (Subnormal components: SubnormalDirectionTest.)
static int GridLineBeamsTest(void)
{
    int bad = 0, hits = 0, swept = 0;
    enum
    {
        maxDirs = 1080
    };
    static lsVec2 dirs[maxDirs];
    static lsRayInput inputs[maxDirs];
    for (int m = 0; m < 4 && bad == 0; ++m)
    {
        lsWorld* world = m == 0   ? MakeMapWorld(17, 260, 150, lsV(0.0, 0.0), 0.0)
                         : m == 1 ? MakeMapWorld(19, 200, 160, lsV(4123.4, -356.7), 0.37)
                         : m == 2 ? MakeSparseRoom(155, 6)
                                  : MakeMapWorld(23, 200, 160, lsV(3.3e7, -1.1e8), 1.1);
        ENSURE(world != NULL);
        lsScene* scene = lsCreateScene(world);
        ENSURE(scene != NULL);
        lsSceneInfo info = lsScene_GetInfo(scene);
        double s = info.cellSize, x0 = info.gridBounds.lower.x, y0 = info.gridBounds.lower.y;
        lsRng rng = lsMakeRng(2727 + (uint64_t)m);
        for (int trial = 0; trial < 60 && bad == 0; ++trial)
        {
            // Two origins, each on a cell corner, on a grid line, or a hair off one.
            lsVec2 origins[2];
            for (int q = 0; q < 2; ++q)
            {
                int i = 1 + (int)(lsRng_Uniform(&rng) * (info.cellsX - 2));
                int j = 1 + (int)(lsRng_Uniform(&rng) * (info.cellsY - 2));
                lsVec2 o = {x0 + (double)i * s, y0 + (double)j * s};
                int kind = (trial + q) % 4;
                if (kind == 1)
                {
                    o.x += lsRng_Uniform(&rng) * s;
                }
                else if (kind == 2)
                {
                    o.y = nextafter(o.y, o.y + 1.0);
                }
                else if (kind == 3)
                {
                    o.x = nextafter(o.x, o.x - 1.0), o.y = nextafter(o.y, o.y - 1.0);
                }
                origins[q] = o;
            }
            lsVec2 o = origins[0];
            int n = 0;
            const double tiny[] = {0.0,   -0.0,   1e-300, -1e-300, 2.3e-308, -2.3e-308,
                                   1e-17, -1e-17, 1e-13,  -1e-13,  3e-12,    -3e-12};
            for (int t = 0; t < 12; ++t)
            {
                dirs[n++] = lsV(1.0, tiny[t]), dirs[n++] = lsV(-1.0, tiny[t]);
                dirs[n++] = lsV(tiny[t], 1.0), dirs[n++] = lsV(tiny[t], -1.0);
            }
            // Toward cell corners (exact differences where they round exactly) and along diagonals.
            while (n < maxDirs)
            {
                int a = (int)(lsRng_Uniform(&rng) * info.cellsX), b = (int)(lsRng_Uniform(&rng) * info.cellsY);
                lsVec2 c = {x0 + (double)a * s, y0 + (double)b * s};
                lsVec2 d = lsSub(c, o);
                if (d.x == 0.0 && d.y == 0.0)
                {
                    continue;
                }
                dirs[n++] = d;
            }
            double range = 1e3;
            bad += CompareUnordered(scene, o, dirs, n, range, &swept, &hits);
            // The batch alternates the two origins, so that it is walked in packets, not as a scan.
            for (int k = 0; k < n; ++k)
            {
                inputs[k] = (lsRayInput){origins[k % 2], dirs[k], range};
            }
            bad += CompareBatch(scene, inputs, n, 1, &hits);
        }
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    printf("    %d sparse fan blocks swept, %d beams hit, %d mismatches\n", swept, hits, bad);
    ENSURE(bad == 0 && swept > 0 && hits > 1000);
    return 0;
}

// A direction with a subnormal component from an origin on one of the grid's lines: 1 / dy overflowed to infinity and
// the crossing of the line through the origin was 0 * inf = NaN, so the walk (one ray, lanes and packets) missed the
// walls the brute force hits. Each component's inverse is now at most DBL_MAX in magnitude.
static int SubnormalDirectionTest(void)
{
    lsWorld* world = MakeMapWorld(17, 260, 150, lsV(0.0, 0.0), 0.0);
    ENSURE(world != NULL);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    lsSceneInfo info = lsScene_GetInfo(scene);
    const double tiny[] = {
        4.9406564584124654e-324, -4.9406564584124654e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 0.0, -0.0};
    int bad = 0, hits = 0;
    for (int k = 0; k < 7; ++k)
    {
        // The ray that failed (on the line y0 + 14 s of this map's grid), then eight from other lines and columns of
        // the grid in one batch (packets), along x and along y.
        lsRayInput in = {{12.28245315956641, 2.2488998742868076}, {-1.0, tiny[k]}, 1000.0};
        lsRayHit a = lsScene_CastRay(scene, NULL, &in), b = lsScene_CastRayBrute(scene, NULL, &in);
        bad += !SameHitBits(&a, &b);
        hits += b.hit;
        bad += CompareExactBeam(scene, in.origin, in.direction, in.maxFraction, &hits);
        lsRayInput batch[8];
        for (int i = 0; i < 8; ++i)
        {
            int line = 3 + 5 * i;
            lsVec2 o = i % 2 == 0
                           ? lsV(in.origin.x + (double)i, info.gridBounds.lower.y + (double)line * info.cellSize)
                           : lsV(info.gridBounds.lower.x + (double)line * info.cellSize, in.origin.y + (double)i);
            batch[i] = (lsRayInput){
                o, i % 2 == 0 ? lsV(i % 4 == 0 ? -1.0 : 1.0, tiny[k]) : lsV(tiny[k], i % 4 == 1 ? -1.0 : 1.0), 1000.0};
        }
        bad += CompareBatch(scene, batch, 8, 1, &hits);
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    ENSURE(bad == 0 && hits > 40);
    return 0;
}

// Scans with range noise and dropout (no jitter: the beams keep their angles and go through lsScene_CastFan) report
// for every returned beam what the brute force finds along its direction, and draw the same numbers.
static int FanScanNoiseTest(void)
{
    lsWorld* world = MakeCity(31, 400, 40, 15, 15, 20.0, lsV(0.0, 0.0), 0.0);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = world->robot.lidar;
    def.beams = 1080;
    def.fov = 1.5 * LS_PI;
    def.range = 30.0;
    def.rangeMin = 0.0;
    def.angleNoise = 0.0;
    def.noise = 0.02;
    def.dropout = 0.1;
    lsScan* scan = lsCreateScan(def.beams);
    lsRng rng = lsMakeRng(5);
    int returned = 0;
    for (int i = 0; i < 20; ++i)
    {
        lsVec2 o = lsTestRandomPoint(&rng, -18.0, 18.0, -18.0, 18.0);
        double heading = lsRng_Range(&rng, -LS_PI, LS_PI);
        lsRng noise = lsMakeRng((uint64_t)i);
        ENSURE(lsLidar_ScanFrom(scene, NULL, &def, o, heading, &noise, scan));
        lsRng same = lsMakeRng((uint64_t)i);
        for (int k = 0; k < lsLidar_DrawsPerScan(&def); ++k)
        {
            lsRng_Next(&same);
        }
        ENSURE(lsRng_Next(&noise) == lsRng_Next(&same));
        for (int b = 0; b < scan->count; ++b)
        {
            lsRayInput in = {o, lsScan_BeamDirection(scan, b), def.range};
            lsRayHit hit = lsScene_CastRayBrute(scene, NULL, &in);
            if (scan->kinds[b] != ls_hitNone)
            {
                returned += 1;
                ENSURE(hit.kind == scan->kinds[b] && hit.index == scan->indices[b] && hit.part == scan->parts[b]);
                ENSURE(SameVecBits(hit.point, scan->points[b]));
                ENSURE(SameVecBits(hit.normal, scan->normals[b]));
            }
        }
    }
    ENSURE(returned > 10000);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A scan from a crowded cell (thousands of walls through the robot, all crossing its cell) takes that cell's segments
// nearest first and stops where no beam can reach (scene_fan.c, FanCrowdedCell): its answers are still exactly the
// brute force's, bit for bit, from points on walls, at the end of a chain, among duplicated walls (ties broken by
// chain), with ranges that end before, at and beyond the nearest hits.
static int CrowdedCellTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(153);
    lsVec2 centre = lsV(10.0, 10.0);
    lsVec2 room[4] = {{0.0, 0.0}, {20.0, 0.0}, {20.0, 20.0}, {0.0, 20.0}};
    lsWorld_AddWall(world, room, 4, true);
    for (int i = 0; i < 1500; ++i)
    {
        double r = i < 1000 ? 0.25 * sqrt(lsRng_Uniform(&rng)) : 3.0 * lsRng_Uniform(&rng);
        lsVec2 p = lsAdd(centre, lsScale(r, RandomDirection(&rng)));
        lsVec2 dir = RandomDirection(&rng);
        double half = lsRng_Range(&rng, 0.2, 3.0);
        lsVec2 points[2] = {lsMulSub(p, half, dir), lsMulAdd(p, half, dir)};
        lsWorld_AddWall(world, points, 2, false);
        if (i % 100 == 0)
        {
            lsWorld_AddWall(world, points, 2, false); // the same wall twice: a tie at every hit
        }
    }
    // Walls through and ending at the centre itself.
    lsVec2 through[2] = {{9.0, 10.0}, {11.0, 10.0}};
    lsWorld_AddWall(world, through, 2, false);
    lsVec2 ending[3] = {{10.0, 10.0}, {10.0, 12.0}, {12.0, 12.0}};
    lsWorld_AddWall(world, ending, 3, false);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    const lsVec2 origins[] = {centre,          lsV(10.05, 10.0), lsV(10.1, 9.93), lsV(10.0, 11.0),
                              lsV(12.0, 12.0), lsV(10.3, 10.2),  lsV(10.8, 9.3),  lsV(11.2, 10.9)};
    const double ranges[] = {12.0, 0.05, 1e-3};
    int swept = 0, hits = 0, bad = 0;
    for (int o = 0; o < (int)(sizeof origins / sizeof origins[0]); ++o)
    {
        for (int r = 0; r < 3; ++r)
        {
            bad += CompareFan(scene, origins[o], lsRng_Range(&rng, -LS_PI, LS_PI), 2.0 * LS_PI / 1080.0, 1080,
                              ranges[r], &swept, &hits);
        }
    }
    ENSURE(bad == 0);
    ENSURE(swept == 8 * 3 * ((1080 + LS_FAN_MAX_BEAMS - 1) / LS_FAN_MAX_BEAMS) && hits > 8 * 1080);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Hundreds of walls meeting at the lidar's origin (a hub): each beam hits all of them at fraction 0, where the lowest
// (chain, part) wins, so the fan casts only that one of them (100 000 such walls cost 10 s a scan before), and a
// ray's walk casts none that loses the tie (13 ms a ray before, 4 now). Walls whose
// interior the origin lies on, of lower and higher index, and a chain with a vertex there compete by the exact
// routine as always; the fan agrees with the brute force bit for bit, from the hub and from beside it.
static int HubTest(void)
{
    lsRng rng = lsMakeRng(154);
    for (int variant = 0; variant < 3; ++variant)
    {
        lsWorld* world = lsCreateWorld();
        lsVec2 hub = lsV(10.0 + 0.1 * variant, 10.0 - 0.37 * variant);
        if (variant == 2)
        {
            lsVec2 first[2] = {hub, hub};
            lsWorld_AddWall(world, first, 2, false); // chain 0: a zero-length wall as the hub
        }
        lsVec2 room[4] = {{0.0, 0.0}, {20.0, 0.0}, {20.0, 20.0}, {0.0, 20.0}};
        lsWorld_AddWall(world, room, 4, true);
        for (int i = 0; i < 400; ++i)
        {
            lsVec2 dir = RandomDirection(&rng);
            double length = lsRng_Range(&rng, 0.5, 5.0);
            if (i % 50 == 7 - variant)
            {
                // The origin inside the wall (its computed crossing may round off 0), or near it.
                double before = lsRng_Range(&rng, 0.1, 1.0) * (variant == 2 && i % 100 == 7 ? 0.0 : 1.0);
                lsVec2 points[2] = {lsMulSub(hub, before, dir), lsMulAdd(hub, length, dir)};
                lsWorld_AddWall(world, points, 2, false);
            }
            else if (i % 37 == 3)
            {
                lsVec2 points[3] = {lsMulAdd(hub, length, dir), hub, lsMulAdd(hub, length, RandomDirection(&rng))};
                lsWorld_AddWall(world, points, 3, false); // a vertex at the hub: parts 0 and 1 end there
            }
            else
            {
                lsVec2 points[2] = {hub, lsMulAdd(hub, length, dir)};
                if (i % 2 == 1)
                {
                    lsVec2 t = points[0];
                    points[0] = points[1], points[1] = t; // the hub as the wall's second end
                }
                lsWorld_AddWall(world, points, 2, false);
            }
        }
        lsVec2 dot[2] = {hub, hub};
        lsWorld_AddWall(world, dot, 2, false); // a zero-length wall at the hub (the hub itself in variant 2)
        lsScene* scene = lsCreateScene(world);
        ENSURE(scene != NULL);
        int swept = 0, hits = 0, bad = 0;
        const lsVec2 origins[] = {hub, lsAdd(hub, lsV(1e-9, 0.0)), lsAdd(hub, lsV(0.3, -0.2))};
        for (int o = 0; o < 3; ++o)
        {
            for (int r = 0; r < 2; ++r)
            {
                bad += CompareFan(scene, origins[o], lsRng_Range(&rng, -LS_PI, LS_PI), 2.0 * LS_PI / 1080.0, 1080,
                                  r == 0 ? 12.0 : 0.0, &swept, &hits);
            }
        }
        ENSURE(bad == 0);
        ENSURE(swept == 6 * ((1080 + LS_FAN_MAX_BEAMS - 1) / LS_FAN_MAX_BEAMS) && hits > 3 * 1080);
        // A ray's walk too (its pending lists fill up, and ResolveFull skips the walls that lose the tie at 0).
        for (int k = 0; k < 300; ++k)
        {
            lsRayInput ray = {origins[k % 3], RandomDirection(&rng), k % 7 == 0 ? 0.0 : 12.0};
            lsRayHit walked = lsScene_CastRay(scene, NULL, &ray), brute = lsScene_CastRayBrute(scene, NULL, &ray);
            if (!SameHitBits(&walked, &brute))
            {
                PrintMismatch(&ray, &walked, &brute);
                bad += 1;
            }
        }
        ENSURE(bad == 0);
        // From the hub every beam's answer is at fraction 0.
        lsRayInput in = {hub, lsDirection(0.3), 12.0};
        lsRayHit h = lsScene_CastRayBrute(scene, NULL, &in);
        ENSURE(h.hit && h.fraction == 0.0);
        lsDestroyScene(scene);
        lsDestroyWorld(world);
    }
    return 0;
}

// The index's block (lsAllocIndex): on a cache line, counted, written whole, at every size. Where a big block is a
// mapping of its own (LS_MAPS_INDEX), the last one freed is taken again by a block of its rounded length or less (the
// longer one trimmed), so a rebuilt scene writes pages already backed: its blocks must stay whole and apart.
static int IndexBlockTest(void)
{
    long long before = lsAllocatedBytes();
    const size_t mb = (size_t)1 << 20;
    const size_t sizes[] = {1, 100, 4099, mb - 1, mb, 3 * mb + 5, 6 * mb};
    for (int i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); ++i)
    {
        unsigned char* p = lsAllocIndex(sizes[i]);
        ENSURE(((uintptr_t)p & 63) == 0 && lsAllocatedBytes() >= before + (long long)sizes[i]);
        memset(p, 0xA5, sizes[i]);
        ENSURE(p[0] == 0xA5 && p[sizes[i] - 1] == 0xA5);
        lsFreeIndex(p, sizes[i]);
        ENSURE(lsAllocatedBytes() == before);
    }
    unsigned char* a = lsAllocIndex(6 * mb);
    memset(a, 1, 6 * mb);
    lsFreeIndex(a, 6 * mb);
    unsigned char* b = lsAllocIndex(3 * mb); // a's mapping again where there is one, trimmed to 4 MB
    unsigned char* c = lsAllocIndex(3 * mb); // a new one
    ENSURE(!LS_MAPS_INDEX || b == a);
    ENSURE((uintptr_t)c + 3 * mb <= (uintptr_t)b || (uintptr_t)b + 3 * mb <= (uintptr_t)c);
    memset(b, 2, 3 * mb);
    memset(c, 3, 3 * mb);
    ENSURE(b[0] == 2 && b[3 * mb - 1] == 2 && c[0] == 3 && c[3 * mb - 1] == 3);
    lsFreeIndex(b, 3 * mb);
    lsFreeIndex(c, 3 * mb); // c kept, b unmapped
    unsigned char* d = lsAllocIndex(3 * mb + 1);
    ENSURE(!LS_MAPS_INDEX || d == c);
    memset(d, 4, 3 * mb + 1);
    lsFreeIndex(d, 3 * mb + 1);
    ENSURE(lsAllocatedBytes() == before);
    return 0;
}

int SceneTest(void)
{
    RUN_SUBTEST(MaxRangeTest);
    RUN_SUBTEST(EdgeWorldsTest);
    RUN_SUBTEST(CityAgreementTest);
    RUN_SUBTEST(StackedShapesTest);
    RUN_SUBTEST(LargeShapesAmongWallsTest);
    RUN_SUBTEST(SnappedAgreementTest);
    RUN_SUBTEST(MazeCornerTest);
    RUN_SUBTEST(GridBoundaryTest);
    RUN_SUBTEST(OriginOnWallTest);
    RUN_SUBTEST(GrazingCircleTest);
    RUN_SUBTEST(HugeCoordinatesTest);
    RUN_SUBTEST(ClosedRoomTest);
    RUN_SUBTEST(DynamicObjectsTest);
    RUN_SUBTEST(MovedTargetsTest);
    RUN_SUBTEST(QueryTest);
    RUN_SUBTEST(LongWallTest);
    RUN_SUBTEST(HugeWorldTest);
    RUN_SUBTEST(NearlyParallelTest);
    RUN_SUBTEST(BatchTest);
    RUN_SUBTEST(PacketTest);
    RUN_SUBTEST(PacketExactTest);
    RUN_SUBTEST(LanesExactTest);
    RUN_SUBTEST(StatsTest);
    RUN_SUBTEST(EmptyBlocksTest);
    RUN_SUBTEST(FanAgreementTest);
    RUN_SUBTEST(SparseFanAgreementTest);
    RUN_SUBTEST(SparseFanTieTest);
    RUN_SUBTEST(SparseWalkAgreementTest);
    RUN_SUBTEST(BackFaceTest);
    RUN_SUBTEST(BackFaceRandomTest);
    RUN_SUBTEST(BackFaceCrowdedRowTest);
    RUN_SUBTEST(FanScanNoiseTest);
    RUN_SUBTEST(CrowdedCellTest);
    RUN_SUBTEST(HubTest);
    RUN_SUBTEST(GridLineBeamsTest);
    RUN_SUBTEST(SubnormalDirectionTest);
    RUN_SUBTEST(IndexBlockTest);
    return 0;
}

int SceneThreadsTest(void)
{
    RUN_SUBTEST(ThreadsTest);
    return 0;
}

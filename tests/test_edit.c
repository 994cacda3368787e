// EditTest: the world editor's operations on the world model (core/edit.h): add, move, knife cuts (open and
// closed chains, a cut exactly through a corner), delete, undo/redo, picking with tolerances, and save -> load;
// then the in-window editor (app/editor.h) driven by synthesized SDL events and drawn on a software renderer.
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include "test.h"

#include "core/edit.h"
#include "lidarsim/geometry.h"
#include "lidarsim/sim.h"

#include <string.h>

#ifdef LS_HAVE_APP
#include "app/editor.h"

#include <unistd.h>
#endif

// Fails unless the wall has exactly the given points (bitwise for the corners that are not cut, within tol for
// the points a cut makes).
static int CheckWall(const lsWallDef* wall, const lsVec2* expected, int count, bool closed, double tol)
{
    ENSURE(wall->pointCount == count);
    ENSURE(wall->closed == closed);
    for (int i = 0; i < count; ++i)
    {
        ENSURE_SMALL(wall->points[i].x - expected[i].x, tol);
        ENSURE_SMALL(wall->points[i].y - expected[i].y, tol);
    }
    return 0;
}

// No zero-length segment anywhere: what the loader insists on.
static int CheckWallsValid(const lsWorld* world)
{
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        ENSURE(wall->pointCount >= (wall->closed ? 3 : 2));
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int i = 0; i < segments; ++i)
        {
            ENSURE(!lsVecEqual(wall->points[i], wall->points[(i + 1) % wall->pointCount]));
        }
    }
    return 0;
}

static int AddWallTest(void)
{
    lsWorld* world = lsCreateWorld();
    int index = lsEdit_AddWall(world, lsV(0.0, 0.0), lsV(3.0, 4.0));
    ENSURE(index == 0 && world->wallCount == 1);
    ENSURE(world->walls[0].fromTo && !world->walls[0].closed && world->walls[0].pointCount == 2);
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(3.0, 4.0)));
    // A zero-length wall would not load back: refused, nothing added.
    ENSURE(lsEdit_AddWall(world, lsV(1.0, 1.0), lsV(1.0, 1.0)) == -1);
    ENSURE(lsEdit_AddWall(world, lsV(1.0, 1.0), lsV((double)NAN, 1.0)) == -1);
    ENSURE(world->wallCount == 1);
    ENSURE(lsEdit_AddWall(world, lsV(5.0, 0.0), lsV(5.0, 1.0)) == 1);
    lsDestroyWorld(world);
    return 0;
}

static int MoveTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(1.0, 1.0);
    lsWorld_AddTarget(world, target);
    lsPolygonDef poly;
    memset(&poly, 0, sizeof poly);
    poly.count = 3;
    poly.points[0] = lsV(0.0, 0.0);
    poly.points[1] = lsV(2.0, 0.0);
    poly.points[2] = lsV(0.0, 2.0);
    poly.reflectance = 0.5;
    lsWorld_AddPolygon(world, &poly);
    lsVec2 chain[3] = {{0.0, 5.0}, {2.0, 5.0}, {2.0, 7.0}};
    lsWorld_AddWall(world, chain, 3, false);
    lsVec2 road[3] = {{-5.0, 0.0}, {-5.0, 5.0}, {-2.0, 5.0}};
    lsWorld_AddPath(world, "road", road, 3, 0.5, false);
    lsVehicleDef vehicle = lsDefaultVehicleDef();
    vehicle.path = 0;
    vehicle.position = lsV(-5.0, 1.0);
    lsWorld_AddVehicle(world, vehicle);

    // A target lands exactly where it is dropped.
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV(3.25, -1.5)));
    ENSURE(lsVecEqual(world->targets[0].center, lsV(3.25, -1.5)));
    // Dropping it where it is changes nothing.
    ENSURE(!lsEdit_MoveTo(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV(3.25, -1.5)));

    // A polygon moves whole: every vertex by the same delta, still the same shape.
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editPolygon, 0, 0), lsV(1.0, -0.5)));
    ENSURE(lsVecEqual(world->polygons[0].points[0], lsV(1.0, -0.5)));
    ENSURE(lsVecEqual(world->polygons[0].points[1], lsV(3.0, -0.5)));
    ENSURE(lsVecEqual(world->polygons[0].points[2], lsV(1.0, 1.5)));

    // The robot's start pose.
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editRobot, 0, 0), lsV(-1.0, -1.0)));
    ENSURE(lsVecEqual(world->robot.position, lsV(-1.0, -1.0)));

    // A wall corner moves alone; onto its neighbour it would make a zero-length segment, so that is refused.
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWallPoint, 0, 1), lsV(3.0, 5.0)));
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(3.0, 5.0)));
    ENSURE(lsVecEqual(world->walls[0].points[0], lsV(0.0, 5.0)));
    ENSURE(!lsEdit_MoveTo(world, lsMakeEditRef(ls_editWallPoint, 0, 1), lsV(2.0, 7.0)));
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(3.0, 5.0)));
    // A whole wall moves rigidly; its anchor is its first point.
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWall, 0, 0), lsV(1.0, 6.0)));
    ENSURE(lsVecEqual(world->walls[0].points[0], lsV(1.0, 6.0)));
    ENSURE(lsVecEqual(world->walls[0].points[2], lsV(3.0, 8.0)));

    // A path takes its vehicles along; a path point moves alone.
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editPath, 0, 0), lsV(0.5, 0.0)));
    ENSURE(lsVecEqual(world->paths[0].points[1], lsV(-4.5, 5.0)));
    ENSURE(lsVecEqual(world->vehicles[0].position, lsV(-4.5, 1.0)));
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editPathPoint, 0, 2), lsV(0.0, 6.0)));
    ENSURE(lsVecEqual(world->paths[0].points[2], lsV(0.0, 6.0)));
    ENSURE(lsVecEqual(world->vehicles[0].position, lsV(-4.5, 1.0)));

    // Non-finite moves are refused.
    ENSURE(!lsEdit_Translate(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV((double)INFINITY, 0.0)));
    ENSURE(!lsEdit_Translate(world, lsMakeEditRef(ls_editWall, 0, 0), lsV(1.0e308, 0.0)) ||
           lsIsValidVec2(world->walls[0].points[0]));
    ENSURE(CheckWallsValid(world) == 0);
    lsDestroyWorld(world);
    return 0;
}

static int JoinedCornerTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsEdit_AddWall(world, lsV(0.0, 0.0), lsV(2.0, 0.0));
    lsEdit_AddWall(world, lsV(2.0, 0.0), lsV(2.0, 2.0));
    lsVec2 tri[3] = {{2.0, 0.0}, {4.0, 0.0}, {3.0, 1.0}};
    lsWorld_AddWall(world, tri, 3, true);
    lsEdit_AddWall(world, lsV(2.0, 0.5), lsV(5.0, 5.0)); // near, not joined

    lsEditRef joined[8];
    int count = lsEdit_JoinedCorners(world, lsMakeEditRef(ls_editWallPoint, 1, 0), joined, 8);
    ENSURE(count == 3);
    ENSURE(lsEditRef_Equal(joined[0], lsMakeEditRef(ls_editWallPoint, 1, 0)));
    ENSURE(lsEditRef_Equal(joined[1], lsMakeEditRef(ls_editWallPoint, 0, 1)));
    ENSURE(lsEditRef_Equal(joined[2], lsMakeEditRef(ls_editWallPoint, 2, 0)));
    // Capacity is respected and the full count still returned.
    ENSURE(lsEdit_JoinedCorners(world, lsMakeEditRef(ls_editWallPoint, 1, 0), joined, 1) == 3);

    count = lsEdit_JoinedCorners(world, lsMakeEditRef(ls_editWallPoint, 1, 0), joined, 8);
    ENSURE(lsEdit_MoveCorners(world, joined, count, lsV(2.0, -1.0)));
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(2.0, -1.0)) &&
           lsVecEqual(world->walls[1].points[0], lsV(2.0, -1.0)));
    ENSURE(lsVecEqual(world->walls[2].points[0], lsV(2.0, -1.0)) &&
           lsVecEqual(world->walls[3].points[0], lsV(2.0, 0.5)));
    // All or nothing: onto the triangle's next corner would make a zero-length segment there, so nothing moves.
    lsWorld* before = lsCloneWorld(world);
    ENSURE(!lsEdit_MoveCorners(world, joined, count, lsV(4.0, 0.0)));
    ENSURE(!lsEdit_MoveCorners(world, joined, count, lsV(2.0, -1.0)));
    ENSURE(lsWorld_Equal(world, before));
    ENSURE(CheckWallsValid(world) == 0);
    lsDestroyWorld(before);
    lsDestroyWorld(world);
    return 0;
}

static int MoverMoveTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    bar.a = lsV(0.0, 0.0);
    bar.b = lsV(2.0, 0.0);
    bar.pivot = lsV(1.0, 0.0);
    lsWorld_AddMover(world, bar);
    // A whole mover carries its pivot.
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editMover, 0, 0), lsV(0.0, 1.0)));
    ENSURE(lsVecEqual(world->movers[0].pivot, lsV(1.0, 1.0)));
    // An end cannot land on the other end.
    ENSURE(!lsEdit_MoveTo(world, lsMakeEditRef(ls_editMoverPoint, 0, 1), lsV(0.0, 1.0)));
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editMoverPoint, 0, 2), lsV(0.0, 1.0)));
    ENSURE(lsVecEqual(world->movers[0].pivot, lsV(0.0, 1.0)));
    // Doors have no pivot handle.
    world->movers[0].kind = ls_moverDoor;
    ENSURE(!lsEdit_IsValidRef(world, lsMakeEditRef(ls_editMoverPoint, 0, 2)));
    lsDestroyWorld(world);
    return 0;
}

static int CutOpenWallTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsEdit_AddWall(world, lsV(0.0, 10.0), lsV(1.0, 10.0)); // before: stays at index 0
    lsEdit_AddWall(world, lsV(0.0, 0.0), lsV(4.0, 0.0));
    world->walls[1].reflectance = 0.3;
    lsEdit_AddWall(world, lsV(0.0, 20.0), lsV(1.0, 20.0)); // after: shifts to index 3

    // The knife's stroke misses everything: nothing changes.
    lsWorld* before = lsCloneWorld(world);
    ENSURE(lsEdit_Cut(world, lsV(5.0, -1.0), lsV(5.0, 1.0), LS_KNIFE_GAP) == 0);
    ENSURE(lsEdit_Cut(world, lsV(2.0, 0.5), lsV(2.0, 1.0), LS_KNIFE_GAP) == 0);
    ENSURE(lsWorld_Equal(world, before));
    lsDestroyWorld(before);

    ENSURE(lsEdit_Cut(world, lsV(2.5, -1.0), lsV(2.5, 1.0), LS_KNIFE_GAP) == 1);
    ENSURE(world->wallCount == 4);
    lsVec2 left[2] = {{0.0, 0.0}, {2.45, 0.0}};
    lsVec2 right[2] = {{2.55, 0.0}, {4.0, 0.0}};
    ENSURE(CheckWall(world->walls + 1, left, 2, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 2, right, 2, false, 1e-12) == 0);
    ENSURE(world->walls[1].reflectance == 0.3 && world->walls[2].reflectance == 0.3);
    ENSURE(world->walls[1].fromTo && world->walls[2].fromTo);
    // The untouched corners are the originals, bit for bit.
    ENSURE(lsVecEqual(world->walls[1].points[0], lsV(0.0, 0.0)) &&
           lsVecEqual(world->walls[2].points[1], lsV(4.0, 0.0)));
    ENSURE(world->walls[0].points[0].y == 10.0 && world->walls[3].points[0].y == 20.0);

    // Gap 0 splits at the crossing: both pieces end exactly at the same point.
    ENSURE(lsEdit_Cut(world, lsV(1.0, 1.0), lsV(1.0, -1.0), 0.0) == 1);
    ENSURE(world->wallCount == 5);
    ENSURE(lsVecEqual(world->walls[1].points[1], world->walls[2].points[0]));
    ENSURE_SMALL(world->walls[1].points[1].x - 1.0, 1e-15);

    // A short segment's opening is clamped to a quarter of its length, so it is not swallowed.
    lsWorld_RemoveWall(world, 0);
    int shortWall = lsEdit_AddWall(world, lsV(10.0, 0.0), lsV(10.1, 0.0));
    ENSURE(lsEdit_Cut(world, lsV(10.05, 1.0), lsV(10.05, -1.0), LS_KNIFE_GAP) == 1);
    ENSURE_SMALL(world->walls[shortWall].points[1].x - 10.025, 1e-12);
    ENSURE_SMALL(world->walls[shortWall + 1].points[0].x - 10.075, 1e-12);
    ENSURE(CheckWallsValid(world) == 0);
    lsDestroyWorld(world);
    return 0;
}

static int CutChainTest(void)
{
    // One stroke crossing a zigzag chain twice cuts it into three pieces, in order, in the wall's place.
    lsWorld* world = lsCreateWorld();
    lsVec2 zigzag[4] = {{0.0, 0.0}, {2.0, 2.0}, {4.0, 0.0}, {6.0, 2.0}};
    lsWorld_AddWall(world, zigzag, 4, false);
    ENSURE(lsEdit_Cut(world, lsV(-1.0, 1.0), lsV(3.5, 1.0), 0.0) == 2);
    ENSURE(world->wallCount == 3);
    lsVec2 a[2] = {{0.0, 0.0}, {1.0, 1.0}};
    lsVec2 b[3] = {{1.0, 1.0}, {2.0, 2.0}, {3.0, 1.0}};
    lsVec2 c[3] = {{3.0, 1.0}, {4.0, 0.0}, {6.0, 2.0}};
    ENSURE(CheckWall(world->walls + 0, a, 2, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 1, b, 3, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 2, c, 3, false, 1e-12) == 0);
    // Chains cut from a chain stay chains (fromTo false), even with two points.
    ENSURE(!world->walls[0].fromTo);
    lsDestroyWorld(world);
    return 0;
}

static int CutClosedChainTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 square[4] = {{0.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}};
    lsWorld_AddWall(world, square, 4, true);

    // One cut opens the loop: one open chain from one side of the opening round to the other.
    ENSURE(lsEdit_Cut(world, lsV(1.0, -1.0), lsV(1.0, 1.0), LS_KNIFE_GAP) == 1);
    ENSURE(world->wallCount == 1);
    lsVec2 opened[6] = {{1.05, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}, {0.0, 0.0}, {0.95, 0.0}};
    ENSURE(CheckWall(world->walls, opened, 6, false, 1e-12) == 0);

    // The closing segment (last point back to the first) is a segment like the others.
    lsWorld_RemoveWall(world, 0);
    lsWorld_AddWall(world, square, 4, true);
    ENSURE(lsEdit_Cut(world, lsV(-1.0, 2.0), lsV(1.0, 2.0), LS_KNIFE_GAP) == 1);
    // The opening is at u = 14 of 16; the chain resumes past it (0, 1.95), runs round through points[0] and ends
    // on the opening's near side (0, 2.05).
    lsVec2 opened3[6] = {{0.0, 1.95}, {0.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}, {0.0, 2.05}};
    ENSURE(CheckWall(world->walls, opened3, 6, false, 1e-12) == 0);

    // Two cuts through a loop give two open chains.
    lsWorld_RemoveWall(world, 0);
    lsWorld_AddWall(world, square, 4, true);
    ENSURE(lsEdit_Cut(world, lsV(2.0, -1.0), lsV(2.0, 5.0), 0.0) == 2);
    ENSURE(world->wallCount == 2);
    lsVec2 right[4] = {{2.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {2.0, 4.0}};
    lsVec2 left[4] = {{2.0, 4.0}, {0.0, 4.0}, {0.0, 0.0}, {2.0, 0.0}};
    ENSURE(CheckWall(world->walls + 0, right, 4, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 1, left, 4, false, 1e-12) == 0);
    ENSURE(CheckWallsValid(world) == 0);
    lsDestroyWorld(world);
    return 0;
}

static int CutCornerTest(void)
{
    // The stroke passes exactly through the corner two segments share: one cut there, not two.
    lsWorld* world = lsCreateWorld();
    lsVec2 ell[3] = {{0.0, 0.0}, {2.0, 0.0}, {2.0, 2.0}};
    lsWorld_AddWall(world, ell, 3, false);
    ENSURE(lsEdit_Cut(world, lsV(3.0, -1.0), lsV(1.0, 1.0), LS_KNIFE_GAP) == 1);
    ENSURE(world->wallCount == 2);
    lsVec2 a[2] = {{0.0, 0.0}, {1.95, 0.0}};
    lsVec2 b[2] = {{2.0, 0.05}, {2.0, 2.0}};
    ENSURE(CheckWall(world->walls + 0, a, 2, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 1, b, 2, false, 1e-12) == 0);

    // Through the first corner of a closed chain (u = 0 and u = T are the same place).
    lsWorld_RemoveWall(world, 1);
    lsWorld_RemoveWall(world, 0);
    lsVec2 square[4] = {{0.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}};
    lsWorld_AddWall(world, square, 4, true);
    ENSURE(lsEdit_Cut(world, lsV(-1.0, -1.0), lsV(1.0, 1.0), LS_KNIFE_GAP) == 1);
    ENSURE(world->wallCount == 1);
    lsVec2 opened[5] = {{0.05, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}, {0.0, 0.05}};
    ENSURE(CheckWall(world->walls, opened, 5, false, 1e-12) == 0);

    // Two separate walls meeting at a corner: each is cut at its end.
    lsWorld_RemoveWall(world, 0);
    lsEdit_AddWall(world, lsV(0.0, 0.0), lsV(2.0, 0.0));
    lsEdit_AddWall(world, lsV(2.0, 0.0), lsV(2.0, 2.0));
    ENSURE(lsEdit_Cut(world, lsV(3.0, -1.0), lsV(1.0, 1.0), LS_KNIFE_GAP) == 2);
    ENSURE(world->wallCount == 2);
    ENSURE(CheckWall(world->walls + 0, a, 2, false, 1e-12) == 0);
    ENSURE(CheckWall(world->walls + 1, b, 2, false, 1e-12) == 0);

    // A stroke that ends exactly on a corner cuts there too (the closed segment's end counts).
    lsWorld_RemoveWall(world, 1);
    lsWorld_RemoveWall(world, 0);
    lsWorld_AddWall(world, ell, 3, false);
    ENSURE(lsEdit_Cut(world, lsV(3.0, -1.0), lsV(2.0, 0.0), 0.0) == 1);
    ENSURE(world->wallCount == 2);
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(2.0, 0.0)) &&
           lsVecEqual(world->walls[1].points[0], lsV(2.0, 0.0)));
    ENSURE(CheckWallsValid(world) == 0);
    lsDestroyWorld(world);
    return 0;
}

// Total length of every wall.
static double WallLength(const lsWorld* world)
{
    double total = 0.0;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int i = 0; i < segments; ++i)
        {
            total += lsDistance(wall->points[i], wall->points[(i + 1) % wall->pointCount]);
        }
    }
    return total;
}

// Random chains and random strokes: whatever the knife does leaves a valid world that saves and loads back equal,
// only removes wall (every new point lies on the old walls, the length shrinks), and leaves nothing for the same
// stroke to cut again: every crossing was cut.
static int CutPropertyTest(void)
{
    lsRng rng = lsMakeRng(20261122);
    int totalCuts = 0;
    for (int trial = 0; trial < 400; ++trial)
    {
        lsWorld* world = lsCreateWorld();
        int chains = 1 + (int)(lsRng_Next(&rng) % 3);
        for (int c = 0; c < chains; ++c)
        {
            lsVec2 points[8];
            int count = 2 + (int)(lsRng_Next(&rng) % 7);
            for (int i = 0; i < count; ++i)
            {
                points[i] = lsTestRandomPoint(&rng, -5.0, 5.0, -5.0, 5.0);
            }
            bool closed = count >= 3 && lsRng_Uniform(&rng) < 0.5;
            lsWorld_AddWall(world, points, count, closed);
        }
        // Now and then a stroke through a corner exactly.
        lsVec2 m0 = lsTestRandomPoint(&rng, -6.0, 6.0, -6.0, 6.0);
        lsVec2 m1 = lsTestRandomPoint(&rng, -6.0, 6.0, -6.0, 6.0);
        if (trial % 5 == 0)
            m1 = lsAdd(world->walls[0].points[1], lsSub(world->walls[0].points[1], m0));
        double gap = trial % 7 == 0 ? 0.0 : LS_KNIFE_GAP;
        lsWorld* before = lsCloneWorld(world);

        int cuts = lsEdit_Cut(world, m0, m1, gap);
        totalCuts += cuts;
        ENSURE(CheckWallsValid(world) == 0);
        ENSURE(cuts > 0 || lsWorld_Equal(world, before));
        if (cuts > 0 && gap > 0.0)
        {
            ENSURE(WallLength(world) < WallLength(before));
            lsWorld* again = lsCloneWorld(world);
            ENSURE(lsEdit_Cut(again, m0, m1, gap) == 0);
            lsDestroyWorld(again);
        }
        for (int w = 0; w < world->wallCount; ++w)
        {
            for (int i = 0; i < world->walls[w].pointCount; ++i)
            {
                double nearest = (double)INFINITY;
                for (int v = 0; v < before->wallCount; ++v)
                {
                    const lsWallDef* old = before->walls + v;
                    lsClosestPoint cp =
                        lsClosestPointOnPolyline(old->points, old->pointCount, old->closed, world->walls[w].points[i]);
                    nearest = fmin(nearest, cp.distance);
                }
                ENSURE_SMALL(nearest, 1e-12);
            }
        }
        char* text = lsSaveWorldToString(world);
        lsError err;
        lsWorld* loaded = lsLoadWorldFromString(text, strlen(text), "cut.json", &err, NULL);
        if (loaded == NULL)
            fprintf(stderr, "trial %d: %s\n", trial, err.message);
        ENSURE(loaded != NULL && lsWorld_Equal(loaded, world));
        lsDestroyWorld(loaded);
        lsFreeString(text);
        lsDestroyWorld(before);
        lsDestroyWorld(world);
    }
    // The strokes do cross walls often enough for the checks above to mean something.
    ENSURE(totalCuts > 200);
    return 0;
}

static int DeleteTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 chain[4] = {{0.0, 0.0}, {1.0, 0.0}, {2.0, 0.0}, {1.0, 0.0}};
    lsWorld_AddWall(world, chain, 4, false);
    lsVec2 tri[3] = {{0.0, 5.0}, {1.0, 5.0}, {0.0, 6.0}};
    lsWorld_AddWall(world, tri, 3, true);
    lsTargetDef target = lsDefaultTargetDef();
    lsWorld_AddTarget(world, target);
    target.center = lsV(2.0, 2.0);
    target.kind = ls_poison;
    lsWorld_AddTarget(world, target);
    lsVec2 road[3] = {{-5.0, 0.0}, {-5.0, 5.0}, {-2.0, 5.0}};
    lsWorld_AddPath(world, "road", road, 3, 0.5, false);
    lsWorld_AddVehicle(world, lsDefaultVehicleDef());

    // Removing a corner whose neighbours coincide would leave a zero-length segment: refused.
    ENSURE(!lsEdit_Delete(world, lsMakeEditRef(ls_editWallPoint, 0, 2)));
    ENSURE(world->walls[0].pointCount == 4);
    // Removing the first corner shortens the chain.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editWallPoint, 0, 0)));
    lsVec2 left[3] = {{1.0, 0.0}, {2.0, 0.0}, {1.0, 0.0}};
    ENSURE(CheckWall(world->walls, left, 3, false, 0.0) == 0);
    // A closed triangle cannot lose a corner and stay a wall: the whole wall goes.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editWallPoint, 1, 1)));
    ENSURE(world->wallCount == 1);

    // Targets keep their order.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editTarget, 0, 0)));
    ENSURE(world->targetCount == 1 && world->targets[0].kind == ls_poison);
    // The robot cannot be deleted.
    ENSURE(!lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 0, 0)));
    // A path point goes while the path keeps two points, then no more.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editPathPoint, 0, 1)));
    ENSURE(world->paths[0].pointCount == 2 && lsVecEqual(world->paths[0].points[1], lsV(-2.0, 5.0)));
    ENSURE(!lsEdit_Delete(world, lsMakeEditRef(ls_editPathPoint, 0, 1)));
    // A path takes its vehicles with it.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editPath, 0, 0)));
    ENSURE(world->pathCount == 0 && world->vehicleCount == 0);
    // A stale reference is not valid any more.
    ENSURE(!lsEdit_IsValidRef(world, lsMakeEditRef(ls_editTarget, 1, 0)));
    ENSURE(!lsEdit_IsValidRef(world, lsMakeEditRef(ls_editPath, 0, 0)));
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editWall, 0, 0)));
    ENSURE(world->wallCount == 0);
    lsDestroyWorld(world);
    return 0;
}

static int UndoRedoTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsUndoStack* stack = lsCreateUndoStack(100, 0);
    ENSURE(!lsUndoStack_Undo(stack, world) && !lsUndoStack_Redo(stack, world));

    // Three edits, each recorded the way the editor records them.
    lsWorld* states[4];
    states[0] = lsCloneWorld(world);
    lsWorld* before = lsCloneWorld(world);
    ENSURE(lsEdit_AddWall(world, lsV(0.0, 0.0), lsV(4.0, 0.0)) == 0);
    lsUndoStack_Push(stack, before);
    states[1] = lsCloneWorld(world);
    before = lsCloneWorld(world);
    ENSURE(lsEdit_Cut(world, lsV(2.0, -1.0), lsV(2.0, 1.0), LS_KNIFE_GAP) == 1);
    lsUndoStack_Push(stack, before);
    states[2] = lsCloneWorld(world);
    before = lsCloneWorld(world);
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editRobot, 0, 0), lsV(1.0, 2.0)));
    lsUndoStack_Push(stack, before);
    states[3] = lsCloneWorld(world);
    ENSURE(lsUndoStack_UndoCount(stack) == 3 && lsUndoStack_RedoCount(stack) == 0);

    // Undo all the way back, redo all the way forward: each state exactly as it was.
    for (int i = 2; i >= 0; --i)
    {
        ENSURE(lsUndoStack_Undo(stack, world));
        ENSURE(lsWorld_Equal(world, states[i]));
    }
    ENSURE(!lsUndoStack_Undo(stack, world));
    for (int i = 1; i <= 3; ++i)
    {
        ENSURE(lsUndoStack_Redo(stack, world));
        ENSURE(lsWorld_Equal(world, states[i]));
    }
    ENSURE(!lsUndoStack_Redo(stack, world));

    // A new edit after an undo drops the redo branch.
    ENSURE(lsUndoStack_Undo(stack, world) && lsUndoStack_Undo(stack, world));
    before = lsCloneWorld(world);
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editWall, 0, 0)));
    lsUndoStack_Push(stack, before);
    ENSURE(lsUndoStack_RedoCount(stack) == 0 && lsUndoStack_UndoCount(stack) == 2);
    ENSURE(lsUndoStack_Undo(stack, world) && lsWorld_Equal(world, states[1]));

    for (int i = 0; i < 4; ++i)
    {
        lsDestroyWorld(states[i]);
    }
    lsDestroyUndoStack(stack);
    lsDestroyWorld(world);

    // Bounded depth: only the newest maxSteps edits can be undone.
    world = lsCreateWorld();
    stack = lsCreateUndoStack(3, 0);
    for (int i = 0; i < 5; ++i)
    {
        before = lsCloneWorld(world);
        lsEdit_AddWall(world, lsV(i, 0.0), lsV(i, 1.0));
        lsUndoStack_Push(stack, before);
    }
    ENSURE(lsUndoStack_UndoCount(stack) == 3);
    while (lsUndoStack_Undo(stack, world))
    {
    }
    ENSURE(world->wallCount == 2);
    // Bounded bytes: the newest snapshot is always kept, older ones go when over budget.
    lsUndoStack_Clear(stack);
    lsDestroyUndoStack(stack);
    stack = lsCreateUndoStack(100, 1);
    for (int i = 0; i < 3; ++i)
    {
        before = lsCloneWorld(world);
        lsEdit_AddWall(world, lsV(i, 5.0), lsV(i, 6.0));
        lsUndoStack_Push(stack, before);
    }
    ENSURE(lsUndoStack_UndoCount(stack) == 1);
    ENSURE(lsUndoStack_Undo(stack, world) && world->wallCount == 4);
    lsDestroyUndoStack(stack);
    lsDestroyWorld(world);
    return 0;
}

// Robots in the editor's model: picked and moved by index, added as copies at free places (never overlapping
// anything, never behind a wall from the robot copied), deleted down to the last one, undone and redone.
static int RobotsTest(void)
{
    const char* text =
        "{\"walls\": [{\"points\": [[0, 0], [10, 0], [10, 10], [0, 10]], \"closed\": true},"
        " {\"from\": [5, 0], \"to\": [5, 10]}],"
        " \"boxes\": [{\"center\": [2, 8], \"size\": [1, 1]}],"
        " \"robots\": [{\"id\": \"amr1\", \"pose\": [1, 1, 90], \"radius\": 0.3, \"controller\": \"autopilot\","
        " \"lidar\": {\"beams\": 90, \"seed\": 5}},"
        " {\"id\": \"fork\", \"pose\": [4.6, 5, 0], \"footprint\": [[-0.3, -0.2], [0.3, -0.2], [0.3, 0.2], [-0.3, "
        "0.2]]}]}";
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "robots.json", &err, NULL);
    ENSURE(world != NULL);
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(1.1, 1.0), 0.01), lsMakeEditRef(ls_editRobot, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(4.85, 5.15), 0.01), lsMakeEditRef(ls_editRobot, 1, 0)));
    ENSURE(lsEdit_Pick(world, lsV(4.85, 5.25), 0.01).kind == ls_editNone); // outside the box footprint
    ENSURE(lsVecEqual(lsEdit_Anchor(world, lsMakeEditRef(ls_editRobot, 1, 0)), lsV(4.6, 5.0)));
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editRobot, 1, 0), lsV(4.5, 5.0)));
    ENSURE(lsVecEqual(lsWorld_GetRobot(world, 1)->position, lsV(4.5, 5.0)));

    // A copy of amr1: the next id, its settings and heading, a seed of its own, the first free place along +x.
    lsUndoStack* undo = lsCreateUndoStack(100, 0);
    lsWorld* before = lsCloneWorld(world);
    int added = lsEdit_AddRobot(world, 0, lsV(1.0, 1.0), 0.0);
    ENSURE(added == 2);
    lsUndoStack_Push(undo, before);
    const lsRobotDef* copy = lsWorld_GetRobot(world, 2);
    ENSURE(strcmp(copy->id, "amr2") == 0 && copy->controller == ls_controllerAutopilot && copy->radius == 0.3);
    ENSURE(copy->lidar.beams == 90 && copy->lidar.seed == 6 && copy->angle == world->robot.angle);
    ENSURE_SMALL(copy->position.x - 1.75, 1e-12);
    ENSURE(copy->position.y == 1.0);
    // Asked for inside the box: the nearest free place outside it, on the 5 cm grid (short numbers in the file).
    int inBox = lsEdit_AddRobot(world, 0, lsV(2.0, 8.0), 0.05);
    ENSURE(inBox == 3);
    lsVec2 q = lsWorld_GetRobot(world, inBox)->position;
    ENSURE(q.x == round(q.x * 20.0) / 20.0 && q.y == round(q.y * 20.0) / 20.0);
    ENSURE(fabs(q.x - 2.0) > 0.5 + 0.3 || fabs(q.y - 8.0) > 0.5 + 0.3);
    ENSURE(lsDistance(q, lsV(2.0, 8.0)) < 1.6); // two rings out
    // Many more: all clear of each other, the walls and the box, and all in the left room (the wall at x = 5
    // between), whichever robot they copy.
    for (int k = 0; k < 30; ++k)
    {
        int from = k % 2 == 0 ? 1 : lsWorld_RobotCount(world) - 1;
        lsVec2 near = lsWorld_GetRobot(world, from)->position;
        ENSURE(lsEdit_AddRobot(world, from, near, 0.0) == lsWorld_RobotCount(world) - 1);
    }
    ENSURE(lsWorld_RobotCount(world) == 34);
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* a = lsWorld_GetRobot(world, i);
        double ra = lsRobotDef_Reach(a);
        ENSURE(a->position.x > ra && a->position.x < 5.0 - ra && a->position.y > ra && a->position.y < 10.0 - ra);
        ENSURE(fabs(a->position.x - 2.0) > 0.5 + ra || fabs(a->position.y - 8.0) > 0.5 + ra);
        for (int j = 0; j < i; ++j)
        {
            const lsRobotDef* b = lsWorld_GetRobot(world, j);
            ENSURE(strcmp(a->id, b->id) != 0);
            ENSURE(lsDistance(a->position, b->position) > ra + lsRobotDef_Reach(b));
        }
    }
    ENSURE(lsWorld_FindRobot(world, "fork2") >= 0 && lsWorld_FindRobot(world, "fork16") >= 0);
    // What the editor made saves and loads back equal.
    char* saved = lsSaveWorldToString(world);
    lsWorld* back = lsLoadWorldFromString(saved, strlen(saved), "robots.json", &err, NULL);
    lsFreeString(saved);
    ENSURE(back != NULL && lsWorld_Equal(back, world));
    lsDestroyWorld(back);
    // A room with no space left: nothing added.
    const char* tinyText = "{\"walls\": [{\"points\": [[0, 0], [0.7, 0], [0.7, 0.7], [0, 0.7]], \"closed\": true}],"
                           " \"robot\": {\"pose\": [0.35, 0.35, 0]}}";
    lsWorld* tiny = lsLoadWorldFromString(tinyText, strlen(tinyText), "tiny.json", &err, NULL);
    ENSURE(tiny != NULL && lsEdit_AddRobot(tiny, 0, lsV(0.35, 0.35), 0.0) == -1 && lsWorld_RobotCount(tiny) == 1);
    lsDestroyWorld(tiny);

    // Delete: the others keep their order; the last robot stays.
    lsUndoStack_Clear(undo);
    while (lsWorld_RobotCount(world) > 3)
        ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 3, 0)));
    before = lsCloneWorld(world);
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 0, 0)));
    lsUndoStack_Push(undo, before);
    ENSURE(lsWorld_RobotCount(world) == 2 && strcmp(world->robot.id, "fork") == 0);
    ENSURE(strcmp(lsWorld_GetRobot(world, 1)->id, "amr2") == 0);
    ENSURE(!lsEdit_IsValidRef(world, lsMakeEditRef(ls_editRobot, 2, 0)));
    before = lsCloneWorld(world);
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 1, 0)));
    lsUndoStack_Push(undo, before);
    ENSURE(!lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 0, 0)) && lsWorld_RobotCount(world) == 1);
    // Undo brings them back in their places, redo takes them out again.
    ENSURE(lsUndoStack_Undo(undo, world) && lsUndoStack_Undo(undo, world));
    ENSURE(lsWorld_RobotCount(world) == 3 && strcmp(world->robot.id, "amr1") == 0);
    ENSURE(lsUndoStack_Redo(undo, world) && lsWorld_RobotCount(world) == 2 && strcmp(world->robot.id, "fork") == 0);
    lsDestroyUndoStack(undo);
    lsDestroyWorld(world);
    return 0;
}

// A world standing on a map: a closed map wall (a 4 x 4 m square from its image) and the user's own wall from one
// of its corners. The map wall refuses every change (a move could not be saved: the map is named in the file, its
// walls made again from the image at each load); the user's wall stays editable.
static lsWorld* MakeMapWorld(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 square[4] = {{0.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}};
    lsWorld_AddWall(world, square, 4, true);
    world->walls[0].fromMap = true;
    snprintf(world->map.path, sizeof world->map.path, "maps/room.yaml");
    snprintf(world->map.yamlFile, sizeof world->map.yamlFile, "worlds/maps/room.yaml");
    lsVec2 own[2] = {{4.0, 4.0}, {6.0, 4.0}};
    lsWorld_AddWall(world, own, 2, false);
    world->robot.position = lsV(2.0, 2.0);
    return world;
}

static int MapWallsTest(void)
{
    lsWorld* world = MakeMapWorld();
    lsWorld* before = lsCloneWorld(world);
    lsEditRef wall = lsMakeEditRef(ls_editWall, 0, 0), corner = lsMakeEditRef(ls_editWallPoint, 0, 2);
    ENSURE(lsEdit_IsMapWall(world, wall) && lsEdit_IsMapWall(world, corner));
    ENSURE(!lsEdit_IsMapWall(world, lsMakeEditRef(ls_editWall, 1, 0)) && !lsEdit_IsMapWall(world, lsEditRefNone()));
    ENSURE(!lsEdit_Translate(world, wall, lsV(1.0, 0.0)) && !lsEdit_MoveTo(world, wall, lsV(1.0, 1.0)));
    ENSURE(!lsEdit_MoveTo(world, corner, lsV(5.0, 5.0)) && !lsEdit_Delete(world, corner));
    ENSURE(!lsEdit_Delete(world, wall));
    ENSURE(!lsEdit_MoveCorners(world, &corner, 1, lsV(5.0, 5.0)));
    // The user's wall's corner on the map's corner: the joint is only the user's corner, which moves alone.
    lsEditRef joined[4];
    lsEditRef ownCorner = lsMakeEditRef(ls_editWallPoint, 1, 0);
    ENSURE(lsEdit_JoinedCorners(world, ownCorner, joined, 4) == 1 && lsEditRef_Equal(joined[0], ownCorner));
    ENSURE(lsWorld_Equal(world, before));
    // The knife passes over the map wall, and cuts the user's wall.
    ENSURE(lsEdit_Cut(world, lsV(2.0, -1.0), lsV(2.0, 1.0), LS_KNIFE_GAP) == 0 && lsWorld_Equal(world, before));
    ENSURE(lsEdit_MoveCorners(world, &ownCorner, 1, lsV(4.5, 4.5)));
    ENSURE(lsEdit_Cut(world, lsV(5.0, 5.0), lsV(5.0, 3.0), LS_KNIFE_GAP) == 1);
    ENSURE(world->wallCount == 3 && world->walls[0].fromMap && world->walls[0].pointCount == 4);
    lsDestroyWorld(before);
    lsDestroyWorld(world);
    return 0;
}

static int PickTest(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(10.0, 10.0);
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(1.0, 1.0);
    target.radius = 0.3;
    lsWorld_AddTarget(world, target);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(5.0, 0.0);
    box.size = lsV(2.0, 1.0);
    box.angle = LS_PI / 2.0; // now 1 wide, 2 tall
    lsWorld_AddBox(world, box);
    lsEdit_AddWall(world, lsV(-4.0, -4.0), lsV(4.0, -4.0));
    lsVec2 road[2] = {{-3.0, 3.0}, {3.0, 3.0}};
    lsWorld_AddPath(world, "road", road, 2, 0.5, false);

    lsEditRef none = lsEditRefNone();
    // A target: inside, near its rim within the tolerance, and just beyond it.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(1.2, 1.0), 0.1), lsMakeEditRef(ls_editTarget, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(1.39, 1.0), 0.1), lsMakeEditRef(ls_editTarget, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(1.41, 1.0), 0.1), none));
    // The rotated box: (5, 0.9) is inside only because it is turned.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(5.0, 0.9), 0.01), lsMakeEditRef(ls_editBox, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(5.9, 0.0), 0.01), none));
    // The robot's start pose (radius 0.25 by default).
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(10.2, 10.0), 0.01), lsMakeEditRef(ls_editRobot, 0, 0)));
    // A wall: its corner within tolerance is the corner, its middle is the wall.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(-3.95, -4.02), 0.1), lsMakeEditRef(ls_editWallPoint, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(0.0, -4.05), 0.1), lsMakeEditRef(ls_editWall, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(0.0, -4.2), 0.1), none));
    // A path's points and its centre line.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(3.0, 3.05), 0.1), lsMakeEditRef(ls_editPathPoint, 0, 1)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(0.0, 3.05), 0.1), lsMakeEditRef(ls_editPath, 0, 0)));

    // Handles win over solids: a path point on top of a target is the path point.
    target.center = lsV(-3.0, 3.0);
    lsWorld_AddTarget(world, target);
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(-3.0, 3.0), 0.1), lsMakeEditRef(ls_editPathPoint, 0, 0)));
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(-3.0, 2.8), 0.1), lsMakeEditRef(ls_editTarget, 1, 0)));
    // Of two overlapping solids, the one drawn later (on top) wins.
    target.center = lsV(1.1, 1.0);
    lsWorld_AddTarget(world, target);
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(1.05, 1.0), 0.1), lsMakeEditRef(ls_editTarget, 2, 0)));
    ENSURE(lsEdit_IsValidRef(world, lsMakeEditRef(ls_editRobot, 0, 0)));
    ENSURE(!lsEdit_IsValidRef(world, lsMakeEditRef(ls_editWallPoint, 0, 2)));
    lsDestroyWorld(world);
    return 0;
}

static int SaveLoadTest(void)
{
    // Edit a world, save it in the canonical form, load it back: the same world.
    lsWorld* world = lsCreateWorld();
    lsVec2 square[4] = {{0.0, 0.0}, {4.0, 0.0}, {4.0, 4.0}, {0.0, 4.0}};
    lsWorld_AddWall(world, square, 4, true);
    lsEdit_AddWall(world, lsV(-1.0, -1.0), lsV(-1.0, 7.0));
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(2.0, 2.0);
    lsWorld_AddTarget(world, target);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(6.0, 1.0);
    lsWorld_AddBox(world, box);

    ENSURE(lsEdit_Cut(world, lsV(1.0 / 3.0, -1.0), lsV(0.1, 1.0), LS_KNIFE_GAP) == 1);
    ENSURE(lsEdit_Cut(world, lsV(-2.0, 3.0), lsV(0.5, 3.1), LS_KNIFE_GAP) == 2);
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV(0.1 + 0.2, 2.0 / 3.0)));
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editBox, 0, 0), lsV(LS_PI, -0.1)));
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWallPoint, 0, 2), lsV(4.5, 4.25)));
    ENSURE(lsEdit_AddWall(world, lsV(1e-3, 7.0), lsV(123456.789, -0.001)) >= 0);
    ENSURE(CheckWallsValid(world) == 0);

    char* text = lsSaveWorldToString(world);
    ENSURE(text != NULL);
    lsError err;
    lsWorld* loaded = lsLoadWorldFromString(text, strlen(text), "edited.json", &err, NULL);
    if (loaded == NULL)
        fprintf(stderr, "%s\n", err.message);
    ENSURE(loaded != NULL);
    ENSURE(lsWorld_Equal(world, loaded));
    lsFreeString(text);
    lsDestroyWorld(loaded);
    lsDestroyWorld(world);
    return 0;
}

#ifdef LS_HAVE_APP
// The in-window editor, driven by synthesized SDL events (no window: the editor only reads the events and the
// camera), then drawn onto a software renderer to check the overlay's pixels.

static SDL_Event KeyEvent(SDL_Keycode sym, Uint16 mod)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    return e;
}

static SDL_Event MouseEvent(Uint32 type, lsVec2 screen)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    if (type == SDL_MOUSEMOTION)
    {
        e.motion.x = (Sint32)screen.x;
        e.motion.y = (Sint32)screen.y;
    }
    else
    {
        e.button.button = SDL_BUTTON_LEFT;
        e.button.x = (Sint32)screen.x;
        e.button.y = (Sint32)screen.y;
    }
    return e;
}

// A left drag from a to b (world points) in `steps` motion events; returns whether the world changed.
static bool Drag(lsEditor* editor, const lsCamera* camera, lsWorld* world, lsVec2 a, lsVec2 b, int steps)
{
    lsEditResult result;
    bool changed = false;
    SDL_Event e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(camera, a));
    lsEditor_HandleEvent(editor, &e, camera, world, NULL, &result);
    changed |= result.worldChanged;
    for (int i = 1; i <= steps; ++i)
    {
        e = MouseEvent(SDL_MOUSEMOTION, lsCamera_WorldToScreen(camera, lsLerp(a, b, (double)i / steps)));
        lsEditor_HandleEvent(editor, &e, camera, world, NULL, &result);
        changed |= result.worldChanged;
    }
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(camera, b));
    lsEditor_HandleEvent(editor, &e, camera, world, NULL, &result);
    return changed || result.worldChanged;
}

static int EditorEventsTest(void)
{
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(-4.0, -4.0);
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(3.0, 3.0);
    lsWorld_AddTarget(world, target);
    // 50 pixels per metre, the origin at the centre of a 800 x 600 view: whole pixels are exact metres / 50.
    lsCamera camera = lsMakeCamera(800, 600);
    lsEditor* editor = lsCreateEditor();
    lsEditResult result;

    // Inactive: drags are not the editor's (the window pans), keys other than E and Ctrl+Z/Y/S pass through.
    SDL_Event e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsV(400.0, 300.0));
    ENSURE(!lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));
    e = KeyEvent(SDLK_k, KMOD_NONE);
    ENSURE(!lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));
    e = KeyEvent(SDLK_e, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsEditor_IsActive(editor));
    e = KeyEvent(SDLK_w, KMOD_NONE);
    ENSURE(!lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));

    // A drag on empty space draws a wall; the world changed and one undo step exists.
    ENSURE(Drag(editor, &camera, world, lsV(-2.0, 0.0), lsV(2.0, 0.0), 5));
    ENSURE(world->wallCount == 1 && world->walls[0].fromTo);
    ENSURE(lsVecEqual(world->walls[0].points[0], lsV(-2.0, 0.0)) &&
           lsVecEqual(world->walls[0].points[1], lsV(2.0, 0.0)));
    ENSURE(lsEditor_UndoCount(editor) == 1);
    ENSURE(lsEditor_GetSelection(editor).kind == ls_editWall);
    // A second wall ending near the first one's end joins it exactly (snapped to the corner).
    ENSURE(Drag(editor, &camera, world, lsV(0.0, 2.0), lsV(2.06, 0.04), 3));
    ENSURE(world->wallCount == 2 && lsVecEqual(world->walls[1].points[1], lsV(2.0, 0.0)));
    // A plain drag that starts on a corner moves the corner; with Shift held it starts a new wall there instead.
    SDL_SetModState(KMOD_LSHIFT);
    ENSURE(Drag(editor, &camera, world, lsV(-1.96, 0.02), lsV(-2.0, -2.0), 3));
    SDL_SetModState(KMOD_NONE);
    ENSURE(world->wallCount == 3 && lsVecEqual(world->walls[2].points[0], lsV(-2.0, 0.0)));
    ENSURE(lsVecEqual(world->walls[0].points[0], lsV(-2.0, 0.0)));
    ENSURE(Drag(editor, &camera, world, lsV(-2.0, -2.0), lsV(-3.0, -2.0), 3));
    ENSURE(world->wallCount == 3 && lsVecEqual(world->walls[2].points[1], lsV(-3.0, -2.0)));
    e = KeyEvent(SDLK_z, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(lsVecEqual(world->walls[2].points[1], lsV(-2.0, -2.0)));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && world->wallCount == 2);
    // Dragging a corner where walls meet moves the joint: both walls follow. Undo puts both back.
    ENSURE(Drag(editor, &camera, world, lsV(2.0, 0.0), lsV(2.5, 0.5), 3));
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(2.5, 0.5)));
    ENSURE(lsVecEqual(world->walls[1].points[1], lsV(2.5, 0.5)));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(2.0, 0.0)) &&
           lsVecEqual(world->walls[1].points[1], lsV(2.0, 0.0)));

    // A click (no drag) on empty space adds nothing and clears the selection.
    ENSURE(!Drag(editor, &camera, world, lsV(-3.0, 2.0), lsV(-3.0, 2.0), 1));
    ENSURE(world->wallCount == 2 && lsEditor_GetSelection(editor).kind == ls_editNone);

    // Dragging the target moves it by the mouse's displacement; dragging the robot moves its start pose.
    ENSURE(Drag(editor, &camera, world, lsV(3.1, 3.0), lsV(4.1, 2.0), 4));
    ENSURE_SMALL(world->targets[0].center.x - 4.0, 1e-12);
    ENSURE_SMALL(world->targets[0].center.y - 2.0, 1e-12);
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(&camera, lsV(-4.0, -4.0)));
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    e = MouseEvent(SDL_MOUSEMOTION, lsCamera_WorldToScreen(&camera, lsV(-3.0, -4.0)));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));
    ENSURE(result.worldChanged && result.robotChanged && lsVecEqual(world->robot.position, lsV(-3.0, -4.0)));
    // Esc cancels the drag in progress: the robot goes back, and it is not an undo step.
    int undoBefore = lsEditor_UndoCount(editor);
    e = KeyEvent(SDLK_ESCAPE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(lsVecEqual(world->robot.position, lsV(-4.0, -4.0)) && lsEditor_UndoCount(editor) == undoBefore);
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(&camera, lsV(-3.0, -4.0)));
    ENSURE(!lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));

    // The knife: K, then a drag across the first wall cuts it in two (one undo step for the whole stroke).
    e = KeyEvent(SDLK_k, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));
    undoBefore = lsEditor_UndoCount(editor);
    ENSURE(Drag(editor, &camera, world, lsV(0.0, 1.0), lsV(0.0, -1.0), 7));
    ENSURE(world->wallCount == 3 && lsEditor_UndoCount(editor) == undoBefore + 1);
    ENSURE_SMALL(world->walls[0].points[1].x + LS_KNIFE_GAP, 1e-12);
    ENSURE_SMALL(world->walls[1].points[0].x - LS_KNIFE_GAP, 1e-12);
    e = KeyEvent(SDLK_ESCAPE, KMOD_NONE); // leaves the knife
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));

    // Undo the cut, redo it (Ctrl+Y and Ctrl+Shift+Z), undo it again.
    lsWorld* cut = lsCloneWorld(world);
    e = KeyEvent(SDLK_z, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(world->wallCount == 2);
    e = KeyEvent(SDLK_y, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsWorld_Equal(world, cut));
    e = KeyEvent(SDLK_z, KMOD_LCTRL);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    e = KeyEvent(SDLK_z, KMOD_LCTRL | KMOD_LSHIFT);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsWorld_Equal(world, cut));
    lsDestroyWorld(cut);

    // Click the target to select it, Delete removes it.
    ENSURE(!Drag(editor, &camera, world, lsV(4.0, 2.0), lsV(4.0, 2.0), 1));
    ENSURE(lsEditor_GetSelection(editor).kind == ls_editTarget);
    e = KeyEvent(SDLK_DELETE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(world->targetCount == 0 && lsEditor_GetSelection(editor).kind == ls_editNone);

    // Ctrl+S without a file says so; with one it asks the window to save (the window holds the file's text).
    e = KeyEvent(SDLK_s, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.failed && !result.saveRequested);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, "w.json", &result) && result.saveRequested &&
           !result.failed);

    // Snapping: a drawn wall's ends land on the 5 cm grid (short numbers in the file); Shift places them freely;
    // ] and [ make the grid coarser and finer, down to off.
    ENSURE(lsEditor_GetSnap(editor) == 0.05);
    int walls = world->wallCount;
    ENSURE(Drag(editor, &camera, world, lsV(-3.02, 3.98), lsV(-1.04, 3.02), 3));
    ENSURE(world->wallCount == walls + 1);
    ENSURE(lsVecEqual(world->walls[walls].points[0], lsV(-3.0, 4.0)));
    ENSURE(lsVecEqual(world->walls[walls].points[1], lsV(-1.05, 3.0)));
    // A point just left of an axis snaps onto it as 0, never -0 (which the file then spelt "-0").
    ENSURE(lsSnapCoordinate(-0.01, 0.05) == 0.0 && !signbit(lsSnapCoordinate(-0.01, 0.05)));
    ENSURE(!signbit(lsSnapCoordinate(-0.2, 1.0)));
    SDL_SetModState(KMOD_LSHIFT);
    ENSURE(Drag(editor, &camera, world, lsV(-3.02, 5.02), lsV(-1.04, 5.02), 3));
    SDL_SetModState(KMOD_NONE);
    ENSURE(world->wallCount == walls + 2 && world->walls[walls + 1].points[0].x != -3.0);
    e = KeyEvent(SDLK_RIGHTBRACKET, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsEditor_GetSnap(editor) == 0.1);
    e = KeyEvent(SDLK_LEFTBRACKET, KMOD_NONE);
    for (int i = 0; i < 5; ++i)
        lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    ENSURE(lsEditor_GetSnap(editor) == 0.0);
    ENSURE(Drag(editor, &camera, world, lsV(-3.02, -1.02), lsV(-1.04, -1.02), 3));
    ENSURE(world->walls[walls + 2].points[0].x != -3.0);

    // A replaced world drops the selection and the history.
    lsEditor_WorldReplaced(editor);
    ENSURE(lsEditor_UndoCount(editor) == 0 && lsEditor_RedoCount(editor) == 0);
    // E leaves edit mode.
    e = KeyEvent(SDLK_e, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && !lsEditor_IsActive(editor));
    lsDestroyEditor(editor);
    lsDestroyWorld(world);
    return 0;
}

// Reads the colour of one pixel of an RGBA8888 surface.
// The editor and a fleet: a click picks a robot where the sim shows it (the live poses the window gives) or at its
// start ghost, and tells the window to drive it; a drag moves its start pose; I adds a copy next to it; Delete
// removes it; undo and redo cover all of it.
// The editor on a map wall: a drag selects it and says why it does not move (naming the map), Delete says the
// same; nothing changes and there is nothing to undo. Shift+drag from its corner draws a new wall there.
static int EditorMapWallsTest(void)
{
    lsWorld* world = MakeMapWorld();
    lsWorld* before = lsCloneWorld(world);
    lsCamera camera = lsMakeCamera(800, 600);
    lsEditor* editor = lsCreateEditor();
    lsEditResult result;
    SDL_Event e = KeyEvent(SDLK_e, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsEditor_IsActive(editor));
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(&camera, lsV(2.0, 0.0)));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && !result.worldChanged && result.failed);
    ENSURE(strstr(result.message, "room.yaml: not editable") != NULL && strstr(result.message, "import") != NULL);
    ENSURE(lsEditor_GetSelection(editor).kind == ls_editWall && lsEditor_GetSelection(editor).index == 0);
    e = MouseEvent(SDL_MOUSEMOTION, lsCamera_WorldToScreen(&camera, lsV(2.0, 1.0)));
    ENSURE(!lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) || !result.worldChanged);
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(&camera, lsV(2.0, 1.0)));
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    ENSURE(!Drag(editor, &camera, world, lsV(0.0, 4.0), lsV(-1.0, 5.0), 4)); // a corner: refused too
    ENSURE(lsWorld_Equal(world, before) && lsEditor_UndoCount(editor) == 0);
    e = KeyEvent(SDLK_DELETE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.failed && !result.worldChanged);
    ENSURE(strstr(result.message, "not editable") != NULL && lsWorld_Equal(world, before));
    SDL_SetModState(KMOD_LSHIFT);
    ENSURE(Drag(editor, &camera, world, lsV(0.0, 4.0), lsV(-1.0, 5.0), 4));
    SDL_SetModState(KMOD_NONE);
    ENSURE(world->wallCount == 3 && !world->walls[2].fromMap && lsVecEqual(world->walls[2].points[0], lsV(0.0, 4.0)));
    ENSURE(world->walls[0].pointCount == 4 && lsVecEqual(world->walls[0].points[3], lsV(0.0, 4.0)));
    // A drag of the user's corner that sits on a map corner moves that corner alone (the map's corner, as near, is
    // not what the press takes: it could not move). Both of the user's walls' corners there, and the picks too.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(4.0, 4.0), 0.1), lsMakeEditRef(ls_editWallPoint, 1, 0)));
    ENSURE(Drag(editor, &camera, world, lsV(4.0, 4.0), lsV(4.5, 4.5), 4));
    ENSURE(lsVecEqual(world->walls[1].points[0], lsV(4.5, 4.5)) &&
           lsVecEqual(world->walls[0].points[2], lsV(4.0, 4.0)));
    ENSURE(Drag(editor, &camera, world, lsV(0.0, 4.0), lsV(-1.0, 4.5), 4));
    ENSURE(lsVecEqual(world->walls[2].points[0], lsV(-1.0, 4.5)) &&
           lsVecEqual(world->walls[0].points[3], lsV(0.0, 4.0)));
    // A press on the map's line where the user's wall does not lie still selects the map's wall.
    ENSURE(lsEditRef_Equal(lsEdit_Pick(world, lsV(2.0, 4.0), 0.1), lsMakeEditRef(ls_editWall, 0, 0)));
    lsDestroyEditor(editor);
    lsDestroyWorld(before);
    lsDestroyWorld(world);
    return 0;
}

static int EditorRobotsTest(void)
{
    const char* text = "{\"walls\": [], \"robots\": [{\"id\": \"a1\", \"pose\": [-4, -4, 0]},"
                       " {\"id\": \"b\", \"pose\": [2, 2, 0], \"controller\": \"autopilot\"}]}";
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "fleet.json", &err, NULL);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl drive[2] = {lsMakeManualControl(0.0, 0.0), lsMakeManualControl(0.5, 0.0)};
    for (int k = 0; k < 120; ++k)
        lsSim_StepRobots(sim, drive);
    const lsSimState* state = lsSim_GetState(sim);
    lsVec2 live = state->robots[1].position; // b drove 1 m along +x from its start
    ENSURE(live.x > 2.9);
    lsCamera camera = lsMakeCamera(800, 600);
    lsEditor* editor = lsCreateEditor();
    lsEditResult result;
    SDL_Event e = KeyEvent(SDLK_e, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsEditor_IsActive(editor));

    // A click on b where the sim has it: selected, and the window is told to drive it.
    lsEditor_SetLiveRobots(editor, state->robots, state->robotCount);
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(&camera, live));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result));
    ENSURE(result.robotPicked && result.robot == 1 && strstr(result.message, "robot \"b\"") != NULL);
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(&camera, live));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && !result.worldChanged);
    ENSURE(lsEditRef_Equal(lsEditor_GetSelection(editor), lsMakeEditRef(ls_editRobot, 1, 0)));
    // A click on a1's start ghost (no live robot there: a1 stands on it, and it is picked either way).
    lsEditor_SetLiveRobots(editor, NULL, 0);
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(&camera, lsV(-4.0, -4.0)));
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.robotPicked && result.robot == 0);
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(&camera, lsV(-4.0, -4.0)));
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);

    // Dragging b from where it is shown puts its start pose where it is dropped (on the 5 cm grid).
    lsEditor_SetLiveRobots(editor, state->robots, state->robotCount);
    lsVec2 drop = lsAdd(live, lsV(-2.0, 1.0));
    ENSURE(Drag(editor, &camera, world, live, drop, 4));
    lsVec2 start = lsWorld_GetRobot(world, 1)->position;
    ENSURE(fabs(start.x - drop.x) <= 0.025 + 1e-9 && fabs(start.y - drop.y) <= 0.025 + 1e-9);
    ENSURE(lsEditor_UndoCount(editor) == 1);

    // I adds a copy of the selected b beside its start pose... (the live poses no longer match once it is added)
    lsEditor_SetLiveRobots(editor, NULL, 0);
    e = KeyEvent(SDLK_i, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(result.robotChanged && result.robotPicked && result.robot == 2 && !result.failed);
    ENSURE(lsWorld_RobotCount(world) == 3 && strcmp(lsWorld_GetRobot(world, 2)->id, "b2") == 0);
    ENSURE(lsWorld_GetRobot(world, 2)->controller == ls_controllerAutopilot);
    ENSURE(lsDistance(lsWorld_GetRobot(world, 2)->position, start) < 1.0);
    ENSURE(lsEditRef_Equal(lsEditor_GetSelection(editor), lsMakeEditRef(ls_editRobot, 2, 0)));
    // ... Insert another (a copy of b2, "b3"), and Delete takes the selected one out again.
    e = KeyEvent(SDLK_INSERT, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsWorld_RobotCount(world) == 4);
    ENSURE(strcmp(lsWorld_GetRobot(world, 3)->id, "b3") == 0);
    e = KeyEvent(SDLK_DELETE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(result.robotChanged && lsWorld_RobotCount(world) == 3 && lsWorld_FindRobot(world, "b3") < 0);
    // Undo: b3 back, then gone, then b2 gone, then b's start back where it was.
    e = KeyEvent(SDLK_z, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsWorld_RobotCount(world) == 4);
    ENSURE(result.robotChanged);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    ENSURE(lsWorld_RobotCount(world) == 2);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.robotChanged);
    ENSURE(lsVecEqual(lsWorld_GetRobot(world, 1)->position, lsV(2.0, 2.0)));
    e = KeyEvent(SDLK_y, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) &&
           lsVecEqual(lsWorld_GetRobot(world, 1)->position, start));
    // Nothing selected in the editor (Esc, said so): I copies the robot the window selected (Tab), not the first.
    lsVec2 at = lsCamera_WorldToScreen(&camera, lsWorld_GetRobot(world, 0)->position);
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, at);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    e = MouseEvent(SDL_MOUSEBUTTONUP, at);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    ENSURE(lsEditRef_Equal(lsEditor_GetSelection(editor), lsMakeEditRef(ls_editRobot, 0, 0)));
    e = KeyEvent(SDLK_ESCAPE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) &&
           strcmp(result.message, "nothing selected") == 0);
    ENSURE(lsEditor_GetSelection(editor).kind == ls_editNone);
    lsEditor_SetWindowRobot(editor, 1);
    e = KeyEvent(SDLK_i, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.worldChanged);
    ENSURE(strstr(result.message, "(a copy of \"b\")") != NULL && lsWorld_RobotCount(world) == 3);
    e = KeyEvent(SDLK_z, KMOD_LCTRL);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && lsWorld_RobotCount(world) == 2);
    // The last robot cannot go.
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editRobot, 1, 0)));
    e = MouseEvent(SDL_MOUSEBUTTONDOWN, lsCamera_WorldToScreen(&camera, lsV(-4.0, -4.0)));
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    e = MouseEvent(SDL_MOUSEBUTTONUP, lsCamera_WorldToScreen(&camera, lsV(-4.0, -4.0)));
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    e = KeyEvent(SDLK_DELETE, KMOD_NONE);
    ENSURE(lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result) && result.failed);
    ENSURE(strstr(result.message, "a world always has one robot") != NULL && lsWorld_RobotCount(world) == 1);

    lsDestroyEditor(editor);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

static void PixelAt(SDL_Surface* surface, int x, int y, Uint8* r, Uint8* g, Uint8* b)
{
    Uint32 pixel = ((const Uint32*)((const Uint8*)surface->pixels + (ptrdiff_t)y * surface->pitch))[x];
    Uint8 a;
    SDL_GetRGBA(pixel, surface->format, r, g, b, &a);
}

static int EditorDrawTest(void)
{
    SDL_Surface* surface = SDL_CreateRGBSurfaceWithFormat(0, 400, 300, 32, SDL_PIXELFORMAT_RGBA8888);
    ENSURE(surface != NULL);
    SDL_Renderer* renderer = SDL_CreateSoftwareRenderer(surface);
    ENSURE(renderer != NULL);
    lsWorld* world = lsCreateWorld();
    world->robot.position = lsV(-2.0, 0.0);
    lsEdit_AddWall(world, lsV(-3.0, 2.0), lsV(3.0, 2.0));
    lsCamera camera = lsMakeCamera(400, 300);
    lsRect whole = {0, 0, 400, 300};
    lsEditor* editor = lsCreateEditor();
    lsEditResult result;

    // Inactive: the overlay draws nothing.
    SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
    SDL_RenderClear(renderer);
    lsEditor_Draw(editor, renderer, &camera, world, whole);
    lsVec2 onWall = lsCamera_WorldToScreen(&camera, lsV(1.0, 2.0));
    Uint8 r, g, b;
    PixelAt(surface, (int)onWall.x, (int)onWall.y, &r, &g, &b);
    ENSURE(r == 0 && g == 0 && b == 0);

    // Active with the wall selected: the selection colour (orange: red high, blue low) lies along the wall, and
    // the mode line is drawn at the bottom.
    SDL_Event e = KeyEvent(SDLK_e, KMOD_NONE);
    lsEditor_HandleEvent(editor, &e, &camera, world, NULL, &result);
    ENSURE(!Drag(editor, &camera, world, lsV(1.0, 2.0), lsV(1.0, 2.0), 1));
    ENSURE(lsEditor_GetSelection(editor).kind == ls_editWall);
    SDL_RenderClear(renderer);
    lsEditor_Draw(editor, renderer, &camera, world, whole);
    PixelAt(surface, (int)onWall.x, (int)onWall.y, &r, &g, &b);
    ENSURE(r > 200 && b < 60);
    int lit = 0;
    for (int x = 0; x < 400; ++x)
    {
        for (int y = 270; y < 300; ++y)
        {
            PixelAt(surface, x, y, &r, &g, &b);
            lit += r > 200 && g > 200 && b > 200;
        }
    }
    ENSURE(lit > 50);
    // Far from everything the background is untouched.
    PixelAt(surface, 380, 20, &r, &g, &b);
    ENSURE(r == 0 && g == 0 && b == 0);

    // The labels stay in the area they are given (the window's part beside its HUD column and above its scan plot),
    // wrapped to its width: nothing lands left of it or below it, and all of the mode line is drawn (its last hint,
    // "Esc", ends the bottom line at the area's right edge).
    lsRect area = {150, 0, 250, 200};
    SDL_RenderClear(renderer);
    lsEditor_Draw(editor, renderer, &camera, world, area);
    int outside = 0, inside = 0, lastRow = 0;
    for (int y = 0; y < 300; ++y)
    {
        for (int x = 0; x < 400; ++x)
        {
            PixelAt(surface, x, y, &r, &g, &b);
            bool white = r > 200 && g > 200 && b > 200; // the mode line's text (the selection is orange)
            bool in = x >= area.x && y < area.y + area.h;
            outside += white && !in;
            inside += white && in && y >= 100;
            lastRow = white && in && x > area.x + area.w - 40 ? y : lastRow;
        }
    }
    ENSURE(outside == 0);
    ENSURE(inside > 150);
    ENSURE(lastRow > area.h - 20 && lastRow < area.h);

    lsDestroyEditor(editor);
    lsDestroyWorld(world);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    return 0;
}
#endif

// A polygon the loader accepts moves in the editor: both use the loader's rule (lsMakePolygon, exact). This one's
// corner at (1, 0) turns by 1e-13 of its edges, which the editor's old margin (1e-12) refused.
static int MoveShallowPolygonTest(void)
{
    const char* text = "{\"walls\": [], \"polygons\": [{\"points\": [[0, 0], [1, 0], [2, 1e-13], [1, 1]]}]}";
    lsError err;
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "shallow.json", &err, NULL);
    ENSURE(world != NULL && world->polygonCount == 1);
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editPolygon, 0, 0), lsV(3.0, 0.0)));
    ENSURE(lsVecEqual(world->polygons[0].points[2], lsV(5.0, 1e-13)));
    // The moved world saves and loads back as it is.
    char* saved = lsSaveWorldToString(world);
    ENSURE(saved != NULL);
    lsWorld* loaded = lsLoadWorldFromString(saved, strlen(saved), "moved.json", &err, NULL);
    ENSURE(loaded != NULL && lsWorld_Equal(world, loaded));
    // A move that folds it (far out, its x coordinates round together) is refused, as the loader would refuse it.
    ENSURE(!lsEdit_Translate(world, lsMakeEditRef(ls_editPolygon, 0, 0), lsV(1e300, 0.0)));
    ENSURE(lsVecEqual(world->polygons[0].points[0], lsV(3.0, 0.0)));
    lsFreeString(saved);
    lsDestroyWorld(loaded);
    lsDestroyWorld(world);
    return 0;
}

// A whole wall dragged on the grid: its anchor lands on the snapped point and its other corners by the same move in
// decimals, so the save writes what was drawn (20 -> 20.85 took 10 to 10.850000000000001 in doubles). A coordinate
// that is no short decimal moves by the doubles' difference, as before.
static int MoveDecimalTest(void)
{
    const char* text = "{\"walls\": [{\"points\": [[20, 1], [10, 1.3], [0.1, 0.2]]}], \"targets\": [{\"center\": "
                       "[0.3, 0.7], \"radius\": 0.5}], \"polygons\": [{\"points\": [[0, 0], [1, 0], [0.1, 1]]}]}";
    lsError err;
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "decimal.json", &err, NULL);
    ENSURE(world != NULL);
    ENSURE(10.0 + (20.85 - 20.0) != 10.85); // what the doubles alone give
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWall, 0, 0), lsV(20.85, 1.05)));
    ENSURE(lsVecEqual(world->walls[0].points[0], lsV(20.85, 1.05)));
    ENSURE(lsVecEqual(world->walls[0].points[1], lsV(10.85, 1.35)));
    ENSURE(lsVecEqual(world->walls[0].points[2], lsV(0.95, 0.25)));
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV(0.1, 0.2)));
    ENSURE(lsVecEqual(world->targets[0].center, lsV(0.4, 0.9))); // 0.7 + 0.2 in doubles is 0.8999999999999999
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editPolygon, 0, 0), lsV(0.2, 0.1)));
    ENSURE(lsVecEqual(world->polygons[0].points[2], lsV(0.3, 1.1)));
    char* saved = lsSaveWorldToString(world);
    ENSURE(saved != NULL && strstr(saved, "10.85") != NULL && strstr(saved, "0000000") == NULL);
    lsFreeString(saved);
    // Not short decimals: the doubles' sum.
    double third = 1.0 / 3.0;
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editTarget, 0, 0), lsV(0.4 + third, 0.9)));
    ENSURE(lsVecEqual(world->targets[0].center, lsV(0.4 + third, 0.9)));
    ENSURE(lsEdit_Translate(world, lsMakeEditRef(ls_editWall, 0, 0), lsV(third, 0.0)));
    ENSURE(world->walls[0].points[1].x == 10.85 + third);
    lsDestroyWorld(world);
    return 0;
}

int EditTest(void)
{
    RUN_SUBTEST(AddWallTest);
    RUN_SUBTEST(MoveTest);
    RUN_SUBTEST(MoveShallowPolygonTest);
    RUN_SUBTEST(MoveDecimalTest);
    RUN_SUBTEST(JoinedCornerTest);
    RUN_SUBTEST(MoverMoveTest);
    RUN_SUBTEST(CutOpenWallTest);
    RUN_SUBTEST(CutChainTest);
    RUN_SUBTEST(CutClosedChainTest);
    RUN_SUBTEST(CutCornerTest);
    RUN_SUBTEST(CutPropertyTest);
    RUN_SUBTEST(DeleteTest);
    RUN_SUBTEST(MapWallsTest);
    RUN_SUBTEST(UndoRedoTest);
    RUN_SUBTEST(PickTest);
    RUN_SUBTEST(RobotsTest);
    RUN_SUBTEST(SaveLoadTest);
#ifdef LS_HAVE_APP
    RUN_SUBTEST(EditorEventsTest);
    RUN_SUBTEST(EditorDrawTest);
    RUN_SUBTEST(EditorRobotsTest);
    RUN_SUBTEST(EditorMapWallsTest);
#endif
    return 0;
}

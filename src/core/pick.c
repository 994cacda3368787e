// lidarsim core: picking the object of the world under a point, within a tolerance (edit.h).
#include "core/edit.h"

#include "lidarsim/geometry.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

// The robot's outline at its start pose: a circle (count 0) or the footprint polygon in world coordinates.
static int RobotOutline(const lsRobotDef* robot, lsVec2 out[LS_MAX_POLYGON_VERTICES])
{
    lsTransform xf = {robot->position, lsMakeRot(robot->angle)};
    for (int i = 0; i < robot->footprintCount; ++i)
    {
        out[i] = lsTransformPoint(xf, robot->footprint[i]);
    }
    return robot->footprintCount;
}

// Distance from p to a solid closed polygon: 0 inside (winding-independent: p is inside a convex polygon when it is
// on the same side of every edge), else the distance to the outline.
static double DistanceToConvex(const lsVec2* points, int count, lsVec2 p)
{
    int positive = 0, negative = 0;
    for (int i = 0; i < count; ++i)
    {
        int o = lsOrient(points[i], points[(i + 1) % count], p);
        positive += o > 0;
        negative += o < 0;
    }
    if (positive == 0 || negative == 0)
        return 0.0;
    return lsClosestPointOnPolyline(points, count, true, p).distance;
}

static double DistanceToDisc(lsVec2 center, double radius, lsVec2 p)
{
    double d = lsDistance(center, p) - radius;
    return d > 0.0 ? d : 0.0;
}

// Distance from p to point a, or DBL_MAX when a is clearly beyond tolerance (a box test first: picking runs on every
// mouse move, over every corner of a city).
static double NearPoint(lsVec2 a, lsVec2 p, double tolerance)
{
    if (fabs(a.x - p.x) > tolerance || fabs(a.y - p.y) > tolerance)
        return DBL_MAX;
    return lsDistance(a, p);
}

// Distance from p to a polyline, considering only segments whose box grown by tolerance holds p (DBL_MAX if none).
// Plain comparisons, no modulo: this runs over every wall of a city on every frame the editor shows its hover.
static double NearChain(const lsVec2* points, int count, bool closed, lsVec2 p, double tolerance)
{
    double best = DBL_MAX;
    int segments = closed ? count : count - 1;
    for (int i = 0; i < segments; ++i)
    {
        lsVec2 a = points[i], b = points[i + 1 < count ? i + 1 : 0];
        double loX = a.x < b.x ? a.x : b.x, hiX = a.x < b.x ? b.x : a.x;
        double loY = a.y < b.y ? a.y : b.y, hiY = a.y < b.y ? b.y : a.y;
        if (p.x < loX - tolerance || p.x > hiX + tolerance || p.y < loY - tolerance || p.y > hiY + tolerance)
        {
            continue;
        }
        lsSegment segment = {a, b};
        double d = lsClosestPointOnSegment(&segment, p).distance;
        if (d < best)
            best = d;
    }
    return best;
}

static lsAABB PointsBounds(const lsVec2* points, int count)
{
    lsAABB box = {points[0], points[0]};
    for (int i = 1; i < count; ++i)
    {
        box.lower = lsMin(box.lower, points[i]);
        box.upper = lsMax(box.upper, points[i]);
    }
    return box;
}

static lsAABB Grow(lsAABB box, double margin)
{
    return (lsAABB){lsSub(box.lower, lsV(margin, margin)), lsAdd(box.upper, lsV(margin, margin))};
}

typedef struct PickBest
{
    lsEditRef ref;
    double distance;
} PickBest;

// Keeps the candidate when it is within tolerance and nearer (or as near, when laterWins: the object drawn on top).
static void Consider(PickBest* best, lsEditRef ref, double distance, double tolerance, bool laterWins)
{
    if (!(distance <= tolerance))
        return;
    if (distance < best->distance || (laterWins && distance == best->distance))
    {
        best->ref = ref;
        best->distance = distance;
    }
}

lsEditRef lsEdit_Pick(const lsWorld* world, lsVec2 p, double tolerance)
{
    LS_ASSERT(lsIsValidVec2(p) && tolerance >= 0.0);

    // 1. Handles: points that can be dragged on their own.
    PickBest best = {lsEditRefNone(), DBL_MAX};
    for (int i = 0; i < world->pathCount; ++i)
    {
        const lsPathDef* path = world->paths + i;
        for (int k = 0; k < path->pointCount; ++k)
        {
            Consider(&best, lsMakeEditRef(ls_editPathPoint, i, k), NearPoint(path->points[k], p, tolerance), tolerance,
                     false);
        }
    }
    for (int i = 0; i < world->moverCount; ++i)
    {
        const lsMoverDef* mover = world->movers + i;
        for (int k = 0; k < lsMover_HandleCount(mover); ++k)
        {
            Consider(&best, lsMakeEditRef(ls_editMoverPoint, i, k), NearPoint(lsMover_Handle(mover, k), p, tolerance),
                     tolerance, false);
        }
    }
    // Walls once for both their corners (handles) and their lines: a city's walls are 100k separate point arrays,
    // and walking them twice costs twice the cache misses.
    PickBest line = {lsEditRefNone(), DBL_MAX};
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        const lsVec2* points = wall->points;
        int count = wall->pointCount;
        for (int k = 0; k < count; ++k)
        {
            lsVec2 a = points[k];
            // Box tests first: nearly every corner and segment of a big world is far away.
            if (a.x - p.x > tolerance || p.x - a.x > tolerance || a.y - p.y > tolerance || p.y - a.y > tolerance)
            {
                continue;
            }
            Consider(&best, lsMakeEditRef(ls_editWallPoint, i, k), lsDistance(a, p), tolerance, false);
        }
        int segments = wall->closed ? count : count - 1;
        for (int k = 0; k < segments; ++k)
        {
            lsVec2 a = points[k], b = points[k + 1 < count ? k + 1 : 0];
            if ((p.x < a.x - tolerance && p.x < b.x - tolerance) || (p.x > a.x + tolerance && p.x > b.x + tolerance) ||
                (p.y < a.y - tolerance && p.y < b.y - tolerance) || (p.y > a.y + tolerance && p.y > b.y + tolerance))
            {
                continue;
            }
            lsSegment segment = {a, b};
            Consider(&line, lsMakeEditRef(ls_editWall, i, 0), lsClosestPointOnSegment(&segment, p).distance, tolerance,
                     false);
        }
    }
    if (best.ref.kind != ls_editNone)
        return best.ref;

    // 2. Solids, in drawing order so the one on top wins a tie (two overlapping shapes both containing p).
    for (int i = 0; i < world->targetCount; ++i)
    {
        const lsTargetDef* t = world->targets + i;
        Consider(&best, lsMakeEditRef(ls_editTarget, i, 0), DistanceToDisc(t->center, t->radius, p), tolerance, true);
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* b = world->boxes + i;
        if (lsDistance(b->center, p) > 0.5 * lsLength(b->size) + tolerance)
            continue;
        lsBox box = lsMakeBox(b->center, b->size, b->angle);
        lsVec2 corners[4];
        lsBox_Corners(&box, corners);
        Consider(&best, lsMakeEditRef(ls_editBox, i, 0), DistanceToConvex(corners, 4, p), tolerance, true);
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        const lsPolygonDef* poly = world->polygons + i;
        if (!lsAABB_Contains(Grow(PointsBounds(poly->points, poly->count), tolerance), p))
            continue;
        Consider(&best, lsMakeEditRef(ls_editPolygon, i, 0), DistanceToConvex(poly->points, poly->count, p), tolerance,
                 true);
    }
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        const lsVehicleDef* v = world->vehicles + i;
        Consider(&best, lsMakeEditRef(ls_editVehicle, i, 0), DistanceToDisc(v->position, v->radius, p), tolerance,
                 true);
    }
    {
        lsVec2 outline[LS_MAX_POLYGON_VERTICES];
        int count = RobotOutline(&world->robot, outline);
        double d = count >= 3 ? DistanceToConvex(outline, count, p)
                              : DistanceToDisc(world->robot.position, world->robot.radius, p);
        Consider(&best, lsMakeEditRef(ls_editRobot, 0, 0), d, tolerance, true);
    }
    if (best.ref.kind != ls_editNone)
        return best.ref;

    // 3. Lines (the walls' were found above).
    best = line;
    for (int i = 0; i < world->moverCount; ++i)
    {
        lsSegment segment = {world->movers[i].a, world->movers[i].b};
        Consider(&best, lsMakeEditRef(ls_editMover, i, 0), lsClosestPointOnSegment(&segment, p).distance, tolerance,
                 false);
    }
    for (int i = 0; i < world->pathCount; ++i)
    {
        const lsPathDef* path = world->paths + i;
        double d = NearChain(path->points, path->pointCount, path->closed, p, tolerance);
        Consider(&best, lsMakeEditRef(ls_editPath, i, 0), d, tolerance, false);
    }
    return best.ref;
}

lsVec2 lsEdit_Anchor(const lsWorld* world, lsEditRef ref)
{
    LS_ASSERT(lsEdit_IsValidRef(world, ref));
    switch (ref.kind)
    {
    case ls_editWall:
        return world->walls[ref.index].points[0];
    case ls_editWallPoint:
        return world->walls[ref.index].points[ref.sub];
    case ls_editTarget:
        return world->targets[ref.index].center;
    case ls_editBox:
        return world->boxes[ref.index].center;
    case ls_editPolygon:
        return world->polygons[ref.index].points[0];
    case ls_editRobot:
        return world->robot.position;
    case ls_editPath:
        return world->paths[ref.index].points[0];
    case ls_editPathPoint:
        return world->paths[ref.index].points[ref.sub];
    case ls_editVehicle:
        return world->vehicles[ref.index].position;
    case ls_editMover:
        return world->movers[ref.index].a;
    case ls_editMoverPoint:
        return lsMover_Handle(world->movers + ref.index, ref.sub);
    case ls_editNone:
        break;
    }
    return lsV(0.0, 0.0);
}

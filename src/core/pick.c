// lidarsim core: picking the object of the world under a point, within a tolerance (edit.h).
#include "core/edit.h"

#include "lidarsim/geometry.h"
#include "lidarsim/sim.h"

#include <float.h>
#include <stdio.h>
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

// True when wall is the user's and the best so far is a map's wall (its corner or line): of the two, as near, the
// user's wins, since the map's cannot be edited (a press on the user's corner where it meets the map's would only
// say so).
static bool OverMapWall(const lsWorld* world, const PickBest* best, const lsWallDef* wall)
{
    return !wall->fromMap && (best->ref.kind == ls_editWallPoint || best->ref.kind == ls_editWall) &&
           world->walls[best->ref.index].fromMap;
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
            Consider(&best, lsMakeEditRef(ls_editWallPoint, i, k), lsDistance(a, p), tolerance,
                     OverMapWall(world, &best, wall));
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
                     OverMapWall(world, &line, wall));
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
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* robot = lsWorld_GetRobot(world, i);
        // A box test first: a swarm has a thousand robots, and this runs on every frame the editor shows its hover.
        double reach = lsRobotDef_Reach(robot) + tolerance;
        if (fabs(robot->position.x - p.x) > reach || fabs(robot->position.y - p.y) > reach)
            continue;
        lsVec2 outline[LS_MAX_POLYGON_VERTICES];
        int count = RobotOutline(robot, outline);
        double d = count >= 3 ? DistanceToConvex(outline, count, p) : DistanceToDisc(robot->position, robot->radius, p);
        Consider(&best, lsMakeEditRef(ls_editRobot, i, 0), d, tolerance, true);
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
        return lsWorld_GetRobot(world, ref.index)->position;
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

// ---------------------------------------------------------------------------------------------------------------------
// A free place for a new robot

// How far from `near` a new robot's place is looked for, in rings of candidate places.
#define LS_PLACE_RINGS 40
/// Room left between a placed robot and anything else, metres.
#define LS_PLACE_MARGIN 0.05

// The static and start-time things a robot's bounding circle (centre c, radius r) must keep clear of: walls,
// boxes, polygons, moving walls as at time 0, vehicles' and other robots' start places. Targets are no obstacle
// (robots drive through food). True when the circle touches none of them.
static bool PlaceIsFree(const lsWorld* world, const lsAABB* wallBounds, lsVec2 c, double r)
{
    lsAABB box = {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        if (lsAABB_Overlaps(wallBounds[i], box) &&
            lsClosestPointOnPolyline(wall->points, wall->pointCount, wall->closed, c).distance <= r)
            return false;
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* def = world->boxes + i;
        lsBox solid = lsMakeBox(def->center, def->size, def->angle);
        lsVec2 corners[4];
        lsBox_Corners(&solid, corners);
        if (lsAABB_Overlaps(lsBox_Bounds(&solid), box) && DistanceToConvex(corners, 4, c) <= r)
            return false;
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        const lsPolygonDef* def = world->polygons + i;
        if (lsAABB_Overlaps(PointsBounds(def->points, def->count), box) &&
            DistanceToConvex(def->points, def->count, c) <= r)
            return false;
    }
    for (int i = 0; i < world->moverCount; ++i)
    {
        lsSegment s = lsMover_SegmentAt(world->movers + i, 0.0);
        if (lsClosestPointOnSegment(&s, c).distance <= r)
            return false;
    }
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        if (lsDistance(world->vehicles[i].position, c) <= r + world->vehicles[i].radius)
            return false;
    }
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* other = lsWorld_GetRobot(world, i);
        if (lsDistance(other->position, c) <= r + lsRobotDef_Reach(other))
            return false;
    }
    return true;
}

// True when the straight line from a to b crosses no wall, box or polygon (the new robot could drive there from
// the robot it was copied from: a free place behind a thin wall, in the next room or outside, is not wanted).
static bool LineIsClear(const lsWorld* world, const lsAABB* wallBounds, lsVec2 a, lsVec2 b)
{
    lsSegment line = {a, b};
    lsAABB box = lsAABB_OfSegment(a, b);
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        if (!lsAABB_Overlaps(wallBounds[i], box))
            continue;
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int k = 0; k < segments; ++k)
        {
            lsSegment s = {wall->points[k], wall->points[k + 1 < wall->pointCount ? k + 1 : 0]};
            if (lsIntersectSegments(&line, &s).hit)
                return false;
        }
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        lsBox solid = lsMakeBox(world->boxes[i].center, world->boxes[i].size, world->boxes[i].angle);
        if (lsSegmentOverlapsBox(&line, &solid))
            return false;
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        lsPolygon polygon;
        if (lsMakePolygon(&polygon, world->polygons[i].points, world->polygons[i].count) &&
            lsSegmentOverlapsPolygon(&line, &polygon))
            return false;
    }
    return true;
}

double lsSnapCoordinate(double x, double step)
{
    // + 0.0 turns the -0 that round gives for small negative x into 0: saved, it read "-0" in the world file.
    if (step < 1.0)
    {
        double perMetre = round(1.0 / step);
        return round(x * perMetre) / perMetre + 0.0;
    }
    return round(x / step) * step + 0.0;
}

// True when p lies in a box or polygon (boundary included).
static bool InsideSolid(const lsWorld* world, lsVec2 p)
{
    for (int i = 0; i < world->boxCount; ++i)
    {
        lsBox solid = lsMakeBox(world->boxes[i].center, world->boxes[i].size, world->boxes[i].angle);
        if (lsBox_Contains(&solid, p))
            return true;
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        if (DistanceToConvex(world->polygons[i].points, world->polygons[i].count, p) == 0.0)
            return true;
    }
    return false;
}

// A new id like `id`: "amr3" gives "amr4" (or the next number free), "forklift" gives "forklift2".
static void NextRobotId(const lsWorld* world, const char* id, char out[LS_ROBOT_ID_CAPACITY])
{
    size_t length = strlen(id), digits = 0;
    while (digits < length && digits < 9 && id[length - 1 - digits] >= '0' && id[length - 1 - digits] <= '9')
        ++digits;
    if (digits == 0 || digits == length)
    {
        lsWorld_UniqueRobotId(world, length > 0 ? id : "robot", out);
        return;
    }
    long n = strtol(id + length - digits, NULL, 10);
    for (long k = n + 1;; ++k)
    {
        snprintf(out, LS_ROBOT_ID_CAPACITY, "%.*s%ld", (int)(length - digits) < 40 ? (int)(length - digits) : 40, id,
                 k);
        if (lsWorld_FindRobot(world, out) < 0)
            return;
    }
}

int lsEdit_AddRobot(lsWorld* world, int from, lsVec2 near, double snap)
{
    LS_ASSERT(world != NULL && 0 <= from && from < lsWorld_RobotCount(world) && snap >= 0.0);
    if (!lsIsValidVec2(near) || lsWorld_RobotCount(world) >= LS_MAX_ROBOTS)
        return -1;
    lsRobotDef def = *lsWorld_GetRobot(world, from);
    NextRobotId(world, lsWorld_GetRobot(world, from)->id, def.id);
    // Its own noise: the next seed after every robot's, so no two lidars share a stream.
    uint64_t seed = 0;
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        uint64_t s = lsWorld_GetRobot(world, i)->lidar.seed;
        seed = s > seed ? s : seed;
    }
    def.lidar.seed = seed + 1;

    lsAABB* wallBounds = lsAlloc((size_t)(world->wallCount > 0 ? world->wallCount : 1) * sizeof(lsAABB));
    for (int i = 0; i < world->wallCount; ++i)
        wallBounds[i] = PointsBounds(world->walls[i].points, world->walls[i].pointCount);
    // Rings of places one robot apart around `near`, nearest first; each ring starts at +x (the editor's view).
    double r = lsRobotDef_Reach(&def) + LS_PLACE_MARGIN;
    double step = 2.0 * r + LS_PLACE_MARGIN;
    bool found = false;
    // A second pass without the straight line when near lies inside a box or polygon (a click on a shelf), from
    // where no line leaves clear.
    int passes = InsideSolid(world, near) ? 2 : 1;
    for (int pass = 0; pass < passes && !found; ++pass)
    {
        for (int ring = 0; ring <= LS_PLACE_RINGS && !found; ++ring)
        {
            int count = ring == 0 ? 1 : 6 * ring;
            for (int k = 0; k < count && !found; ++k)
            {
                double a = 2.0 * LS_PI * (double)k / (double)count;
                lsVec2 c = lsMulAdd(near, (double)ring * step, lsDirection(a));
                if (snap > 0.0)
                    c = lsV(lsSnapCoordinate(c.x, snap), lsSnapCoordinate(c.y, snap));
                if (lsIsValidVec2(c) && PlaceIsFree(world, wallBounds, c, r) &&
                    (pass == 1 || LineIsClear(world, wallBounds, near, c)))
                {
                    def.position = c;
                    found = true;
                }
            }
        }
    }
    lsFree(wallBounds, (size_t)(world->wallCount > 0 ? world->wallCount : 1) * sizeof(lsAABB));
    return found ? lsWorld_AddRobot(world, &def) : -1;
}

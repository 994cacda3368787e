// lidarsim core: editing operations on the world model (see edit.h).
#include "core/edit.h"
#include "core/sweep.h"

#include "lidarsim/geometry.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

const char* lsEditKind_Name(lsEditKind kind)
{
    switch (kind)
    {
    case ls_editNone:
        return "nothing";
    case ls_editWall:
        return "wall";
    case ls_editWallPoint:
        return "wall corner";
    case ls_editTarget:
        return "target";
    case ls_editBox:
        return "box";
    case ls_editPolygon:
        return "polygon";
    case ls_editRobot:
        return "robot";
    case ls_editPath:
        return "path";
    case ls_editPathPoint:
        return "path point";
    case ls_editVehicle:
        return "vehicle";
    case ls_editMover:
        return "moving wall";
    case ls_editMoverPoint:
        return "moving wall handle";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------------------------------------
// Validity helpers: what the loader accepts for the parts the editor touches.

static bool AllFinite(const lsVec2* points, int count)
{
    for (int i = 0; i < count; ++i)
    {
        if (!lsIsValidVec2(points[i]))
            return false;
    }
    return true;
}

// A chain is loadable when its points are finite and no segment has zero length (closed: the closing one too).
static bool IsValidChain(const lsVec2* points, int count, bool closed)
{
    if (count < 2 || (closed && count < 3) || !AllFinite(points, count))
        return false;
    for (int i = 0; i + 1 < count; ++i)
    {
        if (lsVecEqual(points[i], points[i + 1]))
            return false;
    }
    return !closed || !lsVecEqual(points[count - 1], points[0]);
}

// A polygon the loader accepts: strictly convex with the loader's margin (world_json.c refuses corners whose turn
// is below 1e-12 of the edge lengths' product) and turning once round, so a moved polygon always loads back.
static bool IsLoadablePolygon(const lsVec2* points, int count)
{
    if (count < 3 || !AllFinite(points, count))
        return false;
    int sign = 0;
    double turning = 0.0;
    for (int i = 0; i < count; ++i)
    {
        lsVec2 e1 = lsSub(points[(i + 1) % count], points[i]);
        lsVec2 e2 = lsSub(points[(i + 2) % count], points[(i + 1) % count]);
        double cross = lsCross(e1, e2);
        double scale = lsLength(e1) * lsLength(e2);
        if (!(scale > 0.0) || fabs(cross) <= 1e-12 * scale)
            return false;
        int s = cross > 0.0 ? 1 : -1;
        if (sign != 0 && s != sign)
            return false;
        sign = s;
        turning += atan2(cross, lsDot(e1, e2));
    }
    return fabs(fabs(turning) - 2.0 * LS_PI) <= 1e-6;
}

// The mover handles that exist: a, b, and the pivot for bars.
static int MoverHandleCount(const lsMoverDef* mover) { return mover->kind == ls_moverBar ? 3 : 2; }

static lsVec2 MoverHandle(const lsMoverDef* mover, int sub)
{
    return sub == 0 ? mover->a : (sub == 1 ? mover->b : mover->pivot);
}

bool lsEdit_IsValidRef(const lsWorld* world, lsEditRef ref)
{
    switch (ref.kind)
    {
    case ls_editNone:
        return false;
    case ls_editWall:
        return 0 <= ref.index && ref.index < world->wallCount;
    case ls_editWallPoint:
        return 0 <= ref.index && ref.index < world->wallCount && 0 <= ref.sub &&
               ref.sub < world->walls[ref.index].pointCount;
    case ls_editTarget:
        return 0 <= ref.index && ref.index < world->targetCount;
    case ls_editBox:
        return 0 <= ref.index && ref.index < world->boxCount;
    case ls_editPolygon:
        return 0 <= ref.index && ref.index < world->polygonCount;
    case ls_editRobot:
        return ref.index == 0;
    case ls_editPath:
        return 0 <= ref.index && ref.index < world->pathCount;
    case ls_editPathPoint:
        return 0 <= ref.index && ref.index < world->pathCount && 0 <= ref.sub &&
               ref.sub < world->paths[ref.index].pointCount;
    case ls_editVehicle:
        return 0 <= ref.index && ref.index < world->vehicleCount;
    case ls_editMover:
        return 0 <= ref.index && ref.index < world->moverCount;
    case ls_editMoverPoint:
        return 0 <= ref.index && ref.index < world->moverCount && 0 <= ref.sub &&
               ref.sub < MoverHandleCount(world->movers + ref.index);
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------------------------
// Picking

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
        for (int k = 0; k < MoverHandleCount(mover); ++k)
        {
            Consider(&best, lsMakeEditRef(ls_editMoverPoint, i, k), NearPoint(MoverHandle(mover, k), p, tolerance),
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
        return MoverHandle(world->movers + ref.index, ref.sub);
    case ls_editNone:
        break;
    }
    return lsV(0.0, 0.0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving

// Translates count points into out; false when any result is not finite.
static bool TranslatePoints(const lsVec2* points, int count, lsVec2 delta, lsVec2* out)
{
    for (int i = 0; i < count; ++i)
    {
        out[i] = lsAdd(points[i], delta);
    }
    return AllFinite(out, count);
}

// Moves a chain's points (all of them, or only point `only` when only >= 0) if the result is a valid chain.
static bool MoveChain(lsVec2* points, int count, bool closed, int only, lsVec2 delta)
{
    size_t bytes = (size_t)count * sizeof(lsVec2);
    lsVec2* moved = lsAlloc(bytes);
    memcpy(moved, points, bytes);
    bool ok;
    if (only >= 0)
    {
        moved[only] = lsAdd(points[only], delta);
        ok = IsValidChain(moved, count, closed);
    }
    else
    {
        // A rigid move can still merge two points whose difference is far below the coordinates' rounding step.
        ok = TranslatePoints(points, count, delta, moved) && IsValidChain(moved, count, closed);
    }
    if (ok)
        memcpy(points, moved, bytes);
    lsFree(moved, bytes);
    return ok;
}

bool lsEdit_Translate(lsWorld* world, lsEditRef ref, lsVec2 delta)
{
    LS_ASSERT(lsEdit_IsValidRef(world, ref));
    if (!lsIsValidVec2(delta))
        return false;
    if (delta.x == 0.0 && delta.y == 0.0)
        return false;

    switch (ref.kind)
    {
    case ls_editWall:
    case ls_editWallPoint:
    {
        lsWallDef* wall = world->walls + ref.index;
        return MoveChain(wall->points, wall->pointCount, wall->closed, ref.kind == ls_editWallPoint ? ref.sub : -1,
                         delta);
    }
    case ls_editPath:
    case ls_editPathPoint:
    {
        lsPathDef* path = world->paths + ref.index;
        if (!MoveChain(path->points, path->pointCount, path->closed, ref.kind == ls_editPathPoint ? ref.sub : -1,
                       delta))
        {
            return false;
        }
        if (ref.kind == ls_editPath)
        {
            // The path's vehicles ride along, so a moved road keeps its traffic on it.
            for (int i = 0; i < world->vehicleCount; ++i)
            {
                lsVehicleDef* v = world->vehicles + i;
                lsVec2 moved = lsAdd(v->position, delta);
                if (v->path == ref.index && lsIsValidVec2(moved))
                    v->position = moved;
            }
        }
        return true;
    }
    case ls_editPolygon:
    {
        lsPolygonDef* def = world->polygons + ref.index;
        lsVec2 moved[LS_MAX_POLYGON_VERTICES];
        // The loader insists on strict convexity; rounding in a far move could flatten a thin corner.
        if (!TranslatePoints(def->points, def->count, delta, moved) || !IsLoadablePolygon(moved, def->count))
        {
            return false;
        }
        memcpy(def->points, moved, (size_t)def->count * sizeof(lsVec2));
        return true;
    }
    case ls_editMover:
    case ls_editMoverPoint:
    {
        lsMoverDef* mover = world->movers + ref.index;
        lsMoverDef moved = *mover;
        if (ref.kind == ls_editMover)
        {
            moved.a = lsAdd(mover->a, delta);
            moved.b = lsAdd(mover->b, delta);
            moved.pivot = lsAdd(mover->pivot, delta);
        }
        else if (ref.sub == 0)
        {
            moved.a = lsAdd(mover->a, delta);
        }
        else if (ref.sub == 1)
        {
            moved.b = lsAdd(mover->b, delta);
        }
        else
        {
            moved.pivot = lsAdd(mover->pivot, delta);
        }
        if (!lsIsValidVec2(moved.a) || !lsIsValidVec2(moved.b) || !lsIsValidVec2(moved.pivot) ||
            lsVecEqual(moved.a, moved.b))
        {
            return false;
        }
        *mover = moved;
        return true;
    }
    case ls_editTarget:
    case ls_editBox:
    case ls_editRobot:
    case ls_editVehicle:
    {
        lsVec2* center = ref.kind == ls_editTarget  ? &world->targets[ref.index].center
                         : ref.kind == ls_editBox   ? &world->boxes[ref.index].center
                         : ref.kind == ls_editRobot ? &world->robot.position
                                                    : &world->vehicles[ref.index].position;
        lsVec2 moved = lsAdd(*center, delta);
        if (!lsIsValidVec2(moved))
            return false;
        *center = moved;
        return true;
    }
    case ls_editNone:
        break;
    }
    return false;
}

bool lsEdit_MoveTo(lsWorld* world, lsEditRef ref, lsVec2 position)
{
    LS_ASSERT(lsEdit_IsValidRef(world, ref));
    if (!lsIsValidVec2(position))
        return false;
    lsVec2 anchor = lsEdit_Anchor(world, ref);
    if (lsVecEqual(anchor, position))
        return false;
    if (ref.kind == ls_editWallPoint || ref.kind == ls_editPathPoint || ref.kind == ls_editMoverPoint ||
        ref.kind == ls_editTarget || ref.kind == ls_editBox || ref.kind == ls_editRobot || ref.kind == ls_editVehicle)
    {
        // A single point lands exactly where it was asked to, with no round trip through a delta.
        lsWorld* w = world;
        lsVec2* point = NULL;
        switch (ref.kind)
        {
        case ls_editTarget:
            point = &w->targets[ref.index].center;
            break;
        case ls_editBox:
            point = &w->boxes[ref.index].center;
            break;
        case ls_editRobot:
            point = &w->robot.position;
            break;
        case ls_editVehicle:
            point = &w->vehicles[ref.index].position;
            break;
        default:
            break;
        }
        if (point != NULL)
        {
            *point = position;
            return true;
        }
        if (ref.kind == ls_editMoverPoint)
        {
            lsMoverDef* mover = w->movers + ref.index;
            lsVec2* handle = ref.sub == 0 ? &mover->a : (ref.sub == 1 ? &mover->b : &mover->pivot);
            if (ref.sub != 2 && lsVecEqual(position, ref.sub == 0 ? mover->b : mover->a))
                return false;
            *handle = position;
            return true;
        }
        lsVec2* points = ref.kind == ls_editWallPoint ? w->walls[ref.index].points : w->paths[ref.index].points;
        int count = ref.kind == ls_editWallPoint ? w->walls[ref.index].pointCount : w->paths[ref.index].pointCount;
        bool closed = ref.kind == ls_editWallPoint ? w->walls[ref.index].closed : w->paths[ref.index].closed;
        lsVec2 old = points[ref.sub];
        points[ref.sub] = position;
        if (!IsValidChain(points, count, closed))
        {
            points[ref.sub] = old;
            return false;
        }
        return true;
    }
    return lsEdit_Translate(world, ref, lsSub(position, anchor));
}

int lsEdit_JoinedCorners(const lsWorld* world, lsEditRef corner, lsEditRef* out, int capacity)
{
    LS_ASSERT(corner.kind == ls_editWallPoint && lsEdit_IsValidRef(world, corner) && capacity >= 0);
    lsVec2 at = world->walls[corner.index].points[corner.sub];
    int count = 0;
    if (capacity > 0)
        out[0] = corner;
    count = 1;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        for (int k = 0; k < wall->pointCount; ++k)
        {
            if ((w == corner.index && k == corner.sub) || !lsVecEqual(wall->points[k], at))
                continue;
            if (count < capacity)
                out[count] = lsMakeEditRef(ls_editWallPoint, w, k);
            count += 1;
        }
    }
    return count;
}

bool lsEdit_MoveCorners(lsWorld* world, const lsEditRef* corners, int count, lsVec2 position)
{
    if (!lsIsValidVec2(position) || count <= 0)
        return false;
    size_t bytes = (size_t)count * sizeof(lsVec2);
    lsVec2* old = lsAlloc(bytes);
    bool changed = false;
    for (int i = 0; i < count; ++i)
    {
        LS_ASSERT(corners[i].kind == ls_editWallPoint && lsEdit_IsValidRef(world, corners[i]));
        lsVec2* p = world->walls[corners[i].index].points + corners[i].sub;
        old[i] = *p;
        changed = changed || !lsVecEqual(*p, position);
        *p = position;
    }
    bool valid = true;
    for (int i = 0; i < count && valid; ++i)
    {
        const lsWallDef* wall = world->walls + corners[i].index;
        valid = IsValidChain(wall->points, wall->pointCount, wall->closed);
    }
    if (!valid || !changed)
    {
        // Backwards, so a corner listed twice gets its first (true) old position back.
        for (int i = count - 1; i >= 0; --i)
        {
            world->walls[corners[i].index].points[corners[i].sub] = old[i];
        }
    }
    lsFree(old, bytes);
    return valid && changed;
}

// ---------------------------------------------------------------------------------------------------------------------
// Adding and deleting

int lsEdit_AddWall(lsWorld* world, lsVec2 a, lsVec2 b)
{
    if (!lsIsValidVec2(a) || !lsIsValidVec2(b) || lsVecEqual(a, b))
        return -1;
    lsVec2 points[2] = {a, b};
    int index = lsWorld_AddWall(world, points, 2, false);
    world->walls[index].fromTo = true;
    return index;
}

// Removes point k of a chain if what is left is valid. The world allocates a chain's points at exactly
// pointCount * sizeof(lsVec2) (world.c), so the shorter chain gets a block of its own size.
static bool RemoveChainPoint(lsVec2** points, int* count, bool closed, int k)
{
    int n = *count;
    lsVec2* fewer = lsAlloc((size_t)(n - 1) * sizeof(lsVec2));
    memcpy(fewer, *points, (size_t)k * sizeof(lsVec2));
    memcpy(fewer + k, *points + k + 1, (size_t)(n - k - 1) * sizeof(lsVec2));
    if (!IsValidChain(fewer, n - 1, closed))
    {
        // Its neighbours coincide, so dropping it would leave a zero-length segment.
        lsFree(fewer, (size_t)(n - 1) * sizeof(lsVec2));
        return false;
    }
    lsFree(*points, (size_t)n * sizeof(lsVec2));
    *points = fewer;
    *count = n - 1;
    return true;
}

bool lsEdit_Delete(lsWorld* world, lsEditRef ref)
{
    LS_ASSERT(lsEdit_IsValidRef(world, ref));
    switch (ref.kind)
    {
    case ls_editWall:
        lsWorld_RemoveWall(world, ref.index);
        return true;
    case ls_editWallPoint:
    {
        lsWallDef* wall = world->walls + ref.index;
        if (wall->pointCount <= (wall->closed ? 3 : 2))
        {
            // Too few corners left to be a wall: the whole wall goes.
            lsWorld_RemoveWall(world, ref.index);
            return true;
        }
        if (!RemoveChainPoint(&wall->points, &wall->pointCount, wall->closed, ref.sub))
            return false;
        wall->fromTo = wall->fromTo && wall->pointCount == 2;
        return true;
    }
    case ls_editPathPoint:
    {
        lsPathDef* path = world->paths + ref.index;
        if (path->pointCount <= (path->closed ? 3 : 2))
            return false;
        return RemoveChainPoint(&path->points, &path->pointCount, path->closed, ref.sub);
    }
    case ls_editTarget:
        lsWorld_RemoveTarget(world, ref.index);
        return true;
    case ls_editBox:
        lsWorld_RemoveBox(world, ref.index);
        return true;
    case ls_editPolygon:
        lsWorld_RemovePolygon(world, ref.index);
        return true;
    case ls_editPath:
        lsWorld_RemovePath(world, ref.index);
        return true;
    case ls_editVehicle:
        lsWorld_RemoveVehicle(world, ref.index);
        return true;
    case ls_editMover:
    case ls_editMoverPoint:
        lsWorld_RemoveMover(world, ref.index);
        return true;
    case ls_editRobot:
    case ls_editNone:
        break;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------------------------
// The knife. A chain is handled in arc length: u in [0, T] runs along it from points[0] (a closed chain comes back
// to points[0] at u = T). Each crossing removes [u - h, u + h]; what is left between the removed intervals becomes
// the new chains.

typedef struct Cut
{
    double u;    // arc length of the crossing along the chain
    double half; // half-width of the opening, metres
} Cut;

static int CompareCuts(const void* a, const void* b)
{
    double ua = ((const Cut*)a)->u, ub = ((const Cut*)b)->u;
    return (ua > ub) - (ua < ub);
}

// An interval of arc length removed by the knife, or kept between two such.
typedef struct Gap
{
    double lo, hi;
} Gap;

static int CompareGaps(const void* a, const void* b)
{
    double la = ((const Gap*)a)->lo, lb = ((const Gap*)b)->lo;
    return (la > lb) - (la < lb);
}

// Merges overlapping intervals of a list sorted by lo, in place; returns the new count (count >= 1).
static int MergeGaps(Gap* gaps, int count, double eps)
{
    int kept = 1;
    for (int i = 1; i < count; ++i)
    {
        if (gaps[i].lo <= gaps[kept - 1].hi + eps)
        {
            gaps[kept - 1].hi = fmax(gaps[kept - 1].hi, gaps[i].hi);
            continue;
        }
        gaps[kept++] = gaps[i];
    }
    return kept;
}

// A chain with its cumulative arc lengths: cum[k] is the length up to point k, cum[segments] = T.
typedef struct Chain
{
    const lsVec2* points;
    int count;
    int segments;
    bool closed;
    double* cum; // segments + 1 entries
} Chain;

static lsVec2 ChainPoint(const Chain* chain, int k) { return chain->points[k % chain->count]; }

// The point at arc length u in [0, T] (exact at the chain's points).
static lsVec2 ChainPointAt(const Chain* chain, double u)
{
    int lo = 0, hi = chain->segments;
    // The segment i with cum[i] <= u <= cum[i + 1], by bisection.
    while (hi - lo > 1)
    {
        int mid = (lo + hi) / 2;
        if (chain->cum[mid] <= u)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    if (u <= chain->cum[lo])
        return ChainPoint(chain, lo);
    if (u >= chain->cum[lo + 1])
        return ChainPoint(chain, lo + 1);
    double f = (u - chain->cum[lo]) / (chain->cum[lo + 1] - chain->cum[lo]);
    return lsLerp(ChainPoint(chain, lo), ChainPoint(chain, lo + 1), f);
}

// Appends p unless it repeats the last point (no zero-length segments).
static void PushPoint(lsVec2* out, int* count, lsVec2 p)
{
    if (*count > 0 && lsVecEqual(out[*count - 1], p))
        return;
    out[(*count)++] = p;
}

// Writes the piece of the chain from arc length u0 to u1 (u0 < u1; a closed chain allows u1 up to u0 + T, going
// round through points[0]) into out (capacity count + 3) and returns its point count.
static int ChainPiece(const Chain* chain, double u0, double u1, double eps, lsVec2* out)
{
    double total = chain->cum[chain->segments];
    int n = 0;
    PushPoint(out, &n, ChainPointAt(chain, u0 > total ? u0 - total : u0));
    for (int lap = 0; lap < (chain->closed ? 2 : 1); ++lap)
    {
        for (int k = 0; k <= chain->segments; ++k)
        {
            double u = chain->cum[k] + lap * total;
            if (lap == 1 && k == 0)
                continue; // the same corner as k = segments of lap 0
            if (u0 + eps < u && u < u1 - eps)
                PushPoint(out, &n, ChainPoint(chain, k));
        }
    }
    PushPoint(out, &n, ChainPointAt(chain, u1 > total ? u1 - total : u1));
    return n;
}

// True when some segment's box overlaps the knife's box (the knife runs over every wall on every mouse move).
static bool WallNearKnife(const lsWallDef* wall, lsAABB knife)
{
    int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
    for (int i = 0; i < segments; ++i)
    {
        if (lsAABB_Overlaps(knife, lsAABB_OfSegment(wall->points[i], wall->points[(i + 1) % wall->pointCount])))
        {
            return true;
        }
    }
    return false;
}

// Cuts wall w wherever the knife m0 -> m1 crosses it; returns the number of crossings (0: untouched).
static int CutWall(lsWorld* world, int w, lsVec2 m0, lsVec2 m1, double gap)
{
    const lsWallDef* wall = world->walls + w;
    lsAABB knife = lsAABB_OfSegment(m0, m1);
    if (!WallNearKnife(wall, knife))
        return 0;
    int n = wall->pointCount;
    Chain chain = {wall->points, n, wall->closed ? n : n - 1, wall->closed, NULL};
    size_t cumBytes = (size_t)(chain.segments + 1) * sizeof(double);
    chain.cum = lsAlloc(cumBytes);
    chain.cum[0] = 0.0;
    for (int i = 0; i < chain.segments; ++i)
    {
        chain.cum[i + 1] = chain.cum[i] + lsDistance(ChainPoint(&chain, i), ChainPoint(&chain, i + 1));
    }
    double total = chain.cum[chain.segments];
    // Crossings closer than this along the chain are one crossing (a corner found from both of its segments).
    double eps = 1.0e-12 * (total + lsLength(chain.points[0]));

    int cutCapacity = 2 * chain.segments;
    size_t cutBytes = (size_t)cutCapacity * sizeof(Cut);
    Cut* cuts = lsAlloc(cutBytes);
    int cutCount = 0;
    for (int i = 0; i < chain.segments; ++i)
    {
        lsVec2 a = ChainPoint(&chain, i), b = ChainPoint(&chain, i + 1);
        if (!lsAABB_Overlaps(knife, lsAABB_OfSegment(a, b)))
            continue;
        lsSweepHit hits[2];
        // The exact moving-point test: the mouse moves m0 -> m1, the wall segment stands still.
        int hitCount = lsSweepPointSegment(a, a, b, b, m0, m1, hits);
        double length = chain.cum[i + 1] - chain.cum[i];
        for (int h = 0; h < hitCount; ++h)
        {
            double u = chain.cum[i] + hits[h].s * length;
            if (hits[h].s <= 0.0 || u <= chain.cum[i] + eps)
                u = chain.cum[i];
            if (hits[h].s >= 1.0 || u >= chain.cum[i + 1] - eps)
                u = chain.cum[i + 1];
            if (chain.closed && u >= total)
                u = 0.0;
            double half = fmin(gap, 0.25 * length);
            cuts[cutCount++] = (Cut){u, half};
        }
    }
    if (cutCount == 0)
    {
        lsFree(cuts, cutBytes);
        lsFree(chain.cum, cumBytes);
        return 0;
    }

    // Sort along the chain and merge crossings at the same place, keeping the narrower opening (at a corner the
    // shorter of its two segments decides).
    qsort(cuts, (size_t)cutCount, sizeof(Cut), CompareCuts);
    int unique = 0;
    for (int i = 0; i < cutCount; ++i)
    {
        if (unique > 0 && cuts[i].u - cuts[unique - 1].u <= eps)
        {
            cuts[unique - 1].half = fmin(cuts[unique - 1].half, cuts[i].half);
            continue;
        }
        cuts[unique++] = cuts[i];
    }
    if (chain.closed && unique > 1 && cuts[0].u + total - cuts[unique - 1].u <= eps)
    {
        // The same corner seen at u = 0 and u = T.
        cuts[0].half = fmin(cuts[0].half, cuts[unique - 1].half);
        unique -= 1;
    }

    // The openings [u - h, u + h], merged where they overlap (a wide one may swallow a narrow neighbour). On a
    // closed chain the last opening may also reach round past T into the first.
    size_t gapBytes = (size_t)unique * sizeof(Gap);
    Gap* gaps = lsAlloc(gapBytes);
    for (int k = 0; k < unique; ++k)
    {
        gaps[k] = (Gap){cuts[k].u - cuts[k].half, cuts[k].u + cuts[k].half};
    }
    qsort(gaps, (size_t)unique, sizeof(Gap), CompareGaps);
    int gapCount = MergeGaps(gaps, unique, eps);
    while (chain.closed && gapCount > 1 && gaps[gapCount - 1].hi - total >= gaps[0].lo - eps)
    {
        gaps[0].lo = fmin(gaps[0].lo, gaps[gapCount - 1].lo - total);
        gaps[0].hi = fmax(gaps[0].hi, gaps[gapCount - 1].hi - total);
        gapCount = MergeGaps(gaps, gapCount - 1, eps);
    }

    // The kept pieces lie between consecutive openings. An open chain also keeps what is before the first and
    // after the last; a closed one keeps the piece that runs from the last opening round to the first.
    int pieceCapacity = gapCount + 1;
    Gap* ranges = lsAlloc((size_t)pieceCapacity * sizeof(Gap));
    int rangeCount = 0;
    if (!chain.closed)
        ranges[rangeCount++] = (Gap){0.0, gaps[0].lo};
    for (int k = 0; k + 1 < gapCount; ++k)
    {
        ranges[rangeCount++] = (Gap){gaps[k].hi, gaps[k + 1].lo};
    }
    ranges[rangeCount++] =
        chain.closed ? (Gap){gaps[gapCount - 1].hi, gaps[0].lo + total} : (Gap){gaps[gapCount - 1].hi, total};
    lsFree(gaps, gapBytes);

    // Build the pieces; a closed chain's first piece starts after its first opening, so a single cut gives one
    // open chain from one side of the opening round to the other.
    size_t pieceBytes = (size_t)(n + 3) * sizeof(lsVec2);
    lsVec2* piece = lsAlloc(pieceBytes);
    double reflectance = wall->reflectance;
    bool fromTo = wall->fromTo;
    int firstNew = world->wallCount;
    for (int r = 0; r < rangeCount; ++r)
    {
        double u0 = ranges[r].lo, u1 = ranges[r].hi;
        if (chain.closed)
        {
            // Bring the piece's start into [0, T); its end then lies in (u0, u0 + T].
            if (u0 < 0.0)
                u0 += total, u1 += total;
            if (u0 >= total)
                u0 -= total, u1 -= total;
        }
        else
        {
            u0 = fmax(u0, 0.0);
            u1 = fmin(u1, total);
        }
        if (!(u1 - u0 > eps))
            continue; // swallowed by the openings around it
        int count = ChainPiece(&chain, u0, u1, eps, piece);
        if (count < 2)
            continue;
        int added = lsWorld_AddWall(world, piece, count, false);
        world->walls[added].reflectance = reflectance;
        world->walls[added].fromTo = fromTo && count == 2;
    }
    lsFree(piece, pieceBytes);
    lsFree(ranges, (size_t)pieceCapacity * sizeof(Gap));
    lsFree(cuts, cutBytes);
    lsFree(chain.cum, cumBytes);

    // Put the pieces where the wall was: rotate the block [w, wallCount) so the new walls come first, then drop
    // the original (now right after them).
    int newCount = world->wallCount - firstNew;
    if (newCount > 0)
    {
        size_t blockBytes = (size_t)newCount * sizeof(lsWallDef);
        lsWallDef* block = lsAlloc(blockBytes);
        memcpy(block, world->walls + firstNew, blockBytes);
        memmove(world->walls + w + newCount, world->walls + w, (size_t)(firstNew - w) * sizeof(lsWallDef));
        memcpy(world->walls + w, block, blockBytes);
        lsFree(block, blockBytes);
    }
    lsWorld_RemoveWall(world, w + newCount);
    return unique;
}

int lsEdit_Cut(lsWorld* world, lsVec2 m0, lsVec2 m1, double gap)
{
    LS_ASSERT(lsIsValidVec2(m0) && lsIsValidVec2(m1) && gap >= 0.0 && isfinite(gap));
    int cuts = 0;
    // Backwards, so the pieces that replace wall w (inserted at w) never come up again.
    for (int w = world->wallCount - 1; w >= 0; --w)
    {
        cuts += CutWall(world, w, m0, m1, gap);
    }
    return cuts;
}

// ---------------------------------------------------------------------------------------------------------------------
// Undo and redo

struct lsUndoStack
{
    lsWorld** undo; // oldest first
    int undoCount;
    lsWorld** redo; // most recently undone last
    int redoCount;
    int maxSteps;
    size_t maxBytes;
    size_t bytes; // held by all snapshots
};

size_t lsEdit_WorldBytes(const lsWorld* world)
{
    size_t bytes = sizeof(lsWorld);
    bytes += (size_t)world->wallCapacity * sizeof(lsWallDef) + (size_t)world->targetCapacity * sizeof(lsTargetDef) +
             (size_t)world->boxCapacity * sizeof(lsBoxDef) + (size_t)world->polygonCapacity * sizeof(lsPolygonDef) +
             (size_t)world->pathCapacity * sizeof(lsPathDef) + (size_t)world->vehicleCapacity * sizeof(lsVehicleDef) +
             (size_t)world->moverCapacity * sizeof(lsMoverDef);
    for (int i = 0; i < world->wallCount; ++i)
    {
        bytes += (size_t)world->walls[i].pointCount * sizeof(lsVec2);
    }
    for (int i = 0; i < world->pathCount; ++i)
    {
        bytes += (size_t)world->paths[i].pointCount * sizeof(lsVec2);
    }
    return bytes;
}

lsUndoStack* lsCreateUndoStack(int maxSteps, size_t maxBytes)
{
    LS_ASSERT(maxSteps >= 1);
    lsUndoStack* stack = lsAllocZero(1, sizeof(lsUndoStack));
    stack->undo = lsAllocZero((size_t)maxSteps, sizeof(lsWorld*));
    stack->redo = lsAllocZero((size_t)maxSteps, sizeof(lsWorld*));
    stack->maxSteps = maxSteps;
    stack->maxBytes = maxBytes;
    return stack;
}

static void DropRedo(lsUndoStack* stack)
{
    for (int i = 0; i < stack->redoCount; ++i)
    {
        stack->bytes -= lsEdit_WorldBytes(stack->redo[i]);
        lsDestroyWorld(stack->redo[i]);
    }
    stack->redoCount = 0;
}

// Drops the oldest undo snapshot.
static void DropOldest(lsUndoStack* stack)
{
    stack->bytes -= lsEdit_WorldBytes(stack->undo[0]);
    lsDestroyWorld(stack->undo[0]);
    memmove(stack->undo, stack->undo + 1, (size_t)(stack->undoCount - 1) * sizeof(lsWorld*));
    stack->undoCount -= 1;
}

void lsUndoStack_Clear(lsUndoStack* stack)
{
    DropRedo(stack);
    while (stack->undoCount > 0)
    {
        DropOldest(stack);
    }
}

void lsDestroyUndoStack(lsUndoStack* stack)
{
    if (stack == NULL)
        return;
    lsUndoStack_Clear(stack);
    lsFree(stack->undo, (size_t)stack->maxSteps * sizeof(lsWorld*));
    lsFree(stack->redo, (size_t)stack->maxSteps * sizeof(lsWorld*));
    lsFree(stack, sizeof(lsUndoStack));
}

void lsUndoStack_Push(lsUndoStack* stack, lsWorld* before)
{
    LS_ASSERT(before != NULL);
    DropRedo(stack);
    if (stack->undoCount == stack->maxSteps)
        DropOldest(stack);
    stack->undo[stack->undoCount++] = before;
    stack->bytes += lsEdit_WorldBytes(before);
    // The byte budget drops the oldest steps but always keeps the newest, so one undo works even for a huge world.
    while (stack->maxBytes > 0 && stack->bytes > stack->maxBytes && stack->undoCount > 1)
    {
        DropOldest(stack);
    }
}

// Exchanges the contents of two worlds: the arrays change owner, no copy is made. Safe because a world holds no
// pointer into itself and every array is freed by its own count or capacity.
void lsEdit_SwapWorlds(lsWorld* a, lsWorld* b)
{
    lsWorld t = *a;
    *a = *b;
    *b = t;
}

bool lsUndoStack_Undo(lsUndoStack* stack, lsWorld* world)
{
    if (stack->undoCount == 0)
        return false;
    lsWorld* snapshot = stack->undo[--stack->undoCount];
    stack->bytes -= lsEdit_WorldBytes(snapshot);
    lsEdit_SwapWorlds(world, snapshot);
    // snapshot now holds the world as it was before the undo; redo brings it back.
    stack->redo[stack->redoCount++] = snapshot;
    stack->bytes += lsEdit_WorldBytes(snapshot);
    return true;
}

bool lsUndoStack_Redo(lsUndoStack* stack, lsWorld* world)
{
    if (stack->redoCount == 0)
        return false;
    lsWorld* snapshot = stack->redo[--stack->redoCount];
    stack->bytes -= lsEdit_WorldBytes(snapshot);
    lsEdit_SwapWorlds(world, snapshot);
    stack->undo[stack->undoCount++] = snapshot;
    stack->bytes += lsEdit_WorldBytes(snapshot);
    return true;
}

int lsUndoStack_UndoCount(const lsUndoStack* stack) { return stack->undoCount; }

int lsUndoStack_RedoCount(const lsUndoStack* stack) { return stack->redoCount; }

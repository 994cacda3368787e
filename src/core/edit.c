// lidarsim core: editing operations on the world model (see edit.h).
#include "core/edit.h"

#include "lidarsim/geometry.h"

#include <float.h>
#include <math.h>
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

// A chain is loadable when its points are finite and no segment has zero length (closed: the closing one too):
// the loader's rule, lsFindZeroSegment.
static bool IsValidChain(const lsVec2* points, int count, bool closed)
{
    return count >= (closed ? 3 : 2) && lsAreValidVec2s(points, count) && lsFindZeroSegment(points, count, closed) < 0;
}

// A polygon the loader accepts: its rule (lsMakePolygon: strictly convex by exact orientation tests, turning once
// round), so any polygon that loads can be moved and a moved polygon always loads back.
static bool IsLoadablePolygon(const lsVec2* points, int count)
{
    lsPolygon polygon;
    return lsMakePolygon(&polygon, points, count);
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
        return 0 <= ref.index && ref.index < lsWorld_RobotCount(world);
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
               ref.sub < lsMover_HandleCount(world->movers + ref.index);
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving

// A move takes the point `from` to `to` and every other point with it: p goes to p + (to - from). Drawn on a grid,
// from, to and the points are short decimals (20, 20.85), and p + (to - from) in doubles is not (the difference
// 0.8500000000000014 is exact, the sum then lands on 10.850000000000001, and a save writes that): so when all three
// are short decimals (at most 9 digits after the point), the point lands on the double nearest the decimal sum.
typedef struct Shift
{
    lsVec2 from, to;
} Shift;

// x, as an integer count of 10^-k, when x is the double nearest that count's decimal (count / 10^k, one correctly
// rounded division; counts below 2^50, so sums of three stay exact).
static bool DecimalCount(double x, double scale, double* count)
{
    *count = round(x * scale);
    return fabs(*count) < 0x1p50 && *count / scale == x;
}

static double ShiftCoordinate(double p, double from, double to)
{
    double scale = 1.0;
    for (int k = 0; k <= 9; ++k)
    {
        double cp, cf, ct;
        if (DecimalCount(p, scale, &cp) && DecimalCount(from, scale, &cf) && DecimalCount(to, scale, &ct))
        {
            return (cp - cf + ct) / scale + 0.0; // + 0.0: a -0 would be saved as "-0"
        }
        scale *= 10.0;
    }
    return p + (to - from);
}

static lsVec2 ShiftPoint(Shift shift, lsVec2 p)
{
    return lsV(ShiftCoordinate(p.x, shift.from.x, shift.to.x), ShiftCoordinate(p.y, shift.from.y, shift.to.y));
}

// Shifts count points into out; false when any result is not finite.
static bool ShiftPoints(const lsVec2* points, int count, Shift shift, lsVec2* out)
{
    for (int i = 0; i < count; ++i)
    {
        out[i] = ShiftPoint(shift, points[i]);
    }
    return lsAreValidVec2s(out, count);
}

// Moves a chain's points (all of them, or only point `only` when only >= 0) if the result is a valid chain.
static bool MoveChain(lsVec2* points, int count, bool closed, int only, Shift shift)
{
    size_t bytes = (size_t)count * sizeof(lsVec2);
    lsVec2* moved = lsAlloc(bytes);
    memcpy(moved, points, bytes);
    bool ok;
    if (only >= 0)
    {
        moved[only] = ShiftPoint(shift, points[only]);
        ok = IsValidChain(moved, count, closed);
    }
    else
    {
        // A rigid move can still merge two points whose difference is far below the coordinates' rounding step.
        ok = ShiftPoints(points, count, shift, moved) && IsValidChain(moved, count, closed);
    }
    if (ok)
        memcpy(points, moved, bytes);
    lsFree(moved, bytes);
    return ok;
}

bool lsEdit_IsMapWall(const lsWorld* world, lsEditRef ref)
{
    return (ref.kind == ls_editWall || ref.kind == ls_editWallPoint) && lsEdit_IsValidRef(world, ref) &&
           world->walls[ref.index].fromMap;
}

// Moves the object (or point) ref by shift (lsEdit_Translate).
static bool ShiftObject(lsWorld* world, lsEditRef ref, Shift shift)
{
    LS_ASSERT(lsEdit_IsValidRef(world, ref));
    // A map's walls are made from its image at every load: a change here could never be saved.
    lsVec2 delta = lsSub(shift.to, shift.from);
    if (!lsIsValidVec2(delta) || lsEdit_IsMapWall(world, ref))
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
                         shift);
    }
    case ls_editPath:
    case ls_editPathPoint:
    {
        lsPathDef* path = world->paths + ref.index;
        if (!MoveChain(path->points, path->pointCount, path->closed, ref.kind == ls_editPathPoint ? ref.sub : -1,
                       shift))
        {
            return false;
        }
        if (ref.kind == ls_editPath)
        {
            // The path's vehicles ride along, so a moved road keeps its traffic on it.
            for (int i = 0; i < world->vehicleCount; ++i)
            {
                lsVehicleDef* v = world->vehicles + i;
                lsVec2 moved = ShiftPoint(shift, v->position);
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
        if (!ShiftPoints(def->points, def->count, shift, moved) || !IsLoadablePolygon(moved, def->count))
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
            moved.a = ShiftPoint(shift, mover->a);
            moved.b = ShiftPoint(shift, mover->b);
            moved.pivot = ShiftPoint(shift, mover->pivot);
        }
        else if (ref.sub == 0)
        {
            moved.a = ShiftPoint(shift, mover->a);
        }
        else if (ref.sub == 1)
        {
            moved.b = ShiftPoint(shift, mover->b);
        }
        else
        {
            moved.pivot = ShiftPoint(shift, mover->pivot);
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
                         : ref.kind == ls_editRobot ? &lsWorld_Robot(world, ref.index)->position
                                                    : &world->vehicles[ref.index].position;
        lsVec2 moved = ShiftPoint(shift, *center);
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

bool lsEdit_Translate(lsWorld* world, lsEditRef ref, lsVec2 delta)
{
    return ShiftObject(world, ref, (Shift){lsV(0.0, 0.0), delta});
}

bool lsEdit_MoveTo(lsWorld* world, lsEditRef ref, lsVec2 position)
{
    LS_ASSERT(world != NULL && lsEdit_IsValidRef(world, ref));
    if (!lsIsValidVec2(position) || lsEdit_IsMapWall(world, ref))
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
            point = &lsWorld_Robot(w, ref.index)->position;
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
    return ShiftObject(world, ref, (Shift){anchor, position});
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
        for (int k = 0; k < wall->pointCount && !wall->fromMap; ++k)
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
    for (int i = 0; i < count; ++i)
    {
        LS_ASSERT(corners[i].kind == ls_editWallPoint && lsEdit_IsValidRef(world, corners[i]));
        if (world->walls[corners[i].index].fromMap)
            return false; // a map's corner cannot move (lsEdit_IsMapWall): nothing moves
    }
    size_t bytes = (size_t)count * sizeof(lsVec2);
    lsVec2* old = lsAlloc(bytes);
    bool changed = false;
    for (int i = 0; i < count; ++i)
    {
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
    if (lsEdit_IsMapWall(world, ref))
        return false;
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
        // The last robot stays: a world always has one.
        return lsWorld_RemoveRobot(world, ref.index);
    case ls_editNone:
        break;
    }
    return false;
}

// lidarsim core: the world model's defaults, lifecycle and editing. Every array the world owns is allocated with
// lsAlloc at exactly capacity * sizeof(element), so lsFree gets back the size it was given.
#include "lidarsim/world.h"

#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Defaults (the values docs/world-format.md documents; the loader starts from these)

lsLidarDef lsDefaultLidarDef(void)
{
    lsLidarDef def;
    memset(&def, 0, sizeof def);
    def.beams = 360;
    // Through lsDegToRad, as the loader converts "fov": 360, so a default lidar saves and loads back unchanged.
    def.fov = lsDegToRad(360.0);
    def.range = 12.0;
    def.rangeMin = 0.0;
    def.mountOffset = lsV(0.0, 0.0);
    def.mountAngle = 0.0;
    def.rate = 10.0;
    def.noise = 0.0;
    def.noisePerM = 0.0;
    def.angleNoise = 0.0;
    def.dropout = 0.0;
    def.grazingDropout = 0.0;
    def.seed = 1;
    return def;
}

lsRobotDef lsDefaultRobotDef(void)
{
    lsRobotDef def;
    memset(&def, 0, sizeof def);
    def.position = lsV(0.0, 0.0);
    def.angle = 0.0;
    def.radius = 0.25;
    def.footprintCount = 0;
    def.maxSpeed = 1.5;
    def.maxTurnRate = lsDegToRad(180.0);
    def.maxAccel = 3.0;
    def.maxTurnAccel = lsDegToRad(720.0);
    def.lidar = lsDefaultLidarDef();
    strcpy(def.id, "robot");
    def.controller = ls_controllerManual;
    return def;
}

lsSimDef lsDefaultSimDef(void)
{
    lsSimDef def;
    memset(&def, 0, sizeof def);
    def.dt = 1.0 / 60.0;
    def.seed = 1;
    def.respawn = true;
    def.foodReward = 1.0;
    def.poisonReward = -1.0;
    return def;
}

lsTargetDef lsDefaultTargetDef(void)
{
    lsTargetDef def;
    memset(&def, 0, sizeof def);
    def.center = lsV(0.0, 0.0);
    def.radius = 0.3;
    def.kind = ls_food;
    def.reflectance = 0.6;
    return def;
}

lsBoxDef lsDefaultBoxDef(void)
{
    lsBoxDef def;
    memset(&def, 0, sizeof def);
    def.center = lsV(0.0, 0.0);
    def.size = lsV(1.0, 1.0);
    def.angle = 0.0;
    def.reflectance = 0.5;
    return def;
}

lsVehicleDef lsDefaultVehicleDef(void)
{
    lsVehicleDef def;
    memset(&def, 0, sizeof def);
    def.path = 0;
    def.position = lsV(0.0, 0.0);
    def.velocity = lsV(0.0, 0.0);
    def.maxSpeed = 1.5;
    def.maxForce = 2.0;
    def.radius = 0.2;
    def.pathEnd = ls_pathEndStop;
    def.reflectance = 0.7;
    return def;
}

lsMoverDef lsDefaultMoverDef(void)
{
    lsMoverDef def;
    memset(&def, 0, sizeof def);
    def.kind = ls_moverDoor;
    def.a = lsV(0.0, 0.0);
    def.b = lsV(1.0, 0.0);
    def.offset = lsV(1.0, 0.0);
    def.period = 4.0;
    def.phase = 0.0;
    def.pivot = lsV(0.5, 0.0);
    def.angularSpeed = lsDegToRad(45.0);
    def.reflectance = 0.8;
    return def;
}

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle

lsWorld* lsCreateWorld(void)
{
    lsWorld* world = lsAllocZero(1, sizeof(lsWorld));
    strcpy(world->name, "world");
    world->robot = lsDefaultRobotDef();
    world->sim = lsDefaultSimDef();
    return world;
}

void lsDestroyWorld(lsWorld* world)
{
    if (world == NULL)
    {
        return;
    }
    for (int i = 0; i < world->wallCount; ++i)
    {
        lsFree(world->walls[i].points, (size_t)world->walls[i].pointCount * sizeof(lsVec2));
    }
    for (int i = 0; i < world->pathCount; ++i)
    {
        lsFree(world->paths[i].points, (size_t)world->paths[i].pointCount * sizeof(lsVec2));
    }
    lsFree(world->walls, (size_t)world->wallCapacity * sizeof(lsWallDef));
    lsFree(world->targets, (size_t)world->targetCapacity * sizeof(lsTargetDef));
    lsFree(world->boxes, (size_t)world->boxCapacity * sizeof(lsBoxDef));
    lsFree(world->polygons, (size_t)world->polygonCapacity * sizeof(lsPolygonDef));
    lsFree(world->paths, (size_t)world->pathCapacity * sizeof(lsPathDef));
    lsFree(world->vehicles, (size_t)world->vehicleCapacity * sizeof(lsVehicleDef));
    lsFree(world->movers, (size_t)world->moverCapacity * sizeof(lsMoverDef));
    lsFree(world->fleet, (size_t)world->fleetCapacity * sizeof(lsRobotDef));
    lsFree(world, sizeof(lsWorld));
}

// Copies count elements into a fresh block of exactly count elements (NULL for zero).
static void* CopyArray(const void* source, int count, size_t elementSize)
{
    if (count == 0)
    {
        return NULL;
    }
    void* copy = lsAlloc((size_t)count * elementSize);
    memcpy(copy, source, (size_t)count * elementSize);
    return copy;
}

lsWorld* lsCloneWorld(const lsWorld* world)
{
    if (world == NULL)
    {
        return NULL;
    }
    lsWorld* clone = lsAlloc(sizeof(lsWorld));
    *clone = *world;
    clone->walls = CopyArray(world->walls, world->wallCount, sizeof(lsWallDef));
    clone->wallCapacity = world->wallCount;
    for (int i = 0; i < world->wallCount; ++i)
    {
        clone->walls[i].points = CopyArray(world->walls[i].points, world->walls[i].pointCount, sizeof(lsVec2));
    }
    clone->targets = CopyArray(world->targets, world->targetCount, sizeof(lsTargetDef));
    clone->targetCapacity = world->targetCount;
    clone->boxes = CopyArray(world->boxes, world->boxCount, sizeof(lsBoxDef));
    clone->boxCapacity = world->boxCount;
    clone->polygons = CopyArray(world->polygons, world->polygonCount, sizeof(lsPolygonDef));
    clone->polygonCapacity = world->polygonCount;
    clone->paths = CopyArray(world->paths, world->pathCount, sizeof(lsPathDef));
    clone->pathCapacity = world->pathCount;
    for (int i = 0; i < world->pathCount; ++i)
    {
        clone->paths[i].points = CopyArray(world->paths[i].points, world->paths[i].pointCount, sizeof(lsVec2));
    }
    clone->vehicles = CopyArray(world->vehicles, world->vehicleCount, sizeof(lsVehicleDef));
    clone->vehicleCapacity = world->vehicleCount;
    clone->movers = CopyArray(world->movers, world->moverCount, sizeof(lsMoverDef));
    clone->moverCapacity = world->moverCount;
    clone->fleet = CopyArray(world->fleet, world->fleetCount, sizeof(lsRobotDef));
    clone->fleetCapacity = world->fleetCount;
    return clone;
}

// ---------------------------------------------------------------------------------------------------------------------
// Exact comparison. Only fields that mean something are compared (a door's pivot, a circle robot's footprint array
// and polygon slots past count are not), so two worlds that save to the same JSON compare equal.

static bool PointsEqual(const lsVec2* a, const lsVec2* b, int count)
{
    for (int i = 0; i < count; ++i)
    {
        if (!lsVecEqual(a[i], b[i]))
        {
            return false;
        }
    }
    return true;
}

static bool LidarEqual(const lsLidarDef* a, const lsLidarDef* b)
{
    return a->beams == b->beams && a->fov == b->fov && a->range == b->range && a->rangeMin == b->rangeMin &&
           lsVecEqual(a->mountOffset, b->mountOffset) && a->mountAngle == b->mountAngle && a->rate == b->rate &&
           a->noise == b->noise && a->noisePerM == b->noisePerM && a->angleNoise == b->angleNoise &&
           a->dropout == b->dropout && a->grazingDropout == b->grazingDropout && a->seed == b->seed;
}

static bool RobotEqual(const lsRobotDef* a, const lsRobotDef* b)
{
    return strcmp(a->id, b->id) == 0 && a->controller == b->controller && lsVecEqual(a->position, b->position) &&
           a->angle == b->angle && a->radius == b->radius && a->footprintCount == b->footprintCount &&
           PointsEqual(a->footprint, b->footprint, a->footprintCount) && a->maxSpeed == b->maxSpeed &&
           a->maxTurnRate == b->maxTurnRate && a->maxAccel == b->maxAccel && a->maxTurnAccel == b->maxTurnAccel &&
           LidarEqual(&a->lidar, &b->lidar);
}

static bool MoverEqual(const lsMoverDef* a, const lsMoverDef* b)
{
    if (a->kind != b->kind || !lsVecEqual(a->a, b->a) || !lsVecEqual(a->b, b->b) || a->reflectance != b->reflectance)
    {
        return false;
    }
    if (a->kind == ls_moverDoor)
    {
        return lsVecEqual(a->offset, b->offset) && a->period == b->period && a->phase == b->phase;
    }
    return lsVecEqual(a->pivot, b->pivot) && a->angularSpeed == b->angularSpeed;
}

bool lsWorld_Equal(const lsWorld* a, const lsWorld* b)
{
    if (a == NULL || b == NULL)
    {
        return a == b;
    }
    if (strcmp(a->name, b->name) != 0 || a->wallCount != b->wallCount || a->targetCount != b->targetCount ||
        a->boxCount != b->boxCount || a->polygonCount != b->polygonCount || a->pathCount != b->pathCount ||
        a->vehicleCount != b->vehicleCount || a->moverCount != b->moverCount || a->fleetCount != b->fleetCount ||
        a->robotList != b->robotList)
    {
        return false;
    }
    for (int i = 0; i < a->fleetCount; ++i)
    {
        if (!RobotEqual(a->fleet + i, b->fleet + i))
        {
            return false;
        }
    }
    for (int i = 0; i < a->wallCount; ++i)
    {
        const lsWallDef* wa = a->walls + i;
        const lsWallDef* wb = b->walls + i;
        if (wa->pointCount != wb->pointCount || wa->closed != wb->closed || wa->fromTo != wb->fromTo ||
            wa->fromMap != wb->fromMap || wa->reflectance != wb->reflectance ||
            !PointsEqual(wa->points, wb->points, wa->pointCount))
        {
            return false;
        }
    }
    for (int i = 0; i < a->targetCount; ++i)
    {
        const lsTargetDef* ta = a->targets + i;
        const lsTargetDef* tb = b->targets + i;
        if (!lsVecEqual(ta->center, tb->center) || ta->radius != tb->radius || ta->kind != tb->kind ||
            ta->reflectance != tb->reflectance)
        {
            return false;
        }
    }
    for (int i = 0; i < a->boxCount; ++i)
    {
        const lsBoxDef* ba = a->boxes + i;
        const lsBoxDef* bb = b->boxes + i;
        if (!lsVecEqual(ba->center, bb->center) || !lsVecEqual(ba->size, bb->size) || ba->angle != bb->angle ||
            ba->reflectance != bb->reflectance)
        {
            return false;
        }
    }
    for (int i = 0; i < a->polygonCount; ++i)
    {
        const lsPolygonDef* pa = a->polygons + i;
        const lsPolygonDef* pb = b->polygons + i;
        if (pa->count != pb->count || pa->reflectance != pb->reflectance ||
            !PointsEqual(pa->points, pb->points, pa->count))
        {
            return false;
        }
    }
    for (int i = 0; i < a->pathCount; ++i)
    {
        const lsPathDef* pa = a->paths + i;
        const lsPathDef* pb = b->paths + i;
        if (strcmp(pa->id, pb->id) != 0 || pa->pointCount != pb->pointCount || pa->radius != pb->radius ||
            pa->closed != pb->closed || !PointsEqual(pa->points, pb->points, pa->pointCount))
        {
            return false;
        }
    }
    for (int i = 0; i < a->vehicleCount; ++i)
    {
        const lsVehicleDef* va = a->vehicles + i;
        const lsVehicleDef* vb = b->vehicles + i;
        if (va->path != vb->path || !lsVecEqual(va->position, vb->position) ||
            !lsVecEqual(va->velocity, vb->velocity) || va->maxSpeed != vb->maxSpeed || va->maxForce != vb->maxForce ||
            va->radius != vb->radius || va->pathEnd != vb->pathEnd || va->reflectance != vb->reflectance)
        {
            return false;
        }
    }
    for (int i = 0; i < a->moverCount; ++i)
    {
        if (!MoverEqual(a->movers + i, b->movers + i))
        {
            return false;
        }
    }
    const lsSimDef* sa = &a->sim;
    const lsSimDef* sb = &b->sim;
    return strcmp(a->map.path, b->map.path) == 0 && a->map.unknownOccupied == b->map.unknownOccupied &&
           RobotEqual(&a->robot, &b->robot) && sa->dt == sb->dt && sa->seed == sb->seed && sa->respawn == sb->respawn &&
           sa->foodReward == sb->foodReward && sa->poisonReward == sb->poisonReward;
}

// ---------------------------------------------------------------------------------------------------------------------
// Editing. Arrays grow by doubling; *array, *count and *capacity are one of the world's triples.

static void Grow(void** array, int count, int* capacity, size_t elementSize)
{
    if (count < *capacity)
    {
        return;
    }
    int newCapacity = *capacity < 8 ? 8 : 2 * *capacity;
    *array = lsRealloc(*array, (size_t)*capacity * elementSize, (size_t)newCapacity * elementSize);
    *capacity = newCapacity;
}

// Removes element index of count, shifting the rest down to keep their order.
static void RemoveAt(void* array, int index, int count, size_t elementSize)
{
    char* bytes = array;
    memmove(bytes + (size_t)index * elementSize, bytes + (size_t)(index + 1) * elementSize,
            (size_t)(count - index - 1) * elementSize);
}

int lsWorld_AddWall(lsWorld* world, const lsVec2* points, int pointCount, bool closed)
{
    if (world == NULL || points == NULL || pointCount < 2)
    {
        return -1;
    }
    Grow((void**)&world->walls, world->wallCount, &world->wallCapacity, sizeof(lsWallDef));
    lsWallDef* wall = world->walls + world->wallCount;
    wall->points = CopyArray(points, pointCount, sizeof(lsVec2));
    wall->pointCount = pointCount;
    wall->closed = closed;
    wall->fromTo = false;
    wall->fromMap = false;
    wall->reflectance = 0.8;
    return world->wallCount++;
}

int lsWorld_AddTarget(lsWorld* world, lsTargetDef def)
{
    if (world == NULL)
    {
        return -1;
    }
    Grow((void**)&world->targets, world->targetCount, &world->targetCapacity, sizeof(lsTargetDef));
    world->targets[world->targetCount] = def;
    return world->targetCount++;
}

int lsWorld_AddBox(lsWorld* world, lsBoxDef def)
{
    if (world == NULL)
    {
        return -1;
    }
    Grow((void**)&world->boxes, world->boxCount, &world->boxCapacity, sizeof(lsBoxDef));
    world->boxes[world->boxCount] = def;
    return world->boxCount++;
}

int lsWorld_AddPolygon(lsWorld* world, const lsPolygonDef* def)
{
    if (world == NULL || def == NULL || def->count < 3 || def->count > LS_MAX_POLYGON_VERTICES)
    {
        return -1;
    }
    Grow((void**)&world->polygons, world->polygonCount, &world->polygonCapacity, sizeof(lsPolygonDef));
    world->polygons[world->polygonCount] = *def;
    return world->polygonCount++;
}

int lsWorld_AddPath(lsWorld* world, const char* id, const lsVec2* points, int pointCount, double radius, bool closed)
{
    if (world == NULL || id == NULL || points == NULL || pointCount < 2 || strlen(id) >= LS_PATH_ID_CAPACITY)
    {
        return -1;
    }
    // Copy the id first: it may point into the paths array that Grow moves (copying another path's id).
    char idCopy[LS_PATH_ID_CAPACITY];
    memcpy(idCopy, id, strlen(id) + 1);
    Grow((void**)&world->paths, world->pathCount, &world->pathCapacity, sizeof(lsPathDef));
    lsPathDef* path = world->paths + world->pathCount;
    memset(path, 0, sizeof *path);
    memcpy(path->id, idCopy, sizeof idCopy);
    path->points = CopyArray(points, pointCount, sizeof(lsVec2));
    path->pointCount = pointCount;
    path->radius = radius;
    path->closed = closed;
    return world->pathCount++;
}

int lsWorld_AddVehicle(lsWorld* world, lsVehicleDef def)
{
    if (world == NULL || def.path < 0 || def.path >= world->pathCount)
    {
        return -1;
    }
    Grow((void**)&world->vehicles, world->vehicleCount, &world->vehicleCapacity, sizeof(lsVehicleDef));
    world->vehicles[world->vehicleCount] = def;
    return world->vehicleCount++;
}

int lsWorld_AddMover(lsWorld* world, lsMoverDef def)
{
    if (world == NULL)
    {
        return -1;
    }
    Grow((void**)&world->movers, world->moverCount, &world->moverCapacity, sizeof(lsMoverDef));
    world->movers[world->moverCount] = def;
    return world->moverCount++;
}

bool lsWorld_RemoveWall(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->wallCount)
    {
        return false;
    }
    lsFree(world->walls[index].points, (size_t)world->walls[index].pointCount * sizeof(lsVec2));
    RemoveAt(world->walls, index, world->wallCount, sizeof(lsWallDef));
    world->wallCount -= 1;
    return true;
}

bool lsWorld_RemoveTarget(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->targetCount)
    {
        return false;
    }
    RemoveAt(world->targets, index, world->targetCount, sizeof(lsTargetDef));
    world->targetCount -= 1;
    return true;
}

bool lsWorld_RemoveBox(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->boxCount)
    {
        return false;
    }
    RemoveAt(world->boxes, index, world->boxCount, sizeof(lsBoxDef));
    world->boxCount -= 1;
    return true;
}

bool lsWorld_RemovePolygon(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->polygonCount)
    {
        return false;
    }
    RemoveAt(world->polygons, index, world->polygonCount, sizeof(lsPolygonDef));
    world->polygonCount -= 1;
    return true;
}

bool lsWorld_RemovePath(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->pathCount)
    {
        return false;
    }
    // Vehicles on the path go with it; those on later paths keep pointing at the same path after the shift.
    int kept = 0;
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        lsVehicleDef vehicle = world->vehicles[i];
        if (vehicle.path == index)
        {
            continue;
        }
        if (vehicle.path > index)
        {
            vehicle.path -= 1;
        }
        world->vehicles[kept++] = vehicle;
    }
    world->vehicleCount = kept;
    lsFree(world->paths[index].points, (size_t)world->paths[index].pointCount * sizeof(lsVec2));
    RemoveAt(world->paths, index, world->pathCount, sizeof(lsPathDef));
    world->pathCount -= 1;
    return true;
}

bool lsWorld_RemoveVehicle(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->vehicleCount)
    {
        return false;
    }
    RemoveAt(world->vehicles, index, world->vehicleCount, sizeof(lsVehicleDef));
    world->vehicleCount -= 1;
    return true;
}

bool lsWorld_RemoveMover(lsWorld* world, int index)
{
    if (world == NULL || index < 0 || index >= world->moverCount)
    {
        return false;
    }
    RemoveAt(world->movers, index, world->moverCount, sizeof(lsMoverDef));
    world->moverCount -= 1;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// Queries

int lsWorld_SegmentCount(const lsWorld* world)
{
    if (world == NULL)
    {
        return -1;
    }
    int count = 0;
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        count += wall->closed ? wall->pointCount : wall->pointCount - 1;
    }
    return count;
}

typedef struct BoundsBuilder
{
    lsAABB box;
    bool empty;
} BoundsBuilder;

static void AddPoint(BoundsBuilder* b, lsVec2 p, double margin)
{
    lsVec2 lower = lsV(p.x - margin, p.y - margin);
    lsVec2 upper = lsV(p.x + margin, p.y + margin);
    if (b->empty)
    {
        b->box.lower = lower;
        b->box.upper = upper;
        b->empty = false;
        return;
    }
    b->box.lower = lsMin(b->box.lower, lower);
    b->box.upper = lsMax(b->box.upper, upper);
}

lsAABB lsWorld_Bounds(const lsWorld* world)
{
    LS_ASSERT(world != NULL);
    BoundsBuilder b = {.empty = true};
    for (int i = 0; i < world->wallCount; ++i)
    {
        for (int j = 0; j < world->walls[i].pointCount; ++j)
        {
            AddPoint(&b, world->walls[i].points[j], 0.0);
        }
    }
    for (int i = 0; i < world->targetCount; ++i)
    {
        AddPoint(&b, world->targets[i].center, world->targets[i].radius);
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* box = world->boxes + i;
        lsRot q = lsMakeRot(box->angle);
        lsVec2 h = lsScale(0.5, box->size);
        // Half extents of the rotated box along x and y.
        double ex = fabs(q.c) * h.x + fabs(q.s) * h.y;
        double ey = fabs(q.s) * h.x + fabs(q.c) * h.y;
        AddPoint(&b, lsV(box->center.x - ex, box->center.y - ey), 0.0);
        AddPoint(&b, lsV(box->center.x + ex, box->center.y + ey), 0.0);
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        for (int j = 0; j < world->polygons[i].count; ++j)
        {
            AddPoint(&b, world->polygons[i].points[j], 0.0);
        }
    }
    for (int i = 0; i < world->pathCount; ++i)
    {
        for (int j = 0; j < world->paths[i].pointCount; ++j)
        {
            AddPoint(&b, world->paths[i].points[j], 0.0);
        }
    }
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        AddPoint(&b, world->vehicles[i].position, world->vehicles[i].radius);
    }
    for (int i = 0; i < world->moverCount; ++i)
    {
        const lsMoverDef* mover = world->movers + i;
        if (mover->kind == ls_moverDoor)
        {
            AddPoint(&b, mover->a, 0.0);
            AddPoint(&b, mover->b, 0.0);
            AddPoint(&b, lsAdd(mover->a, mover->offset), 0.0);
            AddPoint(&b, lsAdd(mover->b, mover->offset), 0.0);
        }
        else
        {
            // A turning bar sweeps the disc around its pivot that reaches its farther end.
            double reach = lsFmax(lsDistance(mover->pivot, mover->a), lsDistance(mover->pivot, mover->b));
            AddPoint(&b, mover->pivot, reach);
        }
    }
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* robot = lsWorld_GetRobot(world, i);
        AddPoint(&b, robot->position, lsRobotDef_Reach(robot));
    }
    if (b.empty)
    {
        return (lsAABB){lsV(-0.5, -0.5), lsV(0.5, 0.5)};
    }
    return b.box;
}

// ---------------------------------------------------------------------------------------------------------------------
// Robots

double lsRobotDef_Reach(const lsRobotDef* def)
{
    if (def->footprintCount == 0)
    {
        return def->radius;
    }
    double reach = 0.0;
    for (int j = 0; j < def->footprintCount; ++j)
    {
        reach = lsFmax(reach, lsLength(def->footprint[j]));
    }
    return reach;
}

lsRobotDef* lsWorld_Robot(lsWorld* world, int i)
{
    if (world == NULL || i < 0 || i > world->fleetCount)
    {
        return NULL;
    }
    return i == 0 ? &world->robot : world->fleet + (i - 1);
}

const lsRobotDef* lsWorld_GetRobot(const lsWorld* world, int i)
{
    if (world == NULL || i < 0 || i > world->fleetCount)
    {
        return NULL;
    }
    return i == 0 ? &world->robot : world->fleet + (i - 1);
}

int lsWorld_FindRobot(const lsWorld* world, const char* id)
{
    if (world == NULL || id == NULL)
    {
        return -1;
    }
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        if (strcmp(lsWorld_GetRobot(world, i)->id, id) == 0)
        {
            return i;
        }
    }
    return -1;
}

int lsWorld_AddRobot(lsWorld* world, const lsRobotDef* def)
{
    if (world == NULL || def == NULL)
    {
        return -1;
    }
    Grow((void**)&world->fleet, world->fleetCount, &world->fleetCapacity, sizeof(lsRobotDef));
    world->fleet[world->fleetCount++] = *def;
    world->robotList = true;
    return world->fleetCount;
}

bool lsWorld_RemoveRobot(lsWorld* world, int i)
{
    if (world == NULL || i < 0 || i >= lsWorld_RobotCount(world) || world->fleetCount == 0)
    {
        return false;
    }
    if (i == 0)
    {
        world->robot = world->fleet[0];
        i = 1;
    }
    memmove(world->fleet + (i - 1), world->fleet + i, (size_t)(world->fleetCount - i) * sizeof(lsRobotDef));
    world->fleetCount -= 1;
    return true;
}

void lsWorld_UniqueRobotId(const lsWorld* world, const char* prefix, char* id)
{
    LS_ASSERT(world != NULL && prefix != NULL && id != NULL);
    snprintf(id, LS_ROBOT_ID_CAPACITY, "%.40s", prefix);
    for (int n = 2; lsWorld_FindRobot(world, id) >= 0; ++n)
    {
        snprintf(id, LS_ROBOT_ID_CAPACITY, "%.40s%d", prefix, n);
    }
}

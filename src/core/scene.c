// The scene: a world's static geometry copied once (walls flattened into segments, targets, boxes, polygons, the
// reflectance of every object), its lifecycle and accessors. The grid over it is in scene_grid.c, the casts in
// scene_cast.c and scene_fan.c; what they share is in scene_internal.h.
#include "core/alloc.h"
#include "core/scene_internal.h"

#include <stdlib.h>
#include <string.h>

const char* lsHitKindName(lsHitKind kind)
{
    static const char* const names[LS_HIT_KIND_COUNT] = {"none", "wall",    "mover",   "target",
                                                         "box",  "polygon", "vehicle", "robot"};
    return (int)kind >= 0 && (int)kind < LS_HIT_KIND_COUNT ? names[kind] : "none";
}
// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle

static double* CopyReflectance(int count, const void* base, size_t stride, size_t offset)
{
    double* out = lsAlloc((size_t)count * sizeof(double));
    for (int i = 0; i < count; ++i)
    {
        memcpy(out + i, (const char*)base + (size_t)i * stride + offset, sizeof(double));
    }
    return out;
}

// A world built in code has not been through the loader's checks: the scene takes only what it can index (walls of
// two or more finite points, finite targets of non-negative radius, strictly convex polygons). The walls are checked
// as they are copied (CopyWalls), so they are read once.
static bool CanIndex(const lsWorld* world)
{
    if (world == NULL)
    {
        return false;
    }
    for (int i = 0; i < world->targetCount; ++i)
    {
        if (!lsIsValidVec2(world->targets[i].center) || !(world->targets[i].radius >= 0.0))
        {
            return false;
        }
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* b = world->boxes + i;
        if (!lsIsValidVec2(b->center) || !(b->size.x >= 0.0 && b->size.y >= 0.0) || !isfinite(b->size.x) ||
            !isfinite(b->size.y) || !isfinite(b->angle))
        {
            return false;
        }
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        lsPolygon polygon;
        if (!lsMakePolygon(&polygon, world->polygons[i].points, world->polygons[i].count))
        {
            return false;
        }
    }
    return true;
}

// Flattens the walls into segments in order: chain by chain, point i -> i + 1, a closed chain's closing segment
// last. False when a wall has fewer than two points or a point is not finite.
static bool CopyWalls(lsScene* scene, const lsWorld* world)
{
    scene->wallCount = world->wallCount;
    scene->wallFirstSegment = lsAlloc(((size_t)world->wallCount + 1) * sizeof(int));
    int segmentCount = 0;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        if (wall->pointCount < 2 || wall->points == NULL)
        {
            return false;
        }
        scene->wallFirstSegment[w] = segmentCount;
        segmentCount += wall->closed ? wall->pointCount : wall->pointCount - 1;
    }
    scene->wallFirstSegment[world->wallCount] = segmentCount;
    scene->segmentCount = segmentCount;
    scene->segments = lsAlloc((size_t)segmentCount * sizeof(lsSegment));
    scene->segmentChain = lsAlloc((size_t)segmentCount * sizeof(int));
    scene->segmentPart = lsAlloc((size_t)segmentCount * sizeof(int));
    // x - x is 0 for a finite x and NaN otherwise, so the sum stays 0 exactly when every point is finite: one test at
    // the end instead of four per segment.
    double check = 0.0;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsVec2* points = world->walls[w].points;
        int pointCount = world->walls[w].pointCount;
        int first = scene->wallFirstSegment[w];
        int parts = scene->wallFirstSegment[w + 1] - first;
        for (int k = 0; k < parts; ++k)
        {
            lsVec2 a = points[k], b = points[k + 1 < pointCount ? k + 1 : 0];
            check += (a.x - a.x) + (a.y - a.y);
            scene->segments[first + k] = (lsSegment){a, b};
            scene->segmentChain[first + k] = w;
            scene->segmentPart[first + k] = k;
        }
        lsVec2 last = points[pointCount - 1]; // an open chain's last point starts no segment
        check += (last.x - last.x) + (last.y - last.y);
    }
    return check == 0.0;
}

lsScene* lsCreateScene(const lsWorld* world)
{
    if (!CanIndex(world))
    {
        return NULL;
    }
    lsScene* scene = lsAllocZero(1, sizeof(lsScene));
    if (!CopyWalls(scene, world))
    {
        lsDestroyScene(scene);
        return NULL;
    }
    scene->wallReflectance =
        CopyReflectance(world->wallCount, world->walls, sizeof(lsWallDef), offsetof(lsWallDef, reflectance));

    scene->targetCount = world->targetCount;
    scene->targets = lsAlloc((size_t)world->targetCount * sizeof(lsCircle));
    scene->targetActive = lsAlloc((size_t)world->targetCount * sizeof(bool));
    scene->targetDisplaced = lsAlloc((size_t)world->targetCount * sizeof(bool));
    scene->targetCells = lsAlloc((size_t)world->targetCount * 4 * sizeof(int));
    scene->targetKinds = lsAlloc((size_t)world->targetCount * sizeof(lsTargetKind));
    scene->displaced = lsAlloc((size_t)world->targetCount * sizeof(int));
    for (int i = 0; i < world->targetCount; ++i)
    {
        const lsTargetDef* t = world->targets + i;
        scene->targets[i] = (lsCircle){t->center, t->radius};
        scene->targetActive[i] = true;
        scene->targetKinds[i] = t->kind;
    }
    scene->targetReflectance =
        CopyReflectance(world->targetCount, world->targets, sizeof(lsTargetDef), offsetof(lsTargetDef, reflectance));

    scene->boxCount = world->boxCount;
    scene->boxes = lsAlloc((size_t)world->boxCount * sizeof(lsBox));
    scene->boxBounds = lsAlloc((size_t)world->boxCount * sizeof(lsAABB));
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* b = world->boxes + i;
        scene->boxes[i] = lsMakeBox(b->center, b->size, b->angle);
        scene->boxBounds[i] = lsBox_Bounds(scene->boxes + i);
    }
    scene->boxReflectance =
        CopyReflectance(world->boxCount, world->boxes, sizeof(lsBoxDef), offsetof(lsBoxDef, reflectance));

    scene->polygonCount = world->polygonCount;
    scene->polygons = lsAlloc((size_t)world->polygonCount * sizeof(lsPolygon));
    scene->polygonBounds = lsAlloc((size_t)world->polygonCount * sizeof(lsAABB));
    for (int i = 0; i < world->polygonCount; ++i)
    {
        const lsPolygonDef* p = world->polygons + i;
        bool ok = lsMakePolygon(scene->polygons + i, p->points, p->count);
        LS_ASSERT(ok); // CanIndex made each of them once
        scene->polygonBounds[i] = lsPolygon_Bounds(scene->polygons + i);
    }
    scene->polygonReflectance = CopyReflectance(world->polygonCount, world->polygons, sizeof(lsPolygonDef),
                                                offsetof(lsPolygonDef, reflectance));

    scene->vehicleCount = world->vehicleCount;
    scene->vehicleReflectance = CopyReflectance(world->vehicleCount, world->vehicles, sizeof(lsVehicleDef),
                                                offsetof(lsVehicleDef, reflectance));
    scene->moverCount = world->moverCount;
    scene->moverReflectance =
        CopyReflectance(world->moverCount, world->movers, sizeof(lsMoverDef), offsetof(lsMoverDef, reflectance));

    lsSceneGrid_Build(scene);
    return scene;
}

void lsDestroyScene(lsScene* scene)
{
    if (scene == NULL)
    {
        return;
    }
    size_t w = (size_t)scene->wallCount, s = (size_t)scene->segmentCount, t = (size_t)scene->targetCount;
    size_t b = (size_t)scene->boxCount, p = (size_t)scene->polygonCount;
    size_t cells = (size_t)scene->nx * (size_t)scene->ny + 1;
    lsFree(scene->wallFirstSegment, (w + 1) * sizeof(int));
    lsFree(scene->wallReflectance, w * sizeof(double));
    lsFree(scene->segments, s * sizeof(lsSegment));
    lsFree(scene->segmentChain, s * sizeof(int));
    lsFree(scene->segmentPart, s * sizeof(int));
    lsFree(scene->targets, t * sizeof(lsCircle));
    lsFree(scene->targetActive, t * sizeof(bool));
    lsFree(scene->targetDisplaced, t * sizeof(bool));
    lsFree(scene->targetCells, t * 4 * sizeof(int));
    lsFree(scene->targetKinds, t * sizeof(lsTargetKind));
    lsFree(scene->targetReflectance, t * sizeof(double));
    lsFree(scene->displaced, t * sizeof(int));
    lsFree(scene->boxes, b * sizeof(lsBox));
    lsFree(scene->boxBounds, b * sizeof(lsAABB));
    lsFree(scene->boxReflectance, b * sizeof(double));
    lsFree(scene->polygons, p * sizeof(lsPolygon));
    lsFree(scene->polygonBounds, p * sizeof(lsAABB));
    lsFree(scene->polygonReflectance, p * sizeof(double));
    lsFree(scene->vehicleReflectance, (size_t)scene->vehicleCount * sizeof(double));
    lsFree(scene->moverReflectance, (size_t)scene->moverCount * sizeof(double));
    lsFreeIndex(scene->cells, IndexBytes(cells, (size_t)scene->segItemCount, NULL, NULL));
    lsFree(scene->segPieces,
           scene->segPieces != NULL ? (size_t)(scene->segItemCount + LS_PIECES_AFTER) * sizeof(CellSegment) : 0);
    lsFree(scene->shapeItems, (size_t)scene->shapeItemCount * sizeof(int));
    lsFree(scene->shapeCircles, 2 * (b > p ? b : p) * sizeof(lsCircle));
    lsFree(scene->targetItems, (size_t)scene->targetItemCount * sizeof(CellTarget));
    lsFree(scene->sparseBlocks,
           scene->sparseBlocks != NULL ? ((size_t)scene->sparseBlockCount + 1) * sizeof(SparseBlock) : 0);
    lsFree(scene->sparseCells, (size_t)scene->sparseCellCount * sizeof(SparseCell));
    lsFree(scene->sparsePairs, (size_t)scene->sparsePairCount * 8 * sizeof(double));
    lsFree(scene->segItemSide, scene->segItemSide != NULL ? (size_t)scene->segItemCount : 0);
    lsFree(scene->sparsePairSkip, scene->sparsePairSkip != NULL ? (size_t)scene->sparsePairCount : 0);
    lsFree(scene->rowEdges, scene->rowEdgeStart != NULL ? (size_t)scene->rowEdgeStart[scene->ny] * sizeof(int) : 0);
    lsFree(scene->rowEdgeStart, scene->rowEdgeStart != NULL ? ((size_t)scene->ny + 1) * sizeof(int) : 0);
    lsFree(scene->longSegments, (size_t)scene->longSegmentCount * sizeof(int));
    lsFree(scene->longShapes, (size_t)scene->longShapeCount * sizeof(int));
    lsFree(scene, sizeof(lsScene));
}

// Rewrites the records of target `index` in the cells it is registered in. A cell lists its targets by index (the
// build registers them in order, lsSceneGrid_BuildTargets), so each cell's record is found by bisection: a scan of
// the cell made stacked targets quadratic (10 000 at one place took seconds to set up).
static void UpdateTargetRecords(lsScene* scene, int index, lsCircle circle, int active)
{
    const int* reg = scene->targetCells + (ptrdiff_t)4 * index;
    for (int iy = reg[1]; iy <= reg[3]; ++iy)
    {
        for (int ix = reg[0]; ix <= reg[2]; ++ix)
        {
            int cell = iy * scene->nx + ix;
            int lo = scene->cells[cell].target, hi = scene->cells[cell + 1].target; // the first at index or more
            while (lo < hi)
            {
                int mid = lo + (hi - lo) / 2;
                lo = scene->targetItems[mid].index < index ? mid + 1 : lo;
                hi = scene->targetItems[mid].index < index ? hi : mid;
            }
            LS_ASSERT(lo < scene->cells[cell + 1].target && scene->targetItems[lo].index == index);
            scene->targetItems[lo].circle = circle;
            scene->targetItems[lo].active = active;
        }
    }
}

bool lsScene_SetTarget(lsScene* scene, int index, lsVec2 center, bool active)
{
    if (scene == NULL || index < 0 || index >= scene->targetCount || !lsIsValidVec2(center))
    {
        return false;
    }
    lsCircle c = {center, scene->targets[index].radius};
    scene->targets[index] = c;
    scene->targetActive[index] = active;
    if (scene->targetDisplaced[index])
    {
        return true; // already tested on every cast
    }
    // Still inside the cells it is registered in: update its records in place.
    int range[4];
    lsSceneGrid_TargetRange(scene, c, range);
    const int* reg = scene->targetCells + (ptrdiff_t)4 * index;
    if (range[0] <= range[2] && range[0] >= reg[0] && range[1] >= reg[1] && range[2] <= reg[2] && range[3] <= reg[3])
    {
        UpdateTargetRecords(scene, index, c, active ? 1 : 0);
        return true;
    }
    UpdateTargetRecords(scene, index, c, 0);
    scene->targetDisplaced[index] = true;
    scene->displaced[scene->displacedCount++] = index;
    if (scene->displacedCount > scene->displacedAfterBuild + LS_MAX_DISPLACED)
    {
        lsSceneGrid_BuildTargets(scene);
    }
    return true;
}
// ---------------------------------------------------------------------------------------------------------------------
// Accessors

lsSceneInfo lsScene_GetInfo(const lsScene* scene)
{
    LS_ASSERT(scene != NULL);
    lsSceneInfo info;
    memset(&info, 0, sizeof info);
    info.segmentCount = scene->segmentCount;
    info.targetCount = scene->targetCount;
    info.boxCount = scene->boxCount;
    info.polygonCount = scene->polygonCount;
    info.cellsX = scene->nx;
    info.cellsY = scene->ny;
    info.cellSize = scene->cellSize;
    info.gridBounds =
        (lsAABB){{scene->x0, scene->y0},
                 {scene->x0 + (double)scene->nx * scene->cellSize, scene->y0 + (double)scene->ny * scene->cellSize}};
    info.cellItems = (long long)scene->segItemCount + scene->shapeItemCount + scene->targetItemCount;
    size_t w = (size_t)scene->wallCount, s = (size_t)scene->segmentCount, t = (size_t)scene->targetCount;
    size_t b = (size_t)scene->boxCount, p = (size_t)scene->polygonCount;
    size_t cells = (size_t)scene->nx * (size_t)scene->ny + 1;
    info.indexBytes =
        sizeof(lsScene) + (w + 1) * sizeof(int) + w * sizeof(double) + s * (sizeof(lsSegment) + 2 * sizeof(int)) +
        t * (sizeof(lsCircle) + 2 * sizeof(bool) + 5 * sizeof(int) + sizeof(lsTargetKind) + sizeof(double)) +
        b * (sizeof(lsBox) + sizeof(lsAABB) + sizeof(double)) +
        p * (sizeof(lsPolygon) + sizeof(lsAABB) + sizeof(double)) +
        (size_t)(scene->vehicleCount + scene->moverCount) * sizeof(double) +
        IndexBytes(cells, (size_t)scene->segItemCount, NULL, NULL) +
        (scene->segPieces != NULL ? (size_t)(scene->segItemCount + LS_PIECES_AFTER) * sizeof(CellSegment) : 0) +
        (size_t)scene->shapeItemCount * sizeof(int) + 2 * (b > p ? b : p) * sizeof(lsCircle) +
        (size_t)scene->targetItemCount * sizeof(CellTarget) +
        (size_t)(scene->longSegmentCount + scene->longShapeCount) * sizeof(int) +
        (scene->sparseBlocks != NULL ? ((size_t)scene->sparseBlockCount + 1) * sizeof(SparseBlock) : 0) +
        (size_t)scene->sparseCellCount * sizeof(SparseCell) + (size_t)scene->sparsePairCount * 8 * sizeof(double) +
        (scene->segItemSide != NULL ? (size_t)scene->segItemCount + (size_t)scene->sparsePairCount : 0) +
        (scene->rowEdgeStart != NULL ? ((size_t)scene->rowEdgeStart[scene->ny] + scene->ny + 1) * sizeof(int) : 0);
    return info;
}

int lsScene_WallCount(const lsScene* scene) { return scene->wallCount; }

int lsScene_WallPartCount(const lsScene* scene, int chain)
{
    if (chain < 0 || chain >= scene->wallCount)
    {
        return -1;
    }
    return scene->wallFirstSegment[chain + 1] - scene->wallFirstSegment[chain];
}

lsSegment lsScene_WallSegment(const lsScene* scene, int chain, int part)
{
    if (chain < 0 || chain >= scene->wallCount || part < 0 || part >= lsScene_WallPartCount(scene, chain))
    {
        return (lsSegment){{0.0, 0.0}, {0.0, 0.0}};
    }
    int first = scene->wallFirstSegment[chain];
    return scene->segments[first + part];
}

int lsScene_TargetCount(const lsScene* scene) { return scene->targetCount; }

lsCircle lsScene_Target(const lsScene* scene, int index, bool* active)
{
    if (index < 0 || index >= scene->targetCount)
    {
        if (active != NULL)
        {
            *active = false;
        }
        return (lsCircle){{0.0, 0.0}, -1.0};
    }
    if (active != NULL)
    {
        *active = scene->targetActive[index];
    }
    return scene->targets[index];
}

const lsBox* lsScene_Box(const lsScene* scene, int index)
{
    if (index < 0 || index >= scene->boxCount)
    {
        return NULL;
    }
    return scene->boxes + index;
}

const lsPolygon* lsScene_Polygon(const lsScene* scene, int index)
{
    if (index < 0 || index >= scene->polygonCount)
    {
        return NULL;
    }
    return scene->polygons + index;
}

double lsScene_Reflectance(const lsScene* scene, lsHitKind kind, int index)
{
    switch (kind)
    {
    case ls_hitWall:
        return index >= 0 && index < scene->wallCount ? scene->wallReflectance[index] : 0.5;
    case ls_hitMover:
        return index >= 0 && index < scene->moverCount ? scene->moverReflectance[index] : 0.5;
    case ls_hitTarget:
        return index >= 0 && index < scene->targetCount ? scene->targetReflectance[index] : 0.5;
    case ls_hitBox:
        return index >= 0 && index < scene->boxCount ? scene->boxReflectance[index] : 0.5;
    case ls_hitPolygon:
        return index >= 0 && index < scene->polygonCount ? scene->polygonReflectance[index] : 0.5;
    case ls_hitVehicle:
        return index >= 0 && index < scene->vehicleCount ? scene->vehicleReflectance[index] : 0.5;
    default:
        return 0.5;
    }
}

lsTargetKind lsScene_TargetKind(const lsScene* scene, int index)
{
    if (index < 0 || index >= scene->targetCount)
    {
        return (lsTargetKind)-1;
    }
    return scene->targetKinds[index];
}

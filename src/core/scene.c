// The scene: a uniform grid over the static geometry, walked cell by cell along each ray (Amanatides and Woo,
// "A Fast Voxel Traversal Algorithm for Ray Tracing", 1987), plus brute-force tests of the moving objects.
//
// Why a grid: the bench worlds (and most lidar worlds) have short walls spread at roughly constant density, so a
// grid sized to the number of primitives gives a few candidates per cell, the walk costs a handful of cells per
// beam whatever the size of the map, and the build is two linear passes (count, fill) into flat CSR arrays.
//
// Correctness at cell boundaries: every primitive is registered in each cell that its geometry comes within
// `slop` of (slop is far larger than the rounding of the walk), so wherever the walk's rounded path strays, the
// cells it visits still hold everything the exact ray touches. The walk stops once the answer is known to lie
// before the exit of the current cell by more than the same slop (a hit found in the current cell but lying in a
// later cell does not end the walk early).
//
// Exactness: the index never computes an answer itself. Each candidate gets floating-point bounds on the fraction
// the exact routine would return (with generous margins); those that certainly cannot win are skipped, the others
// are deferred, and when the walk ends they are cast by the exact geometry routines of geometry.c, nearest bound
// first, until the rest are strictly farther. Those are the same calls on the same doubles that the brute-force
// path makes, so both paths agree bit for bit, and ties at equal fraction are broken the same way (kind, index,
// part). On the bench worlds this is about one exact cast per ray.
//
// Memory: each cell's segments and targets are stored in place (packed records), so a ray reads a few contiguous
// cache lines per cell; lsScene_CastRays prefetches the first cell of the rays ahead (see there).
#include "lidarsim/scene.h"

#include "core/dynamic.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Each cell's primitives are stored in place, so a ray touches a few contiguous cache lines per cell: wall segments
// as packed records (the same doubles the brute-force path casts, so results are bit-identical), targets as
// circle records updated in place when a target moves, boxes and polygons (rare) as indices.
typedef struct CellHeader
{
    int seg, shape, target, pad; // where the cell's lists start; the next header says where they end
} CellHeader;

// A segment's record in a cell: its two endpoints, 32 bytes, two to a cache line; its identity (the global segment
// index) sits in a parallel array that only the winners and the box query read.
typedef lsSegment CellSegment;

typedef struct CellTarget
{
    lsCircle circle;
    int index;
    int active; // 0 when the target is disabled or has moved out of this cell's reach (displaced)
} CellTarget;

enum
{
    ls_fieldSegment = 0,
    ls_fieldShape = 1,
    ls_fieldTarget = 2,
};

// The hot loop is inlined by force and prefetches memory where the compiler allows it (GCC and Clang).
#if defined(__GNUC__)
#define LS_FORCE_INLINE inline __attribute__((always_inline))
#define LS_PREFETCH(p) __builtin_prefetch(p)
#else
#define LS_FORCE_INLINE inline
#define LS_PREFETCH(p) ((void)(p))
#endif

// A target can be displaced out of the cells it is registered in (a respawn); it is then tested on every cast until
// this many more are displaced than right after the last rebuild of the target cells, when they are rebuilt.
#define LS_MAX_DISPLACED 16

#ifndef LS_CELLS_PER_PRIMITIVE
#define LS_CELLS_PER_PRIMITIVE 2.0
#endif

// Primitives far larger than the rest (a wall from -1e200 to 1e200 beside a 10 m room) would stretch the grid
// until it is useless; up to this many of them are kept out of the grid and tested on every cast instead.
#define LS_MAX_LONG_PRIMITIVES 32

struct lsScene
{
    // Walls: chains flattened into segments, chain by chain.
    int wallCount;
    int* wallFirstSegment; // wallCount + 1 entries
    double* wallReflectance;
    int segmentCount;
    lsSegment* segments;
    int* segmentChain; // per segment: its chain
    int* segmentPart;  // per segment: its index within the chain

    // Targets: circles that can move or be disabled.
    int targetCount;
    lsCircle* targets;
    bool* targetActive;
    bool* targetDisplaced;
    int* targetCells; // 4 per target: ix0, iy0, ix1, iy1 of the cells it is registered in (empty when ix0 > ix1)
    lsTargetKind* targetKinds;
    double* targetReflectance;
    int* displaced; // targets tested on every cast (capacity targetCount)
    int displacedCount;
    int displacedAfterBuild; // targets outside the grid at the last rebuild (they stay displaced)

    int boxCount;
    lsBox* boxes;
    lsAABB* boxBounds;
    double* boxReflectance;

    int polygonCount;
    lsPolygon* polygons;
    lsAABB* polygonBounds;
    double* polygonReflectance;

    int vehicleCount; // reflectance only: the bodies come with every cast
    double* vehicleReflectance;
    int moverCount;
    double* moverReflectance;

    // The grid. Cell (ix, iy) covers [x0 + ix s, x0 + (ix + 1) s] x [y0 + iy s, y0 + (iy + 1) s].
    int nx, ny;
    double x0, y0, cellSize, invCellSize;
    double slop; // metres: primitives are registered in every cell they come within slop of
    double maxSegmentLength;
    CellHeader* cells; // nx * ny + 1 headers
    CellSegment* segItems;
    int* segItemIds; // per record: the global segment index (segments[], segmentChain[], segmentPart[])
    int segItemCount;
    int* shapeItems; // box i: 2 i, polygon i: 2 i + 1
    int shapeItemCount;
    lsCircle* shapeCircles; // bounding circle of each shape code (boxCount + polygonCount of them, interleaved)
    CellTarget* targetItems;
    int targetItemCount;

    // Long primitives (see LS_MAX_LONG_PRIMITIVES): not in the grid, tested on every cast and query. Long targets
    // are simply left outside the grid's bounds, which makes them displaced (tested on every cast).
    int* longSegments; // segment indices
    int longSegmentCount;
    int* longShapes; // shape codes
    int longShapeCount;
};

const char* lsHitKindName(lsHitKind kind)
{
    static const char* const names[LS_HIT_KIND_COUNT] = {"none", "wall",    "mover",   "target",
                                                         "box",  "polygon", "vehicle", "robot"};
    return (int)kind >= 0 && (int)kind < LS_HIT_KIND_COUNT ? names[kind] : "none";
}

// ---------------------------------------------------------------------------------------------------------------------
// Registration of primitives in cells

static int* Field(CellHeader* h, int field)
{
    return field == ls_fieldSegment ? &h->seg : (field == ls_fieldShape ? &h->shape : &h->target);
}

// Registration runs twice: a counting pass (counts land in the header after each cell) and a filling pass (the
// header of each cell is the write cursor, left at the next cell's start, and shifted back afterwards).
typedef struct Registrar
{
    CellHeader* cells;
    int* segCursor; // segments: per cell, the count (counting pass) or the write position (filling pass)
    int field;
    bool fill;
    CellSegment segment;
    int segmentId;
    int shapeCode;
    CellTarget target;
    CellSegment* segItems;
    int* segItemIds;
    int* shapeItems;
    CellTarget* targetItems;
} Registrar;

static void RegisterCell(const lsScene* scene, Registrar* r, int ix, int iy)
{
    int cell = iy * scene->nx + ix;
    if (!r->fill)
    {
        *Field(r->cells + cell + 1, r->field) += 1;
        return;
    }
    int* cursor = Field(r->cells + cell, r->field);
    switch (r->field)
    {
    case ls_fieldSegment:
        r->segItemIds[*cursor] = r->segmentId;
        r->segItems[(*cursor)++] = r->segment;
        break;
    case ls_fieldShape:
        r->shapeItems[(*cursor)++] = r->shapeCode;
        break;
    default:
        r->targetItems[(*cursor)++] = r->target;
        break;
    }
}

// Registers the current segment in cells ix0..ix1 of row iy: the build's hot loop, kept free of the switch and
// working on a plain int per cell (a quarter of the headers' bytes, so the scattered updates stay in cache).
static inline void RegisterSegmentSpan(const lsScene* scene, Registrar* r, int iy, int ix0, int ix1)
{
    int* row = r->segCursor + (ptrdiff_t)iy * scene->nx;
    if (!r->fill)
    {
        for (int ix = ix0; ix <= ix1; ++ix)
        {
            row[ix] += 1;
        }
        return;
    }
    for (int ix = ix0; ix <= ix1; ++ix)
    {
        r->segItemIds[row[ix]] = r->segmentId;
        r->segItems[row[ix]++] = r->segment;
    }
}

// Turns the counts of a field (in the header after each cell) into starts; returns the total.
static int PrefixField(CellHeader* cells, int cellCount, int field)
{
    *Field(cells, field) = 0;
    for (int c = 0; c < cellCount; ++c)
    {
        *Field(cells + c + 1, field) += *Field(cells + c, field);
    }
    return *Field(cells + cellCount, field);
}

// After filling, each cursor sits at the next cell's start: shift back by one cell.
static void ShiftField(CellHeader* cells, int cellCount, int field)
{
    for (int c = cellCount; c > 0; --c)
    {
        *Field(cells + c, field) = *Field(cells + c - 1, field);
    }
    *Field(cells, field) = 0;
}

// The cell column of x, clamped to the grid (truncation is floor for the non-negative values that remain).
static inline int CellX(const lsScene* scene, double x)
{
    double f = (x - scene->x0) * scene->invCellSize;
    if (!(f >= 0.0))
    {
        return 0;
    }
    return f >= (double)(scene->nx - 1) ? scene->nx - 1 : (int)f;
}

static inline int CellY(const lsScene* scene, double y)
{
    double f = (y - scene->y0) * scene->invCellSize;
    if (!(f >= 0.0))
    {
        return 0;
    }
    return f >= (double)(scene->ny - 1) ? scene->ny - 1 : (int)f;
}

// Registers a box region (already expanded by the slop) in every cell it overlaps.
static void RegisterBounds(const lsScene* scene, Registrar* r, lsAABB box)
{
    int ix0 = CellX(scene, box.lower.x), ix1 = CellX(scene, box.upper.x);
    int iy0 = CellY(scene, box.lower.y), iy1 = CellY(scene, box.upper.y);
    for (int iy = iy0; iy <= iy1; ++iy)
    {
        for (int ix = ix0; ix <= ix1; ++ix)
        {
            RegisterCell(scene, r, ix, iy);
        }
    }
}

// Minimum and maximum of finite values (fmin and fmax are library calls that also order NaNs).
static inline double Min(double a, double b) { return a < b ? a : b; }

static inline double Max(double a, double b) { return a > b ? a : b; }

// The rows of cells a segment is registered in (its y range widened by the slop).
static inline void SegmentRows(const lsScene* scene, lsSegment seg, int* iy0, int* iy1)
{
    *iy0 = CellY(scene, Min(seg.a.y, seg.b.y) - scene->slop);
    *iy1 = CellY(scene, Max(seg.a.y, seg.b.y) + scene->slop);
}

// The cells ix0..ix1 of row iy (one of the rows iy0..iy1 of SegmentRows) that a segment is registered in: the part
// of the segment inside the row's band (widened by the slop) gives the x range. False when rounding at the ends of
// the row range leaves nothing. The box query recomputes these same spans, so they must stay deterministic.
static inline bool SegmentRowSpan(const lsScene* scene, lsSegment seg, int iy0, int iy1, int iy, int* ix0, int* ix1)
{
    double slop = scene->slop;
    lsVec2 a = seg.a, b = seg.b;
    double dy = b.y - a.y;
    double xlo, xhi;
    if (fabs(dy) <= 1e-300 || iy0 == iy1)
    {
        xlo = Min(a.x, b.x);
        xhi = Max(a.x, b.x);
    }
    else
    {
        double bandLo = scene->y0 + (double)iy * scene->cellSize - slop;
        double bandHi = scene->y0 + (double)(iy + 1) * scene->cellSize + slop;
        double t0 = (bandLo - a.y) / dy, t1 = (bandHi - a.y) / dy;
        if (t0 > t1)
        {
            double t = t0;
            t0 = t1;
            t1 = t;
        }
        t0 = Max(t0, 0.0);
        t1 = Min(t1, 1.0);
        if (t0 > t1)
        {
            return false;
        }
        double xa = a.x + t0 * (b.x - a.x), xb = a.x + t1 * (b.x - a.x);
        xlo = Max(Min(xa, xb), Min(a.x, b.x));
        xhi = Min(Max(xa, xb), Max(a.x, b.x));
    }
    // The clip above rounds by about 1e-16 of the coordinates, far less than the slop (long segments, whose clip
    // could round by more, are not in the grid).
    *ix0 = CellX(scene, xlo - slop);
    *ix1 = CellX(scene, xhi + slop);
    return true;
}

// Registers a segment in every cell that the segment, thickened by the slop, overlaps, row by row.
static void RegisterSegment(const lsScene* scene, Registrar* r, lsSegment seg)
{
    int iy0, iy1;
    SegmentRows(scene, seg, &iy0, &iy1);
    for (int iy = iy0; iy <= iy1; ++iy)
    {
        int ix0, ix1;
        if (SegmentRowSpan(scene, seg, iy0, iy1, iy, &ix0, &ix1))
        {
            RegisterSegmentSpan(scene, r, iy, ix0, ix1);
        }
    }
}

static lsAABB Expand(lsAABB box, double d)
{
    return (lsAABB){{box.lower.x - d, box.lower.y - d}, {box.upper.x + d, box.upper.y + d}};
}

// Bounds of a box (code 2 i) or polygon (code 2 i + 1).
static inline lsAABB ShapeBounds(const lsScene* scene, int code)
{
    return (code & 1) == 0 ? scene->boxBounds[code >> 1] : scene->polygonBounds[code >> 1];
}

// The cell range a target is registered in, or an empty range when it does not lie inside the grid (then it is
// tested on every cast).
static void TargetCellRange(const lsScene* scene, lsCircle c, int range[4])
{
    lsAABB box = Expand(lsCircle_Bounds(&c), scene->slop);
    double gx1 = scene->x0 + (double)scene->nx * scene->cellSize;
    double gy1 = scene->y0 + (double)scene->ny * scene->cellSize;
    if (scene->nx == 0 ||
        !(box.lower.x >= scene->x0 && box.lower.y >= scene->y0 && box.upper.x <= gx1 && box.upper.y <= gy1))
    {
        range[0] = 1, range[1] = 1, range[2] = 0, range[3] = 0;
        return;
    }
    range[0] = CellX(scene, box.lower.x);
    range[1] = CellY(scene, box.lower.y);
    range[2] = CellX(scene, box.upper.x);
    range[3] = CellY(scene, box.upper.y);
}

// (Re)builds the target records from the targets' current places; targets outside the grid become displaced.
static void BuildTargetCells(lsScene* scene)
{
    int cellCount = scene->nx * scene->ny;
    lsFree(scene->targetItems, (size_t)scene->targetItemCount * sizeof(CellTarget));
    scene->targetItems = NULL;
    scene->targetItemCount = 0;
    scene->displacedCount = 0;
    CellHeader* cells = scene->cells;
    for (int c = 0; c <= cellCount; ++c)
    {
        cells[c].target = 0;
    }
    Registrar r;
    memset(&r, 0, sizeof r);
    r.cells = cells;
    r.field = ls_fieldTarget;
    for (int i = 0; i < scene->targetCount; ++i)
    {
        int* range = scene->targetCells + (ptrdiff_t)4 * i;
        TargetCellRange(scene, scene->targets[i], range);
        scene->targetDisplaced[i] = range[0] > range[2];
        if (scene->targetDisplaced[i])
        {
            scene->displaced[scene->displacedCount++] = i;
        }
    }
    for (int pass = 0; pass < 2 && cellCount > 0; ++pass)
    {
        for (int i = 0; i < scene->targetCount; ++i)
        {
            const int* range = scene->targetCells + (ptrdiff_t)4 * i;
            r.target = (CellTarget){scene->targets[i], i, scene->targetActive[i] ? 1 : 0};
            for (int iy = range[1]; iy <= range[3]; ++iy)
            {
                for (int ix = range[0]; ix <= range[2]; ++ix)
                {
                    RegisterCell(scene, &r, ix, iy);
                }
            }
        }
        if (pass == 0)
        {
            scene->targetItemCount = PrefixField(cells, cellCount, ls_fieldTarget);
            scene->targetItems = lsAlloc((size_t)scene->targetItemCount * sizeof(CellTarget));
            r.targetItems = scene->targetItems;
            r.fill = true;
        }
    }
    if (cellCount > 0)
    {
        ShiftField(cells, cellCount, ls_fieldTarget);
    }
    scene->displacedAfterBuild = scene->displacedCount;
}

// ---------------------------------------------------------------------------------------------------------------------
// Grid layout

static int CompareDoubles(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

// The size of a primitive for telling long ones apart: the larger side of its bounds (infinite when that overflows).
static double SpanOf(lsAABB b) { return Max(b.upper.x - b.lower.x, b.upper.y - b.lower.y); }

// Primitives are numbered segments, then boxes, then polygons, then targets.
static lsAABB PrimitiveBounds(const lsScene* scene, int k)
{
    if (k < scene->segmentCount)
    {
        return lsAABB_OfSegment(scene->segments[k].a, scene->segments[k].b);
    }
    k -= scene->segmentCount;
    if (k < scene->boxCount)
    {
        return scene->boxBounds[k];
    }
    k -= scene->boxCount;
    if (k < scene->polygonCount)
    {
        return scene->polygonBounds[k];
    }
    return lsCircle_Bounds(scene->targets + (k - scene->polygonCount));
}

// Half the width and height of a box, computed without overflow for any finite corners.
static lsVec2 HalfSize(lsAABB b) { return lsV(0.5 * b.upper.x - 0.5 * b.lower.x, 0.5 * b.upper.y - 0.5 * b.lower.y); }

// Picks the long primitives (kept out of the grid), the grid's bounds (everything else) and the cell size, and
// sets slop, nx, ny, x0, y0. A primitive is long when it is more than 64 times the median size and reaches beyond
// the others' bounds by more than a quarter of their extent; when more than LS_MAX_LONG_PRIMITIVES are, none is
// (the world is really that large, and the grid must cover it). Every size is computed without overflow.
static void ChooseGrid(lsScene* scene)
{
    int count = scene->segmentCount + scene->boxCount + scene->polygonCount + scene->targetCount;
    if (count == 0)
    {
        return;
    }
    // The median size, from an evenly spaced sample (the exact median is not needed).
    double sample[1024] = {0};
    int sampleCount = count < 1024 ? count : 1024;
    for (int k = 0; k < sampleCount; ++k)
    {
        sample[k] = SpanOf(PrimitiveBounds(scene, (int)((long long)k * count / sampleCount)));
    }
    qsort(sample, (size_t)sampleCount, sizeof(double), CompareDoubles);
    double threshold = 64.0 * sample[sampleCount / 2];

    lsAABB core = {{DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX}};
    for (int k = 0; k < count; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, k);
        core = SpanOf(b) <= threshold ? lsAABB_Union(core, b) : core;
    }
    lsVec2 half = HalfSize(core);
    double reach = 0.25 * Max(half.x, half.y);
    lsAABB near = Expand(core, reach);
    int longCount = 0;
    bool* isLong = lsAllocZero((size_t)count, sizeof(bool));
    for (int k = 0; k < count && core.lower.x <= core.upper.x; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, k);
        bool inside = b.lower.x >= near.lower.x && b.lower.y >= near.lower.y && b.upper.x <= near.upper.x &&
                      b.upper.y <= near.upper.y;
        isLong[k] = !(SpanOf(b) <= threshold) && !inside;
        longCount += isLong[k] ? 1 : 0;
    }
    if (longCount > LS_MAX_LONG_PRIMITIVES)
    {
        memset(isLong, 0, (size_t)count * sizeof(bool));
        longCount = 0;
    }
    lsAABB bounds = {{DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX}};
    double sumLength = 0.0;
    int gridSegments = 0;
    for (int k = 0; k < count; ++k)
    {
        if (isLong[k])
        {
            continue;
        }
        lsAABB b = PrimitiveBounds(scene, k);
        bounds = lsAABB_Union(bounds, b);
        if (k < scene->segmentCount)
        {
            lsVec2 e = lsSub(scene->segments[k].b, scene->segments[k].a);
            double m = Max(fabs(e.x), fabs(e.y));
            // Only sizes the cells and bounds rounding: no hypot needed, but no overflow of the squares either.
            double length = m < 1e150 ? sqrt(e.x * e.x + e.y * e.y) : 1.5 * m;
            sumLength += length;
            gridSegments += 1;
            scene->maxSegmentLength = Max(scene->maxSegmentLength, length);
        }
    }
    int longSegments = 0, longShapes = 0;
    for (int k = 0; k < scene->segmentCount + scene->boxCount + scene->polygonCount; ++k)
    {
        longSegments += k < scene->segmentCount && isLong[k] ? 1 : 0;
        longShapes += k >= scene->segmentCount && isLong[k] ? 1 : 0;
    }
    scene->longSegments = lsAlloc((size_t)longSegments * sizeof(int));
    scene->longShapes = lsAlloc((size_t)longShapes * sizeof(int));
    for (int k = 0; k < scene->segmentCount + scene->boxCount + scene->polygonCount; ++k)
    {
        if (k < scene->segmentCount && isLong[k])
        {
            scene->longSegments[scene->longSegmentCount++] = k;
        }
        else if (isLong[k])
        {
            int i = k - scene->segmentCount;
            scene->longShapes[scene->longShapeCount++] = i < scene->boxCount ? 2 * i : 2 * (i - scene->boxCount) + 1;
        }
    }
    lsFree(isLong, (size_t)count * sizeof(bool));

    // About two cells per primitive keeps a few candidates per cell; cells are not much shorter than the average
    // segment, or every wall would be registered in many cells. Half sizes and square roots of each side keep
    // every product finite.
    half = HalfSize(bounds);
    double halfExtent = Max(Max(half.x, half.y), 5e-4);
    double rootArea = sqrt(Max(half.x, halfExtent * 1e-3)) * sqrt(Max(half.y, halfExtent * 1e-3)); // sqrt(area) / 2
    int gridCount = count - longCount;
    double cellSize = 2.0 * rootArea / sqrt(LS_CELLS_PER_PRIMITIVE * (double)gridCount);
    if (gridSegments > 0)
    {
        cellSize = Max(cellSize, 0.5 * (sumLength / (double)gridSegments));
    }
    // At most 2^22 cells, and at least 2e-6 of the extent (huge worlds with a few walls stay coarse).
    cellSize = Max(cellSize, rootArea / 1024.0);
    cellSize = Max(cellSize, halfExtent * 2e-6);
    double maxCoord =
        Max(Max(fabs(bounds.lower.x), fabs(bounds.upper.x)), Max(fabs(bounds.lower.y), fabs(bounds.upper.y)));
    // The slop dwarfs the rounding of the walk (about 1e-16 of the coordinates) yet is too small to matter for the
    // number of candidates.
    scene->slop = 1e-6 * cellSize + 1e-10 * maxCoord;
    // One cell of margin on each side gives moved targets room and keeps slop-expanded boxes inside. The counts
    // are bounded by the rules above (a few thousand per side); the clamp only keeps the conversion defined.
    scene->cellSize = cellSize;
    scene->invCellSize = 1.0 / cellSize;
    scene->x0 = bounds.lower.x - cellSize;
    scene->y0 = bounds.lower.y - cellSize;
    double cellsX = ceil(half.x / (0.5 * cellSize)) + 2.0, cellsY = ceil(half.y / (0.5 * cellSize)) + 2.0;
    scene->nx = (int)Min(Max(cellsX, 2.0), 4194304.0);
    scene->ny = (int)Min(Max(cellsY, 2.0), 4194304.0);
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

lsScene* lsCreateScene(const lsWorld* world)
{
    LS_ASSERT(world != NULL);
    lsScene* scene = lsAllocZero(1, sizeof(lsScene));

    // Walls, flattened in order: chain by chain, point i -> i + 1, a closed chain's closing segment last.
    scene->wallCount = world->wallCount;
    scene->wallFirstSegment = lsAlloc(((size_t)world->wallCount + 1) * sizeof(int));
    int segmentCount = 0;
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        LS_ASSERT(wall->pointCount >= 2);
        scene->wallFirstSegment[w] = segmentCount;
        segmentCount += wall->closed ? wall->pointCount : wall->pointCount - 1;
    }
    scene->wallFirstSegment[world->wallCount] = segmentCount;
    scene->segmentCount = segmentCount;
    scene->segments = lsAlloc((size_t)segmentCount * sizeof(lsSegment));
    scene->segmentChain = lsAlloc((size_t)segmentCount * sizeof(int));
    scene->segmentPart = lsAlloc((size_t)segmentCount * sizeof(int));
    for (int w = 0; w < world->wallCount; ++w)
    {
        const lsWallDef* wall = world->walls + w;
        int first = scene->wallFirstSegment[w];
        int parts = scene->wallFirstSegment[w + 1] - first;
        for (int k = 0; k < parts; ++k)
        {
            lsVec2 a = wall->points[k], b = wall->points[(k + 1) % wall->pointCount];
            LS_ASSERT(lsIsValidVec2(a) && lsIsValidVec2(b));
            scene->segments[first + k] = (lsSegment){a, b};
            scene->segmentChain[first + k] = w;
            scene->segmentPart[first + k] = k;
        }
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
        LS_ASSERT(lsIsValidVec2(t->center) && t->radius >= 0.0);
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
        LS_ASSERT(ok); // the world guarantees strictly convex polygons
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

    ChooseGrid(scene);

    // Bounding circles of the boxes and polygons (around their bounds, a little inflated) for the deferral bounds.
    int shapeCodes = 2 * (world->boxCount > world->polygonCount ? world->boxCount : world->polygonCount);
    scene->shapeCircles = lsAllocZero((size_t)shapeCodes, sizeof(lsCircle));
    for (int code = 0; code < shapeCodes; ++code)
    {
        int i = code >> 1;
        if ((code & 1) == 0 ? i < world->boxCount : i < world->polygonCount)
        {
            lsAABB b = (code & 1) == 0 ? scene->boxBounds[i] : scene->polygonBounds[i];
            lsVec2 c = lsScale(0.5, lsAdd(b.lower, b.upper));
            double r = 0.5 * lsDistance(b.lower, b.upper);
            scene->shapeCircles[code] = (lsCircle){c, r + 1e-7 * (r + fabs(c.x) + fabs(c.y))};
        }
    }

    int cellCount = scene->nx * scene->ny;
    scene->cells = lsAllocZero((size_t)cellCount + 1, sizeof(CellHeader));
    if (cellCount > 0)
    {
        Registrar r;
        memset(&r, 0, sizeof r);
        r.cells = scene->cells;
        r.segCursor = lsAllocZero((size_t)cellCount, sizeof(int));
        // Long primitives stay out of the grid (ChooseGrid).
        bool* isLong = lsAllocZero((size_t)segmentCount + 2 * (size_t)shapeCodes, sizeof(bool));
        bool* shapeLong = isLong + segmentCount;
        for (int k = 0; k < scene->longSegmentCount; ++k)
        {
            isLong[scene->longSegments[k]] = true;
        }
        for (int k = 0; k < scene->longShapeCount; ++k)
        {
            shapeLong[scene->longShapes[k]] = true;
        }
        // Register the segments in the order of the cell of their midpoint (a counting sort), so that the scattered
        // updates of both passes land near each other: files list walls in any order.
        // The copies are scattered (read in file order, written to their sorted places) rather than gathered: the
        // reads stay sequential and the scattered writes do not stall the loop as scattered reads would.
        int gridSegments = segmentCount - scene->longSegmentCount;
        int* midCell = lsAlloc((size_t)segmentCount * sizeof(int));
        for (int i = 0; i < segmentCount; ++i)
        {
            lsVec2 m = lsScale(0.5, lsAdd(scene->segments[i].a, scene->segments[i].b));
            midCell[i] = CellY(scene, m.y) * scene->nx + CellX(scene, m.x);
            r.segCursor[midCell[i]] += isLong[i] ? 0 : 1;
        }
        for (int c = 0, total = 0; c < cellCount; ++c)
        {
            int count = r.segCursor[c];
            r.segCursor[c] = total;
            total += count;
        }
        lsSegment* sorted = lsAlloc((size_t)gridSegments * sizeof(lsSegment));
        int* sortedIds = lsAlloc((size_t)gridSegments * sizeof(int));
        for (int i = 0; i < segmentCount; ++i)
        {
            if (!isLong[i])
            {
                int k = r.segCursor[midCell[i]]++;
                sorted[k] = scene->segments[i];
                sortedIds[k] = i;
            }
        }
        lsFree(midCell, (size_t)segmentCount * sizeof(int));
        memset(r.segCursor, 0, (size_t)cellCount * sizeof(int));
        for (int pass = 0; pass < 2; ++pass)
        {
            r.field = ls_fieldSegment;
            for (int k = 0; k < gridSegments; ++k)
            {
                r.segment = sorted[k];
                r.segmentId = sortedIds[k];
                RegisterSegment(scene, &r, sorted[k]);
            }
            r.field = ls_fieldShape;
            for (int code = 0; code < shapeCodes; ++code)
            {
                int i = code >> 1;
                bool exists = (code & 1) == 0 ? i < world->boxCount : i < world->polygonCount;
                if (exists && !shapeLong[code])
                {
                    r.shapeCode = code;
                    RegisterBounds(scene, &r, Expand(ShapeBounds(scene, code), scene->slop));
                }
            }
            if (pass == 0)
            {
                int total = 0;
                for (int c = 0; c < cellCount; ++c)
                {
                    int count = r.segCursor[c];
                    r.segCursor[c] = total;
                    scene->cells[c].seg = total;
                    total += count;
                }
                scene->cells[cellCount].seg = total;
                scene->segItemCount = total;
                scene->shapeItemCount = PrefixField(scene->cells, cellCount, ls_fieldShape);
                scene->segItems = lsAlloc((size_t)scene->segItemCount * sizeof(CellSegment));
                scene->segItemIds = lsAlloc((size_t)scene->segItemCount * sizeof(int));
                r.segItemIds = scene->segItemIds;
                scene->shapeItems = lsAlloc((size_t)scene->shapeItemCount * sizeof(int));
                r.segItems = scene->segItems;
                r.shapeItems = scene->shapeItems;
                r.fill = true;
            }
        }
        ShiftField(scene->cells, cellCount, ls_fieldShape);
        lsFree(r.segCursor, (size_t)cellCount * sizeof(int));
        lsFree(sorted, (size_t)gridSegments * sizeof(lsSegment));
        lsFree(sortedIds, (size_t)gridSegments * sizeof(int));
        lsFree(isLong, ((size_t)segmentCount + 2 * (size_t)shapeCodes) * sizeof(bool));
    }
    BuildTargetCells(scene);
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
    lsFree(scene->cells, cells * sizeof(CellHeader));
    lsFree(scene->segItems, (size_t)scene->segItemCount * sizeof(CellSegment));
    lsFree(scene->segItemIds, (size_t)scene->segItemCount * sizeof(int));
    lsFree(scene->shapeItems, (size_t)scene->shapeItemCount * sizeof(int));
    lsFree(scene->shapeCircles, 2 * (b > p ? b : p) * sizeof(lsCircle));
    lsFree(scene->targetItems, (size_t)scene->targetItemCount * sizeof(CellTarget));
    lsFree(scene->longSegments, (size_t)scene->longSegmentCount * sizeof(int));
    lsFree(scene->longShapes, (size_t)scene->longShapeCount * sizeof(int));
    lsFree(scene, sizeof(lsScene));
}

// Rewrites the records of target `index` in the cells it is registered in.
static void UpdateTargetRecords(lsScene* scene, int index, lsCircle circle, int active)
{
    const int* reg = scene->targetCells + (ptrdiff_t)4 * index;
    for (int iy = reg[1]; iy <= reg[3]; ++iy)
    {
        for (int ix = reg[0]; ix <= reg[2]; ++ix)
        {
            int cell = iy * scene->nx + ix;
            for (int k = scene->cells[cell].target; k < scene->cells[cell + 1].target; ++k)
            {
                if (scene->targetItems[k].index == index)
                {
                    scene->targetItems[k].circle = circle;
                    scene->targetItems[k].active = active;
                }
            }
        }
    }
}

void lsScene_SetTarget(lsScene* scene, int index, lsVec2 center, bool active)
{
    LS_ASSERT(scene != NULL && index >= 0 && index < scene->targetCount);
    LS_ASSERT(lsIsValidVec2(center));
    lsCircle c = {center, scene->targets[index].radius};
    scene->targets[index] = c;
    scene->targetActive[index] = active;
    if (scene->targetDisplaced[index])
    {
        return; // already tested on every cast
    }
    // Still inside the cells it is registered in: update its records in place.
    int range[4];
    TargetCellRange(scene, c, range);
    const int* reg = scene->targetCells + (ptrdiff_t)4 * index;
    if (range[0] <= range[2] && range[0] >= reg[0] && range[1] >= reg[1] && range[2] <= reg[2] && range[3] <= reg[3])
    {
        UpdateTargetRecords(scene, index, c, active ? 1 : 0);
        return;
    }
    UpdateTargetRecords(scene, index, c, 0);
    scene->targetDisplaced[index] = true;
    scene->displaced[scene->displacedCount++] = index;
    if (scene->displacedCount > scene->displacedAfterBuild + LS_MAX_DISPLACED)
    {
        BuildTargetCells(scene);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts

static lsRayHit NoHit(void) { return (lsRayHit){false, 0.0, {0.0, 0.0}, {0.0, 0.0}, ls_hitNone, -1, -1}; }

// True when a hit (fraction, kind, index, part) beats best: closer, or as close and first in (kind, index, part).
static inline bool Beats(const lsCastOutput* out, lsHitKind kind, int index, int part, const lsRayHit* best)
{
    if (!out->hit)
    {
        return false;
    }
    if (!best->hit || out->fraction < best->fraction)
    {
        return true;
    }
    if (out->fraction > best->fraction)
    {
        return false;
    }
    if (kind != best->kind)
    {
        return kind < best->kind;
    }
    if (index != best->index)
    {
        return index < best->index;
    }
    return part < best->part;
}

static inline void Take(lsRayHit* best, const lsCastOutput* out, lsHitKind kind, int index, int part)
{
    best->hit = true;
    best->fraction = out->fraction;
    best->point = out->point;
    best->normal = out->normal;
    best->kind = kind;
    best->index = index;
    best->part = part;
}

static inline void TrySegment(const lsSegment* seg, int chain, int part, const lsRayInput* input, lsRayHit* best)
{
    lsCastOutput out = lsRayCastSegment(seg, input);
    if (Beats(&out, ls_hitWall, chain, part, best))
    {
        Take(best, &out, ls_hitWall, chain, part);
    }
}

static inline void TryTarget(const lsCircle* circle, int i, const lsRayInput* input, lsRayHit* best)
{
    lsCastOutput out = lsRayCastCircle(circle, input);
    if (Beats(&out, ls_hitTarget, i, 0, best))
    {
        Take(best, &out, ls_hitTarget, i, 0);
    }
}

static inline void TryShape(const lsScene* scene, int code, const lsRayInput* input, lsRayHit* best)
{
    int i = code >> 1;
    if ((code & 1) == 0)
    {
        lsCastOutput out = lsRayCastBox(scene->boxes + i, input);
        if (Beats(&out, ls_hitBox, i, 0, best))
        {
            Take(best, &out, ls_hitBox, i, 0);
        }
    }
    else
    {
        lsCastOutput out = lsRayCastPolygon(scene->polygons + i, input);
        if (Beats(&out, ls_hitPolygon, i, 0, best))
        {
            Take(best, &out, ls_hitPolygon, i, 0);
        }
    }
}

bool lsRayHit_Offer(lsRayHit* best, const lsCastOutput* out, lsHitKind kind, int index, int part)
{
    if (!Beats(out, kind, index, part, best))
    {
        return false;
    }
    Take(best, out, kind, index, part);
    return true;
}

// The moving objects go through their own broad phase (dynamic.c); brute forces every one of them.
static void CastDynamic(const lsDynamicObjects* dyn, const lsRayInput* input, lsRayHit* best, bool brute)
{
    if (dyn == NULL)
    {
        return;
    }
    if (brute && dyn->index != NULL)
    {
        lsDynamicObjects all = *dyn;
        all.index = NULL;
        lsDynamicObjects_CastRay(&all, input, best, NULL);
        return;
    }
    lsDynamicObjects_CastRay(dyn, input, best, NULL);
}

static bool ValidInput(const lsRayInput* input)
{
    return !(input->maxFraction < 0.0) && (input->direction.x != 0.0 || input->direction.y != 0.0);
}

lsRayHit lsScene_CastRayBrute(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input)
{
    LS_ASSERT(scene != NULL && input != NULL);
    LS_ASSERT(lsIsValidVec2(input->origin) && lsIsValidVec2(input->direction) && !isnan(input->maxFraction));
    lsRayHit best = NoHit();
    if (!ValidInput(input))
    {
        return best;
    }
    for (int s = 0; s < scene->segmentCount; ++s)
    {
        TrySegment(scene->segments + s, scene->segmentChain[s], scene->segmentPart[s], input, &best);
    }
    for (int i = 0; i < scene->targetCount; ++i)
    {
        if (scene->targetActive[i])
        {
            TryTarget(scene->targets + i, i, input, &best);
        }
    }
    for (int i = 0; i < scene->boxCount; ++i)
    {
        TryShape(scene, 2 * i, input, &best);
    }
    for (int i = 0; i < scene->polygonCount; ++i)
    {
        TryShape(scene, 2 * i + 1, input, &best);
    }
    CastDynamic(dyn, input, &best, true);
    return best;
}

// Floating-point bounds on what the exact cast of a primitive will return, used to skip exact casts that cannot win
// and to defer the rest until the walk knows which ones can. Each bound function returns false when the primitive
// certainly cannot beat `limit` (a miss, or a hit strictly beyond limit); otherwise it writes tLo, a lower bound of
// the fraction the exact cast would return, and tHi, an upper bound when the hit is certain (else HUGE_VAL). The
// margins (1e-14 on signs, 1e-9 to 1e-7 relative on fractions) bound the rounding of these few operations, and that
// of the exact routines' fractions, many times over; anything closer to a decision goes to the exact cast.

// sideError bounds the rounding of cross(d, p - o) for every endpoint p the walk can meet (see Cast).
static LS_FORCE_INLINE bool BoundSegment(const lsSegment* seg, lsVec2 o, lsVec2 d, double dd, double limit,
                                         double maxFraction, double sideError, double* tLo, double* tHi)
{
    double ax = seg->a.x - o.x, ay = seg->a.y - o.y, bx = seg->b.x - o.x, by = seg->b.y - o.y;
    double ca = d.x * ay - d.y * ax, cb = d.x * by - d.y * bx;
    bool aLeft = ca > sideError, aRight = ca<-sideError, bLeft = cb> sideError, bRight = cb < -sideError;
    if ((aLeft && bLeft) || (aRight && bRight))
    {
        return false; // both endpoints strictly on one side: the exact side tests agree, a miss
    }
    double ex = seg->b.x - seg->a.x, ey = seg->b.y - seg->a.y;
    double d1 = d.x * ey, d2 = d.y * ex;
    double den = d1 - d2, sDen = fabs(d1) + fabs(d2);
    if (fabs(den) > 1e-6 * sDen)
    {
        // The crossing t = cross(a - o, e) / cross(d, e); den has lost at most 20 bits to cancellation. Decide
        // behind / beyond without dividing (most candidates end here), then divide for the survivors.
        double n1 = ax * ey, n2 = ay * ex;
        double num = den > 0.0 ? n1 - n2 : n2 - n1;
        double absDen = fabs(den);
        double numError = 1e-12 * (fabs(n1) + fabs(n2));
        if (num < -numError || num > limit * absDen * (1.0 + 1e-9) + numError)
        {
            return false;
        }
        double t = num / absDen;
        double err = 1e-9 * fabs(t) + numError / absDen;
        *tLo = t - err;
        // Endpoints strictly on opposite sides and the crossing surely within [0, maxFraction]: a certain hit.
        bool straddles = (aLeft && bRight) || (aRight && bLeft);
        *tHi = straddles && t - err >= 0.0 && t + err <= maxFraction ? t + err : HUGE_VAL;
        return true;
    }
    if (den != 0.0)
    {
        // Nearly parallel but not quite: the exact routine divides by this poorly known den, so its fraction is
        // not bounded well here. Never skip such a segment (this needs the ray within 1e-6 rad of the segment).
        *tLo = -HUGE_VAL;
        *tHi = HUGE_VAL;
        return true;
    }
    // Parallel in floating point: the exact routine takes the collinear or the extended-precision path, both of
    // which return a point of the segment, and every point of the segment projects between the endpoints'.
    double pa = d.x * ax + d.y * ay, pb = d.x * bx + d.y * by;
    double lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    double e = 1e-12 * (fabs(d.x) * (fabs(ax) + fabs(bx)) + fabs(d.y) * (fabs(ay) + fabs(by)));
    if (hi < -e || lo > limit * dd * (1.0 + 1e-9) + e)
    {
        return false;
    }
    double t = (lo - e) / dd;
    *tLo = t - 1e-9 * fabs(t);
    *tHi = HUGE_VAL;
    return true;
}

// The same for a solid disc. The near root t = (p - sqrt(r^2 |d|^2 - cross^2)) / |d|^2 is at least (p - r |d|) / |d|^2.
static LS_FORCE_INLINE bool BoundCircle(const lsCircle* c, lsVec2 o, lsVec2 d, double dd, double limit,
                                        double maxFraction, double* tLo, double* tHi)
{
    double cx = c->center.x - o.x, cy = c->center.y - o.y;
    double reach = c->radius * sqrt(dd);
    double cr = d.x * cy - d.y * cx;
    double p = d.x * cx + d.y * cy;
    double e = 1e-9 * ((fabs(d.x) + fabs(d.y)) * (fabs(cx) + fabs(cy)) + reach);
    if (fabs(cr) - reach > e || p + reach < -e || p - reach > limit * dd * (1.0 + 1e-9) + e)
    {
        return false;
    }
    double t = (p - reach - e) / dd;
    *tLo = t - 1e-9 * fabs(t);
    *tHi = HUGE_VAL;
    // Origin clearly outside, line clearly through the disc, moving towards it: a certain hit at the near root.
    double rr = c->radius * c->radius;
    double disc = reach * reach - cr * cr;
    if (p > 0.0 && cx * cx + cy * cy > rr * (1.0 + 1e-6) && disc > 1e-6 * reach * reach)
    {
        double tNear = (p - sqrt(disc)) / dd;
        double err = 1e-7 * (fabs(tNear) + (reach + p) / dd);
        if (tNear - err >= 0.0 && tNear + err <= maxFraction)
        {
            *tHi = tNear + err;
        }
    }
    return true;
}

// A primitive whose exact cast is deferred until the walk knows whether it can win.
typedef struct Pending
{
    double tLo;
    int field;    // ls_fieldSegment, ls_fieldShape or ls_fieldTarget
    int item;     // index into segItems, shapeItems or targetItems
    int id0, id1; // identity (segment index, shape code, target index), to skip duplicates from several cells
} Pending;

#define LS_PENDING_CAPACITY 32

// Casts pending primitives exactly, nearest lower bound first, until the rest are strictly farther than the best.
static int Resolve(const lsScene* scene, const lsRayInput* input, Pending* pending, int count, lsRayHit* best,
                   lsCastStats* stats)
{
    while (count > 0)
    {
        int m = 0;
        for (int k = 1; k < count; ++k)
        {
            m = pending[k].tLo < pending[m].tLo ? k : m;
        }
        Pending p = pending[m];
        pending[m] = pending[--count];
        if (best->hit && p.tLo > best->fraction)
        {
            break;
        }
        if (stats != NULL)
        {
            stats->exactTests += 1;
        }
        if (p.field == ls_fieldSegment)
        {
            int id = p.id0;
            TrySegment(scene->segItems + p.item, scene->segmentChain[id], scene->segmentPart[id], input, best);
        }
        else if (p.field == ls_fieldTarget)
        {
            const CellTarget* ct = scene->targetItems + p.item;
            TryTarget(&ct->circle, ct->index, input, best);
        }
        else
        {
            TryShape(scene, scene->shapeItems[p.item], input, best);
        }
    }
    return 0;
}

// Adds a primitive to the pending list unless it is already there (a primitive registered in several cells).
static inline void Defer(const lsScene* scene, const lsRayInput* input, Pending* pending, int* count, Pending p,
                         lsRayHit* best, lsCastStats* stats)
{
    for (int k = 0; k < *count; ++k)
    {
        if (pending[k].field == p.field && pending[k].id0 == p.id0 && pending[k].id1 == p.id1)
        {
            return;
        }
    }
    if (!(p.tLo >= -HUGE_VAL))
    {
        p.tLo = -HUGE_VAL; // a bound lost to overflow (NaN) must sort first, never be dropped
    }
    if (*count == LS_PENDING_CAPACITY)
    {
        *count = Resolve(scene, input, pending, *count, best, stats);
    }
    pending[(*count)++] = p;
}

// The walk. stats may be NULL; the two public entry points inline this with and without counting.
static LS_FORCE_INLINE lsRayHit Cast(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                                     lsCastStats* stats)
{
    LS_ASSERT(scene != NULL && input != NULL);
    LS_ASSERT(lsIsValidVec2(input->origin) && lsIsValidVec2(input->direction) && !isnan(input->maxFraction));
    lsRayHit best = NoHit();
    if (stats != NULL)
    {
        stats->rays += 1;
    }
    if (!ValidInput(input))
    {
        return best;
    }
    lsVec2 o = input->origin, d = input->direction;
    double maxFraction = input->maxFraction;
    double dd = d.x * d.x + d.y * d.y;

    // The moving objects and displaced targets first: an early best shortens the walk.
    CastDynamic(dyn, input, &best, false);
    for (int k = 0; k < scene->displacedCount; ++k)
    {
        int i = scene->displaced[k];
        double tLo, tHi, limit = best.hit && best.fraction < maxFraction ? best.fraction : maxFraction;
        if (scene->targetActive[i] && BoundCircle(scene->targets + i, o, d, dd, limit, maxFraction, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TryTarget(scene->targets + i, i, input, &best);
        }
    }
    // Long primitives (outside the grid), each bounded with the rounding of its own far endpoints.
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        int id = scene->longSegments[k];
        const lsSegment* seg = scene->segments + id;
        double tLo, tHi, limit = best.hit && best.fraction < maxFraction ? best.fraction : maxFraction;
        double far = Max(fabs(seg->a.x - o.x) + fabs(seg->a.y - o.y), fabs(seg->b.x - o.x) + fabs(seg->b.y - o.y));
        if (BoundSegment(seg, o, d, dd, limit, maxFraction, 1e-14 * (fabs(d.x) + fabs(d.y)) * far, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TrySegment(seg, scene->segmentChain[id], scene->segmentPart[id], input, &best);
        }
    }
    for (int k = 0; k < scene->longShapeCount; ++k)
    {
        int code = scene->longShapes[k];
        double tLo, tHi, limit = best.hit && best.fraction < maxFraction ? best.fraction : maxFraction;
        if (BoundCircle(scene->shapeCircles + code, o, d, dd, limit, maxFraction, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TryShape(scene, code, input, &best);
        }
    }
    if (scene->nx == 0)
    {
        return best;
    }

    // Clip the ray to the grid (slab test); the grid has a margin of one cell beyond all static geometry.
    double s = scene->cellSize;
    double gx0 = scene->x0, gy0 = scene->y0;
    double gx1 = gx0 + (double)scene->nx * s, gy1 = gy0 + (double)scene->ny * s;
    double tEnter = 0.0, tLeave = maxFraction;
    double invDx = d.x != 0.0 ? 1.0 / d.x : 0.0, invDy = d.y != 0.0 ? 1.0 / d.y : 0.0;
    if (d.x != 0.0)
    {
        double t0 = (gx0 - o.x) * invDx, t1 = (gx1 - o.x) * invDx;
        double tNear = t0 < t1 ? t0 : t1, tFar = t0 < t1 ? t1 : t0;
        tEnter = tNear > tEnter ? tNear : tEnter;
        tLeave = tFar < tLeave ? tFar : tLeave;
    }
    else if (o.x < gx0 || o.x > gx1)
    {
        return best;
    }
    if (d.y != 0.0)
    {
        double t0 = (gy0 - o.y) * invDy, t1 = (gy1 - o.y) * invDy;
        double tNear = t0 < t1 ? t0 : t1, tFar = t0 < t1 ? t1 : t0;
        tEnter = tNear > tEnter ? tNear : tEnter;
        tLeave = tFar < tLeave ? tFar : tLeave;
    }
    else if (o.y < gy0 || o.y > gy1)
    {
        return best;
    }
    if (tEnter > tLeave)
    {
        return best;
    }

    int ix = CellX(scene, o.x + tEnter * d.x), iy = CellY(scene, o.y + tEnter * d.y);
    int stepX = d.x > 0.0 ? 1 : (d.x < 0.0 ? -1 : 0);
    int stepY = d.y > 0.0 ? 1 : (d.y < 0.0 ? -1 : 0);
    // Crossing fractions of the next vertical and horizontal cell boundaries, recomputed from the boundary
    // coordinate at every step (no accumulated drift).
    double tMaxX = stepX != 0 ? (gx0 + (double)(ix + (stepX > 0)) * s - o.x) * invDx : HUGE_VAL;
    double tMaxY = stepY != 0 ? (gy0 + (double)(iy + (stepY > 0)) * s - o.y) * invDy : HUGE_VAL;
    // How far (in fraction) a hit must lie before a cell's exit for the walk to stop there: the slop in metres
    // over the ray's speed, with room to spare.
    double margin = 4.0 * scene->slop * (fabs(d.x) > fabs(d.y) ? fabs(invDx) : fabs(invDy));
    // Every segment met lies in a visited cell, within tLeave |d| plus two cell diagonals of the origin, so its
    // endpoints are within R of the origin in each coordinate; cross(d, p - o) then rounds by less than
    // 3 eps (|dx| + |dy|) R, far below sideError.
    double speed = fabs(d.x) + fabs(d.y); // >= |d|
    double reach = tLeave * speed + 4.0 * s + scene->maxSegmentLength + scene->slop;
    double sideError = 1e-14 * speed * reach;
    const CellHeader* cells = scene->cells;
    // known: a fraction that the final answer is certainly at most (the best exact hit, or a certain pending hit).
    double known = best.hit ? best.fraction : HUGE_VAL;
    double limit = known < maxFraction ? known : maxFraction;
    Pending pending[LS_PENDING_CAPACITY];
    int pendingCount = 0;
    bool hasTargets = scene->targetItemCount > 0, hasShapes = scene->shapeItemCount > 0;

    for (;;)
    {
        int cell = iy * scene->nx + ix;
        const CellHeader* h = cells + cell;
        // The next cell's header is a cache miss in big worlds: ask for it while this cell is tested.
        LS_PREFETCH(tMaxX < tMaxY ? h + stepX : h + (ptrdiff_t)stepY * scene->nx);
        if (stats != NULL)
        {
            stats->cells += 1;
            stats->candidates += (h[1].seg - h[0].seg) + (h[1].shape - h[0].shape) + (h[1].target - h[0].target);
        }
        for (int k = h[0].seg, end = h[1].seg; k < end; ++k)
        {
            double tLo, tHi;
            if (BoundSegment(scene->segItems + k, o, d, dd, limit, maxFraction, sideError, &tLo, &tHi))
            {
                Defer(scene, input, pending, &pendingCount, (Pending){tLo, ls_fieldSegment, k, scene->segItemIds[k], 0},
                      &best, stats);
                known = tHi < known ? tHi : known;
                known = best.hit && best.fraction < known ? best.fraction : known;
                limit = known < maxFraction ? known : maxFraction;
            }
        }
        for (int k = h[0].target, end = hasTargets ? h[1].target : k; k < end; ++k)
        {
            const CellTarget* ct = scene->targetItems + k;
            double tLo, tHi;
            if (ct->active && BoundCircle(&ct->circle, o, d, dd, limit, maxFraction, &tLo, &tHi))
            {
                Defer(scene, input, pending, &pendingCount, (Pending){tLo, ls_fieldTarget, k, ct->index, 0}, &best,
                      stats);
                known = tHi < known ? tHi : known;
                known = best.hit && best.fraction < known ? best.fraction : known;
                limit = known < maxFraction ? known : maxFraction;
            }
        }
        for (int k = h[0].shape, end = hasShapes ? h[1].shape : k; k < end; ++k)
        {
            // Boxes and polygons are few: bounded by their bounding circle only.
            int code = scene->shapeItems[k];
            double tLo, tHi;
            if (BoundCircle(scene->shapeCircles + code, o, d, dd, limit, maxFraction, &tLo, &tHi))
            {
                Defer(scene, input, pending, &pendingCount, (Pending){tLo, ls_fieldShape, k, code, 0}, &best, stats);
            }
        }

        double tExit = tMaxX < tMaxY ? tMaxX : tMaxY;
        if (tExit >= tLeave + margin || known < tExit - margin)
        {
            break;
        }
        if (tMaxX < tMaxY)
        {
            ix += stepX;
            if (ix < 0 || ix >= scene->nx)
            {
                break;
            }
            tMaxX = (gx0 + (double)(ix + (stepX > 0)) * s - o.x) * invDx;
        }
        else
        {
            iy += stepY;
            if (iy < 0 || iy >= scene->ny)
            {
                break;
            }
            tMaxY = (gy0 + (double)(iy + (stepY > 0)) * s - o.y) * invDy;
        }
    }
    Resolve(scene, input, pending, pendingCount, &best, stats);
    return best;
}

lsRayHit lsScene_CastRayStats(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                              lsCastStats* stats)
{
    LS_ASSERT(stats != NULL);
    return Cast(scene, dyn, input, stats);
}

lsRayHit lsScene_CastRay(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input)
{
    return Cast(scene, dyn, input, NULL);
}

// The cell holding p, clamped to the grid (the first cell of a ray starting there).
static inline int CellOf(const lsScene* scene, lsVec2 p) { return CellY(scene, p.y) * scene->nx + CellX(scene, p.x); }

void lsScene_CastRays(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs, int count,
                      lsRayHit* hits)
{
    LS_ASSERT(scene != NULL && count >= 0 && (count == 0 || (inputs != NULL && hits != NULL)));
    // Software pipeline over the rays: the header of the first cell of ray i + 8, then the records of the first cell
    // of ray i + 4 (whose header has arrived by then), are fetched while ray i is cast. In a big world with rays
    // spread everywhere, these first-cell misses dominate; a scan's beams share their origin and do not need it.
    bool prefetch = scene->nx > 0;
    for (int i = 0; i < count; ++i)
    {
        if (prefetch && i + 8 < count)
        {
            LS_PREFETCH(scene->cells + CellOf(scene, inputs[i + 8].origin));
        }
        if (prefetch && i + 4 < count)
        {
            const CellHeader* h = scene->cells + CellOf(scene, inputs[i + 4].origin);
            if (h[1].seg > h[0].seg)
            {
                LS_PREFETCH(scene->segItems + h[0].seg);
                LS_PREFETCH(scene->segItems + h[1].seg - 1);
            }
            if (h[1].target > h[0].target)
            {
                LS_PREFETCH(scene->targetItems + h[0].target);
            }
        }
        hits[i] = Cast(scene, dyn, inputs + i, NULL);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Queries and accessors

// The box query reports each object once without marking anything in the scene (so one scene can be queried from
// many threads): an object registered in several cells is reported only from the first of them, in the query's
// row-major order, that lies in the query's cell range. Those cells are recomputed exactly as registration made
// them (a rectangle for boxes, polygons and targets, a span per row for segments).

// The first cell (row-major) of the rectangle [rx0, rx1] x [ry0, ry1] within the query range [qx0, qx1] x [qy0, ..].
static inline bool IsFirstCell(int rx0, int ry0, int qx0, int qy0, int ix, int iy)
{
    return ix == (rx0 > qx0 ? rx0 : qx0) && iy == (ry0 > qy0 ? ry0 : qy0);
}

// Whether (ix, iy) is the first cell of the query range [qx0, qx1] x [qy0, iy] that segment `seg` is registered in.
static bool IsFirstSegmentCell(const lsScene* scene, lsSegment seg, int qx0, int qx1, int qy0, int ix, int iy)
{
    int iy0, iy1;
    SegmentRows(scene, seg, &iy0, &iy1);
    for (int row = iy0 > qy0 ? iy0 : qy0; row <= iy; ++row)
    {
        int x0, x1;
        if (SegmentRowSpan(scene, seg, iy0, iy1, row, &x0, &x1) && x0 <= qx1 && x1 >= qx0)
        {
            return row == iy && ix == (x0 > qx0 ? x0 : qx0);
        }
    }
    return false; // not reached: the segment is registered in (ix, iy)
}

void lsScene_QueryAABB(const lsScene* scene, lsAABB box, lsSceneQueryFcn* fcn, void* context)
{
    LS_ASSERT(scene != NULL && fcn != NULL);
    for (int k = 0; k < scene->displacedCount; ++k)
    {
        int i = scene->displaced[k];
        if (scene->targetActive[i] && lsAABB_Overlaps(lsCircle_Bounds(scene->targets + i), box) &&
            !fcn(context, ls_hitTarget, i, 0))
        {
            return;
        }
    }
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        int id = scene->longSegments[k];
        const lsSegment* seg = scene->segments + id;
        if (lsAABB_Overlaps(lsAABB_OfSegment(seg->a, seg->b), box) &&
            !fcn(context, ls_hitWall, scene->segmentChain[id], scene->segmentPart[id]))
        {
            return;
        }
    }
    for (int k = 0; k < scene->longShapeCount; ++k)
    {
        int code = scene->longShapes[k];
        if (lsAABB_Overlaps(ShapeBounds(scene, code), box) &&
            !fcn(context, (code & 1) == 0 ? ls_hitBox : ls_hitPolygon, code >> 1, 0))
        {
            return;
        }
    }
    if (scene->nx == 0)
    {
        return;
    }
    double gx1 = scene->x0 + (double)scene->nx * scene->cellSize, gy1 = scene->y0 + (double)scene->ny * scene->cellSize;
    if (!(box.upper.x >= scene->x0 && box.upper.y >= scene->y0 && box.lower.x <= gx1 && box.lower.y <= gy1))
    {
        return;
    }
    int qx0 = CellX(scene, box.lower.x), qx1 = CellX(scene, box.upper.x);
    int qy0 = CellY(scene, box.lower.y), qy1 = CellY(scene, box.upper.y);
    for (int iy = qy0; iy <= qy1; ++iy)
    {
        for (int ix = qx0; ix <= qx1; ++ix)
        {
            const CellHeader* h = scene->cells + (ptrdiff_t)iy * scene->nx + ix;
            for (int k = h[0].seg; k < h[1].seg; ++k)
            {
                const CellSegment* cs = scene->segItems + k;
                int id = scene->segItemIds[k];
                if (lsAABB_Overlaps(lsAABB_OfSegment(cs->a, cs->b), box) &&
                    IsFirstSegmentCell(scene, *cs, qx0, qx1, qy0, ix, iy) &&
                    !fcn(context, ls_hitWall, scene->segmentChain[id], scene->segmentPart[id]))
                {
                    return;
                }
            }
            for (int k = h[0].shape; k < h[1].shape; ++k)
            {
                int code = scene->shapeItems[k];
                lsAABB bounds = ShapeBounds(scene, code);
                lsAABB registered = Expand(bounds, scene->slop); // as RegisterBounds saw it
                if (lsAABB_Overlaps(bounds, box) &&
                    IsFirstCell(CellX(scene, registered.lower.x), CellY(scene, registered.lower.y), qx0, qy0, ix, iy) &&
                    !fcn(context, (code & 1) == 0 ? ls_hitBox : ls_hitPolygon, code >> 1, 0))
                {
                    return;
                }
            }
            for (int k = h[0].target; k < h[1].target; ++k)
            {
                const CellTarget* ct = scene->targetItems + k;
                const int* range = scene->targetCells + (ptrdiff_t)4 * ct->index;
                if (ct->active && lsAABB_Overlaps(lsCircle_Bounds(&ct->circle), box) &&
                    IsFirstCell(range[0], range[1], qx0, qy0, ix, iy) && !fcn(context, ls_hitTarget, ct->index, 0))
                {
                    return;
                }
            }
        }
    }
}

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
        (size_t)(scene->vehicleCount + scene->moverCount) * sizeof(double) + cells * sizeof(CellHeader) +
        (size_t)scene->segItemCount * (sizeof(CellSegment) + sizeof(int)) +
        (size_t)scene->shapeItemCount * sizeof(int) + 2 * (b > p ? b : p) * sizeof(lsCircle) +
        (size_t)scene->targetItemCount * sizeof(CellTarget) +
        (size_t)(scene->longSegmentCount + scene->longShapeCount) * sizeof(int);
    return info;
}

int lsScene_WallCount(const lsScene* scene) { return scene->wallCount; }

int lsScene_WallPartCount(const lsScene* scene, int chain)
{
    LS_ASSERT(chain >= 0 && chain < scene->wallCount);
    return scene->wallFirstSegment[chain + 1] - scene->wallFirstSegment[chain];
}

lsSegment lsScene_WallSegment(const lsScene* scene, int chain, int part)
{
    LS_ASSERT(chain >= 0 && chain < scene->wallCount);
    int first = scene->wallFirstSegment[chain];
    LS_ASSERT(part >= 0 && part < scene->wallFirstSegment[chain + 1] - first);
    return scene->segments[first + part];
}

int lsScene_TargetCount(const lsScene* scene) { return scene->targetCount; }

lsCircle lsScene_Target(const lsScene* scene, int index, bool* active)
{
    LS_ASSERT(index >= 0 && index < scene->targetCount);
    if (active != NULL)
    {
        *active = scene->targetActive[index];
    }
    return scene->targets[index];
}

const lsBox* lsScene_Box(const lsScene* scene, int index)
{
    LS_ASSERT(index >= 0 && index < scene->boxCount);
    return scene->boxes + index;
}

const lsPolygon* lsScene_Polygon(const lsScene* scene, int index)
{
    LS_ASSERT(index >= 0 && index < scene->polygonCount);
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
    LS_ASSERT(index >= 0 && index < scene->targetCount);
    return scene->targetKinds[index];
}

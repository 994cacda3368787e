// The scene's uniform grid: the layout (cell size, bounds, long primitives kept out), the registration of every
// primitive in the cells it touches, and the box query.
//
// Why a grid: the bench worlds (and most lidar worlds) have short walls spread at roughly constant density, so a
// grid sized to the number of primitives gives a few candidates per cell, the walk costs a handful of cells per
// beam whatever the size of the map, and the build is two linear passes (count, fill) into flat CSR arrays.
//
// Correctness at cell boundaries: every primitive is registered in each cell that its geometry comes within
// `slop` of (slop is far larger than the rounding of the walk), so wherever the walk's rounded path strays, the
// cells it visits still hold everything the exact ray touches (scene_cast.c).
#include "core/scene_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Registration of primitives in cells

static int* Field(CellHeader* h, int field)
{
    return field == ls_fieldSegment ? &h->seg : (field == ls_fieldShape ? &h->shape : &h->target);
}

// Registration runs twice: a counting pass (counts land in the header after each cell) and a filling pass (the
// header of each cell is the write cursor, left at the next cell's start, and shifted back afterwards).
// A run of count cells of one row, from cell index `cell`, that segment `k` (of the sorted order) is registered in.
typedef struct SegmentSpan
{
    int cell, count, k;
} SegmentSpan;

typedef struct Registrar
{
    CellHeader* cells;
    int* segCursor; // segments: per cell, the count (counting pass) or the write position (filling pass)
    int field;
    bool fill;
    int sortedIndex; // the segment being counted, in the sorted order
    int shapeCode;
    CellTarget target;
    CellSegment* segItems;
    CellRef* segItemRefs;
    int* shapeItems;
    CellTarget* targetItems;
    // The counting pass keeps each segment's spans (a row's run of cells) so the filling pass does not recompute them.
    SegmentSpan* spans;
    int spanCount, spanCapacity;
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
    if (r->field == ls_fieldShape) // segments go through RegisterSegmentSpan
    {
        r->shapeItems[(*cursor)++] = r->shapeCode;
    }
    else
    {
        r->targetItems[(*cursor)++] = r->target;
    }
}

// Counts the current segment in cells ix0..ix1 of row iy and keeps the span for the filling pass: the build's hot
// loop, kept free of the switch and working on a plain int per cell (a quarter of the headers' bytes, so the
// scattered updates stay in cache).
static inline void RegisterSegmentSpan(const lsScene* scene, Registrar* r, int iy, int ix0, int ix1)
{
    int* row = r->segCursor + (ptrdiff_t)iy * scene->nx;
    for (int ix = ix0; ix <= ix1; ++ix)
    {
        row[ix] += 1;
    }
    if (r->spanCount == r->spanCapacity)
    {
        int capacity = r->spanCapacity < 1024 ? 1024 : r->spanCapacity + r->spanCapacity / 2;
        r->spans =
            lsRealloc(r->spans, (size_t)r->spanCapacity * sizeof(SegmentSpan), (size_t)capacity * sizeof(SegmentSpan));
        r->spanCapacity = capacity;
    }
    r->spans[r->spanCount++] = (SegmentSpan){iy * scene->nx + ix0, ix1 - ix0 + 1, r->sortedIndex};
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

void lsSceneGrid_TargetRange(const lsScene* scene, lsCircle c, int range[4])
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

// Marks the cells of the blocks none of whose cells holds a segment, shape or target (cells beyond the grid count
// as empty): the walk crosses such a block in one step.
static void MarkEmptyBlocks(lsScene* scene)
{
    int nx = scene->nx, ny = scene->ny;
    int bnx = (nx + LS_BLOCK_CELLS - 1) >> LS_BLOCK_SHIFT, bny = (ny + LS_BLOCK_CELLS - 1) >> LS_BLOCK_SHIFT;
    size_t blockCount = (size_t)bnx * (size_t)bny;
    unsigned char* full = lsAllocZero(blockCount, 1);
    // The lists are stored cell after cell in row-major order, so a run of cells in a row is empty exactly when the
    // starts of its first cell and of the cell after it are equal.
    for (int iy = 0; iy < ny; ++iy)
    {
        unsigned char* row = full + (size_t)(iy >> LS_BLOCK_SHIFT) * (size_t)bnx;
        const CellHeader* cells = scene->cells + (size_t)iy * (size_t)nx;
        for (int bx = 0; bx < bnx; ++bx)
        {
            int x0 = bx << LS_BLOCK_SHIFT, x1 = x0 + LS_BLOCK_CELLS < nx ? x0 + LS_BLOCK_CELLS : nx;
            const CellHeader* a = cells + x0;
            const CellHeader* b = cells + x1;
            row[bx] |= a->seg != b->seg || a->shape != b->shape || a->target != b->target;
        }
    }
    CellHeader* h = scene->cells;
    for (int iy = 0; iy < ny; ++iy)
    {
        const unsigned char* row = full + (size_t)(iy >> LS_BLOCK_SHIFT) * (size_t)bnx;
        for (int ix = 0; ix < nx; ++ix, ++h)
        {
            h->emptyBlock = row[ix >> LS_BLOCK_SHIFT] == 0;
        }
    }
    lsFree(full, blockCount);
}

void lsSceneGrid_BuildTargets(lsScene* scene)
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
        lsSceneGrid_TargetRange(scene, scene->targets[i], range);
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
    MarkEmptyBlocks(scene);
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

// lsAABB_Union without the library calls of fmin and fmax (the layout runs over every primitive three times).
static inline lsAABB Union(lsAABB a, lsAABB b)
{
    return (lsAABB){{Min(a.lower.x, b.lower.x), Min(a.lower.y, b.lower.y)},
                    {Max(a.upper.x, b.upper.x), Max(a.upper.y, b.upper.y)}};
}

// Primitives are numbered segments, then boxes, then polygons, then targets.
static lsAABB PrimitiveBounds(const lsScene* scene, int k)
{
    if (k < scene->segmentCount)
    {
        lsVec2 a = scene->segments[k].a, b = scene->segments[k].b;
        return (lsAABB){{Min(a.x, b.x), Min(a.y, b.y)}, {Max(a.x, b.x), Max(a.y, b.y)}};
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
        core = SpanOf(b) <= threshold ? Union(core, b) : core;
    }
    lsVec2 half = HalfSize(core);
    double reach = 0.25 * Max(half.x, half.y);
    lsAABB near = Expand(core, reach);
    int longCount = 0;
    bool* isLong = lsAllocZero((size_t)count, sizeof(bool));
    // One pass: which primitives are long, and the bounds, total and largest segment length both of all primitives and
    // of those not long (the first when more than LS_MAX_LONG_PRIMITIVES are long and none is kept out). Sums run in
    // index order either way.
    lsAABB bounds = {{DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX}}, boundsAll = bounds;
    double sumLength = 0.0, sumLengthAll = 0.0, maxLength = 0.0, maxLengthAll = 0.0;
    int gridSegments = 0;
    bool anyCore = core.lower.x <= core.upper.x;
    for (int k = 0; k < count; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, k);
        bool inside = b.lower.x >= near.lower.x && b.lower.y >= near.lower.y && b.upper.x <= near.upper.x &&
                      b.upper.y <= near.upper.y;
        isLong[k] = anyCore && !(SpanOf(b) <= threshold) && !inside;
        longCount += isLong[k] ? 1 : 0;
        boundsAll = Union(boundsAll, b);
        bounds = isLong[k] ? bounds : Union(bounds, b);
        if (k < scene->segmentCount)
        {
            lsVec2 e = lsSub(scene->segments[k].b, scene->segments[k].a);
            double m = Max(fabs(e.x), fabs(e.y));
            // Only sizes the cells and bounds rounding: no hypot needed, but no overflow of the squares either.
            double length = m < 1e150 ? sqrt(e.x * e.x + e.y * e.y) : 1.5 * m;
            sumLengthAll += length;
            maxLengthAll = Max(maxLengthAll, length);
            sumLength += isLong[k] ? 0.0 : length;
            maxLength = isLong[k] ? maxLength : Max(maxLength, length);
            gridSegments += isLong[k] ? 0 : 1;
        }
    }
    if (longCount > LS_MAX_LONG_PRIMITIVES)
    {
        memset(isLong, 0, (size_t)count * sizeof(bool));
        longCount = 0;
        bounds = boundsAll;
        sumLength = sumLengthAll;
        maxLength = maxLengthAll;
        gridSegments = scene->segmentCount;
    }
    scene->maxSegmentLength = Max(scene->maxSegmentLength, maxLength);
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
        // Registrations are budgeted against every primitive once the others outnumber the segments eightfold:
        // 100 000 targets in a room of four walls get cells sized for the targets, not 50 m cells of the walls.
        double budget = Max((double)gridSegments, 0.125 * (double)gridCount);
        cellSize = Max(cellSize, 0.5 * (sumLength / budget));
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

void lsSceneGrid_Build(lsScene* scene)
{
    ChooseGrid(scene);
    int segmentCount = scene->segmentCount;

    // Bounding circles of the boxes and polygons (around their bounds, a little inflated) for the deferral bounds.
    int shapeCodes = 2 * (scene->boxCount > scene->polygonCount ? scene->boxCount : scene->polygonCount);
    scene->shapeCircles = lsAllocZero((size_t)shapeCodes, sizeof(lsCircle));
    for (int code = 0; code < shapeCodes; ++code)
    {
        int i = code >> 1;
        if ((code & 1) == 0 ? i < scene->boxCount : i < scene->polygonCount)
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
        CellRef* sortedRefs = lsAlloc((size_t)gridSegments * sizeof(CellRef));
        for (int i = 0; i < segmentCount; ++i)
        {
            if (!isLong[i])
            {
                int k = r.segCursor[midCell[i]]++;
                sorted[k] = scene->segments[i];
                sortedRefs[k] = (CellRef){scene->segmentChain[i], scene->segmentPart[i]};
            }
        }
        lsFree(midCell, (size_t)segmentCount * sizeof(int));
        memset(r.segCursor, 0, (size_t)cellCount * sizeof(int));
        // Most segments lie in one row of cells (one span), a few in two or more.
        r.spanCapacity = gridSegments + gridSegments / 4 + 16;
        r.spans = lsAlloc((size_t)r.spanCapacity * sizeof(SegmentSpan));
        for (int pass = 0; pass < 2; ++pass)
        {
            r.field = ls_fieldSegment;
            for (int k = 0; k < gridSegments && pass == 0; ++k)
            {
                r.sortedIndex = k;
                RegisterSegment(scene, &r, sorted[k]);
            }
            for (int j = 0; j < r.spanCount && pass == 1; ++j)
            {
                SegmentSpan span = r.spans[j];
                int* cursor = r.segCursor + span.cell;
                for (int n = 0; n < span.count; ++n)
                {
                    r.segItemRefs[cursor[n]] = sortedRefs[span.k];
                    r.segItems[cursor[n]++] = sorted[span.k];
                }
            }
            r.field = ls_fieldShape;
            for (int code = 0; code < shapeCodes; ++code)
            {
                int i = code >> 1;
                bool exists = (code & 1) == 0 ? i < scene->boxCount : i < scene->polygonCount;
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
                scene->segItemRefs = lsAlloc((size_t)scene->segItemCount * sizeof(CellRef));
                r.segItemRefs = scene->segItemRefs;
                scene->shapeItems = lsAlloc((size_t)scene->shapeItemCount * sizeof(int));
                r.segItems = scene->segItems;
                r.shapeItems = scene->shapeItems;
                r.fill = true;
            }
        }
        ShiftField(scene->cells, cellCount, ls_fieldShape);
        lsFree(r.spans, (size_t)r.spanCapacity * sizeof(SegmentSpan));
        lsFree(r.segCursor, (size_t)cellCount * sizeof(int));
        lsFree(sorted, (size_t)gridSegments * sizeof(lsSegment));
        lsFree(sortedRefs, (size_t)gridSegments * sizeof(CellRef));
        lsFree(isLong, ((size_t)segmentCount + 2 * (size_t)shapeCodes) * sizeof(bool));
    }
    lsSceneGrid_BuildTargets(scene);
}

// ---------------------------------------------------------------------------------------------------------------------
// The box query

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
                if (lsAABB_Overlaps(lsAABB_OfSegment(cs->a, cs->b), box) &&
                    IsFirstSegmentCell(scene, *cs, qx0, qx1, qy0, ix, iy) &&
                    !fcn(context, ls_hitWall, scene->segItemRefs[k].chain, scene->segItemRefs[k].part))
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

// The moving objects' broad phase: a uniform grid rebuilt every step by a counting sort (Ericson, Real-Time
// Collision Detection 7.1: uniform grids, objects stored in every cell their box overlaps). Rays walk it cell by
// cell (Amanatides and Woo) and stop once the best hit lies before the next cell; box queries report an object once,
// in the cell that holds the lower corner of the overlap of the two boxes (no visit stamps, so it is reentrant and
// many lidars can cast through one index at once).
//
// Objects much larger than a cell (long moving bars) are kept apart in a short list tested on every cast, so they
// neither fill hundreds of cells nor make the cells large.
#include "core/dynamic.h"

#include "core/geometry_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

struct lsDynamicIndex
{
    int robotCount, vehicleCount, moverCount; ///< object ids: robots, then vehicles, then movers
    lsAABB* boxes;                            ///< per object id, as built (inflated by margin)
    int boxCapacity;
    lsAABB bounds; ///< the grid covers bounds; cell (ix, iy) starts at lower + (ix, iy) * cellSize
    double cellSize, inverse, margin;
    int nx, ny;
    int* cellStart; ///< nx * ny + 1 offsets into items
    int cellCapacity;
    int* items; ///< object ids, grouped by cell
    int itemCapacity;
    int* large; ///< object ids of the objects kept out of the grid
    int largeCount;
    int* lowerCells; ///< per object id, the cell coordinates (x, y) of its box's lower corner
};

lsDynamicIndex* lsCreateDynamicIndex(void) { return lsAllocZero(1, sizeof(lsDynamicIndex)); }

void lsDestroyDynamicIndex(lsDynamicIndex* index)
{
    if (index == NULL)
    {
        return;
    }
    lsFree(index->boxes, (size_t)index->boxCapacity * sizeof(lsAABB));
    lsFree(index->large, (size_t)index->boxCapacity * sizeof(int));
    lsFree(index->lowerCells, (size_t)index->boxCapacity * 2 * sizeof(int));
    lsFree(index->cellStart, (size_t)index->cellCapacity * sizeof(int));
    lsFree(index->items, (size_t)index->itemCapacity * sizeof(int));
    lsFree(index, sizeof(lsDynamicIndex));
}

static lsDynamicItem ItemOf(const lsDynamicIndex* index, int id)
{
    if (id < index->robotCount)
    {
        return (lsDynamicItem){ls_hitRobot, id};
    }
    id -= index->robotCount;
    if (id < index->vehicleCount)
    {
        return (lsDynamicItem){ls_hitVehicle, id};
    }
    return (lsDynamicItem){ls_hitMover, id - index->vehicleCount};
}

static lsAABB ObjectBounds(const lsDynamicObjects* dyn, int id)
{
    if (id < dyn->robotCount)
    {
        if (dyn->robotPolygons != NULL && dyn->robotPolygons[id].count > 0)
        {
            return lsPolygon_Bounds(dyn->robotPolygons + id);
        }
        return lsCircle_Bounds(dyn->robots + id);
    }
    id -= dyn->robotCount;
    if (id < dyn->vehicleCount)
    {
        return lsCircle_Bounds(dyn->vehicles + id);
    }
    const lsSegment* s = dyn->movers + (id - dyn->vehicleCount);
    return lsAABB_OfSegment(s->a, s->b);
}

// Cell coordinate of x along one axis, clamped into the grid (NaN-free: the inputs are finite).
static inline int CellOf(double x, double lower, double inverse, int count)
{
    double c = floor((x - lower) * inverse);
    return c < 0.0 ? 0 : (c >= (double)count ? count - 1 : (int)c);
}

static void Reserve(void** p, int* capacity, int needed, size_t size)
{
    if (needed > *capacity)
    {
        int grown = needed > 2 * *capacity ? needed : 2 * *capacity;
        *p = lsRealloc(*p, (size_t)*capacity * size, (size_t)grown * size);
        *capacity = grown;
    }
}

void lsDynamicIndex_Build(lsDynamicIndex* index, const lsDynamicObjects* dyn)
{
    LS_ASSERT(index != NULL && dyn != NULL);
    int n = dyn->robotCount + dyn->vehicleCount + dyn->moverCount;
    index->robotCount = dyn->robotCount;
    index->vehicleCount = dyn->vehicleCount;
    index->moverCount = dyn->moverCount;
    index->nx = index->ny = 0;
    index->largeCount = 0;
    index->cellSize = 0.0;
    if (n == 0)
    {
        return;
    }
    if (n > index->boxCapacity)
    {
        int old = index->boxCapacity;
        Reserve((void**)&index->boxes, &index->boxCapacity, n, sizeof(lsAABB));
        index->large = lsRealloc(index->large, (size_t)old * sizeof(int), (size_t)index->boxCapacity * sizeof(int));
        index->lowerCells =
            lsRealloc(index->lowerCells, (size_t)old * 2 * sizeof(int), (size_t)index->boxCapacity * 2 * sizeof(int));
    }

    // Bounds, the typical object size and the margin that absorbs the rounding of the ray walk.
    lsAABB bounds = ObjectBounds(dyn, 0);
    double extentSum = 0.0, maxAbs = 0.0;
    for (int id = 0; id < n; ++id)
    {
        lsAABB b = ObjectBounds(dyn, id);
        index->boxes[id] = b;
        bounds = lsAABB_Union(bounds, b);
        extentSum += lsFmax(b.upper.x - b.lower.x, b.upper.y - b.lower.y);
    }
    maxAbs =
        lsFmax(lsFmax(fabs(bounds.lower.x), fabs(bounds.upper.x)), lsFmax(fabs(bounds.lower.y), fabs(bounds.upper.y)));
    double width = bounds.upper.x - bounds.lower.x, height = bounds.upper.y - bounds.lower.y;
    // About one object per cell, never cells smaller than two typical objects, at most 4 n + 64 cells.
    double cell = lsFmax(sqrt(width * height / (double)n), 2.0 * extentSum / (double)n);
    cell = lsFmax(cell, sqrt(width * height / (4.0 * (double)n + 64.0)));
    cell = lsFmax(cell, lsFmax(width, height) / 1024.0);
    if (!(cell > 0.0))
    {
        cell = 1.0;
    }
    double margin = 1e-7 * cell + 1e-9 * maxAbs;
    index->margin = margin;
    index->cellSize = cell;
    index->inverse = 1.0 / cell;
    index->bounds = (lsAABB){lsSub(bounds.lower, lsV(2.0 * margin, 2.0 * margin)),
                             lsAdd(bounds.upper, lsV(2.0 * margin, 2.0 * margin))};
    index->nx = (int)floor((index->bounds.upper.x - index->bounds.lower.x) * index->inverse) + 1;
    index->ny = (int)floor((index->bounds.upper.y - index->bounds.lower.y) * index->inverse) + 1;
    int cellCount = index->nx * index->ny;
    Reserve((void**)&index->cellStart, &index->cellCapacity, cellCount + 1, sizeof(int));
    memset(index->cellStart, 0, (size_t)(cellCount + 1) * sizeof(int));

    // Pass 0 counts the references per cell (into cellStart[c + 1]), then prefix sums make cellStart[c + 1] the end
    // of cell c; pass 1 fills each cell from its start, advancing cellStart[c] to its end, which the shift below
    // turns back into starts.
    for (int id = 0; id < n; ++id)
    {
        index->boxes[id].lower = lsSub(index->boxes[id].lower, lsV(margin, margin));
        index->boxes[id].upper = lsAdd(index->boxes[id].upper, lsV(margin, margin));
    }
    int references = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        for (int id = 0; id < n; ++id)
        {
            lsAABB b = index->boxes[id];
            int x0 = CellOf(b.lower.x, index->bounds.lower.x, index->inverse, index->nx);
            int x1 = CellOf(b.upper.x, index->bounds.lower.x, index->inverse, index->nx);
            int y0 = CellOf(b.lower.y, index->bounds.lower.y, index->inverse, index->ny);
            int y1 = CellOf(b.upper.y, index->bounds.lower.y, index->inverse, index->ny);
            index->lowerCells[2 * (size_t)id] = x0;
            index->lowerCells[2 * (size_t)id + 1] = y0;
            if ((x1 - x0 + 1) * (y1 - y0 + 1) > 16)
            {
                if (pass == 0)
                {
                    index->large[index->largeCount++] = id;
                }
                continue;
            }
            for (int iy = y0; iy <= y1; ++iy)
            {
                for (int ix = x0; ix <= x1; ++ix)
                {
                    int c = iy * index->nx + ix;
                    if (pass == 0)
                    {
                        index->cellStart[c + 1] += 1;
                        references += 1;
                    }
                    else
                    {
                        index->items[index->cellStart[c]++] = id;
                    }
                }
            }
        }
        if (pass == 0)
        {
            Reserve((void**)&index->items, &index->itemCapacity, references > 0 ? references : 1, sizeof(int));
            for (int c = 0; c < cellCount; ++c)
            {
                index->cellStart[c + 1] += index->cellStart[c];
            }
        }
    }
    memmove(index->cellStart + 1, index->cellStart, (size_t)cellCount * sizeof(int));
    index->cellStart[0] = 0;
}

int lsDynamicIndex_Query(const lsDynamicIndex* index, lsAABB box, lsDynamicItem* items, int capacity)
{
    LS_ASSERT(index != NULL && (items != NULL || capacity == 0));
    int found = 0;
    for (int k = 0; k < index->largeCount; ++k)
    {
        int id = index->large[k];
        if (lsAABB_Overlaps(index->boxes[id], box))
        {
            if (found < capacity)
            {
                items[found] = ItemOf(index, id);
            }
            found += 1;
        }
    }
    if (index->nx == 0 || !lsAABB_Overlaps(index->bounds, box))
    {
        return found;
    }
    double lx = index->bounds.lower.x, ly = index->bounds.lower.y, inv = index->inverse;
    int x0 = CellOf(box.lower.x, lx, inv, index->nx), x1 = CellOf(box.upper.x, lx, inv, index->nx);
    int y0 = CellOf(box.lower.y, ly, inv, index->ny), y1 = CellOf(box.upper.y, ly, inv, index->ny);
    for (int iy = y0; iy <= y1; ++iy)
    {
        for (int ix = x0; ix <= x1; ++ix)
        {
            int c = iy * index->nx + ix;
            for (int k = index->cellStart[c]; k < index->cellStart[c + 1]; ++k)
            {
                // Report it when it overlaps box, once: in the cell of the lower corner of the overlap, which both
                // ranges hold. CellOf never decreases, so that cell is the larger of the two lower corners' cells on
                // each axis. The tests go without branches (a cell at the box's edge holds objects either way); the
                // item is written in any case and kept only when reported.
                int id = index->items[k];
                lsAABB b = index->boxes[id];
                const int* lower = index->lowerCells + 2 * (size_t)id;
                bool report = (b.lower.x <= box.upper.x) & (box.lower.x <= b.upper.x) & (b.lower.y <= box.upper.y) &
                              (box.lower.y <= b.upper.y) & ((lower[0] > x0 ? lower[0] : x0) == ix) &
                              ((lower[1] > y0 ? lower[1] : y0) == iy);
                if (found < capacity)
                {
                    items[found] = ItemOf(index, id);
                }
                found += report;
            }
        }
    }
    return found;
}

void lsDynamicIndex_GetInfo(const lsDynamicIndex* index, int* cellsX, int* cellsY, double* cellSize)
{
    LS_ASSERT(index != NULL);
    *cellsX = index->nx;
    *cellsY = index->ny;
    *cellSize = index->cellSize;
}

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts

// A cheap, conservative rejection before the exact disc cast: true only when the ray's line passes the disc by a
// clear margin, or the disc lies entirely beyond limit (the best hit so far, or the ray's end). The margins (1e-9
// relative) are far above the rounding of these few operations, so a disc the exact cast would report is never
// skipped. No square root or division: with f = o - c, the distances are compared multiplied by |d| (the line's,
// squared), and |d| is bounded above by (|d|^2 + 1) / 2, which is |d| within rounding for the unit directions of a
// scan. f and the products are formed as lsRayCastCircleCommon forms them, so where both are inlined the compiler
// computes them once.
static inline bool DiscOutOfReach(lsVec2 o, lsVec2 d, lsVec2 c, double r, double limit)
{
    double fx = o.x - c.x, fy = o.y - c.y;
    double dd = d.x * d.x + d.y * d.y;
    double f = fabs(fx) + fabs(fy);
    double side = r + 1e-9 * (f + r);
    double cross = d.x * fy - d.y * fx; // the centre's distance from the ray's line, times |d|
    if (cross * cross > side * side * dd)
    {
        return true;
    }
    double upper = 0.5 * (dd + 1.0);       // >= |d|
    double along = -(d.x * fx + d.y * fy); // the centre's distance along the ray, times |d|
    // along / |d| - r > limit |d| + 1e-9 (f + r + limit |d|), and along / |d| + r < -1e-9 (f + r), each implied by
    // the test with |d| replaced by its upper bound where that only makes the test harder.
    return along - side * upper > limit * (dd + 1e-9 * upper) || along + side * upper < 0.0;
}

// A disc (a robot's or a vehicle's) offered to the ray: the exact cast's common case inline (the same bits; see
// geometry_internal.h), and a hit's point and normal only when it can win (Beats never takes a farther hit).
static inline void TryDisc(lsCircle disc, lsHitKind kind, int index, const lsRayInput* input, lsRayHit* best)
{
    lsVec2 o = input->origin, d = input->direction;
    if (DiscOutOfReach(o, d, disc.center, disc.radius, best->hit ? best->fraction : input->maxFraction))
    {
        return;
    }
    double L = input->maxFraction < DBL_MAX ? input->maxFraction : DBL_MAX; // fmin's answer for a valid input
    lsCastOutput out;
    if (L >= 0.0 && (d.x != 0.0 || d.y != 0.0) && lsRayCastCircleCommon(o, d, L, disc.center, disc.radius, &out))
    {
        if (!out.hit || (best->hit && out.fraction > best->fraction))
        {
            return;
        }
        lsCompleteCircleHit(o, d, disc.center, disc.radius, &out);
    }
    else
    {
        out = lsRayCastCircleFull(&disc, input);
    }
    lsRayHit_OfferInline(best, &out, kind, index, 0);
}

// The disc of a vehicle or of a robot without a polygon footprint; NULL for the rest.
static inline const lsCircle* DiscOf(const lsDynamicObjects* dyn, lsDynamicItem item)
{
    if (item.kind != ls_hitRobot)
    {
        return item.kind == ls_hitVehicle ? dyn->vehicles + item.index : NULL;
    }
    // A polygon footprint is cast directly (no bounding-circle filter whose rounding could drop a grazing beam).
    bool polygon = dyn->robotPolygons != NULL && dyn->robotPolygons[item.index].count > 0;
    return polygon ? NULL : dyn->robots + item.index;
}

static void TryObject(const lsDynamicObjects* dyn, lsDynamicItem item, const lsRayInput* input, lsRayHit* best)
{
    if (item.kind == ls_hitRobot && item.index == dyn->skipRobot)
    {
        return;
    }
    const lsCircle* disc = DiscOf(dyn, item);
    if (disc != NULL)
    {
        TryDisc(*disc, item.kind, item.index, input, best);
        return;
    }
    lsCastOutput out = item.kind == ls_hitMover ? lsRayCastSegment(dyn->movers + item.index, input)
                                                : lsRayCastPolygon(dyn->robotPolygons + item.index, input);
    lsRayHit_Offer(best, &out, item.kind, item.index, 0);
}

static void CastAll(const lsDynamicObjects* dyn, const lsRayInput* input, lsRayHit* best, lsDynamicStats* stats)
{
    for (int i = 0; i < dyn->moverCount; ++i)
    {
        TryObject(dyn, (lsDynamicItem){ls_hitMover, i}, input, best);
    }
    for (int i = 0; i < dyn->vehicleCount; ++i)
    {
        TryObject(dyn, (lsDynamicItem){ls_hitVehicle, i}, input, best);
    }
    for (int i = 0; i < dyn->robotCount; ++i)
    {
        TryObject(dyn, (lsDynamicItem){ls_hitRobot, i}, input, best);
    }
    if (stats != NULL)
    {
        stats->exactTests += dyn->moverCount + dyn->vehicleCount + dyn->robotCount;
    }
}

// Ray parameter where the ray crosses the grid line `line` of one axis (o, d: that axis' origin and direction).
static inline double CrossAt(double line, double o, double d) { return (line - o) / d; }

void lsDynamicObjects_CastRay(const lsDynamicObjects* dyn, const lsRayInput* input, lsRayHit* best,
                              lsDynamicStats* stats)
{
    if (dyn == NULL)
    {
        return;
    }
    const lsDynamicIndex* index = dyn->index;
    if (index == NULL)
    {
        CastAll(dyn, input, best, stats);
        return;
    }
    LS_ASSERT(index->robotCount == dyn->robotCount && index->vehicleCount == dyn->vehicleCount &&
              index->moverCount == dyn->moverCount);
    for (int k = 0; k < index->largeCount; ++k)
    {
        TryObject(dyn, ItemOf(index, index->large[k]), input, best);
    }
    if (stats != NULL)
    {
        stats->exactTests += index->largeCount;
    }
    if (index->nx == 0)
    {
        return;
    }

    // Clip the ray to the grid (slabs). The grid reaches 2 margins beyond every object, so rounding here loses none.
    lsVec2 o = input->origin, d = input->direction;
    double tMin = 0.0, tMax = input->maxFraction;
    lsAABB g = index->bounds;
    double lo[2] = {g.lower.x, g.lower.y}, hi[2] = {g.upper.x, g.upper.y}, os[2] = {o.x, o.y}, ds[2] = {d.x, d.y};
    for (int axis = 0; axis < 2; ++axis)
    {
        if (ds[axis] == 0.0)
        {
            if (os[axis] < lo[axis] || os[axis] > hi[axis])
            {
                return;
            }
            continue;
        }
        double t1 = CrossAt(lo[axis], os[axis], ds[axis]), t2 = CrossAt(hi[axis], os[axis], ds[axis]);
        tMin = lsFmax(tMin, lsFmin(t1, t2));
        tMax = lsFmin(tMax, lsFmax(t1, t2));
    }
    if (tMin > tMax)
    {
        return;
    }

    double cell = index->cellSize;
    lsVec2 p = lsMulAdd(o, tMin, d);
    int ix = CellOf(p.x, g.lower.x, index->inverse, index->nx);
    int iy = CellOf(p.y, g.lower.y, index->inverse, index->ny);
    int sx = d.x > 0.0 ? 1 : (d.x < 0.0 ? -1 : 0);
    int sy = d.y > 0.0 ? 1 : (d.y < 0.0 ? -1 : 0);
    // Keep walking while a hit in the next cell could still win: a tolerance far above the rounding of CrossAt.
    double tolerance = 1e-6 * cell / lsFmax(fabs(d.x), fabs(d.y));
    for (;;)
    {
        int c = iy * index->nx + ix;
        for (int k = index->cellStart[c]; k < index->cellStart[c + 1]; ++k)
        {
            TryObject(dyn, ItemOf(index, index->items[k]), input, best);
        }
        if (stats != NULL)
        {
            stats->cells += 1;
            stats->exactTests += index->cellStart[c + 1] - index->cellStart[c];
        }
        double tx = sx == 0 ? HUGE_VAL : CrossAt(g.lower.x + (double)(ix + (sx > 0)) * cell, o.x, d.x);
        double ty = sy == 0 ? HUGE_VAL : CrossAt(g.lower.y + (double)(iy + (sy > 0)) * cell, o.y, d.y);
        double tLeave = lsFmin(tx, ty);
        if (tLeave > tMax + tolerance || (best->hit && best->fraction < tLeave - tolerance))
        {
            return;
        }
        if (tx <= ty)
        {
            ix += sx;
        }
        else
        {
            iy += sy;
        }
        if (ix < 0 || ix >= index->nx || iy < 0 || iy >= index->ny)
        {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Scans: the objects near a lidar are gathered once per scan, each with the runs of beams that can reach it
// (beam_runs.h), so a beam tests only the few objects in its direction instead of walking the grid. The objects are
// offered to the beams in object order; the tie-break makes the order irrelevant.

int lsDynamicObjects_GatherSpans(const lsDynamicObjects* dyn, const lsBeamFan* fan, lsDynamicSpan* spans)
{
    LS_ASSERT(dyn != NULL && fan != NULL && spans != NULL);
    lsVec2 origin = fan->origin;
    double reach = fan->range * (1.0 + 1e-9) + 1e-8 * (fabs(origin.x) + fabs(origin.y));
    if (!isfinite(reach))
    {
        return -1;
    }
    lsDynamicItem items[LS_DYNAMIC_SPAN_CAPACITY];
    int n = 0;
    if (dyn->index != NULL)
    {
        lsAABB box = {lsSub(origin, lsV(reach, reach)), lsAdd(origin, lsV(reach, reach))};
        n = lsDynamicIndex_Query(dyn->index, box, items, LS_DYNAMIC_SPAN_CAPACITY);
        if (n > LS_DYNAMIC_SPAN_CAPACITY)
        {
            return -1;
        }
    }
    else
    {
        if (dyn->moverCount + dyn->vehicleCount + dyn->robotCount > LS_DYNAMIC_SPAN_CAPACITY)
        {
            return -1;
        }
        for (int i = 0; i < dyn->moverCount; ++i)
        {
            items[n++] = (lsDynamicItem){ls_hitMover, i};
        }
        for (int i = 0; i < dyn->vehicleCount; ++i)
        {
            items[n++] = (lsDynamicItem){ls_hitVehicle, i};
        }
        for (int i = 0; i < dyn->robotCount; ++i)
        {
            items[n++] = (lsDynamicItem){ls_hitRobot, i};
        }
    }
    int count = 0;
    for (int k = 0; k < n; ++k)
    {
        lsDynamicItem item = items[k];
        lsBeamReach reached;
        if (item.kind == ls_hitMover)
        {
            reached = lsBeamFan_Segment(fan, dyn->movers + item.index, &spans[count].runs);
        }
        else if (item.kind == ls_hitVehicle)
        {
            reached = lsBeamFan_Disc(fan, dyn->vehicles[item.index], &spans[count].runs);
        }
        else if (item.index != dyn->skipRobot)
        {
            reached = lsBeamFan_Disc(fan, dyn->robots[item.index], &spans[count].runs);
        }
        else
        {
            continue;
        }
        if (reached == ls_beamsUnsafe)
        {
            return -1;
        }
        if (reached == ls_beamsSome)
        {
            lsDynamicSpan* span = spans + count++;
            span->item = item;
            span->lo = INT_MAX;
            span->hi = -1;
            for (int run = 0; run < 2; ++run)
            {
                if (span->runs.first[run] <= span->runs.last[run])
                {
                    span->lo = span->runs.first[run] < span->lo ? span->runs.first[run] : span->lo;
                    span->hi = span->runs.last[run] > span->hi ? span->runs.last[run] : span->hi;
                }
            }
        }
    }
    return count;
}

// Pairs of beams CastDiscRun takes at a time.
#define LS_DISC_RUN_PAIRS 32

// The beams lo .. hi of one disc's run (indices into inputs and best, at most 2 LS_DISC_RUN_PAIRS), each answered as
// TryDisc would leave it, through the two-lane common case of the disc cast (geometry_internal.h): a beam whose best
// hit is nearer than the disc can be (near) skips it, a lane the common case leaves undecided goes through TryDisc. The
// reach test TryDisc starts with is left out: it only spares casts whose answers could not win. The run's fractions
// come first, pair by pair, then the hits' points and normals: each pass is a string of independent square roots
// and divisions that overlap, where a pair's fraction then normal would form one long chain.
static void CastDiscRun(lsCircle disc, lsDynamicItem item, const lsCircleCastPrep* prep, const lsRayInput* inputs,
                        lsRayHit* best, int lo, int hi, double near)
{
    LS_ASSERT(hi - lo < 2 * LS_DISC_RUN_PAIRS);
    lsDouble2 dxs[LS_DISC_RUN_PAIRS], dys[LS_DISC_RUN_PAIRS], fractions[LS_DISC_RUN_PAIRS];
    int hits[LS_DISC_RUN_PAIRS], opens[LS_DISC_RUN_PAIRS];
    int pairs = 0;
    for (int i = lo; i <= hi; i += 2, ++pairs)
    {
        int j = i < hi ? i + 1 : i; // an odd run's last beam takes both lanes, answered once
        const lsRayInput* in0 = inputs + i;
        const lsRayInput* in1 = inputs + j;
        lsDouble2 dx = {in0->direction.x, in1->direction.x}, dy = {in0->direction.y, in1->direction.y};
        lsDouble2 L = {in0->maxFraction < DBL_MAX ? in0->maxFraction : DBL_MAX,
                       in1->maxFraction < DBL_MAX ? in1->maxFraction : DBL_MAX}; // fmin's answer for valid inputs
        int miss = lsRayCastCircleCommon2(prep, dx, dy, L, hits + pairs, fractions + pairs);
        const lsRayHit* b0 = best + i;
        const lsRayHit* b1 = best + j;
        int open = (b0->hit && b0->fraction < near ? 0 : 1) | (j != i && !(b1->hit && b1->fraction < near) ? 2 : 0);
        opens[pairs] = open & ~miss;
        dxs[pairs] = dx;
        dys[pairs] = dy;
    }
    for (int pair = 0; pair < pairs; ++pair)
    {
        int open = opens[pair];
        if (open == 0)
        {
            continue;
        }
        lsDouble2 point[2], normal[2], fraction = fractions[pair];
        int completed = lsCompleteCircleHit2(prep, dxs[pair], dys[pair], fraction, point, normal) & hits[pair];
        for (int k = 0; k < 2; ++k)
        {
            int beam = lo + 2 * pair + k;
            lsRayHit* b = best + beam;
            if ((open >> k & 1) == 0)
            {
                continue;
            }
            if ((completed >> k & 1) == 0)
            {
                TryDisc(disc, item.kind, item.index, inputs + beam, b); // rare: the scalar routines decide
                continue;
            }
            lsCastOutput out = {{point[0][k], point[1][k]}, {normal[0][k], normal[1][k]}, fraction[k], true};
            lsRayHit_OfferInline(b, &out, item.kind, item.index, 0);
        }
    }
}

void lsDynamicObjects_CastSpans(const lsDynamicObjects* dyn, const lsDynamicSpan* spans, int spanCount, int first,
                                const lsRayInput* inputs, int count, lsRayHit* best)
{
    LS_ASSERT(dyn != NULL && (spanCount == 0 || spans != NULL));
    int last = first + count - 1;
    for (int s = 0; s < spanCount; ++s)
    {
        const lsDynamicSpan* span = spans + s;
        if (span->lo > last || span->hi < first)
        {
            continue;
        }
        const lsCircle* disc = DiscOf(dyn, span->item); // told once per object, not per beam
        lsCircleCastPrep prep;
        bool prepared = false;
        for (int run = 0; run < 2; ++run)
        {
            // The run's beams in this block, as indices into inputs and best.
            int lo = (span->runs.first[run] > first ? span->runs.first[run] : first) - first;
            int hi = (span->runs.last[run] < last ? span->runs.last[run] : last) - first;
            if (lo > hi)
            {
                continue;
            }
            if (disc == NULL)
            {
                for (int i = lo; i <= hi; ++i)
                {
                    lsRayHit* b = best + i;
                    if (!(b->hit && b->fraction < span->runs.near)) // else it can neither win nor tie
                    {
                        TryObject(dyn, span->item, inputs + i, b);
                    }
                }
                continue;
            }
            if (!prepared)
            {
                lsPrepareCircleCast(inputs[lo].origin, disc->center, disc->radius, &prep); // the fan's origin
                prepared = true;
            }
            if (!prep.outside)
            {
                for (int i = lo; i <= hi; ++i)
                {
                    lsRayHit* b = best + i;
                    if (!(b->hit && b->fraction < span->runs.near))
                    {
                        TryDisc(*disc, span->item.kind, span->item.index, inputs + i, b);
                    }
                }
                continue;
            }
            for (int from = lo; from <= hi; from += 2 * LS_DISC_RUN_PAIRS) // a scan's blocks may be longer
            {
                int to = hi - from < 2 * LS_DISC_RUN_PAIRS ? hi : from + 2 * LS_DISC_RUN_PAIRS - 1;
                CastDiscRun(*disc, span->item, &prep, inputs, best, from, to, span->runs.near);
            }
        }
    }
}

// Ray casts of the scene: the grid walked cell by cell along each ray (Amanatides and Woo, "A Fast Voxel Traversal
// Algorithm for Ray Tracing", 1987), plus brute-force tests of the moving objects and the brute-force reference.
//
// The walk stops once the answer is known to lie before the exit of the current cell by more than the grid's slop
// (a hit found in the current cell but lying in a later cell does not end the walk early).
//
// Exactness: the index never computes an answer itself. Each candidate gets floating-point bounds on the fraction
// the exact routine would return (with generous margins); those that certainly cannot win are skipped, the others
// are deferred, and when the walk ends they are cast by the exact geometry routines of geometry.c, nearest bound
// first, until the rest are strictly farther. Those are the same calls on the same doubles that the brute-force
// path makes, so both paths agree bit for bit, and ties at equal fraction are broken the same way (kind, index,
// part). On the bench worlds this is about one exact cast per ray.
//
// Memory: each cell's segments and targets are stored in place (packed records), so a ray reads a few contiguous
// cache lines per cell; each step prefetches the cells ahead, and lsScene_CastRays walks the rays of a big index in
// lock step, so that one ray's cache misses overlap the others' work (see there).
#include "core/dynamic.h"
#include "core/scene_bounds.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts

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
        // The whole exact routine, not its inlined common case: the reference shares no shortcut with the index.
        lsCastOutput out = lsRayCastSegmentFull(scene->segments + s, input);
        if (Beats(&out, ls_hitWall, scene->segmentChain[s], scene->segmentPart[s], &best))
        {
            Take(&best, &out, ls_hitWall, scene->segmentChain[s], scene->segmentPart[s]);
        }
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

// Both stages: returns false when the segment certainly cannot beat limit, else writes tLo and tHi.
static LS_FORCE_INLINE bool BoundSegment(const lsSegment* seg, lsVec2 o, lsVec2 d, double dd, double limit,
                                         double maxFraction, double sideError, double* tLo, double* tHi)
{
    SegmentSides s;
    return SidesOfSegment(seg, o, d, sideError, &s) &&
           BoundCrossing(seg, &s, d, dd, limit, maxFraction, sideError, tLo, tHi);
}

// A primitive whose exact cast is deferred until the walk knows whether it can win. Its identity is read only when it
// is cast: a segment's (chain, part) lies in a parallel array that would cost a cache miss per deferral.
typedef struct Pending
{
    double tLo;
    int field; // ls_fieldSegment, ls_fieldShape or ls_fieldTarget
    int item;  // index into segItems, shapeItems or targetItems
} Pending;

#define LS_PENDING_CAPACITY 32

// A pending primitive's identity: (chain, part) for a segment, (index, 0) for a target, (code, 0) for a shape.
static LS_FORCE_INLINE void PendingIdentity(const lsScene* scene, Pending p, int* id0, int* id1)
{
    *id1 = 0;
    if (p.field == ls_fieldSegment)
    {
        *id0 = scene->segItemRefs[p.item].chain;
        *id1 = scene->segItemRefs[p.item].part;
    }
    else
    {
        *id0 = p.field == ls_fieldTarget ? scene->targetItems[p.item].index : scene->shapeItems[p.item];
    }
}

// The exact cast of a pending primitive, offered to best (id0: a target's index or a shape's code).
static LS_FORCE_INLINE void CastPending(const lsScene* scene, const lsRayInput* input, Pending p, int id0,
                                        lsRayHit* best, lsCastStats* stats)
{
    if (stats != NULL)
    {
        stats->exactTests += 1;
    }
    if (p.field == ls_fieldSegment)
    {
        TrySegmentRecord(scene->segItems + p.item, scene->segItemRefs + p.item, input, best);
    }
    else if (p.field == ls_fieldTarget)
    {
        TryTarget(&scene->targetItems[p.item].circle, id0, input, best);
    }
    else
    {
        TryShape(scene, id0, input, best);
    }
}

// Casts pending primitives exactly, nearest lower bound first, until the rest are strictly farther than the best.
// A primitive registered in several cells may be pending once per cell. Its copies have the same bound (the same
// operations on the same doubles), so they come one after the other unless another bound equals theirs, and all but
// the first are skipped; a copy cast again (that rare case) cannot change the best, as a tie with itself loses.
static LS_FORCE_INLINE void Resolve(const lsScene* scene, const lsRayInput* input, Pending* pending, int count,
                                    lsRayHit* best, lsCastStats* stats)
{
    int id0, id1;
    if (count == 1)
    {
        // The most common list (one candidate: nothing to select, no copy to skip).
        if (!(best->hit && pending[0].tLo > best->fraction))
        {
            PendingIdentity(scene, pending[0], &id0, &id1);
            CastPending(scene, input, pending[0], id0, best, stats);
        }
        return;
    }
    int lastField = -1, lastId0 = 0, lastId1 = 0;
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
        PendingIdentity(scene, p, &id0, &id1);
        if (p.field == lastField && id0 == lastId0 && id1 == lastId1)
        {
            continue;
        }
        lastField = p.field, lastId0 = id0, lastId1 = id1;
        CastPending(scene, input, p, id0, best, stats);
    }
}

// The same out of line, for a pending list that fills up during the walk (rare); the walk's end inlines Resolve.
static void ResolveFull(const lsScene* scene, const lsRayInput* input, Pending* pending, int count, lsRayHit* best,
                        lsCastStats* stats)
{
    Resolve(scene, input, pending, count, best, stats);
}

// What the walk knows about the answer so far, updated as candidates are bounded.
typedef struct WalkState
{
    Pending pending[LS_PENDING_CAPACITY];
    int pendingCount;
    double known; // the final answer's fraction is certainly at most this (best exact hit or a certain pending hit)
    double limit; // min(known, maxFraction): candidates whose bound lies beyond are skipped
} WalkState;

// Lowers known to tHi (a pending candidate's certain hit) or best's fraction. best changes during the walk only when
// the pending list fills up (Defer), so the walk's candidates need not read it.
static inline void Tighten(WalkState* w, double tHi, double maxFraction)
{
    w->known = tHi < w->known ? tHi : w->known;
    w->limit = w->known < maxFraction ? w->known : maxFraction;
}

// Adds a primitive to the pending list (resolving the list first when it is full).
static inline void Defer(const lsScene* scene, const lsRayInput* input, WalkState* w, Pending p, lsRayHit* best,
                         lsCastStats* stats)
{
    p.tLo =
        Max(p.tLo, -HUGE_VAL); // a bound lost to overflow (NaN) must sort first, never be dropped (maxsd: no branch)
    if (w->pendingCount == LS_PENDING_CAPACITY)
    {
        ResolveFull(scene, input, w->pending, w->pendingCount, best, stats);
        w->pendingCount = 0; // the rest were strictly farther than the best
        Tighten(w, best->hit ? best->fraction : HUGE_VAL, input->maxFraction);
    }
    w->pending[w->pendingCount++] = p;
}

// The primitives outside the grid: displaced targets and long segments and shapes (none in most worlds), each
// bounded against the best so far and cast at once when it may win.
void lsScene_CastOutsideGrid(const lsScene* scene, const lsRayInput* input, double dd, lsRayHit* best,
                             lsCastStats* stats)
{
    lsVec2 o = input->origin, d = input->direction;
    double maxFraction = input->maxFraction;
    for (int k = 0; k < scene->displacedCount; ++k)
    {
        int i = scene->displaced[k];
        double tLo, tHi, limit = best->hit && best->fraction < maxFraction ? best->fraction : maxFraction;
        if (scene->targetActive[i] && BoundCircle(scene->targets + i, o, d, dd, limit, maxFraction, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TryTarget(scene->targets + i, i, input, best);
        }
    }
    // Long segments, each bounded with the rounding of its own far endpoints.
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        int id = scene->longSegments[k];
        const lsSegment* seg = scene->segments + id;
        double tLo, tHi, limit = best->hit && best->fraction < maxFraction ? best->fraction : maxFraction;
        double far = Max(fabs(seg->a.x - o.x) + fabs(seg->a.y - o.y), fabs(seg->b.x - o.x) + fabs(seg->b.y - o.y));
        if (BoundSegment(seg, o, d, dd, limit, maxFraction, 1e-14 * (fabs(d.x) + fabs(d.y)) * far, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TrySegment(seg, scene->segmentChain[id], scene->segmentPart[id], input, best);
        }
    }
    for (int k = 0; k < scene->longShapeCount; ++k)
    {
        int code = scene->longShapes[k];
        double tLo, tHi, limit = best->hit && best->fraction < maxFraction ? best->fraction : maxFraction;
        if (BoundCircle(scene->shapeCircles + code, o, d, dd, limit, maxFraction, &tLo, &tHi))
        {
            if (stats != NULL)
            {
                stats->exactTests += 1;
            }
            TryShape(scene, code, input, best);
        }
    }
}

// A cell's targets, boxes and polygons (most cells have none, so this stays out of the walk's loop).
static void BoundCellShapes(const lsScene* scene, const CellHeader* h, const lsRayInput* input, double dd, WalkState* w,
                            lsRayHit* best, lsCastStats* stats)
{
    lsVec2 o = input->origin, d = input->direction;
    double maxFraction = input->maxFraction;
    for (int k = h[0].target; k < h[1].target; ++k)
    {
        const CellTarget* ct = scene->targetItems + k;
        double tLo, tHi;
        if (ct->active && BoundCircle(&ct->circle, o, d, dd, w->limit, maxFraction, &tLo, &tHi))
        {
            Defer(scene, input, w, (Pending){tLo, ls_fieldTarget, k}, best, stats);
            Tighten(w, tHi, maxFraction);
        }
    }
    for (int k = h[0].shape; k < h[1].shape; ++k)
    {
        // Boxes and polygons are few: bounded by their bounding circle only.
        int code = scene->shapeItems[k];
        double tLo, tHi;
        if (BoundCircle(scene->shapeCircles + code, o, d, dd, w->limit, maxFraction, &tLo, &tHi))
        {
            Defer(scene, input, w, (Pending){tLo, ls_fieldShape, k}, best, stats);
        }
    }
}

// One ray's walk through the grid: the ray, its steps' constants and where it is (the cell, the fractions at which it
// crosses the cell's next boundaries). Kept apart from the candidates (WalkState) and the best hit, whose addresses
// the walk passes on, so that a single cast keeps this in registers.
typedef struct Walk
{
    const lsRayInput* input;
    double ox, oy, dx, dy, maxFraction, dd;
    // The grid's corner and cell size; the inverses of the direction's components (0 for a zero component); what is
    // added to a crossing (0, or HUGE_VAL for an axis the ray does not move along: its crossings never come first).
    double gx0, gy0, s, invDx, invDy, neverX, neverY;
    // What a step adds to the crossing of its axis: {0, s |1 / dx|} in x and the same in y, indexed by whether the
    // step is along that axis.
    double advanceX[2], advanceY[2];
    int stepX, stepY, upX, upY; // each axis' step (-1, 0 or 1) and whether it goes up
    int stepYCells;             // stepY nx: the step in y as a cell index
    int ix, iy, cell;
    double tMaxX, tMaxY;
    double margin;    // how far (in fraction) a hit must lie before a cell's exit for the walk to stop there
    double tStop;     // where the ray leaves the grid, plus the margin
    double sideError; // bounds the rounding of the sides of every endpoint the walk can meet
} Walk;

// The fraction at which the ray crosses the next vertical boundary of column ix, from the boundary's coordinate. The
// walk adds s / |dx| per column from there: n steps drift by about n ulps, which, like the rounding of a single
// crossing, is far below the slop of a cell that the primitives are registered with.
static LS_FORCE_INLINE double CrossingX(const Walk* a, int ix)
{
    return (a->gx0 + (double)(ix + a->upX) * a->s - a->ox) * a->invDx + a->neverX;
}

/// The same for the next horizontal boundary of row iy.
static LS_FORCE_INLINE double CrossingY(const Walk* a, int iy)
{
    return (a->gy0 + (double)(iy + a->upY) * a->s - a->oy) * a->invDy + a->neverY;
}

// Places the walk in cell (ix, iy).
static LS_FORCE_INLINE void Enter(Walk* a, int nx, int ix, int iy)
{
    a->ix = ix, a->iy = iy, a->cell = iy * nx + ix;
    a->tMaxX = CrossingX(a, ix), a->tMaxY = CrossingY(a, iy);
}

// The start of a cast: the moving objects and the primitives outside the grid (an early best shortens the walk), then
// the ray clipped to the grid and its first cell. False when nothing is left to walk (best is then the answer).
static LS_FORCE_INLINE bool WalkStart(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                                      Walk* a, WalkState* w, lsRayHit* best, lsCastStats* stats)
{
    LS_ASSERT(scene != NULL && input != NULL);
    // lsIsValidVec2 of the origin and the direction, in fewer operations: x - x is 0 when x is finite, else NaN (both
    // coordinates at once in SSE2's lanes where there are some: 25 instructions per ray as scalars).
#if defined(__SSE2__)
    __m128d originV = _mm_loadu_pd(&input->origin.x), directionV = _mm_loadu_pd(&input->direction.x);
    __m128d finiteV = _mm_add_pd(_mm_sub_pd(originV, originV), _mm_sub_pd(directionV, directionV));
    LS_ASSERT(_mm_movemask_pd(_mm_cmpeq_pd(finiteV, _mm_setzero_pd())) == 3 && !isnan(input->maxFraction));
#else
    LS_ASSERT((input->origin.x - input->origin.x) + (input->origin.y - input->origin.y) +
                      (input->direction.x - input->direction.x) + (input->direction.y - input->direction.y) ==
                  0.0 &&
              !isnan(input->maxFraction));
#endif
    *best = NoHit();
    w->pendingCount = 0;
    if (stats != NULL)
    {
        stats->rays += 1;
    }
    if (!ValidInput(input))
    {
        return false;
    }
    lsVec2 o = input->origin, d = input->direction;
    double maxFraction = input->maxFraction;
    double dd = d.x * d.x + d.y * d.y;
    if (dyn != NULL)
    {
        CastDynamic(dyn, input, best, false);
    }
    if (scene->displacedCount + scene->longSegmentCount + scene->longShapeCount > 0)
    {
        lsScene_CastOutsideGrid(scene, input, dd, best, stats);
    }
    if (scene->nx == 0)
    {
        return false;
    }

    // Clip the ray to the grid (slab test); the grid has a margin of one cell beyond all static geometry.
    double s = scene->cellSize;
    double gx0 = scene->x0, gy0 = scene->y0;
    double gx1 = scene->x1, gy1 = scene->y1;
    double tEnter = 0.0, tLeave = maxFraction;
    double invDx = d.x != 0.0 ? 1.0 / d.x : 0.0, invDy = d.y != 0.0 ? 1.0 / d.y : 0.0;
    if (d.x != 0.0)
    {
        double t0 = (gx0 - o.x) * invDx, t1 = (gx1 - o.x) * invDx;
        tEnter = Max(Min(t0, t1), tEnter);
        tLeave = Min(Max(t0, t1), tLeave);
    }
    else if (o.x < gx0 || o.x > gx1)
    {
        return false;
    }
    if (d.y != 0.0)
    {
        double t0 = (gy0 - o.y) * invDy, t1 = (gy1 - o.y) * invDy;
        tEnter = Max(Min(t0, t1), tEnter);
        tLeave = Min(Max(t0, t1), tLeave);
    }
    else if (o.y < gy0 || o.y > gy1)
    {
        return false;
    }
    if (tEnter > tLeave)
    {
        return false;
    }

    // Signs and selections below are computed without branches: a ray's direction is random to the predictor.
    int stepX = (d.x > 0.0) - (d.x < 0.0), stepY = (d.y > 0.0) - (d.y < 0.0);
    // Field by field: a compound literal would clear the whole walk first.
    a->input = input;
    a->ox = o.x, a->oy = o.y, a->dx = d.x, a->dy = d.y, a->maxFraction = maxFraction, a->dd = dd;
    a->gx0 = gx0, a->gy0 = gy0, a->s = s, a->invDx = invDx, a->invDy = invDy;
    a->neverX = stepX != 0 ? 0.0 : HUGE_VAL, a->neverY = stepY != 0 ? 0.0 : HUGE_VAL;
    a->advanceX[0] = 0.0, a->advanceX[1] = s * fabs(invDx), a->advanceY[0] = 0.0, a->advanceY[1] = s * fabs(invDy);
    a->stepX = stepX, a->stepY = stepY, a->upX = stepX > 0, a->upY = stepY > 0, a->stepYCells = stepY * scene->nx;
    Enter(a, scene->nx, CellX(scene, o.x + tEnter * d.x), CellY(scene, o.y + tEnter * d.y));
    // The margin: the slop in metres over the ray's speed, with room to spare.
    a->margin = 4.0 * scene->slop / Max(fabs(d.x), fabs(d.y));
    a->tStop = tLeave + a->margin;
    // Every segment met lies in a visited cell, within tLeave |d| plus two cell diagonals of the origin, so its
    // endpoints are within R of the origin in each coordinate; cross(d, p - o) then rounds by less than
    // 3 eps (|dx| + |dy|) R, far below sideError.
    double speed = fabs(d.x) + fabs(d.y); // >= |d|
    double reach = tLeave * speed + 4.0 * s + scene->maxSegmentLength + scene->slop;
    a->sideError = 1e-14 * speed * reach;
    w->known = best->hit ? best->fraction : HUGE_VAL;
    w->limit = w->known < maxFraction ? w->known : maxFraction;
    return true;
}

// What a step of the walk did.
typedef enum WalkStepResult
{
    ls_walkEnd,    // the walk is over: the pending candidates decide the answer
    ls_walkOn,     // on to the next cell, whose header and records are on their way (with lookAhead)
    ls_walkJumped, // across an empty square of cells, to a cell nothing was fetched for
} WalkStepResult;

// One step of the walk: the current cell's candidates bounded and the next cell found, or an empty square of cells
// crossed. lookAhead: prefetch the cells ahead (not worth its instructions when they are in the cache: the beams of a
// scan). inLanes: the walk of a lane (CastLanes), which keeps the side test's other form (see SidesOfSegmentAs).
static LS_FORCE_INLINE WalkStepResult WalkStep(const lsScene* scene, Walk* a, WalkState* w, lsRayHit* best,
                                               bool lookAhead, bool inLanes, lsCastStats* stats)
{
    lsVec2 o = {a->ox, a->oy}, d = {a->dx, a->dy};
    double maxFraction = a->maxFraction;
    int ix = a->ix, iy = a->iy, cell = a->cell;
    double tMaxX = a->tMaxX, tMaxY = a->tMaxY;
    const CellHeader* h = scene->cells + cell;
    if (LS_UNLIKELY(h->clearance > 1))
    {
        // The square of cells within r of this one is empty (a sparse grid's open room): leave it in one step,
        // through whichever of its far sides the ray meets first, into the cell beyond at that point. The point
        // rounds by far less than the slop, so the cell chosen is one the exact ray touches or comes within the slop
        // of, as the cell-by-cell walk's (its row or column clamped to the square's).
        if (stats != NULL)
        {
            stats->cells += 1;
        }
        int nx = scene->nx, ny = scene->ny, r = h->clearance - 1;
        double tBX = CrossingX(a, ix + a->stepX * r), tBY = CrossingY(a, iy + a->stepY * r);
        double tB = tBX < tBY ? tBX : tBY;
        if (tB >= a->tStop || w->known < tB - a->margin)
        {
            return ls_walkEnd;
        }
        if (tBX < tBY)
        {
            int row = CellY(scene, o.y + tB * d.y);
            ix += a->stepX * (r + 1);
            iy = row < iy - r ? iy - r : (row > iy + r ? iy + r : row);
        }
        else
        {
            int column = CellX(scene, o.x + tB * d.x);
            iy += a->stepY * (r + 1);
            ix = column < ix - r ? ix - r : (column > ix + r ? ix + r : column);
        }
        if (ix < 0 || ix >= nx || iy < 0 || iy >= ny)
        {
            return ls_walkEnd;
        }
        Enter(a, nx, ix, iy);
        return ls_walkJumped;
    }
    if (stats != NULL)
    {
        stats->cells += 1;
        stats->candidates += (h[1].seg - h[0].seg) + (h[1].shape - h[0].shape) + (h[1].target - h[0].target);
    }
    // The next cell is one step in x or in y, whichever boundary comes first. A random ray (lookAhead) finds its
    // next cell now with masks, not a branch (the direction of its steps is random to the predictor), and then the
    // cell after it, so that memory is on its way while this cell's records are tested: the header of the cell
    // after next and the records of the next one (whose header was requested a step ago). An index outside the grid
    // (the walk stops before it) is taken as the headers' end, or as the last cell where the next header is read.
    const CellSegment* segItems = scene->segItems;
    int nextIx = ix, nextIy = iy, nextCell = cell;
    double nextMaxX = tMaxX, nextMaxY = tMaxY;
    if (lookAhead)
    {
        int xStep = tMaxX < tMaxY, xMask = -xStep;
        nextIx += a->stepX & xMask, nextIy += a->stepY & ~xMask;
        nextCell += (a->stepX & xMask) + (a->stepYCells & ~xMask);
        nextMaxX += a->advanceX[xStep], nextMaxY += a->advanceY[xStep ^ 1];
        int afterMask = -(nextMaxX < nextMaxY);
        int afterCell = nextCell + (a->stepX & afterMask) + (a->stepYCells & ~afterMask);
        unsigned afterIndex = (unsigned)afterCell, nextIndex = (unsigned)nextCell;
        unsigned cellCount = (unsigned)scene->nx * (unsigned)scene->ny;
        LS_PREFETCH(scene->cells + (afterIndex < cellCount ? afterIndex : cellCount));
        const CellHeader* nh = scene->cells + (nextIndex < cellCount ? nextIndex : cellCount - 1); // reads nh[1]
        LS_PREFETCH(segItems + nh[0].seg);
        LS_PREFETCH(segItems + nh[1].seg - 1);
    }
    double dd = a->dd, sideError = a->sideError;
    for (int k = h[0].seg, end = h[1].seg; k < end; ++k)
    {
        SegmentSides sides;
        double tLo, tHi;
        if (SidesOfSegmentAs(segItems + k, o, d, sideError, &sides, !inLanes) &&
            BoundCrossing(segItems + k, &sides, d, dd, w->limit, maxFraction, sideError, &tLo, &tHi))
        {
            LS_PREFETCH(scene->segItemRefs + k); // its identity, read if it is cast when the walk ends
            Defer(scene, a->input, w, (Pending){tLo, ls_fieldSegment, k}, best, stats);
            Tighten(w, tHi, maxFraction);
        }
    }
    bool hasShapes = scene->targetItemCount + scene->shapeItemCount > 0;
    if (hasShapes & (((h[1].target - h[0].target) | (h[1].shape - h[0].shape)) != 0)) // one branch
    {
        BoundCellShapes(scene, h, a->input, dd, w, best, stats);
    }

    double tExit = Min(tMaxX, tMaxY);
    if ((tExit >= a->tStop) | (w->known < tExit - a->margin))
    {
        return ls_walkEnd;
    }
    if (!lookAhead)
    {
        // The beams of a scan step alike, so a predicted branch costs less than the masks' longer chain of
        // dependent operations from one step to the next (a walk of many cells: the depot map).
        if (tMaxX < tMaxY)
        {
            nextIx += a->stepX, nextCell += a->stepX, nextMaxX += a->advanceX[1];
        }
        else
        {
            nextIy += a->stepY, nextCell += a->stepYCells, nextMaxY += a->advanceY[1];
        }
    }
    a->ix = nextIx, a->iy = nextIy, a->cell = nextCell, a->tMaxX = nextMaxX, a->tMaxY = nextMaxY;
    return (unsigned)nextIx < (unsigned)scene->nx && (unsigned)nextIy < (unsigned)scene->ny ? ls_walkOn : ls_walkEnd;
}

// The walk of one ray. stats may be NULL; the public entry points inline this with and without counting.
static LS_FORCE_INLINE void Cast(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                                 bool lookAhead, lsCastStats* stats, lsRayHit* best)
{
    Walk a;
    WalkState w;
    if (WalkStart(scene, dyn, input, &a, &w, best, stats))
    {
        while (WalkStep(scene, &a, &w, best, lookAhead, false, stats) != ls_walkEnd)
        {
        }
    }
    Resolve(scene, input, w.pending, w.pendingCount, best, stats);
}

lsRayHit lsScene_CastRayStats(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                              lsCastStats* stats)
{
    LS_ASSERT(stats != NULL);
    lsRayHit best;
    Cast(scene, dyn, input, true, stats, &best);
    return best;
}

lsRayHit lsScene_CastRay(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input)
{
    lsRayHit best;
    Cast(scene, dyn, input, true, NULL, &best);
    return best;
}

lsRayHit lsScene_WalkRay(const lsScene* scene, const lsRayInput* input)
{
    lsRayHit best;
    Cast(scene, NULL, input, false, NULL, &best);
    return best;
}

// A ray walked in lock step with others by lsScene_CastRays; its best hit so far is kept in its place in the output.
// When a ray's walk ends, the next ray starts in the other half of the lane, and the ended one is resolved a round
// later (the identities of its deferred segments, prefetched when they were deferred, have arrived by then), in the
// round that requests the new ray's first cell.
typedef struct Lane
{
    Walk walk;          // the ray being walked
    WalkState state[2]; // its candidates (state[cur]), and those of the ray before it
    int ray, lastRay;   // the rays of the two halves (-1: none; the lane is spent when both are)
    int cur;
    bool fetched; // the walked cell's header and records were requested a round ago
} Lane;

// Requests what the lane's next step reads: the current cell's header (arrived by now) says where its records are,
// and the next cell's header is read by the step's lookahead.
static LS_FORCE_INLINE void FetchCell(const lsScene* scene, const Walk* a)
{
    const CellHeader* h = scene->cells + a->cell;
    if (h->clearance > 1)
    {
        return; // the step crosses the empty square around the cell without reading a record
    }
    LS_PREFETCH(scene->segItems + h[0].seg);
    LS_PREFETCH(scene->segItems + h[1].seg - 1);
    int xMask = -(a->tMaxX < a->tMaxY);
    unsigned next = (unsigned)(a->cell + (a->stepX & xMask) + (a->stepYCells & ~xMask));
    unsigned cellCount = (unsigned)scene->nx * (unsigned)scene->ny;
    LS_PREFETCH(scene->cells + (next < cellCount ? next : cellCount));
}

#define LS_LANES 8
#define LS_LANES_MIN_INDEX_BYTES ((size_t)8 << 20)

// Starts the lane's current half on the next ray that needs a walk and requests its first cell's header; the other
// rays (one that ends before the grid; a scan's beam from the previous ray's origin, whose cells are cached: walked at
// once) are answered on the way.
static LS_FORCE_INLINE void StartLane(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs,
                                      int count, int* next, lsRayHit* hits, Lane* lane)
{
    WalkState* w = lane->state + lane->cur;
    lane->fetched = false;
    while (*next < count)
    {
        int i = (*next)++;
        if (i > 0 && inputs[i].origin.x == inputs[i - 1].origin.x && inputs[i].origin.y == inputs[i - 1].origin.y)
        {
            Cast(scene, dyn, inputs + i, false, NULL, hits + i);
            continue;
        }
        if (WalkStart(scene, dyn, inputs + i, &lane->walk, w, hits + i, NULL))
        {
            LS_PREFETCH(scene->cells + lane->walk.cell);
            lane->ray = i;
            return;
        }
    }
    lane->ray = -1;
}

// The rays walked LS_LANES at a time, in lock step (see lsScene_CastRays); out of line, so a batch of a small index
// does not reserve the lanes' stack.
static LS_NOINLINE void CastLanes(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs,
                                  int count, lsRayHit* hits)
{
    // The rays are walked LS_LANES at a time, in lock step, one cell per ray and round, so that each ray's
    // memory (its cells' headers, then their records: two dependent cache misses per cell) arrives while the other
    // rays are worked on ("group prefetching": Chen, Ailamaki, Gibbons and Mowry, "Improving Hash Join Performance
    // through Prefetching", 2004). A step requests the next cell's records and the header of the cell after it; a
    // ray's first cell, and the cell after an empty square, take a round of their own to request theirs.
    Lane lanes[LS_LANES];
    int next = 0, live = LS_LANES;
    for (int l = 0; l < LS_LANES; ++l)
    {
        lanes[l].cur = 0;
        lanes[l].lastRay = -1;
        StartLane(scene, dyn, inputs, count, &next, hits, lanes + l);
    }
    while (live > 0)
    {
        for (int l = 0; l < LS_LANES; ++l)
        {
            Lane* lane = lanes + l;
            if (lane->fetched)
            {
                int cur = lane->cur;
                WalkStepResult r = WalkStep(scene, &lane->walk, lane->state + cur, hits + lane->ray, true, true, NULL);
                if (r == ls_walkOn)
                {
                    continue;
                }
                if (r == ls_walkJumped)
                {
                    LS_PREFETCH(scene->cells + lane->walk.cell);
                    lane->fetched = false;
                    continue;
                }
                lane->lastRay = lane->ray;
                lane->cur = cur ^ 1;
                StartLane(scene, dyn, inputs, count, &next, hits, lane);
                continue;
            }
            if (lane->lastRay >= 0)
            {
                WalkState* w = lane->state + (lane->cur ^ 1);
                int i = lane->lastRay;
                Resolve(scene, inputs + i, w->pending, w->pendingCount, hits + i, NULL);
                lane->lastRay = -1;
            }
            if (lane->ray >= 0)
            {
                FetchCell(scene, &lane->walk);
                lane->fetched = true;
            }
            else if (lane->ray == -1)
            {
                lane->ray = -2; // spent
                --live;
            }
        }
    }
}

void lsScene_CastRays(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs, int count,
                      lsRayHit* hits)
{
    LS_ASSERT(scene != NULL && count >= 0 && (count == 0 || (inputs != NULL && hits != NULL)));
    // An index of up to a few megabytes (a quarter of the shared last-level cache of this class of machine) stays
    // cached between rays and is walked a ray at a time: a walk kept in registers costs fewer instructions than one
    // kept in a lane, and the step's lookahead hides what misses. The first cell of each ray (where the walk's
    // lookahead has not started) is fetched rays ahead: its header 8 rays ahead, then its first records 4 rays ahead
    // (the header has arrived by then); each ray's first cell is computed once and kept in a ring for its second use.
    size_t indexBytes = ((size_t)scene->nx * (size_t)scene->ny + 1) * sizeof(CellHeader) +
                        (size_t)scene->segItemCount * (sizeof(CellSegment) + sizeof(CellRef));
    if (indexBytes < LS_LANES_MIN_INDEX_BYTES)
    {
        bool prefetch = scene->nx > 0; // without a grid (no static geometry) CellOf is -1: nothing to fetch
        int ring[8] = {0};
        for (int i = 0; i < 8 && i < count && prefetch; ++i)
        {
            ring[i] = CellOf(scene, inputs[i].origin);
        }
        for (int i = 0; i < count; ++i)
        {
            if (prefetch && i + 8 < count)
            {
                ring[i & 7] = CellOf(scene, inputs[i + 8].origin);
                LS_PREFETCH(scene->cells + ring[i & 7]);
            }
            if (prefetch && i + 4 < count)
            {
                const CellHeader* h = scene->cells + ring[(i + 4) & 7];
                LS_PREFETCH(scene->segItems + h[0].seg);
            }
            // A ray from the previous ray's origin (a scan's beams) walks cells that are in the cache already.
            bool sameOrigin =
                i > 0 && inputs[i].origin.x == inputs[i - 1].origin.x && inputs[i].origin.y == inputs[i - 1].origin.y;
            if (sameOrigin) // two copies of the walk, each with its lookAhead known
            {
                Cast(scene, dyn, inputs + i, false, NULL, hits + i);
            }
            else
            {
                Cast(scene, dyn, inputs + i, true, NULL, hits + i);
            }
        }
        return;
    }
    CastLanes(scene, dyn, inputs, count, hits); // otherwise in lock step: see there
}

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
#define _POSIX_C_SOURCE 200809L // sysconf
#include "core/dynamic.h"
#include "core/scene_bounds.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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
// the first are skipped; a copy cast again (that rare case) cannot change the best, as a tie with itself loses. (A
// sparse grid's packets bound each copy by its piece in its cell, so there copies' bounds may differ: see there.)
// zeroTies: skip the walls that cannot win a tie at fraction 0 (ResolveFull's lists only, which a ray from a point
// where thousands of walls meet fills again and again; an instruction per candidate more at every walk's end cost
// city-100k's rays 2.5 %).
static LS_FORCE_INLINE void Resolve(const lsScene* scene, const lsRayInput* input, Pending* pending, int count,
                                    lsRayHit* best, lsCastStats* stats, bool zeroTies)
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
        // A best at fraction 0 (the origin on it) is beaten only by a tie there that comes first: a wall that would
        // lose even that tie is not cast (100 000 walls meeting at the origin cost 13 ms a ray, every one cast).
        if (zeroTies && p.field == ls_fieldSegment && best->hit && best->fraction == 0.0 &&
            !Beats(&(lsCastOutput){.hit = true, .fraction = 0.0}, ls_hitWall, id0, id1, best))
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
    Resolve(scene, input, pending, count, best, stats, true);
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
    double margin;     // how far (in fraction) a hit must lie before a cell's exit for the walk to stop there
    double tStop;      // where the ray leaves the grid, plus the margin
    double sideError;  // bounds the rounding of the sides of every endpoint the walk can meet
    double pieceError; // the same for the ends of a sparse grid's pieces (segPieces), which lie off their lines (set
                       // by Cast where the walk side-tests them)
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
    // A subnormal component's inverse overflows, and a grid line through the origin then gives 0 * inf = NaN
    // crossings (the walk missed walls: SubnormalDirectionTest); the largest finite inverse keeps them 0.
    invDx = Min(Max(invDx, -DBL_MAX), DBL_MAX), invDy = Min(Max(invDy, -DBL_MAX), DBL_MAX);
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
                                               bool lookAhead, bool inLanes, bool pieces, lsCastStats* stats)
{
    lsVec2 o = {a->ox, a->oy}, d = {a->dx, a->dy};
    double maxFraction = a->maxFraction;
    int ix = a->ix, iy = a->iy, cell = a->cell;
    double tMaxX = a->tMaxX, tMaxY = a->tMaxY;
    const CellHeader* h = scene->cells + cell;
    // Any of the cell's squares larger than the cell (none in a dense grid): one load and one branch per cell; the
    // byte of the ray's quadrant (upX + 2 upY) is read only then.
    uint32_t squares;
    memcpy(&squares, h->square, sizeof squares);
    int side;
    if (LS_UNLIKELY((squares & 0xFEFEFEFEu) != 0) && (side = h->square[a->upX + 2 * a->upY]) > 1)
    {
        // The square of side r + 1 with this cell at its corner, on the side the ray goes, is empty (a sparse grid's
        // open room): the ray, in this cell and moving away from the square's near sides, stays in it until it
        // leaves through one of its far sides. Leave it in one step, through whichever far side the ray meets first,
        // into the cell beyond at that point. The point rounds by far less than the slop, so the cell chosen is one
        // the exact ray touches or comes within the slop of, as the cell-by-cell walk's (its row or column clamped to
        // the square's).
        if (stats != NULL)
        {
            stats->cells += 1;
        }
        int nx = scene->nx, ny = scene->ny, r = side - 1;
        double tBX = CrossingX(a, ix + a->stepX * r), tBY = CrossingY(a, iy + a->stepY * r);
        double tB = tBX < tBY ? tBX : tBY;
        if (tB >= a->tStop || w->known < tB - a->margin)
        {
            return ls_walkEnd;
        }
        if (tBX < tBY)
        {
            int row = CellY(scene, o.y + tB * d.y), lo = iy - r + r * a->upY, hi = iy + r * a->upY;
            ix += a->stepX * (r + 1);
            iy = row < lo ? lo : (row > hi ? hi : row);
        }
        else
        {
            int column = CellX(scene, o.x + tB * d.x), lo = ix - r + r * a->upX, hi = ix + r * a->upX;
            iy += a->stepY * (r + 1);
            ix = column < lo ? lo : (column > hi ? hi : column);
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
        const CellSegment* tested = pieces ? scene->segPieces : segItems;
        LS_PREFETCH(tested + nh[0].seg);
        LS_PREFETCH(tested + nh[1].seg - 1);
    }
    double dd = a->dd, sideError = a->sideError;
    for (int k = h[0].seg, end = h[1].seg; k < end; ++k)
    {
        SegmentSides sides;
        double tLo, tHi;
        bool passes;
        if (pieces)
        {
            // A sparse grid's record is side-tested by its piece within the cell (segPieces): a wall of several
            // cells then passes only in the cells where the ray's line crosses it. Where the exact cast meets the
            // record, the ray lies within far less than the slop of a visited cell's box, so that cell's piece
            // (clipped to the box grown by twice the slop; a real end kept where the record ends inside) holds the
            // point with room to spare on both sides: its ends' sides have opposite signs or are zero, up to their
            // rounding (sideError) and how far a clipped end lies off the record's line (pieceError has both).
            // The survivor's bound is the record's own: its sides recomputed (no test: a record whose ends lie on
            // one side after all only costs an exact cast that misses).
            passes = SidesOfSegmentAs(scene->segPieces + k, o, d, a->pieceError, &sides, !inLanes);
            if (passes)
            {
                SidesOfSegmentAs(segItems + k, o, d, sideError, &sides, !inLanes);
            }
        }
        else
        {
            passes = SidesOfSegmentAs(segItems + k, o, d, sideError, &sides, !inLanes);
        }
        if (passes && BoundCrossing(segItems + k, &sides, d, dd, w->limit, maxFraction, sideError, &tLo, &tHi))
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
                                 bool lookAhead, bool pieces, lsCastStats* stats, lsRayHit* best)
{
    Walk a;
    WalkState w;
    if (WalkStart(scene, dyn, input, &a, &w, best, stats))
    {
        if (pieces)
        {
            a.pieceError = a.sideError + (fabs(a.dx) + fabs(a.dy)) * scene->pieceError;
        }
        while (WalkStep(scene, &a, &w, best, lookAhead, false, pieces, stats) != ls_walkEnd)
        {
        }
    }
    Resolve(scene, input, w.pending, w.pendingCount, best, stats, false);
}

lsRayHit lsScene_CastRayStats(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                              lsCastStats* stats)
{
    LS_ASSERT(stats != NULL);
    lsRayHit best;
    if (scene->segPieces != NULL)
    {
        Cast(scene, dyn, input, true, true, stats, &best);
    }
    else
    {
        Cast(scene, dyn, input, true, false, stats, &best);
    }
    return best;
}

lsRayHit lsScene_CastRay(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input)
{
    lsRayHit best;
    if (scene->segPieces != NULL)
    {
        Cast(scene, dyn, input, true, true, NULL, &best);
    }
    else
    {
        Cast(scene, dyn, input, true, false, NULL, &best);
    }
    return best;
}

lsRayHit lsScene_WalkRay(const lsScene* scene, const lsRayInput* input)
{
    lsRayHit best;
    if (scene->segPieces != NULL)
    {
        Cast(scene, NULL, input, false, true, NULL, &best);
    }
    else
    {
        Cast(scene, NULL, input, false, false, NULL, &best);
    }
    return best;
}

// ---------------------------------------------------------------------------------------------------------------------
// Ray packets: four rays walked at once in AVX2 lanes

#if defined(__GNUC__) && defined(__x86_64__) && !defined(LS_NO_PACKETS)
#define LS_PACKETS 1
#include <immintrin.h>

#define LS_AVX2 __attribute__((target("avx2")))

#ifndef LS_PACKET_GROUPS
#define LS_PACKET_GROUPS 2
#endif
#ifndef LS_PACKETS_LOOKAHEAD_BYTES
#define LS_PACKETS_LOOKAHEAD_BYTES ((size_t)512 << 10)
#endif

// A lane's 64-bit mask from its 32-bit one.
static LS_FORCE_INLINE LS_AVX2 __m256d Widen(__m128i m) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(m)); }

// A 64-bit mask's 32-bit one.
static LS_FORCE_INLINE LS_AVX2 __m128i Narrow(__m256d m)
{
    __m256i p = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(m), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    return _mm256_castsi256_si128(p);
}

// Four walks, one per lane, as a Walk holds one (a structure of arrays: the rounds load them as vectors, a lane is
// started by scalar copies). The queue of walks started ahead has the same layout.
typedef struct Packet
{
    _Alignas(32) double ox[4], oy[4], dx[4], dy[4], tMaxX[4], tMaxY[4], advX[4], advY[4], tStop[4], margin[4],
        sideError[4];
    double known[4], maxFraction[4];
    int k[4], kEnd[4], cell[4], stepX[4], stepYCells[4];
    int stepsX[4], stepsY[4]; // the steps in x and in y left before the grid's edge
    int live[4];              // -1: the lane walks a ray; 0: none left
    int entered[4];           // -1: the lane entered its cell this round (its header is to be read)
    int count[4];             // pending candidates
    int ray[4];
    int ix[4], iy[4], stepY[4]; // a sparse grid's walk only: the cell's column and row, the step in y (-1, 0 or 1)
    // A sparse grid's walk (CastPacketsAs with sparse) only: what WalkStep's crossing of an empty square reads (the
    // inverses of the direction's components, 0 for a zero one; HUGE_VAL added to an axis the ray does not move
    // along), and the side tests' error bound for the records' pieces (Walk's pieceError). At the end: in the middle,
    // where they moved the dense walk's integers by 160 bytes, the dense packets lost 7 % on city-10k and 13 % on
    // maze-20k in time (the same instructions; medians of 5 to 7 runs alternated).
    _Alignas(32) double invDx[4], invDy[4], neverX[4], neverY[4], pieceError[4];
    int squareShift[4]; // the bit where the header's byte of the lane's quadrant starts (8 upX + 16 upY)
} Packet;

#define LOADPD(f) _mm256_load_pd(f)
#define LOADI(f) _mm_load_si128((const __m128i*)(f))
#define STOREI(f, v) _mm_store_si128((__m128i*)(f), v)

// Lane l of p set to lane j of q (sparse: with the fields of a sparse grid's walk).
static LS_FORCE_INLINE void CopyLane(Packet* p, int l, const Packet* q, int j, bool sparse)
{
    p->ox[l] = q->ox[j], p->oy[l] = q->oy[j], p->dx[l] = q->dx[j], p->dy[l] = q->dy[j];
    p->tStop[l] = q->tStop[j], p->margin[l] = q->margin[j], p->sideError[l] = q->sideError[j];
    p->known[l] = q->known[j], p->maxFraction[l] = q->maxFraction[j];
    p->cell[l] = q->cell[j], p->stepX[l] = q->stepX[j];
    p->ray[l] = q->ray[j];
    if (!sparse) // a sparse grid's walk computes its crossings from the cell each round
    {
        p->tMaxX[l] = q->tMaxX[j], p->tMaxY[l] = q->tMaxY[j], p->advX[l] = q->advX[j], p->advY[l] = q->advY[j];
        p->stepsX[l] = q->stepsX[j], p->stepsY[l] = q->stepsY[j], p->stepYCells[l] = q->stepYCells[j];
    }
    else
    {
        p->invDx[l] = q->invDx[j], p->invDy[l] = q->invDy[j], p->neverX[l] = q->neverX[j], p->neverY[l] = q->neverY[j];
        p->pieceError[l] = q->pieceError[j];
        p->ix[l] = q->ix[j], p->iy[l] = q->iy[j], p->stepY[l] = q->stepY[j], p->squareShift[l] = q->squareShift[j];
    }
}

// A lane's targets and shapes of the cell it entered (shapes), and its pending list resolved when full: the scalar
// walk's code, on the lane's known and limit.
static LS_NOINLINE void LaneScalar(const lsScene* scene, const lsRayInput* input, lsRayHit* best, WalkState* w,
                                   int cell, bool shapes)
{
    if (shapes)
    {
        double dd = input->direction.x * input->direction.x + input->direction.y * input->direction.y;
        BoundCellShapes(scene, scene->cells + cell, input, dd, w, best, NULL);
    }
    if (w->pendingCount == LS_PENDING_CAPACITY)
    {
        ResolveFull(scene, input, w->pending, w->pendingCount, best, NULL);
        w->pendingCount = 0;
        Tighten(w, best->hit ? best->fraction : HUGE_VAL, input->maxFraction);
    }
}

// Four rays' origins and directions as the lanes' coordinates (ray j in lane j).
static LS_FORCE_INLINE LS_AVX2 void LoadRays(const lsRayInput* r0, const lsRayInput* r1, const lsRayInput* r2,
                                             const lsRayInput* r3, __m256d* ox, __m256d* oy, __m256d* dx, __m256d* dy)
{
    __m256d q02a =
        _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&r0->origin.x)), _mm_loadu_pd(&r2->origin.x), 1);
    __m256d q13a =
        _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&r1->origin.x)), _mm_loadu_pd(&r3->origin.x), 1);
    __m256d q02b =
        _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&r0->direction.x)), _mm_loadu_pd(&r2->direction.x), 1);
    __m256d q13b =
        _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&r1->direction.x)), _mm_loadu_pd(&r3->direction.x), 1);
    *ox = _mm256_unpacklo_pd(q02a, q13a), *oy = _mm256_unpackhi_pd(q02a, q13a);
    *dx = _mm256_unpacklo_pd(q02b, q13b), *dy = _mm256_unpackhi_pd(q02b, q13b);
}

// Four rays' walks started at once (inputs[first + j] in lane j, rays from count on left out), as WalkStart starts a
// ray with nothing outside the grid and no moving objects: the same operations on the same doubles in each lane.
// Each ray's answer is reset; returns the lanes whose ray has a walk (the others are answered). sparse: with the fields
// of a sparse grid's walk (the cell's column and row, the crossings' constants, the pieces' error bound as Cast's).
static LS_FORCE_INLINE LS_AVX2 int StartLanes(const lsScene* scene, const lsRayInput* inputs, int first, int count,
                                              lsRayHit* hits, Packet* q, bool sparse)
{
    int last = count - 1;
    const lsRayInput* r0 = inputs + first;
    const lsRayInput* r1 = inputs + (first + 1 < last ? first + 1 : last);
    const lsRayInput* r2 = inputs + (first + 2 < last ? first + 2 : last);
    const lsRayInput* r3 = inputs + (first + 3 < last ? first + 3 : last);
    __m256d ox, oy, dx, dy;
    LoadRays(r0, r1, r2, r3, &ox, &oy, &dx, &dy);
    __m256d maxFraction = _mm256_setr_pd(r0->maxFraction, r1->maxFraction, r2->maxFraction, r3->maxFraction);
    // The caller's assert (lsIsValidVec2 of both, maxFraction not NaN), as WalkStart's.
    __m256d finite = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(ox, ox), _mm256_sub_pd(oy, oy)),
                                   _mm256_add_pd(_mm256_sub_pd(dx, dx), _mm256_sub_pd(dy, dy)));
    LS_ASSERT(_mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(finite, _mm256_setzero_pd(), _CMP_EQ_OQ),
                                               _mm256_cmp_pd(maxFraction, maxFraction, _CMP_EQ_OQ))) == 15);
    __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd(HUGE_VAL), sign = _mm256_set1_pd(-0.0);
    __m256d movesX = _mm256_cmp_pd(dx, zero, _CMP_NEQ_UQ), movesY = _mm256_cmp_pd(dy, zero, _CMP_NEQ_UQ);
    __m256d valid = _mm256_andnot_pd(_mm256_cmp_pd(maxFraction, zero, _CMP_LT_OQ), _mm256_or_pd(movesX, movesY));

    // The clip to the grid (slab test).
    __m256d one = _mm256_set1_pd(1.0);
    __m256d invDx = _mm256_and_pd(_mm256_div_pd(one, dx), movesX),
            invDy = _mm256_and_pd(_mm256_div_pd(one, dy), movesY);
    // At most DBL_MAX in magnitude, as WalkStart's (a subnormal component's inverse overflows).
    invDx = _mm256_min_pd(_mm256_max_pd(invDx, _mm256_set1_pd(-DBL_MAX)), _mm256_set1_pd(DBL_MAX));
    invDy = _mm256_min_pd(_mm256_max_pd(invDy, _mm256_set1_pd(-DBL_MAX)), _mm256_set1_pd(DBL_MAX));
    __m256d gx0 = _mm256_set1_pd(scene->x0), gy0 = _mm256_set1_pd(scene->y0);
    __m256d gx1 = _mm256_set1_pd(scene->x1), gy1 = _mm256_set1_pd(scene->y1);
    __m256d tEnter = zero, tLeave = maxFraction;
    __m256d tx0 = _mm256_mul_pd(_mm256_sub_pd(gx0, ox), invDx), tx1 = _mm256_mul_pd(_mm256_sub_pd(gx1, ox), invDx);
    tEnter = _mm256_blendv_pd(tEnter, _mm256_max_pd(_mm256_min_pd(tx0, tx1), tEnter), movesX);
    tLeave = _mm256_blendv_pd(tLeave, _mm256_min_pd(_mm256_max_pd(tx0, tx1), tLeave), movesX);
    __m256d outX =
        _mm256_andnot_pd(movesX, _mm256_or_pd(_mm256_cmp_pd(ox, gx0, _CMP_LT_OQ), _mm256_cmp_pd(ox, gx1, _CMP_GT_OQ)));
    __m256d ty0 = _mm256_mul_pd(_mm256_sub_pd(gy0, oy), invDy), ty1 = _mm256_mul_pd(_mm256_sub_pd(gy1, oy), invDy);
    tEnter = _mm256_blendv_pd(tEnter, _mm256_max_pd(_mm256_min_pd(ty0, ty1), tEnter), movesY);
    tLeave = _mm256_blendv_pd(tLeave, _mm256_min_pd(_mm256_max_pd(ty0, ty1), tLeave), movesY);
    __m256d outY =
        _mm256_andnot_pd(movesY, _mm256_or_pd(_mm256_cmp_pd(oy, gy0, _CMP_LT_OQ), _mm256_cmp_pd(oy, gy1, _CMP_GT_OQ)));
    __m256d out = _mm256_or_pd(_mm256_or_pd(outX, outY), _mm256_cmp_pd(tEnter, tLeave, _CMP_GT_OQ));

    // Steps, the first cell and its crossings, the margin and the side tests' error bound.
    __m128i up32 = Narrow(_mm256_cmp_pd(dx, zero, _CMP_GT_OQ)), down32 = Narrow(_mm256_cmp_pd(dx, zero, _CMP_LT_OQ));
    __m128i upY32 = Narrow(_mm256_cmp_pd(dy, zero, _CMP_GT_OQ)), downY32 = Narrow(_mm256_cmp_pd(dy, zero, _CMP_LT_OQ));
    __m128i stepY = _mm_sub_epi32(downY32, upY32);
    __m128i nx = _mm_set1_epi32(scene->nx);
    __m256d s = _mm256_set1_pd(scene->cellSize), invCell = _mm256_set1_pd(scene->invCellSize);
    __m256d fx = _mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(ox, _mm256_mul_pd(tEnter, dx)), gx0), invCell);
    __m256d fy = _mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(oy, _mm256_mul_pd(tEnter, dy)), gy0), invCell);
    fx = _mm256_min_pd(_mm256_max_pd(fx, zero), _mm256_set1_pd((double)(scene->nx - 1)));
    fy = _mm256_min_pd(_mm256_max_pd(fy, zero), _mm256_set1_pd((double)(scene->ny - 1)));
    __m128i ix = _mm256_cvttpd_epi32(fx), iy = _mm256_cvttpd_epi32(fy);
    __m256d neverX = _mm256_andnot_pd(movesX, inf), neverY = _mm256_andnot_pd(movesY, inf);
    __m256d cx = _mm256_cvtepi32_pd(_mm_sub_epi32(ix, up32)), cy = _mm256_cvtepi32_pd(_mm_sub_epi32(iy, upY32));
    __m256d tMaxX =
        _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(gx0, _mm256_mul_pd(cx, s)), ox), invDx), neverX);
    __m256d tMaxY =
        _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(gy0, _mm256_mul_pd(cy, s)), oy), invDy), neverY);
    __m256d absDx = _mm256_andnot_pd(sign, dx), absDy = _mm256_andnot_pd(sign, dy);
    __m256d margin = _mm256_div_pd(_mm256_set1_pd(4.0 * scene->slop), _mm256_max_pd(absDx, absDy));
    __m256d speed = _mm256_add_pd(absDx, absDy);
    __m256d reach =
        _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(tLeave, speed), _mm256_set1_pd(4.0 * scene->cellSize)),
                                    _mm256_set1_pd(scene->maxSegmentLength)),
                      _mm256_set1_pd(scene->slop));

    _mm256_store_pd(q->ox, ox), _mm256_store_pd(q->oy, oy), _mm256_store_pd(q->dx, dx), _mm256_store_pd(q->dy, dy);
    _mm256_store_pd(q->tStop, _mm256_add_pd(tLeave, margin)), _mm256_store_pd(q->margin, margin);
    __m256d sideError = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(1e-14), speed), reach);
    _mm256_store_pd(q->sideError, sideError);
    if (sparse)
    {
        _mm256_store_pd(q->invDx, invDx), _mm256_store_pd(q->invDy, invDy);
        _mm256_store_pd(q->neverX, neverX), _mm256_store_pd(q->neverY, neverY);
        _mm256_store_pd(q->pieceError,
                        _mm256_add_pd(sideError, _mm256_mul_pd(speed, _mm256_set1_pd(scene->pieceError))));
        STOREI(q->ix, ix), STOREI(q->iy, iy), STOREI(q->stepY, stepY);
        STOREI(q->squareShift,
               _mm_or_si128(_mm_and_si128(up32, _mm_set1_epi32(8)), _mm_and_si128(upY32, _mm_set1_epi32(16))));
    }
    _mm256_store_pd(q->known, inf), _mm256_store_pd(q->maxFraction, maxFraction);
    STOREI(q->cell, _mm_add_epi32(_mm_mullo_epi32(iy, nx), ix));
    STOREI(q->stepX, _mm_sub_epi32(down32, up32));
    if (!sparse) // a sparse grid's walk computes its crossings from the cell each round
    {
        _mm256_store_pd(q->tMaxX, tMaxX), _mm256_store_pd(q->tMaxY, tMaxY);
        _mm256_store_pd(q->advX, _mm256_mul_pd(s, _mm256_andnot_pd(sign, invDx)));
        _mm256_store_pd(q->advY, _mm256_mul_pd(s, _mm256_andnot_pd(sign, invDy)));
        STOREI(q->stepYCells, _mm_mullo_epi32(stepY, nx));
        // The steps left: to the last column (row) going up, to the first going down; an axis the ray does not move
        // along is never stepped (its crossings are infinite).
        __m128i never = _mm_set1_epi32(1 << 30), one32 = _mm_set1_epi32(1);
        __m128i upX = _mm_sub_epi32(_mm_sub_epi32(nx, one32), ix);
        __m128i upY = _mm_sub_epi32(_mm_sub_epi32(_mm_set1_epi32(scene->ny), one32), iy);
        STOREI(q->stepsX, _mm_blendv_epi8(_mm_blendv_epi8(never, ix, down32), upX, up32));
        STOREI(q->stepsY, _mm_blendv_epi8(_mm_blendv_epi8(never, iy, downY32), upY, upY32));
    }
    STOREI(q->ray, _mm_add_epi32(_mm_set1_epi32(first), _mm_setr_epi32(0, 1, 2, 3)));
    int walks = _mm256_movemask_pd(_mm256_andnot_pd(out, valid));
    int n = count - first < 4 ? count - first : 4;
    for (int j = 0; j < n; ++j)
    {
        hits[first + j] = NoHit();
    }
    // n >= 1: the packets start rays from first < count only (the analyser, taking CastPacketsAs alone, does not know
    // that its caller passes 8 rays or more).
    // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
    return walks & ((1 << n) - 1);
}

// Four segment records (or pieces) at at0 to at3, as the lanes' endpoints' coordinates.
static LS_FORCE_INLINE LS_AVX2 void LoadSegments(const char* at0, const char* at1, const char* at2, const char* at3,
                                                 __m256d* ax, __m256d* ay, __m256d* bx, __m256d* by)
{
    __m256d r02a = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((const double*)at0)),
                                        _mm_loadu_pd((const double*)at2), 1);
    __m256d r13a = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((const double*)at1)),
                                        _mm_loadu_pd((const double*)at3), 1);
    __m256d r02b = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((const double*)(at0 + 16))),
                                        _mm_loadu_pd((const double*)(at2 + 16)), 1);
    __m256d r13b = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((const double*)(at1 + 16))),
                                        _mm_loadu_pd((const double*)(at3 + 16)), 1);
    *ax = _mm256_unpacklo_pd(r02a, r13a), *ay = _mm256_unpackhi_pd(r02a, r13a);
    *bx = _mm256_unpacklo_pd(r02b, r13b), *by = _mm256_unpackhi_pd(r02b, r13b);
}

// Whether two segment records are copies of one segment (the same chain and part).
static LS_FORCE_INLINE bool SameRef(const CellRef* a, const CellRef* b)
{
    return a->chain == b->chain && a->part == b->part;
}

// Ended walks whose answer is one segment record's exact cast, queued for CastExactLanes: their rays and records.
typedef struct ExactQueue
{
    int ray[4], item[4];
    int count;
} ExactQueue;

// Whether an ended walk's answer is one segment record's exact cast: one segment to cast, or two copies of one (a
// segment registered in two cells the walk visited: the same answer whichever is cast), on a ray whose answer is still
// NoHit (a moving object, a primitive outside the grid or a pending list that filled up may have written it).
static LS_FORCE_INLINE bool EndsWithOneSegment(const lsScene* scene, const Pending* pending, int count,
                                               const lsRayHit* best)
{
    return (unsigned)(count - 1) < 2u && pending[0].field == ls_fieldSegment && !best->hit &&
           (count == 1 || (pending[1].field == ls_fieldSegment &&
                           SameRef(scene->segItemRefs + pending[0].item, scene->segItemRefs + pending[1].item)));
}

// The exact casts of four queued walks (each with nothing but one segment to cast, and its answer still NoHit), one
// per lane: TrySegmentRecordInline's common case (lsRayCastSegmentCrossing with the record's normal) on the same
// doubles in the same order, each lane the scalar expression's bits (IEEE operations, no contraction; the minimum and
// maximum are minpd's and maxpd's, as lsMin2's and lsMax2's). A lane that case does not decide (a filter, an
// ill-conditioned crossing, a zero of either sign on the box, a normal that is NaN) is cast by TrySegmentRecord after.
static LS_NOINLINE LS_AVX2 void CastExactLanes(const lsScene* scene, const lsRayInput* inputs, const ExactQueue* e,
                                               lsRayHit* hits)
{
    const lsRayInput* r0 = inputs + e->ray[0];
    const lsRayInput* r1 = inputs + e->ray[1];
    const lsRayInput* r2 = inputs + e->ray[2];
    const lsRayInput* r3 = inputs + e->ray[3];
    __m256d ox, oy, dx, dy;
    LoadRays(r0, r1, r2, r3, &ox, &oy, &dx, &dy);
    __m256d dblMax = _mm256_set1_pd(DBL_MAX);
    __m256d L =
        _mm256_min_pd(_mm256_setr_pd(r0->maxFraction, r1->maxFraction, r2->maxFraction, r3->maxFraction), dblMax);
    const CellSegment* segs = scene->segItems;
    const CellRef* refs = scene->segItemRefs;
    __m256d ax, ay, bx, by;
    LoadSegments((const char*)(segs + e->item[0]), (const char*)(segs + e->item[1]), (const char*)(segs + e->item[2]),
                 (const char*)(segs + e->item[3]), &ax, &ay, &bx, &by);
    __m256d n02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&refs[e->item[0]].normal.x)),
                                       _mm_loadu_pd(&refs[e->item[2]].normal.x), 1);
    __m256d n13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&refs[e->item[1]].normal.x)),
                                       _mm_loadu_pd(&refs[e->item[3]].normal.x), 1);
    __m256d nx = _mm256_unpacklo_pd(n02, n13), ny = _mm256_unpackhi_pd(n02, n13);
    __m256d zero = _mm256_setzero_pd(), abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    __m256d ones = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m256d tiny = _mm256_set1_pd(LS_FILTER_TINY), bound8 = _mm256_set1_pd(LS_FILTER_BOUND8);

    // lsEndpointSides2: the sides of a and b, each decided by its filter.
    __m256d rax = _mm256_sub_pd(ax, ox), rbx = _mm256_sub_pd(bx, ox);
    __m256d ray = _mm256_sub_pd(ay, oy), rby = _mm256_sub_pd(by, oy);
    __m256d la = _mm256_mul_pd(dx, ray), lb = _mm256_mul_pd(dx, rby);
    __m256d ra = _mm256_mul_pd(dy, rax), rb = _mm256_mul_pd(dy, rbx);
    __m256d ca = _mm256_sub_pd(la, ra), cb = _mm256_sub_pd(lb, rb);
    __m256d orient = _mm256_set1_pd(LS_FILTER_ORIENT);
    __m256d boundA = _mm256_mul_pd(orient, _mm256_add_pd(_mm256_and_pd(la, abs), _mm256_and_pd(ra, abs)));
    __m256d boundB = _mm256_mul_pd(orient, _mm256_add_pd(_mm256_and_pd(lb, abs), _mm256_and_pd(rb, abs)));
    __m256d decidedA = _mm256_and_pd(
        _mm256_cmp_pd(boundA, _mm256_and_pd(ca, abs), _CMP_LT_OQ),
        _mm256_and_pd(_mm256_cmp_pd(tiny, boundA, _CMP_LE_OQ), _mm256_cmp_pd(boundA, dblMax, _CMP_LE_OQ)));
    __m256d decidedB = _mm256_and_pd(
        _mm256_cmp_pd(boundB, _mm256_and_pd(cb, abs), _CMP_LT_OQ),
        _mm256_and_pd(_mm256_cmp_pd(tiny, boundB, _CMP_LE_OQ), _mm256_cmp_pd(boundB, dblMax, _CMP_LE_OQ)));
    __m256d decided = _mm256_and_pd(decidedA, decidedB);
    __m256d up = _mm256_cmp_pd(zero, cb, _CMP_LT_OQ); // cb > 0: the denominator's sign is 1
    __m256d crosses = _mm256_xor_pd(_mm256_cmp_pd(zero, ca, _CMP_LT_OQ), up);

    // The endpoint nearer the origin, the crossing's numerator and its filter.
    __m256d reachA = _mm256_add_pd(_mm256_and_pd(rax, abs), _mm256_and_pd(ray, abs));
    __m256d reachB = _mm256_add_pd(_mm256_and_pd(rbx, abs), _mm256_and_pd(rby, abs));
    __m256d nearA = _mm256_cmp_pd(reachA, reachB, _CMP_LE_OQ);
    __m256d px = _mm256_blendv_pd(rbx, rax, nearA), py = _mm256_blendv_pd(rby, ray, nearA);
    __m256d ex = _mm256_sub_pd(bx, ax), ey = _mm256_sub_pd(by, ay);
    __m256d n1 = _mm256_mul_pd(px, ey), n2 = _mm256_mul_pd(py, ex);
    __m256d num = _mm256_sub_pd(n1, n2);
    __m256d sNum = _mm256_add_pd(_mm256_and_pd(n1, abs), _mm256_and_pd(n2, abs));
    __m256d absNum = _mm256_and_pd(num, abs);
    __m256d numBound = _mm256_mul_pd(bound8, sNum);
    __m256d numOk = _mm256_and_pd(
        _mm256_cmp_pd(absNum, numBound, _CMP_GT_OQ),
        _mm256_and_pd(_mm256_cmp_pd(numBound, tiny, _CMP_GE_OQ), _mm256_cmp_pd(sNum, dblMax, _CMP_LE_OQ)));

    // lsCrossingFraction.
    __m256d ahead = _mm256_xor_pd(_mm256_xor_pd(_mm256_cmp_pd(num, zero, _CMP_GT_OQ), up),
                                  ones); // (num > 0) == up
    __m256d d1 = _mm256_mul_pd(dx, ey), d2 = _mm256_mul_pd(dy, ex);
    __m256d den = _mm256_sub_pd(d1, d2);
    __m256d sDen = _mm256_add_pd(_mm256_and_pd(d1, abs), _mm256_and_pd(d2, abs));
    __m256d range = _mm256_sub_pd(_mm256_mul_pd(L, den), num);
    __m256d rangeBound = _mm256_mul_pd(bound8, _mm256_add_pd(_mm256_mul_pd(L, sDen), sNum));
    __m256d rangeOk = _mm256_and_pd(
        _mm256_cmp_pd(_mm256_and_pd(range, abs), rangeBound, _CMP_GT_OQ),
        _mm256_and_pd(_mm256_cmp_pd(rangeBound, tiny, _CMP_GE_OQ), _mm256_cmp_pd(rangeBound, dblMax, _CMP_LE_OQ)));
    __m256d within = _mm256_xor_pd(_mm256_xor_pd(_mm256_cmp_pd(range, zero, _CMP_GT_OQ), up),
                                   ones); // (range > 0) == up
    __m256d t = _mm256_div_pd(num, den);
    __m256d scale = _mm256_set1_pd(LS_CROSSING_ILL);
    __m256d ill =
        _mm256_and_pd(_mm256_or_pd(_mm256_cmp_pd(sDen, _mm256_mul_pd(scale, _mm256_and_pd(den, abs)), _CMP_GT_OQ),
                                   _mm256_cmp_pd(sNum, _mm256_mul_pd(scale, absNum), _CMP_GT_OQ)),
                      _mm256_and_pd(_mm256_cmp_pd(sDen, dblMax, _CMP_LE_OQ), _mm256_cmp_pd(sNum, dblMax, _CMP_LE_OQ)));
    __m256d denSign = _mm256_blendv_pd(_mm256_set1_pd(-1.0), _mm256_set1_pd(1.0), up);
    __m256d good = _mm256_and_pd(_mm256_cmp_pd(_mm256_mul_pd(den, denSign), zero, _CMP_GT_OQ),
                                 _mm256_cmp_pd(_mm256_and_pd(t, abs), dblMax, _CMP_LE_OQ));
    // The box: equal ends of opposite signs (zeros) in either coordinate go to the whole routine.
    __m256d zerosX = _mm256_andnot_pd(_mm256_cmp_pd(ax, bx, _CMP_NEQ_UQ), _mm256_xor_pd(ax, bx));
    __m256d zerosY = _mm256_andnot_pd(_mm256_cmp_pd(ay, by, _CMP_NEQ_UQ), _mm256_xor_pd(ay, by));
    __m256d zeros = _mm256_castsi256_pd(
        _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_castpd_si256(_mm256_or_pd(zerosX, zerosY))));

    // Each lane's outcome, in the scalar routine's order: a NaN normal or undecided sides go to the whole routine, a
    // segment on one side misses, then the numerator's filter, a miss behind, the range's filter, a miss beyond, then
    // an ill-conditioned or bad crossing or the box's zeros (the whole routine), else a hit.
    __m256d s1 = _mm256_and_pd(decided, crosses);
    __m256d s3 = _mm256_and_pd(s1, _mm256_and_pd(numOk, ahead));
    __m256d s5 = _mm256_and_pd(s3, _mm256_and_pd(rangeOk, within));
    __m256d bad = _mm256_or_pd(_mm256_or_pd(ill, zeros), _mm256_andnot_pd(good, ones));
    __m256d slow = _mm256_or_pd(
        _mm256_or_pd(_mm256_cmp_pd(nx, nx, _CMP_UNORD_Q), _mm256_andnot_pd(decided, ones)),
        _mm256_or_pd(_mm256_or_pd(_mm256_andnot_pd(numOk, s1), _mm256_andnot_pd(rangeOk, s3)), _mm256_and_pd(s5, bad)));
    __m256d hit = _mm256_andnot_pd(slow, s5);

    // The hit: the fraction clamped into [0, L], the point clamped into the segment's box, the normal's sign.
    __m256d fraction = _mm256_blendv_pd(t, L, _mm256_cmp_pd(t, L, _CMP_GT_OQ));
    fraction = _mm256_and_pd(fraction, _mm256_cmp_pd(t, zero, _CMP_GT_OQ));
    __m256d pointX = _mm256_add_pd(ox, _mm256_mul_pd(fraction, dx));
    __m256d pointY = _mm256_add_pd(oy, _mm256_mul_pd(fraction, dy));
    __m256d loX = _mm256_min_pd(ax, bx), hiX = _mm256_max_pd(bx, ax);
    __m256d loY = _mm256_min_pd(ay, by), hiY = _mm256_max_pd(by, ay);
    pointX = _mm256_blendv_pd(loX, _mm256_min_pd(hiX, pointX), _mm256_cmp_pd(loX, pointX, _CMP_LE_OQ));
    pointY = _mm256_blendv_pd(loY, _mm256_min_pd(hiY, pointY), _mm256_cmp_pd(loY, pointY, _CMP_LE_OQ));
    _Alignas(32) double outF[4], outX[4], outY[4], outNx[4], outNy[4];
    _mm256_store_pd(outF, fraction), _mm256_store_pd(outX, pointX), _mm256_store_pd(outY, pointY);
    _mm256_store_pd(outNx, _mm256_mul_pd(nx, denSign)), _mm256_store_pd(outNy, _mm256_mul_pd(ny, denSign));
    for (int bits = _mm256_movemask_pd(hit); bits != 0; bits &= bits - 1)
    {
        int l = __builtin_ctz((unsigned)bits);
        lsRayHit* h = hits + e->ray[l];
        const CellRef* ref = refs + e->item[l];
        h->hit = true;
        h->fraction = outF[l];
        h->point = (lsVec2){outX[l], outY[l]};
        h->normal = (lsVec2){outNx[l], outNy[l]};
        h->kind = ls_hitWall;
        h->index = ref->chain;
        h->part = ref->part;
    }
    for (int bits = _mm256_movemask_pd(slow); bits != 0; bits &= bits - 1)
    {
        int l = __builtin_ctz((unsigned)bits);
        TrySegmentRecord(segs + e->item[l], refs + e->item[l], inputs + e->ray[l], hits + e->ray[l]);
    }
}

// The exact casts left in the queue, padded with copies of its last walk (the same answer written again).
static LS_FORCE_INLINE void FlushExact(const lsScene* scene, const lsRayInput* inputs, ExactQueue* e, lsRayHit* hits)
{
    if (e->count > 0)
    {
        for (int j = e->count; j < 4; ++j)
        {
            e->ray[j] = e->ray[e->count - 1], e->item[j] = e->item[e->count - 1];
        }
        CastExactLanes(scene, inputs, e, hits);
        e->count = 0;
    }
}

// A sparse grid's side tests of a round (CastPacketsAs with sparse): each lane's next LS_PIECES_AFTER records' pieces
// (segPieces, at the records' offsets; those from kEnd on left out: the last cell's read the copies after the last
// piece) tested as WalkStep tests them, with the pieces' error bound. The lane's candidate is the first record whose
// piece passes (records32: whether there is one; offset: its byte offset in the records, clamped), and its next record
// the one after it, or the one after those tested when none passes (kNext).
static LS_FORCE_INLINE LS_AVX2 void SparsePieces(const Packet* p, const char* pieces, __m128i k, __m128i kEnd,
                                                 __m128i lastRecord, __m128i* records32, __m128i* offset,
                                                 __m128i* kNext)
{
    __m256d e = _mm256_load_pd(p->pieceError), sign = _mm256_set1_pd(-0.0);
    // Per lane l, (ox, oy, ox, oy) and (-dy, dx, -dy, dx).
    __m256d ox = _mm256_load_pd(p->ox), oy = _mm256_load_pd(p->oy);
    __m256d dx = _mm256_load_pd(p->dx), negDy = _mm256_xor_pd(_mm256_load_pd(p->dy), sign);
    __m256d o02 = _mm256_unpacklo_pd(ox, oy), o13 = _mm256_unpackhi_pd(ox, oy); // (ox0, oy0, ox2, oy2), ...
    __m256d d02 = _mm256_unpacklo_pd(negDy, dx), d13 = _mm256_unpackhi_pd(negDy, dx);
    __m256d o0 = _mm256_permute4x64_pd(o02, 0x44), o2 = _mm256_permute4x64_pd(o02, 0xee);
    __m256d o1 = _mm256_permute4x64_pd(o13, 0x44), o3 = _mm256_permute4x64_pd(o13, 0xee);
    __m256d dd0 = _mm256_permute4x64_pd(d02, 0x44), dd2 = _mm256_permute4x64_pd(d02, 0xee);
    __m256d dd1 = _mm256_permute4x64_pd(d13, 0x44), dd3 = _mm256_permute4x64_pd(d13, 0xee);
    const char* at0 = pieces + ((ptrdiff_t)_mm_cvtsi128_si32(k) << 5);
    const char* at1 = pieces + ((ptrdiff_t)_mm_extract_epi32(k, 1) << 5);
    const char* at2 = pieces + ((ptrdiff_t)_mm_extract_epi32(k, 2) << 5);
    const char* at3 = pieces + ((ptrdiff_t)_mm_extract_epi32(k, 3) << 5);
    // The first piece that passes, whether or not it lies before kEnd (LS_PIECES_AFTER where none does): the pieces
    // tested last to first, each that passes taking the lane's place, in the 64-bit lanes of the test (one Narrow);
    // the pieces from kEnd on are left out after the loop, by the first's place.
    __m256d firstPass64 = _mm256_castsi256_pd(_mm256_set1_epi64x(LS_PIECES_AFTER));
#pragma GCC unroll 8
    for (int j = LS_PIECES_AFTER - 1; j >= 0; --j)
    {
        // A lane's piece (ax, ay, bx, by) in one load: (o - piece) (-dy, dx, -dy, dx) summed in pairs is -ca, -cb
        // with ca = dx say - dy sax as WalkStep's (a negation and a sum's order change no rounding), and the test
        // below gives the same for -ca, -cb as for ca, cb (min and max swap with the signs, NaN taken the same way).
        ptrdiff_t o = (ptrdiff_t)j * (ptrdiff_t)sizeof(CellSegment);
        __m256d m0 = _mm256_mul_pd(_mm256_sub_pd(o0, _mm256_loadu_pd((const double*)(at0 + o))), dd0);
        __m256d m1 = _mm256_mul_pd(_mm256_sub_pd(o1, _mm256_loadu_pd((const double*)(at1 + o))), dd1);
        __m256d m2 = _mm256_mul_pd(_mm256_sub_pd(o2, _mm256_loadu_pd((const double*)(at2 + o))), dd2);
        __m256d m3 = _mm256_mul_pd(_mm256_sub_pd(o3, _mm256_loadu_pd((const double*)(at3 + o))), dd3);
        __m256d h01 = _mm256_hadd_pd(m0, m1), h23 = _mm256_hadd_pd(m2, m3); // (-ca0, -ca1, -cb0, -cb1), ...
        __m256d ca = _mm256_permute2f128_pd(h01, h23, 0x20), cb = _mm256_permute2f128_pd(h01, h23, 0x31);
        __m256d lo = _mm256_min_pd(ca, cb), hi = _mm256_max_pd(ca, cb);
        __m256d keep = _mm256_cmp_pd(_mm256_max_pd(lo, _mm256_xor_pd(hi, sign)), e, _CMP_NGT_UQ);
        firstPass64 = _mm256_blendv_pd(firstPass64, _mm256_castsi256_pd(_mm256_set1_epi64x(j)), keep);
    }
    __m128i firstPass = Narrow(firstPass64);
    __m128i left = _mm_min_epi32(_mm_sub_epi32(kEnd, k), _mm_set1_epi32(LS_PIECES_AFTER));
    __m128i any = _mm_cmpgt_epi32(left, firstPass); // a piece before kEnd passes
    __m128i candidate = _mm_add_epi32(k, firstPass);
    *records32 = any;
    *offset = _mm_slli_epi32(_mm_min_epi32(candidate, lastRecord), 5);
    *kNext = _mm_blendv_epi8(_mm_min_epi32(_mm_add_epi32(k, _mm_set1_epi32(LS_PIECES_AFTER)), kEnd),
                             _mm_add_epi32(candidate, _mm_set1_epi32(1)), any);
}

// What a sparse grid's step reads of the grid, converted once (the last column and row as doubles for the clamps).
typedef struct SparseGrid
{
    double x0, y0, s, invCell, lastX, lastY;
    __m128i nx, lastColumn, lastRow; // in each lane
} SparseGrid;

// Whether each lane's v lies in [0, last] (as unsigned).
static LS_FORCE_INLINE LS_AVX2 __m128i Below(__m128i v, __m128i last)
{
    return _mm_cmpeq_epi32(_mm_min_epu32(v, last), v);
}

// The fraction at which the lanes cross the vertical boundary after column ix (before it going down): CrossingX's
// operations per lane (up: -1 where the lane goes up in x).
static LS_FORCE_INLINE LS_AVX2 __m256d CrossingXs(const SparseGrid* g, const Packet* p, __m128i ix, __m128i up)
{
    __m256d c = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm_sub_epi32(ix, up)), _mm256_set1_pd(g->s));
    __m256d t = _mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(_mm256_set1_pd(g->x0), c), _mm256_load_pd(p->ox)),
                              _mm256_load_pd(p->invDx));
    return _mm256_add_pd(t, _mm256_load_pd(p->neverX));
}

// The same for the horizontal boundary after row iy (CrossingY).
static LS_FORCE_INLINE LS_AVX2 __m256d CrossingYs(const SparseGrid* g, const Packet* p, __m128i iy, __m128i up)
{
    __m256d c = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm_sub_epi32(iy, up)), _mm256_set1_pd(g->s));
    __m256d t = _mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(_mm256_set1_pd(g->y0), c), _mm256_load_pd(p->oy)),
                              _mm256_load_pd(p->invDy));
    return _mm256_add_pd(t, _mm256_load_pd(p->neverY));
}

// A sparse grid's step of the lanes done with their cell (step32; CastPacketsAs with sparse), each across the square
// of side r + 1 of empty cells with the cell at its corner on the side its rays go (WalkStep's crossing: r is side - 1
// where the cell's square for the lane's quadrant, side, is larger than the cell, else 0, the step to a neighbour):
// the far sides' crossings computed from their boundaries, the end test at the first one met, the cell beyond it
// there (its row or column clamped to the square's, which for r = 0 is the cell's own). Steps the lanes that go on
// (returned) and leaves the others where they are; the next crossings are computed from the cell's boundaries again
// next round (Enter's), not accumulated.
static LS_FORCE_INLINE LS_AVX2 __m128i SparseStep(const SparseGrid* g, Packet* p, __m256d known, __m128i side,
                                                  __m128i step32)
{
    __m128i ix = _mm_load_si128((const __m128i*)p->ix), iy = _mm_load_si128((const __m128i*)p->iy);
    __m128i stepX = _mm_load_si128((const __m128i*)p->stepX), stepY = _mm_load_si128((const __m128i*)p->stepY);
    __m128i zero32 = _mm_setzero_si128(), one32 = _mm_set1_epi32(1);
    __m128i upX = _mm_cmpgt_epi32(stepX, zero32), upY = _mm_cmpgt_epi32(stepY, zero32); // -1 going up
    __m128i r = _mm_max_epi32(_mm_sub_epi32(side, one32), zero32);                      // an occupied cell's side is 0

    // The far sides' crossings, the first one met, the end there.
    __m256d tBX = CrossingXs(g, p, _mm_add_epi32(ix, _mm_sign_epi32(r, stepX)), upX);
    __m256d tBY = CrossingYs(g, p, _mm_add_epi32(iy, _mm_sign_epi32(r, stepY)), upY);
    __m256d tB = _mm256_min_pd(tBX, tBY); // tBX < tBY ? tBX : tBY
    __m256d ends = _mm256_or_pd(_mm256_cmp_pd(tB, _mm256_load_pd(p->tStop), _CMP_GE_OQ),
                                _mm256_cmp_pd(known, _mm256_sub_pd(tB, _mm256_load_pd(p->margin)), _CMP_LT_OQ));
    // Through the far vertical side: the column beyond, the row at tB clamped to the square's rows; else the
    // converse. Only the coordinate along the side crossed is computed (CellY's or CellX's operations, on the axis
    // picked before them), then clamped to the square's rows or columns: depot 1 169 -> 1 160 instructions a ray,
    // 6.60 -> 6.76 M rays per CPU second (31 alternated runs).
    __m256d acrossX64 = _mm256_cmp_pd(tBX, tBY, _CMP_LT_OQ);
    __m128i acrossX = Narrow(acrossX64);
    __m256d o = _mm256_blendv_pd(_mm256_load_pd(p->ox), _mm256_load_pd(p->oy), acrossX64);
    __m256d d = _mm256_blendv_pd(_mm256_load_pd(p->dx), _mm256_load_pd(p->dy), acrossX64);
    __m256d g0 = _mm256_blendv_pd(_mm256_set1_pd(g->x0), _mm256_set1_pd(g->y0), acrossX64);
    __m256d last = _mm256_blendv_pd(_mm256_set1_pd(g->lastX), _mm256_set1_pd(g->lastY), acrossX64);
    __m256d f = _mm256_mul_pd(_mm256_sub_pd(_mm256_add_pd(o, _mm256_mul_pd(tB, d)), g0), _mm256_set1_pd(g->invCell));
    __m128i at = _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_max_pd(f, _mm256_setzero_pd()), last));
    __m128i base = _mm_blendv_epi8(ix, iy, acrossX), up = _mm_blendv_epi8(upX, upY, acrossX);
    at = _mm_min_epi32(_mm_max_epi32(at, _mm_sub_epi32(base, _mm_andnot_si128(up, r))),
                       _mm_add_epi32(base, _mm_and_si128(up, r)));
    __m128i r1 = _mm_add_epi32(r, one32);
    __m128i beyondX = _mm_add_epi32(ix, _mm_sign_epi32(r1, stepX)),
            beyondY = _mm_add_epi32(iy, _mm_sign_epi32(r1, stepY));
    __m128i nextIx = _mm_blendv_epi8(at, beyondX, acrossX);
    __m128i nextIy = _mm_blendv_epi8(beyondY, at, acrossX);
    // The clamped coordinate lies in the grid (tB's row or column clamped to the grid, then to a range of the square's
    // that holds the lane's own): only the one stepped beyond the side may leave it.
    __m128i inGrid =
        Below(_mm_blendv_epi8(beyondY, beyondX, acrossX), _mm_blendv_epi8(g->lastRow, g->lastColumn, acrossX));
    __m128i go32 = _mm_and_si128(step32, _mm_andnot_si128(Narrow(ends), inGrid));
    __m128i nextCell = _mm_add_epi32(_mm_mullo_epi32(nextIy, g->nx), nextIx);
    _mm_store_si128((__m128i*)p->ix, _mm_blendv_epi8(ix, nextIx, go32));
    _mm_store_si128((__m128i*)p->iy, _mm_blendv_epi8(iy, nextIy, go32));
    _mm_store_si128((__m128i*)p->cell, _mm_blendv_epi8(_mm_load_si128((const __m128i*)p->cell), nextCell, go32));
    return go32;
}

// The rays walked four at a time, one lane each (SPMD): a round tests each lane's next segment record of its cell
// (the side test and the crossing's bound in the lanes, the scalar walk's operations), and steps each lane done with
// its cell; a lane whose walk has ended is resolved by the scalar code (the same exact casts) and takes the next ray,
// from a queue of four started at once. LS_PACKET_GROUPS packets take their rounds in turn: a round is a chain of
// dependent operations (the cell's header, its record, the bound, the step), and the other packet's round fills the
// processor while one waits (two packets: city-1k 8.3 -> 9.6, maze-2k 10.2 -> 11.8 M rays per CPU second; three or
// four no better); the ended walks of both are handled first, so that their rounds follow one another with no branch
// on a ray between them (9.4 -> 10.0, 11.5 -> 12.2). lookAhead: prefetch the cells ahead (an index beyond a core's
// cache). sparse: a sparse grid's walk, WalkStep's with pieces (see there): the side tests on the records' pieces
// (segPieces) with the pieces' error bound, the bound and the certain hit from the record's own sides, and a lane that
// enters an empty cell whose square for its quadrant is larger than the cell crosses the square in its round.
static LS_FORCE_INLINE LS_AVX2 void CastPacketsAs(const lsScene* scene, const lsRayInput* inputs, int count,
                                                  lsRayHit* hits, bool lookAhead, bool sparse)
{
    // The packets, whose rounds alternate, each lane's candidates, and the queue: the walks being taken (q[cur]) and
    // the four after them (started ahead).
    WalkState lanesOf[LS_PACKET_GROUPS][4];
    _Alignas(32) Packet packets[LS_PACKET_GROUPS];
    _Alignas(32) Packet q[2];
    memset(packets, 0, sizeof packets);
    ExactQueue exact;
    exact.count = 0;
    int queued = 0, ahead = 0, cur = 1, next = 0; // walks of q[cur] not taken yet, of q[cur ^ 1]; the ray after them
    bool haveAhead = true;
    ahead = StartLanes(scene, inputs, next, count, hits, q, sparse);
    next += 4;
    const char* records = (const char*)scene->segItems;
    const char* headers = (const char*)scene->cells;
    const char* refs = (const char*)scene->segItemRefs;
    const char* pieces = (const char*)scene->segPieces;
    SparseGrid grid;
    grid.x0 = scene->x0, grid.y0 = scene->y0, grid.s = scene->cellSize, grid.invCell = scene->invCellSize;
    grid.lastX = (double)(scene->nx - 1), grid.lastY = (double)(scene->ny - 1);
    grid.nx = _mm_set1_epi32(scene->nx), grid.lastColumn = _mm_set1_epi32(scene->nx - 1);
    grid.lastRow = _mm_set1_epi32(scene->ny - 1);
    const CellSegment* segItems = scene->segItems;
    __m256d piecesOff = _mm256_set1_pd(2.0 * scene->pieceError); // see the bound of a sparse grid's candidate
    bool hasShapes = scene->targetItemCount + scene->shapeItemCount > 0;
    __m128i lastRecord = _mm_set1_epi32(scene->segItemCount - 1);
    __m128i cellCount = _mm_set1_epi32(scene->nx * scene->ny);
    __m128i minus1 = _mm_set1_epi32(-1);
    __m256d sign = _mm256_set1_pd(-0.0), inf = _mm256_set1_pd(HUGE_VAL);
    __m256d ones = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m128i laneOffset = _mm_setr_epi32(0, 1, 2, 3);
    laneOffset = _mm_mullo_epi32(laneOffset, _mm_set1_epi32((int)sizeof(WalkState)));
    int stopOf[LS_PACKET_GROUPS], running = LS_PACKET_GROUPS; // lanes to (re)start, packets with a ray
    bool doneOf[LS_PACKET_GROUPS];
    for (int g = 0; g < LS_PACKET_GROUPS; ++g)
    {
        stopOf[g] = 15, doneOf[g] = false;
    }
    while (running > 0)
    {
        // The lanes whose walks ended: resolved, and started on the next rays. The loop over a packet's ended lanes is
        // its only branch on them, and whether a packet has a lane walking is asked only once the queue is spent (not
        // after each restart, by a vector load of the scalars just stored): city-10k +2 %, maze-20k +3 %. Each
        // packet's restart depends on its own round only: one loop over both packets' ended lanes waits for the second
        // round's results before the first packet's restart (fewer instructions and mispredicts, 1.5 to 4.6 % slower).
        for (int g = 0; g < LS_PACKET_GROUPS; ++g)
        {
            if (sparse && (doneOf[g] || stopOf[g] == 0)) // a sparse grid's packets as before (depot -2 % without)
            {
                continue;
            }
            Packet* p = packets + g;
            WalkState* lanes = lanesOf[g];
            for (int bits = stopOf[g]; bits != 0; bits &= bits - 1)
            {
                int l = __builtin_ctz((unsigned)bits);
                if (p->live[l] != 0)
                {
                    int i = p->ray[l];
                    const Pending* pending = lanes[l].pending;
                    int c = p->count[l];
                    // One segment to cast (or two copies of one): queued for the lanes' exact casts.
                    if (EndsWithOneSegment(scene, pending, c, hits + i))
                    {
                        exact.ray[exact.count] = i, exact.item[exact.count] = pending[0].item;
                        if (++exact.count == 4)
                        {
                            CastExactLanes(scene, inputs, &exact, hits);
                            exact.count = 0;
                        }
                    }
                    else
                    {
                        Resolve(scene, inputs + i, lanes[l].pending, c, hits + i, NULL, false);
                    }
                }
                p->live[l] = 0, p->k[l] = 0, p->kEnd[l] = 0, p->count[l] = 0;
                for (;;)
                {
                    if (queued == 0)
                    {
                        // The next four walks, whose first cells' headers were requested when they were started
                        // (the records now), and four more started ahead.
                        if (!haveAhead)
                        {
                            break;
                        }
                        cur ^= 1, queued = ahead, haveAhead = next < count;
                        if (haveAhead)
                        {
                            ahead = StartLanes(scene, inputs, next, count, hits, q + (cur ^ 1), sparse);
                            next += 4;
                        }
                        if (lookAhead)
                        {
                            for (int b = queued; b != 0; b &= b - 1)
                            {
                                LS_PREFETCH(segItems + scene->cells[q[cur].cell[__builtin_ctz((unsigned)b)]].seg);
                            }
                            for (int b = haveAhead ? ahead : 0; b != 0; b &= b - 1)
                            {
                                LS_PREFETCH(scene->cells + q[cur ^ 1].cell[__builtin_ctz((unsigned)b)]);
                            }
                        }
                        continue;
                    }
                    int j = __builtin_ctz((unsigned)queued);
                    queued &= queued - 1;
                    CopyLane(p, l, q + cur, j, sparse);
                    p->live[l] = -1, p->entered[l] = -1;
                    break;
                }
            }
            // A sparse grid's packets ask the lanes' scalars just stored, not a vector of them (a load that waits for
            // the stores to reach the cache: 5 % of the depot map's samples were on it).
            if (sparse && (p->live[0] | p->live[1] | p->live[2] | p->live[3]) == 0)
            {
                doneOf[g] = true;
                --running;
            }
        }
        // A dense grid's packets with no lane walking (only once the queue is spent) are done; their lanes are not
        // restarted again.
        if (!sparse && !haveAhead && queued == 0)
        {
            for (int g = 0; g < LS_PACKET_GROUPS; ++g)
            {
                const Packet* p = packets + g;
                if (!doneOf[g] && (p->live[0] | p->live[1] | p->live[2] | p->live[3]) == 0)
                {
                    doneOf[g] = true, stopOf[g] = 0;
                    --running;
                }
            }
        }
        // A round of each packet, one after the other (no branch on a ray between them).
        for (int g = 0; g < LS_PACKET_GROUPS; ++g)
        {
            if (doneOf[g])
            {
                continue;
            }
            Packet* p = packets + g;
            WalkState* lanes = lanesOf[g];
            char* pendingBase = (char*)lanes[0].pending;
            // The headers of the cells the lanes entered: where their records are, whether targets or shapes are there.
            __m128i entered = LOADI(p->entered);
            __m128i cell = LOADI(p->cell);
            const int* headerSeg = &scene->cells[0].seg;
            __m128i first = _mm_i32gather_epi32(headerSeg, _mm_slli_epi32(cell, 2), 4);
            // The cell's squares (a sparse grid's empty squares; a dense grid's last byte says whether it holds
            // targets or shapes) and the next header's segments' start (where the cell's end), 64 bits per lane,
            // packed as four squares and four ends.
            _Static_assert(offsetof(CellHeader, square) + sizeof(int) == sizeof(CellHeader), "squares end a header");
            __m256i squareEnd = _mm256_permutevar8x32_epi32(
                _mm256_i32gather_epi64((const long long*)(headers + offsetof(CellHeader, square)),
                                       _mm_slli_epi32(cell, 4), 1),
                _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
            __m128i squares = _mm256_castsi256_si128(squareEnd), end = _mm256_extracti128_si256(squareEnd, 1);
            __m128i k = _mm_blendv_epi8(LOADI(p->k), first, entered),
                    kEnd = _mm_blendv_epi8(LOADI(p->kEnd), end, entered);
            // A sparse grid: the lanes that entered an empty cell whose square for their quadrant (upX + 2 upY, the
            // byte of the header's four, at the lane's squareShift, set when its walk starts) is larger than the cell
            // cross the square this round instead (WalkStep), with no records to test. A grid with pieces whose targets
            // make it dense after all has the dense grid's flag of discs in its last byte: 1, a square no larger than
            // the cell, so the lane steps to the neighbour.
            __m128i side = _mm_setzero_si128();
            if (sparse)
            {
                side = _mm_and_si128(_mm_srlv_epi32(squares, LOADI(p->squareShift)), _mm_set1_epi32(255));
                kEnd = _mm_blendv_epi8(kEnd, k, _mm_and_si128(entered, _mm_cmpgt_epi32(side, _mm_set1_epi32(1))));
            }
            if (hasShapes)
            {
                int shapeBits;
                if (sparse)
                {
                    // (shape, target) of the cell and of the next header, 64 bits each: a sparse grid's squares are
                    // its empty squares, not the flag.
                    __m128i byteIndex = _mm_add_epi32(_mm_slli_epi32(cell, 4), _mm_set1_epi32(4));
                    const long long* base = (const long long*)headers;
                    __m256i a = _mm256_i32gather_epi64(base, byteIndex, 1);
                    __m256i b = _mm256_i32gather_epi64(base, _mm_add_epi32(byteIndex, _mm_set1_epi32(16)), 1);
                    __m256i none = _mm256_cmpeq_epi64(_mm256_sub_epi32(b, a), _mm256_setzero_si256());
                    shapeBits = _mm256_movemask_pd(_mm256_andnot_pd(_mm256_castsi256_pd(none), Widen(entered)));
                }
                else
                {
                    __m128i none = _mm_cmpeq_epi32(squares, _mm_setzero_si128());
                    shapeBits = _mm_movemask_ps(_mm_castsi128_ps(_mm_andnot_si128(none, entered)));
                }
                if (LS_UNLIKELY(shapeBits != 0))
                {
                    for (; shapeBits != 0; shapeBits &= shapeBits - 1)
                    {
                        int l = __builtin_ctz((unsigned)shapeBits);
                        WalkState* w = lanes + l;
                        w->known = p->known[l];
                        w->limit = w->known < p->maxFraction[l] ? w->known : p->maxFraction[l];
                        w->pendingCount = p->count[l];
                        LaneScalar(scene, inputs + p->ray[l], hits + p->ray[l], w, p->cell[l], true);
                        p->known[l] = w->known, p->count[l] = w->pendingCount;
                    }
                }
            }

            // Each lane's next record (a clamped index where the lane has none: its answers are masked out).
            __m128i records32 = _mm_cmpgt_epi32(kEnd, k);
            __m128i offset = _mm_slli_epi32(_mm_min_epi32(k, lastRecord), 5);
            __m128i kNext = k;
            if (sparse)
            {
                // The lane's next record whose piece passes the side test, of its next LS_PIECES_AFTER (the rest of
                // them are skipped): the record the round bounds (none when no piece passes).
                SparsePieces(p, pieces, k, kEnd, lastRecord, &records32, &offset, &kNext);
            }
            // A sparse grid's round in which no lane has a candidate (39 % of the depot map's: lanes crossing empty
            // squares, pieces the ray's line misses) skips the bound and the deferrals: 1 582 -> 1 476 instructions a
            // ray, 5.44 -> 5.58 M rays per CPU second (medians of 7 alternated runs). The dense grid's rounds are
            // left as they were.
            __m256d known;
            if (sparse && _mm_movemask_ps(_mm_castsi128_ps(records32)) == 0)
            {
                known = LOADPD(p->known);
                k = kNext;
            }
            else
            {
                int o0 = _mm_cvtsi128_si32(offset), o1 = _mm_extract_epi32(offset, 1);
                int o2 = _mm_extract_epi32(offset, 2), o3 = _mm_extract_epi32(offset, 3);
                __m256d ax, ay, bx, by;
                // A sparse grid's candidate is bounded by its piece, not its record (whose line the piece's ends lie
                // off by at most the scene's pieceError, in metres): the round reads no record, only the pieces it
                // side-tested, again from the L1 (depot 5.51 -> 5.80 M rays per CPU second, 11 alternated runs: the
                // record's load, from the L2, came after the pieces' in the round's chain of dependent loads; a record
                // stored beside its piece, in the same cache line, gained nothing: the pieces' lines doubled). The
                // bound holds where it matters, for a copy of the record in a cell whose piece holds the point X where
                // the ray's line crosses the record's: X lies within the slop of a cell the walk visits, and that
                // cell's piece (clipped to its box grown by twice the slop) spans X. There the piece's line passes
                // within pieceError of X, so the ray meets it within pieceError |e| / |cross(d, e)| of X in fraction (e
                // = the piece's b - a): 2 pieceError (|ex| + |ey|) more in the numerator's error covers it. A copy
                // whose piece does not span X may get a bound that is not one, harmless: Resolve casts candidates
                // nearest bound first until the rest lie beyond the best, so the copy with a true bound is cast before
                // it stops, and a copy cast again cannot change the answer. A certain hit is one whose piece's ends
                // straddle the ray's line by more than the pieces' error bound (their rounding and how far they lie off
                // the record's line): the record's points there straddle it too, so the crossing lies within the piece.
                const char* bounded = sparse ? pieces : records; // the pieces at the records' offsets
                LoadSegments(bounded + o0, bounded + o1, bounded + o2, bounded + o3, &ax, &ay, &bx, &by);

                // The side test (SidesOfSegment: the same operations per lane).
                __m256d ox = LOADPD(p->ox), oy = LOADPD(p->oy), dx = LOADPD(p->dx), dy = LOADPD(p->dy);
                __m256d sax = _mm256_sub_pd(ax, ox), say = _mm256_sub_pd(ay, oy);
                __m256d sbx = _mm256_sub_pd(bx, ox), sby = _mm256_sub_pd(by, oy);
                __m256d ca = _mm256_sub_pd(_mm256_mul_pd(dx, say), _mm256_mul_pd(dy, sax));
                __m256d cb = _mm256_sub_pd(_mm256_mul_pd(dx, sby), _mm256_mul_pd(dy, sbx));
                __m256d lo = _mm256_min_pd(ca, cb), hi = _mm256_max_pd(ca, cb);
                __m256d e = sparse ? LOADPD(p->pieceError) : LOADPD(p->sideError), negE = _mm256_xor_pd(e, sign);
                // A sparse grid's candidate passed this test already (SparsePieces', on the same doubles).
                __m256d keep =
                    sparse ? ones : _mm256_cmp_pd(_mm256_max_pd(lo, _mm256_xor_pd(hi, sign)), e, _CMP_NGT_UQ);

                // The crossing's bound (BoundCrossing's well-conditioned case; a poorly conditioned or parallel
                // crossing is deferred with no bound, which only costs an exact cast).
                known = LOADPD(p->known);
                __m256d maxFraction = LOADPD(p->maxFraction);
                __m256d limit = _mm256_min_pd(known, maxFraction);
                __m256d ex = _mm256_sub_pd(bx, ax), ey = _mm256_sub_pd(by, ay);
                __m256d n1 = _mm256_mul_pd(sax, ey), n2 = _mm256_mul_pd(say, ex);
                __m256d n = _mm256_sub_pd(n1, n2);
                __m256d numError = _mm256_mul_pd(_mm256_set1_pd(1e-12),
                                                 _mm256_add_pd(_mm256_andnot_pd(sign, n1), _mm256_andnot_pd(sign, n2)));
                if (sparse)
                {
                    __m256d span = _mm256_add_pd(_mm256_andnot_pd(sign, ex), _mm256_andnot_pd(sign, ey));
                    numError = _mm256_add_pd(numError, _mm256_mul_pd(piecesOff, span));
                }
                __m256d d1 = _mm256_mul_pd(dx, ey), d2 = _mm256_mul_pd(dy, ex);
                __m256d den = _mm256_sub_pd(d1, d2);
                __m256d sDen = _mm256_add_pd(_mm256_andnot_pd(sign, d1), _mm256_andnot_pd(sign, d2));
                __m256d absDen = _mm256_andnot_pd(sign, den);
                __m256d wellConditioned = _mm256_cmp_pd(absDen, _mm256_mul_pd(_mm256_set1_pd(1e-6), sDen), _CMP_GT_OQ);
                __m256d num = _mm256_xor_pd(n, _mm256_and_pd(den, sign));
                __m256d far =
                    _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(limit, absDen), _mm256_set1_pd(1.0 + 1e-9)), numError);
                __m256d beyond = _mm256_or_pd(_mm256_cmp_pd(num, _mm256_xor_pd(numError, sign), _CMP_LT_OQ),
                                              _mm256_cmp_pd(num, far, _CMP_GT_OQ));
                __m256d t = _mm256_div_pd(num, absDen);
                __m256d err = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(1e-9), _mm256_andnot_pd(sign, t)),
                                            _mm256_div_pd(numError, absDen));
                __m256d tLo = _mm256_sub_pd(t, err), tHiCertain = _mm256_add_pd(t, err);
                // (ca > e and cb < -e) or (ca < -e and cb > e), with e >= 0: one side beyond e, the other beyond -e (a
                // NaN side makes lo or hi NaN, or both the other side, and fails one comparison).
                __m256d straddles =
                    _mm256_and_pd(_mm256_cmp_pd(lo, negE, _CMP_LT_OQ), _mm256_cmp_pd(hi, e, _CMP_GT_OQ));
                __m256d certain =
                    _mm256_and_pd(straddles, _mm256_and_pd(_mm256_cmp_pd(tLo, _mm256_setzero_pd(), _CMP_GE_OQ),
                                                           _mm256_cmp_pd(tHiCertain, maxFraction, _CMP_LE_OQ)));
                __m256d defer = _mm256_and_pd(
                    _mm256_and_pd(Widen(records32), keep),
                    _mm256_or_pd(_mm256_andnot_pd(wellConditioned, ones), _mm256_andnot_pd(beyond, ones)));
                tLo = _mm256_blendv_pd(_mm256_set1_pd(-HUGE_VAL), _mm256_max_pd(tLo, _mm256_set1_pd(-HUGE_VAL)),
                                       wellConditioned);
                __m256d tHi =
                    _mm256_blendv_pd(inf, tHiCertain, _mm256_and_pd(_mm256_and_pd(certain, wellConditioned), defer));
                known = _mm256_min_pd(tHi, known);
                _mm256_store_pd(p->known, known);

                // The deferrals: every lane writes its next place (tLo, then the field and the record as 64 bits), and
                // a deferring lane counts it.
                __m128i pendingCount = LOADI(p->count);
                __m128i at = _mm_add_epi32(_mm_slli_epi32(pendingCount, 4), laneOffset);
                STOREI(p->count, _mm_sub_epi32(pendingCount, Narrow(defer)));
                __m128d tLo01 = _mm256_castpd256_pd128(tLo), tLo23 = _mm256_extractf128_pd(tLo, 1);
                __m128i items = _mm_srli_epi32(offset, 5);
                __m128i id01 = _mm_unpacklo_epi32(_mm_setzero_si128(), items),
                        id23 = _mm_unpackhi_epi32(_mm_setzero_si128(), items);
                char* at0 = pendingBase + _mm_cvtsi128_si32(at);
                char* at1 = pendingBase + _mm_extract_epi32(at, 1);
                char* at2 = pendingBase + _mm_extract_epi32(at, 2);
                char* at3 = pendingBase + _mm_extract_epi32(at, 3);
                _mm_storel_pd((double*)at0, tLo01), _mm_storeh_pd((double*)at1, tLo01);
                _mm_storel_pd((double*)at2, tLo23), _mm_storeh_pd((double*)at3, tLo23);
                _mm_storel_epi64((__m128i*)(at0 + 8), id01), _mm_storeh_pd((double*)(at1 + 8), _mm_castsi128_pd(id01));
                _mm_storel_epi64((__m128i*)(at2 + 8), id23), _mm_storeh_pd((double*)(at3 + 8), _mm_castsi128_pd(id23));
                if (lookAhead)
                {
                    // A deferred segment's identity (chain, part: a parallel array), read when it is cast at the walk's
                    // end, as the scalar walk prefetches it; a lane that does not defer requests the array's first
                    // line.
                    __m128i deferred = _mm_and_si128(items, Narrow(defer));
                    __m128i refAt = _mm_mullo_epi32(deferred, _mm_set1_epi32((int)sizeof(CellRef)));
                    LS_PREFETCH(refs + _mm_cvtsi128_si32(refAt)), LS_PREFETCH(refs + _mm_extract_epi32(refAt, 1));
                    LS_PREFETCH(refs + _mm_extract_epi32(refAt, 2)), LS_PREFETCH(refs + _mm_extract_epi32(refAt, 3));
                }
                k = sparse ? kNext : _mm_sub_epi32(k, records32);
                int full = _mm_movemask_ps(
                    _mm_castsi128_ps(_mm_cmpeq_epi32(LOADI(p->count), _mm_set1_epi32(LS_PENDING_CAPACITY))));
                if (LS_UNLIKELY(full != 0))
                {
                    for (; full != 0; full &= full - 1)
                    {
                        int l = __builtin_ctz((unsigned)full);
                        WalkState* w = lanes + l;
                        w->known = p->known[l];
                        w->limit = w->known < p->maxFraction[l] ? w->known : p->maxFraction[l];
                        w->pendingCount = p->count[l];
                        LaneScalar(scene, inputs + p->ray[l], hits + p->ray[l], w, 0, false);
                        p->known[l] = w->known, p->count[l] = w->pendingCount;
                    }
                    known = LOADPD(p->known);
                }
            }

            // The lanes done with their cell step to the next one, or end (WalkStep's test and step).
            __m128i live = LOADI(p->live);
            __m128i step32 = _mm_and_si128(_mm_cmpeq_epi32(k, kEnd), live);
            if (sparse)
            {
                __m128i go32 = SparseStep(&grid, p, known, side, step32);
                STOREI(p->k, k), STOREI(p->kEnd, kEnd), STOREI(p->entered, go32);
                stopOf[g] = _mm_movemask_ps(_mm_castsi128_ps(_mm_andnot_si128(go32, step32)));
                continue;
            }
            __m256d tMaxX = LOADPD(p->tMaxX), tMaxY = LOADPD(p->tMaxY);
            __m256d tExit = _mm256_min_pd(tMaxX, tMaxY);
            __m256d ends = _mm256_or_pd(_mm256_cmp_pd(tExit, LOADPD(p->tStop), _CMP_GE_OQ),
                                        _mm256_cmp_pd(known, _mm256_sub_pd(tExit, LOADPD(p->margin)), _CMP_LT_OQ));
            __m256d xStep = _mm256_cmp_pd(tMaxX, tMaxY, _CMP_LT_OQ);
            __m128i x32 = Narrow(xStep);
            __m128i stepX = LOADI(p->stepX), stepYCells = LOADI(p->stepYCells);
            __m128i moveX = _mm_and_si128(stepX, x32);
            __m128i stepsX = LOADI(p->stepsX), stepsY = LOADI(p->stepsY);
            __m128i nextStepsX = _mm_add_epi32(stepsX, x32),
                    nextStepsY = _mm_add_epi32(stepsY, _mm_xor_si128(x32, minus1));
            __m128i nextCell = _mm_add_epi32(_mm_add_epi32(cell, moveX), _mm_andnot_si128(x32, stepYCells));
            __m256d advX = LOADPD(p->advX), advY = LOADPD(p->advY);
            __m256d nextMaxX = _mm256_add_pd(tMaxX, _mm256_and_pd(advX, xStep));
            __m256d nextMaxY = _mm256_add_pd(tMaxY, _mm256_andnot_pd(xStep, advY));
            __m128i inGrid = _mm_cmpgt_epi32(_mm_or_si128(nextStepsX, nextStepsY), minus1);
            __m128i go32 = _mm_and_si128(step32, _mm_andnot_si128(Narrow(ends), inGrid));
            __m256d go = Widen(go32);
            STOREI(p->stepsX, _mm_blendv_epi8(stepsX, nextStepsX, go32));
            STOREI(p->stepsY, _mm_blendv_epi8(stepsY, nextStepsY, go32));
            cell = _mm_blendv_epi8(cell, nextCell, go32);
            STOREI(p->cell, cell);
            tMaxX = _mm256_blendv_pd(tMaxX, nextMaxX, go), tMaxY = _mm256_blendv_pd(tMaxY, nextMaxY, go);
            _mm256_store_pd(p->tMaxX, tMaxX), _mm256_store_pd(p->tMaxY, tMaxY);
            STOREI(p->k, k), STOREI(p->kEnd, kEnd), STOREI(p->entered, go32);
            stopOf[g] = _mm_movemask_ps(_mm_castsi128_ps(_mm_andnot_si128(go32, step32)));
            if (lookAhead)
            {
                // The walk's lookahead, per lane: the records of the next cell (whose header was requested a round ago)
                // and the header of the cell after it; a cell outside the grid is taken as the headers' end.
                __m256d x1 = _mm256_cmp_pd(tMaxX, tMaxY, _CMP_LT_OQ);
                __m128i x1i = Narrow(x1);
                __m128i c1 =
                    _mm_add_epi32(_mm_add_epi32(cell, _mm_and_si128(stepX, x1i)), _mm_andnot_si128(x1i, stepYCells));
                __m256d t1x = _mm256_add_pd(tMaxX, _mm256_and_pd(advX, x1));
                __m256d t1y = _mm256_add_pd(tMaxY, _mm256_andnot_pd(x1, advY));
                __m128i x2i = Narrow(_mm256_cmp_pd(t1x, t1y, _CMP_LT_OQ));
                __m128i c2 =
                    _mm_add_epi32(_mm_add_epi32(c1, _mm_and_si128(stepX, x2i)), _mm_andnot_si128(x2i, stepYCells));
                c1 = _mm_min_epu32(c1, cellCount), c2 = _mm_min_epu32(c2, cellCount);
                __m128i r = _mm_slli_epi32(_mm_i32gather_epi32(headerSeg, _mm_slli_epi32(c1, 2), 4), 5);
                __m128i h = _mm_slli_epi32(c2, 4);
                LS_PREFETCH(records + _mm_cvtsi128_si32(r)), LS_PREFETCH(records + _mm_extract_epi32(r, 1));
                LS_PREFETCH(records + _mm_extract_epi32(r, 2)), LS_PREFETCH(records + _mm_extract_epi32(r, 3));
                LS_PREFETCH(headers + _mm_cvtsi128_si32(h)), LS_PREFETCH(headers + _mm_extract_epi32(h, 1));
                LS_PREFETCH(headers + _mm_extract_epi32(h, 2)), LS_PREFETCH(headers + _mm_extract_epi32(h, 3));
            }
        }
    }
    FlushExact(scene, inputs, &exact, hits);
}

#undef LOADPD
#undef LOADI
#undef STOREI

// The packets' walk with the lookahead (an index beyond a core's cache) and without.
static LS_NOINLINE LS_AVX2 void CastPackets(const lsScene* scene, const lsRayInput* inputs, int count, lsRayHit* hits)
{
    size_t indexBytes = ((size_t)scene->nx * (size_t)scene->ny + 1) * sizeof(CellHeader) +
                        (size_t)scene->segItemCount * (sizeof(CellSegment) + sizeof(CellRef));
    if (indexBytes > LS_PACKETS_LOOKAHEAD_BYTES)
    {
        CastPacketsAs(scene, inputs, count, hits, true, false);
    }
    else
    {
        CastPacketsAs(scene, inputs, count, hits, false, false);
    }
}

// The packets' walk of a sparse grid (pieces and empty squares, see CastPacketsAs).
static LS_NOINLINE LS_AVX2 void CastPacketsSparse(const lsScene* scene, const lsRayInput* inputs, int count,
                                                  lsRayHit* hits)
{
    CastPacketsAs(scene, inputs, count, hits, false, true);
}
#endif

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
    if (h->square[0] != 0 && h->square[a->upX + 2 * a->upY] > 1)
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

// The index size from which lsScene_CastRays walks a batch's rays in lock step: a quarter of the last-level cache.
// Below it the index stays cached between random rays, the lanes' bookkeeping is the cost, and the packets (or a ray at
// a time) win; above it the lanes' misses in flight do. Measured on both machines this project has run on: a Zen 4
// slice with a 32 MB L3 (city-100k's 27.6 MB index: the lanes 4.4 M rays per CPU s against the packets' 4.1 to 5.2,
// city-10k's 2.8 MB the other way), and an Emerald Rapids with 260 MB (the packets 1.15x the lanes at 27.6 MB, 0.97x
// at 110 MB, 0.80x at 248 MB). 32 MB is assumed where the C library cannot tell (or tells less than 4 MB). 0 until the
// first cast or lsScene_SetLanesMinIndexBytes; racing first casts store the same value.
static _Atomic size_t s_lanesMinIndexBytes;

void lsScene_SetLanesMinIndexBytes(size_t bytes)
{
    if (bytes == 0)
    {
        long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
        llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
        bytes = (llc >= ((long)4 << 20) ? (size_t)llc : (size_t)32 << 20) / 4;
    }
    atomic_store_explicit(&s_lanesMinIndexBytes, bytes, memory_order_relaxed);
}

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
            Cast(scene, dyn, inputs + i, false, false, NULL, hits + i);
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
// does not reserve the lanes' stack. exactLanes: the processor has AVX2 (and the build the packets' code), so an ended
// walk with one segment to cast is queued for CastExactLanes, as the packets' are.
static LS_NOINLINE void CastLanes(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs,
                                  int count, lsRayHit* hits, bool exactLanes)
{
    // The rays are walked LS_LANES at a time, in lock step, one cell per ray and round, so that each ray's
    // memory (its cells' headers, then their records: two dependent cache misses per cell) arrives while the other
    // rays are worked on ("group prefetching": Chen, Ailamaki, Gibbons and Mowry, "Improving Hash Join Performance
    // through Prefetching", 2004). A step requests the next cell's records and the header of the cell after it; a
    // ray's first cell, and the cell after an empty square, take a round of their own to request theirs.
    Lane lanes[LS_LANES];
    int next = 0, live = LS_LANES;
#if defined(LS_PACKETS)
    ExactQueue exact;
    exact.count = 0;
#else
    (void)exactLanes;
#endif
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
                WalkStepResult r =
                    WalkStep(scene, &lane->walk, lane->state + cur, hits + lane->ray, true, true, false, NULL);
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
                lane->lastRay = -1;
#if defined(LS_PACKETS)
                // city-100k: 1 517 -> 1 396 instructions a ray.
                if (exactLanes && EndsWithOneSegment(scene, w->pending, w->pendingCount, hits + i))
                {
                    exact.ray[exact.count] = i, exact.item[exact.count] = w->pending[0].item;
                    if (++exact.count == 4)
                    {
                        CastExactLanes(scene, inputs, &exact, hits);
                        exact.count = 0;
                    }
                }
                else
#endif
                {
                    Resolve(scene, inputs + i, w->pending, w->pendingCount, hits + i, NULL, false);
                }
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
#if defined(LS_PACKETS)
    FlushExact(scene, inputs, &exact, hits);
#endif
}

// The rays of a small index a ray at a time (see lsScene_CastRays); pieces: a sparse grid's walk (see WalkStep).
static LS_FORCE_INLINE void CastRaysAtATime(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs,
                                            int count, lsRayHit* hits, bool pieces)
{
    bool prefetch = scene->nx > 0; // without a grid (no static geometry) CellOf is -1: nothing to fetch
    const CellSegment* tested = pieces ? scene->segPieces : scene->segItems;
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
            LS_PREFETCH(tested + h[0].seg);
        }
        // A ray from the previous ray's origin (a scan's beams) walks cells that are in the cache already.
        bool sameOrigin =
            i > 0 && inputs[i].origin.x == inputs[i - 1].origin.x && inputs[i].origin.y == inputs[i - 1].origin.y;
        if (sameOrigin) // two copies of the walk, each with its lookAhead known
        {
            Cast(scene, dyn, inputs + i, false, pieces, NULL, hits + i);
        }
        else
        {
            Cast(scene, dyn, inputs + i, true, pieces, NULL, hits + i);
        }
    }
}

void lsScene_CastRays(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs, int count,
                      lsRayHit* hits)
{
    LS_ASSERT(scene != NULL && count >= 0 && (count == 0 || (inputs != NULL && hits != NULL)));
    // An index smaller than a quarter of the last-level cache (s_lanesMinIndexBytes) stays cached between rays and is
    // walked a ray at a time: a walk kept in registers costs fewer instructions than one kept in a lane, and the step's
    // lookahead hides what misses. The first cell of each ray (where the walk's lookahead has not started) is fetched
    // rays ahead: its header 8 rays ahead, then its first records 4 rays ahead (the header has arrived by then); each
    // ray's first cell is computed once and kept in a ring for its second use.
    size_t indexBytes = ((size_t)scene->nx * (size_t)scene->ny + 1) * sizeof(CellHeader) +
                        (size_t)scene->segItemCount * (sizeof(CellSegment) + sizeof(CellRef));
    if (atomic_load_explicit(&s_lanesMinIndexBytes, memory_order_relaxed) == 0)
    {
        lsScene_SetLanesMinIndexBytes(0);
    }
    size_t lanesMinIndexBytes = atomic_load_explicit(&s_lanesMinIndexBytes, memory_order_relaxed);
#if defined(LS_PACKETS)
    // A grid without moving objects or primitives outside it, of an index that stays cached between rays (the lanes
    // below hide the memory of a bigger one), on a processor with AVX2: the rays in packets of four (see CastPackets;
    // its offsets into the records and headers are 32-bit); a sparse grid's (segPieces) with its pieces and empty
    // squares (CastPacketsSparse: the depot map's rays 4.58 -> 5.32 M per CPU second, 1 704 -> 1 582 instructions a
    // ray). Not a scan's beams (rays from one origin, the first two tell): their walks step alike from beam to beam,
    // which the predictor learns, and their cells are cached, so the walk a ray at a time is faster for them (scans
    // with jitter, city-1k: 0.85 against 0.89 s of CPU for 4 000 scans).
    long long cellCount = (long long)scene->nx * scene->ny;
    bool dense = cellCount <= (long long)scene->segItemCount + scene->shapeItemCount + scene->targetItemCount;
    bool scan = count > 1 && inputs[0].origin.x == inputs[1].origin.x && inputs[0].origin.y == inputs[1].origin.y;
    if (dyn == NULL && !scan && scene->nx > 0 && cellCount < (1 << 26) && scene->segItemCount > 0 &&
        scene->segItemCount < (1 << 25) &&
        scene->displacedCount + scene->longSegmentCount + scene->longShapeCount == 0 && count >= 8 &&
        indexBytes < lanesMinIndexBytes && __builtin_cpu_supports("avx2"))
    {
        if (scene->segPieces != NULL)
        {
            CastPacketsSparse(scene, inputs, count, hits);
            return;
        }
        if (dense)
        {
            CastPackets(scene, inputs, count, hits);
            return;
        }
    }
#endif
    if (indexBytes < lanesMinIndexBytes)
    {
        if (scene->segPieces != NULL) // a sparse grid: side tests on the records' pieces (see WalkStep)
        {
            CastRaysAtATime(scene, dyn, inputs, count, hits, true);
        }
        else
        {
            CastRaysAtATime(scene, dyn, inputs, count, hits, false);
        }
        return;
    }
#if defined(LS_PACKETS)
    CastLanes(scene, dyn, inputs, count, hits, __builtin_cpu_supports("avx2")); // otherwise in lock step: see there
#else
    CastLanes(scene, dyn, inputs, count, hits, false);
#endif
}

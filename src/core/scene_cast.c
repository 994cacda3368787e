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
// cache lines per cell; lsScene_CastRays prefetches the first cell of the rays ahead (see there).
#include "core/dynamic.h"
#include "core/geometry_internal.h"
#include "core/scene_internal.h"

#include <float.h>
#include <math.h>

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
    // The exact routine's common case inline (the same bits; see geometry_internal.h), the whole routine otherwise.
    // input is valid here (ValidInput), and min(maxFraction, DBL_MAX) of a non-NaN is what fmin gives.
    double L = input->maxFraction < DBL_MAX ? input->maxFraction : DBL_MAX;
    lsCastOutput out;
    if (!lsRayCastSegmentCommon(input->origin, input->direction, L, seg->a, seg->b, &out))
    {
        out = lsRayCastSegment(seg, input);
    }
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

// Floating-point bounds on what the exact cast of a primitive will return, used to skip exact casts that cannot win
// and to defer the rest until the walk knows which ones can. Each bound function returns false when the primitive
// certainly cannot beat `limit` (a miss, or a hit strictly beyond limit); otherwise it writes tLo, a lower bound of
// the fraction the exact cast would return, and tHi, an upper bound when the hit is certain (else HUGE_VAL). The
// margins (1e-14 on signs, 1e-9 to 1e-7 relative on fractions) bound the rounding of these few operations, and that
// of the exact routines' fractions, many times over; anything closer to a decision goes to the exact cast.

// The first, cheap stage of a segment's bound: the sides of its endpoints relative to the ray's line (cross(d,
// p - o)), rounded by less than sideError for every endpoint p the walk can meet (see Cast). False when both
// endpoints lie strictly on one side (the exact side tests agree: a miss), which is how most candidates end; one
// minimum, one maximum and a single branch, so the loop over a cell's records does not mispredict on them.
typedef struct SegmentSides
{
    double ax, ay, bx, by; // endpoints relative to the origin
    double ca, cb;         // their sides
} SegmentSides;

static LS_FORCE_INLINE bool SidesOfSegment(const lsSegment* seg, lsVec2 o, lsVec2 d, double sideError, SegmentSides* s)
{
    s->ax = seg->a.x - o.x, s->ay = seg->a.y - o.y, s->bx = seg->b.x - o.x, s->by = seg->b.y - o.y;
    s->ca = d.x * s->ay - d.y * s->ax, s->cb = d.x * s->by - d.y * s->bx;
    return !(Min(s->ca, s->cb) > sideError || Max(s->ca, s->cb) < -sideError);
}

// The second stage, for a segment whose line the ray's line may cross (SidesOfSegment true).
static LS_FORCE_INLINE bool BoundCrossing(const lsSegment* seg, const SegmentSides* s, lsVec2 d, double dd,
                                          double limit, double maxFraction, double sideError, double* tLo, double* tHi)
{
    double ax = s->ax, ay = s->ay, bx = s->bx, by = s->by;
    double ex = seg->b.x - seg->a.x, ey = seg->b.y - seg->a.y;
    double d1 = d.x * ey, d2 = d.y * ex;
    double den = d1 - d2, sDen = fabs(d1) + fabs(d2);
    if (fabs(den) > 1e-6 * sDen)
    {
        // The crossing t = cross(a - o, e) / cross(d, e); den has lost at most 20 bits to cancellation. Decide
        // behind / beyond without dividing (most candidates end here), then divide for the survivors.
        double n1 = ax * ey, n2 = ay * ex;
        double num = copysign(1.0, den) * (n1 - n2); // exact: a sign flip, no branch to mispredict
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
        bool straddles = (s->ca > sideError && s->cb < -sideError) || (s->ca < -sideError && s->cb > sideError);
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

// Both stages: returns false when the segment certainly cannot beat limit, else writes tLo and tHi.
static LS_FORCE_INLINE bool BoundSegment(const lsSegment* seg, lsVec2 o, lsVec2 d, double dd, double limit,
                                         double maxFraction, double sideError, double* tLo, double* tHi)
{
    SegmentSides s;
    return SidesOfSegment(seg, o, d, sideError, &s) &&
           BoundCrossing(seg, &s, d, dd, limit, maxFraction, sideError, tLo, tHi);
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
    int id0, id1; // identity ((chain, part), shape code, target index), to skip duplicates from several cells
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
            TrySegment(scene->segItems + p.item, p.id0, p.id1, input, best);
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

// The primitives outside the grid: displaced targets and long segments and shapes (none in most worlds), each
// bounded against the best so far and cast at once when it may win.
static void CastOutsideGrid(const lsScene* scene, const lsRayInput* input, double dd, lsRayHit* best,
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

// What the walk knows about the answer so far, updated as candidates are bounded.
typedef struct WalkState
{
    Pending pending[LS_PENDING_CAPACITY];
    int pendingCount;
    double known; // the final answer's fraction is certainly at most this (best exact hit or a certain pending hit)
    double limit; // min(known, maxFraction): candidates whose bound lies beyond are skipped
} WalkState;

static inline void Tighten(WalkState* w, double tHi, const lsRayHit* best, double maxFraction)
{
    w->known = tHi < w->known ? tHi : w->known;
    w->known = best->hit && best->fraction < w->known ? best->fraction : w->known;
    w->limit = w->known < maxFraction ? w->known : maxFraction;
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
            Defer(scene, input, w->pending, &w->pendingCount, (Pending){tLo, ls_fieldTarget, k, ct->index, 0}, best,
                  stats);
            Tighten(w, tHi, best, maxFraction);
        }
    }
    for (int k = h[0].shape; k < h[1].shape; ++k)
    {
        // Boxes and polygons are few: bounded by their bounding circle only.
        int code = scene->shapeItems[k];
        double tLo, tHi;
        if (BoundCircle(scene->shapeCircles + code, o, d, dd, w->limit, maxFraction, &tLo, &tHi))
        {
            Defer(scene, input, w->pending, &w->pendingCount, (Pending){tLo, ls_fieldShape, k, code, 0}, best, stats);
        }
    }
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

    // The moving objects and the primitives outside the grid first: an early best shortens the walk.
    if (dyn != NULL)
    {
        CastDynamic(dyn, input, &best, false);
    }
    if (scene->displacedCount + scene->longSegmentCount + scene->longShapeCount > 0)
    {
        CastOutsideGrid(scene, input, dd, &best, stats);
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
        tEnter = Max(Min(t0, t1), tEnter);
        tLeave = Min(Max(t0, t1), tLeave);
    }
    else if (o.x < gx0 || o.x > gx1)
    {
        return best;
    }
    if (d.y != 0.0)
    {
        double t0 = (gy0 - o.y) * invDy, t1 = (gy1 - o.y) * invDy;
        tEnter = Max(Min(t0, t1), tEnter);
        tLeave = Min(Max(t0, t1), tLeave);
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
    // Signs and selections below are computed without branches: a ray's direction is random to the predictor.
    int stepX = (d.x > 0.0) - (d.x < 0.0), stepY = (d.y > 0.0) - (d.y < 0.0);
    int upX = stepX > 0, upY = stepY > 0;
    // Crossing fractions of the next vertical and horizontal cell boundaries, recomputed from the boundary
    // coordinate at every step (no accumulated drift).
    double tMaxX = stepX != 0 ? (gx0 + (double)(ix + upX) * s - o.x) * invDx : HUGE_VAL;
    double tMaxY = stepY != 0 ? (gy0 + (double)(iy + upY) * s - o.y) * invDy : HUGE_VAL;
    // How far (in fraction) a hit must lie before a cell's exit for the walk to stop there: the slop in metres
    // over the ray's speed, with room to spare.
    double margin = 4.0 * scene->slop / Max(fabs(d.x), fabs(d.y));
    double tStop = tLeave + margin;
    // Every segment met lies in a visited cell, within tLeave |d| plus two cell diagonals of the origin, so its
    // endpoints are within R of the origin in each coordinate; cross(d, p - o) then rounds by less than
    // 3 eps (|dx| + |dy|) R, far below sideError.
    double speed = fabs(d.x) + fabs(d.y); // >= |d|
    double reach = tLeave * speed + 4.0 * s + scene->maxSegmentLength + scene->slop;
    double sideError = 1e-14 * speed * reach;
    const CellHeader* cells = scene->cells;
    const CellSegment* segItems = scene->segItems;
    WalkState w;
    w.pendingCount = 0;
    w.known = best.hit ? best.fraction : HUGE_VAL;
    w.limit = w.known < maxFraction ? w.known : maxFraction;
    bool hasShapes = scene->targetItemCount + scene->shapeItemCount > 0;
    int nx = scene->nx, ny = scene->ny;

    for (;;)
    {
        const CellHeader* h = cells + (ptrdiff_t)iy * nx + ix;
        if (LS_UNLIKELY(h->emptyBlock))
        {
            // An empty block: leave it in one step, through whichever of its next boundaries the ray meets first,
            // into the cell of the next block at that point. The point rounds by far less than the slop, so the
            // cell chosen is one the exact ray touches or comes within the slop of, as the cell-by-cell walk's.
            if (stats != NULL)
            {
                stats->cells += 1;
            }
            int bx = ix >> LS_BLOCK_SHIFT, by = iy >> LS_BLOCK_SHIFT;
            double tBX = stepX != 0 ? (gx0 + (double)((bx + upX) << LS_BLOCK_SHIFT) * s - o.x) * invDx : HUGE_VAL;
            double tBY = stepY != 0 ? (gy0 + (double)((by + upY) << LS_BLOCK_SHIFT) * s - o.y) * invDy : HUGE_VAL;
            double tB = tBX < tBY ? tBX : tBY;
            if (tB >= tStop || w.known < tB - margin)
            {
                break;
            }
            if (tBX < tBY)
            {
                ix = stepX > 0 ? (bx + 1) << LS_BLOCK_SHIFT : (bx << LS_BLOCK_SHIFT) - 1;
                int row = CellY(scene, o.y + tB * d.y), first = by << LS_BLOCK_SHIFT;
                iy = row < first ? first : (row > first + LS_BLOCK_CELLS - 1 ? first + LS_BLOCK_CELLS - 1 : row);
                iy = iy < ny ? iy : ny - 1;
            }
            else
            {
                iy = stepY > 0 ? (by + 1) << LS_BLOCK_SHIFT : (by << LS_BLOCK_SHIFT) - 1;
                int column = CellX(scene, o.x + tB * d.x), first = bx << LS_BLOCK_SHIFT;
                ix = column < first ? first
                                    : (column > first + LS_BLOCK_CELLS - 1 ? first + LS_BLOCK_CELLS - 1 : column);
                ix = ix < nx ? ix : nx - 1;
            }
            if (ix < 0 || ix >= nx || iy < 0 || iy >= ny)
            {
                break;
            }
            tMaxX = stepX != 0 ? (gx0 + (double)(ix + upX) * s - o.x) * invDx : HUGE_VAL;
            tMaxY = stepY != 0 ? (gy0 + (double)(iy + upY) * s - o.y) * invDy : HUGE_VAL;
            continue;
        }
        if (stats != NULL)
        {
            stats->cells += 1;
            stats->candidates += (h[1].seg - h[0].seg) + (h[1].shape - h[0].shape) + (h[1].target - h[0].target);
        }
        for (int k = h[0].seg, end = h[1].seg; k < end; ++k)
        {
            SegmentSides sides;
            double tLo, tHi;
            if (SidesOfSegment(segItems + k, o, d, sideError, &sides) &&
                BoundCrossing(segItems + k, &sides, d, dd, w.limit, maxFraction, sideError, &tLo, &tHi))
            {
                Defer(scene, input, w.pending, &w.pendingCount,
                      (Pending){tLo, ls_fieldSegment, k, scene->segItemRefs[k].chain, scene->segItemRefs[k].part},
                      &best, stats);
                Tighten(&w, tHi, &best, maxFraction);
            }
        }
        if (hasShapes && (h[1].target != h[0].target || h[1].shape != h[0].shape))
        {
            BoundCellShapes(scene, h, input, dd, &w, &best, stats);
        }

        double tExit = tMaxX < tMaxY ? tMaxX : tMaxY;
        if ((tExit >= tStop) | (w.known < tExit - margin))
        {
            break;
        }
        // One step in x or in y, whichever boundary comes first: both next crossings are computed and one is kept,
        // which costs a few operations and saves a mispredicted branch on most steps.
        bool xStep = tMaxX < tMaxY;
        ix += xStep ? stepX : 0;
        iy += xStep ? 0 : stepY;
        if ((unsigned)ix >= (unsigned)nx || (unsigned)iy >= (unsigned)ny)
        {
            break;
        }
        double nextX = (gx0 + (double)(ix + upX) * s - o.x) * invDx;
        double nextY = (gy0 + (double)(iy + upY) * s - o.y) * invDy;
        tMaxX = xStep ? nextX : tMaxX;
        tMaxY = xStep ? tMaxY : nextY;
    }
    Resolve(scene, input, w.pending, w.pendingCount, &best, stats);
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
    // Each ray's first cell is computed once, 8 rays ahead, and kept in a ring for its second use 4 rays later.
    bool prefetch = scene->nx > 0;
    int ring[8] = {0};
    for (int i = 0; i < 8 && i < count && prefetch; ++i)
    {
        ring[i] = CellOf(scene, inputs[i].origin);
    }
    for (int i = 0; i < count; ++i)
    {
        if (prefetch && i + 8 < count)
        {
            ring[i & 7] = CellOf(scene, inputs[i + 8].origin); // ray i's slot is free: it is cast below
            LS_PREFETCH(scene->cells + ring[i & 7]);
        }
        if (prefetch && i + 4 < count)
        {
            const CellHeader* h = scene->cells + ring[(i + 4) & 7];
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

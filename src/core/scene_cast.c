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
#include "core/scene_fan.h"
#include "core/scene_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

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
        out = lsRayCastSegmentFull(seg, input); // what lsRayCastSegment returns when its common case does not decide
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

// A primitive whose exact cast is deferred until the walk knows whether it can win. Its identity is read only when it
// is cast: a segment's (chain, part) lies in a parallel array that would cost a cache miss per deferral.
typedef struct Pending
{
    double tLo;
    int field; // ls_fieldSegment, ls_fieldShape or ls_fieldTarget
    int item;  // index into segItems, shapeItems or targetItems
} Pending;

#define LS_PENDING_CAPACITY 32

// Casts pending primitives exactly, nearest lower bound first, until the rest are strictly farther than the best.
// A primitive registered in several cells may be pending once per cell. Its copies have the same bound (the same
// operations on the same doubles), so they come one after the other unless another bound equals theirs, and all but
// the first are skipped; a copy cast again (that rare case) cannot change the best, as a tie with itself loses.
static LS_FORCE_INLINE void Resolve(const lsScene* scene, const lsRayInput* input, Pending* pending, int count,
                                    lsRayHit* best, lsCastStats* stats)
{
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
        int id0, id1 = 0;
        if (p.field == ls_fieldSegment)
        {
            id0 = scene->segItemRefs[p.item].chain;
            id1 = scene->segItemRefs[p.item].part;
        }
        else
        {
            id0 = p.field == ls_fieldTarget ? scene->targetItems[p.item].index : scene->shapeItems[p.item];
        }
        if (p.field == lastField && id0 == lastId0 && id1 == lastId1)
        {
            continue;
        }
        lastField = p.field, lastId0 = id0, lastId1 = id1;
        if (stats != NULL)
        {
            stats->exactTests += 1;
        }
        if (p.field == ls_fieldSegment)
        {
            TrySegment(scene->segItems + p.item, id0, id1, input, best);
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
}

// The same out of line, for a pending list that fills up during the walk (rare); the walk's end inlines Resolve.
static void ResolveFull(const lsScene* scene, const lsRayInput* input, Pending* pending, int count, lsRayHit* best,
                        lsCastStats* stats)
{
    Resolve(scene, input, pending, count, best, stats);
}

// Adds a primitive to the pending list (resolving the list first when it is full).
static inline void Defer(const lsScene* scene, const lsRayInput* input, Pending* pending, int* count, Pending p,
                         lsRayHit* best, lsCastStats* stats)
{
    if (!(p.tLo >= -HUGE_VAL))
    {
        p.tLo = -HUGE_VAL; // a bound lost to overflow (NaN) must sort first, never be dropped
    }
    if (*count == LS_PENDING_CAPACITY)
    {
        ResolveFull(scene, input, pending, *count, best, stats);
        *count = 0; // the rest were strictly farther than the best
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
            Defer(scene, input, w->pending, &w->pendingCount, (Pending){tLo, ls_fieldTarget, k}, best, stats);
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
            Defer(scene, input, w->pending, &w->pendingCount, (Pending){tLo, ls_fieldShape, k}, best, stats);
        }
    }
}

// What the walk's steps need: the grid's corner and cell size, the ray's origin, the inverses of its direction's
// components (0 for a zero component), each axis' step (-1, 0 or 1) and whether it goes up, and what is added to a
// crossing (0, or HUGE_VAL for an axis the ray does not move along: its crossings never come first).
typedef struct WalkAxes
{
    double gx0, gy0, s, ox, oy, invDx, invDy, neverX, neverY;
    int stepX, stepY, upX, upY;
} WalkAxes;

// The fraction at which the ray crosses the next vertical boundary of column ix, recomputed from the boundary's
// coordinate at every step (no accumulated drift).
static LS_FORCE_INLINE double CrossingX(const WalkAxes* a, int ix)
{
    return (a->gx0 + (double)(ix + a->upX) * a->s - a->ox) * a->invDx + a->neverX;
}

/// The same for the next horizontal boundary of row iy.
static LS_FORCE_INLINE double CrossingY(const WalkAxes* a, int iy)
{
    return (a->gy0 + (double)(iy + a->upY) * a->s - a->oy) * a->invDy + a->neverY;
}

// The walk. lookAhead: prefetch the cells ahead (not worth its instructions when they are in the cache: the beams of
// a scan). stats may be NULL; the public entry points inline this with and without counting.
static LS_FORCE_INLINE lsRayHit Cast(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                                     bool lookAhead, lsCastStats* stats)
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
    int nx = scene->nx, ny = scene->ny;
    WalkAxes axes = {
        gx0,   gy0,   s,         o.x,      o.y, invDx, invDy, stepX != 0 ? 0.0 : HUGE_VAL, stepY != 0 ? 0.0 : HUGE_VAL,
        stepX, stepY, stepX > 0, stepY > 0};
    double tMaxX = CrossingX(&axes, ix), tMaxY = CrossingY(&axes, iy);
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
    unsigned cellCount = (unsigned)nx * (unsigned)ny;
    int stepYCells = stepY * nx;

    for (;;)
    {
        int cell = iy * nx + ix;
        const CellHeader* h = cells + cell;
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
            // The block's next boundaries are those of its last column and row in the ray's direction.
            double tBX = CrossingX(&axes, ((bx + axes.upX) << LS_BLOCK_SHIFT) - axes.upX);
            double tBY = CrossingY(&axes, ((by + axes.upY) << LS_BLOCK_SHIFT) - axes.upY);
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
            tMaxX = CrossingX(&axes, ix);
            tMaxY = CrossingY(&axes, iy);
            continue;
        }
        if (stats != NULL)
        {
            stats->cells += 1;
            stats->candidates += (h[1].seg - h[0].seg) + (h[1].shape - h[0].shape) + (h[1].target - h[0].target);
        }
        // The next cell is one step in x or in y, whichever boundary comes first. A random ray (lookAhead) finds its
        // next cell now with masks, not a branch (the direction of its steps is random to the predictor), and then the
        // cell after it, so that memory is on its way while this cell's records are tested: the header of the cell
        // after next and the records of the next one (whose header was requested a cell ago). An index outside the grid
        // (the walk stops before it) is taken as the headers' end.
        int nextIx = ix, nextIy = iy;
        double nextMaxX = tMaxX, nextMaxY = tMaxY;
        if (lookAhead)
        {
            int xMask = -(tMaxX < tMaxY);
            nextIx += stepX & xMask, nextIy += stepY & ~xMask;
            nextMaxX = CrossingX(&axes, nextIx), nextMaxY = CrossingY(&axes, nextIy);
            int nextCell = cell + (stepX & xMask) + (stepYCells & ~xMask);
            int afterMask = -(nextMaxX < nextMaxY);
            int afterCell = nextCell + (stepX & afterMask) + (stepYCells & ~afterMask);
            unsigned afterIndex = (unsigned)afterCell, nextIndex = (unsigned)nextCell;
            LS_PREFETCH(cells + (afterIndex < cellCount ? afterIndex : cellCount));
            LS_PREFETCH(segItems + cells[nextIndex < cellCount ? nextIndex : cellCount].seg);
        }
        for (int k = h[0].seg, end = h[1].seg; k < end; ++k)
        {
            SegmentSides sides;
            double tLo, tHi;
            if (SidesOfSegment(segItems + k, o, d, sideError, &sides) &&
                BoundCrossing(segItems + k, &sides, d, dd, w.limit, maxFraction, sideError, &tLo, &tHi))
            {
                LS_PREFETCH(scene->segItemRefs + k); // its identity, read if it is cast when the walk ends
                Defer(scene, input, w.pending, &w.pendingCount, (Pending){tLo, ls_fieldSegment, k}, &best, stats);
                Tighten(&w, tHi, &best, maxFraction);
            }
        }
        if (hasShapes & (((h[1].target - h[0].target) | (h[1].shape - h[0].shape)) != 0)) // one branch
        {
            BoundCellShapes(scene, h, input, dd, &w, &best, stats);
        }

        double tExit = Min(tMaxX, tMaxY);
        if ((tExit >= tStop) | (w.known < tExit - margin))
        {
            break;
        }
        if (!lookAhead)
        {
            // The beams of a scan step alike, so a predicted branch costs less than the masks' longer chain of
            // dependent operations from one step to the next (a walk of many cells: the depot map).
            bool xStep = tMaxX < tMaxY;
            nextIx += xStep ? stepX : 0;
            nextIy += xStep ? 0 : stepY;
            double nextX = CrossingX(&axes, nextIx), nextY = CrossingY(&axes, nextIy);
            nextMaxX = xStep ? nextX : tMaxX;
            nextMaxY = xStep ? tMaxY : nextY;
        }
        ix = nextIx, iy = nextIy, tMaxX = nextMaxX, tMaxY = nextMaxY;
        if ((unsigned)ix >= (unsigned)nx || (unsigned)iy >= (unsigned)ny)
        {
            break;
        }
    }
    Resolve(scene, input, w.pending, w.pendingCount, &best, stats);
    return best;
}

lsRayHit lsScene_CastRayStats(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                              lsCastStats* stats)
{
    LS_ASSERT(stats != NULL);
    return Cast(scene, dyn, input, true, stats);
}

lsRayHit lsScene_CastRay(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input)
{
    return Cast(scene, dyn, input, true, NULL);
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
        // A ray from the previous ray's origin (a scan's beams) walks cells that are in the cache already.
        bool sameOrigin =
            i > 0 && inputs[i].origin.x == inputs[i - 1].origin.x && inputs[i].origin.y == inputs[i - 1].origin.y;
        hits[i] = Cast(scene, dyn, inputs + i, !sameOrigin, NULL);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Fans: the beams of a scan swept through the grid together (scene_fan.h)
//
// A scan's beams share their origin, so instead of one walk per beam the grid is swept once, in square rings of
// cells around the origin's cell. Every object met in a ring's cells is handled once for the whole fan: the beams that
// may reach it come from its angular extent (lsBeamFan_Segment, lsBeamFan_Disc: a superset, with margins far above
// the rounding of the beams' directions), and for each of them that is still open the object is bounded as in the
// walk (BoundSegment, BoundCircle) and, unless it certainly cannot win, cast exactly and offered to the beam's best
// (the same calls and tie-break as the walk, so the order in which objects come does not matter). After ring r every
// point within R_r of the origin lies in a swept cell (the square of rings 0..r holds the disc of that radius, and
// every object is registered in every cell it comes within the slop of), so a beam whose best hit (or range) lies
// nearer than R_r, less a margin, is done. A cell none of whose points any open beam can pass is skipped: its corners'
// pseudo-angles give the bins of beam directions through it, checked against the count of open beams per bin.

#define LS_FAN_MAX_BEAMS 512
#define LS_FAN_BINS 256  // bins of direction over the full turn
#define LS_FAN_SEEN 1024 // slots of the set of objects already handled in this fan (a power of two)
#define LS_FAN_PENDING 4 // deferred exact casts per beam

// A pseudo-angle of (x, y) != 0 in [0, 4], increasing with the angle atan2(y, x) taken in [0, 2 pi) (4 only by
// rounding just below 2 pi): a division instead of atan2.
static inline double PseudoAngle(double x, double y)
{
    if (y >= 0.0)
    {
        return x >= 0.0 ? y / (x + y) : 1.0 - x / (y - x);
    }
    return x < 0.0 ? 2.0 - y / (-x - y) : 3.0 + x / (x - y);
}

static inline int BinOf(double pseudoAngle)
{
    int b = (int)(pseudoAngle * (0.25 * LS_FAN_BINS));
    return b < 0 ? 0 : (b > LS_FAN_BINS - 1 ? LS_FAN_BINS - 1 : b);
}

#define LS_FAN_PREPARED 128 // segments of a block whose exact cast's per-segment part is kept

// A deferred exact cast of one beam: the bound on its fraction and the object (a field and its record; for a segment,
// its prepared cast or -1).
typedef struct FanPending
{
    double tLo;
    int item;
    short field, prepared;
} FanPending;

typedef struct Fan
{
    const lsScene* scene;
    const CellHeader* originCell;
    const lsBeamFan* fan;
    const lsRayInput* inputs;
    lsRayHit* hits;
    int first, count;
    unsigned char open[LS_FAN_MAX_BEAMS];
    short bin[LS_FAN_MAX_BEAMS];
    double speed[LS_FAN_MAX_BEAMS]; // |dx| + |dy| >= |d|
    double dd[LS_FAN_MAX_BEAMS];
    double limit[LS_FAN_MAX_BEAMS]; // min(range, best exact hit, a certain pending hit's upper bound)
    FanPending pending[LS_FAN_MAX_BEAMS][LS_FAN_PENDING];
    unsigned char pendingCount[LS_FAN_MAX_BEAMS];
    int openList[LS_FAN_MAX_BEAMS];  // the open beams, in no order
    int openCount[LS_FAN_BINS];      // open beams per direction bin
    int openBefore[LS_FAN_BINS + 1]; // prefix sums of openCount, rebuilt before each ring that needs them
    uint64_t seen[LS_FAN_SEEN];
    int seenCount;
    lsSegmentCastPrep prepared[LS_FAN_PREPARED]; // the exact cast's part that depends on the segment only
    int preparedCount;
    bool unsafe;
} Fan;

// Inserts key (not 0) into the set of handled objects; false when it was there. When the set is full, every object is
// handled again (correct, only slower).
static inline bool FirstTime(Fan* f, uint64_t key)
{
    if (f->seenCount >= LS_FAN_SEEN / 2)
    {
        return true;
    }
    unsigned slot = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 53) & (LS_FAN_SEEN - 1);
    while (f->seen[slot] != 0)
    {
        if (f->seen[slot] == key)
        {
            return false;
        }
        slot = (slot + 1) & (LS_FAN_SEEN - 1);
    }
    f->seen[slot] = key;
    f->seenCount += 1;
    return true;
}

// True when some open beam's direction bin lies in lo .. hi (taken around the turn).
static inline bool OpenIn(const Fan* f, int lo, int hi)
{
    if (lo < 0)
    {
        return OpenIn(f, 0, hi) || OpenIn(f, lo + LS_FAN_BINS, LS_FAN_BINS - 1);
    }
    if (hi >= LS_FAN_BINS)
    {
        return OpenIn(f, lo, LS_FAN_BINS - 1) || OpenIn(f, 0, hi - LS_FAN_BINS);
    }
    return f->openBefore[hi + 1] > f->openBefore[lo];
}

// Whether an open beam may pass through cell (ix, iy), which lies at least one cell away from the origin's cell (so
// the origin is outside it and it spans less than half a turn): the bins of its corners' pseudo-angles, one more on
// each side (far more than their rounding).
static bool CellMayBeSeen(const Fan* f, int ix, int iy)
{
    const lsScene* scene = f->scene;
    lsVec2 o = f->fan->origin;
    double s = scene->cellSize;
    double xl = scene->x0 + (double)ix * s - o.x, xh = scene->x0 + (double)(ix + 1) * s - o.x;
    double yl = scene->y0 + (double)iy * s - o.y, yh = scene->y0 + (double)(iy + 1) * s - o.y;
    double p0 = PseudoAngle(xl, yl), p1 = PseudoAngle(xh, yl), p2 = PseudoAngle(xl, yh), p3 = PseudoAngle(xh, yh);
    double lo = Min(Min(p0, p1), Min(p2, p3)), hi = Max(Max(p0, p1), Max(p2, p3));
    if (hi - lo > 2.0)
    {
        // Across the direction (1, 0), where pseudo-angles wrap from 4 to 0: the corners lie on both sides.
        double loWrap = 4.0, hiWrap = 0.0;
        double p[4] = {p0, p1, p2, p3};
        for (int k = 0; k < 4; ++k)
        {
            loWrap = p[k] >= 2.0 ? Min(loWrap, p[k]) : loWrap;
            hiWrap = p[k] < 2.0 ? Max(hiWrap, p[k]) : hiWrap;
        }
        return OpenIn(f, BinOf(loWrap) - 1, BinOf(hiWrap) + 1 + LS_FAN_BINS);
    }
    return OpenIn(f, BinOf(lo) - 1, BinOf(hi) + 1);
}

// The beams of the fan (global indices, up to two runs) whose nominal angles start + i increment lie within
// [lo, hi] taken around the turn, plus one on each side; every beam when the interval nears a full turn. As
// beam_runs.c's runs: the interval relative to the first beam in [0, 2 pi), then once more 2 pi lower.
static void FanRuns(const lsBeamFan* fan, double lo, double hi, lsBeamRuns* runs)
{
    if (fan->beams == 1 || !(fan->increment > 0.0) || !(hi - lo < 6.0))
    {
        runs->first[0] = 0, runs->last[0] = fan->beams - 1, runs->first[1] = 0, runs->last[1] = -1;
        return;
    }
    double twoPi = 2.0 * LS_PI;
    double rel0 = lo - fan->start;
    rel0 -= twoPi * floor(rel0 / twoPi);
    double rel1 = rel0 + (hi - lo);
    for (int k = 0; k < 2; ++k)
    {
        double shift = (double)k * twoPi;
        double a = Max(ceil((rel0 - shift) / fan->increment) - 1.0, 0.0);
        double b = Min(floor((rel1 - shift) / fan->increment) + 1.0, (double)(fan->beams - 1));
        runs->first[k] = a <= b ? (int)a : 0;
        runs->last[k] = a <= b ? (int)b : -1;
    }
}

// The beams that may reach a segment: the arc between its endpoints' directions (the shorter one: it does not pass
// through the origin), widened by 1e-4 rad (ten times the angles' error, and far above the rounding of the beams'
// directions); every beam when it subtends nearly half a turn or more (it passes at or near the origin).
static inline void SegmentRuns(const lsBeamFan* fan, const lsSegment* seg, lsBeamRuns* runs)
{
    lsVec2 o = fan->origin;
    double aa = lsRoughAngle(seg->a.x - o.x, seg->a.y - o.y), ab = lsRoughAngle(seg->b.x - o.x, seg->b.y - o.y);
    double diff = ab - aa;
    diff = diff > LS_PI ? diff - 2.0 * LS_PI : (diff < -LS_PI ? diff + 2.0 * LS_PI : diff);
    if (!(fabs(diff) < LS_PI - 1e-3))
    {
        FanRuns(fan, 0.0, HUGE_VAL, runs);
        return;
    }
    double lo = diff < 0.0 ? aa + diff : aa;
    FanRuns(fan, lo - 1e-4, lo + fabs(diff) + 1e-4, runs);
}

// The beams of runs within this fan's block, as a range of local indices (empty when lo > hi).
static inline void RunRange(const Fan* f, const lsBeamRuns* runs, int q, int* lo, int* hi)
{
    int last = f->first + f->count - 1;
    *lo = (runs->first[q] > f->first ? runs->first[q] : f->first) - f->first;
    *hi = (runs->last[q] < last ? runs->last[q] : last) - f->first;
}

// Casts beam k's deferred objects exactly, nearest bound first, until the rest are strictly farther than its best.
static void FanResolve(Fan* f, int k)
{
    FanPending* pending = f->pending[k];
    int count = f->pendingCount[k];
    const lsRayInput* in = f->inputs + k;
    lsRayHit* best = f->hits + k;
    while (count > 0)
    {
        int m = 0;
        for (int j = 1; j < count; ++j)
        {
            m = pending[j].tLo < pending[m].tLo ? j : m;
        }
        FanPending p = pending[m];
        pending[m] = pending[--count];
        if (best->hit && p.tLo > best->fraction)
        {
            break;
        }
        if (p.field == ls_fieldSegment)
        {
            CellRef ref = f->scene->segItemRefs[p.item];
            double L = in->maxFraction < DBL_MAX ? in->maxFraction : DBL_MAX;
            lsCastOutput out;
            if (p.prepared < 0)
            {
                TrySegment(f->scene->segItems + p.item, ref.chain, ref.part, in, best);
            }
            else
            {
                // The prepared common case decides as lsRayCastSegmentCommon would; when it does not, the whole
                // routine (a beam through a corner or along a wall, grazing).
                if (!lsRayCastSegmentPrepared(f->prepared + p.prepared, in->direction, L, &out))
                {
                    out = lsRayCastSegmentFull(f->scene->segItems + p.item, in);
                }
                if (Beats(&out, ls_hitWall, ref.chain, ref.part, best))
                {
                    Take(best, &out, ls_hitWall, ref.chain, ref.part);
                }
            }
        }
        else if (p.field == ls_fieldTarget)
        {
            const CellTarget* ct = f->scene->targetItems + p.item;
            TryTarget(&ct->circle, ct->index, in, best);
        }
        else
        {
            TryShape(f->scene, p.item, in, best);
        }
    }
    f->pendingCount[k] = 0;
    f->limit[k] = best->hit && best->fraction < f->limit[k] ? best->fraction : f->limit[k];
}

// Defers the exact cast of an object that beam k may hit at a fraction in [tLo, tHi] (tHi HUGE_VAL when the hit is
// not certain).
static inline void FanDefer(Fan* f, int k, double tLo, double tHi, int field, int item, int prepared)
{
    if (f->pendingCount[k] == LS_FAN_PENDING)
    {
        FanResolve(f, k);
    }
    // A bound lost to overflow (NaN) must sort first, never be dropped.
    f->pending[k][f->pendingCount[k]++] =
        (FanPending){tLo >= -HUGE_VAL ? tLo : -HUGE_VAL, item, (short)field, (short)prepared};
    f->limit[k] = tHi < f->limit[k] ? tHi : f->limit[k];
}

// The objects of one cell, each handled once per fan for its open beams.
// The fan's beams against segment record i, once per fan (a segment registered in several cells comes once).
static inline void FanSegment(Fan* f, int i)
{
    const lsScene* scene = f->scene;
    lsVec2 o = f->fan->origin;
    CellRef ref = scene->segItemRefs[i];
    if (!FirstTime(f, ((uint64_t)(uint32_t)ref.chain << 32 | (uint32_t)ref.part) + 1))
    {
        return;
    }
    const lsSegment* seg = scene->segItems + i;
    lsBeamRuns runs;
    SegmentRuns(f->fan, seg, &runs);
    // The endpoints relative to the origin once for all the beams (SidesOfSegment's first line).
    SegmentSides rel;
    rel.ax = seg->a.x - o.x, rel.ay = seg->a.y - o.y, rel.bx = seg->b.x - o.x, rel.by = seg->b.y - o.y;
    double far = Max(fabs(rel.ax) + fabs(rel.ay), fabs(rel.bx) + fabs(rel.by));
    int prepared = f->preparedCount < LS_FAN_PREPARED ? f->preparedCount++ : -1;
    if (prepared >= 0)
    {
        lsPrepareSegmentCast(o, seg->a, seg->b, f->prepared + prepared);
    }
    for (int q = 0; q < 2; ++q)
    {
        int lo, hi;
        RunRange(f, &runs, q, &lo, &hi);
        for (int k = lo; k <= hi; ++k)
        {
            if (!f->open[k])
            {
                continue;
            }
            const lsRayInput* in = f->inputs + k;
            lsVec2 d = in->direction;
            double sideError = 1e-14 * f->speed[k] * far, tLo, tHi;
            rel.ca = d.x * rel.ay - d.y * rel.ax, rel.cb = d.x * rel.by - d.y * rel.bx;
            if (!(Min(rel.ca, rel.cb) > sideError || Max(rel.ca, rel.cb) < -sideError) &&
                BoundCrossing(seg, &rel, d, f->dd[k], f->limit[k], in->maxFraction, sideError, &tLo, &tHi))
            {
                FanDefer(f, k, tLo, tHi, ls_fieldSegment, i, prepared);
            }
        }
    }
}

// An origin cell holding more segment records than this has them taken nearest first (FanCrowdedCell).
#define LS_FAN_CROWDED 64

// A lower bound on the distance from o to segment s: the distance to its closest point, computed relative to o, less
// a margin far above the rounding of these few operations (relative to the coordinates involved).
static double SegmentDistanceBound(const lsSegment* s, lsVec2 o)
{
    double ax = s->a.x - o.x, ay = s->a.y - o.y, ex = s->b.x - s->a.x, ey = s->b.y - s->a.y;
    double ee = ex * ex + ey * ey;
    double t = ee > 0.0 ? -(ax * ex + ay * ey) / ee : 0.0;
    t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
    double px = ax + t * ex, py = ay + t * ey;
    double dist = sqrt(px * px + py * py);
    double scale = fabs(ax) + fabs(ay) + fabs(ex) + fabs(ey);
    return dist * (1.0 - 1e-9) - 1e-12 * scale;
}

// The farthest any open beam's answer may still lie, in metres (its limit times its length, with room for rounding):
// a segment farther from the origin than this cannot hold an answer of any open beam.
static double FanReach(const Fan* f)
{
    double reach = 0.0;
    for (int k = 0; k < f->count; ++k)
    {
        double r = f->open[k] ? f->limit[k] * sqrt(f->dd[k]) : 0.0;
        reach = r > reach ? r : reach;
    }
    return reach * (1.0 + 1e-9);
}

// The segments of a crowded origin cell (thousands of walls through the robot, every one crossing its cell), nearest
// first: ordered by a lower bound of their distance from the origin (a counting sort into as many buckets as records,
// each bound lowered to its bucket's start so the list stays in order), and taken until the next one lies beyond
// every open beam's reach. The beams' answers come within a millimetre there, so a handful of walls are bounded
// instead of each wall against half the beams; those left out cannot beat any beam (a later ring may still offer
// them, to no effect).
static void FanCrowdedCell(Fan* f, const CellHeader* h)
{
    const lsScene* scene = f->scene;
    lsVec2 o = f->fan->origin;
    int n = h[1].seg - h[0].seg;
    // lower and items (the order), each record's bound and bucket, and the bucket starts.
    size_t doubles = 2 * (size_t)n, ints = 3 * (size_t)n + 1;
    double* lower = lsAlloc(doubles * sizeof(double));
    double* bound = lower + n;
    int* items = lsAlloc(ints * sizeof(int));
    int* bucketOf = items + n;
    int* starts = bucketOf + n;
    double top = 0.0;
    for (int j = 0; j < n; ++j)
    {
        bound[j] = SegmentDistanceBound(scene->segItems + h[0].seg + j, o);
        top = bound[j] > top ? bound[j] : top;
    }
    // Bucket b holds the bounds in [b width, (b + 1) width); bounds of 0 or less go to bucket 0.
    double width = top > 0.0 ? top / (double)n : 1.0;
    memset(starts, 0, ((size_t)n + 1) * sizeof(int));
    for (int j = 0; j < n; ++j)
    {
        double q = bound[j] > 0.0 ? bound[j] / width : 0.0;
        int b = q < (double)(n - 1) ? (int)q : n - 1;
        bucketOf[j] = b;
        starts[b + 1] += 1;
    }
    for (int b = 0; b < n; ++b)
    {
        starts[b + 1] += starts[b];
    }
    for (int j = 0; j < n; ++j)
    {
        int b = bucketOf[j], at = starts[b]++;
        items[at] = h[0].seg + j;
        lower[at] = Min(b == 0 ? 0.0 : (double)b * width, bound[j]); // never above its own bound (rounding)
    }
    for (int j = n - 2; j >= 0; --j)
    {
        lower[j] = Min(lower[j], lower[j + 1]); // in order despite the rounding of bucket starts
    }
    double reach = 0.0;
    for (int j = 0; j < n; ++j)
    {
        if ((j & 15) == 0)
        {
            reach = FanReach(f); // limits only shrink: a reach found earlier stays an upper bound
        }
        if (lower[j] > reach)
        {
            break;
        }
        FanSegment(f, items[j]);
    }
    lsFree(lower, doubles * sizeof(double));
    lsFree(items, ints * sizeof(int));
}

// A disc met for the first time (key: its identity): each open beam of its runs that the circle's bounds let reach it
// is deferred. A target's circle is the target, so its exit bounds the hit; a shape's is a bounding circle, which
// bounds it from below only (isTarget false).
static void FanDisc(Fan* f, uint64_t key, const lsCircle* circle, bool isTarget, int field, int item)
{
    lsBeamRuns runs;
    if (!FirstTime(f, key))
    {
        return;
    }
    lsBeamReach reach = lsBeamFan_Disc(f->fan, *circle, &runs);
    if (reach != ls_beamsSome)
    {
        f->unsafe |= reach == ls_beamsUnsafe;
        return;
    }
    lsVec2 o = f->fan->origin;
    for (int q = 0; q < 2; ++q)
    {
        int lo, hi;
        RunRange(f, &runs, q, &lo, &hi);
        for (int k = lo; k <= hi; ++k)
        {
            double tLo, tHi;
            const lsRayInput* in = f->inputs + k;
            if (f->open[k] && BoundCircle(circle, o, in->direction, f->dd[k], f->limit[k], in->maxFraction, &tLo, &tHi))
            {
                FanDefer(f, k, tLo, isTarget ? tHi : HUGE_VAL, field, item, -1);
            }
        }
    }
}

static void FanCell(Fan* f, const CellHeader* h)
{
    const lsScene* scene = f->scene;
    if (h == f->originCell && h[1].seg - h[0].seg > LS_FAN_CROWDED)
    {
        FanCrowdedCell(f, h);
    }
    else
    {
        for (int i = h[0].seg, end = h[1].seg; i < end; ++i)
        {
            FanSegment(f, i);
        }
    }
    for (int i = h[0].target, end = h[1].target; i < end; ++i)
    {
        const CellTarget* ct = scene->targetItems + i;
        if (ct->active)
        {
            FanDisc(f, ((uint64_t)1 << 62 | (uint32_t)ct->index) + 1, &ct->circle, true, ls_fieldTarget, i);
        }
    }
    for (int i = h[0].shape, end = h[1].shape; i < end; ++i)
    {
        int code = scene->shapeItems[i];
        FanDisc(f, ((uint64_t)2 << 62 | (uint32_t)code) + 1, scene->shapeCircles + code, false, ls_fieldShape, code);
    }
}

// Cell (ix, iy) of ring r: its objects, when it holds any and an open beam may pass through it.
static inline void FanRingCell(Fan* f, int ix, int iy, int r)
{
    const CellHeader* h = f->scene->cells + (ptrdiff_t)iy * f->scene->nx + ix;
    if (h[1].seg == h[0].seg && h[1].target == h[0].target && h[1].shape == h[0].shape)
    {
        return;
    }
    if (r >= 2 && !CellMayBeSeen(f, ix, iy))
    {
        return;
    }
    FanCell(f, h);
}

bool lsScene_CastFan(const lsScene* scene, const lsBeamFan* fan, int first, const lsRayInput* inputs, int count,
                     lsRayHit* hits)
{
    LS_ASSERT(scene != NULL && fan != NULL && count >= 0 && count <= LS_FAN_MAX_BEAMS);
    LS_ASSERT(count == 0 || (inputs != NULL && hits != NULL));
    lsVec2 o = fan->origin;
    int nx = scene->nx, ny = scene->ny;
    double s = scene->cellSize;
    // A sparse grid (more cells than records: a map's open rooms of small cells) is left to the walk, which crosses
    // empty blocks in one step: the sweep would visit every cell of every ring (on the depot map it cost 30 % more
    // than walking each beam).
    long long records = (long long)scene->segItemCount + scene->targetItemCount + scene->shapeItemCount;
    if (nx == 0 || records < (long long)nx * ny || !(fan->range >= 0.0 && fan->range <= DBL_MAX) ||
        !(fabs(fan->start) <= 1e4) || !(fan->increment >= 0.0) ||
        !(o.x > scene->x0 && o.x < scene->x0 + (double)nx * s) ||
        !(o.y > scene->y0 && o.y < scene->y0 + (double)ny * s))
    {
        return false;
    }
    // Room for one fan's bookkeeping: about 75 KB, on the stack (scans run on pool threads too).
    Fan f;
    f.scene = scene;
    f.originCell = scene->cells + CellOf(scene, o);
    f.fan = fan;
    f.inputs = inputs;
    f.hits = hits;
    f.first = first;
    f.count = count;
    f.seenCount = 0;
    f.preparedCount = 0;
    f.unsafe = false;
    memset(f.seen, 0, sizeof f.seen);
    memset(f.openCount, 0, sizeof f.openCount);
    int* openList = f.openList;
    int openN = 0;
    bool outside = scene->displacedCount + scene->longSegmentCount + scene->longShapeCount > 0;
    for (int k = 0; k < count; ++k)
    {
        const lsRayInput* in = inputs + k;
        LS_ASSERT(in->origin.x == o.x && in->origin.y == o.y && in->maxFraction == fan->range);
        lsVec2 d = in->direction;
        hits[k] = NoHit();
        f.open[k] = 0;
        if (!ValidInput(in))
        {
            continue;
        }
        f.dd[k] = d.x * d.x + d.y * d.y;
        f.speed[k] = fabs(d.x) + fabs(d.y);
        if (outside)
        {
            CastOutsideGrid(scene, in, f.dd[k], hits + k, NULL);
        }
        f.limit[k] = hits[k].hit && hits[k].fraction < in->maxFraction ? hits[k].fraction : in->maxFraction;
        f.pendingCount[k] = 0;
        f.open[k] = 1;
        f.bin[k] = (short)BinOf(PseudoAngle(d.x, d.y));
        f.openCount[f.bin[k]] += 1;
        openList[openN++] = k;
    }

    int cx = CellX(scene, o.x), cy = CellY(scene, o.y);
    int maxRingX = cx > nx - 1 - cx ? cx : nx - 1 - cx, maxRingY = cy > ny - 1 - cy ? cy : ny - 1 - cy;
    int maxRing = maxRingX > maxRingY ? maxRingX : maxRingY;
    double margin = 4.0 * scene->slop;
    bool dirty = true;
    int r = 0;
    for (; r <= maxRing && openN > 0; ++r)
    {
        // A ring costs its 8 r cells, a walk about one cell per ring for each beam: once the open beams are few,
        // they are walked one by one instead (down a long corridor, across an open square).
        if (8 * r > 4 * openN)
        {
            break;
        }
        if (r >= 2 && dirty)
        {
            f.openBefore[0] = 0;
            for (int b = 0; b < LS_FAN_BINS; ++b)
            {
                f.openBefore[b + 1] = f.openBefore[b] + f.openCount[b];
            }
            dirty = false;
        }
        int ix0 = cx - r, ix1 = cx + r, iy0 = cy - r, iy1 = cy + r;
        int xa = ix0 > 0 ? ix0 : 0, xb = ix1 < nx - 1 ? ix1 : nx - 1;
        int ya = iy0 + 1 > 0 ? iy0 + 1 : 0, yb = iy1 - 1 < ny - 1 ? iy1 - 1 : ny - 1;
        if (iy0 >= 0)
        {
            for (int ix = xa; ix <= xb; ++ix)
            {
                FanRingCell(&f, ix, iy0, r);
            }
        }
        if (iy1 < ny && r > 0)
        {
            for (int ix = xa; ix <= xb; ++ix)
            {
                FanRingCell(&f, ix, iy1, r);
            }
        }
        if (ix0 >= 0 && r > 0)
        {
            for (int iy = ya; iy <= yb; ++iy)
            {
                FanRingCell(&f, ix0, iy, r);
            }
        }
        if (ix1 < nx && r > 0)
        {
            for (int iy = ya; iy <= yb; ++iy)
            {
                FanRingCell(&f, ix1, iy, r);
            }
        }
        if (f.unsafe)
        {
            return false;
        }
        // Every point within R of the origin is in rings 0 .. r (a side of the square at the grid's edge bounds
        // nothing: no object is registered beyond it).
        double R = HUGE_VAL;
        R = ix0 > 0 ? Min(R, o.x - (scene->x0 + (double)ix0 * s)) : R;
        R = ix1 < nx - 1 ? Min(R, scene->x0 + (double)(ix1 + 1) * s - o.x) : R;
        R = iy0 > 0 ? Min(R, o.y - (scene->y0 + (double)iy0 * s)) : R;
        R = iy1 < ny - 1 ? Min(R, scene->y0 + (double)(iy1 + 1) * s - o.y) : R;
        double reach = R - margin;
        for (int j = 0; j < openN;)
        {
            int k = openList[j];
            // A hit in an unswept cell lies at least R - margin from the origin, so at a fraction of at least that
            // over |d| <= speed: strictly farther than this beam's best (or range) when the test holds.
            if (f.limit[k] * f.speed[k] * (1.0 + 1e-9) < reach)
            {
                FanResolve(&f, k);
                f.open[k] = 0;
                f.openCount[f.bin[k]] -= 1;
                openList[j] = openList[--openN];
                dirty = true;
            }
            else
            {
                ++j;
            }
        }
    }
    for (int j = 0; j < openN; ++j)
    {
        int k = openList[j];
        if (r > maxRing)
        {
            FanResolve(&f, k); // the whole grid is swept
        }
        else
        {
            hits[k] = Cast(scene, NULL, inputs + k, false, NULL); // what the sweep found so far is not needed
        }
    }
    return true;
}

// lidarsim core (private): what the walk along one ray (scene_cast.c) and the sweep of a scan's beams (scene_fan.c)
// share: the exact answers of the primitives (the calls the brute force makes, and its tie-break) and the
// floating-point bounds that filter candidates before them.
#pragma once

#include "core/geometry_internal.h"
#include "core/scene_internal.h"

#include <float.h>
#include <math.h>

static inline lsRayHit NoHit(void) { return (lsRayHit){false, 0.0, {0.0, 0.0}, {0.0, 0.0}, ls_hitNone, -1, -1}; }

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

/// TrySegment for a grid record, with the unit normal its identity holds (CellRef): the same bits, without the
/// normal's square root and division. Always inlined, for the most common end of a sparse grid's packets.
static LS_FORCE_INLINE void TrySegmentRecordInline(const lsSegment* seg, const CellRef* ref, const lsRayInput* input,
                                                   lsRayHit* best)
{
    double L = input->maxFraction < DBL_MAX ? input->maxFraction : DBL_MAX;
    lsVec2 n = ref->normal;
    lsCastOutput out;
    int denSign;
    if (!isnan(n.x) && lsRayCastSegmentCrossing(input->origin, input->direction, L, seg->a, seg->b, &out, &denSign))
    {
        double sign = out.hit ? (double)denSign : 0.0; // a product by 1 or -1 is exact; a miss's normal is zero
        out.normal = (lsVec2){n.x * sign, n.y * sign};
    }
    else
    {
        out = lsRayCastSegmentFull(seg, input);
    }
    if (Beats(&out, ls_hitWall, ref->chain, ref->part, best))
    {
        Take(best, &out, ls_hitWall, ref->chain, ref->part);
    }
}

/// TrySegmentRecordInline where the compiler chooses (the other paths: one body for both, city-10k 102.2 -> 102.3 M
/// instructions for 100 000 rays, 8.26 / 8.23 M rays per CPU s in 7 alternated runs).
static inline void TrySegmentRecord(const lsSegment* seg, const CellRef* ref, const lsRayInput* input, lsRayHit* best)
{
    TrySegmentRecordInline(seg, ref, input, best);
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

static inline bool ValidInput(const lsRayInput* input)
{
    return !(input->maxFraction < 0.0) && (input->direction.x != 0.0 || input->direction.y != 0.0);
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

// min > e or max < -e as one comparison (compilers branch on each side of an ||), in one of two forms that decide
// alike: max(min, -max) > e (-max > e is max < -e: a negation is exact), or max(min - e, -e - max) > 0 (a difference
// of doubles has the sign of their order). The minimum and the maximum are NaN together (when cb is), and then so is
// the outer maximum, which keeps the segment. The first is 3 to 4 instructions fewer per record; the walk in lanes
// (lsScene_CastRays on a big index) keeps the second, with which GCC spills less of the lanes' state (city-100k:
// 1 544 against 1 520 instructions per ray).
static LS_FORCE_INLINE bool SidesOfSegmentAs(const lsSegment* seg, lsVec2 o, lsVec2 d, double sideError,
                                             SegmentSides* s, bool negatedMax)
{
    s->ax = seg->a.x - o.x, s->ay = seg->a.y - o.y, s->bx = seg->b.x - o.x, s->by = seg->b.y - o.y;
    s->ca = d.x * s->ay - d.y * s->ax, s->cb = d.x * s->by - d.y * s->bx;
    double lo = Min(s->ca, s->cb), hi = Max(s->ca, s->cb);
    return negatedMax ? !(Max(lo, -hi) > sideError) : !(Max(lo - sideError, -sideError - hi) > 0.0);
}

static LS_FORCE_INLINE bool SidesOfSegment(const lsSegment* seg, lsVec2 o, lsVec2 d, double sideError, SegmentSides* s)
{
    return SidesOfSegmentAs(seg, o, d, sideError, s, true);
}

// What the second stage needs of the segment alone, relative to the origin (the sweep of a scan's beams computes it
// once for all of them).
typedef struct SegmentLine
{
    double ex, ey;   // b - a
    double n;        // cross(a - o, e) before its sign: the crossing's numerator
    double numError; // a bound on the rounding of n
} SegmentLine;

static LS_FORCE_INLINE SegmentLine MakeSegmentLine(const lsSegment* seg, const SegmentSides* s)
{
    double ex = seg->b.x - seg->a.x, ey = seg->b.y - seg->a.y;
    double n1 = s->ax * ey, n2 = s->ay * ex;
    return (SegmentLine){ex, ey, n1 - n2, 1e-12 * (fabs(n1) + fabs(n2))};
}

// The second stage, for a segment whose line the ray's line may cross (SidesOfSegment true), given its line.
// bitwiseStraddle: whether the endpoints lie strictly on opposite sides is computed without short-circuit branches
// (the walk: the sides are random to the predictor, 0.6 mispredicts per ray as branches; the scans' beams, whose
// sides repeat from beam to beam, keep the branches, which cost fewer instructions).
static LS_FORCE_INLINE bool BoundLineCrossingAs(const SegmentLine* line, const SegmentSides* s, lsVec2 d, double dd,
                                                double limit, double maxFraction, double sideError, double* tLo,
                                                double* tHi, bool bitwiseStraddle)
{
    double ax = s->ax, ay = s->ay, bx = s->bx, by = s->by;
    double ex = line->ex, ey = line->ey;
    double d1 = d.x * ey, d2 = d.y * ex;
    double den = d1 - d2, sDen = fabs(d1) + fabs(d2);
    if (fabs(den) > 1e-6 * sDen)
    {
        // The crossing t = cross(a - o, e) / cross(d, e); den has lost at most 20 bits to cancellation. Decide
        // behind / beyond without dividing (most candidates end here), then divide for the survivors.
        double num = copysign(1.0, den) * line->n; // exact: a sign flip, no branch to mispredict
        double absDen = fabs(den);
        double numError = line->numError;
        if (num < -numError || num > limit * absDen * (1.0 + 1e-9) + numError)
        {
            return false;
        }
        double t = num / absDen;
        double err = 1e-9 * fabs(t) + numError / absDen;
        *tLo = t - err;
        // Endpoints strictly on opposite sides and the crossing surely within [0, maxFraction]: a certain hit.
        if (bitwiseStraddle)
        {
            bool straddles =
                ((s->ca > sideError) & (s->cb < -sideError)) | ((s->ca < -sideError) & (s->cb > sideError));
            *tHi = (straddles & (t - err >= 0.0) & (t + err <= maxFraction)) ? t + err : HUGE_VAL;
        }
        else
        {
            bool straddles = (s->ca > sideError && s->cb < -sideError) || (s->ca < -sideError && s->cb > sideError);
            *tHi = straddles && t - err >= 0.0 && t + err <= maxFraction ? t + err : HUGE_VAL;
        }
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

// The second stage given the segment's line, with the scans' branches (see BoundLineCrossingAs).
static LS_FORCE_INLINE bool BoundLineCrossing(const SegmentLine* line, const SegmentSides* s, lsVec2 d, double dd,
                                              double limit, double maxFraction, double sideError, double* tLo,
                                              double* tHi)
{
    return BoundLineCrossingAs(line, s, d, dd, limit, maxFraction, sideError, tLo, tHi, false);
}

// The second stage, for a segment whose line the ray's line may cross (SidesOfSegment true): the walk's, without
// branches on the endpoints' sides.
static LS_FORCE_INLINE bool BoundCrossing(const lsSegment* seg, const SegmentSides* s, lsVec2 d, double dd,
                                          double limit, double maxFraction, double sideError, double* tLo, double* tHi)
{
    SegmentLine line = MakeSegmentLine(seg, s);
    return BoundLineCrossingAs(&line, s, d, dd, limit, maxFraction, sideError, tLo, tHi, true);
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

// The cell holding p, clamped to the grid (the first cell of a ray starting there).
static inline int CellOf(const lsScene* scene, lsVec2 p) { return CellY(scene, p.y) * scene->nx + CellX(scene, p.x); }

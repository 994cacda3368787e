// The beams of a scan swept through the scene's grid together (scene_fan.h).
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
// A sparse grid (a map's open rooms: more cells than records) is swept over its occupied cells only, nearest block of
// cells first (SparseSweep, below).
#include "core/scene_fan.h"
#include "core/scene_bounds.h"

#include <stdint.h>
#include <string.h>

#define LS_FAN_BINS 256  // bins of direction over the full turn
#define LS_FAN_SEEN 1024 // slots of the set of objects already handled in this fan (a power of two)
#define LS_FAN_PENDING 4 // deferred exact casts per beam
// Bins of direction over the full turn in a sparse grid's sweep (a 360-degree scan of 1 080 beams has a beam every 7.6
// bins or so). A box's slots take the bins its directions touch (BoxSlots): the finer the bins, the fewer beams beside
// a cell come into its side tests. Depot scans, instructions a beam: 4 096 bins 968, 16 384 927 (when a box took a
// whole bin more on each side); with BoxSlots' margin of 1e-12, 8 192 and 16 384 914, 32 768 919 and slower (a 64 KB
// table of starts).
#define LS_SPARSE_BINS 8192

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

// Eight 16-bit integers in one register (GCC's and Clang's vector extensions, as lsDouble2).
typedef unsigned short FanShort8 __attribute__((vector_size(16)));
_Static_assert(LS_FAN_MAX_BEAMS <= 0xFFFF, "a fan's slots fit binStart's 16 bits");

// A deferred exact cast of one beam: the bound on its fraction and the object (a field and its record; for a segment,
// its prepared cast or -1).
typedef struct FanPending
{
    double tLo;
    int item;
    short field, prepared;
} FanPending;

// records: the segment last cast from a record, prepared (neighbouring beams mostly hit the same one), its chain and
// part.
typedef struct LastSegment
{
    lsSegmentCastPrep prep;
    int chain, part;
    int item; // the record last cast (another record may hold the same segment)
} LastSegment;

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
    double speed[LS_FAN_MAX_BEAMS];  // |dx| + |dy| >= |d|
    double length[LS_FAN_MAX_BEAMS]; // |d| (to a few ulps)
    double dd[LS_FAN_MAX_BEAMS];
    double limit[LS_FAN_MAX_BEAMS]; // min(range, best exact hit, a certain pending hit's upper bound)
    double reach[LS_FAN_MAX_BEAMS]; // an open beam's limit * length * (1 + 1e-9): metres beyond its answer; -inf closed
    FanPending pending[LS_FAN_MAX_BEAMS][LS_FAN_PENDING];
    unsigned char pendingCount[LS_FAN_MAX_BEAMS];
    int openList[LS_FAN_MAX_BEAMS];  // the open beams, in no order
    int closing[LS_FAN_MAX_BEAMS];   // the beams that close after a ring
    int openCount[LS_FAN_BINS];      // open beams per direction bin
    int openBefore[LS_FAN_BINS + 1]; // prefix sums of openCount, rebuilt before each ring that needs them
    uint64_t seen[LS_FAN_SEEN];
    int seenCount;
    lsSegmentCastPrep prepared[LS_FAN_PREPARED]; // the exact cast's part that depends on the segment only
    int preparedCount;
    bool unsafe;
    // A sparse grid's sweep (SparseSweep): the open beams by direction bin, and the origin's cell.
    short slotBeam[LS_FAN_MAX_BEAMS];                               // the open beams, ordered by bin
    lsDouble2 slotDx2[LS_FAN_MAX_BEAMS], slotDy2[LS_FAN_MAX_BEAMS]; // their directions' x and y, in both lanes
    lsDouble2 slotCo2[LS_FAN_MAX_BEAMS];                            // cross(d, o), in both lanes
    double slotScale[LS_FAN_MAX_BEAMS];                             // 1e-14 (|dx| + |dy|): the side test's error
    // Where each bin's beams start in slotBeam (and room for SparseSweep's stores): 16-bit, so that the table (16 KB)
    // is half as much of the cache to the boxes' random look-ups (BoxSlots), and one store writes eight bins.
    unsigned short binStart[LS_SPARSE_BINS + 16];
    int rise; // where the open beams' bins rise around the turn from (openList's index), or -1: sorted by count
    int cx, cy;
    double margin; // 4 slop: how much the boxes of what cells and blocks hold are grown (BlockBox, SparseCellVisit)
    // Back faces (scene_grid.c's BuildBackFaces) are skipped: the origin's winding number is 0 (off the loops' edges),
    // and no beam's length is extreme.
    bool backFaces;
    // A hub: the wall with the lowest (chain, part) of those with an end exactly at the origin (chain -1: none, or the
    // origin's cell is not crowded). Every beam hits each such wall at fraction 0, where the hub wins the tie, so the
    // others are never cast (FanSegment): 100 000 walls meeting at the robot cost 36 M exact casts a scan, 10 s.
    int hubChain, hubPart;
    LastSegment last;                         // a sparse grid's sweep: the segment last cast (SparseCast)
    unsigned char answered[LS_FAN_MAX_BEAMS]; // a sparse grid's beam had a survivor cast (or queued), or a hit outside
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

// The sides of a ring: its cells lie below the origin's row, above it, left of its column or right of it.
enum
{
    ls_ringBelow,
    ls_ringAbove,
    ls_ringLeft,
    ls_ringRight,
};

// Whether an open beam may pass through cell (ix, iy) of a ring's side, at least one cell away from the origin's cell
// (so the cell lies in the side's open half-plane of directions): the bins between the pseudo-angles of the two corners
// where the directions through the cell start and end, one more on each side (far more than their rounding). Over a
// box in a half-plane the angle is monotone in one coordinate ratio (below: x / |y|, above: -x / y, left: -y / |x|,
// right: y / x), so the signs of the coordinates pick the two corners, as the minimum and maximum of the four would.
static LS_FORCE_INLINE bool CellMayBeSeen(const Fan* f, int ix, int iy, int side)
{
    const lsScene* scene = f->scene;
    lsVec2 o = f->fan->origin;
    double s = scene->cellSize;
    double xl = scene->x0 + (double)ix * s - o.x, xh = scene->x0 + (double)(ix + 1) * s - o.x;
    double yl = scene->y0 + (double)iy * s - o.y, yh = scene->y0 + (double)(iy + 1) * s - o.y;
    double lo, hi;
    if (side == ls_ringBelow)
    {
        lo = PseudoAngle(xl, xl < 0.0 ? yh : yl), hi = PseudoAngle(xh, xh > 0.0 ? yh : yl);
    }
    else if (side == ls_ringAbove)
    {
        lo = PseudoAngle(xh, xh > 0.0 ? yl : yh), hi = PseudoAngle(xl, xl < 0.0 ? yl : yh);
    }
    else if (side == ls_ringLeft)
    {
        lo = PseudoAngle(yh > 0.0 ? xh : xl, yh), hi = PseudoAngle(yl < 0.0 ? xh : xl, yl);
    }
    else
    {
        lo = PseudoAngle(yl < 0.0 ? xl : xh, yl), hi = PseudoAngle(yh > 0.0 ? xl : xh, yh);
        if (lo > hi)
        {
            // Across the direction (1, 0), where pseudo-angles wrap from 4 to 0.
            return OpenIn(f, BinOf(lo) - 1, BinOf(hi) + 1 + LS_FAN_BINS);
        }
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
    // In beams, clamped to the fan before the conversion (truncation is floor for the non-negative values left; the
    // product by the inverse is within an ulp of the quotient, far inside the margins; a NaN gives every beam).
    double inverse = 1.0 / fan->increment, beams = (double)fan->beams;
    for (int k = 0; k < 2; ++k)
    {
        double shift = (double)k * twoPi;
        double a = (rel0 - shift) * inverse, b = (rel1 - shift) * inverse;
        int first = a > 0.0 ? (a < beams ? (int)a : fan->beams) : 0; // ceil(a) - 1 or one beam less
        int last = !(b < -1.0) ? (b < beams - 2.0 ? (int)(b + 1.0) : fan->beams - 1) : -1; // floor(b) + 1 or more
        runs->first[k] = first <= last ? first : 0;
        runs->last[k] = first <= last ? last : -1;
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

// Lowers open beam k's limit to t (below it), and its reach with it. Only open beams defer objects: a closed beam's
// reach (-inf) is below every segment's distance bound, and discs check.
static inline void LowerLimit(Fan* f, int k, double t)
{
    f->limit[k] = t;
    f->reach[k] = t * f->length[k] * (1.0 + 1e-9);
}

// Segment record item's exact cast for input (its origin the fan's, its maxFraction the fan's range), from the segment
// last cast (prepared again when item's is another), its normals those of its record (the same bits as
// lsRayCastSegmentPrepared's: lsUnitVectorInline of (-ey, ex), and of its negation); its chain and part.
static LS_FORCE_INLINE lsCastOutput CastRecord(const Fan* f, LastSegment* last, int item, const lsRayInput* input,
                                               int* chain, int* part)
{
    const lsSegment* seg = f->scene->segItems + item;
    if (item != last->item)
    {
        // The record's identity is read only for another record than the last (a random access).
        const CellRef* ref = f->scene->segItemRefs + item;
        last->item = item;
        if (ref->chain != last->chain || ref->part != last->part)
        {
            lsPrepareSegmentCast(f->fan->origin, seg->a, seg->b, &last->prep);
            last->chain = ref->chain, last->part = ref->part;
            lsVec2 normal = ref->normal;
            bool known = !isnan(normal.x);
            last->prep.normal[1] = normal, last->prep.normal[0] = (lsVec2){-normal.x, -normal.y};
            last->prep.normalKnown[0] = known, last->prep.normalKnown[1] = known;
        }
    }
    *chain = last->chain, *part = last->part;
    lsCastOutput out;
    if (!lsRayCastSegmentPrepared(&last->prep, input->direction, f->fan->range, &out))
    {
        out = lsRayCastSegmentFull(seg, input);
    }
    return out;
}

// Casts the deferred objects of each of n beams exactly, nearest bound first, until the rest are strictly farther
// than the beam's best (the beams of a ring that close together in one call). The beams' limits are left as they
// were: a closed beam reads its limit no more, and an open one lowers it (FanOverflow). A segment not prepared is cast
// with its record's normal (TrySegmentRecord) when records is set, else by TrySegment (the same bits: the rings'
// few unprepared casts do not pay for the larger code).
static LS_FORCE_INLINE void ResolveBeams(Fan* f, const int* beams, int n, bool records)
{
    double L = f->fan->range; // min(maxFraction, DBL_MAX): the fan's range, checked finite by lsScene_CastFan
    LastSegment last = {.chain = -1, .part = -1, .item = -1};
    for (int b = 0; b < n; ++b)
    {
        int k = beams[b];
        FanPending* pending = f->pending[k];
        int count = f->pendingCount[k];
        if (records && count == 0)
        {
            continue; // a sparse sweep's beam cast in the sweep (SparseCast), or one that met nothing
        }
        const lsRayInput* in = f->inputs + k;
        lsRayHit* best = f->hits + k;
        if (records && count == 1 && !best->hit && pending[0].field == ls_fieldSegment && pending[0].prepared < 0)
        {
            // A sparse sweep's common case: one deferred cast, a record's, and no answer yet (it is the answer).
            int chain, part;
            lsCastOutput out = CastRecord(f, &last, pending[0].item, in, &chain, &part);
            if (out.hit)
            {
                Take(best, &out, ls_hitWall, chain, part);
            }
            f->pendingCount[k] = 0;
            continue;
        }
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
            if (p.field == ls_fieldSegment && p.prepared < 0 && records)
            {
                int chain, part;
                lsCastOutput out = CastRecord(f, &last, p.item, in, &chain, &part);
                if (Beats(&out, ls_hitWall, chain, part, best))
                {
                    Take(best, &out, ls_hitWall, chain, part);
                }
            }
            else if (p.field == ls_fieldSegment)
            {
                CellRef ref = f->scene->segItemRefs[p.item];
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
    }
}

static LS_NOINLINE void FanResolve(Fan* f, const int* beams, int n) { ResolveBeams(f, beams, n, false); }

/// FanResolve for a sparse grid's sweep, whose segments are cast from their records.
static LS_NOINLINE void SparseResolve(Fan* f, const int* beams, int n) { ResolveBeams(f, beams, n, true); }

// Beam k's deferred casts made room for more: resolved now, the beam's limit lowered to its best (it stays open).
static LS_NOINLINE void FanOverflow(Fan* f, int k)
{
    FanResolve(f, &k, 1);
    const lsRayHit* best = f->hits + k;
    if (best->hit && best->fraction < f->limit[k])
    {
        LowerLimit(f, k, best->fraction);
    }
}

// Defers the exact cast of an object that beam k may hit at a fraction in [tLo, tHi] (tHi HUGE_VAL when the hit is
// not certain).
static inline void FanDefer(Fan* f, int k, double tLo, double tHi, int field, int item, int prepared)
{
    if (f->pendingCount[k] == LS_FAN_PENDING)
    {
        FanOverflow(f, k);
    }
    // A bound lost to overflow (NaN) must sort first, never be dropped.
    f->pending[k][f->pendingCount[k]++] =
        (FanPending){tLo >= -HUGE_VAL ? tLo : -HUGE_VAL, item, (short)field, (short)prepared};
    if (tHi < f->limit[k])
    {
        LowerLimit(f, k, tHi);
    }
}

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

// Whether an end of s is exactly o. A ray from o hits s at fraction 0 then, whatever its direction (lsRayCastSegment:
// the end on the ray's line is the crossing, or the origin lies on a collinear segment): zero, not a rounded value.
static inline bool EndsAt(const lsSegment* s, lsVec2 o)
{
    return (s->a.x == o.x && s->a.y == o.y) || (s->b.x == o.x && s->b.y == o.y);
}

// The objects of one cell, each handled once per fan for its open beams.
// The fan's beams against segment record i, once per fan (a segment registered in several cells comes once).
static inline void FanSegment(Fan* f, int i)
{
    const lsScene* scene = f->scene;
    lsVec2 o = f->fan->origin;
    CellRef ref = scene->segItemRefs[i];
    const lsSegment* seg = scene->segItems + i;
    if (f->hubChain >= 0 && EndsAt(seg, o) && (ref.chain != f->hubChain || ref.part != f->hubPart))
    {
        return; // loses every beam's tie at fraction 0 to the hub (not marked seen: the set would fill)
    }
    if (!FirstTime(f, ((uint64_t)(uint32_t)ref.chain << 32 | (uint32_t)ref.part) + 1))
    {
        return;
    }
    lsBeamRuns runs;
    SegmentRuns(f->fan, seg, &runs);
    // The endpoints relative to the origin once for all the beams (SidesOfSegment's first line).
    SegmentSides rel = {seg->a.x - o.x, seg->a.y - o.y, seg->b.x - o.x, seg->b.y - o.y, 0.0, 0.0}; // sides per beam
    double far = Max(fabs(rel.ax) + fabs(rel.ay), fabs(rel.bx) + fabs(rel.by));
    SegmentLine line = MakeSegmentLine(seg, &rel);
    // A beam whose answer lies nearer than the segment skips it at one comparison (a closed beam's reach is -inf;
    // a NaN bound filters nothing).
    double near = SegmentDistanceBound(seg, o);
    near = near > -DBL_MAX ? near : -DBL_MAX;
    int prepared = f->preparedCount < LS_FAN_PREPARED ? f->preparedCount++ : -1;
    if (prepared >= 0)
    {
        lsPrepareSegmentCast(o, seg->a, seg->b, f->prepared + prepared);
    }
    double range = f->fan->range; // every beam's maxFraction
    for (int q = 0; q < 2; ++q)
    {
        int lo, hi;
        RunRange(f, &runs, q, &lo, &hi);
        for (int k = lo; k <= hi; ++k)
        {
            if (!(near <= f->reach[k]))
            {
                continue;
            }
            lsVec2 d = f->inputs[k].direction;
            double sideError = 1e-14 * f->speed[k] * far, tLo, tHi;
            rel.ca = d.x * rel.ay - d.y * rel.ax, rel.cb = d.x * rel.by - d.y * rel.bx;
            if (!(Min(rel.ca, rel.cb) > sideError || Max(rel.ca, rel.cb) < -sideError) &&
                BoundLineCrossing(&line, &rel, d, f->dd[k], f->limit[k], range, sideError, &tLo, &tHi))
            {
                FanDefer(f, k, tLo, tHi, ls_fieldSegment, i, prepared);
            }
        }
    }
}

// An origin cell holding more segment records than this has them taken nearest first (FanCrowdedCell).
#define LS_FAN_CROWDED 64

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
        const lsSegment* seg = scene->segItems + h[0].seg + j;
        bound[j] = SegmentDistanceBound(seg, o);
        top = bound[j] > top ? bound[j] : top;
        if (EndsAt(seg, o))
        {
            // Every wall of the grid with an end at the origin is registered here, in the origin's cell, so the hub
            // is the lowest of them all and FanSegment may skip every other (a long wall outside the grid is cast by
            // lsScene_CastOutsideGrid, never skipped).
            const CellRef* ref = scene->segItemRefs + h[0].seg + j;
            if (f->hubChain < 0 || ref->chain < f->hubChain || (ref->chain == f->hubChain && ref->part < f->hubPart))
            {
                f->hubChain = ref->chain, f->hubPart = ref->part;
            }
        }
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

// A cell's targets and shapes, offered to the fan as discs (each object once per block: the seen set's key).
static LS_FORCE_INLINE void FanCellDiscs(Fan* f, const lsScene* scene, const CellHeader* h)
{
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
    FanCellDiscs(f, scene, h);
}

// Cell (ix, iy) of ring r: its objects, when it holds any and an open beam may pass through it.
static LS_FORCE_INLINE void FanRingCell(Fan* f, int ix, int iy, int r, int side)
{
    const CellHeader* h = f->scene->cells + (ptrdiff_t)iy * f->scene->nx + ix;
    if (h[1].seg == h[0].seg && h[1].target == h[0].target && h[1].shape == h[0].shape)
    {
        return;
    }
    if (r >= 2 && !CellMayBeSeen(f, ix, iy, side))
    {
        return;
    }
    FanCell(f, h);
}

// ---------------------------------------------------------------------------------------------------------------------
// Sparse grids: only the occupied cells, nearest first

// A map's open rooms of small cells are mostly empty: the rings would visit every empty cell of the grid. The sweep of
// a sparse grid takes the occupied cells only (the scene lists them by blocks of 4 x 4 cells), block by block in order
// of their distance from the origin (buckets a cell wide; a block's cells nearer rows first), and a block or a cell
// that no beam can reach is skipped: one whose every beam through it (the beams of its bins of direction, 4096 over the
// turn) already has its answer, or its range, nearer than the box. Every beam stays open to the end: nothing but its
// reach turns cells away from it, and its deferred casts are resolved last. A cell that few beams may cross tests each
// of its segments against each of them (the side test, two records at a time; a beam's first survivor is cast after the
// cell's side tests, later ones bounded as the walk does); a segment met in several cells is deferred only from the
// cell that holds the crossing. A cell that many beams may cross (near the origin) has its segments handled one by one
// with their own beam runs (FanCell), as the rings do.

#define LS_SPARSE_WIDE 16 // a cell more beams may cross than this has its segments handled one by one (FanCell)

// A box relative to the origin (what a cell or a block holds, grown on every side by a margin).
typedef struct FanBox
{
    double xl, xh, yl, yh;
} FanBox;

// A lower bound on the distance from the origin to any point of the box (0 when it holds the origin).
static inline double BoxNear(FanBox b)
{
    double dx = Max(Max(b.xl, -b.xh), 0.0), dy = Max(Max(b.yl, -b.yh), 0.0);
    return sqrt(dx * dx + dy * dy) * (1.0 - 1e-9);
}

static inline int SparseBin(double pseudoAngle)
{
    int b = (int)(pseudoAngle * (0.25 * LS_SPARSE_BINS));
    return b < 0 ? 0 : (b > LS_SPARSE_BINS - 1 ? LS_SPARSE_BINS - 1 : b);
}

// The slots (in slotBeam) of the open beams that may pass through box b: up to two runs [lo[q], hi[q]). As
// CellMayBeSeen: the box lies in one of the four open half-planes of directions (below, above, left or right of the
// origin), where the angle is monotone in one ratio of the coordinates, so the signs of its coordinates pick the two
// corners where the directions through it start and end; the bins of their pseudo-angles moved out by 1e-12. That
// margin covers the rounding: PseudoAngle's value is within 1e-15 of the exact one (a correctly rounded sum or
// difference, quotient and sum with a base of at most 3), so a beam through the box has a pseudo-angle at least the
// start corner's less 2e-15, and its bin (monotone in the pseudo-angle) is at least that of the start's less the
// margin; the same at the end. Neither moved value leaves the bins' range by more than the clamp (the beams' bins take
// the same clamp). (The boxes' own margin, several slops beyond the records' pieces, keeps a beam that crosses one far
// inside too, so no test tells the 1e-12 from 0; a bin more on each side was 2 % of the depot's scan.) False when the
// box reaches the origin's row and column (every beam may pass).
static LS_FORCE_INLINE bool BoxSlots(const Fan* f, FanBox b, int lo[2], int hi[2])
{
    double plo, phi;
    if (b.yh < 0.0)
    {
        plo = PseudoAngle(b.xl, b.xl < 0.0 ? b.yh : b.yl), phi = PseudoAngle(b.xh, b.xh > 0.0 ? b.yh : b.yl);
    }
    else if (b.yl > 0.0)
    {
        plo = PseudoAngle(b.xh, b.xh > 0.0 ? b.yl : b.yh), phi = PseudoAngle(b.xl, b.xl < 0.0 ? b.yl : b.yh);
    }
    else if (b.xh < 0.0)
    {
        plo = PseudoAngle(b.yh > 0.0 ? b.xh : b.xl, b.yh), phi = PseudoAngle(b.yl < 0.0 ? b.xh : b.xl, b.yl);
    }
    else if (b.xl > 0.0)
    {
        plo = PseudoAngle(b.yl < 0.0 ? b.xl : b.xh, b.yl), phi = PseudoAngle(b.yh > 0.0 ? b.xl : b.xh, b.yh);
    }
    else
    {
        return false;
    }
    int bl = SparseBin(plo - 1e-12), bh = SparseBin(phi + 1e-12);
    const unsigned short* start = f->binStart;
    lo[0] = start[bl];
    if (!(plo > phi))
    {
        hi[0] = start[bh + 1], lo[1] = 0, hi[1] = 0;
    }
    else if (bh + 1 < bl)
    {
        // Across the direction (1, 0), where pseudo-angles wrap from 4 to 0: bins bl and up, and bh and below.
        hi[0] = start[LS_SPARSE_BINS], lo[1] = start[0], hi[1] = start[bh + 1];
    }
    else
    {
        lo[0] = 0, hi[0] = start[LS_SPARSE_BINS], lo[1] = 0, hi[1] = 0; // the runs meet: the whole turn
    }
    return true;
}

// Whether a beam of the slots may reach a point at distance near (its answer, or range, is not nearer); the runs'
// starts move to the first such slot.
static inline bool SlotsReach(const Fan* f, int lo[2], const int hi[2], double near)
{
    for (int q = 0; q < 2; ++q)
    {
        for (int p = lo[q]; p < hi[q]; ++p)
        {
            if (near <= f->reach[f->slotBeam[p]])
            {
                lo[q] = p;
                return true;
            }
        }
        lo[q] = hi[q];
    }
    return false;
}

// Segment record item cast exactly for open beam k, its first survivor (nearly always its answer: one exact cast a
// beam in place of a bound, a deferral and the resolve's turn): a hit that beats the beam's best (it has none, unless
// a full list of deferrals was resolved, FanOverflow) becomes it and the beam's limit. A later survivor is bounded
// against that limit (the bound keeps every crossing up to it, so a record at the same fraction that comes first in
// the tie-break is deferred, and the resolve's Beats takes it).
static LS_FORCE_INLINE void SparseCast(Fan* f, int k, int item)
{
    int chain, part;
    lsCastOutput out = CastRecord(f, &f->last, item, f->inputs + k, &chain, &part);
    if (Beats(&out, ls_hitWall, chain, part, f->hits + k)) // the beam may have an answer from a resolve (FanOverflow)
    {
        Take(f->hits + k, &out, ls_hitWall, chain, part);
        if (out.fraction < f->limit[k])
        {
            LowerLimit(f, k, out.fraction);
        }
    }
}

// A beam's first survivor in a cell, cast after the cell's side tests (SparseCast), so that their loop makes no call.
typedef struct SparseQueued
{
    int beam, item;
} SparseQueued;

// Segment record item against open beam k, whose line separates the ends of the record's piece in a cell (ca, cb:
// the piece's sides): queued to be cast when it is the beam's first survivor, else bounded (from the record's
// endpoints relative to the origin and the piece's sides) and deferred when it may win. The piece's sides decide
// whether the hit is certain: the piece lies on the record between its endpoints (its ends off the line by a few ulps
// of their coordinates, far inside the side tests' error bound), so ends strictly on opposite sides of the beam's line
// put the record's endpoints strictly on opposite sides too.
static LS_FORCE_INLINE void SparseSegment(Fan* f, int k, lsVec2 d, double range, int item, double ca, double cb,
                                          double sideError, SparseQueued* queue, int* queued)
{
    if (!f->answered[k])
    {
        LS_ASSERT(*queued < LS_SPARSE_WIDE);
        f->answered[k] = 1;
        queue[*queued] = (SparseQueued){k, item};
        *queued += 1;
        return;
    }
    lsVec2 o = f->fan->origin;
    const lsSegment* seg = f->scene->segItems + item;
    SegmentSides rel = {seg->a.x - o.x, seg->a.y - o.y, seg->b.x - o.x, seg->b.y - o.y, ca, cb};
    SegmentLine line = MakeSegmentLine(seg, &rel);
    double tLo, tHi;
    if (BoundLineCrossing(&line, &rel, d, f->dd[k], f->limit[k], range, sideError, &tLo, &tHi))
    {
        FanDefer(f, k, tLo, tHi, ls_fieldSegment, item, -1);
    }
}

// The box of what a block's cells hold, relative to the origin and grown by the margin.
static inline FanBox BlockBox(const Fan* f, const SparseBlock* block)
{
    lsVec2 o = f->fan->origin;
    double m = f->margin;
    return (FanBox){block->xl - o.x - m, block->xh - o.x + m, block->yl - o.y - m, block->yh - o.y + m};
}

// What a visit needs of a box that does not change during the sweep: its slots (BoxSlots; every beam when it reaches
// the origin's row and column, or lies next to the origin's cell) and its distance. Worked out for all the cells of a
// block before any is visited, and for the blocks when they are bucketed: their divisions and square roots then
// overlap, instead of each lying on the path to the branch that decides whether a beam reaches the box.
typedef struct BoxView
{
    int lo[2], hi[2];
    double near;
    bool every;
} BoxView;

static LS_FORCE_INLINE void ViewBox(const Fan* f, FanBox b, bool every, BoxView* v)
{
    v->every = every || !BoxSlots(f, b, v->lo, v->hi);
    v->near = BoxNear(b);
}

// The box of what an occupied cell holds, relative to the origin and grown by the margin.
static inline FanBox CellBox(const Fan* f, const SparseCell* cell)
{
    lsVec2 o = f->fan->origin;
    double m = f->margin;
    return (FanBox){cell->xl - o.x - m, cell->xh - o.x + m, cell->yl - o.y - m, cell->yh - o.y + m};
}

// An occupied cell at least two cells from the origin's (v: its view): its segments against the beams that may reach
// it. Its box is that of what it holds (SparseCell), grown by the margin: a beam that misses it crosses none of the
// cell's records within the cell (a crossing elsewhere lies in another cell of the record, which that beam passes
// through). The side tests take each record's piece within the cell's box grown by twice the slop (sparsePairs), so a
// record of several cells passes only in the cells its crossing lies in or within the slop of: the point where the
// exact cast meets a record lies in some cell's box, whose piece holds it, and that cell is visited for the beam.
static void SparseCellVisit(Fan* f, const SparseCell* cell, BoxView* v)
{
    const lsScene* scene = f->scene;
    if (v->every)
    {
        FanCell(f, scene->cells + (ptrdiff_t)cell->iy * scene->nx + cell->ix);
        return;
    }
    lsVec2 o = f->fan->origin;
    int* lo = v->lo;
    const int* hi = v->hi;
    double near = v->near;
    if (!SlotsReach(f, lo, hi, near))
    {
        return;
    }
    if ((hi[0] - lo[0]) + (hi[1] - lo[1]) > LS_SPARSE_WIDE)
    {
        FanCell(f, scene->cells + (ptrdiff_t)cell->iy * scene->nx + cell->ix);
        return;
    }
    // The side tests take the pieces' ends as stored (sparsePairs, absolute), cross(d, p) - cross(d, o) for
    // cross(d, p - o): rounded by a few ulps of |d| (|p| + |o|) in the 1-norm, and an end computed by the clip lies
    // off the record's line by a few ulps of its coordinates; both far below 1e-14 times the farthest corner of the
    // records' box plus |o| (rounding is monotone: no end's |x| + |y| exceeds the corner's by more than an ulp).
    double far = cell->far + (fabs(o.x) + fabs(o.y));
    double range = f->fan->range;
    const double* pairs = scene->sparsePairs + 8 * (ptrdiff_t)cell->pairs;
    int first = cell->first, n = cell->count;
    // Back faces (BuildBackFaces): the pairs' bits, and a beam's margin from a record's ends beyond its side error.
    const unsigned char* skip = f->backFaces ? scene->sparsePairSkip + cell->pairs : NULL;
    double backFar = far + scene->backFaceFar;
    SparseQueued queue[LS_SPARSE_WIDE]; // one a beam at most: no more beams than that come here
    int queued = 0;
    for (int q = 0; q < 2 && n > 0; ++q)
    {
        for (int p = lo[q]; p < hi[q]; ++p)
        {
            int k = f->slotBeam[p];
            if (!(near <= f->reach[k]))
            {
                continue;
            }
            // SidesOfSegment's miss test, two records at a time in SSE2 lanes (Min and Max as SSE2's, which return
            // the second operand for a NaN, as the scalar ones do), as the walk takes it: max(min, -max) > e, the
            // decisions of min > e or max < -e (a negation is exact; a NaN cb keeps the lane in both).
            double sideError = f->slotScale[p] * far; // 1e-14 (|dx| + |dy|) far
            lsDouble2 dx = f->slotDx2[p], dy = f->slotDy2[p], e = {sideError, sideError};
            lsDouble2 co = f->slotCo2[p]; // cross(d, o)
            lsVec2 d = {dx[0], dy[0]};    // the beam's direction
            double margin = f->slotScale[p] * backFar;
            lsDouble2 m = {margin, margin};
            for (int i = 0; i < n; i += 2)
            {
                lsDouble2 rax, ray, rbx, rby;
                const double* pair = pairs + 4 * (ptrdiff_t)i;
                memcpy(&rax, pair, sizeof rax), memcpy(&ray, pair + 2, sizeof ray);
                memcpy(&rbx, pair + 4, sizeof rbx), memcpy(&rby, pair + 6, sizeof rby);
                lsDouble2 ca = (dx * ray - dy * rax) - co, cb = (dx * rby - dy * rbx) - co;
                int missed = lsLanes2(lsLess2(e, lsMax2(lsMin2(ca, cb), -lsMax2(ca, cb))));
                if (missed == 3)
                {
                    continue;
                }
                int keep = ~missed & (i + 1 < n ? 3 : 1); // the copy's lane, once a lane is kept
                if (skip != NULL)
                {
                    // A back face: both ends beyond the margin (so on opposite sides, the lane being kept), crossed
                    // from a side its bits name: from the left when cb > 0 (ca < 0 < cb: the origin, when the crossing
                    // lies ahead, is on the record's left), from the right when cb's sign bit is set.
                    int beyond = lsLanes2(lsLess2(m, lsMin2(lsAbs2(ca), lsAbs2(cb))));
                    int fromRight = lsLanes2(cb), bits = skip[i / 2];
                    keep &= ~(beyond & ((bits & ~fromRight) | (bits >> 2 & fromRight)));
                }
                if ((keep & 1) != 0)
                {
                    SparseSegment(f, k, d, range, first + i, ca[0], cb[0], sideError, queue, &queued);
                }
                if ((keep & 2) != 0)
                {
                    SparseSegment(f, k, d, range, first + i + 1, ca[1], cb[1], sideError, queue, &queued);
                }
            }
        }
    }
    for (int j = 0; j < queued; ++j)
    {
        SparseCast(f, queue[j].beam, queue[j].item);
    }
    if (cell->discs)
    {
        FanCellDiscs(f, scene, scene->cells + (ptrdiff_t)cell->iy * scene->nx + cell->ix);
    }
}

// The sweep of a sparse grid: the open beams sorted by bin of direction, the blocks of occupied cells in buckets by
// distance (a cell wide), each block taken in its bucket's turn and, when a beam may reach it, its cells visited.
static LS_NOINLINE void SparseSweep(Fan* f, const int* openList, int openN)
{
    const lsScene* scene = f->scene;
    unsigned short* start = f->binStart;
    double maxReach = 0.0;
    if (f->rise >= 0)
    {
        // A scan's beams come in order of angle: their bins rise from openList[rise] around the turn, so the slots
        // are openList turned (no sort), and bin b starts at the first slot of a bin of b or more. Slot p starts the
        // bins prev + 1 .. b by stores of eight (the next slot's stores begin at b + 1 and cover what these wrote
        // beyond b; the bins after the last slot's are the end's).
        int prev = -1;
        for (int p = 0, j = f->rise; p < openN; ++p, j = j + 1 < openN ? j + 1 : 0)
        {
            int k = openList[j], b = f->bin[k];
            f->slotBeam[p] = (short)k;
            maxReach = Max(maxReach, f->reach[k]);
            FanShort8 eight = {0, 0, 0, 0, 0, 0, 0, 0};
            eight += (unsigned short)p;
            for (int c = prev + 1; c <= b; c += 8)
            {
                memcpy(start + c, &eight, sizeof eight);
            }
            prev = b;
        }
        FanShort8 rest = {0, 0, 0, 0, 0, 0, 0, 0};
        rest += (unsigned short)openN;
        for (int c = prev + 1; c <= LS_SPARSE_BINS; c += 8)
        {
            memcpy(start + c, &rest, sizeof rest);
        }
    }
    else
    {
        // The open beams by bin of direction (a counting sort: bin b's count at b + 2, so that after the prefix sums
        // start[b + 1] is where bin b starts, and after the scatter, where it ends).
        memset(start, 0, sizeof f->binStart);
        for (int j = 0; j < openN; ++j)
        {
            int k = openList[j];
            start[f->bin[k] + 2] += 1; // the bin set up by lsScene_CastFan
            maxReach = Max(maxReach, f->reach[k]);
        }
        for (int b = 2; b <= LS_SPARSE_BINS; ++b)
        {
            start[b] += start[b - 1];
        }
        for (int j = 0; j < openN; ++j)
        {
            int k = openList[j];
            f->slotBeam[start[f->bin[k] + 1]++] = (short)k;
        }
    }
    lsVec2 o = f->fan->origin;
    for (int p = 0; p < openN; ++p)
    {
        lsVec2 d = f->inputs[f->slotBeam[p]].direction;
        lsDouble2 dx = {d.x, d.x}, dy = {d.y, d.y};
        f->slotDx2[p] = dx, f->slotDy2[p] = dy;
        f->slotCo2[p] = dx * (lsDouble2){o.y, o.y} - dy * (lsDouble2){o.x, o.x};
        f->slotScale[p] = 1e-14 * f->speed[f->slotBeam[p]];
    }

    // Buckets of distance a cell wide, each a list (a stack) of blocks.
    double s = scene->cellSize;
    int buckets = scene->nx + scene->ny + 2; // the origin lies in the grid: every box is nearer than (nx + ny) s
    double wanted = maxReach / s + 2.0;
    buckets = wanted < (double)buckets ? (int)wanted : buckets;
    int entries = scene->sparseBlockCount;
    size_t bytes = (size_t)entries * sizeof(BoxView) + ((size_t)buckets + 2 * (size_t)entries) * sizeof(int);
    BoxView* views = lsAlloc(bytes); // each listed block's view, then the buckets' heads and their lists
    int* head = (int*)(views + entries);
    int* next = head + buckets;
    int* code = next + entries;
    for (int j = 0; j < buckets; ++j)
    {
        head[j] = -1;
    }
    int used = 0;
    double inverse = scene->invCellSize;
    const SparseBlock* blocks = scene->sparseBlocks;
    for (int i = 0; i < scene->sparseBlockCount; ++i)
    {
        FanBox box = BlockBox(f, blocks + i);
        double near = BoxNear(box);
        if (near <= maxReach)
        {
            double q = near * inverse;
            int j = q < (double)(buckets - 1) ? (int)q : buckets - 1;
            ViewBox(f, box, false, views + used);
            code[used] = i, next[used] = head[j], head[j] = used++;
        }
    }
    for (int j = 0; j < buckets; ++j)
    {
        while (head[j] >= 0)
        {
            int e = head[j];
            head[j] = next[e];
            const SparseBlock* block = blocks + code[e];
            BoxView* bv = views + e;
            if (!bv->every && !SlotsReach(f, bv->lo, bv->hi, bv->near))
            {
                continue;
            }
            // The block's cells at once, nearer rows first (its list is row-major: backwards when the origin lies
            // above the block's middle); the order only decides how soon a beam's hit turns the later cells away.
            int n = block[1].start - block->start;
            FanBox box = BlockBox(f, block);
            bool backwards = box.yl + box.yh < 0.0;
            const SparseCell* cells = scene->sparseCells + block->start;
            BoxView cellViews[LS_SPARSE_BLOCK * LS_SPARSE_BLOCK];
            for (int c = 0; c < n; ++c)
            {
                const SparseCell* cell = cells + (backwards ? n - 1 - c : c);
                int rx = cell->ix - f->cx, ry = cell->iy - f->cy;
                bool nearOrigin = rx >= -1 && rx <= 1 && ry >= -1 && ry <= 1; // ring 0 or 1
                ViewBox(f, CellBox(f, cell), nearOrigin, cellViews + c);
            }
            for (int c = 0; c < n; ++c)
            {
                SparseCellVisit(f, cells + (backwards ? n - 1 - c : c), cellViews + c);
            }
        }
    }
    lsFree(views, bytes);
}

// Each beam's answer so far (the primitives outside the grid), limit, reach and bin of direction: the rings' open
// beams are counted per bin; a sparse grid's are sorted by their finer bins (SparseSweep), turned where those rise
// around the turn when they do (rise), and a beam with an answer already has no first survivor cast (answered).
// Lists the open beams; returns how many. Inlined once for each kind of grid.
static LS_FORCE_INLINE int SetUpBeams(Fan* f, bool sparse)
{
    const lsScene* scene = f->scene;
    const lsBeamFan* fan = f->fan;
    lsVec2 o = fan->origin;
    const lsRayInput* inputs = f->inputs; // in locals: the stores through f (open: bytes) may alias anything
    lsRayHit* hits = f->hits;
    int count = f->count, openN = 0;
    int* openList = f->openList;
    bool outside = scene->displacedCount + scene->longSegmentCount + scene->longShapeCount > 0;
    double ddLow = 1.0, ddHigh = 1.0;      // the least and greatest |d|^2 of a sparse grid's beams
    int lastBin = -1, drops = 0, rise = 0; // a sparse grid's open beams' bins: how often they drop, and where
    for (int k = 0; k < count; ++k)
    {
        const lsRayInput* in = inputs + k;
        LS_ASSERT(in->origin.x == o.x && in->origin.y == o.y && in->maxFraction == fan->range);
        (void)o;
        lsVec2 d = in->direction;
        hits[k] = NoHit();
        if (!ValidInput(in))
        {
            f->open[k] = 0;
            f->reach[k] = -HUGE_VAL;
            continue;
        }
        double dd = d.x * d.x + d.y * d.y, speed = fabs(d.x) + fabs(d.y), limit = fan->range; // the beam's range
        if (outside)
        {
            lsScene_CastOutsideGrid(scene, in, dd, hits + k, NULL);
            limit = hits[k].hit && hits[k].fraction < limit ? hits[k].fraction : limit;
        }
        f->dd[k] = dd;
        f->speed[k] = speed;
        // |d| by its square root (within a few ulps, far inside the reach's 1e-9), |dx| + |dy| when dd would
        // underflow or overflow: a beam's reach, the farthest its answer may lie, then exceeds it by no more than that.
        f->length[k] = dd >= 1e-300 && dd <= 1e300 ? sqrt(dd) : speed;
        f->limit[k] = limit;
        f->reach[k] = limit * f->length[k] * (1.0 + 1e-9);
        f->pendingCount[k] = 0;
        f->open[k] = 1;
        if (sparse)
        {
            int bin = SparseBin(PseudoAngle(d.x, d.y));
            f->bin[k] = (short)bin;
            f->answered[k] = hits[k].hit;
            ddLow = Min(ddLow, dd), ddHigh = Max(ddHigh, dd);
            drops += bin < lastBin;
            rise = bin < lastBin ? openN : rise;
            lastBin = bin;
        }
        else
        {
            f->bin[k] = (short)BinOf(PseudoAngle(d.x, d.y));
            f->openCount[f->bin[k]] += 1;
        }
        openList[openN++] = k;
    }
    f->backFaces = ddLow >= 0x1p-100 && ddHigh <= 0x1p100; // moderate lengths (BuildBackFaces)
    // The bins rise from openList[rise] around the turn when they drop once, below the first, or never.
    bool rising = drops == 0 || (drops == 1 && lastBin <= f->bin[openList[0]]);
    f->rise = sparse && rising ? rise : -1;
    return openN;
}

bool lsScene_CastFan(const lsScene* scene, const lsBeamFan* fan, int first, const lsRayInput* inputs, int count,
                     lsRayHit* hits)
{
    LS_ASSERT(scene != NULL && fan != NULL && count >= 0 && count <= LS_FAN_MAX_BEAMS);
    LS_ASSERT(count == 0 || (inputs != NULL && hits != NULL));
    lsVec2 o = fan->origin;
    int nx = scene->nx, ny = scene->ny;
    double s = scene->cellSize;
    if (nx == 0 || !(fan->range >= 0.0 && fan->range <= DBL_MAX) || !(fabs(fan->start) <= 1e4) ||
        !(fan->increment >= 0.0) || !((double)(fan->beams - 1) * fan->increment <= 2.0 * LS_PI + 1e-6) ||
        !(o.x > scene->x0 && o.x < scene->x0 + (double)nx * s) ||
        !(o.y > scene->y0 && o.y < scene->y0 + (double)ny * s))
    {
        return false;
    }
    // One fan's bookkeeping, about 236 KB (87 of them for sparse grids): on the heap, not on the stack of a scan,
    // whose beams' arrays are there already (scans run on pool and other threads too).
    Fan* f = lsAlloc(sizeof(Fan));
    f->scene = scene;
    f->originCell = scene->cells + CellOf(scene, o);
    f->fan = fan;
    f->inputs = inputs;
    f->hits = hits;
    f->first = first;
    f->count = count;
    f->seenCount = 0;
    f->preparedCount = 0;
    f->unsafe = false;
    f->backFaces = false;
    f->hubChain = -1, f->hubPart = -1;
    memset(f->seen, 0, sizeof f->seen);
    memset(f->openCount, 0, sizeof f->openCount);
    int* openList = f->openList;
    bool sparse = scene->sparseBlocks != NULL;
    int openN = sparse ? SetUpBeams(f, true) : SetUpBeams(f, false);

    int cx = CellX(scene, o.x), cy = CellY(scene, o.y);
    f->cx = cx, f->cy = cy;
    f->margin = 4.0 * scene->slop;
    if (sparse)
    {
        // Back faces are skipped only for beams of moderate length (SetUpBeams; the fractions' rounding as
        // BuildBackFaces takes it) and an origin of winding number 0, off the loops' edges, in a row of at
        // most LS_BACK_FACE_ROW_EDGES of them.
        int winding;
        f->backFaces =
            f->backFaces && scene->sparsePairSkip != NULL && lsSceneGrid_Winding(scene, o, &winding) && winding == 0;
        f->last = (LastSegment){.chain = -1, .part = -1, .item = -1};
        SparseSweep(f, openList, openN);
        bool unsafe = f->unsafe;
        if (!unsafe)
        {
            SparseResolve(f, openList, openN);
        }
        lsFree(f, sizeof(Fan));
        return !unsafe;
    }
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
            f->openBefore[0] = 0;
            for (int b = 0; b < LS_FAN_BINS; ++b)
            {
                f->openBefore[b + 1] = f->openBefore[b] + f->openCount[b];
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
                FanRingCell(f, ix, iy0, r, ls_ringBelow);
            }
        }
        if (iy1 < ny && r > 0)
        {
            for (int ix = xa; ix <= xb; ++ix)
            {
                FanRingCell(f, ix, iy1, r, ls_ringAbove);
            }
        }
        if (ix0 >= 0 && r > 0)
        {
            for (int iy = ya; iy <= yb; ++iy)
            {
                FanRingCell(f, ix0, iy, r, ls_ringLeft);
            }
        }
        if (ix1 < nx && r > 0)
        {
            for (int iy = ya; iy <= yb; ++iy)
            {
                FanRingCell(f, ix1, iy, r, ls_ringRight);
            }
        }
        if (f->unsafe)
        {
            lsFree(f, sizeof(Fan));
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
        int closed = 0;
        for (int j = 0; j < openN;)
        {
            int k = openList[j];
            // A hit in an unswept cell lies at least R - margin from the origin, so at a fraction of at least that
            // over |d|: strictly farther than this beam's best (or range) when its reach is below.
            if (f->reach[k] < reach)
            {
                f->open[k] = 0;
                f->reach[k] = -HUGE_VAL;
                f->closing[closed++] = k;
                f->openCount[f->bin[k]] -= 1;
                openList[j] = openList[--openN];
                dirty = true;
            }
            else
            {
                ++j;
            }
        }
        FanResolve(f, f->closing, closed);
    }
    if (r > maxRing)
    {
        FanResolve(f, openList, openN); // the whole grid is swept
    }
    for (int j = 0; j < openN && r <= maxRing; ++j)
    {
        int k = openList[j];
        hits[k] = lsScene_WalkRay(scene, inputs + k); // what the sweep found so far is not needed
    }
    lsFree(f, sizeof(Fan));
    return true;
}

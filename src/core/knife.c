// lidarsim core: the knife (edit.h), cutting walls where a stroke crosses them.
//
// A chain is handled in arc length: u in [0, T] runs along it from points[0] (a closed chain comes back
// to points[0] at u = T). Each crossing removes [u - h, u + h]; what is left between the removed intervals becomes
// the new chains.
#include "core/edit.h"
#include "core/sweep.h"

#include "lidarsim/geometry.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef struct Cut
{
    double u;    // arc length of the crossing along the chain
    double half; // half-width of the opening, metres
} Cut;

static int CompareCuts(const void* a, const void* b)
{
    double ua = ((const Cut*)a)->u, ub = ((const Cut*)b)->u;
    return (ua > ub) - (ua < ub);
}

// An interval of arc length removed by the knife, or kept between two such.
typedef struct Gap
{
    double lo, hi;
} Gap;

static int CompareGaps(const void* a, const void* b)
{
    double la = ((const Gap*)a)->lo, lb = ((const Gap*)b)->lo;
    return (la > lb) - (la < lb);
}

// Merges overlapping intervals of a list sorted by lo, in place; returns the new count (count >= 1).
static int MergeGaps(Gap* gaps, int count, double eps)
{
    int kept = 1;
    for (int i = 1; i < count; ++i)
    {
        if (gaps[i].lo <= gaps[kept - 1].hi + eps)
        {
            gaps[kept - 1].hi = lsFmax(gaps[kept - 1].hi, gaps[i].hi);
            continue;
        }
        gaps[kept++] = gaps[i];
    }
    return kept;
}

// A chain with its cumulative arc lengths: cum[k] is the length up to point k, cum[segments] = T.
typedef struct Chain
{
    const lsVec2* points;
    int count;
    int segments;
    bool closed;
    double* cum; // segments + 1 entries
} Chain;

static lsVec2 ChainPoint(const Chain* chain, int k) { return chain->points[k % chain->count]; }

// The point at arc length u in [0, T] (exact at the chain's points).
static lsVec2 ChainPointAt(const Chain* chain, double u)
{
    int lo = 0, hi = chain->segments;
    // The segment i with cum[i] <= u <= cum[i + 1], by bisection.
    while (hi - lo > 1)
    {
        int mid = (lo + hi) / 2;
        if (chain->cum[mid] <= u)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    if (u <= chain->cum[lo])
        return ChainPoint(chain, lo);
    if (u >= chain->cum[lo + 1])
        return ChainPoint(chain, lo + 1);
    double f = (u - chain->cum[lo]) / (chain->cum[lo + 1] - chain->cum[lo]);
    return lsLerp(ChainPoint(chain, lo), ChainPoint(chain, lo + 1), f);
}

// Appends p unless it repeats the last point (no zero-length segments).
static void PushPoint(lsVec2* out, int* count, lsVec2 p)
{
    if (*count > 0 && lsVecEqual(out[*count - 1], p))
        return;
    out[(*count)++] = p;
}

// Writes the piece of the chain from arc length u0 to u1 (u0 < u1; a closed chain allows u1 up to u0 + T, going
// round through points[0]) into out (capacity count + 3) and returns its point count.
static int ChainPiece(const Chain* chain, double u0, double u1, double eps, lsVec2* out)
{
    double total = chain->cum[chain->segments];
    int n = 0;
    PushPoint(out, &n, ChainPointAt(chain, u0 > total ? u0 - total : u0));
    for (int lap = 0; lap < (chain->closed ? 2 : 1); ++lap)
    {
        for (int k = 0; k <= chain->segments; ++k)
        {
            double u = chain->cum[k] + lap * total;
            if (lap == 1 && k == 0)
                continue; // the same corner as k = segments of lap 0
            if (u0 + eps < u && u < u1 - eps)
                PushPoint(out, &n, ChainPoint(chain, k));
        }
    }
    PushPoint(out, &n, ChainPointAt(chain, u1 > total ? u1 - total : u1));
    return n;
}

// True when some segment's box overlaps the knife's box (the knife runs over every wall on every mouse move).
static bool WallNearKnife(const lsWallDef* wall, lsAABB knife)
{
    int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
    for (int i = 0; i < segments; ++i)
    {
        if (lsAABB_Overlaps(knife, lsAABB_OfSegment(wall->points[i], wall->points[(i + 1) % wall->pointCount])))
        {
            return true;
        }
    }
    return false;
}

// Cuts wall w wherever the knife m0 -> m1 crosses it; returns the number of crossings (0: untouched).
static int CutWall(lsWorld* world, int w, lsVec2 m0, lsVec2 m1, double gap)
{
    const lsWallDef* wall = world->walls + w;
    lsAABB knife = lsAABB_OfSegment(m0, m1);
    if (!WallNearKnife(wall, knife))
        return 0;
    int n = wall->pointCount;
    Chain chain = {wall->points, n, wall->closed ? n : n - 1, wall->closed, NULL};
    size_t cumBytes = (size_t)(chain.segments + 1) * sizeof(double);
    chain.cum = lsAlloc(cumBytes);
    chain.cum[0] = 0.0;
    for (int i = 0; i < chain.segments; ++i)
    {
        chain.cum[i + 1] = chain.cum[i] + lsDistance(ChainPoint(&chain, i), ChainPoint(&chain, i + 1));
    }
    double total = chain.cum[chain.segments];
    // Crossings closer than this along the chain are one crossing (a corner found from both of its segments).
    double eps = 1.0e-12 * (total + lsLength(chain.points[0]));

    int cutCapacity = 2 * chain.segments;
    size_t cutBytes = (size_t)cutCapacity * sizeof(Cut);
    Cut* cuts = lsAlloc(cutBytes);
    int cutCount = 0;
    for (int i = 0; i < chain.segments; ++i)
    {
        lsVec2 a = ChainPoint(&chain, i), b = ChainPoint(&chain, i + 1);
        if (!lsAABB_Overlaps(knife, lsAABB_OfSegment(a, b)))
            continue;
        lsSweepHit hits[2];
        // The exact moving-point test: the mouse moves m0 -> m1, the wall segment stands still.
        int hitCount = lsSweepPointSegment(a, a, b, b, m0, m1, hits);
        double length = chain.cum[i + 1] - chain.cum[i];
        for (int h = 0; h < hitCount; ++h)
        {
            double u = chain.cum[i] + hits[h].s * length;
            if (hits[h].s <= 0.0 || u <= chain.cum[i] + eps)
                u = chain.cum[i];
            if (hits[h].s >= 1.0 || u >= chain.cum[i + 1] - eps)
                u = chain.cum[i + 1];
            if (chain.closed && u >= total)
                u = 0.0;
            double half = lsFmin(gap, 0.25 * length);
            cuts[cutCount++] = (Cut){u, half};
        }
    }
    if (cutCount == 0)
    {
        lsFree(cuts, cutBytes);
        lsFree(chain.cum, cumBytes);
        return 0;
    }

    // Sort along the chain and merge crossings at the same place, keeping the narrower opening (at a corner the
    // shorter of its two segments decides).
    qsort(cuts, (size_t)cutCount, sizeof(Cut), CompareCuts);
    int unique = 0;
    for (int i = 0; i < cutCount; ++i)
    {
        if (unique > 0 && cuts[i].u - cuts[unique - 1].u <= eps)
        {
            cuts[unique - 1].half = lsFmin(cuts[unique - 1].half, cuts[i].half);
            continue;
        }
        cuts[unique++] = cuts[i];
    }
    if (chain.closed && unique > 1 && cuts[0].u + total - cuts[unique - 1].u <= eps)
    {
        // The same corner seen at u = 0 and u = T.
        cuts[0].half = lsFmin(cuts[0].half, cuts[unique - 1].half);
        unique -= 1;
    }

    // The openings [u - h, u + h], merged where they overlap (a wide one may swallow a narrow neighbour). On a
    // closed chain the last opening may also reach round past T into the first.
    size_t gapBytes = (size_t)unique * sizeof(Gap);
    Gap* gaps = lsAlloc(gapBytes);
    for (int k = 0; k < unique; ++k)
    {
        gaps[k] = (Gap){cuts[k].u - cuts[k].half, cuts[k].u + cuts[k].half};
    }
    qsort(gaps, (size_t)unique, sizeof(Gap), CompareGaps);
    int gapCount = MergeGaps(gaps, unique, eps);
    while (chain.closed && gapCount > 1 && gaps[gapCount - 1].hi - total >= gaps[0].lo - eps)
    {
        gaps[0].lo = lsFmin(gaps[0].lo, gaps[gapCount - 1].lo - total);
        gaps[0].hi = lsFmax(gaps[0].hi, gaps[gapCount - 1].hi - total);
        gapCount = MergeGaps(gaps, gapCount - 1, eps);
    }

    // The kept pieces lie between consecutive openings. An open chain also keeps what is before the first and
    // after the last; a closed one keeps the piece that runs from the last opening round to the first.
    int pieceCapacity = gapCount + 1;
    Gap* ranges = lsAlloc((size_t)pieceCapacity * sizeof(Gap));
    int rangeCount = 0;
    if (!chain.closed)
        ranges[rangeCount++] = (Gap){0.0, gaps[0].lo};
    for (int k = 0; k + 1 < gapCount; ++k)
    {
        ranges[rangeCount++] = (Gap){gaps[k].hi, gaps[k + 1].lo};
    }
    ranges[rangeCount++] =
        chain.closed ? (Gap){gaps[gapCount - 1].hi, gaps[0].lo + total} : (Gap){gaps[gapCount - 1].hi, total};
    lsFree(gaps, gapBytes);

    // Build the pieces; a closed chain's first piece starts after its first opening, so a single cut gives one
    // open chain from one side of the opening round to the other.
    size_t pieceBytes = (size_t)(n + 3) * sizeof(lsVec2);
    lsVec2* piece = lsAlloc(pieceBytes);
    double reflectance = wall->reflectance;
    bool fromTo = wall->fromTo;
    int firstNew = world->wallCount;
    for (int r = 0; r < rangeCount; ++r)
    {
        double u0 = ranges[r].lo, u1 = ranges[r].hi;
        if (chain.closed)
        {
            // Bring the piece's start into [0, T); its end then lies in (u0, u0 + T].
            if (u0 < 0.0)
                u0 += total, u1 += total;
            if (u0 >= total)
                u0 -= total, u1 -= total;
        }
        else
        {
            u0 = lsFmax(u0, 0.0);
            u1 = lsFmin(u1, total);
        }
        if (!(u1 - u0 > eps))
            continue; // swallowed by the openings around it
        int count = ChainPiece(&chain, u0, u1, eps, piece);
        if (count < 2)
            continue;
        int added = lsWorld_AddWall(world, piece, count, false);
        world->walls[added].reflectance = reflectance;
        world->walls[added].fromTo = fromTo && count == 2;
    }
    lsFree(piece, pieceBytes);
    lsFree(ranges, (size_t)pieceCapacity * sizeof(Gap));
    lsFree(cuts, cutBytes);
    lsFree(chain.cum, cumBytes);

    // Put the pieces where the wall was: rotate the block [w, wallCount) so the new walls come first, then drop
    // the original (now right after them).
    int newCount = world->wallCount - firstNew;
    if (newCount > 0)
    {
        size_t blockBytes = (size_t)newCount * sizeof(lsWallDef);
        lsWallDef* block = lsAlloc(blockBytes);
        memcpy(block, world->walls + firstNew, blockBytes);
        memmove(world->walls + w + newCount, world->walls + w, (size_t)(firstNew - w) * sizeof(lsWallDef));
        memcpy(world->walls + w, block, blockBytes);
        lsFree(block, blockBytes);
    }
    lsWorld_RemoveWall(world, w + newCount);
    return unique;
}

int lsEdit_Cut(lsWorld* world, lsVec2 m0, lsVec2 m1, double gap)
{
    LS_ASSERT(lsIsValidVec2(m0) && lsIsValidVec2(m1) && gap >= 0.0 && isfinite(gap));
    int cuts = 0;
    // Backwards, so the pieces that replace wall w (inserted at w) never come up again.
    for (int w = world->wallCount - 1; w >= 0; --w)
    {
        // A map's walls come back whole from its image at the next load (lsEdit_IsMapWall): not cut.
        if (!world->walls[w].fromMap)
            cuts += CutWall(world, w, m0, m1, gap);
    }
    return cuts;
}

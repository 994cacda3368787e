// Beam runs of discs and segments seen from a scan's origin (see beam_runs.h for why they are a superset).
#include "core/beam_runs.h"
#include "core/geometry_internal.h"

#include <math.h>
#include <string.h>

// Beam angles this far from zero lose too many bits for the runs' margins.
#define LS_BEAM_MAX_ANGLE 1e4

static bool SafeFan(const lsBeamFan* fan)
{
    return fabs(fan->start) <= LS_BEAM_MAX_ANGLE && fan->increment >= 0.0 && fan->range >= 0.0 &&
           isfinite(fan->range) && fan->beams >= 1;
}

static void AllBeams(int beams, lsBeamRuns* runs)
{
    runs->near = 0.0;
    runs->first[0] = 0;
    runs->last[0] = beams - 1;
    runs->first[1] = 0;
    runs->last[1] = -1;
}

// The beams whose angles lie within half of center, plus one on each side: the interval taken relative to the first
// beam into [0, 2 pi), then once more 2 pi lower for the part that wraps past the last beam.
static void Runs(const lsBeamFan* fan, double center, double half, lsBeamRuns* runs)
{
    if (fan->beams == 1 || !(fan->increment > 0.0) || half >= 3.0)
    {
        AllBeams(fan->beams, runs);
        return;
    }
    // Products by the reciprocals instead of quotients: a few ulps of beam index more error, far inside the beam of
    // margin on each side.
    double twoPi = 2.0 * LS_PI, inverse = 1.0 / fan->increment;
    double rel0 = center - half - fan->start;
    rel0 -= twoPi * floor(rel0 * (1.0 / twoPi));
    double rel1 = rel0 + 2.0 * half;
    double lastBeam = (double)(fan->beams - 1);
    for (int k = 0; k < 2; ++k)
    {
        double shift = (double)k * twoPi;
        double b = floor((rel1 - shift) * inverse) + 1.0;
        if (b < 0.0) // ends before the first beam (the second run, unless the interval wraps past the last beam)
        {
            runs->first[k] = 0;
            runs->last[k] = -1;
            continue;
        }
        double a = ceil((rel0 - shift) * inverse) - 1.0;
        a = a > 0.0 ? a : 0.0;
        b = b < lastBeam ? b : lastBeam;
        runs->first[k] = a <= b ? (int)a : 0;
        runs->last[k] = a <= b ? (int)b : -1;
    }
}

lsBeamReach lsBeamFan_Disc(const lsBeamFan* fan, lsCircle c, lsBeamRuns* runs)
{
    LS_ASSERT(fan != NULL && runs != NULL);
    lsVec2 o = fan->origin;
    double fx = c.center.x - o.x, fy = c.center.y - o.y;
    double d = sqrt(fx * fx + fy * fy);
    double scale = fabs(o.x) + fabs(o.y) + fabs(c.center.x) + fabs(c.center.y) + c.radius;
    double r = c.radius + 1e-8 * scale;
    if (!SafeFan(fan) || !isfinite(d) || !isfinite(scale))
    {
        return ls_beamsUnsafe;
    }
    if (d - r > fan->range * (1.0 + 1e-9))
    {
        return ls_beamsNone;
    }
    if (d <= r + 1e-6 * scale)
    {
        AllBeams(fan->beams, runs);
        return ls_beamsSome;
    }
    // d > r >= 0 and both finite here, so r / d < 1 and the distance below is not NaN: fmin and fmax's values
    // without the calls.
    double sine = r / d;
    Runs(fan, lsRoughAngle(fx, fy), asin(sine < 1.0 ? sine : 1.0) + 2e-5, runs); // the rough angle's 1e-5, and more
    double near = d * (1.0 - 1e-9) - r - 1e-8 * scale;
    runs->near = near > 0.0 ? near : 0.0;
    return ls_beamsSome;
}

lsBeamReach lsBeamFan_Segment(const lsBeamFan* fan, const lsSegment* s, lsBeamRuns* runs)
{
    LS_ASSERT(fan != NULL && s != NULL && runs != NULL);
    lsVec2 o = fan->origin;
    lsVec2 a = lsSub(s->a, o), b = lsSub(s->b, o), ab = lsSub(b, a);
    double ll = lsDot(ab, ab);
    double t = ll > 0.0 ? lsFmin(lsFmax(-lsDot(a, ab) / ll, 0.0), 1.0) : 0.0;
    double d = lsLength(lsMulAdd(a, t, ab));
    double scale = fabs(o.x) + fabs(o.y) + fabs(s->a.x) + fabs(s->a.y) + fabs(s->b.x) + fabs(s->b.y);
    if (!SafeFan(fan) || !isfinite(d) || !isfinite(scale) || !isfinite(ll))
    {
        return ls_beamsUnsafe;
    }
    if (d - 1e-8 * scale > fan->range * (1.0 + 1e-9))
    {
        return ls_beamsNone;
    }
    if (d <= 1e-6 * scale)
    {
        AllBeams(fan->beams, runs);
        return ls_beamsSome;
    }
    // Only its part within reach counts: clipped to a disc a hair larger than the range, around the foot of the
    // perpendicular from the origin (half chord from the line's distance, so no cancellation in a quadratic).
    double tLine = ll > 0.0 ? -lsDot(a, ab) / ll : 0.0;
    double dLine = lsLength(lsMulAdd(a, tLine, ab));
    double reach = fan->range * (1.0 + 1e-6) + 1e-8 * scale;
    double halfChord = sqrt(lsFmax(reach * reach - dLine * dLine, 0.0)) / sqrt(ll);
    double t0 = lsFmax(tLine - halfChord, 0.0), t1 = lsFmin(tLine + halfChord, 1.0);
    if (ll > 0.0 && t0 <= t1 && isfinite(halfChord))
    {
        lsVec2 clipped = lsMulAdd(a, t0, ab);
        b = lsMulAdd(a, t1, ab);
        a = clipped;
    }
    // It does not pass through the origin, so it spans the shorter arc between its ends (less than pi).
    // The rough angles are within 1e-5 rad each: the middle within 1e-5, the half width within 1e-5.
    double angleA = lsRoughAngle(a.x, a.y), diff = lsRoughAngle(b.x, b.y) - angleA;
    diff = diff > LS_PI ? diff - 2.0 * LS_PI : (diff < -LS_PI ? diff + 2.0 * LS_PI : diff);
    Runs(fan, angleA + 0.5 * diff, 0.5 * fabs(diff) + 3e-5 + 1e-8 * scale / d, runs);
    runs->near = lsFmax(d * (1.0 - 1e-9) - 1e-8 * scale, 0.0);
    return ls_beamsSome;
}

// ---------------------------------------------------------------------------------------------------------------------
// The static geometry near a scan, cast object by object

// The disc around an axis-aligned box (a conservative stand-in for a polygon inside it).
static lsCircle AroundBounds(lsAABB b)
{
    lsVec2 half = lsScale(0.5, lsSub(b.upper, b.lower));
    return (lsCircle){lsScale(0.5, lsAdd(b.lower, b.upper)), lsLength(half)};
}

typedef struct SpanContext
{
    const lsBeamFan* fan;
    const lsScene* scene;
    lsSceneSpan* spans;
    int capacity, count;
    bool failed;
} SpanContext;

static bool AddSpan(void* context, lsHitKind kind, int index, int part)
{
    SpanContext* ctx = context;
    lsSceneSpan span = {.kind = kind, .index = index, .part = part};
    lsBeamReach reach;
    if (kind == ls_hitWall)
    {
        span.segment = lsScene_WallSegment(ctx->scene, index, part);
        reach = lsBeamFan_Segment(ctx->fan, &span.segment, &span.runs);
    }
    else if (kind == ls_hitTarget)
    {
        bool active;
        span.circle = lsScene_Target(ctx->scene, index, &active);
        if (!active)
        {
            return true; // the scene's cast skips it too
        }
        reach = lsBeamFan_Disc(ctx->fan, span.circle, &span.runs);
    }
    else if (kind == ls_hitBox)
    {
        span.box = lsScene_Box(ctx->scene, index);
        reach = lsBeamFan_Disc(ctx->fan, (lsCircle){span.box->center, lsLength(span.box->halfSize)}, &span.runs);
    }
    else
    {
        span.polygon = lsScene_Polygon(ctx->scene, index);
        reach = lsBeamFan_Disc(ctx->fan, AroundBounds(lsPolygon_Bounds(span.polygon)), &span.runs);
    }
    if (reach == ls_beamsUnsafe || (reach == ls_beamsSome && ctx->count == ctx->capacity))
    {
        ctx->failed = true;
        return false;
    }
    if (reach == ls_beamsSome)
    {
        // Nearest first (an insertion): a beam's hit then rules out the farther objects without their casts.
        int k = ctx->count++;
        while (k > 0 && ctx->spans[k - 1].runs.near > span.runs.near)
        {
            ctx->spans[k] = ctx->spans[k - 1];
            k -= 1;
        }
        ctx->spans[k] = span;
    }
    return true;
}

int lsBeamFan_SceneSpans(const lsBeamFan* fan, const lsScene* scene, lsSceneSpan* spans, int capacity)
{
    LS_ASSERT(fan != NULL && scene != NULL && (spans != NULL || capacity == 0));
    double reach = fan->range * (1.0 + 1e-9) + 1e-8 * (fabs(fan->origin.x) + fabs(fan->origin.y));
    if (!SafeFan(fan) || !isfinite(reach))
    {
        return -1;
    }
    SpanContext ctx = {fan, scene, spans, capacity, 0, false};
    lsAABB box = {lsSub(fan->origin, lsV(reach, reach)), lsAdd(fan->origin, lsV(reach, reach))};
    lsScene_QueryAABB(scene, box, AddSpan, &ctx);
    return ctx.failed ? -1 : ctx.count;
}

void lsSceneSpans_Cast(const lsSceneSpan* spans, int spanCount, int first, const lsRayInput* inputs, int count,
                       lsRayHit* hits)
{
    LS_ASSERT(spanCount == 0 || spans != NULL);
    int last = first + count - 1;
    for (int s = 0; s < spanCount; ++s)
    {
        const lsSceneSpan* span = spans + s;
        // A wall's part of the exact cast that depends on the origin alone, prepared at its first beam of the block.
        lsSegmentCastPrep prep;
        bool prepared = false;
        for (int run = 0; run < 2; ++run)
        {
            int lo = span->runs.first[run] > first ? span->runs.first[run] : first;
            int hi = span->runs.last[run] < last ? span->runs.last[run] : last;
            for (int i = lo; i <= hi; ++i)
            {
                lsRayHit* best = hits + (i - first);
                if (best->hit && best->fraction < span->runs.near)
                {
                    continue; // the object lies beyond this beam's hit: it can neither win nor tie
                }
                const lsRayInput* input = inputs + (i - first);
                lsCastOutput out;
                if (span->kind == ls_hitWall)
                {
                    // The exact routine's common case from the prepared part, as a fan's sweep takes it (the same
                    // bits; every beam of the fan shares the origin), the whole routine when it does not decide.
                    double L = input->maxFraction < DBL_MAX ? input->maxFraction : DBL_MAX;
                    bool valid = L >= 0.0 && (input->direction.x != 0.0 || input->direction.y != 0.0);
                    if (!valid)
                    {
                        out = lsRayCastSegment(&span->segment, input);
                    }
                    else
                    {
                        if (!prepared)
                        {
                            lsPrepareSegmentCast(input->origin, span->segment.a, span->segment.b, &prep);
                            prepared = true;
                        }
                        if (!lsRayCastSegmentPrepared(&prep, input->direction, L, &out))
                        {
                            out = lsRayCastSegmentFull(&span->segment, input);
                        }
                    }
                }
                else if (span->kind == ls_hitTarget)
                {
                    out = lsRayCastCircle(&span->circle, input);
                }
                else if (span->kind == ls_hitBox)
                {
                    out = lsRayCastBox(span->box, input);
                }
                else
                {
                    out = lsRayCastPolygon(span->polygon, input);
                }
                lsRayHit_OfferInline(best, &out, span->kind, span->index, span->part);
            }
        }
    }
}

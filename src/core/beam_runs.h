// lidarsim core: which beams of a scan can reach an object. A scan's beams leave one origin at evenly spaced angles;
// an object's angular extent seen from there maps to one or two runs of beam indices, so a lidar gathers the
// objects near it once and casts each beam only against the few in its direction (dynamic.c for the moving objects,
// lsBeamFan_SceneSpans for the static geometry).
//
// Exactness: the runs are a superset. The extent is widened by 1e-7 radians plus 1e-8 of the coordinates'
// magnitude over the distance (far above the rounding of atan2, asin and the beam angles, for beam angles below 1e4
// radians), then by one beam on each side; an object within 1e-6 of the coordinates' magnitude of the origin (or
// around it) gets every beam. So every beam whose exact cast could report the object is in its runs, and casting
// only those gives the answers of casting every beam. Units: metres and radians, world frame.
#pragma once

#include "lidarsim/scene.h"

/// The beams of one scan: beam i (0 <= i < beams) leaves origin along the angle start + i * increment (computed
/// in that order; the lidar's direction for it, lsScan_BeamDirection, is within a few ulps of that angle, far inside
/// the runs' widening) and reaches range metres.
typedef struct lsBeamFan
{
    lsVec2 origin;
    double range;
    double start, increment;
    int beams;
} lsBeamFan;

/// Up to two runs of beam indices [first[k], last[k]] (the second for an object across the first beam's angle in a
/// full circle); a run with first > last is empty.
typedef struct lsBeamRuns
{
    int first[2];
    int last[2];
    double near; ///< a lower bound on the distance from the origin to the object (so on any beam's hit fraction)
} lsBeamRuns;

/// lsRayHit_Offer with its commonest cases inline: no hit changes nothing, a strictly nearer one is taken (as
/// lsRayHit_Offer takes it); a tie goes to lsRayHit_Offer's tie-break. The same answers, without a call for each of
/// a scan's casts.
static inline void lsRayHit_OfferInline(lsRayHit* best, const lsCastOutput* out, lsHitKind kind, int index, int part)
{
    if (!out->hit)
    {
        return;
    }
    if (!best->hit || out->fraction < best->fraction)
    {
        *best = (lsRayHit){true, out->fraction, out->point, out->normal, kind, index, part};
    }
    else if (out->fraction == best->fraction)
    {
        lsRayHit_Offer(best, out, kind, index, part);
    }
}

/// What a beam-run computation found.
typedef enum lsBeamReach
{
    ls_beamsNone,   ///< no beam reaches the object (beyond range)
    ls_beamsSome,   ///< the runs hold every beam that may reach it
    ls_beamsUnsafe, ///< coordinates too large or angles too large for safe runs: cast every beam the usual way
} lsBeamReach;

/// Beams of fan that may reach the disc c.
lsBeamReach lsBeamFan_Disc(const lsBeamFan* fan, lsCircle c, lsBeamRuns* runs);
/// Beams of fan that may reach the segment s.
lsBeamReach lsBeamFan_Segment(const lsBeamFan* fan, const lsSegment* s, lsBeamRuns* runs);
/// A static object near a scan, the beams that may reach it and what its exact cast needs (lsBeamFan_SceneSpans).
typedef struct lsSceneSpan
{
    lsBeamRuns runs;
    lsHitKind kind; ///< ls_hitWall (index = chain, part = segment), ls_hitTarget, ls_hitBox or ls_hitPolygon
    int index, part;
    lsSegment segment;        ///< a wall's segment
    lsCircle circle;          ///< a target's disc
    const lsBox* box;         ///< a box (in the scene)
    const lsPolygon* polygon; ///< a polygon (in the scene)
} lsSceneSpan;

/// The static objects of scene that beams of fan may hit (walls, active targets, boxes, polygons), each with its
/// beams (a superset: a beam in none of them finds nothing static), nearest first by runs.near, into spans (room
/// for capacity). Returns how many, or -1 when there are more than capacity or runs cannot be computed safely.
int lsBeamFan_SceneSpans(const lsBeamFan* fan, const lsScene* scene, lsSceneSpan* spans, int capacity);
/// Offers each object of spans to the beams first .. first + count - 1 of its runs (inputs[k] and hits[k] are beam
/// first + k of the fan they were gathered for) whose hit so far is not nearer than the object can be, through the
/// exact casts and the tie-break of the scene's own cast (lsRayHit_Offer): each hits[k] ends as offering it the
/// scene's cast of its beam would leave it.
void lsSceneSpans_Cast(const lsSceneSpan* spans, int spanCount, int first, const lsRayInput* inputs, int count,
                       lsRayHit* hits);

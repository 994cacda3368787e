// lidarsim core (private): what the movers share (move_circle.c, resolve.c, move_polygon.c): the scene's static
// segments, one straight sweep of a circle, the body being moved, the candidate obstacles of a footprint and the
// residual-overlap resolution.
#pragma once

#include "core/distance.h"
#include "core/robot.h"

/// A contact whose approach speed along the normal is below this fraction of the motion is sliding, not hitting.
#define LS_SLIDE_TOLERANCE 1e-9
/// Contacts a move slides along at most.
#define LS_MAX_SLIDES 4

static inline lsAABB lsInflatedBox(lsVec2 a, lsVec2 b, double margin)
{
    lsAABB box = lsAABB_OfSegment(a, b);
    box.lower = lsSub(box.lower, lsV(margin, margin));
    box.upper = lsAdd(box.upper, lsV(margin, margin));
    return box;
}

/// The box that holds every obstacle a footprint of reach can touch while sliding from pos along d
/// (lsSlidePolygon): a slide turns the motion along a contact, so it leaves the box of pos -> pos + d, but the
/// centre's whole path is never longer than |d|.
static inline lsAABB lsSlideBox(lsVec2 pos, lsVec2 d, double reach)
{
    return lsInflatedBox(pos, pos, lsLength(d) + reach + 2.0 * LS_CONTACT_SKIN);
}

/// Called by lsForEachStaticSegment with each segment.
typedef void lsSegmentFcn(void* context, const lsSegment* segment);

/// One straight sweep of a circle against the static scene (lsSweepOnce).
typedef struct lsSweepContext
{
    const lsScene* scene;
    lsVec2 c0, c1, d;
    double radius; // radius + skin
    double t;
    lsVec2 normal;
    bool hit;
} lsSweepContext;

/// The body being resolved: a circle (points NULL; reach = its radius) or a convex footprint at a fixed angle (reach =
/// its farthest point from the centre). clearance is the distance to keep from every solid: radius + skin for a
/// circle (measured from the centre), the skin for a footprint (measured from its outline).
typedef struct lsMoveBody
{
    const lsVec2* points;
    int count;
    double angle;
    double reach;
    double clearance;
} lsMoveBody;

/// Candidate solids for moving a footprint (filled by lsGatherObstacles). Items [circlesBegin, circlesEnd) are the
/// other bodies' circles (vehicles, robots), which a footprint meets with its bounding circle: another robot sees it
/// as that circle, so both keep to the same line and neither can start its move inside the other.
typedef struct lsObstacles
{
    const lsScene* scene;
    lsShapeProxy* items;
    int count, capacity;
    int circlesBegin, circlesEnd;
    lsShapeProxy local[48]; // no heap use for the usual handful of candidates
} lsObstacles;

/// Appends a point to the centre's path (the last leg is overwritten once all six are used).
static inline void lsAddLeg(lsMoveResult* result, lsVec2 p)
{
    if (result->legCount < 6)
    {
        result->legs[result->legCount++] = p;
    }
    else
    {
        result->legs[5] = p;
    }
}

/// A circle body of radius (clearance radius + skin).
static inline lsMoveBody lsCircleBody(double radius)
{
    return (lsMoveBody){NULL, 0, 0.0, radius, radius + LS_CONTACT_SKIN};
}

/// The footprint (body-frame points) placed at a pose.
static inline lsShapeProxy lsFootprintAt(const lsVec2* points, int count, lsVec2 position, double angle)
{
    return lsMakeProxyTransformed(points, count, 0.0, (lsTransform){position, lsMakeRot(angle)});
}

/// Unit normal from the segment towards c; when c lies on the segment, the side facing against the motion d.
lsVec2 lsAwayFromSegment(const lsSegment* seg, lsVec2 c, lsVec2 d);
/// Calls fn on every segment of a static object reported by the scene (wall segment, box or polygon edges).
bool lsForEachStaticSegment(const lsScene* scene, lsHitKind kind, int index, int part, lsSegmentFcn* fn, void* context);
/// One straight sweep from c0 to c0 + d over the step times [tFrom, 1]: the earliest contact (fraction of d).
lsSweepContext lsSweepOnce(const lsCollisionWorld* cw, lsVec2 c0, lsVec2 d, double radius, double tFrom,
                           bool withMovers);
/// Resolves residual overlap with static solids and moving walls (see FreePlace in resolve.c). Returns true when it
/// moved.
bool lsResolveOverlap(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 stepStart, const lsMoveBody* body);
/// What lsNearestFreeCircle found.
typedef enum lsFreeSearch
{
    ls_freeFound,
    ls_freeNone,    ///< nothing free within the limit
    ls_freeCrowded, ///< more than 64 solids and bodies, or 256 pieces of their grown outlines, within the limit
} lsFreeSearch;
/// The exact nearest free place for a circle body (lsCircleBody) within limit of start: the centre nearest to start
/// that is at least body->clearance from every solid, moving wall (where it ends the step) and circle of cw (but
/// cw->skipCircle), and that start reaches in a straight line without crossing a wall's core, without running through
/// the interior of a box or polygon it is not strictly inside, and without coming nearer than body->clearance less
/// the skin to a circle it is not already that near (a chord from a circle it rests against dips by less). On the
/// boundary within 1e-10 relative counts as free. *free is written in every case but ls_freeCrowded (start when
/// nothing is found).
lsFreeSearch lsNearestFreeCircle(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 start, double limit,
                                 lsVec2* free);
/// The nearest free place within limit of start for a footprint body (points not NULL; reach its bounding radius):
/// the centre nearest to start where the footprint keeps the skin from every solid and moving wall (where it ends the
/// step) and its bounding circle the skin from every circle of cw (but cw->skipCircle), reached from start in a
/// straight line that enters no obstacle start is not already inside. The circles' obstacles are polygons of 16 sides
/// around them, so a place beside a circle may be up to 2 % of its obstacle's radius farther than the exact one.
lsFreeSearch lsNearestFreeFootprint(const lsCollisionWorld* cw, const lsMoveBody* body, lsVec2 start, double limit,
                                    lsVec2* free);
/// What a body inside box could touch: the index's static candidates, then the circles and the moving walls (where
/// they end the step) whose boxes meet box.
void lsGatherObstacles(lsObstacles* obs, const lsCollisionWorld* cw, lsAABB box, bool withMovers);
/// Frees what lsGatherObstacles allocated.
void lsReleaseObstacles(lsObstacles* obs);
/// Collide and slide for a footprint: conservative advancement along (d, turn) from pos, then along the contact
/// tangent for the rest, up to LS_MAX_SLIDES contacts (recorded in result). Returns where it ended; *angle turns.
/// obs must hold everything in lsSlideBox(pos, d, reach): what it lacks, the body passes through.
lsVec2 lsSlidePolygon(const lsObstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double* angle,
                      lsVec2 d, double turn, lsMoveResult* result);
/// One conservative advancement pass along (d, turn) from (pos, angle); returns the fraction reached in [0, 1] and
/// whether it stopped at a contact (with the contact normal pointing away from the obstacle).
double lsAdvance(const lsObstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double angle,
                 lsVec2 d, double turn, bool* contact, lsVec2* normal);

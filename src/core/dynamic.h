// lidarsim core: the broad phase of the moving objects (robots, vehicles, moving walls). A uniform grid rebuilt
// from scratch every step (a counting sort of the objects' boxes into cells, O(n)), so a beam walks the few cells
// it crosses instead of testing every robot, and a moving body asks only for its neighbours.
//
// Exactness: the index only skips objects that cannot be hit; every candidate goes through the same exact casts as
// the brute-force loop and the same tie-break (lsRayHit_Offer), so indexed and brute-force casts agree bit for bit.
// Units: metres, world frame.
#pragma once

#include "core/beam_runs.h"
#include "lidarsim/scene.h"

/// The broad phase (opaque). Create with lsCreateDynamicIndex, destroy with lsDestroyDynamicIndex.
typedef struct lsDynamicIndex lsDynamicIndex;

/// One object found by lsDynamicIndex_Query: ls_hitRobot, ls_hitVehicle or ls_hitMover and its index.
typedef struct lsDynamicItem
{
    lsHitKind kind;
    int index;
} lsDynamicItem;

/// Work counters of indexed casts (for tests and the benchmark).
typedef struct lsDynamicStats
{
    long long cells;      ///< grid cells visited
    long long exactTests; ///< exact casts of robots, vehicles and movers
} lsDynamicStats;

/// An empty index (casts through it find nothing until it is built). Destroy with lsDestroyDynamicIndex.
lsDynamicIndex* lsCreateDynamicIndex(void);
/// Frees the index. NULL is allowed.
void lsDestroyDynamicIndex(lsDynamicIndex* index);
/// Rebuilds the index over the objects of dyn where they are now (dyn->index is ignored). Keeps no pointer into
/// dyn: the caller passes the same objects, unmoved, with each cast (dyn->index = index).
void lsDynamicIndex_Build(lsDynamicIndex* index, const lsDynamicObjects* dyn);
/// Writes up to capacity objects whose bounds (as built) overlap box (closed), each once, in a fixed order that
/// depends only on the objects and box; returns how many there are (may exceed capacity: then only capacity are
/// written).
int lsDynamicIndex_Query(const lsDynamicIndex* index, lsAABB box, lsDynamicItem* items, int capacity);
/// Grid figures: cells along x and y and the cell size in metres (0 when empty).
void lsDynamicIndex_GetInfo(const lsDynamicIndex* index, int* cellsX, int* cellsY, double* cellSize);

/// Offers every moving object of dyn that the ray can hit to best (closest hit, tie-break by kind, index, part),
/// through dyn->index when it is not NULL, else by testing each. Never reports robot dyn->skipRobot. stats may be
/// NULL. This is what lsScene_CastRay does with its dyn argument.
void lsDynamicObjects_CastRay(const lsDynamicObjects* dyn, const lsRayInput* input, lsRayHit* best,
                              lsDynamicStats* stats);

/// Room for the moving objects near one scan (lsDynamicObjects_GatherSpans); more than this and the scan casts its
/// beams one by one through the index instead.
#define LS_DYNAMIC_SPAN_CAPACITY 512

/// A moving object near a scan and the beams that may reach it.
typedef struct lsDynamicSpan
{
    lsDynamicItem item;
    lsBeamRuns runs;
    int lo, hi; ///< the first and last beam of its runs (a block of beams outside them skips the object at once)
} lsDynamicSpan;

/// The moving objects of dyn (through dyn->index when there is one) that the beams of fan could hit, each with the
/// beams that could hit it (a superset: see beam_runs.h); robot dyn->skipRobot is left out. Writes up to
/// LS_DYNAMIC_SPAN_CAPACITY spans and returns how many, or -1 when the objects are too many or the runs cannot be
/// computed safely (then cast each beam with lsDynamicObjects_CastRay).
int lsDynamicObjects_GatherSpans(const lsDynamicObjects* dyn, const lsBeamFan* fan, lsDynamicSpan* spans);
/// Offers the objects of spans to the beams first .. first + count - 1 of the fan they were gathered for (inputs[k]
/// and best[k] are beam first + k, cast along the unit direction of its angle), as lsDynamicObjects_CastRay would:
/// the same exact casts and tie-break, so the answers are identical. Every inputs[k] starts at the fan's origin: a
/// disc's part of the cast that depends on the origin only is prepared once, from the first beam of its run.
void lsDynamicObjects_CastSpans(const lsDynamicObjects* dyn, const lsDynamicSpan* spans, int spanCount, int first,
                                const lsRayInput* inputs, int count, lsRayHit* best);

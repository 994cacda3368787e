// lidarsim core: the broad phase of the moving objects (robots, vehicles, moving walls). A uniform grid rebuilt
// from scratch every step (a counting sort of the objects' boxes into cells, O(n)), so a beam walks the few cells
// it crosses instead of testing every robot, and a moving body asks only for its neighbours.
//
// Exactness: the index only skips objects that cannot be hit; every candidate goes through the same exact casts as
// the brute-force loop and the same tie-break (lsRayHit_Offer), so indexed and brute-force casts agree bit for bit.
// Units: metres, world frame.
#pragma once

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

// lidarsim core: the scene, a world's static geometry indexed once for ray casts and box queries, plus the
// moving objects (vehicles, moving walls) tested on every cast without touching the index.
// Static objects: wall segments (chains flattened in order), targets (circles, movable one at a time), boxes and
// convex polygons. The index is a uniform grid walked cell by cell (DDA) along each ray; see scene.c.
// Units: metres, world frame. The scene keeps no pointer into the world: the world may change or die afterwards.
#pragma once

#include "lidarsim/geometry.h"
#include "lidarsim/world.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// What a ray hit. The order is also the tie-break order: at equal fraction (the double the exact routines compute,
/// not the true distance: two hits less than its rounding apart tie) a smaller kind wins, then a smaller index, then a
/// smaller part, in both lsScene_CastRay and lsScene_CastRayBrute.
typedef enum lsHitKind
{
    ls_hitNone = 0,
    ls_hitWall,    ///< index: the wall chain (world->walls[index]); part: the segment i -> i+1 of the chain
    ls_hitMover,   ///< index: lsDynamicObjects.movers[index] (= world->movers[index] in the simulation)
    ls_hitTarget,  ///< index: world->targets[index]
    ls_hitBox,     ///< index: world->boxes[index]
    ls_hitPolygon, ///< index: world->polygons[index]
    ls_hitVehicle, ///< index: lsDynamicObjects.vehicles[index] (= world->vehicles[index] in the simulation)
    ls_hitRobot,   ///< index: lsDynamicObjects.robots[index] (= world->robots[index] in the simulation)
} lsHitKind;

/// Number of lsHitKind values.
#define LS_HIT_KIND_COUNT 8

/// Lower-case name of a hit kind ("none", "wall", "mover", "target", "box", "polygon", "vehicle", "robot").
LS_API const char* lsHitKindName(lsHitKind kind);

/// The objects that move every step, given to each cast where they are now (lsDynamicObjects_CastRay in dynamic.h
/// tests them, through a broad phase built over them when index is not NULL, else one by one).
/// Pointers may be NULL when the counts are zero; the whole struct pointer may be NULL too.
typedef struct lsDynamicObjects
{
    const lsCircle* vehicles; ///< vehicle bodies now, world frame
    int vehicleCount;
    const lsSegment* movers; ///< moving walls now (two-sided segments), world frame
    int moverCount;
    const lsCircle* robots; ///< robots' circle footprints, or a polygon footprint's bounding circle, world frame
    const lsPolygon* robotPolygons; ///< robotCount polygon footprints (count 0: the circle is the footprint);
                                    ///< NULL when every robot is a circle
    int robotCount;
    int skipRobot;                      ///< the robot whose lidar casts, which never sees its own footprint (-1: none)
    const struct lsDynamicIndex* index; ///< broad phase built over exactly these objects (dynamic.h), or NULL
} lsDynamicObjects;

/// The closest hit of a ray. When hit is false, kind is ls_hitNone, index and part are -1 and the rest is zero.
typedef struct lsRayHit
{
    bool hit;
    double fraction; ///< along lsRayInput.direction, in [0, maxFraction]; metres when the direction is a unit vector
    lsVec2 point;    ///< world point of the hit
    lsVec2 normal;   ///< unit surface normal facing the ray (for an origin inside a solid: -unit(direction))
    lsHitKind kind;
    int index; ///< the object's index in its array (see lsHitKind)
    int part;  ///< walls: segment within the chain (0 .. n-2, the closing segment of a closed chain is n-1); else 0
} lsRayHit;

/// Work counters of one or more casts (for tests and the benchmark).
typedef struct lsCastStats
{
    long long rays;       ///< casts counted
    long long cells;      ///< grid cells visited
    long long candidates; ///< static primitives considered (before the cheap rejection test)
    long long exactTests; ///< calls of the exact geometry casts
} lsCastStats;

/// Figures of the index.
typedef struct lsSceneInfo
{
    int segmentCount; ///< wall segments
    int targetCount, boxCount, polygonCount;
    int cellsX, cellsY;  ///< grid dimensions
    double cellSize;     ///< metres
    lsAABB gridBounds;   ///< what the grid covers
    long long cellItems; ///< primitive references stored in the cells (static + targets)
    size_t indexBytes;   ///< heap bytes held by the scene (index and copies of the geometry)
} lsSceneInfo;

/// The static geometry indexed for casts (opaque). Threads: read-only once created, so any number of threads may cast
/// rays and scans and query boxes on one scene at once; lsScene_SetTarget writes and needs the caller's exclusion.
typedef struct lsScene lsScene;

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle

/// Copies and indexes the world's static geometry (walls, targets, boxes, polygons) and the reflectance of every
/// object (vehicles and movers included, by index). Vehicles and movers positions are not used: pass them to
/// each cast in lsDynamicObjects. Destroy with lsDestroyScene. NULL when world is NULL or holds what cannot be indexed
/// (a wall of fewer than 2 points, a point, target or box that is not finite, a negative size or radius, a polygon
/// that is not strictly convex): a world from the loader never does, one built in code may.
LS_API lsScene* lsCreateScene(const lsWorld* world);
/// Frees the scene. NULL is allowed.
LS_API void lsDestroyScene(lsScene* scene);

/// Moves target `index` to center and enables (active) or disables it (a collected target), without rebuilding
/// the wall index. Disabled targets are invisible to casts and queries. False (nothing changed) when index is out of
/// range or center is not finite.
LS_API bool lsScene_SetTarget(lsScene* scene, int index, lsVec2 center, bool active);

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts. The input is a general lsRayInput (any non-zero direction, maxFraction >= 0); the lidar passes a unit
// direction and maxFraction = range. A hit exactly at maxFraction counts. Both functions give identical results
// (same object, same part, bit-identical fraction, point and normal): the index only skips what cannot be closer.

/// Closest hit using the grid, plus the dynamic objects (dyn may be NULL).
LS_API lsRayHit lsScene_CastRay(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input);
/// Casts count rays (inputs[i] -> hits[i]), each exactly as lsScene_CastRay would, overlapping the memory fetches
/// of successive rays (faster for many rays spread over a big world).
LS_API void lsScene_CastRays(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* inputs, int count,
                             lsRayHit* hits);
/// Same as lsScene_CastRay, adding its work to stats (which must not be NULL).
LS_API lsRayHit lsScene_CastRayStats(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input,
                                     lsCastStats* stats);
/// The reference: tests every object, no index (dyn->index is ignored).
LS_API lsRayHit lsScene_CastRayBrute(const lsScene* scene, const lsDynamicObjects* dyn, const lsRayInput* input);
/// Takes out as *best when it beats it: closer, or as close and first in (kind, index, part). The one tie-break
/// rule of every cast, shared with the dynamic objects' casts (dynamic.c). Returns true when taken.
LS_API bool lsRayHit_Offer(lsRayHit* best, const lsCastOutput* out, lsHitKind kind, int index, int part);

// ---------------------------------------------------------------------------------------------------------------------
// Queries and accessors

/// Called once per static object found by lsScene_QueryAABB. kind is ls_hitWall (index = chain, part = segment),
/// ls_hitTarget (active targets only), ls_hitBox or ls_hitPolygon (part 0). Return true to go on, false to stop.
typedef bool lsSceneQueryFcn(void* context, lsHitKind kind, int index, int part);

/// Reports static objects near box (closed), each once, in no particular order: every target, box and polygon
/// whose bounds overlap box, and every wall segment that touches box (plus, possibly, segments that pass within
/// about 1e-6 cell of it; a reported segment's bounds always overlap box). Writes nothing into the scene: queries
/// and casts may run on one scene from many threads at once, and the callback may query the same scene.
LS_API void lsScene_QueryAABB(const lsScene* scene, lsAABB box, lsSceneQueryFcn* fcn, void* context);

/// The scene's figures.
LS_API lsSceneInfo lsScene_GetInfo(const lsScene* scene);
/// Number of wall chains (world->wallCount at creation).
LS_API int lsScene_WallCount(const lsScene* scene);
/// Number of segments of wall chain `chain` (-1 when chain is out of range).
LS_API int lsScene_WallPartCount(const lsScene* scene, int chain);
/// Segment `part` of wall chain `chain`, world frame (a zero segment at the origin when out of range).
LS_API lsSegment lsScene_WallSegment(const lsScene* scene, int chain, int part);
/// Number of targets.
LS_API int lsScene_TargetCount(const lsScene* scene);
/// Target `index` as a circle (current center); active false when disabled. Radius -1 (and active false) when index
/// is out of range.
LS_API lsCircle lsScene_Target(const lsScene* scene, int index, bool* active);
/// Box `index` (world frame); NULL when index is out of range.
LS_API const lsBox* lsScene_Box(const lsScene* scene, int index);
/// Polygon `index` (world frame); NULL when index is out of range.
LS_API const lsPolygon* lsScene_Polygon(const lsScene* scene, int index);
/// Reflectance in [0, 1] of an object, from the world at creation. Vehicles and movers beyond the world's count
/// (and ls_hitNone) give 0.5.
LS_API double lsScene_Reflectance(const lsScene* scene, lsHitKind kind, int index);
/// Target kind (food or poison) of target `index`; (lsTargetKind)-1 when index is out of range.
LS_API lsTargetKind lsScene_TargetKind(const lsScene* scene, int index);

#ifdef __cplusplus
}
#endif

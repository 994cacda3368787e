// lidarsim core: the world model, what a world file says. Loaded from JSON, edited by the editor, saved back.
// A world holds definitions only; the moving state (robot pose, vehicles, score) lives in lsSim (sim.h).
// Units: metres; angles in radians here (degrees in files); x right, y up, counter-clockwise positive.
#pragma once

#include "lidarsim/base.h"
#include "lidarsim/vec.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define LS_MAX_POLYGON_VERTICES 32
#define LS_NAME_CAPACITY 128
/// Most wall segments a world file may hold, all walls together (a map named by "map" may bring more: map.h).
#define LS_MAX_WORLD_SEGMENTS 1000000

typedef enum lsTargetKind
{
    ls_food = 0,
    ls_poison = 1,
} lsTargetKind;

/// A wall chain: a polyline of zero-thickness, two-sided segments sharing endpoints.
/// A plain {"from", "to"} wall is a chain of two points. Closed chains join the last point to the first.
typedef struct lsWallDef
{
    lsVec2* points; ///< owned by the world, pointCount entries
    int pointCount; ///< >= 2
    bool closed;
    bool fromTo;        ///< written back as {"from", "to"} (a two-point open chain that was given that way)
    bool fromMap;       ///< made from the world's map (lsWorld.map): not written back, the map is named instead
    double reflectance; ///< [0, 1]
} lsWallDef;

/// A circular target the robot collects by touching it.
typedef struct lsTargetDef
{
    lsVec2 center;
    double radius; ///< > 0
    lsTargetKind kind;
    double reflectance;
} lsTargetDef;

/// A solid oriented rectangle.
typedef struct lsBoxDef
{
    lsVec2 center;
    lsVec2 size;  ///< full width and height, > 0
    double angle; ///< radians
    double reflectance;
} lsBoxDef;

/// A solid convex polygon, vertices counter-clockwise (the loader reorders clockwise input).
typedef struct lsPolygonDef
{
    lsVec2 points[LS_MAX_POLYGON_VERTICES];
    int count; ///< 3 .. LS_MAX_POLYGON_VERTICES
    double reflectance;
} lsPolygonDef;

/// The lidar mounted on the robot.
typedef struct lsLidarDef
{
    int beams;             ///< 1 .. LS_MAX_BEAMS
    double fov;            ///< radians, (0, 2 pi]
    double range;          ///< maximum range, metres, > 0
    double rangeMin;       ///< minimum range, metres, [0, range)
    lsVec2 mountOffset;    ///< sensor position in the robot frame
    double mountAngle;     ///< sensor heading relative to the robot, radians
    double rate;           ///< scans per second, > 0
    double noise;          ///< Gaussian range noise, constant part: standard deviation in metres
    double noisePerM;      ///< Gaussian range noise, proportional part: deviation per metre of range
    double angleNoise;     ///< Gaussian jitter of each beam's angle, standard deviation in radians
    double dropout;        ///< probability in [0, 1] that a beam returns nothing
    double grazingDropout; ///< extra dropout at grazing incidence: p = dropout + grazingDropout * (1 - |cos
                           ///< incidence|)
    uint64_t seed;         ///< seed of the noise stream
} lsLidarDef;

#define LS_MAX_BEAMS 100000

#define LS_ROBOT_ID_CAPACITY 64
/// At most this many robots in one world.
#define LS_MAX_ROBOTS 10000

/// Who drives a robot.
typedef enum lsController
{
    ls_controllerManual = 0,    ///< the keys of the window (the selected robot), or a command given to the step
    ls_controllerAutopilot = 1, ///< the built-in autopilot, from its own scan
    ls_controllerExternal = 2,  ///< only the agent API (lsSim_StepRobots' controls); stands still otherwise
} lsController;

/// A robot: a differential-drive base with a circular or convex-polygon footprint.
typedef struct lsRobotDef
{
    char id[LS_ROBOT_ID_CAPACITY]; ///< unique in the world; "robot" for the one-robot shorthand
    lsController controller;
    lsVec2 position;
    double angle;                              ///< heading, radians
    double radius;                             ///< footprint radius when footprintCount == 0, > 0
    lsVec2 footprint[LS_MAX_POLYGON_VERTICES]; ///< convex polygon in the robot frame, counter-clockwise
    int footprintCount;                        ///< 0 for a circle
    double maxSpeed;                           ///< m/s, > 0
    double maxTurnRate;                        ///< rad/s, > 0
    double maxAccel;                           ///< m/s^2, > 0
    double maxTurnAccel;                       ///< rad/s^2, > 0
    lsLidarDef lidar;
} lsRobotDef;

#define LS_PATH_ID_CAPACITY 64

/// A path for vehicles: a polyline with a radius (Reynolds' path following).
typedef struct lsPathDef
{
    char id[LS_PATH_ID_CAPACITY];
    lsVec2* points; ///< owned by the world, pointCount >= 2
    int pointCount;
    double radius; ///< > 0
    bool closed;
} lsPathDef;

typedef enum lsPathEnd
{
    ls_pathEndStop = 0,    ///< arrive at the end of an open path and stop
    ls_pathEndReverse = 1, ///< turn back and follow the path the other way
} lsPathEnd;

/// A vehicle that follows a path.
typedef struct lsVehicleDef
{
    int path; ///< index into paths
    lsVec2 position;
    lsVec2 velocity;
    double maxSpeed; ///< m/s, > 0
    double maxForce; ///< m/s^2 (unit mass), > 0
    double radius;   ///< body radius for collisions and the lidar, > 0
    lsPathEnd pathEnd;
    double reflectance;
} lsVehicleDef;

typedef enum lsMoverKind
{
    ls_moverDoor = 0, ///< a sliding door: the segment moves back and forth by `offset`
    ls_moverBar = 1,  ///< a rotating bar: the segment turns about `pivot`
} lsMoverKind;

/// A moving wall. Its segment at time T is a pure function of T (no state), so the lidar, the sweeps and
/// the editor all agree on where it is.
typedef struct lsMoverDef
{
    lsMoverKind kind;
    lsVec2 a, b;         ///< the segment at time 0
    lsVec2 offset;       ///< door: the displacement between its two positions
    double period;       ///< door: seconds for a full back-and-forth cycle, > 0
    double phase;        ///< door: fraction of the cycle at time 0, [0, 1)
    lsVec2 pivot;        ///< bar: the centre of rotation
    double angularSpeed; ///< bar: radians per second (negative turns clockwise)
    double reflectance;
} lsMoverDef;

/// Simulation settings stored in the world file.
typedef struct lsSimDef
{
    double dt;           ///< fixed step, seconds, > 0
    uint64_t seed;       ///< seed of the simulation's generator
    bool respawn;        ///< collected targets reappear at a random free place
    double foodReward;   ///< score change for collecting food
    double poisonReward; ///< score change for collecting poison
} lsSimDef;

#define LS_MAP_REF_CAPACITY 1024

/// The occupancy-grid map a world stands on: "map" (and "unknown") in a world file, or the map YAML opened as a
/// world. Its walls come first in lsWorld.walls, marked fromMap (map.h).
typedef struct lsMapRef
{
    char path[LS_MAP_REF_CAPACITY];      ///< as the world file writes it, relative to its folder; "" when none
    bool unknownOccupied;                ///< unknown cells are walls ("unknown": "occupied")
    char yamlFile[LS_MAP_REF_CAPACITY];  ///< the YAML as opened (for hot reload), "" when none
    char imageFile[LS_MAP_REF_CAPACITY]; ///< the image as opened (for hot reload), "" when none
    bool robotPlaced;                    ///< the robot's start was picked from the map (the file names no robot)
} lsMapRef;

/// The world: everything a world file holds. Arrays are owned by the world; counts may be zero.
/// Threads: read-only to the scenes and sims made from it, which any threads may read at once; change it only while
/// no scene or sim made from it exists (or from one thread, with nothing reading it).
typedef struct lsWorld
{
    char name[LS_NAME_CAPACITY];
    lsWallDef* walls;
    int wallCount, wallCapacity;
    lsTargetDef* targets;
    int targetCount, targetCapacity;
    lsBoxDef* boxes;
    int boxCount, boxCapacity;
    lsPolygonDef* polygons;
    int polygonCount, polygonCapacity;
    lsPathDef* paths;
    int pathCount, pathCapacity;
    lsVehicleDef* vehicles;
    int vehicleCount, vehicleCapacity;
    lsMoverDef* movers;
    int moverCount, moverCapacity;
    lsRobotDef robot;  ///< the first robot, robots[0] (every world has one): what one-robot code reads and edits
    lsRobotDef* fleet; ///< the other robots, robots[1 ..], in file order; fleetCount entries, owned by the world
    int fleetCount, fleetCapacity;
    bool robotList; ///< written back as "robots": [...] (the file had the list, or robots were added)
    lsSimDef sim;
    lsMapRef map;
} lsWorld;

// ---------------------------------------------------------------------------------------------------------------------
// Defaults, lifecycle and editing (world.c)

/// Default settings of every optional part (documented in docs/world-format.md).
LS_API lsLidarDef lsDefaultLidarDef(void);
LS_API lsRobotDef lsDefaultRobotDef(void);
LS_API lsSimDef lsDefaultSimDef(void);
LS_API lsTargetDef lsDefaultTargetDef(void);
LS_API lsBoxDef lsDefaultBoxDef(void);
LS_API lsVehicleDef lsDefaultVehicleDef(void);
LS_API lsMoverDef lsDefaultMoverDef(void);

/// An empty world with default robot and settings. Destroy with lsDestroyWorld.
LS_API lsWorld* lsCreateWorld(void);
/// Frees the world and everything it owns. NULL is allowed.
LS_API void lsDestroyWorld(lsWorld* world);
/// A deep copy (NULL for NULL). Destroy with lsDestroyWorld.
LS_API lsWorld* lsCloneWorld(const lsWorld* world);
/// True when the two worlds hold the same definitions (exact comparison of every value), or both are NULL.
LS_API bool lsWorld_Equal(const lsWorld* a, const lsWorld* b);

/// Appends a wall chain; the points are copied. Returns its index. Like every lsWorld_Add*, returns -1 and changes
/// nothing when given what cannot be added (NULL, fewer than 2 points, a polygon outside 3..LS_MAX_POLYGON_VERTICES
/// points, a path id of LS_PATH_ID_CAPACITY bytes or more, a vehicle on a path that does not exist).
LS_API int lsWorld_AddWall(lsWorld* world, const lsVec2* points, int pointCount, bool closed);
LS_API int lsWorld_AddTarget(lsWorld* world, lsTargetDef def);
LS_API int lsWorld_AddBox(lsWorld* world, lsBoxDef def);
LS_API int lsWorld_AddPolygon(lsWorld* world, const lsPolygonDef* def);
/// Appends a path; the points are copied. Returns its index.
LS_API int lsWorld_AddPath(lsWorld* world, const char* id, const lsVec2* points, int pointCount, double radius,
                           bool closed);
LS_API int lsWorld_AddVehicle(lsWorld* world, lsVehicleDef def);
LS_API int lsWorld_AddMover(lsWorld* world, lsMoverDef def);
/// Removes one object, keeping the order of the rest. Removing a path removes its vehicles. False (nothing changed)
/// when index is out of range.
LS_API bool lsWorld_RemoveWall(lsWorld* world, int index);
LS_API bool lsWorld_RemoveTarget(lsWorld* world, int index);
LS_API bool lsWorld_RemoveBox(lsWorld* world, int index);
LS_API bool lsWorld_RemovePolygon(lsWorld* world, int index);
LS_API bool lsWorld_RemovePath(lsWorld* world, int index);
LS_API bool lsWorld_RemoveVehicle(lsWorld* world, int index);
LS_API bool lsWorld_RemoveMover(lsWorld* world, int index);

/// The distance from a robot's centre to the farthest point of its footprint (its radius for a circle), metres.
LS_API double lsRobotDef_Reach(const lsRobotDef* def);
/// Number of robots (1 + fleetCount, always >= 1).
static inline int lsWorld_RobotCount(const lsWorld* world) { return 1 + world->fleetCount; }
/// Robot i in [0, lsWorld_RobotCount): world->robot for 0, else fleet[i - 1]; NULL when i is out of range.
LS_API lsRobotDef* lsWorld_Robot(lsWorld* world, int i);
/// Read-only robot i.
LS_API const lsRobotDef* lsWorld_GetRobot(const lsWorld* world, int i);
/// Index of the robot with this id, or -1.
LS_API int lsWorld_FindRobot(const lsWorld* world, const char* id);
/// Appends a robot (the list form is written back from now on). Returns its index (-1 when def is NULL). The caller
/// keeps ids unique (lsWorld_UniqueRobotId makes one).
LS_API int lsWorld_AddRobot(lsWorld* world, const lsRobotDef* def);
/// Removes robot i keeping the order of the rest; false when i is out of range or i is the last robot (which cannot
/// be removed).
LS_API bool lsWorld_RemoveRobot(lsWorld* world, int i);
/// Writes into id (capacity LS_ROBOT_ID_CAPACITY) "prefix", or "prefix2", "prefix3"... the first unused id.
LS_API void lsWorld_UniqueRobotId(const lsWorld* world, const char* prefix, char* id);

/// Number of wall segments (a closed chain of n points has n, an open one n - 1); -1 for NULL.
LS_API int lsWorld_SegmentCount(const lsWorld* world);
/// Bounds of all geometry (walls, shapes, paths, robots, movers' full sweep); a unit box around the origin if empty.
LS_API lsAABB lsWorld_Bounds(const lsWorld* world);

// ---------------------------------------------------------------------------------------------------------------------
// JSON (world_load.c, world_save.c). Errors name the file and the place: "path:line:col: message" for syntax,
// "path: walls[3].to: expected [x, y], two finite numbers" for values (with :line:col when it can be found).

/// Warnings from a successful load (unknown keys with a suggestion). Caller-owned.
typedef struct lsWarnings
{
    char messages[16][256];
    int count;   ///< messages kept (at most 16)
    int dropped; ///< further warnings not kept
} lsWarnings;

/// Parses a world from JSON text of `size` bytes. `fileName` only labels messages. Returns NULL and fills err
/// on the first error, having freed everything. warnings may be NULL. Destroy the result with lsDestroyWorld.
LS_API lsWorld* lsLoadWorldFromString(const char* text, size_t size, const char* fileName, lsError* err,
                                      lsWarnings* warnings);
/// Reads and parses a world file. Same contract as lsLoadWorldFromString.
LS_API lsWorld* lsLoadWorld(const char* path, lsError* err, lsWarnings* warnings);
/// The canonical JSON of a world (what lsLoadWorldFromString reads back to an equal world). Free with lsFreeString.
LS_API char* lsSaveWorldToString(const lsWorld* world);
/// Writes the canonical JSON atomically: a temporary file in the folder of path's target (a symlink is kept and
/// its target replaced), flushed, synced, given the old file's owner, group and mode (setuid and setgid dropped),
/// then renamed over it. On failure the old file is untouched, no temporary file is left, err says why and
/// false is returned. A world on a map (world->map) saved into another folder names the map by its path from
/// there (lsRelocateMapPath).
LS_API bool lsSaveWorld(const lsWorld* world, const char* path, lsError* err);
/// The "map" a world saved at `path` writes: world->map.path when it still reaches the map from path's folder (or
/// is absolute, or the world has no map), else the relative path from that folder to the map YAML the world was
/// loaded from, both resolved through symbolic links. Written into out (capacity bytes); false (out holds
/// world->map.path) when the result does not fit.
LS_API bool lsRelocateMapPath(const lsWorld* world, const char* path, char* out, size_t capacity);

#ifdef __cplusplus
}
#endif

// lidarsim core: batch work for learners and bindings. Many scans from many poses at once (lsScanBatch) and many
// agents stepped together (lsVecEnv), both split over a thread pool into chunks that depend only on the item count,
// so every result is bit-identical for any thread count. Plus flat snapshots of a world and a sim (lsWorldInfo,
// lsSimInfo) made of numbers and fixed arrays only, so a foreign-function interface (the Python package's ctypes)
// can read them without mirroring the core's larger structs, which change as the core grows.
#pragma once

#include "lidarsim/agent.h"
#include "lidarsim/pool.h"

#ifdef __cplusplus
extern "C"
{
#endif

// ---------------------------------------------------------------------------------------------------------------------
// Flat snapshots

/// What a binding needs to know about a world. Angles in radians, lengths in metres.
typedef struct lsWorldInfo
{
    char name[LS_NAME_CAPACITY];
    int segments, targets, food, poison;          ///< counts (segments: wall segments)
    int boxes, polygons, paths, vehicles, movers; ///< counts
    double bounds[4];                             ///< lsWorld_Bounds: min x, min y, max x, max y
    double pose[3];                               ///< the robot's start: x, y, heading
    double robotRadius, maxSpeed, maxTurnRate;    ///< m, m/s, rad/s
    int beams;                                    ///< the lidar's beams
    double fov, range, rangeMin, rate, noise;     ///< rad, m, m, scans/s, m (constant range noise)
    uint64_t lidarSeed;                           ///< seed of the lidar's noise stream
    double dt;                                    ///< the simulation's fixed step, s
    uint64_t simSeed;                             ///< seed of the simulation
} lsWorldInfo;

/// Fills info from world.
LS_API void lsWorld_GetInfo(const lsWorld* world, lsWorldInfo* info);
/// sizeof(lsWorldInfo), so a binding can check that its mirror of the struct has the same layout.
LS_API int lsWorldInfo_Size(void);
/// Refuses output when it is the file world was loaded from (worldPath, NULL when unknown) or the YAML or image of
/// the map it stands on, however spelt: a binding's recording there would replace what the world was read from, as
/// `lidarsim run --record` refuses. False with err filled ("w.json: not written: it would replace w.json, the world
/// file this command reads; ..."); nothing is written.
LS_API bool lsWorld_CheckOutput(const lsWorld* world, const char* worldPath, const char* output, lsError* err);

/// What a binding needs to know about a sim's state now.
typedef struct lsSimInfo
{
    double time;                               ///< simulated seconds since reset
    long long step;                            ///< steps since reset
    double x, y, angle;                        ///< robot pose, m and rad in (-pi, pi]
    double v, w;                               ///< current forward speed (m/s) and turn rate (rad/s)
    double score;                              ///< sum of the rewards of collected targets
    int food, poison, collisions;              ///< counters since reset
    int crushes;                               ///< steps the robot ended squeezed by a moving wall
    double distance;                           ///< metres travelled by the robot's centre
    int scanned;                               ///< 1 when the last step took a new scan
    int beams;                                 ///< beams of the latest scan
    double angleMin, angleMax, angleIncrement; ///< the latest scan's layout, sensor frame, rad
    double rangeMin, rangeMax;                 ///< the latest scan's limits, m
    double scanTime;                           ///< seconds between scans (1 / lidar rate)
} lsSimInfo;

/// Fills info from the sim's current state.
LS_API void lsSim_GetInfo(const lsSim* sim, lsSimInfo* info);
/// The same for robot `robot` (index in the world's robots) with that robot's pose, speeds, scan and its own
/// counters (lsSim_GetInfo's score and counters are the fleet's totals). Returns false, filling nothing, when
/// robot is out of range.
LS_API bool lsSim_GetRobotInfo(const lsSim* sim, int robot, lsSimInfo* info);
/// sizeof(lsSimInfo), for the same layout check.
LS_API int lsSimInfo_Size(void);

/// What a binding needs to know about one robot of a world. Angles in radians, lengths in metres.
typedef struct lsRobotInfo
{
    char id[LS_ROBOT_ID_CAPACITY];            ///< unique in the world, NUL-terminated
    int controller;                           ///< lsController: 0 manual, 1 autopilot, 2 external
    double pose[3];                           ///< start: x, y, heading
    double reach;                             ///< radius of the footprint's bounding circle about the centre
    double maxSpeed, maxTurnRate;             ///< m/s, rad/s
    int beams;                                ///< its lidar's beams
    double fov, range, rangeMin, rate, noise; ///< rad, m, m, scans/s, m
} lsRobotInfo;

/// Fills info from robot `robot` of world (index in [0, lsWorld_RobotCount)). Returns false, filling nothing,
/// when robot is out of range.
LS_API bool lsWorld_GetRobotInfo(const lsWorld* world, int robot, lsRobotInfo* info);
/// sizeof(lsRobotInfo), for the same layout check.
LS_API int lsRobotInfo_Size(void);

/// Output rows of scans: each non-NULL array holds rows of `beams` entries (row-major), any may be NULL to skip it.
typedef struct lsScanOutput
{
    double* ranges;      ///< metres, INFINITY for no return (REP 117)
    double* intensities; ///< reflectance * |cos incidence|, 0 for no return
    int8_t* kinds;       ///< lsHitKind of each beam (ls_hitNone for no return)
    int32_t* indices;    ///< index of the object hit (see lsHitKind), -1 for no return
} lsScanOutput;

/// Copies the sim's latest scan into row 0 of out (capacity entries per array, at least its beam count).
/// Returns the number of beams copied.
LS_API int lsSim_CopyScan(const lsSim* sim, const lsScanOutput* out, int capacity);
/// The same for robot `robot`'s latest scan. Returns -1, copying nothing, when robot is out of range.
LS_API int lsSim_CopyRobotScan(const lsSim* sim, int robot, const lsScanOutput* out, int capacity);

// ---------------------------------------------------------------------------------------------------------------------
// Many scans

/// Casts one scan with lidar def from each of count robot poses (poses[3k], poses[3k + 1] in metres, poses[3k + 2]
/// the heading in radians; the lidar's mount offset and angle are applied as on the robot) in scene, with the
/// moving objects dyn (NULL: none), writing row k of each output. Noise (when def has any): one stream seeded with
/// def->seed, pose k starting where pose k - 1 left it (lsLidar_DrawsPerScan draws later), so the rows equal scans
/// cast one after the other, as `lidarsim scan --poses` casts them. Runs on pool (NULL: on the calling thread);
/// the results are identical for any pool. Returns false with err filled, writing nothing, when a pose is not
/// within a world file's bounds (x and y within 1e6 m, the heading within 1e6 degrees: core/limits.h) or def->beams
/// is not in [1, LS_MAX_BEAMS].
LS_API bool lsScanBatch(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, const double* poses,
                        int count, lsPool* pool, const lsScanOutput* out, lsError* err);

/// A world made ready for scans from anywhere: its scene plus the vehicles and moving walls at their places in the
/// file (what `lidarsim scan` sees). Keeps no pointer into the world. Destroy with lsDestroyWorldScanner.
/// Threads: read-only once created; any threads may scan from one scanner at once.
typedef struct lsWorldScanner lsWorldScanner;

/// Builds the scanner of world.
LS_API lsWorldScanner* lsCreateWorldScanner(const lsWorld* world);
/// Frees it. NULL is allowed.
LS_API void lsDestroyWorldScanner(lsWorldScanner* scanner);

/// The lidar settings a scan from Python or the command line may override; a field left at its "keep" value keeps
/// the world's (beams 0, fov 0, range 0, noise < 0, haveSeed 0).
typedef struct lsScanOverrides
{
    int beams;     ///< 1 .. LS_MAX_BEAMS, or 0
    double fov;    ///< radians in (0, 2 pi], or 0
    double range;  ///< metres in [1e-4, 1e6] and > rangeMin, or 0
    double noise;  ///< constant range noise, metres in [0, 1e6], or < 0
    int haveSeed;  ///< 1: use seed
    uint64_t seed; ///< seed of the noise streams
} lsScanOverrides;

/// The world's lidar with the overrides applied. Returns false with err filled when an override is out of range.
LS_API bool lsMakeLidarDef(const lsWorld* world, const lsScanOverrides* overrides, lsLidarDef* def, lsError* err);
/// lsScanBatch in the scanner's scene with the lidar made by lsMakeLidarDef(world, overrides), except that each
/// pose's heading poses[3k + 2] is in degrees, converted with lsDegToRad as `lidarsim scan --pose` does (so both
/// cast bit-identical beams). The world must be the one the scanner was built from. Writes the scans' layout to
/// layout (may be NULL).
LS_API bool lsWorldScanner_Scan(const lsWorldScanner* scanner, const lsWorld* world, const lsScanOverrides* overrides,
                                const double* poses, int count, lsPool* pool, const lsScanOutput* out,
                                lsScanLayout* layout, lsError* err);

// ---------------------------------------------------------------------------------------------------------------------
// Many agents

/// count agents (lsAgent) of one world stepped together, each with its own simulation. Episode seeds: after
/// lsVecEnv_Reset(seed), episode e (0, 1, ...) of agent i is seeded with seed + i + count * e, so every agent and
/// episode has its own seed and the run is reproducible from one number. Destroy with lsDestroyVecEnv.
/// Threads: one thread at a time per vector (its agents step on the pool it was given).
typedef struct lsVecEnv lsVecEnv;

/// Settings of a vector of agents.
typedef struct lsVecEnvDef
{
    int count;        ///< agents, >= 1
    lsAgentDef agent; ///< settings of every agent
    bool autoReset;   ///< an agent whose episode ended starts the next one within the same step (see lsVecEnv_Step)
} lsVecEnvDef;

/// The defaults: one agent, lsDefaultAgentDef, autoReset on.
LS_API lsVecEnvDef lsDefaultVecEnvDef(void);
/// Creates the agents of world (which must outlive the vector, unchanged). pool runs the steps (NULL: the calling
/// thread); the vector does not own it, and the pool must outlive the vector. Returns NULL with err filled when def
/// is out of range (count < 1 or over 1 000 000, maxSteps < 1, simStepsPerAction < 0, a penalty outside [-1e9, 1e9]).
LS_API lsVecEnv* lsCreateVecEnv(const lsWorld* world, const lsVecEnvDef* def, lsPool* pool, lsError* err);
/// Frees the agents. NULL is allowed.
LS_API void lsDestroyVecEnv(lsVecEnv* env);
/// Number of agents.
LS_API int lsVecEnv_Count(const lsVecEnv* env);
/// Observation length of one agent (lsAgent_ObservationSize).
LS_API int lsVecEnv_ObservationSize(const lsVecEnv* env);

/// Resets every agent: agent i starts episode 0 with seed + i. Writes the observations (count rows of
/// lsVecEnv_ObservationSize floats, row-major) into obs.
LS_API void lsVecEnv_Reset(lsVecEnv* env, uint64_t seed, float* obs);
/// Resets agent i alone with an explicit seed (its later automatic episodes go on from its own schedule). Writes
/// its observation into obsRow (one row).
LS_API void lsVecEnv_ResetOne(lsVecEnv* env, int i, uint64_t seed, float* obsRow);
/// Resets, on the pool, every agent i whose rows[i] is not 0 (rows NULL: every agent) with seeds[i], as
/// lsVecEnv_ResetOne(env, i, seeds[i], row i of obs) would; the other agents and their rows of obs are left as they
/// are. Bindings that draw their own seeds (the Python VectorEnv's) reset a whole vector, or the agents whose
/// episodes ended, in one call.
LS_API void lsVecEnv_ResetSeeded(lsVecEnv* env, const uint64_t* seeds, const uint8_t* rows, float* obs);

/// Steps every agent once, in parallel. Actions: discrete (actions[i], an lsAction) when continuous is NULL, else
/// continuous (continuous[2i] = v m/s, continuous[2i + 1] = w rad/s, clamped to the robot's limits). Writes obs
/// (count rows), rewards[i], truncated[i] = 1 when agent i reached maxSteps (there is no terminal state: episodes
/// end by time only). With autoReset, an agent whose episode ended writes its last observation into row i of
/// finalObs (when finalObs is not NULL; other rows are left as they are), starts its next episode and writes that
/// episode's first observation into obs. rewards, truncated and finalObs may be NULL. Returns how many agents' episodes
/// ended in this step (the ones in truncated), 0 on most steps.
LS_API int lsVecEnv_Step(lsVecEnv* env, const int32_t* actions, const double* continuous, float* obs, double* rewards,
                         uint8_t* truncated, float* finalObs);
/// Agent i's simulation, read-only (for drawing and state).
LS_API const lsSim* lsVecEnv_GetSim(const lsVecEnv* env, int i);
/// Agent steps taken in agent i's current episode.
LS_API int lsVecEnv_EpisodeStep(const lsVecEnv* env, int i);

#ifdef __cplusplus
}
#endif

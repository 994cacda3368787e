// lidarsim core: the simulation. A fixed-step, deterministic world in motion: a differential-drive robot with
// continuous collision, targets to collect, path-following vehicles (Reynolds), moving walls (doors, bars),
// the robot's lidar scanning at its own rate, and a built-in autopilot that sees only that scan.
//
// Determinism: the same world, seed and sequence of controls give bit-identical state on every run. The sim never
// reads the clock and never calls rand(); its one generator (lsRng) is seeded by world->sim.seed or lsSim_Reset.
//
// Ownership: lsCreateSim keeps a const pointer to the world and reads its definitions on every step, so the
// caller keeps the world alive and unchanged until lsDestroySim (hot reload: load the new world, create a new
// sim, destroy the old sim, then the old world). Everything the sim returns is owned by the sim and valid until
// the next call that changes it (lsSim_Step, lsSim_Reset, lsSim_SetBeams) or lsDestroySim.
//
// Units: metres, seconds, radians; world frame x right, y up, counter-clockwise positive.
#pragma once

#include "lidarsim/geometry.h"
#include "lidarsim/lidar.h"
#include "lidarsim/pool.h"
#include "lidarsim/scene.h"
#include "lidarsim/world.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// The simulation (opaque). Create with lsCreateSim, destroy with lsDestroySim. Threads: one thread at a time per sim;
/// separate sims share nothing and may step on separate threads at once (its own robots' scans may run on a pool).
typedef struct lsSim lsSim;

/// One robot's run as it was at a moment (opaque, about 1.5 KB: no world, no scene): what lsSim_CarryOverFrom needs
/// to resume it in another sim. Create with lsCreateRobotRun, destroy with lsDestroyRobotRun.
typedef struct lsRobotRun lsRobotRun;

// ---------------------------------------------------------------------------------------------------------------------
// Control

/// How the robot is driven during one step.
typedef enum lsControlMode
{
    ls_controlManual = 0,    ///< drive at the commanded (v, w), within the robot's speed and acceleration limits
    ls_controlAutopilot = 1, ///< the built-in autopilot decides (v, w) from the latest scan
    ls_controlAction = 2,    ///< one of the discrete actions (the agent interface's vocabulary)
} lsControlMode;

/// The discrete actions: each maps to a commanded (v, w) as fractions of the robot's maxSpeed and maxTurnRate.
typedef enum lsAction
{
    ls_actionForward = 0,      ///< (maxSpeed, 0)
    ls_actionLeft = 1,         ///< (0, +maxTurnRate): turn in place counter-clockwise
    ls_actionRight = 2,        ///< (0, -maxTurnRate)
    ls_actionForwardLeft = 3,  ///< (maxSpeed / 2, +maxTurnRate / 2)
    ls_actionForwardRight = 4, ///< (maxSpeed / 2, -maxTurnRate / 2)
    ls_actionStop = 5,         ///< (0, 0)
    ls_actionCount = 6,
} lsAction;

/// One step's control input. A zero-initialised lsControl is manual (0, 0): brake to a stop.
typedef struct lsControl
{
    lsControlMode mode;
    double v;        ///< manual: commanded forward speed, m/s (clamped to [-maxSpeed, maxSpeed])
    double w;        ///< manual: commanded turn rate, rad/s counter-clockwise (clamped to [-maxTurnRate, maxTurnRate])
    lsAction action; ///< action mode: which action
} lsControl;

/// A manual control (v m/s, w rad/s).
static inline lsControl lsMakeManualControl(double v, double w)
{
    return (lsControl){ls_controlManual, v, w, ls_actionStop};
}
/// The autopilot.
static inline lsControl lsMakeAutopilotControl(void)
{
    return (lsControl){ls_controlAutopilot, 0.0, 0.0, ls_actionStop};
}
/// A discrete action.
static inline lsControl lsMakeActionControl(lsAction action) { return (lsControl){ls_controlAction, 0.0, 0.0, action}; }
/// The commanded (v, w) of a discrete action for a robot (v in m/s, w in rad/s).
LS_API void lsAction_Command(lsAction action, const lsRobotDef* robot, double* v, double* w);

// ---------------------------------------------------------------------------------------------------------------------
// State (read-only views into the sim)

/// A robot's current state.
typedef struct lsRobotState
{
    lsVec2 position; ///< centre of the robot frame, world metres
    double angle;    ///< heading, radians in (-pi, pi]
    double v;        ///< current forward (wheel) speed, m/s, after the acceleration limits (contacts do not change it)
    double w;        ///< current turn rate, rad/s
    double commandV; ///< the (v, w) the last step asked for, after clamping to the limits
    double commandW;
    double radius; ///< circle footprint radius (polygon footprint: radius of the bounding circle about the centre)
    lsVec2 footprint[LS_MAX_POLYGON_VERTICES]; ///< polygon footprint in world coordinates, counter-clockwise
    int footprintCount;                        ///< 0 for a circle footprint
    bool inContact;                            ///< the robot touched something (or was pushed) during the last step
    bool scanned;                              ///< its lidar took a new scan in the last step
    double score;                              ///< its share of lsSimState's totals below
    int food, poison, collisions, crushes;
    double distance;
} lsRobotState;

/// One target's current state.
typedef struct lsTargetState
{
    lsVec2 center;
    double radius;
    lsTargetKind kind;
    bool active; ///< false once collected (and not respawned)
} lsTargetState;

/// One vehicle's current state, with the points of Reynolds' path following for the view to draw.
typedef struct lsVehicleState
{
    lsVec2 position; ///< centre, world metres
    lsVec2 velocity; ///< m/s
    double radius;
    int path;           ///< index into world->paths
    lsVec2 predicted;   ///< where it will be `lookAhead` metres ahead along its velocity
    lsVec2 normalPoint; ///< the nearest point of the path to `predicted` within a window ahead of `progress`
    lsVec2 target;      ///< the point further along the path that it seeks
    bool seeking;       ///< predicted lay outside the path's radius, so it steered towards target this step
    bool stopped;       ///< arrived at the end of an open path (pathEnd "stop")
    int direction;      ///< +1 following the path's point order, -1 going back (pathEnd "reverse")
    double progress;    ///< where it is along the path: arc length from the first point, metres (see `tracking`)
    bool tracking;      ///< progress is known, and the next step looks for the path near it (the path is followed in
                        ///< order); false at the start, after an edit of its path and in a replay: picked up again
} lsVehicleState;

/// The whole observable state. Arrays are owned by the sim.
typedef struct lsSimState
{
    double time;                  ///< simulated seconds since reset (step * dt)
    long long step;               ///< steps since reset
    double dt;                    ///< the fixed step, seconds
    lsRobotState robot;           ///< the first robot, robots[0] (what one-robot callers read)
    const lsRobotState* robots;   ///< every robot, in the world's order (world->robot, then world->fleet)
    int robotCount;               ///< lsWorld_RobotCount(world), >= 1
    const lsTargetState* targets; ///< world->targetCount entries, in the world's order
    int targetCount;
    const lsVehicleState* vehicles; ///< world->vehicleCount entries
    int vehicleCount;
    const lsSegment* movers; ///< the moving walls' segments at `time`, world->moverCount entries
    int moverCount;
    // The fleet's totals (the sums over the robots; with one robot, that robot's).
    double score;    ///< sum of the rewards of collected targets
    int food;        ///< food collected
    int poison;      ///< poison collected
    int collisions;  ///< contacts begun: steps in contact that follow a step without contact
    int crushes;     ///< steps that ended with a robot squeezed by a moving wall into a gap narrower than itself,
                     ///< or pushed by another robot against something so that it could not give way
    double distance; ///< distance travelled by the robots' centres, metres
    bool scanned;    ///< the last step took a new scan (any robot's)
} lsSimState;

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle and stepping

/// Creates a sim of the world (which must outlive it, unchanged), builds the lidar's scene and resets it with
/// world->sim.seed. Takes a first scan at time 0. Destroy with lsDestroySim. NULL when world is NULL or cannot be
/// simulated (a dt or a lidar rate that is not positive, beams outside 1 .. LS_MAX_BEAMS).
LS_API lsSim* lsCreateSim(const lsWorld* world);
/// Frees the sim and its scene. NULL is allowed.
LS_API void lsDestroySim(lsSim* sim);
/// Puts everything back to its state at time 0 (robot, targets, vehicles, score) and reseeds the generator
/// (targets' respawn places) and the lidar's noise from seed.
LS_API void lsSim_Reset(lsSim* sim, uint64_t seed);
/// Advances the world by one fixed step of world->sim.dt: moving walls, vehicles, robots (continuous collision),
/// targets, then the scans whose lidar period has elapsed. control drives the first robot (NULL: manual (0, 0));
/// the other robots follow their controller (autopilot robots drive themselves, manual and external ones stop).
LS_API void lsSim_Step(lsSim* sim, const lsControl* control);
/// The same step with one control per robot: controls[i] drives robot i (robotCount entries), whatever its
/// controller. controls NULL: every robot follows its controller (the first one included).
LS_API void lsSim_StepRobots(lsSim* sim, const lsControl* controls);
/// Scans of many robots run on this pool (NULL: on the caller's thread). The sim does not own it; results are
/// the same for any pool. Keep the pool alive while the sim steps with it.
LS_API void lsSim_SetPool(lsSim* sim, lsPool* pool);
/// The current state (valid until the next step, reset or destroy).
LS_API const lsSimState* lsSim_GetState(const lsSim* sim);
/// The first robot's latest scan (taken at the lidar's rate, not every step), valid until the next step, reset
/// or destroy.
LS_API const lsScan* lsSim_GetScan(const lsSim* sim);
/// Robot `robot`'s latest scan (index in [0, robotCount); NULL outside).
LS_API const lsScan* lsSim_GetRobotScan(const lsSim* sim, int robot);
/// The scene the sim built from the world (static geometry; targets follow the sim's state).
LS_API const lsScene* lsSim_GetScene(const lsSim* sim);
/// The moving objects as the lidars saw them at the latest step (vehicles' bodies, movers' segments, robots'
/// footprints; skipRobot -1, no index).
LS_API lsDynamicObjects lsSim_GetDynamicObjects(const lsSim* sim);
/// The world the sim was created from.
LS_API const lsWorld* lsSim_GetWorld(const lsSim* sim);
/// Changes the number of the first robot's lidar beams (the window's +/- keys), clamped to [1, LS_MAX_BEAMS],
/// and rescans at once.
LS_API bool lsSim_SetBeams(lsSim* sim, int beams);
/// The same for robot `robot`; false (nothing changed) when robot is out of range.
LS_API bool lsSim_SetRobotBeams(lsSim* sim, int robot, int beams);
/// The number of the first robot's lidar beams in use.
LS_API int lsSim_GetBeams(const lsSim* sim);
/// The number of robot `robot`'s lidar beams in use (-1 when robot is out of range).
LS_API int lsSim_GetRobotBeams(const lsSim* sim, int robot);
/// The (v, w) the autopilot would command now from the latest scan (m/s, rad/s), without stepping.
/// It updates the autopilot's own memory (its stuck detector), so call it at most once per step.
LS_API lsControl lsSim_AutopilotControl(lsSim* sim);
/// The same for robot `robot` (a manual stop when robot is out of range).
LS_API lsControl lsSim_RobotAutopilotControl(lsSim* sim, int robot);

// ---------------------------------------------------------------------------------------------------------------------
// Live editing

/// Carries the moving state of `old` (a sim of the world as it was before an edit or a reload, still alive) over
/// to `sim` (just created from the edited world), so the run goes on: simulated time and step (movers keep their
/// phase), score and counters, the generators and the autopilot's memory; the robot's pose and speeds (unless
/// the edit moved its start pose: then it starts there, at rest); targets whose definition did not change
/// (collected stays collected, respawned stays where it went); vehicles whose definition did not change and
/// whose path (by id) still exists. Everything else starts as at time 0. A robot left overlapping something goes
/// to the nearest free place, then a scan is taken. The one place that knows what survives an edit
/// (docs/editing.md lists it).
LS_API void lsSim_CarryOver(lsSim* sim, const lsSim* old);
/// As lsSim_CarryOver, and a robot that `old` lacks takes over the first of `runs` (newest first; may be NULL when
/// runCount is 0) of its id and start pose: the window's undo of a robot's deletion brings the robot back where it
/// was, with its speeds, counters, noise stream and autopilot memory, rather than at its start pose. The fleet's
/// totals stay old's (they kept the robot's share). used (NULL, or runCount entries): set true for each run taken
/// over, false for the others; a run taken over is of no more use to the caller (a later deletion makes a new one).
LS_API void lsSim_CarryOverFrom(lsSim* sim, const lsSim* old, const lsRobotRun* const* runs, int runCount, bool* used);
/// Copies robot `robot`'s run in sim (index in [0, robotCount)): its id and start pose (to match it again), pose,
/// speeds, its share of the score and counters, its lidar's noise stream, its autopilot's memory and contact. It
/// holds nothing of the sim, which may then go. Destroy with lsDestroyRobotRun (the caller owns it).
LS_API lsRobotRun* lsCreateRobotRun(const lsSim* sim, int robot);
/// Frees a run from lsCreateRobotRun (NULL is fine).
LS_API void lsDestroyRobotRun(lsRobotRun* run);

// ---------------------------------------------------------------------------------------------------------------------
// Moving walls (pure functions of time, shared with the view and the editor)

/// The segment of a moving wall at time seconds. Door: a and b shifted by offset * tri(time / period + phase),
/// where tri goes 0 -> 1 -> 0 over one cycle. Bar: a and b rotated about pivot by angularSpeed * time.
LS_API lsSegment lsMover_SegmentAt(const lsMoverDef* mover, double time);

// ---------------------------------------------------------------------------------------------------------------------
// Determinism

/// A 64-bit hash (FNV-1a over the exact bits) of the state: time, robot, targets, vehicles, score and counters.
LS_API uint64_t lsSim_Hash(const lsSim* sim);

#ifdef __cplusplus
}
#endif

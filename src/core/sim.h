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

#include "core/geometry.h"
#include "core/lidar.h"
#include "core/scene.h"
#include "core/world.h"

/// The simulation (opaque). Create with lsCreateSim, destroy with lsDestroySim.
typedef struct lsSim lsSim;

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
void lsAction_Command(lsAction action, const lsRobotDef* robot, double* v, double* w);

// ---------------------------------------------------------------------------------------------------------------------
// State (read-only views into the sim)

/// The robot's current state.
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
    bool inContact;                            ///< the robot touched something during the last step
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
    lsVec2 normalPoint; ///< the nearest point of the path to `predicted`
    lsVec2 target;      ///< the point further along the path that it seeks
    bool seeking;       ///< predicted lay outside the path's radius, so it steered towards target this step
    bool stopped;       ///< arrived at the end of an open path (pathEnd "stop")
    int direction;      ///< +1 following the path's point order, -1 going back (pathEnd "reverse")
} lsVehicleState;

/// The whole observable state. Arrays are owned by the sim.
typedef struct lsSimState
{
    double time;    ///< simulated seconds since reset (step * dt)
    long long step; ///< steps since reset
    double dt;      ///< the fixed step, seconds
    lsRobotState robot;
    const lsTargetState* targets; ///< world->targetCount entries, in the world's order
    int targetCount;
    const lsVehicleState* vehicles; ///< world->vehicleCount entries
    int vehicleCount;
    const lsSegment* movers; ///< the moving walls' segments at `time`, world->moverCount entries
    int moverCount;
    double score;    ///< sum of the rewards of collected targets
    int food;        ///< food collected
    int poison;      ///< poison collected
    int collisions;  ///< contacts begun: steps in contact that follow a step without contact
    int crushes;     ///< steps that ended with the robot squeezed by a moving wall into a gap narrower than itself
    double distance; ///< distance travelled by the robot's centre, metres
    bool scanned;    ///< the last step took a new scan
} lsSimState;

// ---------------------------------------------------------------------------------------------------------------------
// Lifecycle and stepping

/// Creates a sim of the world (which must outlive it, unchanged), builds the lidar's scene and resets it with
/// world->sim.seed. Takes a first scan at time 0. Destroy with lsDestroySim.
lsSim* lsCreateSim(const lsWorld* world);
/// Frees the sim and its scene. NULL is allowed.
void lsDestroySim(lsSim* sim);
/// Puts everything back to its state at time 0 (robot, targets, vehicles, score) and reseeds the generator
/// (targets' respawn places) and the lidar's noise from seed.
void lsSim_Reset(lsSim* sim, uint64_t seed);
/// Advances the world by one fixed step of world->sim.dt: moving walls, vehicles, robot (continuous collision),
/// targets, then a scan when the lidar's period has elapsed. control may be NULL (manual (0, 0)).
void lsSim_Step(lsSim* sim, const lsControl* control);
/// The current state (valid until the next step, reset or destroy).
const lsSimState* lsSim_GetState(const lsSim* sim);
/// The latest scan (taken at the lidar's rate, not every step), valid until the next step, reset or destroy.
const lsScan* lsSim_GetScan(const lsSim* sim);
/// The scene the sim built from the world (static geometry; targets follow the sim's state).
const lsScene* lsSim_GetScene(const lsSim* sim);
/// The moving objects as the lidar saw them at the latest step (vehicles' bodies, movers' segments).
lsDynamicObjects lsSim_GetDynamicObjects(const lsSim* sim);
/// The world the sim was created from.
const lsWorld* lsSim_GetWorld(const lsSim* sim);
/// Changes the number of lidar beams (the window's +/- keys), clamped to [1, LS_MAX_BEAMS], and rescans at once.
void lsSim_SetBeams(lsSim* sim, int beams);
/// The number of lidar beams in use.
int lsSim_GetBeams(const lsSim* sim);
/// The (v, w) the autopilot would command now from the latest scan (m/s, rad/s), without stepping.
/// It updates the autopilot's own memory (its stuck detector), so call it at most once per step.
lsControl lsSim_AutopilotControl(lsSim* sim);

// ---------------------------------------------------------------------------------------------------------------------
// Moving walls (pure functions of time, shared with the view and the editor)

/// The segment of a moving wall at time seconds. Door: a and b shifted by offset * tri(time / period + phase),
/// where tri goes 0 -> 1 -> 0 over one cycle. Bar: a and b rotated about pivot by angularSpeed * time.
lsSegment lsMover_SegmentAt(const lsMoverDef* mover, double time);

// ---------------------------------------------------------------------------------------------------------------------
// Building blocks: the pure functions the step is made of (robot.c, vehicle.c), public so tests can check them alone.

/// Moves a speed towards its command by at most maxAccel * dt, then clamps it to [-maxSpeed, maxSpeed].
double lsApproachSpeed(double speed, double command, double maxSpeed, double maxAccel, double dt);
/// Differential-drive motion at constant (v, w) for dt seconds, integrated exactly: a straight line when w == 0,
/// else an arc of radius v / w. Writes the new position and heading (wrapped into (-pi, pi]).
void lsIntegrateUnicycle(lsVec2 position, double angle, double v, double w, double dt, lsVec2* newPosition,
                         double* newAngle);

/// Gap kept between a moving body and what it touches, metres: bodies stop this far short of contact, so a body
/// that ends a step "in contact" is still separated, and rounding never turns contact into overlap.
#define LS_CONTACT_SKIN 1e-6

/// What a moving circle collides with over one step: the scene's static walls, boxes and polygons, the moving walls
/// (their segments at the start and at the end of the step, interpolated linearly in between) and other circles
/// (static for this sweep). Any pointer may be NULL with a zero count.
typedef struct lsCollisionWorld
{
    const lsScene* scene;
    const lsSegment* moversStart;
    const lsSegment* moversEnd;
    int moverCount;
    const lsCircle* circles;
    int circleCount;
    int skipCircle; ///< index of a circle to ignore (the mover itself), -1 for none
} lsCollisionWorld;

/// Result of moving a circle.
typedef struct lsMoveResult
{
    lsVec2 position; ///< where the centre ended
    lsVec2 legs[6];  ///< the centre's path: legs[0] the start, legs[legCount - 1] the end (for sweeping targets)
    int legCount;
    int contacts;      ///< contacts met during the move (first times of impact and pushes by moving walls)
    lsVec2 lastNormal; ///< unit normal of the last contact, pointing away from the obstacle ((0, 0) when none)
    bool crushed;      ///< no free place was near: solids (a moving wall and a wall) closed in narrower than the body,
                       ///< which was left at the place of least overlap (lsMoveCircle; false for lsMovePolygon)
} lsMoveResult;

/// Moves a circle of radius from start by displacement over one step with continuous collision: it stops
/// LS_CONTACT_SKIN short of the first time of impact (lsTimeOfImpactCircleSegment / ...MovingSegment against
/// candidates from lsScene_QueryAABB over the swept box, never a loop over all walls), slides along the contact
/// tangent for the remaining time, up to 4 times, and stops in a crease. Then moving walls that reached it push it
/// out (a swept push against static walls only, so it never goes through a wall; another circle does not stop it).
/// Any overlap left with static solids or moving walls (a squeeze into a crease, rounding) is then resolved at
/// once against all of them: the nearest free place (a small quadratic program over the tangent half-planes,
/// re-linearised until it settles), reached by a swept move. When no free place exists (a gap closing narrower than
/// the body) the body goes to the place of least overlap, still swept (never through a wall, never NaN), and
/// crushed is set.
lsMoveResult lsMoveCircle(const lsCollisionWorld* cw, lsVec2 start, lsVec2 displacement, double radius);

/// Moves a convex polygon footprint (count points in the body frame, counter-clockwise) from the pose (start, angle)
/// by displacement while turning by turn radians, with conservative advancement (Mirtich): GJK distances to the
/// candidates bound how far the motion can safely advance, repeated until it is within LS_CONTACT_SKIN of contact;
/// then it slides along the contact for what is left, and residual overlap is resolved by EPA's minimum translation
/// vector. Circles in the collision world are obstacles; moving walls are taken where they are at the end of the
/// step. Writes the final heading to newAngle.
lsMoveResult lsMovePolygon(const lsCollisionWorld* cw, const lsVec2* points, int count, lsVec2 start, double angle,
                           lsVec2 displacement, double turn, double* newAngle);

/// Signed clearance between a circle and everything static and moving in the collision world at the end of the
/// step (the distance from the circle's boundary to the nearest obstacle, negative when overlapping), searching
/// within maxDistance of the boundary (returns maxDistance when nothing is closer). For tests and asserts.
double lsCollisionWorld_Clearance(const lsCollisionWorld* cw, lsVec2 center, double radius, double maxDistance);

/// Tuning of Reynolds' path following, in the vehicle's own units: distances are maxSpeed times these seconds.
typedef struct lsPathFollowDef
{
    double predictTime;  ///< predict the position maxSpeed * predictTime metres ahead along the velocity (0.5 s)
    double targetTime;   ///< put the target maxSpeed * targetTime metres along the path past the normal point (0.25 s)
    double arriveTime;   ///< open path, "stop": slow down within maxSpeed * arriveTime metres of the end (1 s)
    double responseTime; ///< steering force = (desired velocity - velocity) / responseTime, at most maxForce (0.1 s)
} lsPathFollowDef;

/// The default path-following tuning.
lsPathFollowDef lsDefaultPathFollowDef(void);

/// Reynolds' path following for one vehicle: predicts its position ahead along its velocity, projects that onto
/// every segment of the path (dot product, clamped), takes the nearest normal point, puts the target further along
/// the path in the vehicle's direction (wrapping on closed paths, clamped at the ends of open ones), and returns the
/// steering force (m/s^2, at most maxForce): seek(target) when the predicted point lies outside the radius, else a
/// push along the path up to maxSpeed (so a vehicle at rest gets going). Near the end of an open path it arrives
/// (slows to a stop). Fills state->predicted, normalPoint, target and seeking; reads position, velocity, direction.
lsVec2 lsVehicle_PathForce(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                           lsVehicleState* state);

/// Positions the autopilot remembers to steer away from places it has just been.
#define LS_AUTOPILOT_TRAIL 48

/// The autopilot's memory: its wander direction, its stuck detector, the trail of its own recent positions
/// and the command it holds between scans.
typedef struct lsAutopilot
{
    lsRng rng;            ///< for the wander direction only (seeded by the sim's seed)
    double wander;        ///< preferred direction relative to the heading, radians, a slow random walk
    lsVec2 checkPosition; ///< stuck detector: where the robot was at checkTime
    double checkTime;     ///< seconds
    double escapeUntil;   ///< backing up and turning until this time, seconds
    double escapeTurn;    ///< turn direction while escaping, +1 or -1
    double v, w;          ///< the command it holds between scans, m/s and rad/s
    double chosen;        ///< the direction it chose at the last scan, relative to the heading (for the view)
    lsVec2 trail[LS_AUTOPILOT_TRAIL]; ///< its own recent positions (odometry), one per trailPeriod seconds
    int trailCount;                   ///< entries used (a ring once full)
    int trailNext;                    ///< where the next entry goes
    double trailTime;                 ///< time of the last entry, seconds
} lsAutopilot;

/// An autopilot with a fresh memory whose wander stream is seeded by seed.
lsAutopilot lsMakeAutopilot(uint64_t seed);
/// Decides (v, w) from the robot's own scan (and its own pose, as odometry) only: every new scan it scores
/// candidate directions by the free distance a body of the robot's radius could travel along them, openness (how
/// far the beams around a direction reach), a preference for going straight, a slowly wandering bias, novelty
/// (away from its own trail of recent positions), attraction to food and repulsion from poison seen by the beams
/// (hit kind target, its kind from the scene); then it turns towards the best and slows down before obstacles. If
/// it has moved less than a quarter of its radius in the last 1.5 s it backs up and turns for 0.6 s. Between scans
/// it holds its command.
lsControl lsAutopilot_Decide(lsAutopilot* autopilot, const lsScan* scan, const lsScene* scene, const lsRobotDef* def,
                             const lsRobotState* robot, double time, bool newScan);

// ---------------------------------------------------------------------------------------------------------------------
// Determinism

/// A 64-bit hash (FNV-1a over the exact bits) of the state: time, robot, targets, vehicles, score and counters.
uint64_t lsSim_Hash(const lsSim* sim);

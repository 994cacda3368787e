// lidarsim core (private): the built-in autopilot that drives the robot from its own scan (autopilot.c).
#pragma once

#include "lidarsim/sim.h"

#include <stddef.h>

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
    int trailCount;       ///< entries of the trail used (a ring once full)
    int trailNext;        ///< where the next entry goes
    double trailTime;     ///< time of the last entry, seconds
    /// Its own recent positions (odometry), one per trailPeriod seconds. Last: lsAutopilotUndo keeps what is before.
    lsVec2 trail[LS_AUTOPILOT_TRAIL];
} lsAutopilot;

/// What one lsAutopilot_Decide may change: every field before the trail, and the one trail entry a decision may
/// write (at trailNext). Saved before a decision, it undoes it without copying the whole trail.
typedef struct lsAutopilotUndo
{
    unsigned char head[offsetof(lsAutopilot, trail)];
    lsVec2 entry;
} lsAutopilotUndo;

/// Saves what the next decision of autopilot may change.
lsAutopilotUndo lsAutopilot_SaveUndo(const lsAutopilot* autopilot);
/// Puts autopilot back as it was when undo was saved (at most one decision ran since).
void lsAutopilot_Undo(lsAutopilot* autopilot, const lsAutopilotUndo* undo);

/// An autopilot with a fresh memory whose wander stream is seeded by seed.
lsAutopilot lsMakeAutopilot(uint64_t seed);
/// Decides (v, w) from the robot's own scan (and its own pose, as odometry) only: every new scan it scores
/// candidate directions by the free distance a body of the robot's radius could travel along them, openness (how
/// far the beams around a direction reach), a preference for going straight, a slowly wandering bias, novelty
/// (away from its own trail of recent positions), attraction to food and repulsion from poison seen by the beams
/// (hit kind target, its kind from the scene); then it turns towards the best and slows down before obstacles. If
/// it has moved less than a quarter of its radius in the last 1.5 s it backs up and turns for 0.6 s. Between scans
/// it holds its command. The beams' angles are taken from scan->layout (scan->angles is not read): those of every
/// scan the lidar or a recording writes.
lsControl lsAutopilot_Decide(lsAutopilot* autopilot, const lsScan* scan, const lsScene* scene, const lsRobotDef* def,
                             const lsRobotState* robot, double time, bool newScan);

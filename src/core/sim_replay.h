// lidarsim core: write access to a sim's state for replay (core/recording.c), which draws a recorded run with the
// same code as a live one by putting the recorded state into a sim. Internal: nothing else changes a sim's state
// from outside its step.
#pragma once

#include "lidarsim/sim.h"

/// The sim's state arrays, writable: the public state (time, step, counters), robots, targets and vehicles.
typedef struct lsSimReplayAccess
{
    lsSimState* state;
    lsRobotState* robots;     ///< state->robotCount entries
    lsTargetState* targets;   ///< state->targetCount entries
    lsVehicleState* vehicles; ///< state->vehicleCount entries
} lsSimReplayAccess;

/// The state to overwrite.
lsSimReplayAccess lsSim_ReplayAccess(lsSim* sim);
/// Robot i's scan, to fill with a recorded one (its capacity is the robot's beams in use).
lsScan* lsSim_ReplayScan(lsSim* sim, int robot);
/// After writing the state: the robots' footprints and bodies, the vehicles' bodies and the moving walls follow
/// the new poses and state->time, and state->robot is robots[0] again.
void lsSim_ReplaySync(lsSim* sim);

// lidarsim core: the parts of a simulation step, reported as each begins, so the fleet benchmark can time them
// (the core never reads the clock itself).
#pragma once

#include "lidarsim/sim.h"

/// The parts of lsSim_Step / lsSim_StepRobots.
typedef enum lsSimPhase
{
    ls_phaseOther,      ///< moving walls, vehicles, contacts, targets, the scan schedule
    ls_phaseBroadPhase, ///< the moving objects' grids (collisions, then the lidars)
    ls_phasePrepare,    ///< each robot's command and its move with the other robots out of the way (on the pool)
    ls_phaseTurns,      ///< the robots' turns, one after another: the moves that meet other robots, pushes, targets
    ls_phaseLidar,      ///< the due scans (on the pool)
    ls_phaseCount
} lsSimPhase;

/// Called on the stepping thread as each part of a step begins.
typedef void lsSimPhaseFcn(void* context, lsSimPhase phase);

/// Sets the function called as each part of a step begins (NULL: none).
void lsSim_SetPhaseHook(lsSim* sim, lsSimPhaseFcn* fcn, void* context);

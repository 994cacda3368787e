// lidarsim core: a reinforcement-learning interface to the simulation, in the spirit of the demo the project
// descends from (an agent with range sensors that learns to eat food and avoid poison): reset(seed), observation,
// step(action) -> reward, done. One agent step lets the simulation run until the lidar's next scan, so every
// observation is a fresh scan. Deterministic: the same world, seed and actions give the same observations.
#pragma once

#include "lidarsim/sim.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// What each beam saw, as the observation's one-hot groups.
typedef enum lsAgentSeen
{
    ls_seenNothing = 0, ///< no return within range
    ls_seenWall = 1,    ///< a wall, box or polygon
    ls_seenMover = 2,   ///< a moving wall
    ls_seenVehicle = 3, ///< a vehicle
    ls_seenFood = 4,    ///< a food target
    ls_seenPoison = 5,  ///< a poison target
    ls_seenCount = 6,
} lsAgentSeen;

/// Settings of an agent.
typedef struct lsAgentDef
{
    int maxSteps;            ///< episode length in agent steps; done becomes true when it is reached (1000)
    int simStepsPerAction;   ///< simulation steps per agent step; 0: until the next lidar scan (the default)
    double collisionPenalty; ///< added to the reward for each collision begun (0: reward is the score change)
} lsAgentDef;

/// One agent step's outcome.
typedef struct lsAgentStep
{
    double reward; ///< score change during the step (food +foodReward, poison +poisonReward) plus penalties
    bool done;     ///< the episode has reached maxSteps (stepping further goes on; call lsAgent_Reset)
} lsAgentStep;

/// A learning agent over one sim (opaque). Threads: one thread at a time per agent; separate agents run at once.
typedef struct lsAgent lsAgent;

/// The default settings.
LS_API lsAgentDef lsDefaultAgentDef(void);
/// An agent with its own simulation of world (which must outlive it, unchanged); def may be NULL for the
/// defaults. Destroy with lsDestroyAgent. NULL when world is NULL or cannot be simulated (lsCreateSim), or def
/// has maxSteps <= 0 or simStepsPerAction < 0.
LS_API lsAgent* lsCreateAgent(const lsWorld* world, const lsAgentDef* def);
/// Frees the agent and its simulation. NULL is allowed.
LS_API void lsDestroyAgent(lsAgent* agent);
/// Starts a new episode: the simulation is reset with seed (respawn places, lidar noise).
LS_API void lsAgent_Reset(lsAgent* agent, uint64_t seed);

/// Length of the observation vector: beams * (1 + ls_seenCount) + 2.
LS_API int lsAgent_ObservationSize(const lsAgent* agent);
/// Writes the observation into out (capacity >= lsAgent_ObservationSize) and returns its length:
/// [0, beams): range / rangeMax per beam in [0, 1] (no return: 1); then beams groups of ls_seenCount one-hot values
/// (beam-major: out[beams + i * ls_seenCount + kind]); then the robot's v / maxSpeed and w / maxTurnRate in [-1,
/// 1]. -1 (nothing written) when out is NULL or capacity is too small.
LS_API int lsAgent_Observe(const lsAgent* agent, double* out, int capacity);

/// Takes a discrete action (lsAction: forward, left, right, forward-left, forward-right, stop).
LS_API lsAgentStep lsAgent_Step(lsAgent* agent, lsAction action);
/// Takes a continuous action: commanded forward speed v (m/s) and turn rate w (rad/s), clamped to the limits.
LS_API lsAgentStep lsAgent_StepContinuous(lsAgent* agent, double v, double w);
/// Agent steps taken in this episode.
LS_API int lsAgent_StepCount(const lsAgent* agent);
/// The agent's simulation, read-only (state, scan, world).
LS_API const lsSim* lsAgent_GetSim(const lsAgent* agent);

// -----------------------------------------------------------------------------------------------------------------
// Several agents (a fleet world): the agents are the world's robots whose controller is "external", in list
// order (a world without one has a single agent, its first robot). Autopilot robots drive themselves and the
// other robots stand still while the agents act. lsAgent_Reset and the episode length are shared.

/// Number of agents (>= 1).
LS_API int lsAgent_AgentCount(const lsAgent* agent);
/// The robot (index into the world's robots, lsWorld_GetRobot) that agent k drives; -1 when k is out of range.
LS_API int lsAgent_AgentRobot(const lsAgent* agent, int k);
/// Length of robot `robot`'s observation (its beams * (1 + ls_seenCount) + 2), as lsAgent_ObservationSize;
/// -1 when robot is out of range.
LS_API int lsAgent_RobotObservationSize(const lsAgent* agent, int robot);
/// Writes robot `robot`'s observation (laid out as lsAgent_Observe's, from its own scan and speeds); returns its
/// length, or -1 (nothing written) when robot is out of range, out is NULL or capacity is too small. Other robots
/// are seen as ls_seenVehicle (moving bodies).
LS_API int lsAgent_ObserveRobot(const lsAgent* agent, int robot, double* out, int capacity);
/// One step of every agent at once: actions[k] for agent k (lsAgent_AgentCount entries). The simulation runs
/// until every agent has a fresh scan (or simStepsPerAction steps); rewards[k] receives agent k's own score
/// change plus its collision penalties. Returns the sum of the rewards and done (maxSteps reached).
LS_API lsAgentStep lsAgent_StepAgents(lsAgent* agent, const lsAction* actions, double* rewards);
/// The same with continuous actions: commands[2k] = v (m/s) and commands[2k + 1] = w (rad/s) for agent k, finite,
/// clamped to that robot's limits (as lsAgent_StepContinuous).
LS_API lsAgentStep lsAgent_StepAgentsContinuous(lsAgent* agent, const double* commands, double* rewards);

#ifdef __cplusplus
}
#endif

// lidarsim core: the agent interface, a thin layer over lsSim that turns scans into observation vectors and score
// changes into rewards.
#include "lidarsim/agent.h"

struct lsAgent
{
    lsSim* sim;
    lsAgentDef def;
    int steps;
    int* agents; ///< the robots the multi-agent API drives: the external ones, or the first robot if none is
    int agentCount;
    lsControl* controls; ///< scratch: one control per robot
    double* scores;      ///< scratch: each agent's score before a multi-agent step
    int* collisions;
    bool* scanned;
};

lsAgentDef lsDefaultAgentDef(void)
{
    return (lsAgentDef){.maxSteps = 1000, .simStepsPerAction = 0, .collisionPenalty = 0.0};
}

lsAgent* lsCreateAgent(const lsWorld* world, const lsAgentDef* def)
{
    lsAgentDef checked = def != NULL ? *def : lsDefaultAgentDef();
    if (world == NULL || checked.maxSteps <= 0 || checked.simStepsPerAction < 0)
    {
        return NULL;
    }
    lsSim* sim = lsCreateSim(world);
    if (sim == NULL)
    {
        return NULL;
    }
    lsAgent* agent = lsAllocZero(1, sizeof(lsAgent));
    agent->def = checked;
    agent->sim = sim;
    int robots = lsWorld_RobotCount(world);
    agent->agents = lsAlloc((size_t)robots * sizeof(int));
    for (int i = 0; i < robots; ++i)
    {
        if (lsWorld_GetRobot(world, i)->controller == ls_controllerExternal)
        {
            agent->agents[agent->agentCount++] = i;
        }
    }
    if (agent->agentCount == 0)
    {
        agent->agents[agent->agentCount++] = 0;
    }
    agent->controls = lsAlloc((size_t)robots * sizeof(lsControl));
    agent->scores = lsAlloc((size_t)robots * sizeof(double));
    agent->collisions = lsAlloc((size_t)robots * sizeof(int));
    agent->scanned = lsAlloc((size_t)robots * sizeof(bool));
    return agent;
}

void lsDestroyAgent(lsAgent* agent)
{
    if (agent == NULL)
    {
        return;
    }
    size_t robots = (size_t)lsSim_GetState(agent->sim)->robotCount;
    lsFree(agent->agents, robots * sizeof(int));
    lsFree(agent->controls, robots * sizeof(lsControl));
    lsFree(agent->scores, robots * sizeof(double));
    lsFree(agent->collisions, robots * sizeof(int));
    lsFree(agent->scanned, robots * sizeof(bool));
    lsDestroySim(agent->sim);
    lsFree(agent, sizeof(lsAgent));
}

void lsAgent_Reset(lsAgent* agent, uint64_t seed)
{
    LS_ASSERT(agent != NULL);
    lsSim_Reset(agent->sim, seed);
    agent->steps = 0;
}

int lsAgent_ObservationSize(const lsAgent* agent) { return lsAgent_RobotObservationSize(agent, 0); }

static lsAgentSeen Seen(const lsScene* scene, lsHitKind kind, int index)
{
    switch (kind)
    {
    case ls_hitWall:
    case ls_hitBox:
    case ls_hitPolygon:
        return ls_seenWall;
    case ls_hitMover:
        return ls_seenMover;
    case ls_hitVehicle:
    case ls_hitRobot: // another robot is a moving body, like a vehicle
        return ls_seenVehicle;
    case ls_hitTarget:
        return lsScene_TargetKind(scene, index) == ls_food ? ls_seenFood : ls_seenPoison;
    default:
        return ls_seenNothing;
    }
}

int lsAgent_Observe(const lsAgent* agent, double* out, int capacity)
{
    return lsAgent_ObserveRobot(agent, 0, out, capacity);
}

int lsAgent_RobotObservationSize(const lsAgent* agent, int robot)
{
    int beams = agent != NULL ? lsSim_GetRobotBeams(agent->sim, robot) : -1;
    return beams < 0 ? -1 : beams * (1 + ls_seenCount) + 2;
}

int lsAgent_ObserveRobot(const lsAgent* agent, int robotIndex, double* out, int capacity)
{
    int size = lsAgent_RobotObservationSize(agent, robotIndex);
    if (size < 0 || out == NULL || capacity < size)
    {
        return -1;
    }
    const lsScan* scan = lsSim_GetRobotScan(agent->sim, robotIndex);
    const lsScene* scene = lsSim_GetScene(agent->sim);
    const lsRobotDef* robot = lsWorld_GetRobot(lsSim_GetWorld(agent->sim), robotIndex);
    const lsRobotState* state = &lsSim_GetState(agent->sim)->robots[robotIndex];
    int beams = scan->count;
    for (int i = 0; i < size; ++i)
    {
        out[i] = 0.0;
    }
    for (int i = 0; i < beams; ++i)
    {
        double r = scan->ranges[i];
        out[i] = isfinite(r) && scan->rangeMax > 0.0 ? lsFmin(lsFmax(r / scan->rangeMax, 0.0), 1.0) : 1.0;
        out[beams + i * ls_seenCount + Seen(scene, scan->kinds[i], scan->indices[i])] = 1.0;
    }
    out[size - 2] = state->v / robot->maxSpeed;
    out[size - 1] = state->w / robot->maxTurnRate;
    return size;
}

static lsAgentStep StepWith(lsAgent* agent, const lsControl* control)
{
    const lsSimState* state = lsSim_GetState(agent->sim);
    double score = state->score;
    int collisions = state->collisions;
    for (int k = 0;; ++k)
    {
        lsSim_Step(agent->sim, control);
        bool enough = agent->def.simStepsPerAction > 0 ? k + 1 >= agent->def.simStepsPerAction : state->scanned;
        if (enough)
        {
            break;
        }
    }
    agent->steps += 1;
    lsAgentStep result;
    result.reward = (state->score - score) + agent->def.collisionPenalty * (double)(state->collisions - collisions);
    result.done = agent->steps >= agent->def.maxSteps;
    return result;
}

lsAgentStep lsAgent_Step(lsAgent* agent, lsAction action)
{
    LS_ASSERT(agent != NULL && (int)action >= 0 && action < ls_actionCount);
    lsControl control = lsMakeActionControl(action);
    return StepWith(agent, &control);
}

lsAgentStep lsAgent_StepContinuous(lsAgent* agent, double v, double w)
{
    LS_ASSERT(agent != NULL && isfinite(v) && isfinite(w));
    lsControl control = lsMakeManualControl(v, w);
    return StepWith(agent, &control);
}

int lsAgent_StepCount(const lsAgent* agent)
{
    LS_ASSERT(agent != NULL);
    return agent->steps;
}

const lsSim* lsAgent_GetSim(const lsAgent* agent)
{
    LS_ASSERT(agent != NULL);
    return agent->sim;
}

// ---------------------------------------------------------------------------------------------------------------------
// Several agents

int lsAgent_AgentCount(const lsAgent* agent)
{
    LS_ASSERT(agent != NULL);
    return agent->agentCount;
}

int lsAgent_AgentRobot(const lsAgent* agent, int k)
{
    if (agent == NULL || k < 0 || k >= agent->agentCount)
    {
        return -1;
    }
    return agent->agents[k];
}

// The multi-agent step once agent->controls[r] holds each agent robot r's control: the others follow their
// controllers (autopilot drives itself, manual and external stand still).
static lsAgentStep StepAgentsWith(lsAgent* agent, double* rewards)
{
    const lsSimState* state = lsSim_GetState(agent->sim);
    for (int i = 0; i < state->robotCount; ++i)
    {
        agent->scores[i] = state->robots[i].score;
        agent->collisions[i] = state->robots[i].collisions;
        agent->scanned[i] = false;
    }
    // Until every agent has a fresh scan (or simStepsPerAction steps), so every observation is new.
    for (int step = 0;; ++step)
    {
        lsSim_StepRobots(agent->sim, agent->controls);
        bool all = true;
        for (int k = 0; k < agent->agentCount; ++k)
        {
            int r = agent->agents[k];
            agent->scanned[r] = agent->scanned[r] || state->robots[r].scanned;
            all = all && agent->scanned[r];
        }
        if (agent->def.simStepsPerAction > 0 ? step + 1 >= agent->def.simStepsPerAction : all)
        {
            break;
        }
    }
    agent->steps += 1;
    lsAgentStep result = {0.0, agent->steps >= agent->def.maxSteps};
    for (int k = 0; k < agent->agentCount; ++k)
    {
        const lsRobotState* robot = &state->robots[agent->agents[k]];
        rewards[k] = (robot->score - agent->scores[agent->agents[k]]) +
                     agent->def.collisionPenalty * (double)(robot->collisions - agent->collisions[agent->agents[k]]);
        result.reward += rewards[k];
    }
    return result;
}

// The controls of the robots that are not agents.
static void FillOthers(lsAgent* agent)
{
    const lsWorld* world = lsSim_GetWorld(agent->sim);
    int robots = lsSim_GetState(agent->sim)->robotCount;
    for (int i = 0; i < robots; ++i)
    {
        bool autopilot = lsWorld_GetRobot(world, i)->controller == ls_controllerAutopilot;
        agent->controls[i] = autopilot ? lsMakeAutopilotControl() : lsMakeManualControl(0.0, 0.0);
    }
}

lsAgentStep lsAgent_StepAgents(lsAgent* agent, const lsAction* actions, double* rewards)
{
    LS_ASSERT(agent != NULL && actions != NULL && rewards != NULL);
    FillOthers(agent);
    for (int k = 0; k < agent->agentCount; ++k)
    {
        LS_ASSERT((int)actions[k] >= 0 && actions[k] < ls_actionCount);
        agent->controls[agent->agents[k]] = lsMakeActionControl(actions[k]);
    }
    return StepAgentsWith(agent, rewards);
}

lsAgentStep lsAgent_StepAgentsContinuous(lsAgent* agent, const double* commands, double* rewards)
{
    LS_ASSERT(agent != NULL && commands != NULL && rewards != NULL);
    FillOthers(agent);
    for (int k = 0; k < agent->agentCount; ++k)
    {
        const double* vw = commands + (size_t)2 * (size_t)k;
        LS_ASSERT(isfinite(vw[0]) && isfinite(vw[1]));
        agent->controls[agent->agents[k]] = lsMakeManualControl(vw[0], vw[1]);
    }
    return StepAgentsWith(agent, rewards);
}

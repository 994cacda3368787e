// lidarsim core: the agent interface, a thin layer over lsSim that turns scans into observation vectors and score
// changes into rewards.
#include "lidarsim/agent.h"

struct lsAgent
{
    lsSim* sim;
    lsAgentDef def;
    int steps;
};

lsAgentDef lsDefaultAgentDef(void)
{
    return (lsAgentDef){.maxSteps = 1000, .simStepsPerAction = 0, .collisionPenalty = 0.0};
}

lsAgent* lsCreateAgent(const lsWorld* world, const lsAgentDef* def)
{
    LS_ASSERT(world != NULL);
    lsAgent* agent = lsAllocZero(1, sizeof(lsAgent));
    agent->def = def != NULL ? *def : lsDefaultAgentDef();
    LS_ASSERT(agent->def.maxSteps > 0 && agent->def.simStepsPerAction >= 0);
    agent->sim = lsCreateSim(world);
    return agent;
}

void lsDestroyAgent(lsAgent* agent)
{
    if (agent == NULL)
    {
        return;
    }
    lsDestroySim(agent->sim);
    lsFree(agent, sizeof(lsAgent));
}

void lsAgent_Reset(lsAgent* agent, uint64_t seed)
{
    LS_ASSERT(agent != NULL);
    lsSim_Reset(agent->sim, seed);
    agent->steps = 0;
}

int lsAgent_ObservationSize(const lsAgent* agent)
{
    LS_ASSERT(agent != NULL);
    return lsSim_GetBeams(agent->sim) * (1 + ls_seenCount) + 2;
}

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
    LS_ASSERT(agent != NULL && out != NULL);
    int size = lsAgent_ObservationSize(agent);
    LS_ASSERT(capacity >= size);
    const lsScan* scan = lsSim_GetScan(agent->sim);
    const lsScene* scene = lsSim_GetScene(agent->sim);
    const lsRobotDef* robot = &lsSim_GetWorld(agent->sim)->robot;
    const lsRobotState* state = &lsSim_GetState(agent->sim)->robot;
    int beams = scan->count;
    for (int i = 0; i < size; ++i)
    {
        out[i] = 0.0;
    }
    for (int i = 0; i < beams; ++i)
    {
        double r = scan->ranges[i];
        out[i] = isfinite(r) && scan->rangeMax > 0.0 ? fmin(fmax(r / scan->rangeMax, 0.0), 1.0) : 1.0;
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

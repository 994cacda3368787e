// agent_demo: drives the robot through the agent interface (core/agent.h) with a small hand-written reflex
// policy, the kind of loop a learning agent would run: reset, observe, pick an action, step, collect the reward.
//
//   agent_demo [WORLD.json] [--episodes N] [--steps N] [--seed S]
//
// The policy reads only the observation vector: it heads for the nearest food in sight, swerves away from poison
// close ahead, and turns in place towards the freer side when something blocks the way.
#include "lidarsim/lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Picks a discrete action from an observation laid out as lsAgent_Observe documents.
static lsAction ReflexPolicy(const double* obs, int beams, const lsScanLayout* layout)
{
    double ahead = 1.0;             // nearest non-food return within 20 degrees of straight ahead (range / range_max)
    double left = 0.0, right = 0.0; // free space on each side
    double foodRange = 2.0, foodAngle = 0.0, poisonRange = 2.0, poisonAngle = 0.0;
    for (int i = 0; i < beams; ++i)
    {
        double angle = lsScanLayout_Angle(layout, i); // radians, 0 straight ahead, counter-clockwise positive
        double range = obs[i];                        // range / range_max in [0, 1]
        const double* seen = obs + beams + i * ls_seenCount;
        if (seen[ls_seenFood] > 0.0)
        {
            if (range < foodRange)
            {
                foodRange = range;
                foodAngle = angle;
            }
            continue;
        }
        if (seen[ls_seenPoison] > 0.0 && range < poisonRange)
        {
            poisonRange = range;
            poisonAngle = angle;
        }
        if (fabs(angle) < 0.35)
        {
            ahead = fmin(ahead, range);
        }
        if (angle > 0.0 && angle < 1.6)
        {
            left += range;
        }
        else if (angle < 0.0 && angle > -1.6)
        {
            right += range;
        }
    }
    if (ahead < 0.08)
    {
        return left >= right ? ls_actionLeft : ls_actionRight; // about to hit something: turn in place
    }
    if (poisonRange < 0.25 && fabs(poisonAngle) < 0.6)
    {
        return poisonAngle > 0.0 ? ls_actionForwardRight : ls_actionForwardLeft;
    }
    if (foodRange <= 1.0 && fabs(foodAngle) > 0.12)
    {
        return foodAngle > 0.0 ? ls_actionForwardLeft : ls_actionForwardRight;
    }
    return ls_actionForward;
}

int main(int argc, char** argv)
{
    const char* path = "worlds/default.json";
    int episodes = 3, steps = 600;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "--episodes") == 0 && i + 1 < argc)
        {
            episodes = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
        {
            steps = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
        {
            seed = strtoull(argv[++i], NULL, 10);
        }
        else if (argv[i][0] != '-')
        {
            path = argv[i];
        }
        else
        {
            fprintf(stderr, "usage: agent_demo [WORLD.json] [--episodes N] [--steps N] [--seed S]\n");
            return 2;
        }
    }
    if (episodes < 1 || steps < 1)
    {
        fprintf(stderr, "agent_demo: --episodes and --steps must be positive\n");
        return 2;
    }

    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    lsAgentDef def = lsDefaultAgentDef();
    def.maxSteps = steps;
    def.collisionPenalty = -0.1;
    lsAgent* agent = lsCreateAgent(world, &def);

    int size = lsAgent_ObservationSize(agent);
    double* obs = lsAlloc((size_t)size * sizeof(double));
    const lsWorld* w = lsSim_GetWorld(lsAgent_GetSim(agent));
    int beams = lsSim_GetBeams(lsAgent_GetSim(agent));
    lsScanLayout layout = lsMakeScanLayout(beams, w->robot.lidar.fov);
    printf("world %s: %d beams, observation of %d values, %d actions\n", w->name, beams, size, ls_actionCount);

    for (int episode = 0; episode < episodes; ++episode)
    {
        lsAgent_Reset(agent, seed + (unsigned long long)episode);
        double total = 0.0;
        int counts[ls_actionCount] = {0};
        bool done = false;
        while (!done)
        {
            lsAgent_Observe(agent, obs, size);
            lsAction action = ReflexPolicy(obs, beams, &layout);
            counts[action] += 1;
            lsAgentStep result = lsAgent_Step(agent, action);
            total += result.reward;
            done = result.done;
        }
        const lsSimState* state = lsSim_GetState(lsAgent_GetSim(agent));
        printf("episode %d (seed %llu): %d steps, %.1f s simulated, reward %.1f (food %d, poison %d, collisions %d), "
               "actions F/L/R/FL/FR/S %d/%d/%d/%d/%d/%d\n",
               episode, seed + (unsigned long long)episode, lsAgent_StepCount(agent), state->time, total, state->food,
               state->poison, state->collisions, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]);
    }

    lsFree(obs, (size_t)size * sizeof(double));
    lsDestroyAgent(agent);
    lsDestroyWorld(world);
    return 0;
}

// ls_bench_batch: the C side of python/bench.py. A vector of agents (lsVecEnv) stepped on 1 thread and on a pool,
// the plain agent loop (lsAgent_Step + lsAgent_Observe per agent, no vector) doing the same work, and a batch of
// scans from many random poses (lsWorldScanner_Scan). Prints one `key value` line per figure for scripts.
//
//   ls_bench_batch [--agents WORLD.json] [--envs 64] [--steps 1500] [--scans WORLD.json] [--poses 100000]
//                  [--beams 360] [--threads N]
#define _POSIX_C_SOURCE 200809L
#include "cli/clock.h"
#include "lidarsim/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The action of agent i at step s: the same deterministic pattern python/bench.py feeds.
static int32_t Action(int s, int i) { return (int32_t)((s / 7 + i) % ls_actionCount); }

// Agent steps per second of a vector of `envs` agents on `threads` threads: per CPU second on one thread (the fair
// measure on a shared machine), per wall-clock second on more (the pool's speed-up is a wall-clock figure).
static double BenchVector(const lsWorld* world, int envs, int steps, int threads)
{
    lsPool* pool = lsCreatePool(threads);
    lsVecEnvDef def = lsDefaultVecEnvDef();
    def.count = envs;
    lsVecEnv* env = lsCreateVecEnv(world, &def, pool, NULL);
    size_t size = (size_t)lsVecEnv_ObservationSize(env) * (size_t)envs;
    float* obs = lsAlloc(size * sizeof(float));
    float* finalObs = lsAlloc(size * sizeof(float));
    double* rewards = lsAlloc((size_t)envs * sizeof(double));
    uint8_t* truncated = lsAlloc((size_t)envs);
    int32_t* actions = lsAlloc((size_t)envs * sizeof(int32_t));
    lsVecEnv_Reset(env, 1, obs);
    double start = threads == 1 ? lsCpuSeconds() : lsNowSeconds();
    for (int s = 0; s < steps; ++s)
    {
        for (int i = 0; i < envs; ++i)
        {
            actions[i] = Action(s, i);
        }
        lsVecEnv_Step(env, actions, NULL, obs, rewards, truncated, finalObs);
    }
    double seconds = (threads == 1 ? lsCpuSeconds() : lsNowSeconds()) - start;
    lsFree(obs, size * sizeof(float));
    lsFree(finalObs, size * sizeof(float));
    lsFree(rewards, (size_t)envs * sizeof(double));
    lsFree(truncated, (size_t)envs);
    lsFree(actions, (size_t)envs * sizeof(int32_t));
    lsDestroyVecEnv(env);
    lsDestroyPool(pool);
    return (double)steps * (double)envs / seconds;
}

// The same work as a plain loop over lsAgent, one thread (per CPU second): step, observe, restart at the end of an
// episode.
static double BenchAgentLoop(const lsWorld* world, int envs, int steps)
{
    lsAgent** agents = lsAlloc((size_t)envs * sizeof(lsAgent*));
    for (int i = 0; i < envs; ++i)
    {
        agents[i] = lsCreateAgent(world, NULL);
        lsAgent_Reset(agents[i], 1 + (uint64_t)i);
    }
    int size = lsAgent_ObservationSize(agents[0]);
    double* obs = lsAlloc((size_t)size * sizeof(double));
    float* rows = lsAlloc((size_t)size * (size_t)envs * sizeof(float));
    double start = lsCpuSeconds();
    for (int s = 0; s < steps; ++s)
    {
        for (int i = 0; i < envs; ++i)
        {
            lsAgentStep r = lsAgent_Step(agents[i], (lsAction)Action(s, i));
            if (r.done)
            {
                lsAgent_Reset(agents[i], 1 + (uint64_t)i + (uint64_t)envs * (uint64_t)(s + 1));
            }
            lsAgent_Observe(agents[i], obs, size);
            for (int k = 0; k < size; ++k)
            {
                rows[(size_t)i * (size_t)size + (size_t)k] = (float)obs[k];
            }
        }
    }
    double seconds = lsCpuSeconds() - start;
    for (int i = 0; i < envs; ++i)
    {
        lsDestroyAgent(agents[i]);
    }
    lsFree(agents, (size_t)envs * sizeof(lsAgent*));
    lsFree(obs, (size_t)size * sizeof(double));
    lsFree(rows, (size_t)size * (size_t)envs * sizeof(float));
    return (double)steps * (double)envs / seconds;
}

// Rays per second of scans from `count` random poses over the world's bounds (per CPU second on one thread).
static double BenchScans(const lsWorld* world, int count, int beams, int threads)
{
    lsWorldScanner* scanner = lsCreateWorldScanner(world);
    lsAABB b = lsWorld_Bounds(world);
    lsRng rng = lsMakeRng(7);
    double* poses = lsAlloc((size_t)count * 3 * sizeof(double));
    for (int k = 0; k < count; ++k)
    {
        poses[3 * (size_t)k] = lsRng_Range(&rng, b.lower.x, b.upper.x);
        poses[3 * (size_t)k + 1] = lsRng_Range(&rng, b.lower.y, b.upper.y);
        poses[3 * (size_t)k + 2] = lsRng_Range(&rng, -180.0, 180.0);
    }
    size_t n = (size_t)count * (size_t)beams;
    double* ranges = lsAlloc(n * sizeof(double));
    lsScanOutput out = {ranges, NULL, NULL, NULL};
    lsScanOverrides overrides = {.beams = beams, .noise = -1.0};
    lsPool* pool = lsCreatePool(threads);
    double start = threads == 1 ? lsCpuSeconds() : lsNowSeconds();
    bool ok = lsWorldScanner_Scan(scanner, world, &overrides, poses, count, pool, &out, NULL, NULL);
    double seconds = (threads == 1 ? lsCpuSeconds() : lsNowSeconds()) - start;
    lsDestroyPool(pool);
    lsFree(ranges, n * sizeof(double));
    lsFree(poses, (size_t)count * 3 * sizeof(double));
    lsDestroyWorldScanner(scanner);
    return ok ? (double)n / seconds : 0.0;
}

static lsWorld* Load(const char* path)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
    }
    return world;
}

int main(int argc, char** argv)
{
    const char* agentsPath = "worlds/rldemo.json";
    const char* scansPath = "worlds/default.json";
    long long envs = 64, steps = 1500, poses = 100000, beams = 360, threads = 0;
    for (int i = 1; i < argc; i += 2) // every option takes a value
    {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (ok && strcmp(a, "--agents") == 0)
            agentsPath = v;
        else if (ok && strcmp(a, "--scans") == 0)
            scansPath = v;
        else if (ok && strcmp(a, "--envs") == 0)
            ok = lsParseInteger(v, 1, 100000, &envs);
        else if (ok && strcmp(a, "--steps") == 0)
            ok = lsParseInteger(v, 1, 100000000, &steps);
        else if (ok && strcmp(a, "--poses") == 0)
            ok = lsParseInteger(v, 0, 10000000, &poses);
        else if (ok && strcmp(a, "--beams") == 0)
            ok = lsParseInteger(v, 1, LS_MAX_BEAMS, &beams);
        else if (ok && strcmp(a, "--threads") == 0)
            ok = lsParseInteger(v, 0, 1024, &threads);
        else
            ok = false;
        if (!ok)
        {
            fprintf(stderr, "usage: ls_bench_batch [--agents WORLD] [--envs N] [--steps N] [--scans WORLD] "
                            "[--poses N] [--beams N] [--threads N (0: every core)]\n");
            return 2;
        }
    }
    lsWorld* agentsWorld = Load(agentsPath);
    lsWorld* scansWorld = Load(scansPath);
    if (agentsWorld == NULL || scansWorld == NULL)
    {
        lsDestroyWorld(agentsWorld);
        return 1;
    }
    lsPool* probe = lsCreatePool((int)threads);
    int all = lsPool_ThreadCount(probe);
    lsDestroyPool(probe);
    printf("threads %d\n", all);
    printf("agent_loop_steps_per_s %.0f\n", BenchAgentLoop(agentsWorld, (int)envs, (int)steps));
    printf("vecenv_1_thread_steps_per_s %.0f\n", BenchVector(agentsWorld, (int)envs, (int)steps, 1));
    printf("vecenv_all_threads_steps_per_s %.0f\n", BenchVector(agentsWorld, (int)envs, (int)steps, all));
    if (poses > 0)
    {
        printf("scans_1_thread_rays_per_s %.0f\n", BenchScans(scansWorld, (int)poses, (int)beams, 1));
        printf("scans_all_threads_rays_per_s %.0f\n", BenchScans(scansWorld, (int)poses, (int)beams, all));
    }
    lsDestroyWorld(agentsWorld);
    lsDestroyWorld(scansWorld);
    return 0;
}

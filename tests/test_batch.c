// Tests of core/batch.h: batch scans and vectors of agents give the same bits on any number of threads, and agree
// with the single-scan and single-agent paths they are made of.
#include "lidarsim/batch.h"
#include "test.h"

#include <string.h>

static lsWorld* LoadShipped(const char* name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/worlds/%s.json", LS_SOURCE_DIR, name);
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
    }
    return world;
}

// Poses spread over the world's bounds (some inside walls and boxes, which is allowed).
static double* MakePoses(const lsWorld* world, int count, uint64_t seed)
{
    lsAABB b = lsWorld_Bounds(world);
    lsRng rng = lsMakeRng(seed);
    double* poses = lsAlloc((size_t)count * 3 * sizeof(double));
    for (int k = 0; k < count; ++k)
    {
        poses[3 * (size_t)k] = lsRng_Range(&rng, b.lower.x, b.upper.x);
        poses[3 * (size_t)k + 1] = lsRng_Range(&rng, b.lower.y, b.upper.y);
        poses[3 * (size_t)k + 2] = lsRng_Range(&rng, -180.0, 180.0);
    }
    return poses;
}

typedef struct Rows
{
    double* ranges;
    double* intensities;
    int8_t* kinds;
    int32_t* indices;
    size_t n;
} Rows;

static Rows MakeRows(size_t n)
{
    Rows r = {lsAlloc(n * sizeof(double)), lsAlloc(n * sizeof(double)), lsAlloc(n), lsAlloc(n * sizeof(int32_t)), n};
    return r;
}

static void FreeRows(Rows* r)
{
    lsFree(r->ranges, r->n * sizeof(double));
    lsFree(r->intensities, r->n * sizeof(double));
    lsFree(r->kinds, r->n);
    lsFree(r->indices, r->n * sizeof(int32_t));
}

static bool SameRows(const Rows* a, const Rows* b)
{
    return memcmp(a->ranges, b->ranges, a->n * sizeof(double)) == 0 &&
           memcmp(a->intensities, b->intensities, a->n * sizeof(double)) == 0 &&
           memcmp(a->kinds, b->kinds, a->n) == 0 && memcmp(a->indices, b->indices, a->n * sizeof(int32_t)) == 0;
}

// Every row equals the single scan lsLidar_ScanFrom casts from that pose, with noise drawn from one stream seeded by
// the def's seed and carried from scan to scan, as `lidarsim scan --poses` draws it.
static int ScanBatchMatchesSingleTest(void)
{
    lsWorld* world = LoadShipped("maze");
    ENSURE(world != NULL);
    lsWorldScanner* scanner = lsCreateWorldScanner(world);
    lsScanOverrides overrides = {.beams = 181, .noise = 0.02, .haveSeed = 1, .seed = 77};
    lsLidarDef def;
    ENSURE(lsMakeLidarDef(world, &overrides, &def, NULL));
    int count = 40;
    double* poses = MakePoses(world, count, 5);
    Rows rows = MakeRows((size_t)count * 181);
    lsScanOutput out = {rows.ranges, rows.intensities, rows.kinds, rows.indices};
    lsScanLayout layout;
    lsError err = {{0}};
    ENSURE(lsWorldScanner_Scan(scanner, world, &overrides, poses, count, NULL, &out, &layout, &err));
    ENSURE(layout.beams == 181 && layout.angleIncrement == lsMakeScanLayout(181, def.fov).angleIncrement);

    // The maze has no vehicles or moving walls (python/tests compares worlds with them against `lidarsim scan`).
    ENSURE(world->vehicleCount == 0 && world->moverCount == 0);
    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(181);
    lsRng stream = lsMakeRng(77);
    int noisy = 0;
    for (int k = 0; k < count; ++k)
    {
        double angle = lsDegToRad(poses[3 * (size_t)k + 2]);
        lsVec2 position = lsLidar_SensorPosition(&def, lsV(poses[3 * (size_t)k], poses[3 * (size_t)k + 1]), angle);
        lsLidar_ScanFrom(scene, NULL, &def, position, angle + def.mountAngle, &stream, scan);
        for (int i = 0; i < 181; ++i)
        {
            size_t at = (size_t)k * 181 + (size_t)i;
            // The same bits (signed zeros and all): compared as bytes on purpose.
            // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
            ENSURE(memcmp(&scan->ranges[i], &rows.ranges[at], sizeof(double)) == 0);
            ENSURE(scan->intensities[i] == rows.intensities[at]);
            ENSURE((int)scan->kinds[i] == (int)rows.kinds[at] && scan->indices[i] == rows.indices[at]);
        }
        // The noise really is on: the noiseless cast differs somewhere.
        lsLidar_ScanFrom(scene, NULL, &def, position, angle + def.mountAngle, NULL, scan);
        for (int i = 0; i < 181; ++i)
        {
            noisy += isfinite(scan->ranges[i]) && scan->ranges[i] != rows.ranges[(size_t)k * 181 + (size_t)i];
        }
    }
    ENSURE(noisy > 100);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    FreeRows(&rows);
    lsFree(poses, (size_t)count * 3 * sizeof(double));
    lsDestroyWorldScanner(scanner);
    lsDestroyWorld(world);
    return 0;
}

// One thread, two and five give the same bits; bad poses and overrides are refused with a message, nothing written.
// lsScanBatch takes headings in radians; a heading past the bound (1e6 degrees) is told in the bound's unit, every
// digit: it printed the radians against a bound in degrees.
static int ScanBatchBoundTest(void)
{
    lsWorld* world = LoadShipped("maze");
    ENSURE(world != NULL);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def;
    lsScanOverrides overrides = {.beams = 8, .noise = -1.0};
    ENSURE(lsMakeLidarDef(world, &overrides, &def, NULL));
    Rows rows = MakeRows(8);
    lsScanOutput out = {rows.ranges, rows.intensities, rows.kinds, rows.indices};
    lsError err = {{0}};
    double pose[3] = {5.0, 7.0, 20000.0}; // 1 145 916 degrees
    ENSURE(!lsScanBatch(scene, NULL, &def, pose, 1, NULL, &out, &err));
    char degrees[40], expected[256];
    lsFormatNumber(degrees, sizeof degrees, lsRadToDeg(20000.0));
    snprintf(expected, sizeof expected, "an angle in [-1e+06, 1e+06] deg, got (5, 7, %s)", degrees);
    ENSURE(strstr(err.message, expected) != NULL && strncmp(degrees, "11459", 5) == 0);
    pose[2] = 1.0;
    ENSURE(lsScanBatch(scene, NULL, &def, pose, 1, NULL, &out, &err));
    FreeRows(&rows);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int ScanBatchThreadsTest(void)
{
    lsWorld* world = LoadShipped("default");
    ENSURE(world != NULL);
    lsWorldScanner* scanner = lsCreateWorldScanner(world);
    lsScanOverrides overrides = {.beams = 360, .noise = 0.01, .haveSeed = 1, .seed = 3};
    int count = 700;
    double* poses = MakePoses(world, count, 9);
    Rows rows[3] = {MakeRows((size_t)count * 360), MakeRows((size_t)count * 360), MakeRows((size_t)count * 360)};
    int threads[3] = {1, 2, 5};
    for (int t = 0; t < 3; ++t)
    {
        lsPool* pool = lsCreatePool(threads[t]);
        lsScanOutput out = {rows[t].ranges, rows[t].intensities, rows[t].kinds, rows[t].indices};
        ENSURE(lsWorldScanner_Scan(scanner, world, &overrides, poses, count, pool, &out, NULL, NULL));
        lsDestroyPool(pool);
    }
    ENSURE(SameRows(&rows[0], &rows[1]) && SameRows(&rows[0], &rows[2]));

    lsError err = {{0}};
    lsScanOutput out = {rows[0].ranges, NULL, NULL, NULL};
    double before = rows[0].ranges[0];
    poses[3 * 17 + 1] = (double)NAN;
    ENSURE(!lsWorldScanner_Scan(scanner, world, &overrides, poses, count, NULL, &out, NULL, &err));
    ENSURE(strcmp(err.message, "poses[17]: expected three finite numbers") == 0);
    // Left untouched, bit for bit: compared as bytes on purpose.
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
    ENSURE(memcmp(&before, &rows[0].ranges[0], sizeof(double)) == 0);
    lsScanOverrides bad = {.beams = 100001, .noise = -1.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    ENSURE(strstr(err.message, "beams") != NULL);
    bad = (lsScanOverrides){.fov = 7.0, .noise = -1.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    ENSURE(strstr(err.message, "fov") != NULL);
    bad = (lsScanOverrides){.range = -2.0, .noise = -1.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    ENSURE(strstr(err.message, "range") != NULL);
    // The bounds `lidarsim scan` holds its flags to (limits.h), not only finiteness (review 28: Python scanned from
    // (1e308, 0) with a range and noise of 1e308).
    double farPoses[4][3] = {{1.1e6, 7.0, 0.0}, {5.0, -1e308, 0.0}, {5.0, 7.0, 1e308}, {5.0, 7.0, -1.1e6}};
    for (int k = 0; k < 4; ++k)
    {
        ENSURE(!lsWorldScanner_Scan(scanner, world, &overrides, farPoses[k], 1, NULL, &out, NULL, &err));
        ENSURE(strstr(err.message, "poses[0]: expected x and y each a coordinate in [-1e+06, 1e+06] m") != NULL);
    }
    // The numbers given, every digit: %g printed a heading of 1000001 degrees as 1e+06, inside the bound it missed.
    double pastBound[3] = {1e6, 1e6, 1000001.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &overrides, pastBound, 1, NULL, &out, NULL, &err));
    ENSURE(strcmp(err.message, "poses[0]: expected x and y each a coordinate in [-1e+06, 1e+06] m, and an angle in "
                               "[-1e+06, 1e+06] deg, got (1000000, 1000000, 1000001)") == 0);
    bad = (lsScanOverrides){.range = 1e308, .noise = -1.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    ENSURE(strstr(err.message, "range: expected a range in [0.0001, 1e+06] m") != NULL);
    bad = (lsScanOverrides){.range = 5e-5, .noise = -1.0};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    bad = (lsScanOverrides){.noise = 1e308};
    ENSURE(!lsWorldScanner_Scan(scanner, world, &bad, poses, 1, NULL, &out, NULL, &err));
    ENSURE(strstr(err.message, "noise: expected a distance in [0, 1e+06] m") != NULL);
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
    ENSURE(memcmp(&before, &rows[0].ranges[0], sizeof(double)) == 0);
    double edge[3] = {-1e6, 1e6, 1e6};
    bad = (lsScanOverrides){.range = 1e6, .noise = 1e6};
    ENSURE(lsWorldScanner_Scan(scanner, world, &bad, edge, 1, NULL, &out, NULL, &err));

    for (int t = 0; t < 3; ++t)
    {
        FreeRows(&rows[t]);
    }
    lsFree(poses, (size_t)count * 3 * sizeof(double));
    lsDestroyWorldScanner(scanner);
    lsDestroyWorld(world);
    return 0;
}

// Steps a vector of agents with a fixed action pattern; returns the rewards' sum and writes the final observations.
// *truncations counts the truncated flags; *endedAgrees is false if a step's return differed from its flags.
static double RunVector(const lsWorld* world, int threads, int count, int steps, float* obs, float* finalObs,
                        int* truncations, bool* endedAgrees)
{
    lsPool* pool = lsCreatePool(threads);
    lsVecEnvDef def = lsDefaultVecEnvDef();
    def.count = count;
    def.agent.maxSteps = 25;
    lsVecEnv* env = lsCreateVecEnv(world, &def, pool, NULL);
    lsVecEnv_Reset(env, 1000, obs);
    int32_t* actions = lsAlloc((size_t)count * sizeof(int32_t));
    double* rewards = lsAlloc((size_t)count * sizeof(double));
    uint8_t* truncated = lsAlloc((size_t)count);
    double total = 0.0;
    *truncations = 0;
    *endedAgrees = true;
    for (int s = 0; s < steps; ++s)
    {
        for (int i = 0; i < count; ++i)
        {
            actions[i] = (int32_t)((s / 7 + i) % ls_actionCount);
        }
        int ended = lsVecEnv_Step(env, actions, NULL, obs, rewards, truncated, finalObs);
        int flags = 0;
        for (int i = 0; i < count; ++i)
        {
            total += rewards[i];
            flags += truncated[i];
        }
        *truncations += flags;
        *endedAgrees = *endedAgrees && ended == flags;
    }
    lsFree(actions, (size_t)count * sizeof(int32_t));
    lsFree(rewards, (size_t)count * sizeof(double));
    lsFree(truncated, (size_t)count);
    lsDestroyVecEnv(env);
    lsDestroyPool(pool);
    return total;
}

// Whether two float arrays hold the same values (NaN never: observations are finite).
static bool SameFloats(const float* a, const float* b, size_t n)
{
    for (size_t k = 0; k < n; ++k)
    {
        if (a[k] != b[k])
        {
            return false;
        }
    }
    return true;
}

// lsVecEnv_ResetSeeded on the pool resets the agents its rows name as lsVecEnv_ResetOne does, one by one, and leaves
// the others (their rows of obs and their episodes) as they were: the whole vector, then every third agent after
// some steps.
static int ResetSeededTest(void)
{
    lsWorld* world = LoadShipped("rldemo");
    ENSURE(world != NULL);
    enum
    {
        count = 40
    };
    lsPool* pool = lsCreatePool(3);
    lsVecEnvDef def = lsDefaultVecEnvDef();
    def.count = count;
    def.agent.maxSteps = 1000;
    lsVecEnv* batch = lsCreateVecEnv(world, &def, pool, NULL);
    lsVecEnv* single = lsCreateVecEnv(world, &def, NULL, NULL);
    int size = lsVecEnv_ObservationSize(batch);
    size_t n = (size_t)count * (size_t)size;
    float* obs[2] = {lsAllocZero(n, sizeof(float)), lsAllocZero(n, sizeof(float))};
    uint64_t seeds[count];
    uint8_t rows[count];
    int32_t actions[count];
    for (int i = 0; i < count; ++i)
    {
        seeds[i] = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        rows[i] = (uint8_t)(i % 3 == 0);
        actions[i] = (int32_t)(i % ls_actionCount);
    }
    lsVecEnv_ResetSeeded(batch, seeds, NULL, obs[0]);
    for (int i = 0; i < count; ++i)
    {
        lsVecEnv_ResetOne(single, i, seeds[i], obs[1] + (size_t)i * (size_t)size);
    }
    ENSURE(SameFloats(obs[0], obs[1], n));
    for (int s = 0; s < 20; ++s)
    {
        lsVecEnv_Step(batch, actions, NULL, obs[0], NULL, NULL, NULL);
        lsVecEnv_Step(single, actions, NULL, obs[1], NULL, NULL, NULL);
    }
    for (int i = 0; i < count; ++i)
    {
        seeds[i] += 77;
        if (rows[i] != 0)
        {
            lsVecEnv_ResetOne(single, i, seeds[i], obs[1] + (size_t)i * (size_t)size);
        }
    }
    lsVecEnv_ResetSeeded(batch, seeds, rows, obs[0]);
    ENSURE(SameFloats(obs[0], obs[1], n));
    for (int i = 0; i < count; ++i)
    {
        ENSURE(lsVecEnv_EpisodeStep(batch, i) == (rows[i] != 0 ? 0 : 20));
    }
    lsVecEnv_Step(batch, actions, NULL, obs[0], NULL, NULL, NULL);
    lsVecEnv_Step(single, actions, NULL, obs[1], NULL, NULL, NULL);
    ENSURE(SameFloats(obs[0], obs[1], n));
    lsFree(obs[0], n * sizeof(float));
    lsFree(obs[1], n * sizeof(float));
    lsDestroyVecEnv(batch);
    lsDestroyVecEnv(single);
    lsDestroyPool(pool);
    lsDestroyWorld(world);
    return 0;
}

// A vector of agents on 1 and 3 threads gives the same observations, rewards and final observations, across
// automatic resets; agent i's episodes match a lone lsAgent seeded by the documented schedule.
static int VecEnvTest(void)
{
    lsWorld* world = LoadShipped("rldemo");
    ENSURE(world != NULL);
    int count = 6, steps = 60;
    lsAgent* probe = lsCreateAgent(world, NULL);
    int size = lsAgent_ObservationSize(probe);
    lsDestroyAgent(probe);
    size_t n = (size_t)count * (size_t)size;
    float* obs[2] = {lsAllocZero(n, sizeof(float)), lsAllocZero(n, sizeof(float))};
    float* finalObs[2] = {lsAllocZero(n, sizeof(float)), lsAllocZero(n, sizeof(float))};
    int truncations[2];
    bool agrees[2];
    double total[2];
    total[0] = RunVector(world, 1, count, steps, obs[0], finalObs[0], &truncations[0], &agrees[0]);
    total[1] = RunVector(world, 3, count, steps, obs[1], finalObs[1], &truncations[1], &agrees[1]);
    ENSURE(total[0] == total[1] && truncations[0] == truncations[1]);
    ENSURE(truncations[0] == count * 2); // 60 steps of 25-step episodes: two ends each
    ENSURE(agrees[0] && agrees[1]);      // each step returned the number of episodes that ended in it
    ENSURE(memcmp(obs[0], obs[1], n * sizeof(float)) == 0);
    ENSURE(memcmp(finalObs[0], finalObs[1], n * sizeof(float)) == 0);

    // Agent 4 is in its third episode (seed 1000 + 4 + 6 * 2) after 10 of its steps; its second ended at step 50.
    lsAgentDef def = lsDefaultAgentDef();
    def.maxSteps = 25;
    lsAgent* agent = lsCreateAgent(world, &def);
    double* one = lsAlloc((size_t)size * sizeof(double));
    lsAgent_Reset(agent, 1000 + 4 + 6 * 1);
    for (int s = 25; s < 50; ++s)
    {
        lsAgent_Step(agent, (lsAction)((s / 7 + 4) % ls_actionCount));
    }
    lsAgent_Observe(agent, one, size);
    for (int k = 0; k < size; ++k)
    {
        ENSURE(finalObs[0][4 * size + k] == (float)one[k]);
    }
    lsAgent_Reset(agent, 1000 + 4 + 6 * 2);
    for (int s = 50; s < 60; ++s)
    {
        lsAgent_Step(agent, (lsAction)((s / 7 + 4) % ls_actionCount));
    }
    lsAgent_Observe(agent, one, size);
    for (int k = 0; k < size; ++k)
    {
        ENSURE(obs[0][4 * size + k] == (float)one[k]);
    }
    lsFree(one, (size_t)size * sizeof(double));
    lsDestroyAgent(agent);

    // 70 agents in chunks that depend on the thread count (the first of 35 agents on 1 thread, 17 on 2, 2 on 16): the
    // same bits, and every step's return counts its truncated flags.
    int many = 70;
    size_t m = (size_t)many * (size_t)size;
    float* rows[3];
    float* finals[3];
    double sums[3];
    int ends[3];
    for (int t = 0; t < 3; ++t)
    {
        rows[t] = lsAllocZero(m, sizeof(float));
        finals[t] = lsAllocZero(m, sizeof(float));
        sums[t] = RunVector(world, t == 0 ? 1 : t == 1 ? 2 : 16, many, 30, rows[t], finals[t], &ends[t], &agrees[0]);
        ENSURE(agrees[0] && ends[t] == many); // 30 steps of 25-step episodes: one end each
        ENSURE(sums[t] == sums[0] && memcmp(rows[t], rows[0], m * sizeof(float)) == 0);
        ENSURE(memcmp(finals[t], finals[0], m * sizeof(float)) == 0);
    }
    for (int t = 0; t < 3; ++t)
    {
        lsFree(rows[t], m * sizeof(float));
        lsFree(finals[t], m * sizeof(float));
    }

    lsError err = {{0}};
    lsVecEnvDef bad = lsDefaultVecEnvDef();
    bad.count = 0;
    ENSURE(lsCreateVecEnv(world, &bad, NULL, &err) == NULL && strstr(err.message, "count") != NULL);
    bad = lsDefaultVecEnvDef();
    bad.agent.maxSteps = 0;
    ENSURE(lsCreateVecEnv(world, &bad, NULL, &err) == NULL && strstr(err.message, "max_steps") != NULL);

    for (int t = 0; t < 2; ++t)
    {
        lsFree(obs[t], n * sizeof(float));
        lsFree(finalObs[t], n * sizeof(float));
    }
    lsDestroyWorld(world);
    return 0;
}

// The per-robot snapshots a binding reads (lsWorld_GetRobotInfo, lsSim_GetRobotInfo, lsSim_CopyRobotScan) describe
// that robot, refuse an index out of range, and the continuous multi-agent step drives like the discrete one.
static int RobotInfoTest(void)
{
    lsWorld* world = LoadShipped("fleet");
    ENSURE(world != NULL);
    int robots = lsWorld_RobotCount(world);
    lsRobotInfo info;
    ENSURE(lsWorld_GetRobotInfo(world, robots - 2, &info));
    ENSURE(strcmp(info.id, "agent") == 0 && info.controller == ls_controllerExternal && info.beams == 360);
    ENSURE(info.pose[0] == 12.0 && info.pose[1] == 27.5 && info.reach == 0.3);
    ENSURE(!lsWorld_GetRobotInfo(world, robots, &info) && !lsWorld_GetRobotInfo(world, -1, &info));

    lsAgent* discrete = lsCreateAgent(world, NULL);
    lsAgent* continuous = lsCreateAgent(world, NULL);
    const lsRobotDef* def = lsWorld_GetRobot(world, lsAgent_AgentRobot(discrete, 0));
    double command[2] = {def->maxSpeed, 0.0};
    lsAction forward = ls_actionForward;
    double a = 0.0, b = 0.0;
    for (int k = 0; k < 15; ++k)
    {
        lsAgent_StepAgents(discrete, &forward, &a);
        lsAgent_StepAgentsContinuous(continuous, command, &b);
        ENSURE(a == b);
    }
    ENSURE(lsSim_Hash(lsAgent_GetSim(discrete)) == lsSim_Hash(lsAgent_GetSim(continuous)));

    const lsSim* sim = lsAgent_GetSim(discrete);
    int agentRobot = lsAgent_AgentRobot(discrete, 0);
    lsSimInfo mine, first;
    ENSURE(lsSim_GetRobotInfo(sim, agentRobot, &mine) && !lsSim_GetRobotInfo(sim, robots, &mine));
    lsSim_GetInfo(sim, &first);
    const lsRobotState* state = &lsSim_GetState(sim)->robots[agentRobot];
    ENSURE(mine.x == state->position.x && mine.v == state->v && mine.distance == state->distance);
    ENSURE(mine.distance > 1.0);
    ENSURE(mine.beams == 360 && first.beams == 720 && mine.time == first.time); // the forklift's 720 beams first
    double ranges[360];
    lsScanOutput out = {.ranges = ranges};
    ENSURE(lsSim_CopyRobotScan(sim, agentRobot, &out, 360) == 360 && lsSim_CopyRobotScan(sim, robots, &out, 360) == -1);
    for (int i = 0; i < 360; ++i)
    {
        ENSURE(ranges[i] == lsSim_GetRobotScan(sim, agentRobot)->ranges[i]);
    }
    lsDestroyAgent(discrete);
    lsDestroyAgent(continuous);
    lsDestroyWorld(world);
    return 0;
}

int ParallelBatchTest(void)
{
    RUN_SUBTEST(ScanBatchMatchesSingleTest);
    RUN_SUBTEST(ScanBatchThreadsTest);
    RUN_SUBTEST(ScanBatchBoundTest);
    RUN_SUBTEST(VecEnvTest);
    RUN_SUBTEST(ResetSeededTest);
    RUN_SUBTEST(RobotInfoTest);
    return 0;
}

// lidarsim core: batch scans and vectors of agents on a thread pool, and the flat snapshots bindings read.
// Each parallel task writes only its own rows and uses only its own worker's scratch, and the pool's chunks depend
// only on the item count, so the results are the same bits for one thread or many.
#include "lidarsim/batch.h"

#include "core/file_write.h"
#include "core/limits.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Flat snapshots

void lsWorld_GetInfo(const lsWorld* world, lsWorldInfo* info)
{
    LS_ASSERT(world != NULL && info != NULL);
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", world->name);
    info->segments = lsWorld_SegmentCount(world);
    info->targets = world->targetCount;
    for (int i = 0; i < world->targetCount; ++i)
    {
        info->food += world->targets[i].kind == ls_food ? 1 : 0;
    }
    info->poison = world->targetCount - info->food;
    info->boxes = world->boxCount;
    info->polygons = world->polygonCount;
    info->paths = world->pathCount;
    info->vehicles = world->vehicleCount;
    info->movers = world->moverCount;
    lsAABB bounds = lsWorld_Bounds(world);
    info->bounds[0] = bounds.lower.x;
    info->bounds[1] = bounds.lower.y;
    info->bounds[2] = bounds.upper.x;
    info->bounds[3] = bounds.upper.y;
    const lsRobotDef* robot = &world->robot;
    info->pose[0] = robot->position.x;
    info->pose[1] = robot->position.y;
    info->pose[2] = robot->angle;
    info->robotRadius = robot->radius;
    info->maxSpeed = robot->maxSpeed;
    info->maxTurnRate = robot->maxTurnRate;
    info->beams = robot->lidar.beams;
    info->fov = robot->lidar.fov;
    info->range = robot->lidar.range;
    info->rangeMin = robot->lidar.rangeMin;
    info->rate = robot->lidar.rate;
    info->noise = robot->lidar.noise;
    info->lidarSeed = robot->lidar.seed;
    info->dt = world->sim.dt;
    info->simSeed = world->sim.seed;
}

int lsWorldInfo_Size(void) { return (int)sizeof(lsWorldInfo); }

bool lsWorld_CheckOutput(const lsWorld* world, const char* worldPath, const char* output, lsError* err)
{
    LS_ASSERT(world != NULL && output != NULL);
    return lsCheckOutputNotInput(output, worldPath, "the world file", world->map.yamlFile, world->map.imageFile, err);
}

// The fields of lsSimInfo that are the same for every robot's view: time, step and the scan's layout.
static void FillSimInfo(const lsSim* sim, int robot, lsSimInfo* info)
{
    memset(info, 0, sizeof *info);
    const lsSimState* s = lsSim_GetState(sim);
    const lsScan* scan = lsSim_GetRobotScan(sim, robot);
    const lsRobotState* r = &s->robots[robot];
    info->time = s->time;
    info->step = s->step;
    info->x = r->position.x;
    info->y = r->position.y;
    info->angle = r->angle;
    info->v = r->v;
    info->w = r->w;
    info->beams = scan->count;
    info->angleMin = scan->layout.angleMin;
    info->angleMax = scan->layout.angleMax;
    info->angleIncrement = scan->layout.angleIncrement;
    info->rangeMin = scan->rangeMin;
    info->rangeMax = scan->rangeMax;
    info->scanTime = 1.0 / lsWorld_GetRobot(lsSim_GetWorld(sim), robot)->lidar.rate;
}

void lsSim_GetInfo(const lsSim* sim, lsSimInfo* info)
{
    LS_ASSERT(sim != NULL && info != NULL);
    FillSimInfo(sim, 0, info);
    const lsSimState* s = lsSim_GetState(sim);
    info->score = s->score;
    info->food = s->food;
    info->poison = s->poison;
    info->collisions = s->collisions;
    info->crushes = s->crushes;
    info->distance = s->distance;
    info->scanned = s->scanned ? 1 : 0;
}

bool lsSim_GetRobotInfo(const lsSim* sim, int robot, lsSimInfo* info)
{
    LS_ASSERT(sim != NULL && info != NULL);
    const lsSimState* s = lsSim_GetState(sim);
    if (robot < 0 || robot >= s->robotCount)
    {
        return false;
    }
    FillSimInfo(sim, robot, info);
    const lsRobotState* r = &s->robots[robot];
    info->score = r->score;
    info->food = r->food;
    info->poison = r->poison;
    info->collisions = r->collisions;
    info->crushes = r->crushes;
    info->distance = r->distance;
    info->scanned = r->scanned ? 1 : 0;
    return true;
}

bool lsWorld_GetRobotInfo(const lsWorld* world, int robot, lsRobotInfo* info)
{
    LS_ASSERT(world != NULL && info != NULL);
    if (robot < 0 || robot >= lsWorld_RobotCount(world))
    {
        return false;
    }
    memset(info, 0, sizeof *info);
    const lsRobotDef* def = lsWorld_GetRobot(world, robot);
    memcpy(info->id, def->id, sizeof info->id);
    info->controller = (int)def->controller;
    info->pose[0] = def->position.x;
    info->pose[1] = def->position.y;
    info->pose[2] = def->angle;
    info->reach = lsRobotDef_Reach(def);
    info->maxSpeed = def->maxSpeed;
    info->maxTurnRate = def->maxTurnRate;
    info->beams = def->lidar.beams;
    info->fov = def->lidar.fov;
    info->range = def->lidar.range;
    info->rangeMin = def->lidar.rangeMin;
    info->rate = def->lidar.rate;
    info->noise = def->lidar.noise;
    return true;
}

int lsRobotInfo_Size(void) { return (int)sizeof(lsRobotInfo); }

int lsSimInfo_Size(void) { return (int)sizeof(lsSimInfo); }

// Writes the first scan->count beams of scan into row `row` of out.
static void CopyRow(const lsScan* scan, const lsScanOutput* out, size_t row)
{
    size_t base = row * (size_t)scan->count;
    for (int i = 0; i < scan->count; ++i)
    {
        if (out->ranges != NULL)
        {
            out->ranges[base + (size_t)i] = scan->ranges[i];
        }
        if (out->intensities != NULL)
        {
            out->intensities[base + (size_t)i] = scan->intensities[i];
        }
        if (out->kinds != NULL)
        {
            out->kinds[base + (size_t)i] = (int8_t)scan->kinds[i];
        }
        if (out->indices != NULL)
        {
            out->indices[base + (size_t)i] = (int32_t)scan->indices[i];
        }
    }
}

int lsSim_CopyScan(const lsSim* sim, const lsScanOutput* out, int capacity)
{
    return lsSim_CopyRobotScan(sim, 0, out, capacity);
}

int lsSim_CopyRobotScan(const lsSim* sim, int robot, const lsScanOutput* out, int capacity)
{
    LS_ASSERT(sim != NULL && out != NULL);
    if (robot < 0 || robot >= lsSim_GetState(sim)->robotCount)
    {
        return -1;
    }
    const lsScan* scan = lsSim_GetRobotScan(sim, robot);
    LS_ASSERT(capacity >= scan->count);
    CopyRow(scan, out, 0);
    return scan->count;
}

// ---------------------------------------------------------------------------------------------------------------------
// Many scans

typedef struct ScanTask
{
    const lsScene* scene;
    const lsDynamicObjects* dyn;
    const lsLidarDef* def;
    const double* poses;
    bool degrees;         // poses' headings in degrees (converted as the command line converts them)
    const lsRng* streams; // pose k's noise stream; NULL when noiseless
    lsScan** scans;       // one per worker
    const lsScanOutput* out;
} ScanTask;

static void ScanChunk(void* context, int begin, int end, int worker)
{
    const ScanTask* task = context;
    lsScan* scan = task->scans[worker];
    for (int k = begin; k < end; ++k)
    {
        const double* pose = task->poses + (size_t)3 * (size_t)k;
        double angle = task->degrees ? lsDegToRad(pose[2]) : pose[2];
        lsVec2 position = lsLidar_SensorPosition(task->def, lsV(pose[0], pose[1]), angle);
        lsRng rng = task->streams != NULL ? task->streams[k] : lsMakeRng(0);
        lsLidar_ScanFrom(task->scene, task->dyn, task->def, position, angle + task->def->mountAngle,
                         task->streams != NULL ? &rng : NULL, scan);
        CopyRow(scan, task->out, (size_t)k);
    }
}

static bool ScanPoses(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, const double* poses,
                      int count, bool degrees, lsPool* pool, const lsScanOutput* out, lsError* err)
{
    LS_ASSERT(scene != NULL && def != NULL && out != NULL && count >= 0 && (poses != NULL || count == 0));
    if (def->beams < 1 || def->beams > LS_MAX_BEAMS)
    {
        return lsFail(err, "beams: expected an integer in [1, %d], got %d", LS_MAX_BEAMS, def->beams);
    }
    for (int k = 0; k < count; ++k)
    {
        const double* p = poses + (size_t)3 * (size_t)k;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        {
            return lsFail(err, "poses[%d]: expected three finite numbers", k);
        }
        // The bounds of a world file's poses and of `lidarsim scan --pose` (limits.h), for every caller alike.
        if (!lsLimit_Holds(ls_quantityCoordinate, p[0]) || !lsLimit_Holds(ls_quantityCoordinate, p[1]) ||
            !lsLimit_Holds(ls_quantityAngle, degrees ? p[2] : lsRadToDeg(p[2])))
        {
            // Every digit, as the command line prints them: %g showed 1000001 as 1e+06, within the bound it missed.
            // The heading in the bound's unit, degrees, whichever unit the poses came in.
            char where[96], turn[96], x[32], y[32], angle[32];
            lsFormatNumber(x, sizeof x, p[0]);
            lsFormatNumber(y, sizeof y, p[1]);
            lsFormatNumber(angle, sizeof angle, degrees ? p[2] : lsRadToDeg(p[2]));
            return lsFail(err, "poses[%d]: expected x and y each %s, and %s, got (%s, %s, %s)", k,
                          lsLimit_Describe(ls_quantityCoordinate, where, sizeof where),
                          lsLimit_Describe(ls_quantityAngle, turn, sizeof turn), x, y, angle);
        }
    }
    int workers = lsPool_ThreadCount(pool);
    lsScan** scans = lsAlloc((size_t)workers * sizeof(lsScan*));
    for (int i = 0; i < workers; ++i)
    {
        scans[i] = lsCreateScan(def->beams);
    }
    // One stream cut into consecutive pieces, one per pose (every scan draws the same amount), as `lidarsim scan`
    // cuts it: scan k gets the stream advanced by k scans, the same numbers as scanning one pose after the other.
    lsRng* streams = NULL;
    int draws = lsLidar_DrawsPerScan(def);
    if (draws > 0 && count > 0)
    {
        streams = lsAlloc((size_t)count * sizeof(lsRng));
        lsRng rng = lsMakeRng(def->seed);
        for (int k = 0; k < count; ++k)
        {
            streams[k] = rng;
            for (int n = 0; n < draws; ++n)
            {
                lsRng_Next(&rng);
            }
        }
    }
    ScanTask task = {scene, dyn, def, poses, degrees, streams, scans, out};
    // Chunks of about 4 000 rays (a 1080-beam scan per chunk, eleven of 360 beams): a chunk costs one atomic
    // increment against tens of microseconds of casting, and a batch of a few hundred scans still splits into enough
    // chunks that the threads finish together (chunks of 64 000 rays left 256 scans of 360 beams in two chunks, one
    // thread doing 177 scans and the other 79).
    int grain = def->beams >= 4000 ? 1 : 4000 / def->beams;
    lsPool_ParallelFor(pool, count, grain, ScanChunk, &task);
    for (int i = 0; i < workers; ++i)
    {
        lsDestroyScan(scans[i]);
    }
    lsFree(scans, (size_t)workers * sizeof(lsScan*));
    lsFree(streams, streams != NULL ? (size_t)count * sizeof(lsRng) : 0);
    return true;
}

bool lsScanBatch(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, const double* poses,
                 int count, lsPool* pool, const lsScanOutput* out, lsError* err)
{
    return ScanPoses(scene, dyn, def, poses, count, false, pool, out, err);
}

struct lsWorldScanner
{
    lsScene* scene;
    lsCircle* vehicles;
    int vehicleCount;
    lsSegment* movers;
    int moverCount;
};

lsWorldScanner* lsCreateWorldScanner(const lsWorld* world)
{
    LS_ASSERT(world != NULL);
    lsWorldScanner* scanner = lsAllocZero(1, sizeof(lsWorldScanner));
    scanner->scene = lsCreateScene(world);
    scanner->vehicleCount = world->vehicleCount;
    scanner->vehicles = lsAlloc((size_t)world->vehicleCount * sizeof(lsCircle));
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        scanner->vehicles[i] = (lsCircle){world->vehicles[i].position, world->vehicles[i].radius};
    }
    scanner->moverCount = world->moverCount;
    scanner->movers = lsAlloc((size_t)world->moverCount * sizeof(lsSegment));
    for (int i = 0; i < world->moverCount; ++i)
    {
        scanner->movers[i] = lsMover_SegmentAt(&world->movers[i], 0.0); // where the sim has them at time 0
    }
    return scanner;
}

void lsDestroyWorldScanner(lsWorldScanner* scanner)
{
    if (scanner == NULL)
    {
        return;
    }
    lsDestroyScene(scanner->scene);
    lsFree(scanner->vehicles, (size_t)scanner->vehicleCount * sizeof(lsCircle));
    lsFree(scanner->movers, (size_t)scanner->moverCount * sizeof(lsSegment));
    lsFree(scanner, sizeof(lsWorldScanner));
}

bool lsMakeLidarDef(const lsWorld* world, const lsScanOverrides* overrides, lsLidarDef* def, lsError* err)
{
    LS_ASSERT(world != NULL && def != NULL);
    *def = world->robot.lidar;
    if (overrides == NULL)
    {
        return true;
    }
    if (overrides->beams != 0)
    {
        if (overrides->beams < 1 || overrides->beams > LS_MAX_BEAMS)
        {
            return lsFail(err, "beams: expected an integer in [1, %d], got %d", LS_MAX_BEAMS, overrides->beams);
        }
        def->beams = overrides->beams;
    }
    if (overrides->fov != 0.0)
    {
        if (!lsLimit_Holds(ls_quantityFov, lsRadToDeg(overrides->fov)) && overrides->fov != 2.0 * LS_PI)
        {
            char bound[96], given[40];
            lsFormatNumber(given, sizeof given, lsRadToDeg(overrides->fov));
            return lsFail(err, "fov: expected %s, got %s", lsLimit_Describe(ls_quantityFov, bound, sizeof bound),
                          given);
        }
        def->fov = overrides->fov;
    }
    if (overrides->range != 0.0)
    {
        char bound[96];
        if (!lsLimit_Holds(ls_quantityRange, overrides->range))
        {
            return lsFail(err, "range: expected %s, got %g", lsLimit_Describe(ls_quantityRange, bound, sizeof bound),
                          overrides->range);
        }
        if (!(overrides->range > def->rangeMin))
        {
            return lsFail(err, "range: expected a range greater than the lidar's range_min %g, got %g", def->rangeMin,
                          overrides->range);
        }
        def->range = overrides->range;
    }
    if (!(overrides->noise < 0.0))
    {
        char bound[96];
        if (!lsLimit_Holds(ls_quantityDistance, overrides->noise))
        {
            return lsFail(err, "noise: expected %s, got %g", lsLimit_Describe(ls_quantityDistance, bound, sizeof bound),
                          overrides->noise);
        }
        def->noise = overrides->noise;
    }
    if (overrides->haveSeed)
    {
        def->seed = overrides->seed;
    }
    return true;
}

bool lsWorldScanner_Scan(const lsWorldScanner* scanner, const lsWorld* world, const lsScanOverrides* overrides,
                         const double* poses, int count, lsPool* pool, const lsScanOutput* out, lsScanLayout* layout,
                         lsError* err)
{
    LS_ASSERT(scanner != NULL && world != NULL);
    lsLidarDef def;
    if (!lsMakeLidarDef(world, overrides, &def, err))
    {
        return false;
    }
    if (layout != NULL)
    {
        *layout = lsMakeScanLayout(def.beams, def.fov);
    }
    lsDynamicObjects dyn = {.vehicles = scanner->vehicles,
                            .vehicleCount = scanner->vehicleCount,
                            .movers = scanner->movers,
                            .moverCount = scanner->moverCount,
                            .skipRobot = -1};
    // Without vehicles and movers no moving objects at all (NULL): lsLidar_ScanFrom gives an empty set the moving
    // objects' path (the beams' spans), which costs 2.5 times the static fan for the same answers (256 scans of 1080
    // beams on city-1k: 50 ms against 20).
    bool moving = scanner->vehicleCount + scanner->moverCount > 0;
    return ScanPoses(scanner->scene, moving ? &dyn : NULL, &def, poses, count, true, pool, out, err);
}

// ---------------------------------------------------------------------------------------------------------------------
// Many agents

struct lsVecEnv
{
    const lsWorld* world;
    lsVecEnvDef def;
    lsPool* pool;
    lsAgent** agents;
    uint64_t* seeds; // per agent: the seed its episode 0 had
    int* episodes;   // per agent: episodes started since that seed
    int observationSize;
    double* scratch; // one observation of doubles per worker
    int workers;
    // The step's chunks: chunk k holds the agents [chunkEnds[k] - its size, chunkEnds[k]), large first and shrinking
    // to one agent (see StepChunks).
    int* chunkEnds;
    int chunkCount;
};

// Splits count agents into chunks for workers threads and returns how many; writes their ends into ends when it is
// not NULL. Each chunk takes a 2 * workers-th of the agents still left, and at least one: large chunks first (few
// takes of the shared counter), single agents last, so the threads end within about one agent's step of each other
// for any thread count. An agent's step costs up to ten times another's (a robot against a wall runs the exact
// predicates); fixed chunks of 4 would give 64 agents on 16 threads one chunk each, the dearest of which sets the
// step. With 2 threads, 64 agents come in 15 chunks: 16 12 9 6 5 4 3 2 1 1 1 1 1 1 1; their 2-thread step measured
// 0.985 of fixed chunks of 4 (median of 1 555 paired rounds in quiet windows; 1.000 of 985 in another window). The
// thread that steps an agent never changes its results, so the chunks may depend on the thread count.
static int StepChunks(int count, int workers, int* ends)
{
    int chunks = 0;
    for (int begin = 0; begin < count; ++chunks)
    {
        int size = (count - begin) / (2 * workers);
        begin += size > 1 ? size : 1;
        if (ends != NULL)
        {
            ends[chunks] = begin;
        }
    }
    return chunks;
}

lsVecEnvDef lsDefaultVecEnvDef(void)
{
    return (lsVecEnvDef){.count = 1, .agent = lsDefaultAgentDef(), .autoReset = true};
}

lsVecEnv* lsCreateVecEnv(const lsWorld* world, const lsVecEnvDef* def, lsPool* pool, lsError* err)
{
    LS_ASSERT(world != NULL && def != NULL);
    if (def->count < 1 || def->count > 1000000)
    {
        return lsFailNull(err, "count: expected an integer in [1, 1000000], got %d", def->count);
    }
    if (def->agent.maxSteps < 1)
    {
        return lsFailNull(err, "max_steps: expected an integer >= 1, got %d", def->agent.maxSteps);
    }
    if (def->agent.simStepsPerAction < 0)
    {
        return lsFailNull(err, "sim_steps_per_action: expected an integer >= 0, got %d", def->agent.simStepsPerAction);
    }
    // A reward's bound (limits.h): a penalty of 1e308 made the reward of two collisions in one step infinite.
    if (!lsLimit_Holds(ls_quantityReward, def->agent.collisionPenalty))
    {
        char bound[96];
        return lsFailNull(err, "collision_penalty: expected %s, got %g",
                          lsLimit_Describe(ls_quantityReward, bound, sizeof bound), def->agent.collisionPenalty);
    }
    lsVecEnv* env = lsAllocZero(1, sizeof(lsVecEnv));
    env->world = world;
    env->def = *def;
    env->pool = pool;
    int n = def->count;
    env->agents = lsAlloc((size_t)n * sizeof(lsAgent*));
    env->seeds = lsAlloc((size_t)n * sizeof(uint64_t));
    env->episodes = lsAllocZero((size_t)n, sizeof(int));
    for (int i = 0; i < n; ++i)
    {
        env->agents[i] = lsCreateAgent(world, &def->agent);
        env->seeds[i] = world->sim.seed + (uint64_t)i;
    }
    env->observationSize = lsAgent_ObservationSize(env->agents[0]);
    env->workers = lsPool_ThreadCount(pool);
    env->scratch = lsAlloc((size_t)env->workers * (size_t)env->observationSize * sizeof(double));
    env->chunkCount = StepChunks(n, env->workers, NULL);
    env->chunkEnds = lsAlloc((size_t)env->chunkCount * sizeof(int));
    StepChunks(n, env->workers, env->chunkEnds);
    return env;
}

void lsDestroyVecEnv(lsVecEnv* env)
{
    if (env == NULL)
    {
        return;
    }
    int n = env->def.count;
    for (int i = 0; i < n; ++i)
    {
        lsDestroyAgent(env->agents[i]);
    }
    lsFree(env->agents, (size_t)n * sizeof(lsAgent*));
    lsFree(env->seeds, (size_t)n * sizeof(uint64_t));
    lsFree(env->episodes, (size_t)n * sizeof(int));
    lsFree(env->scratch, (size_t)env->workers * (size_t)env->observationSize * sizeof(double));
    lsFree(env->chunkEnds, (size_t)env->chunkCount * sizeof(int));
    lsFree(env, sizeof(lsVecEnv));
}

int lsVecEnv_Count(const lsVecEnv* env)
{
    LS_ASSERT(env != NULL);
    return env->def.count;
}

int lsVecEnv_ObservationSize(const lsVecEnv* env)
{
    LS_ASSERT(env != NULL);
    return env->observationSize;
}

// Agent i's observation as floats into row (observationSize floats), through the worker's scratch doubles.
static void ObserveInto(lsVecEnv* env, int i, int worker, float* row)
{
    double* scratch = env->scratch + (size_t)worker * (size_t)env->observationSize;
    lsAgent_Observe(env->agents[i], scratch, env->observationSize);
    for (int k = 0; k < env->observationSize; ++k)
    {
        row[k] = (float)scratch[k];
    }
}

static float* Row(const lsVecEnv* env, float* rows, int i) { return rows + (size_t)i * (size_t)env->observationSize; }

// Starts agent i's episode env->episodes[i] of its schedule.
static void StartEpisode(lsVecEnv* env, int i)
{
    uint64_t seed = env->seeds[i] + (uint64_t)env->def.count * (uint64_t)env->episodes[i];
    lsAgent_Reset(env->agents[i], seed);
}

typedef struct ResetTask
{
    lsVecEnv* env;
    float* obs;
    const uint8_t* rows; // the agents to reset (NULL: all)
} ResetTask;

static void ResetChunk(void* context, int begin, int end, int worker)
{
    const ResetTask* task = context;
    for (int i = begin; i < end; ++i)
    {
        if (task->rows == NULL || task->rows[i] != 0)
        {
            StartEpisode(task->env, i);
            ObserveInto(task->env, i, worker, Row(task->env, task->obs, i));
        }
    }
}

// obs is written (by the workers, through ResetTask), which the check does not follow.
// NOLINTNEXTLINE(readability-non-const-parameter)
void lsVecEnv_Reset(lsVecEnv* env, uint64_t seed, float* obs)
{
    LS_ASSERT(env != NULL && obs != NULL);
    for (int i = 0; i < env->def.count; ++i)
    {
        env->seeds[i] = seed + (uint64_t)i;
        env->episodes[i] = 0;
    }
    ResetTask task = {env, obs, NULL};
    lsPool_ParallelFor(env->pool, env->def.count, 16, ResetChunk, &task);
}

// obs is written (by the workers, through ResetTask), which the check does not follow.
// NOLINTNEXTLINE(readability-non-const-parameter)
void lsVecEnv_ResetSeeded(lsVecEnv* env, const uint64_t* seeds, const uint8_t* rows, float* obs)
{
    LS_ASSERT(env != NULL && seeds != NULL && obs != NULL);
    for (int i = 0; i < env->def.count; ++i)
    {
        if (rows == NULL || rows[i] != 0)
        {
            env->seeds[i] = seeds[i];
            env->episodes[i] = 0;
        }
    }
    ResetTask task = {env, obs, rows};
    lsPool_ParallelFor(env->pool, env->def.count, 16, ResetChunk, &task);
}

void lsVecEnv_ResetOne(lsVecEnv* env, int i, uint64_t seed, float* obsRow)
{
    LS_ASSERT(env != NULL && i >= 0 && i < env->def.count && obsRow != NULL);
    // Its schedule goes on from this seed: episode e gets seed + count * e.
    env->seeds[i] = seed;
    env->episodes[i] = 0;
    StartEpisode(env, i);
    ObserveInto(env, i, 0, obsRow);
}

typedef struct StepTask
{
    lsVecEnv* env;
    const int32_t* actions;
    const double* continuous;
    float* obs;
    double* rewards;
    uint8_t* truncated;
    float* finalObs;
    atomic_int ended; // agents whose episode ended in this step
} StepTask;

// Steps the agents of chunks [firstChunk, endChunk) (see StepChunks).
static void StepChunk(void* context, int firstChunk, int endChunk, int worker)
{
    StepTask* task = context;
    lsVecEnv* env = task->env;
    int begin = firstChunk > 0 ? env->chunkEnds[firstChunk - 1] : 0;
    int end = env->chunkEnds[endChunk - 1];
    for (int i = begin; i < end; ++i)
    {
        lsAgentStep result;
        if (task->continuous != NULL)
        {
            result = lsAgent_StepContinuous(env->agents[i], task->continuous[2 * (size_t)i],
                                            task->continuous[2 * (size_t)i + 1]);
        }
        else
        {
            result = lsAgent_Step(env->agents[i], (lsAction)task->actions[i]);
        }
        if (task->rewards != NULL)
        {
            task->rewards[i] = result.reward;
        }
        if (task->truncated != NULL)
        {
            task->truncated[i] = result.done ? 1 : 0;
        }
        if (result.done)
        {
            atomic_fetch_add_explicit(&task->ended, 1, memory_order_relaxed);
        }
        if (result.done && env->def.autoReset)
        {
            if (task->finalObs != NULL)
            {
                ObserveInto(env, i, worker, Row(env, task->finalObs, i));
            }
            env->episodes[i] += 1;
            StartEpisode(env, i);
        }
        ObserveInto(env, i, worker, Row(env, task->obs, i));
    }
}

// obs, rewards, truncated and finalObs are written (by the workers, through StepTask), which the check does not follow.
// NOLINTBEGIN(readability-non-const-parameter)
int lsVecEnv_Step(lsVecEnv* env, const int32_t* actions, const double* continuous, float* obs, double* rewards,
                  uint8_t* truncated, float* finalObs)
// NOLINTEND(readability-non-const-parameter)
{
    LS_ASSERT(env != NULL && obs != NULL && (actions != NULL || continuous != NULL));
    for (int i = 0; i < env->def.count; ++i)
    {
        LS_ASSERT(continuous != NULL ? isfinite(continuous[2 * (size_t)i]) && isfinite(continuous[2 * (size_t)i + 1])
                                     : actions[i] >= 0 && actions[i] < ls_actionCount);
    }
    StepTask task = {env, actions, continuous, obs, rewards, truncated, finalObs, 0};
    lsPool_ParallelFor(env->pool, env->chunkCount, 1, StepChunk, &task);
    return atomic_load_explicit(&task.ended, memory_order_relaxed);
}

const lsSim* lsVecEnv_GetSim(const lsVecEnv* env, int i)
{
    LS_ASSERT(env != NULL && i >= 0 && i < env->def.count);
    return lsAgent_GetSim(env->agents[i]);
}

int lsVecEnv_EpisodeStep(const lsVecEnv* env, int i)
{
    LS_ASSERT(env != NULL && i >= 0 && i < env->def.count);
    return lsAgent_StepCount(env->agents[i]);
}

// Fleet benchmark: the swarm world (1 000 robots with 360-beam lidars at 10 scans/s in a 100 m x 100 m arena with
// obstacles, written by scripts/gen_swarm.py) simulated on one thread and on every core, in simulated seconds per
// wall-clock second; then one robot's scan in the swarm against the same scan with no other robot in the arena.
// Prints figures (CSV with --csv); asserts nothing about time. Goals (issue 15): >= 5x real time on one core,
// 1.8x faster on 2 cores, a scan in the swarm <= 1.5x the scan alone.
#define _POSIX_C_SOURCE 200809L
#include "cli/clock.h"
#include "core/dynamic.h"
#include "core/sim_phases.h"
#include "lidarsim/pool.h"
#include "lidarsim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void PrintUsage(void)
{
    printf("usage: ls_bench_fleet [--world PATH] [--seconds S] [--warmup S] [--threads N] [--csv]\n"
           "Simulated seconds per wall second of a fleet world on 1 thread and on N (default: every core), and the\n"
           "cost of robot 0's scan among the others against alone.\n"
           "  --world PATH   the world (default bench/swarm.json; make one with scripts/gen_swarm.py)\n"
           "  --seconds S    simulated seconds to time per run (default 10)\n"
           "  --warmup S     simulated seconds before the clock starts (default 1; 50 for a long run's autopilots)\n"
           "  --threads N    the parallel run's threads (default 0: one per core)\n"
           "  --csv          print CSV: threads,robots,sim_seconds,wall_seconds,realtime,steps_per_s,hash\n");
}

// Wall seconds spent in each part of the step (core/sim_phases.h), from the sim's phase hook.
typedef struct PhaseClock
{
    double last;
    lsSimPhase phase;
    double seconds[ls_phaseCount];
} PhaseClock;

static void OnPhase(void* context, lsSimPhase phase)
{
    PhaseClock* clock = context;
    double now = lsNowSeconds();
    clock->seconds[clock->phase] += now - clock->last;
    clock->last = now;
    clock->phase = phase;
}

typedef struct Run
{
    double wall, cpu, simSeconds;
    long long steps;
    uint64_t hash;
    PhaseClock phases;
} Run;

static Run Simulate(const lsWorld* world, lsPool* pool, double seconds, double warmup)
{
    lsSim* sim = lsCreateSim(world);
    lsSim_SetPool(sim, pool);
    long long steps = (long long)(seconds / world->sim.dt + 0.5);
    // Warm-up first, so the robots are spread out and moving when the clock starts (and, after 48 s, their
    // autopilots remember a full trail, as in a long run).
    long long warm = (long long)(warmup / world->sim.dt + 0.5);
    for (long long k = 0; k < warm; ++k)
    {
        lsSim_StepRobots(sim, NULL);
    }
    PhaseClock phases = {0};
    lsSim_SetPhaseHook(sim, OnPhase, &phases);
    double t0 = lsNowSeconds(), c0 = lsCpuSeconds();
    for (long long k = 0; k < steps; ++k)
    {
        phases.last = lsNowSeconds();
        phases.phase = ls_phaseOther;
        lsSim_StepRobots(sim, NULL);
        OnPhase(&phases, ls_phaseOther);
    }
    Run run = {lsNowSeconds() - t0, lsCpuSeconds() - c0, (double)steps * world->sim.dt, steps, lsSim_Hash(sim), phases};
    lsDestroySim(sim);
    return run;
}

// Wall seconds per scan of robot 0 from where it stands after a second of simulation, through dyn.
static double ScanCost(const lsSim* sim, const lsDynamicObjects* dyn, int repeats, lsScan* scan)
{
    const lsRobotState* robot = &lsSim_GetState(sim)->robots[0];
    const lsLidarDef* lidar = &lsSim_GetWorld(sim)->robot.lidar;
    lsTransform pose = lsLidar_SensorPose(lidar, (lsTransform){robot->position, lsMakeRot(robot->angle)});
    double best = 1e30;
    for (int round = 0; round < 5; ++round)
    {
        double t0 = lsNowSeconds();
        for (int k = 0; k < repeats; ++k)
        {
            lsLidar_Scan(lsSim_GetScene(sim), dyn, lidar, pose, NULL, scan);
        }
        double t = (lsNowSeconds() - t0) / (double)repeats;
        best = t < best ? t : best;
    }
    return best;
}

// Milliseconds of wall time per step in each part, and each part's share.
static void PrintPhases(const char* label, const Run* run)
{
    static const char* names[ls_phaseCount] = {"other", "broad phase", "prepare", "turns", "lidar"};
    static const int order[ls_phaseCount] = {ls_phaseLidar, ls_phasePrepare, ls_phaseTurns, ls_phaseBroadPhase,
                                             ls_phaseOther};
    double total = 0.0;
    for (int p = 0; p < ls_phaseCount; ++p)
    {
        total += run->phases.seconds[p];
    }
    printf("  per step, %-8s:", label);
    for (int k = 0; k < ls_phaseCount; ++k)
    {
        int p = order[k];
        printf(" %s %.2f ms (%.0f%%)%s", names[p], 1e3 * run->phases.seconds[p] / (double)run->steps,
               total > 0.0 ? 100.0 * run->phases.seconds[p] / total : 0.0, k + 1 < ls_phaseCount ? "," : "\n");
    }
}

int main(int argc, char** argv)
{
    const char* path = "bench/swarm.json";
    double seconds = 10.0, warmup = 1.0;
    int threads = 0;
    bool csv = false;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
        {
            PrintUsage();
            return 0;
        }
        if (strcmp(argv[i], "--csv") == 0)
        {
            csv = true;
        }
        else if (i + 1 < argc && strcmp(argv[i], "--world") == 0)
        {
            path = argv[++i];
        }
        else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
        {
            if (!lsParseNumber(argv[++i], &seconds) || !(seconds > 0.0 && seconds <= 1e5))
            {
                fprintf(stderr, "ls_bench_fleet: --seconds: expected a number in (0, 1e5]\n");
                return 2;
            }
        }
        else if (i + 1 < argc && strcmp(argv[i], "--warmup") == 0)
        {
            if (!lsParseNumber(argv[++i], &warmup) || !(warmup >= 0.0 && warmup <= 1e5))
            {
                fprintf(stderr, "ls_bench_fleet: --warmup: expected a number in [0, 1e5]\n");
                return 2;
            }
        }
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
        {
            long long n;
            if (!lsParseInteger(argv[++i], 0, 1024, &n))
            {
                fprintf(stderr, "ls_bench_fleet: --threads: expected an integer in [0, 1024]\n");
                return 2;
            }
            threads = (int)n;
        }
        else
        {
            fprintf(stderr, "ls_bench_fleet: unknown argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    lsError err = {{0}};
    double t0 = lsNowSeconds();
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n(make the swarm world with: /usr/bin/python3 scripts/gen_swarm.py %s)\n", err.message,
                path);
        return 1;
    }
    double loadSeconds = lsNowSeconds() - t0;
    int robots = lsWorld_RobotCount(world);

    lsPool* pool = lsCreatePool(threads);
    int poolThreads = lsPool_ThreadCount(pool);
    Run one = Simulate(world, NULL, seconds, warmup);
    Run many = Simulate(world, pool, seconds, warmup);
    lsDestroyPool(pool);

    // Robot 0's scan among the others (through the broad phase, as the sim casts) and with no other robot.
    lsSim* sim = lsCreateSim(world);
    for (int k = 0; k < (int)(1.0 / world->sim.dt + 0.5); ++k)
    {
        lsSim_StepRobots(sim, NULL);
    }
    lsScan* scan = lsCreateScan(world->robot.lidar.beams);
    lsDynamicObjects swarm = lsSim_GetDynamicObjects(sim);
    swarm.skipRobot = 0;
    lsDynamicIndex* index = lsCreateDynamicIndex();
    lsDynamicIndex_Build(index, &swarm);
    swarm.index = index;
    int seen = 0;
    lsLidar_Scan(
        lsSim_GetScene(sim), &swarm, &world->robot.lidar,
        lsLidar_SensorPose(&world->robot.lidar, (lsTransform){lsSim_GetState(sim)->robots[0].position,
                                                              lsMakeRot(lsSim_GetState(sim)->robots[0].angle)}),
        NULL, scan);
    for (int b = 0; b < scan->count; ++b)
    {
        seen += scan->kinds[b] == ls_hitRobot ? 1 : 0;
    }
    lsDynamicObjects alone = swarm;
    alone.robotCount = 0;
    alone.robots = NULL;
    alone.robotPolygons = NULL;
    alone.index = NULL;
    double inSwarm = ScanCost(sim, &swarm, 200, scan);
    double byItself = ScanCost(sim, &alone, 200, scan);
    int nx, ny;
    double cell;
    lsDynamicIndex_GetInfo(index, &nx, &ny, &cell);
    lsDestroyDynamicIndex(index);
    lsDestroyScan(scan);
    lsDestroySim(sim);

    if (csv)
    {
        printf("threads,robots,sim_seconds,wall_seconds,realtime,steps_per_s,hash\n");
        printf("1,%d,%.3f,%.4f,%.3f,%.1f,%016llx\n", robots, one.simSeconds, one.wall, one.simSeconds / one.wall,
               (double)one.steps / one.wall, (unsigned long long)one.hash);
        printf("%d,%d,%.3f,%.4f,%.3f,%.1f,%016llx\n", poolThreads, robots, many.simSeconds, many.wall,
               many.simSeconds / many.wall, (double)many.steps / many.wall, (unsigned long long)many.hash);
    }
    else
    {
        printf("%s: %d robots, %d beams at %g scans/s, dt %g s (loaded in %.3f s)\n", path, robots,
               world->robot.lidar.beams, world->robot.lidar.rate, world->sim.dt, loadSeconds);
        printf("1 thread:   %.2f simulated s per wall s, %.2f per cpu s (%.0f steps/s; %.1f s simulated in %.2f s "
               "wall, %.2f s cpu)\n",
               one.simSeconds / one.wall, one.simSeconds / one.cpu, (double)one.steps / one.wall, one.simSeconds,
               one.wall, one.cpu);
        printf("%d threads: %.2f simulated s per wall s, %.2f per cpu s (%.0f steps/s; %.2f s wall, %.2f s cpu), "
               "%.2fx the 1-thread speed\n",
               poolThreads, many.simSeconds / many.wall, many.simSeconds / many.cpu, (double)many.steps / many.wall,
               many.wall, many.cpu, one.wall / many.wall);
        PrintPhases("1 thread", &one);
        PrintPhases("threads", &many);
        printf("same state on 1 and %d threads: %s (hash %016llx)\n", poolThreads, one.hash == many.hash ? "yes" : "NO",
               (unsigned long long)one.hash);
        printf("robot 0's scan: %.1f us in the swarm (%d beams on robots; grid %d x %d cells of %.2f m), %.1f us alone:"
               " %.2fx\n",
               inSwarm * 1e6, seen, nx, ny, cell, byItself * 1e6, inSwarm / byItself);
    }
    lsDestroyWorld(world);
    return one.hash == many.hash ? 0 : 1;
}

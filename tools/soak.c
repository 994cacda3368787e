// ls_soak WORLD.json --steps N [--every K] [--seed S] [--progress P] [--keep-going] [--quiet]
// A headless soak run: steps the world with the autopilot, checks the sim's invariants (src/core/invariants.h)
// every K steps (default every step), and prints peak resident memory (getrusage ru_maxrss) at step 10 000 and at
// the end, the core heap in use (lsAllocatedBytes, which must stay flat), and the speed in steps per second.
// Exit status: 0 when every check held, 1 at the first broken invariant (its step is printed), 2 for bad usage or a
// world that does not load. --keep-going runs on past broken invariants (printing the first 20 and a count), so the
// memory and speed figures of a full run can still be had while a known violation is being fixed; it still exits 1.
// SIGINT or SIGTERM ends the run after the step in progress with the usual summary ("interrupted ... after N steps"),
// so a soak too long for the time at hand still reports how far it got and whether the invariants held.
#define _POSIX_C_SOURCE 200809L

#include "cli/clock.h"
#include "core/invariants.h"
#include "lidarsim/sim.h"
#include "lidarsim/world.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

// Peak resident set size of this process so far, KiB (Linux reports ru_maxrss in KiB).
static long PeakRssKiB(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
    {
        return -1;
    }
    return usage.ru_maxrss;
}

// Set by SIGINT / SIGTERM: the loop stops after the current step and the summary is printed.
static volatile sig_atomic_t s_interrupted = 0;

static void OnSignal(int number)
{
    (void)number;
    s_interrupted = 1;
}

static int Usage(const char* message)
{
    if (message != NULL)
    {
        fprintf(stderr, "ls_soak: %s\n", message);
    }
    fprintf(stderr,
            "usage: ls_soak WORLD.json --steps N [--every K] [--seed S] [--progress P] [--keep-going] [--quiet]\n"
            "  Runs N steps with the autopilot, checking the invariants every K steps (default 1).\n"
            "  Prints peak RSS at step 10000 and at the end, and steps/s (also every P steps, default\n"
            "  100000). Exit 1 on a broken invariant (at the first one, or at the end with --keep-going).\n"
            "  SIGINT / SIGTERM stop the run early with the summary of the steps done.\n");
    return 2;
}

int main(int argc, char** argv)
{
    const char* path = NULL;
    long long steps = -1;
    long long every = 1;
    long long seed = -1;
    long long progress = 100000;
    bool quiet = false;
    bool keepGoing = false;
    for (int i = 1; i < argc; ++i)
    {
        const char* a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        {
            Usage(NULL);
            return 0;
        }
        if (strcmp(a, "--steps") == 0 || strcmp(a, "--every") == 0 || strcmp(a, "--seed") == 0 ||
            strcmp(a, "--progress") == 0)
        {
            long long v = 0;
            if (i + 1 >= argc || !lsParseInteger(argv[i + 1], 0, LLONG_MAX, &v))
            {
                return Usage("--steps, --every, --seed and --progress take a whole number >= 0");
            }
            ++i;
            long long* target = strcmp(a, "--steps") == 0   ? &steps
                                : strcmp(a, "--every") == 0 ? &every
                                : strcmp(a, "--seed") == 0  ? &seed
                                                            : &progress;
            *target = v;
        }
        else if (strcmp(a, "--quiet") == 0)
        {
            quiet = true;
        }
        else if (strcmp(a, "--keep-going") == 0)
        {
            keepGoing = true;
        }
        else if (a[0] == '-')
        {
            return Usage("unknown option");
        }
        else if (path == NULL)
        {
            path = a;
        }
        else
        {
            return Usage("more than one world file");
        }
    }
    if (path == NULL || steps < 0)
    {
        return Usage("a world file and --steps N are required");
    }
    if (every < 1 || progress < 1)
    {
        return Usage("--every and --progress must be at least 1");
    }

    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    lsSim* sim = lsCreateSim(world);
    if (seed >= 0)
    {
        lsSim_Reset(sim, (uint64_t)seed);
    }
    printf("soak: %s, %lld steps of %g s with the autopilot, invariants every %lld step%s\n", path, steps,
           world->sim.dt, every, every == 1 ? "" : "s");
    fflush(stdout);

    int status = 0;
    if (!lsSim_CheckInvariants(sim, &err))
    {
        printf("soak: FAILED at step 0 (before the first step): %s\n", err.message);
        status = 1;
    }
    long long rssAt10k = -1;
    long long heapAt10k = -1;
    const lsControl autopilot = lsMakeAutopilotControl();
    double start = lsNowSeconds();
    long long step = 0;
    long long violations = 0;
    signal(SIGINT, OnSignal);
    signal(SIGTERM, OnSignal);
    while ((status == 0 || keepGoing) && step < steps && !s_interrupted)
    {
        lsSim_Step(sim, &autopilot);
        ++step;
        if (step % every == 0 && !lsSim_CheckInvariants(sim, &err))
        {
            const lsSimState* s = lsSim_GetState(sim);
            if (++violations <= 20)
            {
                printf("soak: FAILED at step %lld (t = %.6f s): %s\n", step, s->time, err.message);
            }
            status = 1;
        }
        if (step == 10000)
        {
            rssAt10k = PeakRssKiB();
            heapAt10k = lsAllocatedBytes();
            printf("soak: step 10000: peak RSS %lld KiB, core heap %lld bytes\n", rssAt10k, heapAt10k);
            fflush(stdout);
        }
        if (!quiet && step % progress == 0)
        {
            double elapsed = lsNowSeconds() - start;
            printf("soak: step %lld: %.0f steps/s, peak RSS %ld KiB, core heap %lld bytes\n", step,
                   (double)step / elapsed, PeakRssKiB(), lsAllocatedBytes());
            fflush(stdout);
        }
    }
    double elapsed = lsNowSeconds() - start;
    const lsSimState* s = lsSim_GetState(sim);
    printf("soak: %s after %lld steps (%.1f simulated s) in %.2f s: %.0f steps/s\n",
           status != 0 ? "stopped" : (s_interrupted ? "interrupted (invariants held)" : "ok"), step, s->time, elapsed,
           elapsed > 0.0 ? (double)step / elapsed : 0.0);
    printf("soak: peak RSS at step 10000: %lld KiB, at the end: %ld KiB; core heap at step 10000: %lld bytes, at "
           "the end: %lld bytes\n",
           rssAt10k, PeakRssKiB(), heapAt10k, lsAllocatedBytes());
    if (violations > 0)
    {
        printf("soak: %lld steps broke an invariant\n", violations);
    }
    printf("soak: score %g, food %d, poison %d, collisions %d, distance %.1f m, hash %016" PRIx64 "\n", s->score,
           s->food, s->poison, s->collisions, s->distance, lsSim_Hash(sim));
    lsDestroySim(sim);
    lsDestroyWorld(world);
    if (lsAllocatedBytes() != 0)
    {
        printf("soak: FAILED: %lld bytes still allocated after destroying the sim and the world\n", lsAllocatedBytes());
        status = 1;
    }
    return status;
}

// Tests of pool.c: chunks independent of the thread count, every index exactly once, nested and repeated calls,
// destroy with idle workers. Also meant to run clean under ThreadSanitizer (cmake -DLS_SANITIZE_THREAD=ON).
#include "test.h"

#include "lidarsim/pool.h"

#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Whether this is ThreadSanitizer's build (GCC says so by __SANITIZE_THREAD__, clang by __has_feature).
#if defined(__SANITIZE_THREAD__)
#define LS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LS_TEST_TSAN 1
#endif
#endif
#ifndef LS_TEST_TSAN
#define LS_TEST_TSAN 0
#endif

#define POOL_TEST_COUNT 10007 // prime, so the last chunk is partial for every grain used

/// Per-index record of one run: how often it was visited and the chunk that contained it.
typedef struct PoolTestRun
{
    atomic_int visits[POOL_TEST_COUNT];
    int chunkBegin[POOL_TEST_COUNT];
    int chunkEnd[POOL_TEST_COUNT];
    double value[POOL_TEST_COUNT];
    atomic_int badWorker;
    int threadCount;
} PoolTestRun;

/// A result that depends on the chunk's bounds and on work done across the chunk in order (a running sum), so a
/// different split would change it.
static void RecordTask(void* context, int begin, int end, int worker)
{
    PoolTestRun* run = context;
    if (worker < 0 || worker >= run->threadCount)
    {
        atomic_fetch_add(&run->badWorker, 1);
    }
    double sum = 0.0;
    for (int i = begin; i < end; ++i)
    {
        atomic_fetch_add(&run->visits[i], 1);
        run->chunkBegin[i] = begin;
        run->chunkEnd[i] = end;
        sum += 1.0 / (1.0 + i);
        run->value[i] = sum;
    }
}

static PoolTestRun* NewRun(int threadCount)
{
    PoolTestRun* run = lsAllocZero(1, sizeof(PoolTestRun));
    run->threadCount = threadCount;
    return run;
}

static int SameResultsForAnyThreadCountTest(void)
{
    static const int grains[] = {1, 7, 64, 1000, POOL_TEST_COUNT, POOL_TEST_COUNT + 5};
    for (int g = 0; g < (int)(sizeof(grains) / sizeof(grains[0])); ++g)
    {
        PoolTestRun* reference = NewRun(1);
        lsPool_ParallelFor(NULL, POOL_TEST_COUNT, grains[g], RecordTask, reference);
        ENSURE(reference->badWorker == 0);
        for (int i = 0; i < POOL_TEST_COUNT; ++i)
        {
            ENSURE(reference->visits[i] == 1);
            ENSURE(reference->chunkBegin[i] == i / grains[g] * grains[g]);
            int end = reference->chunkBegin[i] + grains[g];
            ENSURE(reference->chunkEnd[i] == (end < POOL_TEST_COUNT ? end : POOL_TEST_COUNT));
        }
        static const int threadCounts[] = {1, 2, 3, 8};
        for (int t = 0; t < 4; ++t)
        {
            lsPool* pool = lsCreatePool(threadCounts[t]);
            ENSURE(lsPool_ThreadCount(pool) == threadCounts[t]);
            PoolTestRun* run = NewRun(threadCounts[t]);
            lsPool_ParallelFor(pool, POOL_TEST_COUNT, grains[g], RecordTask, run);
            ENSURE(run->badWorker == 0);
            for (int i = 0; i < POOL_TEST_COUNT; ++i)
            {
                ENSURE(run->visits[i] == 1);
            }
            ENSURE(memcmp(run->chunkBegin, reference->chunkBegin, sizeof(run->chunkBegin)) == 0);
            ENSURE(memcmp(run->chunkEnd, reference->chunkEnd, sizeof(run->chunkEnd)) == 0);
            for (int i = 0; i < POOL_TEST_COUNT; ++i)
            {
                ENSURE(run->value[i] == reference->value[i]); // the same sums in the same order: exactly equal
            }
            lsFree(run, sizeof(PoolTestRun));
            lsDestroyPool(pool);
        }
        lsFree(reference, sizeof(PoolTestRun));
    }
    return 0;
}

static void CountTask(void* context, int begin, int end, int worker)
{
    (void)worker;
    atomic_fetch_add((atomic_llong*)context, (long long)(end - begin));
}

static int EdgeCountsTest(void)
{
    lsPool* pool = lsCreatePool(3);
    atomic_llong total = 0;
    lsPool_ParallelFor(pool, 0, 10, CountTask, &total);
    lsPool_ParallelFor(pool, -5, 10, CountTask, &total);
    ENSURE(total == 0);
    lsPool_ParallelFor(pool, 1, 10, CountTask, &total);
    ENSURE(total == 1);
    lsPool_ParallelFor(pool, 100, 0, CountTask, &total); // grain 0 counts as 1
    ENSURE(total == 101);
    // The largest count with a grain that does not divide it: no overflow at the last chunk.
    total = 0;
    lsPool_ParallelFor(pool, INT32_MAX, INT32_MAX / 3 + 7, CountTask, &total);
    ENSURE(total == INT32_MAX);
    lsDestroyPool(pool);
    lsDestroyPool(NULL);
    ENSURE(lsPool_ThreadCount(NULL) == 1);
    // One per online core: at least one thread.
    lsPool* automatic = lsCreatePool(0);
    ENSURE(lsPool_ThreadCount(automatic) >= 1);
    lsDestroyPool(automatic);
    return 0;
}

/// An outer task that runs an inner ParallelFor on the same pool for each of its items.
typedef struct NestedContext
{
    lsPool* pool;
    atomic_int visits[64 * 50];
    atomic_int badWorker;
} NestedContext;

typedef struct InnerContext
{
    NestedContext* outer;
    int item;
    int worker;
} InnerContext;

static void InnerTask(void* context, int begin, int end, int worker)
{
    InnerContext* inner = context;
    if (worker != inner->worker)
    {
        atomic_fetch_add(&inner->outer->badWorker, 1); // nested calls run inline on the caller's worker
    }
    for (int i = begin; i < end; ++i)
    {
        atomic_fetch_add(&inner->outer->visits[inner->item * 50 + i], 1);
    }
}

static void OuterTask(void* context, int begin, int end, int worker)
{
    NestedContext* nested = context;
    for (int item = begin; item < end; ++item)
    {
        InnerContext inner = {nested, item, worker};
        lsPool_ParallelFor(nested->pool, 50, 3, InnerTask, &inner);
    }
}

static int NestedAndRepeatedCallsTest(void)
{
    lsPool* pool = lsCreatePool(3);
    NestedContext* nested = lsAllocZero(1, sizeof(NestedContext));
    nested->pool = pool;
    for (int repeat = 0; repeat < 200; ++repeat)
    {
        lsPool_ParallelFor(pool, 64, 1, OuterTask, nested);
    }
    ENSURE(nested->badWorker == 0);
    for (int i = 0; i < 64 * 50; ++i)
    {
        ENSURE(nested->visits[i] == 200);
    }
    // Many small jobs in a row: a worker must never miss a job or run one twice.
    atomic_llong total = 0;
    for (int repeat = 0; repeat < 2000; ++repeat)
    {
        lsPool_ParallelFor(pool, 5, 1, CountTask, &total);
    }
    ENSURE(total == 5LL * 2000);
    lsFree(nested, sizeof(NestedContext));
    lsDestroyPool(pool);
    return 0;
}

/// Threads of this process (entries of /proc/self/task), or -1 where there is no /proc.
static int ProcessThreadCount(void)
{
    DIR* dir = opendir("/proc/self/task");
    if (dir == NULL)
    {
        return -1;
    }
    int count = 0;
    for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir))
    {
        count += entry->d_name[0] != '.' ? 1 : 0;
    }
    closedir(dir);
    return count;
}

static int ThreadsSpawnedTest(void)
{
    int before = ProcessThreadCount();
    if (before < 0)
    {
        return 0; // no /proc: nothing to count
    }
    lsPool* single = lsCreatePool(1);
    ENSURE(ProcessThreadCount() == before); // one thread: the caller's, nothing started
    lsDestroyPool(single);
    lsPool* four = lsCreatePool(4);
    ENSURE(ProcessThreadCount() == before + 3); // the caller counts as one of the four
    lsDestroyPool(four);
    ENSURE(ProcessThreadCount() == before); // all joined
    return 0;
}

static int DestroyWithIdleWorkersTest(void)
{
    // Created and destroyed without any job, and after one job while the workers sleep.
    for (int threads = 1; threads <= 8; ++threads)
    {
        lsPool* pool = lsCreatePool(threads);
        lsDestroyPool(pool);
        pool = lsCreatePool(threads);
        atomic_llong total = 0;
        lsPool_ParallelFor(pool, 1000, 10, CountTask, &total);
        ENSURE(total == 1000);
        lsDestroyPool(pool);
    }
    return 0;
}

// The same sums at every index (exactly equal: the same additions in the same order).
static bool SameValues(const PoolTestRun* a, const PoolTestRun* b)
{
    for (int i = 0; i < POOL_TEST_COUNT; ++i)
    {
        if (a->value[i] != b->value[i])
        {
            return false;
        }
    }
    return true;
}

// The child's side of ForkTest: the parent's pool (no workers here) runs a job inline with the same results, is
// destroyed, and a pool made in the child runs one on threads of its own. 0 when all held.
static int ForkedChild(lsPool* inherited, const PoolTestRun* reference)
{
    alarm(20); // a job handed to workers that are not there would wait forever: fail instead
    PoolTestRun* run = NewRun(4);
    lsPool_ParallelFor(inherited, POOL_TEST_COUNT, 7, RecordTask, run);
    int bad = run->badWorker != 0 || !SameValues(run, reference);
    lsDestroyPool(inherited);
#if !LS_TEST_TSAN // ThreadSanitizer refuses to start threads in a child of a process that has some
    lsPool* fresh = lsCreatePool(3);
    memset(run, 0, sizeof(PoolTestRun));
    run->threadCount = 3;
    lsPool_ParallelFor(fresh, POOL_TEST_COUNT, 7, RecordTask, run);
    bad |= run->badWorker != 0 || !SameValues(run, reference);
    bad |= ProcessThreadCount() >= 0 && ProcessThreadCount() != 3; // the child's thread and the fresh pool's two
    lsDestroyPool(fresh);
#endif
    lsFree(run, sizeof(PoolTestRun));
    return bad;
}

static int ForkTest(void)
{
    // A process forked after its pool started (Python's multiprocessing, a DataLoader's workers) has the pool's
    // memory but not its threads.
    PoolTestRun* reference = NewRun(1);
    lsPool_ParallelFor(NULL, POOL_TEST_COUNT, 7, RecordTask, reference);
    lsPool* pool = lsCreatePool(4);
    atomic_llong total = 0;
    lsPool_ParallelFor(pool, 1000, 10, CountTask, &total); // the workers have run and now spin or sleep
    ENSURE(total == 1000);
    fflush(NULL);
    pid_t child = fork();
    ENSURE(child >= 0);
    if (child == 0)
    {
        _exit(ForkedChild(pool, reference));
    }
    int status = 0;
    ENSURE(waitpid(child, &status, 0) == child);
    ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    total = 0;
    lsPool_ParallelFor(pool, 1000, 10, CountTask, &total); // the parent's pool goes on with its workers
    ENSURE(total == 1000);
    lsDestroyPool(pool);
    lsFree(reference, sizeof(PoolTestRun));
    return 0;
}

int PoolTest(void)
{
    RUN_SUBTEST(SameResultsForAnyThreadCountTest);
    RUN_SUBTEST(EdgeCountsTest);
    RUN_SUBTEST(NestedAndRepeatedCallsTest);
    RUN_SUBTEST(ThreadsSpawnedTest);
    RUN_SUBTEST(DestroyWithIdleWorkersTest);
    RUN_SUBTEST(ForkTest);
    return 0;
}

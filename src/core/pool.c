// The thread pool: workers sleep on a condition variable, a ParallelFor hands them a job (the function, the item
// count, the grain) and every participant, the caller included, takes chunks from one atomic counter until none are
// left. Chunk k is always [k * grain, min(count, (k + 1) * grain)), whichever thread runs it.
#define _POSIX_C_SOURCE 200809L // sysconf(_SC_NPROCESSORS_ONLN)

#include "lidarsim/pool.h"

#include "lidarsim/base.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

// ThreadSanitizer (GCC 12 and clang 14) does not intercept the C11 thread functions: a thread made by thrd_create
// crashes inside the sanitizer's runtime. Under TSan alone the pool runs on the pthread calls that glibc's C11 threads
// are made of, so the same pool logic is checked; every other build uses <threads.h>.
#if defined(__SANITIZE_THREAD__)
#define LS_POOL_PTHREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LS_POOL_PTHREADS 1
#endif
#endif

#ifdef LS_POOL_PTHREADS
#include <pthread.h>
typedef pthread_t thrd_t;
typedef pthread_mutex_t mtx_t;
typedef pthread_cond_t cnd_t;
enum
{
    thrd_success = 0,
    mtx_plain = 0
};
static int mtx_init(mtx_t* m, int type)
{
    (void)type;
    return pthread_mutex_init(m, NULL);
}
#define mtx_lock pthread_mutex_lock
#define mtx_unlock pthread_mutex_unlock
#define mtx_destroy pthread_mutex_destroy
#define cnd_init(c) pthread_cond_init(c, NULL)
#define cnd_wait pthread_cond_wait
#define cnd_signal pthread_cond_signal
#define cnd_broadcast pthread_cond_broadcast
#define cnd_destroy pthread_cond_destroy
#define thrd_create(t, fcn, arg) pthread_create(t, NULL, fcn, arg)
#define thrd_join(t, result) pthread_join(t, result)
typedef void* lsThreadResult;
#else
#include <threads.h>
typedef int lsThreadResult;
#endif

/// More threads than this are never useful here and would only cost memory.
#define LS_POOL_MAX_THREADS 256

typedef struct lsPoolWorker
{
    lsPool* pool;
    int index; // 1 .. threadCount - 1 (0 is the caller's thread)
    thrd_t thread;
} lsPoolWorker;

struct lsPool
{
    int threadCount;
    lsPoolWorker* workers; // workerSlots of them, the first threadCount - 1 started
    int workerSlots;

    mtx_t callLock; // held by the outside thread whose ParallelFor is running: concurrent callers take turns
    mtx_t lock;     // guards everything below except nextChunk
    cnd_t wake;     // a new job (generation changed) or stop
    cnd_t done;     // running reached zero

    lsPoolTaskFcn* fcn;
    void* context;
    int count;
    int grain;
    int chunkCount;
    atomic_int nextChunk; // the next chunk to take; >= chunkCount when all are taken
    unsigned generation;  // incremented for every job so a worker runs each job once
    int running;          // workers that have not finished the current job
    bool stop;
};

// The pool whose task this thread is running and its worker index there, so a nested ParallelFor on the same pool
// runs inline instead of waiting for workers that are busy with the outer job (which would deadlock).
static _Thread_local lsPool* s_currentPool;
static _Thread_local int s_currentWorker;

static int lsChunkCount(int count, int grain) { return count / grain + (count % grain != 0 ? 1 : 0); }

/// Runs every chunk of [0, count) in order on this thread.
static void lsRunInline(int count, int grain, lsPoolTaskFcn* fcn, void* context, int worker)
{
    for (int begin = 0; begin < count; begin += grain)
    {
        int end = count - begin > grain ? begin + grain : count;
        fcn(context, begin, end, worker);
        if (end == count)
        {
            break; // begin + grain could overflow past INT_MAX
        }
    }
}

/// Takes chunks of the current job until none are left. The job fields are read without the lock: they were
/// written under it before this participant was woken and stay unchanged until every participant has finished.
static void lsRunChunks(lsPool* pool, int worker)
{
    lsPool* outerPool = s_currentPool;
    int outerWorker = s_currentWorker;
    s_currentPool = pool;
    s_currentWorker = worker;
    for (;;)
    {
        int chunk = atomic_fetch_add_explicit(&pool->nextChunk, 1, memory_order_relaxed);
        if (chunk >= pool->chunkCount)
        {
            break;
        }
        int begin = chunk * pool->grain;
        int end = pool->count - begin > pool->grain ? begin + pool->grain : pool->count;
        pool->fcn(pool->context, begin, end, worker);
    }
    s_currentPool = outerPool;
    s_currentWorker = outerWorker;
}

static lsThreadResult lsWorkerMain(void* arg)
{
    lsPoolWorker* self = arg;
    lsPool* pool = self->pool;
    unsigned seen = 0; // the pool starts at generation 0, before any worker runs
    mtx_lock(&pool->lock);
    for (;;)
    {
        while (!pool->stop && pool->generation == seen)
        {
            cnd_wait(&pool->wake, &pool->lock);
        }
        if (pool->stop)
        {
            break;
        }
        seen = pool->generation;
        mtx_unlock(&pool->lock);
        lsRunChunks(pool, self->index);
        mtx_lock(&pool->lock);
        pool->running -= 1;
        if (pool->running == 0)
        {
            cnd_signal(&pool->done);
        }
    }
    mtx_unlock(&pool->lock);
    return (lsThreadResult)0;
}

lsPool* lsCreatePool(int threadCount)
{
    if (threadCount <= 0)
    {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threadCount = online >= 1 && online <= LS_POOL_MAX_THREADS ? (int)online : 1;
    }
    if (threadCount > LS_POOL_MAX_THREADS)
    {
        threadCount = LS_POOL_MAX_THREADS;
    }
    lsPool* pool = lsAllocZero(1, sizeof(lsPool));
    pool->threadCount = 1;
    if (threadCount == 1)
    {
        return pool;
    }
    bool ok = mtx_init(&pool->callLock, mtx_plain) == thrd_success &&
              mtx_init(&pool->lock, mtx_plain) == thrd_success && cnd_init(&pool->wake) == thrd_success &&
              cnd_init(&pool->done) == thrd_success;
    LS_ASSERT(ok); // these only fail when the system is out of resources
    atomic_init(&pool->nextChunk, 0);
    pool->workers = lsAllocZero((size_t)(threadCount - 1), sizeof(lsPoolWorker));
    int started = 0;
    for (int i = 0; i < threadCount - 1; ++i)
    {
        pool->workers[i].pool = pool;
        pool->workers[i].index = i + 1;
        if (thrd_create(&pool->workers[i].thread, lsWorkerMain, &pool->workers[i]) != thrd_success)
        {
            break; // fewer threads than asked for still runs every task correctly
        }
        started += 1;
    }
    pool->workerSlots = threadCount - 1;
    pool->threadCount = started + 1;
    return pool;
}

void lsDestroyPool(lsPool* pool)
{
    if (pool == NULL)
    {
        return;
    }
    if (pool->workers != NULL)
    {
        mtx_lock(&pool->lock);
        pool->stop = true;
        cnd_broadcast(&pool->wake);
        mtx_unlock(&pool->lock);
        for (int i = 0; i < pool->threadCount - 1; ++i)
        {
            thrd_join(pool->workers[i].thread, NULL);
        }
        lsFree(pool->workers, (size_t)pool->workerSlots * sizeof(lsPoolWorker));
        cnd_destroy(&pool->done);
        cnd_destroy(&pool->wake);
        mtx_destroy(&pool->lock);
        mtx_destroy(&pool->callLock);
    }
    lsFree(pool, sizeof(lsPool));
}

int lsPool_ThreadCount(const lsPool* pool) { return pool != NULL ? pool->threadCount : 1; }

void lsPool_ParallelFor(lsPool* pool, int count, int grain, lsPoolTaskFcn* fcn, void* context)
{
    LS_ASSERT(fcn != NULL);
    if (count <= 0)
    {
        return;
    }
    if (grain < 1)
    {
        grain = 1;
    }
    if (pool == NULL || pool->threadCount == 1 || count <= grain)
    {
        lsRunInline(count, grain, fcn, context, pool != NULL && s_currentPool == pool ? s_currentWorker : 0);
        return;
    }
    if (s_currentPool == pool)
    {
        lsRunInline(count, grain, fcn, context, s_currentWorker);
        return;
    }
    mtx_lock(&pool->callLock);
    mtx_lock(&pool->lock);
    pool->fcn = fcn;
    pool->context = context;
    pool->count = count;
    pool->grain = grain;
    pool->chunkCount = lsChunkCount(count, grain);
    atomic_store_explicit(&pool->nextChunk, 0, memory_order_relaxed);
    pool->running = pool->threadCount - 1;
    pool->generation += 1;
    cnd_broadcast(&pool->wake);
    mtx_unlock(&pool->lock);

    lsRunChunks(pool, 0);

    mtx_lock(&pool->lock);
    while (pool->running > 0)
    {
        cnd_wait(&pool->done, &pool->lock);
    }
    mtx_unlock(&pool->lock);
    mtx_unlock(&pool->callLock);
}

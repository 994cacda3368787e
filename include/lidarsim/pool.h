// lidarsim core: a small thread pool for batch work (scans from many poses, fleets of lidars, vector environments).
// Built on C11 <threads.h>. The split of the work into chunks depends only on the item count and the grain, never on
// the thread count, so a task that writes only to its own items gives bit-identical results for any pool size.
#pragma once

#include "lidarsim/base.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// A fixed set of worker threads (opaque). Threads: lsPool_ParallelFor calls from several threads take turns.
typedef struct lsPool lsPool;

/// The most threads a pool has: more are never useful here and would only cost memory. `--threads` and Python's
/// threads= take at most this many (python/lidarsim/world.py's _MAX_THREADS repeats it).
#define LS_POOL_MAX_THREADS 256

/// Creates a pool of threadCount threads, the caller's thread counted as one of them (threadCount - 1 workers are
/// started). threadCount <= 0: one per online core (at most LS_POOL_MAX_THREADS); 1: no threads at all (everything
/// runs on the caller's thread); more than LS_POOL_MAX_THREADS: that many. Destroy with lsDestroyPool.
LS_API lsPool* lsCreatePool(int threadCount);
/// Stops and joins the workers and frees the pool. NULL allowed. Must not be called while a ParallelFor runs.
/// Fork: a child of fork() has none of its parent's pool threads; its copy of a pool runs every job inline on the
/// calling thread (the same results), and lsDestroyPool there frees it without joining.
LS_API void lsDestroyPool(lsPool* pool);
/// Threads the pool runs tasks on, the caller's included (>= 1); 1 for NULL.
LS_API int lsPool_ThreadCount(const lsPool* pool);

/// A task over items [begin, end); worker in [0, lsPool_ThreadCount) names the thread running it (for per-thread
/// scratch memory: no two chunks run at the same time with the same worker).
typedef void lsPoolTaskFcn(void* context, int begin, int end, int worker);

/// Runs fcn over [0, count) in chunks [begin, end) of at most `grain` items on the pool's threads (the
/// caller's thread included); returns when all are done. Chunks depend only on count and grain, never on
/// the thread count; worker is in [0, lsPool_ThreadCount) for per-thread scratch. pool NULL: runs inline.
/// A call from inside a task of the same pool runs inline on the calling thread with the caller's worker index;
/// calls from several outside threads at once take turns. count <= 0 does nothing; grain < 1 counts as 1.
LS_API void lsPool_ParallelFor(lsPool* pool, int count, int grain, lsPoolTaskFcn* fcn, void* context);

#ifdef __cplusplus
}
#endif

// lidarsim program, benchmarks and tools: the clocks. The core never reads one; what measures time includes this.
#pragma once

#include <time.h> // clock_gettime needs _POSIX_C_SOURCE >= 199309L, defined before the first include

/// Seconds on the monotonic clock (wall time, unaffected by clock changes).
static inline double lsNowSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// CPU seconds used by this process: on a shared, loaded machine the fairer measure of one core's throughput.
static inline double lsCpuSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// CPU seconds used by the calling thread (exact whenever it is read, unlike another thread's share of
/// lsCpuSeconds, which the kernel brings up to date only at its next tick or switch).
static inline double lsThreadCpuSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

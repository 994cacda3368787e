// lidarsim tests: one runner (ls_test SUITE), suites listed in suites.h, checks that report and fail the suite.
#pragma once

#include "core/base.h"

#include <math.h>
#include <stdio.h>

/// Fails the current test function with the location when c is false.
#define ENSURE(c)                                                                                                      \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(c))                                                                                                      \
        {                                                                                                              \
            fprintf(stderr, "%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__, #c);                                     \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/// Fails when |x| > tol (NaN fails too).
#define ENSURE_SMALL(x, tol)                                                                                           \
    do                                                                                                                 \
    {                                                                                                                  \
        double ensureValue_ = (x);                                                                                     \
        if (!(fabs(ensureValue_) <= (tol)))                                                                            \
        {                                                                                                              \
            fprintf(stderr, "%s:%d: ENSURE_SMALL failed: %s = %.17g (tol %g)\n", __FILE__, __LINE__, #x,              \
                    ensureValue_, (double)(tol));                                                                      \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/// Runs a test function, printing its name; returns from the suite with 1 when it fails.
#define RUN_SUBTEST(fn)                                                                                                \
    do                                                                                                                 \
    {                                                                                                                  \
        long long bytesBefore_ = lsAllocatedBytes();                                                                   \
        if ((fn)() != 0)                                                                                               \
        {                                                                                                              \
            fprintf(stderr, "  %s FAILED\n", #fn);                                                                     \
            return 1;                                                                                                  \
        }                                                                                                              \
        if (lsAllocatedBytes() != bytesBefore_)                                                                        \
        {                                                                                                              \
            fprintf(stderr, "  %s leaked %lld bytes\n", #fn, lsAllocatedBytes() - bytesBefore_);                      \
            return 1;                                                                                                  \
        }                                                                                                              \
        printf("  %s ok\n", #fn);                                                                                      \
    } while (0)

/// Fixture folder (tests/data), set by CMake.
#ifndef LS_TEST_DATA_DIR
#define LS_TEST_DATA_DIR "tests/data"
#endif
/// Source root (for worlds/), set by CMake.
#ifndef LS_SOURCE_DIR
#define LS_SOURCE_DIR "."
#endif

#define LS_SUITE(name) int name(void);
#include "suites.h"
#undef LS_SUITE

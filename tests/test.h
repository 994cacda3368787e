// lidarsim tests: one runner (ls_test SUITE), suites listed in suites.h, checks that report and fail the suite.
#pragma once

#include "lidarsim/base.h"
#include "lidarsim/vec.h"

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
            fprintf(stderr, "%s:%d: ENSURE_SMALL failed: %s = %.17g (tol %g)\n", __FILE__, __LINE__, #x, ensureValue_, \
                    (double)(tol));                                                                                    \
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
            fprintf(stderr, "  %s leaked %lld bytes\n", #fn, lsAllocatedBytes() - bytesBefore_);                       \
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

/// Calls visit(ctx, path, data, size) for every file in folder (names starting with '.' skipped), data holding the
/// file's first megabyte followed by a NUL. Stops at the first visit that returns non-zero and returns that; returns
/// 1 when the folder cannot be read. count (may be NULL) receives the number of files visited.
int lsTestForEachFile(const char* folder, int (*visit)(void* ctx, const char* path, char* data, size_t size), void* ctx,
                      int* count);

/// Front-end suites exist only in a build with the SDL front end (the runner's table and the declarations alike).
#ifdef LS_HAVE_APP
#define LS_APP_SUITE(name) LS_SUITE(name)
#else
#define LS_APP_SUITE(name)
#endif

#define LS_SUITE(name) int name(void);
#include "suites.h"
#undef LS_SUITE

/// A random point, x drawn before y: two draws as the arguments of one call (lsV(Rand(), Rand())) are evaluated in
/// an order the compiler chooses, so gcc and clang would test different points. The same goes for two draws in one
/// brace initializer or as the two operands of one operator; tests draw into locals, one draw per declarator or
/// statement (&&, ||, ?: and the end of a declarator order them too). Where a test draws y before x, that is the order
/// gcc used when the draws were one call's arguments (right to left), kept so that gcc builds the same cases.
static inline lsVec2 lsTestRandomPoint(lsRng* rng, double xLo, double xHi, double yLo, double yHi)
{
    double x = lsRng_Range(rng, xLo, xHi);
    double y = lsRng_Range(rng, yLo, yHi);
    return lsV(x, y);
}

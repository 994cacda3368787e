// Tests of base.c: the allocation counter and the seeded generator.
#include "test.h"

#include <string.h>

static int AllocCounterTest(void)
{
    long long before = lsAllocatedBytes();
    char* p = lsAlloc(100);
    ENSURE(lsAllocatedBytes() == before + 100);
    p = lsRealloc(p, 100, 300);
    ENSURE(lsAllocatedBytes() == before + 300);
    lsFree(p, 300);
    char* s = lsStrdup("lidar");
    ENSURE(strcmp(s, "lidar") == 0);
    lsFreeString(s);
    ENSURE(lsAllocatedBytes() == before);
    return 0;
}

static int RngTest(void)
{
    lsRng a = lsMakeRng(42), b = lsMakeRng(42), c = lsMakeRng(43);
    ENSURE(lsRng_Next(&a) == lsRng_Next(&b));
    ENSURE(lsRng_Next(&a) != lsRng_Next(&c));
    // Moments of the uniform and Gaussian streams from a fixed seed.
    lsRng r = lsMakeRng(7);
    double sum = 0.0, sumSq = 0.0;
    int n = 200000;
    for (int i = 0; i < n; ++i)
    {
        double u = lsRng_Uniform(&r);
        ENSURE(u >= 0.0 && u < 1.0);
        double g = lsRng_Gaussian(&r);
        ENSURE(isfinite(g));
        sum += g;
        sumSq += g * g;
    }
    ENSURE_SMALL(sum / n, 0.01);
    ENSURE_SMALL(sumSq / n - 1.0, 0.02);
    return 0;
}

static int FailTest(void)
{
    lsError err = {{0}};
    ENSURE(lsFail(&err, "%s:%d: bad", "a.json", 3) == false);
    ENSURE(strcmp(err.message, "a.json:3: bad") == 0);
    ENSURE(lsFailNull(NULL, "ignored") == NULL);
    return 0;
}

int BaseTest(void)
{
    RUN_SUBTEST(AllocCounterTest);
    RUN_SUBTEST(RngTest);
    RUN_SUBTEST(FailTest);
    return 0;
}

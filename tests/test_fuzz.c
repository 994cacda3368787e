// Every input the fuzzers ever crashed on, kept under tests/data/fuzz/, replayed through the same property check.
#include "test.h"

#include "../fuzz/world_check.h"

static int CheckWorldFile(void* ctx, const char* path, char* data, size_t size)
{
    (void)ctx;
    (void)path;
    return lsFuzzCheckWorld((const uint8_t*)data, size);
}

static int ReplayTest(void)
{
    int fuzz = 0, malformed = 0, worlds = 0;
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz", CheckWorldFile, NULL, &fuzz) == 0);
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/malformed", CheckWorldFile, NULL, &malformed) == 0);
    ENSURE(lsTestForEachFile(LS_SOURCE_DIR "/worlds", CheckWorldFile, NULL, &worlds) == 0);
    ENSURE(malformed > 10 && worlds >= 4);
    return 0;
}

int FuzzRegressionTest(void)
{
    RUN_SUBTEST(ReplayTest);
    return 0;
}

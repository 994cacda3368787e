// Every input the fuzzers ever crashed on, kept under tests/data/fuzz/, replayed through the same property check.
#include "test.h"

#include "../fuzz/map_check.h"
#include "../fuzz/pipeline_check.h"
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

static int CheckPipelineFile(void* ctx, const char* path, char* data, size_t size)
{
    (void)ctx;
    if (lsFuzzCheckPipeline((const uint8_t*)data, size) != 0)
    {
        fprintf(stderr, "  pipeline check failed on %s\n", path);
        return 1;
    }
    return 0;
}

// The whole pipeline (load, simulate, scan, JSON, draw) on every kept input: fuzz_pipeline's findings, the worlds
// at every bound (tests/data/limits), the shipped worlds and the loader fuzzer's corpus.
static int PipelineReplayTest(void)
{
    int findings = 0, limits = 0, worlds = 0, fuzz = 0;
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz_pipeline", CheckPipelineFile, NULL, &findings) == 0);
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/limits", CheckPipelineFile, NULL, &limits) == 0);
    ENSURE(lsTestForEachFile(LS_SOURCE_DIR "/worlds", CheckPipelineFile, NULL, &worlds) == 0);
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz", CheckPipelineFile, NULL, &fuzz) == 0);
    ENSURE(limits >= 30 && worlds >= 4);
    printf("    pipeline: %d findings, %d worlds at the bounds, %d shipped worlds, %d fuzz inputs\n", findings, limits,
           worlds, fuzz);
    return 0;
}

static int CheckMapFile(void* ctx, const char* path, char* data, size_t size)
{
    (void)ctx;
    (void)path;
    return lsFuzzCheckMap((const uint8_t*)data, size);
}

// The map readers on fuzz_map's seed corpus and its findings: every input decodes or fails with a named message,
// traces to well-formed walls, and frees every byte.
static int MapReplayTest(void)
{
    int seeds = 0, findings = 0;
    ENSURE(lsTestForEachFile(LS_SOURCE_DIR "/fuzz/map_corpus", CheckMapFile, NULL, &seeds) == 0);
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz_map", CheckMapFile, NULL, &findings) == 0);
    ENSURE(seeds >= 8);
    return 0;
}

int FuzzRegressionTest(void)
{
    RUN_SUBTEST(ReplayTest);
    RUN_SUBTEST(PipelineReplayTest);
    RUN_SUBTEST(MapReplayTest);
    return 0;
}

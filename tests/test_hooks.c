// The host's hooks (lidarsim/base.h): every byte the library allocates, cJSON's and libpng's included, goes through
// the allocator hook and comes back; a failed assert calls the assert hook, which may longjmp out, and the library
// aborts when a hook returns.
// POSIX for fork, pipe and dprintf.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include "core/alloc.h"

#include "lidarsim/lidarsim.h"

#include <cjson/cJSON.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int HooksTest(void);

// A host allocator that counts what it hands out and what comes back, and can be told to fail.
static long long s_allocCalls, s_freeCalls, s_liveBytes;
static size_t s_failAbove = SIZE_MAX;

static void* CountingAlloc(size_t size)
{
    if (size > s_failAbove)
    {
        return NULL;
    }
    ++s_allocCalls;
    s_liveBytes += (long long)size;
    return malloc(size);
}

static void CountingFree(void* memory, size_t size)
{
    ++s_freeCalls;
    s_liveBytes -= (long long)size;
    free(memory);
}

static void ResetCounts(void)
{
    s_allocCalls = s_freeCalls = s_liveBytes = 0;
    s_failAbove = SIZE_MAX;
}

// A 4 x 4 8-bit grey PNG: a black ring around four white pixels.
static const unsigned char s_ringPng[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x8c, 0x9a, 0xc1, 0xa2, 0x00, 0x00, 0x00, 0x11, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x83, 0xff, 0xff, 0x61, 0x04, 0x10, 0x00, 0x00, 0x27, 0xec, 0x03,
    0xfd, 0x00, 0xe3, 0x62, 0x73, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

// Loads, scans, simulates, saves and destroys a world, and decodes a PNG map, all through the counting allocator.
static int AllocatorHookTest(void)
{
    ResetCounts();
    ENSURE(!lsSetAllocator(CountingAlloc, NULL)); // half a pair is refused
    ENSURE(lsAllocatedBytes() == 0);
    ENSURE(lsSetAllocator(CountingAlloc, CountingFree));

    lsError err;
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/default.json", &err, NULL);
    ENSURE(world != NULL);
    ENSURE(s_allocCalls > 0 && s_liveBytes >= lsAllocatedBytes() && lsAllocatedBytes() > 0);
    ENSURE(!lsSetAllocator(NULL, NULL)); // blocks are out: they must go back to the allocator they came from

    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(LS_MAX_BEAMS);
    lsLidar_ScanFrom(scene, NULL, &world->robot.lidar, world->robot.position, 0.0, NULL, scan);
    ENSURE(scan->count > 0);
    lsSim* sim = lsCreateSim(world);
    lsControl control = lsMakeAutopilotControl();
    for (int i = 0; i < 200; ++i)
    {
        lsSim_Step(sim, &control);
    }
    char* saved = lsSaveWorldToString(world);
    ENSURE(saved != NULL);

    // cJSON's own nodes are counted too (the loader's tree is freed by now): a parse raises the counter, a delete
    // gives every byte back.
    long long beforeJson = lsAllocatedBytes();
    long long callsBeforeJson = s_allocCalls;
    cJSON* root = cJSON_Parse(saved);
    ENSURE(root != NULL);
    ENSURE(lsAllocatedBytes() > beforeJson && s_allocCalls > callsBeforeJson);
    cJSON_Delete(root);
    ENSURE(lsAllocatedBytes() == beforeJson);

    // libpng's reader and its buffers too.
    lsMapInfo info;
    const char* yaml = "image: ring.png\nresolution: 0.5\norigin: [0, 0, 0]\nnegate: 0\n"
                       "occupied_thresh: 0.65\nfree_thresh: 0.25\n";
    ENSURE(lsParseMapYaml(yaml, strlen(yaml), "ring.yaml", &info, &err));
    long long callsBeforePng = s_allocCalls;
    lsGrid grid;
    ENSURE(lsDecodeMapImage(s_ringPng, sizeof s_ringPng, "ring.png", &info, &grid, &err));
    ENSURE(s_allocCalls > callsBeforePng + 1); // more than the cells: libpng's structs
    ENSURE(grid.width == 4 && grid.height == 4 && grid.cells[0] == ls_cellWall && grid.cells[5] == ls_cellFree);
    lsFreeGrid(&grid);

    // The scene's index however big: its own mapping of huge pages is the default allocator's only.
    long long callsBeforeIndex = s_allocCalls;
    size_t indexBytes = (size_t)3 << 20;
    unsigned char* index = lsAllocIndex(indexBytes);
    ENSURE(s_allocCalls == callsBeforeIndex + 1 && s_liveBytes >= lsAllocatedBytes() && ((uintptr_t)index & 63) == 0);
    memset(index, 1, indexBytes);
    lsFreeIndex(index, indexBytes);

    lsFreeString(saved);
    lsDestroySim(sim);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);

    ENSURE(lsAllocatedBytes() == 0);
    ENSURE(s_allocCalls > 0 && s_allocCalls == s_freeCalls && s_liveBytes == 0);
    ENSURE(lsSetAllocator(NULL, NULL));
    return 0;
}

// An assert hook that records the failure and longjmps back into the test, as a host that recovers would.
static jmp_buf s_assertJump;
static char s_assertCondition[128], s_assertFile[256];
static int s_assertLine, s_assertCalls;

static void JumpingAssert(const char* condition, const char* file, int line)
{
    ++s_assertCalls;
    snprintf(s_assertCondition, sizeof s_assertCondition, "%s", condition);
    snprintf(s_assertFile, sizeof s_assertFile, "%s", file);
    s_assertLine = line;
    longjmp(s_assertJump, 1);
}

static bool EndsWith(const char* text, const char* suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

// A failed invariant inside the library (an element count whose size overflows, memory that runs out) calls the
// hook with its condition and location instead of aborting.
static int AssertHookTest(void)
{
    s_assertCalls = 0;
    lsAssertFcn* previous = lsSetAssertFcn(JumpingAssert);
    // Volatile: read after the longjmp back.
    volatile int reached = 0;
    if (setjmp(s_assertJump) == 0)
    {
        (void)lsAllocZero(SIZE_MAX / 2 + 1, 4);
        reached = 1;
    }
    ENSURE(reached == 0 && s_assertCalls == 1);
    ENSURE(strstr(s_assertCondition, "count * size") != NULL && EndsWith(s_assertFile, "alloc.c") && s_assertLine > 0);

    // Out of memory from the host's allocator goes through the same hook, with the size asked for.
    ResetCounts();
    ENSURE(lsSetAllocator(CountingAlloc, CountingFree));
    s_failAbove = 1000;
    if (setjmp(s_assertJump) == 0)
    {
        (void)lsAlloc(5000);
        reached = 1;
    }
    ENSURE(lsSetAllocator(NULL, NULL));
    ENSURE(reached == 0 && s_assertCalls == 2);
    ENSURE(strcmp(s_assertCondition, "out of memory allocating 5000 bytes") == 0);
    ENSURE(s_allocCalls == 0 && lsAllocatedBytes() == 0);

    ENSURE(lsSetAssertFcn(previous) == JumpingAssert);
    return 0;
}

static int s_logFd = -1;

static void LoggingAssert(const char* condition, const char* file, int line)
{
    (void)file;
    (void)line;
    dprintf(s_logFd, "logged: %s\n", condition);
}

// Runs a failing assert in a child process with the given hook (NULL: the default), its stderr into a pipe; true when
// the child died of SIGABRT. The child's output lands in text.
static bool AbortsInChild(lsAssertFcn* hook, char* text, size_t capacity)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        return false;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
    {
        close(fds[0]);
        dup2(fds[1], 2);
        s_logFd = fds[1];
        lsSetAssertFcn(hook);
        (void)lsAllocZero(SIZE_MAX / 2 + 1, 4);
        _exit(0); // not reached: the library aborts
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < capacity && (got = read(fds[0], text + used, capacity - 1 - used)) > 0)
    {
        used += (size_t)got;
    }
    text[used] = '\0';
    close(fds[0]);
    int status = 0;
    return child > 0 && waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

// The default hook prints file:line and aborts; a hook that only logs returns, and the library aborts after it.
static int AssertAbortTest(void)
{
    char text[1024];
    ENSURE(AbortsInChild(NULL, text, sizeof text));
    ENSURE(strstr(text, "alloc.c:") != NULL && strstr(text, ": assertion failed: count * size") != NULL);
    ENSURE(AbortsInChild(LoggingAssert, text, sizeof text));
    ENSURE(strstr(text, "logged: count * size") != NULL && strstr(text, "assertion failed") == NULL);
    return 0;
}

int HooksTest(void)
{
    RUN_SUBTEST(AllocatorHookTest);
    RUN_SUBTEST(AssertHookTest);
    RUN_SUBTEST(AssertAbortTest);
    return 0;
}

// The assert and allocator hooks (as box2d's b2SetAssertFcn and b2SetAllocator), the byte counter, and the adapters
// that route cJSON's and libpng's allocations through the same hook.
#define _DEFAULT_SOURCE // MADV_HUGEPAGE
#include "core/alloc.h"

#include <cjson/cJSON.h>

#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LS_MAPS_INDEX
#include <sys/mman.h>

static void KeepIndex(char* start, size_t length);
#endif

static void DefaultAssert(const char* condition, const char* file, int line)
{
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, condition);
    abort();
}

static void* DefaultAlloc(size_t size) { return malloc(size); }

static void DefaultFree(void* memory, size_t size)
{
    (void)size;
    free(memory);
}

// Atomic so that a thread reading a hook while another sets it at startup is defined behaviour (and TSan-clean).
static _Atomic(lsAssertFcn*) s_assertFcn = DefaultAssert;
static _Atomic(lsAllocFcn*) s_allocFcn = DefaultAlloc;
static _Atomic(lsFreeFcn*) s_freeFcn = DefaultFree;

// Atomic because tasks on the thread pool (lidarsim/pool.h) may allocate: += and -= on an _Atomic object are atomic.
static _Atomic long long s_allocatedBytes;

lsAssertFcn* lsSetAssertFcn(lsAssertFcn* assertFcn)
{
    return atomic_exchange(&s_assertFcn, assertFcn != NULL ? assertFcn : DefaultAssert);
}

void lsAssertFailed(const char* condition, const char* file, int line)
{
    lsAssertFcn* hook = atomic_load(&s_assertFcn);
    hook(condition, file, line);
    // A hook that returns only logged: the invariant is still broken, so the library stops here all the same.
    abort();
}

bool lsSetAllocator(lsAllocFcn* allocFcn, lsFreeFcn* freeFcn)
{
    if ((allocFcn == NULL) != (freeFcn == NULL) || s_allocatedBytes != 0)
    {
        return false;
    }
#if LS_MAPS_INDEX
    KeepIndex(NULL, 0); // the blocks after this come from the new hook
#endif
    atomic_store(&s_allocFcn, allocFcn != NULL ? allocFcn : DefaultAlloc);
    atomic_store(&s_freeFcn, freeFcn != NULL ? freeFcn : DefaultFree);
    return true;
}

// Out of memory goes through the assert hook, so a host that recovers from asserts recovers from this too; the
// message names the size, so it lives in a per-thread buffer (the hook may keep the pointer until it returns).
static _Noreturn void OutOfMemory(size_t size, const char* file, int line)
{
    static _Thread_local char message[80];
    snprintf(message, sizeof message, "out of memory allocating %zu bytes", size);
    lsAssertFailed(message, file, line);
}

void* lsAlloc(size_t size)
{
    // Zero-byte requests get one byte, so every lsAlloc is a distinct block; the counter still counts size.
    void* p = atomic_load(&s_allocFcn)(size > 0 ? size : 1);
    if (p == NULL)
    {
        OutOfMemory(size, __FILE__, __LINE__);
    }
    s_allocatedBytes += (long long)size;
    return p;
}

void* lsAllocZero(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
    {
        lsAssertFailed("count * size fits in size_t", __FILE__, __LINE__);
    }
    void* p = lsAlloc(count * size);
    memset(p, 0, count * size);
    return p;
}

void* lsRealloc(void* p, size_t oldSize, size_t newSize)
{
    if (p == NULL)
    {
        return lsAlloc(newSize);
    }
    if (atomic_load(&s_allocFcn) == DefaultAlloc)
    {
        void* q = realloc(p, newSize > 0 ? newSize : 1);
        if (q == NULL)
        {
            OutOfMemory(newSize, __FILE__, __LINE__);
        }
        s_allocatedBytes += (long long)newSize - (long long)oldSize;
        return q;
    }
    // A host allocator has no realloc: move the block.
    void* q = lsAlloc(newSize);
    memcpy(q, p, oldSize < newSize ? oldSize : newSize);
    lsFree(p, oldSize);
    return q;
}

void lsFree(void* p, size_t size)
{
    if (p == NULL)
    {
        return;
    }
    s_allocatedBytes -= (long long)size;
    atomic_load (&s_freeFcn)(p, size > 0 ? size : 1);
}

long long lsAllocatedBytes(void) { return s_allocatedBytes; }

// What an lsAllocIndex block from the allocator adds: up to 63 bytes to the next 64-byte boundary, then one line whose
// last bytes keep the block's start for lsFreeIndex.
#define LS_INDEX_SLACK (63 + 64)

#if LS_MAPS_INDEX
// Whether lsAllocIndex maps the block itself (the same answer at its free: the allocator cannot change while blocks
// are out, see lsSetAllocator).
static bool MapsIndex(size_t size) { return size >= LS_INDEX_MAP_MIN && atomic_load(&s_allocFcn) == DefaultAlloc; }

// The longest index mapping kept after its free (city-100k's is 28 MB).
#define LS_INDEX_KEEP_MAX ((size_t)64 << 20)

// The last index mapping freed, kept for the next index (NULL: none). A rebuilt scene (a hot reload, the benchmark's
// builds) then writes pages already backed instead of faulting and zeroing fresh ones: with a fresh mapping each
// time, city-100k's build took 11 ms instead of 8.6 (glibc reuses a freed heap block the same way). One is kept, the
// last of at most LS_INDEX_KEEP_MAX; a longer one is trimmed to the length asked for. lsSetAllocator gives it back.
static struct
{
    atomic_flag lock;
    char* start;
    size_t length;
} s_keptIndex = {ATOMIC_FLAG_INIT, NULL, 0};

static void LockKeptIndex(void)
{
    while (atomic_flag_test_and_set_explicit(&s_keptIndex.lock, memory_order_acquire))
    {
    }
}

static void UnlockKeptIndex(void) { atomic_flag_clear_explicit(&s_keptIndex.lock, memory_order_release); }

static size_t MappedLength(size_t size) { return (size + LS_HUGE_PAGE - 1) & ~(LS_HUGE_PAGE - 1); }

// Keeps the mapping at start (NULL: none) in place of the one kept, which goes back to the system.
static void KeepIndex(char* start, size_t length)
{
    LockKeptIndex();
    char* gone = s_keptIndex.start;
    size_t goneLength = s_keptIndex.length;
    s_keptIndex.start = start, s_keptIndex.length = length;
    UnlockKeptIndex();
    if (gone != NULL)
    {
        munmap(gone, goneLength);
    }
}

static char* MapIndex(size_t size)
{
    size_t length = MappedLength(size);
    LockKeptIndex();
    char* kept = s_keptIndex.start;
    size_t keptLength = s_keptIndex.length;
    bool fits = kept != NULL && keptLength >= length;
    if (fits)
    {
        s_keptIndex.start = NULL;
    }
    UnlockKeptIndex();
    if (fits)
    {
        if (keptLength > length)
        {
            munmap(kept + length, keptLength - length); // its free unmaps the rounded size's length
        }
        return kept;
    }
    // Mapped one huge page longer, then trimmed to an aligned start: the kernel backs the aligned huge pages of an
    // advised range by huge pages when they are first touched.
    char* map = mmap(NULL, length + LS_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
    {
        OutOfMemory(size, __FILE__, __LINE__);
    }
    size_t head = -(uintptr_t)map & (LS_HUGE_PAGE - 1);
    if (head > 0)
    {
        munmap(map, head);
    }
    munmap(map + head + length, LS_HUGE_PAGE - head);
    madvise(map + head, length, MADV_HUGEPAGE); // only advice: refused, the block is plain pages
    return map + head;
}
#endif

void* lsAllocIndex(size_t size)
{
    if (size > SIZE_MAX - 2 * LS_HUGE_PAGE)
    {
        lsAssertFailed("size + 2 LS_HUGE_PAGE fits in size_t", __FILE__, __LINE__);
    }
#if LS_MAPS_INDEX
    if (MapsIndex(size))
    {
        char* p = MapIndex(size);
        s_allocatedBytes += (long long)size;
        return p;
    }
#endif
    char* block = lsAlloc(size + LS_INDEX_SLACK);
    // Moved by the bytes to the boundary as a pointer, not rebuilt from an integer (which would lose what the compiler
    // knows of the block it points into).
    char* p = block + (-(uintptr_t)block & 63) + 64;
    memcpy(p - sizeof block, &block, sizeof block);
    return p;
}

void lsFreeIndex(void* p, size_t size)
{
    if (p == NULL)
    {
        return;
    }
#if LS_MAPS_INDEX
    if (MapsIndex(size))
    {
        s_allocatedBytes -= (long long)size;
        size_t length = MappedLength(size);
        if (length > LS_INDEX_KEEP_MAX)
        {
            munmap(p, length); // kept, a huge world's index would hold its memory while only small ones follow
            return;
        }
        KeepIndex(p, length);
        return;
    }
#endif
    char* block;
    memcpy(&block, (char*)p - sizeof block, sizeof block);
    lsFree(block, size + LS_INDEX_SLACK);
}

// A header in front of each block keeps its size, padded to the strictest alignment so the block after it stays
// aligned for any type.
#define LS_SIZE_HEADER ((sizeof(size_t) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))

void* lsAllocSized(size_t size)
{
    if (size > SIZE_MAX - LS_SIZE_HEADER)
    {
        return NULL;
    }
    char* block = lsAlloc(LS_SIZE_HEADER + size);
    memcpy(block, &size, sizeof size);
    return block + LS_SIZE_HEADER;
}

void lsFreeSized(void* p)
{
    if (p == NULL)
    {
        return;
    }
    char* block = (char*)p - LS_SIZE_HEADER;
    size_t size;
    memcpy(&size, block, sizeof size);
    lsFree(block, LS_SIZE_HEADER + size);
}

// cJSON's hooks are global to the process (libcjson is a shared library), so they are installed once, before main,
// and never changed: every cJSON block of the process then has a size header, whoever parsed it. Installing them
// later could free a block allocated before with malloc. cJSON copies the two pointers, so the struct may go.
__attribute__((constructor)) static void InstallJsonHooks(void)
{
    cJSON_Hooks hooks = {lsAllocSized, lsFreeSized};
    cJSON_InitHooks(&hooks);
}

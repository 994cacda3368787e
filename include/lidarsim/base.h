// lidarsim core: allocation with a byte counter, caller-owned errors, a seeded generator, asserts.
// Nothing here reads the clock or global state; every random number comes from an lsRng the caller owns.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Marks what the shared library exports: the core is compiled with hidden visibility, so only the declarations of
/// include/lidarsim/ are part of the ABI. On Windows a program using the DLL defines LS_DLL.
#if defined(_WIN32) && defined(LS_BUILDING)
#define LS_API __declspec(dllexport)
#elif defined(_WIN32) && defined(LS_DLL)
#define LS_API __declspec(dllimport)
#elif defined(__GNUC__)
#define LS_API __attribute__((visibility("default")))
#else
#define LS_API
#endif

#ifdef __cplusplus
extern "C"
{
#endif

/// The library's version (semantic versioning: the shared library's SONAME changes with major).
typedef struct lsVersion
{
    int major, minor, revision;
} lsVersion;

/// The version of the library the program runs with (the CMake project version it was built as).
LS_API lsVersion lsGetVersion(void);

// ---------------------------------------------------------------------------------------------------------------------
// Asserts: broken invariants inside the library. What a caller gives through the API (sizes, indices, files) is
// checked and reported through lsError instead (docs/library.md); an assert means a bug in lidarsim itself, or a
// caller breaking a documented rule it cannot be told about (a world changed under a live sim).

/// The assert hook: called with the failed condition and where it is. It may log and abort, or longjmp out of the
/// library (a test harness, a host that drops everything it made with lidarsim); if it returns, the library aborts,
/// since it cannot go on past a broken invariant.
typedef void lsAssertFcn(const char* condition, const char* file, int line);

/// Installs the assert hook and returns the previous one; NULL restores the default, which prints
/// "file:line: assertion failed: condition" to stderr and aborts. Set it at startup: it is read by every thread.
LS_API lsAssertFcn* lsSetAssertFcn(lsAssertFcn* assertFcn);

/// Checks an invariant in every build type (the checks are cheap and the simulator must not run on past one).
#define LS_ASSERT(c) ((c) ? (void)0 : lsAssertFailed(#c, __FILE__, __LINE__))
/// Calls the assert hook, then aborts if it returns; never returns (so analysers know a failed LS_ASSERT ends the
/// path).
LS_API void lsAssertFailed(const char* condition, const char* file, int line) __attribute__((noreturn));

// ---------------------------------------------------------------------------------------------------------------------
// Memory: all heap use goes through these so tests can assert that nothing leaked. cJSON (which the world loader
// uses) and libpng (PNG maps) allocate through them too; libyaml and libnetpbm have no allocator hooks, so their
// short-lived buffers while a map loads come from malloc and are not counted.

/// The allocator hook: returns size bytes (size > 0) aligned for any type, or NULL when out of memory.
typedef void* lsAllocFcn(size_t size);
/// The free hook: frees a block from the matching lsAllocFcn; size is the size it was allocated with.
typedef void lsFreeFcn(void* memory, size_t size);

/// Routes every allocation of the library (cJSON's and libpng's included) through allocFcn and freeFcn; both NULL
/// restores malloc and free. Returns false and changes nothing when only one is NULL or while any block is
/// allocated (lsAllocatedBytes() != 0): a block must go back to the allocator it came from. Not thread-safe: set it
/// at startup.
LS_API bool lsSetAllocator(lsAllocFcn* allocFcn, lsFreeFcn* freeFcn);

/// Allocates size bytes through the allocator hook (never returns NULL: out of memory is a failed assert).
/// Free with lsFree(p, size).
LS_API void* lsAlloc(size_t size);
/// Allocates count zeroed elements of size bytes each. Free with lsFree(p, count * size).
LS_API void* lsAllocZero(size_t count, size_t size);
/// Grows or shrinks a block from lsAlloc; oldSize must be the size it was allocated with.
LS_API void* lsRealloc(void* p, size_t oldSize, size_t newSize);
/// Frees a block from lsAlloc; NULL is allowed. size must be the size it was allocated with.
LS_API void lsFree(void* p, size_t size);
/// Bytes currently allocated through lsAlloc, cJSON's and libpng's included (tests assert this returns to its
/// starting value). Atomic: any thread may allocate.
LS_API long long lsAllocatedBytes(void);
/// Copies a NUL-terminated string with lsAlloc. Free with lsFreeString.
LS_API char* lsStrdup(const char* s);
/// Frees a string from lsStrdup or from any function documented as returning one (e.g. lsSaveWorldToString).
LS_API void lsFreeString(char* s);

// ---------------------------------------------------------------------------------------------------------------------
// Errors from input that can fail (files, JSON, command-line arguments). Caller-owned, no global state.
// Messages use the compiler format: "worlds/maze.json:12:18: walls[3].to: expected [x, y]".

typedef struct lsError
{
    char message[512];
} lsError;

/// Writes a printf-style message into err (if err is not NULL) and returns false, so a caller can
/// `return lsFail(err, "...")`. Use lsFailNull in functions that return pointers.
LS_API bool lsFail(lsError* err, const char* format, ...) __attribute__((format(printf, 2, 3)));
/// Same as lsFail, returning NULL.
LS_API void* lsFailNull(lsError* err, const char* format, ...) __attribute__((format(printf, 2, 3)));
/// Rewrites every control character in text (bytes below 0x20, and 0x7f) as "\xNN", in place within capacity
/// bytes (cut at a whole escape), so a name, key or path holding terminal escape sequences prints harmlessly.
/// lsFail, lsFailNull and the loader's warnings apply it to every message; summaries apply it to names and paths.
LS_API void lsEscapeControl(char* text, size_t capacity);

/// Parses a whole string as one finite decimal number: [+-] digits with at most one point, an optional exponent
/// (1, -2.5, .5, 5., 1e-3), nothing before or after. Not hexadecimal, inf or nan; an overflow is refused, an underflow
/// reads as the nearest double. False when it is not one.
LS_API bool lsParseNumber(const char* text, double* out);
/// Writes the shortest of %.15g, %.16g, %.17g that reads back as exactly v (finite; capacity >= 32).
LS_API void lsFormatNumber(char* buffer, size_t capacity, double v);
/// The shortest decimal of degrees d (the double strtod makes of it) with lsDegToRad(d) == radians exactly, so that
/// an angle given in degrees prints as given (3, not 3.0000000000000004) and reads back as the same radians; the
/// rounded conversion's neighbours are tried too. False when no double of degrees maps back (multiplying by pi/180
/// skips some doubles): then *degrees is lsRadToDeg(radians). radians must be finite.
LS_API bool lsExactDegrees(double radians, double* degrees);
/// Parses a whole string as one decimal integer in [lo, hi]. False when it is not one or is out of range.
LS_API bool lsParseInteger(const char* text, long long lo, long long hi, long long* out);

// ---------------------------------------------------------------------------------------------------------------------
// Files: one bounded reader for worlds, maps, poses files and recordings, so none of them can block or blow memory.

/// Largest input file read whole (world, map, poses file, recording): 64 MiB, far above any real world.
#define LS_MAX_FILE_BYTES ((size_t)64 << 20)

/// What fstat says about one version of a file: two versions (an in-place write, an atomic rename-replace) differ
/// in at least one field (times to the nanosecond where the file system keeps them).
typedef struct lsFileStamp
{
    bool regular; ///< a regular file (not a FIFO, folder, device or socket)
    uint64_t device, inode;
    int64_t size; ///< bytes
    int64_t modifiedSeconds, modifiedNanoseconds, changedSeconds, changedNanoseconds;
} lsFileStamp;

/// Reads the whole regular file at path into a NUL-terminated buffer of *size + 1 bytes (free with
/// lsFree(text, *size + 1)). Opened with O_NONBLOCK (a FIFO never blocks); anything fstat does not call a regular
/// file, and any file over maxBytes, is refused before a byte is read; a file that changes while being read fails.
/// NULL with err filled ("path: not a regular file", "path: N bytes, over the limit of M bytes", ...) on failure.
LS_API char* lsReadFile(const char* path, size_t maxBytes, size_t* size, lsError* err);
/// lsReadFile that also gives the stamp of the version read (stamp may be NULL) and sets *changed (may be NULL)
/// when the failure is the file changing while being read, so a caller polling the file can simply try again.
LS_API char* lsReadFileStamped(const char* path, size_t maxBytes, size_t* size, lsFileStamp* stamp, bool* changed,
                               lsError* err);
/// Stats path (following links) without opening it; false with errno in *errorCode (may be NULL) when it fails.
LS_API bool lsStatFile(const char* path, lsFileStamp* stamp, int* errorCode);
/// True when two stamps describe the same version of a file.
LS_API bool lsSameFileStamp(const lsFileStamp* a, const lsFileStamp* b);

// ---------------------------------------------------------------------------------------------------------------------
// A seeded generator (xoshiro256**, seeded by splitmix64): the same seed gives the same stream everywhere.

typedef struct lsRng
{
    uint64_t s[4];
} lsRng;

/// A generator seeded from a 64-bit seed (any value, zero included).
LS_API lsRng lsMakeRng(uint64_t seed);
/// Next 64 random bits.
LS_API uint64_t lsRng_Next(lsRng* rng);
/// Uniform double in [0, 1).
LS_API double lsRng_Uniform(lsRng* rng);
/// Uniform double in [lo, hi).
LS_API double lsRng_Range(lsRng* rng, double lo, double hi);
/// Standard normal sample (mean 0, deviation 1), by the Box-Muller transform; always finite.
LS_API double lsRng_Gaussian(lsRng* rng);

#ifdef __cplusplus
}
#endif

// Blocks beyond lsAlloc's: sized blocks for libraries whose free gets no size (cJSON, libpng), and the scene's index
// (on a cache line, and in huge pages where it can be). The byte counter counts them all; all but the index's own
// mappings come from the allocator hook.
#pragma once

#include "lidarsim/base.h"

// clang says whether AddressSanitizer is on by __has_feature, gcc by __SANITIZE_ADDRESS__.
#if defined(__has_feature)
#define LS_HAS_ASAN_FEATURE __has_feature(address_sanitizer)
#else
#define LS_HAS_ASAN_FEATURE 0
#endif

/// 1 where lsAllocIndex maps big blocks itself: Linux (madvise's MADV_HUGEPAGE), not under AddressSanitizer (whose
/// checks need the allocator's blocks).
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !LS_HAS_ASAN_FEATURE
#define LS_MAPS_INDEX 1
#else
#define LS_MAPS_INDEX 0
#endif

/// The huge page lsAllocIndex aligns its mappings to, and the smallest block it maps (a smaller one would waste most
/// of a huge page: 0.3 to 0.5 MB indexes gained 1 % or nothing).
#define LS_HUGE_PAGE ((size_t)2 << 20)
#define LS_INDEX_MAP_MIN ((size_t)1 << 20)

/// Allocates size bytes for an index read at random (the scene's grid), on a 64-byte boundary: records of 32 bytes
/// then sit two to a line (at the allocator's alignment every other one would straddle two lines). With the default
/// allocator on Linux a block of at least LS_INDEX_MAP_MIN bytes is a mapping of its own, aligned to LS_HUGE_PAGE and
/// advised to be backed by transparent huge pages (MADV_HUGEPAGE: taken where the system's setting is madvise or
/// always), so that random reads miss the TLB far less: city-100k's rays 1.05x, city-10k's and maze-20k's 1.02x
/// (see docs/performance.md); see LS_MAPS_INDEX. Other blocks come from the allocator hook. Counted like an lsAlloc
/// block; free with lsFreeIndex(p, size).
void* lsAllocIndex(size_t size);
/// Frees a block from lsAllocIndex; NULL is allowed. size must be the size it was allocated with.
void lsFreeIndex(void* p, size_t size);

/// Allocates size bytes behind a size header through lsAlloc; NULL only when size + header overflows.
void* lsAllocSized(size_t size);
/// Frees a block from lsAllocSized; NULL is allowed.
void lsFreeSized(void* p);

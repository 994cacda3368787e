// Blocks beyond lsAlloc's: sized blocks for libraries whose free gets no size (cJSON, libpng), and blocks that start
// on a cache line. Both go through the allocator hook and the byte counter like every other block.
#pragma once

#include "lidarsim/base.h"

/// What lsAllocLines adds to a block: the most a 64-byte boundary can lie past the start of an lsAlloc block.
#define LS_LINE_SLACK 63

/// Allocates size bytes starting on a 64-byte boundary (a cache line), within an lsAlloc block of
/// size + LS_LINE_SLACK bytes whose start goes to *block: free it with lsFree(*block, size + LS_LINE_SLACK). For
/// arrays of records a cache line holds whole: at the allocator's alignment, every other 32-byte record would
/// straddle two lines.
void* lsAllocLines(size_t size, void** block);

/// Allocates size bytes behind a size header through lsAlloc; NULL only when size + header overflows.
void* lsAllocSized(size_t size);
/// Frees a block from lsAllocSized; NULL is allowed.
void lsFreeSized(void* p);

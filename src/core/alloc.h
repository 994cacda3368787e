// Sized blocks for libraries whose free gets no size (cJSON, libpng): a small header keeps the size, so their bytes
// go through the allocator hook and the byte counter like every other block.
#pragma once

#include "lidarsim/base.h"

/// Allocates size bytes behind a size header through lsAlloc; NULL only when size + header overflows.
void* lsAllocSized(size_t size);
/// Frees a block from lsAllocSized; NULL is allowed.
void lsFreeSized(void* p);

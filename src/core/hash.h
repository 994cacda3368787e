// lidarsim core: 64-bit FNV-1a, the hash of a sim's state (lsSim_Hash) and of the world and map a recording names
// (lsWorld_ContentHash, lsWorld_MapHash).
#pragma once

#include "lidarsim/vec.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// The hash of nothing: where every hash starts.
#define LS_HASH_BASIS 0xCBF29CE484222325ull

/// Folds size bytes of data into *h.
static inline void lsHashBytes(uint64_t* h, const void* data, size_t size)
{
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i)
    {
        *h ^= p[i];
        *h *= 0x100000001B3ull;
    }
}

/// Folds the bits of x into *h (its eight bytes as the machine stores them).
static inline void lsHashDouble(uint64_t* h, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    lsHashBytes(h, &bits, sizeof bits);
}

static inline void lsHashVec(uint64_t* h, lsVec2 v)
{
    lsHashDouble(h, v.x);
    lsHashDouble(h, v.y);
}

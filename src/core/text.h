// lidarsim core (private): a growing text buffer, the output of both world writers (the canonical saver and the
// saver that keeps the user's own text).
#pragma once

#include <stddef.h>

/// Text being written: data is NUL-terminated after the first append, allocated with lsAlloc (capacity bytes).
/// Start from {0}; free with lsFree(data, capacity), or shrink it to length + 1 bytes to hand it out as a string.
typedef struct lsText
{
    char* data;
    size_t length, capacity;
} lsText;

/// Appends n bytes of s, growing the buffer by doubling.
void lsText_Append(lsText* text, const char* s, size_t n);

// lidarsim core (private): locating a JSON path in the text of a world file, for the loader's line:column.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/// One step of a JSON path: an object member (key) or an array element (key NULL, index).
typedef struct lsJsonPathPart
{
    const char* key; ///< object member, or NULL for an array element
    int index;       ///< the element's index; for a member, which of the members with that key (0: the first)
} lsJsonPathPart;

/// Deepest path the loader builds (root.section[i].member[j]...).
#define LS_MAX_PATH_DEPTH 8

/// Offset of the value at the path (or of its key when atKey and the last part is a key); -1 when not found.
long lsFindJsonPath(const char* t, size_t n, const lsJsonPathPart* parts, int depth, bool atKey);
/// Index of the first character at or after i that is not JSON white space (at most n).
size_t lsJsonSkipSpace(const char* t, size_t n, size_t i);
/// i at a string's opening quote: the index after its closing quote (n when unterminated).
size_t lsJsonSkipString(const char* t, size_t n, size_t i);
/// i at the start of any value (past white space): the index after it (brackets matched, strings skipped whole).
size_t lsJsonSkipValue(const char* t, size_t n, size_t i);
/// 1-based line and column (in bytes) of an offset.
void lsLineColumn(const char* t, size_t offset, int* line, int* column);

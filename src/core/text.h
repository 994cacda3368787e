// lidarsim core (private): text helpers: a growing text buffer, the output of both world writers (the canonical saver
// and the saver that keeps the user's own text), and the edit distance that suggests a name for a typo.
#pragma once

#include <stdbool.h>
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

/// The optimal string alignment distance of a and b (Levenshtein, plus the swap of two neighbouring letters as one
/// edit: "robto" is one from "robot"), letters compared ignoring ASCII case when ignoreCase. Names are short: either
/// string 64 bytes or longer is simply far (64). For "did you mean" suggestions: the command line's options, the world
/// file's keys.
int lsEditDistance(const char* a, const char* b, bool ignoreCase);

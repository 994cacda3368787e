// lidarsim core (private): text helpers: a growing text buffer, the output of both world writers (the canonical saver
// and the saver that keeps the user's own text), UTF-8 (a file's check, a name from a file name), and the edit
// distance that suggests a name for a typo.
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

/// The length of the well-formed UTF-8 character starting at s (of n bytes left), 1 to 4, or 0 when the bytes there
/// are not one (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF, no sequence cut short).
int lsUtf8Length(const char* s, size_t n);

/// Whether the NUL-terminated s is UTF-8 throughout (lsUtf8Length at every character).
bool lsUtf8Valid(const char* s);

/// The name a world takes from its file when it names none: the path's last part without its extension, at most
/// capacity - 1 bytes, each byte that is not UTF-8 there (a Latin-1 file name, a character the length cut) as '?'
/// (the name is written into JSON); fallback when nothing is left.
void lsNameFromPath(const char* path, const char* fallback, char* out, size_t capacity);

/// The optimal string alignment distance of a and b (Levenshtein, plus the swap of two neighbouring letters as one
/// edit: "robto" is one from "robot"), letters compared ignoring ASCII case when ignoreCase. Names are short: either
/// string 64 bytes or longer is simply far (64). For "did you mean" suggestions: the command line's options, the world
/// file's keys.
int lsEditDistance(const char* a, const char* b, bool ignoreCase);

// lidarsim core: saving a world while keeping its file as the user wrote it (world_text.c).
//
// The window edits a world loaded from a file the user wrote by hand and keeps in git. Saving the canonical form
// would rewrite every line; instead the save starts from the file's own text and changes only what the edit
// changed: objects whose definition did not change keep their text byte for byte (spacing, key order, number
// spelling), a changed object gets only its changed values rewritten in place (a moved target is a one-line diff),
// an object whose shape changed (a wall cut into pieces) is rewritten as a one-line object with only the keys that
// differ from their defaults, new objects are inserted in the array's own layout, removed ones disappear with their
// separator. Whatever the text, loading the result gives exactly the world saved: the result is loaded back and
// compared, and the canonical form is written instead if that ever fails.
#pragma once

#include "lidarsim/world.h"

/// The text to save for `world`, starting from `baseText` (the file as the user wrote it, NUL-terminated), which
/// loads to `baseWorld`. baseText or baseWorld NULL: the canonical form (lsSaveWorldToString). Free with
/// lsFreeString. Always loads back to a world equal to `world`. fileName labels the check's load (a file without
/// "name" takes its name from it, as when the window loaded it).
char* lsFormatWorldKeepingText(const lsWorld* world, const char* baseText, const lsWorld* baseWorld,
                               const char* fileName);

/// For tests and the fuzzers: how many times, in this process, lsFormatWorldKeepingText merged a text that did not
/// load back to its world, so that the canonical form was written instead (a fault of the merge, which the check
/// hides from the user: the file loses its layout).
long long lsWorldText_MergeFailures(void);

/// Saves world to path atomically (as lsSaveWorld) with the text of lsFormatWorldKeepingText. On success *written
/// (if not NULL) is the text written (free with lsFreeString); on failure the old file is untouched, err says why
/// and false is returned.
bool lsSaveWorldKeepingText(const lsWorld* world, const char* path, const char* baseText, const lsWorld* baseWorld,
                            char** written, lsError* err);

/// What both saves (lsSaveWorld, lsSaveWorldKeepingText) refuse before writing anything: a path that names a map YAML
/// (the user's map overwritten by a world), a world on a map whose path from path's folder (lsRelocateMapPath,
/// written into mapPath, capacity bytes) is too long or is not UTF-8, which a JSON file cannot hold. False with err
/// filled when refused.
bool lsCheckSaveTarget(const lsWorld* world, const char* path, char* mapPath, size_t capacity, lsError* err);

// lidarsim core (private): replacing a file atomically.
#pragma once

#include "lidarsim/base.h"

/// Replaces the file at path with size bytes of data, atomically: a temporary file beside it (keeping the old
/// file's permissions) is written, synced and renamed over it, then the folder is synced (best effort). On failure
/// the old file is untouched, the temporary file removed, and err says which step failed.
bool lsWriteFileAtomic(const char* path, const char* data, size_t size, lsError* err);

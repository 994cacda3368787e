// lidarsim core (private): writing files so that a name never shows a half-written file, and checking output.
#pragma once

#include "lidarsim/base.h"

#include <stdio.h>

/// A file being written so that the name never shows a half-written file: the text goes to a temporary file with a
/// short name (".lidarsim-XXXXXX", so a NAME_MAX-long name can be written) in the folder of the final target (a
/// symlink is followed and kept: its target is replaced), which is flushed, synced and renamed over the target on
/// commit. A target that exists keeps its owner, group and permissions where the user may set them (setuid and
/// setgid are dropped); a new one gets 0666 less the umask. A target that is a device or FIFO (/dev/stdout,
/// /dev/full) is written directly, every write checked. A folder or a symlink loop is refused. Any failure removes
/// the temporary file and leaves the old file as it was.
/// Usage: lsBeginAtomicWrite, write to af.file, then lsCommitAtomicWrite (or lsAbortAtomicWrite) on every path.
typedef struct lsAtomicFile
{
    FILE* file;       ///< write here (stdio; errors are found at commit)
    char* label;      ///< the path as given, for messages
    char* target;     ///< the file that will hold the text (the symlink's target)
    char* temp;       ///< the temporary file, NULL when writing directly
    const char* verb; ///< "written" or "saved", for messages
    bool noReplace;   ///< commit fails rather than replace an existing file
    bool direct;      ///< a device or FIFO, written in place
    bool keepOwner;   ///< the target existed: its owner, group and mode are copied
    unsigned ownerId, groupId, mode;
    int tempSlot; ///< 1 + the temporary file's slot for lsRemoveTemporaryFiles, 0 when it has none
} lsAtomicFile;

/// Starts writing path. verb ("saved", "written") goes into messages; noReplace makes the commit refuse to replace a
/// file that exists (screenshots). False with err filled ("path: cannot create a temporary file next to it: ...").
bool lsBeginAtomicWrite(lsAtomicFile* af, const char* path, const char* verb, bool noReplace, lsError* err);
/// Flushes, syncs and renames into place; frees af in every case. False with err filled ("path: not written (write
/// failed: No space left on device); the old file is untouched") and the temporary file removed.
bool lsCommitAtomicWrite(lsAtomicFile* af, lsError* err);
/// Gives up: closes and removes the temporary file, frees af.
void lsAbortAtomicWrite(lsAtomicFile* af);
/// Replaces the file at path with size bytes of data atomically (lsBeginAtomicWrite, write, lsCommitAtomicWrite);
/// messages say "not saved".
bool lsWriteFileAtomic(const char* path, const char* data, size_t size, lsError* err);
/// Removes the temporary files of the writes in progress in this process. Async-signal-safe (unlink only): for a
/// handler of the signals that end a program (Ctrl+C, kill, a hang-up), which then lets the signal end it, so a long
/// render or recording cut short leaves no ".lidarsim-XXXXXX" beside its target. The old files stay as they were.
void lsRemoveTemporaryFiles(void);

/// True when a and b both exist and are one file, however spelt ("./m.yaml", "maps/../m.yaml", a link to it).
bool lsSameFile(const char* a, const char* b);
/// Refuses an output that is one of the files a command reads, however spelt: the map it stands on (mapYaml and
/// mapImage, lsMapRef's yamlFile and imageFile, "" when none) or input (the world file or recording given, NULL when
/// none; inputWhat names it for the message: "the world file"). Writing there would replace what was read with the
/// command's output (`run W.json --record W.json`, `import MAP.yaml -o MAP.pgm`). False with err filled
/// ("out.pgm: not written: it would replace maps/room.pgm, the map image this world stands on; ..."); nothing is
/// written.
bool lsCheckOutputNotInput(const char* output, const char* input, const char* inputWhat, const char* mapYaml,
                           const char* mapImage, lsError* err);

/// Flushes a stream the program prints its results to (stdout) and checks it for write errors, so output that did
/// not reach its file (a full disk, /dev/full, a closed pipe) is reported ("stdout: write failed: ...") and the
/// program exits non-zero. False with err filled when anything written to it was lost.
bool lsCheckOutput(FILE* stream, const char* name, lsError* err);

// lidarsim core: hot reload of a world file (see reload.h). Files through base.h's bounded reader; no clock.

#include "core/reload.h"

#include <string.h>

// What stat says about the file: its stamp (two versions differ in at least one field: an atomic rename-replace
// gives a new inode, an in-place write a new size or new times), or the errno of a failed stat.
typedef struct Signature
{
    bool exists;
    int error; // errno of a failed stat
    lsFileStamp stamp;
} Signature;

struct lsReloader
{
    char* path;
    double settle;
    Signature handled; // the version last read (or marked as saved)
    Signature pending; // a newer version waiting to settle
    bool hasPending;
    double pendingSince; // caller's time when pending was first seen
    bool hasError;
    lsError error;
    lsWarnings warnings;
    int readCount;
};

static Signature StatSignature(const char* path)
{
    Signature sig;
    memset(&sig, 0, sizeof sig);
    sig.exists = lsStatFile(path, &sig.stamp, &sig.error);
    return sig;
}

static bool SameSignature(const Signature* a, const Signature* b)
{
    if (a->exists != b->exists)
        return false;
    if (!a->exists)
        return a->error == b->error;
    return lsSameFileStamp(&a->stamp, &b->stamp);
}

lsReloader* lsCreateReloader(const char* path, double settle)
{
    LS_ASSERT(path != NULL && settle >= 0.0);
    lsReloader* reloader = lsAllocZero(1, sizeof(lsReloader));
    reloader->path = lsStrdup(path);
    reloader->settle = settle;
    reloader->handled = StatSignature(path);
    return reloader;
}

void lsDestroyReloader(lsReloader* reloader)
{
    if (reloader == NULL)
        return;
    lsFreeString(reloader->path);
    lsFree(reloader, sizeof(lsReloader));
}

// Reads the whole file as one version through the shared bounded reader (never blocks on a FIFO, refuses a
// folder, a device or a file over the size limit before reading). *unstable is set when the file was replaced
// after the poll's stat or changed while being read (no error then: try again later); otherwise a NULL return
// fills err.
static char* ReadVersion(const char* path, const Signature* expected, size_t* size, bool* unstable, lsError* err)
{
    Signature opened;
    memset(&opened, 0, sizeof opened);
    opened.exists = true;
    char* text = lsReadFileStamped(path, LS_MAX_FILE_BYTES, size, &opened.stamp, unstable, err);
    if (text != NULL && !SameSignature(&opened, expected))
    {
        // Replaced between the stat and the open.
        lsFree(text, *size + 1);
        *unstable = true;
        return NULL;
    }
    return text;
}

lsReloadEvent lsReloader_Poll(lsReloader* reloader, double now, const lsWorld* current, lsWorld** newWorld)
{
    LS_ASSERT(reloader != NULL && newWorld != NULL);
    *newWorld = NULL;
    Signature sig = StatSignature(reloader->path);
    if (SameSignature(&sig, &reloader->handled))
    {
        // Back to the version already handled (e.g. a change undone before it settled).
        reloader->hasPending = false;
        return ls_reloadNone;
    }
    if (!reloader->hasPending || !SameSignature(&sig, &reloader->pending))
    {
        // A new version: wait until it has looked the same for `settle` seconds.
        reloader->pending = sig;
        reloader->hasPending = true;
        reloader->pendingSince = now;
    }
    if (now - reloader->pendingSince < reloader->settle)
        return ls_reloadNone;

    lsError err;
    err.message[0] = '\0';
    if (!sig.exists)
    {
        reloader->handled = sig;
        reloader->hasPending = false;
        reloader->readCount += 1;
        reloader->hasError = true;
        lsFail(&reloader->error, "%s: cannot open: %s", reloader->path, strerror(sig.error));
        return ls_reloadFailed;
    }

    size_t size = 0;
    bool unstable = false;
    char* text = ReadVersion(reloader->path, &sig, &size, &unstable, &err);
    if (text == NULL && unstable)
    {
        // It changed again under us: start settling afresh from what the next poll sees.
        reloader->hasPending = false;
        return ls_reloadNone;
    }
    reloader->handled = sig;
    reloader->hasPending = false;
    reloader->readCount += 1;
    if (text == NULL)
    {
        reloader->hasError = true;
        reloader->error = err;
        return ls_reloadFailed;
    }

    lsWarnings warnings;
    memset(&warnings, 0, sizeof warnings);
    lsWorld* loaded = lsLoadWorldFromString(text, size, reloader->path, &err, &warnings);
    lsFree(text, size + 1);
    if (loaded == NULL)
    {
        reloader->hasError = true;
        reloader->error = err;
        return ls_reloadFailed;
    }
    reloader->hasError = false;
    reloader->error.message[0] = '\0';
    reloader->warnings = warnings;
    if (current != NULL && lsWorld_Equal(loaded, current))
    {
        // The file holds what is already shown (our own save, or a touch): nothing to swap.
        lsDestroyWorld(loaded);
        return ls_reloadSame;
    }
    *newWorld = loaded;
    return ls_reloadLoaded;
}

void lsReloader_MarkSaved(lsReloader* reloader)
{
    LS_ASSERT(reloader != NULL);
    reloader->handled = StatSignature(reloader->path);
    reloader->hasPending = false;
    reloader->hasError = false;
    reloader->error.message[0] = '\0';
}

bool lsReloader_HasError(const lsReloader* reloader) { return reloader->hasError; }

const char* lsReloader_Error(const lsReloader* reloader) { return reloader->hasError ? reloader->error.message : ""; }

const lsWarnings* lsReloader_Warnings(const lsReloader* reloader) { return &reloader->warnings; }

const char* lsReloader_Path(const lsReloader* reloader) { return reloader->path; }

int lsReloader_ReadCount(const lsReloader* reloader) { return reloader->readCount; }

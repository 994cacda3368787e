// lidarsim core: hot reload of a world file (see reload.h). POSIX stat/open/read; no clock (the caller's time).
#define _POSIX_C_SOURCE 200809L

#include "core/reload.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// What stat says about the file. Two versions of a file differ in at least one of these: an atomic rename-replace
// gives a new inode, an in-place write a new size or new times (nanoseconds where the file system keeps them).
typedef struct Signature
{
    bool exists;
    int error; // errno of a failed stat
    dev_t device;
    ino_t inode;
    off_t size;
    struct timespec modified;
    struct timespec changed;
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

static Signature MakeSignature(const struct stat* st)
{
    Signature sig;
    memset(&sig, 0, sizeof sig);
    sig.exists = true;
    sig.device = st->st_dev;
    sig.inode = st->st_ino;
    sig.size = st->st_size;
    sig.modified = st->st_mtim;
    sig.changed = st->st_ctim;
    return sig;
}

static Signature StatSignature(const char* path)
{
    struct stat st;
    if (stat(path, &st) != 0)
    {
        Signature missing;
        memset(&missing, 0, sizeof missing);
        missing.error = errno;
        return missing;
    }
    return MakeSignature(&st);
}

static bool SameTime(struct timespec a, struct timespec b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; }

static bool SameSignature(const Signature* a, const Signature* b)
{
    if (a->exists != b->exists)
        return false;
    if (!a->exists)
        return a->error == b->error;
    return a->device == b->device && a->inode == b->inode && a->size == b->size && SameTime(a->modified, b->modified) &&
           SameTime(a->changed, b->changed);
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

// Reads the whole file as one version: the file's signature before and after reading must match `expected`.
// Returns the text (NUL-terminated, *size bytes, *capacity allocated) or NULL. *unstable is set when the file
// changed while being read (no error then: try again later); otherwise a NULL return fills err.
static char* ReadVersion(const char* path, const Signature* expected, size_t* size, size_t* capacity, bool* unstable,
                         lsError* err)
{
    *unstable = false;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
    {
        int e = errno;
        return lsFailNull(err, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat before;
    if (fstat(fd, &before) != 0)
    {
        int e = errno;
        close(fd);
        return lsFailNull(err, "%s: cannot read: %s", path, strerror(e));
    }
    Signature opened = MakeSignature(&before);
    if (!S_ISREG(before.st_mode))
    {
        close(fd);
        return lsFailNull(err, "%s: not a regular file", path);
    }
    if (!SameSignature(&opened, expected))
    {
        // Replaced between the stat and the open.
        close(fd);
        *unstable = true;
        return NULL;
    }

    // Read to the end rather than trusting st_size, and keep one byte for the NUL the parser wants.
    size_t cap = (size_t)before.st_size + 1;
    char* text = lsAlloc(cap);
    size_t used = 0;
    for (;;)
    {
        if (used + 1 == cap)
        {
            text = lsRealloc(text, cap, 2 * cap);
            cap *= 2;
        }
        ssize_t got = read(fd, text + used, cap - 1 - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
        {
            int e = errno;
            close(fd);
            lsFree(text, cap);
            return lsFailNull(err, "%s: cannot read: %s", path, strerror(e));
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    struct stat after;
    bool stable = fstat(fd, &after) == 0;
    close(fd);
    if (stable)
    {
        Signature finished = MakeSignature(&after);
        stable = SameSignature(&finished, &opened) && (off_t)used == after.st_size;
    }
    if (!stable)
    {
        // Being written while we read: this text may be half old, half new. Another poll will see the next version.
        lsFree(text, cap);
        *unstable = true;
        return NULL;
    }
    text[used] = '\0';
    *size = used;
    *capacity = cap;
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

    size_t size = 0, capacity = 0;
    bool unstable = false;
    char* text = ReadVersion(reloader->path, &sig, &size, &capacity, &unstable, &err);
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
    lsFree(text, capacity);
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

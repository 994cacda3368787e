// lidarsim core: hot reload of a world file (see reload.h). Files through base.h's bounded reader; no clock.

#include "core/reload.h"

#include "lidarsim/map.h"

#include <stdio.h>
#include <string.h>

// What stat says about the file: its stamp (two versions differ in at least one field: an atomic rename-replace
// gives a new inode, an in-place write a new size or new times), or the errno of a failed stat.
typedef struct Signature
{
    bool exists;
    int error; // errno of a failed stat
    lsFileStamp stamp;
} Signature;

// A world standing on a map (lsWorld.map) depends on two more files: the map's YAML and its image.
#define LS_RELOAD_DEPENDENCIES 2

// One version of the world file together with the files it depends on.
typedef struct Version
{
    Signature file;
    Signature dependencies[LS_RELOAD_DEPENDENCIES];
} Version;

struct lsReloader
{
    char* path;
    double settle;
    char dependencies[LS_RELOAD_DEPENDENCIES][LS_MAP_REF_CAPACITY]; // "" when unused
    Version handled;                                                // the version last read (or marked as saved)
    Version pending;                                                // a newer version waiting to settle
    bool hasPending;
    double pendingSince; // caller's time when pending was first seen
    bool hasError;
    lsError error;
    int readCount;
    char* text; // the latest version that loaded (kept for the format-preserving save), textSize + 1 bytes
    size_t textSize;
    lsWarnings warnings; // what the loader warned of in the version last read
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

static Version StatVersion(const lsReloader* reloader)
{
    Version version;
    memset(&version, 0, sizeof version);
    version.file = StatSignature(reloader->path);
    for (int k = 0; k < LS_RELOAD_DEPENDENCIES; ++k)
        if (reloader->dependencies[k][0] != '\0')
            version.dependencies[k] = StatSignature(reloader->dependencies[k]);
    return version;
}

static bool SameVersion(const Version* a, const Version* b)
{
    for (int k = 0; k < LS_RELOAD_DEPENDENCIES; ++k)
        if (!SameSignature(&a->dependencies[k], &b->dependencies[k]))
            return false;
    return SameSignature(&a->file, &b->file);
}

// Watches the map files of world (none for a world without a map; the file itself is never a dependency). True
// when the set changed.
static bool WatchDependencies(lsReloader* reloader, const lsWorld* world)
{
    const char* files[LS_RELOAD_DEPENDENCIES] = {world->map.yamlFile, world->map.imageFile};
    bool changed = false;
    for (int k = 0; k < LS_RELOAD_DEPENDENCIES; ++k)
    {
        const char* file = strcmp(files[k], reloader->path) == 0 ? "" : files[k];
        if (strcmp(reloader->dependencies[k], file) != 0)
        {
            snprintf(reloader->dependencies[k], sizeof reloader->dependencies[k], "%s", file);
            changed = true;
        }
    }
    return changed;
}

lsReloader* lsCreateReloader(const char* path, double settle)
{
    LS_ASSERT(path != NULL && settle >= 0.0);
    lsReloader* reloader = lsAllocZero(1, sizeof(lsReloader));
    reloader->path = lsStrdup(path);
    reloader->settle = settle;
    reloader->handled = StatVersion(reloader);
    return reloader;
}

void lsDestroyReloader(lsReloader* reloader)
{
    if (reloader == NULL)
        return;
    lsFreeString(reloader->path);
    lsFree(reloader->text, reloader->textSize + 1);
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
    if (current != NULL && WatchDependencies(reloader, current))
    {
        // A world just shown (the first poll, or a swap): its map files as they are now count as loaded.
        Version seen = StatVersion(reloader);
        memcpy(reloader->handled.dependencies, seen.dependencies, sizeof seen.dependencies);
    }
    Version sig = StatVersion(reloader);
    if (SameVersion(&sig, &reloader->handled))
    {
        // Back to the version already handled (e.g. a change undone before it settled).
        reloader->hasPending = false;
        return ls_reloadNone;
    }
    if (!reloader->hasPending || !SameVersion(&sig, &reloader->pending))
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
    if (!sig.file.exists)
    {
        reloader->handled = sig;
        reloader->hasPending = false;
        reloader->readCount += 1;
        reloader->hasError = true;
        lsFail(&reloader->error, "%s: cannot open: %s", reloader->path, strerror(sig.file.error));
        return ls_reloadFailed;
    }

    size_t size = 0;
    bool unstable = false;
    // A map YAML is read by the map loader (its own bounded reads); a world file here, as one stable version.
    bool isMap = lsIsMapPath(reloader->path);
    char* text = isMap ? NULL : ReadVersion(reloader->path, &sig.file, &size, &unstable, &err);
    if (text == NULL && unstable)
    {
        // It changed again under us: start settling afresh from what the next poll sees.
        reloader->hasPending = false;
        return ls_reloadNone;
    }
    reloader->handled = sig;
    reloader->hasPending = false;
    reloader->readCount += 1;
    if (text == NULL && !isMap)
    {
        reloader->hasError = true;
        reloader->error = err;
        return ls_reloadFailed;
    }

    reloader->warnings = (lsWarnings){.count = 0};
    lsWorld* loaded = isMap ? lsLoadMapWorld(reloader->path, NULL, NULL, &err)
                            : lsLoadWorldFromString(text, size, reloader->path, &err, &reloader->warnings);
    if (loaded != NULL && WatchDependencies(reloader, loaded))
    {
        // The new version names other map files: watch those from now on, as they are now.
        Version seen = StatVersion(reloader);
        memcpy(reloader->handled.dependencies, seen.dependencies, sizeof seen.dependencies);
    }
    if (loaded == NULL)
    {
        lsFree(text, size + 1);
        reloader->hasError = true;
        reloader->error = err;
        return ls_reloadFailed;
    }
    if (loaded->map.robotPlaced && current != NULL)
    {
        // A world whose robot starts where the loader picks from its map (the widest free space: a map opened as the
        // world, or a world file naming no robot), which a change anywhere in the image may move. The start stays the
        // one shown, so the run goes on as after any edit (the robot restarted there, metres away).
        loaded->robot.position = current->robot.position;
        loaded->robot.angle = current->robot.angle;
    }
    lsFree(reloader->text, reloader->textSize + 1);
    reloader->text = text;
    reloader->textSize = size;
    reloader->hasError = false;
    reloader->error.message[0] = '\0';
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
    // The world file only: a change of the map's files that the window has not loaded yet stays to be seen (marking
    // them too lost a map edited on disk just before a Ctrl+S: the window kept the old map's walls).
    reloader->handled.file = StatVersion(reloader).file;
    reloader->hasPending = false;
    reloader->hasError = false;
    reloader->error.message[0] = '\0';
}

bool lsReloader_HasError(const lsReloader* reloader) { return reloader->hasError; }

const char* lsReloader_Error(const lsReloader* reloader) { return reloader->hasError ? reloader->error.message : ""; }

int lsReloader_ReadCount(const lsReloader* reloader) { return reloader->readCount; }

const char* lsReloader_Text(const lsReloader* reloader, size_t* size)
{
    if (size != NULL)
        *size = reloader->textSize;
    return reloader->text;
}

const lsWarnings* lsReloader_Warnings(const lsReloader* reloader)
{
    LS_ASSERT(reloader != NULL);
    return &reloader->warnings;
}

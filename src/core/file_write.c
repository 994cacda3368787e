// lidarsim core: writing a file so that its name never shows a half-written file (see file_write.h).
#define _POSIX_C_SOURCE 200809L

#include "core/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// The file a path names after following symlinks (each link's text relative to its own folder); the path itself when
// it is not a link or does not exist. Free with lsFreeString.
static char* FollowLinks(const char* path)
{
    char* current = lsStrdup(path);
    for (int depth = 0; depth < 40; ++depth)
    {
        struct stat st;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
        {
            break;
        }
        char link[4096];
        ssize_t n = readlink(current, link, sizeof link - 1);
        if (n <= 0)
        {
            break;
        }
        link[n] = '\0';
        const char* slash = strrchr(current, '/');
        char* next;
        if (link[0] == '/' || slash == NULL)
        {
            next = lsStrdup(link);
        }
        else
        {
            size_t folder = (size_t)(slash - current) + 1;
            size_t size = folder + (size_t)n + 1;
            next = lsAlloc(size);
            memcpy(next, current, folder);
            memcpy(next + folder, link, (size_t)n + 1);
            // lsStrdup'd strings are freed by their length: keep the block exactly strlen + 1.
        }
        lsFreeString(current);
        current = next;
    }
    return current;
}

// The folder part of a path ("." when it has none); free with lsFreeString.
static char* FolderOf(const char* path)
{
    const char* slash = strrchr(path, '/');
    if (slash == NULL)
    {
        return lsStrdup(".");
    }
    size_t length = slash == path ? 1 : (size_t)(slash - path);
    char* folder = lsAlloc(length + 1);
    memcpy(folder, path, length);
    folder[length] = '\0';
    return folder;
}

// The temporary files being written, for lsRemoveTemporaryFiles in a signal handler (the one process-wide state
// here: a signal has no other way to find them). A slot is claimed (1), filled with the path, published (2), and
// released (0) when its write ends, after the file was renamed or removed: a signal in between unlinks a name that no
// longer exists, which does nothing. Lock-free atomics and unlink are async-signal-safe.
#define LS_TEMP_SLOTS 16
#define LS_TEMP_PATH_CAPACITY 4096
static atomic_int s_tempState[LS_TEMP_SLOTS];
static char s_tempPath[LS_TEMP_SLOTS][LS_TEMP_PATH_CAPACITY];

// Returns 1 + the slot now naming path, or 0 when every slot is taken or the path is too long (that write is then
// not cleaned up after a signal, as before).
static int PublishTemporary(const char* path)
{
    size_t n = strlen(path);
    for (int i = 0; i < LS_TEMP_SLOTS && n < LS_TEMP_PATH_CAPACITY; ++i)
    {
        int expected = 0;
        if (atomic_compare_exchange_strong(&s_tempState[i], &expected, 1))
        {
            memcpy(s_tempPath[i], path, n + 1);
            atomic_store(&s_tempState[i], 2);
            return i + 1;
        }
    }
    return 0;
}

void lsRemoveTemporaryFiles(void)
{
    for (int i = 0; i < LS_TEMP_SLOTS; ++i)
    {
        if (atomic_load(&s_tempState[i]) == 2)
        {
            unlink(s_tempPath[i]);
        }
    }
}

static void FreeAtomicFile(lsAtomicFile* af)
{
    if (af->tempSlot > 0)
    {
        atomic_store(&s_tempState[af->tempSlot - 1], 0);
    }
    lsFreeString(af->label);
    lsFreeString(af->target);
    lsFreeString(af->temp);
    memset(af, 0, sizeof *af);
}

bool lsBeginAtomicWrite(lsAtomicFile* af, const char* path, const char* verb, bool noReplace, lsError* err)
{
    LS_ASSERT(af != NULL && path != NULL && verb != NULL);
    memset(af, 0, sizeof *af);
    if (path[0] == '\0')
        return lsFail(err, "no file name given to write to (an empty name)");
    af->verb = verb;
    af->noReplace = noReplace;
    af->label = lsStrdup(path);
    af->target = FollowLinks(path);
    struct stat st;
    if (lstat(af->target, &st) == 0 && S_ISLNK(st.st_mode))
    {
        bool ok = lsFail(err, "%s: cannot follow the symbolic link: %s", path, strerror(ELOOP));
        FreeAtomicFile(af);
        return ok;
    }
    if (stat(af->target, &st) == 0)
    {
        if (S_ISDIR(st.st_mode))
        {
            bool ok = lsFail(err, "%s: is a folder", path);
            FreeAtomicFile(af);
            return ok;
        }
        if (!S_ISREG(st.st_mode))
        {
            // A device or FIFO is written in place (renaming over /dev/full would replace the device). O_NONBLOCK:
            // a FIFO without a reader fails at once instead of waiting; the file is then made blocking for stdio.
            int fd = open(af->target, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0)
            {
                int flags = fcntl(fd, F_GETFL);
                fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
            }
            af->file = fd >= 0 ? fdopen(fd, "wb") : NULL;
            if (af->file == NULL)
            {
                int code = errno;
                if (fd >= 0)
                {
                    close(fd);
                }
                bool ok = lsFail(err, "%s: cannot open for writing: %s", path, strerror(code));
                FreeAtomicFile(af);
                return ok;
            }
            af->direct = true;
            return true;
        }
        af->keepOwner = true;
        af->ownerId = (unsigned)st.st_uid;
        af->groupId = (unsigned)st.st_gid;
        af->mode = (unsigned)(st.st_mode & 07777);
    }
    char* folder = FolderOf(af->target);
    size_t size = strlen(folder) + sizeof "/.lidarsim-XXXXXX";
    char* temp = lsAlloc(size);
    snprintf(temp, size, "%s/.lidarsim-XXXXXX", folder);
    lsFreeString(folder);
    int fd = mkstemp(temp);
    if (fd < 0)
    {
        int code = errno;
        lsFree(temp, size);
        bool ok = lsFail(err, "%s: cannot create a temporary file next to it: %s", path, strerror(code));
        FreeAtomicFile(af);
        return ok;
    }
    af->temp = temp; // strlen(temp) + 1 == size: freed as a string
    af->tempSlot = PublishTemporary(temp);
    af->file = fdopen(fd, "wb");
    if (af->file == NULL)
    {
        int code = errno;
        close(fd);
        unlink(af->temp);
        bool ok = lsFail(err, "%s: cannot create a temporary file next to it: %s", path, strerror(code));
        FreeAtomicFile(af);
        return ok;
    }
    return true;
}

void lsAbortAtomicWrite(lsAtomicFile* af)
{
    if (af->file != NULL)
    {
        fclose(af->file);
    }
    if (af->temp != NULL)
    {
        unlink(af->temp);
    }
    FreeAtomicFile(af);
}

// Syncs a folder so a rename in it is durable (best effort: some file systems refuse).
static void SyncFolder(const char* path)
{
    char* folder = FolderOf(path);
    int fd = open(folder, O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
    {
        fsync(fd);
        close(fd);
    }
    lsFreeString(folder);
}

bool lsCommitAtomicWrite(lsAtomicFile* af, lsError* err)
{
    LS_ASSERT(af != NULL && af->file != NULL);
    int fd = fileno(af->file);
    const char* step = NULL;
    int code = 0;
    if (fflush(af->file) != 0 || ferror(af->file))
    {
        step = "write";
        code = errno != 0 ? errno : EIO;
    }
    if (step == NULL && af->temp != NULL)
    {
        if (af->keepOwner)
        {
            // The owner and group first (changing them clears setuid and setgid anyway); a user who may not give the
            // file away keeps at least the group where they belong to it. Then the mode without setuid and setgid.
            if (fchown(fd, (uid_t)af->ownerId, (gid_t)af->groupId) != 0)
            {
                (void)fchown(fd, (uid_t)-1, (gid_t)af->groupId);
            }
            if (fchmod(fd, (mode_t)(af->mode & ~(unsigned)(S_ISUID | S_ISGID))) != 0)
            {
                step = "chmod";
                code = errno;
            }
        }
        else
        {
            // A new file gets what fopen would give it: 0666 less the umask (mkstemp made it 0600).
            mode_t mask = umask(0);
            umask(mask);
            if (fchmod(fd, 0666 & ~mask) != 0)
            {
                step = "chmod";
                code = errno;
            }
        }
        if (step == NULL && fsync(fd) != 0)
        {
            step = "sync";
            code = errno;
        }
    }
    if (fclose(af->file) != 0 && step == NULL)
    {
        step = af->direct ? "write" : "close";
        code = errno;
    }
    af->file = NULL;
    if (step == NULL && af->temp != NULL)
    {
        if (af->noReplace)
        {
            // link() fails when the name exists, so even a file made meanwhile is never replaced.
            if (link(af->temp, af->target) != 0)
            {
                step = "link";
                code = errno;
            }
            unlink(af->temp);
        }
        else if (rename(af->temp, af->target) != 0)
        {
            step = "rename";
            code = errno;
        }
    }
    bool ok = step == NULL;
    if (!ok)
    {
        if (af->temp != NULL)
        {
            unlink(af->temp);
        }
        lsFail(err, "%s: not %s (%s failed: %s)%s", af->label, af->verb, step, strerror(code),
               af->direct ? "" : "; the old file is untouched");
    }
    else if (af->temp != NULL)
    {
        SyncFolder(af->target);
    }
    FreeAtomicFile(af);
    return ok;
}

bool lsWriteFileAtomic(const char* path, const char* data, size_t size, lsError* err)
{
    const char* verb = "saved";
    lsAtomicFile af;
    if (!lsBeginAtomicWrite(&af, path, verb, false, err))
    {
        return false;
    }
    if (fwrite(data, 1, size, af.file) != size)
    {
        int code = errno;
        bool ok = lsFail(err, "%s: not %s (write failed: %s); the old file is untouched", path, verb, strerror(code));
        lsAbortAtomicWrite(&af);
        return ok;
    }
    return lsCommitAtomicWrite(&af, err);
}

bool lsSameFile(const char* a, const char* b)
{
    struct stat sa, sb;
    return a != NULL && b != NULL && a[0] != '\0' && b[0] != '\0' && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool lsCheckOutputNotInput(const char* output, const char* input, const char* inputWhat, const char* mapYaml,
                           const char* mapImage, lsError* err)
{
    // The map first: a map YAML opened as the world is both, and is named as the map.
    const char* maps[2] = {mapYaml, mapImage};
    for (int i = 0; i < 2; ++i)
    {
        if (lsSameFile(output, maps[i]))
        {
            return lsFail(
                err, "%s: not written: it would replace %s, the map %s this world stands on; write to another name",
                output, maps[i], i == 0 ? "YAML" : "image");
        }
    }
    if (lsSameFile(output, input))
    {
        return lsFail(err, "%s: not written: it would replace %s, %s this command reads; write to another name", output,
                      input, inputWhat);
    }
    return true;
}

bool lsCheckOutput(FILE* stream, const char* name, lsError* err)
{
    errno = 0;
    if (fflush(stream) != 0 || ferror(stream))
    {
        int code = errno != 0 ? errno : EIO;
        return lsFail(err, "%s: write failed: %s", name, strerror(code));
    }
    return true;
}

// lidarsim core: replacing a file atomically (write a temporary file beside it, sync, rename, sync the folder).
#define _POSIX_C_SOURCE 200809L

#include "core/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool lsWriteFileAtomic(const char* path, const char* data, size_t size, lsError* err)
{
    LS_ASSERT(path != NULL && (data != NULL || size == 0));
    size_t pathLength = strlen(path);
    char* tempPath = lsAlloc(pathLength + 12);
    snprintf(tempPath, pathLength + 12, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tempPath);
    if (fd < 0)
    {
        int code = errno;
        lsFree(tempPath, pathLength + 12);
        return lsFail(err, "%s: cannot create a temporary file next to it: %s", path, strerror(code));
    }
    // Keep the permissions of the file being replaced (mkstemp creates 0600).
    struct stat info;
    mode_t mode = stat(path, &info) == 0 ? (info.st_mode & 07777) : 0644;
    bool ok = fchmod(fd, mode) == 0;
    int code = ok ? 0 : errno;
    const char* step = "chmod";
    FILE* file = ok ? fdopen(fd, "wb") : NULL;
    if (ok && file == NULL)
    {
        ok = false;
        code = errno;
        step = "open";
    }
    if (ok && fwrite(data, 1, size, file) != size)
    {
        ok = false;
        code = errno;
        step = "write";
    }
    if (ok && fflush(file) != 0)
    {
        ok = false;
        code = errno;
        step = "write";
    }
    if (ok && fsync(fd) != 0)
    {
        ok = false;
        code = errno;
        step = "sync";
    }
    if (file != NULL)
    {
        if (fclose(file) != 0 && ok)
        {
            ok = false;
            code = errno;
            step = "close";
        }
    }
    else
    {
        close(fd);
    }
    if (ok && rename(tempPath, path) != 0)
    {
        ok = false;
        code = errno;
        step = "rename";
    }
    if (!ok)
    {
        unlink(tempPath);
        lsFree(tempPath, pathLength + 12);
        return lsFail(err, "%s: not saved (%s failed: %s); the old file is untouched", path, step, strerror(code));
    }
    // Make the rename itself durable: sync the folder (best effort; some file systems refuse).
    size_t folderSize = pathLength + 1;
    char* folder = lsStrdup(path);
    char* slash = strrchr(folder, '/');
    if (slash != NULL)
    {
        slash[slash == folder ? 1 : 0] = '\0';
    }
    int dirFd = open(slash != NULL ? folder : ".", O_RDONLY);
    if (dirFd >= 0)
    {
        fsync(dirFd);
        close(dirFd);
    }
    lsFree(folder, folderSize);
    lsFree(tempPath, pathLength + 12);
    return true;
}

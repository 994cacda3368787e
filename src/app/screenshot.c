// lidarsim front end: image files from a surface (SDL2_image: PNG, JPEG), and screenshot files that never replace
// an existing file.
#define _POSIX_C_SOURCE 200809L // localtime_r, mkdir

#include "app/app.h"
#include "core/file_write.h"

#include <SDL2/SDL_image.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/// JPEG quality for `render -o x.jpg`: high, since thin beams and text smear at lower settings.
#define LS_JPEG_QUALITY 92

// Encodes the image into a file being written atomically (file_write.h) and commits it: every write is checked, and
// a full disk, a size limit or /dev/full gives a message, never a truncated image under the final name.
static bool SaveAtomically(SDL_Surface* surface, const char* path, lsImageType type, bool noReplace, lsError* err)
{
    lsAtomicFile af;
    if (!lsBeginAtomicWrite(&af, path, "written", noReplace, err))
        return false;
    SDL_RWops* rw = SDL_RWFromFP(af.file, SDL_FALSE);
    if (rw == NULL)
    {
        bool ok = lsFail(err, "%s: cannot write: %s", path, SDL_GetError());
        lsAbortAtomicWrite(&af);
        return ok;
    }
    // The RWops is closed here; the file stays open for the commit.
    int result =
        type == ls_imageJpeg ? IMG_SaveJPG_RW(surface, rw, 1, LS_JPEG_QUALITY) : IMG_SavePNG_RW(surface, rw, 1);
    if (result < 0)
    {
        bool ok = lsFail(err, "%s: cannot write %s: %s", path, type == ls_imageJpeg ? "JPEG" : "PNG", IMG_GetError());
        lsAbortAtomicWrite(&af);
        return ok;
    }
    return lsCommitAtomicWrite(&af, err);
}

bool lsSaveSurfaceImage(SDL_Surface* surface, const char* path, lsError* err)
{
    lsImageType type = lsImageTypeOf(path);
    if (type == ls_imageUnknown)
        return lsFail(err, "%s: unknown image type; name the file .png, .jpg or .jpeg", path);
    return SaveAtomically(surface, path, type, false, err);
}

bool lsSaveScreenshot(SDL_Surface* surface, const char* dir, const char* worldPath, long long when, char* path,
                      size_t capacity, lsError* err)
{
    // The world file's stem names the shot: "maze-20261123-153000.png".
    const char* slash = strrchr(worldPath, '/');
    const char* base = slash != NULL ? slash + 1 : worldPath;
    int stemLength = (int)strlen(base);
    const char* dot = strrchr(base, '.');
    if (dot != NULL && dot != base)
        stemLength = (int)(dot - base);
    if (stemLength == 0)
    {
        base = "lidarsim";
        stemLength = 8;
    }
    time_t t = (time_t)when;
    struct tm local;
    char stamp[32] = "00000000-000000";
    if (localtime_r(&t, &local) != NULL)
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    const char* folder = dir != NULL && dir[0] != '\0' ? dir : ".";
    if (mkdir(folder, 0777) != 0 && errno != EEXIST)
        return lsFail(err, "%s: cannot create the screenshots folder: %s", folder, strerror(errno));
    // Two shots in one second get "-2", "-3", ...; an existing file is never replaced, not even one made between the
    // check and the write.
    for (int n = 1; n <= 999; ++n)
    {
        char suffix[16] = "";
        if (n > 1)
            snprintf(suffix, sizeof suffix, "-%d", n);
        snprintf(path, capacity, "%s/%.*s-%s%s.png", folder, stemLength, base, stamp, suffix);
        // The name is claimed first (O_EXCL: of two shots racing for it, one gets it and the other tries the next
        // suffix; a file or link already there is never opened), then the image replaces the empty claim atomically.
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return lsFail(err, "%s: cannot create: %s", path, strerror(errno));
        close(fd);
        if (SaveAtomically(surface, path, ls_imagePng, false, err))
            return true;
        unlink(path); // the claim, still empty
        return false;
    }
    return lsFail(err, "%s: 999 screenshots already taken this second", folder);
}

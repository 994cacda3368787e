// lidarsim front end: PNG files from a surface (SDL2_image), and screenshot names.
#define _POSIX_C_SOURCE 200809L // localtime_r

#include "app/app.h"

#include <SDL2/SDL_image.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

bool lsSaveSurfacePng(SDL_Surface* surface, const char* path, lsError* err)
{
    if (IMG_SavePNG(surface, path) < 0)
        return lsFail(err, "%s: cannot write PNG: %s", path, IMG_GetError());
    return true;
}

void lsScreenshotPath(const char* worldPath, long long when, char* out, size_t capacity)
{
    const char* slash = strrchr(worldPath, '/');
    const char* base = slash != NULL ? slash + 1 : worldPath;
    int dirLength = slash != NULL ? (int)(slash - worldPath) + 1 : 0;
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
    snprintf(out, capacity, "%.*s%.*s-%s.png", dirLength, worldPath, stemLength, base, stamp);
}

// lidarsim front end: animated GIF through giflib (Debian's libgif). Each frame is reduced to its own 256-colour
// palette by giflib's median-cut quantizer (GifQuantizeBuffer) and LZW-compressed by giflib; the whole file is built
// in memory and written atomically (a temporary file renamed over the target), so a failed render leaves nothing.
#include "app/gif.h"

#include "core/file_write.h"

#include <gif_lib.h>
#include <string.h>

struct lsGifWriter
{
    GifFileType* gif;
    char* data; // the file so far (giflib writes through WriteBytes)
    size_t length, capacity;
    int width, height, delay;
    int frames;          // added so far
    GifByteType* planes; // scratch: red, green, blue planes, then the indexed frame
    bool failed;
};

static int WriteBytes(GifFileType* gif, const GifByteType* bytes, int count)
{
    lsGifWriter* w = gif->UserData;
    if (w->length + (size_t)count > w->capacity)
    {
        size_t grown = w->capacity > 0 ? w->capacity : 65536;
        while (w->length + (size_t)count > grown)
            grown *= 2;
        w->data = lsRealloc(w->data, w->capacity, grown);
        w->capacity = grown;
    }
    memcpy(w->data + w->length, bytes, (size_t)count);
    w->length += (size_t)count;
    return count;
}

bool lsGifFrameCountOk(long long frames, long long steps, int every, lsError* err)
{
    if (frames <= LS_GIF_MAX_FRAMES)
        return true;
    return lsFail(err,
                  "%lld frames (%lld steps, one frame every %d): a GIF holds at most %d; raise --every or lower "
                  "--steps",
                  frames, steps, every, LS_GIF_MAX_FRAMES);
}

static size_t PlaneBytes(const lsGifWriter* w) { return (size_t)w->width * (size_t)w->height; }

lsGifWriter* lsCreateGifWriter(int width, int height, double frameSeconds, lsError* err)
{
    LS_ASSERT(width > 0 && height > 0);
    lsGifWriter* w = lsAllocZero(1, sizeof(lsGifWriter));
    w->width = width;
    w->height = height;
    // GIF delays are in hundredths of a second; most viewers treat under 2 as "as fast as you can".
    double hundredths = frameSeconds * 100.0;
    w->delay = hundredths < 2.0 ? 2 : (hundredths > 65535.0 ? 65535 : (int)lround(hundredths));
    int code = 0;
    w->gif = EGifOpen(w, WriteBytes, &code);
    if (w->gif == NULL)
    {
        lsFree(w, sizeof(lsGifWriter));
        return lsFailNull(err, "cannot start a GIF: %s", GifErrorString(code));
    }
    w->planes = lsAlloc(4 * PlaneBytes(w));
    EGifSetGifVersion(w->gif, true); // GIF89a: frame delays and the looping extension
    if (EGifPutScreenDesc(w->gif, width, height, 8, 0, NULL) == GIF_ERROR)
    {
        lsFail(err, "cannot write a GIF header: %s", GifErrorString(w->gif->Error));
        w->failed = true;
        return w;
    }
    // NETSCAPE2.0: loop for ever.
    unsigned char loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(w->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(w->gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(w->gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(w->gif) == GIF_ERROR)
    {
        lsFail(err, "cannot write a GIF header: %s", GifErrorString(w->gif->Error));
        w->failed = true;
    }
    return w;
}

bool lsGifWriter_AddFrame(lsGifWriter* w, SDL_Surface* surface, lsError* err)
{
    LS_ASSERT(surface->w == w->width && surface->h == w->height);
    if (w->failed)
        return false;
    if (w->length > LS_GIF_MAX_BYTES)
    {
        // Frames that compress badly (noise, a huge --size) reach the memory bound before the frame count's.
        w->failed = true;
        return lsFail(err,
                      "the GIF passed %zu MB after %d frames; raise --every, lower --steps or use a smaller --size",
                      LS_GIF_MAX_BYTES >> 20, w->frames);
    }
    size_t n = PlaneBytes(w);
    GifByteType *red = w->planes, *green = red + n, *blue = green + n, *indexed = blue + n;
    for (int y = 0; y < w->height; ++y)
    {
        const Uint32* row = (const Uint32*)((const Uint8*)surface->pixels + (ptrdiff_t)y * surface->pitch);
        for (int x = 0; x < w->width; ++x)
        {
            Uint8 r, g, b, a;
            SDL_GetRGBA(row[x], surface->format, &r, &g, &b, &a);
            size_t i = (size_t)y * (size_t)w->width + (size_t)x;
            red[i] = r;
            green[i] = g;
            blue[i] = b;
        }
    }
    GifColorType colors[256];
    int colorCount = 256;
    if (GifQuantizeBuffer((unsigned)w->width, (unsigned)w->height, &colorCount, red, green, blue, indexed, colors) ==
        GIF_ERROR)
    {
        w->failed = true;
        return lsFail(err, "cannot reduce a frame to 256 colours");
    }
    ColorMapObject* map = GifMakeMapObject(256, colors);
    GraphicsControlBlock control = {DISPOSAL_UNSPECIFIED, false, w->delay, NO_TRANSPARENT_COLOR};
    GifByteType extension[4];
    size_t extensionLength = EGifGCBToExtension(&control, extension);
    bool ok = map != NULL &&
              EGifPutExtension(w->gif, GRAPHICS_EXT_FUNC_CODE, (int)extensionLength, extension) != GIF_ERROR &&
              EGifPutImageDesc(w->gif, 0, 0, w->width, w->height, false, map) != GIF_ERROR;
    for (int y = 0; ok && y < w->height; ++y)
        ok = EGifPutLine(w->gif, indexed + (size_t)y * (size_t)w->width, w->width) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok)
    {
        w->failed = true;
        return lsFail(err, "cannot write a GIF frame: %s", GifErrorString(w->gif->Error));
    }
    w->frames += 1;
    return true;
}

bool lsFinishGif(lsGifWriter* w, const char* path, size_t* bytes, lsError* err)
{
    if (w == NULL)
        return false;
    int code = 0;
    bool ok = !w->failed;
    if (EGifCloseFile(w->gif, &code) == GIF_ERROR && ok)
        ok = lsFail(err, "cannot finish the GIF: %s", GifErrorString(code));
    if (ok && path != NULL)
        ok = lsWriteFileAtomic(path, w->data, w->length, err);
    if (bytes != NULL)
        *bytes = w->length;
    lsFree(w->data, w->capacity);
    lsFree(w->planes, 4 * PlaneBytes(w));
    lsFree(w, sizeof(lsGifWriter));
    return ok;
}

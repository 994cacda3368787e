// lidarsim front end: animated GIF files (giflib), for `lidarsim render -o run.gif`.
#pragma once

#include "lidarsim/base.h"

#include <SDL2/SDL.h>

/// The most frames one GIF may have. The GIF is built in memory (about 90 KB a frame at 1280x800, 10 KB at
/// 400x250) and each frame takes a few milliseconds to quantize, so `--steps 100000000` ran for hours and then ran out
/// of memory: `lidarsim render` refuses more frames before drawing any (lsGifFrameCountOk).
#define LS_GIF_MAX_FRAMES 20000
/// The most bytes a GIF may reach in memory; the frame that passes it fails with a message.
#define LS_GIF_MAX_BYTES ((size_t)1 << 30)

/// True when a GIF of `frames` frames (a frame every `every` steps of `steps`) is within LS_GIF_MAX_FRAMES, else false
/// with err saying how to make fewer frames.
bool lsGifFrameCountOk(long long frames, long long steps, int every, lsError* err);

/// A GIF being built in memory (opaque). Create with lsCreateGifWriter, end with lsFinishGif.
typedef struct lsGifWriter lsGifWriter;

/// Starts a looping GIF of width x height frames shown frameSeconds each (rounded to hundredths, at least 0.02 s).
/// NULL with err filled when giflib cannot start one.
lsGifWriter* lsCreateGifWriter(int width, int height, double frameSeconds, lsError* err);
/// Appends one frame (an RGBA32 surface of the writer's size), reduced to its own 256-colour palette.
bool lsGifWriter_AddFrame(lsGifWriter* writer, SDL_Surface* surface, lsError* err);
/// Finishes the GIF and writes it atomically to path (NULL: nothing written), the size in *bytes (may be NULL);
/// frees the writer in every case. False with err filled when a frame or the write failed (then no file changed).
bool lsFinishGif(lsGifWriter* writer, const char* path, size_t* bytes, lsError* err);

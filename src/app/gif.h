// lidarsim front end: animated GIF files (giflib), for `lidarsim render -o run.gif`.
#pragma once

#include "lidarsim/base.h"

#include <SDL2/SDL.h>

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

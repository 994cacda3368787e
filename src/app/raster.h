// lidarsim front end: an anti-aliased software rasterizer on an RGBA32 surface (the canvas the window and
// `lidarsim render` share). Lines, discs, rings and polygons get coverage-weighted edges, so targets are round and
// a fan of 720 translucent beams reads as a smooth fan instead of moire. No SDL calls: it writes pixels.
//
// Coordinates are screen pixels as the camera gives them, with pixel (i, j)'s centre at (i, j): a 1-pixel line
// along x = 10 covers column 10 exactly, so thin strokes on whole coordinates stay crisp.
#pragma once

#include "lidarsim/vec.h"

#include <stdbool.h>
#include <stdint.h>

/// A colour with straight (not premultiplied) alpha; also what the tests read back from rendered pixels.
typedef struct lsColor
{
    uint8_t r, g, b, a;
} lsColor;

/// Pixels to draw on, a clip rectangle, and scratch rows for polygon coverage. Make with lsMakeRaster, free the
/// scratch with lsFreeRaster.
typedef struct lsRaster
{
    uint8_t* pixels; ///< RGBA32: bytes R, G, B, A per pixel
    int width, height, pitch;
    int clipX0, clipY0, clipX1, clipY1; ///< pixels drawn: [clipX0, clipX1) x [clipY0, clipY1)
    float* cover;                       ///< polygon scratch: width + 2 entries each
    float* delta;
} lsRaster;

/// A raster over width x height RGBA32 pixels (pitch bytes per row), clipped to the whole area.
lsRaster lsMakeRaster(void* pixels, int width, int height, int pitch);
/// Frees the scratch rows.
void lsFreeRaster(lsRaster* raster);
/// Restricts drawing to [x0, x1) x [y0, y1), intersected with the pixels.
void lsRaster_SetClip(lsRaster* raster, int x0, int y0, int x1, int y1);
/// Drawing everywhere again.
void lsRaster_ResetClip(lsRaster* raster);

/// Every pixel (inside the clip) set to c, alpha ignored (opaque).
void lsRaster_Clear(lsRaster* raster, lsColor c);
/// Blends c over the pixels [x0, x1) x [y0, y1).
void lsRaster_FillRect(lsRaster* raster, int x0, int y0, int x1, int y1, lsColor c);
/// Blends c over one pixel with coverage in [0, 1].
void lsRaster_Plot(lsRaster* raster, int x, int y, lsColor c, float coverage);
/// An anti-aliased line a-b, width pixels thick (butt ends).
void lsRaster_Line(lsRaster* raster, lsVec2 a, lsVec2 b, double width, lsColor c);
/// An anti-aliased filled disc.
void lsRaster_Disc(lsRaster* raster, lsVec2 center, double radius, lsColor c);
/// An anti-aliased circle outline of the given stroke width, centred on radius.
void lsRaster_Ring(lsRaster* raster, lsVec2 center, double radius, double width, lsColor c);
/// An anti-aliased filled polygon (even-odd rule; convex or not), count >= 3 points.
void lsRaster_Polygon(lsRaster* raster, const lsVec2* points, int count, lsColor c);
/// Blends c through an 8-bit coverage mask (w x h bytes, `stride` per row) with its top-left pixel at (x, y):
/// how text is drawn.
void lsRaster_Mask(lsRaster* raster, int x, int y, const uint8_t* mask, int w, int h, int stride, lsColor c);

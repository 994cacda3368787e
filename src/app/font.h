// lidarsim front end: the HUD's text. A scalable TrueType font through SDL2_ttf (DejaVu Sans Mono from
// fonts-dejavu-core, found by fontconfig or at its Debian path, or any TTF named by $LIDARSIM_FONT), its glyphs
// rendered once into coverage masks and drawn through the rasterizer in any colour. Without a TrueType font, the
// 8x8 bitmap font that ships with SDL2_gfx stands in (one warning on stderr), so text never disappears.
#pragma once

#include "app/raster.h"

typedef struct lsFont lsFont;

/// The UI font with lines about pixelSize pixels apart. Never NULL (the bitmap font is the fallback). Free with
/// lsDestroyFont.
lsFont* lsCreateFont(int pixelSize);
/// Frees a font from lsCreateFont (NULL allowed).
void lsDestroyFont(lsFont* font);

/// Pixels from one line's top to the next.
int lsFont_LineHeight(const lsFont* font);
/// Width of one character cell in pixels (the font is monospaced).
int lsFont_Advance(const lsFont* font);
/// Width of a UTF-8 string in pixels.
int lsFont_Width(const lsFont* font, const char* text);
/// The size asked for at creation.
int lsFont_Size(const lsFont* font);
/// Draws UTF-8 text with its line's top-left at (x, y).
void lsFont_Draw(lsFont* font, lsRaster* raster, int x, int y, const char* text, lsColor c);
/// The TrueType file in use, or NULL for the bitmap fallback.
const char* lsFont_Path(const lsFont* font);

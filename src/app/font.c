// lidarsim front end: TrueType text for the HUD (see font.h).
#include "app/font.h"

#include "lidarsim/base.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL2_gfxPrimitives_font.h>
#include <SDL2/SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef LS_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>
#endif

/// Glyphs cached: code points below this (ASCII, Latin-1, Greek: theta, omega); others draw as '?'.
#define LS_FONT_CODE_POINTS 0x400
/// Where Debian's fonts-dejavu-core puts the font when fontconfig is not there to say.
#define LS_DEJAVU_MONO "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"

typedef struct Glyph
{
    uint8_t* mask; ///< w x h coverage, lsAlloc'd; NULL for a blank glyph
    int w, h;
    int advance; ///< pixels to the next glyph
} Glyph;

struct lsFont
{
    TTF_Font* ttf; ///< NULL: the 8x8 bitmap font
    int size, lineHeight, advance;
    char path[1024];
    Glyph* glyphs[LS_FONT_CODE_POINTS]; ///< lsAlloc'd on first use
};

// The fallback font's path is searched once per process; the warning is printed once.
static bool s_warned;

static bool FindFontPath(char* out, size_t capacity)
{
    const char* env = getenv("LIDARSIM_FONT");
    if (env != NULL && env[0] != '\0')
    {
        snprintf(out, capacity, "%s", env);
        return true;
    }
#ifdef LS_HAVE_FONTCONFIG
    // fontconfig picks the best installed match for the name (DejaVu Sans Mono itself, or its nearest relative).
    if (FcInit())
    {
        FcPattern* pattern = FcNameParse((const FcChar8*)"DejaVu Sans Mono:style=Book");
        bool found = false;
        if (pattern != NULL)
        {
            FcConfigSubstitute(NULL, pattern, FcMatchPattern);
            FcDefaultSubstitute(pattern);
            FcResult result = FcResultNoMatch;
            FcPattern* match = FcFontMatch(NULL, pattern, &result);
            FcChar8* file = NULL;
            if (match != NULL && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch && file != NULL)
            {
                size_t length = strlen((const char*)file);
                // Only a TrueType or OpenType outline font: SDL2_ttf cannot draw bitmap fonts fontconfig may offer.
                found = length > 4 && (strcmp((const char*)file + length - 4, ".ttf") == 0 ||
                                       strcmp((const char*)file + length - 4, ".otf") == 0);
                if (found)
                    snprintf(out, capacity, "%s", (const char*)file);
            }
            if (match != NULL)
                FcPatternDestroy(match);
            FcPatternDestroy(pattern);
        }
        // The path is copied out, so fontconfig's caches can go now (otherwise LeakSanitizer reports them).
        FcFini();
        if (found)
            return true;
    }
#endif
    snprintf(out, capacity, "%s", LS_DEJAVU_MONO);
    return true;
}

lsFont* lsCreateFont(int pixelSize)
{
    lsFont* font = lsAllocZero(1, sizeof(lsFont));
    font->size = pixelSize < 6 ? 6 : pixelSize;
    if (TTF_Init() == 0)
    {
        FindFontPath(font->path, sizeof font->path);
        // The point size at 72 dpi is the pixel size of the em; DejaVu's line is about 1.16 em.
        font->ttf = TTF_OpenFont(font->path, (int)(font->size / 1.16 + 0.5));
        if (font->ttf == NULL)
        {
            if (!s_warned)
                fprintf(stderr,
                        "lidarsim: cannot open the font %s (%s); install fonts-dejavu-core or set "
                        "LIDARSIM_FONT to a .ttf file; using the built-in 8x8 font\n",
                        font->path, TTF_GetError());
            s_warned = true;
            TTF_Quit();
        }
    }
    else if (!s_warned)
    {
        fprintf(stderr, "lidarsim: TTF_Init failed (%s); using the built-in 8x8 font\n", TTF_GetError());
        s_warned = true;
    }
    if (font->ttf != NULL)
    {
        TTF_SetFontHinting(font->ttf, TTF_HINTING_LIGHT);
        font->lineHeight = TTF_FontLineSkip(font->ttf);
        int minX, maxX, minY, maxY, advance = 0;
        TTF_GlyphMetrics32(font->ttf, 'M', &minX, &maxX, &minY, &maxY, &advance);
        font->advance = advance > 0 ? advance : font->size / 2;
    }
    else
    {
        font->path[0] = '\0';
        font->lineHeight = 11; // 8 pixels of glyph and a gap, as the HUD had before
        font->advance = 8;
    }
    return font;
}

void lsDestroyFont(lsFont* font)
{
    if (font == NULL)
        return;
    for (int i = 0; i < LS_FONT_CODE_POINTS; ++i)
    {
        Glyph* g = font->glyphs[i];
        if (g == NULL)
            continue;
        lsFree(g->mask, (size_t)g->w * (size_t)g->h);
        lsFree(g, sizeof(Glyph));
    }
    if (font->ttf != NULL)
    {
        TTF_CloseFont(font->ttf);
        TTF_Quit();
    }
    lsFree(font, sizeof(lsFont));
}

int lsFont_LineHeight(const lsFont* font) { return font->lineHeight; }
int lsFont_Advance(const lsFont* font) { return font->advance; }
int lsFont_Size(const lsFont* font) { return font->size; }
const char* lsFont_Path(const lsFont* font) { return font->ttf != NULL ? font->path : NULL; }

// The bitmap font is code page 437: its theta, degree sign and so on sit at other codes than Unicode's.
static unsigned BitmapCode(uint32_t codePoint)
{
    switch (codePoint)
    {
    case 0x03B8: // theta
        return 0xE9;
    case 0x00B0: // degree sign
        return 0xF8;
    case 0x03C9: // omega
        return 'w';
    case 0x00B1: // plus-minus
        return 0xF1;
    default:
        return codePoint < 0x80 ? codePoint : '?';
    }
}

static Glyph* MakeGlyph(lsFont* font, uint32_t codePoint)
{
    Glyph* g = lsAllocZero(1, sizeof(Glyph));
    g->advance = font->advance;
    if (font->ttf == NULL)
    {
        const unsigned char* rows = gfxPrimitivesFontdata + (size_t)8 * BitmapCode(codePoint);
        g->w = 8;
        g->h = 8;
        g->mask = lsAllocZero(64, 1);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x)
                g->mask[y * 8 + x] = (rows[y] & (0x80 >> x)) != 0 ? 255 : 0;
        return g;
    }
    int minX, maxX, minY, maxY, advance = 0;
    if (TTF_GlyphMetrics32(font->ttf, codePoint, &minX, &maxX, &minY, &maxY, &advance) == 0 && advance > 0)
        g->advance = advance;
    SDL_Surface* rendered = TTF_RenderGlyph32_Blended(font->ttf, codePoint, (SDL_Color){255, 255, 255, 255});
    SDL_Surface* rgba = rendered != NULL ? SDL_ConvertSurfaceFormat(rendered, SDL_PIXELFORMAT_RGBA32, 0) : NULL;
    if (rgba != NULL && rgba->w > 0 && rgba->h > 0 && SDL_LockSurface(rgba) == 0)
    {
        g->w = rgba->w;
        g->h = rgba->h;
        g->mask = lsAlloc((size_t)g->w * (size_t)g->h);
        for (int y = 0; y < g->h; ++y)
        {
            const uint8_t* row = (const uint8_t*)rgba->pixels + (size_t)y * (size_t)rgba->pitch;
            for (int x = 0; x < g->w; ++x)
                g->mask[(size_t)y * (size_t)g->w + (size_t)x] = row[4 * x + 3];
        }
        SDL_UnlockSurface(rgba);
    }
    SDL_FreeSurface(rgba);
    SDL_FreeSurface(rendered);
    return g;
}

// Next code point of UTF-8 text; malformed bytes read as '?' one at a time.
static uint32_t NextCodePoint(const char** text)
{
    const unsigned char* s = (const unsigned char*)*text;
    uint32_t c = s[0];
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (c >= 0x80 && c < 0xC0)
    {
        *text += 1;
        return '?';
    }
    c &= extra == 0 ? 0x7F : (0x3F >> extra);
    for (int i = 1; i <= extra; ++i)
    {
        if ((s[i] & 0xC0) != 0x80)
        {
            *text += 1;
            return '?';
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *text += 1 + extra;
    return c;
}

static Glyph* GetGlyph(lsFont* font, uint32_t codePoint)
{
    if (codePoint >= LS_FONT_CODE_POINTS)
        codePoint = '?';
    if (font->glyphs[codePoint] == NULL)
        font->glyphs[codePoint] = MakeGlyph(font, codePoint);
    return font->glyphs[codePoint];
}

int lsFont_Width(const lsFont* font, const char* text)
{
    // Monospaced: every glyph advances one cell (the width of a string never needs its glyphs).
    int count = 0;
    while (*text != '\0')
    {
        NextCodePoint(&text);
        ++count;
    }
    return count * font->advance;
}

void lsFont_Draw(lsFont* font, lsRaster* raster, int x, int y, const char* text, lsColor c)
{
    // The bitmap font is centred in its taller line.
    int top = font->ttf == NULL ? y + (font->lineHeight - 8) / 2 : y;
    while (*text != '\0')
    {
        uint32_t codePoint = NextCodePoint(&text);
        Glyph* g = GetGlyph(font, codePoint);
        if (g->mask != NULL && codePoint != ' ')
            lsRaster_Mask(raster, x, top, g->mask, g->w, g->h, g->w, c);
        x += g->advance;
    }
}

// lidarsim front end: the anti-aliased software rasterizer (see raster.h). Coverage is exact area along the minor
// axis of lines (Wu's method generalised to any width) and per sub-scanline for polygons (4 per row, with exact
// horizontal coverage at span ends); discs and rings take coverage from the distance to the edge.
#include "app/raster.h"

#include "lidarsim/base.h"

#include <math.h>
#include <string.h>

// min and max without fmin's NaN rules: these are libm calls in a strict-IEEE build, and they sit in the inner
// loops (inputs are finite: checked on entry).
static inline double Min(double a, double b) { return a < b ? a : b; }
static inline double Max(double a, double b) { return a > b ? a : b; }

// floor() is a libm call on baseline x86-64 (no SSE4.1 rounding); the hot loops floor values well inside int range.
static inline int Floor(double v)
{
    int i = (int)v;
    return i - (v < (double)i);
}

// A value in 16.16 fixed point, rounded (llround is a libm call too; values are within a million pixels).
static inline int64_t Fixed(double v)
{
    double scaled = v * 65536.0 + 0.5;
    int64_t i = (int64_t)scaled;
    return i - (scaled < (double)i);
}

/// Sub-scanlines per pixel row for polygon coverage: 4 levels of vertical anti-aliasing, exact horizontally.
#define LS_POLYGON_SUBSAMPLES 4

lsRaster lsMakeRaster(void* pixels, int width, int height, int pitch)
{
    LS_ASSERT(pixels != NULL && width > 0 && height > 0 && pitch >= 4 * width);
    lsRaster r = {.pixels = pixels, .width = width, .height = height, .pitch = pitch};
    lsRaster_ResetClip(&r);
    r.cover = lsAllocZero((size_t)width + 2, sizeof(float));
    r.delta = lsAllocZero((size_t)width + 2, sizeof(float));
    return r;
}

void lsFreeRaster(lsRaster* raster)
{
    lsFree(raster->cover, ((size_t)raster->width + 2) * sizeof(float));
    lsFree(raster->delta, ((size_t)raster->width + 2) * sizeof(float));
    raster->cover = raster->delta = NULL;
}

void lsRaster_SetClip(lsRaster* raster, int x0, int y0, int x1, int y1)
{
    raster->clipX0 = x0 < 0 ? 0 : x0;
    raster->clipY0 = y0 < 0 ? 0 : y0;
    raster->clipX1 = x1 > raster->width ? raster->width : x1;
    raster->clipY1 = y1 > raster->height ? raster->height : y1;
}

void lsRaster_ResetClip(lsRaster* raster) { lsRaster_SetClip(raster, 0, 0, raster->width, raster->height); }

// Source-over with straight alpha; the canvas stays opaque.
static inline void BlendPixel(uint8_t* p, lsColor c, int alpha)
{
    if (alpha >= 255)
    {
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
        p[3] = 255;
        return;
    }
    p[0] = (uint8_t)(p[0] + ((c.r - p[0]) * alpha + (c.r >= p[0] ? 127 : -127)) / 255);
    p[1] = (uint8_t)(p[1] + ((c.g - p[1]) * alpha + (c.g >= p[1] ? 127 : -127)) / 255);
    p[2] = (uint8_t)(p[2] + ((c.b - p[2]) * alpha + (c.b >= p[2] ? 127 : -127)) / 255);
    p[3] = 255;
}

// Pixel (x, y), which must lie on the canvas.
static inline uint8_t* PixelAt(lsRaster* r, int x, int y)
{
    return r->pixels + (size_t)y * (size_t)r->pitch + (size_t)x * 4;
}

static inline void Plot(lsRaster* r, int x, int y, lsColor c, float coverage)
{
    if (x < r->clipX0 || x >= r->clipX1 || y < r->clipY0 || y >= r->clipY1 || !(coverage > 0.0f))
        return;
    int alpha = coverage >= 1.0f ? c.a : (int)((float)c.a * coverage + 0.5f);
    if (alpha <= 0)
        return;
    BlendPixel(PixelAt(r, x, y), c, alpha);
}

void lsRaster_Plot(lsRaster* raster, int x, int y, lsColor c, float coverage) { Plot(raster, x, y, c, coverage); }

void lsRaster_Clear(lsRaster* raster, lsColor c)
{
    c.a = 255;
    lsRaster_FillRect(raster, raster->clipX0, raster->clipY0, raster->clipX1, raster->clipY1, c);
}

void lsRaster_FillRect(lsRaster* raster, int x0, int y0, int x1, int y1, lsColor c)
{
    uint8_t opaque[4] = {c.r, c.g, c.b, 255};
    uint32_t word;
    memcpy(&word, opaque, 4); // the pixel's bytes as one word, whatever the byte order
    x0 = x0 < raster->clipX0 ? raster->clipX0 : x0;
    y0 = y0 < raster->clipY0 ? raster->clipY0 : y0;
    x1 = x1 > raster->clipX1 ? raster->clipX1 : x1;
    y1 = y1 > raster->clipY1 ? raster->clipY1 : y1;
    for (int y = y0; y < y1; ++y)
    {
        uint8_t* p = raster->pixels + (size_t)y * (size_t)raster->pitch + (size_t)x0 * 4;
        if (c.a == 255)
        {
            for (int x = x0; x < x1; ++x, p += 4)
                memcpy(p, &word, 4);
            continue;
        }
        for (int x = x0; x < x1; ++x, p += 4)
            BlendPixel(p, c, c.a);
    }
}

// One column of a hair line: the pixel pair (j, j + 1) across the minor axis at major coordinate i.
static inline void HairPair(lsRaster* r, bool steep, int i, int j, int lower, int upper, lsColor c, int minorLo,
                            int minorHi)
{
    // The address is formed only for a pixel inside the clip: j may be one off the canvas (j = -1 would wrap).
    if (lower > 0 && j >= minorLo && j <= minorHi)
        BlendPixel(steep ? PixelAt(r, j, i) : PixelAt(r, i, j), c, lower);
    if (upper > 0 && j + 1 >= minorLo && j + 1 <= minorHi)
        BlendPixel(steep ? PixelAt(r, j + 1, i) : PixelAt(r, i, j + 1), c, upper);
}

// Xiaolin Wu's line for strokes up to a pixel wide (beams, grid, outlines: most of a frame's lines): per column
// two pixels share the coverage by the fractional position. The whole columns between the two ends step in 16.16
// fixed point (this loop draws most of a frame's pixels). Coordinates as in lsRaster_Line after its swaps (x
// major, x0 < x1, shifted by half a pixel).
static void HairLine(lsRaster* r, bool steep, double x0, double y0, double x1, double slope, double width, lsColor c)
{
    int lo = steep ? r->clipY0 : r->clipX0, hi = (steep ? r->clipY1 : r->clipX1) - 1;
    int minorLo = steep ? r->clipX0 : r->clipY0, minorHi = (steep ? r->clipX1 : r->clipY1) - 1;
    int alpha = (int)(c.a * width + 0.5);
    int first = Floor(x0), last = Floor(x1);
    // The two end columns, partly covered.
    for (int end = 0; end < 2; ++end)
    {
        int i = end == 0 ? first : last;
        if (i < lo || i > hi || (end == 1 && last == first))
            continue;
        double along = Min((double)i + 1.0, x1) - Max((double)i, x0);
        double y = y0 + ((double)i + 0.5 - x0) * slope - 0.5;
        int j = Floor(y);
        double a = alpha * Min(along, 1.0);
        double f = y - (double)j;
        HairPair(r, steep, i, j, (int)(a * (1.0 - f) + 0.5), (int)(a * f + 0.5), c, minorLo, minorHi);
    }
    int i0 = first + 1 < lo ? lo : first + 1, i1 = last - 1 > hi ? hi : last - 1;
    if (i1 < i0)
        return;
    int64_t y = Fixed(y0 + ((double)i0 + 0.5 - x0) * slope - 0.5);
    int64_t dy = Fixed(slope);
    for (int i = i0; i <= i1; ++i, y += dy)
    {
        int j = (int)(y >> 16); // arithmetic shift: floor for negative values too
        int upper = (alpha * (int)((y >> 8) & 0xFF) + 127) >> 8;
        HairPair(r, steep, i, j, alpha - upper, upper, c, minorLo, minorHi);
    }
}

// One whole column of a wide stroke: the minor-axis span [top, bottom) in 16.16 fixed point, partial pixels at
// its two ends, full ones between.
static void WideColumn(lsRaster* r, bool steep, int i, int64_t top, int64_t bottom, lsColor c, int minorLo, int minorHi)
{
    int jt = (int)(top >> 16), jb = (int)(bottom >> 16);
    for (int j = jt < minorLo ? minorLo : jt; j <= jb && j <= minorHi; ++j)
    {
        int64_t lo = (int64_t)j << 16, hi = lo + 65536;
        int64_t covered = (bottom < hi ? bottom : hi) - (top > lo ? top : lo);
        int alpha = (int)((c.a * covered + 32768) >> 16);
        if (alpha <= 0)
            continue;
        BlendPixel(steep ? PixelAt(r, j, i) : PixelAt(r, i, j), c, alpha);
    }
}

void lsRaster_Line(lsRaster* raster, lsVec2 a, lsVec2 b, double width, lsColor c)
{
    // Pixel centres at whole coordinates: shift so pixel i covers [i, i + 1).
    double x0 = a.x + 0.5, y0 = a.y + 0.5, x1 = b.x + 0.5, y1 = b.y + 0.5;
    // Callers clip to the view first; anything beyond a million pixels is a bug's value, not a drawing.
    if (!(fabs(x0) < 1e6 && fabs(y0) < 1e6 && fabs(x1) < 1e6 && fabs(y1) < 1e6))
        return;
    bool steep = fabs(y1 - y0) > fabs(x1 - x0);
    if (steep)
    {
        double t = x0;
        x0 = y0;
        y0 = t;
        t = x1;
        x1 = y1;
        y1 = t;
    }
    if (x0 > x1)
    {
        double t = x0;
        x0 = x1;
        x1 = t;
        t = y0;
        y0 = y1;
        y1 = t;
    }
    double length = x1 - x0;
    double slope = length > 0.0 ? (y1 - y0) / length : 0.0;
    if (width <= 1.0 && length >= 1.0)
    {
        HairLine(raster, steep, x0, y0, x1, slope, width, c);
        return;
    }
    // The stroke's extent across the major axis: width / cos(angle to the major axis).
    double half = 0.5 * width * sqrt(1.0 + slope * slope);
    // Only the columns inside the clip (in the major axis' terms).
    double lo = steep ? raster->clipY0 : raster->clipX0, hi = steep ? raster->clipY1 : raster->clipX1;
    int i0 = Floor(Max(x0, lo - 1.0)), i1 = Floor(Min(x1, hi + 1.0));
    int minorLo = steep ? raster->clipX0 : raster->clipY0, minorHi = (steep ? raster->clipX1 : raster->clipY1) - 1;
    // Whole columns between the ends step in 16.16 fixed point (walls in a city: many short wide strokes).
    int majorLo = steep ? raster->clipY0 : raster->clipX0, majorHi = (steep ? raster->clipY1 : raster->clipX1) - 1;
    int f0 = Floor(x0) + 1, f1 = Floor(x1) - 1;
    f0 = f0 < majorLo ? majorLo : f0;
    f1 = f1 > majorHi ? majorHi : f1;
    if (length >= 1.0 && f1 >= f0)
    {
        int64_t mid = Fixed(y0 + ((double)f0 + 0.5 - x0) * slope);
        int64_t step = Fixed(slope), h = Fixed(half);
        for (int i = f0; i <= f1; ++i, mid += step)
            WideColumn(raster, steep, i, mid - h, mid + h, c, minorLo, minorHi);
    }
    else
    {
        f0 = i1 + 1; // no whole columns: the loop below draws them all
        f1 = i1;
    }
    for (int i = i0; i <= i1; ++i)
    {
        if (i == f0)
        {
            i = f1; // drawn above
            continue;
        }
        double c0 = Max((double)i, x0), c1 = Min((double)i + 1.0, x1);
        double along = c1 - c0;
        if (length < 1.0)
            along = length; // a line shorter than a pixel still shows, faintly
        if (!(along > 0.0))
            continue;
        double mid = y0 + (0.5 * (c0 + c1) - x0) * slope;
        double top = mid - half, bottom = mid + half;
        int j0 = Floor(top), j1 = Floor(bottom);
        j0 = j0 < minorLo ? minorLo : j0;
        j1 = j1 > minorHi ? minorHi : j1;
        for (int j = j0; j <= j1; ++j)
        {
            double across = Min(bottom, (double)j + 1.0) - Max(top, (double)j);
            float coverage = (float)(Min(across, 1.0) * Min(along, 1.0));
            if (steep)
                Plot(raster, j, i, c, coverage);
            else
                Plot(raster, i, j, c, coverage);
        }
    }
}

void lsRaster_Disc(lsRaster* raster, lsVec2 center, double radius, lsColor c)
{
    // Coverage of pixel (i, j) ~ radius + 0.5 - distance from its centre: exact for straight edges, close for arcs.
    double cx = center.x, cy = center.y;
    if (!(radius > 0.0 && radius < 1e6 && fabs(cx) < 1e6 && fabs(cy) < 1e6))
        return;
    double outer = radius + 0.5, inner = radius - 0.5;
    int j0 = Floor(cy - outer), j1 = (int)ceil(cy + outer);
    j0 = j0 < raster->clipY0 ? raster->clipY0 : j0;
    j1 = j1 >= raster->clipY1 ? raster->clipY1 - 1 : j1;
    for (int j = j0; j <= j1; ++j)
    {
        double dy = (double)j - cy;
        if (fabs(dy) >= outer)
            continue;
        double reach = sqrt(outer * outer - dy * dy);
        double full = inner > fabs(dy) ? sqrt(inner * inner - dy * dy) : -1.0;
        int x0 = (int)ceil(cx - reach), x1 = Floor(cx + reach);
        x0 = x0 < raster->clipX0 ? raster->clipX0 : x0;
        x1 = x1 >= raster->clipX1 ? raster->clipX1 - 1 : x1;
        for (int i = x0; i <= x1; ++i)
        {
            double dx = (double)i - cx;
            if (fabs(dx) <= full)
            {
                Plot(raster, i, j, c, 1.0f);
                continue;
            }
            double coverage = outer - sqrt(dx * dx + dy * dy);
            Plot(raster, i, j, c, (float)Min(coverage, 1.0));
        }
    }
}

void lsRaster_Ring(lsRaster* raster, lsVec2 center, double radius, double width, lsColor c)
{
    double cx = center.x, cy = center.y;
    if (!(radius > 0.0 && radius < 1e6 && fabs(cx) < 1e6 && fabs(cy) < 1e6))
        return;
    double half = 0.5 * width;
    double outer = radius + half + 0.5, inner = radius - half - 0.5;
    int j0 = Floor(cy - outer), j1 = (int)ceil(cy + outer);
    j0 = j0 < raster->clipY0 ? raster->clipY0 : j0;
    j1 = j1 >= raster->clipY1 ? raster->clipY1 - 1 : j1;
    for (int j = j0; j <= j1; ++j)
    {
        double dy = (double)j - cy;
        if (fabs(dy) >= outer)
            continue;
        double reach = sqrt(outer * outer - dy * dy);
        // Pixels nearer the centre than the inner edge are skipped whole.
        double hole = inner > fabs(dy) ? sqrt(inner * inner - dy * dy) : -1.0;
        int x0 = (int)ceil(cx - reach), x1 = Floor(cx + reach);
        x0 = x0 < raster->clipX0 ? raster->clipX0 : x0;
        x1 = x1 >= raster->clipX1 ? raster->clipX1 - 1 : x1;
        for (int i = x0; i <= x1; ++i)
        {
            double dx = (double)i - cx;
            if (fabs(dx) < hole)
            {
                i = Floor(cx + hole); // jump over the hole
                continue;
            }
            double coverage = half + 0.5 - fabs(sqrt(dx * dx + dy * dy) - radius);
            Plot(raster, i, j, c, (float)Min(coverage, 1.0));
        }
    }
}

// Adds the span [xa, xb) of one sub-scanline to the row's coverage: exact fractions at the two end pixels, the
// whole pixels between through the running sum in delta.
static void AddSpan(lsRaster* r, double xa, double xb, float weight, int* lo, int* hi)
{
    xa = Max(xa, (double)r->clipX0);
    xb = Min(xb, (double)r->clipX1);
    if (!(xb > xa))
        return;
    int ia = Floor(xa), ib = Floor(xb);
    if (ib >= r->width)
        ib = r->width - 1; // xb == width: the last pixel's right edge
    if (ia == ib)
    {
        r->cover[ia] += weight * (float)(xb - xa);
    }
    else
    {
        r->cover[ia] += weight * (float)((double)ia + 1.0 - xa);
        r->delta[ia + 1] += weight;
        r->delta[ib] -= weight;
        r->cover[ib] += weight * (float)(xb - (double)ib);
    }
    *lo = ia < *lo ? ia : *lo;
    *hi = ib > *hi ? ib : *hi;
}

#define LS_RASTER_MAX_CROSSINGS 128

void lsRaster_Polygon(lsRaster* raster, const lsVec2* points, int count, lsColor c)
{
    LS_ASSERT(count >= 3 && count <= LS_RASTER_MAX_CROSSINGS);
    double yMin = points[0].y;
    double yMax = yMin;
    for (int k = 0; k < count; ++k)
    {
        // Callers clip to the view first; a point beyond a million pixels (or NaN) is a bug's value.
        if (!(fabs(points[k].x) < 1e6 && fabs(points[k].y) < 1e6))
            return;
        yMin = Min(yMin, points[k].y);
        yMax = Max(yMax, points[k].y);
    }
    // Shifted by half a pixel like lines: pixel j covers [j, j + 1) after the shift.
    int j0 = Floor(yMin + 0.5), j1 = Floor(yMax + 0.5);
    j0 = j0 < raster->clipY0 ? raster->clipY0 : j0;
    j1 = j1 >= raster->clipY1 ? raster->clipY1 - 1 : j1;
    const float weight = 1.0f / LS_POLYGON_SUBSAMPLES;
    for (int j = j0; j <= j1; ++j)
    {
        int lo = raster->width, hi = -1;
        for (int s = 0; s < LS_POLYGON_SUBSAMPLES; ++s)
        {
            double y = (double)j + (s + 0.5) / LS_POLYGON_SUBSAMPLES - 0.5; // in the caller's coordinates
            double xs[LS_RASTER_MAX_CROSSINGS];
            int n = 0;
            for (int k = 0; k < count; ++k)
            {
                lsVec2 p = points[k], q = points[k + 1 == count ? 0 : k + 1];
                if ((p.y <= y) == (q.y <= y))
                    continue;
                double x = p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y) + 0.5;
                // Insertion keeps the crossings sorted (a handful per line).
                int at = n++;
                while (at > 0 && xs[at - 1] > x)
                {
                    xs[at] = xs[at - 1];
                    --at;
                }
                xs[at] = x;
            }
            for (int k = 0; k + 1 < n; k += 2)
                AddSpan(raster, xs[k], xs[k + 1], weight, &lo, &hi);
        }
        float run = 0.0f;
        for (int i = lo; i <= hi; ++i)
        {
            run += raster->delta[i];
            float coverage = raster->cover[i] + run;
            Plot(raster, i, j, c, coverage > 0.999f ? 1.0f : coverage);
            raster->cover[i] = 0.0f;
            raster->delta[i] = 0.0f;
        }
        if (hi >= lo)
            raster->delta[hi + 1] = 0.0f;
    }
}

void lsRaster_Mask(lsRaster* raster, int x, int y, const uint8_t* mask, int w, int h, int stride, lsColor c)
{
    int i0 = x < raster->clipX0 ? raster->clipX0 - x : 0, j0 = y < raster->clipY0 ? raster->clipY0 - y : 0;
    int i1 = x + w > raster->clipX1 ? raster->clipX1 - x : w, j1 = y + h > raster->clipY1 ? raster->clipY1 - y : h;
    for (int j = j0; j < j1; ++j)
    {
        const uint8_t* m = mask + (size_t)j * (size_t)stride;
        uint8_t* p = raster->pixels + (size_t)(y + j) * (size_t)raster->pitch + (size_t)(x + i0) * 4;
        for (int i = i0; i < i1; ++i, p += 4)
        {
            if (m[i] != 0)
                BlendPixel(p, c, m[i] == 255 ? c.a : (c.a * m[i] + 127) / 255);
        }
    }
}

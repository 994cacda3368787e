// RasterTest: the anti-aliased rasterizer (src/app/raster.h) and the HUD font (src/app/font.h): coverage adds up
// to the shape's area for lines, discs, rings and polygons at awkward positions and angles, opaque interiors are
// exact, clipping holds, absurd coordinates draw nothing; the intensity ramp and the trail; text draws in either
// font (TrueType or the bitmap fallback).
#include "test.h"

#include "app/font.h"
#include "app/raster.h"
#include "app/render.h"

#include <stdlib.h>
#include <string.h>

#define S 96

typedef struct Canvas
{
    uint8_t pixels[S * S * 4];
    lsRaster raster;
} Canvas;

static void Open(Canvas* c)
{
    memset(c->pixels, 0, sizeof c->pixels);
    c->raster = lsMakeRaster(c->pixels, S, S, S * 4);
}

static void Close(Canvas* c) { lsFreeRaster(&c->raster); }

// The red channel of pixel (x, y).
static int Red(const Canvas* c, int x, int y) { return c->pixels[(size_t)4 * ((size_t)y * S + (size_t)x)]; }

// Sum of the red channel over the canvas, in whole pixels: white drawn on black makes this the covered area.
static double Area(const Canvas* c)
{
    double sum = 0.0;
    for (int y = 0; y < S; ++y)
        for (int x = 0; x < S; ++x)
            sum += Red(c, x, y);
    return sum / 255.0;
}

static const lsColor white = {255, 255, 255, 255};

static int LineCoverage(void)
{
    Canvas c;
    // Hair lines (Wu): one pixel of coverage per column of the major axis, at any angle and sub-pixel offset.
    const double angles[] = {0.0, 0.3, 0.7854, 1.2, 1.5708, 2.5};
    for (int k = 0; k < 6; ++k)
    {
        Open(&c);
        lsVec2 d = lsDirection(angles[k]);
        lsVec2 a = {48.3 - 30.0 * d.x, 47.6 - 30.0 * d.y}, b = {48.3 + 30.0 * d.x, 47.6 + 30.0 * d.y};
        lsRaster_Line(&c.raster, a, b, 1.0, white);
        double major = fmax(fabs(b.x - a.x), fabs(b.y - a.y));
        ENSURE_SMALL(Area(&c) - major, 0.05 * major);
        Close(&c);
    }
    // Wide lines: width times length, the stroke's own area.
    for (int k = 0; k < 6; ++k)
    {
        Open(&c);
        lsVec2 d = lsDirection(angles[k]);
        lsVec2 a = {48.3 - 30.0 * d.x, 47.6 - 30.0 * d.y}, b = {48.3 + 30.0 * d.x, 47.6 + 30.0 * d.y};
        lsRaster_Line(&c.raster, a, b, 3.5, white);
        ENSURE_SMALL(Area(&c) - 3.5 * 60.0, 0.04 * 3.5 * 60.0);
        Close(&c);
    }
    // A 1-pixel line on a pixel row is exactly that row, fully covered: crisp, not smeared over two.
    Open(&c);
    lsRaster_Line(&c.raster, lsV(10.0, 20.0), lsV(80.0, 20.0), 1.0, white);
    ENSURE(Red(&c, 40, 20) == 255 && Red(&c, 40, 19) == 0 && Red(&c, 40, 21) == 0);
    Close(&c);
    return 0;
}

static int DiscRingPolygonAreas(void)
{
    Canvas c;
    const double radii[] = {0.8, 3.3, 11.7, 40.2};
    for (int k = 0; k < 4; ++k)
    {
        Open(&c);
        double r = radii[k];
        lsRaster_Disc(&c.raster, lsV(47.37, 48.81), r, white);
        ENSURE_SMALL(Area(&c) - LS_PI * r * r, 0.02 * LS_PI * r * r + 0.3);
        // The middle is fully covered, exactly the colour.
        if (r > 2.0)
            ENSURE(Red(&c, 47, 49) == 255);
        Close(&c);
    }
    Open(&c);
    lsRaster_Ring(&c.raster, lsV(48.2, 47.9), 30.0, 2.0, white);
    ENSURE_SMALL(Area(&c) - 2.0 * LS_PI * 30.0 * 2.0, 0.03 * 2.0 * LS_PI * 30.0 * 2.0);
    ENSURE(Red(&c, 48, 48) == 0); // the hole stays empty
    Close(&c);

    // A rotated square and a triangle: area within a few percent; a non-convex "C" by the even-odd rule.
    Open(&c);
    lsVec2 square[4];
    for (int i = 0; i < 4; ++i)
        square[i] = lsMulAdd(lsV(48.1, 47.7), 25.0, lsDirection(0.3 + 0.5 * LS_PI * i));
    lsRaster_Polygon(&c.raster, square, 4, white);
    ENSURE_SMALL(Area(&c) - 2.0 * 25.0 * 25.0, 0.01 * 2.0 * 25.0 * 25.0);
    Close(&c);
    Open(&c);
    lsVec2 triangle[3] = {{5.2, 7.9}, {88.6, 20.3}, {30.1, 90.4}};
    double triangleArea = 0.5 * fabs(lsCross(lsSub(triangle[1], triangle[0]), lsSub(triangle[2], triangle[0])));
    lsRaster_Polygon(&c.raster, triangle, 3, white);
    ENSURE_SMALL(Area(&c) - triangleArea, 0.01 * triangleArea);
    Close(&c);
    Open(&c);
    lsVec2 shapeC[8] = {{10, 10}, {80, 10}, {80, 30}, {30, 30}, {30, 60}, {80, 60}, {80, 80}, {10, 80}};
    lsRaster_Polygon(&c.raster, shapeC, 8, white);
    ENSURE_SMALL(Area(&c) - (70.0 * 70.0 - 50.0 * 30.0), 0.01 * 3400.0);
    ENSURE(Red(&c, 60, 45) == 0 && Red(&c, 60, 20) == 255);
    Close(&c);
    return 0;
}

static int ClipAndAbsurdInput(void)
{
    Canvas c;
    Open(&c);
    lsRaster_SetClip(&c.raster, 20, 20, 40, 40);
    lsRaster_Disc(&c.raster, lsV(30.0, 30.0), 30.0, white);
    ENSURE_SMALL(Area(&c) - 400.0, 1e-9); // exactly the clip square
    lsRaster_ResetClip(&c.raster);
    Close(&c);

    Open(&c);
    double nan = strtod("nan", NULL);
    lsRaster_Line(&c.raster, lsV(nan, 3.0), lsV(10.0, 10.0), 1.0, white);
    lsRaster_Line(&c.raster, lsV(-1e300, 3.0), lsV(1e300, 10.0), 2.0, white);
    lsRaster_Disc(&c.raster, lsV(1e300, 0.0), 5.0, white);
    lsRaster_Disc(&c.raster, lsV(10.0, 10.0), nan, white);
    lsRaster_Ring(&c.raster, lsV(10.0, 10.0), 1e300, 1.0, white);
    lsVec2 bad[3] = {{0.0, 0.0}, {nan, 5.0}, {5.0, 5.0}};
    lsRaster_Polygon(&c.raster, bad, 3, white);
    lsRaster_Line(&c.raster, lsV(-500.0, -500.0), lsV(-400.0, -450.0), 1.0, white); // all outside
    ENSURE(Area(&c) < 1.0);
    Close(&c);

    // Translucent colour and a coverage mask blend as source-over.
    Open(&c);
    uint8_t mask[4] = {255, 128, 0, 255};
    lsRaster_Mask(&c.raster, 94, 94, mask, 2, 2, 2, (lsColor){200, 100, 50, 255}); // half outside: clipped
    ENSURE(Red(&c, 94, 94) == 200 && Red(&c, 95, 94) == 100 && Red(&c, 95, 95) == 200);
    lsRaster_FillRect(&c.raster, 0, 0, 1, 1, (lsColor){255, 255, 255, 128});
    ENSURE(abs(c.pixels[0] - 128) <= 1 && c.pixels[3] == 255);
    Close(&c);
    return 0;
}

static int RampAndTrail(void)
{
    lsColor lo = lsIntensityColor(0.0), hi = lsIntensityColor(1.0), mid = lsIntensityColor(0.5);
    ENSURE(lo.b > lo.r && hi.r > hi.b);                                              // blue to red
    ENSURE(memcmp(&lo, &mid, sizeof lo) != 0 && memcmp(&mid, &hi, sizeof mid) != 0); // it varies
    lsColor below = lsIntensityColor(-3.0), above = lsIntensityColor(7.0), nan = lsIntensityColor(strtod("nan", NULL));
    ENSURE(memcmp(&below, &lo, sizeof lo) == 0 && memcmp(&above, &hi, sizeof hi) == 0 &&
           memcmp(&nan, &lo, sizeof lo) == 0);

    lsTrail* trail = lsAllocZero(1, sizeof(lsTrail));
    lsTrail_Add(trail, lsV(0.0, 0.0));
    lsTrail_Add(trail, lsV(0.01, 0.0)); // under 2 cm: not kept
    lsTrail_Add(trail, lsV(0.05, 0.0));
    ENSURE(trail->count == 2);
    lsTrail_Add(trail, lsV(10.0, 0.0)); // a jump: the trail starts afresh
    ENSURE(trail->count == 1);
    for (int i = 1; i <= LS_TRAIL_CAPACITY + 10; ++i)
        lsTrail_Add(trail, lsV(10.0 + 0.1 * i, 0.0));
    ENSURE(trail->count == LS_TRAIL_CAPACITY);
    ENSURE(trail->points[(trail->start + trail->count - 1) % LS_TRAIL_CAPACITY].x ==
           10.0 + 0.1 * (LS_TRAIL_CAPACITY + 10));
    lsFree(trail, sizeof(lsTrail));
    return 0;
}

static int FontDraws(void)
{
    lsFont* font = lsCreateFont(16);
    ENSURE(lsFont_LineHeight(font) >= 8 && lsFont_Advance(font) >= 4);
    ENSURE(lsFont_Width(font, "abc") == 3 * lsFont_Advance(font));
    ENSURE(lsFont_Width(font, "\xCE\xB8=1\xC2\xB0") == 4 * lsFont_Advance(font)); // UTF-8: theta and degree
    Canvas c;
    Open(&c);
    lsFont_Draw(font, &c.raster, 4, 4, "HUD text \xCE\xB8 \xFF", white); // a stray byte draws '?', no crash
    ENSURE(Area(&c) > 20.0);
    Close(&c);
    lsDestroyFont(font);
    return 0;
}

int RasterTest(void)
{
    RUN_SUBTEST(LineCoverage);
    RUN_SUBTEST(DiscRingPolygonAreas);
    RUN_SUBTEST(ClipAndAbsurdInput);
    RUN_SUBTEST(RampAndTrail);
    RUN_SUBTEST(FontDraws);
    return 0;
}

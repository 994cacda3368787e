// lidarsim core: a world written as a map_server map (see map.h): every pixel a wall, box, polygon or target
// touches (closed pixel squares, so a wall along a pixel edge marks both sides) is occupied (0), all else free
// (254), as Nav2's map_saver writes trinary maps. The PGM is written first, then the YAML that names it, each
// through a temporary file renamed into place, so a reader never sees half a map.
#define _POSIX_C_SOURCE 200809L // NAME_MAX
#include "lidarsim/map.h"

#include "core/file_write.h"
#include "core/limits.h"
#include "lidarsim/geometry.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Raster
{
    int width, height;
    uint8_t* pixels; // image order: row 0 at the top
    lsVec2 origin;   // world position of the lower-left corner
    double resolution;
} Raster;

static void Mark(Raster* r, long long x, long long y)
{
    if (x >= 0 && y >= 0 && x < r->width && y < r->height)
        r->pixels[(size_t)(r->height - 1 - y) * r->width + (size_t)x] = 0;
}

// Pixel coordinates (in pixels from the lower-left corner) of a world point.
static lsVec2 ToPixels(const Raster* r, lsVec2 p)
{
    return lsV((p.x - r->origin.x) / r->resolution, (p.y - r->origin.y) / r->resolution);
}

// Every pixel whose closed square the segment a-b (pixel coordinates) touches: row band by row band, the part of
// the segment inside the band spans columns ceil(umin) - 1 .. floor(umax).
static void MarkSegment(Raster* r, lsVec2 a, lsVec2 b)
{
    double vmin = lsFmin(a.y, b.y), vmax = lsFmax(a.y, b.y);
    long long y0 = (long long)ceil(vmin) - 1, y1 = (long long)floor(vmax);
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 >= r->height ? r->height - 1 : y1;
    for (long long y = y0; y <= y1; ++y)
    {
        double lo = lsFmax(vmin, (double)y), hi = lsFmin(vmax, (double)y + 1.0);
        double u0, u1;
        if (a.y == b.y)
        {
            u0 = lsFmin(a.x, b.x);
            u1 = lsFmax(a.x, b.x);
        }
        else
        {
            double t0 = (lo - a.y) / (b.y - a.y), t1 = (hi - a.y) / (b.y - a.y);
            double ua = a.x + t0 * (b.x - a.x), ub = a.x + t1 * (b.x - a.x);
            u0 = lsFmin(ua, ub);
            u1 = lsFmax(ua, ub);
        }
        long long x0 = (long long)ceil(u0) - 1, x1 = (long long)floor(u1);
        x0 = x0 < 0 ? 0 : x0;
        x1 = x1 >= r->width ? r->width - 1 : x1;
        for (long long x = x0; x <= x1; ++x)
            Mark(r, x, y);
    }
}

// A convex polygon (pixel coordinates, counter-clockwise): its outline, then every pixel whose centre is inside.
static void MarkConvex(Raster* r, const lsVec2* points, int count)
{
    lsVec2 lower = points[0], upper = points[0];
    for (int i = 0; i < count; ++i)
    {
        MarkSegment(r, points[i], points[(i + 1) % count]);
        lower = lsMin(lower, points[i]);
        upper = lsMax(upper, points[i]);
    }
    long long x0 = (long long)floor(lower.x), x1 = (long long)floor(upper.x);
    long long y0 = (long long)floor(lower.y), y1 = (long long)floor(upper.y);
    for (long long y = y0 < 0 ? 0 : y0; y <= y1 && y < r->height; ++y)
    {
        for (long long x = x0 < 0 ? 0 : x0; x <= x1 && x < r->width; ++x)
        {
            lsVec2 c = lsV((double)x + 0.5, (double)y + 0.5);
            bool inside = true;
            for (int i = 0; i < count && inside; ++i)
                inside = lsCross(lsSub(points[(i + 1) % count], points[i]), lsSub(c, points[i])) >= 0.0;
            if (inside)
                Mark(r, x, y);
        }
    }
}

// A disc (pixel coordinates): every pixel whose closed square is within the radius of the centre.
static void MarkDisc(Raster* r, lsVec2 c, double radius)
{
    long long x0 = (long long)floor(c.x - radius), x1 = (long long)floor(c.x + radius);
    long long y0 = (long long)floor(c.y - radius), y1 = (long long)floor(c.y + radius);
    for (long long y = y0 < 0 ? 0 : y0; y <= y1 && y < r->height; ++y)
    {
        for (long long x = x0 < 0 ? 0 : x0; x <= x1 && x < r->width; ++x)
        {
            double dx = lsFmax(lsFmax((double)x - c.x, c.x - ((double)x + 1.0)), 0.0);
            double dy = lsFmax(lsFmax((double)y - c.y, c.y - ((double)y + 1.0)), 0.0);
            if (dx * dx + dy * dy <= radius * radius)
                Mark(r, x, y);
        }
    }
}

// The raster for the world's bounds at a resolution, without its pixels: one pixel of free margin round the bounds,
// so every wall is bordered by free pixels. The margin's pixels (and the rounding up) must stay within the
// coordinates' bound, or no reader takes the map back: a resolution of 1e6 m put the origin at -1e6 m and the far
// edge at 2e6 m. False when it does not fit; then, when yamlPath is given, err says why and which way to change the
// resolution.
static bool PlanRaster(lsAABB bounds, double resolution, Raster* r, const char* yamlPath, lsError* err)
{
    double spanX = (bounds.upper.x - bounds.lower.x) / resolution + 2.0;
    double spanY = (bounds.upper.y - bounds.lower.y) / resolution + 2.0;
    if (!(spanX * spanY <= (double)LS_MAP_MAX_PIXELS) || !(spanX < 1e9) || !(spanY < 1e9))
    {
        if (yamlPath != NULL)
            lsFail(err,
                   "%s: at %g m per pixel the map would be %.0f x %.0f pixels, over the limit of %lld; use a coarser "
                   "--resolution",
                   yamlPath, resolution, spanX, spanY, LS_MAP_MAX_PIXELS);
        return false;
    }
    r->width = (int)ceil(spanX);
    r->height = (int)ceil(spanY);
    r->resolution = resolution;
    r->origin = lsV(bounds.lower.x - resolution, bounds.lower.y - resolution);
    r->pixels = NULL;
    lsGrid extent = {r->width, r->height, NULL, resolution, r->origin, 0.0};
    char label[LS_MAP_PATH_CAPACITY + 80] = "";
    lsError scratch;
    if (yamlPath != NULL)
        snprintf(label, sizeof label, "%s: not written (use a finer --resolution)", yamlPath);
    return lsGrid_CheckExtent(&extent, label, yamlPath != NULL ? err : &scratch);
}

// How far the world's bounds stay inside the coordinates' bound on their nearest side (<= 0 where they reach it);
// side gets 0..3 for lower x, lower y, upper x, upper y.
static double Room(lsAABB bounds, int* side)
{
    double room[4] = {bounds.lower.x + LS_MAX_COORDINATE, bounds.lower.y + LS_MAX_COORDINATE,
                      LS_MAX_COORDINATE - bounds.upper.x, LS_MAX_COORDINATE - bounds.upper.y};
    *side = 0;
    for (int i = 1; i < 4; ++i)
        *side = room[i] < room[*side] ? i : *side;
    return room[*side];
}

// Whether some resolution that --resolution takes fits both the pixel limit and the coordinates' bound. Finer pixels
// only add to the count, so the candidates are the coarsest the room allows: the map ends between one and two pixels
// past the bounds, so every resolution up to half the room fits the bound, and some up to the whole room may.
static bool SomeResolutionFits(lsAABB bounds)
{
    int side;
    double room = Room(bounds, &side);
    for (int k = 0; k <= 32 && room > 0.0; ++k)
    {
        double resolution = room * (1.0 - k / 64.0);
        Raster r;
        if (lsLimit_Holds(ls_quantityResolution, resolution) && PlanRaster(bounds, resolution, &r, NULL, NULL))
            return true;
    }
    return false;
}

// The message for a world that no resolution exports: the side where it reaches the coordinates' bound, leaving no
// room for the margin, or comes so near it that no resolution leaves a pixel of margin within the pixel limit.
static bool FailEveryResolution(lsAABB bounds, const char* yamlPath, lsError* err)
{
    int side;
    double room = Room(bounds, &side);
    double edge = side == 0 ? bounds.lower.x : side == 1 ? bounds.lower.y : side == 2 ? bounds.upper.x : bounds.upper.y;
    char at[32], gap[32], bound[96], resolutions[96];
    lsFormatNumber(at, sizeof at, edge);
    lsFormatNumber(gap, sizeof gap, room);
    lsLimit_Describe(ls_quantityCoordinate, bound, sizeof bound);
    lsLimit_Describe(ls_quantityResolution, resolutions, sizeof resolutions);
    if (!(room > 0.0))
        return lsFail(err,
                      "%s: not written at any resolution: the world reaches %c = %s m, the coordinates' bound (%s), "
                      "so its map with a pixel of margin round it cannot be written",
                      yamlPath, side % 2 == 0 ? 'x' : 'y', at, bound);
    return lsFail(err,
                  "%s: not written at any resolution: the world reaches %c = %s m, %s m from the coordinates' bound "
                  "(%s), and no resolution (%s) leaves a pixel of margin there with the map within %lld pixels",
                  yamlPath, side % 2 == 0 ? 'x' : 'y', at, gap, bound, resolutions, LS_MAP_MAX_PIXELS);
}

bool lsExportMap(const lsWorld* world, const char* yamlPath, double resolution, lsError* err)
{
    if (world == NULL || yamlPath == NULL)
        return lsFail(err, "%s", world == NULL ? "no world given to export" : "no map file name given");
    if (!(resolution > 0.0) || !isfinite(resolution))
        return lsFail(err, "%s: resolution must be a positive number of metres per pixel", yamlPath);
    // Only a map's name (the CLI's rule too): any other name was written over, a world file given as the output
    // among them (its YAML text replacing the world, a PGM beside it). A file named .yaml or .yml is always read as
    // a map, never as a world, so no world file can be the output.
    size_t pathLength = strlen(yamlPath);
    const char* dot = strrchr(yamlPath, '.');
    const char* slash = strrchr(yamlPath, '/');
    if (!lsIsMapPath(yamlPath))
        return lsFail(err,
                      "%s: not written: a map's file name ends in .yaml or .yml (its PGM image is written beside it)",
                      yamlPath);
    if (pathLength + 5 > LS_MAP_PATH_CAPACITY)
        return lsFail(err, "%s: not written: a path longer than %d bytes", yamlPath, LS_MAP_PATH_CAPACITY - 5);
    // Both names must fit a folder entry before anything is written: a YAML name over NAME_MAX (whose PGM name, one
    // byte shorter, fits) failed only at its rename, after the PGM had replaced the old one.
    size_t base = strlen(slash != NULL ? slash + 1 : yamlPath);
    if (base > NAME_MAX)
        return lsFail(err, "%s: not saved (a file name longer than %d bytes); nothing was written", yamlPath, NAME_MAX);

    // The PGM beside the YAML, same name.
    char imagePath[LS_MAP_PATH_CAPACITY];
    snprintf(imagePath, sizeof imagePath, "%.*s.pgm", (int)(dot - yamlPath), yamlPath);
    // Nor the map this world stands on (a map opened as a world, or a world file's "map"), however its name is spelt:
    // its YAML or image replaced by this rasterisation would be what the world loads next, its objects burnt in.
    const char* outputs[2] = {yamlPath, imagePath};
    const char* sources[2] = {world->map.yamlFile, world->map.imageFile};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            if (lsSameFile(outputs[i], sources[j]))
                return lsFail(err,
                              "%s: not written: it would replace %s, the map %s this world stands on; export to "
                              "another name",
                              yamlPath, sources[j], j == 0 ? "YAML" : "image");

    // Advice to change the resolution only where some resolution fits: a world that reaches the coordinates' bound
    // has no room for the margin at any (it was told to use a finer one, and at 1e-4 m a coarser one).
    lsAABB bounds = lsWorld_Bounds(world);
    Raster r;
    if (!PlanRaster(bounds, resolution, &r, NULL, NULL))
    {
        if (!SomeResolutionFits(bounds))
            return FailEveryResolution(bounds, yamlPath, err);
        PlanRaster(bounds, resolution, &r, yamlPath, err);
        return false;
    }
    size_t pixelCount = (size_t)r.width * (size_t)r.height;
    r.pixels = lsAlloc(pixelCount);
    memset(r.pixels, 254, pixelCount);

    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int k = 0; k < segments; ++k)
            MarkSegment(&r, ToPixels(&r, wall->points[k]), ToPixels(&r, wall->points[(k + 1) % wall->pointCount]));
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        lsBox box = lsMakeBox(world->boxes[i].center, world->boxes[i].size, world->boxes[i].angle);
        lsVec2 corners[4];
        lsBox_Corners(&box, corners);
        for (int k = 0; k < 4; ++k)
            corners[k] = ToPixels(&r, corners[k]);
        MarkConvex(&r, corners, 4);
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        lsVec2 points[LS_MAX_POLYGON_VERTICES] = {{0.0, 0.0}};
        for (int k = 0; k < world->polygons[i].count; ++k)
            points[k] = ToPixels(&r, world->polygons[i].points[k]);
        MarkConvex(&r, points, world->polygons[i].count);
    }
    for (int i = 0; i < world->targetCount; ++i)
        MarkDisc(&r, ToPixels(&r, world->targets[i].center), world->targets[i].radius / resolution);

    const char* imageName = slash != NULL ? imagePath + (slash - yamlPath) + 1 : imagePath;
    char header[96];
    int headerLength = snprintf(header, sizeof header, "P5\n# lidarsim export-map\n%d %d\n255\n", r.width, r.height);
    size_t imageSize = (size_t)headerLength + pixelCount;
    uint8_t* image = lsAlloc(imageSize);
    memcpy(image, header, (size_t)headerLength);
    memcpy(image + headerLength, r.pixels, pixelCount);
    lsFree(r.pixels, pixelCount);
    bool ok = lsWriteFileAtomic(imagePath, (const char*)image, imageSize, err);
    lsFree(image, imageSize);
    if (!ok)
        return false;
    // The image name single-quoted (quotes doubled), so any character a file name may hold reads back as is.
    char quoted[2 * LS_MAP_PATH_CAPACITY];
    size_t q = 0;
    for (const char* c = imageName; *c != '\0'; ++c)
    {
        if (*c == '\'')
            quoted[q++] = '\'';
        quoted[q++] = *c;
    }
    quoted[q] = '\0';
    char res[32], ox[32], oy[32];
    lsFormatNumber(res, sizeof res, resolution);
    lsFormatNumber(ox, sizeof ox, r.origin.x);
    lsFormatNumber(oy, sizeof oy, r.origin.y);
    char yaml[2 * LS_MAP_PATH_CAPACITY + 256];
    int yamlLength = snprintf(yaml, sizeof yaml,
                              "image: '%s'\nmode: trinary\nresolution: %s\norigin: [%s, %s, 0.0]\nnegate: 0\n"
                              "occupied_thresh: 0.65\nfree_thresh: 0.25\n",
                              quoted, res, ox, oy);
    return lsWriteFileAtomic(yamlPath, yaml, (size_t)yamlLength, err);
}

// lidarsim front end: a map's unknown cells greyed (see map_shade.h).
#include "app/map_shade.h"

#include <math.h>
#include <string.h>

const lsColor lsColorUnknown = {70, 73, 84, 255};

// FNV-1a over bytes: the stamp only has to change when the shade does.
static uint64_t Hash(uint64_t h, const void* data, size_t size)
{
    const uint8_t* p = data;
    for (size_t i = 0; i < size; ++i)
        // Every byte hashed is written first: the shade's cells come from lsAllocZero, which the analyser does not
        // know zeroes them.
        // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

lsMapShade* lsCreateMapShade(const lsGrid* grid)
{
    LS_ASSERT(grid != NULL && grid->cells != NULL && grid->width >= 1 && grid->height >= 1);
    lsMapShade* shade = lsAllocZero(1, sizeof(lsMapShade));
    int longest = grid->width > grid->height ? grid->width : grid->height;
    int f = (longest + LS_MAP_SHADE_MAX_SIDE - 1) / LS_MAP_SHADE_MAX_SIDE;
    shade->factor = f;
    shade->width = (grid->width + f - 1) / f;
    shade->height = (grid->height + f - 1) / f;
    shade->mapWidth = grid->width;
    shade->mapHeight = grid->height;
    shade->resolution = grid->resolution;
    shade->origin = grid->origin;
    shade->yaw = grid->yaw;
    shade->unknown = lsAllocZero((size_t)shade->width * (size_t)shade->height, 1);
    // Unknown counts per shade cell, then shares: a block cut by the map's right or bottom edge is a share of the
    // cells it has.
    int* counts = lsAllocZero((size_t)shade->width, sizeof(int));
    for (int j = 0; j < shade->height; ++j)
    {
        memset(counts, 0, (size_t)shade->width * sizeof(int));
        int rows = (j + 1) * f <= grid->height ? f : grid->height - j * f;
        for (int r = j * f; r < j * f + rows; ++r)
        {
            const uint8_t* cells = grid->cells + (size_t)r * (size_t)grid->width;
            for (int c = 0; c < grid->width; ++c)
                counts[c / f] += cells[c] == ls_cellUnknown;
        }
        for (int i = 0; i < shade->width; ++i)
        {
            int columns = (i + 1) * f <= grid->width ? f : grid->width - i * f;
            int area = rows * columns; // >= 1: block (i, j) starts inside the map
            shade->unknown[(size_t)j * (size_t)shade->width + (size_t)i] =
                (uint8_t)((255 * counts[i] + area / 2) / (area > 0 ? area : 1));
            shade->unknownCells += counts[i];
        }
    }
    lsFree(counts, (size_t)shade->width * sizeof(int));
    uint64_t h = 14695981039346656037ull;
    int dims[5] = {shade->width, shade->height, shade->factor, shade->mapWidth, shade->mapHeight};
    double place[4] = {shade->resolution, shade->origin.x, shade->origin.y, shade->yaw};
    h = Hash(h, dims, sizeof dims);
    h = Hash(h, place, sizeof place);
    shade->stamp = Hash(h, shade->unknown, (size_t)shade->width * (size_t)shade->height);
    return shade;
}

lsMapShade* lsLoadMapShade(const lsWorld* world, lsError* err)
{
    err->message[0] = '\0';
    if (world == NULL || world->map.yamlFile[0] == '\0')
        return NULL;
    lsGrid grid;
    if (!lsLoadMapGrid(world->map.yamlFile, &grid, NULL, err))
        return NULL;
    lsMapShade* shade = lsCreateMapShade(&grid);
    lsFreeGrid(&grid);
    return shade;
}

void lsDestroyMapShade(lsMapShade* shade)
{
    if (shade == NULL)
        return;
    lsFree(shade->unknown, (size_t)shade->width * (size_t)shade->height);
    lsFree(shade, sizeof(lsMapShade));
}

void lsMapShade_Draw(const lsMapShade* shade, lsRaster* raster, const lsCamera* camera)
{
    if (shade->unknownCells == 0)
        return;
    // Screen pixel centre -> world -> map lattice (u columns from the left, v rows from the bottom, as lsGrid_Point)
    // is affine: u and v at the first pixel of a row plus a step per column.
    double c = cos(shade->yaw), s = sin(shade->yaw);
    double scale = 1.0 / (camera->zoom * shade->resolution);
    // One step right turns the lattice by -yaw; one step down (y flips) is the same rotation of (0, -1).
    double duX = c * scale, dvX = -s * scale;
    double duY = dvX, dvY = -duX;
    lsVec2 w0 = lsCamera_ScreenToWorld(camera, lsV(0.5, 0.5));
    lsVec2 d0 = lsSub(w0, shade->origin);
    double u0 = (d0.x * c + d0.y * s) / shade->resolution, v0 = (-d0.x * s + d0.y * c) / shade->resolution;

    // The map's box on screen, clipped: only those pixels can show a cell.
    double W = shade->mapWidth, H = shade->mapHeight, res = shade->resolution;
    double xMin = HUGE_VAL, yMin = HUGE_VAL, xMax = -HUGE_VAL, yMax = -HUGE_VAL;
    for (int k = 0; k < 4; ++k)
    {
        double u = (k & 1) ? W : 0.0, v = (k & 2) ? H : 0.0;
        lsVec2 world = {shade->origin.x + res * (c * u - s * v), shade->origin.y + res * (s * u + c * v)};
        lsVec2 p = lsCamera_WorldToScreen(camera, world);
        xMin = lsFmin(xMin, p.x);
        xMax = lsFmax(xMax, p.x);
        yMin = lsFmin(yMin, p.y);
        yMax = lsFmax(yMax, p.y);
    }
    int x0 = xMin > raster->clipX0 ? (int)floor(xMin) : raster->clipX0;
    int x1 = xMax < raster->clipX1 ? (int)ceil(xMax) : raster->clipX1;
    int y0 = yMin > raster->clipY0 ? (int)floor(yMin) : raster->clipY0;
    int y1 = yMax < raster->clipY1 ? (int)ceil(yMax) : raster->clipY1;
    x0 = x0 < raster->clipX0 ? raster->clipX0 : x0;
    y0 = y0 < raster->clipY0 ? raster->clipY0 : y0;
    if (x1 <= x0 || y1 <= y0)
        return;
    int n = x1 - x0, f = shade->factor;
    uint8_t* row = lsAlloc((size_t)n);
    for (int y = y0; y < y1; ++y)
    {
        double uRow = u0 + duX * x0 + duY * y, vRow = v0 + dvX * x0 + dvY * y;
        bool any = false;
        for (int i = 0; i < n; ++i)
        {
            double u = uRow + duX * i, v = vRow + dvX * i;
            row[i] = 0;
            // Compared as doubles first: far outside the map u and v may not fit an int.
            if (!(u >= 0.0 && u < W && v >= 0.0 && v < H))
                continue;
            int column = (int)u, fromTop = shade->mapHeight - 1 - (int)v;
            row[i] = shade->unknown[(size_t)(fromTop / f) * (size_t)shade->width + (size_t)(column / f)];
            any = any || row[i] != 0;
        }
        if (any)
            lsRaster_Mask(raster, x0, y, row, n, 1, n, lsColorUnknown);
    }
    lsFree(row, (size_t)n);
}

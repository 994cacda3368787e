// libFuzzer target: the map readers (map.h). The first byte picks what the rest is: a map YAML (lsParseMapYaml) or
// an image (lsDecodeMapImage, any PNG or PNM) with the mode, negate, unknown and simplify options taken from that
// byte; a decoded image's walls are then traced. Properties: no crash, leak or sanitizer report; a parsed YAML holds
// values in range; every wall chain is closed, on the cell lattice, axis-aligned without simplification, and the
// segment counts add up.
#include "lidarsim/map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void Check(bool ok)
{
    if (!ok)
        abort(); // libFuzzer keeps the input as a crash
}

static void CheckYaml(const uint8_t* data, size_t size)
{
    lsMapInfo info;
    lsError err;
    if (!lsParseMapYaml((const char*)data, size, "maps/fuzz.yaml", &info, &err))
    {
        Check(strncmp(err.message, "maps/fuzz.yaml", 14) == 0);
        return;
    }
    Check(info.resolution > 0.0 && isfinite(info.resolution) && isfinite(info.origin.x) && isfinite(info.origin.y) &&
          isfinite(info.yaw));
    Check(info.freeThresh >= 0.0 && info.freeThresh < info.occupiedThresh && info.occupiedThresh <= 1.0);
    Check(info.image[0] != '\0');
}

static void CheckImage(uint8_t options, const uint8_t* data, size_t size)
{
    lsMapInfo info;
    memset(&info, 0, sizeof info);
    info.resolution = 1.0;
    info.occupiedThresh = 0.65;
    info.freeThresh = 0.196;
    info.mode = (lsMapMode)((options >> 1) % 3);
    info.negate = (options >> 3 & 1) != 0;
    lsGrid grid;
    lsError err;
    if (!lsDecodeMapImage(data, size, "fuzz.img", &info, &grid, &err))
    {
        Check(strncmp(err.message, "fuzz.img", 8) == 0);
        return;
    }
    Check(grid.width >= 1 && grid.height >= 1 && (long long)grid.width * grid.height <= LS_MAP_MAX_PIXELS);
    for (long long k = 0; k < (long long)grid.width * grid.height; ++k)
        Check(grid.cells[k] <= ls_cellUnknown);
    lsMapOptions map = {(options >> 4 & 1) != 0, (options >> 5 & 1) ? 1.5 : 0.0};
    lsWorld* world = lsCreateWorld();
    lsMapWallStats stats;
    if (lsGrid_AddWalls(&grid, &map, world, &stats, "fuzz", &err))
    {
        long long points = 0;
        for (int c = 0; c < world->wallCount; ++c)
        {
            const lsWallDef* wall = world->walls + c;
            Check(wall->fromMap &&
                  (wall->closed ? wall->pointCount >= (map.simplify > 0.0 ? 3 : 4) : wall->pointCount == 2));
            points += wall->closed ? wall->pointCount : 1;
            for (int i = 0; i < wall->pointCount; ++i)
            {
                lsVec2 p = wall->points[i], q = wall->points[(i + 1) % wall->pointCount];
                Check(p.x == floor(p.x) && p.y == floor(p.y) && p.x >= 0.0 && p.y >= 0.0 && p.x <= grid.width &&
                      p.y <= grid.height);
                Check(map.simplify > 0.0 || (p.x == q.x) != (p.y == q.y));
            }
        }
        Check(world->wallCount == stats.chains && points == stats.simplified);
        Check(map.simplify > 0.0 || stats.simplified == stats.segments);
        Check(stats.segments <= stats.unitEdges && stats.wallCells > 0);
    }
    lsDestroyWorld(world);
    lsFreeGrid(&grid);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    if ((data[0] & 1) == 0)
        CheckYaml(data + 1, size - 1);
    else
        CheckImage(data[0], data + 1, size - 1);
    return 0;
}

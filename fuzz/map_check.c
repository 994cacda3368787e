#include "map_check.h"

#include "lidarsim/map.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Returns 1 from the calling check with the property that failed on stderr.
#define CHECK(ok)                                                                                                      \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(ok))                                                                                                     \
        {                                                                                                              \
            fprintf(stderr, "fuzz_map: %s:%d: property failed: %s\n", __FILE__, __LINE__, #ok);                        \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

static int CheckYaml(const uint8_t* data, size_t size)
{
    lsMapInfo info;
    lsError err;
    if (!lsParseMapYaml((const char*)data, size, "maps/fuzz.yaml", &info, &err))
    {
        CHECK(strncmp(err.message, "maps/fuzz.yaml", 14) == 0);
        return 0;
    }
    CHECK(info.resolution > 0.0 && isfinite(info.resolution) && isfinite(info.origin.x) && isfinite(info.origin.y) &&
          isfinite(info.yaw));
    CHECK(info.freeThresh >= 0.0 && info.freeThresh < info.occupiedThresh && info.occupiedThresh <= 1.0);
    CHECK(info.image[0] != '\0');
    return 0;
}

// Every traced chain is closed, on the cell lattice inside the image, axis-aligned without simplification, and the
// chain, point and segment counts agree with the statistics.
static int CheckWalls(const lsGrid* grid, const lsMapOptions* map, const lsWorld* world, const lsMapWallStats* stats)
{
    long long points = 0;
    for (int c = 0; c < world->wallCount; ++c)
    {
        const lsWallDef* wall = world->walls + c;
        CHECK(wall->fromMap &&
              (wall->closed ? wall->pointCount >= (map->simplify > 0.0 ? 3 : 4) : wall->pointCount == 2));
        points += wall->closed ? wall->pointCount : 1;
        for (int i = 0; i < wall->pointCount; ++i)
        {
            lsVec2 p = wall->points[i], q = wall->points[(i + 1) % wall->pointCount];
            CHECK(p.x == floor(p.x) && p.y == floor(p.y) && p.x >= 0.0 && p.y >= 0.0 && p.x <= grid->width &&
                  p.y <= grid->height);
            CHECK(map->simplify > 0.0 || (p.x == q.x) != (p.y == q.y));
        }
    }
    CHECK(world->wallCount == stats->chains && points == stats->simplified);
    CHECK(map->simplify > 0.0 || stats->simplified == stats->segments);
    CHECK(stats->segments <= stats->unitEdges && stats->wallCells > 0);
    return 0;
}

static int CheckImage(uint8_t options, const uint8_t* data, size_t size)
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
        CHECK(strncmp(err.message, "fuzz.img", 8) == 0);
        return 0;
    }
    int failed = 0;
    if (grid.width < 1 || grid.height < 1 || (long long)grid.width * grid.height > LS_MAP_MAX_PIXELS)
    {
        fprintf(stderr, "fuzz_map: decoded size %d x %d out of range\n", grid.width, grid.height);
        failed = 1;
    }
    for (long long k = 0; failed == 0 && k < (long long)grid.width * grid.height; ++k)
    {
        if (grid.cells[k] > ls_cellUnknown)
        {
            fprintf(stderr, "fuzz_map: cell %lld has class %d\n", k, grid.cells[k]);
            failed = 1;
        }
    }
    if (failed == 0)
    {
        lsMapOptions map = {(options >> 4 & 1) != 0, (options >> 5 & 1) ? 1.5 : 0.0};
        lsWorld* world = lsCreateWorld();
        lsMapWallStats stats;
        if (lsGrid_AddWalls(&grid, &map, world, &stats, "fuzz", &err))
            failed = CheckWalls(&grid, &map, world, &stats);
        lsDestroyWorld(world);
    }
    lsFreeGrid(&grid);
    return failed;
}

int lsFuzzCheckMap(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    long long bytesBefore = lsAllocatedBytes();
    int failed = (data[0] & 1) == 0 ? CheckYaml(data + 1, size - 1) : CheckImage(data[0], data + 1, size - 1);
    if (failed == 0 && lsAllocatedBytes() != bytesBefore)
    {
        fprintf(stderr, "fuzz_map: %lld bytes not freed\n", lsAllocatedBytes() - bytesBefore);
        failed = 1;
    }
    return failed;
}

// lidarsim front end: a map's unknown cells, greyed under the world (the U key). The walls are all the core keeps of
// a map; the window keeps this low-resolution raster of the map's unknown cells beside the world it loaded, so a
// SLAM map reads as the map the user knows (explored floor dark, unexplored grey).
#pragma once

#include "app/camera.h"
#include "app/raster.h"
#include "lidarsim/map.h"

/// Longest side of the shade raster, in its cells: a bigger map is averaged down by a whole factor (a 4000 x 4000
/// px map becomes 2000 x 2000, 4 MB), which is still finer than a window shows a whole map.
#define LS_MAP_SHADE_MAX_SIDE 2048

/// The unknown cells of a map as a raster of shares: each entry is 255 times the share of unknown map cells in its
/// factor x factor block. Row 0 is the top, as in lsGrid.
typedef struct lsMapShade
{
    int width, height;       ///< shade cells
    int factor;              ///< map cells per shade cell along each side (>= 1)
    int mapWidth, mapHeight; ///< map cells
    uint8_t* unknown;        ///< width * height shares, 0 (none unknown) .. 255 (all unknown)
    double resolution;       ///< metres per map cell
    lsVec2 origin;           ///< world position of the lower-left corner of the lower-left map cell
    double yaw;              ///< radians
    long long unknownCells;  ///< map cells that are unknown
    uint64_t stamp;          ///< a hash of all of the above: the window's cached layer is redrawn when it changes
} lsMapShade;

/// The shade of a classified grid. Never NULL (out of memory aborts, as lsAlloc). Free with lsDestroyMapShade.
lsMapShade* lsCreateMapShade(const lsGrid* grid);
/// The shade of the map a world stands on (world->map.yamlFile, read again from disk): NULL when the world has no
/// map, or with err filled when it cannot be read (the world was loaded, so this is a race with an editor; the
/// window then shows no unknown cells). Free with lsDestroyMapShade.
lsMapShade* lsLoadMapShade(const lsWorld* world, lsError* err);
/// Frees a shade (NULL allowed).
void lsDestroyMapShade(lsMapShade* shade);

/// The grey unknown cells are drawn in (blended by their share).
extern const lsColor lsColorUnknown;

/// Draws the unknown cells as the camera sees them: each pixel whose centre falls in a shade cell gets lsColorUnknown
/// blended by that cell's share. Only the map's box on screen is visited.
void lsMapShade_Draw(const lsMapShade* shade, lsRaster* raster, const lsCamera* camera);

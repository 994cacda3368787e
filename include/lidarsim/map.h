// lidarsim core: ROS map_server occupancy grids (a YAML file beside a PGM or PNG image) as exact walls, and worlds
// written back as maps. The semantics follow nav2_map_server's map_io (see docs/maps.md):
//   image      the image file, relative to the YAML's folder unless absolute
//   resolution metres per pixel
//   origin     [x, y, yaw]: the pose of the lower-left corner of the lower-left pixel (yaw radians, applied)
//   negate     0/1 or a boolean: when set, dark pixels are free and light ones occupied
//   occupied_thresh, free_thresh, mode (trinary by default, scale, raw)
// Each pixel's shade is the mean of its colour channels (and, in trinary mode, of its alpha) scaled to [0, 1];
// occupancy = negate ? shade : 1 - shade; a cell is a wall cell when map_server would mark it occupied (100).
// Image row 0 is the top of the map. Walls are the boundary between wall cells and the others, as closed chains.
// Units: metres, world frame (x right, y up).
#pragma once

#include "lidarsim/world.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// Largest image accepted, in pixels (checked from the header, before any pixel is decoded).
#define LS_MAP_MAX_PIXELS 100000000LL
/// Largest map YAML file read, in bytes.
#define LS_MAP_MAX_YAML_BYTES ((size_t)1 << 20)
/// Largest image file read, in bytes (a 100 M pixel 8-bit PGM with room to spare).
#define LS_MAP_MAX_IMAGE_BYTES ((size_t)1 << 30)
/// Capacity of the resolved image path.
#define LS_MAP_PATH_CAPACITY 1024

/// How pixels become occupancy values (map_server's MapMode).
typedef enum lsMapMode
{
    ls_mapTrinary = 0, ///< occupied, free or unknown by the two thresholds (alpha averaged into the shade)
    ls_mapScale = 1,   ///< like trinary, values between the thresholds scaled to 0..100 (rint); not opaque: unknown
    ls_mapRaw = 2,     ///< the shade times 255 is the value itself (0..100), anything else unknown
} lsMapMode;

/// What a map YAML says. Thresholds are in [0, 1] with free < occupied; resolution is positive and finite.
typedef struct lsMapInfo
{
    char image[LS_MAP_PATH_CAPACITY]; ///< the image file, resolved against the YAML's folder
    int imageLine, imageColumn;       ///< where the YAML names it (1-based; 0 when not from a file)
    double resolution;                ///< metres per pixel
    lsVec2 origin;                    ///< world position of the lower-left corner of the lower-left pixel
    double yaw;                       ///< radians, the map's rotation about that corner
    bool negate;
    double occupiedThresh, freeThresh;
    lsMapMode mode;
} lsMapInfo;

/// The class of a map cell.
typedef enum lsCell
{
    ls_cellFree = 0,    ///< free, or any value below occupied in scale and raw modes
    ls_cellWall = 1,    ///< occupied (100)
    ls_cellUnknown = 2, ///< unknown (-1)
} lsCell;

/// A classified occupancy grid. Cells are in image order: row 0 is the TOP row of the map. Threads: plain data.
typedef struct lsGrid
{
    int width, height; ///< pixels, >= 1
    uint8_t* cells;    ///< width * height lsCell values, owned (free with lsFreeGrid)
    double resolution; ///< metres per cell
    lsVec2 origin;     ///< world position of the lower-left corner of the lower-left cell
    double yaw;        ///< radians
} lsGrid;

/// Statistics of one wall extraction, for `import`, the benchmark and docs/maps.md.
typedef struct lsMapWallStats
{
    long long wallCells;  ///< cells that count as walls (wall cells, plus unknown ones when they count)
    long long unitEdges;  ///< unit boundary edges between wall cells and the others
    long long segments;   ///< segments after merging collinear unit edges
    long long simplified; ///< segments after --simplify (== segments without it)
    int chains;           ///< closed chains
} lsMapWallStats;

// ---------------------------------------------------------------------------------------------------------------------
// Reading

/// True when the path names a map YAML (ends in .yaml or .yml), so the world loaders read it as a map.
LS_API bool lsIsMapPath(const char* path);

/// Parses map YAML text of `size` bytes; yamlPath labels messages ("maps/a.yaml:3:7: ...") and is the folder the
/// image is relative to. False with err filled on a syntax error, a missing key or a value out of range.
LS_API bool lsParseMapYaml(const char* text, size_t size, const char* yamlPath, lsMapInfo* info, lsError* err);

/// Decodes a PNG (any colour type and bit depth), a PNM (PGM P5/P2 8- and 16-bit, PBM, PPM) or a BMP from memory and
/// classifies every pixel by info's mode, negate and thresholds into grid (which takes info's resolution, origin
/// and yaw). label names the image in messages. Refuses images over LS_MAP_MAX_PIXELS before decoding. Not
/// thread safe (the PNM reader reports errors through global state). Free the grid with lsFreeGrid.
LS_API bool lsDecodeMapImage(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info,
                             lsGrid* grid, lsError* err);

/// Reads a map YAML and its image into a grid (info may be NULL). Free the grid with lsFreeGrid.
LS_API bool lsLoadMapGrid(const char* yamlPath, lsGrid* grid, lsMapInfo* info, lsError* err);

/// Frees the grid's cells and zeroes it. NULL is allowed.
LS_API void lsFreeGrid(lsGrid* grid);
/// Whether every corner of the grid (origin + R(yaw) (u, v) resolution, u in [0, width], v in [0, height]) is a
/// coordinate a world file may hold (|x|, |y| <= 1e6 m), where its walls would lie; false with err naming label, the
/// size, the resolution and the axis that leaves the bound.
LS_API bool lsGrid_CheckExtent(const lsGrid* grid, const char* label, lsError* err);

/// World position of a point in lattice units: u cell columns from the left, v cell rows from the BOTTOM (so
/// integer (u, v) are cell corners, and lsGrid_Point(g, 0, 0) is the origin).
LS_API lsVec2 lsGrid_Point(const lsGrid* grid, double u, double v);

// ---------------------------------------------------------------------------------------------------------------------
// Walls (map_walls.c)

/// How map cells become walls.
typedef struct lsMapOptions
{
    bool unknownOccupied; ///< unknown cells count as walls (default: free)
    double simplify;      ///< Douglas-Peucker tolerance in metres; 0 keeps the exact cell boundary
} lsMapOptions;

/// Appends the grid's walls to the world: the boundary between wall cells and the others as closed chains
/// (counter-clockwise around wall cells), collinear unit edges merged, each marked fromMap. Cells that touch
/// only at a corner share that corner point. With simplify > 0 every chain is simplified by Douglas-Peucker
/// between pinned corners (shared corners stay shared) and moves at most `simplify` metres. stats may be NULL.
/// False with err filled when there is no wall cell at all or the walls would exceed the segment limit.
LS_API bool lsGrid_AddWalls(const lsGrid* grid, const lsMapOptions* options, lsWorld* world, lsMapWallStats* stats,
                            const char* label, lsError* err);

/// A place for a robot of the given radius: the centre of the free cell farthest (in cells) from any non-free
/// cell and from the image border, ties broken towards the middle; when no free cell is wide enough, a point
/// just outside the map. Always returns a finite point.
LS_API lsVec2 lsGrid_FreePlace(const lsGrid* grid, const lsMapOptions* options, double radius);

/// A world made from a map YAML: its walls (per options, NULL for the defaults), a default robot placed by
/// lsGrid_FreePlace, the name from the file, and world->map naming the YAML. stats may be NULL.
/// Destroy with lsDestroyWorld. NULL with err filled on failure.
LS_API lsWorld* lsLoadMapWorld(const char* yamlPath, const lsMapOptions* options, lsMapWallStats* stats, lsError* err);

// ---------------------------------------------------------------------------------------------------------------------
// Writing (map_export.c)

/// Rasterises the world's walls, boxes, polygons and targets into a map_server map: yamlPath and an 8-bit P5 PGM
/// beside it (same name, .pgm), occupied 0 and free 254, at `resolution` metres per pixel, one free pixel of
/// margin around everything. Every pixel any of them touches is occupied. Both files are written atomically.
/// Refused (false, err filled, nothing written): a yamlPath not ending in .yaml or .yml (lsIsMapPath: a world file
/// is never overwritten), and a YAML or PGM that is the map this world stands on (world->map's files, compared as
/// files, however the names are spelt).
LS_API bool lsExportMap(const lsWorld* world, const char* yamlPath, double resolution, lsError* err);

#ifdef __cplusplus
}
#endif

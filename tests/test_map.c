// Tests of map.c, map_walls.c and map_export.c: map walls against an independent exact raster caster (every 2x2
// and 3x3 pattern, checkerboards, holes, one-pixel and random maps, maps touching the border, rotated origins),
// merging and simplification, the YAML's errors, every image kind, thresholds exactly at a shade, the round trip
// through export-map.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include "core/reload.h"
#include "core/world_text.h"
#include "lidarsim/map.h"
#include "lidarsim/scene.h"

#include <dirent.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------------------------------
// The reference: a ray from o = (p / 8, q / 8) along the integer direction (a, b), against every wall cell's closed
// unit square (resolution 1, origin 0, cells bottom-up), by the slab method in exact integer fractions.

typedef struct Fraction
{
    long long num, den; // den > 0
} Fraction;

static bool Less(Fraction x, Fraction y) { return x.num * y.den < y.num * x.den; }

static Fraction Make(long long num, long long den) { return den < 0 ? (Fraction){-num, -den} : (Fraction){num, den}; }

// Slab of [lo, hi] (in eighths) for origin p and direction a: false when the ray never is inside.
static bool Slab(long long lo, long long hi, long long p, long long a, Fraction* enter, Fraction* exit)
{
    if (a == 0)
    {
        *enter = Make(-1000000, 1);
        *exit = Make(1000000, 1);
        return p >= lo && p <= hi;
    }
    Fraction t0 = Make(lo - p, 8 * a), t1 = Make(hi - p, 8 * a);
    *enter = Less(t0, t1) ? t0 : t1;
    *exit = Less(t0, t1) ? t1 : t0;
    return true;
}

// Distance along the unit direction to the first wall cell's closed square, or -1 when none is met. *atCorner
// (may be NULL) tells whether the hit point is a cell corner.
static double ReferenceRange(const uint8_t* wall, int w, int h, long long p, long long q, long long a, long long b,
                             bool* atCorner)
{
    bool found = false;
    Fraction best = {0, 1};
    for (int y = 0; y < h; ++y)
    {
        for (int x = 0; x < w; ++x)
        {
            if (!wall[y * w + x])
                continue;
            Fraction ex0, ex1, ey0, ey1;
            if (!Slab(8LL * x, 8LL * x + 8, p, a, &ex0, &ex1) || !Slab(8LL * y, 8LL * y + 8, q, b, &ey0, &ey1))
                continue;
            Fraction enter = Less(ex0, ey0) ? ey0 : ex0;
            Fraction exit = Less(ex1, ey1) ? ex1 : ey1;
            if (Less(enter, Make(0, 1)))
                enter = Make(0, 1);
            if (Less(exit, enter))
                continue;
            if (!found || Less(enter, best))
                best = enter;
            found = true;
        }
    }
    if (atCorner != NULL)
    {
        // o + t d has integer coordinates when p den + 8 a num is a multiple of 8 den (and the same for y).
        long long d8 = 8 * best.den;
        *atCorner = found && (p * best.den + 8 * a * best.num) % d8 == 0 && (q * best.den + 8 * b * best.num) % d8 == 0;
    }
    return found ? (double)best.num / (double)best.den * hypot((double)a, (double)b) : -1.0;
}

static const int s_directions[][2] = {{1, 0},  {0, 1},   {-1, 0}, {0, -1}, {1, 1},  {1, -1},
                                      {-1, 1}, {-1, -1}, {2, 1},  {-1, 2}, {3, -2}, {-2, -5}};

// Builds a grid from bottom-up wall bits (resolution 1, origin 0), casts from quarter points of every free cell in
// and around it in every direction, and compares each range with the reference. Returns the number of mismatches.
static int CompareWithReference(const uint8_t* wall, int w, int h, const lsMapOptions* options)
{
    lsGrid grid = {w, h, lsAlloc((size_t)w * h), 1.0, {0.0, 0.0}, 0.0};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            grid.cells[(size_t)(h - 1 - y) * w + x] = wall[y * w + x] ? ls_cellWall : ls_cellFree;
    lsWorld* world = lsCreateWorld();
    lsError err;
    int bad = 0;
    if (!lsGrid_AddWalls(&grid, options, world, NULL, "pattern", &err))
    {
        fprintf(stderr, "    %s\n", err.message);
        bad = 1;
    }
    lsScene* scene = lsCreateScene(world);
    for (int cy = -1; cy <= h && bad < 5; ++cy)
    {
        for (int cx = -1; cx <= w && bad < 5; ++cx)
        {
            if (cx >= 0 && cy >= 0 && cx < w && cy < h && wall[cy * w + cx])
                continue;
            static const int offsets[3] = {2, 4, 6};
            for (int k = 0; k < 9; ++k)
            {
                long long p = 8 * cx + offsets[k % 3], q = 8 * cy + offsets[k / 3];
                for (size_t d = 0; d < sizeof s_directions / sizeof s_directions[0]; ++d)
                {
                    long long a = s_directions[d][0], b = s_directions[d][1];
                    double expected = ReferenceRange(wall, w, h, p, q, a, b, NULL);
                    double len = hypot((double)a, (double)b);
                    // The integer direction itself: the ray cast is the exact ray of the reference.
                    lsRayInput input = {lsV((double)p / 8.0, (double)q / 8.0), lsV((double)a, (double)b), 1000.0};
                    lsRayHit hit = lsScene_CastRay(scene, NULL, &input);
                    double got = hit.hit ? hit.fraction * len : -1.0;
                    if (fabs(got - expected) > 1e-12 * (1.0 + fabs(expected)))
                    {
                        if (bad < 3)
                            fprintf(stderr,
                                    "    %dx%d map: ray from (%g, %g) along (%lld, %lld): %.17g, reference %.17g\n", w,
                                    h, (double)p / 8.0, (double)q / 8.0, a, b, got, expected);
                        ++bad;
                    }
                }
            }
        }
    }
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    lsFreeGrid(&grid);
    return bad;
}

static int EveryPatternTest(void)
{
    // Every 2x2 and 3x3 pattern as a whole map (touching the border everywhere) and inside a free frame.
    for (int size = 2; size <= 3; ++size)
    {
        int n = size * size;
        for (int bits = 1; bits < (1 << n); ++bits)
        {
            uint8_t alone[9] = {0}, framed[25];
            memset(framed, 0, sizeof framed);
            for (int k = 0; k < n; ++k)
            {
                alone[k] = (uint8_t)(bits >> k & 1);
                framed[(k / size + 1) * (size + 2) + k % size + 1] = alone[k];
            }
            ENSURE(CompareWithReference(alone, size, size, NULL) == 0);
            if (size == 2)
                ENSURE(CompareWithReference(framed, size + 2, size + 2, NULL) == 0);
        }
    }
    return 0;
}

static int SpecialMapsTest(void)
{
    // One pixel.
    uint8_t one[1] = {1};
    ENSURE(CompareWithReference(one, 1, 1, NULL) == 0);
    // Checkerboard: every inner corner is a diagonal-only contact.
    uint8_t board[64];
    for (int k = 0; k < 64; ++k)
        board[k] = (uint8_t)((k % 8 + k / 8) % 2);
    ENSURE(CompareWithReference(board, 8, 8, NULL) == 0);
    // A ring with a hole, and a hole that touches the outside only at a corner.
    uint8_t ring[25] = {1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    ENSURE(CompareWithReference(ring, 5, 5, NULL) == 0);
    uint8_t corner[16] = {0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    ENSURE(CompareWithReference(corner, 4, 4, NULL) == 0);
    // Random maps of several densities.
    lsRng rng = lsMakeRng(12);
    for (int trial = 0; trial < 12; ++trial)
    {
        uint8_t random[14 * 11];
        double density = 0.15 + 0.06 * trial;
        for (int k = 0; k < 14 * 11; ++k)
            random[k] = lsRng_Uniform(&rng) < density;
        random[0] = 1;
        ENSURE(CompareWithReference(random, 14, 11, NULL) == 0);
    }
    return 0;
}

// Wall chains of a bottom-up bit map (resolution 1), in a new world.
static lsWorld* WallsOf(const uint8_t* wall, int w, int h, const lsMapOptions* options, lsMapWallStats* stats)
{
    lsGrid grid = {w, h, lsAlloc((size_t)w * h), 1.0, {0.0, 0.0}, 0.0};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            grid.cells[(size_t)(h - 1 - y) * w + x] = wall[y * w + x];
    lsWorld* world = lsCreateWorld();
    lsError err;
    bool ok = lsGrid_AddWalls(&grid, options, world, stats, "walls", &err);
    lsFreeGrid(&grid);
    if (!ok)
    {
        lsDestroyWorld(world);
        return NULL;
    }
    return world;
}

static int MergingTest(void)
{
    // A 300-pixel straight wall is one rectangle: four corners, four segments.
    int w = 302, h = 3;
    uint8_t* cells = lsAllocZero((size_t)w * h, 1);
    for (int x = 1; x <= 300; ++x)
        cells[w + x] = 1;
    lsMapWallStats stats;
    lsWorld* world = WallsOf(cells, w, h, NULL, &stats);
    ENSURE(world != NULL && world->wallCount == 1 && world->walls[0].closed && world->walls[0].pointCount == 4);
    ENSURE(world->walls[0].fromMap);
    ENSURE(stats.unitEdges == 602 && stats.segments == 4 && stats.chains == 1 && stats.wallCells == 300);
    lsDestroyWorld(world);
    lsFree(cells, (size_t)w * h);

    // Two cells touching only at a corner: two squares, both through the shared corner (1, 1).
    uint8_t diagonal[4] = {1, 0, 0, 1};
    world = WallsOf(diagonal, 2, 2, NULL, &stats);
    ENSURE(world != NULL && world->wallCount == 2);
    for (int k = 0; k < 2; ++k)
    {
        bool shared = false;
        ENSURE(world->walls[k].pointCount == 4);
        for (int i = 0; i < 4; ++i)
            shared = shared || lsVecEqual(world->walls[k].points[i], lsV(1.0, 1.0));
        ENSURE(shared);
    }
    lsDestroyWorld(world);

    // Unknown cells count only when asked; no wall at all is an error naming the map.
    uint8_t unknown[4] = {ls_cellUnknown, 0, 0, 0};
    ENSURE(WallsOf(unknown, 2, 2, NULL, NULL) == NULL);
    lsMapOptions occupied = {true, 0.0};
    world = WallsOf(unknown, 2, 2, &occupied, &stats);
    ENSURE(world != NULL && world->wallCount == 1 && stats.wallCells == 1);
    lsDestroyWorld(world);
    return 0;
}

// Distance from p to the closed polyline.
static double ChainDistance(lsVec2 p, const lsWallDef* wall)
{
    double best = HUGE_VAL;
    int n = wall->pointCount;
    int segments = wall->closed ? n : n - 1;
    for (int i = 0; i < segments; ++i)
    {
        lsVec2 a = wall->points[i], b = wall->points[(i + 1) % n];
        lsVec2 ab = lsSub(b, a);
        double t = lsDot(lsSub(p, a), ab) / fmax(lsDot(ab, ab), 1e-300);
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        best = fmin(best, lsDistance(p, lsMulAdd(a, t, ab)));
    }
    return best;
}

static int SimplifyTest(void)
{
    // A noisy blob map: simplified chains keep only original corners, every original corner stays within the
    // tolerance of its simplified chain, every simplified vertex lies on the original chain, and segments drop.
    int w = 60, h = 40;
    uint8_t* cells = lsAllocZero((size_t)w * h, 1);
    lsRng rng = lsMakeRng(5);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
        {
            double r = hypot(x - 30.0, y - 20.0);
            cells[y * w + x] = (r > 12.0 && r < 15.0 + 2.0 * lsRng_Uniform(&rng)) || lsRng_Uniform(&rng) < 0.03;
        }
    lsMapWallStats exact, simple;
    lsWorld* a = WallsOf(cells, w, h, NULL, &exact);
    for (int m = 1; m <= 3; ++m)
    {
        lsMapOptions options = {false, 0.75 * m};
        lsWorld* b = WallsOf(cells, w, h, &options, &simple);
        ENSURE(a != NULL && b != NULL && a->wallCount == b->wallCount);
        ENSURE(simple.segments == exact.segments && simple.simplified < exact.segments);
        for (int c = 0; c < a->wallCount; ++c)
        {
            for (int i = 0; i < a->walls[c].pointCount; ++i)
                ENSURE(ChainDistance(a->walls[c].points[i], b->walls + c) <= options.simplify + 1e-12);
            for (int i = 0; i < b->walls[c].pointCount; ++i)
                ENSURE(ChainDistance(b->walls[c].points[i], a->walls + c) == 0.0);
        }
        lsDestroyWorld(b);
    }
    lsDestroyWorld(a);
    lsFree(cells, (size_t)w * h);
    return 0;
}

// Over the segment limit, the message advises what can help: a checkerboard keeps every corner (each is where two
// wall cells touch only diagonally) at any tolerance; diagonal bands drop their staircase corners with import
// --simplify, where check and render have no --simplify; and a tolerance too small is told to grow. The limit is
// on the segments the world gets, after simplifying.
static int SegmentLimitTest(void)
{
    int w = 3000, h = 3000;
    lsGrid grid = {w, h, lsAlloc((size_t)w * h), 1.0, {0.0, 0.0}, 0.0};
    for (int pattern = 0; pattern < 2; ++pattern)
    {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                grid.cells[(size_t)y * w + x] =
                    (pattern == 0 ? (x + y) % 2 == 0 : (x + y) % 6 < 3) ? ls_cellWall : ls_cellFree;
        const double tolerances[] = {0.0, 0.1, 1000.0};
        for (int k = 0; k < 3; ++k)
        {
            lsMapOptions options = {false, tolerances[k]};
            lsMapWallStats stats;
            lsWorld* world = lsCreateWorld();
            lsError err = {{0}};
            bool ok = lsGrid_AddWalls(&grid, &options, world, &stats, "m.yaml", &err);
            if (pattern == 0)
                ENSURE(!ok && strstr(err.message, "m.yaml: more than 4000000 wall segments (the limit), even with "
                                                  "import --simplify: corners where wall cells touch only "
                                                  "diagonally (a checkerboard's) always stay") == err.message);
            else if (k == 0)
                ENSURE(!ok && strcmp(err.message, "m.yaml: more than 4000000 wall segments (the limit); a world file "
                                                  "of it simplified holds fewer: lidarsim import MAP.yaml -o "
                                                  "WORLD.json --simplify METRES") == 0);
            else if (k == 1)
                ENSURE(!ok && strcmp(err.message, "m.yaml: more than 4000000 wall segments (the limit) after "
                                                  "--simplify 0.1; try a larger --simplify") == 0);
            else
                // 6 000 000 segments before simplifying: one band's two straight sides each after.
                ENSURE(ok && stats.segments == 6000000 && stats.simplified == 1000 && world->wallCount == 1000);
            lsDestroyWorld(world);
        }
    }
    lsFreeGrid(&grid);
    return 0;
}

static int SimplifyLoopTest(void)
{
    // A ring of cells around a one-cell hole, one corner cell missing: its two neighbours touch only at a corner,
    // through which the hole opens to the outside, so one chain passes that saddle corner twice (both pinned),
    // once around the outside and once around the hole. The hole's piece is a chord of zero length; with a
    // tolerance wider than the hole, dropping all of it left a zero-length segment, which no world file may hold
    // (`lidarsim import bench/maps/depot.yaml --simplify 0.1` refused to save its own output).
    int w = 6, h = 6;
    uint8_t cells[36] = {0};
    for (int y = 1; y <= 3; ++y)
        for (int x = 1; x <= 3; ++x)
            cells[y * w + x] = !(x == 2 && y == 2) && !(x == 3 && y == 3);
    for (int m = 1; m <= 4; ++m)
    {
        lsMapOptions options = {false, 0.75 * m};
        lsWorld* world = WallsOf(cells, w, h, &options, NULL);
        ENSURE(world != NULL && world->wallCount == 1);
        const lsWallDef* wall = world->walls;
        ENSURE(wall->pointCount >= 2);
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int i = 0; i < segments; ++i)
        {
            lsVec2 a = wall->points[i], b = wall->points[(i + 1) % wall->pointCount];
            ENSURE(a.x != b.x || a.y != b.y);
        }
        lsDestroyWorld(world);
    }
    return 0;
}

static int RotatedOriginTest(void)
{
    // A rotated, shifted, scaled map: casts in the world frame match the reference in the map frame.
    int w = 9, h = 7;
    uint8_t wall[63];
    lsRng rng = lsMakeRng(3);
    for (int k = 0; k < 63; ++k)
        wall[k] = lsRng_Uniform(&rng) < 0.35;
    lsGrid grid = {w, h, lsAlloc((size_t)w * h), 0.05, {3.25, -1.5}, 0.7};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            grid.cells[(size_t)(h - 1 - y) * w + x] = wall[y * w + x];
    lsWorld* world = lsCreateWorld();
    lsError err;
    ENSURE(lsGrid_AddWalls(&grid, NULL, world, NULL, "rotated", &err));
    lsScene* scene = lsCreateScene(world);
    lsRot q = lsMakeRot(grid.yaw);
    int checked = 0;
    for (int cy = -1; cy <= h; ++cy)
        for (int cx = -1; cx <= w; ++cx)
        {
            if (cx >= 0 && cy >= 0 && cx < w && cy < h && wall[cy * w + cx])
                continue;
            long long p = 8 * cx + 3, q8 = 8 * cy + 5;
            for (size_t d = 0; d < sizeof s_directions / sizeof s_directions[0]; ++d)
            {
                long long a = s_directions[d][0], b = s_directions[d][1];
                bool atCorner = false;
                double expected = ReferenceRange(wall, w, h, p, q8, a, b, &atCorner);
                double len = hypot((double)a, (double)b);
                lsVec2 local = lsV((double)p / 8.0 * grid.resolution, (double)q8 / 8.0 * grid.resolution);
                lsVec2 origin = lsAdd(grid.origin, lsRotate(q, local));
                lsRayInput input = {origin, lsRotate(q, lsV((double)a / len, (double)b / len)), 1000.0};
                lsRayHit hit = lsScene_CastRay(scene, NULL, &input);
                // A beam meeting a wall exactly at a corner may graze past it once rotated and rounded: only the
                // others are held to the reference (the unrotated tests hold every beam).
                if (expected < 0.0 || atCorner)
                    continue;
                ENSURE(hit.hit);
                ENSURE_SMALL(hit.fraction - expected * grid.resolution, 1e-9);
                ++checked;
            }
        }
    ENSURE(checked > 100);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    lsFreeGrid(&grid);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Files: a scratch folder, small images of every kind, YAML texts.

static char s_folder[64];

static void WriteBytes(const char* name, const void* data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", s_folder, name);
    FILE* file = fopen(path, "wb");
    if (file != NULL)
    {
        fwrite(data, 1, size, file);
        fclose(file);
    }
}

static void WriteText(const char* name, const char* text) { WriteBytes(name, text, strlen(text)); }

// Writes a PNG of w x h pixels with the given libpng colour type and depth; samples are given as 16-bit values
// (scaled down for 8-bit and below), `channels` per pixel; palette images use the samples as indices.
static void WritePng(const char* name, int w, int h, int colourType, int depth, const unsigned* samples, int channels,
                     const png_color* palette, int paletteCount, const png_byte* alphas)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", s_folder, name);
    FILE* file = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)))
    {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, colourType, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (palette != NULL)
        png_set_PLTE(png, info, palette, paletteCount);
    if (alphas != NULL)
        png_set_tRNS(png, info, alphas, paletteCount, NULL);
    png_write_info(png, info);
    if (depth < 8)
        png_set_packing(png);
    png_byte row[64];
    for (int y = 0; y < h; ++y)
    {
        for (int x = 0; x < w * channels; ++x)
        {
            unsigned v = samples[(size_t)y * w * channels + x];
            if (depth == 16)
            {
                row[2 * (size_t)x] = (png_byte)(v >> 8);
                row[2 * (size_t)x + 1] = (png_byte)v;
            }
            else
            {
                row[x] = (png_byte)(colourType == PNG_COLOR_TYPE_PALETTE ? v : v >> (16 - depth));
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(file);
}

static lsMapInfo DefaultInfo(void)
{
    lsMapInfo info;
    memset(&info, 0, sizeof info);
    info.resolution = 0.05;
    info.occupiedThresh = 0.65;
    info.freeThresh = 0.196;
    info.mode = ls_mapTrinary;
    return info;
}

// Decodes the file in the scratch folder; cells (image order) must equal expected.
static bool DecodesTo(const char* name, const lsMapInfo* info, const char* expected)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", s_folder, name);
    size_t size = 0;
    lsError err = {{0}};
    char* data = lsReadFile(path, LS_MAP_MAX_IMAGE_BYTES, &size, &err);
    lsGrid grid;
    bool ok = data != NULL && lsDecodeMapImage((const unsigned char*)data, size, name, info, &grid, &err);
    if (data != NULL)
        lsFree(data, size + 1);
    if (!ok)
    {
        fprintf(stderr, "    %s: %s\n", name, err.message);
        return false;
    }
    char got[64] = {0};
    for (int k = 0; k < grid.width * grid.height && k < 63; ++k)
        got[k] = "fwu"[grid.cells[k]];
    lsFreeGrid(&grid);
    if (strcmp(got, expected) != 0)
    {
        fprintf(stderr, "    %s: cells %s, expected %s\n", name, got, expected);
        return false;
    }
    return true;
}

static bool DecodeFails(const char* name, const void* data, size_t size, const char* expected)
{
    lsMapInfo info = DefaultInfo();
    lsGrid grid;
    lsError err = {{0}};
    if (lsDecodeMapImage(data, size, name, &info, &grid, &err))
    {
        lsFreeGrid(&grid);
        fprintf(stderr, "    %s decoded, expected '%s'\n", name, expected);
        return false;
    }
    if (strstr(err.message, expected) == NULL)
    {
        fprintf(stderr, "    got '%s', expected '%s'\n", err.message, expected);
        return false;
    }
    return true;
}

static int ImageKindsTest(void)
{
    lsMapInfo info = DefaultInfo();
    // Two rows (row 0 is the top): black, white, map_saver's unknown grey 205, mid grey 128 (occupancy 0.498).
    WriteText("a.pgm", "P2\n4 2\n255\n0 255 205 128\n255 255 0 0\n");
    ENSURE(DecodesTo("a.pgm", &info, "wfuuffww"));
    const unsigned char p5[] = "P5\n4 2\n255\n\x00\xff\xcd\x80\xff\xff\x00\x00";
    WriteBytes("b.pgm", p5, sizeof p5 - 1);
    ENSURE(DecodesTo("b.pgm", &info, "wfuuffww"));
    // 16-bit PGM (P5 big-endian, and P2).
    const unsigned char p5w[] = "P5\n2 1\n65535\n\x00\x00\xff\xff";
    WriteBytes("c.pgm", p5w, sizeof p5w - 1);
    ENSURE(DecodesTo("c.pgm", &info, "wf"));
    WriteText("d.pgm", "P2\n3 1\n65535\n0 65535 52685\n");
    ENSURE(DecodesTo("d.pgm", &info, "wfu"));
    // Plain PGM as editors write it: comments anywhere in the header and between rows, maxval 65535, and no
    // newline after the last number (libnetpbm alone fails on that one).
    WriteText("p2c.pgm", "P2\n# made by hand\n3 2 # size\n# depth\n65535\n0 65535 52685\n# row 2\n65535 0 0");
    ENSURE(DecodesTo("p2c.pgm", &info, "wfufww"));
    WriteText("p2n.pgm", "P2\n2 1\n255\n0 254");
    ENSURE(DecodesTo("p2n.pgm", &info, "wf"));
    WriteText("p1n.pbm", "P1\n3 1\n1 0 1");
    ENSURE(DecodesTo("p1n.pbm", &info, "wfw"));
    // P5 with maxval under 255: shade is value / maxval (15: white, 10: occupancy 1/3, unknown; 2: occupied).
    const unsigned char p5s[] = "P5\n4 1\n15\n\x00\x0f\x0a\x02";
    WriteBytes("p5s.pgm", p5s, sizeof p5s - 1);
    ENSURE(DecodesTo("p5s.pgm", &info, "wfuw"));
    // A plain file cut inside its pixels still fails, named.
    ENSURE(DecodeFails("cut2.pgm", "P2\n3 1\n255\n0 254", 16,
                       "cut2.pgm: not a readable PNM image: pixel row 0 of 1 (0 is the top): the data ends before the "
                       "last pixel (a truncated file?)"));
    // 1-bit PBM: 1 is black.
    WriteText("e.pbm", "P1\n2 1\n1 0\n");
    ENSURE(DecodesTo("e.pbm", &info, "wf"));
    // negate: black free, white occupied.
    lsMapInfo negated = info;
    negated.negate = true;
    ENSURE(DecodesTo("a.pgm", &negated, "fwwuwwff"));

    // PNG grey 8, 16 and 1 bit.
    const unsigned grey[4] = {0, 65535, 205 * 257, 128 * 257};
    WritePng("g8.png", 4, 1, PNG_COLOR_TYPE_GRAY, 8, grey, 1, NULL, 0, NULL);
    ENSURE(DecodesTo("g8.png", &info, "wfuu"));
    WritePng("g16.png", 4, 1, PNG_COLOR_TYPE_GRAY, 16, grey, 1, NULL, 0, NULL);
    ENSURE(DecodesTo("g16.png", &info, "wfuu"));
    const unsigned bits[2] = {0, 65535};
    WritePng("g1.png", 2, 1, PNG_COLOR_TYPE_GRAY, 1, bits, 1, NULL, 0, NULL);
    ENSURE(DecodesTo("g1.png", &info, "wf"));
    // RGB: shade is the mean of the channels (red: occupancy 2/3, occupied; cyan: 1/3, unknown).
    const unsigned rgb[9] = {65535, 0, 0, 65535, 65535, 65535, 0, 65535, 65535};
    WritePng("rgb.png", 3, 1, PNG_COLOR_TYPE_RGB, 8, rgb, 3, NULL, 0, NULL);
    ENSURE(DecodesTo("rgb.png", &info, "wfu"));
    // Grey + alpha, trinary: alpha averages in (white, transparent: shade 0.75, occupancy 0.25: unknown).
    const unsigned ga[6] = {65535, 65535, 65535, 0, 0, 65535};
    WritePng("ga.png", 3, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8, ga, 2, NULL, 0, NULL);
    ENSURE(DecodesTo("ga.png", &info, "fuw"));
    // The same in scale mode: anything not opaque is unknown.
    lsMapInfo scale = info;
    scale.mode = ls_mapScale;
    ENSURE(DecodesTo("ga.png", &scale, "fuw"));
    const unsigned rgba[8] = {0, 0, 0, 32768, 65535, 65535, 65535, 65535};
    WritePng("rgba.png", 2, 1, PNG_COLOR_TYPE_RGB_ALPHA, 8, rgba, 4, NULL, 0, NULL);
    ENSURE(DecodesTo("rgba.png", &info, "wf"));
    ENSURE(DecodesTo("rgba.png", &scale, "uf"));
    // Palette with a tRNS chunk: entry 2 is white but fully transparent (unknown in trinary).
    png_color palette[3] = {{0, 0, 0}, {255, 255, 255}, {255, 255, 255}};
    png_byte alphas[3] = {255, 255, 0};
    const unsigned indices[3] = {0, 1, 2};
    WritePng("pal.png", 3, 1, PNG_COLOR_TYPE_PALETTE, 8, indices, 1, palette, 3, alphas);
    ENSURE(DecodesTo("pal.png", &info, "wfu"));
    // Scale mode rounds (rint) the scaled value: occupancy 0.649 is 99.75 % of the way from 0.25 to 0.65, so 100, a
    // wall as map_server publishes it; 0.647 is 99.25 %, so 99, free. Shades 23003 and 23134 of 65535.
    lsMapInfo band = scale;
    band.freeThresh = 0.25;
    WriteText("band.pgm", "P2\n2 1\n65535\n23003 23134\n");
    ENSURE(DecodesTo("band.pgm", &band, "wf"));
    // Raw mode: the value is round(shade * 255) when in 0..100, so only grey 100 is a wall; 255 is unknown.
    lsMapInfo raw = info;
    raw.mode = ls_mapRaw;
    WriteText("raw.pgm", "P2\n4 1\n255\n0 100 99 255\n");
    ENSURE(DecodesTo("raw.pgm", &raw, "fwfu"));

    // Bad images: named, with the reason.
    ENSURE(DecodeFails("x.pgm", "hello", 5, "x.pgm: not an image"));
    ENSURE(DecodeFails("big.pgm", "P5\n20000 20000\n255\n", 19, "big.pgm: 20000 x 20000 pixels, over the limit"));
    ENSURE(DecodeFails("short.pgm", "P5\n4 4\n255\n\x01\x02", 14,
                       "short.pgm: not a readable PNM image: pixel row 0 of 4 (0 is the top): the data ends before"));
    ENSURE(DecodeFails("high.pgm", "P2\n2 2\n15\n0 1\n16 0\n", 20,
                       "high.pgm: not a readable PNM image: pixel row 1 of 2 (0 is the top): value out of bounds"));
    ENSURE(DecodeFails("bad.pgm", "P5\nxx", 5, "bad.pgm: not a readable PNM image"));
    size_t pngSize = 0;
    char path[128];
    snprintf(path, sizeof path, "%s/rgb.png", s_folder);
    lsError err;
    char* png = lsReadFile(path, 1 << 20, &pngSize, &err);
    ENSURE(png != NULL);
    ENSURE(DecodeFails("cut.png", png, pngSize - 20, "cut.png: not a readable PNG"));
    ENSURE(DecodeFails("empty.png", png, 8, "empty.png: not a readable PNG"));
    lsFree(png, pngSize + 1);
    return 0;
}

// Decodes tests/data/bmp/NAME with info into grid.
static bool DecodeBmpData(const char* name, const lsMapInfo* info, lsGrid* grid)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bmp/%s", LS_TEST_DATA_DIR, name);
    size_t size = 0;
    lsError err = {{0}};
    char* data = lsReadFile(path, LS_MAP_MAX_IMAGE_BYTES, &size, &err);
    bool ok = data != NULL && lsDecodeMapImage((const unsigned char*)data, size, name, info, grid, &err);
    if (data != NULL)
        lsFree(data, size + 1);
    if (!ok)
        fprintf(stderr, "    %s: %s\n", name, err.message);
    return ok;
}

// Every bitmap of tests/data/bmp (made by its make.py: ImageMagick's 8-bit palettes plain and RLE8, 24 bits with the
// Windows and the OS/2 core header, V5 headers, 4- and 1-bit palettes, 5-6-5 and ARGB bit fields; and, written byte
// by byte, the bit fields and defaults GraphicsMagick reads its own way) classifies exactly as what
// GraphicsMagick 1.3.40 (map_server's reader) decoded it to (16-bit PPM, or PNG with alpha): in every mode, and in
// trinary mode at 255 thresholds (a quantum off by 1/256 of the range changes a cell).
static int BmpAgreesTest(void)
{
    static const char* const pairs[][2] = {
        {"grey-pal8.bmp", "grey-pal8.gm.ppm"},
        {"grey-rle8.bmp", "grey-rle8.gm.ppm"},
        {"grey-rgb24.bmp", "grey-rgb24.gm.ppm"},
        {"grey-os2.bmp", "grey-os2.gm.ppm"},
        {"grey-v5pal8.bmp", "grey-v5pal8.gm.png"},
        {"grey16-pal4.bmp", "grey16-pal4.gm.ppm"},
        {"mono-pal1.bmp", "mono-pal1.gm.ppm"},
        {"rgb565.bmp", "rgb565.gm.ppm"},
        {"rgba-argb32.bmp", "rgba-argb32.gm.png"},
        {"ramp565.bmp", "ramp565.gm.ppm"},
        {"x444.bmp", "x444.gm.ppm"},
        {"a4444.bmp", "a4444.gm.png"},
        {"x101010.bmp", "x101010.gm.ppm"},
        {"rgb16.bmp", "rgb16.gm.ppm"},
        {"rgb32.bmp", "rgb32.gm.png"},
    };
    enum
    {
        pairCount = sizeof pairs / sizeof pairs[0]
    };
    int seen[pairCount] = {0}; // the kinds of cell each reference gave over every mode (bits 1 << ls_cell...)
    for (int mode = 0; mode < 4 + 255; ++mode)
    {
        lsMapInfo info = DefaultInfo();
        info.negate = mode == 1;
        info.mode = mode == 2 ? ls_mapScale : mode == 3 ? ls_mapRaw : ls_mapTrinary;
        if (mode >= 4)
        {
            info.occupiedThresh = (mode - 3) / 256.0;
            info.freeThresh = info.occupiedThresh / 2.0;
        }
        for (int k = 0; k < pairCount; ++k)
        {
            const char* bmpName = pairs[k][0];
            const char* pngName = pairs[k][1];
            lsGrid bmp, reference;
            ENSURE(DecodeBmpData(bmpName, &info, &bmp));
            ENSURE(DecodeBmpData(pngName, &info, &reference));
            bool same = bmp.width == reference.width && bmp.height == reference.height &&
                        memcmp(bmp.cells, reference.cells, (size_t)bmp.width * (size_t)bmp.height) == 0;
            for (int i = 0; i < reference.width * reference.height; ++i)
                seen[k] |= 1 << reference.cells[i];
            lsFreeGrid(&bmp);
            lsFreeGrid(&reference);
            if (!same)
                fprintf(stderr, "    %s differs from %s in mode %d\n", bmpName, pngName, mode);
            ENSURE(same);
        }
    }
    // Each reference gave walls and free cells, so each comparison means something.
    for (int k = 0; k < pairCount; ++k)
        ENSURE((seen[k] & (1 << ls_cellWall)) != 0 && (seen[k] & (1 << ls_cellFree)) != 0);
    return 0;
}

// A bitmap built byte by byte: the 14-byte file header, a 40-byte info header (height negative: top-down), the
// palette (BGRx), then the pixels. Returns its size.
static size_t MakeBmp(unsigned char* out, int width, int height, int bits, int compression, const uint8_t* palette,
                      int colours, const void* pixels, size_t pixelBytes)
{
    size_t offset = 14 + 40 + 4 * (size_t)colours, size = offset + pixelBytes;
    memset(out, 0, offset);
    uint32_t fields[] = {(uint32_t)size, 0, (uint32_t)offset, 40, (uint32_t)width, (uint32_t)height};
    out[0] = 'B', out[1] = 'M';
    for (int k = 0; k < 6; ++k)
        for (int b = 0; b < 4; ++b)
            out[2 + 4 * k + b] = (unsigned char)(fields[k] >> (8 * b));
    out[26] = 1, out[28] = (unsigned char)bits, out[30] = (unsigned char)compression;
    out[46] = (unsigned char)colours;
    if (colours > 0)
        memcpy(out + 54, palette, 4 * (size_t)colours);
    memcpy(out + offset, pixels, pixelBytes);
    return size;
}

// What the writers above do not make: top-down rows, RLE4, RLE jumps and early ends; and a clear message, with the
// pixel, for each kind of broken file.
static int BmpByHandTest(void)
{
    lsMapInfo info = DefaultInfo();
    const uint8_t bw[] = {0, 0, 0, 0, 255, 255, 255, 0}; // index 0 black (a wall), 1 white (free)
    unsigned char file[512];
    // 24 bits, 3 x 2, top-down: the first row in the file is the top.
    const uint8_t rgb[] = {0,   0,   0,   255, 255, 255, 0,   0,   0,   0, 0, 0,
                           255, 255, 255, 255, 255, 255, 205, 205, 205, 0, 0, 0};
    WriteBytes("down.bmp", file, MakeBmp(file, 3, -2, 24, 0, NULL, 0, rgb, sizeof rgb));
    ENSURE(DecodesTo("down.bmp", &info, "wfwffu"));
    WriteBytes("up.bmp", file, MakeBmp(file, 3, 2, 24, 0, NULL, 0, rgb, sizeof rgb));
    ENSURE(DecodesTo("up.bmp", &info, "ffuwfw"));
    // RLE4, 5 x 3, bottom-up: the bottom row a run of alternating 0 and 1, the end of the row; a jump by (1, 1)
    // leaves the middle row as entry 0 and starts the top row's literal of three at x = 1; the end of that row is
    // the bitmap's end (the end marker after it is never read).
    const uint8_t rle4[] = {5, 0x01, 0, 0, 0, 2, 1, 1, 0, 3, 0x11, 0x10, 0, 0, 0, 1};
    WriteBytes("rle4.bmp", file, MakeBmp(file, 5, 3, 4, 2, bw, 2, rle4, sizeof rle4));
    ENSURE(DecodesTo("rle4.bmp", &info, "wfffwwwwwwwfwfw"));
    // RLE8, 2 x 3: a run of one 1 at the bottom row's start, a jump by (0, 2) from there (the rest of the bottom row
    // and the middle row it skips are entry 0), a run of one 1 at the top row's x = 1, the end of the row.
    const uint8_t rle8[] = {1, 1, 0, 2, 0, 2, 1, 1, 0, 0, 0, 1};
    WriteBytes("rle8.bmp", file, MakeBmp(file, 2, 3, 8, 1, bw, 2, rle8, sizeof rle8));
    ENSURE(DecodesTo("rle8.bmp", &info, "wfwwfw"));

    size_t n = MakeBmp(file, 3, 2, 24, 0, NULL, 0, rgb, sizeof rgb);
    ENSURE(DecodeFails("cut.bmp", file, n - 1, "cut.bmp: the pixels end at pixel (0, 0), row 1 of 2 in the file"));
    ENSURE(DecodeFails("head.bmp", file, 30, "head.bmp: the file ends inside its 40-byte info header"));
    const uint8_t wrongIndex[] = {0x12, 0, 0, 0};
    n = MakeBmp(file, 2, 1, 4, 0, bw, 2, wrongIndex, sizeof wrongIndex);
    ENSURE(DecodeFails("index.bmp", file, n, "index.bmp: pixel (1, 0) is colour 2 of a palette of 2"));
    // A run past the row's end (ImageMagick's encoder runs into the padding) is cut at the row's end.
    const uint8_t longRun[] = {3, 1, 0, 0, 3, 0, 0, 1};
    WriteBytes("run.bmp", file, MakeBmp(file, 2, 2, 8, 1, bw, 2, longRun, sizeof longRun));
    ENSURE(DecodesTo("run.bmp", &info, "wwff"));
    n = MakeBmp(file, 2, 2, 8, 1, bw, 2, longRun, 4);
    ENSURE(DecodeFails("early.bmp", file, n, "early.bmp: the RLE data ends at pixel (0, 0), before the bitmap's end"));
    const uint8_t jump[] = {0, 2, 3, 0};
    n = MakeBmp(file, 2, 2, 8, 1, bw, 2, jump, sizeof jump);
    ENSURE(DecodeFails("jump.bmp", file, n, "jump.bmp: an RLE jump by (3, 0) from pixel (0, 1) leaves the image"));
    const uint8_t jumpOut[] = {0, 2, 2, 2}; // to the row past the top
    n = MakeBmp(file, 2, 2, 8, 1, bw, 2, jumpOut, sizeof jumpOut);
    ENSURE(DecodeFails("out.bmp", file, n, "out.bmp: an RLE jump by (2, 2) from pixel (0, 1) leaves the image"));
    n = MakeBmp(file, 2, INT32_MIN, 24, 0, NULL, 0, rgb, 16);
    ENSURE(DecodeFails("tall.bmp", file, n, "tall.bmp: 2 x 2147483648 pixels, over the limit"));
    n = MakeBmp(file, 2, 1, 1, 0, bw, 2, wrongIndex, 4);
    file[46] = 3; // three colours for one bit a pixel
    ENSURE(
        DecodeFails("colours.bmp", file, n, "colours.bmp: a palette of 3 colours, more than 1-bit pixels index (2)"));
    n = MakeBmp(file, 2, 2, 24, 4, NULL, 0, rgb, 16);
    ENSURE(DecodeFails("jpeg.bmp", file, n, "jpeg.bmp: a bitmap holding a JPEG image is not read"));
    n = MakeBmp(file, 2, 2, 8, 0, bw, 2, rgb, 8);
    file[14] = 70;
    ENSURE(DecodeFails("size.bmp", file, n, "size.bmp: an info header of 70 bytes"));
    n = MakeBmp(file, 20000, 20000, 24, 0, NULL, 0, rgb, 8);
    ENSURE(DecodeFails("big.bmp", file, n, "big.bmp: 20000 x 20000 pixels, over the limit"));
    n = MakeBmp(file, 2, 0, 24, 0, NULL, 0, rgb, 8);
    ENSURE(DecodeFails("flat.bmp", file, n, "flat.bmp: the image is empty (2 x 0 pixels)"));
    n = MakeBmp(file, 2, 2, 8, 0, bw, 0, rgb, 8);
    ENSURE(DecodeFails("nopal.bmp", file, n, "nopal.bmp: a 8-bit bitmap without a palette"));
    // Bit fields after a 40-byte header: a mask with a hole is refused.
    const uint8_t masks[] = {0x00, 0xf8, 0, 0, 0xe0, 0x07, 0, 0, 0x1d, 0, 0, 0, 0, 0, 0, 0};
    n = MakeBmp(file, 2, 1, 16, 3, masks, 3, masks + 12, 4);
    ENSURE(DecodeFails("mask.bmp", file, n, "mask.bmp: the blue mask 0x0000001d is not one run of bits"));
    return 0;
}

static int ThresholdAtShadeTest(void)
{
    // Occupancy exactly at occupied_thresh is not occupied (map_server compares strictly), one ulp above is; the
    // same for free_thresh from below.
    lsMapInfo info = DefaultInfo();
    WriteText("t.pgm", "P2\n1 1\n255\n51\n");
    double occ = 1.0 - (51.0 * 257.0 * 3.0 / 3.0) / 65535.0;
    info.occupiedThresh = occ;
    info.freeThresh = 0.1;
    ENSURE(DecodesTo("t.pgm", &info, "u"));
    info.occupiedThresh = nextafter(occ, 0.0);
    ENSURE(DecodesTo("t.pgm", &info, "w"));
    info.occupiedThresh = 0.9;
    info.freeThresh = occ;
    ENSURE(DecodesTo("t.pgm", &info, "u"));
    info.freeThresh = nextafter(occ, 1.0);
    ENSURE(DecodesTo("t.pgm", &info, "f"));
    return 0;
}

static bool YamlFails(const char* text, const char* expected)
{
    lsMapInfo info;
    lsError err = {{0}};
    if (lsParseMapYaml(text, strlen(text), "maps/m.yaml", &info, &err))
    {
        fprintf(stderr, "    parsed, expected '%s'\n", expected);
        return false;
    }
    if (strstr(err.message, expected) == NULL)
    {
        fprintf(stderr, "    got '%s'\n    expected '%s'\n", err.message, expected);
        return false;
    }
    return true;
}

#define LS_GOOD_KEYS "resolution: 0.05\norigin: [-1, 2.5, 0.5]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n"

static int YamlTest(void)
{
    lsMapInfo info;
    lsError err;
    const char* good = "image: m.pgm\n" LS_GOOD_KEYS "negate: 1\nmode: scale\nextra_key: ignored\n";
    ENSURE(lsParseMapYaml(good, strlen(good), "maps/m.yaml", &info, &err));
    ENSURE(strcmp(info.image, "maps/m.pgm") == 0 && info.resolution == 0.05 && info.origin.x == -1.0 &&
           info.origin.y == 2.5 && info.yaw == 0.5 && info.negate && info.mode == ls_mapScale &&
           info.occupiedThresh == 0.65 && info.freeThresh == 0.2);
    const char* absolute = "image: /data/m.png\nnegate: false\n" LS_GOOD_KEYS;
    ENSURE(lsParseMapYaml(absolute, strlen(absolute), "m.yaml", &info, &err));
    ENSURE(strcmp(info.image, "/data/m.png") == 0 && !info.negate && info.mode == ls_mapTrinary);
    ENSURE(lsParseMapYaml(good, strlen(good), "m.yaml", &info, &err) && strcmp(info.image, "./m.pgm") == 0);
    // map_server lowercases the mode before comparing (map_mode_from_string): "Trinary", "SCALE" and "Raw" load.
    static const struct
    {
        const char* text;
        lsMapMode mode;
    } modes[] = {{"mode: Trinary\n", ls_mapTrinary}, {"mode: SCALE\n", ls_mapScale}, {"mode: Raw\n", ls_mapRaw}};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; ++k)
    {
        char text[256];
        snprintf(text, sizeof text, "image: m.pgm\n%s" LS_GOOD_KEYS, modes[k].text);
        ENSURE(lsParseMapYaml(text, strlen(text), "m.yaml", &info, &err) && info.mode == modes[k].mode);
    }

    ENSURE(YamlFails("image: m.pgm\nresolution: [0.05\n", "maps/m.yaml:3:1: YAML syntax error"));
    ENSURE(YamlFails("image: m.pgm\n  bad: indent\n", "maps/m.yaml:2:6: YAML syntax error"));
    ENSURE(YamlFails("", "maps/m.yaml: empty"));
    ENSURE(YamlFails("- a\n- b\n", "maps/m.yaml:1:1: expected a mapping"));
    ENSURE(YamlFails(LS_GOOD_KEYS, "maps/m.yaml: image: missing"));
    ENSURE(YamlFails("image: ''\n" LS_GOOD_KEYS, "maps/m.yaml:1:8: image: expected the image file name"));
    ENSURE(YamlFails("image: m.pgm\nresolution: -1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                     "maps/m.yaml:2:13: resolution: expected a resolution in [0.0001, 1e+06] m per pixel"));
    ENSURE(YamlFails("image: m.pgm\nresolution: .nan\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                     "resolution: expected a resolution in"));
    ENSURE(YamlFails("image: m.pgm\nresolution: 1e400\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                     "resolution: expected a resolution in"));
    ENSURE(YamlFails("image: m.pgm\nresolution: 1\norigin: [0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                     "maps/m.yaml:3:9: origin: expected [x, y, yaw]"));
    ENSURE(YamlFails("image: m.pgm\nresolution: 1\norigin: [0, x, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                     "maps/m.yaml:3:13: origin: expected x and y each a coordinate in [-1e+06, 1e+06] m"));
    ENSURE(YamlFails("image: m.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 1.5\nfree_thresh: 0.2\n",
                     "maps/m.yaml:4:18: occupied_thresh: expected a number in [0, 1]"));
    ENSURE(YamlFails("image: m.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.5\nfree_thresh: 0.5\n",
                     "maps/m.yaml:5:14: free_thresh: 0.5 must be below occupied_thresh (0.5)"));
    ENSURE(YamlFails("image: m.pgm\nmode: fancy\n" LS_GOOD_KEYS, "maps/m.yaml:2:7: mode: unknown mode 'fancy'"));
    ENSURE(YamlFails("image: m.pgm\nnegate: maybe\n" LS_GOOD_KEYS,
                     "maps/m.yaml:2:9: negate: expected an integer (non-zero: set) or a boolean"));
    ENSURE(YamlFails("image: m.pgm\nimage: n.pgm\n" LS_GOOD_KEYS, "maps/m.yaml:2:1: image: given twice"));
    ENSURE(!lsParseMapYaml("image: m.pgm\n\x00", 14, "m.yaml", &info, &err) && strstr(err.message, "NUL byte"));
    return 0;
}

// A map's numbers are bounded as a world file's (limits.h), just inside and just outside: the resolution, the
// origin's x, y and yaw, and the extent of the whole image (known only once it is decoded). A YAML nested deeper
// than a map ever is is refused at once (libyaml took minutes over 100 000 levels of "[").
static int MapBoundsTest(void)
{
    static const struct
    {
        const char* resolution;
        const char* origin;
        const char* error; // NULL: accepted
    } cases[] = {
        {"0.0001", "[0, 0, 0]", NULL},
        {"0.00009999", "[0, 0, 0]", "resolution: expected a resolution in [0.0001, 1e+06] m per pixel"},
        {"1e6", "[0, 0, 0]", NULL},
        {"1000000.1", "[0, 0, 0]", "resolution: expected a resolution in"},
        {"1e308", "[0, 0, 0]", "resolution: expected a resolution in"},
        {"4.9e-324", "[0, 0, 0]", "resolution: expected a resolution in"},
        {"0.05", "[-1e6, 1e6, 0]", NULL},
        {"0.05", "[1000000.1, 0, 0]", "origin: expected x and y each a coordinate in [-1e+06, 1e+06] m"},
        {"0.05", "[0, -1e308, 0]", "origin: expected x and y each a coordinate"},
        {"0.05", "[0, 0, 17453]", NULL},
        {"0.05", "[0, 0, 17454]", "origin: expected a yaw in radians, an angle in [-1e+06, 1e+06] deg"},
        {"0.05", "[0, 0, 1e308]", "origin: expected a yaw in radians"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i)
    {
        char yaml[256];
        snprintf(yaml, sizeof yaml,
                 "image: m.pgm\nresolution: %s\norigin: %s\noccupied_thresh: 0.65\nfree_thresh: 0.2\n",
                 cases[i].resolution, cases[i].origin);
        lsMapInfo info;
        lsError err = {{0}};
        bool ok = lsParseMapYaml(yaml, strlen(yaml), "m.yaml", &info, &err);
        if (ok != (cases[i].error == NULL) || (!ok && strstr(err.message, cases[i].error) == NULL))
        {
            fprintf(stderr, "  %s %s: %s\n", cases[i].resolution, cases[i].origin, ok ? "accepted" : err.message);
        }
        ENSURE(ok == (cases[i].error == NULL));
        ENSURE(ok || strstr(err.message, cases[i].error) != NULL);
    }

    // The image's extent: a 2 x 1 map of 0.5 m pixels from x = 999 999 reaches exactly 1e6 (accepted); from
    // 999 999.5 it reaches 1 000 000.5 (refused, and nothing is left allocated).
    static const unsigned char pgm[] = "P5\n2 1\n255\n\xff\x00";
    const double starts[] = {999999.0, 999999.5, -1e6, -1000000.0};
    const double ys[] = {0.0, 0.0, -1e6, 999999.6};
    for (int i = 0; i < 4; ++i)
    {
        long long before = lsAllocatedBytes();
        lsMapInfo info;
        memset(&info, 0, sizeof info);
        info.resolution = 0.5;
        info.origin = lsV(starts[i], ys[i]);
        info.occupiedThresh = 0.65;
        info.freeThresh = 0.2;
        lsGrid grid;
        lsError err = {{0}};
        bool ok = lsDecodeMapImage(pgm, sizeof pgm - 1, "m.pgm", &info, &grid, &err);
        bool want = i == 0 || i == 2;
        if (ok != want)
        {
            fprintf(stderr, "  origin (%g, %g): %s\n", starts[i], ys[i], ok ? "accepted" : err.message);
        }
        ENSURE(ok == want);
        ENSURE(ok || strstr(err.message, "every corner must be a coordinate in [-1e+06, 1e+06] m") != NULL);
        lsFreeGrid(&grid);
        ENSURE(lsAllocatedBytes() == before);
    }

    // 100 000 levels of flow sequences: refused at level 65, in a moment.
    size_t depth = 100000, size = 0;
    char* deep = lsAlloc(2 * depth + 64);
    size += (size_t)snprintf(deep, 64, "image: m.pgm\nx: ");
    memset(deep + size, '[', depth);
    memset(deep + size + depth, ']', depth);
    size += 2 * depth;
    lsMapInfo info;
    lsError err = {{0}};
    ENSURE(!lsParseMapYaml(deep, size, "deep.yaml", &info, &err));
    ENSURE(strstr(err.message, "deep.yaml:2:") == err.message &&
           strstr(err.message, "nested deeper than 64 levels") != NULL);
    lsFree(deep, 2 * depth + 64);
    return 0;
}

static int LoadMapWorldTest(void)
{
    // A 6 x 5 room with a wall all round (row 0 at the top), through the YAML and the PGM, rotated origin.
    WriteText("room.pgm", "P2\n6 5\n255\n0 0 0 0 0 0\n0 254 254 254 254 0\n0 254 254 254 254 0\n"
                          "0 254 254 254 254 0\n0 0 0 0 0 205\n");
    WriteText("room.yaml", "image: room.pgm\nresolution: 0.5\norigin: [1.0, 2.0, 0.0]\nnegate: 0\n"
                           "occupied_thresh: 0.65\nfree_thresh: 0.196\n");
    char path[128];
    snprintf(path, sizeof path, "%s/room.yaml", s_folder);
    lsError err = {{0}};
    lsMapWallStats stats;
    lsWorld* world = lsLoadMapWorld(path, NULL, &stats, &err);
    ENSURE(world != NULL);
    // The ring minus the unknown corner cell is one chain: the two cells beside that corner touch only at a
    // corner, so the boundary runs round the outside, through that corner, round the inside and back through it.
    ENSURE(world->wallCount == 1 && stats.chains == 1 && stats.wallCells == 17);
    ENSURE(strcmp(world->name, "room") == 0 && strcmp(world->map.path, "room.yaml") == 0);
    ENSURE(strcmp(world->map.yamlFile, path) == 0 && strstr(world->map.imageFile, "/room.pgm") != NULL);
    // The robot (radius 0.25) stands in the room: x in (1.5, 3.5), y in (2.5, 4.0).
    lsVec2 p = world->robot.position;
    ENSURE(p.x > 1.5 + 0.25 && p.x < 3.5 - 0.25 && p.y > 2.5 + 0.25 && p.y < 4.0 - 0.25);
    lsDestroyWorld(world);
    // Unknown as occupied closes the corner: one cell more.
    lsMapOptions occupied = {true, 0.0};
    world = lsLoadMapWorld(path, &occupied, &stats, &err);
    ENSURE(world != NULL && stats.wallCells == 18 && world->map.unknownOccupied);
    lsDestroyWorld(world);
    // Through lsLoadWorld as any world.
    world = lsLoadWorld(path, &err, NULL);
    ENSURE(world != NULL && world->wallCount == 1);
    lsDestroyWorld(world);

    // Problems name the YAML and the image.
    WriteText("gone.yaml", "image: missing.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                           "free_thresh: 0.2\n");
    snprintf(path, sizeof path, "%s/gone.yaml", s_folder);
    ENSURE(lsLoadMapWorld(path, NULL, NULL, &err) == NULL);
    ENSURE(strstr(err.message, "gone.yaml:1:8: image: ") != NULL &&
           strstr(err.message, "missing.pgm: cannot open") != NULL);
    WriteText("text.pgm", "just text\n");
    WriteText("text.yaml", "image: text.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                           "free_thresh: 0.2\n");
    snprintf(path, sizeof path, "%s/text.yaml", s_folder);
    ENSURE(lsLoadMapWorld(path, NULL, NULL, &err) == NULL && strstr(err.message, "text.pgm: not an image") != NULL);
    WriteText("blank.pgm", "P2\n2 2\n255\n254 254 254 254\n");
    WriteText("blank.yaml", "image: blank.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                            "free_thresh: 0.2\n");
    snprintf(path, sizeof path, "%s/blank.yaml", s_folder);
    ENSURE(lsLoadMapWorld(path, NULL, NULL, &err) == NULL && strstr(err.message, "blank.yaml: no wall cell") != NULL);

    // A map whose file name is not UTF-8 (Latin-1) loads, its world named with '?' for the byte; saved, the world
    // would name the map in JSON, which cannot hold the name: the save says so and writes nothing.
    WriteText("caf\xe9.yaml", "image: room.pgm\nresolution: 0.5\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                              "free_thresh: 0.2\n");
    snprintf(path, sizeof path, "%s/caf\xe9.yaml", s_folder);
    world = lsLoadMapWorld(path, NULL, NULL, &err);
    ENSURE(world != NULL && strcmp(world->name, "caf?") == 0);
    char saved[1100];
    snprintf(saved, sizeof saved, "%s/latin.json", s_folder);
    ENSURE(!lsSaveWorld(world, saved, &err) &&
           strstr(err.message, "is not UTF-8, which a JSON file cannot hold") != NULL);
    ENSURE(access(saved, F_OK) != 0);
    lsDestroyWorld(world);
    return 0;
}

// Distance from p to the nearest wall segment of the world.
static double WallDistance(const lsWorld* world, lsVec2 p)
{
    double best = HUGE_VAL;
    for (int c = 0; c < world->wallCount; ++c)
        best = fmin(best, ChainDistance(p, world->walls + c));
    return best;
}

static int ExportRoundTripTest(void)
{
    // A world of walls (one diagonal), a rotated box, a polygon and a target: exported, then imported, every map wall
    // corner lies within a pixel diagonal of an original outline and every original outline point within a pixel
    // of a map wall.
    lsWorld* world = lsCreateWorld();
    lsVec2 room[4] = {{0.0, 0.0}, {4.0, 0.0}, {4.0, 3.0}, {0.0, 3.0}};
    lsWorld_AddWall(world, room, 4, true);
    lsVec2 diagonal[2] = {{0.5, 0.5}, {2.3, 1.7}};
    lsWorld_AddWall(world, diagonal, 2, false);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(3.0, 2.0);
    box.size = lsV(0.6, 0.3);
    box.angle = 0.4;
    lsWorld_AddBox(world, box);
    lsPolygonDef polygon;
    memset(&polygon, 0, sizeof polygon);
    polygon.count = 3;
    polygon.points[0] = lsV(1.0, 2.0);
    polygon.points[1] = lsV(1.6, 2.1);
    polygon.points[2] = lsV(1.2, 2.6);
    polygon.reflectance = 0.5;
    lsWorld_AddPolygon(world, &polygon);
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(3.2, 0.8);
    target.radius = 0.2;
    lsWorld_AddTarget(world, target);
    world->robot.position = lsV(2.0, 1.0);

    double res = 0.05;
    char path[128];
    snprintf(path, sizeof path, "%s/rt.yaml", s_folder);
    lsError err = {{0}};
    ENSURE(lsExportMap(world, path, res, &err));
    lsWorld* back = lsLoadMapWorld(path, NULL, NULL, &err);
    ENSURE(back != NULL);

    // The original outlines as segments (box and polygon edges included) plus the target circle.
    lsBox shape = lsMakeBox(box.center, box.size, box.angle);
    lsVec2 corners[4];
    lsBox_Corners(&shape, corners);
    lsWorld* outlines = lsCreateWorld();
    lsWorld_AddWall(outlines, room, 4, true);
    lsWorld_AddWall(outlines, diagonal, 2, false);
    lsWorld_AddWall(outlines, corners, 4, true);
    lsWorld_AddWall(outlines, polygon.points, 3, true);
    double pixel = res * (1.0 + 1e-9);
    for (int c = 0; c < back->wallCount; ++c)
    {
        for (int i = 0; i < back->walls[c].pointCount; ++i)
        {
            lsVec2 p = back->walls[c].points[i];
            double d = fmin(WallDistance(outlines, p), fabs(lsDistance(p, target.center) - target.radius));
            ENSURE(d <= sqrt(2.0) * pixel);
        }
    }
    for (int c = 0; c < outlines->wallCount; ++c)
    {
        const lsWallDef* wall = outlines->walls + c;
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int k = 0; k < segments; ++k)
            for (int s = 0; s <= 50; ++s)
            {
                lsVec2 p = lsLerp(wall->points[k], wall->points[(k + 1) % wall->pointCount], s / 50.0);
                ENSURE(WallDistance(back, p) <= pixel);
            }
    }
    for (int s = 0; s < 64; ++s)
    {
        lsVec2 p = lsMulAdd(target.center, target.radius, lsV(cos(s * LS_PI / 32), sin(s * LS_PI / 32)));
        ENSURE(WallDistance(back, p) <= pixel);
    }
    // The YAML is what map_server reads: the image beside it, trinary, occupied 0 and free 254.
    lsMapInfo info;
    lsGrid grid;
    ENSURE(lsLoadMapGrid(path, &grid, &info, &err));
    ENSURE(info.mode == ls_mapTrinary && info.resolution == res && !info.negate && strstr(info.image, "/rt.pgm"));
    lsFreeGrid(&grid);
    // Bad resolutions and names are refused before anything is written.
    ENSURE(!lsExportMap(world, path, 0.0, &err) && strstr(err.message, "resolution") != NULL);
    ENSURE(!lsExportMap(world, path, 1e-9, &err) && strstr(err.message, "over the limit") != NULL);
    snprintf(path, sizeof path, "%s/noextension", s_folder);
    ENSURE(!lsExportMap(world, path, res, &err) && strstr(err.message, ".yaml") != NULL);
    lsDestroyWorld(outlines);
    lsDestroyWorld(back);
    lsDestroyWorld(world);
    return 0;
}

static const char s_room[] = "P2\n6 5\n255\n0 0 0 0 0 0\n0 254 254 254 254 0\n0 254 254 254 254 0\n"
                             "0 254 254 254 254 0\n0 0 0 0 0 205\n";
static const char s_roomPillar[] = "P2\n6 5\n255\n0 0 0 0 0 0\n0 254 254 254 254 0\n0 254 0 254 254 0\n"
                                   "0 254 254 254 254 0\n0 0 0 0 0 205\n";

static int MapKeyTest(void)
{
    // A world standing on a map: the map's walls first, the world's own after; saved, it names the map again.
    WriteText("room.pgm", s_room);
    WriteText("room.yaml", "image: room.pgm\nresolution: 0.5\norigin: [1.0, 2.0, 0.0]\noccupied_thresh: 0.65\n"
                           "free_thresh: 0.196\n");
    WriteText("on.json", "{\"name\": \"on\", \"map\": \"room.yaml\", \"unknown\": \"occupied\",\n"
                         " \"walls\": [{\"from\": [2, 3], \"to\": [2.5, 3]}]}");
    char path[128];
    snprintf(path, sizeof path, "%s/on.json", s_folder);
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    ENSURE(world != NULL);
    // Unknown occupied: the corner is closed, two chains (outside and inside), then the world's own wall.
    ENSURE(world->wallCount == 3 && world->walls[0].fromMap && world->walls[1].fromMap && !world->walls[2].fromMap);
    ENSURE(strcmp(world->map.path, "room.yaml") == 0 && world->map.unknownOccupied);
    char* json = lsSaveWorldToString(world);
    ENSURE(strstr(json, "\"map\": \"room.yaml\"") != NULL && strstr(json, "\"unknown\": \"occupied\"") != NULL);
    ENSURE(strstr(json, "\"from\": [2, 3]") != NULL && strstr(json, "[1, 2]") == NULL);
    lsWorld* back = lsLoadWorldFromString(json, strlen(json), path, &err, NULL);
    ENSURE(back != NULL && lsWorld_Equal(world, back));
    lsDestroyWorld(back);
    lsFreeString(json);
    // Never saved over a map YAML (the window opened on a map saves with Ctrl+S too).
    char yamlPath[128];
    snprintf(yamlPath, sizeof yamlPath, "%s/room.yaml", s_folder);
    ENSURE(!lsSaveWorld(world, yamlPath, &err) && strstr(err.message, "never overwritten") != NULL);
    lsWorld* map = lsLoadMapWorld(yamlPath, NULL, NULL, &err);
    ENSURE(map != NULL);
    // A world naming no robot gets the map's robot in free space, not (0, 0); one that names its robot keeps it.
    WriteText("bare.json", "{\"map\": \"room.yaml\"}");
    WriteText("placed.json", "{\"map\": \"room.yaml\", \"robot\": {\"pose\": [0, 0, 0]}}");
    char barePath[128], placedPath[128];
    snprintf(barePath, sizeof barePath, "%s/bare.json", s_folder);
    snprintf(placedPath, sizeof placedPath, "%s/placed.json", s_folder);
    lsWorld* bare = lsLoadWorld(barePath, &err, NULL);
    lsWorld* placed = lsLoadWorld(placedPath, &err, NULL);
    ENSURE(bare != NULL && placed != NULL);
    ENSURE(bare->robot.position.x == map->robot.position.x && bare->robot.position.y == map->robot.position.y);
    ENSURE(lsLength(map->robot.position) > 0.5 && placed->robot.position.x == 0.0 && placed->robot.position.y == 0.0);
    lsDestroyWorld(placed);
    lsDestroyWorld(bare);
    ENSURE(unlink(barePath) == 0 && unlink(placedPath) == 0);
    lsDestroyWorld(map);
    ENSURE(lsSaveWorld(world, path, &err));
    back = lsLoadWorld(path, &err, NULL);
    ENSURE(back != NULL && lsWorld_Equal(world, back));
    lsDestroyWorld(back);

    // Saved into other folders, the world names the map from there: two folders down, then back up beside it, and
    // a map YAML opened as a world saved one folder down. Each loads back to the same walls.
    char sub[160], deep[160], deepPath[192], upPath[192], mapWorldPath[192];
    snprintf(sub, sizeof sub, "%s/sub", s_folder);
    snprintf(deep, sizeof deep, "%s/sub/deep", s_folder);
    ENSURE(mkdir(sub, 0700) == 0 && mkdir(deep, 0700) == 0);
    snprintf(deepPath, sizeof deepPath, "%s/on.json", deep);
    ENSURE(lsSaveWorld(world, deepPath, &err));
    lsWorld* down = lsLoadWorld(deepPath, &err, NULL);
    ENSURE(down != NULL && strcmp(down->map.path, "../../room.yaml") == 0 && down->map.unknownOccupied);
    ENSURE(down->wallCount == world->wallCount && down->walls[1].pointCount == world->walls[1].pointCount);
    for (int i = 0; i < world->walls[1].pointCount; ++i)
        ENSURE(down->walls[1].points[i].x == world->walls[1].points[i].x &&
               down->walls[1].points[i].y == world->walls[1].points[i].y);
    snprintf(upPath, sizeof upPath, "%s/up.json", s_folder);
    ENSURE(lsSaveWorld(down, upPath, &err));
    back = lsLoadWorld(upPath, &err, NULL);
    ENSURE(back != NULL && strcmp(back->map.path, "room.yaml") == 0 && lsWorld_Equal(world, back));
    lsDestroyWorld(back);
    // Saved again where it is, the path is kept as written; an absolute path is kept anywhere.
    char kept[LS_MAP_REF_CAPACITY];
    ENSURE(lsRelocateMapPath(down, deepPath, kept, sizeof kept) && strcmp(kept, "../../room.yaml") == 0);
    snprintf(down->map.path, sizeof down->map.path, "%s", yamlPath);
    ENSURE(lsRelocateMapPath(down, upPath, kept, sizeof kept) && strcmp(kept, yamlPath) == 0);
    lsDestroyWorld(down);
    map = lsLoadMapWorld(yamlPath, NULL, NULL, &err);
    ENSURE(map != NULL);
    snprintf(mapWorldPath, sizeof mapWorldPath, "%s/map.json", sub);
    ENSURE(lsSaveWorld(map, mapWorldPath, &err));
    back = lsLoadWorld(mapWorldPath, &err, NULL);
    ENSURE(back != NULL && strcmp(back->map.path, "../room.yaml") == 0 && back->wallCount == map->wallCount);
    lsDestroyWorld(back);
    lsDestroyWorld(map);
    ENSURE(unlink(deepPath) == 0 && rmdir(deep) == 0 && unlink(mapWorldPath) == 0 && rmdir(sub) == 0);
    lsDestroyWorld(world);

    // Located errors: a missing map, a bad "unknown", "unknown" alone, a map that is not a YAML.
    static const char* const bad[][2] = {
        {"{\"map\": \"none.yaml\"}", "t.json:1:9: map: none.yaml: cannot open"},
        {"{\"map\": \"room.yaml\", \"unknown\": \"grey\"}", "t.json:1:33: unknown: expected \"free\" or \"occupied\""},
        {"{\"unknown\": \"free\", \"walls\": []}", "t.json:1:13: unknown: \"unknown\" says what"},
        {"{\"map\": \"room.pgm\"}", "t.json:1:9: map: expected the path of a map YAML"},
        {"{\"name\": \"no walls, no map\"}", "walls"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    {
        ENSURE(lsLoadWorldFromString(bad[i][0], strlen(bad[i][0]), "t.json", &err, NULL) == NULL);
        if (strstr(err.message, bad[i][1]) == NULL)
            fprintf(stderr, "    got '%s'\n    expected '%s'\n", err.message, bad[i][1]);
        ENSURE(strstr(err.message, bad[i][1]) != NULL);
    }
    return 0;
}

// True when the file in the test folder holds exactly `text`.
static bool HoldsText(const char* name, const char* text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", s_folder, name);
    lsError err = {{0}};
    size_t size = 0;
    char* data = lsReadFile(path, 1 << 20, &size, &err);
    bool same = data != NULL && size == strlen(text) && memcmp(data, text, size) == 0;
    lsFree(data, size + 1);
    return same;
}

static bool Exists(const char* name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", s_folder, name);
    return access(path, F_OK) == 0;
}

// lsExportMap writes only a map's name (.yaml or .yml, the CLI's rule) and never over the map the world stands on,
// however that name is spelt; what it refuses is left as it was and nothing is written beside it.
static int ExportRefusesTest(void)
{
    static const char yaml[] = "image: room.pgm\nresolution: 0.5\norigin: [1.0, 2.0, 0.0]\noccupied_thresh: 0.65\n"
                               "free_thresh: 0.196\n";
    static const char worldText[] = "{\"name\": \"on\", \"map\": \"room.yaml\", \"walls\": []}";
    WriteText("room.pgm", s_room);
    WriteText("room.yaml", yaml);
    WriteText("on.json", worldText);
    char path[128];
    snprintf(path, sizeof path, "%s/on.json", s_folder);
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    ENSURE(world != NULL);

    // A world file as the output (the world's own file here): refused by name, whatever the world.
    ENSURE(!lsExportMap(world, path, 0.5, &err));
    ENSURE(strstr(err.message, "on.json: not written: a map's file name ends in .yaml or .yml") != NULL);
    snprintf(path, sizeof path, "%s/new.json", s_folder);
    ENSURE(!lsExportMap(world, path, 0.5, &err) && !Exists("new.json") && !Exists("new.pgm"));
    snprintf(path, sizeof path, "%s/room.yaml.bak", s_folder);
    ENSURE(!lsExportMap(world, path, 0.5, &err) && !Exists("room.yaml.bak") && !Exists("room.yaml.pgm"));

    // The world's map, spelt as the world file names it, through the folder, or as "./": refused.
    const char* spellings[] = {"%s/room.yaml", "%s/../%s/room.yaml", "%s/./room.yaml"};
    for (int i = 0; i < 3; ++i)
    {
        snprintf(path, sizeof path, spellings[i], s_folder, strrchr(s_folder, '/') + 1);
        ENSURE(!lsExportMap(world, path, 0.5, &err));
        ENSURE(strstr(err.message, "room.yaml: not written: it would replace ") != NULL);
        ENSURE(strstr(err.message, "the map YAML this world stands on; export to another name") != NULL);
    }
    // A .yml beside it whose PGM would be the map's image: refused too.
    snprintf(path, sizeof path, "%s/room.yml", s_folder);
    ENSURE(!lsExportMap(world, path, 0.5, &err) && strstr(err.message, "the map image this world stands on") != NULL);
    ENSURE(!Exists("room.yml") && HoldsText("room.yaml", yaml) && HoldsText("room.pgm", s_room));

    // The same for a map opened as a world; another name is written.
    snprintf(path, sizeof path, "%s/room.yaml", s_folder);
    lsWorld* mapWorld = lsLoadMapWorld(path, NULL, NULL, &err);
    ENSURE(mapWorld != NULL);
    ENSURE(!lsExportMap(mapWorld, path, 0.25, &err) && strstr(err.message, "the map YAML this world stands on"));
    ENSURE(HoldsText("room.yaml", yaml) && HoldsText("room.pgm", s_room));
    snprintf(path, sizeof path, "%s/copy.yml", s_folder);
    ENSURE(lsExportMap(mapWorld, path, 0.25, &err) && Exists("copy.yml") && Exists("copy.pgm"));
    lsDestroyWorld(mapWorld);
    lsDestroyWorld(world);
    return 0;
}

// A world at the coordinates' bound has no room for the map's pixel of margin: no resolution can help, and the
// message says so (it said "use a finer --resolution", and at 1e-4 m "use a coarser" one). Where one would help,
// the advice stays, in the direction that helps.
static int ExportAtBoundTest(void)
{
    static const char* const worlds[] = {
        // Reaching x = 1e6; reaching x = -1e6; 1e-5 m short of 1e6 (one metre across needs 1e10 pixels there).
        "{\"walls\":[{\"from\":[999999,0],\"to\":[1000000,0]},{\"from\":[999999,1],\"to\":[1000000,1]}],"
        "\"robot\":{\"pose\":[999999.5,0.5,0],\"radius\":0.1}}",
        "{\"walls\":[{\"from\":[-1000000,0],\"to\":[-999999,0]}],\"robot\":{\"pose\":[-999999.5,0.5,0]}}",
        "{\"walls\":[{\"from\":[999999,0],\"to\":[999999.99999,0]}],\"robot\":{\"pose\":[999999.5,0.5,0]}}",
        // Half a metre short: 1 m passes the bound, 1e-4 m the pixel limit, and 0.05 m fits.
        "{\"walls\":[{\"from\":[999998.5,0],\"to\":[999999.5,0]},{\"from\":[999998.5,1],\"to\":[999999.5,1]}],"
        "\"robot\":{\"pose\":[999999,0.5,0]}}",
    };
    static const char* const expected[][3] = {
        {"not written at any resolution: the world reaches x = 1000000 m, the coordinates' bound (a coordinate in "
         "[-1e+06, 1e+06] m), so its map with a pixel of margin round it cannot be written",
         NULL, NULL},
        {"not written at any resolution: the world reaches x = -1000000 m, the coordinates' bound", NULL, NULL},
        {"not written at any resolution: the world reaches x = 999999.99999 m, 9.99995972961187",
         "m from the coordinates' bound",
         "no resolution (a resolution in [0.0001, 1e+06] m per pixel) leaves a pixel of margin"},
        {NULL, NULL, NULL},
    };
    char path[128];
    snprintf(path, sizeof path, "%s/bound.yaml", s_folder);
    for (int i = 0; i < 4; ++i)
    {
        lsError err = {{0}};
        lsWorld* world = lsLoadWorldFromString(worlds[i], strlen(worlds[i]), "bound.json", &err, NULL);
        ENSURE(world != NULL);
        const double resolutions[] = {1.0, 1e-4, 0.05};
        for (int k = 0; k < 3; ++k)
        {
            bool fits = expected[i][0] == NULL && k == 2;
            ENSURE(lsExportMap(world, path, resolutions[k], &err) == fits);
            ENSURE(Exists("bound.yaml") == fits && Exists("bound.pgm") == fits);
            if (expected[i][0] != NULL)
            {
                for (int j = 0; j < 3; ++j)
                    ENSURE(expected[i][j] == NULL || strstr(err.message, expected[i][j]) != NULL);
                ENSURE(strstr(err.message, "--resolution") == NULL);
            }
            else if (!fits)
                ENSURE(strstr(err.message, k == 0 ? "use a finer --resolution" : "use a coarser --resolution"));
        }
        lsDestroyWorld(world);
    }
    return 0;
}

static int MapReloadTest(void)
{
    // Hot reload watches the world file, the map's YAML and its image: a changed image reloads, a broken one
    // fails with the image's name and keeps the world shown, a repaired one loads again.
    WriteText("room.pgm", s_room);
    WriteText("on.json", "{\"name\": \"on\", \"map\": \"room.yaml\", \"walls\": []}");
    char paths[2][128];
    snprintf(paths[0], sizeof paths[0], "%s/on.json", s_folder);
    snprintf(paths[1], sizeof paths[1], "%s/room.yaml", s_folder);
    for (int k = 0; k < 2; ++k)
    {
        lsError err = {{0}};
        lsWorld* shown = lsLoadWorld(paths[k], &err, NULL);
        ENSURE(shown != NULL && shown->wallCount == 1);
        lsReloader* reloader = lsCreateReloader(paths[k], 0.0);
        lsWorld* fresh = NULL;
        ENSURE(lsReloader_Poll(reloader, 0.0, shown, &fresh) == ls_reloadNone);
        WriteText("room.pgm", s_roomPillar);
        ENSURE(lsReloader_Poll(reloader, 1.0, shown, &fresh) == ls_reloadLoaded && fresh != NULL);
        ENSURE(fresh->wallCount == 2);
        lsDestroyWorld(shown);
        shown = fresh;
        ENSURE(lsReloader_Poll(reloader, 2.0, shown, &fresh) == ls_reloadNone);
        WriteText("room.pgm", "P5\n6 5\n255\nshort");
        ENSURE(lsReloader_Poll(reloader, 3.0, shown, &fresh) == ls_reloadFailed && fresh == NULL);
        ENSURE(strstr(lsReloader_Error(reloader), "room.pgm: not a readable PNM image") != NULL);
        WriteText("room.pgm", s_room);
        ENSURE(lsReloader_Poll(reloader, 4.0, shown, &fresh) == ls_reloadLoaded && fresh->wallCount == 1);
        ENSURE(!lsReloader_HasError(reloader));
        lsDestroyWorld(shown);
        lsDestroyWorld(fresh);
        lsDestroyReloader(reloader);
    }
    return 0;
}

static int MapSaveRaceTest(void)
{
    // The window's Ctrl+S of a world on a map while the map changes on disk (its image edited, not yet reloaded):
    // the save keeps the file's layout (its load-back check read the new map and, finding other walls, wrote the
    // canonical form), and the poll after the save still sees the map's change and loads it (marking the save
    // took the new map as loaded, so the window kept the old map's walls).
    WriteText("room.pgm", s_room);
    WriteText("room.yaml", "image: room.pgm\nresolution: 0.5\norigin: [1.0, 2.0, 0.0]\noccupied_thresh: 0.65\n"
                           "free_thresh: 0.196\n");
    const char* text = "{\n  \"name\":   \"on\",\n  \"map\": \"room.yaml\",\n"
                       "  \"targets\": [{\"center\": [2, 3.0]}]\n}\n";
    WriteText("on.json", text);
    char path[128];
    snprintf(path, sizeof path, "%s/on.json", s_folder);
    lsError err = {{0}};
    lsWorld* shown = lsLoadWorld(path, &err, NULL);
    ENSURE(shown != NULL && shown->wallCount >= 1 && shown->walls[0].fromMap);
    int mapWalls = shown->wallCount;
    lsReloader* reloader = lsCreateReloader(path, 0.0);
    lsWorld* fresh = NULL;
    ENSURE(lsReloader_Poll(reloader, 0.0, shown, &fresh) == ls_reloadNone);

    lsWorld* edited = lsCloneWorld(shown);
    edited->targets[0].center = lsV(2.5, 3.0);
    WriteText("room.pgm", s_roomPillar);
    char* written = NULL;
    ENSURE(lsSaveWorldKeepingText(edited, path, text, shown, &written, &err));
    ENSURE(written != NULL && strcmp(written, "{\n  \"name\":   \"on\",\n  \"map\": \"room.yaml\",\n"
                                              "  \"targets\": [{\"center\": [2.5, 3]}]\n}\n") == 0);
    lsFreeString(written);
    lsReloader_MarkSaved(reloader);
    ENSURE(lsReloader_Poll(reloader, 1.0, edited, &fresh) == ls_reloadLoaded && fresh != NULL);
    ENSURE(fresh->wallCount == mapWalls + 1 && fresh->targets[0].center.x == 2.5); // the pillar
    lsDestroyWorld(fresh);
    lsDestroyWorld(edited);
    lsDestroyWorld(shown);
    lsDestroyReloader(reloader);
    return 0;
}

// Removes every file in folder (the tests write no subfolders), then the folder; 0 on success.
static int RemoveFolder(const char* folder)
{
    DIR* dir = opendir(folder);
    if (dir == NULL)
        return -1;
    const struct dirent* entry;
    while ((entry = readdir(dir)) != NULL)
    {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    return rmdir(folder);
}

int MapTest(void)
{
    RUN_SUBTEST(EveryPatternTest);
    RUN_SUBTEST(SpecialMapsTest);
    RUN_SUBTEST(MergingTest);
    RUN_SUBTEST(SimplifyTest);
    RUN_SUBTEST(SimplifyLoopTest);
    RUN_SUBTEST(SegmentLimitTest);
    RUN_SUBTEST(RotatedOriginTest);
    snprintf(s_folder, sizeof s_folder, "/tmp/ls_map_XXXXXX");
    ENSURE(mkdtemp(s_folder) != NULL);
    RUN_SUBTEST(ImageKindsTest);
    RUN_SUBTEST(BmpAgreesTest);
    RUN_SUBTEST(BmpByHandTest);
    RUN_SUBTEST(ThresholdAtShadeTest);
    RUN_SUBTEST(YamlTest);
    RUN_SUBTEST(MapBoundsTest);
    RUN_SUBTEST(LoadMapWorldTest);
    RUN_SUBTEST(ExportRoundTripTest);
    RUN_SUBTEST(MapKeyTest);
    RUN_SUBTEST(ExportRefusesTest);
    RUN_SUBTEST(ExportAtBoundTest);
    RUN_SUBTEST(MapReloadTest);
    RUN_SUBTEST(MapSaveRaceTest);
    ENSURE(RemoveFolder(s_folder) == 0);
    return 0;
}

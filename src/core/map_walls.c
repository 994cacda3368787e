// lidarsim core: an occupancy grid's walls (see map.h). The boundary between wall cells and the others is traced
// on the lattice of cell corners as closed chains, wall on the left (counter-clockwise around wall cells), one
// unit edge at a time; only the corners where the direction turns are kept, so collinear unit edges come out
// merged into maximal segments. Where two wall cells touch only at a corner (a saddle), the chain turns left and
// keeps circling the cell it follows: both chains then pass through that corner, computed from the same integers,
// so the two closed squares stay closed there and no beam slips between them.
#include "core/text.h"
#include "lidarsim/map.h"

#include <stdio.h>
#include <string.h>

/// Most wall segments one map may make (a noisy 4000 x 4000 px SLAM map makes a few hundred thousand).
#define LS_MAP_MAX_SEGMENTS 4000000LL

lsVec2 lsGrid_Point(const lsGrid* grid, double u, double v)
{
    // One product per coordinate in the map frame, then the rotation: a lattice corner shared by two chains is
    // computed from the same integers, so it is bit-identical in both and no beam slips between them.
    double x = u * grid->resolution;
    double y = v * grid->resolution;
    if (grid->yaw == 0.0)
        return lsV(grid->origin.x + x, grid->origin.y + y);
    lsRot q = lsMakeRot(grid->yaw);
    return lsV(grid->origin.x + (q.c * x - q.s * y), grid->origin.y + (q.s * x + q.c * y));
}

// ---------------------------------------------------------------------------------------------------------------------
// Tracing

// Directions: east, north, west, south; a left turn is +1.
static const int s_dx[4] = {1, 0, -1, 0};
static const int s_dy[4] = {0, 1, 0, -1};

typedef struct Point2i
{
    int x, y;
} Point2i;

typedef struct Tracer
{
    int width, height;
    int stride;      // width + 2: the wall bitmap has a one-cell free border all round
    uint8_t* wall;   // (width + 2) * (height + 2), bottom-up: wall[(y + 1) * stride + x + 1]
    uint64_t* seen;  // horizontal unit edges walked, width * (height + 1) bits (chains start only at those)
    Point2i* points; // the current chain's corners
    bool* pinned;    // per corner: a saddle, shared with another chain (simplification keeps it)
    int count, capacity;
} Tracer;

static inline bool Wall(const Tracer* t, int x, int y) { return t->wall[(size_t)(y + 1) * t->stride + x + 1] != 0; }

// The unit edges leaving corner (i, j) with a wall cell on their left, as a bit set over the directions.
static inline int Outgoing(const Tracer* t, int i, int j)
{
    bool ne = Wall(t, i, j), nw = Wall(t, i - 1, j), sw = Wall(t, i - 1, j - 1), se = Wall(t, i, j - 1);
    return (ne && !se) << 0 | (nw && !ne) << 1 | (sw && !nw) << 2 | (se && !sw) << 3;
}

static void Push(Tracer* t, int x, int y, bool pinned)
{
    if (t->count == t->capacity)
    {
        int capacity = t->capacity < 64 ? 64 : 2 * t->capacity;
        t->points = lsRealloc(t->points, (size_t)t->capacity * sizeof(Point2i), (size_t)capacity * sizeof(Point2i));
        t->pinned = lsRealloc(t->pinned, (size_t)t->capacity * sizeof(bool), (size_t)capacity * sizeof(bool));
        t->capacity = capacity;
    }
    t->points[t->count] = (Point2i){x, y};
    t->pinned[t->count] = pinned;
    ++t->count;
}

static inline bool Seen(const Tracer* t, size_t edge) { return (t->seen[edge >> 6] >> (edge & 63) & 1) != 0; }

// Marks the unit edge leaving corner (i, j) in direction d when it is horizontal.
static void MarkEdge(Tracer* t, int i, int j, int d)
{
    if (d == 0 || d == 2)
    {
        size_t edge = (size_t)j * t->width + (size_t)(d == 0 ? i : i - 1);
        t->seen[edge >> 6] |= 1ull << (edge & 63);
    }
}

// Follows the chain that leaves corner (i0, j0) in direction d0 until it comes back to that edge; the corners
// where it turns go to t->points. Returns the number of unit edges walked.
static long long Trace(Tracer* t, int i0, int j0, int d0)
{
    t->count = 0;
    int i = i0, j = j0, d = d0;
    long long edges = 0;
    for (;;)
    {
        MarkEdge(t, i, j, d);
        i += s_dx[d];
        j += s_dy[d];
        ++edges;
        int out = Outgoing(t, i, j);
        // At a saddle two edges leave: the left turn keeps circling the same cell. Elsewhere exactly one leaves.
        int left = (d + 1) & 3, right = (d + 3) & 3;
        int next = (out >> left & 1) ? left : (out >> d & 1) ? d : right;
        if (next != d)
        {
            bool saddle = (out & 5) == 5 || (out & 10) == 10;
            Push(t, i, j, saddle);
        }
        if (i == i0 && j == j0 && next == d0)
            return edges;
        d = next;
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Simplification: Douglas-Peucker between pinned corners, in lattice units. Each kept piece is a chord whose
// skipped corners lie within the tolerance of it; since the chain runs from one end of the chord to the other,
// every point of the chord is also within the tolerance of the chain (two-sided bound).

static double SegmentDistance(Point2i p, Point2i a, Point2i b)
{
    double abx = (double)b.x - a.x, aby = (double)b.y - a.y;
    double apx = (double)p.x - a.x, apy = (double)p.y - a.y;
    double len2 = abx * abx + aby * aby;
    double t = len2 > 0.0 ? (apx * abx + apy * aby) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    double dx = apx - t * abx, dy = apy - t * aby;
    return sqrt(dx * dx + dy * dy);
}

// Keeps the corners of points[first..last] (indices modulo n) that Douglas-Peucker needs for the tolerance.
static void Simplify(const Point2i* points, int n, int first, int last, double tolerance, bool* keep, int* stack)
{
    int top = 0;
    stack[top++] = first;
    stack[top++] = last;
    while (top > 0)
    {
        int b = stack[--top], a = stack[--top];
        // The split is the farthest corner; of corners as far (within rounding), the one nearest the middle. Any
        // split keeps the bound (a piece stops only when all its corners are within the tolerance), but a staircase's
        // corners lie at one of two distances from its chord, and splitting at the first cut off one corner at a
        // time: quadratic in the chain (3000 x 3000 px of diagonal bands took 50 s at --simplify 0.1 px).
        double worst = -1.0, split = -1.0;
        int worstAt = -1, mid = a + (b - a) / 2;
        for (int offset = 0; mid - offset > a || mid + offset < b; ++offset)
        {
            for (int side = 0; side < (offset == 0 ? 1 : 2); ++side)
            {
                int k = side == 0 ? mid - offset : mid + offset;
                if (k <= a || k >= b)
                    continue;
                double dist = SegmentDistance(points[k % n], points[a % n], points[b % n]);
                worst = lsFmax(worst, dist);
                if (dist > split + 1e-9)
                {
                    split = dist;
                    worstAt = k;
                }
            }
        }
        // A piece from a corner back to the same corner (a chain passing a saddle twice, around a hole that opens
        // there) keeps its farthest corner whatever the tolerance: dropping all of it leaves a zero-length segment.
        Point2i pa = points[a % n], pb = points[b % n];
        bool loop = pa.x == pb.x && pa.y == pb.y;
        if (worstAt >= 0 && (worst > tolerance || loop))
        {
            keep[worstAt % n] = true;
            stack[top++] = a;
            stack[top++] = worstAt;
            stack[top++] = worstAt;
            stack[top++] = b;
        }
    }
}

// Writes the simplified chain into out (capacity n) and returns its length.
static int SimplifyChain(const Tracer* t, double tolerance, Point2i* out, bool* keep, int* stack)
{
    int n = t->count;
    int pins = 0;
    for (int k = 0; k < n; ++k)
    {
        keep[k] = t->pinned[k];
        pins += keep[k];
    }
    if (pins == 0)
    {
        // No shared corner: pin the first corner and the one farthest from it.
        int far = 0;
        double best = -1.0;
        for (int k = 1; k < n; ++k)
        {
            double dx = (double)t->points[k].x - t->points[0].x, dy = (double)t->points[k].y - t->points[0].y;
            if (dx * dx + dy * dy > best)
            {
                best = dx * dx + dy * dy;
                far = k;
            }
        }
        keep[0] = keep[far] = true;
    }
    else if (pins == 1)
    {
        // One pin: add the corner farthest from it so every piece is a proper chord.
        int pin = 0;
        while (!keep[pin])
            ++pin;
        int far = pin;
        double best = -1.0;
        for (int k = 0; k < n; ++k)
        {
            double dx = (double)t->points[k].x - t->points[pin].x, dy = (double)t->points[k].y - t->points[pin].y;
            if (dx * dx + dy * dy > best)
            {
                best = dx * dx + dy * dy;
                far = k;
            }
        }
        keep[far] = true;
    }
    int start = 0;
    while (!keep[start])
        ++start;
    // Each piece runs from one pinned corner to the next, around the closed chain (indices unrolled past n).
    int a = start;
    for (int step = 1; step <= n; ++step)
    {
        int b = start + step;
        if (keep[b % n] && !(b - a == 1))
            Simplify(t->points, n, a, b, tolerance, keep, stack);
        if (keep[b % n])
            a = b;
    }
    int m = 0;
    for (int k = 0; k < n; ++k)
        if (keep[(start + k) % n])
            out[m++] = t->points[(start + k) % n];
    return m;
}

// ---------------------------------------------------------------------------------------------------------------------

// The fewest segments any tolerance leaves of the traced chain: simplification keeps every pinned corner (where wall
// cells touch only diagonally; a checkerboard's every corner), and a chain of two points or fewer is one segment.
static long long FewestSegments(const Tracer* t)
{
    long long pins = 0;
    for (int k = 0; k < t->count; ++k)
        pins += t->pinned[k];
    return pins >= 3 ? pins : 1;
}

static bool CountsAsWall(uint8_t cell, const lsMapOptions* options)
{
    return cell == ls_cellWall || (options->unknownOccupied && cell == ls_cellUnknown);
}

static void AddChain(lsWorld* world, const lsGrid* grid, const Point2i* points, int count, lsVec2** scratch,
                     int* scratchCapacity)
{
    if (*scratchCapacity < count)
    {
        *scratch = lsRealloc(*scratch, (size_t)*scratchCapacity * sizeof(lsVec2), (size_t)count * sizeof(lsVec2));
        *scratchCapacity = count;
    }
    for (int k = 0; k < count; ++k)
        (*scratch)[k] = lsGrid_Point(grid, points[k].x, points[k].y);
    // Two points left after simplifying a sliver: one segment, both ways round the same.
    int w = lsWorld_AddWall(world, *scratch, count, count >= 3);
    world->walls[w].fromMap = true;
}

bool lsGrid_AddWalls(const lsGrid* grid, const lsMapOptions* options, lsWorld* world, lsMapWallStats* stats,
                     const char* label, lsError* err)
{
    if (grid == NULL || grid->cells == NULL || world == NULL || label == NULL)
        return lsFail(err, "%s: no %s given", label != NULL ? label : "<map>",
                      grid == NULL || grid->cells == NULL ? "grid"
                      : world == NULL                     ? "world"
                                                          : "label");
    lsMapOptions defaults = {false, 0.0};
    if (options == NULL)
        options = &defaults;
    lsMapWallStats local;
    memset(&local, 0, sizeof local);
    Tracer t;
    memset(&t, 0, sizeof t);
    t.width = grid->width;
    t.height = grid->height;
    t.stride = grid->width + 2;
    size_t wallBytes = (size_t)t.stride * (size_t)(grid->height + 2);
    t.wall = lsAllocZero(wallBytes, 1);
    for (int y = 0; y < grid->height; ++y)
    {
        const uint8_t* row = grid->cells + (size_t)(grid->height - 1 - y) * grid->width;
        uint8_t* out = t.wall + (size_t)(y + 1) * t.stride + 1;
        for (int x = 0; x < grid->width; ++x)
        {
            out[x] = CountsAsWall(row[x], options);
            local.wallCells += out[x];
        }
    }
    if (local.wallCells == 0)
    {
        lsFree(t.wall, wallBytes);
        return lsFail(err, "%s: no wall cell in the map (no pixel is occupied%s)", label,
                      options->unknownOccupied ? " or unknown"
                                               : "; unknown cells count as walls with import --unknown occupied or "
                                                 "\"unknown\": \"occupied\" beside \"map\" in a world");
    }
    size_t seenWords = ((size_t)t.width * (size_t)(t.height + 1) + 63) / 64;
    t.seen = lsAllocZero(seenWords, sizeof(uint64_t));
    double tolerance = options->simplify > 0.0 ? options->simplify / grid->resolution : 0.0;
    Point2i* simple = NULL;
    bool* keep = NULL;
    int* stack = NULL;
    int simpleCapacity = 0;
    lsVec2* scratch = NULL;
    int scratchCapacity = 0;
    // The limit is on what the world gets: the segments after --simplify. Past it nothing more is added, but the rest
    // is still traced (time as the image's, memory one chain's) for the fewest segments any tolerance leaves, so that
    // --simplify is advised only where it can help: a checkerboard keeps every corner at any tolerance.
    bool over = false;
    long long fewest = 0;
    // Every chain has a horizontal edge: start one at each horizontal boundary edge not yet walked.
    for (int j = 0; j <= t.height && !(over && fewest > LS_MAP_MAX_SEGMENTS); ++j)
    {
        const uint8_t* rowAbove = t.wall + (size_t)(j + 1) * t.stride + 1;
        const uint8_t* rowBelow = t.wall + (size_t)j * t.stride + 1;
        for (int i = 0; i < t.width && !(over && fewest > LS_MAP_MAX_SEGMENTS); ++i)
        {
            // Rows of a big map are mostly the same as the row below: skip equal stretches eight cells at a time.
            uint64_t a8, b8;
            if (i + 8 <= t.width)
            {
                memcpy(&a8, rowAbove + i, 8);
                memcpy(&b8, rowBelow + i, 8);
                if (a8 == b8)
                {
                    i += 7;
                    continue;
                }
            }
            bool above = rowAbove[i] != 0, below = rowBelow[i] != 0;
            if (above == below || Seen(&t, (size_t)j * t.width + i))
                continue;
            long long edges = above ? Trace(&t, i, j, 0) : Trace(&t, i + 1, j, 2);
            LS_ASSERT(t.count >= 4); // a closed lattice loop turns at least four times (so the buffers below are set)
            fewest += FewestSegments(&t);
            if (over)
                continue;
            local.unitEdges += edges;
            local.segments += t.count;
            local.chains += 1;
            const Point2i* chain = t.points;
            int count = t.count;
            if (tolerance > 0.0)
            {
                if (simpleCapacity < t.count)
                {
                    simple =
                        lsRealloc(simple, (size_t)simpleCapacity * sizeof(Point2i), (size_t)t.count * sizeof(Point2i));
                    keep = lsRealloc(keep, (size_t)simpleCapacity * sizeof(bool), (size_t)t.count * sizeof(bool));
                    stack =
                        lsRealloc(stack, (size_t)simpleCapacity * 4 * sizeof(int), (size_t)t.count * 4 * sizeof(int));
                    simpleCapacity = t.count;
                }
                count = SimplifyChain(&t, tolerance, simple, keep, stack);
                chain = simple;
            }
            local.simplified += count >= 3 ? count : 1;
            over = local.simplified > LS_MAP_MAX_SEGMENTS;
            if (!over)
                AddChain(world, grid, chain, count, &scratch, &scratchCapacity);
        }
    }
    bool ok = true;
    if (over && fewest > LS_MAP_MAX_SEGMENTS)
        ok = lsFail(err,
                    "%s: more than %lld wall segments (the limit), even with import --simplify: corners where wall "
                    "cells touch only diagonally (a checkerboard's) always stay, and there are too many",
                    label, LS_MAP_MAX_SEGMENTS);
    else if (over && options->simplify > 0.0)
    {
        char shown[32];
        lsFormatNumber(shown, sizeof shown, options->simplify);
        ok = lsFail(err, "%s: more than %lld wall segments (the limit) after --simplify %s; try a larger --simplify",
                    label, LS_MAP_MAX_SEGMENTS, shown);
    }
    else if (over)
        // Only import simplifies (check, render and a world's "map" take the cells' exact boundary).
        ok = lsFail(err,
                    "%s: more than %lld wall segments (the limit); a world file of it simplified holds fewer: "
                    "lidarsim import MAP.yaml -o WORLD.json --simplify METRES",
                    label, LS_MAP_MAX_SEGMENTS);
    lsFree(t.wall, wallBytes);
    lsFree(t.seen, seenWords * sizeof(uint64_t));
    lsFree(t.points, (size_t)t.capacity * sizeof(Point2i));
    lsFree(t.pinned, (size_t)t.capacity * sizeof(bool));
    lsFree(simple, (size_t)simpleCapacity * sizeof(Point2i));
    lsFree(keep, (size_t)simpleCapacity * sizeof(bool));
    lsFree(stack, (size_t)simpleCapacity * 4 * sizeof(int));
    lsFree(scratch, (size_t)scratchCapacity * sizeof(lsVec2));
    if (stats != NULL)
        *stats = local;
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------------
// A free place for the robot: a chessboard distance transform (two passes) from every non-free cell and from
// outside the image; the largest distance wins, ties towards the middle of the map.

lsVec2 lsGrid_FreePlace(const lsGrid* grid, const lsMapOptions* options, double radius)
{
    LS_ASSERT(grid != NULL && grid->cells != NULL && radius >= 0.0);
    (void)options; // unknown cells are never a good place to start, whether or not they count as walls
    // Big maps work on blocks of b x b cells (free when every cell is), at most about a million of them: the
    // place is then b cells coarse, which is plenty for a start, and the transform stays fast.
    int w0 = grid->width, h0 = grid->height;
    int b = 1;
    while ((long long)(w0 / b) * (h0 / b) > 1000000LL)
        ++b;
    int w = w0 / b, h = h0 / b;
    if (w == 0 || h == 0)
    {
        double away = -(radius / grid->resolution + 1.0);
        return lsGrid_Point(grid, away, away);
    }
    size_t n = (size_t)w * (size_t)h;
    uint16_t* dist = lsAlloc(n * sizeof(uint16_t));
    for (int y = 0; y < h; ++y)
    {
        for (int x = 0; x < w; ++x)
            dist[(size_t)y * w + x] = 65535u;
        for (int r = 0; r < b; ++r)
        {
            const uint8_t* row = grid->cells + (size_t)(y * b + r) * w0;
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < b; ++c)
                    if (row[x * b + c] != ls_cellFree)
                        dist[(size_t)y * w + x] = 0;
        }
    }
    // Forward pass: left and the three above; the border is one block from outside.
    for (int y = 0; y < h; ++y)
    {
        for (int x = 0; x < w; ++x)
        {
            size_t k = (size_t)y * w + x;
            if (dist[k] == 0)
                continue;
            uint32_t d = 1;
            if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
            {
                uint32_t m = dist[k - 1];
                m = dist[k - w] < m ? dist[k - w] : m;
                m = dist[k - w - 1] < m ? dist[k - w - 1] : m;
                m = dist[k - w + 1] < m ? dist[k - w + 1] : m;
                d = m + 1 > 65535u ? 65535u : m + 1;
            }
            dist[k] = (uint16_t)d;
        }
    }
    // Backward pass: right and the three below; the best block is known when it is final.
    long long bestScore = -1;
    size_t best = n;
    double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    double bestCentre = 0.0;
    for (int y = h - 1; y >= 0; --y)
    {
        for (int x = w - 1; x >= 0; --x)
        {
            size_t k = (size_t)y * w + x;
            if (dist[k] == 0)
                continue;
            if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
            {
                uint32_t m = dist[k];
                uint32_t c1 = dist[k + 1] + 1u, c2 = dist[k + w] + 1u, c3 = dist[k + w + 1] + 1u,
                         c4 = dist[k + w - 1] + 1u;
                m = c1 < m ? c1 : m;
                m = c2 < m ? c2 : m;
                m = c3 < m ? c3 : m;
                m = c4 < m ? c4 : m;
                dist[k] = (uint16_t)(m > 65535u ? 65535u : m);
            }
            if (dist[k] < bestScore)
                continue;
            double centre = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (dist[k] > bestScore || centre < bestCentre)
            {
                bestScore = dist[k];
                best = k;
                bestCentre = centre;
            }
        }
    }
    lsFree(dist, n * sizeof(uint16_t));
    // A block at chessboard distance d from every non-free block is at least (d - 0.5) blocks from their cells.
    if (best < n && ((double)bestScore - 0.5) * b * grid->resolution >= radius)
    {
        int x = (int)(best % (size_t)w), row = (int)(best / (size_t)w);
        return lsGrid_Point(grid, x * b + 0.5 * b, h0 - (row * b + 0.5 * b));
    }
    // Nowhere wide enough inside: just outside the lower-left corner, clear of every cell.
    double away = -(radius / grid->resolution + 1.0);
    return lsGrid_Point(grid, away, away);
}

// ---------------------------------------------------------------------------------------------------------------------

lsWorld* lsLoadMapWorld(const char* yamlPath, const lsMapOptions* options, lsMapWallStats* stats, lsError* err)
{
    if (yamlPath == NULL)
        return lsFailNull(err, "no map file name given");
    lsMapOptions defaults = {false, 0.0};
    if (options == NULL)
        options = &defaults;
    lsGrid grid;
    lsMapInfo info;
    if (!lsLoadMapGrid(yamlPath, &grid, &info, err))
        return NULL;
    lsWorld* world = lsCreateWorld();
    if (!lsGrid_AddWalls(&grid, options, world, stats, yamlPath, err))
    {
        lsDestroyWorld(world);
        lsFreeGrid(&grid);
        return NULL;
    }
    world->robot.position = lsGrid_FreePlace(&grid, options, world->robot.radius);
    world->map.robotPlaced = true;
    lsFreeGrid(&grid);
    const char* base = strrchr(yamlPath, '/');
    base = base != NULL ? base + 1 : yamlPath;
    lsNameFromPath(base, "map", world->name, sizeof world->name);
    // A world saved beside the YAML names it by its file name.
    snprintf(world->map.path, sizeof world->map.path, "%s", base);
    world->map.unknownOccupied = options->unknownOccupied;
    snprintf(world->map.yamlFile, sizeof world->map.yamlFile, "%s", yamlPath);
    snprintf(world->map.imageFile, sizeof world->map.imageFile, "%s", info.image);
    return world;
}

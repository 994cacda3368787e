// The scene's uniform grid: the layout (cell size, bounds, long primitives kept out), the registration of every
// primitive in the cells it touches, and the box query.
//
// Why a grid: the bench worlds (and most lidar worlds) have short walls spread at roughly constant density, so a
// grid sized to the number of primitives gives a few candidates per cell, the walk costs a handful of cells per
// beam whatever the size of the map, and the build is two linear passes (count, fill) into flat CSR arrays.
//
// Correctness at cell boundaries: every primitive is registered in each cell that its geometry comes within
// `slop` of (slop is far larger than the rounding of the walk), so wherever the walk's rounded path strays, the
// cells it visits still hold everything the exact ray touches (scene_cast.c).
#include "core/alloc.h"
#include "core/geometry_internal.h"
#include "core/scene_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Registration of primitives in cells
//
// Every kind is registered twice: a counting pass, then, once the counts are turned into the lists' starts (which go
// into the headers), a filling pass that uses the starts as write cursors. Targets and shapes count in a plain int
// per cell (a quarter of a header's bytes, so the scattered updates stay in cache); segments, which are most of the
// records, are sorted by row first and counted and written one row at a time (SpansByRow, FillSegments). Each header
// field is written once, while the counts become starts: no pass clears or shifts them.

// The cells ix0..ix1 of one row that a segment (an index into RowSpans' segments) is registered in.
typedef struct SegmentSpan
{
    int segment;
    int ix0, ix1;
} SegmentSpan;

// A segment prepared for finding its cells row by row: the rows it is registered in (its y range widened by the
// slop) and the reciprocal of its height, which every row's clip shares.
typedef struct SegmentRows
{
    lsSegment seg;
    int iy0, iy1;
    double invDy; // 0 when the segment lies in one row or is flat: every row then takes its whole x range
} SegmentRows;

// The first and last row of cells a segment is registered in.
static inline void SegmentRowRange(const lsScene* scene, lsSegment seg, int* iy0, int* iy1)
{
    *iy0 = CellY(scene, Min(seg.a.y, seg.b.y) - scene->slop);
    *iy1 = CellY(scene, Max(seg.a.y, seg.b.y) + scene->slop);
}

static inline SegmentRows MakeSegmentRows(const lsScene* scene, lsSegment seg)
{
    SegmentRows rows;
    rows.seg = seg;
    SegmentRowRange(scene, seg, &rows.iy0, &rows.iy1);
    double dy = seg.b.y - seg.a.y;
    rows.invDy = fabs(dy) <= 1e-300 || rows.iy0 == rows.iy1 ? 0.0 : 1.0 / dy; // finite: |dy| > 1e-300
    return rows;
}

// The cells ix0..ix1 of row iy (one of rows->iy0..iy1) that a segment is registered in: the part of the segment
// inside the row's band (widened by the slop) gives the x range. False when rounding at the ends of the row range
// leaves nothing. The box query recomputes these same spans, so they must stay deterministic.
static inline bool SegmentRowSpan(const lsScene* scene, const SegmentRows* rows, int iy, int* ix0, int* ix1)
{
    double slop = scene->slop;
    lsVec2 a = rows->seg.a, b = rows->seg.b;
    double xlo = Min(a.x, b.x), xhi = Max(a.x, b.x);
    if (rows->invDy != 0.0)
    {
        double bandLo = scene->y0 + (double)iy * scene->cellSize - slop;
        double bandHi = scene->y0 + (double)(iy + 1) * scene->cellSize + slop;
        double t0 = (bandLo - a.y) * rows->invDy, t1 = (bandHi - a.y) * rows->invDy;
        double tLo = Max(Min(t0, t1), 0.0), tHi = Min(Max(t0, t1), 1.0);
        if (tLo > tHi)
        {
            return false;
        }
        double xa = a.x + tLo * (b.x - a.x), xb = a.x + tHi * (b.x - a.x);
        xlo = Max(Min(xa, xb), xlo);
        xhi = Min(Max(xa, xb), xhi);
    }
    // The clip above rounds by a few 1e-16 of the coordinates (the reciprocal adds one rounding to the division's),
    // far less than the slop (long segments, whose clip could round by more, are not in the grid).
    *ix0 = CellX(scene, xlo - slop);
    *ix1 = CellX(scene, xhi + slop);
    return true;
}

// The cells [ix0, iy0, ix1, iy1] of a box region (already expanded by the slop).
static void BoundsRange(const lsScene* scene, lsAABB box, int range[4])
{
    range[0] = CellX(scene, box.lower.x);
    range[1] = CellY(scene, box.lower.y);
    range[2] = CellX(scene, box.upper.x);
    range[3] = CellY(scene, box.upper.y);
}

// Adds one to the count of every cell of a range [ix0, iy0, ix1, iy1] (none when ix0 > ix1).
static void CountRange(const lsScene* scene, int* counts, const int range[4])
{
    for (int iy = range[1]; iy <= range[3]; ++iy)
    {
        int* row = counts + (ptrdiff_t)iy * scene->nx;
        for (int ix = range[0]; ix <= range[2]; ++ix)
        {
            row[ix] += 1;
        }
    }
}

void lsSceneGrid_TargetRange(const lsScene* scene, lsCircle c, int range[4])
{
    lsAABB box = Expand(lsCircle_Bounds(&c), scene->slop);
    double gx1 = scene->x0 + (double)scene->nx * scene->cellSize;
    double gy1 = scene->y0 + (double)scene->ny * scene->cellSize;
    if (scene->nx == 0 ||
        !(box.lower.x >= scene->x0 && box.lower.y >= scene->y0 && box.upper.x <= gx1 && box.upper.y <= gy1))
    {
        range[0] = 1, range[1] = 1, range[2] = 0, range[3] = 0;
        return;
    }
    BoundsRange(scene, box, range);
}

// Turns the targets' per-cell counts into their lists' starts (the filling pass's cursors) and writes them into the
// headers (the segments' and shapes' starts are in place); returns the targets' total.
static int WriteTargetStarts(lsScene* scene, int* cursor)
{
    int cellCount = scene->nx * scene->ny;
    int total = 0;
    for (int c = 0; c < cellCount; ++c)
    {
        int count = cursor[c];
        cursor[c] = total;
        scene->cells[c].target = total;
        total += count;
    }
    scene->cells[cellCount].target = total;
    return total;
}

static inline int MinInt(int a, int b) { return a < b ? a : b; }

// The headers' empty squares. In a sparse grid (more cells than records: a map's open rooms of small cells) each empty
// cell gets, per quadrant of directions, the side of the largest square of empty cells that has it at its corner and
// lies on that quadrant's side (the walk crosses such a square in one step: a ray in it stays in it until it leaves
// through one of the square's far sides). The largest-square recurrence (1 + the minimum over the three neighbours on
// that side), one pass per quadrant from that side's far corner; the cells beyond the grid count as empty. A dense
// grid (the cities, the mazes) seldom has an empty cell with empty neighbours, so its squares stay 0: each cell is
// walked; its headers' last byte says instead whether the cell holds targets or shapes (for the packets).
static void WriteSquares(lsScene* scene)
{
    int nx = scene->nx, ny = scene->ny, cellCount = nx * ny;
    CellHeader* h = scene->cells;
    bool sparse = cellCount > scene->segItemCount + scene->shapeItemCount + scene->targetItemCount;
    for (int c = sparse ? cellCount : 0; c <= cellCount; ++c)
    {
        memset(h[c].square, 0, sizeof h[c].square); // a dense grid's, and the headers' end
        // A dense grid's cell holding targets or shapes says so in its last byte (see CellHeader).
        bool discs = c < cellCount && (h[c].shape != h[c + 1].shape || h[c].target != h[c + 1].target);
        h[c].square[3] = discs ? 1 : 0;
    }
    for (int q = 0; q < 4 && sparse; ++q)
    {
        int sx = (q & 1) != 0 ? 1 : -1, sy = (q & 2) != 0 ? 1 : -1;
        for (int jy = 0; jy < ny; ++jy)
        {
            int iy = sy > 0 ? ny - 1 - jy : jy;
            bool inY = iy + sy >= 0 && iy + sy < ny;
            for (int jx = 0; jx < nx; ++jx)
            {
                int ix = sx > 0 ? nx - 1 - jx : jx;
                CellHeader* c = h + (ptrdiff_t)iy * nx + ix;
                // A cell's lists end where the next header's start (a row's last cell: where the next row's start).
                bool empty = c[0].seg == c[1].seg && c[0].shape == c[1].shape && c[0].target == c[1].target;
                int side = 0;
                if (empty)
                {
                    bool inX = ix + sx >= 0 && ix + sx < nx;
                    int across = inX ? c[sx].square[q] : 255;
                    int up = inY ? c[(ptrdiff_t)sy * nx].square[q] : 255;
                    int corner = inX && inY ? c[(ptrdiff_t)sy * nx + sx].square[q] : 255;
                    side = 1 + MinInt(MinInt(across, up), corner);
                    side = MinInt(side, 255);
                }
                c->square[q] = (unsigned char)side;
            }
        }
    }
}

// The piece of segment a-b within the box [xl, xh] x [yl, yh] (Liang and Barsky), as a + t e for the parameters
// where it enters and leaves the box, an endpoint itself where the segment ends inside: every point of the segment
// in the box lies on the piece, and its computed ends lie within a few ulps of the segment's coordinates off its line.
// The whole segment when it misses the box (by rounding: it comes within the slop of the cell).
static lsSegment ClipToBox(const lsSegment* seg, double xl, double xh, double yl, double yh)
{
    double ex = seg->b.x - seg->a.x, ey = seg->b.y - seg->a.y;
    double t0 = 0.0, t1 = 1.0;
    double p[4] = {-ex, ex, -ey, ey};
    double q[4] = {seg->a.x - xl, xh - seg->a.x, seg->a.y - yl, yh - seg->a.y};
    for (int k = 0; k < 4; ++k)
    {
        if (p[k] == 0.0)
        {
            if (q[k] < 0.0)
            {
                return *seg;
            }
            continue;
        }
        double r = q[k] / p[k];
        t0 = p[k] < 0.0 ? Max(t0, r) : t0;
        t1 = p[k] > 0.0 ? Min(t1, r) : t1;
    }
    if (!(t0 <= t1))
    {
        return *seg;
    }
    lsVec2 a = t0 > 0.0 ? (lsVec2){seg->a.x + t0 * ex, seg->a.y + t0 * ey} : seg->a;
    lsVec2 b = t1 < 1.0 ? (lsVec2){seg->a.x + t1 * ex, seg->a.y + t1 * ey} : seg->b;
    return (lsSegment){a, b};
}

// A sparse grid's records cut to their pieces within their cells' boxes grown by twice the slop (segPieces: the walk's
// side tests), and the bound on how far a clipped end lies off its record's line (pieceError). Nothing in a dense grid.
static void BuildPieces(lsScene* scene)
{
    int nx = scene->nx, ny = scene->ny;
    scene->segPieces = NULL;
    scene->pieceError = 0.0;
    if (!((long long)nx * ny > (long long)scene->segItemCount + scene->shapeItemCount) || scene->segItemCount == 0)
    {
        return;
    }
    // ClipToBox's ends are a + t e: each coordinate rounds by a few ulps of |a| + |e| off the line (t's own rounding
    // moves the end along the line), every record's coordinates lie within the grid, and the side cross(d, p - o)
    // moves by at most (|dx| + |dy|) times that: 1e-14 (max |x| + max |y|) per unit of |dx| + |dy| is many times it.
    scene->pieceError =
        1e-14 * (Max(fabs(scene->x0), fabs(scene->x1)) + Max(fabs(scene->y0), fabs(scene->y1)) + scene->cellSize);
    scene->segPieces = lsAlloc((size_t)(scene->segItemCount + LS_PIECES_AFTER) * sizeof(CellSegment));
    double s = scene->cellSize, slop = scene->slop;
    for (int iy = 0; iy < ny; ++iy)
    {
        const CellHeader* h = scene->cells + (ptrdiff_t)iy * nx;
        double yl = scene->y0 + (double)iy * s - 2.0 * slop, yh = scene->y0 + (double)(iy + 1) * s + 2.0 * slop;
        for (int ix = 0; ix < nx; ++ix)
        {
            double xl = scene->x0 + (double)ix * s - 2.0 * slop, xh = scene->x0 + (double)(ix + 1) * s + 2.0 * slop;
            for (int k = h[ix].seg; k < h[ix + 1].seg; ++k)
            {
                scene->segPieces[k] = ClipToBox(scene->segItems + k, xl, xh, yl, yh);
            }
        }
    }
    for (int k = 0; k < LS_PIECES_AFTER; ++k)
    {
        scene->segPieces[scene->segItemCount + k] = scene->segPieces[scene->segItemCount - 1];
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Back faces (a sparse grid's scans skip them: SparseCellVisit in scene_fan.c)
//
// The loops are the closed chains split where they pass through a point again (a map's contour touching itself at a
// pixel's corner), each of three edges at least. W(x), the sum of the loops' winding numbers around a point x, changes
// only across their edges. Every two edges of the loops that share a cell are checked to keep apart (EdgesClear: more
// than the slop apart when they share no endpoint, at an angle of 2^-9 rad or more when they share one; edges that
// share no cell lie at least the slop apart, each being registered in every cell it comes within the slop of), or both
// loops are left out. So no edge touches another's inside, and W takes one value along each side of an edge s: its
// right's, counted at a point just off its middle, and its left's, one more. A scan's origin o with W(o) = 0 (off
// every edge) that meets s at a point p inside it from a side whose W is not 0 crossed some edge f at a point q
// before p (W is 0 at o and not just before p). The brute force's answer is then no farther than f's fraction, and s
// loses to f as long as the rounding of the two fractions (about 2^-37 of them each: ray_cast.c's well-conditioned
// crossing, or double-double, or one subtraction and a division for an endpoint on the beam's line) cannot close the
// gap |p - q|: at least the distance from p to f, so at least the slop when f shares no endpoint with s, and at least
// sin(angle) times p's distance from the shared endpoint otherwise (past a right angle, the distance itself). A beam
// that passes at least 2^-24 of the grid's diagonal from s's ends (its sides, beyond their error) therefore cannot
// have s as its answer: the gap is then at least 2^-33 of the diagonal, the rounding at most 2^-36 of it. The edge f
// at the first crossing is never skipped (W is 0 up to it). Chains with a long primitive (outside the grid's cells)
// or extreme coordinates are not taken.

// A lower bound on the distance between segments p and q (0 when they may meet): exact signs decide whether they meet;
// apart, the distance is the least of their endpoints' distances to the other, computed here to within a few ulps of
// the segments' lengths (the foot of the perpendicular cancels), far below the room the proof keeps: the slop must
// exceed 2^-33 of the diagonal, the fractions' rounding is below 2^-36 of it (collinear and overlapping, an endpoint
// lies on the other segment: a distance of rounding only).
static double SegmentsApart(const lsSegment* p, const lsSegment* q)
{
    int o1 = lsOrient(p->a, p->b, q->a), o2 = lsOrient(p->a, p->b, q->b);
    int o3 = lsOrient(q->a, q->b, p->a), o4 = lsOrient(q->a, q->b, p->b);
    if (o1 * o2 <= 0 && o3 * o4 <= 0 && (o1 != 0 || o2 != 0 || o3 != 0 || o4 != 0))
    {
        return 0.0; // they cross or touch
    }
    double best = HUGE_VAL;
    const lsSegment* segs[2] = {p, q};
    for (int k = 0; k < 4; ++k)
    {
        const lsSegment* s = segs[1 - k / 2];
        lsVec2 x = (k & 1) == 0 ? segs[k / 2]->a : segs[k / 2]->b;
        double ex = s->b.x - s->a.x, ey = s->b.y - s->a.y, ax = x.x - s->a.x, ay = x.y - s->a.y;
        double ee = ex * ex + ey * ey, t = ee > 0.0 ? (ax * ex + ay * ey) / ee : 0.0;
        t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
        double dx = ax - t * ex, dy = ay - t * ey;
        best = Min(best, sqrt(dx * dx + dy * dy));
    }
    return best * (1.0 - 1e-12);
}

// The loops of the closed chains (see above), while they are found: how many, and each segment's loop (-1: in none).
// The vertices of the chain being split in a hash table (open addressing), each with the place on the stack of the edge
// that starts there (-1 once popped, -2 an empty slot).
typedef struct LoopSplit
{
    int loops;
    int* loopOf;
    double* hx;
    double* hy;
    int* hv;
    unsigned mask;
    int* stack;
} LoopSplit;

static unsigned VertexSlot(const LoopSplit* ls, lsVec2 v)
{
    double x = v.x + 0.0, y = v.y + 0.0; // -0 as 0
    uint64_t bx, by;
    memcpy(&bx, &x, sizeof bx), memcpy(&by, &y, sizeof by);
    unsigned slot = (unsigned)(((bx * 0x9E3779B97F4A7C15ull) ^ (by * 0xC2B2AE3D27D4EB4Full)) >> 40) & ls->mask;
    while (ls->hv[slot] != -2 && !(ls->hx[slot] == x && ls->hy[slot] == y))
    {
        slot = (slot + 1) & ls->mask;
    }
    return slot;
}

// The edges close a loop: kept when it has three edges at least.
static void EmitLoop(LoopSplit* ls, const int* edges, int count)
{
    if (count < 3)
    {
        return;
    }
    for (int i = 0; i < count; ++i)
    {
        ls->loopOf[edges[i]] = ls->loops;
    }
    ls->loops += 1;
}

// Splits chain w (closed, n segments from first) into loops where it passes through a vertex again.
static void SplitChain(const lsScene* scene, LoopSplit* ls, int first, int n)
{
    unsigned capacity = 4;
    while (capacity < 2u * (unsigned)n)
    {
        capacity *= 2;
    }
    ls->mask = capacity - 1;
    for (unsigned i = 0; i < capacity; ++i)
    {
        ls->hv[i] = -2;
    }
    int top = 0;
    for (int k = 0; k < n; ++k)
    {
        lsVec2 v = scene->segments[first + k].a;
        unsigned slot = VertexSlot(ls, v);
        if (ls->hv[slot] >= 0)
        {
            int from = ls->hv[slot];
            EmitLoop(ls, ls->stack + from, top - from);
            for (int i = from; i < top; ++i)
            {
                ls->hv[VertexSlot(ls, scene->segments[ls->stack[i]].a)] = -1;
            }
            top = from;
        }
        ls->hx[slot] = v.x + 0.0, ls->hy[slot] = v.y + 0.0, ls->hv[slot] = top;
        ls->stack[top++] = first + k;
    }
    EmitLoop(ls, ls->stack, top);
}

// Whether two edges of the loops that share a cell keep apart: more than the slop apart when they share no endpoint, at
// an angle of 2^-9 rad or more (or a right one or wider) when they share one (a loop's neighbours, or loops touching at
// a corner), false when they share both.
// The endpoints p and q share: bit 0 p.a = q.a, bit 1 p.a = q.b, bit 2 p.b = q.a, bit 3 p.b = q.b.
static int SharedEnds(const lsSegment* p, const lsSegment* q)
{
    return lsVecEqual(p->a, q->a) | lsVecEqual(p->a, q->b) << 1 | lsVecEqual(p->b, q->a) << 2 |
           lsVecEqual(p->b, q->b) << 3;
}

static bool EdgesClear(const lsSegment* p, const lsSegment* q, double slop)
{
    int ends = SharedEnds(p, q);
    bool aa = (ends & 1) != 0, ab = (ends & 2) != 0, ba = (ends & 4) != 0;
    int shared = __builtin_popcount((unsigned)ends);
    if (shared == 0)
    {
        // Boxes more than the slop apart along an axis (with room for the rounding of the gap: the slop is at least
        // 1e-10 of the coordinates) first.
        double gap = Max(Max(Min(p->a.x, p->b.x) - Max(q->a.x, q->b.x), Min(q->a.x, q->b.x) - Max(p->a.x, p->b.x)),
                         Max(Min(p->a.y, p->b.y) - Max(q->a.y, q->b.y), Min(q->a.y, q->b.y) - Max(p->a.y, p->b.y)));
        return gap > 1.01 * slop || SegmentsApart(p, q) > slop;
    }
    if (shared > 1)
    {
        return false;
    }
    lsVec2 v = aa || ab ? p->a : p->b, pf = aa || ab ? p->b : p->a, qf = aa || ba ? q->b : q->a;
    double ux = pf.x - v.x, uy = pf.y - v.y, vx = qf.x - v.x, vy = qf.y - v.y;
    double dot = ux * vx + uy * vy, cross = ux * vy - uy * vx;
    double uu = ux * ux + uy * uy, vv = vx * vx + vy * vy;
    // sin(angle) >= 2^-9 (with room for the rounding) unless the angle is right or wider.
    return uu > 0.0 && vv > 0.0 && (dot <= 0.0 || cross * cross >= 0x1p-17 * uu * vv);
}

bool lsSceneGrid_Winding(const lsScene* scene, lsVec2 p, int* winding)
{
    int iy = CellY(scene, p.y), sum = 0;
    if (scene->rowEdgeStart[iy + 1] - scene->rowEdgeStart[iy] > LS_BACK_FACE_ROW_EDGES)
    {
        return false;
    }
    for (int j = scene->rowEdgeStart[iy]; j < scene->rowEdgeStart[iy + 1]; ++j)
    {
        lsVec2 a = scene->segments[scene->rowEdges[j]].a, b = scene->segments[scene->rowEdges[j]].b;
        if (p.y < Min(a.y, b.y) || p.y > Max(a.y, b.y) || p.x > Max(a.x, b.x))
        {
            continue; // beside p's row, or left of p (p on the right of an upward edge, the left of a downward one)
        }
        int up = a.y <= p.y && p.y < b.y, down = b.y <= p.y && p.y < a.y;
        if (p.x < Min(a.x, b.x))
        {
            sum += up - down; // right of p: p on the left of an upward edge, the right of a downward one
            continue;
        }
        int turn = lsOrient(a, b, p);
        if (turn == 0)
        {
            return false; // on the line and in the edge's box
        }
        sum += (up && turn > 0) - (down && turn < 0);
    }
    *winding = sum;
    return true;
}

// The most records a cell may hold for its loops' edges to be checked pairwise (BuildBackFaces); a map's cell holds a
// few (the depot's 5.5 on average).
#define LS_BACK_FACE_CELL_RECORDS 128

// The edges the winding numbers' counts at build may visit per segment (and a million more; BuildBackFaces).
#define LS_BACK_FACE_VISITS 16

// The back faces' records (segItemSide) and the loops' edges by row, for a sparse grid (see above).
static void BuildBackFaces(lsScene* scene)
{
    scene->segItemSide = NULL;
    scene->rowEdgeStart = NULL, scene->rowEdges = NULL;
    scene->backFaceFar = 0.0;
    int segCount = scene->segmentCount;
    if (scene->segPieces == NULL || segCount == 0)
    {
        return;
    }
    double width = scene->x1 - scene->x0, height = scene->y1 - scene->y0;
    double diagonal = sqrt(width * width + height * height);
    double extent = Max(Max(fabs(scene->x0), fabs(scene->x1)), Max(fabs(scene->y0), fabs(scene->y1)));
    // The gap the rounding must not close is at least the slop; the fractions' rounding covers at most 2^-36 of the
    // diagonal. Extreme coordinates (overflow or underflow in a cast's products) are left out.
    if (!(scene->slop > 0x1p-33 * diagonal) || !(extent <= 1e30) || !(diagonal >= 1e-30))
    {
        return;
    }
    bool* isLong = lsAllocZero((size_t)segCount, sizeof(bool));
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        isLong[scene->longSegments[k]] = true;
    }
    int longest = 0;
    for (int w = 0; w < scene->wallCount; ++w)
    {
        int n = scene->wallFirstSegment[w + 1] - scene->wallFirstSegment[w];
        longest = n > longest ? n : longest;
    }
    unsigned capacity = 4;
    while (capacity < 2u * (unsigned)longest)
    {
        capacity *= 2;
    }
    LoopSplit ls = {0,
                    lsAlloc((size_t)segCount * sizeof(int)),
                    lsAlloc(capacity * sizeof(double)),
                    lsAlloc(capacity * sizeof(double)),
                    lsAlloc(capacity * sizeof(int)),
                    0,
                    lsAlloc((size_t)longest * sizeof(int))};
    for (int i = 0; i < segCount; ++i)
    {
        ls.loopOf[i] = -1;
    }
    for (int w = 0; w < scene->wallCount; ++w)
    {
        int first = scene->wallFirstSegment[w], n = scene->wallFirstSegment[w + 1] - first;
        const lsSegment* segs = scene->segments + first;
        bool closed = n >= 3 && lsVecEqual(segs[n - 1].b, segs[0].a);
        for (int k = 0; k < n && closed; ++k)
        {
            closed = !isLong[first + k] &&
                     fabs(segs[k].b.x - segs[k].a.x) + fabs(segs[k].b.y - segs[k].a.y) >= 1e-30 * diagonal;
        }
        if (closed)
        {
            SplitChain(scene, &ls, first, n);
        }
    }
    int loops = ls.loops;
    bool* bad = lsAllocZero((size_t)loops + 1, sizeof(bool));
    // Per segment, whether its end b is an endpoint of another loop's edge too (loops touching at a corner).
    bool* touched = lsAllocZero((size_t)segCount, sizeof(bool));
    // Every two edges of the loops that share a cell keep apart (EdgesClear), or both their loops are left out.
    double slop = scene->slop;
    for (int c = 0; c < scene->nx * scene->ny; ++c)
    {
        const CellHeader* h = scene->cells + c;
        if (h[1].seg - h[0].seg > LS_BACK_FACE_CELL_RECORDS)
        {
            // A crowded cell's pairs would cost its count squared (ten thousand loops through one point took
            // seconds): its loops are left out instead.
            for (int i = h[0].seg; i < h[1].seg; ++i)
            {
                CellRef ri = scene->segItemRefs[i];
                int li = ls.loopOf[scene->wallFirstSegment[ri.chain] + ri.part];
                bad[li < 0 ? loops : li] = true;
            }
            continue;
        }
        for (int i = h[0].seg; i < h[1].seg; ++i)
        {
            CellRef ri = scene->segItemRefs[i];
            int li = ls.loopOf[scene->wallFirstSegment[ri.chain] + ri.part];
            for (int j = i + 1; j < h[1].seg && li >= 0; ++j)
            {
                CellRef rj = scene->segItemRefs[j];
                int lj = ls.loopOf[scene->wallFirstSegment[rj.chain] + rj.part];
                const lsSegment* p = scene->segItems + i;
                const lsSegment* q = scene->segItems + j;
                if (lj >= 0 && !(bad[li] && bad[lj]) && !EdgesClear(p, q, slop))
                {
                    bad[li] = true, bad[lj] = true;
                }
                if (lj >= 0 && lj != li)
                {
                    // A point that ends an edge of each: marked on the edges that end there (b), or start (a: the
                    // edge before it in its chain ends there).
                    int si = scene->wallFirstSegment[ri.chain] + ri.part,
                        sj = scene->wallFirstSegment[rj.chain] + rj.part;
                    int ni = scene->wallFirstSegment[ri.chain + 1] - scene->wallFirstSegment[ri.chain];
                    int nj = scene->wallFirstSegment[rj.chain + 1] - scene->wallFirstSegment[rj.chain];
                    int ends = SharedEnds(p, q);
                    bool pa = (ends & 3) != 0, pb = (ends & 12) != 0, qa = (ends & 5) != 0, qb = (ends & 10) != 0;
                    touched[si] = touched[si] || pb;
                    touched[sj] = touched[sj] || qb;
                    int pi = ri.part > 0 ? si - 1 : si + ni - 1, pj = rj.part > 0 ? sj - 1 : sj + nj - 1;
                    touched[pi] = touched[pi] || pa;
                    touched[pj] = touched[pj] || qa;
                }
            }
        }
    }
    // The kept loops' edges by row (counted, then written), for the winding numbers (lsSceneGrid_Winding).
    int ny = scene->ny, kept = 0;
    scene->rowEdgeStart = lsAllocZero((size_t)ny + 1, sizeof(int));
    int* cursor = lsAlloc((size_t)ny * sizeof(int));
    for (int pass = 0; pass < 2; ++pass)
    {
        for (int e = 0; e < segCount; ++e)
        {
            int l = ls.loopOf[e];
            if (l < 0 || bad[l])
            {
                continue;
            }
            const lsSegment* seg = scene->segments + e;
            int iy0 = CellY(scene, Min(seg->a.y, seg->b.y) - scene->slop);
            int iy1 = CellY(scene, Max(seg->a.y, seg->b.y) + scene->slop);
            for (int iy = iy0; iy <= iy1; ++iy)
            {
                if (pass == 0)
                {
                    scene->rowEdgeStart[iy + 1] += 1;
                }
                else
                {
                    scene->rowEdges[cursor[iy]++] = e;
                }
            }
        }
        if (pass == 0)
        {
            for (int iy = 0; iy < ny; ++iy)
            {
                scene->rowEdgeStart[iy + 1] += scene->rowEdgeStart[iy];
            }
            scene->rowEdges = lsAlloc((size_t)scene->rowEdgeStart[ny] * sizeof(int));
            memcpy(cursor, scene->rowEdgeStart, (size_t)ny * sizeof(int));
        }
    }
    lsFree(cursor, (size_t)ny * sizeof(int));
    // Each kept edge's winding numbers on its two sides (no other edge touches its inside: they are equal all along
    // it): on its right, at a point off its middle by far less than the slop and than its other edges' distance from
    // its middle, strictly right of it (exact); on its left, one more. Its side byte: 1 when a scan's origin of winding
    // number 0 may meet it from the left only after crossing another edge first (its left's winding number is not 0),
    // 2 the same for the right. An edge that follows the one before it in its chain, in the same loop, at a point no
    // other loop's edge ends at, has its winding numbers: no other edge comes near that point (within the slop of a
    // loop's edge only its neighbours do, and an edge through an endpoint is not clear), so the two edges' right sides
    // meet there with no edge between. The counts (one per run of a loop, over its row's edges when the row holds at
    // most LS_BACK_FACE_ROW_EDGES) visit LS_BACK_FACE_VISITS edges per segment of the scene in all, plus a million;
    // the loops after that get no bits (a 4000 x 4000 pixel map of 400 000 speckles, 770 000 segments in 190 000
    // chains, spent 1.3 s on them without the bound, twice the rest of its scene's build).
    long long budget = (long long)LS_BACK_FACE_VISITS * segCount + (1 << 20);
    unsigned char* bits = lsAlloc((size_t)segCount);
    for (int e = 0; e < segCount; ++e)
    {
        int l = ls.loopOf[e];
        unsigned char side = 0;
        bool follows = e > 0 && l >= 0 && ls.loopOf[e - 1] == l && !touched[e - 1] &&
                       lsVecEqual(scene->segments[e - 1].b, scene->segments[e].a);
        if (follows && !bad[l])
        {
            side = bits[e - 1];
            kept += side != 0;
        }
        else if (l >= 0 && !bad[l])
        {
            const lsSegment* seg = scene->segments + e;
            double ex = seg->b.x - seg->a.x, ey = seg->b.y - seg->a.y, length = fabs(ex) + fabs(ey);
            double step = Min(slop, 0x1p-11 * length) / (8.0 * length);
            lsVec2 off = {0.5 * (seg->a.x + seg->b.x) + step * ey, 0.5 * (seg->a.y + seg->b.y) - step * ex};
            int iy = CellY(scene, off.y), right;
            int rowEdges = scene->rowEdgeStart[iy + 1] - scene->rowEdgeStart[iy];
            budget -= rowEdges <= LS_BACK_FACE_ROW_EDGES ? rowEdges : 0; // a crowded row is not counted (free)
            if (budget >= 0 && lsSceneGrid_Winding(scene, off, &right) && lsOrient(seg->a, seg->b, off) < 0)
            {
                side = (unsigned char)((right + 1 != 0 ? 1 : 0) | (right != 0 ? 2 : 0));
                kept += 1;
            }
        }
        bits[e] = side;
    }
    scene->segItemSide = lsAlloc((size_t)scene->segItemCount);
    for (int i = 0; i < scene->segItemCount; ++i)
    {
        CellRef r = scene->segItemRefs[i];
        scene->segItemSide[i] = bits[scene->wallFirstSegment[r.chain] + r.part];
    }
    lsFree(bits, (size_t)segCount);
    lsFree(touched, (size_t)segCount);
    lsFree(bad, (size_t)loops + 1);
    lsFree(ls.stack, (size_t)longest * sizeof(int));
    lsFree(ls.hv, capacity * sizeof(int));
    lsFree(ls.hy, capacity * sizeof(double));
    lsFree(ls.hx, capacity * sizeof(double));
    lsFree(ls.loopOf, (size_t)segCount * sizeof(int));
    lsFree(isLong, (size_t)segCount * sizeof(bool));
    if (kept == 0)
    {
        lsFree(scene->segItemSide, (size_t)scene->segItemCount);
        lsFree(scene->rowEdges, (size_t)scene->rowEdgeStart[ny] * sizeof(int));
        lsFree(scene->rowEdgeStart, ((size_t)ny + 1) * sizeof(int));
        scene->segItemSide = NULL, scene->rowEdges = NULL, scene->rowEdgeStart = NULL;
        return;
    }
    scene->backFaceFar = 0x1p-24 * diagonal / 1e-14;
}

// Occupied cell (ix, iy) with the box of what it holds within its box grown by the slop (SparseCell); its records'
// pieces within that box grown by the slop once more (the margin is what keeps a crossing inside the cell's box on
// its piece whatever the rounding of the parameters) written as pairs from sparsePairs[pairs] on.
static SparseCell OccupiedCell(lsScene* scene, int ix, int iy, int pairs)
{
    const CellHeader* h = scene->cells + (ptrdiff_t)iy * scene->nx + ix;
    double s = scene->cellSize, slop = scene->slop;
    double xl = scene->x0 + (double)ix * s - slop, xh = scene->x0 + (double)(ix + 1) * s + slop;
    double yl = scene->y0 + (double)iy * s - slop, yh = scene->y0 + (double)(iy + 1) * s + slop;
    for (int i = 0, n = h[1].seg - h[0].seg; i < n; ++i)
    {
        lsSegment piece = ClipToBox(scene->segItems + h[0].seg + i, xl - slop, xh + slop, yl - slop, yh + slop);
        double* pair = scene->sparsePairs + 8 * ((ptrdiff_t)pairs + i / 2) + (i & 1);
        pair[0] = piece.a.x, pair[2] = piece.a.y, pair[4] = piece.b.x, pair[6] = piece.b.y;
        if (scene->sparsePairSkip != NULL)
        {
            int side = scene->segItemSide[h[0].seg + i]; // 1: the left, 2: the right
            unsigned char* bits = scene->sparsePairSkip + pairs + i / 2;
            *bits = (unsigned char)(((i & 1) == 0 ? 0 : *bits) | (((side & 1) | (side & 2) << 1) << (i & 1)));
        }
        if (i == n - 1 && (i & 1) == 0)
        {
            pair[1] = piece.a.x, pair[3] = piece.a.y, pair[5] = piece.b.x, pair[7] = piece.b.y;
        }
    }
    double rxl = HUGE_VAL, rxh = -HUGE_VAL, ryl = HUGE_VAL, ryh = -HUGE_VAL;
    for (int i = h[0].seg; i < h[1].seg; ++i)
    {
        const lsSegment* seg = scene->segItems + i;
        rxl = Min(rxl, Min(seg->a.x, seg->b.x)), rxh = Max(rxh, Max(seg->a.x, seg->b.x));
        ryl = Min(ryl, Min(seg->a.y, seg->b.y)), ryh = Max(ryh, Max(seg->a.y, seg->b.y));
    }
    // A record only within the slop of the cell could leave the box empty: the whole box then.
    if (h[1].shape == h[0].shape && h[1].target == h[0].target && Max(rxl, xl) <= Min(rxh, xh) &&
        Max(ryl, yl) <= Min(ryh, yh))
    {
        xl = Max(rxl, xl), xh = Min(rxh, xh), yl = Max(ryl, yl), yh = Min(ryh, yh);
    }
    double far = Max(fabs(rxl), fabs(rxh)) + Max(fabs(ryl), fabs(ryh));
    int discs = h[1].shape > h[0].shape || h[1].target > h[0].target;
    return (SparseCell){ix, iy, pairs, h[0].seg, h[1].seg - h[0].seg, discs, xl, xh, yl, yh, far};
}

// A sparse grid's occupied cells (CellOccupied), listed by blocks of LS_SPARSE_BLOCK x LS_SPARSE_BLOCK cells for the
// scans' sweep (scene_fan.c); the blocks in row-major order, one sentinel block after the last. Nothing in a dense
// grid.
static void ListOccupiedCells(lsScene* scene)
{
    lsFree(scene->sparseBlocks,
           scene->sparseBlocks != NULL ? ((size_t)scene->sparseBlockCount + 1) * sizeof(SparseBlock) : 0);
    lsFree(scene->sparseCells, (size_t)scene->sparseCellCount * sizeof(SparseCell));
    lsFree(scene->sparsePairs, (size_t)scene->sparsePairCount * 8 * sizeof(double));
    lsFree(scene->sparsePairSkip, scene->sparsePairSkip != NULL ? (size_t)scene->sparsePairCount : 0);
    scene->sparseBlocks = NULL, scene->sparseCells = NULL, scene->sparsePairs = NULL, scene->sparsePairSkip = NULL;
    scene->sparseBlockCount = 0, scene->sparseCellCount = 0, scene->sparsePairCount = 0;
    int nx = scene->nx, ny = scene->ny, cellCount = nx * ny;
    if (!(cellCount > scene->segItemCount + scene->shapeItemCount + scene->targetItemCount))
    {
        return;
    }
    const CellHeader* h = scene->cells;
    int blocks = 0, occupied = 0, pairs = 0;
    for (int by = 0; by < ny; by += LS_SPARSE_BLOCK)
    {
        for (int bx = 0; bx < nx; bx += LS_SPARSE_BLOCK)
        {
            int before = occupied;
            for (int iy = by; iy < by + LS_SPARSE_BLOCK && iy < ny; ++iy)
            {
                for (int ix = bx; ix < bx + LS_SPARSE_BLOCK && ix < nx; ++ix)
                {
                    const CellHeader* cell = h + (ptrdiff_t)iy * nx + ix;
                    occupied += CellOccupied(cell);
                    pairs += CellOccupied(cell) ? (cell[1].seg - cell[0].seg + 1) / 2 : 0;
                }
            }
            blocks += occupied > before;
        }
    }
    scene->sparseBlocks = lsAlloc(((size_t)blocks + 1) * sizeof(SparseBlock));
    scene->sparseCells = lsAlloc((size_t)occupied * sizeof(SparseCell));
    scene->sparsePairs = lsAlloc((size_t)pairs * 8 * sizeof(double));
    scene->sparsePairSkip = scene->segItemSide != NULL ? lsAlloc((size_t)pairs) : NULL;
    scene->sparseBlockCount = blocks, scene->sparseCellCount = occupied, scene->sparsePairCount = pairs;
    int b = 0, c = 0, pair = 0;
    for (int by = 0; by < ny; by += LS_SPARSE_BLOCK)
    {
        for (int bx = 0; bx < nx; bx += LS_SPARSE_BLOCK)
        {
            int before = c;
            for (int iy = by; iy < by + LS_SPARSE_BLOCK && iy < ny; ++iy)
            {
                for (int ix = bx; ix < bx + LS_SPARSE_BLOCK && ix < nx; ++ix)
                {
                    const CellHeader* cell = h + (ptrdiff_t)iy * nx + ix;
                    if (CellOccupied(cell))
                    {
                        scene->sparseCells[c++] = OccupiedCell(scene, ix, iy, pair);
                        pair += (cell[1].seg - cell[0].seg + 1) / 2;
                    }
                }
            }
            if (c > before)
            {
                SparseBlock block = {bx, by, before, HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL};
                for (int j = before; j < c; ++j)
                {
                    const SparseCell* cell = scene->sparseCells + j;
                    block.xl = Min(block.xl, cell->xl), block.xh = Max(block.xh, cell->xh);
                    block.yl = Min(block.yl, cell->yl), block.yh = Max(block.yh, cell->yh);
                }
                scene->sparseBlocks[b++] = block;
            }
        }
    }
    scene->sparseBlocks[b] = (SparseBlock){0, 0, c, 0.0, 0.0, 0.0, 0.0};
}

void lsSceneGrid_BuildTargets(lsScene* scene)
{
    int cellCount = scene->nx * scene->ny;
    lsFree(scene->targetItems, (size_t)scene->targetItemCount * sizeof(CellTarget));
    scene->displacedCount = 0;
    int* cursor = lsAllocZero((size_t)cellCount, sizeof(int));
    for (int i = 0; i < scene->targetCount; ++i)
    {
        int* range = scene->targetCells + (ptrdiff_t)4 * i;
        lsSceneGrid_TargetRange(scene, scene->targets[i], range);
        scene->targetDisplaced[i] = range[0] > range[2];
        if (scene->targetDisplaced[i])
        {
            scene->displaced[scene->displacedCount++] = i;
        }
        CountRange(scene, cursor, range);
    }
    scene->targetItemCount = WriteTargetStarts(scene, cursor);
    WriteSquares(scene);
    ListOccupiedCells(scene);
    scene->targetItems = lsAlloc((size_t)scene->targetItemCount * sizeof(CellTarget));
    for (int i = 0; i < scene->targetCount; ++i)
    {
        const int* range = scene->targetCells + (ptrdiff_t)4 * i;
        CellTarget record = {scene->targets[i], i, scene->targetActive[i] ? 1 : 0};
        for (int iy = range[1]; iy <= range[3]; ++iy)
        {
            int* row = cursor + (ptrdiff_t)iy * scene->nx;
            for (int ix = range[0]; ix <= range[2]; ++ix)
            {
                scene->targetItems[row[ix]++] = record;
            }
        }
    }
    lsFree(cursor, (size_t)cellCount * sizeof(int));
    scene->displacedAfterBuild = scene->displacedCount;
}

// ---------------------------------------------------------------------------------------------------------------------
// Grid layout

// The k-th smallest of count values (NaN-free), which it reorders: Hoare's selection, about 3 count comparisons (a
// qsort of the 1024 samples through a comparison callback cost 1.5 M instructions).
static double SelectKth(double* values, int count, int k)
{
    int lo = 0, hi = count - 1;
    while (lo < hi)
    {
        double pivot = values[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j)
        {
            while (values[i] < pivot)
            {
                ++i;
            }
            while (values[j] > pivot)
            {
                --j;
            }
            if (i <= j)
            {
                double t = values[i];
                values[i++] = values[j];
                values[j--] = t;
            }
        }
        // values[lo..j] <= pivot <= values[i..hi], and whatever lies between equals the pivot.
        if (k <= j)
        {
            hi = j;
        }
        else if (k >= i)
        {
            lo = i;
        }
        else
        {
            return values[k];
        }
    }
    return values[k];
}

// The size of a primitive for telling long ones apart: the larger side of its bounds (infinite when that overflows).
static double SpanOf(lsAABB b) { return Max(b.upper.x - b.lower.x, b.upper.y - b.lower.y); }

// lsAABB_Union for bounds without NaNs (the layout runs over every primitive twice).
static inline lsAABB Union(lsAABB a, lsAABB b)
{
    return (lsAABB){{Min(a.lower.x, b.lower.x), Min(a.lower.y, b.lower.y)},
                    {Max(a.upper.x, b.upper.x), Max(a.upper.y, b.upper.y)}};
}

static inline lsAABB SegmentBounds(lsSegment s)
{
    return (lsAABB){{Min(s.a.x, s.b.x), Min(s.a.y, s.b.y)}, {Max(s.a.x, s.b.x), Max(s.a.y, s.b.y)}};
}

// Only sizes the cells and bounds rounding: no hypot needed, but no overflow of the squares either.
static inline double SegmentLength(lsSegment s)
{
    lsVec2 e = lsSub(s.b, s.a);
    double m = Max(fabs(e.x), fabs(e.y));
    return m < 1e150 ? sqrt(e.x * e.x + e.y * e.y) : 1.5 * m;
}

// Primitives are numbered segments, then boxes, then polygons, then targets.
static lsAABB PrimitiveBounds(const lsScene* scene, int k)
{
    if (k < scene->segmentCount)
    {
        return SegmentBounds(scene->segments[k]);
    }
    k -= scene->segmentCount;
    if (k < scene->boxCount)
    {
        return scene->boxBounds[k];
    }
    k -= scene->boxCount;
    if (k < scene->polygonCount)
    {
        return scene->polygonBounds[k];
    }
    return lsCircle_Bounds(scene->targets + (k - scene->polygonCount));
}

// Half the width and height of a box, computed without overflow for any finite corners.
static lsVec2 HalfSize(lsAABB b) { return lsV(0.5 * b.upper.x - 0.5 * b.lower.x, 0.5 * b.upper.y - 0.5 * b.lower.y); }

// The primitives that size the grid: its bounds, and the count, total and largest length of its segments.
typedef struct GridExtent
{
    lsAABB bounds;
    double sumLength, maxLength;
    int segments;
} GridExtent;

// Keeps the long primitives out of the grid (a second pass over the primitives, for worlds with primitives larger
// than the threshold only): those larger than it that reach beyond the core (the bounds of the others) by more than a
// quarter of its extent, when there are at most LS_MAX_LONG_PRIMITIVES of them. Returns how many are long and the
// extent of the others; `all` is the extent of every primitive, kept when none is long.
static int KeepLongOut(lsScene* scene, double threshold, lsAABB core, GridExtent all, GridExtent* grid)
{
    int count = scene->segmentCount + scene->boxCount + scene->polygonCount + scene->targetCount;
    lsVec2 half = HalfSize(core);
    double reach = 0.25 * Max(half.x, half.y);
    lsAABB near = Expand(core, reach);
    bool anyCore = core.lower.x <= core.upper.x;
    bool* isLong = lsAlloc((size_t)count * sizeof(bool));
    int longCount = 0;
    *grid = (GridExtent){{{DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX}}, 0.0, 0.0, 0};
    // Sums run in index order, as in the first pass.
    for (int k = 0; k < count; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, k);
        bool inside = b.lower.x >= near.lower.x && b.lower.y >= near.lower.y && b.upper.x <= near.upper.x &&
                      b.upper.y <= near.upper.y;
        isLong[k] = anyCore && !(SpanOf(b) <= threshold) && !inside;
        longCount += isLong[k] ? 1 : 0;
        grid->bounds = isLong[k] ? grid->bounds : Union(grid->bounds, b);
        if (k < scene->segmentCount && !isLong[k])
        {
            double length = SegmentLength(scene->segments[k]);
            grid->sumLength += length;
            grid->maxLength = Max(grid->maxLength, length);
            grid->segments += 1;
        }
    }
    if (longCount > LS_MAX_LONG_PRIMITIVES)
    {
        longCount = 0;
        *grid = all;
    }
    int longSegments = 0, longShapes = 0;
    for (int k = 0; k < scene->segmentCount + scene->boxCount + scene->polygonCount && longCount > 0; ++k)
    {
        longSegments += k < scene->segmentCount && isLong[k] ? 1 : 0;
        longShapes += k >= scene->segmentCount && isLong[k] ? 1 : 0;
    }
    scene->longSegments = lsAlloc((size_t)longSegments * sizeof(int));
    scene->longShapes = lsAlloc((size_t)longShapes * sizeof(int));
    for (int k = 0; k < scene->segmentCount + scene->boxCount + scene->polygonCount && longCount > 0; ++k)
    {
        if (k < scene->segmentCount && isLong[k])
        {
            scene->longSegments[scene->longSegmentCount++] = k;
        }
        else if (isLong[k])
        {
            int i = k - scene->segmentCount;
            scene->longShapes[scene->longShapeCount++] = i < scene->boxCount ? 2 * i : 2 * (i - scene->boxCount) + 1;
        }
    }
    lsFree(isLong, (size_t)count * sizeof(bool));
    return longCount;
}

// Picks the long primitives (kept out of the grid) and returns the grid's extent (the bounds of everything else, its
// segments and their lengths); *gridCount: how many primitives the grid holds. A primitive is long when it is more
// than 64 times the median size and reaches beyond the others' bounds by more than a quarter of their extent; when
// more than LS_MAX_LONG_PRIMITIVES are, none is (the world is really that large, and the grid must cover it).
static GridExtent ChooseGrid(lsScene* scene, int* gridCount)
{
    int count = scene->segmentCount + scene->boxCount + scene->polygonCount + scene->targetCount;
    *gridCount = 0;
    if (count == 0)
    {
        return (GridExtent){{{0.0, 0.0}, {0.0, 0.0}}, 0.0, 0.0, 0};
    }
    // The median size, from an evenly spaced sample (the exact median is not needed).
    double sample[1024] = {0};
    int sampleCount = count < 1024 ? count : 1024;
    for (int k = 0; k < sampleCount; ++k)
    {
        sample[k] = SpanOf(PrimitiveBounds(scene, (int)((long long)k * count / sampleCount)));
    }
    double threshold = 64.0 * SelectKth(sample, sampleCount, sampleCount / 2);

    // One pass: the core (the bounds of the primitives not larger than the threshold), how many are larger, and the
    // extent of all of them. Most worlds have none larger, so none is long and the grid's extent is this one.
    lsAABB core = {{DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX}};
    GridExtent all = {core, 0.0, 0.0, scene->segmentCount};
    int largeCount = 0;
    for (int k = 0; k < scene->segmentCount; ++k)
    {
        lsSegment s = scene->segments[k];
        lsAABB b = SegmentBounds(s);
        bool small = SpanOf(b) <= threshold;
        core = small ? Union(core, b) : core;
        all.bounds = Union(all.bounds, b);
        largeCount += small ? 0 : 1;
        double length = SegmentLength(s);
        all.sumLength += length;
        all.maxLength = Max(all.maxLength, length);
    }
    for (int k = scene->segmentCount; k < count; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, k);
        bool small = SpanOf(b) <= threshold;
        core = small ? Union(core, b) : core;
        all.bounds = Union(all.bounds, b);
        largeCount += small ? 0 : 1;
    }
    GridExtent grid = all;
    int longCount = largeCount > 0 ? KeepLongOut(scene, threshold, core, all, &grid) : 0;
    scene->maxSegmentLength = Max(scene->maxSegmentLength, grid.maxLength);
    *gridCount = count - longCount;
    return grid;
}

// The least cell size at which the grid's targets, boxes and polygons register in at most 16 cells for each primitive
// of the grid: one of w x h metres lies in about (w / c + 1)(h / c + 1) cells of side c, a sum of A / c^2 + P / c + n
// over the n of them (A the sum of the areas of their bounds, P of their widths and heights), so c solves
// A / c^2 + P / c = 16 count - n. Cells sized by the primitives' count alone are far smaller than shapes stacked at
// one place: 5 000 targets of 0.6 m in a room of 2 m took 240 MB of records, 10 000 of them 900 MB. Against every
// primitive, not the shapes alone, so that a few large boxes among many walls leave the walls' cells as they are.
// Counted: the shapes the grid registers, not the long boxes and polygons kept out of it (KeepLongOut) nor a target
// reaching beyond the extent (tested on every cast), so every one lies within the extent; sizes in units of the half
// extent, from half sizes, so nothing overflows. 0 when no shape counts.
static double ShapeCellSize(const lsScene* scene, lsAABB extent, double halfExtent, int gridCount)
{
    int shapes = scene->boxCount + scene->polygonCount;
    bool* isLong = scene->longShapeCount > 0 ? lsAllocZero((size_t)shapes, sizeof(bool)) : NULL;
    for (int j = 0; j < scene->longShapeCount; ++j)
    {
        int code = scene->longShapes[j]; // 2 i for box i, 2 i + 1 for polygon i
        isLong[code % 2 == 0 ? code / 2 : scene->boxCount + code / 2] = true;
    }
    double area = 0.0, sides = 0.0, scale = 1.0 / halfExtent;
    int n = 0;
    for (int k = 0; k < shapes + scene->targetCount; ++k)
    {
        lsAABB b = PrimitiveBounds(scene, scene->segmentCount + k);
        bool inside = b.lower.x >= extent.lower.x && b.lower.y >= extent.lower.y && b.upper.x <= extent.upper.x &&
                      b.upper.y <= extent.upper.y;
        if (k < shapes ? isLong == NULL || !isLong[k] : inside)
        {
            lsVec2 half = HalfSize(b);
            double w = 2.0 * half.x * scale, h = 2.0 * half.y * scale;
            area += w * h, sides += w + h, n += 1;
        }
    }
    lsFree(isLong, (size_t)shapes * sizeof(bool));
    double budget = 16.0 * (double)gridCount - (double)n;
    if (n == 0 || !(budget > 0.0) || !(area + sides > 0.0))
    {
        return 0.0;
    }
    // The positive root in u = halfExtent / c of A u^2 + P u - budget, rationalized (A and P in units of the half
    // extent: each shape's at most 4), and never past the extent's double.
    double c = halfExtent * (sides + sqrt(sides * sides + 4.0 * area * budget)) / (2.0 * budget);
    return Min(c, 4.0 * halfExtent);
}

// Sizes the cells of the grid over `grid` (ChooseGrid's) for about cellsPerPrimitive cells per primitive, and sets
// slop, cellSize, nx, ny, x0, y0, x1, y1. Every size is computed without overflow.
static void PlaceGrid(lsScene* scene, GridExtent grid, int gridCount, double cellsPerPrimitive)
{
    if (scene->segmentCount + scene->boxCount + scene->polygonCount + scene->targetCount == 0)
    {
        return;
    }
    lsAABB bounds = grid.bounds;
    // A few cells per primitive (two; three in a sparse grid, see lsSceneGrid_Build) keep a few candidates per cell;
    // cells are not much shorter than the average segment, or every wall would be registered in many cells. Half sizes
    // and square roots of each side keep every product finite.
    lsVec2 half = HalfSize(bounds);
    double halfExtent = Max(Max(half.x, half.y), 5e-4);
    double rootArea = sqrt(Max(half.x, halfExtent * 1e-3)) * sqrt(Max(half.y, halfExtent * 1e-3)); // sqrt(area) / 2
    double cellSize = 2.0 * rootArea / sqrt(cellsPerPrimitive * (double)gridCount);
    if (grid.segments > 0)
    {
        // Registrations are budgeted against every primitive once the others outnumber the segments eightfold:
        // 100 000 targets in a room of four walls get cells sized for the targets, not 50 m cells of the walls.
        double budget = Max((double)grid.segments, 0.125 * (double)gridCount);
        cellSize = Max(cellSize, 0.5 * (grid.sumLength / budget));
    }
    cellSize = Max(cellSize, ShapeCellSize(scene, bounds, halfExtent, gridCount));
    // At most 2^22 cells, and at least 2e-6 of the extent (huge worlds with a few walls stay coarse).
    cellSize = Max(cellSize, rootArea / 1024.0);
    cellSize = Max(cellSize, halfExtent * 2e-6);
    double maxCoord =
        Max(Max(fabs(bounds.lower.x), fabs(bounds.upper.x)), Max(fabs(bounds.lower.y), fabs(bounds.upper.y)));
    // The slop dwarfs the rounding of the walk (about 1e-16 of the coordinates) yet is too small to matter for the
    // number of candidates.
    scene->slop = 1e-6 * cellSize + 1e-10 * maxCoord;
    // One cell of margin on each side gives moved targets room and keeps slop-expanded boxes inside. The counts
    // are bounded by the rules above (a few thousand per side); the clamp only keeps the conversion defined.
    scene->cellSize = cellSize;
    scene->invCellSize = 1.0 / cellSize;
    scene->x0 = bounds.lower.x - cellSize;
    scene->y0 = bounds.lower.y - cellSize;
    double cellsX = ceil(half.x / (0.5 * cellSize)) + 2.0, cellsY = ceil(half.y / (0.5 * cellSize)) + 2.0;
    scene->nx = (int)Min(Max(cellsX, 2.0), 4194304.0);
    scene->ny = (int)Min(Max(cellsY, 2.0), 4194304.0);
    scene->x1 = scene->x0 + (double)scene->nx * cellSize, scene->y1 = scene->y0 + (double)scene->ny * cellSize;
}

// The spans of the grid's segments bucketed by row (a counting sort): row iy's are spans[rowStart[iy]] up to
// spans[rowEnd[iy]]; `items` counts their cells.
// A grid segment and its identity (wall chain, part).
typedef struct GridSegment
{
    lsSegment seg;
    CellRef ref;
} GridSegment;

// The grid's segments sorted by their first row, and their spans sorted by row: row iy's are spans[rowStart[iy]] up
// to spans[rowEnd[iy]]; `items` counts the spans' cells.
typedef struct RowSpans
{
    GridSegment* segments;
    int segmentCount;
    SegmentSpan* spans;
    int* rowStart; // ny + 1 entries: rowStart[ny] is the capacity of spans (the rows of every segment)
    int* rowEnd;
    int items;
} RowSpans;

// CellRef's normal of a segment: the exact cast's (SegmentNormal of a ray with cross(d, b - a) > 0, in
// lsRayCastSegmentCommon), the same operations on the same doubles, or NaN where its squared length leaves
// lsUnitVectorInline's inline case.
static lsVec2 RecordNormal(lsSegment seg)
{
    double ex = seg.b.x - seg.a.x, ey = seg.b.y - seg.a.y;
    lsVec2 v = {-ey, ex};
    double len2 = v.x * v.x + v.y * v.y;
    return len2 > 0x1p-1000 && len2 < 0x1p1000 ? lsUnitVectorInline(v) : (lsVec2){(double)NAN, (double)NAN};
}

// Sorts the grid's segments (with their identities) by their first row, and computes their spans (a run of cells per
// row they cross) sorted by row: two counting sorts, so that the filling pass takes the grid row by row, reading the
// segments of a few rows, whatever order the file lists the walls in. Both are scattered (read in file order, written
// to the end of their row's run: a run per row, each written in order) rather than gathered, so the reads stay
// sequential. A few hundred runs are written at once, more than the hardware's prefetchers follow, so the next
// lines of each run are prefetched before they are written (about 3 % of the build on city-100k).
static RowSpans SpansByRow(const lsScene* scene, const bool* isLong)
{
    int ny = scene->ny;
    RowSpans r;
    r.rowStart = lsAllocZero((size_t)ny + 1, sizeof(int));
    r.rowEnd = lsAlloc((size_t)ny * sizeof(int));
    r.items = 0;
    // The rows of each segment, as a difference of the counts (one more from its first row, one less after its last)
    // that two prefix sums turn into each row's count, then start: no loop per segment.
    int* diff = r.rowEnd;
    memset(diff, 0, (size_t)ny * sizeof(int));
    int* firstCursor = lsAllocZero((size_t)ny + 1, sizeof(int));
    long long rows = 0;
    for (int i = 0; i < scene->segmentCount; ++i)
    {
        int iy0, iy1;
        SegmentRowRange(scene, scene->segments[i], &iy0, &iy1);
        firstCursor[iy0 + 1] += isLong[i] ? 0 : 1;
        diff[iy0] += isLong[i] ? 0 : 1;
        r.rowStart[iy1 + 1] += isLong[i] ? 0 : 1; // the decrement, kept apart until the first prefix
        rows += isLong[i] ? 0 : iy1 - iy0 + 1;
    }
    // Each span holds at least one cell record, whose count is an int too.
    LS_ASSERT(rows <= INT_MAX);
    for (int iy = 0, open = 0, start = 0; iy < ny; ++iy)
    {
        firstCursor[iy + 1] += firstCursor[iy];
        open += diff[iy] - r.rowStart[iy];
        r.rowStart[iy] = start;
        r.rowEnd[iy] = start;
        start += open;
    }
    r.rowStart[ny] = (int)rows;
    r.spans = lsAlloc((size_t)rows * sizeof(SegmentSpan));
    r.segmentCount = firstCursor[ny];
    r.segments = lsAlloc((size_t)r.segmentCount * sizeof(GridSegment));
    for (int w = 0; w < scene->wallCount; ++w)
    {
        int first = scene->wallFirstSegment[w], end = scene->wallFirstSegment[w + 1];
        for (int i = first; i < end; ++i)
        {
            if (isLong[i])
            {
                continue;
            }
            SegmentRows seg = MakeSegmentRows(scene, scene->segments[i]);
            int k = firstCursor[seg.iy0]++;
            LS_PREFETCH(r.segments + (k + 8 < r.segmentCount ? k + 8 : k));
            r.segments[k] = (GridSegment){seg.seg, {w, i - first, RecordNormal(seg.seg)}};
            for (int iy = seg.iy0; iy <= seg.iy1; ++iy)
            {
                int ix0, ix1;
                if (SegmentRowSpan(scene, &seg, iy, &ix0, &ix1))
                {
                    LS_PREFETCH(r.spans + (r.rowEnd[iy] + 16 < rows ? r.rowEnd[iy] + 16 : r.rowEnd[iy]));
                    r.spans[r.rowEnd[iy]++] = (SegmentSpan){k, ix0, ix1};
                    r.items += ix1 - ix0 + 1;
                }
            }
        }
    }
    lsFree(firstCursor, ((size_t)ny + 1) * sizeof(int));
    return r;
}

static void FreeRowSpans(RowSpans* r, int ny)
{
    lsFree(r->segments, (size_t)r->segmentCount * sizeof(GridSegment));
    lsFree(r->spans, (size_t)r->rowStart[ny] * sizeof(SegmentSpan));
    lsFree(r->rowStart, ((size_t)ny + 1) * sizeof(int));
    lsFree(r->rowEnd, (size_t)ny * sizeof(int));
}

// Writes the segment records row by row and, in each row, cell by cell, so they are written in order: the row's
// spans are counted per cell, the counts become the cells' starts (into the headers, with the shapes' starts, whose
// per-cell counts become the shapes' filling cursors; shapeCursor is NULL when no shape is in the grid), the spans
// are listed in the order of their records, and the records are copied in that order.
static void FillSegments(lsScene* scene, const RowSpans* r, int* shapeCursor)
{
    int nx = scene->nx, ny = scene->ny;
    LS_ASSERT(scene->segItemCount == r->items); // the block of cells has room for them
    // Per cell of the row, and one past the row: first the difference of the counts, then the records' starts.
    int* start = lsAlloc(((size_t)nx + 1) * sizeof(int));
    int capacity = 4 * nx;
    int* order = lsAlloc((size_t)capacity * sizeof(int)); // the row's spans, once per record, in record order
    int segs = 0, shapes = 0;
    for (int iy = 0; iy < ny; ++iy)
    {
        const SegmentSpan* spans = r->spans + r->rowStart[iy];
        int spanCount = r->rowEnd[iy] - r->rowStart[iy];
        // A span adds one to the count of its first cell's and each following cell's, up to its last (no loop per
        // span: most are one or two cells, which a loop's exit would mispredict).
        memset(start, 0, ((size_t)nx + 1) * sizeof(int));
        for (int j = 0; j < spanCount; ++j)
        {
            start[spans[j].ix0] += 1;
            start[spans[j].ix1 + 1] -= 1;
        }
        CellHeader* h = scene->cells + (ptrdiff_t)iy * nx;
        int* shapeRow = shapeCursor != NULL ? shapeCursor + (ptrdiff_t)iy * nx : NULL;
        int items = 0;
        for (int ix = 0, open = 0; ix < nx; ++ix)
        {
            open += start[ix];
            start[ix] = items;
            h[ix].seg = segs + items;
            items += open;
            h[ix].shape = shapes;
            int count = shapeRow != NULL ? shapeRow[ix] : 0;
            if (shapeRow != NULL)
            {
                shapeRow[ix] = shapes;
            }
            shapes += count;
        }
        // Cell nx takes the second place of the spans of one cell, past the row's records.
        start[nx] = items;
        if (items + spanCount > capacity)
        {
            lsFree(order, (size_t)capacity * sizeof(int));
            capacity = items + spanCount;
            order = lsAlloc((size_t)capacity * sizeof(int));
        }
        for (int j = 0; j < spanCount; ++j)
        {
            int ix0 = spans[j].ix0, ix1 = spans[j].ix1;
            order[start[ix0]++] = j;
            order[start[ix1 > ix0 ? ix0 + 1 : nx]++] = j;
            for (int ix = ix0 + 2; ix <= ix1; ++ix)
            {
                order[start[ix]++] = j;
            }
        }
        CellSegment* out = scene->segItems + segs;
        CellRef* outRefs = scene->segItemRefs + segs;
        for (int k = 0; k < items; ++k)
        {
            int i = spans[order[k]].segment;
            out[k] = r->segments[i].seg;
            outRefs[k] = r->segments[i].ref;
        }
        segs += items;
    }
    CellHeader* end = scene->cells + (ptrdiff_t)nx * ny;
    end->seg = segs;
    end->shape = shapes;
    scene->shapeItemCount = shapes;
    lsFree(order, (size_t)capacity * sizeof(int));
    lsFree(start, ((size_t)nx + 1) * sizeof(int));
}

// Whether shape `code` (box 2 i, polygon 2 i + 1) exists and is in the grid.
static bool IsGridShape(const lsScene* scene, const bool* shapeLong, int code)
{
    int i = code >> 1;
    return ((code & 1) == 0 ? i < scene->boxCount : i < scene->polygonCount) && !shapeLong[code];
}

// The cells shape `code` is registered in: its bounds grown by the slop (ix0, iy0, ix1, iy1).
static void ShapeCells(const lsScene* scene, int code, int range[4])
{
    BoundsRange(scene, Expand(ShapeBounds(scene, code), scene->slop), range);
}

// How many cells the grid's shapes are registered in.
static long long ShapeRegistrations(const lsScene* scene, const bool* shapeLong, int shapeCodes)
{
    long long total = 0;
    for (int code = 0; code < shapeCodes; ++code)
    {
        int range[4];
        if (IsGridShape(scene, shapeLong, code))
        {
            ShapeCells(scene, code, range);
            bool empty = range[0] > range[2] || range[1] > range[3];
            total += empty ? 0 : (long long)(range[2] - range[0] + 1) * (range[3] - range[1] + 1);
        }
    }
    return total;
}

void lsSceneGrid_Build(lsScene* scene)
{
    int gridCount;
    GridExtent extent = ChooseGrid(scene, &gridCount);
    PlaceGrid(scene, extent, gridCount, LS_CELLS_PER_PRIMITIVE);
    int segmentCount = scene->segmentCount;

    // Bounding circles of the boxes and polygons (around their bounds, a little inflated) for the deferral bounds.
    int shapeCodes = 2 * (scene->boxCount > scene->polygonCount ? scene->boxCount : scene->polygonCount);
    scene->shapeCircles = lsAllocZero((size_t)shapeCodes, sizeof(lsCircle));
    for (int code = 0; code < shapeCodes; ++code)
    {
        int i = code >> 1;
        if ((code & 1) == 0 ? i < scene->boxCount : i < scene->polygonCount)
        {
            lsAABB b = (code & 1) == 0 ? scene->boxBounds[i] : scene->polygonBounds[i];
            lsVec2 c = lsScale(0.5, lsAdd(b.lower, b.upper));
            double r = 0.5 * lsDistance(b.lower, b.upper);
            scene->shapeCircles[code] = (lsCircle){c, r + 1e-7 * (r + fabs(c.x) + fabs(c.y))};
        }
    }

    // Long primitives stay out of the grid (ChooseGrid).
    bool* isLong = lsAllocZero((size_t)segmentCount + (size_t)shapeCodes, sizeof(bool));
    bool* shapeLong = isLong + segmentCount;
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        isLong[scene->longSegments[k]] = true;
    }
    for (int k = 0; k < scene->longShapeCount; ++k)
    {
        shapeLong[scene->longShapes[k]] = true;
    }
    RowSpans rows = SpansByRow(scene, isLong);
    // A grid with segments and more cells than their and the shapes' registrations (a map's walls around open rooms)
    // is walked as sparse (BuildPieces' test, on the counts at two cells per primitive): the walk crosses its empty
    // squares in one step, so finer cells cost a ray little in the open and leave fewer records in each occupied cell.
    // Three cells per primitive instead of two: the depot map's rays 1 464 -> 1 371 instructions (9.7 -> 7.0
    // candidates, 5.9 -> 6.2 cells), 5.97 -> 6.33 M rays per CPU second, tb3_sandbox 7.64 -> 8.08; its scans 57.1
    // -> 58.0 µs and 52.5 -> 52.1; the depot's build 1.16 -> 1.52 ms (the spans counted twice). Four: rays 6.41
    // and 8.19, but the depot's scans 58.7 µs; six: 6.16 and 8.36, scans 62.1 µs. A dense grid (the mazes) made finer
    // loses a quarter: more cells to step, no squares to cross. Worlds of targets and shapes only stay at two (walked
    // dense, finer cells only cost them: 20 000 boxes 0.77 -> 0.69 M rays per CPU second). The spans are counted again
    // only when the cells did get finer (the grid's limits can keep them).
    if (rows.items > 0 &&
        (long long)scene->nx * scene->ny > rows.items + ShapeRegistrations(scene, shapeLong, shapeCodes))
    {
        int rowCount = scene->ny;
        double cellSize = scene->cellSize;
        PlaceGrid(scene, extent, gridCount, LS_SPARSE_CELLS_PER_PRIMITIVE);
        if (scene->cellSize < cellSize)
        {
            FreeRowSpans(&rows, rowCount);
            rows = SpansByRow(scene, isLong);
        }
    }
    // Every field of every header is written below (FillSegments, then lsSceneGrid_BuildTargets).
    int cellCount = scene->nx * scene->ny;
    size_t recordsAt, refsAt;
    char* index = lsAllocIndex(IndexBytes((size_t)cellCount + 1, (size_t)rows.items, &recordsAt, &refsAt));
    scene->cells = (CellHeader*)index;
    scene->segItems = (CellSegment*)(index + recordsAt), scene->segItemRefs = (CellRef*)(index + refsAt);
    scene->segItemCount = rows.items;
    int* shapeCursor = NULL;
    if (scene->boxCount + scene->polygonCount > scene->longShapeCount)
    {
        shapeCursor = lsAllocZero((size_t)cellCount, sizeof(int));
        for (int code = 0; code < shapeCodes; ++code)
        {
            int range[4];
            if (IsGridShape(scene, shapeLong, code))
            {
                ShapeCells(scene, code, range);
                CountRange(scene, shapeCursor, range);
            }
        }
    }
    FillSegments(scene, &rows, shapeCursor);
    FreeRowSpans(&rows, scene->ny);
    BuildPieces(scene);
    BuildBackFaces(scene);
    scene->shapeItems = lsAlloc((size_t)scene->shapeItemCount * sizeof(int));
    for (int code = 0; code < shapeCodes && shapeCursor != NULL; ++code)
    {
        int range[4] = {1, 1, 0, 0};
        if (IsGridShape(scene, shapeLong, code))
        {
            ShapeCells(scene, code, range);
        }
        for (int iy = range[1]; iy <= range[3]; ++iy)
        {
            int* row = shapeCursor + (ptrdiff_t)iy * scene->nx;
            for (int ix = range[0]; ix <= range[2]; ++ix)
            {
                scene->shapeItems[row[ix]++] = code;
            }
        }
    }
    lsFree(shapeCursor, shapeCursor != NULL ? (size_t)cellCount * sizeof(int) : 0);
    lsFree(isLong, ((size_t)segmentCount + (size_t)shapeCodes) * sizeof(bool));
    lsSceneGrid_BuildTargets(scene);
}

// ---------------------------------------------------------------------------------------------------------------------
// The box query

// The box query reports each object once without marking anything in the scene (so one scene can be queried from
// many threads): an object registered in several cells is reported only from the first of them, in the query's
// row-major order, that lies in the query's cell range. Those cells are recomputed exactly as registration made
// them (a rectangle for boxes, polygons and targets, a span per row for segments).

// The first cell (row-major) of the rectangle [rx0, rx1] x [ry0, ry1] within the query range [qx0, qx1] x [qy0, ..].
static inline bool IsFirstCell(int rx0, int ry0, int qx0, int qy0, int ix, int iy)
{
    return ix == (rx0 > qx0 ? rx0 : qx0) && iy == (ry0 > qy0 ? ry0 : qy0);
}

// Whether (ix, iy) is the first cell of the query range [qx0, qx1] x [qy0, iy] that segment `seg` is registered in.
static bool IsFirstSegmentCell(const lsScene* scene, lsSegment seg, int qx0, int qx1, int qy0, int ix, int iy)
{
    SegmentRows rows = MakeSegmentRows(scene, seg);
    for (int row = rows.iy0 > qy0 ? rows.iy0 : qy0; row <= iy; ++row)
    {
        int x0, x1;
        if (SegmentRowSpan(scene, &rows, row, &x0, &x1) && x0 <= qx1 && x1 >= qx0)
        {
            return row == iy && ix == (x0 > qx0 ? x0 : qx0);
        }
    }
    return false; // not reached: the segment is registered in (ix, iy)
}

void lsScene_QueryAABB(const lsScene* scene, lsAABB box, lsSceneQueryFcn* fcn, void* context)
{
    LS_ASSERT(scene != NULL && fcn != NULL);
    for (int k = 0; k < scene->displacedCount; ++k)
    {
        int i = scene->displaced[k];
        if (scene->targetActive[i] && lsAABB_Overlaps(lsCircle_Bounds(scene->targets + i), box) &&
            !fcn(context, ls_hitTarget, i, 0))
        {
            return;
        }
    }
    for (int k = 0; k < scene->longSegmentCount; ++k)
    {
        int id = scene->longSegments[k];
        const lsSegment* seg = scene->segments + id;
        if (lsAABB_Overlaps(lsAABB_OfSegment(seg->a, seg->b), box) &&
            !fcn(context, ls_hitWall, scene->segmentChain[id], scene->segmentPart[id]))
        {
            return;
        }
    }
    for (int k = 0; k < scene->longShapeCount; ++k)
    {
        int code = scene->longShapes[k];
        if (lsAABB_Overlaps(ShapeBounds(scene, code), box) &&
            !fcn(context, (code & 1) == 0 ? ls_hitBox : ls_hitPolygon, code >> 1, 0))
        {
            return;
        }
    }
    if (scene->nx == 0)
    {
        return;
    }
    double gx1 = scene->x0 + (double)scene->nx * scene->cellSize, gy1 = scene->y0 + (double)scene->ny * scene->cellSize;
    if (!(box.upper.x >= scene->x0 && box.upper.y >= scene->y0 && box.lower.x <= gx1 && box.lower.y <= gy1))
    {
        return;
    }
    int qx0 = CellX(scene, box.lower.x), qx1 = CellX(scene, box.upper.x);
    int qy0 = CellY(scene, box.lower.y), qy1 = CellY(scene, box.upper.y);
    for (int iy = qy0; iy <= qy1; ++iy)
    {
        for (int ix = qx0; ix <= qx1; ++ix)
        {
            const CellHeader* h = scene->cells + (ptrdiff_t)iy * scene->nx + ix;
            for (int k = h[0].seg; k < h[1].seg; ++k)
            {
                const CellSegment* cs = scene->segItems + k;
                if (lsAABB_Overlaps(lsAABB_OfSegment(cs->a, cs->b), box) &&
                    IsFirstSegmentCell(scene, *cs, qx0, qx1, qy0, ix, iy) &&
                    !fcn(context, ls_hitWall, scene->segItemRefs[k].chain, scene->segItemRefs[k].part))
                {
                    return;
                }
            }
            for (int k = h[0].shape; k < h[1].shape; ++k)
            {
                int code = scene->shapeItems[k];
                lsAABB bounds = ShapeBounds(scene, code);
                lsAABB registered = Expand(bounds, scene->slop); // as RegisterBounds saw it
                if (lsAABB_Overlaps(bounds, box) &&
                    IsFirstCell(CellX(scene, registered.lower.x), CellY(scene, registered.lower.y), qx0, qy0, ix, iy) &&
                    !fcn(context, (code & 1) == 0 ? ls_hitBox : ls_hitPolygon, code >> 1, 0))
                {
                    return;
                }
            }
            for (int k = h[0].target; k < h[1].target; ++k)
            {
                const CellTarget* ct = scene->targetItems + k;
                const int* range = scene->targetCells + (ptrdiff_t)4 * ct->index;
                if (ct->active && lsAABB_Overlaps(lsCircle_Bounds(&ct->circle), box) &&
                    IsFirstCell(range[0], range[1], qx0, qy0, ix, iy) && !fcn(context, ls_hitTarget, ct->index, 0))
                {
                    return;
                }
            }
        }
    }
}

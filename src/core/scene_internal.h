// lidarsim core (private): the scene's storage shared by its four parts: scene.c (lifecycle, storage, accessors),
// scene_grid.c (the uniform grid: its layout, registration of primitives, the box query), scene_cast.c (the walk
// along a ray) and scene_fan.c (a scan's beams swept together); the last two share scene_bounds.h (the bounds that
// filter candidates, the exact answers). Public declarations are in include/lidarsim/scene.h.
#pragma once

#include "lidarsim/scene.h"

#include <math.h>

// Each cell's primitives are stored in place, so a ray touches a few contiguous cache lines per cell: wall segments
// as packed records (the same doubles the brute-force path casts, so results are bit-identical), targets as
// circle records updated in place when a target moves, boxes and polygons (rare) as indices.
typedef struct CellHeader
{
    int seg, shape, target; // where the cell's lists start; the next header says where they end
    // In a sparse grid, per quadrant of directions q = (dx > 0) + 2 (dy > 0): the side, in cells, of the largest square
    // of cells that hold nothing with this cell at its corner and the square on the side q's rays go (cells beyond the
    // grid count as empty; at most 255). 0 for every q when the cell holds something, and in a dense grid; there, the
    // last byte is 1 when the cell holds targets or shapes (1 is not a square the walk crosses), so that the packets
    // read it with the next header's segments' start as one 64-bit value instead of both headers' shape and target.
    unsigned char square[4];
} CellHeader;

/// Whether a cell holds a segment, shape or target record (or lies in a dense grid).
static inline bool CellOccupied(const CellHeader* h) { return h->square[0] == 0; }

// A segment's record in a cell: its two endpoints, 32 bytes, two to a cache line; its identity (the global segment
// index) sits in a parallel array that only the winners and the box query read.
typedef lsSegment CellSegment;

// A segment record's identity, in a parallel array in the same order: its wall chain and its part in the chain. In
// cell order, so a candidate's identity is near the other candidates' (no random access into per-segment arrays).
// With it, what only a winner reads: the unit normal of a hit by a ray with cross(d, b - a) > 0 (the other side's is
// its negation), computed at build by the exact cast's operations (lsUnitVectorInline of (a.y - b.y, b.x - a.x)), so
// the walk's winner skips their square root and division; NaN where that is not its inline case (an extreme length).
typedef struct CellRef
{
    int chain, part;
    lsVec2 normal;
} CellRef;

typedef struct CellTarget
{
    lsCircle circle;
    int index;
    int active; // 0 when the target is disabled or has moved out of this cell's reach (displaced)
} CellTarget;

// A sparse grid's occupied cells are listed by blocks of this many cells a side (a power of two): a scan's sweep
// tests a block's visibility once before its cells'.
#define LS_SPARSE_BLOCK 4

/// A block of a sparse grid holding an occupied cell: its first cell's column and row, where its occupied cells start
/// in sparseCells, and the box holding theirs (SparseCell).
typedef struct SparseBlock
{
    int ix, iy;
    int start;
    double xl, xh, yl, yh;
} SparseBlock;

/// An occupied cell of a sparse grid (a cache line): its column and row; where its records' pairs start in
/// sparsePairs, where its segment records start and how many there are (as its header says), and whether it holds
/// targets or shapes; the box of what it holds there: its segment records' endpoints' box within the cell's box grown
/// by the slop (every point of a record inside the cell lies in it), or that whole box when the cell holds a target or
/// a shape (a scan's sweep tests its beams against this box); and the 1-norm of the farthest corner of its records'
/// endpoints' box (a scan's side tests take their error bound from it).
typedef struct SparseCell
{
    int ix, iy;
    int pairs;
    int first, count;
    int discs;
    double xl, xh, yl, yh;
    double far;
} SparseCell;

// A sparse grid's pieces (segPieces) end with this many copies of the last one, so that the packets' walk reads a
// lane's next few pieces without a clamp (see CastPacketsAs): a round side-tests this many pieces a lane. Four since
// its rounds skip the bound when no lane has a candidate and bound by the piece: depot 1 462 -> 1 491 instructions a
// ray, 5.75 -> 5.83 M rays per CPU second, tb3_sandbox 7.48 -> 7.55 (lidarsim bench, 11 and 7 alternated runs);
// two pieces are slower (5.71 -> 5.47).
#define LS_PIECES_AFTER 4

enum
{
    ls_fieldSegment = 0,
    ls_fieldShape = 1,
    ls_fieldTarget = 2,
};

// The hot loop is inlined by force and prefetches memory where the compiler allows it (GCC and Clang).
#if defined(__GNUC__)
#define LS_FORCE_INLINE inline __attribute__((always_inline))
#define LS_NOINLINE __attribute__((noinline))
#define LS_PREFETCH(p) __builtin_prefetch(p)
#define LS_UNLIKELY(c) __builtin_expect(!!(c), 0)
#else
#define LS_FORCE_INLINE inline
#define LS_NOINLINE
#define LS_PREFETCH(p) ((void)(p))
#define LS_UNLIKELY(c) (c)
#endif

// A target can be displaced out of the cells it is registered in (a respawn); it is then tested on every cast until
// this many more are displaced than right after the last rebuild of the target cells, when they are rebuilt.
#define LS_MAX_DISPLACED 16

#ifndef LS_CELLS_PER_PRIMITIVE
#define LS_CELLS_PER_PRIMITIVE 2.0
#endif
#ifndef LS_SPARSE_CELLS_PER_PRIMITIVE
#define LS_SPARSE_CELLS_PER_PRIMITIVE 3.0
#endif

// Primitives far larger than the rest (a wall from -1e200 to 1e200 beside a 10 m room) would stretch the grid
// until it is useless; up to this many of them are kept out of the grid and tested on every cast instead.
#define LS_MAX_LONG_PRIMITIVES 256

struct lsScene
{
    // Walls: chains flattened into segments, chain by chain.
    int wallCount;
    int* wallFirstSegment; // wallCount + 1 entries
    double* wallReflectance;
    int segmentCount;
    lsSegment* segments;
    int* segmentChain; // per segment: its chain
    int* segmentPart;  // per segment: its index within the chain

    // Targets: circles that can move or be disabled.
    int targetCount;
    lsCircle* targets;
    bool* targetActive;
    bool* targetDisplaced;
    int* targetCells; // 4 per target: ix0, iy0, ix1, iy1 of the cells it is registered in (empty when ix0 > ix1)
    lsTargetKind* targetKinds;
    double* targetReflectance;
    int* displaced; // targets tested on every cast (capacity targetCount)
    int displacedCount;
    int displacedAfterBuild; // targets outside the grid at the last rebuild (they stay displaced)

    int boxCount;
    lsBox* boxes;
    lsAABB* boxBounds;
    double* boxReflectance;

    int polygonCount;
    lsPolygon* polygons;
    lsAABB* polygonBounds;
    double* polygonReflectance;

    int vehicleCount; // reflectance only: the bodies come with every cast
    double* vehicleReflectance;
    int moverCount;
    double* moverReflectance;

    // The grid. Cell (ix, iy) covers [x0 + ix s, x0 + (ix + 1) s] x [y0 + iy s, y0 + (iy + 1) s].
    int nx, ny;
    double x0, y0, cellSize, invCellSize;
    double x1, y1; // the far corner: x0 + nx s, y0 + ny s (the walk's clip)
    double slop;   // metres: primitives are registered in every cell they come within slop of
    double maxSegmentLength;
    // The headers, the records and their identities lie in one block (see IndexBytes), so that a small index takes
    // one huge page and a big one wastes at most one's rounding.
    CellHeader* cells;     // nx * ny + 1 headers
    CellSegment* segItems; // on a cache line: two records a line, none across two
    CellRef* segItemRefs;  // per record: the wall chain and part (read by the winners and the box query only)
    int segItemCount;
    // A sparse grid's records again, in the same order, each cut to its piece within its cell's box grown by twice the
    // slop (as sparsePairs): the walk side-tests these, so a wall of several cells passes only in the cells where the
    // ray's line crosses it. NULL in a dense grid. pieceError: what a clipped end may lie off its record's line, as a
    // side's rounding per unit of the direction's 1-norm (1e-14 times the grid's largest |x| + |y|).
    CellSegment* segPieces; // segItemCount + LS_PIECES_AFTER records: the last one's copies after it
    double pieceError;
    int* shapeItems; // box i: 2 i, polygon i: 2 i + 1
    int shapeItemCount;
    lsCircle* shapeCircles; // bounding circle of each shape code (boxCount + polygonCount of them, interleaved)
    CellTarget* targetItems;
    int targetItemCount;

    // A sparse grid's occupied cells (those holding a record), block by block of LS_SPARSE_BLOCK x LS_SPARSE_BLOCK
    // cells: a scan's sweep (scene_fan.c) visits these instead of every cell of every ring. NULL in a dense grid.
    SparseBlock* sparseBlocks; // the blocks holding an occupied cell, in row-major order
    int sparseBlockCount;
    SparseCell* sparseCells; // their occupied cells, block by block (each block's run ends at the next one's start)
    int sparseCellCount;
    // Each occupied cell's segment records again, each cut to its piece within the cell's box grown by twice the slop,
    // two at a time as a scan's side tests read them: per pair, the x of both first ends, their y, the x of both
    // second ends, their y (8 doubles, one cache line); an odd count's last piece twice.
    double* sparsePairs;
    int sparsePairCount;
    // Back faces (scene_fan.c's SparseCellVisit), a sparse grid's only (scene_grid.c's BuildBackFaces): the closed
    // chains split into loops where they pass through a point again, their edges checked to keep apart. segItemSide
    // is, per record, bit 1 when a scan's origin of winding number 0 (the sum of the loops') can meet the record from
    // its left only after crossing another edge first (the winding number on its left is not 0), bit 2 the same for
    // its right; 0 for a record of no loop. sparsePairSkip: the same per pair of sparsePairs, as bits: 1 << lane for
    // the left, 4 << lane for the right. NULL when no record has one. The loops' edges by row of cells (each edge in
    // every row its y range, widened by the slop, meets), row iy's from rowEdgeStart[iy] to rowEdgeStart[iy + 1]
    // (lsSceneGrid_Winding). backFaceFar: 2^-24 times the grid's diagonal over the side tests' 1e-14 (the margin a
    // beam keeps from a record's ends, per unit of its 1-norm, in the units of SparseCell.far).
    unsigned char* segItemSide;
    unsigned char* sparsePairSkip;
    int* rowEdgeStart;
    int* rowEdges;
    double backFaceFar;

    // Long primitives (see LS_MAX_LONG_PRIMITIVES): not in the grid, tested on every cast and query. Long targets
    // are simply left outside the grid's bounds, which makes them displaced (tested on every cast).
    int* longSegments; // segment indices
    int longSegmentCount;
    int* longShapes; // shape codes
    int longShapeCount;
};

/// The cell column of x, clamped to the grid (truncation is floor for the non-negative values that remain).
// Branch-free (a maximum, a minimum, a conversion): the walk's first cell and the prefetch of the rays ahead would
// otherwise mispredict on the clamps. A NaN becomes 0.
static LS_FORCE_INLINE int CellX(const lsScene* scene, double x)
{
    double f = (x - scene->x0) * scene->invCellSize;
    f = f > 0.0 ? f : 0.0;
    double last = (double)(scene->nx - 1);
    return (int)(f < last ? f : last);
}

/// The cell row of y, clamped to the grid.
static LS_FORCE_INLINE int CellY(const lsScene* scene, double y)
{
    double f = (y - scene->y0) * scene->invCellSize;
    f = f > 0.0 ? f : 0.0;
    double last = (double)(scene->ny - 1);
    return (int)(f < last ? f : last);
}

// The bytes of the block of cells (lsAllocIndex) for a grid of headers headers (nx ny + 1) and items records: the
// headers, then the records from the next 64-byte boundary (at *recordsAt), then their identities (at *refsAt).
static inline size_t IndexBytes(size_t headers, size_t items, size_t* recordsAt, size_t* refsAt)
{
    size_t records = (headers * sizeof(CellHeader) + 63) & ~(size_t)63;
    size_t refs = records + items * sizeof(CellSegment);
    if (recordsAt != NULL)
    {
        *recordsAt = records, *refsAt = refs;
    }
    return refs + items * sizeof(CellRef);
}

// Minimum and maximum of finite values (fmin and fmax are library calls that also order NaNs).
static inline double Min(double a, double b) { return a < b ? a : b; }

static inline double Max(double a, double b) { return a > b ? a : b; }

/// A box grown by d on every side.
static inline lsAABB Expand(lsAABB box, double d)
{
    return (lsAABB){{box.lower.x - d, box.lower.y - d}, {box.upper.x + d, box.upper.y + d}};
}

// Bounds of a box (code 2 i) or polygon (code 2 i + 1).
static inline lsAABB ShapeBounds(const lsScene* scene, int code)
{
    return (code & 1) == 0 ? scene->boxBounds[code >> 1] : scene->polygonBounds[code >> 1];
}

/// Offers to best the primitives outside the grid (scene_cast.c): displaced targets and long segments and shapes, each
/// bounded against best and cast at once when it may win. dd is |direction|^2; stats may be NULL.
void lsScene_CastOutsideGrid(const lsScene* scene, const lsRayInput* input, double dd, lsRayHit* best,
                             lsCastStats* stats);
/// Sets the index size from which lsScene_CastRays walks a batch's rays in lock step (scene_cast.c: a quarter of the
/// last-level cache, which differs from machine to machine), so that the tests run each path on any machine; 0
/// restores the machine's. Not while another thread casts.
void lsScene_SetLanesMinIndexBytes(size_t bytes);
/// lsScene_CastRay without moving objects and without prefetching ahead, for a ray whose cells are likely cached (a
/// scan's beam left over by the fan).
lsRayHit lsScene_WalkRay(const lsScene* scene, const lsRayInput* input);

/// Chooses the grid for the scene's copied geometry and registers every primitive in it (scene_grid.c); the long
/// primitives are kept out (tested on every cast). Called once by lsCreateScene.
void lsSceneGrid_Build(lsScene* scene);
/// (Re)builds the target records from the targets' current places; targets outside the grid become displaced.
void lsSceneGrid_BuildTargets(lsScene* scene);
/// The cell range [ix0, iy0, ix1, iy1] a target circle is registered in, or an empty range (ix0 > ix1) when it does
/// not lie inside the grid (it is then tested on every cast).
void lsSceneGrid_TargetRange(const lsScene* scene, lsCircle c, int range[4]);

/// The most loop edges a row of cells may hold for a winding number to be counted there (lsSceneGrid_Winding): the
/// count is a pass over the row's edges, at build for every loop and in every scan (the depot map's rows hold up to
/// 568; fifty thousand small loops in one row took 13 s to build without the limit).
#define LS_BACK_FACE_ROW_EDGES 1024

/// The sum of the winding numbers of the loops whose records have back faces (rowEdges) around p, by the crossings of
/// the ray from p along +x with their edges of p's row, exact signs: upward edges with p on their left count 1,
/// downward ones with p on their right -1 (each edge's lower end counts, its upper one does not). False when p lies on
/// an edge or its row holds more than LS_BACK_FACE_ROW_EDGES edges. Only when rowEdgeStart is set.
bool lsSceneGrid_Winding(const lsScene* scene, lsVec2 p, int* winding);

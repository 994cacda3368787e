// lidarsim core: distance (GJK) and penetration (EPA) between convex shapes given by support functions.
// Shapes are proxies: a convex hull of up to LS_MAX_POLYGON_VERTICES points, optionally rounded by a radius
// (a point is 1 point, a segment 2, a circle 1 point plus its radius, a box its 4 corners, a polygon its vertices,
// a capsule 2 points plus a radius). All shapes are closed: the boundary belongs to the shape, so shapes that
// touch share a point and count as overlapping. Pure functions, double precision, metres, world frame.
// GJK works on the Minkowski difference B - A (w = b - a), so every normal points from A to B.
// Model: box2d v3's src/distance.c (proxies, simplex cache, iteration cap), solver after Ericson 5.1.9.
#pragma once

#include "lidarsim/geometry.h"
#include "lidarsim/vec.h"

#include <stdbool.h>
#include <stdint.h>

/// GJK stops after this many support-point iterations (a defined answer: the best simplex found so far).
#define LS_GJK_MAX_ITERATIONS 64
/// EPA stops after this many polytope expansions (a defined answer: the best face found so far, a lower bound).
#define LS_EPA_MAX_ITERATIONS 96

/// A convex shape for GJK: the convex hull of points, grown by radius (a rounded shape).
typedef struct lsShapeProxy
{
    lsVec2 points[LS_MAX_POLYGON_VERTICES]; ///< world frame, metres; order does not matter, repeats allowed
    int count;                              ///< 1 .. LS_MAX_POLYGON_VERTICES
    double radius;                          ///< >= 0, metres
} lsShapeProxy;

/// One vertex of the GJK simplex: a support point of each shape and their difference w = wB - wA.
typedef struct lsSimplexVertex
{
    lsVec2 wA;  ///< support point on A's core (world frame)
    lsVec2 wB;  ///< support point on B's core
    lsVec2 w;   ///< wB - wA, a point of the Minkowski difference B - A
    double a;   ///< barycentric weight of this vertex in the closest point (weights sum to 1)
    int indexA; ///< index of wA in A's proxy
    int indexB; ///< index of wB in B's proxy
} lsSimplexVertex;

/// GJK's simplex: a point, a segment or a triangle of the Minkowski difference (v[0 .. count-1] are used).
typedef struct lsSimplex
{
    lsSimplexVertex v[3];
    int count; ///< 1, 2 or 3 (3 only when the cores overlap)
} lsSimplex;

/// Warm start for lsShapeDistance: zero-initialise it ({0}) before the first call, then pass the same cache for
/// the same pair of shapes on the next step (the shapes may have moved). Invalid caches are ignored.
typedef struct lsSimplexCache
{
    int count; ///< 0 (cold start) .. 3
    uint8_t indexA[3];
    uint8_t indexB[3];
} lsSimplexCache;

/// The result of lsShapeDistance.
typedef struct lsDistanceOutput
{
    lsVec2 pointA;       ///< closest point on A's rounded surface; when overlap: a point common to both shapes
    lsVec2 pointB;       ///< closest point on B's rounded surface; when overlap: equal to pointA
    lsVec2 normal;       ///< unit, from A towards B; (0, 0) when the cores (radii excluded) overlap
    double distance;     ///< distance between the shapes including radii, >= 0; exactly 0 when overlap
    double coreDistance; ///< distance between the cores (radii excluded), >= 0; 0 when the cores overlap
    int iterations;      ///< support-point iterations used, <= LS_GJK_MAX_ITERATIONS
    lsSimplex simplex;   ///< the final simplex (what EPA starts from)
    bool overlap;        ///< the shapes share at least one point (touching counts: distance 0)
} lsDistanceOutput;

/// The result of lsShapePenetration: the minimum translation vector (MTV) when the shapes overlap.
typedef struct lsPenetration
{
    lsVec2 normal;  ///< unit: translating B by depth * normal separates the shapes (leaves them just touching).
                    ///< Points from A towards B. Not overlapping: GJK's normal (A to B).
    lsVec2 pointA;  ///< overlap: A's deepest point into B (on A's rounded surface); else closest point on A
    lsVec2 pointB;  ///< overlap: B's deepest point into A, with pointB + depth * normal == pointA; else closest on B
    double depth;   ///< >= 0, metres, radii included; 0 when not overlapping and for a zero-area overlap (touching)
    int iterations; ///< EPA expansions used, <= LS_EPA_MAX_ITERATIONS (0 when EPA was not needed)
    bool overlap;   ///< same as lsShapeDistance's overlap (touching counts)
} lsPenetration;

// ---------------------------------------------------------------------------------------------------------------------
// Proxies

/// A proxy from count in 1..LS_MAX_POLYGON_VERTICES finite points (world frame) and a radius >= 0.
lsShapeProxy lsMakeProxy(const lsVec2* points, int count, double radius);
/// A proxy from points given in a local frame (a robot footprint in the robot frame), placed by transform.
lsShapeProxy lsMakeProxyTransformed(const lsVec2* localPoints, int count, double radius, lsTransform transform);
/// A single point (radius 0).
lsShapeProxy lsProxyFromPoint(lsVec2 point);
/// A solid disc: its centre with its radius.
lsShapeProxy lsProxyFromCircle(const lsCircle* circle);
/// A segment (two points, radius 0); a zero-length segment is a point.
lsShapeProxy lsProxyFromSegment(const lsSegment* segment);
/// A solid oriented box: its four corners, counter-clockwise from (-hx, -hy) (same order as lsBox_Corners).
lsShapeProxy lsProxyFromBox(const lsBox* box);
/// A solid convex polygon: its vertices.
lsShapeProxy lsProxyFromPolygon(const lsPolygon* polygon);
/// Distance from p to the line through q0 and q1 (metres), accurate to a few ulps even for a long line and a tiny
/// distance (compensated arithmetic); q0 == q1 gives |p - q0|. GJK and EPA use it for a vertex against an edge.
double lsPointLineDistance(lsVec2 q0, lsVec2 q1, lsVec2 p);
/// Index of the proxy point with the largest dot product with direction (the first such point on ties).
int lsProxy_FindSupport(const lsShapeProxy* proxy, lsVec2 direction);

// ---------------------------------------------------------------------------------------------------------------------
// Queries

/// GJK distance between two rounded convex shapes. Returns the distance including radii (0 when they overlap), the
/// closest points on both rounded surfaces, the unit normal from A to B, and overlap: true when the closed shapes
/// share a point (touching counts). A gap below 8 DBL_EPSILON times the largest coordinate of the closest features
/// (the rounding of the inputs themselves) also counts as touching, so a resting contact does not flicker. Whether
/// the origin lies on a simplex edge is decided with exact orientation signs, so shapes with exactly representable
/// touching coordinates report distance exactly 0. cache may be NULL; otherwise it warm-starts from and is updated
/// to the final simplex. Terminates on a duplicate support point, on no progress, or at LS_GJK_MAX_ITERATIONS, where
/// the answer is the best simplex found (an upper bound on the true distance). Never returns NaN for finite input.
lsDistanceOutput lsShapeDistance(const lsShapeProxy* a, const lsShapeProxy* b, lsSimplexCache* cache);

/// Penetration (EPA, seeded from GJK's final simplex): when the shapes overlap, depth >= 0 and a unit normal such
/// that translating B by depth * normal leaves them just touching (the minimum such translation). Radii are
/// included: when the cores are apart but closer than rA + rB, depth = rA + rB - coreDistance along GJK's normal
/// (no EPA needed); when the cores overlap, depth = EPA's core depth + rA + rB. A zero-area overlap (touching
/// shapes, a segment lying in a segment) gives depth 0 (plus radii) with a normal perpendicular to the contact.
/// Identical single points give depth 0 (plus radii) with normal (1, 0). At LS_EPA_MAX_ITERATIONS the answer is the
/// best face found (a lower bound). Never NaN for finite input.
lsPenetration lsShapePenetration(const lsShapeProxy* a, const lsShapeProxy* b);

/// True when the closed shapes share a point (touching counts); the same answer as lsShapeDistance's overlap.
bool lsShapesOverlap(const lsShapeProxy* a, const lsShapeProxy* b);

// lidarsim core: intersection and closest-point routines on plain shapes. Pure functions, double precision.
// Every routine states which boundaries count and what a degenerate input returns. None returns NaN or
// infinity for finite input. Shapes come first, then a const input, and results come back by value.
#pragma once

#include "lidarsim/vec.h"
#include "lidarsim/world.h" // LS_MAX_POLYGON_VERTICES

#ifdef __cplusplus
extern "C"
{
#endif

/// A segment from a to b.
typedef struct lsSegment
{
    lsVec2 a, b;
} lsSegment;

/// A solid disc (closed: its boundary belongs to it).
typedef struct lsCircle
{
    lsVec2 center;
    double radius;
} lsCircle;

/// A solid oriented rectangle (closed).
typedef struct lsBox
{
    lsVec2 center;
    lsVec2 halfSize; ///< half width and half height, >= 0
    lsRot rot;       ///< orientation of the box's local x axis
} lsBox;

/// A solid convex polygon (closed), vertices counter-clockwise, normals[i] the outward unit normal of edge i ->
/// i+1.
typedef struct lsPolygon
{
    lsVec2 vertices[LS_MAX_POLYGON_VERTICES];
    lsVec2 normals[LS_MAX_POLYGON_VERTICES];
    int count;
} lsPolygon;

/// A ray: the points origin + fraction * direction for fraction in [0, maxFraction]. The lidar passes a unit
/// direction and maxFraction = range, so fraction is a distance in metres.
typedef struct lsRayInput
{
    lsVec2 origin;
    lsVec2 direction;
    double maxFraction;
} lsRayInput;

/// The result of a ray cast. When hit is false the other fields are zero.
typedef struct lsCastOutput
{
    lsVec2 point;    ///< the hit point
    lsVec2 normal;   ///< unit surface normal at the hit, facing the ray (dot(normal, direction) <= 0)
    double fraction; ///< in [0, maxFraction]
    bool hit;
} lsCastOutput;

// ---------------------------------------------------------------------------------------------------------------------
// Shape construction

/// Box from centre, full size and angle (radians).
LS_API lsBox lsMakeBox(lsVec2 center, lsVec2 size, double angle);
/// Convex polygon from points in either winding (reordered counter-clockwise). count in 3..LS_MAX_POLYGON_VERTICES.
/// Returns false when the points are not strictly convex (collinear or repeated points, reflex corners).
LS_API bool lsMakePolygon(lsPolygon* out, const lsVec2* points, int count);
/// The four corners of a box, counter-clockwise starting at (-hx, -hy).
LS_API void lsBox_Corners(const lsBox* box, lsVec2 corners[4]);
/// Axis-aligned bounds of each shape.
LS_API lsAABB lsBox_Bounds(const lsBox* box);
LS_API lsAABB lsPolygon_Bounds(const lsPolygon* polygon);
LS_API lsAABB lsCircle_Bounds(const lsCircle* circle);

// ---------------------------------------------------------------------------------------------------------------------
// Exact predicates

/// Sign (-1, 0, +1) of cross(b - a, c - a), computed exactly for any finite doubles (adaptive: a fast filter, then
/// fma two-product expansions, then big-integer arithmetic when the filter cannot decide; exact.c).
/// +1 when c is to the left of a->b.
LS_API int lsOrient(lsVec2 a, lsVec2 b, lsVec2 c);
/// Sign of cross(d, p - o) computed exactly from the given doubles (o + d is never rounded).
LS_API int lsOrientDir(lsVec2 o, lsVec2 d, lsVec2 p);

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts (the lidar's beams). A ray with a zero direction or maxFraction < 0 hits nothing. Hit or miss is
// decided exactly from the given doubles (maxFraction included: a hit exactly at maxFraction counts); only the
// reported fraction, point and normal are rounded, and the fraction is clamped into [0, maxFraction]. A segment's
// fraction lies within about 128 ulp (a relative 3e-14) of the exact one at any incidence, grazing beams and
// coordinates near 1e-300 included: past 2^5 of ill-conditioning the crossing is recomputed in double-double, and
// when its products would underflow, in quad precision. A circle's does at any incidence too (near-tangent beams
// included) while its radius and the origin's distance are above about 1e-150 (world files allow radii from 1e-4 m);
// below, its squares underflow. Inputs must be finite.

/// Two-sided segment, closed at both endpoints: a ray through an endpoint (a shared corner of two walls) hits.
/// Whether the ray meets the segment is decided by exact orientation tests; only the fraction is rounded.
/// Parallel rays miss unless collinear and overlapping; then the hit is the nearest point of the segment at
/// fraction >= 0 (fraction 0 when the origin lies on the segment) with normal = -unit(direction). A zero-length
/// segment is a point: hit only when the ray passes exactly through it. Normal faces the ray's side. A hit at an
/// endpoint reports that endpoint exactly, and its fraction is computed the same way for every segment sharing it.
LS_API lsCastOutput lsRayCastSegment(const lsSegment* segment, const lsRayInput* input);
/// Solid disc: the nearer root of |o + t d - c|^2 = r^2. A tangent ray hits once, at the touching point.
/// An origin inside the disc or on its boundary hits at fraction 0 with normal = -unit(direction).
/// radius 0 is a point (hit only when the ray passes exactly through it; normal = -unit(direction)).
LS_API lsCastOutput lsRayCastCircle(const lsCircle* circle, const lsRayInput* input);
/// Solid oriented box: first entry point. The box is the exact set |u_k . (p - center)| <= halfSize_k for the
/// rotation's rows u_0 = (c, s), u_1 = (-s, c) as doubles; closed, so a ray along a face (grazing) hits at its entry
/// onto that face. Hit or miss is decided exactly (the slab method in floating point where its error bounds keep every
/// decision clear, exact signs where they do not: an origin on or near a face, a beam along a face or through a
/// corner), and the fraction is the entering face's to about eps. Origin inside or on the boundary: fraction 0,
/// normal = -unit(direction).
LS_API lsCastOutput lsRayCastBox(const lsBox* box, const lsRayInput* input);
/// Solid convex polygon: first entry point, the nearest edge hit with each edge decided exactly like a segment (so
/// a ray through a vertex hits), or fraction 0 when the origin is inside or on the boundary (exact). Normal: the
/// outward normal of the entered edge (at a vertex, the edge entered most directly); origin inside:
/// -unit(direction).
LS_API lsCastOutput lsRayCastPolygon(const lsPolygon* polygon, const lsRayInput* input);

// ---------------------------------------------------------------------------------------------------------------------
// Segment tests (motion planning)

/// Result of segment against segment.
typedef struct lsSegmentHit
{
    bool hit;
    bool collinear; ///< the segments lie on one line and overlap in more than a point
    lsVec2 point;   ///< the meeting point; collinear: the overlap's end nearest to a.a
    double s;       ///< parameter of point on segment a, in [0, 1]
    double t;       ///< parameter of point on segment b, in [0, 1]
    double sEnd;    ///< collinear: parameter on a of the overlap's other end (else equal to s)
} lsSegmentHit;

/// Closed segments: rapid rejection by bounding boxes, then the straddle test with exact orientation signs.
/// Touching at an endpoint is a hit (point = that endpoint exactly, its parameter exactly 0 or 1). Zero-length
/// segments behave as points (parameter 0 on a zero-length segment). Collinear segments meeting in one point only
/// are a hit with collinear = false.
LS_API lsSegmentHit lsIntersectSegments(const lsSegment* a, const lsSegment* b);
/// True when the closed segment and closed disc share a point (endpoint inside, crossing, or tangent).
LS_API bool lsSegmentOverlapsCircle(const lsSegment* segment, const lsCircle* circle);
/// True when the closed segment and closed box share a point (an endpoint inside the box, or crossing an edge);
/// decided in floating point in the box frame, like lsBox_Contains. The circle and polygon tests are exact.
LS_API bool lsSegmentOverlapsBox(const lsSegment* segment, const lsBox* box);
/// True when the closed segment and closed convex polygon share a point.
LS_API bool lsSegmentOverlapsPolygon(const lsSegment* segment, const lsPolygon* polygon);
/// Point containment, closed (the boundary counts).
LS_API bool lsCircle_Contains(const lsCircle* circle, lsVec2 p);
LS_API bool lsBox_Contains(const lsBox* box, lsVec2 p);
LS_API bool lsPolygon_Contains(const lsPolygon* polygon, lsVec2 p);

// ---------------------------------------------------------------------------------------------------------------------
// Closest points

/// The closest point of a segment to p.
typedef struct lsClosestPoint
{
    lsVec2 point;
    double fraction; ///< parameter on the segment in [0, 1]
    double distance; ///< |p - point|
    int index;       ///< polyline: the segment holding the point (first one on ties)
} lsClosestPoint;

/// Projection of p onto the segment by a dot product, clamped to [0, 1] (fraction 0 and 1 give a and b exactly).
/// A zero-length segment gives a.
LS_API lsClosestPoint lsClosestPointOnSegment(const lsSegment* segment, lsVec2 p);
/// The closest point on a polyline of count >= 1 points (closed joins the last point to the first).
LS_API lsClosestPoint lsClosestPointOnPolyline(const lsVec2* points, int count, bool closed, lsVec2 p);

#ifdef __cplusplus
}
#endif

// lidarsim core (private): sweeps over one step (sweep.c), time t in [0, 1], all motion linear in t: a moving point
// against a moving segment, and the time of first contact of a moving circle with a segment.
#pragma once

#include "lidarsim/geometry.h"

/// One moment at which a moving point lies on a moving segment.
typedef struct lsSweepHit
{
    double t;     ///< time in [0, 1]
    double s;     ///< fraction along the segment at that time, in [0, 1]
    lsVec2 point; ///< where the point is at that time
} lsSweepHit;

/// A moving segment p0->p1, q0->q1 and a moving point c0->c1. Writes into hits (capacity 2) every time in
/// [0, 1] at which the point lies on the closed segment, earliest first, and returns how many.
/// Solves cross(q - p, c - p) = 0, quadratic in t: t^2 (b x d) + t (a x d + b x c) + (a x c) = 0, where
/// a = c0 - p0, b = (c1 - c0) - (p1 - p0), c = q0 - p0, d = (q1 - q0) - (p1 - p0); keeps roots with s in [0, 1].
/// Degenerate cases are answered, never divided by zero: a zero leading coefficient is solved as linear; a
/// double root is reported once; when the equation holds for all t (the point moves along the segment's line),
/// the single hit returned is the first time the point is on the closed segment; a segment of zero length at
/// time t is a point, hit when the moving point coincides with it (s = 0). Which case applies (zero coefficients,
/// the discriminant's sign, roots exactly at t = 0 or 1) is decided exactly; the roots are rounded, and a root
/// whose s lies within rounding (about 64 eps of the coordinates' magnitude, relative to the segment's length)
/// of [0, 1] counts, with s clamped.
int lsSweepPointSegment(lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1, lsVec2 c0, lsVec2 c1, lsSweepHit hits[2]);

/// Time of first contact of a circle of radius r moving c0->c1 with a static closed segment: the smallest t in
/// [0, 1] with distance(c(t), segment) <= r. Returns false when there is none. Already touching (exact test): t = 0.
/// Solved in closed form: the centre reaching the lines offset by r (projection inside the segment) and the
/// quadratics of the two endpoint caps.
bool lsTimeOfImpactCircleSegment(lsVec2 c0, lsVec2 c1, double radius, const lsSegment* segment, double* t);
/// Same against a segment whose endpoints move p0->p1 and q0->q1 over the step: the endpoint caps are quadratics
/// in t, the interior the quartic cross(q - p, c - p)^2 = r^2 |q - p|^2 with the projection inside the segment,
/// whose roots are isolated between the roots of its derivatives and bracketed (bounded iterations). A tangent
/// touch counts within rounding of the quartic's terms.
bool lsTimeOfImpactCircleMovingSegment(lsVec2 c0, lsVec2 c1, double radius, lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1,
                                       double* t);

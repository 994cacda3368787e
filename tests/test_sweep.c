// Tests of sweep.c: a moving point against a moving segment, and the time of first contact of a moving circle with
// a static or moving segment. Hand cases for every degenerate situation, then randomized comparisons against slow
// references (sampling and bisection, conservative advancement in long double) from fixed seeds.
#include "test.h"

#include "core/geometry.h"

#include <float.h>

// ---------------------------------------------------------------------------------------------------------------------
// Hand cases

static int SweepHandTest(void)
{
    lsSweepHit hits[2];
    // A point crossing a static segment.
    int n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 1), lsV(1, -1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5 && hits[0].point.x == 1.0 && hits[0].point.y == 0.0);
    // Missing it (passes beyond the end), and parallel to it.
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(3, 1), lsV(3, -1), hits) == 0);
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 1), lsV(2, 1), hits) == 0);
    // Through an endpoint exactly (closed segment).
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(2, 1), lsV(2, -1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 1.0);
    // Starting and ending on the segment.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 0), lsV(1, 3), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.5);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(1, 3), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 1.0 && hits[0].s == 0.5);
    // Moving along the segment's line: the first time it is on the closed segment; never on it; already on it.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(-1, 0), lsV(3, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.25 && hits[0].s == 0.0);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(7, 0), lsV(-1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.625 && hits[0].s == 1.0);
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(3, 0), lsV(5, 0), hits) == 0);
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0.5, 0), lsV(5, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.25);
    // The segment moving along its own line onto a static point.
    n = lsSweepPointSegment(lsV(-4, 0), lsV(0, 0), lsV(-2, 0), lsV(2, 0), lsV(1, 0), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.75 && hits[0].s == 1.0);
    // A double root: the rotating segment p = 0, q = (1, 2t - 1) touches the point (1.5 - 2t, t - 0.5) at t = 0.5
    // (cross = -(2t - 1)^2), reported once.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(1, -1), lsV(1, 1), lsV(1.5, -0.5), lsV(-0.5, 0.5), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5);
    // Two roots, one of them off the segment: q = (2, 4t - 2), point (1 - 2t, -0.25): cross = 2 (2t - 1)^2 - 0.5.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(2, -2), lsV(2, 2), lsV(1, -0.25), lsV(-1, -0.25), hits);
    ENSURE(n == 1 && hits[0].t == 0.25 && hits[0].s == 0.25);
    // A swinging segment p = 0, q = (4t - 2, 2) sweeping over the static point (1, 1.5): cross = 6t - 5.
    n = lsSweepPointSegment(lsV(0, 0), lsV(0, 0), lsV(-2, 2), lsV(2, 2), lsV(1, 1.5), lsV(1, 1.5), hits);
    ENSURE(n == 1);
    ENSURE_SMALL(hits[0].t - 5.0 / 6.0, 1e-15);
    ENSURE_SMALL(hits[0].s - 0.75, 1e-15);
    // Zero-length segment: a point; hit only when the moving point passes exactly through it.
    n = lsSweepPointSegment(lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(0, 0), lsV(2, 2), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.0);
    ENSURE(lsSweepPointSegment(lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(1, 1), lsV(0, 0.1), lsV(2, 2.1), hits) == 0);
    // The segment shrinks to a point at t = 0.5 (a root of the cross product) far from the moving point: no hit.
    ENSURE(lsSweepPointSegment(lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 0), lsV(5, 5), lsV(5, 5), hits) == 0);
    // ... and at the point itself: a hit.
    n = lsSweepPointSegment(lsV(0, 0), lsV(2, 0), lsV(2, 0), lsV(0, 0), lsV(1, 0), lsV(1, 0), hits);
    ENSURE(n == 1 && hits[0].t == 0.0 && hits[0].s == 0.5);
    // Huge coordinates.
    n = lsSweepPointSegment(lsV(1e4, 1e4), lsV(1e4, 1e4), lsV(1e4 + 2, 1e4), lsV(1e4 + 2, 1e4), lsV(1e4 + 1, 1e4 + 1),
                            lsV(1e4 + 1, 1e4 - 1), hits);
    ENSURE(n == 1 && hits[0].t == 0.5 && hits[0].s == 0.5);
    return 0;
}

static int TimeOfImpactHandTest(void)
{
    lsSegment floor = {{-1, 0}, {1, 0}};
    double t = -1.0;
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, -2), 0.5, &floor, &t) && t == 0.375);
    // End cap: moving along the segment's line onto its end.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(2, 0), lsV(0, 0), 0.5, &floor, &t) && t == 0.25);
    // Cap at an angle: centre passes (1.3, y): contact when the distance to (1, 0) is 0.5, y = 0.4.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(1.3, 2), lsV(1.3, -2), 0.5, &floor, &t));
    ENSURE_SMALL(t - 0.4, 1e-15);
    // Passing by, already touching, tangent touch at the end of the step, not moving.
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(3, 2), lsV(3, -2), 0.5, &floor, &t));
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 0.5), lsV(0, 3), 0.5, &floor, &t) && t == 0.0);
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, 0.5), 0.5, &floor, &t) && t == 1.0);
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(0, 2), lsV(0, 2), 0.5, &floor, &t));
    // Grazing: moving parallel at exactly the radius touches where the segment starts (a tangent double root of the
    // cap's quadratic, x = -1); a hair further never touches.
    ENSURE(lsTimeOfImpactCircleSegment(lsV(-3, 0.5), lsV(3, 0.5), 0.5, &floor, &t));
    ENSURE_SMALL(t - 1.0 / 3.0, 1e-15);
    ENSURE(!lsTimeOfImpactCircleSegment(lsV(-3, 0.5000001), lsV(3, 0.5000001), 0.5, &floor, &t));
    // Zero-length segment (a point obstacle) and radius 0 (a moving point).
    lsSegment dot = {{0, 0}, {0, 0}};
    ENSURE(lsTimeOfImpactCircleSegment(lsV(-2, 0), lsV(2, 0), 1.0, &dot, &t) && t == 0.25);
    ENSURE(lsTimeOfImpactCircleSegment(lsV(0, 1), lsV(0, -1), 0.0, &floor, &t) && t == 0.5);
    // Far away.
    lsSegment far = {{1e4 - 1, 1e4}, {1e4 + 1, 1e4}};
    ENSURE(lsTimeOfImpactCircleSegment(lsV(1e4, 1e4 + 2), lsV(1e4, 1e4 - 2), 0.5, &far, &t) && t == 0.375);

    // Moving segment: a wall sliding down onto a static circle, contact when the wall is at y = 0.5.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, 0), lsV(0, 0), 0.5, lsV(-1, 1), lsV(-1, -1), lsV(1, 1),
                                             lsV(1, -1), &t));
    ENSURE_SMALL(t - 0.25, 1e-12);
    // Both moving towards each other.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, -1), lsV(0, 1), 0.5, lsV(-1, 1), lsV(-1, -1), lsV(1, 1),
                                             lsV(1, -1), &t));
    ENSURE_SMALL(t - 0.25 * 1.5, 1e-12);
    // A zero-length moving segment (a moving point).
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, 0), lsV(0, 0), 1.0, lsV(3, 0), lsV(-3, 0), lsV(3, 0), lsV(-3, 0),
                                             &t));
    ENSURE_SMALL(t - 1.0 / 3.0, 1e-15);
    // A rotating segment sweeping past: p fixed at the origin, q swinging from (2, -2) to (2, 2); circle at (1.5, 0).
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(1.5, 0), lsV(1.5, 0), 0.25, lsV(0, 0), lsV(0, 0), lsV(2, -2),
                                             lsV(2, 2), &t));
    ENSURE(t > 0.0 && t < 0.5);
    // At that time the distance from the centre to the segment is the radius.
    lsSegment at = {{0, 0}, {2, -2 + 4 * t}};
    ENSURE_SMALL(lsClosestPointOnSegment(&at, lsV(1.5, 0)).distance - 0.25, 1e-12);
    // Already touching; moving apart; never touching.
    ENSURE(lsTimeOfImpactCircleMovingSegment(lsV(0, 0.5), lsV(0, 3), 0.5, lsV(-1, 0), lsV(-1, 0), lsV(1, 0),
                                             lsV(1, 0), &t) &&
           t == 0.0);
    ENSURE(!lsTimeOfImpactCircleMovingSegment(lsV(0, 1), lsV(0, 3), 0.5, lsV(-1, 0), lsV(-1, -1), lsV(1, 0),
                                              lsV(1, -1), &t));
    return 0;
}

int SweepTest(void)
{
    RUN_SUBTEST(SweepHandTest);
    RUN_SUBTEST(TimeOfImpactHandTest);
    return 0;
}

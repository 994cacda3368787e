// lidarsim core (private): the robot's building blocks, pure functions the step is made of: kinematics
// (robot.c) and moving a circle or a convex polygon with continuous collision. Declared apart from the public
// sim.h so tests can check them alone.
#pragma once

#include "lidarsim/sim.h"

/// Moves a speed towards its command by at most maxAccel * dt, then clamps it to [-maxSpeed, maxSpeed].
double lsApproachSpeed(double speed, double command, double maxSpeed, double maxAccel, double dt);
/// Differential-drive motion at constant (v, w) for dt seconds, integrated exactly: a straight line when w == 0,
/// else an arc of radius v / w. Writes the new position and heading (wrapped into (-pi, pi]).
void lsIntegrateUnicycle(lsVec2 position, double angle, double v, double w, double dt, lsVec2* newPosition,
                         double* newAngle);

/// Gap kept between a moving body and what it touches, metres: bodies stop this far short of contact, so a body
/// that ends a step "in contact" is still separated, and rounding never turns contact into overlap.
#define LS_CONTACT_SKIN 1e-6

/// What a moving circle collides with over one step: the scene's static walls, boxes and polygons, the moving walls
/// (their segments at the start and at the end of the step, interpolated linearly in between) and other circles
/// (static for this sweep). Any pointer may be NULL with a zero count.
typedef struct lsCollisionWorld
{
    const lsScene* scene;
    const lsSegment* moversStart;
    const lsSegment* moversEnd;
    int moverCount;
    const lsCircle* circles;
    int circleCount;
    int skipCircle; ///< index of a circle to ignore (the mover itself), -1 for none
} lsCollisionWorld;

/// Result of moving a circle.
typedef struct lsMoveResult
{
    lsVec2 position; ///< where the centre ended
    lsVec2 legs[6];  ///< the centre's path: legs[0] the start, legs[legCount - 1] the end (for sweeping targets)
    int legCount;
    int contacts;      ///< contacts met during the move (first times of impact and pushes by moving walls)
    lsVec2 lastNormal; ///< unit normal of the last contact, pointing away from the obstacle ((0, 0) when none)
    bool crushed;      ///< no free place was near, or none was reached (a moving wall's push blocked by a wall): the
                       ///< body was left overlapping, at the place of least overlap where one was found
} lsMoveResult;

/// Moves a circle of radius from start by displacement over one step with continuous collision: it stops
/// LS_CONTACT_SKIN short of the first time of impact (lsTimeOfImpactCircleSegment / ...MovingSegment against
/// candidates from lsScene_QueryAABB over the swept box, never a loop over all walls), slides along the contact
/// tangent for the remaining time, up to 4 times, and stops in a crease. Then moving walls that reached it push it
/// out (a swept push against static walls only, so it never goes through a wall; another circle does not stop it).
/// Any overlap left with static solids or moving walls (a squeeze into a crease, rounding) is then resolved at
/// once against all of them: the nearest free place (a small quadratic program over the tangent half-planes,
/// re-linearised until it settles), reached by a swept move. When no free place exists (a gap closing narrower than
/// the body) the body goes to the place of least overlap, still swept (never through a wall, never NaN), and
/// crushed is set.
lsMoveResult lsMoveCircle(const lsCollisionWorld* cw, lsVec2 start, lsVec2 displacement, double radius);

/// Moves a convex polygon footprint (count points in the body frame, counter-clockwise) from the pose (start, angle)
/// by displacement while turning by turn radians, with conservative advancement (Mirtich): GJK distances to the
/// candidates bound how far the motion can safely advance, repeated until it is within LS_CONTACT_SKIN of contact;
/// then it slides along the contact for what is left, and residual overlap is resolved by EPA's minimum translation
/// vector. Circles in the collision world are obstacles; moving walls are taken where they are at the end of the
/// step. Writes the final heading to newAngle.
lsMoveResult lsMovePolygon(const lsCollisionWorld* cw, const lsVec2* points, int count, lsVec2 start, double angle,
                           lsVec2 displacement, double turn, double* newAngle);

/// Signed clearance between a circle and everything static and moving in the collision world at the end of the
/// step (the distance from the circle's boundary to the nearest obstacle, negative when overlapping), searching
/// within maxDistance of the boundary (returns maxDistance when nothing is closer). For tests and asserts.
double lsCollisionWorld_Clearance(const lsCollisionWorld* cw, lsVec2 center, double radius, double maxDistance);

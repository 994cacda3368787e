// lidarsim core (private): Reynolds' path following for the vehicles (vehicle.c).
#pragma once

#include "lidarsim/sim.h"

/// Tuning of Reynolds' path following, in the vehicle's own units: distances are maxSpeed times these seconds.
typedef struct lsPathFollowDef
{
    double predictTime;  ///< predict the position maxSpeed * predictTime metres ahead along the velocity (0.5 s)
    double targetTime;   ///< put the target maxSpeed * targetTime metres along the path past the normal point (0.25 s)
    double arriveTime;   ///< open path, "stop": slow down within maxSpeed * arriveTime metres of the end (1 s)
    double responseTime; ///< steering force = (desired velocity - velocity) / responseTime, at most maxForce (0.1 s;
                         ///< the sim uses the step instead when that is longer, so a step never overshoots)
} lsPathFollowDef;

/// The default path-following tuning.
lsPathFollowDef lsDefaultPathFollowDef(void);

/// Reynolds' path following for one vehicle: predicts its position ahead along its velocity, projects that onto
/// every segment of the path (dot product, clamped), takes the nearest normal point, puts the target further along
/// the path in the vehicle's direction (wrapping on closed paths, clamped at the ends of open ones), and returns the
/// steering force (m/s^2, at most maxForce): seek(target) when the predicted point lies outside the radius, else a
/// push along the path up to maxSpeed (so a vehicle at rest gets going). Near the end of an open path it arrives
/// (slows to a stop). Fills state->predicted, normalPoint, target and seeking; reads position, velocity, direction.
lsVec2 lsVehicle_PathForce(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                           lsVehicleState* state);

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
    double stepTime;     ///< the sim's step (1/60 s; the sim sets its dt): how far the vehicle can get along the path
                         ///< between two calls, so its progress is looked for no farther than it could have gone
} lsPathFollowDef;

/// The default path-following tuning.
lsPathFollowDef lsDefaultPathFollowDef(void);

/// Reynolds' path following for one vehicle, in the order of the path: first its progress (the nearest point of the
/// path to the vehicle within a window about the previous progress, about what it can travel in a step and the
/// path's radius either way; when the vehicle is farther than lsVehicle_LostDistance from that window, the whole
/// path's nearest point if that is nearer by more than the path's radius). When state->tracking is false (a new
/// run, an edited path) it picks the path up afresh: of the segments within the path's radius of it, the point
/// nearest state->progress in arc length (0 at the start: the leg it meets first), else the nearest point. Then it
/// predicts its position ahead along its velocity, projects that onto the segments within a window from the progress
/// (twice the prediction ahead, the prediction behind; dot product, clamped), takes the nearest normal point there
/// (farthest along of equally near ones, so legs lying on each other are told apart by the order), puts the target
/// further along the path in the vehicle's direction (wrapping on closed paths, clamped at the ends of open ones),
/// and returns the steering force (m/s^2, at most maxForce): seek(target) when the predicted point lies outside the
/// radius, else a push along the path up to maxSpeed (so a vehicle at rest gets going). Near the end of an open path
/// it arrives (slows to a stop). Fills state->progress, tracking, predicted, normalPoint, target and seeking; reads
/// position, velocity, direction.
lsVec2 lsVehicle_PathForce(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                           lsVehicleState* state);

/// How far from the window about its progress a vehicle counts as lost, so that it takes the nearest point of the
/// whole path instead (metres): the path's radius, the prediction and the turning radius maxSpeed^2/maxForce
/// together, beyond the swing of a vehicle that follows the path (one that cannot turn as tight as the path
/// overshoots a hairpin by about its turning radius).
double lsVehicle_LostDistance(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning);

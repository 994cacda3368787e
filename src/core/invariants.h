// lidarsim core: invariants of a running simulation, checked by the soak run (tools/soak.c) and SoakTest.
// What must hold after every step, whatever the world and the controls:
// - no NaN or infinity in any state: time, robot (pose, speeds, footprint), targets, vehicles, moving walls,
//   score and distance, and no NaN in the latest scan (a range of INFINITY is "no return", which is allowed);
// - no robot overlaps a solid: wall segments, moving walls, boxes and polygons. Overlap is measured with
//   GJK/EPA (distance.h): a penetration deeper than LS_INVARIANT_OVERLAP_TOLERANCE fails (the sim keeps a skin of
//   LS_CONTACT_SKIN, so a touching robot is still legal); no two robots' footprints overlap;
// - every vehicle's centre lies within lsWorld_Bounds grown by the vehicle's radius plus its path's radius
//   (Reynolds' path following lets the body swing up to the path's radius off the path's points, which bound it).
#pragma once

#include "lidarsim/sim.h"

/// Penetration depth (metres) still accepted between the robot and a solid: rounding in the contact solver leaves
/// overlaps of a few ulps, far below this.
#define LS_INVARIANT_OVERLAP_TOLERANCE 1e-6

/// Checks the sim's current state. Returns true when every invariant holds; otherwise false with err naming the
/// first broken one ("robot overlaps wall 3 segment 1 by 2.5e-03 m", "vehicle 2 position is NaN", ...).
/// Costs one GJK query per solid near the robot (found through the scene's index) plus one per moving wall.
bool lsSim_CheckInvariants(const lsSim* sim, lsError* err);

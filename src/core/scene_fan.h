// lidarsim core (private): the beams of a scan cast together through the scene's grid (scene_fan.c), for the lidar.
#pragma once

#include "core/beam_runs.h"

/// The most beams one call sweeps: a 1080-beam scan (270 degrees at a quarter of a degree) sweeps the grid once.
#define LS_FAN_MAX_BEAMS 1080

/// Casts beams first .. first + count - 1 of fan through the static objects of scene (no moving objects), as
/// lsScene_CastRay casts inputs[k] (beam first + k), bit for bit: inputs[k] must start at fan->origin with
/// maxFraction fan->range and point along the unit direction of the beam's angle, fan->start + (first + k)
/// fan->increment (lsDirection of it, give or take a rounding). The grid is swept once, ring of cells by ring of
/// cells outward from the origin's cell, for all the beams: each object met is given the beams that may reach it
/// (lsBeamFan_Segment, lsBeamFan_Disc) and is bounded and cast exactly for those beams only, and a beam is done
/// once its hit is nearer than every cell not yet swept (a sparse grid: its occupied cells only, nearest first, each
/// against the beams that may still reach it). Returns false, with hits undefined, when the fan cannot be
/// swept safely (an origin outside the grid, huge angles, an infinite range, beams over more than a turn: FanRuns
/// finds an object's beams within the first turn, and at its wrap, only): cast the beams one by one then.
bool lsScene_CastFan(const lsScene* scene, const lsBeamFan* fan, int first, const lsRayInput* inputs, int count,
                     lsRayHit* hits);

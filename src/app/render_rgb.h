// lidarsim front end: frames as plain RGB pixels for bindings (the Python package's Env.render), drawn by the same
// lsDrawFrame as the window and `lidarsim render`, offscreen, without a display.
#pragma once

#include "lidarsim/sim.h"

#include <stdint.h>

/// Draws the frame `lidarsim render` would draw of sim (the camera lsInitialCamera picks, the default view; the HUD
/// panel when hud is true, saying whether the autopilot drives as autopilot says: `lidarsim render --autopilot`'s
/// frame when it is set) into rgb: height rows of width * 3 bytes (red, green, blue), top row first. width and
/// height must be in [16, 16384]. Returns false with err filled when they are not or an SDL call fails.
LS_API bool lsRenderRgb(const lsSim* sim, int width, int height, bool hud, bool autopilot, uint8_t* rgb, lsError* err);

// lidarsim front end: the camera, world metres (x right, y up) to screen pixels (x right, y down) and back.
// Pure math, no SDL: the window, the headless renderer, the editor and the tests share it.
// Screen coordinates are pixels from the viewport's top-left corner; pixel (i, j) covers [i, i + 1) x [j, j + 1).
#pragma once

#include "lidarsim/vec.h"

#include <stdbool.h>

/// Zoom limits in pixels per metre: from a 100 km city on one screen to a millimetre per pixel.
#define LS_CAMERA_MIN_ZOOM 1.0e-3
#define LS_CAMERA_MAX_ZOOM 1.0e4

/// A 2D camera: the world point at the viewport's centre and a uniform scale, so aspect is always kept.
typedef struct lsCamera
{
    lsVec2 center; ///< world point (metres) shown at the centre of the viewport
    double zoom;   ///< pixels per metre, in [LS_CAMERA_MIN_ZOOM, LS_CAMERA_MAX_ZOOM]
    int width;     ///< viewport width in pixels, >= 1
    int height;    ///< viewport height in pixels, >= 1
} lsCamera;

/// A part of the viewport in pixels: the area panels leave to the world.
typedef struct lsRect
{
    int x, y, w, h;
} lsRect;

/// A camera for a width x height viewport looking at the origin at 50 pixels per metre.
lsCamera lsMakeCamera(int width, int height);

/// World point (metres) to screen point (pixels, y down).
lsVec2 lsCamera_WorldToScreen(const lsCamera* camera, lsVec2 world);
/// Screen point (pixels, y down) to world point (metres, y up). Inverse of lsCamera_WorldToScreen.
lsVec2 lsCamera_ScreenToWorld(const lsCamera* camera, lsVec2 screen);
/// A world length (metres) in pixels.
static inline double lsCamera_ToPixels(const lsCamera* camera, double metres) { return metres * camera->zoom; }
/// A screen length (pixels) in metres.
static inline double lsCamera_ToMetres(const lsCamera* camera, double pixels) { return pixels / camera->zoom; }

/// The world box the viewport shows (metres), for culling.
lsAABB lsCamera_ViewBounds(const lsCamera* camera);

/// Multiplies the zoom by factor (> 0, clamped to the limits) keeping the world point under screenPoint fixed,
/// so the mouse wheel zooms about the pointer.
void lsCamera_ZoomAt(lsCamera* camera, lsVec2 screenPoint, double factor);
/// Moves the view by a mouse drag of screenDelta pixels (y down): the world follows the pointer.
void lsCamera_Pan(lsCamera* camera, lsVec2 screenDelta);
/// Centres the view on a world point without changing the zoom (follow mode).
void lsCamera_LookAt(lsCamera* camera, lsVec2 world);
/// Shows the whole box with at least marginPixels of border on each side, keeping aspect (uniform scale).
/// An empty or degenerate box is shown as if it were one metre wide.
void lsCamera_Fit(lsCamera* camera, lsAABB bounds, double marginPixels);
/// lsCamera_Fit into a part of the viewport: the box is shown whole inside area (with the margin) and centred in
/// it, so panels beside the area hide none of it.
void lsCamera_FitInto(lsCamera* camera, lsAABB bounds, lsRect area, double marginPixels);
/// Puts a world point at the centre of a part of the viewport, keeping the zoom (follow mode beside panels).
void lsCamera_LookAtIn(lsCamera* camera, lsVec2 world, lsRect area);
/// Changes the viewport size (window resize), keeping the centre and the zoom.
void lsCamera_Resize(lsCamera* camera, int width, int height);

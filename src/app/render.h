// lidarsim front end: drawing the world and the simulation onto any SDL_Renderer with SDL2_gfx.
// The window and `lidarsim render` call the same lsDrawFrame, so a headless PNG shows exactly what the window shows.
// Drawing only reads the sim (const): it never changes the simulation.
#pragma once

#include "app/camera.h"
#include "lidarsim/sim.h"

#include <SDL2/SDL.h>

/// How the lidar's beams are shown (the L key cycles through them in this order).
typedef enum lsBeamMode
{
    ls_beamsAll = 0,  ///< every beam: hits in the colour of what they hit, no-return beams faintly to max range
    ls_beamsHits = 1, ///< only beams that hit something
    ls_beamsOff = 2,  ///< no beams (hit points are still marked)
    ls_beamModeCount = 3,
} lsBeamMode;

/// What the view shows; toggled by keys, never read by the sim.
typedef struct lsViewOptions
{
    lsBeamMode beams; ///< L
    bool grid;        ///< G: the metre grid and the scale bar
    bool steering;    ///< V: each vehicle's predicted point, normal point and target
    bool help;        ///< F1: the help overlay listing every key
    bool hud;         ///< H: the HUD text panel
    bool scanPlot;    ///< the scan plot panel: range against beam angle, like a LaserScan plot
} lsViewOptions;

/// The defaults: all beams, grid, HUD; no steering overlay, no help.
lsViewOptions lsDefaultViewOptions(void);

/// What the HUD prints besides the sim's own state. Strings may be NULL.
typedef struct lsHudInfo
{
    const char* worldName; ///< shown first
    double fps;            ///< frames per second; <= 0 prints "-" (headless)
    double stepMs;         ///< wall time of one lsSim_Step, milliseconds (smoothed); <= 0 prints "-"
    double drawMs;         ///< wall time of drawing one frame, milliseconds (smoothed); <= 0 prints "-"
    double raysPerSecond;  ///< lidar rays cast per wall-clock second; <= 0 prints "-"
    bool paused;
    bool autopilot;
    bool following;     ///< F: the camera follows the robot
    bool editing;       ///< E: the editor is active
    const char* error;  ///< a reload error, shown in red until fixed
    const char* status; ///< a short transient message (e.g. "saved shot.png")
} lsHudInfo;

/// Colours (r, g, b, a) the tests read back from rendered pixels.
typedef struct lsColor
{
    Uint8 r, g, b, a;
} lsColor;

extern const lsColor lsColorBackground; ///< nothing drawn here
extern const lsColor lsColorWall;       ///< static walls
extern const lsColor lsColorHud;        ///< HUD text
extern const lsColor lsColorFood;       ///< food targets, and beams that hit food
extern const lsColor lsColorPoison;     ///< poison targets, and beams that hit poison
extern const lsColor lsColorRobot;      ///< the robot's body
extern const lsColor lsColorHitWall;    ///< beams that hit a wall (drawn with alpha LS_BEAM_ALPHA) and their hit points
extern const lsColor lsColorNoReturn;   ///< beams with no return (translucent, to max range)

/// The alpha of beams from the sensor to their hit: translucent, so 720 overlapping beams read as a fan.
#define LS_BEAM_ALPHA 70

/// The camera a world opens with: the whole world fitted with a margin; but when that would show fewer than
/// LS_MIN_OVERVIEW_ZOOM pixels per metre (a city of 100 000 walls as grey noise), the robot's surroundings instead:
/// centred on it, about three lidar ranges across the shorter side. Home in the window fits the whole world anyway.
lsCamera lsInitialCamera(const lsSim* sim, int width, int height);

/// Below this many pixels per metre a fitted world is unreadable, and lsInitialCamera looks at the robot instead.
#define LS_MIN_OVERVIEW_ZOOM 2.0

/// Draws one whole frame: background, grid, world, sim state, beams, HUD (if hud is not NULL and view->hud) and
/// the help overlay. Only what the camera sees is drawn. Returns false after printing SDL_GetError() when an SDL
/// call fails.
bool lsDrawFrame(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
                 const lsHudInfo* hud);

/// Draws the world and the sim state only (no HUD), for callers that add their own overlays.
bool lsDrawScene(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view);
/// Draws the HUD panel (top-left) and, when view->help, the help overlay.
bool lsDrawHud(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
               const lsHudInfo* hud);

/// The text of the help overlay, one key per line, NULL-terminated (also printed by `lidarsim --help-keys`).
extern const char* const lsHelpLines[];

/// The HUD panel's screen rectangle for the given sim (tests look for text pixels inside it).
SDL_Rect lsHudRect(const lsSim* sim, const lsHudInfo* hud);

/// Makes a software renderer drawing into a new width x height RGBA32 surface, for `lidarsim render` and tests.
/// Returns false (err filled) on failure. Free both with lsDestroyOffscreen.
bool lsCreateOffscreen(int width, int height, SDL_Surface** surface, SDL_Renderer** renderer, lsError* err);
/// Destroys what lsCreateOffscreen made (either may be NULL).
void lsDestroyOffscreen(SDL_Surface* surface, SDL_Renderer* renderer);
/// Destroys a renderer after dropping SDL2_gfx's font cache, whose textures belong to one renderer (a later
/// renderer would otherwise be handed textures of a destroyed one).
void lsDestroyRenderer(SDL_Renderer* renderer);

/// Reads one pixel of an RGBA32 surface (tests).
lsColor lsSurfacePixel(const SDL_Surface* surface, int x, int y);

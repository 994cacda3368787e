// lidarsim front end: drawing the world and the simulation onto the software canvas, anti-aliased (raster.h), with
// TrueType text (font.h). The window and `lidarsim render` call the same lsDrawFrame, so a headless PNG shows
// exactly what the window shows. Drawing only reads the sim (const): it never changes the simulation.
#pragma once

#include "app/camera.h"
#include "app/raster.h"
#include "lidarsim/sim.h"

#include <SDL2/SDL.h>

/// How the lidar's beams are shown (the L key cycles through them in this order).
typedef enum lsBeamMode
{
    ls_beamsAll = 0,    ///< every beam as a line: hits to the hit, no-return beams faintly to max range
    ls_beamsHits = 1,   ///< lines only for beams that hit something
    ls_beamsPoints = 2, ///< no lines: a dot at each hit point (as RViz shows a LaserScan)
    ls_beamsOff = 3,    ///< nothing of the scan
    ls_beamModeCount = 4,
} lsBeamMode;

/// What colours the beams and hit points (the C key switches).
typedef enum lsBeamColoring
{
    ls_colorByKind = 0,      ///< what was hit: wall, solid, food, poison, vehicle, mover
    ls_colorByIntensity = 1, ///< the return's intensity (reflectance * |cos incidence|) on a blue-to-red ramp
} lsBeamColoring;

/// What the L and C keys say they switched to, in the live window and in a replay alike ("lines to hits only",
/// "intensity": shown as "beams: %s" and "beams coloured by %s").
const char* lsBeamModeName(lsBeamMode mode);
const char* lsBeamColoringName(lsBeamColoring coloring);

/// Robot positions the window remembers to draw its trail (a ring: the oldest point is dropped when full).
#define LS_TRAIL_CAPACITY 4096
typedef struct lsTrail
{
    lsVec2 points[LS_TRAIL_CAPACITY];
    int start, count;
} lsTrail;

/// Forgets every point (reset, reload).
void lsTrail_Clear(lsTrail* trail);
/// Adds the robot's position when it moved at least 2 cm from the last point kept (a jump of over 2 m, a reset or
/// a teleport, starts the trail afresh).
void lsTrail_Add(lsTrail* trail, lsVec2 position);

/// What the view shows; toggled by keys, never read by the sim.
typedef struct lsViewOptions
{
    lsBeamMode beams;          ///< L
    lsBeamColoring beamColors; ///< C
    bool grid;                 ///< G: the metre grid and the scale bar
    bool steering;             ///< V: each vehicle's predicted point, normal point and target
    bool help;                 ///< F1: the help overlay listing every key
    bool hud;                  ///< H: the HUD column (state, legend)
    bool scanPlot;             ///< O: the scan plot panel: range against beam angle, like a LaserScan plot
    bool trail;                ///< T: the robot's trail
    bool axes;                 ///< the world frame's axes at the origin (x red, y green)
    bool timeline;             ///< a replay's timeline bar along the bottom (lidarsim replay)
    const lsTrail* trailData;  ///< the trail to draw (the caller's), or NULL
    int robot;                 ///< Tab: the selected robot (index): its scan is drawn in full, it is drawn ringed
    bool fleetBeams;           ///< B: the other robots' scans too, each in its robot's hue (off: the selected one's)

    /// U: the unknown cells of the world's map greyed (when mapShade is given)
    bool unknown;
    /// The unknown cells of the world's map (the caller's, map_shade.h), or NULL.
    const struct lsMapShade* mapShade;
    /// Nonzero: a number the caller changes whenever the drawn world's walls, boxes, polygons or paths may have
    /// changed (the window counts its sim rebuilds), so the cached static layers need no hash of them; 0: they are
    /// hashed every frame (a world of a million walls costs tens of milliseconds to hash).
    uint64_t worldRevision;
} lsViewOptions;

/// The defaults: all beams coloured by kind, every robot's scan, grid, HUD, trail, axes, a map's unknown cells, the
/// first robot selected; no steering overlay, scan plot or help.
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
    bool following;            ///< F: the camera follows the robot
    bool editing;              ///< E: the editor is active
    bool haveCursor;           ///< the pointer is over the canvas: show its world coordinates
    lsVec2 cursor;             ///< the pointer's world position, metres
    bool unsaved;              ///< the world has edits not saved to its file
    double snap;               ///< editing: the grid edits snap to, metres (0: off)
    const char* error;         ///< a reload error or a failed save, shown in red until fixed
    const char* errorTitle;    ///< the banner's first line (NULL: the reload's "reload failed, ...")
    const char* status;        ///< a short transient message (e.g. "saved shot.png"), wrapped to the panel's width
    const char* replay;        ///< a replay's state ("REPLAY  playing  2x"), in place of running/paused and autopilot
    double timeline;           ///< with view->timeline: the replay's position on the bar, 0 (start) .. 1 (end)
    const char* timelineLabel; ///< with view->timeline: drawn at the bar's right end ("3.2 / 10.0 s")
    int robot;                 ///< the selected robot (index; out of range: the first): its pose, speed and score,
                               ///< and its scan in the plot; a fleet's totals are shown too
} lsHudInfo;

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

/// The colour of a hit's intensity in [0, 1] on the beams' blue-to-red ramp (values outside are clamped).
lsColor lsIntensityColor(double intensity);
/// The colour of a beam that hit `kind` (index: the hit object's index, for a target's food or poison).
lsColor lsHitColor(const lsSimState* state, lsHitKind kind, int index);

/// The software canvas the window and `lidarsim render` draw on: an RGBA32 surface, a software SDL renderer on it
/// (for the editor's SDL2_gfx overlay), the rasterizer's scratch and the HUD fonts sized for it.
typedef struct lsCanvas
{
    SDL_Surface* surface;
    SDL_Renderer* renderer;
    lsRaster raster;
    struct lsFont* font;  ///< HUD text, sized for the canvas
    struct lsFont* small; ///< labels (scale bar, plot axes)

    /// The static layers of a still view, reused from frame to frame (render.c).
    struct lsLayerCache* layers;
} lsCanvas;

/// How often lsDrawScene drew the static layers (walls, boxes, polygons, paths, grid, axes, a map's unknown cells)
/// into the cache and how often it reused them (tests, the --frames report).
typedef struct lsLayerStats
{
    long long builds, hits, direct; ///< frames that built the cache, reused it, drew without it
    long long scrolls;              ///< frames that reused it moved by whole pixels (a drag), drawing only the strips
} lsLayerStats;

/// The canvas's layer statistics since it was made.
lsLayerStats lsCanvas_LayerStats(const lsCanvas* canvas);

/// Makes a width x height canvas. NULL with err filled on failure. Free with lsDestroyCanvas.
lsCanvas* lsCreateCanvas(int width, int height, lsError* err);
/// Gives the canvas a new size (the window was resized); the fonts follow. False with err on failure (then the
/// canvas is unusable until a later resize succeeds).
bool lsCanvas_Resize(lsCanvas* canvas, int width, int height, lsError* err);
/// Frees a canvas (NULL allowed).
void lsDestroyCanvas(lsCanvas* canvas);

/// The part of the canvas the world gets: right of the HUD column (when shown) and above the scan plot (when
/// shown). The camera fits the world into it, so no panel hides the world.
lsRect lsWorldArea(const lsCanvas* canvas, const lsViewOptions* view);

/// The camera a world opens with: the whole world fitted into area with a margin; but when that would show fewer
/// than LS_MIN_OVERVIEW_ZOOM pixels per metre (a city of 100 000 walls as grey noise), the robot's surroundings
/// instead: centred on it, about three lidar ranges across the shorter side. Home in the window fits the whole
/// world anyway.
lsCamera lsInitialCamera(const lsSim* sim, int width, int height, lsRect area);

/// Below this many pixels per metre a fitted world is unreadable, and lsInitialCamera looks at the robot instead.
#define LS_MIN_OVERVIEW_ZOOM 2.0

/// Draws one whole frame: background, grid, world, sim state, beams, trail, then the panels (if hud is not NULL):
/// the HUD column when view->hud, the scan plot when view->scanPlot, the help overlay when view->help. Only what
/// the camera sees is drawn. What does not move (the background with a map's unknown cells, grid, axes, paths,
/// boxes and polygons; and the static walls, kept as coverage and laid over the beams as they are drawn) is kept
/// in the canvas once the same view is drawn twice in a row, and reused while the camera, the canvas size, those
/// options and the world's static objects stay the same (an edit or a reload changes the world, so nobody has to
/// say so). Returns false after printing the reason when an SDL call fails.
bool lsDrawFrame(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
                 const lsHudInfo* hud);

/// Draws the world and the sim state only (no panels), for callers that add their own overlays.
bool lsDrawScene(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view);
/// Draws the panels: the HUD column (state, legend), the scan plot, the reload error banner and the help overlay.
bool lsDrawHud(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
               const lsHudInfo* hud);

/// The text of the help overlay, one key per line, NULL-terminated.
extern const char* const lsHelpLines[];
/// The help overlay of a replay (hud->replay set): its own keys.
extern const char* const lsReplayHelpLines[];

/// The HUD panel's screen rectangle (tests look for text pixels inside it).
lsRect lsHudRect(const lsCanvas* canvas, const lsSim* sim, const lsHudInfo* hud);
/// The scan plot panel's screen rectangle.
lsRect lsScanPlotRect(const lsCanvas* canvas, const lsViewOptions* view);
/// The timeline bar's screen rectangle (view->timeline).
lsRect lsTimelineRect(const lsCanvas* canvas, const lsViewOptions* view);
/// The x range of the bar's track in pixels: position 0 is drawn at x0, 1 at x1 (a click at x seeks there).
void lsTimelineTrack(const lsCanvas* canvas, const lsViewOptions* view, double* x0, double* x1);

/// Destroys a renderer after dropping SDL2_gfx's font cache, whose textures belong to one renderer (a later
/// renderer would otherwise be handed textures of a destroyed one).
void lsDestroyRenderer(SDL_Renderer* renderer);

/// Reads one pixel of an RGBA32 surface (tests).
lsColor lsSurfacePixel(const SDL_Surface* surface, int x, int y);

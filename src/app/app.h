// lidarsim front end: the window's state and the pieces of its loop (app.c: Init, Update, Draw, Shutdown;
// input.c: events to commands; screenshot.c: PNG files). Internal to src/app.
#pragma once

#include "app/camera.h"
#include "app/editor.h"
#include "app/frontend.h"
#include "app/render.h"
#include "core/reload.h"
#include "lidarsim/sim.h"

#include <SDL2/SDL.h>

/// How many runs of removed robots the window keeps for undo (lsRobotRun, about 1.5 KB each).
#define LS_APP_RUNS 16

/// The window's state: the world and sim it shows, the view, and the loop's clocks and counters.
typedef struct lsApp
{
    lsAppConfig config;
    SDL_Window* window;
    SDL_Renderer* renderer; ///< the window's renderer: only copies the canvas to the screen
    SDL_Texture* texture;   ///< streaming texture the canvas is uploaded to each frame
    lsCanvas* canvas;       ///< the software canvas the frame is drawn on, window-sized (as `lidarsim render`)
    lsTrail* trail;         ///< the robot's recent positions (T shows them)
    lsWorld* world;         ///< owned; what the window shows, edited in place by the editor
    lsWorld* simWorld;      ///< owned; the copy of world the sim was made from (kept unchanged while it runs, so
                            ///< after an edit the carry-over can compare the world before and after)
    lsSim* sim;             ///< owned, created from simWorld
    lsWorld* diskWorld;     ///< owned; the world the file holds (loaded or last saved): unsaved = differs
    char* diskText;         ///< owned (lsFreeString); the file's text, which a save keeps as written
    bool unsaved;           ///< world differs from diskWorld (window title and HUD say so; quitting asks)
    double quitArmedUntil;  ///< no message box could be shown: a second quit before this time discards
    lsReloader* reloader;
    lsEditor* editor;
    lsCamera camera;
    lsViewOptions view;
    bool paused, autopilot, follow;
    int selected; ///< Tab: the robot the keys drive and F follows (index into the sim's robots)
    char selectedId[LS_ROBOT_ID_CAPACITY]; ///< its id: a rebuilt sim (an edit, a reload) selects it again by id
    int stepPresses;                       ///< N presses while paused not yet stepped: one step each
    int screenshots;                       ///< F12 presses not yet saved: each saves the next frame as a PNG
    bool quit;
    bool simStale;    ///< the editor changed the world: rebuild the sim before the next step, draw or command
    bool restoreRuns; ///< among the changes, an undo or redo: robots it brings back resume their run (runs)
    bool redoGone;    ///< among the changes, a new edit: it cleared the redo history (runs[i] redoOnly go)
    bool lastUndo;    ///< the last change was an undo: robots it removes can come back by a redo only
    /// Owned; the runs of robots that changes of the world removed, newest first: an undone deletion brings the
    /// robot back where it was (lsSim_CarryOverFrom). A run taken over goes, as do all on a reload from disk, on R,
    /// and those of robots an undo removed (redoOnly) once a new edit clears the redo history.
    lsRobotRun* runs[LS_APP_RUNS];
    bool runRedoOnly[LS_APP_RUNS];
    int runCount;
    int beamsOverride;    ///< beams chosen with --beams or +/- (kept across reloads and edits); 0: the world's
    bool panning;         ///< a drag is moving the camera
    bool cameraFitted;    ///< the camera is as a fit left it (no zoom or pan since): panels shown or hidden refit it
    bool haveCursor;      ///< the pointer is in the window (its world position goes to the HUD)
    int cursorX, cursorY; ///< the pointer, window pixels
    double accumulator;   ///< real seconds not yet simulated
    char status[160];     ///< transient HUD message
    char saveError[160];  ///< the last failed save's message: the error banner shows it (whatever the HUD does)
                          ///< until a save succeeds or nothing is left unsaved
    double statusUntil;   ///< seconds (app clock) when the message disappears

    // Timing (seconds on the app clock) and counters for the HUD and --frames.
    Uint64 clockStart;
    double stepMsAvg, drawMsAvg, fps, raysPerSecond;
    double secondStart;
    int framesThisSecond;
    long long raysThisSecond;
    long long frames, steps;
    double simSeconds, drawSeconds, presentSeconds; ///< totals for the --frames report (draw includes present)

    /// Owned; the unknown cells of the world's map (U greys them), NULL when it has none.
    struct lsMapShade* shade;
} lsApp;

/// Seconds since the app started (the front end's clock; the core never reads one).
double lsApp_Now(const lsApp* app);
/// Shows a message in the HUD for a few seconds (also printed to stdout).
void lsApp_SetStatus(lsApp* app, const char* format, ...) __attribute__((format(printf, 2, 3)));
/// Drops the runs kept for undoing robots' deletions (app->runs).
void lsApp_ClearRuns(lsApp* app);
/// Replaces the sim with a new one built from app->world (after an edit or a reload), keeping the beam override,
/// and clears simStale.
void lsApp_RebuildSim(lsApp* app);
/// Recomputes `unsaved` (world against diskWorld) and the window title ("lidarsim - NAME *" while unsaved).
void lsApp_UpdateUnsaved(lsApp* app);
/// Saves world to its file, keeping the file's text for what did not change (lsSaveWorldKeepingText), and tells
/// the reloader. Returns false (status message says why) when the save failed; the file is then untouched.
bool lsApp_Save(lsApp* app);
/// Q, Esc, closing the window: quits at once when nothing is unsaved, else asks (save, discard, cancel).
void lsApp_RequestQuit(lsApp* app);
/// Frames the world in the part of the window the panels leave free.
void lsApp_FitCamera(lsApp* app);
/// The world was loaded or reloaded from disk: read its map's unknown cells again (the image may have changed).
void lsApp_LoadMapShade(lsApp* app);
/// The robot's pose was set anew (reset, reload): forget its trail.
void lsApp_RobotMoved(lsApp* app);
/// Selects the robot with this id (the keys drive it, F follows it, the HUD shows it); its trail starts afresh and,
/// when it is another robot, the autopilot (P) is on exactly when its controller in the file is "autopilot". An id
/// not in the sim's world (an edit not yet simulated) is kept and resolved when the sim is rebuilt.
void lsApp_SelectRobot(lsApp* app, const char* id);

/// Handles one SDL event: the editor first (when it consumes the event, nothing else sees it), then window keys,
/// wheel zoom, drag pan, resize, quit.
void lsApp_HandleEvent(lsApp* app, const SDL_Event* event);
/// The control for the next step: the autopilot, or manual driving from the arrow keys / WASD held now.
lsControl lsApp_Control(lsApp* app);

/// Tab / Shift+Tab in a fleet, shared by the window and the replay: the robot after `selected` among the world's
/// (before it when `backwards`), wrapping round; its description goes to words ("robot 3 of 8: amr2 (autopilot in
/// the file)") for the status line.
int lsNextRobot(const lsWorld* world, int selected, bool backwards, char* words, size_t capacity);
/// B in a fleet, shared by the window and the replay: shows or hides the other robots' scans (the selected robot's
/// is always drawn). Returns what the status line says.
const char* lsToggleFleetBeams(lsViewOptions* view);

/// SDL_Init(SDL_INIT_VIDEO) on a display to open a window on: DISPLAY or WAYLAND_DISPLAY set and reachable, or an
/// explicit SDL_VIDEODRIVER. False when there is none (the caller still calls SDL_Quit).
bool lsInitVideo(void);
/// Opens a resizable window and its renderer (accelerated, else software). False after printing SDL's error.
bool lsOpenWindow(const char* title, int width, int height, bool vsync, SDL_Window** window, SDL_Renderer** renderer);
/// Makes or resizes the canvas and the streaming texture that carries it to the window. False after printing why.
bool lsResizeCanvasTexture(SDL_Renderer* renderer, lsCanvas** canvas, SDL_Texture** texture, int width, int height);
/// Uploads the canvas and presents it. False after printing SDL's error.
bool lsPresentCanvas(SDL_Renderer* renderer, SDL_Texture* texture, const lsCanvas* canvas);

/// `lidarsim render REC.jsonl -o F`: lsRenderImage for a recording (replay.c): a GIF of its steps or a still.
int lsRenderRecording(const lsRenderConfig* config);

/// Writes a surface as PNG or JPEG, by the path's extension (lsImageTypeOf). Returns false with err filled on
/// failure (an unknown extension included).
bool lsSaveSurfaceImage(SDL_Surface* surface, const char* path, lsError* err);
/// Writes an F12 screenshot as "<dir>/<world stem>-YYYYMMDD-HHMMSS.png" for the local time `when` (dir NULL or
/// empty: the current directory; created when missing), adding "-2", "-3", ... rather than replacing a file (each
/// name claimed with O_EXCL before the image is written, so shots racing for a name each get one of their own).
/// The path written goes to path (capacity bytes). Returns false with err filled on failure.
bool lsSaveScreenshot(SDL_Surface* surface, const char* dir, const char* worldPath, long long when, char* path,
                      size_t capacity, lsError* err);

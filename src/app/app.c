// lidarsim front end: the window (`lidarsim [WORLD.json]`) and the headless renderer (`lidarsim render`).
// The window is a thin layer over the core: Init, then per frame Update (events, hot reload, fixed steps from a
// real-time accumulator) and Draw (the same lsDrawFrame as `lidarsim render`), then Shutdown. SDL_Quit runs last
// on every path.
#include "app/app.h"

#include "app/gif.h"
#include "app/map_shade.h"
#include "core/file_write.h"
#include "core/recording.h"
#include "core/world_text.h"
#include "lidarsim/lidar.h"
#include "lidarsim/map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Longest real time one frame may simulate: after a stall (a breakpoint, a huge world) the sim falls behind real
/// time instead of trying to catch up, which would make the next frame slower still (the spiral of death).
#define LS_MAX_FRAME_SECONDS 0.1
/// Wall-clock budget for stepping in one frame, seconds; the backlog beyond it is dropped.
#define LS_STEP_BUDGET_SECONDS 0.05

static const char s_noDisplay[] =
    "lidarsim: no display to open a window on (DISPLAY and WAYLAND_DISPLAY unset or unusable); "
    "use `lidarsim render WORLD.json -o frame.png` to draw a PNG or `lidarsim run WORLD.json --steps N` to simulate";

// ---------------------------------------------------------------------------------------------------------------------
// Shared helpers

double lsApp_Now(const lsApp* app)
{
    return (double)(SDL_GetPerformanceCounter() - app->clockStart) / (double)SDL_GetPerformanceFrequency();
}

void lsApp_SetStatus(lsApp* app, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    // clang-tidy 14's va_list checker carries state over from the file analysed before this one (as in map.c).
    vsnprintf(app->status, sizeof app->status, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    // Statuses name files, worlds and robots, which may hold control characters: escaped for the HUD and stdout.
    lsEscapeControl(app->status, sizeof app->status);
    app->statusUntil = lsApp_Now(app) + 4.0;
    printf("lidarsim: %s\n", app->status);
    // Now, not at exit: whoever follows stdout (a log, a script waiting for a key's answer) sees it as it happens.
    fflush(stdout);
}

static void ApplyBeams(lsSim* sim, int beams)
{
    if (beams > 0 && lsSim_GetBeams(sim) != beams)
        lsSim_SetBeams(sim, beams);
}

void lsApp_ClearRuns(lsApp* app)
{
    for (int i = 0; i < app->runCount; ++i)
        lsDestroyRobotRun(app->runs[i]);
    app->runCount = 0;
}

// Drops run i where drop[i]; the others keep their order.
static void DropRuns(lsApp* app, const bool* drop)
{
    int kept = 0;
    for (int i = 0; i < app->runCount; ++i)
    {
        if (drop[i])
        {
            lsDestroyRobotRun(app->runs[i]);
            continue;
        }
        app->runs[kept] = app->runs[i];
        app->runRedoOnly[kept] = app->runRedoOnly[i];
        kept += 1;
    }
    app->runCount = kept;
}

// Keeps the run of robot i of sim, newest first (the oldest dropped when full).
static void KeepRun(lsApp* app, const lsSim* sim, int i, bool redoOnly)
{
    if (app->runCount == LS_APP_RUNS)
    {
        app->runCount -= 1;
        lsDestroyRobotRun(app->runs[app->runCount]);
    }
    memmove(app->runs + 1, app->runs, (size_t)app->runCount * sizeof(lsRobotRun*));
    memmove(app->runRedoOnly + 1, app->runRedoOnly, (size_t)app->runCount * sizeof(bool));
    app->runs[0] = lsCreateRobotRun(sim, i);
    app->runRedoOnly[0] = redoOnly;
    app->runCount += 1;
}

void lsApp_RebuildSim(lsApp* app)
{
    // The sim runs on its own copy of the world: the editor changes app->world in place, and the carry-over needs
    // the world the old sim was made from to tell what the edit touched.
    lsWorld* copy = lsCloneWorld(app->world);
    lsSim* fresh = lsCreateSim(copy);
    if (app->redoGone)
    {
        bool redoOnly[LS_APP_RUNS];
        memcpy(redoOnly, app->runRedoOnly, sizeof redoOnly);
        DropRuns(app, redoOnly);
    }
    if (app->sim != NULL)
    {
        // An undo or redo that brings a removed robot back resumes its run; a run taken over is spent (a later
        // removal keeps a newer one).
        const lsRobotRun* const* runs = (const lsRobotRun* const*)app->runs;
        bool used[LS_APP_RUNS];
        int offered = app->restoreRuns ? app->runCount : 0;
        lsSim_CarryOverFrom(fresh, app->sim, runs, offered, used);
        if (offered > 0)
            DropRuns(app, used);
        // The runs of the robots this change removes, kept for an undo (or, removed by an undo, a redo) of it.
        const lsWorld* was = lsSim_GetWorld(app->sim);
        for (int i = 0; i < lsWorld_RobotCount(was); ++i)
        {
            if (lsWorld_FindRobot(copy, lsWorld_GetRobot(was, i)->id) < 0)
                KeepRun(app, app->sim, i, app->lastUndo);
        }
    }
    app->restoreRuns = false;
    app->redoGone = false;
    app->lastUndo = false;
    ApplyBeams(fresh, app->beamsOverride);
    lsDestroySim(app->sim);
    lsDestroyWorld(app->simWorld);
    app->sim = fresh;
    app->simWorld = copy;
    app->simStale = false;
    // Robot indices change when robots are added or removed; the selection follows its id (a removed robot: the
    // first one).
    int selected = lsWorld_FindRobot(copy, app->selectedId);
    if (selected < 0)
    {
        selected = 0;
        snprintf(app->selectedId, sizeof app->selectedId, "%s", copy->robot.id);
    }
    if (selected != app->selected)
        lsTrail_Clear(app->trail);
    app->selected = selected;
    // The drawn world is the sim's: only here does it change, so the cached static layers go by this count.
    app->view.worldRevision += 1;
}

void lsApp_SelectRobot(lsApp* app, const char* id)
{
    // Another robot: P's autopilot starts as its controller in the file says, so selecting an autopilot robot
    // does not stop it and selecting a manual one does not set it driving (the arrows take over either way).
    int defined = lsWorld_FindRobot(app->world, id);
    if (defined >= 0 && strcmp(app->selectedId, id) != 0)
        app->autopilot = lsWorld_GetRobot(app->world, defined)->controller == ls_controllerAutopilot;
    snprintf(app->selectedId, sizeof app->selectedId, "%s", id);
    int index = app->simStale ? -1 : lsWorld_FindRobot(lsSim_GetWorld(app->sim), id);
    if (index >= 0 && index != app->selected)
    {
        app->selected = index;
        lsTrail_Clear(app->trail);
    }
}

// The window's title: the world's name (else its path), with a star while it has unsaved edits.
static void WindowTitle(const lsApp* app, char* title, size_t size)
{
    snprintf(title, size, "lidarsim - %.200s%s", app->world->name[0] != '\0' ? app->world->name : app->config.worldPath,
             app->unsaved ? " *" : "");
    lsEscapeControl(title, size);
}

void lsApp_UpdateUnsaved(lsApp* app)
{
    app->unsaved = app->diskWorld != NULL && !lsWorld_Equal(app->world, app->diskWorld);
    if (!app->unsaved)
        app->saveError[0] = '\0'; // saved since, or the edits undone: nothing is at stake
    if (app->window == NULL)
        return;
    char title[256];
    WindowTitle(app, title, sizeof title);
    // Against the title shown, not the last `unsaved`: a reload that renames the world renames the window. Set only
    // when it changes (every edit of a drag comes here).
    if (strcmp(SDL_GetWindowTitle(app->window), title) != 0)
        SDL_SetWindowTitle(app->window, title);
}

// The file now holds `world` as `text` (just loaded or saved): the base of the next save and of `unsaved`.
static void SetDiskVersion(lsApp* app, const lsWorld* world, const char* text)
{
    lsDestroyWorld(app->diskWorld);
    lsFreeString(app->diskText);
    app->diskWorld = lsCloneWorld(world);
    app->diskText = text != NULL ? lsStrdup(text) : NULL;
    lsApp_UpdateUnsaved(app);
}

// The world file that a map YAML's edits are saved to: beside it, named like it ("maps/office.yaml" ->
// "maps/office.json"). False when the name does not fit.
static bool MapWorldPath(const char* yamlPath, char* out, size_t capacity)
{
    const char* dot = strrchr(yamlPath, '.');
    LS_ASSERT(dot != NULL); // lsIsMapPath: the name ends in .yaml or .yml
    int n = snprintf(out, capacity, "%.*s.json", (int)(dot - yamlPath), yamlPath);
    return n > 0 && (size_t)n < capacity;
}

// A save failed with the status just set: with edits at stake, the error banner keeps saying so (a status fades in
// 4 s and is not drawn with the HUD hidden).
static bool SaveFailed(lsApp* app)
{
    if (app->unsaved)
        snprintf(app->saveError, sizeof app->saveError, "%s", app->status);
    return false;
}

bool lsApp_Save(lsApp* app)
{
    lsError err;
    char* text = NULL;
    // A map YAML opened as a world is never saved over (the map would be lost): the edits go to a world file beside
    // it that stands on the map ("map": "office.yaml"), and the window edits and watches that file from then on. An
    // existing file of that name is not replaced.
    char path[sizeof app->config.worldPath];
    bool fromMap = lsIsMapPath(app->config.worldPath);
    if (!fromMap)
    {
        snprintf(path, sizeof path, "%s", app->config.worldPath);
    }
    else if (!MapWorldPath(app->config.worldPath, path, sizeof path))
    {
        lsApp_SetStatus(app, "not saved: the world file's name beside %s is too long", app->config.worldPath);
        return SaveFailed(app);
    }
    else if (lsStatFile(path, &(lsFileStamp){0}, NULL))
    {
        lsApp_SetStatus(app,
                        "not saved: %s is a map, and %s exists already; open that world or move it away, then "
                        "Ctrl+S",
                        app->config.worldPath, path);
        return SaveFailed(app);
    }
    if (!lsSaveWorldKeepingText(app->world, path, app->diskText, app->diskWorld, &text, &err))
    {
        // The message names the file; a failed write or check says "not saved" already ("w.json: not saved (write
        // failed: No space left on device); ..."), the others ("w.json: cannot create a temporary file ...") get it.
        if (strstr(err.message, "not saved") != NULL)
            lsApp_SetStatus(app, "%s", err.message);
        else
            lsApp_SetStatus(app, "not saved: %s", err.message);
        return SaveFailed(app);
    }
    if (fromMap)
    {
        lsApp_SetStatus(app, "saved %s, a world on the map %s: the window edits it from now on", path,
                        app->config.worldPath);
        snprintf(app->config.worldPath, sizeof app->config.worldPath, "%s", path);
        lsDestroyReloader(app->reloader);
        app->reloader = lsCreateReloader(path, LS_RELOAD_SETTLE);
    }
    else
    {
        if (app->reloader != NULL)
            lsReloader_MarkSaved(app->reloader);
        lsApp_SetStatus(app, "saved %s", path);
    }
    SetDiskVersion(app, app->world, text);
    lsFreeString(text);
    return true;
}

// Asks with a message box; returns the id of the chosen button (buttons[i].buttonid), or -1 when none could be
// shown (no message box support: the caller falls back).
static int Ask(lsApp* app, const char* title, const char* message, const SDL_MessageBoxButtonData* buttons, int count)
{
    const SDL_MessageBoxData data = {SDL_MESSAGEBOX_WARNING | SDL_MESSAGEBOX_BUTTONS_LEFT_TO_RIGHT,
                                     app->window,
                                     title,
                                     message,
                                     count,
                                     buttons,
                                     NULL};
    int chosen = -1;
    if (SDL_ShowMessageBox(&data, &chosen) < 0)
    {
        fprintf(stderr, "lidarsim: cannot show a message box: %s\n", SDL_GetError());
        return -1;
    }
    return chosen;
}

enum
{
    ls_answerCancel = 0,
    ls_answerSave = 1,
    ls_answerDiscard = 2,
};

void lsApp_RequestQuit(lsApp* app)
{
    if (!app->unsaved || app->config.frames > 0 || lsApp_Now(app) < app->quitArmedUntil)
    {
        app->quit = true;
        return;
    }
    // Return saves (the safe answer), Esc cancels.
    const SDL_MessageBoxButtonData buttons[] = {
        {SDL_MESSAGEBOX_BUTTON_RETURNKEY_DEFAULT, ls_answerSave, "Save"},
        {0, ls_answerDiscard, "Discard"},
        {SDL_MESSAGEBOX_BUTTON_ESCAPEKEY_DEFAULT, ls_answerCancel, "Cancel"},
    };
    char message[LS_PATH_CAPACITY + 128];
    snprintf(message, sizeof message, "%s has unsaved changes. Save them before quitting?", app->config.worldPath);
    int answer = Ask(app, "lidarsim: unsaved changes", message, buttons, 3);
    if (answer < 0)
    {
        app->quitArmedUntil = lsApp_Now(app) + 3.0;
        lsApp_SetStatus(app, "unsaved changes: Ctrl+S saves, quit again within 3 s to discard them");
    }
    else if (answer == ls_answerSave)
        app->quit = lsApp_Save(app);
    else if (answer == ls_answerDiscard)
        app->quit = true;
    else
        lsApp_SetStatus(app, "quit cancelled");
}

// The file changed on disk and loaded to `fresh` (owned: taken or destroyed here). Unsaved edits in the window are
// not dropped without asking.
static void Reloaded(lsApp* app, lsWorld* fresh)
{
    const char* text = lsReloader_Text(app->reloader, NULL);
    if (app->unsaved && app->diskWorld != NULL && !lsWorld_Equal(fresh, app->diskWorld))
    {
        const SDL_MessageBoxButtonData buttons[] = {
            {0, ls_answerDiscard, "Load the file"},
            {SDL_MESSAGEBOX_BUTTON_RETURNKEY_DEFAULT | SDL_MESSAGEBOX_BUTTON_ESCAPEKEY_DEFAULT, ls_answerCancel,
             "Keep my edits"},
        };
        char message[LS_PATH_CAPACITY + 256];
        snprintf(message, sizeof message,
                 "%s changed on disk, and the window has unsaved edits.\n\nLoad the file (the edits are lost) or keep "
                 "the edits (the next save overwrites the file)?",
                 app->config.worldPath);
        if (Ask(app, "lidarsim: file changed on disk", message, buttons, 2) != ls_answerDiscard)
        {
            // The edits stay; the file's new text is the base the next save keeps.
            SetDiskVersion(app, fresh, text);
            lsDestroyWorld(fresh);
            lsApp_SetStatus(app, "%s changed on disk; kept the unsaved edits", app->config.worldPath);
            return;
        }
    }
    lsDestroyWorld(app->world);
    app->world = fresh;
    lsApp_LoadMapShade(app);
    SetDiskVersion(app, fresh, text);
    if (app->editor != NULL)
        lsEditor_WorldReplaced(app->editor);
    lsApp_RebuildSim(app);
    lsApp_ClearRuns(app); // the undo history went with the reload
    lsApp_SetStatus(app, "reloaded %s", app->config.worldPath);
}

void lsApp_FitCamera(lsApp* app)
{
    lsCamera_FitInto(&app->camera, lsWorld_Bounds(app->world), lsWorldArea(app->canvas, &app->view), 24.0);
    app->cameraFitted = true;
}

void lsApp_RobotMoved(lsApp* app) { lsTrail_Clear(app->trail); }

void lsApp_LoadMapShade(lsApp* app)
{
    lsDestroyMapShade(app->shade);
    lsError err;
    app->shade = lsLoadMapShade(app->world, &err);
    if (app->shade == NULL && err.message[0] != '\0')
        fprintf(stderr, "lidarsim: unknown cells not shown: %s\n", err.message);
    app->view.mapShade = app->shade;
}

// A regular file (a FIFO named default.json must not block the start: the loader refuses it with a message).
static bool FileReadable(const char* path)
{
    lsFileStamp stamp;
    return lsStatFile(path, &stamp, NULL) && stamp.regular;
}

/// The default world: worlds/default.json from the current folder, else next to the executable (../worlds/).
static bool FindDefaultWorld(char* out, size_t capacity)
{
    if (FileReadable("worlds/default.json"))
    {
        snprintf(out, capacity, "worlds/default.json");
        return true;
    }
    char* base = SDL_GetBasePath(); // NULL is fine: then only the cwd was tried
    if (base != NULL)
    {
        snprintf(out, capacity, "%s../worlds/default.json", base);
        SDL_free(base);
        if (FileReadable(out))
            return true;
    }
    snprintf(out, capacity, "worlds/default.json");
    return false;
}

static void PrintPose(const lsSim* sim)
{
    const lsRobotState* robot = &lsSim_GetState(sim)->robot;
    printf("pose %.6f %.6f %.6f\n", robot->position.x, robot->position.y, lsRadToDeg(robot->angle));
}

// ---------------------------------------------------------------------------------------------------------------------
// The window

bool lsInitVideo(void)
{
    // An explicit SDL_VIDEODRIVER (e.g. "dummy" or "offscreen") is the user's choice: let SDL_Init decide.
    const char* requested = getenv("SDL_VIDEODRIVER");
    if (requested != NULL && requested[0] != '\0')
        return SDL_Init(SDL_INIT_VIDEO) == 0;
    const char* x11 = getenv("DISPLAY");
    const char* wayland = getenv("WAYLAND_DISPLAY");
    if ((x11 == NULL || x11[0] == '\0') && (wayland == NULL || wayland[0] == '\0'))
        return false;
    if (SDL_Init(SDL_INIT_VIDEO) < 0)
        return false;
    // A DISPLAY whose server cannot be reached (gone, or refusing us) makes SDL fall back to a driver that shows
    // nothing: the window would run on unseen instead of saying there is no display.
    const char* driver = SDL_GetCurrentVideoDriver();
    return driver != NULL && strcmp(driver, "offscreen") != 0 && strcmp(driver, "dummy") != 0;
}

/// (Re)sizes the canvas the frame is drawn on (the same software canvas as `lidarsim render`, so the window and the
/// PNG match pixel for pixel) and the streaming texture that carries it to the window. Drawing in software and
/// uploading once is also the fast path: a software OpenGL (Mesa llvmpipe under Xvfb) drawing thousands of tiny
/// primitives one call at a time manages about 4 frames per second.
bool lsResizeCanvasTexture(SDL_Renderer* renderer, lsCanvas** canvas, SDL_Texture** texture, int width, int height)
{
    if (*canvas != NULL && *texture != NULL && (*canvas)->surface->w == width && (*canvas)->surface->h == height)
    {
        return true;
    }
    lsError err;
    if (*canvas == NULL)
        *canvas = lsCreateCanvas(width, height, &err);
    if (*canvas == NULL || !lsCanvas_Resize(*canvas, width, height, &err))
    {
        fprintf(stderr, "lidarsim: %s\n", err.message);
        return false;
    }
    if (*texture != NULL)
    {
        SDL_DestroyTexture(*texture);
        *texture = NULL;
    }
    *texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, width, height);
    if (*texture == NULL)
    {
        fprintf(stderr, "lidarsim: SDL_CreateTexture failed: %s\n", SDL_GetError());
        return false;
    }
    return true;
}

static bool ResizeCanvas(lsApp* app, int width, int height)
{
    bool resized = app->canvas == NULL || app->canvas->surface->w != width || app->canvas->surface->h != height;
    if (!lsResizeCanvasTexture(app->renderer, &app->canvas, &app->texture, width, height))
        return false;
    lsCamera_Resize(&app->camera, width, height);
    // A view fitted to the world stays fitted, as when a panel comes or goes (a window grown back kept the zoom its
    // smaller size had needed); a view zoomed or panned by hand keeps its centre and zoom.
    if (resized && app->cameraFitted && app->world != NULL)
        lsApp_FitCamera(app);
    return true;
}

bool lsOpenWindow(const char* title, int width, int height, bool vsync, SDL_Window** window, SDL_Renderer** renderer)
{
    // SDL drops a click it handles within 10 ms of handling the window's focus (meant for the click that focused it),
    // timed when handled, not when made: a busy window that handles its focus and a later click together lost the
    // click. The click that focuses the window acts too.
    SDL_SetHint(SDL_HINT_MOUSE_FOCUS_CLICKTHROUGH, "1");
    // Shown only once it has its renderer: an OpenGL renderer makes SDL destroy the window and create another, and
    // the first one, had it been shown, would have come and gone (a script that found it holds a dead window id).
    *window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height,
                               SDL_WINDOW_RESIZABLE | SDL_WINDOW_HIDDEN);
    if (*window == NULL)
    {
        fprintf(stderr, "lidarsim: SDL_CreateWindow failed: %s\n", SDL_GetError());
        return false;
    }
    Uint32 flags = SDL_RENDERER_ACCELERATED | (vsync ? SDL_RENDERER_PRESENTVSYNC : 0);
    *renderer = SDL_CreateRenderer(*window, -1, flags);
    if (*renderer == NULL)
    {
        // No GPU driver: SDL's software renderer presents the canvas just the same, only slower.
        *renderer = SDL_CreateRenderer(*window, -1, SDL_RENDERER_SOFTWARE);
        if (*renderer == NULL)
        {
            fprintf(stderr, "lidarsim: SDL_CreateRenderer failed: %s\n", SDL_GetError());
            return false;
        }
    }
    SDL_ShowWindow(*window);
    return true;
}

bool lsPresentCanvas(SDL_Renderer* renderer, SDL_Texture* texture, const lsCanvas* canvas)
{
    if (SDL_UpdateTexture(texture, NULL, canvas->surface->pixels, canvas->surface->pitch) < 0 ||
        SDL_RenderCopy(renderer, texture, NULL, NULL) < 0)
    {
        fprintf(stderr, "lidarsim: presenting the frame failed: %s\n", SDL_GetError());
        return false;
    }
    SDL_RenderPresent(renderer);
    return true;
}

static bool Init(lsApp* app)
{
    const lsAppConfig* config = &app->config;
    lsError err;
    lsWarnings warnings = {0};
    if (lsIsMapPath(config->worldPath))
    {
        // A map YAML opened as a world: no world text to keep (a save goes to a .json, never over the map).
        app->world = lsLoadWorld(config->worldPath, &err, &warnings);
    }
    else
    {
        // The text is kept: a save writes back what the user did not change exactly as it was written.
        size_t size = 0;
        char* text = lsReadFile(config->worldPath, LS_MAX_FILE_BYTES, &size, &err);
        app->world = text != NULL ? lsLoadWorldFromString(text, size, config->worldPath, &err, &warnings) : NULL;
        if (app->world != NULL)
            app->diskText = lsStrdup(text); // Shutdown frees it on every path
        lsFree(text, size + 1);
    }
    if (app->world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    for (int i = 0; i < warnings.count; ++i)
        fprintf(stderr, "%s\n", warnings.messages[i]);

    char title[256];
    WindowTitle(app, title, sizeof title); // named from the start: window managers and scripts see no other title
    if (!lsOpenWindow(title, config->width, config->height, config->vsync, &app->window, &app->renderer))
        return false;
    int w = config->width, h = config->height;
    if (SDL_GetRendererOutputSize(app->renderer, &w, &h) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_GetRendererOutputSize failed: %s\n", SDL_GetError());
        return false;
    }
    app->view = lsDefaultViewOptions();
    if (!ResizeCanvas(app, w, h))
    {
        return false;
    }
    app->trail = lsAllocZero(1, sizeof(lsTrail));
    app->view.trailData = app->trail;
    lsApp_LoadMapShade(app);

    app->beamsOverride = config->beams;
    lsApp_RebuildSim(app);
    app->reloader = lsCreateReloader(config->worldPath, LS_RELOAD_SETTLE);
    app->diskWorld = lsCloneWorld(app->world);
    lsApp_UpdateUnsaved(app);
    app->editor = lsCreateEditor();
    app->camera = lsInitialCamera(app->sim, w, h, lsWorldArea(app->canvas, &app->view));
    // A world too large to show whole opens on the robot: that is no fit to keep when panels come and go.
    lsCamera whole = app->camera;
    lsCamera_FitInto(&whole, lsWorld_Bounds(app->world), lsWorldArea(app->canvas, &app->view), 24.0);
    app->cameraFitted = whole.zoom == app->camera.zoom;
    app->paused = config->paused;
    app->autopilot = config->autopilot;
    app->clockStart = SDL_GetPerformanceCounter();
    return true;
}

// The selected robot gets the keys' (or the autopilot's) command; the others follow their controller.
static void StepOnce(lsApp* app)
{
    lsControl control = lsApp_Control(app);
    const lsSimState* state = lsSim_GetState(app->sim);
    app->selected = app->selected < state->robotCount ? app->selected : 0;
    Uint64 t0 = SDL_GetPerformanceCounter();
    if (state->robotCount == 1)
    {
        lsSim_Step(app->sim, &control);
    }
    else
    {
        lsControl* controls = lsAlloc((size_t)state->robotCount * sizeof(lsControl));
        const lsWorld* world = lsSim_GetWorld(app->sim);
        for (int i = 0; i < state->robotCount; ++i)
        {
            bool autopilot = lsWorld_GetRobot(world, i)->controller == ls_controllerAutopilot;
            controls[i] = autopilot ? lsMakeAutopilotControl() : lsMakeManualControl(0.0, 0.0);
        }
        controls[app->selected] = control;
        lsSim_StepRobots(app->sim, controls);
        lsFree(controls, (size_t)state->robotCount * sizeof(lsControl));
    }
    double seconds = (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    app->simSeconds += seconds;
    app->stepMsAvg = app->steps == 0 ? 1000.0 * seconds : 0.95 * app->stepMsAvg + 0.05 * 1000.0 * seconds;
    app->steps += 1;
    lsTrail_Add(app->trail, lsSim_GetState(app->sim)->robots[app->selected].position);
    if (lsSim_GetState(app->sim)->scanned)
        app->raysThisSecond += lsSim_GetBeams(app->sim);
}

static void Update(lsApp* app, double frameSeconds)
{
    double now = lsApp_Now(app);
    if (app->simStale)
    {
        lsApp_RebuildSim(app);
    }
    if (app->reloader != NULL)
    {
        lsWorld* fresh = NULL;
        bool broken = lsReloader_HasError(app->reloader);
        lsReloadEvent event = lsReloader_Poll(app->reloader, now, app->world, &fresh);
        if (event == ls_reloadLoaded)
        {
            Reloaded(app, fresh);
        }
        else if (event == ls_reloadSame)
        {
            // The file holds the world shown (touched, or reformatted to the same world): it is the new base. Fixed
            // back to it after an error, the error's banner goes, and the terminal, whose last line was the error,
            // hears that the file loads again.
            SetDiskVersion(app, app->world, lsReloader_Text(app->reloader, NULL));
            if (broken)
            {
                lsApp_SetStatus(app, "%s loads again: the world shown is what it holds", app->config.worldPath);
            }
            // The same walls from a changed map (its free or occupied threshold moved across no cell's shade but
            // across the unknown ones'): the greyed unknown cells are the image's again.
            if (app->world->map.yamlFile[0] != '\0')
            {
                lsApp_LoadMapShade(app);
            }
        }
        if (event == ls_reloadLoaded || event == ls_reloadSame)
        {
            // What the loader warned of (a key mistyped: the world loads without it), as a start prints it.
            const lsWarnings* warnings = lsReloader_Warnings(app->reloader);
            for (int i = 0; i < warnings->count; ++i)
            {
                fprintf(stderr, "%s\n", warnings->messages[i]);
            }
            if (warnings->count > 0)
            {
                lsApp_SetStatus(app, "%s%s", warnings->messages[0],
                                warnings->count + warnings->dropped > 1 ? " (and more: see the terminal)" : "");
            }
        }
        else if (event == ls_reloadFailed)
        {
            fprintf(stderr, "%s\n", lsReloader_Error(app->reloader));
            app->statusUntil = 0.0; // a load's status ("reloaded", "loads again") would contradict the error's banner
        }
    }

    double dt = lsSim_GetState(app->sim)->dt;
    // Every N press is a step, also presses that arrived together between two frames (a busy machine draws seldom),
    // and those handled before a Space that runs again in the same frame.
    for (; app->stepPresses > 0; app->stepPresses--)
        StepOnce(app);
    if (app->paused)
    {
        app->accumulator = 0.0;
        return;
    }
    app->accumulator += lsFmin(frameSeconds, LS_MAX_FRAME_SECONDS);
    Uint64 start = SDL_GetPerformanceCounter();
    double frequency = (double)SDL_GetPerformanceFrequency();
    while (app->accumulator >= dt)
    {
        StepOnce(app);
        app->accumulator -= dt;
        if ((double)(SDL_GetPerformanceCounter() - start) / frequency > LS_STEP_BUDGET_SECONDS)
        {
            app->accumulator = 0.0; // slower than real time: drop the backlog rather than spiral
            break;
        }
    }
}

static bool Draw(lsApp* app)
{
    Uint64 t0 = SDL_GetPerformanceCounter();
    double now = lsApp_Now(app);
    const lsSimState* followed = lsSim_GetState(app->sim);
    if (app->follow)
    {
        lsCamera_LookAtIn(&app->camera,
                          followed->robots[app->selected < followed->robotCount ? app->selected : 0].position,
                          lsWorldArea(app->canvas, &app->view));
        // On whole pixels (the robot is off the exact centre by under half a pixel): one frame to the next then moves
        // the view by whole pixels, which scrolls the cached static layers instead of drawing every wall again.
        double zoom = app->camera.zoom;
        app->camera.center = lsV(round(app->camera.center.x * zoom) / zoom, round(app->camera.center.y * zoom) / zoom);
    }
    bool reloadError = app->reloader != NULL && lsReloader_HasError(app->reloader);
    lsHudInfo hud = {
        .worldName = app->world->name,
        .fps = app->fps,
        .stepMs = app->stepMsAvg,
        .drawMs = app->drawMsAvg,
        .raysPerSecond = app->raysPerSecond,
        .paused = app->paused,
        .autopilot = app->autopilot,
        .following = app->follow,
        .editing = app->editor != NULL && lsEditor_IsActive(app->editor),
        .unsaved = app->unsaved,
        .snap = app->editor != NULL ? lsEditor_GetSnap(app->editor) : 0.0,
        .error = reloadError                 ? lsReloader_Error(app->reloader)
                 : app->saveError[0] != '\0' ? app->saveError
                                             : NULL,
        .errorTitle = reloadError ? NULL : "the edits are not saved (Ctrl+S tries again):",
        .status = now < app->statusUntil ? app->status : NULL,
        .haveCursor = app->haveCursor,
        .cursor = lsCamera_ScreenToWorld(&app->camera, lsV(app->cursorX, app->cursorY)),
        .robot = app->selected,
    };
    app->view.robot = app->selected;
    // A resized window gets a canvas of its new size; the camera keeps its centre and zoom (and so the aspect), or
    // stays fitted to the world when it was (ResizeCanvas).
    int width = 0, height = 0;
    if (SDL_GetRendererOutputSize(app->renderer, &width, &height) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_GetRendererOutputSize failed: %s\n", SDL_GetError());
        return false;
    }
    if (!ResizeCanvas(app, width, height))
    {
        return false;
    }
    lsCanvas* canvas = app->canvas;
    if (!lsDrawScene(canvas, &app->camera, app->sim, &app->view))
    {
        return false;
    }
    if (app->editor != NULL)
    {
        lsEditor_SetLiveRobots(app->editor, app->simStale ? NULL : followed->robots, followed->robotCount);
        lsEditor_Draw(app->editor, canvas->renderer, &app->camera, app->world, lsWorldArea(canvas, &app->view));
    }
    if (!lsDrawHud(canvas, &app->camera, app->sim, &app->view, &hud))
    {
        return false;
    }
    // Every F12 press gets its file, also presses that arrived together between two frames (a busy machine draws
    // seldom): each saves this frame.
    for (; app->screenshots > 0; app->screenshots--)
    {
        char path[LS_PATH_CAPACITY + 64];
        lsError err;
        if (lsSaveScreenshot(app->canvas->surface, app->config.screenshotDir, app->config.worldPath,
                             (long long)time(NULL), path, sizeof path, &err))
        {
            lsApp_SetStatus(app, "saved %s", path);
        }
        else
        {
            lsApp_SetStatus(app, "screenshot failed: %s", err.message);
        }
    }
    Uint64 t1 = SDL_GetPerformanceCounter();
    if (!lsPresentCanvas(app->renderer, app->texture, app->canvas))
        return false;
    app->presentSeconds += (double)(SDL_GetPerformanceCounter() - t1) / (double)SDL_GetPerformanceFrequency();
    double seconds = (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    app->drawSeconds += seconds;
    app->drawMsAvg = app->frames == 0 ? 1000.0 * seconds : 0.95 * app->drawMsAvg + 0.05 * 1000.0 * seconds;
    app->frames += 1;

    app->framesThisSecond += 1;
    if (now - app->secondStart >= 1.0)
    {
        app->fps = app->framesThisSecond / (now - app->secondStart);
        app->raysPerSecond = (double)app->raysThisSecond / (now - app->secondStart);
        app->framesThisSecond = 0;
        app->raysThisSecond = 0;
        app->secondStart = now;
    }
    return true;
}

static void Shutdown(lsApp* app)
{
    lsDestroyEditor(app->editor);
    lsDestroyReloader(app->reloader);
    lsApp_ClearRuns(app);
    lsDestroySim(app->sim);
    lsDestroyWorld(app->simWorld);
    lsDestroyWorld(app->world);
    lsDestroyWorld(app->diskWorld);
    lsDestroyMapShade(app->shade);
    lsFreeString(app->diskText);
    lsDestroyCanvas(app->canvas);
    lsFree(app->trail, app->trail != NULL ? sizeof(lsTrail) : 0);
    if (app->texture != NULL)
    {
        SDL_DestroyTexture(app->texture);
    }
    if (app->renderer != NULL)
    {
        SDL_DestroyRenderer(app->renderer);
    }
    if (app->window != NULL)
        SDL_DestroyWindow(app->window);
    memset(app, 0, sizeof *app);
}

int lsRunWindow(const lsAppConfig* config)
{
    long long bytesAtStart = lsAllocatedBytes();
    lsApp app;
    memset(&app, 0, sizeof app);
    app.config = *config;
    if (!lsInitVideo())
    {
        // A world that would not load anyway says why first: a mistyped name is the thing to fix, and the hint to
        // use render or run would only meet the same error there.
        lsError err;
        lsWorld* world = app.config.worldPath[0] != '\0' ? lsLoadWorld(app.config.worldPath, &err, NULL) : NULL;
        fprintf(stderr, "%s\n", app.config.worldPath[0] != '\0' && world == NULL ? err.message : s_noDisplay);
        lsDestroyWorld(world);
        SDL_Quit();
        return 1;
    }
    if (app.config.worldPath[0] == '\0' && !FindDefaultWorld(app.config.worldPath, sizeof app.config.worldPath))
    {
        fprintf(stderr, "lidarsim: no world given and worlds/default.json not found (here or next to the program)\n");
        SDL_Quit();
        return 1;
    }
    if (!Init(&app))
    {
        Shutdown(&app);
        SDL_Quit();
        return 1;
    }

    double last = lsApp_Now(&app);
    bool ok = true;
    while (!app.quit && ok)
    {
        SDL_Event event;
        // Once quitting is decided nothing queued behind it runs: a key pressed while the quit prompt was up must
        // neither ask again nor, after Discard, save the discarded edits (Ctrl+S).
        while (!app.quit && SDL_PollEvent(&event))
            lsApp_HandleEvent(&app, &event);
        double now = lsApp_Now(&app);
        Update(&app, now - last);
        last = now;
        ok = Draw(&app);
        if (app.config.frames > 0 && app.frames >= app.config.frames)
            app.quit = true;
    }
    double elapsed = lsApp_Now(&app);

    if (app.config.frames > 0 && ok)
    {
        double frames = (double)(app.frames > 0 ? app.frames : 1);
        lsLayerStats layers = lsCanvas_LayerStats(app.canvas);
        printf("frames %lld in %.2f s: %.1f fps; per frame: sim %.3f ms (%lld steps, %.3f ms/step), draw %.3f ms "
               "(canvas %.3f ms, present %.3f ms); beams %d, %dx%d; static layers reused %lld, scrolled %lld, built "
               "%lld, not kept %lld\n",
               app.frames, elapsed, (double)app.frames / elapsed, 1000.0 * app.simSeconds / frames, app.steps,
               app.steps > 0 ? 1000.0 * app.simSeconds / (double)app.steps : 0.0, 1000.0 * app.drawSeconds / frames,
               1000.0 * (app.drawSeconds - app.presentSeconds) / frames, 1000.0 * app.presentSeconds / frames,
               lsSim_GetBeams(app.sim), app.camera.width, app.camera.height, layers.hits, layers.scrolls, layers.builds,
               layers.direct);
    }
    if (app.config.printPose && app.sim != NULL)
        PrintPose(app.sim);
    Shutdown(&app);
    if (lsAllocatedBytes() != bytesAtStart)
    {
        // Everything the window made is freed by Shutdown; a difference is a leak (the window test checks this).
        fprintf(stderr, "lidarsim: %lld bytes still allocated at exit\n", lsAllocatedBytes() - bytesAtStart);
    }
    SDL_Quit();
    return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------------------
// Headless: lidarsim render

// An animated GIF of config->steps steps: a frame at step 0 and every config->every steps after, shown for as long
// as those steps last (so it plays at the simulation's speed), the camera fixed as at the first frame.
static int RenderGif(const lsRenderConfig* config, lsSim* sim, lsCanvas* canvas, const lsViewOptions* view,
                     lsTrail* trail)
{
    const lsWorld* world = lsSim_GetWorld(sim);
    int every = config->every > 0 ? config->every : 1;
    lsError err = {{0}};
    if (!lsGifFrameCountOk(config->steps / every + 1, config->steps, every, &err))
    {
        fprintf(stderr, "lidarsim render: %s\n", err.message);
        return 1;
    }
    lsGifWriter* gif = lsCreateGifWriter(config->width, config->height, every * world->sim.dt, &err);
    lsCamera camera = lsInitialCamera(sim, config->width, config->height, lsWorldArea(canvas, view));
    lsControl control = config->autopilot ? lsMakeAutopilotControl() : lsMakeManualControl(0.0, 0.0);
    lsHudInfo hud = {.worldName = world->name, .autopilot = config->autopilot};
    bool ok = gif != NULL;
    for (int step = 0; ok && step <= config->steps; ++step)
    {
        if (step > 0)
        {
            lsSim_Step(sim, &control);
            lsTrail_Add(trail, lsSim_GetState(sim)->robot.position);
        }
        if (step % every == 0)
            ok = lsDrawFrame(canvas, &camera, sim, view, &hud) && lsGifWriter_AddFrame(gif, canvas->surface, &err);
    }
    size_t bytes = 0;
    ok = lsFinishGif(gif, ok ? config->outPath : NULL, &bytes, &err) && ok;
    if (!ok)
    {
        fprintf(stderr, "lidarsim render: %s\n", err.message[0] != '\0' ? err.message : "drawing failed");
        return 1;
    }
    char shown[1024];
    snprintf(shown, sizeof shown, "%s", config->outPath);
    lsEscapeControl(shown, sizeof shown); // a name from the command line may hold terminal escapes
    int frames = config->steps / every + 1;
    printf("lidarsim render: %s: %d frame%s, %.0f KB\n", shown, frames, frames == 1 ? "" : "s", (double)bytes / 1024.0);
    return 0;
}

int lsRenderImage(const lsRenderConfig* config)
{
    if (lsIsRecordingFile(config->worldPath))
        return lsRenderRecording(config);
    const char* worldPath = config->worldPath;
    const char* outPath = config->outPath;
    int width = config->width, height = config->height;
    lsViewOptions view = lsDefaultViewOptions();
    view.steering = config->steering;
    view.hud = config->hud;
    view.scanPlot = config->scanPlot;
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(worldPath, &err, NULL);
    if (world == NULL ||
        !lsCheckOutputNotInput(outPath, worldPath, "the world file", world->map.yamlFile, world->map.imageFile, &err))
    {
        fprintf(stderr, "%s\n", err.message);
        lsDestroyWorld(world);
        return 1;
    }
    // The map's unknown cells, as the window greys them.
    lsMapShade* shade = lsLoadMapShade(world, &err);
    if (shade == NULL && err.message[0] != '\0')
        fprintf(stderr, "lidarsim render: unknown cells not shown: %s\n", err.message);
    view.mapShade = shade;
    err.message[0] = '\0';
    lsSim* sim = lsCreateSim(world);
    ApplyBeams(sim, config->beams);
    lsControl control = config->autopilot ? lsMakeAutopilotControl() : lsMakeManualControl(0.0, 0.0);
    // The trail of the steps drawn, as the window would show it after them.
    lsTrail* trail = lsAllocZero(1, sizeof(lsTrail));
    view.trailData = trail;
    bool gif = lsImageTypeOf(outPath) == ls_imageGif;
    for (int i = 0; i < config->steps && !gif; ++i)
    {
        lsSim_Step(sim, &control);
        lsTrail_Add(trail, lsSim_GetState(sim)->robot.position);
    }

    // No video subsystem: the canvas is a plain surface.
    int status = 1;
    lsCanvas* canvas = NULL;
    if (SDL_Init(0) < 0)
    {
        fprintf(stderr, "lidarsim render: SDL_Init failed: %s\n", SDL_GetError());
    }
    else if ((canvas = lsCreateCanvas(width, height, &err)) == NULL)
    {
        fprintf(stderr, "lidarsim render: %s\n", err.message);
    }
    else if (lsImageTypeOf(outPath) == ls_imageGif)
    {
        status = RenderGif(config, sim, canvas, &view, trail);
    }
    else
    {
        lsCamera camera = lsInitialCamera(sim, width, height, lsWorldArea(canvas, &view));
        lsHudInfo hud = {.worldName = world->name, .autopilot = config->autopilot};
        if (lsDrawFrame(canvas, &camera, sim, &view, &hud) && lsSaveSurfaceImage(canvas->surface, outPath, &err))
        {
            status = 0;
        }
        else if (err.message[0] != '\0')
        {
            fprintf(stderr, "lidarsim render: %s\n", err.message);
        }
    }
    lsDestroyCanvas(canvas);
    lsFree(trail, sizeof(lsTrail));
    lsDestroyMapShade(shade);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    SDL_Quit();
    return status;
}

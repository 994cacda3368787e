// lidarsim front end: replays of recordings (`lidarsim replay REC.jsonl`, and `lidarsim render REC.jsonl -o a.gif`).
// The recording's state at a step is put into a sim of its world (lsRecording_Apply), which the same lsDrawFrame
// as a live run draws: beams from the recorded ranges, so noise and dropout look exactly as the run saw them.
// The window: Init, then per frame events, Update (the playback clock) and Draw, then Shutdown; SDL_Quit last.
#include "app/app.h"
#include "app/map_shade.h"

#include "app/gif.h"
#include "core/file_write.h"
#include "core/recording.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LS_REPLAY_MIN_SPEED (1.0 / 16.0)
#define LS_REPLAY_MAX_SPEED 64.0

// The trail a live window would show at this step for robot `robot` (the selected one): its recorded positions on
// the lines up to it (the latest LS_TRAIL_CAPACITY), then where it is now.
static void ReplayTrail(const lsRecording* rec, long long step, const lsSim* sim, int robot, lsTrail* trail)
{
    lsTrail_Clear(trail);
    int line = lsRecording_LineAt(rec, step);
    int from = line - (LS_TRAIL_CAPACITY - 2);
    for (int i = from > 0 ? from : 0; i <= line; ++i)
        lsTrail_Add(trail, lsRecording_RobotPosition(rec, i, robot));
    lsTrail_Add(trail, lsSim_GetState(sim)->robots[robot].position);
}

// "t 3.2 / 10.0 s  step 192 / 600": the timeline's label.
static void TimelineLabel(const lsRecording* rec, const lsSim* sim, char* text, size_t capacity)
{
    const lsSimState* state = lsSim_GetState(sim);
    double end = (double)lsRecording_LastStep(rec) * lsRecording_Dt(rec);
    snprintf(text, capacity, "t %.1f / %.1f s  step %lld / %lld", state->time, end, state->step,
             lsRecording_LastStep(rec));
}

static double TimelineFraction(const lsRecording* rec, long long step)
{
    long long first = lsRecording_FirstStep(rec), last = lsRecording_LastStep(rec);
    return last > first ? (double)(step - first) / (double)(last - first) : 1.0;
}

// Loads the recording and its world and makes the sim that shows it; false after printing why (nothing kept).
static bool OpenReplay(const char* recordingPath, const char* worldPath, lsRecording** rec, lsWorld** world,
                       lsSim** sim)
{
    lsError err = {{0}};
    *rec = lsLoadRecording(recordingPath, &err);
    *sim = *rec != NULL ? lsRecording_OpenWorld(*rec, worldPath, world, &err) : NULL;
    if (*sim == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        lsDestroyRecording(*rec);
        *rec = NULL;
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// The window

typedef struct Replay
{
    lsReplayConfig config;
    lsRecording* rec;
    lsWorld* world;
    lsSim* sim;
    SDL_Window* window;
    SDL_Renderer* renderer;
    SDL_Texture* texture;
    lsCanvas* canvas;
    lsTrail* trail;
    lsCamera camera;
    lsViewOptions view;
    double position; ///< the playback position in steps (fractional while playing)
    long long shown; ///< the step the sim shows
    double speed;    ///< 1: real time
    bool playing, follow, scrubbing, panning, quit;
    int screenshots; ///< F12 presses not yet saved: each saves the next frame as a PNG
    long long frames;
    double fps, drawMsAvg, secondStart;
    int framesThisSecond;
    char status[160];
    double statusUntil;
    Uint64 clockStart;

    /// Owned; the unknown cells of the world's map (greyed, as in the window), NULL when it has none.
    lsMapShade* shade;
} Replay;

static double Now(const Replay* r)
{
    return (double)(SDL_GetPerformanceCounter() - r->clockStart) / (double)SDL_GetPerformanceFrequency();
}

static void SetStatus(Replay* r, const char* format, ...) __attribute__((format(printf, 2, 3)));

static void SetStatus(Replay* r, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    // clang-tidy 14 keeps va_list state from a file analysed before (as in map.c's FailAt).
    vsnprintf(r->status, sizeof r->status, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    r->statusUntil = Now(r) + 3.0;
    printf("lidarsim: %s\n", r->status);
    fflush(stdout); // as the window's lsApp_SetStatus: whoever follows stdout sees it as it happens
}

// Moves the playback to step (clamped to the recording) and shows it.
static void Seek(Replay* r, double step)
{
    double first = (double)lsRecording_FirstStep(r->rec), last = (double)lsRecording_LastStep(r->rec);
    r->position = step < first ? first : (step > last ? last : step);
    long long shown = (long long)floor(r->position);
    if (shown != r->shown)
    {
        lsRecording_Apply(r->rec, shown, r->sim);
        r->shown = shown;
    }
}

// A click or drag at window x on the timeline.
static void SeekToPixel(Replay* r, int x)
{
    double x0 = 0.0, x1 = 1.0;
    lsTimelineTrack(r->canvas, &r->view, &x0, &x1);
    double f = ((double)x - x0) / (x1 - x0);
    long long first = lsRecording_FirstStep(r->rec), last = lsRecording_LastStep(r->rec);
    Seek(r, floor((double)first + lsFmin(lsFmax(f, 0.0), 1.0) * (double)(last - first) + 0.5));
}

// One recorded line forward (+1) or back (-1) from the shown step: the next or previous scan by default.
static void StepLine(Replay* r, int direction)
{
    int line = lsRecording_LineAt(r->rec, r->shown);
    bool onLine = lsRecording_LineStep(r->rec, line) == r->shown;
    int target = direction > 0 ? line + 1 : (onLine ? line - 1 : line);
    target = target < 0 ? 0 : (target >= lsRecording_LineCount(r->rec) ? lsRecording_LineCount(r->rec) - 1 : target);
    Seek(r, (double)lsRecording_LineStep(r->rec, target));
}

static void ChangeSpeed(Replay* r, double factor)
{
    r->speed = lsFmin(lsFmax(r->speed * factor, LS_REPLAY_MIN_SPEED), LS_REPLAY_MAX_SPEED);
    SetStatus(r, "speed %gx", r->speed);
}

static void FitCamera(Replay* r)
{
    lsCamera_FitInto(&r->camera, lsWorld_Bounds(r->world), lsWorldArea(r->canvas, &r->view), 24.0);
}

static void HandleKey(Replay* r, const SDL_KeyboardEvent* key)
{
    bool shift = (key->keysym.mod & KMOD_SHIFT) != 0;
    switch (key->keysym.sym)
    {
    case SDLK_q:
    case SDLK_ESCAPE:
        r->quit = true;
        break;
    case SDLK_SPACE:
        r->playing = !r->playing;
        if (r->playing && r->shown >= lsRecording_LastStep(r->rec))
            Seek(r, (double)lsRecording_FirstStep(r->rec)); // at the end, play again from the start
        break;
    case SDLK_RIGHT:
    case SDLK_PERIOD:
        r->playing = false;
        if (shift)
            StepLine(r, 1);
        else
            Seek(r, (double)(r->shown + 1));
        break;
    case SDLK_LEFT:
    case SDLK_COMMA:
        r->playing = false;
        if (shift)
            StepLine(r, -1);
        else
            Seek(r, (double)(r->shown - 1));
        break;
    case SDLK_HOME:
        Seek(r, (double)lsRecording_FirstStep(r->rec));
        break;
    case SDLK_END:
        Seek(r, (double)lsRecording_LastStep(r->rec));
        r->playing = false;
        break;
    case SDLK_RIGHTBRACKET:
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        ChangeSpeed(r, 2.0);
        break;
    case SDLK_LEFTBRACKET:
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        ChangeSpeed(r, 0.5);
        break;
    case SDLK_l:
        r->view.beams = (lsBeamMode)((r->view.beams + 1) % ls_beamModeCount);
        SetStatus(r, "beams: %s", lsBeamModeName(r->view.beams));
        break;
    case SDLK_c:
        r->view.beamColors = r->view.beamColors == ls_colorByKind ? ls_colorByIntensity : ls_colorByKind;
        SetStatus(r, "beams coloured by %s", lsBeamColoringName(r->view.beamColors));
        break;
    case SDLK_g:
        r->view.grid = !r->view.grid;
        break;
    case SDLK_t:
        r->view.trail = !r->view.trail;
        break;
    case SDLK_o:
        r->view.scanPlot = !r->view.scanPlot;
        FitCamera(r);
        break;
    case SDLK_h:
        r->view.hud = !r->view.hud;
        FitCamera(r);
        break;
    case SDLK_f:
        r->follow = !r->follow;
        SetStatus(r, "follow %s", r->follow ? "on" : "off");
        break;
    case SDLK_TAB:
    {
        // As in the live window, without the driving: F follows the selected robot, the HUD, the scan plot and the
        // trail show it, its scan is drawn in full.
        char words[LS_ROBOT_ID_CAPACITY + 64];
        r->view.robot = lsNextRobot(r->world, r->view.robot, shift, words, sizeof words);
        SetStatus(r, "showing %s", words);
        break;
    }
    case SDLK_b:
        SetStatus(r, "%s", lsToggleFleetBeams(&r->view));
        break;
    case SDLK_z:
        FitCamera(r);
        break;
    case SDLK_F1:
        // The HUD says "F1 keys" in a replay too; F1 did nothing here.
        r->view.help = !r->view.help;
        break;
    case SDLK_F12:
        r->screenshots += 1;
        break;
    default:
        break;
    }
}

static bool OnTimeline(const Replay* r, int x, int y)
{
    lsRect t = lsTimelineRect(r->canvas, &r->view);
    return x >= t.x && x < t.x + t.w && y >= t.y && y < t.y + t.h;
}

static void HandleEvent(Replay* r, const SDL_Event* event)
{
    switch (event->type)
    {
    case SDL_QUIT:
        r->quit = true;
        break;
    case SDL_KEYDOWN:
        HandleKey(r, &event->key);
        break;
    case SDL_MOUSEWHEEL:
    {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        int notches = event->wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -event->wheel.y : event->wheel.y;
        lsCamera_ZoomAt(&r->camera, lsV(mx, my), pow(1.15, notches));
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        if (event->button.button == SDL_BUTTON_LEFT && OnTimeline(r, event->button.x, event->button.y))
        {
            r->scrubbing = true;
            SeekToPixel(r, event->button.x);
        }
        else
        {
            r->panning = true;
        }
        break;
    case SDL_MOUSEBUTTONUP:
        r->scrubbing = false;
        r->panning = false;
        break;
    case SDL_MOUSEMOTION:
        if (r->scrubbing)
        {
            SeekToPixel(r, event->motion.x);
        }
        else if (r->panning)
        {
            lsCamera_Pan(&r->camera, lsV(event->motion.xrel, event->motion.yrel));
            r->follow = false;
        }
        break;
    default:
        break;
    }
}

static bool Init(Replay* r)
{
    const lsReplayConfig* config = &r->config;
    char title[256];
    snprintf(title, sizeof title, "lidarsim replay - %.200s", config->recordingPath);
    if (!lsOpenWindow(title, config->width, config->height, config->vsync, &r->window, &r->renderer))
        return false;
    int w = config->width, h = config->height;
    if (SDL_GetRendererOutputSize(r->renderer, &w, &h) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_GetRendererOutputSize failed: %s\n", SDL_GetError());
        return false;
    }
    if (!lsResizeCanvasTexture(r->renderer, &r->canvas, &r->texture, w, h))
        return false;
    r->view = lsDefaultViewOptions();
    r->view.timeline = true;
    // The recording's world never changes while it plays: the cached static layers need no hash of it.
    r->view.worldRevision = 1;
    lsError err;
    r->shade = lsLoadMapShade(r->world, &err);
    if (r->shade == NULL && err.message[0] != '\0')
        fprintf(stderr, "lidarsim: unknown cells not shown: %s\n", err.message);
    r->view.mapShade = r->shade;
    r->trail = lsAllocZero(1, sizeof(lsTrail));
    r->view.trailData = r->trail;
    r->camera = lsInitialCamera(r->sim, w, h, lsWorldArea(r->canvas, &r->view));
    r->shown = lsRecording_FirstStep(r->rec);
    r->position = (double)r->shown;
    if (config->start > lsRecording_LastStep(r->rec))
        fprintf(stderr,
                "lidarsim replay: note: --start %lld is past the recording's last step (%lld): it starts there\n",
                (long long)config->start, lsRecording_LastStep(r->rec));
    Seek(r, config->start >= 0 ? (double)config->start : (double)r->shown);
    r->speed = config->speed > 0.0 ? config->speed : 1.0;
    r->playing = !config->paused;
    r->clockStart = SDL_GetPerformanceCounter();
    return true;
}

// The playback clock: the position advances speed steps per step of real time; at the end it stops.
static void Update(Replay* r, double frameSeconds)
{
    if (!r->playing || r->scrubbing)
        return;
    double steps = lsFmin(frameSeconds, 0.1) * r->speed / lsRecording_Dt(r->rec);
    Seek(r, r->position + steps);
    if (r->shown >= lsRecording_LastStep(r->rec))
        r->playing = false;
}

static bool Draw(Replay* r)
{
    Uint64 t0 = SDL_GetPerformanceCounter();
    int width = 0, height = 0;
    if (SDL_GetRendererOutputSize(r->renderer, &width, &height) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_GetRendererOutputSize failed: %s\n", SDL_GetError());
        return false;
    }
    if (!lsResizeCanvasTexture(r->renderer, &r->canvas, &r->texture, width, height))
        return false;
    lsCamera_Resize(&r->camera, width, height);
    if (r->follow)
        lsCamera_LookAtIn(&r->camera, lsSim_GetState(r->sim)->robots[r->view.robot].position,
                          lsWorldArea(r->canvas, &r->view));
    ReplayTrail(r->rec, r->shown, r->sim, r->view.robot, r->trail);
    char state[96], label[96];
    // Held on the timeline, the replay does not advance, whatever it will do once let go.
    snprintf(state, sizeof state, "REPLAY  %s  %gx",
             r->scrubbing ? "held"
             : r->playing ? "playing"
                          : "paused",
             r->speed);
    TimelineLabel(r->rec, r->sim, label, sizeof label);
    double now = Now(r);
    lsHudInfo hud = {
        .worldName = r->world->name,
        .fps = r->fps,
        .drawMs = r->drawMsAvg,
        .paused = !r->playing,
        .following = r->follow,
        .status = now < r->statusUntil ? r->status : NULL,
        .replay = state,
        .timeline = TimelineFraction(r->rec, r->shown),
        .timelineLabel = label,
        .robot = r->view.robot,
    };
    if (!lsDrawFrame(r->canvas, &r->camera, r->sim, &r->view, &hud))
        return false;
    // Every F12 press gets its file, also presses that arrived together between two frames: each saves this frame.
    for (; r->screenshots > 0; r->screenshots--)
    {
        char path[LS_PATH_CAPACITY + 64];
        lsError err;
        if (lsSaveScreenshot(r->canvas->surface, r->config.screenshotDir, r->config.recordingPath,
                             (long long)time(NULL), path, sizeof path, &err))
            SetStatus(r, "saved %s", path);
        else
            SetStatus(r, "screenshot failed: %s", err.message);
    }
    if (!lsPresentCanvas(r->renderer, r->texture, r->canvas))
        return false;
    double seconds = (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    r->drawMsAvg = r->frames == 0 ? 1000.0 * seconds : 0.95 * r->drawMsAvg + 0.05 * 1000.0 * seconds;
    r->frames += 1;
    r->framesThisSecond += 1;
    if (now - r->secondStart >= 1.0)
    {
        r->fps = r->framesThisSecond / (now - r->secondStart);
        r->framesThisSecond = 0;
        r->secondStart = now;
    }
    return true;
}

static void Shutdown(Replay* r)
{
    lsDestroySim(r->sim);
    lsDestroyWorld(r->world);
    lsDestroyMapShade(r->shade);
    lsDestroyRecording(r->rec);
    lsDestroyCanvas(r->canvas);
    lsFree(r->trail, r->trail != NULL ? sizeof(lsTrail) : 0);
    if (r->texture != NULL)
        SDL_DestroyTexture(r->texture);
    if (r->renderer != NULL)
        SDL_DestroyRenderer(r->renderer);
    if (r->window != NULL)
        SDL_DestroyWindow(r->window);
    memset(r, 0, sizeof *r);
}

int lsRunReplay(const lsReplayConfig* config)
{
    long long bytesAtStart = lsAllocatedBytes();
    Replay r;
    memset(&r, 0, sizeof r);
    r.config = *config;
    // The recording and its world first: what is wrong with them is said with or without a display.
    if (!OpenReplay(config->recordingPath, config->worldPath[0] != '\0' ? config->worldPath : NULL, &r.rec, &r.world,
                    &r.sim))
        return 1;
    if (!lsInitVideo())
    {
        fprintf(stderr,
                "lidarsim replay: no display to open a window on (DISPLAY and WAYLAND_DISPLAY unset or "
                "unusable); use `lidarsim render %s -o run.gif` to animate the recording\n",
                config->recordingPath);
        Shutdown(&r);
        SDL_Quit();
        return 1;
    }
    bool ok = Init(&r);
    double last = ok ? Now(&r) : 0.0;
    while (ok && !r.quit)
    {
        SDL_Event event;
        // Once Q is handled nothing queued behind it moves the playback that --print-pose reports (as in the window).
        while (!r.quit && SDL_PollEvent(&event))
            HandleEvent(&r, &event);
        double now = Now(&r);
        // Scripted runs (--frames) play at a fixed 60 frames per second of replay time, so they are repeatable.
        Update(&r, r.config.frames > 0 ? 1.0 / 60.0 : now - last);
        last = now;
        ok = Draw(&r);
        if (r.config.frames > 0 && r.frames >= r.config.frames)
            r.quit = true;
    }
    if (ok && r.config.printPose)
    {
        const lsRobotState* robot = &lsSim_GetState(r.sim)->robot;
        printf("pose %.6f %.6f %.6f\nstep %lld\n", robot->position.x, robot->position.y, lsRadToDeg(robot->angle),
               r.shown);
    }
    Shutdown(&r);
    if (lsAllocatedBytes() != bytesAtStart)
        fprintf(stderr, "lidarsim: %lld bytes still allocated at exit\n", lsAllocatedBytes() - bytesAtStart);
    SDL_Quit();
    return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------------------
// Headless: lidarsim render REC.jsonl -o run.gif | frame.png

// Draws the recorded step into the canvas as `lidarsim render` draws a live one (with the timeline under it).
static bool DrawRecordedStep(lsRecording* rec, long long step, lsSim* sim, lsCanvas* canvas, const lsCamera* camera,
                             const lsViewOptions* view, lsTrail* trail)
{
    lsRecording_Apply(rec, step, sim);
    ReplayTrail(rec, step, sim, view->robot, trail);
    char label[96];
    TimelineLabel(rec, sim, label, sizeof label);
    lsHudInfo hud = {.worldName = lsSim_GetWorld(sim)->name,
                     .replay = "REPLAY",
                     .timeline = TimelineFraction(rec, step),
                     .timelineLabel = label};
    return lsDrawFrame(canvas, camera, sim, view, &hud);
}

int lsRenderRecording(const lsRenderConfig* config)
{
    lsRecording* rec = NULL;
    lsWorld* world = NULL;
    lsSim* sim = NULL;
    if (!OpenReplay(config->worldPath, config->replayWorld, &rec, &world, &sim))
        return 1;
    lsError inputErr = {{0}};
    if (!lsCheckOutputNotInput(config->outPath, config->worldPath, "the recording", world->map.yamlFile,
                               world->map.imageFile, &inputErr) ||
        !lsCheckOutputNotInput(config->outPath, config->replayWorld, "the world file", "", "", &inputErr))
    {
        fprintf(stderr, "%s\n", inputErr.message);
        lsDestroySim(sim);
        lsDestroyWorld(world);
        lsDestroyRecording(rec);
        return 1;
    }
    lsViewOptions view = lsDefaultViewOptions();
    view.steering = config->steering;
    view.hud = config->hud;
    view.scanPlot = config->scanPlot;
    view.timeline = config->hud;
    view.worldRevision = 1; // the recording's world does not change
    lsTrail* trail = lsAllocZero(1, sizeof(lsTrail));
    view.trailData = trail;
    lsError shadeErr;
    lsMapShade* shade = lsLoadMapShade(world, &shadeErr);
    if (shade == NULL && shadeErr.message[0] != '\0')
        fprintf(stderr, "lidarsim render: unknown cells not shown: %s\n", shadeErr.message);
    view.mapShade = shade;
    long long first = lsRecording_FirstStep(rec), last = lsRecording_LastStep(rec);
    bool gif = lsImageTypeOf(config->outPath) == ls_imageGif;
    // A GIF: the first --steps N steps (0: all of them); a still: the step N after the first.
    if ((config->steps > 0 || !gif) && first + config->steps < last)
        last = first + config->steps;
    else if (!gif && first + config->steps > last)
        fprintf(stderr,
                "lidarsim render: note: --steps %d is past the recording's end (%lld step%s): its last step "
                "is drawn\n",
                config->steps, last - first, last - first == 1 ? "" : "s");
    int every = config->every > 0 ? config->every : 1;
    lsError err = {{0}};
    lsCanvas* canvas = NULL;
    bool ok = false;
    long long frames = 0;
    size_t bytes = 0;
    if (gif && !lsGifFrameCountOk((last - first) / every + 1, last - first, every, &err))
    {
        // err says it: nothing drawn
    }
    else if (SDL_Init(0) < 0)
    {
        lsFail(&err, "SDL_Init failed: %s", SDL_GetError());
    }
    else if ((canvas = lsCreateCanvas(config->width, config->height, &err)) != NULL)
    {
        lsCamera camera = lsInitialCamera(sim, config->width, config->height, lsWorldArea(canvas, &view));
        if (gif)
        {
            // One frame every `every` steps, shown as long as those steps lasted: it plays at the run's speed.
            lsGifWriter* writer = lsCreateGifWriter(config->width, config->height, every * lsRecording_Dt(rec), &err);
            ok = writer != NULL;
            for (long long step = first; ok && step <= last; step += every, ++frames)
                ok = DrawRecordedStep(rec, step, sim, canvas, &camera, &view, trail) &&
                     lsGifWriter_AddFrame(writer, canvas->surface, &err);
            ok = lsFinishGif(writer, ok ? config->outPath : NULL, &bytes, &err) && ok;
        }
        else
        {
            // A still: the step --steps N after the first (default: the first), or the last.
            ok = DrawRecordedStep(rec, last, sim, canvas, &camera, &view, trail) &&
                 lsSaveSurfaceImage(canvas->surface, config->outPath, &err);
            frames = 1;
        }
    }
    if (!ok)
        fprintf(stderr, "lidarsim render: %s\n", err.message[0] != '\0' ? err.message : "drawing failed");
    else if (gif)
    {
        char shown[1024];
        snprintf(shown, sizeof shown, "%s", config->outPath);
        lsEscapeControl(shown, sizeof shown); // a name from the command line may hold terminal escapes
        printf("lidarsim render: %s: %lld frame%s, %.0f KB\n", shown, frames, frames == 1 ? "" : "s",
               (double)bytes / 1024.0);
    }
    lsDestroyCanvas(canvas);
    lsFree(trail, sizeof(lsTrail));
    lsDestroyMapShade(shade);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    lsDestroyRecording(rec);
    SDL_Quit();
    return ok ? 0 : 1;
}

// lidarsim front end: input. Events become commands on the app's state; the sim only ever sees an lsControl.
#include "app/app.h"

#include "lidarsim/lidar.h"

#include <stdio.h>

/// Wheel zoom per notch: 15 % keeps a smooth feel on both notched wheels and touchpads.
#define LS_WHEEL_ZOOM 1.15

int lsNextRobot(const lsWorld* world, int selected, bool backwards, char* words, size_t capacity)
{
    static const char* const controllers[] = {"manual", "autopilot", "external"};
    int count = lsWorld_RobotCount(world);
    int current = selected >= 0 && selected < count ? selected : 0;
    int next = (current + (backwards ? count - 1 : 1)) % count;
    const lsRobotDef* robot = lsWorld_GetRobot(world, next);
    snprintf(words, capacity, "robot %d of %d: %s (%s in the file)", next + 1, count, robot->id,
             controllers[robot->controller]);
    return next;
}

const char* lsToggleFleetBeams(lsViewOptions* view)
{
    view->fleetBeams = !view->fleetBeams;
    return view->fleetBeams ? "beams of every robot" : "beams of the selected robot only";
}

static void ToggleBeams(lsApp* app, int direction)
{
    int beams = lsSim_GetBeams(app->sim);
    int next = direction > 0 ? beams * 2 : beams / 2;
    if (next < 1)
        next = 1;
    if (next > LS_MAX_BEAMS)
        next = LS_MAX_BEAMS;
    if (next == beams)
    {
        lsApp_SetStatus(app, "beams %d (the %s)", beams, next <= 1 ? "minimum" : "maximum");
        return;
    }
    app->beamsOverride = next;
    lsSim_SetBeams(app->sim, next);
    lsApp_SetStatus(app, "beams %d", next);
}

static void ApplyEditResult(lsApp* app, const lsEditResult* result)
{
    // The sim is rebuilt once before anything reads it again, not on every motion event of a drag.
    if (result->worldChanged)
    {
        app->simStale = true;
        app->restoreRuns = app->restoreRuns || result->undone;
        // A new edit clears the editor's redo history; the robots only a redo could bring back are gone for good.
        app->redoGone = app->redoGone || !result->undone;
        app->lastUndo = result->undone && !result->redone;
        lsApp_UpdateUnsaved(app);
    }
    if (result->robotPicked && result->robot >= 0 && result->robot < lsWorld_RobotCount(app->world))
    {
        // A robot clicked or added in the editor is the one the keys drive (kept by id across the sim's rebuild).
        lsApp_SelectRobot(app, lsWorld_GetRobot(app->world, result->robot)->id);
    }
    if (result->message[0] != '\0')
        lsApp_SetStatus(app, "%s", result->message);
    if (result->saveRequested)
        lsApp_Save(app);
}

static const char* OnOff(bool on) { return on ? "on" : "off"; }

static void HandleKey(lsApp* app, const SDL_KeyboardEvent* key)
{
    // The modifiers held when this key went down, not when it is handled: a busy machine handles a Q and a Ctrl+S
    // typed after it together, and the Q would read as Ctrl+Q (ignored).
    SDL_Keymod mod = (SDL_Keymod)key->keysym.mod;
    bool ctrl = (mod & KMOD_CTRL) != 0;
    // Every key says what it did: a toggle names the state it switched to.
    switch (key->keysym.sym)
    {
    case SDLK_ESCAPE:
    case SDLK_q:
        if (!ctrl)
            lsApp_RequestQuit(app);
        break;
    case SDLK_SPACE:
        app->paused = !app->paused;
        app->accumulator = 0.0;
        lsApp_SetStatus(app, "%s", app->paused ? "paused (Space runs, N steps)" : "running");
        break;
    case SDLK_n:
        if (app->paused)
            app->stepPresses += 1;
        else
            lsApp_SetStatus(app, "N steps once while paused (Space pauses)");
        break;
    case SDLK_r:
        lsSim_Reset(app->sim, lsSim_GetWorld(app->sim)->sim.seed);
        lsApp_ClearRuns(app); // a deleted robot brought back after a reset starts afresh too
        if (app->beamsOverride > 0 && lsSim_GetBeams(app->sim) != app->beamsOverride)
        {
            lsSim_SetBeams(app->sim, app->beamsOverride);
        }
        app->accumulator = 0.0;
        lsApp_RobotMoved(app);
        lsApp_SetStatus(app, "reset to time 0");
        break;
    case SDLK_p:
        app->autopilot = !app->autopilot;
        lsApp_SetStatus(app, "autopilot %s", app->autopilot ? "on (arrow keys take over)" : "off: drive with arrows");
        break;
    case SDLK_l:
        app->view.beams = (lsBeamMode)((app->view.beams + 1) % ls_beamModeCount);
        lsApp_SetStatus(app, "beams: %s", lsBeamModeName(app->view.beams));
        break;
    case SDLK_c:
        if (ctrl)
            break;
        app->view.beamColors = app->view.beamColors == ls_colorByKind ? ls_colorByIntensity : ls_colorByKind;
        lsApp_SetStatus(app, "beams coloured by %s", lsBeamColoringName(app->view.beamColors));
        break;
    case SDLK_g:
        app->view.grid = !app->view.grid;
        lsApp_SetStatus(app, "grid and scale bar %s", OnOff(app->view.grid));
        break;
    case SDLK_v:
        app->view.steering = !app->view.steering;
        lsApp_SetStatus(app, "vehicles' steering overlay %s", OnOff(app->view.steering));
        break;
    case SDLK_h:
        app->view.hud = !app->view.hud;
        // The world's area changed: a fitted view fits it again, so no panel comes to sit on the world.
        if (app->cameraFitted)
            lsApp_FitCamera(app);
        lsApp_SetStatus(app, "HUD %s (H)", OnOff(app->view.hud));
        break;
    case SDLK_o:
        app->view.scanPlot = !app->view.scanPlot;
        if (app->cameraFitted)
            lsApp_FitCamera(app);
        lsApp_SetStatus(app, "scan plot %s", OnOff(app->view.scanPlot));
        break;
    case SDLK_u:
        app->view.unknown = !app->view.unknown;
        if (app->shade == NULL)
            lsApp_SetStatus(app, "unknown map cells greyed %s (this world has no map)", OnOff(app->view.unknown));
        else
            lsApp_SetStatus(app, "unknown map cells greyed %s", OnOff(app->view.unknown));
        break;
    case SDLK_t:
        app->view.trail = !app->view.trail;
        lsApp_SetStatus(app, "trail %s", OnOff(app->view.trail));
        break;
    case SDLK_TAB:
    {
        // Cycle the robot the keys drive (and F follows, and the HUD shows) through the fleet; Shift goes back.
        const lsWorld* world = lsSim_GetWorld(app->sim);
        char words[LS_ROBOT_ID_CAPACITY + 64];
        int next = lsNextRobot(world, app->selected, (mod & KMOD_SHIFT) != 0, words, sizeof words);
        lsApp_SelectRobot(app, lsWorld_GetRobot(world, next)->id);
        if (app->editor != NULL && lsEditor_IsActive(app->editor) && !app->simStale)
            lsEditor_Select(app->editor, app->world, lsMakeEditRef(ls_editRobot, next, 0));
        lsApp_SetStatus(app, "driving %s; autopilot %s", words, app->autopilot ? "on, arrows take over" : "off");
        break;
    }
    case SDLK_b:
        lsApp_SetStatus(app, "%s", lsToggleFleetBeams(&app->view));
        break;
    case SDLK_f:
        app->follow = !app->follow;
        if (lsWorld_RobotCount(app->world) > 1)
            lsApp_SetStatus(app, "follow robot %s %s (Tab selects another)", app->selectedId, OnOff(app->follow));
        else
            lsApp_SetStatus(app, "follow the robot %s", OnOff(app->follow));
        break;
    case SDLK_F1:
        app->view.help = !app->view.help;
        break;
    case SDLK_F12:
        app->screenshots += 1;
        break;
    case SDLK_HOME:
        app->follow = false;
        lsApp_FitCamera(app);
        lsApp_SetStatus(app, "fitted the whole world");
        break;
    case SDLK_PLUS:
    case SDLK_EQUALS: // '+' is Shift+'=' on most layouts
    case SDLK_KP_PLUS:
        ToggleBeams(app, +1);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        ToggleBeams(app, -1);
        break;
    default:
        break;
    }
}

void lsApp_HandleEvent(lsApp* app, const SDL_Event* event)
{
    if (event->type == SDL_MOUSEMOTION)
    {
        // Before the editor, which consumes the motion of its drags: the HUD's cursor showed the press point.
        app->haveCursor = true;
        app->cursorX = event->motion.x;
        app->cursorY = event->motion.y;
    }
    if (app->editor != NULL)
    {
        // The editor picks robots where they are shown; a stale sim's robots need not match the world's.
        const lsSimState* state = lsSim_GetState(app->sim);
        lsEditor_SetLiveRobots(app->editor, app->simStale ? NULL : state->robots, state->robotCount);
        lsEditor_SetWindowRobot(app->editor, app->selected);
        lsEditResult result;
        bool consumed =
            lsEditor_HandleEvent(app->editor, event, &app->camera, app->world, app->config.worldPath, &result);
        ApplyEditResult(app, &result);
        if (consumed)
            return;
    }
    if (app->simStale)
        lsApp_RebuildSim(app);
    switch (event->type)
    {
    case SDL_QUIT:
        lsApp_RequestQuit(app);
        break;
    case SDL_WINDOWEVENT:
        if (event->window.event == SDL_WINDOWEVENT_LEAVE)
            app->haveCursor = false;
        break;
    case SDL_KEYDOWN:
        HandleKey(app, &event->key);
        break;
    case SDL_MOUSEWHEEL:
    {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        double notches = event->wheel.preciseY != 0.0f ? (double)event->wheel.preciseY : (double)event->wheel.y;
        if (event->wheel.direction == SDL_MOUSEWHEEL_FLIPPED)
            notches = -notches;
        lsCamera_ZoomAt(&app->camera, lsV(mx, my), pow(LS_WHEEL_ZOOM, notches));
        app->cameraFitted = false;
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        // Right and middle always pan; left pans unless the editor owns it (it consumed the event above).
        app->panning = true;
        break;
    case SDL_MOUSEBUTTONUP:
        app->panning = false;
        break;
    case SDL_MOUSEMOTION:
        if (app->panning && (event->motion.state != 0))
        {
            app->follow = false; // a drag takes the camera back from follow mode
            lsCamera_Pan(&app->camera, lsV(event->motion.xrel, event->motion.yrel));
            app->cameraFitted = false;
        }
        break;
    default:
        break;
    }
}

lsControl lsApp_Control(lsApp* app)
{
    const Uint8* keys = SDL_GetKeyboardState(NULL);
    // Ctrl+S and friends belong to the editor, not to driving.
    bool ctrl = (SDL_GetModState() & KMOD_CTRL) != 0;
    int forward = (keys[SDL_SCANCODE_UP] || keys[SDL_SCANCODE_W]) - (keys[SDL_SCANCODE_DOWN] || keys[SDL_SCANCODE_S]);
    int left = (keys[SDL_SCANCODE_LEFT] || keys[SDL_SCANCODE_A]) - (keys[SDL_SCANCODE_RIGHT] || keys[SDL_SCANCODE_D]);
    bool driving = !ctrl && (forward != 0 || left != 0);
    if (app->autopilot && driving)
    {
        // Taking the wheel: a driving key turns the autopilot off, as in a car.
        app->autopilot = false;
        lsApp_SetStatus(app, "manual driving: autopilot off (P turns it back on)");
    }
    if (app->autopilot)
        return lsMakeAutopilotControl();
    if (ctrl)
        return lsMakeManualControl(0.0, 0.0);
    // The selected robot's own limits (a forklift is slower than an AMR).
    const lsWorld* world = lsSim_GetWorld(app->sim);
    const lsRobotDef* robot = lsWorld_GetRobot(world, app->selected < lsWorld_RobotCount(world) ? app->selected : 0);
    return lsMakeManualControl(forward * robot->maxSpeed, left * robot->maxTurnRate);
}

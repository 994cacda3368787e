// RenderTest: the camera's math, and the headless renderer checked pixel by pixel on tiny known worlds; the HUD's
// escaping of control characters and the F12 screenshots' names.
#define _POSIX_C_SOURCE 200809L // mkdtemp, fork
#include "test.h"

#include "app/app.h"
#include "app/camera.h"
#include "app/map_shade.h"
#include "app/render.h"
#include "lidarsim/lidar.h"
#include "lidarsim/sim.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 400
#define H 300

static bool SameColor(lsColor a, lsColor b, int tolerance)
{
    return abs(a.r - b.r) <= tolerance && abs(a.g - b.g) <= tolerance && abs(a.b - b.b) <= tolerance;
}

/// src drawn with alpha over dst (what SDL's blend mode does, up to rounding).
static lsColor Blend(lsColor src, int alpha, lsColor dst)
{
    return (lsColor){(Uint8)((src.r * alpha + dst.r * (255 - alpha)) / 255),
                     (Uint8)((src.g * alpha + dst.g * (255 - alpha)) / 255),
                     (Uint8)((src.b * alpha + dst.b * (255 - alpha)) / 255), 255};
}

/// True when some pixel within one pixel of the world point differs from the background (a thin line's pixels may
/// fall one pixel beside the exact line).
static bool DrawnNear(const SDL_Surface* surface, const lsCamera* camera, lsVec2 world)
{
    lsVec2 s = lsCamera_WorldToScreen(camera, world);
    for (int dy = -1; dy <= 1; ++dy)
    {
        for (int dx = -1; dx <= 1; ++dx)
        {
            int x = (int)floor(s.x) + dx, y = (int)floor(s.y) + dy;
            if (x < 0 || y < 0 || x >= surface->w || y >= surface->h)
                continue;
            if (!SameColor(lsSurfacePixel(surface, x, y), lsColorBackground, 2))
                return true;
        }
    }
    return false;
}

static lsColor PixelAt(const SDL_Surface* surface, const lsCamera* camera, lsVec2 world)
{
    lsVec2 s = lsCamera_WorldToScreen(camera, world);
    return lsSurfacePixel(surface, (int)floor(s.x), (int)floor(s.y));
}

/// A horizontal wall at y = 2 from x = -5 to 5, the robot at the origin looking up (+y), 8 beams all around
/// (one every 45 degrees, beam 4 straight ahead), a food target at (3, -1) and a poison target at (-3, -1).
static lsWorld* MakeTinyWorld(void)
{
    lsWorld* world = lsCreateWorld();
    snprintf(world->name, sizeof world->name, "tiny");
    lsVec2 wall[2] = {{-5.0, 2.0}, {5.0, 2.0}};
    lsWorld_AddWall(world, wall, 2, false);
    lsTargetDef food = lsDefaultTargetDef();
    food.center = lsV(3.0, -1.0);
    food.radius = 0.4;
    food.kind = ls_food;
    lsWorld_AddTarget(world, food);
    lsTargetDef poison = food;
    poison.center = lsV(-3.0, -1.0);
    poison.kind = ls_poison;
    lsWorld_AddTarget(world, poison);
    world->robot.position = lsV(0.0, 0.0);
    world->robot.angle = 0.5 * LS_PI;
    world->robot.radius = 0.25;
    world->robot.lidar.beams = 8;
    world->robot.lidar.fov = 2.0 * LS_PI;
    world->robot.lidar.range = 6.0;
    world->sim.respawn = false;
    return world;
}

static int CameraRoundTrip(void)
{
    lsCamera camera = lsMakeCamera(W, H);
    camera.center = lsV(12.5, -3.0);
    camera.zoom = 37.0;
    lsVec2 p = {13.25, -1.5};
    lsVec2 s = lsCamera_WorldToScreen(&camera, p);
    // y up in the world is y down on the screen.
    ENSURE(s.x > 0.5 * W && s.y < 0.5 * H);
    lsVec2 back = lsCamera_ScreenToWorld(&camera, s);
    ENSURE_SMALL(back.x - p.x, 1e-12);
    ENSURE_SMALL(back.y - p.y, 1e-12);
    // The world centre is the viewport's centre.
    lsVec2 c = lsCamera_WorldToScreen(&camera, camera.center);
    ENSURE_SMALL(c.x - 0.5 * W, 1e-12);
    ENSURE_SMALL(c.y - 0.5 * H, 1e-12);

    // Zooming about a screen point keeps the world point under it.
    lsVec2 mouse = {310.0, 47.0};
    lsVec2 before = lsCamera_ScreenToWorld(&camera, mouse);
    lsCamera_ZoomAt(&camera, mouse, 1.7);
    ENSURE_SMALL(camera.zoom - 37.0 * 1.7, 1e-9);
    lsVec2 after = lsCamera_ScreenToWorld(&camera, mouse);
    ENSURE_SMALL(after.x - before.x, 1e-9);
    ENSURE_SMALL(after.y - before.y, 1e-9);
    // Zoom stays within its limits.
    lsCamera_ZoomAt(&camera, mouse, 1e30);
    ENSURE(camera.zoom == LS_CAMERA_MAX_ZOOM);

    // Panning by a drag moves the world with the pointer.
    camera.zoom = 10.0;
    lsVec2 grabbed = lsCamera_ScreenToWorld(&camera, lsV(100.0, 100.0));
    lsCamera_Pan(&camera, lsV(30.0, -20.0));
    lsVec2 under = lsCamera_ScreenToWorld(&camera, lsV(130.0, 80.0));
    ENSURE_SMALL(under.x - grabbed.x, 1e-12);
    ENSURE_SMALL(under.y - grabbed.y, 1e-12);
    return 0;
}

static int CameraFit(void)
{
    lsCamera camera = lsMakeCamera(W, H);
    lsAABB box = {{-10.0, 5.0}, {30.0, 15.0}}; // 40 x 10: width limits
    lsCamera_Fit(&camera, box, 10.0);
    ENSURE_SMALL(camera.zoom - (W - 20.0) / 40.0, 1e-12);
    lsAABB view = lsCamera_ViewBounds(&camera);
    ENSURE(view.lower.x <= box.lower.x && view.upper.x >= box.upper.x);
    ENSURE(view.lower.y <= box.lower.y && view.upper.y >= box.upper.y);
    // Aspect is kept: one metre is as many pixels across as up.
    lsVec2 a = lsCamera_WorldToScreen(&camera, lsV(0.0, 0.0));
    lsVec2 b = lsCamera_WorldToScreen(&camera, lsV(1.0, 1.0));
    ENSURE_SMALL((b.x - a.x) + (b.y - a.y), 1e-9);
    // A degenerate box (a point) still gives a finite camera centred on it.
    lsCamera_Fit(&camera, (lsAABB){{3.0, 4.0}, {3.0, 4.0}}, 10.0);
    ENSURE(camera.center.x == 3.0 && camera.center.y == 4.0 && isfinite(camera.zoom) && camera.zoom > 0.0);
    // Resize keeps the centre and the zoom.
    double zoom = camera.zoom;
    lsCamera_Resize(&camera, 800, 200);
    ENSURE(camera.width == 800 && camera.height == 200 && camera.zoom == zoom && camera.center.x == 3.0);
    return 0;
}

typedef struct Fixture
{
    lsWorld* world;
    lsSim* sim;
    lsCanvas* canvas;
    SDL_Surface* surface; ///< the canvas's
    lsCamera camera;
} Fixture;

static bool OpenFixture(Fixture* f)
{
    memset(f, 0, sizeof *f);
    f->world = MakeTinyWorld();
    f->sim = lsCreateSim(f->world);
    lsError err;
    f->canvas = lsCreateCanvas(W, H, &err);
    if (f->canvas == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    f->surface = f->canvas->surface;
    f->camera = lsMakeCamera(W, H);
    f->camera.center = lsV(0.0, 0.0);
    f->camera.zoom = 40.0; // the view spans x in [-5, 5], y in [-3.75, 3.75]
    return true;
}

static void CloseFixture(Fixture* f)
{
    lsDestroyCanvas(f->canvas);
    lsDestroySim(f->sim);
    lsDestroyWorld(f->world);
}

static int PixelsAtKnownPlaces(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    const lsScan* scan = lsSim_GetScan(f.sim);
    ENSURE(scan != NULL && scan->count == 8);
    // Beam 4 points along the heading (+y) and hits the wall at (0, 2).
    ENSURE(scan->kinds[4] == ls_hitWall);
    ENSURE_SMALL(scan->points[4].x, 1e-9);
    ENSURE_SMALL(scan->points[4].y - 2.0, 1e-9);

    lsViewOptions view = lsDefaultViewOptions();
    view.grid = false; // grid lines and the axes would cross the places we read
    view.axes = false;
    view.hud = false;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);

    // The wall, away from any beam.
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(3.3, 2.0)), lsColorWall, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-4.2, 2.0)), lsColorWall, 0));
    // Just above and below the wall's 2-pixel stroke: not the wall.
    ENSURE(!SameColor(PixelAt(f.surface, &f.camera, lsV(3.3, 2.1)), lsColorWall, 40));
    ENSURE(!SameColor(PixelAt(f.surface, &f.camera, lsV(3.3, 1.9)), lsColorWall, 40));
    // Along beam 4, between the robot and the wall: the wall-hit colour blended over the background.
    lsColor expected = Blend(lsColorHitWall, LS_BEAM_ALPHA, lsColorBackground);
    for (int k = 0; k < 5; ++k) // y = 0.6, 0.9, ..., 1.8
    {
        double y = 0.6 + 0.3 * k;
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, y)), expected, 3));
    }
    // Beam 0 points backwards (-y) and returns nothing within 6 m: a faint line, still visible.
    ENSURE(scan->kinds[0] == ls_hitNone);
    lsColor faint = PixelAt(f.surface, &f.camera, lsV(0.0, -2.5));
    ENSURE(SameColor(faint, Blend(lsColorNoReturn, lsColorNoReturn.a, lsColorBackground), 3));
    ENSURE(!SameColor(faint, lsColorBackground, 0));
    // Where nothing is: exactly the background.
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-1.0, -2.5)), lsColorBackground, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(1.5, 3.2)), lsColorBackground, 0));
    // Targets in their colours, the robot in its own.
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(3.1, -0.9)), lsColorFood, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-3.0, -1.3)), lsColorPoison, 0));
    ENSURE(!SameColor(lsColorFood, lsColorPoison, 60));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.1, -0.1)), lsColorRobot, 0));
    SDL_UnlockSurface(f.surface);

    // Points: the line along beam 4 is gone, the no-return beam too; the hit point is marked in the wall-hit
    // colour (just below the wall's stroke).
    view.beams = ls_beamsPoints;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, 1.2)), lsColorBackground, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, -2.5)), lsColorBackground, 0));
    lsVec2 hit = lsCamera_WorldToScreen(&f.camera, lsV(0.0, 2.0));
    lsColor mark = lsSurfacePixel(f.surface, (int)hit.x, (int)hit.y + 1);
    ENSURE(SameColor(mark, lsColorHitWall, 0));
    SDL_UnlockSurface(f.surface);

    // Off: nothing of the scan, not even the hit point.
    view.beams = ls_beamsOff;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, 1.2)), lsColorBackground, 0));
    ENSURE(!SameColor(lsSurfacePixel(f.surface, (int)hit.x, (int)hit.y + 1), lsColorHitWall, 40));
    SDL_UnlockSurface(f.surface);

    // Coloured by intensity: beam 4's line takes the ramp's colour of its intensity.
    view.beams = ls_beamsHits;
    view.beamColors = ls_colorByIntensity;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    lsColor ramp = Blend(lsIntensityColor(scan->intensities[4]), LS_BEAM_ALPHA, lsColorBackground);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, 1.2)), ramp, 3));
    ENSURE(!SameColor(ramp, expected, 10));
    SDL_UnlockSurface(f.surface);
    view.beamColors = ls_colorByKind;

    // Hits only: beam 4 is back, the no-return beam stays hidden.
    view.beams = ls_beamsHits;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, 1.2)), expected, 3));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.0, -2.5)), lsColorBackground, 0));
    SDL_UnlockSurface(f.surface);
    CloseFixture(&f);
    return 0;
}

static int HudIsDrawn(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    lsHudInfo hud = {.worldName = "tiny", .fps = 60.0, .stepMs = 0.1, .drawMs = 2.0, .raysPerSecond = 480.0};
    lsRect r = lsHudRect(f.canvas, f.sim, &hud);
    ENSURE(r.x >= 0 && r.y >= 0 && r.x + r.w <= W && r.y + r.h <= H);

    int counts[2];
    lsColor corner[2];
    for (int pass = 0; pass < 2; ++pass)
    {
        view.hud = pass == 1;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, &hud));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        counts[pass] = 0;
        for (int y = r.y + 1; y < r.y + r.h - 1; ++y)
        {
            for (int x = r.x + 1; x < r.x + r.w - 1; ++x)
            {
                // Text is light on the dark panel (anti-aliased, so near the HUD colour rather than exactly it).
                lsColor c = lsSurfacePixel(f.surface, x, y);
                counts[pass] += c.r + c.g + c.b > 3 * 110 && SameColor(c, lsColorHud, 120);
            }
        }
        corner[pass] = lsSurfacePixel(f.surface, r.x, r.y);
        SDL_UnlockSurface(f.surface);
    }
    // Hundreds of glyph pixels with the HUD (the world alone has a wall crossing there), and the panel's edge.
    ENSURE(counts[1] > 300 && counts[1] > 2 * counts[0]);
    ENSURE(SameColor(corner[1], (lsColor){70, 76, 92, 255}, 0) && !SameColor(corner[0], corner[1], 10));
    CloseFixture(&f);
    return 0;
}

static int HudStaysInItsPanel(void)
{
    // A line wider than the column (the state line in edit mode with follow on: "running  autopilot off  follow
    // EDIT") goes on in a second line inside the panel instead of running past its right edge.
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    view.beams = ls_beamsOff; // no legend under the panel
    lsHudInfo plain = {.worldName = "tiny", .fps = 60.0, .raysPerSecond = 480.0};
    lsHudInfo busy = plain;
    busy.following = true;
    busy.editing = true;
    busy.snap = 0.05;
    lsRect r = lsHudRect(f.canvas, f.sim, &busy);
    lsRect shorter = lsHudRect(f.canvas, f.sim, &plain);
    ENSURE(r.w == shorter.w && r.h > shorter.h);
    ENSURE(r.x + r.w + 60 <= W);
    static unsigned char frames[2][4 * W * H]; // static: no heap to leak when a check fails
    size_t size = (size_t)f.surface->pitch * (size_t)f.surface->h;
    ENSURE(size <= sizeof frames[0]);
    for (int pass = 0; pass < 2; ++pass)
    {
        view.hud = pass == 1;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, &busy));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        memcpy(frames[pass], f.surface->pixels, size);
        SDL_UnlockSurface(f.surface);
    }
    // Right of the panel, along its rows, the frame with the HUD is the frame without it.
    int changed = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x + r.w; x < r.x + r.w + 60; ++x)
            changed += memcmp(frames[0] + (size_t)y * (size_t)f.surface->pitch + 4 * (size_t)x,
                              frames[1] + (size_t)y * (size_t)f.surface->pitch + 4 * (size_t)x, 4) != 0;
    ENSURE(changed == 0);
    CloseFixture(&f);
    return 0;
}

static int ReplayHasItsOwnHelp(void)
{
    // F1 in a replay shows the replay's keys (the HUD says "F1 keys" there too), not the live window's.
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    view.hud = false;
    static unsigned char frames[3][4 * W * H]; // static: no heap to leak when a check fails
    size_t size = (size_t)f.surface->pitch * (size_t)f.surface->h;
    ENSURE(size <= sizeof frames[0]);
    const char* replays[3] = {"REPLAY  paused", "REPLAY  paused", NULL};
    for (int pass = 0; pass < 3; ++pass)
    {
        view.help = pass > 0;
        lsHudInfo hud = {.worldName = "tiny", .replay = replays[pass]};
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, &hud));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        memcpy(frames[pass], f.surface->pixels, size);
        SDL_UnlockSurface(f.surface);
    }
    ENSURE(memcmp(frames[0], frames[1], size) != 0); // drawn in a replay
    ENSURE(memcmp(frames[1], frames[2], size) != 0); // and not the live window's list
    int count = 0;
    while (lsReplayHelpLines[count] != NULL)
        ++count;
    ENSURE(count > 10 && strstr(lsReplayHelpLines[0], "play / pause") != NULL);
    CloseFixture(&f);
    return 0;
}

static int HudEscapesControl(void)
{
    // A world name and a status with control characters (a terminal escape, a bell) draw exactly as their escaped
    // text would: the characters never reach the screen raw.
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    view.hud = true;
    const char* names[2] = {"evil\x1b[2Jname", "evil\\x1B[2Jname"};
    const char* statuses[2] = {"saved \x07robot\x1b]0;x", "saved \\x07robot\\x1B]0;x"};
    static unsigned char frames[2][4 * W * H]; // static: no heap to leak when a check fails
    size_t size = (size_t)f.surface->pitch * (size_t)f.surface->h;
    ENSURE(size <= sizeof frames[0]);
    for (int pass = 0; pass < 2; ++pass)
    {
        lsHudInfo hud = {.worldName = names[pass], .status = statuses[pass], .fps = 60.0, .raysPerSecond = 480.0};
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, &hud));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        memcpy(frames[pass], f.surface->pixels, size);
        SDL_UnlockSurface(f.surface);
    }
    ENSURE(memcmp(frames[0], frames[1], size) == 0);
    CloseFixture(&f);
    return 0;
}

// Counts the files in folder whose names start with prefix, and checks each is a whole PNG (signature and IEND).
static int CountPngs(const char* folder, const char* prefix, int* bad)
{
    DIR* d = opendir(folder);
    int count = 0;
    *bad = 0;
    for (struct dirent* e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d))
    {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        FILE* file = fopen(path, "rb");
        unsigned char head[8] = {0}, tail[8] = {0};
        bool whole = file != NULL && fread(head, 1, 8, file) == 8 && fseek(file, -8, SEEK_END) == 0 &&
                     fread(tail, 1, 8, file) == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 &&
                     memcmp(tail, "IEND", 4) == 0;
        if (file != NULL)
            fclose(file);
        count += 1;
        *bad += whole ? 0 : 1;
    }
    if (d != NULL)
        closedir(d);
    return count;
}

static int ScreenshotNamesNeverCollide(void)
{
    // F12 in two windows at once, within one second: every shot gets a name of its own (-2, -3, ...), claimed before
    // it is written, so neither fails and neither replaces the other; a file already there is never touched.
    Fixture f;
    ENSURE(OpenFixture(&f));
    char folder[] = "/tmp/lidarsim-shots-XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    const long long when = 1700000000;
    char first[512];
    lsError err = {{0}};
    ENSURE(lsSaveScreenshot(f.surface, folder, "worlds/tiny.json", when, first, sizeof first, &err));
    // Someone else's file at the next name: skipped, kept.
    char taken[512];
    snprintf(taken, sizeof taken, "%.*s-2.png", (int)(strlen(first) - 4), first);
    FILE* other = fopen(taken, "w");
    ENSURE(other != NULL && fputs("keep", other) >= 0 && fclose(other) == 0);
    char second[512];
    ENSURE(lsSaveScreenshot(f.surface, folder, "worlds/tiny.json", when, second, sizeof second, &err));
    ENSURE(strcmp(second, first) != 0 && strcmp(second, taken) != 0);
    // Two processes racing for the same names, 12 shots each.
    pid_t children[2];
    for (int c = 0; c < 2; ++c)
    {
        children[c] = fork();
        ENSURE(children[c] >= 0);
        if (children[c] == 0)
        {
            int failures = 0;
            for (int k = 0; k < 12; ++k)
            {
                char path[512];
                lsError childErr = {{0}};
                failures +=
                    lsSaveScreenshot(f.surface, folder, "worlds/tiny.json", when, path, sizeof path, &childErr) ? 0 : 1;
            }
            _exit(failures == 0 ? 0 : 1);
        }
    }
    for (int c = 0; c < 2; ++c)
    {
        int status = 0;
        ENSURE(waitpid(children[c], &status, 0) == children[c]);
        ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    int bad;
    ENSURE(CountPngs(folder, "tiny-", &bad) == 2 + 24 + 1);
    ENSURE(bad == 1); // the file that was there, untouched
    other = fopen(taken, "r");
    char text[8] = {0};
    ENSURE(other != NULL && fread(text, 1, sizeof text - 1, other) == 4 && strcmp(text, "keep") == 0);
    fclose(other);
    ENSURE(CountPngs(folder, ".lidarsim-", &bad) == 0); // no temporary file left
    DIR* d = opendir(folder);
    for (struct dirent* e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d))
    {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (d != NULL)
        closedir(d);
    ENSURE(rmdir(folder) == 0);
    CloseFixture(&f);
    return 0;
}

static int ClipsFarGeometry(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    view.grid = false;
    view.axes = false;
    view.hud = false;

    // Zoomed in 10 000 pixels per metre on a point of the wall: its ends are 50 000 pixels away, beyond the
    // 16-bit coordinates of SDL2_gfx. Clipped first, the wall still crosses the whole view at the right row.
    f.camera.zoom = 1.0e4;
    f.camera.center = lsV(2.5, 2.0);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    lsVec2 s = lsCamera_WorldToScreen(&f.camera, lsV(2.5, 2.0));
    int row = (int)floor(s.y);
    for (int x = 0; x < W; x += 7)
    {
        ENSURE(SameColor(lsSurfacePixel(f.surface, x, row), lsColorWall, 0));
    }
    ENSURE(SameColor(lsSurfacePixel(f.surface, W / 2, row - 20), lsColorBackground, 0));
    ENSURE(SameColor(lsSurfacePixel(f.surface, W / 2, row + 20), lsColorBackground, 0));
    SDL_UnlockSurface(f.surface);

    // Looking far away from everything: nothing wraps around into the view.
    f.camera.zoom = 40.0;
    f.camera.center = lsV(1000.0, -800.0);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    for (int y = 0; y < H; y += 3)
    {
        for (int x = 0; x < W; x += 3)
        {
            ENSURE(SameColor(lsSurfacePixel(f.surface, x, y), lsColorBackground, 0));
        }
    }
    SDL_UnlockSurface(f.surface);

    // Zoomed in on the inside of a target: the whole view is its colour (a huge disc drawn as a clipped polygon).
    f.camera.zoom = 1.0e4;
    f.camera.center = lsV(3.0, -1.0);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(lsSurfacePixel(f.surface, 0, 0), lsColorFood, 0));
    ENSURE(SameColor(lsSurfacePixel(f.surface, W - 1, H - 1), lsColorFood, 0));
    SDL_UnlockSurface(f.surface);
    CloseFixture(&f);
    return 0;
}

static int FollowsTheSim(void)
{
    // After the robot turns, the beam along its heading moves with it: the drawing reads the sim's state.
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsViewOptions view = lsDefaultViewOptions();
    view.grid = false;
    view.axes = false;
    view.hud = false;
    lsControl turn = lsMakeManualControl(0.0, -f.world->robot.maxTurnRate);
    // Turn right until the heading is within a few degrees of -45 degrees from +y (towards +x).
    for (int i = 0; i < 600; ++i)
    {
        double a = lsSim_GetState(f.sim)->robot.angle;
        if (fabs(lsWrapAngle(a - 0.25 * LS_PI)) < 0.05)
            break;
        lsSim_Step(f.sim, &turn);
    }
    // Let it stop and scan again.
    for (int i = 0; i < 30; ++i)
        lsSim_Step(f.sim, NULL);
    const lsSimState* state = lsSim_GetState(f.sim);
    ENSURE(fabs(lsWrapAngle(state->robot.angle - 0.5 * LS_PI)) > 0.5);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    // The robot is drawn where the sim says it is.
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsAdd(state->robot.position, lsV(-0.12, 0.0))), lsColorRobot, 0));
    // Every beam that hit the wall has its line drawn halfway to its hit point.
    const lsScan* scan = lsSim_GetScan(f.sim);
    int checked = 0;
    for (int i = 0; i < scan->count; ++i)
    {
        if (scan->kinds[i] != ls_hitWall)
            continue;
        lsVec2 mid = lsLerp(scan->pose.p, scan->points[i], 0.6);
        ENSURE(DrawnNear(f.surface, &f.camera, mid));
        ++checked;
    }
    ENSURE(checked >= 2);
    SDL_UnlockSurface(f.surface);
    CloseFixture(&f);
    return 0;
}

// A fleet of two: the selected robot's scan is drawn in full (by hit kind), the other's in its own hue and fainter;
// B (fleetBeams off) leaves only the selected robot's; the selected robot is ringed; a beam that hits a robot takes
// that robot's hue.
static int SelectedRobot(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    lsRobotDef b = f.world->robot;
    snprintf(b.id, sizeof b.id, "b");
    b.position = lsV(3.5, 0.0);
    ENSURE(lsWorld_AddRobot(f.world, &b) == 1);
    lsDestroySim(f.sim);
    f.sim = lsCreateSim(f.world);
    const lsSimState* state = lsSim_GetState(f.sim);
    lsColor hue[2] = {lsHitColor(state, ls_hitRobot, 0), lsHitColor(state, ls_hitRobot, 1)};
    ENSURE(SameColor(hue[0], lsColorRobot, 0) && !SameColor(hue[1], lsColorRobot, 30));
    lsViewOptions view = lsDefaultViewOptions();
    view.grid = false;
    view.axes = false;
    view.hud = false;
    lsColor full = Blend(lsColorHitWall, LS_BEAM_ALPHA, lsColorBackground);
    lsVec2 upA = lsV(0.0, 1.2), upB = lsV(3.5, 1.2); // on each robot's beam straight up to the wall
    for (int selected = 0; selected < 2; ++selected)
    {
        view.robot = selected;
        view.fleetBeams = true;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        lsVec2 mine = selected == 0 ? upA : upB, other = selected == 0 ? upB : upA;
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, mine), full, 3));
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, other),
                         Blend(hue[1 - selected], LS_BEAM_ALPHA / 2, lsColorBackground), 3));
        // The ring round the selected robot (14 pixels out: its 10-pixel radius and 4), between its beams.
        for (int r = 0; r < 2; ++r)
        {
            lsVec2 s = lsCamera_WorldToScreen(&f.camera, state->robots[r].position);
            lsColor ring =
                lsSurfacePixel(f.surface, (int)lround(s.x + 14.0 * cos(0.39)), (int)lround(s.y - 14.0 * sin(0.39)));
            ENSURE(SameColor(ring, lsColorBackground, 2) == (r != selected));
        }
        SDL_UnlockSurface(f.surface);

        view.fleetBeams = false;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, mine), full, 3));
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, other), lsColorBackground, 0));
        SDL_UnlockSurface(f.surface);
    }
    CloseFixture(&f);
    return 0;
}

// Copies the canvas's pixels (RGBA, W x H) into out.
static bool CopyPixels(const SDL_Surface* surface, uint8_t* out)
{
    if (SDL_LockSurface((SDL_Surface*)surface) < 0)
        return false;
    for (int y = 0; y < H; ++y)
        memcpy(out + (size_t)y * W * 4, (const uint8_t*)surface->pixels + (size_t)y * (size_t)surface->pitch,
               (size_t)W * 4);
    SDL_UnlockSurface((SDL_Surface*)surface);
    return true;
}

// The largest difference of any channel of any pixel between two frames.
static int MaxDifference(const uint8_t* a, const uint8_t* b)
{
    int worst = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; ++i)
        worst = abs(a[i] - b[i]) > worst ? abs(a[i] - b[i]) : worst;
    return worst;
}

// The cached static layers: the same view drawn twice builds them, a third time reuses them, and every frame looks
// as drawn without them (walls over beams, crossing walls, a box, a path, the grid and axes); an edited world or a
// moved camera is never drawn from a stale cache.
static int StaticLayers(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    // More static objects: a box, a path, and a closed wall crossing the straight one (overlapping coverage).
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(-3.0, 1.0);
    box.size = lsV(0.8, 0.5);
    box.angle = 0.3;
    lsWorld_AddBox(f.world, box);
    lsVec2 path[3] = {{-4.0, -3.0}, {0.0, -2.5}, {4.0, -3.0}};
    lsWorld_AddPath(f.world, "lane", path, 3, 0.3, false);
    lsVec2 ring[4] = {{1.0, 1.5}, {2.5, 1.7}, {2.3, 2.6}, {1.2, 2.4}};
    lsWorld_AddWall(f.world, ring, 4, true);
    lsDestroySim(f.sim);
    f.sim = lsCreateSim(f.world);
    lsViewOptions view = lsDefaultViewOptions();
    view.hud = false;

    size_t bytes = (size_t)W * H * 4;
    uint8_t* direct = lsAlloc(bytes);
    uint8_t* frame = lsAlloc(bytes);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL) && CopyPixels(f.surface, direct));
    lsLayerStats stats = lsCanvas_LayerStats(f.canvas);
    ENSURE(stats.direct == 1 && stats.builds == 0 && stats.hits == 0);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL) && CopyPixels(f.surface, frame));
    ENSURE(MaxDifference(direct, frame) <= 2);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL) && CopyPixels(f.surface, frame));
    ENSURE(MaxDifference(direct, frame) <= 2);
    stats = lsCanvas_LayerStats(f.canvas);
    ENSURE(stats.direct == 1 && stats.builds == 1 && stats.hits == 1);
    // Where a wall is drawn whole, the cached wall is exactly the wall colour.
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-4.2, 2.0)), lsColorWall, 0));
    SDL_UnlockSurface(f.surface);

    // The straight wall moved down a metre (as the editor or a reload would): the old place is empty at once.
    f.world->walls[0].points[0].y = 1.0;
    f.world->walls[0].points[1].y = 1.0;
    lsDestroySim(f.sim);
    f.sim = lsCreateSim(f.world);
    for (int i = 0; i < 3; ++i)
    {
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-4.2, 1.0)), lsColorWall, 0));
        ENSURE(!SameColor(PixelAt(f.surface, &f.camera, lsV(-4.2, 2.0)), lsColorWall, 40));
        SDL_UnlockSurface(f.surface);
    }
    stats = lsCanvas_LayerStats(f.canvas);
    ENSURE(stats.direct == 2 && stats.builds == 2 && stats.hits == 2);

    // A drag moves the view by whole pixels: the layers scroll (only the uncovered strips are drawn), and each frame
    // looks as drawn afresh on a new canvas, in x, in y, both, and back.
    lsError err;
    lsCanvas* fresh = lsCreateCanvas(W, H, &err);
    ENSURE(fresh != NULL);
    const double moves[6][2] = {{10, 0}, {-3, 0}, {0, 7}, {0, -12}, {5, -4}, {-25, 31}};
    for (int i = 0; i < 6; ++i)
    {
        f.camera.center.x += moves[i][0] / f.camera.zoom;
        f.camera.center.y += moves[i][1] / f.camera.zoom;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL) && CopyPixels(f.surface, frame));
        ENSURE(lsDrawFrame(fresh, &f.camera, f.sim, &view, NULL) && CopyPixels(fresh->surface, direct));
        ENSURE(MaxDifference(direct, frame) <= 2);
    }
    lsDestroyCanvas(fresh);
    stats = lsCanvas_LayerStats(f.canvas);
    ENSURE(stats.direct == 2 && stats.builds == 2 && stats.hits == 2 && stats.scrolls == 6);
    // A camera that moves by fractions of a pixel every frame (follow mode) draws directly: no cache built that
    // nobody reuses.
    for (int i = 0; i < 4; ++i)
    {
        f.camera.center.x += 0.013;
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
        ENSURE(SDL_LockSurface(f.surface) == 0);
        ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-2.2, 1.0)), lsColorWall, 0));
        SDL_UnlockSurface(f.surface);
    }
    stats = lsCanvas_LayerStats(f.canvas);
    ENSURE(stats.direct == 6 && stats.builds == 2 && stats.hits == 2 && stats.scrolls == 6);
    // The grid switched off is redrawn too, not copied from the cache.
    view.grid = false;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(lsCanvas_LayerStats(f.canvas).hits == 2);

    // With the caller's revision (the window's count of sim rebuilds) the world is not hashed: the same revision
    // reuses the layers, a new one draws the world as it is now.
    view.worldRevision = 7;
    for (int i = 0; i < 3; ++i)
        ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(lsCanvas_LayerStats(f.canvas).hits == 3);
    lsWorld* moved = lsCloneWorld(f.world);
    moved->walls[0].points[0].y = 0.5;
    moved->walls[0].points[1].y = 0.5;
    lsSim* sim = lsCreateSim(moved);
    view.worldRevision = 8;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-2.2, 0.5)), lsColorWall, 0));
    ENSURE(!SameColor(PixelAt(f.surface, &f.camera, lsV(-2.2, 1.0)), lsColorWall, 40));
    SDL_UnlockSurface(f.surface);
    ENSURE(lsCanvas_LayerStats(f.canvas).hits == 3);
    lsDestroySim(sim);
    lsDestroyWorld(moved);
    lsFree(direct, bytes);
    lsFree(frame, bytes);
    CloseFixture(&f);
    return 0;
}

// A map's unknown cells greyed: where a cell is unknown its pixels are lsColorUnknown, free cells stay background,
// U (view.unknown) off shows none; a rotated map's cells land where its yaw puts them; a map wider than
// LS_MAP_SHADE_MAX_SIDE is averaged into shares.
static int UnknownCells(void)
{
    Fixture f;
    ENSURE(OpenFixture(&f));
    // 4 x 2 cells of 1 m from (-4, -3) (below the wall): the top row unknown except its first cell, the bottom row
    // free except one wall cell.
    uint8_t cells[8] = {ls_cellFree, ls_cellUnknown, ls_cellUnknown, ls_cellUnknown,
                        ls_cellFree, ls_cellWall,    ls_cellFree,    ls_cellFree};
    lsGrid grid = {.width = 4, .height = 2, .cells = cells, .resolution = 1.0, .origin = {-4.0, -3.0}, .yaw = 0.0};
    lsMapShade* shade = lsCreateMapShade(&grid);
    ENSURE(shade->factor == 1 && shade->width == 4 && shade->height == 2 && shade->unknownCells == 3);
    lsViewOptions view = lsDefaultViewOptions();
    view.grid = false;
    view.axes = false;
    view.hud = false;
    view.beams = ls_beamsOff;
    view.mapShade = shade;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-2.5, -1.5)), lsColorUnknown, 0)); // top row, cell 1
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-0.1, -1.1)), lsColorUnknown, 0)); // top row, cell 3
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-3.5, -1.5)), lsColorBackground, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-2.5, -2.5)), lsColorBackground, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(0.5, -1.5)), lsColorBackground, 0)); // right of the map
    SDL_UnlockSurface(f.surface);
    view.unknown = false;
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-2.5, -1.5)), lsColorBackground, 0));
    SDL_UnlockSurface(f.surface);
    lsDestroyMapShade(shade);

    // Turned a quarter about its origin (-4, -3): lattice (u, v) lands at (-4 - v, -3 + u), so the top row's unknown
    // cells (v in [1, 2]) lie at x in [-6, -5], y from -2 to 1.
    grid.yaw = 0.5 * LS_PI;
    shade = lsCreateMapShade(&grid);
    view.mapShade = shade;
    view.unknown = true;
    f.camera.center = lsV(-4.0, -1.0);
    ENSURE(lsDrawFrame(f.canvas, &f.camera, f.sim, &view, NULL));
    ENSURE(SDL_LockSurface(f.surface) == 0);
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-5.5, -0.5)), lsColorUnknown, 0));
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-5.5, -2.5)), lsColorBackground, 0)); // u in [0, 1]: free
    ENSURE(SameColor(PixelAt(f.surface, &f.camera, lsV(-4.5, -0.5)), lsColorBackground, 0)); // the bottom row
    SDL_UnlockSurface(f.surface);
    lsDestroyMapShade(shade);

    // 4100 x 3 cells, every other column unknown: averaged by 3 into 1367 x 1 shares of 1/3 or 2/3 (255 * 3/9 = 85
    // or 170); the last column of shade cells holds the two cells left over.
    int wide = 4100;
    uint8_t* many = lsAlloc((size_t)wide * 3);
    for (int k = 0; k < wide * 3; ++k)
        many[k] = (k % wide) % 2 == 1 ? ls_cellUnknown : ls_cellFree;
    lsGrid big = {.width = wide, .height = 3, .cells = many, .resolution = 0.05, .origin = {0.0, 0.0}};
    shade = lsCreateMapShade(&big);
    ENSURE(shade->factor == 3 && shade->width == 1367 && shade->height == 1 && shade->unknownCells == 3LL * 2050);
    ENSURE(shade->unknown[0] == 85 && shade->unknown[1] == 170 && shade->unknown[1366] == 128);
    lsDestroyMapShade(shade);
    lsFree(many, (size_t)wide * 3);
    CloseFixture(&f);
    return 0;
}

int RenderTest(void)
{
    RUN_SUBTEST(CameraRoundTrip);
    RUN_SUBTEST(CameraFit);
    RUN_SUBTEST(PixelsAtKnownPlaces);
    RUN_SUBTEST(HudIsDrawn);
    RUN_SUBTEST(HudEscapesControl);
    RUN_SUBTEST(HudStaysInItsPanel);
    RUN_SUBTEST(ReplayHasItsOwnHelp);
    RUN_SUBTEST(ScreenshotNamesNeverCollide);
    RUN_SUBTEST(ClipsFarGeometry);
    RUN_SUBTEST(FollowsTheSim);
    RUN_SUBTEST(SelectedRobot);
    RUN_SUBTEST(StaticLayers);
    RUN_SUBTEST(UnknownCells);
    return 0;
}

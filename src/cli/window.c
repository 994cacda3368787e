// lidarsim [WORLD.json] [options] (the window) and lidarsim render: their command lines, parsed here with the
// other commands; src/app draws (app/frontend.h). Without the SDL2 front end they still parse and say so.
#include "app/frontend.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "lidarsim/world.h" // LS_MAX_BEAMS

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// "WxH" with each side in 16..16384 pixels.
static bool ParseSize(const char* s, int* w, int* h)
{
    char text[64];
    size_t length = strlen(s);
    const char* x = strpbrk(s, "xX");
    if (length >= sizeof text || x == NULL)
        return false;
    memcpy(text, s, length + 1);
    text[x - s] = '\0';
    long long a = 0, b = 0;
    if (!lsParseInteger(text, 16, 16384, &a) || !lsParseInteger(text + (x - s) + 1, 16, 16384, &b))
        return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

static bool ParseInt(const char* s, int lo, int hi, int* out)
{
    long long v = 0;
    if (!lsParseInteger(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

static void WindowUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim [WORLD.json] [options]\n"
                 "Opens the window on WORLD.json (default: worlds/default.json). Press F1 in the window for the keys.\n"
                 "  --beams N          lidar beams (default: the world's)\n"
                 "  --paused           start paused (Space runs, N steps once)\n"
                 "  --autopilot        start with the autopilot driving (P toggles; the arrow keys take over)\n"
                 "  --size WxH         window size in pixels (default 1280x800)\n"
                 "  --screenshots DIR  where F12 writes screenshots (default: the current directory)\n"
                 "  --frames N         draw N frames as fast as possible, print the frame-time split, exit\n"
                 "  --vsync            wait for the display refresh even with --frames\n"
                 "  --print-pose       print the robot's final pose (x y heading-degrees) on exit\n"
                 "  -h, --help         this help\n"
                 "Without a display use `lidarsim render` (PNG or JPEG) or `lidarsim run` (headless).\n");
}

enum
{
    optBeams = 256,
    optPaused,
    optAutopilot,
    optSize,
    optScreenshots,
    optFrames,
    optVsync,
    optPrintPose,
    optOutput,
    optSteps,
    optEvery,
    optSteering,
    optNoHud,
    optScanPlot,
};

static const struct option s_windowOptions[] = {
    {"beams", required_argument, NULL, optBeams},
    {"paused", no_argument, NULL, optPaused},
    {"autopilot", no_argument, NULL, optAutopilot},
    {"size", required_argument, NULL, optSize},
    {"screenshots", required_argument, NULL, optScreenshots},
    {"frames", required_argument, NULL, optFrames},
    {"vsync", no_argument, NULL, optVsync},
    {"print-pose", no_argument, NULL, optPrintPose},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

// One window option; false with err on a bad value.
static bool WindowOption(int c, const char* value, lsAppConfig* config, bool* vsyncAsked, lsError* err)
{
    switch (c)
    {
    case optBeams:
        if (!ParseInt(value, 1, LS_MAX_BEAMS, &config->beams))
            return lsFail(err, "--beams: expected an integer in 1..%d, got '%s'", LS_MAX_BEAMS, value);
        return true;
    case optFrames:
        if (!ParseInt(value, 1, 100000000, &config->frames))
            return lsFail(err, "--frames: expected a positive integer, got '%s'", value);
        return true;
    case optSize:
        if (!ParseSize(value, &config->width, &config->height))
            return lsFail(err, "--size: expected WxH (16..16384 each), got '%s'", value);
        return true;
    case optScreenshots:
        if (value[0] == '\0' || strlen(value) >= sizeof config->screenshotDir - 64)
            return lsFail(err, "--screenshots: expected a folder name, got '%.64s'", value);
        snprintf(config->screenshotDir, sizeof config->screenshotDir, "%s", value);
        return true;
    case optPaused:
        config->paused = true;
        return true;
    case optAutopilot:
        config->autopilot = true;
        return true;
    case optPrintPose:
        config->printPose = true;
        return true;
    case optVsync:
        *vsyncAsked = true;
        return true;
    default: // '?': err already says what
        return false;
    }
}

int lsCmdWindow(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        WindowUsage(stdout);
        return 0;
    }
    lsAppConfig config = {.width = 1280, .height = 800};
    bool vsyncAsked = false;
    lsOptions options;
    lsBeginOptions(&options, "lidarsim", argc, argv, s_windowOptions, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
        ok = WindowOption(c, value, &config, &vsyncAsked, &err);
    if (ok && options.positionalCount > 1)
        ok = lsFail(&err, "more than one world given ('%s'); the window shows one", options.positionals[1]);
    if (ok && options.positionalCount == 1)
    {
        if (strlen(options.positionals[0]) >= sizeof config.worldPath)
            ok = lsFail(&err, "world path longer than %zu bytes", sizeof config.worldPath - 1);
        else
            snprintf(config.worldPath, sizeof config.worldPath, "%s", options.positionals[0]);
    }
    lsEndOptions(&options);
    if (!ok)
    {
        fprintf(stderr, "lidarsim: %s (see lidarsim --help)\n", err.message);
        return 2;
    }
    // The benchmark measures drawing, so it does not wait for the refresh unless asked.
    config.vsync = config.frames == 0 || vsyncAsked;
#ifdef LS_HAVE_APP
    return lsRunWindow(&config);
#else
    fprintf(stderr, "lidarsim: built without the SDL2 front end; use `lidarsim run` or `lidarsim scan`\n");
    return 1;
#endif
}

static void RenderUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim render WORLD.json -o FILE.png|FILE.jpg|FILE.gif [options]\n"
                 "Draws what the window would show after N steps, without a display, and writes a PNG or a JPEG\n"
                 "(chosen by the file name's extension: .png, .jpg or .jpeg), or an animated GIF of the N steps\n"
                 "(.gif: a frame at step 0 and every K steps after, played at the simulation's speed).\n"
                 "  -o, --output FILE  the image to write (required)\n"
                 "  --steps N          simulate N fixed steps first (default 0)\n"
                 "  --every K          a GIF: one frame every K steps (default 4)\n"
                 "  --size WxH         image size in pixels (default 1280x800)\n"
                 "  --autopilot        the autopilot drives during the steps (default: the robot stands still)\n"
                 "  --beams N          lidar beams (default: the world's)\n"
                 "  --steering         draw the vehicles' steering overlay\n"
                 "  --scan-plot        draw the scan plot panel (range against angle)\n"
                 "  --no-hud           leave out the HUD panel\n"
                 "  -h, --help         this help\n"
                 "Exit status: 0 success, 1 the world cannot be read or the image cannot be written, 2 bad usage.\n");
}

static const struct option s_renderOptions[] = {
    {"output", required_argument, NULL, 'o'},
    {"steps", required_argument, NULL, optSteps},
    {"every", required_argument, NULL, optEvery},
    {"size", required_argument, NULL, optSize},
    {"autopilot", no_argument, NULL, optAutopilot},
    {"beams", required_argument, NULL, optBeams},
    {"steering", no_argument, NULL, optSteering},
    {"no-hud", no_argument, NULL, optNoHud},
    {"scan-plot", no_argument, NULL, optScanPlot},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

// One render option; false with err on a bad value.
static bool RenderOption(int c, const char* value, lsRenderConfig* config, lsError* err)
{
    switch (c)
    {
    case 'o':
        config->outPath = value;
        return true;
    case optSteps:
        if (!ParseInt(value, 0, 100000000, &config->steps))
            return lsFail(err, "--steps: expected an integer >= 0, got '%s'", value);
        return true;
    case optEvery:
        if (!ParseInt(value, 1, 100000000, &config->every))
            return lsFail(err, "--every: expected an integer >= 1, got '%s'", value);
        return true;
    case optBeams:
        if (!ParseInt(value, 1, LS_MAX_BEAMS, &config->beams))
            return lsFail(err, "--beams: expected an integer in 1..%d, got '%s'", LS_MAX_BEAMS, value);
        return true;
    case optSize:
        if (!ParseSize(value, &config->width, &config->height))
            return lsFail(err, "--size: expected WxH (16..16384 each), got '%s'", value);
        return true;
    case optAutopilot:
        config->autopilot = true;
        return true;
    case optSteering:
        config->steering = true;
        return true;
    case optNoHud:
        config->hud = false;
        return true;
    case optScanPlot:
        config->scanPlot = true;
        return true;
    default: // '?': err already says what
        return false;
    }
}

int lsCmdRender(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        RenderUsage(stdout);
        return 0;
    }
    lsRenderConfig config = {.width = 1280, .height = 800, .hud = true, .every = 4};
    lsOptions options;
    lsBeginOptions(&options, "render", argc, argv, s_renderOptions, "ho:");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
        ok = RenderOption(c, value, &config, &err);
    if (ok && options.positionalCount > 1)
        ok = lsFail(&err, "more than one world given ('%s')", options.positionals[1]);
    config.worldPath = ok && options.positionalCount == 1 ? options.positionals[0] : NULL;
    lsEndOptions(&options);
    if (ok && config.worldPath == NULL)
        ok = lsFail(&err, "missing WORLD.json");
    if (ok && config.outPath == NULL)
        ok = lsFail(&err, "missing -o FILE.png");
    if (ok && lsImageTypeOf(config.outPath) == ls_imageUnknown)
        ok = lsFail(&err, "-o %s: unknown image type; name the file .png, .jpg, .jpeg or .gif", config.outPath);
    if (!ok)
    {
        fprintf(stderr, "lidarsim render: %s (see lidarsim render --help)\n", err.message);
        return 2;
    }
#ifdef LS_HAVE_APP
    return lsRenderImage(&config);
#else
    fprintf(stderr, "lidarsim render: built without the SDL2 front end\n");
    return 1;
#endif
}

// lidarsim [WORLD.json] [options] (the window), lidarsim replay and lidarsim render: their command lines, parsed
// here with the other commands; src/app draws (app/frontend.h). Without the SDL2 front end they still parse and say
// so.
#include "app/frontend.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/recording.h" // lsIsRecordingFile
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

// The most steps (or frames) a render or the window's --frames takes, and so the longest --every: stated in their
// messages, which said ">= 0" and refused 2147483647.
#define MAX_STEPS 100000000

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
                 "Without a display use `lidarsim render` (PNG, JPEG or GIF) or `lidarsim run` (headless).\n");
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
    optSpeed,
    optStart,
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
        if (!ParseInt(value, 1, MAX_STEPS, &config->frames))
            return lsFail(err, "--frames: expected an integer in 1..%d, got '%s'", MAX_STEPS, value);
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

static void ReplayUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim replay REC.jsonl [WORLD.json] [options]\n"
                 "Opens the window on a recording made by `lidarsim run --record` and plays it, drawn as the live\n"
                 "window draws (beams from the recorded ranges). The world is the one the recording's header names\n"
                 "(found from the current folder or beside the recording), or WORLD.json; a world whose content is\n"
                 "not the one recorded is refused. Keys: Space play/pause, Right/Left (or . and ,) one step, with\n"
                 "Shift one recorded line (a scan), ] / [ (or + / -) faster / slower, Home / End, click or drag the\n"
                 "timeline to scrub; L C G T O H F Z F12 as in the live window, and in a fleet's recording Tab /\n"
                 "Shift+Tab (the robot F follows and the HUD shows) and B (the other robots' beams) (docs/window.md).\n"
                 "  --speed X          playback speed, 1 = real time (1/16 .. 64; default 1)\n"
                 "  --start STEP       show this step first (default: the first recorded)\n"
                 "  --paused           start paused\n"
                 "  --size WxH         window size in pixels (default 1280x800)\n"
                 "  --screenshots DIR  where F12 writes screenshots (default: the current directory)\n"
                 "  --frames N         draw N frames (playing at 60 frames per second of replay time) and exit\n"
                 "  --print-pose       print the first robot's shown pose (x y heading-degrees) and step on exit\n"
                 "  -h, --help         this help\n"
                 "Without a display use `lidarsim render REC.jsonl -o run.gif`.\n"
                 "Exit status: 0 success, 1 the recording or its world cannot be read or do not match, 2 bad usage.\n");
}

static const struct option s_replayOptions[] = {
    {"speed", required_argument, NULL, optSpeed},
    {"start", required_argument, NULL, optStart},
    {"paused", no_argument, NULL, optPaused},
    {"size", required_argument, NULL, optSize},
    {"screenshots", required_argument, NULL, optScreenshots},
    {"frames", required_argument, NULL, optFrames},
    {"print-pose", no_argument, NULL, optPrintPose},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

// One replay option; false with err on a bad value. The options it shares with the window parse alike.
static bool ReplayOption(int c, const char* value, lsReplayConfig* config, lsError* err)
{
    lsAppConfig window = {.width = config->width, .height = config->height};
    bool vsyncAsked = false;
    double speed = 0.0;
    long long start = 0;
    switch (c)
    {
    case optSpeed:
        if (!lsParseNumber(value, &speed) || !(speed >= 1.0 / 16.0 && speed <= 64.0))
            return lsFail(err, "--speed: expected a number in 0.0625..64, got '%s'", value);
        config->speed = speed;
        return true;
    case optStart:
        if (!lsParseInteger(value, 0, (long long)1 << 53, &start))
            return lsFail(err, "--start: expected a step >= 0, got '%s'", value);
        config->start = start;
        return true;
    default:
        if (!WindowOption(c, value, &window, &vsyncAsked, err))
            return false;
        config->width = window.width;
        config->height = window.height;
        config->paused = config->paused || window.paused;
        config->printPose = config->printPose || window.printPose;
        config->frames = window.frames > 0 ? window.frames : config->frames;
        if (window.screenshotDir[0] != '\0')
            snprintf(config->screenshotDir, sizeof config->screenshotDir, "%s", window.screenshotDir);
        return true;
    }
}

int lsCmdReplay(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        ReplayUsage(stdout);
        return 0;
    }
    lsReplayConfig config = {.width = 1280, .height = 800, .start = -1, .speed = 1.0};
    lsOptions options;
    lsBeginOptions(&options, "replay", argc, argv, s_replayOptions, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
        ok = ReplayOption(c, value, &config, &err);
    if (ok && options.positionalCount == 0)
        ok = lsFail(&err, "missing REC.jsonl");
    if (ok && options.positionalCount > 2)
        ok = lsFail(&err, "more than a recording and a world given ('%s')", options.positionals[2]);
    for (int i = 0; ok && i < options.positionalCount; ++i)
    {
        if (strlen(options.positionals[i]) >= LS_PATH_CAPACITY)
            ok = lsFail(&err, "path longer than %d bytes", LS_PATH_CAPACITY - 1);
    }
    if (ok)
        snprintf(config.recordingPath, sizeof config.recordingPath, "%s", options.positionals[0]);
    if (ok && options.positionalCount == 2)
        snprintf(config.worldPath, sizeof config.worldPath, "%s", options.positionals[1]);
    lsEndOptions(&options);
    if (!ok)
    {
        fprintf(stderr, "lidarsim replay: %s (see lidarsim replay --help)\n", err.message);
        return 2;
    }
    config.vsync = config.frames == 0;
#ifdef LS_HAVE_APP
    return lsRunReplay(&config);
#else
    fprintf(stderr, "lidarsim replay: built without the SDL2 front end; use `lidarsim run` or `lidarsim scan`\n");
    return 1;
#endif
}

static void RenderUsage(FILE* out)
{
    fprintf(out,
            "usage: lidarsim render WORLD.json -o FILE.png|FILE.jpg|FILE.gif [options]\n"
            "       lidarsim render REC.jsonl [WORLD.json] -o FILE.gif|FILE.png [options]\n"
            "Draws what the window would show after N steps, without a display, and writes a PNG or a JPEG\n"
            "(chosen by the file name's extension: .png, .jpg or .jpeg), or an animated GIF of the N steps\n"
            "(.gif: a frame at step 0 and every K steps after, played at the simulation's speed).\n"
            "From a recording (`lidarsim run --record`): a GIF of its steps (all, or the first N), a frame every K\n"
            "steps, drawn as `lidarsim replay` shows them; a still shows the step N after the first.\n"
            "  -o, --output FILE  the image to write (required)\n"
            "  --steps N          simulate N fixed steps first (default 0)\n"
            "  --every K          a GIF: one frame every K steps (default 4; at most 20000 frames in all)\n"
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
        if (!ParseInt(value, 0, MAX_STEPS, &config->steps))
            return lsFail(err, "--steps: expected an integer in 0..%d, got '%s'", MAX_STEPS, value);
        return true;
    case optEvery:
        if (!ParseInt(value, 1, MAX_STEPS, &config->every))
            return lsFail(err, "--every: expected an integer in 1..%d, got '%s'", MAX_STEPS, value);
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
    // A recording may name the world to replay it in: render REC.jsonl [WORLD.json].
    bool recording = ok && options.positionalCount >= 1 && lsIsRecordingFile(options.positionals[0]);
    int status = 2;
    if (ok && !recording && options.positionalCount == 2)
    {
        // REC WORLD whose first file is not a recording: what is wrong is that file, not the world after it.
        const char* first = options.positionals[0];
        lsFileStamp stamp;
        int code = 0;
        status = 1;
        if (!lsStatFile(first, &stamp, &code))
            ok = lsFail(&err, "%s: cannot read: %s", first, strerror(code));
        else if (stamp.regular && stamp.size == 0)
            ok = lsFail(&err, "%s: empty file, not a recording", first);
        else
        {
            status = 2;
            ok = lsFail(&err,
                        "%s: not a recording (its first line is not {\"lidarsim_recording\"...), so no world may "
                        "follow it ('%s')",
                        first, options.positionals[1]);
        }
    }
    else if (ok && options.positionalCount > (recording ? 2 : 1))
        ok = lsFail(&err, "more than one world given ('%s')", options.positionals[recording ? 2 : 1]);
    if (ok && recording && (config.autopilot || config.beams > 0))
        ok = lsFail(&err, "--autopilot and --beams do not apply to a recording: it shows what was recorded");
    config.worldPath = ok && options.positionalCount >= 1 ? options.positionals[0] : NULL;
    config.replayWorld = ok && recording && options.positionalCount == 2 ? options.positionals[1] : NULL;
    lsEndOptions(&options);
    if (ok && config.worldPath == NULL)
        ok = lsFail(&err, "missing WORLD.json");
    if (ok && config.outPath == NULL)
        ok = lsFail(&err, "missing -o FILE.png");
    if (ok && lsImageTypeOf(config.outPath) == ls_imageUnknown)
        ok = lsFail(&err, "-o %s: unknown image type; name the file .png, .jpg, .jpeg or .gif", config.outPath);
    if (!ok)
    {
        // A file that cannot be a recording is status 1 (it cannot be read), a misuse 2 with the help's pointer.
        fprintf(stderr, "lidarsim render: %s%s\n", err.message, status == 2 ? " (see lidarsim render --help)" : "");
        return status;
    }
#ifdef LS_HAVE_APP
    return lsRenderImage(&config);
#else
    fprintf(stderr, "lidarsim render: built without the SDL2 front end\n");
    return 1;
#endif
}

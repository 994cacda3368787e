// lidarsim front end: what the program (src/cli) calls to open the window or draw an image. No SDL in this header,
// so the command line is parsed in src/cli with the other commands and src/app never includes src/cli.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define LS_PATH_CAPACITY 1024

/// Command-line settings of the window (lidarsim [WORLD.json] [options]), parsed by src/cli/window.c.
typedef struct lsAppConfig
{
    char worldPath[LS_PATH_CAPACITY];     ///< empty: worlds/default.json here or next to the program
    char screenshotDir[LS_PATH_CAPACITY]; ///< F12 writes here; empty: the current directory
    int beams;                            ///< lidar beams; 0 keeps the world's
    bool paused;                          ///< start paused
    bool autopilot;                       ///< start with the autopilot driving
    int width, height;                    ///< window size in pixels
    int frames;     ///< > 0: draw this many frames, print the frame-time split and exit (benchmark mode)
    bool printPose; ///< print the robot's final pose on exit (scripted tests)
    bool vsync;     ///< wait for the display's refresh (off in --frames mode unless asked)
} lsAppConfig;

/// Opens the window and runs it until quit. Returns the exit status: 0, or 1 when there is no display, the world
/// cannot be read or SDL fails (the reason printed on stderr).
int lsRunWindow(const lsAppConfig* config);

/// `lidarsim replay REC.jsonl [WORLD.json]`: settings parsed by src/cli/replay.c.
typedef struct lsReplayConfig
{
    char recordingPath[LS_PATH_CAPACITY];
    char worldPath[LS_PATH_CAPACITY];     ///< empty: the world the recording's header names
    char screenshotDir[LS_PATH_CAPACITY]; ///< F12 writes here; empty: the current directory
    int width, height;                    ///< window size in pixels
    long long start;                      ///< the step shown first; -1: the recording's first
    double speed;                         ///< playback speed (1: real time), 1/16 .. 64
    bool paused;                          ///< start paused (else playing)
    int frames;                           ///< > 0: draw this many frames and exit (scripted tests)
    bool printPose;                       ///< print the shown pose and step of the first robot on exit (scripted tests)
    bool vsync;                           ///< wait for the display's refresh (off with --frames)
} lsReplayConfig;

/// Opens the window on a recording and plays it until quit. Returns the exit status: 0, or 1 when there is no
/// display, the recording or its world cannot be read, they do not match, or SDL fails (the reason on stderr).
int lsRunReplay(const lsReplayConfig* config);

/// `lidarsim render`: what the window would show after some steps, drawn without a display into an image file.
typedef struct lsRenderConfig
{
    const char* worldPath;   ///< a world, or a recording (lsIsRecordingFile): then its frames are drawn
    const char* replayWorld; ///< a recording's world when not the one its header names (NULL: that one)
    const char* outPath;     ///< .png, or .jpg / .jpeg (lsImageTypeOf says which)
    int steps;               ///< fixed steps simulated before drawing (a GIF: the steps it animates)
    int every;               ///< a GIF: one frame every this many steps (>= 1); the first frame is at step 0
    int beams;               ///< 0 keeps the world's
    int width, height;       ///< image size in pixels
    bool autopilot;          ///< the autopilot drives during the steps (else the robot stands still)
    bool steering;           ///< the vehicles' steering overlay
    bool hud;                ///< the HUD panel
    bool scanPlot;           ///< the scan plot panel (range against angle)
} lsRenderConfig;

/// Draws the image and writes it. Returns the exit status: 0, or 1 with the reason printed on stderr.
int lsRenderImage(const lsRenderConfig* config);

/// Image files the front end writes, chosen by the file name's extension (case-insensitive).
typedef enum lsImageType
{
    ls_imageUnknown = 0,
    ls_imagePng = 1,
    ls_imageJpeg = 2, ///< .jpg or .jpeg, through SDL2_image's IMG_SaveJPG
    ls_imageGif = 3,  ///< .gif: an animation (lidarsim render), through giflib
} lsImageType;

/// The type of image a path names by its extension; ls_imageUnknown for anything else. Inline, so the command
/// line can refuse a bad name at once even in a build without the front end.
static inline lsImageType lsImageTypeOf(const char* path)
{
    static const struct
    {
        const char* extension;
        lsImageType type;
    } known[] = {{".png", ls_imagePng}, {".jpg", ls_imageJpeg}, {".jpeg", ls_imageJpeg}, {".gif", ls_imageGif}};
    if (path == NULL)
        return ls_imageUnknown;
    size_t length = strlen(path);
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
    {
        size_t n = strlen(known[k].extension);
        bool same = length > n;
        for (size_t i = 0; same && i < n; ++i)
        {
            char c = path[length - n + i];
            same = (c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) == known[k].extension[i];
        }
        if (same)
            return known[k].type;
    }
    return ls_imageUnknown;
}

// lidarsim front end: the HUD panel, the reload error banner and the F1 help overlay, in SDL2_gfx's 8x8 font.
#include "app/render.h"

#include "lidarsim/lidar.h"

#include <SDL2/SDL2_gfxPrimitives.h>
#include <stdio.h>
#include <string.h>

#define LS_GLYPH 8     ///< SDL2_gfx's built-in font is 8x8 pixels
#define LS_LINE 12     ///< line height in pixels
#define LS_PAD 8       ///< panel padding in pixels
#define LS_HUD_LINES 7 ///< lines of the HUD panel
#define LS_HUD_COLUMNS 44

const char* const lsHelpLines[] = {
    "Arrows / WASD   drive the robot (manual)",
    "P               autopilot on / off",
    "Space           pause / run",
    "N               one step (while paused)",
    "R               reset the world",
    "L               beams: all / hits only / off",
    "+ / -           double / halve the beam count",
    "G               grid and scale bar",
    "V               vehicles' steering overlay",
    "F               follow the robot",
    "Home            fit the whole world",
    "Wheel           zoom about the pointer",
    "Drag            pan (right or middle button;",
    "                left too outside edit mode)",
    "F12             screenshot PNG next to the world",
    "E               edit mode: drag draws a wall or",
    "                moves the object under the mouse",
    "K               knife: drag across walls to cut",
    "Delete          remove the selected object",
    "Ctrl+Z, Ctrl+Y  undo, redo",
    "Ctrl+S          save the world to its file",
    "F1              this help",
    "Esc / Q         quit (Esc leaves edit mode first)",
    NULL,
};

static bool Text(SDL_Renderer* renderer, int x, int y, const char* s, lsColor c)
{
    if (stringRGBA(renderer, (Sint16)x, (Sint16)y, s, c.r, c.g, c.b, c.a) < 0)
    {
        fprintf(stderr, "lidarsim: stringRGBA failed: %s\n", SDL_GetError());
        return false;
    }
    return true;
}

static bool Panel(SDL_Renderer* renderer, SDL_Rect r, Uint8 alpha)
{
    if (boxRGBA(renderer, (Sint16)r.x, (Sint16)r.y, (Sint16)(r.x + r.w - 1), (Sint16)(r.y + r.h - 1), 8, 9, 12, alpha) <
            0 ||
        rectangleRGBA(renderer, (Sint16)r.x, (Sint16)r.y, (Sint16)(r.x + r.w - 1), (Sint16)(r.y + r.h - 1), 70, 76, 92,
                      255) < 0)
    {
        fprintf(stderr, "lidarsim: boxRGBA failed: %s\n", SDL_GetError());
        return false;
    }
    return true;
}

static void FormatMs(char* out, size_t size, double ms)
{
    if (ms > 0.0)
        snprintf(out, size, "%.2f", ms);
    else
        snprintf(out, size, "-");
}

static void FormatRate(char* out, size_t size, double perSecond)
{
    if (!(perSecond > 0.0))
        snprintf(out, size, "-");
    else if (perSecond >= 1e6)
        snprintf(out, size, "%.2fM", perSecond / 1e6);
    else if (perSecond >= 1e3)
        snprintf(out, size, "%.1fk", perSecond / 1e3);
    else
        snprintf(out, size, "%.0f", perSecond);
}

SDL_Rect lsHudRect(const lsSim* sim, const lsHudInfo* hud)
{
    (void)sim;
    (void)hud;
    return (SDL_Rect){LS_PAD, LS_PAD, LS_HUD_COLUMNS * LS_GLYPH + 2 * LS_PAD, LS_HUD_LINES * LS_LINE + 2 * LS_PAD - 4};
}

/// Word-wraps text into lines of at most `columns` characters (hard-splits longer words), calling back per line.
static bool WrappedText(SDL_Renderer* renderer, int x, int y, int columns, int maxLines, const char* text, lsColor c,
                        int* linesOut)
{
    char line[512];
    int lines = 0;
    size_t len = strlen(text);
    size_t pos = 0;
    if (columns < 8)
        columns = 8;
    if (columns > (int)sizeof line - 1)
        columns = (int)sizeof line - 1;
    while (pos < len && lines < maxLines)
    {
        size_t take = len - pos;
        if (take > (size_t)columns)
        {
            take = (size_t)columns;
            size_t space = take;
            while (space > 0 && text[pos + space] != ' ')
                --space;
            if (space > 0)
                take = space;
        }
        memcpy(line, text + pos, take);
        line[take] = '\0';
        // A newline inside the message ends the line there.
        char* nl = strchr(line, '\n');
        if (nl != NULL)
        {
            *nl = '\0';
            take = (size_t)(nl - line) + 1;
        }
        if (linesOut == NULL && !Text(renderer, x, y + lines * LS_LINE, line, c))
            return false;
        ++lines;
        pos += take;
        while (pos < len && text[pos] == ' ')
            ++pos;
    }
    if (linesOut != NULL)
        *linesOut = lines;
    return true;
}

static bool DrawErrorBanner(SDL_Renderer* renderer, const lsCamera* camera, const char* error)
{
    int columns = (camera->width - 4 * LS_PAD) / LS_GLYPH;
    int lines = 0;
    WrappedText(renderer, 0, 0, columns, 6, error, lsColorHud, &lines);
    int h = (lines + 1) * LS_LINE + 2 * LS_PAD;
    SDL_Rect r = {LS_PAD, camera->height - h - 34, camera->width - 2 * LS_PAD, h};
    if (boxRGBA(renderer, (Sint16)r.x, (Sint16)r.y, (Sint16)(r.x + r.w - 1), (Sint16)(r.y + r.h - 1), 70, 10, 16, 225) <
        0)
    {
        fprintf(stderr, "lidarsim: boxRGBA failed: %s\n", SDL_GetError());
        return false;
    }
    lsColor title = {255, 120, 120, 255};
    if (!Text(renderer, r.x + LS_PAD, r.y + LS_PAD, "reload failed, still showing the last good world:", title))
        return false;
    return WrappedText(renderer, r.x + LS_PAD, r.y + LS_PAD + LS_LINE, columns, 6, error, (lsColor){255, 220, 220, 255},
                       NULL);
}

static bool DrawHelp(SDL_Renderer* renderer, const lsCamera* camera)
{
    int count = 0, widest = 0;
    for (; lsHelpLines[count] != NULL; ++count)
    {
        int w = (int)strlen(lsHelpLines[count]);
        if (w > widest)
            widest = w;
    }
    int w = widest * LS_GLYPH + 4 * LS_PAD;
    int h = (count + 2) * LS_LINE + 3 * LS_PAD;
    SDL_Rect r = {(camera->width - w) / 2, (camera->height - h) / 2, w, h};
    if (r.x < 0)
        r.x = 0;
    if (r.y < 0)
        r.y = 0;
    if (!Panel(renderer, r, 235))
        return false;
    int x = r.x + 2 * LS_PAD, y = r.y + 2 * LS_PAD;
    if (!Text(renderer, x, y, "lidarsim keys", (lsColor){255, 200, 90, 255}))
        return false;
    y += 2 * LS_LINE;
    for (int i = 0; i < count; ++i, y += LS_LINE)
    {
        if (!Text(renderer, x, y, lsHelpLines[i], lsColorHud))
            return false;
    }
    return true;
}

bool lsDrawHud(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
               const lsHudInfo* hud)
{
    if (view->hud)
    {
        const lsSimState* state = lsSim_GetState(sim);
        const lsWorld* world = lsSim_GetWorld(sim);
        char lines[LS_HUD_LINES][96];
        char fps[16], step[16], draw[16], rays[16];
        FormatMs(step, sizeof step, hud->stepMs);
        FormatMs(draw, sizeof draw, hud->drawMs);
        FormatRate(rays, sizeof rays, hud->raysPerSecond);
        if (hud->fps > 0.0)
            snprintf(fps, sizeof fps, "%.0f", hud->fps);
        else
            snprintf(fps, sizeof fps, "-");
        const char* name = hud->worldName != NULL && hud->worldName[0] != '\0' ? hud->worldName : world->name;
        snprintf(lines[0], sizeof lines[0], "%.40s", name[0] != '\0' ? name : "(unnamed world)");
        if (hud->fps > 0.0 || hud->stepMs > 0.0 || hud->drawMs > 0.0)
        {
            snprintf(lines[1], sizeof lines[1], "fps %s  sim %s ms/step  draw %s ms", fps, step, draw);
        }
        else
        {
            snprintf(lines[1], sizeof lines[1], "headless frame (lidarsim render)");
        }
        if (hud->raysPerSecond > 0.0)
        {
            snprintf(lines[2], sizeof lines[2], "beams %d  rays/s %s", lsSim_GetBeams(sim), rays);
        }
        else
        {
            snprintf(lines[2], sizeof lines[2], "beams %d", lsSim_GetBeams(sim));
        }
        snprintf(lines[3], sizeof lines[3], "score %g  food %d  poison %d", state->score, state->food, state->poison);
        snprintf(lines[4], sizeof lines[4], "%s  autopilot %s%s%s", hud->paused ? "PAUSED" : "running",
                 hud->autopilot ? "on" : "off", hud->following ? "  follow" : "", hud->editing ? "  EDIT" : "");
        snprintf(lines[5], sizeof lines[5], "t %.1f s  step %lld  v %.2f m/s", state->time, state->step,
                 state->robot.v);
        snprintf(lines[6], sizeof lines[6], "F1 help%s%.30s", hud->status != NULL ? "  |  " : "",
                 hud->status != NULL ? hud->status : "");
        SDL_Rect r = lsHudRect(sim, hud);
        if (!Panel(renderer, r, 190))
            return false;
        for (int i = 0; i < LS_HUD_LINES; ++i)
        {
            lsColor c = i == 0 ? (lsColor){255, 200, 90, 255} : lsColorHud;
            if (i == 4 && hud->paused)
                c = (lsColor){255, 120, 120, 255};
            if (!Text(renderer, r.x + LS_PAD, r.y + LS_PAD + i * LS_LINE, lines[i], c))
                return false;
        }
    }
    if (hud->error != NULL && hud->error[0] != '\0' && !DrawErrorBanner(renderer, camera, hud->error))
        return false;
    if (view->help && !DrawHelp(renderer, camera))
        return false;
    return true;
}

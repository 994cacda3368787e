// lidarsim front end: the panels over the world, in TrueType text: the HUD column (state, pose, velocity, cursor,
// status, legend) on the left, the scan plot along the bottom, the reload error banner and the F1 help overlay.
// The world's camera fits beside them (lsWorldArea), so no panel hides the world after a fit.
#include "app/render.h"

#include "app/font.h"
#include "lidarsim/lidar.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LS_HUD_COLUMNS 34   ///< characters across the HUD column
#define LS_HUD_MAX_LINES 24 ///< lines of the HUD panel at most (the status takes up to 3)

const char* const lsHelpLines[] = {
    "Arrows / WASD   drive the robot (takes over from",
    "                the autopilot)",
    "P               autopilot on / off",
    "Space           pause / run",
    "N               one step (while paused)",
    "R               reset the world",
    "L               beams: lines / hit lines / points / off",
    "C               colour beams by hit kind / intensity",
    "+ / -           double / halve the beam count",
    "O               scan plot (range against angle)",
    "T               robot trail",
    "H               HUD panels",
    "G               grid and scale bar",
    "U               a map's unknown cells greyed",
    "V               vehicles' steering overlay",
    "F               follow the robot",
    "Tab, Shift+Tab  next / previous robot: the one the",
    "                keys drive, F follows, the HUD shows",
    "B               beams of every robot / the selected",
    "                robot only",
    "Home            fit the whole world",
    "Wheel           zoom about the pointer",
    "Drag            pan (right or middle button;",
    "                left too outside edit mode)",
    "F12             screenshot PNG (screenshots folder)",
    "E               edit mode: drag draws a wall or",
    "                moves the object under the mouse",
    "K               knife: drag across walls to cut",
    "[ / ]           snap grid finer (then off) / coarser",
    "                (Shift places freely)",
    "I / Insert      add a robot (a copy of the selected)",
    "Delete          remove the selected object (robot)",
    "Ctrl+Z, Ctrl+Y  undo, redo",
    "Ctrl+S          save the world to its file",
    "F1              this help",
    "Esc / Q         quit (Esc leaves edit mode first)",
    NULL,
};

const char* const lsReplayHelpLines[] = {
    "Space           play / pause (at the end: again)",
    "Right / Left    one step forward / back (. and , too)",
    "Shift+arrows    the next / previous recorded scan",
    "] / [           faster / slower (1/16x .. 64x)",
    "Home / End      the first / the last step",
    "Timeline        click or drag to seek",
    "L               beams: lines / hit lines / points / off",
    "C               colour beams by hit kind / intensity",
    "G               grid and scale bar",
    "T               robot trail",
    "O               scan plot (range against angle)",
    "H               HUD panels",
    "F               follow the robot",
    "Tab, Shift+Tab  next / previous robot: the one F",
    "                follows, the HUD and the trail show",
    "B               beams of every robot / the selected",
    "                robot only",
    "Z               fit the whole world",
    "Wheel / Drag    zoom / pan",
    "F12             screenshot PNG (screenshots folder)",
    "F1              this help",
    "Esc / Q         quit",
    NULL,
};

static const lsColor s_panel = {8, 9, 12, 225};
static const lsColor s_panelEdge = {70, 76, 92, 255};
static const lsColor s_title = {255, 200, 90, 255};
static const lsColor s_paused = {255, 120, 120, 255};
static const lsColor s_dim = {150, 156, 172, 255};
static const lsColor s_statusColor = {140, 220, 255, 255};
static const lsColor s_timeline = {90, 200, 255, 255};

static int Pad(const lsCanvas* canvas) { return lsFont_LineHeight(canvas->font) / 2; }

/// The replay's timeline bar: one line of text high, with room around the knob.
static int TimelineHeight(const lsCanvas* canvas) { return lsFont_LineHeight(canvas->font) + Pad(canvas); }

static int ColumnWidth(const lsCanvas* canvas)
{
    return LS_HUD_COLUMNS * lsFont_Advance(canvas->font) + 2 * Pad(canvas);
}

static int PlotHeight(const lsCanvas* canvas)
{
    int h = canvas->surface->h * 26 / 100;
    int lines = 4 * lsFont_LineHeight(canvas->small);
    return h < lines + 60 ? lines + 60 : (h > 280 ? 280 : h);
}

lsRect lsWorldArea(const lsCanvas* canvas, const lsViewOptions* view)
{
    int width = canvas->surface->w, height = canvas->surface->h;
    int left = view->hud ? ColumnWidth(canvas) + Pad(canvas) : 0;
    int bottom = view->scanPlot ? PlotHeight(canvas) + Pad(canvas) : 0;
    bottom += view->timeline ? TimelineHeight(canvas) + Pad(canvas) : 0;
    // A window too narrow for the panels still shows the world (under them) rather than nothing.
    if (width - left < width / 3)
        left = 0;
    if (height - bottom < height / 3)
        bottom = 0;
    return (lsRect){left, 0, width - left, height - bottom};
}

lsRect lsScanPlotRect(const lsCanvas* canvas, const lsViewOptions* view)
{
    int pad = Pad(canvas);
    lsRect area = lsWorldArea(canvas, view);
    int h = PlotHeight(canvas);
    int below = view->timeline ? TimelineHeight(canvas) + pad : 0;
    return (lsRect){area.x + pad, canvas->surface->h - h - pad - below, area.w - 2 * pad, h};
}

lsRect lsTimelineRect(const lsCanvas* canvas, const lsViewOptions* view)
{
    (void)view;
    int pad = Pad(canvas), h = TimelineHeight(canvas);
    // The whole width, under the HUD column too: the bar is long, so a drag is precise.
    return (lsRect){pad, canvas->surface->h - h - pad, canvas->surface->w - 2 * pad, h};
}

/// Characters the timeline's label may take at the bar's right end ("t 123.4 / 600.0 s  step 7404 / 36000").
#define LS_TIMELINE_LABEL_COLUMNS 40

void lsTimelineTrack(const lsCanvas* canvas, const lsViewOptions* view, double* x0, double* x1)
{
    lsRect r = lsTimelineRect(canvas, view);
    int pad = Pad(canvas);
    *x0 = r.x + 2 * pad;
    *x1 = r.x + r.w - 3 * pad - LS_TIMELINE_LABEL_COLUMNS * lsFont_Advance(canvas->small);
    // A narrow window keeps a track to drag, the label clipped.
    *x1 = *x1 > *x0 + 0.5 * r.w ? *x1 : *x0 + 0.5 * r.w;
}

static void Panel(lsRaster* raster, lsRect r)
{
    lsRaster_FillRect(raster, r.x, r.y, r.x + r.w, r.y + r.h, s_panel);
    lsRaster_FillRect(raster, r.x, r.y, r.x + r.w, r.y + 1, s_panelEdge);
    lsRaster_FillRect(raster, r.x, r.y + r.h - 1, r.x + r.w, r.y + r.h, s_panelEdge);
    lsRaster_FillRect(raster, r.x, r.y, r.x + 1, r.y + r.h, s_panelEdge);
    lsRaster_FillRect(raster, r.x + r.w - 1, r.y, r.x + r.w, r.y + r.h, s_panelEdge);
}

// ---------------------------------------------------------------------------------------------------------------------
// The HUD column

typedef struct HudLine
{
    char text[128];
    lsColor color;
} HudLine;

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

// Characters (UTF-8 code points) in the first `bytes` bytes of text: the HUD's degree, theta and omega signs take
// two bytes and one column.
static int Columns(const char* text, size_t bytes)
{
    int n = 0;
    for (size_t i = 0; i < bytes; ++i)
        n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

// The bytes of the longest prefix of text (bytes long) that has at most `columns` characters and at most maxBytes
// bytes, never splitting a character.
static size_t PrefixBytes(const char* text, size_t bytes, int columns, size_t maxBytes)
{
    size_t end = 0;
    int n = 0;
    for (size_t i = 1; i <= bytes; ++i)
    {
        if (i == bytes || ((unsigned char)text[i] & 0xC0) != 0x80)
        {
            // [0, i) ends at a character's end: one character more than [0, end).
            if (i > maxBytes || n + 1 > columns)
                break;
            end = i;
            ++n;
        }
    }
    return end;
}

/// Word-wraps text into lines of at most `columns` characters (hard-splitting longer words, ending a line at a
/// newline), appending up to maxLines of them. Returns the number appended.
static int Wrap(HudLine* lines, int at, int capacity, int maxLines, int columns, const char* text, lsColor c)
{
    size_t len = strlen(text);
    size_t pos = 0;
    int added = 0;
    const size_t room = sizeof lines[0].text - 1;
    while (pos < len && added < maxLines && at + added < capacity)
    {
        size_t take = strcspn(text + pos, "\n");
        if (Columns(text + pos, take) > columns || take > room)
        {
            size_t fit = PrefixBytes(text + pos, take, columns, room);
            size_t space = fit;
            while (space > 0 && text[pos + space] != ' ')
                --space;
            take = space > 0 ? space : fit;
        }
        bool last = added + 1 == maxLines && pos + take < len;
        HudLine* line = &lines[at + added];
        // The last line that still fits says that more was cut.
        int shown = Columns(text + pos, take);
        if (last && shown >= 3)
            snprintf(line->text, sizeof line->text, "%.*s...", (int)PrefixBytes(text + pos, take, shown - 3, room - 3),
                     text + pos);
        else
            snprintf(line->text, sizeof line->text, "%.*s", (int)take, text + pos);
        lsEscapeControl(line->text, sizeof line->text); // statuses and errors name files, worlds and robots
        line->color = c;
        ++added;
        pos += take;
        while (pos < len && (text[pos] == ' ' || text[pos] == '\n'))
            ++pos;
    }
    return added;
}

static void AddLine(HudLine* lines, int* n, int capacity, lsColor c, const char* format, ...)
    __attribute__((format(printf, 5, 6)));

/// Appends a formatted line; one longer than the column goes on in a second line (the state line in edit mode with
/// follow on, a cursor far from the origin) rather than past the panel's edge.
static void AddLine(HudLine* lines, int* n, int capacity, lsColor c, const char* format, ...)
{
    if (*n >= capacity)
        return;
    char text[256];
    va_list args;
    va_start(args, format);
    // clang-tidy 14 keeps va_list state from a file analysed before (as in map.c's FailAt).
    vsnprintf(text, sizeof text, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    // World names and ids come from files: a control character in one must not reach the screen raw (escaped before
    // wrapping, so a newline in a name does not break the line and the escape counts in the width).
    lsEscapeControl(text, sizeof text);
    *n += Wrap(lines, *n, capacity, 2, LS_HUD_COLUMNS, text, c);
}

static int BuildHudLines(const lsSim* sim, const lsHudInfo* hud, HudLine* lines, int capacity)
{
    const lsSimState* state = lsSim_GetState(sim);
    const lsWorld* world = lsSim_GetWorld(sim);
    int selected = hud->robot >= 0 && hud->robot < state->robotCount ? hud->robot : 0;
    const lsRobotState* robot = &state->robots[selected];
    bool fleet = state->robotCount > 1;
    int n = 0;
    const char* name = hud->worldName != NULL && hud->worldName[0] != '\0' ? hud->worldName : world->name;
    AddLine(lines, &n, capacity, s_title, "%.*s%s", LS_HUD_COLUMNS - 11, name[0] != '\0' ? name : "(unnamed world)",
            hud->unsaved ? "  * unsaved" : "");
    if (hud->fps > 0.0 || hud->stepMs > 0.0 || hud->drawMs > 0.0)
    {
        char step[16], draw[16];
        FormatMs(step, sizeof step, hud->stepMs);
        FormatMs(draw, sizeof draw, hud->drawMs);
        AddLine(lines, &n, capacity, lsColorHud, "fps %.0f  sim %s  draw %s ms", hud->fps, step, draw);
    }
    else
    {
        AddLine(lines, &n, capacity, lsColorHud, "headless frame (lidarsim render)");
    }
    char rays[16];
    FormatRate(rays, sizeof rays, hud->raysPerSecond);
    AddLine(lines, &n, capacity, lsColorHud, "beams %d  rays/s %s", lsSim_GetBeams(sim), rays);
    if (hud->replay != NULL)
        AddLine(lines, &n, capacity, hud->paused ? s_paused : lsColorHud, "%s%s", hud->replay,
                hud->following ? "  follow" : "");
    else
        AddLine(lines, &n, capacity, hud->paused ? s_paused : lsColorHud, "%s  autopilot %s%s%s",
                hud->paused ? "PAUSED" : "running", hud->autopilot ? "on" : "off", hud->following ? "  follow" : "",
                hud->editing ? "  EDIT" : "");
    if (hud->editing && hud->snap > 0.0)
        AddLine(lines, &n, capacity, lsColorHud, "snap %g m  ([ ], Shift: free)", hud->snap);
    else if (hud->editing)
        AddLine(lines, &n, capacity, lsColorHud, "snap off  (] turns it on)");
    AddLine(lines, &n, capacity, lsColorHud, "t %.1f s  step %lld", state->time, state->step);
    if (fleet)
    {
        // The fleet's totals, then the selected robot's own share below.
        AddLine(lines, &n, capacity, s_title, "fleet  %d robots", state->robotCount);
        AddLine(lines, &n, capacity, lsColorHud, " score %g  food %d  poison %d", state->score, state->food,
                state->poison);
        AddLine(lines, &n, capacity, lsColorHud, " collisions %d  crushes %d", state->collisions, state->crushes);
        static const char* const controllers[] = {"manual", "autopilot", "external"};
        const lsRobotDef* def = lsWorld_GetRobot(world, selected);
        AddLine(lines, &n, capacity, s_title, "robot %d/%d %.*s (%s)", selected + 1, state->robotCount,
                LS_HUD_COLUMNS - 24, def->id, controllers[def->controller]);
    }
    else
    {
        AddLine(lines, &n, capacity, lsColorHud, "score %g  food %d  poison %d", state->score, state->food,
                state->poison);
        AddLine(lines, &n, capacity, s_title, "robot");
    }
    AddLine(lines, &n, capacity, lsColorHud, " x %8.3f  y %8.3f m", robot->position.x, robot->position.y);
    AddLine(lines, &n, capacity, lsColorHud, " \xCE\xB8 %7.2f\xC2\xB0 (%.3f rad)", lsRadToDeg(robot->angle),
            robot->angle);
    AddLine(lines, &n, capacity, lsColorHud, " v %6.2f m/s  \xCF\x89 %6.2f rad/s", robot->v, robot->w);
    if (fleet)
        AddLine(lines, &n, capacity, lsColorHud, " score %g  coll. %d  crushes %d", robot->score, robot->collisions,
                robot->crushes);
    if (hud->haveCursor)
        AddLine(lines, &n, capacity, s_dim, "cursor x %.2f  y %.2f m", hud->cursor.x, hud->cursor.y);
    if (hud->status != NULL && hud->status[0] != '\0')
        n += Wrap(lines, n, capacity, 3, LS_HUD_COLUMNS, hud->status, s_statusColor);
    AddLine(lines, &n, capacity, s_dim, "F1 keys  H hides the panels");
    return n;
}

lsRect lsHudRect(const lsCanvas* canvas, const lsSim* sim, const lsHudInfo* hud)
{
    HudLine lines[LS_HUD_MAX_LINES];
    int n = BuildHudLines(sim, hud, lines, LS_HUD_MAX_LINES);
    int pad = Pad(canvas);
    return (lsRect){pad, pad, ColumnWidth(canvas) - pad, n * lsFont_LineHeight(canvas->font) + 2 * pad};
}

/// The legend under the HUD: what each beam colour means. Returns its bottom edge.
static int DrawLegend(lsCanvas* canvas, const lsSim* sim, const lsViewOptions* view, int top)
{
    lsRaster* raster = &canvas->raster;
    lsFont* font = canvas->small;
    int pad = Pad(canvas), line = lsFont_LineHeight(font);
    int x = pad, w = ColumnWidth(canvas) - pad;
    const lsSimState* state = lsSim_GetState(sim);
    static const char* const modes[] = {"lines", "hit lines", "points", "off"};
    char title[64];
    snprintf(title, sizeof title, "beams: %s, by %s", modes[view->beams],
             view->beamColors == ls_colorByKind ? "hit kind" : "intensity");
    if (view->beamColors == ls_colorByIntensity)
    {
        lsRect r = {x, top, w, 3 * line + 2 * pad};
        Panel(raster, r);
        lsFont_Draw(font, raster, x + pad, top + pad, title, lsColorHud);
        int bx = x + pad, by = top + pad + line + 2, bw = w - 2 * pad, bh = line - 4;
        for (int i = 0; i < bw; ++i)
        {
            lsColor c = lsIntensityColor((double)i / (bw > 1 ? bw - 1 : 1));
            lsRaster_FillRect(raster, bx + i, by, bx + i + 1, by + bh, c);
        }
        lsFont_Draw(font, raster, bx, by + bh + 2, "0", s_dim);
        const char* one = "1 (reflectance x |cos|)";
        lsFont_Draw(font, raster, bx + bw - lsFont_Width(font, one), by + bh + 2, one, s_dim);
        return r.y + r.h;
    }
    struct
    {
        const char* name;
        lsColor color;
    } kinds[] = {
        {"wall", lsHitColor(state, ls_hitWall, -1)},
        {"box / polygon", lsHitColor(state, ls_hitBox, -1)},
        {"food", lsColorFood},
        {"poison", lsColorPoison},
        {"vehicle", lsHitColor(state, ls_hitVehicle, -1)},
        {"moving wall", lsHitColor(state, ls_hitMover, -1)},
        {"no return", (lsColor){150, 150, 170, 255}},
        {"robot (its hue)", lsColorRobot},
    };
    // Robots are seen only in a fleet.
    int count = (int)(sizeof kinds / sizeof kinds[0]) - (state->robotCount > 1 ? 0 : 1);
    int rows = (count + 1) / 2;
    lsRect r = {x, top, w, (rows + 1) * line + 2 * pad};
    Panel(raster, r);
    lsFont_Draw(font, raster, x + pad, top + pad, title, lsColorHud);
    int half = (w - 2 * pad) / 2;
    for (int i = 0; i < count; ++i)
    {
        int cx = x + pad + (i % 2) * half, cy = top + pad + (1 + i / 2) * line;
        int s = line * 6 / 10;
        lsRaster_FillRect(raster, cx, cy + (line - s) / 2, cx + s, cy + (line - s) / 2 + s, kinds[i].color);
        lsFont_Draw(font, raster, cx + s + lsFont_Advance(font) / 2 + 2, cy, kinds[i].name, lsColorHud);
    }
    return r.y + r.h;
}

// ---------------------------------------------------------------------------------------------------------------------
// The scan plot

// "-135" for an angle in degrees (whole degrees read best on an axis).
static void DegreeLabel(char* out, size_t size, double radians)
{
    snprintf(out, size, "%.0f\xC2\xB0", lsRadToDeg(radians));
}

static void DrawScanPlot(lsCanvas* canvas, const lsSim* sim, const lsViewOptions* view)
{
    // The selected robot's scan, as the world view draws it in full.
    int robot = view->robot >= 0 && view->robot < lsSim_GetState(sim)->robotCount ? view->robot : 0;
    const lsScan* scan = lsSim_GetRobotScan(sim, robot);
    lsRaster* raster = &canvas->raster;
    lsFont* font = canvas->small;
    lsRect r = lsScanPlotRect(canvas, view);
    if (r.w < 80 || r.h < 40)
        return;
    Panel(raster, r);
    int pad = Pad(canvas), line = lsFont_LineHeight(font);
    lsFont_Draw(font, raster, r.x + pad, r.y + pad / 2, "scan: range (m) against beam angle (O hides)", lsColorHud);
    if (scan == NULL || scan->count == 0)
        return;
    // The plot area: room on the left for range labels, at the bottom for angle labels, and at the top for half a
    // line more than the title, since the top range label is centred on the top grid line.
    int left = r.x + pad + 5 * lsFont_Advance(font), right = r.x + r.w - pad - lsFont_Advance(font);
    int top = r.y + pad / 2 + line + line / 2 + 2, bottom = r.y + r.h - line - pad / 2;
    if (right - left < 20 || bottom - top < 20)
        return;
    double a0 = scan->layout.angleMin, a1 = scan->layout.angleMax, rangeMax = scan->rangeMax;
    if (!(a1 > a0))
        a1 = a0 + 1e-9;
    // Grid: range at 0, 1/2, 1 of max; angles at the ends and, for wide scans, every 90 degrees between.
    lsColor grid = {48, 52, 64, 255};
    char label[32];
    for (int k = 0; k <= 2; ++k)
    {
        int y = bottom - (bottom - top) * k / 2;
        lsRaster_FillRect(raster, left, y, right + 1, y + 1, grid);
        snprintf(label, sizeof label, "%g", rangeMax * k / 2.0);
        lsFont_Draw(font, raster, left - lsFont_Width(font, label) - 4, y - line / 2, label, s_dim);
    }
    int labelRoom = 6 * lsFont_Advance(font); // labels nearer than this to an end would overlap its label
    for (int quarter = -4; quarter <= 4; ++quarter)
    {
        double a = 0.5 * LS_PI * quarter;
        if (a < a0 - 1e-9 || a > a1 + 1e-9)
            continue;
        int x = left + (int)lround((a - a0) / (a1 - a0) * (right - left));
        lsRaster_FillRect(raster, x, top, x + 1, bottom, grid);
        if (x - left < labelRoom || right - x < labelRoom)
            continue;
        DegreeLabel(label, sizeof label, a);
        lsFont_Draw(font, raster, x - lsFont_Width(font, label) / 2, bottom + 2, label, s_dim);
    }
    DegreeLabel(label, sizeof label, a0);
    lsFont_Draw(font, raster, left, bottom + 2, label, s_dim);
    DegreeLabel(label, sizeof label, a1);
    lsFont_Draw(font, raster, right - lsFont_Width(font, label), bottom + 2, label, s_dim);
    // One dot per beam; no-return beams as faint ticks along the top (out of range).
    const lsSimState* state = lsSim_GetState(sim);
    lsRaster_SetClip(raster, left, top - 2, right + 2, bottom + 1);
    for (int i = 0; i < scan->count; ++i)
    {
        double x = left + (scan->angles[i] - a0) / (a1 - a0) * (right - left);
        if (scan->kinds[i] == ls_hitNone)
        {
            lsRaster_Line(raster, lsV(x, top), lsV(x, top + 3.0), 1.0, (lsColor){150, 150, 170, 120});
            continue;
        }
        double y = bottom - scan->ranges[i] / rangeMax * (bottom - top);
        lsColor c = view->beamColors == ls_colorByIntensity ? lsIntensityColor(scan->intensities[i])
                                                            : lsHitColor(state, scan->kinds[i], scan->indices[i]);
        lsRaster_Disc(raster, lsV(x, y), scan->count > 400 ? 1.2 : 1.8, c);
    }
    lsRaster_ResetClip(raster);
}

// ---------------------------------------------------------------------------------------------------------------------
// Banner and help

static void DrawErrorBanner(lsCanvas* canvas, lsRect area, const char* title, const char* error)
{
    lsFont* font = canvas->font;
    int pad = Pad(canvas), line = lsFont_LineHeight(font);
    int columns = (area.w - 4 * pad) / lsFont_Advance(font);
    HudLine lines[8];
    int n = Wrap(lines, 0, 8, 6, columns < 16 ? 16 : columns, error, (lsColor){255, 220, 220, 255});
    int h = (n + 1) * line + 2 * pad;
    lsRect r = {area.x + pad, area.y + area.h - h - 3 * line, area.w - 2 * pad, h};
    lsRaster_FillRect(&canvas->raster, r.x, r.y, r.x + r.w, r.y + r.h, (lsColor){70, 10, 16, 225});
    lsFont_Draw(
        font, &canvas->raster, r.x + pad, r.y + pad,
        title != NULL ? title : "reload failed, still showing the last good world:", (lsColor){255, 120, 120, 255});
    for (int i = 0; i < n; ++i)
        lsFont_Draw(font, &canvas->raster, r.x + pad, r.y + pad + (i + 1) * line, lines[i].text, lines[i].color);
}

// The replay's timeline: a track filled up to the position, a knob on it, the label at the right end.
static void DrawTimeline(lsCanvas* canvas, const lsViewOptions* view, const lsHudInfo* hud)
{
    lsRaster* raster = &canvas->raster;
    lsRect r = lsTimelineRect(canvas, view);
    Panel(raster, r);
    int pad = Pad(canvas);
    const char* label = hud->timelineLabel != NULL ? hud->timelineLabel : "";
    double x0 = 0.0, x1 = 0.0, y = r.y + 0.5 * r.h;
    lsTimelineTrack(canvas, view, &x0, &x1);
    double f = hud->timeline < 0.0 ? 0.0 : (hud->timeline > 1.0 ? 1.0 : hud->timeline);
    double x = x0 + f * (x1 - x0);
    lsRaster_Line(raster, lsV(x0, y), lsV(x1, y), 4.0, (lsColor){90, 96, 110, 255});
    lsRaster_Line(raster, lsV(x0, y), lsV(x, y), 4.0, s_timeline);
    lsRaster_Disc(raster, lsV(x, y), 0.3 * r.h, s_timeline);
    lsRaster_SetClip(raster, (int)x1 + pad, r.y, r.x + r.w - pad, r.y + r.h);
    lsFont_Draw(canvas->small, raster, (int)x1 + 2 * pad, r.y + (r.h - lsFont_LineHeight(canvas->small)) / 2, label,
                lsColorHud);
    lsRaster_ResetClip(raster);
}

static void DrawHelp(lsCanvas* canvas, bool replay)
{
    lsFont* font = canvas->font;
    const char* const* lines = replay ? lsReplayHelpLines : lsHelpLines;
    int count = 0, widest = 0;
    for (; lines[count] != NULL; ++count)
    {
        int w = lsFont_Width(font, lines[count]);
        widest = w > widest ? w : widest;
    }
    int pad = Pad(canvas), line = lsFont_LineHeight(font);
    int w = widest + 4 * pad, h = (count + 2) * line + 3 * pad;
    lsRect r = {(canvas->surface->w - w) / 2, (canvas->surface->h - h) / 2, w, h};
    r.x = r.x < 0 ? 0 : r.x;
    r.y = r.y < 0 ? 0 : r.y;
    Panel(&canvas->raster, r);
    int x = r.x + 2 * pad, y = r.y + 2 * pad;
    lsFont_Draw(font, &canvas->raster, x, y, replay ? "lidarsim replay keys" : "lidarsim keys", s_title);
    y += 2 * line;
    for (int i = 0; i < count; ++i, y += line)
        lsFont_Draw(font, &canvas->raster, x, y, lines[i], lsColorHud);
}

bool lsDrawHud(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
               const lsHudInfo* hud)
{
    (void)camera;
    SDL_RenderFlush(canvas->renderer); // the editor's overlay first, then the panels over it
    if (SDL_LockSurface(canvas->surface) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_LockSurface failed: %s\n", SDL_GetError());
        return false;
    }
    lsRaster* raster = &canvas->raster;
    lsRaster_ResetClip(raster);
    if (view->hud)
    {
        HudLine lines[LS_HUD_MAX_LINES];
        int n = BuildHudLines(sim, hud, lines, LS_HUD_MAX_LINES);
        lsRect r = lsHudRect(canvas, sim, hud);
        Panel(raster, r);
        int pad = Pad(canvas), line = lsFont_LineHeight(canvas->font);
        for (int i = 0; i < n; ++i)
            lsFont_Draw(canvas->font, raster, r.x + pad, r.y + pad + i * line, lines[i].text, lines[i].color);
        if (view->beams != ls_beamsOff)
            DrawLegend(canvas, sim, view, r.y + r.h + pad);
    }
    if (view->scanPlot)
        DrawScanPlot(canvas, sim, view);
    if (view->timeline)
        DrawTimeline(canvas, view, hud);
    if (hud->error != NULL && hud->error[0] != '\0')
        DrawErrorBanner(canvas, lsWorldArea(canvas, view), hud->errorTitle, hud->error);
    if (view->help)
        DrawHelp(canvas, hud->replay != NULL);
    SDL_UnlockSurface(canvas->surface);
    return true;
}

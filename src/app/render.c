// lidarsim front end: drawing the world and the sim, anti-aliased, on the software canvas (see render.h).
// Everything is culled by the view's box and clipped to a guard rectangle around the viewport first: a wall
// kilometres off screen must neither cost anything nor lose precision in pixel coordinates.
#include "app/render.h"

#include "app/font.h"
#include "app/map_shade.h"
#include "lidarsim/lidar.h"

#include <SDL2/SDL2_gfxPrimitives.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const lsColor lsColorBackground = {20, 22, 28, 255};
const lsColor lsColorWall = {236, 238, 244, 255};
const lsColor lsColorHud = {230, 232, 238, 255};
const lsColor lsColorFood = {86, 214, 110, 255};
const lsColor lsColorPoison = {232, 76, 196, 255};
const lsColor lsColorRobot = {255, 176, 56, 255};
const lsColor lsColorHitWall = {84, 214, 255, 255};
const lsColor lsColorNoReturn = {150, 150, 170, 22};

static const lsColor s_gridMinor = {34, 37, 46, 255};
static const lsColor s_gridMajor = {48, 52, 64, 255};
static const lsColor s_solidFill = {62, 78, 104, 255};
static const lsColor s_solidEdge = {140, 164, 204, 255};
static const lsColor s_robotEdge = {255, 226, 170, 255};
static const lsColor s_vehicle = {110, 184, 255, 255};
static const lsColor s_vehicleBody = {236, 244, 255, 255};
// Opaque, so the band's quads and round joints overlap without darker seams.
static const lsColor s_pathBand = {38, 42, 54, 255};
static const lsColor s_pathLine = {150, 156, 180, 255};
static const lsColor s_mover = {255, 132, 64, 255};
static const lsColor s_moverTrack = {255, 132, 64, 60};
static const lsColor s_hitSolid = {150, 196, 255, 255};
static const lsColor s_predicted = {255, 255, 255, 255};
static const lsColor s_normalPoint = {255, 90, 90, 255};
static const lsColor s_seekTarget = {120, 255, 140, 255};
static const lsColor s_trail = {255, 200, 90, 255};
static const lsColor s_axisX = {235, 70, 70, 255};
static const lsColor s_axisY = {80, 220, 100, 255};

/// The alpha of beams from the sensor to their hit: translucent so 720 overlapping beams read as a fan.
/// Pixels drawn beyond the viewport on each side, so clipped shapes' outlines never show at the border.
#define LS_GUARD 8.0

lsViewOptions lsDefaultViewOptions(void)
{
    return (lsViewOptions){.beams = ls_beamsAll,
                           .grid = true,
                           .hud = true,
                           .trail = true,
                           .axes = true,
                           .fleetBeams = true,
                           .unknown = true};
}

const char* lsBeamModeName(lsBeamMode mode)
{
    static const char* const names[ls_beamModeCount] = {"lines to every beam's end", "lines to hits only",
                                                        "hit points only", "off"};
    return (int)mode >= 0 && mode < ls_beamModeCount ? names[mode] : "?";
}

const char* lsBeamColoringName(lsBeamColoring coloring)
{
    return coloring == ls_colorByKind ? "what they hit" : "intensity";
}

void lsTrail_Clear(lsTrail* trail)
{
    trail->start = 0;
    trail->count = 0;
}

void lsTrail_Add(lsTrail* trail, lsVec2 position)
{
    if (trail->count > 0)
    {
        lsVec2 last = trail->points[(trail->start + trail->count - 1) % LS_TRAIL_CAPACITY];
        double d2 = lsLengthSquared(lsSub(position, last));
        if (d2 < 0.02 * 0.02)
            return;
        if (d2 > 2.0 * 2.0)
            lsTrail_Clear(trail); // a jump (reset, respawn): no line across the world
    }
    if (trail->count == LS_TRAIL_CAPACITY)
    {
        trail->start = (trail->start + 1) % LS_TRAIL_CAPACITY;
        trail->count -= 1;
    }
    trail->points[(trail->start + trail->count) % LS_TRAIL_CAPACITY] = position;
    trail->count += 1;
}

lsColor lsIntensityColor(double intensity)
{
    // Five stops from dark blue through cyan and yellow to red: ordered in lightness as well as hue.
    static const lsColor stops[5] = {
        {48, 64, 200, 255}, {40, 160, 255, 255}, {60, 220, 140, 255}, {250, 220, 60, 255}, {240, 70, 40, 255}};
    double t = intensity > 0.0 ? (intensity < 1.0 ? intensity : 1.0) : 0.0; // NaN reads as 0
    double at = 4.0 * t;
    int k = at >= 4.0 ? 3 : (int)at;
    double f = at - k;
    lsColor a = stops[k], b = stops[k + 1];
    return (lsColor){(Uint8)lround(a.r + f * (b.r - a.r)), (Uint8)lround(a.g + f * (b.g - a.g)),
                     (Uint8)lround(a.b + f * (b.b - a.b)), 255};
}

// ---------------------------------------------------------------------------------------------------------------------
// Clipped primitives

typedef struct Painter
{
    lsRaster* raster;
    lsCanvas* canvas;
    const lsCamera* camera;
    lsAABB view;                   ///< world box the camera sees, grown by a margin
    double xMin, yMin, xMax, yMax; ///< screen guard rectangle
    bool ok;                       ///< false once an SDL call failed
} Painter;

/// A screen-space anti-aliased line, clipped, width in pixels.
static void ScreenLine(Painter* p, lsVec2 a, lsVec2 b, lsColor c, double width)
{
    // Most lines lie inside the view whole (a city's walls): no clipping to do then.
    bool inside = a.x >= p->xMin && a.x <= p->xMax && a.y >= p->yMin && a.y <= p->yMax && b.x >= p->xMin &&
                  b.x <= p->xMax && b.y >= p->yMin && b.y <= p->yMax;
    lsAABB guard = {{p->xMin, p->yMin}, {p->xMax, p->yMax}};
    if (!inside && !lsAABB_ClipSegment(guard, &a, &b))
        return;
    lsRaster_Line(p->raster, a, b, width, c);
}

static void WorldLine(Painter* p, lsVec2 a, lsVec2 b, lsColor c, double width)
{
    if (!lsAABB_Overlaps(lsAABB_OfSegment(a, b), p->view))
        return;
    ScreenLine(p, lsCamera_WorldToScreen(p->camera, a), lsCamera_WorldToScreen(p->camera, b), c, width);
}

/// Sutherland-Hodgman against one edge of the guard rectangle: keeps the side where sign * (coord - bound) >= 0.
static int ClipPolygonEdge(const lsVec2* in, int n, lsVec2* out, int axis, double bound, double sign)
{
    int m = 0;
    for (int i = 0; i < n; ++i)
    {
        lsVec2 a = in[i], b = in[(i + 1) % n];
        double da = sign * ((axis == 0 ? a.x : a.y) - bound);
        double db = sign * ((axis == 0 ? b.x : b.y) - bound);
        if (da >= 0.0)
            out[m++] = a;
        if ((da >= 0.0) != (db >= 0.0))
        {
            double t = da / (da - db);
            out[m++] = lsLerp(a, b, t);
        }
    }
    return m;
}

#define LS_MAX_SCREEN_POLYGON (LS_MAX_POLYGON_VERTICES * 2 + 8)

/// A filled convex polygon given in world coordinates (count <= LS_MAX_SCREEN_POLYGON / 2), optional outline.
static void WorldPolygon(Painter* p, const lsVec2* points, int count, lsColor fill, const lsColor* edge)
{
    LS_ASSERT(count >= 3 && count <= LS_MAX_SCREEN_POLYGON / 2);
    lsAABB box = {points[0], points[0]};
    for (int i = 1; i < count; ++i)
        box = lsAABB_Union(box, (lsAABB){points[i], points[i]});
    if (!lsAABB_Overlaps(box, p->view))
        return;

    lsVec2 a[LS_MAX_SCREEN_POLYGON], b[LS_MAX_SCREEN_POLYGON];
    for (int i = 0; i < count; ++i)
        a[i] = lsCamera_WorldToScreen(p->camera, points[i]);
    int n = count;
    // Each pass adds at most one vertex to a convex polygon, so four passes stay within the buffers.
    n = ClipPolygonEdge(a, n, b, 0, p->xMin, 1.0);
    n = ClipPolygonEdge(b, n, a, 0, p->xMax, -1.0);
    n = ClipPolygonEdge(a, n, b, 1, p->yMin, 1.0);
    n = ClipPolygonEdge(b, n, a, 1, p->yMax, -1.0);
    if (n < 3)
        return;
    lsRaster_Polygon(p->raster, a, n, fill);
    if (edge != NULL)
    {
        for (int i = 0; i < count; ++i)
        {
            WorldLine(p, points[i], points[(i + 1) % count], *edge, 1);
        }
    }
}

/// A filled disc in world coordinates; huge on screen it becomes a clipped polygon (only its visible part costs).
static void WorldDisc(Painter* p, lsVec2 center, double radius, lsColor fill, const lsColor* edge)
{
    lsAABB box = {{center.x - radius, center.y - radius}, {center.x + radius, center.y + radius}};
    if (!lsAABB_Overlaps(box, p->view))
        return;
    double r = lsCamera_ToPixels(p->camera, radius);
    if (r > 2000.0)
    {
        lsVec2 ring[LS_MAX_SCREEN_POLYGON / 2];
        int n = LS_MAX_SCREEN_POLYGON / 2;
        for (int i = 0; i < n; ++i)
            ring[i] = lsMulAdd(center, radius, lsDirection(2.0 * LS_PI * i / n));
        WorldPolygon(p, ring, n, fill, edge);
        return;
    }
    lsVec2 s = lsCamera_WorldToScreen(p->camera, center);
    lsRaster_Disc(p->raster, s, r < 0.75 ? 0.75 : r, fill);
    if (edge != NULL && r >= 3.0)
        lsRaster_Ring(p->raster, s, r - 0.5, 1.0, *edge);
}

/// A small square marker of side `size` pixels centred on a world point.
static void Marker(Painter* p, lsVec2 world, int size, lsColor c)
{
    if (!lsAABB_Contains(p->view, world))
        return;
    lsVec2 s = lsCamera_WorldToScreen(p->camera, world);
    int x = (int)lround(s.x - 0.5 * size), y = (int)lround(s.y - 0.5 * size);
    lsRaster_FillRect(p->raster, x, y, x + size, y + size, c);
}

/// A band of half-width `radius` metres around the segment a-b (a path's corridor), as a clipped quad.
static void WorldBand(Painter* p, lsVec2 a, lsVec2 b, double radius, lsColor fill)
{
    lsVec2 n = lsScale(radius, lsLeftPerp(lsNormalize(lsSub(b, a))));
    lsVec2 quad[4] = {lsAdd(a, n), lsSub(a, n), lsSub(b, n), lsAdd(b, n)};
    if (lsLengthSquared(n) == 0.0)
        return;
    WorldPolygon(p, quad, 4, fill, NULL);
}

// ---------------------------------------------------------------------------------------------------------------------
// Layers

/// The largest power of ten (times 1, 2 or 5) metres that is at most `pixels` wide on screen... or the smallest
/// that is at least that wide: used for the grid spacing and the scale bar.
static double NiceLength(double metres)
{
    double p10 = pow(10.0, floor(log10(metres)));
    double m = metres / p10;
    double nice = m < 1.5 ? 1.0 : (m < 3.5 ? 2.0 : (m < 7.5 ? 5.0 : 10.0));
    return nice * p10;
}

static void DrawGrid(Painter* p)
{
    const lsCamera* cam = p->camera;
    // A metre grid while a metre is at least 12 pixels; zoomed out, powers of ten so lines stay >= 12 pixels apart.
    double step = 1.0;
    while (lsCamera_ToPixels(cam, step) < 12.0)
        step *= 10.0;
    while (lsCamera_ToPixels(cam, step) >= 120.0 && step > 1e-3)
        step /= 10.0;
    double major = step * 10.0;
    lsAABB v = lsCamera_ViewBounds(cam);
    double x0 = floor(v.lower.x / step), x1 = ceil(v.upper.x / step);
    double y0 = floor(v.lower.y / step), y1 = ceil(v.upper.y / step);
    // Integer counters: far from the origin x0 + 1.0 may round back to x0, and a double counter would never end.
    int columns = (int)lsFmin(x1 - x0, 10000.0), rows = (int)lsFmin(y1 - y0, 10000.0);
    for (int i = 0; i <= columns; ++i)
    {
        double x = (x0 + i) * step;
        bool isMajor = fabs(remainder(x, major)) < 0.5 * step;
        // Grid lines on whole pixels: crisp, not smeared over two columns.
        double sx = round(lsCamera_WorldToScreen(cam, lsV(x, 0.0)).x);
        // Past the edges, clipped by the guard: no half-covered pixel at the border, so a scrolled layer matches.
        ScreenLine(p, lsV(sx, -2.0 * LS_GUARD), lsV(sx, cam->height + 2.0 * LS_GUARD),
                   isMajor ? s_gridMajor : s_gridMinor, 1.0);
    }
    for (int j = 0; j <= rows; ++j)
    {
        double y = (y0 + j) * step;
        bool isMajor = fabs(remainder(y, major)) < 0.5 * step;
        double sy = round(lsCamera_WorldToScreen(cam, lsV(0.0, y)).y);
        ScreenLine(p, lsV(-2.0 * LS_GUARD, sy), lsV(cam->width + 2.0 * LS_GUARD, sy),
                   isMajor ? s_gridMajor : s_gridMinor, 1.0);
    }
}

/// The scale bar: at the foot of the HUD column when the HUD is shown (so it covers no part of the world), else in
/// the world area's bottom-left corner.
static void DrawScaleBar(Painter* p, const lsViewOptions* view)
{
    const lsCamera* cam = p->camera;
    double metres = NiceLength(lsCamera_ToMetres(cam, 120.0));
    double px = round(lsCamera_ToPixels(cam, metres));
    lsRect area = lsWorldArea(p->canvas, view);
    if (view->hud) // under the HUD column, above a replay's timeline (which spans the whole width)
        area = (lsRect){0, 0, cam->width, view->timeline ? lsTimelineRect(p->canvas, view).y : cam->height};
    double x0 = area.x + 16.0, y0 = area.y + area.h - 18.0;
    lsColor c = lsColorHud;
    // A dark backing keeps the bar readable over walls and beams.
    int label = lsFont_LineHeight(p->canvas->small);
    lsRaster_FillRect(p->raster, (int)x0 - 8, (int)y0 - label - 8, (int)(x0 + px) + 9, (int)y0 + 9,
                      (lsColor){8, 9, 12, 170});
    ScreenLine(p, lsV(x0, y0), lsV(x0 + px, y0), c, 2.0);
    ScreenLine(p, lsV(x0, y0 - 5.0), lsV(x0, y0 + 1.0), c, 1.0);
    ScreenLine(p, lsV(x0 + px, y0 - 5.0), lsV(x0 + px, y0 + 1.0), c, 1.0);
    char text[32];
    if (metres >= 1000.0)
        snprintf(text, sizeof text, "%g km", metres / 1000.0);
    else if (metres >= 1.0)
        snprintf(text, sizeof text, "%g m", metres);
    else
        snprintf(text, sizeof text, "%g cm", metres * 100.0);
    lsFont_Draw(p->canvas->small, p->raster, (int)x0, (int)y0 - label - 3, text, c);
}

static void DrawPaths(Painter* p, const lsWorld* world)
{
    for (int i = 0; i < world->pathCount; ++i)
    {
        const lsPathDef* path = &world->paths[i];
        int segments = path->closed ? path->pointCount : path->pointCount - 1;
        for (int k = 0; k < segments; ++k)
        {
            lsVec2 a = path->points[k], b = path->points[(k + 1) % path->pointCount];
            WorldBand(p, a, b, path->radius, s_pathBand);
        }
        // Round joints so the band has no notches at corners.
        for (int k = 0; k < path->pointCount; ++k)
            WorldDisc(p, path->points[k], path->radius, s_pathBand, NULL);
        for (int k = 0; k < segments; ++k)
        {
            WorldLine(p, path->points[k], path->points[(k + 1) % path->pointCount], s_pathLine, 1.0);
        }
    }
}

static void DrawSolids(Painter* p, const lsWorld* world)
{
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* def = &world->boxes[i];
        lsBox box = lsMakeBox(def->center, def->size, def->angle);
        lsVec2 corners[4];
        lsBox_Corners(&box, corners);
        WorldPolygon(p, corners, 4, s_solidFill, &s_solidEdge);
    }
    for (int i = 0; i < world->polygonCount; ++i)
    {
        const lsPolygonDef* def = &world->polygons[i];
        WorldPolygon(p, def->points, def->count, s_solidFill, &s_solidEdge);
    }
}

static void DrawWalls(Painter* p, const lsWorld* world, lsColor color)
{
    // Thin strokes unless zoomed in, so a city of 100k walls stays readable instead of a white blob; hair lines are
    // also the rasterizer's fast path, which matters with thousands of walls in view.
    double width = lsCamera_ToPixels(p->camera, 1.0) >= 16.0 ? 2.0 : 1.0;
    // The camera's map written out (one multiply-add per coordinate), as this loop runs over every wall.
    double zoom = p->camera->zoom;
    double ox = 0.5 * p->camera->width - p->camera->center.x * zoom;
    double oy = 0.5 * p->camera->height + p->camera->center.y * zoom;
    lsAABB v = p->view;
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = &world->walls[i];
        int segments = wall->closed ? wall->pointCount : wall->pointCount - 1;
        for (int k = 0; k < segments; ++k)
        {
            lsVec2 a = wall->points[k], b = wall->points[k + 1 == wall->pointCount ? 0 : k + 1];
            // Cull by the view box: both ends beyond the same side.
            if ((a.x < v.lower.x && b.x < v.lower.x) || (a.x > v.upper.x && b.x > v.upper.x) ||
                (a.y < v.lower.y && b.y < v.lower.y) || (a.y > v.upper.y && b.y > v.upper.y))
                continue;
            ScreenLine(p, lsV(ox + a.x * zoom, oy - a.y * zoom), lsV(ox + b.x * zoom, oy - b.y * zoom), color, width);
        }
    }
}

static void DrawMovers(Painter* p, const lsWorld* world, const lsSimState* state)
{
    for (int i = 0; i < state->moverCount && i < world->moverCount; ++i)
    {
        const lsMoverDef* def = &world->movers[i];
        if (def->kind == ls_moverDoor)
        {
            // The door's track: where its ends travel.
            WorldLine(p, def->a, lsAdd(def->a, def->offset), s_moverTrack, 1.0);
            WorldLine(p, def->b, lsAdd(def->b, def->offset), s_moverTrack, 1.0);
        }
        else
        {
            Marker(p, def->pivot, 5, s_mover);
        }
        lsSegment s = state->movers[i];
        WorldLine(p, s.a, s.b, s_mover, 4.0);
    }
}

static void DrawTargets(Painter* p, const lsSimState* state)
{
    // Targets under 1.5 pixels of radius (zoomed far out over thousands of them) become 2x2 dots.
    for (int i = 0; i < state->targetCount; ++i)
    {
        const lsTargetState* t = &state->targets[i];
        if (!t->active)
            continue;
        lsColor c = t->kind == ls_food ? lsColorFood : lsColorPoison;
        double radiusPx = lsCamera_ToPixels(p->camera, t->radius);
        if (radiusPx < 1.5)
        {
            if (!lsAABB_Contains(p->view, t->center))
                continue;
            lsVec2 s = lsCamera_WorldToScreen(p->camera, t->center);
            int x = (int)floor(s.x), y = (int)floor(s.y);
            lsRaster_FillRect(p->raster, x - 1, y - 1, x + 1, y + 1, c);
            continue;
        }
        WorldDisc(p, t->center, t->radius, c, NULL);
        if (t->kind == ls_poison && radiusPx >= 4.0)
        {
            // A dark cross marks poison by shape as well as by colour.
            double r = 0.55 * t->radius;
            lsColor x = {60, 10, 50, 255};
            WorldLine(p, lsAdd(t->center, lsV(-r, -r)), lsAdd(t->center, lsV(r, r)), x, 1.5);
            WorldLine(p, lsAdd(t->center, lsV(-r, r)), lsAdd(t->center, lsV(r, -r)), x, 1.5);
        }
    }
}

static void DrawVehicles(Painter* p, const lsSimState* state, bool steering)
{
    for (int i = 0; i < state->vehicleCount; ++i)
    {
        const lsVehicleState* v = &state->vehicles[i];
        lsVec2 dir = lsNormalize(v->velocity);
        if (lsLengthSquared(dir) == 0.0)
            dir = lsV(1.0, 0.0);
        // A triangle pointing along the velocity, at least 18 pixels long so it stays visible zoomed out; a light
        // body with the vehicle's beam colour as edge, so it stands out from the path band it drives along.
        double len = lsFmax(2.5 * v->radius, lsCamera_ToMetres(p->camera, 18.0));
        lsVec2 side = lsLeftPerp(dir);
        lsVec2 tri[3] = {lsMulAdd(v->position, 0.6 * len, dir),
                         lsMulAdd(lsMulAdd(v->position, -0.4 * len, dir), 0.35 * len, side),
                         lsMulAdd(lsMulAdd(v->position, -0.4 * len, dir), -0.35 * len, side)};
        WorldPolygon(p, tri, 3, s_vehicleBody, &s_vehicle);
        if (steering)
        {
            WorldLine(p, v->position, v->predicted, s_predicted, 1.0);
            WorldLine(p, v->predicted, v->normalPoint, s_normalPoint, 1.0);
            Marker(p, v->predicted, 5, s_predicted);
            Marker(p, v->normalPoint, 5, s_normalPoint);
            Marker(p, v->target, v->seeking ? 7 : 5, s_seekTarget);
        }
    }
}

// Robot i's own hue in a fleet: golden-angle steps around the colour wheel, so neighbours in the list differ;
// robot 0 keeps the one-robot orange.
static lsColor FleetColor(int i)
{
    if (i == 0)
        return lsColorRobot;
    double h = fmod(0.09 + 0.618033988749895 * (double)i, 1.0) * 6.0;
    double x = 1.0 - fabs(fmod(h, 2.0) - 1.0);
    double rgb[6][3] = {{1, x, 0}, {x, 1, 0}, {0, 1, x}, {0, x, 1}, {x, 0, 1}, {1, 0, x}};
    const double* c = rgb[(int)h % 6];
    return (lsColor){(uint8_t)(70 + 185 * c[0]), (uint8_t)(70 + 185 * c[1]), (uint8_t)(70 + 185 * c[2]), 255};
}

static void DrawRobot(Painter* p, const lsRobotState* robot, lsColor color)
{
    lsColor fill = robot->inContact ? (lsColor){255, 96, 64, 255} : color;
    if (robot->footprintCount >= 3)
        WorldPolygon(p, robot->footprint, robot->footprintCount, fill, &s_robotEdge);
    else
        WorldDisc(p, robot->position, lsFmax(robot->radius, lsCamera_ToMetres(p->camera, 5.0)), fill, &s_robotEdge);
    // The heading: a dark line from the centre to the rim, at least a few pixels long.
    double len = lsFmax(robot->radius, lsCamera_ToMetres(p->camera, 8.0));
    lsVec2 tip = lsMulAdd(robot->position, len, lsDirection(robot->angle));
    WorldLine(p, robot->position, tip, (lsColor){40, 30, 20, 255}, 2.0);
}

lsColor lsHitColor(const lsSimState* state, lsHitKind kind, int index)
{
    switch (kind)
    {
    case ls_hitTarget:
        if (index >= 0 && index < state->targetCount && state->targets[index].kind == ls_poison)
            return lsColorPoison;
        return lsColorFood;
    case ls_hitVehicle:
        return s_vehicle;
    case ls_hitMover:
        return s_mover;
    case ls_hitBox:
    case ls_hitPolygon:
        return s_hitSolid;
    case ls_hitRobot:
        // Another robot: in its own hue, so the selected robot's scan says which robot it sees.
        return index >= 0 && index < state->robotCount ? FleetColor(index) : lsColorRobot;
    default:
        return lsColorHitWall;
    }
}

// A beam's colour in the view's colouring (opaque; beams lower the alpha).
static lsColor BeamColor(const lsViewOptions* view, const lsScan* scan, const lsSimState* state, int i)
{
    if (view->beamColors == ls_colorByIntensity)
        return lsIntensityColor(scan->intensities[i]);
    return lsHitColor(state, scan->kinds[i], scan->indices[i]);
}

static void DrawBeams(Painter* p, const lsScan* scan, const lsSimState* state, const lsViewOptions* view)
{
    if (scan == NULL || scan->count == 0 || (view->beams != ls_beamsAll && view->beams != ls_beamsHits))
        return;
    lsVec2 origin = scan->pose.p;
    for (int i = 0; i < scan->count; ++i)
    {
        if (scan->kinds[i] != ls_hitNone)
        {
            lsColor c = BeamColor(view, scan, state, i);
            c.a = LS_BEAM_ALPHA;
            WorldLine(p, origin, scan->points[i], c, 1.0);
        }
        else if (view->beams == ls_beamsAll)
        {
            // The scan stores a no-return beam's end at rangeMax along its direction.
            WorldLine(p, origin, scan->points[i], lsColorNoReturn, 1.0);
        }
    }
}

/// The other robots' scans (all but the selected one's), each in its robot's hue: beams while the fleet is small
/// (they would cover everything beyond a few dozen robots), hit points always. B turns them off.
static void DrawFleetScans(Painter* p, const lsSim* sim, const lsViewOptions* view, int selected)
{
    const lsSimState* state = lsSim_GetState(sim);
    if (view->beams == ls_beamsOff || !view->fleetBeams)
        return;
    bool lines = state->robotCount <= 16 && (view->beams == ls_beamsAll || view->beams == ls_beamsHits);
    for (int r = 0; r < state->robotCount; ++r)
    {
        if (r == selected)
            continue;
        const lsScan* scan = lsSim_GetRobotScan(sim, r);
        lsColor c = FleetColor(r);
        lsColor faint = c;
        faint.a = LS_BEAM_ALPHA / 2;
        for (int i = 0; i < scan->count; ++i)
        {
            if (scan->kinds[i] == ls_hitNone)
                continue;
            if (lines)
                WorldLine(p, scan->pose.p, scan->points[i], faint, 1.0);
            else
                Marker(p, scan->points[i], 1, c);
        }
    }
}

/// Hit points, opaque and drawn over the walls, so the shape the lidar sees reads with or without the beams;
/// larger in points mode, where they are all there is of the scan.
static void DrawHitPoints(Painter* p, const lsScan* scan, const lsSimState* state, const lsViewOptions* view)
{
    if (scan == NULL || view->beams == ls_beamsOff)
        return;
    int size = lsCamera_ToPixels(p->camera, 1.0) >= 30.0 ? 3 : 2;
    if (view->beams == ls_beamsPoints)
        size += 1;
    for (int i = 0; i < scan->count; ++i)
    {
        if (scan->kinds[i] != ls_hitNone)
            Marker(p, scan->points[i], size, BeamColor(view, scan, state, i));
    }
}

/// The trail: older parts fade, so the direction of travel reads at a glance.
static void DrawTrail(Painter* p, const lsTrail* trail)
{
    for (int k = 1; k < trail->count; ++k)
    {
        lsVec2 a = trail->points[(trail->start + k - 1) % LS_TRAIL_CAPACITY];
        lsVec2 b = trail->points[(trail->start + k) % LS_TRAIL_CAPACITY];
        lsColor c = s_trail;
        c.a = (Uint8)(40 + (200 * k) / trail->count);
        WorldLine(p, a, b, c, 2.0);
    }
}

/// The world frame at the origin: x red, y green, a fixed 40 pixels long whatever the zoom (as RViz's axes).
static void DrawAxes(Painter* p)
{
    lsVec2 o = lsCamera_WorldToScreen(p->camera, lsV(0.0, 0.0));
    double len = 40.0;
    ScreenLine(p, o, lsV(o.x + len, o.y), s_axisX, 2.0);
    ScreenLine(p, lsV(o.x + len, o.y), lsV(o.x + len - 6.0, o.y - 4.0), s_axisX, 2.0);
    ScreenLine(p, lsV(o.x + len, o.y), lsV(o.x + len - 6.0, o.y + 4.0), s_axisX, 2.0);
    ScreenLine(p, o, lsV(o.x, o.y - len), s_axisY, 2.0);
    ScreenLine(p, lsV(o.x, o.y - len), lsV(o.x - 4.0, o.y - len + 6.0), s_axisY, 2.0);
    ScreenLine(p, lsV(o.x, o.y - len), lsV(o.x + 4.0, o.y - len + 6.0), s_axisY, 2.0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Static layers: a big map's thousands of walls and the full-canvas background drawn once per view, not per frame

/// What the static layers were drawn for: they are reused only while every part is the same.
typedef struct LayerKey
{
    lsVec2 center;
    double zoom;
    int width, height;
    uint64_t world; ///< the caller's world revision with the world's address, else StaticHash of the world
    uint64_t shade; ///< the map shade's stamp when unknown cells are drawn, else 0
    bool grid, axes;
} LayerKey;

struct lsLayerCache
{
    LayerKey key;     ///< what base and walls hold (when valid)
    LayerKey pending; ///< the last frame's: the same view again, or moved by whole pixels, builds the cache
    bool valid, havePending;
    int scrollX, scrollY; ///< ls_layersScroll: how far the view moved since the layers were drawn, pixels
    int width, height;
    uint8_t* base;  ///< width * height RGBA: background, unknown cells, grid, axes, paths, boxes, polygons
    uint8_t* walls; ///< width * height: the static walls' coverage (0 .. 255)
    int* spans;     ///< per row, the first and one past the last column with wall coverage (empty: equal)
    lsLayerStats stats;
};

typedef enum LayerUse
{
    ls_layersNone = 0,   ///< draw everything (the view changed since the last frame)
    ls_layersBuild = 1,  ///< draw the static layers into the cache, then use them
    ls_layersReuse = 2,  ///< copy the cached layers
    ls_layersScroll = 3, ///< the view moved by whole pixels: shift the layers, draw the strips uncovered, copy
} LayerUse;

// A 64-bit mix of one word into the hash (the multiply-xorshift of splitmix64): quick enough to run over every
// wall point each frame, so any change to the world's static objects, whoever made it, rebuilds the layers.
static inline uint64_t Mix(uint64_t h, uint64_t word)
{
    h ^= word + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

static uint64_t MixBytes(uint64_t h, const void* data, size_t size)
{
    const uint8_t* p = data;
    for (; size >= 8; size -= 8, p += 8)
    {
        uint64_t word;
        memcpy(&word, p, 8);
        h = Mix(h, word);
    }
    uint64_t tail = 0;
    memcpy(&tail, p, size);
    return Mix(h, tail ^ (uint64_t)size << 56);
}

/// A hash of what the static layers draw of the world: walls, boxes, polygons and paths.
static uint64_t StaticHash(const lsWorld* world)
{
    uint64_t h = Mix(0, (uint64_t)world->wallCount);
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = &world->walls[i];
        h = Mix(h, (uint64_t)wall->pointCount << 1 | (uint64_t)wall->closed);
        h = MixBytes(h, wall->points, (size_t)wall->pointCount * sizeof(lsVec2));
    }
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* box = &world->boxes[i];
        double values[5] = {box->center.x, box->center.y, box->size.x, box->size.y, box->angle};
        h = MixBytes(h, values, sizeof values);
    }
    h = Mix(h, (uint64_t)world->polygonCount);
    for (int i = 0; i < world->polygonCount; ++i)
        h = MixBytes(Mix(h, (uint64_t)world->polygons[i].count), world->polygons[i].points,
                     (size_t)world->polygons[i].count * sizeof(lsVec2));
    h = Mix(h, (uint64_t)world->pathCount);
    for (int i = 0; i < world->pathCount; ++i)
    {
        const lsPathDef* path = &world->paths[i];
        h = Mix(h, (uint64_t)path->pointCount << 1 | (uint64_t)path->closed);
        h = MixBytes(h, &path->radius, sizeof path->radius);
        h = MixBytes(h, path->points, (size_t)path->pointCount * sizeof(lsVec2));
    }
    return h;
}

static LayerKey MakeLayerKey(const lsCamera* camera, const lsWorld* world, const lsViewOptions* view)
{
    return (LayerKey){.center = camera->center,
                      .zoom = camera->zoom,
                      .width = camera->width,
                      .height = camera->height,
                      .world = view->worldRevision != 0 ? Mix(view->worldRevision, (uint64_t)(uintptr_t)world)
                                                        : StaticHash(world),
                      .shade = view->unknown && view->mapShade != NULL ? view->mapShade->stamp : 0,
                      .grid = view->grid,
                      .axes = view->axes};
}

static bool SameKey(const LayerKey* a, const LayerKey* b)
{
    return a->center.x == b->center.x && a->center.y == b->center.y && a->zoom == b->zoom && a->width == b->width &&
           a->height == b->height && a->world == b->world && a->shade == b->shade && a->grid == b->grid &&
           a->axes == b->axes;
}

// Whether b shows what a shows moved by a whole number of pixels (a drag pans by whole pixels): the offset, in
// pixels, goes to dx, dy (positive: the picture moves right and down).
static bool WholePixelShift(const LayerKey* a, const LayerKey* b, int* dx, int* dy)
{
    if (a->zoom != b->zoom || a->width != b->width || a->height != b->height || a->world != b->world ||
        a->shade != b->shade || a->grid != b->grid || a->axes != b->axes)
        return false;
    double x = (a->center.x - b->center.x) * b->zoom, y = (b->center.y - a->center.y) * b->zoom;
    if (!(fabs(x) < b->width && fabs(y) < b->height))
        return false;
    // A millionth of a pixel: drags of thousands of frames drift by less than that adds up to.
    double rx = round(x), ry = round(y);
    if (fabs(x - rx) > 1e-6 || fabs(y - ry) > 1e-6)
        return false;
    *dx = (int)rx;
    *dy = (int)ry;
    return true;
}

static void FreeLayers(struct lsLayerCache* cache)
{
    size_t pixels = (size_t)cache->width * (size_t)cache->height;
    lsFree(cache->base, 4 * pixels);
    lsFree(cache->walls, pixels);
    lsFree(cache->spans, 2 * (size_t)cache->height * sizeof(int));
    cache->base = NULL;
    cache->walls = NULL;
    cache->spans = NULL;
    cache->width = 0;
    cache->height = 0;
    cache->valid = false;
}

// Whether this frame reuses, scrolls, builds or skips the cache. A view that changes every frame otherwise than by
// whole pixels (a zoom, the camera following the robot) never pays for building a cache it would not use; a drag
// (whole pixels) builds it once and then scrolls it.
static LayerUse ChooseLayers(lsCanvas* canvas, const LayerKey* key)
{
    struct lsLayerCache* cache = canvas->layers;
    LayerKey previous = cache->pending;
    bool hadPrevious = cache->havePending;
    cache->pending = *key;
    cache->havePending = true;
    if (cache->valid && SameKey(&cache->key, key))
    {
        cache->stats.hits += 1;
        return ls_layersReuse;
    }
    if (cache->valid && WholePixelShift(&cache->key, key, &cache->scrollX, &cache->scrollY))
    {
        cache->key = *key;
        cache->stats.scrolls += 1;
        return ls_layersScroll;
    }
    int dx = 0, dy = 0;
    if (!hadPrevious || !(SameKey(&previous, key) || WholePixelShift(&previous, key, &dx, &dy)))
    {
        cache->valid = false;
        cache->stats.direct += 1;
        return ls_layersNone;
    }
    if (cache->width != key->width || cache->height != key->height)
    {
        FreeLayers(cache);
        size_t pixels = (size_t)key->width * (size_t)key->height;
        cache->base = lsAlloc(4 * pixels);
        cache->walls = lsAlloc(pixels);
        cache->spans = lsAlloc(2 * (size_t)key->height * sizeof(int));
        cache->width = key->width;
        cache->height = key->height;
    }
    cache->key = *key;
    cache->valid = false; // until both layers are in
    cache->stats.builds += 1;
    return ls_layersBuild;
}

// The walls were drawn white on black in the raster's clip rectangle: their red channel is the coverage they laid
// down, which composited with the wall colour later gives what drawing them there would (up to a unit of rounding
// where walls cross).
static void KeepWalls(struct lsLayerCache* cache, const lsRaster* raster)
{
    for (int y = raster->clipY0; y < raster->clipY1; ++y)
    {
        const uint8_t* px = raster->pixels + (size_t)y * (size_t)raster->pitch;
        uint8_t* row = cache->walls + (size_t)y * (size_t)cache->width;
        for (int x = raster->clipX0; x < raster->clipX1; ++x)
            row[x] = px[(size_t)4 * (size_t)x];
    }
}

// Each row's first and one past its last column with wall coverage, so composing skips empty rows and margins.
static void FindSpans(struct lsLayerCache* cache)
{
    for (int y = 0; y < cache->height; ++y)
    {
        const uint8_t* row = cache->walls + (size_t)y * (size_t)cache->width;
        int first = 0, last = cache->width;
        while (first < last && row[first] == 0)
            first += 1;
        while (last > first && row[last - 1] == 0)
            last -= 1;
        cache->spans[(size_t)2 * (size_t)y] = first < last ? first : 0;
        cache->spans[(size_t)2 * (size_t)y + 1] = first < last ? last : 0;
    }
}

// Copies the base layer between the cache and the raster's clip rectangle (keep: into the cache).
static void CopyBase(struct lsLayerCache* cache, lsRaster* raster, bool keep)
{
    size_t row = 4 * (size_t)cache->width, offset = 4 * (size_t)raster->clipX0;
    size_t bytes = 4 * (size_t)(raster->clipX1 - raster->clipX0);
    for (int y = raster->clipY0; y < raster->clipY1; ++y)
    {
        uint8_t* px = raster->pixels + (size_t)y * (size_t)raster->pitch + offset;
        uint8_t* kept = cache->base + (size_t)y * row + offset;
        memcpy(keep ? kept : px, keep ? px : kept, bytes);
    }
}

// Moves a width x height layer of `size`-byte pixels by (dx, dy) pixels; what comes in from outside is left as it
// was (the strips the caller draws anew).
static void ShiftLayer(uint8_t* pixels, int width, int height, size_t size, int dx, int dy)
{
    size_t stride = (size_t)width * size, bytes = (size_t)(width - abs(dx)) * size;
    size_t to = dx > 0 ? (size_t)dx * size : 0, from = dx < 0 ? (size_t)(-dx) * size : 0;
    for (int k = 0; k < height - abs(dy); ++k)
    {
        int y = dy > 0 ? height - 1 - k : k; // rows are moved away from where the next source row is
        memmove(pixels + (size_t)y * stride + to, pixels + (size_t)(y - dy) * stride + from, bytes);
    }
}

// Blends the wall colour through the kept coverage, run by run: most of a row between its first and last wall is
// empty, and is skipped eight bytes at a time.
static void CompositeWalls(const struct lsLayerCache* cache, lsRaster* raster)
{
    for (int y = 0; y < cache->height; ++y)
    {
        const uint8_t* row = cache->walls + (size_t)y * (size_t)cache->width;
        int x = cache->spans[(size_t)2 * (size_t)y], last = cache->spans[(size_t)2 * (size_t)y + 1];
        while (x < last)
        {
            uint64_t word;
            if (x + 8 <= last && (memcpy(&word, row + x, 8), word == 0))
            {
                x += 8;
                continue;
            }
            if (row[x] == 0)
            {
                x += 1;
                continue;
            }
            int start = x;
            while (x < last && row[x] != 0)
                x += 1;
            lsRaster_Mask(raster, start, y, row + start, x - start, 1, cache->width, lsColorWall);
        }
    }
}

lsLayerStats lsCanvas_LayerStats(const lsCanvas* canvas) { return canvas->layers->stats; }

// Draws both static layers in the raster's clip rectangle with painter p and keeps them: the walls white on black
// (their coverage), then the base over them.
static void DrawLayers(Painter* p, const lsWorld* world, const lsViewOptions* view)
{
    lsRaster_Clear(p->raster, (lsColor){0, 0, 0, 255});
    DrawWalls(p, world, (lsColor){255, 255, 255, 255});
    KeepWalls(p->canvas->layers, p->raster);
    lsRaster_Clear(p->raster, lsColorBackground);
    if (view->unknown && view->mapShade != NULL)
        lsMapShade_Draw(view->mapShade, p->raster, p->camera);
    if (view->grid)
        DrawGrid(p);
    if (view->axes)
        DrawAxes(p);
    DrawPaths(p, world);
    DrawSolids(p, world);
    CopyBase(p->canvas->layers, p->raster, true);
}

// ---------------------------------------------------------------------------------------------------------------------
// Frame

static Painter MakePainter(lsCanvas* canvas, const lsCamera* camera)
{
    Painter p = {.raster = &canvas->raster, .canvas = canvas, .camera = camera, .ok = true};
    p.xMin = -LS_GUARD;
    p.yMin = -LS_GUARD;
    p.xMax = camera->width + LS_GUARD;
    p.yMax = camera->height + LS_GUARD;
    lsAABB v = lsCamera_ViewBounds(camera);
    double margin = lsCamera_ToMetres(camera, 2.0 * LS_GUARD);
    p.view = (lsAABB){{v.lower.x - margin, v.lower.y - margin}, {v.upper.x + margin, v.upper.y + margin}};
    return p;
}

// Draws the static layers anew in the pixels [x0, x1) x [y0, y1) only (a strip a scroll uncovered): clipped there,
// and with the view box and guard of the strip, so only what reaches the strip is drawn at all.
static void DrawLayersIn(lsCanvas* canvas, const lsCamera* camera, const lsWorld* world, const lsViewOptions* view,
                         int x0, int y0, int x1, int y1)
{
    if (x1 <= x0 || y1 <= y0)
        return;
    Painter p = MakePainter(canvas, camera);
    p.xMin = x0 - LS_GUARD;
    p.yMin = y0 - LS_GUARD;
    p.xMax = x1 + LS_GUARD;
    p.yMax = y1 + LS_GUARD;
    lsVec2 a = lsCamera_ScreenToWorld(camera, lsV(p.xMin - LS_GUARD, p.yMax + LS_GUARD));
    lsVec2 b = lsCamera_ScreenToWorld(camera, lsV(p.xMax + LS_GUARD, p.yMin - LS_GUARD));
    p.view = (lsAABB){a, b};
    lsRaster_SetClip(p.raster, x0, y0, x1, y1);
    DrawLayers(&p, world, view);
    lsRaster_ResetClip(p.raster);
}

// The view moved by whole pixels since the layers were drawn: what stays in view moves with it, the strips it
// uncovered (a column band and a row band, not overlapping) are drawn anew.
static void ScrollLayers(lsCanvas* canvas, const lsCamera* camera, const lsWorld* world, const lsViewOptions* view)
{
    struct lsLayerCache* cache = canvas->layers;
    int w = cache->width, h = cache->height, dx = cache->scrollX, dy = cache->scrollY;
    ShiftLayer(cache->base, w, h, 4, dx, dy);
    ShiftLayer(cache->walls, w, h, 1, dx, dy);
    int cx0 = dx > 0 ? dx : 0, cx1 = dx < 0 ? w + dx : w;
    DrawLayersIn(canvas, camera, world, view, dx > 0 ? 0 : cx1, 0, dx > 0 ? dx : w, h);
    DrawLayersIn(canvas, camera, world, view, cx0, dy > 0 ? 0 : h + dy, cx1, dy > 0 ? dy : h);
    FindSpans(cache);
}

lsCamera lsInitialCamera(const lsSim* sim, int width, int height, lsRect area)
{
    const lsWorld* world = lsSim_GetWorld(sim);
    lsCamera camera = lsMakeCamera(width, height);
    lsCamera_FitInto(&camera, lsWorld_Bounds(world), area, 24.0);
    if (camera.zoom < LS_MIN_OVERVIEW_ZOOM)
    {
        const lsRobotState* robot = &lsSim_GetState(sim)->robot;
        double across = 3.0 * world->robot.lidar.range;
        lsCamera_FitInto(&camera,
                         (lsAABB){lsMulSub(robot->position, 0.5 * across, lsV(1.0, 1.0)),
                                  lsMulAdd(robot->position, 0.5 * across, lsV(1.0, 1.0))},
                         area, 24.0);
    }
    return camera;
}

bool lsDrawScene(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view)
{
    LS_ASSERT(canvas->surface->w == camera->width && canvas->surface->h == camera->height);
    // Whatever the software renderer was asked to draw (the editor's overlay of the previous frame) is on the
    // surface before the pixels are written directly.
    SDL_RenderFlush(canvas->renderer);
    if (SDL_LockSurface(canvas->surface) < 0)
    {
        fprintf(stderr, "lidarsim: SDL_LockSurface failed: %s\n", SDL_GetError());
        return false;
    }
    Painter p = MakePainter(canvas, camera);
    const lsWorld* world = lsSim_GetWorld(sim);
    const lsSimState* state = lsSim_GetState(sim);
    // The selected robot's scan is drawn in full (by hit kind or intensity); the others' in their hues.
    int selected = view->robot >= 0 && view->robot < state->robotCount ? view->robot : 0;
    const lsScan* scan = lsSim_GetRobotScan(sim, selected);

    lsRaster_ResetClip(p.raster);
    LayerKey key = MakeLayerKey(camera, world, view);
    LayerUse layers = ChooseLayers(canvas, &key);
    if (layers == ls_layersBuild)
    {
        DrawLayers(&p, world, view);
        FindSpans(canvas->layers);
        canvas->layers->valid = true;
    }
    else if (layers == ls_layersScroll)
    {
        ScrollLayers(canvas, camera, world, view);
        CopyBase(canvas->layers, p.raster, false);
    }
    else if (layers == ls_layersReuse)
    {
        CopyBase(canvas->layers, p.raster, false);
    }
    else
    {
        lsRaster_Clear(p.raster, lsColorBackground);
        if (view->unknown && view->mapShade != NULL)
            lsMapShade_Draw(view->mapShade, p.raster, camera);
        if (view->grid)
            DrawGrid(&p);
        if (view->axes)
            DrawAxes(&p);
        DrawPaths(&p, world);
        DrawSolids(&p, world);
    }
    DrawTargets(&p, state);
    DrawFleetScans(&p, sim, view, selected);
    DrawBeams(&p, scan, state, view);
    if (view->trail && view->trailData != NULL)
        DrawTrail(&p, view->trailData);
    if (layers == ls_layersNone)
        DrawWalls(&p, world, lsColorWall);
    else
        CompositeWalls(canvas->layers, p.raster);
    DrawMovers(&p, world, state);
    DrawHitPoints(&p, scan, state, view);
    DrawVehicles(&p, state, view->steering);
    for (int i = state->robotCount - 1; i >= 0; --i)
    {
        if (i != selected)
            DrawRobot(&p, &state->robots[i], FleetColor(i));
    }
    // The selected robot on top, ringed when there are others to tell it from.
    DrawRobot(&p, &state->robots[selected], FleetColor(selected));
    if (state->robotCount > 1)
    {
        const lsRobotState* r = &state->robots[selected];
        double radius = lsCamera_ToPixels(camera, r->radius) + 4.0;
        lsVec2 at = lsCamera_WorldToScreen(camera, r->position);
        if (lsAABB_Contains(p.view, r->position) && radius < 2000.0)
            lsRaster_Ring(p.raster, at, radius < 9.0 ? 9.0 : radius, 2.0, s_robotEdge);
    }
    if (view->grid)
        DrawScaleBar(&p, view);
    SDL_UnlockSurface(canvas->surface);
    return p.ok;
}

bool lsDrawFrame(lsCanvas* canvas, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
                 const lsHudInfo* hud)
{
    bool ok = lsDrawScene(canvas, camera, sim, view);
    if (ok && hud != NULL)
        ok = lsDrawHud(canvas, camera, sim, view, hud);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------------
// Canvas

// The HUD's text size follows the canvas: about 1/55 of its height, 11 to 22 pixels per line.
static int FontSize(int width, int height)
{
    int size = (int)lround(lsFmin(height / 55.0, width / 80.0));
    return size < 11 ? 11 : (size > 22 ? 22 : size);
}

// (Re)makes the surface, renderer and raster at width x height; fonts are made or remade when their size changes.
static bool MakeSurface(lsCanvas* c, int width, int height, lsError* err)
{
    lsDestroyRenderer(c->renderer);
    c->renderer = NULL;
    if (c->raster.cover != NULL)
        lsFreeRaster(&c->raster);
    SDL_FreeSurface(c->surface);
    c->surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_RGBA32);
    if (c->surface == NULL)
        return lsFail(err, "SDL_CreateRGBSurfaceWithFormat failed: %s", SDL_GetError());
    c->renderer = SDL_CreateSoftwareRenderer(c->surface);
    if (c->renderer == NULL)
        return lsFail(err, "SDL_CreateSoftwareRenderer failed: %s", SDL_GetError());
    // SDL2_gfx caches glyph textures for one renderer; start this one with an empty cache.
    gfxPrimitivesSetFont(NULL, 8, 8);
    c->raster = lsMakeRaster(c->surface->pixels, width, height, c->surface->pitch);
    int size = FontSize(width, height);
    if (c->font == NULL || lsFont_Size(c->font) != size)
    {
        lsDestroyFont(c->font);
        lsDestroyFont(c->small);
        c->font = lsCreateFont(size);
        c->small = lsCreateFont(size * 5 / 6);
    }
    return true;
}

lsCanvas* lsCreateCanvas(int width, int height, lsError* err)
{
    lsCanvas* c = lsAllocZero(1, sizeof(lsCanvas));
    c->layers = lsAllocZero(1, sizeof(struct lsLayerCache));
    if (!MakeSurface(c, width, height, err))
    {
        lsDestroyCanvas(c);
        return NULL;
    }
    return c;
}

bool lsCanvas_Resize(lsCanvas* canvas, int width, int height, lsError* err)
{
    if (canvas->surface != NULL && canvas->surface->w == width && canvas->surface->h == height)
        return true;
    return MakeSurface(canvas, width, height, err);
}

void lsDestroyCanvas(lsCanvas* canvas)
{
    if (canvas == NULL)
        return;
    lsDestroyRenderer(canvas->renderer);
    if (canvas->raster.cover != NULL)
        lsFreeRaster(&canvas->raster);
    SDL_FreeSurface(canvas->surface);
    lsDestroyFont(canvas->font);
    lsDestroyFont(canvas->small);
    FreeLayers(canvas->layers);
    lsFree(canvas->layers, sizeof(struct lsLayerCache));
    lsFree(canvas, sizeof(lsCanvas));
}

void lsDestroyRenderer(SDL_Renderer* renderer)
{
    if (renderer == NULL)
        return;
    gfxPrimitivesSetFont(NULL, 8, 8);
    SDL_DestroyRenderer(renderer);
}

lsColor lsSurfacePixel(const SDL_Surface* surface, int x, int y)
{
    LS_ASSERT(surface->format->format == SDL_PIXELFORMAT_RGBA32);
    LS_ASSERT(x >= 0 && y >= 0 && x < surface->w && y < surface->h);
    const Uint8* px = (const Uint8*)surface->pixels + (size_t)y * (size_t)surface->pitch + (size_t)x * 4;
    // RGBA32 is the byte order R, G, B, A in memory on every platform.
    return (lsColor){px[0], px[1], px[2], px[3]};
}

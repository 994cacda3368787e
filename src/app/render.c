// lidarsim front end: drawing the world and the sim with SDL2_gfx (see render.h).
// SDL2_gfx takes Sint16 pixel coordinates, so everything is clipped to a guard rectangle around the viewport
// before the conversion: a wall kilometres off screen must neither wrap around nor cost anything.
#include "app/render.h"

#include "lidarsim/lidar.h"

#include <SDL2/SDL2_gfxPrimitives.h>
#include <stdio.h>
#include <stdlib.h>

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

/// The alpha of beams from the sensor to their hit: translucent so 720 overlapping beams read as a fan.
/// Pixels drawn beyond the viewport on each side, so clipped shapes' outlines never show at the border.
#define LS_GUARD 8.0

lsViewOptions lsDefaultViewOptions(void)
{
    return (lsViewOptions){.beams = ls_beamsAll, .grid = true, .steering = false, .help = false, .hud = true};
}

// ---------------------------------------------------------------------------------------------------------------------
// Clipped primitives

typedef struct Painter
{
    SDL_Renderer* renderer;
    const lsCamera* camera;
    lsAABB view;                   ///< world box the camera sees, grown by a margin
    double xMin, yMin, xMax, yMax; ///< screen guard rectangle
    bool ok;                       ///< false once an SDL call failed
} Painter;

static void Check(Painter* p, int result, const char* what)
{
    if (result < 0 && p->ok)
    {
        fprintf(stderr, "lidarsim: %s failed: %s\n", what, SDL_GetError());
        p->ok = false;
    }
}

static Sint16 ToS16(double v)
{
    // Inputs are already clipped to the guard rectangle, so this only rounds.
    return (Sint16)lround(v);
}

/// Liang-Barsky: clips the screen segment a-b to the guard rectangle; false when nothing is left.
static bool ClipSegment(const Painter* p, lsVec2* a, lsVec2* b)
{
    double t0 = 0.0, t1 = 1.0;
    double dx = b->x - a->x, dy = b->y - a->y;
    double q[4] = {a->x - p->xMin, p->xMax - a->x, a->y - p->yMin, p->yMax - a->y};
    double pp[4] = {-dx, dx, -dy, dy};
    for (int i = 0; i < 4; ++i)
    {
        if (pp[i] == 0.0)
        {
            if (q[i] < 0.0)
                return false;
            continue;
        }
        double r = q[i] / pp[i];
        if (pp[i] < 0.0)
        {
            if (r > t1)
                return false;
            if (r > t0)
                t0 = r;
        }
        else
        {
            if (r < t0)
                return false;
            if (r < t1)
                t1 = r;
        }
    }
    lsVec2 a0 = *a;
    *a = (lsVec2){a0.x + t0 * dx, a0.y + t0 * dy};
    *b = (lsVec2){a0.x + t1 * dx, a0.y + t1 * dy};
    return true;
}

/// A screen-space line, clipped; width 1 or 2 pixels (2 is two 1-pixel lines side by side: crisp and cheap).
static void ScreenLine(Painter* p, lsVec2 a, lsVec2 b, lsColor c, int width)
{
    if (!ClipSegment(p, &a, &b))
        return;
    Sint16 x1 = ToS16(a.x), y1 = ToS16(a.y), x2 = ToS16(b.x), y2 = ToS16(b.y);
    Check(p, lineRGBA(p->renderer, x1, y1, x2, y2, c.r, c.g, c.b, c.a), "lineRGBA");
    if (width >= 2)
    {
        // Offset across the line's major axis so the pair forms a 2-pixel stroke without gaps.
        bool steep = fabs(b.y - a.y) > fabs(b.x - a.x);
        Sint16 ox = steep ? 1 : 0, oy = steep ? 0 : 1;
        Check(p,
              lineRGBA(p->renderer, (Sint16)(x1 + ox), (Sint16)(y1 + oy), (Sint16)(x2 + ox), (Sint16)(y2 + oy), c.r,
                       c.g, c.b, c.a),
              "lineRGBA");
    }
}

static void WorldLine(Painter* p, lsVec2 a, lsVec2 b, lsColor c, int width)
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
    Sint16 vx[LS_MAX_SCREEN_POLYGON], vy[LS_MAX_SCREEN_POLYGON];
    for (int i = 0; i < n; ++i)
    {
        vx[i] = ToS16(a[i].x);
        vy[i] = ToS16(a[i].y);
    }
    Check(p, filledPolygonRGBA(p->renderer, vx, vy, n, fill.r, fill.g, fill.b, fill.a), "filledPolygonRGBA");
    if (edge != NULL)
    {
        for (int i = 0; i < count; ++i)
        {
            WorldLine(p, points[i], points[(i + 1) % count], *edge, 1);
        }
    }
}

/// A filled disc in world coordinates; huge on screen it becomes a clipped polygon (Sint16 radius limit).
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
    Sint16 x = ToS16(s.x), y = ToS16(s.y), rad = (Sint16)(r < 1.0 ? 1 : lround(r));
    Check(p, filledCircleRGBA(p->renderer, x, y, rad, fill.r, fill.g, fill.b, fill.a), "filledCircleRGBA");
    if (edge != NULL && rad >= 3)
    {
        Check(p, aacircleRGBA(p->renderer, x, y, rad, edge->r, edge->g, edge->b, edge->a), "aacircleRGBA");
    }
}

/// A small square marker of side `size` pixels centred on a world point.
static void Marker(Painter* p, lsVec2 world, int size, lsColor c)
{
    if (!lsAABB_Contains(p->view, world))
        return;
    lsVec2 s = lsCamera_WorldToScreen(p->camera, world);
    Sint16 x = ToS16(s.x - 0.5 * size), y = ToS16(s.y - 0.5 * size);
    Check(p, boxRGBA(p->renderer, x, y, (Sint16)(x + size - 1), (Sint16)(y + size - 1), c.r, c.g, c.b, c.a), "boxRGBA");
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
    int columns = (int)fmin(x1 - x0, 10000.0), rows = (int)fmin(y1 - y0, 10000.0);
    for (int i = 0; i <= columns; ++i)
    {
        double x = (x0 + i) * step;
        bool isMajor = fabs(remainder(x, major)) < 0.5 * step;
        ScreenLine(p, lsCamera_WorldToScreen(cam, lsV(x, v.lower.y)), lsCamera_WorldToScreen(cam, lsV(x, v.upper.y)),
                   isMajor ? s_gridMajor : s_gridMinor, 1);
    }
    for (int j = 0; j <= rows; ++j)
    {
        double y = (y0 + j) * step;
        bool isMajor = fabs(remainder(y, major)) < 0.5 * step;
        ScreenLine(p, lsCamera_WorldToScreen(cam, lsV(v.lower.x, y)), lsCamera_WorldToScreen(cam, lsV(v.upper.x, y)),
                   isMajor ? s_gridMajor : s_gridMinor, 1);
    }
}

static void DrawScaleBar(Painter* p)
{
    const lsCamera* cam = p->camera;
    double metres = NiceLength(lsCamera_ToMetres(cam, 120.0));
    double px = lsCamera_ToPixels(cam, metres);
    double x0 = 16.0, y0 = cam->height - 18.0;
    lsColor c = lsColorHud;
    // A dark backing keeps the bar readable over walls and beams.
    Check(p,
          boxRGBA(p->renderer, ToS16(x0 - 8.0), ToS16(y0 - 20.0), ToS16(x0 + px + 8.0), ToS16(y0 + 8.0), 8, 9, 12, 170),
          "boxRGBA");
    ScreenLine(p, lsV(x0, y0), lsV(x0 + px, y0), c, 2);
    ScreenLine(p, lsV(x0, y0 - 5.0), lsV(x0, y0 + 1.0), c, 1);
    ScreenLine(p, lsV(x0 + px, y0 - 5.0), lsV(x0 + px, y0 + 1.0), c, 1);
    char label[32];
    if (metres >= 1000.0)
        snprintf(label, sizeof label, "%g km", metres / 1000.0);
    else if (metres >= 1.0)
        snprintf(label, sizeof label, "%g m", metres);
    else
        snprintf(label, sizeof label, "%g cm", metres * 100.0);
    Check(p, stringRGBA(p->renderer, ToS16(x0), ToS16(y0 - 14.0), label, c.r, c.g, c.b, c.a), "stringRGBA");
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
            WorldLine(p, path->points[k], path->points[(k + 1) % path->pointCount], s_pathLine, 1);
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

/// Pixels of many lines or dots of one colour, sent to SDL in SDL_RenderDrawPoints calls of up to
/// LS_BATCH_POINTS points. A city of 100 000 walls is 100 000 tiny lines; one SDL draw call each costs about a
/// microsecond of queue overhead in the software renderer, a batch of their pixels a few nanoseconds per pixel.
/// The buffer is a fixed 64 KB chunk (no multi-megabyte allocation, and so no page faults, every frame).
#define LS_BATCH_POINTS 8192

typedef struct PointBatch
{
    Painter* painter;
    lsColor color;
    SDL_Point* points; ///< lsAlloc'd, LS_BATCH_POINTS entries
    int count;
} PointBatch;

static PointBatch Batch_Begin(Painter* p, lsColor color)
{
    return (PointBatch){p, color, lsAlloc(sizeof(SDL_Point) * LS_BATCH_POINTS), 0};
}

/// Draws the points gathered so far and empties the batch.
static void Batch_Draw(PointBatch* b)
{
    if (b->count == 0)
        return;
    Painter* p = b->painter;
    lsColor c = b->color;
    Check(p, SDL_SetRenderDrawBlendMode(p->renderer, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND),
          "SDL_SetRenderDrawBlendMode");
    Check(p, SDL_SetRenderDrawColor(p->renderer, c.r, c.g, c.b, c.a), "SDL_SetRenderDrawColor");
    Check(p, SDL_RenderDrawPoints(p->renderer, b->points, b->count), "SDL_RenderDrawPoints");
    b->count = 0;
}

static void Batch_End(PointBatch* b)
{
    Batch_Draw(b);
    lsFree(b->points, sizeof(SDL_Point) * LS_BATCH_POINTS);
    b->points = NULL;
}

static inline void Batch_Push(PointBatch* b, int x, int y)
{
    if (b->count == LS_BATCH_POINTS)
        Batch_Draw(b);
    b->points[b->count++] = (SDL_Point){x, y};
}

/// Bresenham's line between the rounded, clipped ends; width 2 adds the neighbour across the major axis, as
/// ScreenLine does, so batched and unbatched strokes look the same.
static void Batch_Line(PointBatch* b, lsVec2 a, lsVec2 c, int width)
{
    const Painter* p = b->painter;
    bool inside = a.x >= p->xMin && a.x <= p->xMax && a.y >= p->yMin && a.y <= p->yMax && c.x >= p->xMin &&
                  c.x <= p->xMax && c.y >= p->yMin && c.y <= p->yMax;
    if (!inside && !ClipSegment(p, &a, &c))
        return;
    // Round half up (consistently for negative coordinates too, which the guard band allows).
    int x0 = (int)floor(a.x + 0.5), y0 = (int)floor(a.y + 0.5), x1 = (int)floor(c.x + 0.5), y1 = (int)floor(c.y + 0.5);
    int dx = abs(x1 - x0), dy = -abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    bool steep = -dy > dx;
    int ox = steep ? 1 : 0, oy = steep ? 0 : 1;
    int e = dx + dy;
    for (;;)
    {
        Batch_Push(b, x0, y0);
        if (width >= 2)
            Batch_Push(b, x0 + ox, y0 + oy);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * e;
        if (e2 >= dy)
        {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx)
        {
            e += dx;
            y0 += sy;
        }
    }
}

static void DrawWalls(Painter* p, const lsWorld* world)
{
    // Thin strokes when zoomed far out, so a city of 100k walls stays readable instead of a white blob.
    int width = lsCamera_ToPixels(p->camera, 1.0) >= 4.0 ? 2 : 1;
    // The camera's map written out (one multiply-add per coordinate), as this loop runs over every wall.
    double zoom = p->camera->zoom;
    double ox = 0.5 * p->camera->width - p->camera->center.x * zoom;
    double oy = 0.5 * p->camera->height + p->camera->center.y * zoom;
    lsAABB v = p->view;
    PointBatch batch = Batch_Begin(p, lsColorWall);
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
            Batch_Line(&batch, lsV(ox + a.x * zoom, oy - a.y * zoom), lsV(ox + b.x * zoom, oy - b.y * zoom), width);
        }
    }
    Batch_End(&batch);
}

static void DrawMovers(Painter* p, const lsWorld* world, const lsSimState* state)
{
    for (int i = 0; i < state->moverCount && i < world->moverCount; ++i)
    {
        const lsMoverDef* def = &world->movers[i];
        if (def->kind == ls_moverDoor)
        {
            // The door's track: where its ends travel.
            WorldLine(p, def->a, lsAdd(def->a, def->offset), s_moverTrack, 1);
            WorldLine(p, def->b, lsAdd(def->b, def->offset), s_moverTrack, 1);
        }
        else
        {
            Marker(p, def->pivot, 5, s_mover);
        }
        lsSegment s = state->movers[i];
        WorldBand(p, s.a, s.b, lsCamera_ToMetres(p->camera, 2.0), s_mover);
    }
}

static void DrawTargets(Painter* p, const lsSimState* state)
{
    // Targets under 1.5 pixels of radius (zoomed far out over thousands of them) become 2x2 dots, batched per kind.
    PointBatch dots[2] = {Batch_Begin(p, lsColorFood), Batch_Begin(p, lsColorPoison)};
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
            PointBatch* b = &dots[t->kind == ls_food ? 0 : 1];
            Batch_Push(b, x, y);
            Batch_Push(b, x - 1, y);
            Batch_Push(b, x, y - 1);
            Batch_Push(b, x - 1, y - 1);
            continue;
        }
        WorldDisc(p, t->center, t->radius, c, NULL);
        if (t->kind == ls_poison && radiusPx >= 4.0)
        {
            // A dark cross marks poison by shape as well as by colour.
            double r = 0.55 * t->radius;
            lsColor x = {60, 10, 50, 255};
            WorldLine(p, lsAdd(t->center, lsV(-r, -r)), lsAdd(t->center, lsV(r, r)), x, 1);
            WorldLine(p, lsAdd(t->center, lsV(-r, r)), lsAdd(t->center, lsV(r, -r)), x, 1);
        }
    }
    Batch_End(&dots[0]);
    Batch_End(&dots[1]);
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
        double len = fmax(2.5 * v->radius, lsCamera_ToMetres(p->camera, 18.0));
        lsVec2 side = lsLeftPerp(dir);
        lsVec2 tri[3] = {lsMulAdd(v->position, 0.6 * len, dir),
                         lsMulAdd(lsMulAdd(v->position, -0.4 * len, dir), 0.35 * len, side),
                         lsMulAdd(lsMulAdd(v->position, -0.4 * len, dir), -0.35 * len, side)};
        WorldPolygon(p, tri, 3, s_vehicleBody, &s_vehicle);
        if (steering)
        {
            WorldLine(p, v->position, v->predicted, s_predicted, 1);
            WorldLine(p, v->predicted, v->normalPoint, s_normalPoint, 1);
            Marker(p, v->predicted, 5, s_predicted);
            Marker(p, v->normalPoint, 5, s_normalPoint);
            Marker(p, v->target, v->seeking ? 7 : 5, s_seekTarget);
        }
    }
}

static void DrawRobot(Painter* p, const lsRobotState* robot)
{
    lsColor fill = robot->inContact ? (lsColor){255, 96, 64, 255} : lsColorRobot;
    if (robot->footprintCount >= 3)
        WorldPolygon(p, robot->footprint, robot->footprintCount, fill, &s_robotEdge);
    else
        WorldDisc(p, robot->position, fmax(robot->radius, lsCamera_ToMetres(p->camera, 5.0)), fill, &s_robotEdge);
    // The heading: a dark line from the centre to the rim, at least a few pixels long.
    double len = fmax(robot->radius, lsCamera_ToMetres(p->camera, 8.0));
    lsVec2 tip = lsMulAdd(robot->position, len, lsDirection(robot->angle));
    WorldLine(p, robot->position, tip, (lsColor){40, 30, 20, 255}, 2);
}

static lsColor HitColor(const lsSimState* state, lsHitKind kind, int index)
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
    default:
        return lsColorHitWall;
    }
}

static void DrawBeams(Painter* p, const lsScan* scan, const lsSimState* state, lsBeamMode mode)
{
    if (scan == NULL || scan->count == 0)
        return;
    lsVec2 origin = scan->pose.p;
    if (mode != ls_beamsOff)
    {
        for (int i = 0; i < scan->count; ++i)
        {
            if (scan->kinds[i] != ls_hitNone)
            {
                lsColor c = HitColor(state, scan->kinds[i], scan->indices[i]);
                c.a = LS_BEAM_ALPHA;
                WorldLine(p, origin, scan->points[i], c, 1);
            }
            else if (mode == ls_beamsAll)
            {
                // The scan stores a no-return beam's end at rangeMax along its direction.
                WorldLine(p, origin, scan->points[i], lsColorNoReturn, 1);
            }
        }
    }
}

/// Hit points, opaque and drawn over the walls, so the shape the lidar sees reads even with the beams hidden.
static void DrawHitPoints(Painter* p, const lsScan* scan, const lsSimState* state)
{
    if (scan == NULL)
    {
        return;
    }
    int size = lsCamera_ToPixels(p->camera, 1.0) >= 30.0 ? 3 : 2;
    for (int i = 0; i < scan->count; ++i)
    {
        if (scan->kinds[i] != ls_hitNone)
        {
            Marker(p, scan->points[i], size, HitColor(state, scan->kinds[i], scan->indices[i]));
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Frame

static Painter MakePainter(SDL_Renderer* renderer, const lsCamera* camera)
{
    Painter p = {.renderer = renderer, .camera = camera, .ok = true};
    p.xMin = -LS_GUARD;
    p.yMin = -LS_GUARD;
    p.xMax = camera->width + LS_GUARD;
    p.yMax = camera->height + LS_GUARD;
    lsAABB v = lsCamera_ViewBounds(camera);
    double margin = lsCamera_ToMetres(camera, 2.0 * LS_GUARD);
    p.view = (lsAABB){{v.lower.x - margin, v.lower.y - margin}, {v.upper.x + margin, v.upper.y + margin}};
    return p;
}

lsCamera lsInitialCamera(const lsSim* sim, int width, int height)
{
    const lsWorld* world = lsSim_GetWorld(sim);
    lsCamera camera = lsMakeCamera(width, height);
    lsCamera_Fit(&camera, lsWorld_Bounds(world), 24.0);
    if (camera.zoom < LS_MIN_OVERVIEW_ZOOM)
    {
        const lsRobotState* robot = &lsSim_GetState(sim)->robot;
        double across = 3.0 * world->robot.lidar.range;
        lsCamera_Fit(&camera,
                     (lsAABB){lsMulSub(robot->position, 0.5 * across, lsV(1.0, 1.0)),
                              lsMulAdd(robot->position, 0.5 * across, lsV(1.0, 1.0))},
                     24.0);
    }
    return camera;
}

bool lsDrawScene(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view)
{
    Painter p = MakePainter(renderer, camera);
    const lsWorld* world = lsSim_GetWorld(sim);
    const lsSimState* state = lsSim_GetState(sim);

    lsColor bg = lsColorBackground;
    Check(&p, SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_NONE), "SDL_SetRenderDrawBlendMode");
    Check(&p, SDL_SetRenderDrawColor(renderer, bg.r, bg.g, bg.b, bg.a), "SDL_SetRenderDrawColor");
    Check(&p, SDL_RenderClear(renderer), "SDL_RenderClear");

    if (view->grid)
        DrawGrid(&p);
    DrawPaths(&p, world);
    DrawSolids(&p, world);
    DrawTargets(&p, state);
    DrawBeams(&p, lsSim_GetScan(sim), state, view->beams);
    DrawWalls(&p, world);
    DrawMovers(&p, world, state);
    DrawHitPoints(&p, lsSim_GetScan(sim), state);
    DrawVehicles(&p, state, view->steering);
    DrawRobot(&p, &state->robot);
    if (view->grid)
        DrawScaleBar(&p);
    return p.ok;
}

bool lsDrawFrame(SDL_Renderer* renderer, const lsCamera* camera, const lsSim* sim, const lsViewOptions* view,
                 const lsHudInfo* hud)
{
    bool ok = lsDrawScene(renderer, camera, sim, view);
    if (ok && hud != NULL)
        ok = lsDrawHud(renderer, camera, sim, view, hud);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------------
// Offscreen

bool lsCreateOffscreen(int width, int height, SDL_Surface** surface, SDL_Renderer** renderer, lsError* err)
{
    *surface = NULL;
    *renderer = NULL;
    SDL_Surface* s = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_RGBA32);
    if (s == NULL)
        return lsFail(err, "SDL_CreateRGBSurfaceWithFormat failed: %s", SDL_GetError());
    SDL_Renderer* r = SDL_CreateSoftwareRenderer(s);
    if (r == NULL)
    {
        lsFail(err, "SDL_CreateSoftwareRenderer failed: %s", SDL_GetError());
        SDL_FreeSurface(s);
        return false;
    }
    // SDL2_gfx caches glyph textures for one renderer; start this one with an empty cache.
    gfxPrimitivesSetFont(NULL, 8, 8);
    *surface = s;
    *renderer = r;
    return true;
}

void lsDestroyRenderer(SDL_Renderer* renderer)
{
    if (renderer == NULL)
        return;
    gfxPrimitivesSetFont(NULL, 8, 8);
    SDL_DestroyRenderer(renderer);
}

void lsDestroyOffscreen(SDL_Surface* surface, SDL_Renderer* renderer)
{
    lsDestroyRenderer(renderer);
    SDL_FreeSurface(surface);
}

lsColor lsSurfacePixel(const SDL_Surface* surface, int x, int y)
{
    LS_ASSERT(surface->format->format == SDL_PIXELFORMAT_RGBA32);
    LS_ASSERT(x >= 0 && y >= 0 && x < surface->w && y < surface->h);
    const Uint8* px = (const Uint8*)surface->pixels + (size_t)y * (size_t)surface->pitch + (size_t)x * 4;
    // RGBA32 is the byte order R, G, B, A in memory on every platform.
    return (lsColor){px[0], px[1], px[2], px[3]};
}

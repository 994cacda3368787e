// lidarsim front end: the camera (see camera.h).
#include "app/camera.h"

#include "lidarsim/base.h"

static double ClampZoom(double zoom)
{
    if (!(zoom >= LS_CAMERA_MIN_ZOOM))
        return LS_CAMERA_MIN_ZOOM; // NaN too
    if (zoom > LS_CAMERA_MAX_ZOOM)
        return LS_CAMERA_MAX_ZOOM;
    return zoom;
}

lsCamera lsMakeCamera(int width, int height)
{
    LS_ASSERT(width >= 1 && height >= 1);
    return (lsCamera){.center = {0.0, 0.0}, .zoom = 50.0, .width = width, .height = height};
}

lsVec2 lsCamera_WorldToScreen(const lsCamera* camera, lsVec2 world)
{
    // The world centre lands on the viewport's geometric centre; y flips because screens count rows downwards.
    return (lsVec2){0.5 * camera->width + (world.x - camera->center.x) * camera->zoom,
                    0.5 * camera->height - (world.y - camera->center.y) * camera->zoom};
}

lsVec2 lsCamera_ScreenToWorld(const lsCamera* camera, lsVec2 screen)
{
    return (lsVec2){camera->center.x + (screen.x - 0.5 * camera->width) / camera->zoom,
                    camera->center.y - (screen.y - 0.5 * camera->height) / camera->zoom};
}

lsAABB lsCamera_ViewBounds(const lsCamera* camera)
{
    double hx = 0.5 * camera->width / camera->zoom;
    double hy = 0.5 * camera->height / camera->zoom;
    return (lsAABB){{camera->center.x - hx, camera->center.y - hy}, {camera->center.x + hx, camera->center.y + hy}};
}

void lsCamera_ZoomAt(lsCamera* camera, lsVec2 screenPoint, double factor)
{
    LS_ASSERT(factor > 0.0);
    lsVec2 anchor = lsCamera_ScreenToWorld(camera, screenPoint);
    camera->zoom = ClampZoom(camera->zoom * factor);
    // Move the centre so the anchor maps back onto the same pixel under the new zoom.
    camera->center.x = anchor.x - (screenPoint.x - 0.5 * camera->width) / camera->zoom;
    camera->center.y = anchor.y + (screenPoint.y - 0.5 * camera->height) / camera->zoom;
}

void lsCamera_Pan(lsCamera* camera, lsVec2 screenDelta)
{
    camera->center.x -= screenDelta.x / camera->zoom;
    camera->center.y += screenDelta.y / camera->zoom;
}

void lsCamera_LookAt(lsCamera* camera, lsVec2 world)
{
    LS_ASSERT(lsIsValidVec2(world));
    camera->center = world;
}

void lsCamera_Fit(lsCamera* camera, lsAABB bounds, double marginPixels)
{
    lsCamera_FitInto(camera, bounds, (lsRect){0, 0, camera->width, camera->height}, marginPixels);
}

void lsCamera_LookAtIn(lsCamera* camera, lsVec2 world, lsRect area)
{
    LS_ASSERT(lsIsValidVec2(world));
    // The area's centre is this many pixels from the viewport's centre; the camera's centre moves the other way.
    double dx = area.x + 0.5 * area.w - 0.5 * camera->width;
    double dy = area.y + 0.5 * area.h - 0.5 * camera->height;
    camera->center = (lsVec2){world.x - dx / camera->zoom, world.y + dy / camera->zoom};
    if (!lsIsValidVec2(camera->center))
        camera->center = world;
}

void lsCamera_FitInto(lsCamera* camera, lsAABB bounds, lsRect area, double marginPixels)
{
    double w = bounds.upper.x - bounds.lower.x;
    double h = bounds.upper.y - bounds.lower.y;
    if (!(w > 0.0))
        w = 1.0;
    if (!(h > 0.0))
        h = 1.0;
    double availW = area.w - 2.0 * marginPixels;
    double availH = area.h - 2.0 * marginPixels;
    // A viewport smaller than its margins still gets a positive zoom.
    if (availW < 1.0)
        availW = 1.0;
    if (availH < 1.0)
        availH = 1.0;
    camera->zoom = ClampZoom(lsFmin(availW / w, availH / h));
    lsVec2 middle = lsLerp(bounds.lower, bounds.upper, 0.5);
    if (!lsIsValidVec2(middle))
        middle = (lsVec2){0.0, 0.0};
    lsCamera_LookAtIn(camera, middle, area);
}

void lsCamera_Resize(lsCamera* camera, int width, int height)
{
    camera->width = width < 1 ? 1 : width;
    camera->height = height < 1 ? 1 : height;
}

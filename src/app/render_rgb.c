// lidarsim front end: frames as RGB arrays (see render_rgb.h).
#include "app/render_rgb.h"

#include "app/render.h"

bool lsRenderRgb(const lsSim* sim, int width, int height, bool hud, bool autopilot, uint8_t* rgb, lsError* err)
{
    LS_ASSERT(sim != NULL && rgb != NULL);
    if (width < 16 || width > 16384 || height < 16 || height > 16384)
    {
        return lsFail(err, "size: expected width and height in [16, 16384], got %dx%d", width, height);
    }
    lsCanvas* canvas = lsCreateCanvas(width, height, err);
    if (canvas == NULL)
    {
        return false;
    }
    // The default view without a trail: the binding keeps no history of poses.
    lsViewOptions view = lsDefaultViewOptions();
    view.hud = hud;
    lsCamera camera = lsInitialCamera(sim, width, height, lsWorldArea(canvas, &view));
    lsHudInfo info = {.worldName = lsSim_GetWorld(sim)->name, .autopilot = autopilot};
    bool ok = lsDrawFrame(canvas, &camera, sim, &view, &info);
    const SDL_Surface* surface = canvas->surface;
    if (!ok)
    {
        lsFail(err, "drawing failed: %s", SDL_GetError());
    }
    else
    {
        // The surface is RGBA32 (bytes r, g, b, a in memory); rows may be padded to surface->pitch.
        for (int y = 0; y < height; ++y)
        {
            const uint8_t* src = (const uint8_t*)surface->pixels + (size_t)y * (size_t)surface->pitch;
            uint8_t* dst = rgb + (size_t)y * (size_t)width * 3;
            for (int x = 0; x < width; ++x)
            {
                dst[3 * (size_t)x] = src[4 * (size_t)x];
                dst[3 * (size_t)x + 1] = src[4 * (size_t)x + 1];
                dst[3 * (size_t)x + 2] = src[4 * (size_t)x + 2];
            }
        }
    }
    lsDestroyCanvas(canvas);
    return ok;
}

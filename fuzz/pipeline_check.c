#define _POSIX_C_SOURCE 200809L

#include "pipeline_check.h"

#include "cli/laserscan.h"
#include "core/invariants.h"
#include "lidarsim/sim.h"
#include "lidarsim/world.h"

#ifdef LS_HAVE_APP
#include "app/render.h"
#endif

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A small cost per input: a fuzzer runs thousands of them per second.
#define LS_PIPELINE_STEPS 40
#define LS_PIPELINE_BEAMS 180

// Even-odd rule: is p inside the closed chain's polygon (boundary excluded)?
static bool InsideChain(const lsWallDef* wall, lsVec2 p)
{
    bool inside = false;
    for (int i = 0, j = wall->pointCount - 1; i < wall->pointCount; j = i++)
    {
        lsVec2 a = wall->points[i], b = wall->points[j];
        if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y))
        {
            inside = !inside;
        }
    }
    return inside;
}

// The invariant broken is the robot overlapping a solid (lsSim_CheckInvariants: "robot at (x, y) overlaps ...").
static bool IsOverlap(const char* message) { return strstr(message, " overlaps ") != NULL; }

// Every number in a parsed JSON tree is finite.
static bool AllFinite(const cJSON* item)
{
    for (; item != NULL; item = item->next)
    {
        if (cJSON_IsNumber(item) && !isfinite(item->valuedouble))
        {
            return false;
        }
        if (!AllFinite(item->child))
        {
            return false;
        }
    }
    return true;
}

// The scan as `lidarsim scan` and `run --record` print it must be strict JSON (no inf, NaN) with finite numbers.
static int CheckScanJson(const lsSim* sim)
{
    char* text = NULL;
    size_t length = 0;
    FILE* out = open_memstream(&text, &length);
    if (out == NULL)
    {
        return 0; // out of memory in the harness, not a finding
    }
    const lsSimState* state = lsSim_GetState(sim);
    lsScanPose pose = {state->robot.position.x, state->robot.position.y, state->robot.angle};
    lsWriteLaserScanJson(out, lsSim_GetScene(sim), lsSim_GetScan(sim), state->time,
                         1.0 / lsSim_GetWorld(sim)->robot.lidar.rate, ls_noHitNull, pose);
    fclose(out);
    const char* end = NULL;
    cJSON* root = cJSON_ParseWithLengthOpts(text, length + 1, &end, true);
    int failed = 0;
    if (root == NULL)
    {
        fprintf(stderr, "pipeline: the LaserScan JSON does not parse near byte %td: %.200s\n",
                end != NULL ? end - text : -1, text);
        failed = 1;
    }
    else if (!AllFinite(root))
    {
        fprintf(stderr, "pipeline: the LaserScan JSON holds a number that is not finite\n");
        failed = 1;
    }
    cJSON_Delete(root);
    free(text);
    return failed;
}

#ifdef LS_HAVE_APP
// Draws the frame as the window would with three cameras: its opening view, a close-up on the robot and the
// farthest zoom (coordinates far outside 16-bit pixel range must be clipped, never wrapped or overflowed).
static int CheckDrawing(const lsSim* sim)
{
    // A canvas per input, so what drawing allocates is counted by the leak check too.
    lsError err = {{0}};
    lsCanvas* canvas = lsCreateCanvas(240, 160, &err);
    if (canvas == NULL)
    {
        fprintf(stderr, "pipeline: no offscreen canvas: %s\n", err.message);
        return 1;
    }
    lsViewOptions view = lsDefaultViewOptions();
    view.steering = true;
    lsHudInfo hud;
    memset(&hud, 0, sizeof hud);
    hud.worldName = lsSim_GetWorld(sim)->name;
    lsCamera cameras[3];
    cameras[0] = lsInitialCamera(sim, 240, 160, lsWorldArea(canvas, &view));
    cameras[1] = cameras[0];
    lsCamera_LookAt(&cameras[1], lsSim_GetState(sim)->robot.position);
    cameras[1].zoom = LS_CAMERA_MAX_ZOOM;
    cameras[2] = cameras[0];
    cameras[2].zoom = LS_CAMERA_MIN_ZOOM;
    for (int i = 0; i < 3; ++i)
    {
        if (!lsDrawFrame(canvas, &cameras[i], sim, &view, &hud))
        {
            fprintf(stderr, "pipeline: drawing failed\n");
            lsDestroyCanvas(canvas);
            return 1;
        }
    }
    lsDestroyCanvas(canvas);
    return 0;
}
#endif

static int CheckWorld(lsWorld* world)
{
    // Clamp the cost, not the geometry: every coordinate, speed and period stays as the file gave it.
    if (world->robot.lidar.beams > LS_PIPELINE_BEAMS)
    {
        world->robot.lidar.beams = LS_PIPELINE_BEAMS;
    }
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    // Closed rooms the robot starts in, which it must never leave (walls are never crossed). Only a footprint wholly
    // inside counts: a robot placed across a wall (its centre on the wall, say) may be pushed out to either side.
    bool rooms[64];
    int roomCount = world->wallCount < 64 ? world->wallCount : 64;
    double reach = lsRobotDef_Reach(&world->robot);
    for (int i = 0; i < roomCount; ++i)
    {
        const lsWallDef* wall = &world->walls[i];
        lsVec2 p = state->robot.position;
        rooms[i] = wall->closed && InsideChain(wall, p) &&
                   lsClosestPointOnPolyline(wall->points, wall->pointCount, true, p).distance > reach;
    }
    lsControl autopilot = lsMakeAutopilotControl();
    int failed = CheckScanJson(sim);
    // Overlap is allowed only where no free place exists: a robot placed where it cannot fit (larger than the room it
    // is in), or crushed by a moving wall (the step says so). Everything else must hold at every step.
    lsError err = {{0}};
    bool stuckFromStart = !lsSim_CheckInvariants(sim, &err) && IsOverlap(err.message);
    for (int step = 0; step < LS_PIPELINE_STEPS && failed == 0; ++step)
    {
        int crushes = state->crushes;
        lsSim_Step(sim, &autopilot);
        if (!lsSim_CheckInvariants(sim, &err) &&
            !(IsOverlap(err.message) && (stuckFromStart || state->crushes > crushes)))
        {
            fprintf(stderr, "pipeline: step %d: %s\n", step, err.message);
            failed = 1;
        }
        for (int i = 0; i < roomCount && failed == 0; ++i)
        {
            if (rooms[i] && !InsideChain(&world->walls[i], state->robot.position))
            {
                fprintf(stderr, "pipeline: step %d: the robot left the closed room walls[%d] for (%.17g, %.17g)\n",
                        step, i, state->robot.position.x, state->robot.position.y);
                failed = 1;
            }
        }
        if (failed == 0 && (state->scanned || step + 1 == LS_PIPELINE_STEPS))
        {
            failed = CheckScanJson(sim);
        }
    }
#ifdef LS_HAVE_APP
    if (failed == 0)
    {
        failed = CheckDrawing(sim);
    }
#endif
    lsDestroySim(sim);
    return failed;
}

int lsFuzzCheckPipeline(const uint8_t* data, size_t size)
{
    long long bytesBefore = lsAllocatedBytes();
    char* text = lsAlloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(text, size, "fuzz.json", &err, NULL);
    lsFree(text, size + 1);
    int failed = 0;
    if (world != NULL)
    {
        failed = CheckWorld(world);
        lsDestroyWorld(world);
    }
    if (lsAllocatedBytes() != bytesBefore)
    {
        fprintf(stderr, "pipeline: %lld bytes leaked\n", lsAllocatedBytes() - bytesBefore);
        failed = 1;
    }
    return failed;
}

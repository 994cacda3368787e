// SoakTest: a short soak (the long one is scripts/soak.sh): the autopilot drives the default world for 20 000
// steps and every shipped world for a few thousand, with the invariants of src/core/invariants.h checked after
// every step and the core heap flat; plus checks that the invariants do catch a robot inside a solid.
#include "test.h"

#include "core/invariants.h"
#include "lidarsim/sim.h"
#include "lidarsim/world.h"

#include <dirent.h>
#include <string.h>

// Runs steps autopilot steps of the world file, checking the invariants after each; the core heap must not grow
// after the first 1000 steps (scratch buffers settle by then).
static int SoakWorld(const char* path, int steps)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "  %s\n", err.message);
    }
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    ENSURE(lsSim_CheckInvariants(sim, &err));
    const lsControl autopilot = lsMakeAutopilotControl();
    long long heapSettled = -1;
    int failedStep = -1;
    for (int step = 1; step <= steps && failedStep < 0; ++step)
    {
        lsSim_Step(sim, &autopilot);
        if (!lsSim_CheckInvariants(sim, &err))
        {
            failedStep = step;
            fprintf(stderr, "  %s: step %d: %s\n", path, step, err.message);
        }
        if (step == 1000)
        {
            heapSettled = lsAllocatedBytes();
        }
    }
    long long heapEnd = lsAllocatedBytes();
    const lsSimState* state = lsSim_GetState(sim);
    long long stepsDone = state->step;
    double distance = state->distance;
    lsDestroySim(sim);
    lsDestroyWorld(world);
    ENSURE(failedStep < 0);
    ENSURE(stepsDone == steps);
    ENSURE(heapSettled < 0 || heapEnd == heapSettled);
    // The autopilot must actually drive, or the soak proves nothing about collisions.
    ENSURE(distance > 1.0);
    return 0;
}

static int DefaultWorldTest(void) { return SoakWorld(LS_SOURCE_DIR "/worlds/default.json", 20000); }

static int EveryWorldTest(void)
{
    DIR* dir = opendir(LS_SOURCE_DIR "/worlds");
    ENSURE(dir != NULL);
    int worlds = 0;
    struct dirent* entry;
    int failed = 0;
    while ((entry = readdir(dir)) != NULL && failed == 0)
    {
        size_t n = strlen(entry->d_name);
        if (n < 6 || strcmp(entry->d_name + n - 5, ".json") != 0)
        {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/worlds/%s", LS_SOURCE_DIR, entry->d_name);
        failed = SoakWorld(path, 3000);
        ++worlds;
    }
    closedir(dir);
    ENSURE(failed == 0);
    ENSURE(worlds >= 4);
    return 0;
}

// A robot placed where it cannot fit (lsSim_Reset pushes a robot out of one solid, but here that pushes it into
// another): the check must name the overlap, for walls, boxes and polygons, for a disc and a polygon footprint.
static int CatchesOverlapTest(void)
{
    lsError err = {{0}};
    for (int shape = 0; shape < 3; ++shape)
    {
        lsWorld* world = lsCreateWorld();
        world->robot.position = lsV(0.0, 0.0);
        world->robot.radius = 0.25;
        const char* expected = NULL;
        if (shape == 0)
        {
            // A 0.3 m gap between two boxes for a disc 0.5 m wide.
            lsBoxDef box = lsDefaultBoxDef();
            box.size = lsV(1.0, 4.0);
            box.center = lsV(0.65, 0.0);
            lsWorld_AddBox(world, box);
            box.center = lsV(-0.65, 0.0);
            lsWorld_AddBox(world, box);
            expected = "overlaps box";
        }
        else if (shape == 1)
        {
            // A closed square cage 0.3 m wide.
            const lsVec2 cage[4] = {lsV(-0.15, -0.15), lsV(0.15, -0.15), lsV(0.15, 0.15), lsV(-0.15, 0.15)};
            lsWorld_AddWall(world, cage, 4, true);
            expected = "overlaps wall 0";
        }
        else
        {
            // A square footprint 0.4 m wide between two triangles 0.3 m apart.
            const lsVec2 square[4] = {lsV(-0.2, -0.2), lsV(0.2, -0.2), lsV(0.2, 0.2), lsV(-0.2, 0.2)};
            memcpy(world->robot.footprint, square, sizeof square);
            world->robot.footprintCount = 4;
            for (int side = -1; side <= 1; side += 2)
            {
                lsPolygonDef polygon = {.count = 3, .reflectance = 0.5};
                polygon.points[0] = lsV(0.15 * side, -2.0);
                polygon.points[1] = lsV(2.0 * side, 0.0);
                polygon.points[2] = lsV(0.15 * side, 2.0);
                lsWorld_AddPolygon(world, &polygon);
            }
            expected = "overlaps polygon";
        }
        lsSim* sim = lsCreateSim(world);
        bool ok = lsSim_CheckInvariants(sim, &err);
        lsDestroySim(sim);
        lsDestroyWorld(world);
        if (ok)
        {
            fprintf(stderr, "  shape %d: no overlap found\n", shape);
        }
        ENSURE(!ok);
        if (strstr(err.message, expected) == NULL)
        {
            fprintf(stderr, "  expected \"%s\" in: %s\n", expected, err.message);
        }
        ENSURE(strstr(err.message, expected) != NULL);
    }
    // Touching within the tolerance is legal: a wall 1e-9 m into the disc, then one just clear of it.
    for (int i = 0; i < 2; ++i)
    {
        lsWorld* world = lsCreateWorld();
        world->robot.position = lsV(0.0, 0.0);
        world->robot.radius = 0.25;
        double x = i == 0 ? 0.25 - 1e-9 : 0.25 + 1e-6;
        const lsVec2 wall[2] = {lsV(x, -1.0), lsV(x, 1.0)};
        lsWorld_AddWall(world, wall, 2, false);
        lsSim* sim = lsCreateSim(world);
        bool ok = lsSim_CheckInvariants(sim, &err);
        lsDestroySim(sim);
        lsDestroyWorld(world);
        ENSURE(ok);
    }
    return 0;
}

int SoakTest(void)
{
    RUN_SUBTEST(CatchesOverlapTest);
    RUN_SUBTEST(EveryWorldTest);
    RUN_SUBTEST(DefaultWorldTest);
    return 0;
}

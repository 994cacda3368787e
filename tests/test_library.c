// The library's contract with a host (docs/library.md): objects free exactly what they allocated, whatever the
// caller did to the world since.
#include "test.h"

#include "lidarsim/lidarsim.h"

int LibraryTest(void);

// A sim sizes its frees from its own counts: the world it was made from grows and shrinks under it (robots and
// targets added and removed, as an editor does) before the sim is destroyed, and the byte counter still comes back.
static int SimOwnsItsMemoryTest(void)
{
    long long start = lsAllocatedBytes();
    lsError err;
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/default.json", &err, NULL);
    ENSURE(world != NULL && world->targetCount > 1);
    long long withWorld = lsAllocatedBytes();
    lsSim* sim = lsCreateSim(world);
    lsControl control = lsMakeAutopilotControl();
    for (int i = 0; i < 30; ++i)
    {
        lsSim_Step(sim, &control);
    }
    long long withSim = lsAllocatedBytes();

    lsRobotDef robot = world->robot;
    for (int i = 0; i < 3; ++i)
    {
        lsWorld_UniqueRobotId(world, "extra", robot.id);
        ENSURE(lsWorld_AddRobot(world, &robot) == i + 1);
    }
    ENSURE(lsWorld_RemoveRobot(world, 0));
    for (int i = 0; i < 40; ++i)
    {
        lsTargetDef target = lsDefaultTargetDef();
        target.center = lsV(0.1 * i, 0.0);
        lsWorld_AddTarget(world, target);
    }
    lsWorld_RemoveTarget(world, 0);
    long long worldGrowth = lsAllocatedBytes() - withSim;

    lsDestroySim(sim);
    ENSURE(lsAllocatedBytes() == withWorld + worldGrowth); // the sim gave back exactly what it took
    lsDestroyWorld(world);
    ENSURE(lsAllocatedBytes() == start);
    return 0;
}

int LibraryTest(void)
{
    RUN_SUBTEST(SimOwnsItsMemoryTest);
    return 0;
}

// A program outside the lidarsim tree: it sees only the installed headers and library. It builds a world in code
// (or loads one from a file), casts one scan from a pose, steps a simulation, and destroys everything, checking that
// the library's byte counter is back to zero. Built by scripts/consumer_test.sh with find_package and with pkg-config.
#include <lidarsim/lidarsim.h>

#include <stdio.h>

int main(int argc, char** argv)
{
    long long startBytes = lsAllocatedBytes();
    lsVersion version = lsGetVersion();
    printf("lidarsim %d.%d.%d\n", version.major, version.minor, version.revision);

    lsWorld* world = NULL;
    if (argc > 1)
    {
        lsError err;
        world = lsLoadWorld(argv[1], &err, NULL);
        if (world == NULL)
        {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    }
    else
    {
        // A 10 m square room with one box, built in code.
        world = lsCreateWorld();
        lsVec2 room[4] = {{-5.0, -5.0}, {5.0, -5.0}, {5.0, 5.0}, {-5.0, 5.0}};
        lsWorld_AddWall(world, room, 4, true);
        lsBoxDef box = lsDefaultBoxDef();
        box.center = lsV(2.0, 0.0);
        box.size = lsV(1.0, 1.0);
        lsWorld_AddBox(world, box);
    }

    // One scan from the robot's start pose.
    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(LS_MAX_BEAMS);
    lsLidar_ScanFrom(scene, NULL, &world->robot.lidar, world->robot.position, world->robot.angle, NULL, scan);
    printf("scan: %d beams, first %.6f m, middle %.6f m\n", scan->count, scan->ranges[0],
           scan->ranges[scan->count / 2]);
    lsDestroyScan(scan);
    lsDestroyScene(scene);

    // A second of simulation under the autopilot.
    lsSim* sim = lsCreateSim(world);
    lsControl control = lsMakeAutopilotControl();
    int steps = (int)(1.0 / world->sim.dt + 0.5);
    for (int i = 0; i < steps; ++i)
    {
        lsSim_Step(sim, &control);
    }
    const lsSimState* state = lsSim_GetState(sim);
    printf("sim: %d steps, t = %.3f s, robot at (%.6f, %.6f), hash %016llx\n", steps, state->time,
           state->robot.position.x, state->robot.position.y, (unsigned long long)lsSim_Hash(sim));
    lsDestroySim(sim);
    lsDestroyWorld(world);

    if (lsAllocatedBytes() != startBytes)
    {
        fprintf(stderr, "consumer: %lld bytes leaked\n", lsAllocatedBytes() - startBytes);
        return 1;
    }
    return 0;
}

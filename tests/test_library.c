// The library's contract with a host (docs/library.md): objects free exactly what they allocated, whatever the
// caller did to the world since.
#include "test.h"

#include "lidarsim/lidarsim.h"

#include <setjmp.h>
#include <string.h>

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

// An assert hook that must never be called: what a caller passes is checked and reported, never asserted.
static jmp_buf s_asserted;
static char s_assertWhere[300];

static void FailOnAssert(const char* condition, const char* file, int line)
{
    snprintf(s_assertWhere, sizeof s_assertWhere, "%s:%d: %s", file, line, condition);
    longjmp(s_asserted, 1);
}

static bool Contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

// Every public function given out-of-range sizes, counts and indices, or NULL where NULL cannot be meant, returns its
// failure value (NULL, false, -1), with a message where it takes an lsError, and changes nothing.
static int CallerErrorsTest(void)
{
    lsAssertFcn* previous = lsSetAssertFcn(FailOnAssert);
    if (setjmp(s_asserted) != 0)
    {
        lsSetAssertFcn(previous);
        fprintf(stderr, "asserted instead of returning an error: %s\n", s_assertWhere);
        return 1;
    }
    lsError err;
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/default.json", &err, NULL);
    ENSURE(world != NULL);
    lsWorld* before = lsCloneWorld(world);

    // Files and text.
    ENSURE(lsLoadWorld(NULL, &err, NULL) == NULL && Contains(err.message, "no world file name"));
    ENSURE(lsLoadWorld("/nonexistent/world.json", &err, NULL) == NULL && Contains(err.message, "cannot open"));
    ENSURE(lsLoadWorldFromString(NULL, 10, "w.json", &err, NULL) == NULL && Contains(err.message, "w.json: no text"));
    ENSURE(!lsSaveWorld(world, NULL, &err) && Contains(err.message, "no file name"));
    ENSURE(!lsSaveWorld(NULL, "out.json", &err) && Contains(err.message, "out.json: not saved: no world"));
    size_t size = 0;
    ENSURE(lsReadFile(NULL, 100, &size, &err) == NULL && Contains(err.message, "no file name"));
    lsMapInfo info;
    lsGrid grid;
    ENSURE(!lsParseMapYaml(NULL, 5, "m.yaml", &info, &err) && Contains(err.message, "m.yaml: no text"));
    ENSURE(!lsDecodeMapImage(NULL, 5, "m.png", &info, &grid, &err) && Contains(err.message, "m.png: no data"));
    ENSURE(!lsLoadMapGrid(NULL, &grid, NULL, &err) && Contains(err.message, "no map file name"));
    ENSURE(lsLoadMapWorld(NULL, NULL, NULL, &err) == NULL && Contains(err.message, "no map file name"));
    ENSURE(!lsExportMap(NULL, "m.yaml", 0.05, &err) && Contains(err.message, "no world"));

    // Worlds: objects that cannot be added, indices out of range.
    lsVec2 points[2] = {{0.0, 0.0}, {1.0, 0.0}};
    ENSURE(lsWorld_AddWall(world, points, 1, false) == -1 && lsWorld_AddWall(world, NULL, 2, false) == -1);
    ENSURE(lsWorld_AddWall(NULL, points, 2, false) == -1 && lsWorld_AddTarget(NULL, lsDefaultTargetDef()) == -1);
    lsPolygonDef polygon = {.count = 2};
    ENSURE(lsWorld_AddPolygon(world, &polygon) == -1 && lsWorld_AddPolygon(world, NULL) == -1);
    char longId[LS_PATH_ID_CAPACITY + 1];
    memset(longId, 'p', sizeof longId - 1);
    longId[sizeof longId - 1] = '\0';
    ENSURE(lsWorld_AddPath(world, longId, points, 2, 0.5, false) == -1);
    lsVehicleDef vehicle = lsDefaultVehicleDef();
    vehicle.path = world->pathCount;
    ENSURE(lsWorld_AddVehicle(world, vehicle) == -1);
    ENSURE(lsWorld_AddRobot(world, NULL) == -1);
    ENSURE(!lsWorld_RemoveWall(world, -1) && !lsWorld_RemoveWall(world, world->wallCount));
    ENSURE(!lsWorld_RemoveTarget(world, world->targetCount) && !lsWorld_RemoveBox(world, world->boxCount));
    ENSURE(!lsWorld_RemovePolygon(world, -1) && !lsWorld_RemovePath(world, world->pathCount));
    ENSURE(!lsWorld_RemoveVehicle(world, world->vehicleCount) && !lsWorld_RemoveMover(world, world->moverCount));
    ENSURE(!lsWorld_RemoveRobot(world, lsWorld_RobotCount(world)) && !lsWorld_RemoveRobot(world, -1));
    ENSURE(lsWorld_GetRobot(world, lsWorld_RobotCount(world)) == NULL && lsWorld_Robot(world, -1) == NULL);
    ENSURE(lsWorld_FindRobot(world, NULL) == -1 && lsWorld_SegmentCount(NULL) == -1 && lsCloneWorld(NULL) == NULL);
    ENSURE(lsWorld_Equal(world, before)); // nothing changed

    // Scenes and scans: a world built in code that cannot be indexed, indices, capacities.
    lsWorld* bad = lsCreateWorld();
    lsVec2 nan[2] = {{0.0, 0.0}, {(double)NAN, 1.0}};
    lsWorld_AddWall(bad, nan, 2, false);
    ENSURE(lsCreateScene(bad) == NULL && lsCreateScene(NULL) == NULL && lsCreateSim(bad) == NULL);
    lsDestroyWorld(bad);
    // The points are checked as they are copied: a closed chain's middle point too, after a good wall.
    bad = lsCreateWorld();
    lsVec2 infinite[3] = {{0.0, 0.0}, {(double)INFINITY, 1.0}, {1.0, 1.0}};
    lsWorld_AddWall(bad, points, 2, false);
    lsWorld_AddWall(bad, infinite, 3, true);
    ENSURE(lsCreateScene(bad) == NULL);
    lsDestroyWorld(bad);
    ENSURE(lsCreateScan(0) == NULL && lsCreateScan(LS_MAX_BEAMS + 1) == NULL);
    ENSURE(lsMakeScanLayout(0, 1.0).beams == 0 && lsMakeScanLayout(10, -1.0).beams == 0);
    lsScene* scene = lsCreateScene(world);
    ENSURE(scene != NULL);
    ENSURE(!lsScene_SetTarget(scene, lsScene_TargetCount(scene), lsV(0.0, 0.0), true));
    ENSURE(lsScene_WallPartCount(scene, lsScene_WallCount(scene)) == -1);
    ENSURE(lsScene_Box(scene, -1) == NULL && lsScene_Polygon(scene, 1 << 20) == NULL);
    bool active = true;
    ENSURE(lsScene_Target(scene, -1, &active).radius == -1.0 && !active);
    ENSURE((int)lsScene_TargetKind(scene, lsScene_TargetCount(scene)) == -1);
    lsScan* scan = lsCreateScan(10);
    lsLidarDef lidar = world->robot.lidar;
    lidar.beams = 11; // more than the scan holds
    ENSURE(!lsLidar_ScanFrom(scene, NULL, &lidar, lsV(0.0, 0.0), 0.0, NULL, scan) && scan->count == 0);
    lidar.beams = 0;
    ENSURE(lsLidar_DrawsPerScan(&lidar) == -1 && lsLidar_DrawsPerScan(NULL) == -1);
    lsDestroyScan(scan);
    lsDestroyScene(scene);

    // Sims and agents: robot indices, beam counts, observation capacities.
    lsSim* sim = lsCreateSim(world);
    int robots = lsWorld_RobotCount(world);
    ENSURE(lsSim_GetRobotScan(sim, robots) == NULL && lsSim_GetRobotScan(sim, -1) == NULL);
    ENSURE(!lsSim_SetRobotBeams(sim, robots, 10) && lsSim_GetRobotBeams(sim, robots) == -1);
    ENSURE(lsSim_RobotAutopilotControl(sim, robots).mode == ls_controlManual);
    lsDestroySim(sim);
    lsAgentDef agentDef = lsDefaultAgentDef();
    agentDef.maxSteps = 0;
    ENSURE(lsCreateAgent(world, &agentDef) == NULL && lsCreateAgent(NULL, NULL) == NULL);
    lsAgent* agent = lsCreateAgent(world, NULL);
    double observation[4];
    ENSURE(lsAgent_Observe(agent, observation, 4) == -1 && lsAgent_Observe(agent, NULL, 1 << 20) == -1);
    ENSURE(lsAgent_AgentRobot(agent, lsAgent_AgentCount(agent)) == -1);
    ENSURE(lsAgent_RobotObservationSize(agent, robots) == -1);
    lsDestroyAgent(agent);

    lsDestroyWorld(before);
    lsDestroyWorld(world);
    ENSURE(lsSetAssertFcn(previous) == FailOnAssert);
    return 0;
}

int LibraryTest(void)
{
    RUN_SUBTEST(CallerErrorsTest);
    RUN_SUBTEST(SimOwnsItsMemoryTest);
    return 0;
}

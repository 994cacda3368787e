// LiveEditTest: an edit or a reload keeps the run going (lsSim_CarryOver in core/sim.h, as the window uses it):
// pose, speeds, score, time, vehicles on surviving paths, movers' phase, untouched targets; a robot left
// overlapping what the edit added goes to the nearest free place.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include "core/invariants.h"
#include "core/reload.h"
#include "lidarsim/sim.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// A small world with everything that moves: the robot faces food 1 m ahead, a second food and a poison elsewhere,
// two paths with a vehicle each, a sliding door.
static const char s_world[] =
    "{\n"
    "  \"name\": \"live\",\n"
    "  \"walls\": [{\"points\": [[-6, -6], [6, -6], [6, 6], [-6, 6]], \"closed\": true}],\n"
    "  \"targets\": [\n"
    "    {\"center\": [1, 0], \"radius\": 0.2},\n"
    "    {\"center\": [-4, 4], \"radius\": 0.2},\n"
    "    {\"center\": [4, 4], \"radius\": 0.2, \"kind\": \"poison\"}\n"
    "  ],\n"
    "  \"paths\": [\n"
    "    {\"id\": \"a\", \"points\": [[-5, -5], [5, -5], [5, -3], [-5, -3]], \"closed\": true},\n"
    "    {\"id\": \"b\", \"points\": [[-5, 3], [-1, 3]], \"radius\": 0.4}\n"
    "  ],\n"
    "  \"vehicles\": [{\"path\": \"a\"}, {\"path\": \"b\", \"at_end\": \"reverse\"}],\n"
    "  \"movers\": [{\"type\": \"door\", \"from\": [3, -1], \"to\": [3, 1], \"offset\": [1.5, "
    "0], \"period\": 4}],\n"
    "  \"robot\": {\"pose\": [0, 0, 0], \"radius\": 0.25},\n"
    "  \"sim\": {\"respawn\": false}\n"
    "}\n";

static lsWorld* Load(const char* text)
{
    lsError err;
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "live.json", &err, NULL);
    if (world == NULL)
        fprintf(stderr, "%s\n", err.message);
    return world;
}

// Drives forward for n steps (the robot eats the food ahead on the way).
static void Drive(lsSim* sim, int n)
{
    lsControl forward = lsMakeManualControl(1.0, 0.0);
    for (int i = 0; i < n; ++i)
        lsSim_Step(sim, &forward);
}

// The editor's way: the sim runs on a copy; after the edit a new sim of the edited copy takes over the run.
static lsSim* Replace(lsSim* old, const lsWorld* edited, lsWorld** copy)
{
    *copy = lsCloneWorld(edited);
    lsSim* sim = lsCreateSim(*copy);
    lsSim_CarryOver(sim, old);
    return sim;
}

// An edit that changes nothing the sim uses (the name): the carried run goes on bit for bit like the old one.
static int SameRunTest(void)
{
    lsWorld* world = Load(s_world);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl autopilot = lsMakeAutopilotControl();
    for (int i = 0; i < 150; ++i)
        lsSim_Step(sim, &autopilot);
    lsWorld* edited = lsCloneWorld(world);
    strcpy(edited->name, "renamed");
    lsWorld* copy = NULL;
    lsSim* carried = Replace(sim, edited, &copy);
    ENSURE(lsSim_GetState(carried)->step == 150);
    // The carried sim re-scanned (the scan is a pure function of the state but draws noise): take the same scan on
    // the old one by asking for its beams again, so both noise streams stand at the same place.
    lsSim_SetBeams(sim, lsSim_GetBeams(sim));
    ENSURE(lsSim_Hash(carried) == lsSim_Hash(sim));
    for (int i = 0; i < 300; ++i)
    {
        lsSim_Step(sim, &autopilot);
        lsSim_Step(carried, &autopilot);
        ENSURE(lsSim_Hash(carried) == lsSim_Hash(sim));
    }
    lsDestroySim(carried);
    lsDestroySim(sim);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);
    lsDestroyWorld(world);
    return 0;
}

// What the issue asks: reload the file from disk while driving; pose, speeds, score, time, vehicles, the door's
// phase and untouched targets survive, through the real reloader.
static int ReloadWhileDrivingTest(void)
{
    char dir[] = "/tmp/ls-live-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/live.json", dir);
    FILE* f = fopen(path, "wb");
    ENSURE(f != NULL && fputs(s_world, f) >= 0 && fclose(f) == 0);
    lsError err;
    lsWorld* world = lsLoadWorld(path, &err, NULL);
    ENSURE(world != NULL);
    lsReloader* reloader = lsCreateReloader(path, 0.0);
    lsSim* sim = lsCreateSim(world);
    Drive(sim, 90); // 1.5 s at 1 m/s max: through the food at (1, 0)
    const lsSimState* before = lsSim_GetState(sim);
    ENSURE(before->food == 1 && before->score > 0.0 && before->robot.v > 0.5);
    ENSURE(!before->targets[0].active);

    // The file gains a box in a far corner (a new object) and the second food moves: a real edit.
    char* text = lsStrdup(s_world);
    char* at = strstr(text, "[-4, 4]");
    ENSURE(at != NULL);
    at[2] = '3'; // [-4, 4] becomes [-3, 4]
    const char* boxLine = "  \"boxes\": [{\"center\": [-5, 5], \"size\": [0.5, 0.5]}],\n";
    size_t length = strlen(text) + strlen(boxLine) + 1;
    char* edited = lsAlloc(length);
    char* name = strstr(text, "  \"walls\"");
    snprintf(edited, length, "%.*s%s%s", (int)(name - text), text, boxLine, name);
    f = fopen(path, "wb");
    ENSURE(f != NULL && fputs(edited, f) >= 0 && fclose(f) == 0);
    struct timespec times[2] = {{12345, 0}, {12345, 0}};
    ENSURE(utimensat(AT_FDCWD, path, times, 0) == 0);
    lsWorld* fresh = NULL;
    ENSURE(lsReloader_Poll(reloader, 1.0, world, &fresh) == ls_reloadLoaded && fresh != NULL);
    ENSURE(fresh->boxCount == 1);

    lsSim* carried = lsCreateSim(fresh);
    lsSim_CarryOver(carried, sim);
    const lsSimState* after = lsSim_GetState(carried);
    ENSURE(after->step == before->step && after->time == before->time);
    ENSURE(lsVecEqual(after->robot.position, before->robot.position) && after->robot.angle == before->robot.angle);
    ENSURE(after->robot.v == before->robot.v && after->robot.w == before->robot.w);
    ENSURE(after->score == before->score && after->food == 1 && after->distance == before->distance);
    ENSURE(!after->targets[0].active);                                      // eaten stays eaten
    ENSURE(after->targets[1].active && after->targets[1].center.x == -3.0); // the moved one is where it was put
    ENSURE(after->targets[2].active);
    for (int i = 0; i < 2; ++i)
    {
        ENSURE(lsVecEqual(after->vehicles[i].position, before->vehicles[i].position));
        ENSURE(lsVecEqual(after->vehicles[i].velocity, before->vehicles[i].velocity));
    }
    ENSURE(lsVecEqual(after->movers[0].a, before->movers[0].a) && lsVecEqual(after->movers[0].b, before->movers[0].b));
    // It keeps driving from there.
    Drive(carried, 10);
    ENSURE(lsSim_GetState(carried)->robot.position.x > before->robot.position.x);

    lsDestroySim(carried);
    lsDestroySim(sim);
    lsDestroyWorld(fresh);
    lsDestroyWorld(world);
    lsDestroyReloader(reloader);
    lsFree(edited, length);
    lsFreeString(text);
    unlink(path);
    rmdir(dir);
    return 0;
}

// Edits that touch what moves: removed targets and paths, a box dropped on the robot, a moved start pose, a new dt.
static int TouchedTest(void)
{
    lsWorld* world = Load(s_world);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    Drive(sim, 90);
    const lsSimState* was = lsSim_GetState(sim);
    ENSURE(!was->targets[0].active);

    // Removing the eaten target shifts the others down; each keeps its own state.
    lsWorld* edited = lsCloneWorld(world);
    lsWorld_RemoveTarget(edited, 1);
    lsWorld* copy = NULL;
    lsSim* carried = Replace(sim, edited, &copy);
    const lsSimState* s = lsSim_GetState(carried);
    ENSURE(s->targetCount == 2 && !s->targets[0].active && s->targets[1].active && s->targets[1].kind == ls_poison);
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);

    // Removing path "a" removes its vehicle; the vehicle of path "b" (now path 0) keeps going where it was.
    edited = lsCloneWorld(world);
    lsWorld_RemovePath(edited, 0);
    carried = Replace(sim, edited, &copy);
    s = lsSim_GetState(carried);
    ENSURE(s->vehicleCount == 1 && s->vehicles[0].path == 0);
    ENSURE(lsVecEqual(s->vehicles[0].position, was->vehicles[1].position));
    ENSURE(lsVecEqual(s->vehicles[0].velocity, was->vehicles[1].velocity));
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);

    // A box dropped onto the robot: it goes to the nearest free place, just outside the box, nowhere else.
    edited = lsCloneWorld(world);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsAdd(was->robot.position, lsV(0.3, 0.0));
    box.size = lsV(0.4, 2.0);
    lsWorld_AddBox(edited, box);
    carried = Replace(sim, edited, &copy);
    s = lsSim_GetState(carried);
    double gap = box.center.x - 0.2 - s->robot.position.x; // box's left face to the robot's centre (0.1 before)
    ENSURE(gap >= 0.25 - 1e-6 && gap < 0.25 + 0.01);
    ENSURE_SMALL(s->robot.position.y - was->robot.position.y, 1e-6);
    ENSURE(s->score == was->score && s->step == was->step);
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);
    // Dropped right onto it (its centre inside the box): out on the nearest side all the same.
    edited = lsCloneWorld(world);
    box.center = was->robot.position;
    box.size = lsV(0.3, 3.0);
    lsWorld_AddBox(edited, box);
    carried = Replace(sim, edited, &copy);
    s = lsSim_GetState(carried);
    ENSURE(fabs(s->robot.position.x - was->robot.position.x) >= 0.15 + 0.25 - 1e-6);
    ENSURE(fabs(s->robot.position.x - was->robot.position.x) < 0.15 + 0.25 + 1e-3);
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);

    // Moving the start pose (the editor's robot drag) puts the robot there, at rest; the score stays.
    edited = lsCloneWorld(world);
    edited->robot.position = lsV(-2.0, 1.0);
    carried = Replace(sim, edited, &copy);
    s = lsSim_GetState(carried);
    ENSURE(lsVecEqual(s->robot.position, lsV(-2.0, 1.0)) && s->robot.v == 0.0 && s->score == was->score);
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);

    // A new dt keeps the time to within one new step, and the door's phase with it.
    edited = lsCloneWorld(world);
    edited->sim.dt = 1.0 / 50.0;
    carried = Replace(sim, edited, &copy);
    s = lsSim_GetState(carried);
    ENSURE(fabs(s->time - was->time) <= 0.5 * edited->sim.dt);
    ENSURE_SMALL(s->time - (double)s->step * edited->sim.dt, 0.0);
    lsDestroySim(carried);
    lsDestroyWorld(copy);
    lsDestroyWorld(edited);

    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// Robots added and removed in the editor: every robot that survives carries its run over by id (pose, speed,
// score, counters, where it is in the list now), a new one starts at its start pose, a removed one is gone; the
// robot moved in the editor starts where it was put, at rest.
static int FleetEditTest(void)
{
    const char* text = "{\"walls\": [{\"points\": [[0, 0], [20, 0], [20, 20], [0, 20]], \"closed\": true}],"
                       " \"targets\": [{\"center\": [6, 2], \"radius\": 0.2}],"
                       " \"robots\": [{\"id\": \"a\", \"pose\": [2, 2, 0]}, {\"id\": \"b\", \"pose\": [2, 6, 0]},"
                       " {\"id\": \"c\", \"pose\": [2, 10, 0]}, {\"id\": \"d\", \"pose\": [2, 14, 0]}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl drive[4];
    for (int i = 0; i < 4; ++i)
        drive[i] = lsMakeManualControl(0.4 + 0.1 * i, 0.0);
    for (int k = 0; k < 700; ++k)
        lsSim_StepRobots(sim, drive);
    const lsSimState* was = lsSim_GetState(sim);
    ENSURE(was->robots[0].food == 1 && was->robots[0].score == 1.0); // a drove over the food
    lsRobotState before[4];
    memcpy(before, was->robots, sizeof before);

    // The edit: b removed, d's start moved, a copy of c added.
    lsWorld* edited = lsCloneWorld(world);
    ENSURE(lsWorld_RemoveRobot(edited, 1));
    lsWorld_Robot(edited, 2)->position = lsV(10.0, 17.0); // d
    lsRobotDef copy = *lsWorld_GetRobot(edited, 1);
    snprintf(copy.id, sizeof copy.id, "c2");
    copy.position = lsV(2.0, 18.0);
    ENSURE(lsWorld_AddRobot(edited, &copy) == 3);
    lsSim* fresh = lsCreateSim(edited);
    lsSim_CarryOver(fresh, sim);
    const lsSimState* now = lsSim_GetState(fresh);
    ENSURE(now->robotCount == 4 && now->time == was->time);
    // a and c: exactly where they were, as fast, with their scores and counters.
    int from[2] = {0, 2}, to[2] = {0, 1};
    for (int k = 0; k < 2; ++k)
    {
        const lsRobotState* r = &now->robots[to[k]];
        const lsRobotState* b = &before[from[k]];
        ENSURE(lsVecEqual(r->position, b->position) && r->angle == b->angle && r->v == b->v);
        ENSURE(r->score == b->score && r->food == b->food && r->distance == b->distance);
    }
    // d: moved in the editor, so at its new start, at rest (its counters kept); c2: new, at its start.
    ENSURE(lsVecEqual(now->robots[2].position, lsV(10.0, 17.0)) && now->robots[2].v == 0.0);
    ENSURE(now->robots[2].distance == before[3].distance);
    ENSURE(lsVecEqual(now->robots[3].position, lsV(2.0, 18.0)) && now->robots[3].distance == 0.0);
    // The run goes on from there.
    for (int k = 0; k < 60; ++k)
        lsSim_StepRobots(fresh, drive);
    lsError err = {{0}};
    ENSURE(lsSim_CheckInvariants(fresh, &err));
    lsDestroySim(fresh);
    lsDestroyWorld(edited);
    lsDestroySim(sim);
    lsDestroyWorld(world);
    return 0;
}

// The window's undo of a robot's deletion: the robot comes back where it was when deleted, with its speeds and
// counters (lsSim_CarryOverFrom with the run kept when it was deleted, lsCreateRobotRun), not at its start pose; a
// robot of that id with another start pose (a new copy that took the name) starts at its start pose, as does plain
// lsSim_CarryOver's.
static int UndoDeleteTest(void)
{
    const char* text = "{\"walls\": [{\"points\": [[0, 0], [20, 0], [20, 20], [0, 20]], \"closed\": true}],"
                       " \"targets\": [{\"center\": [6, 6], \"radius\": 0.2}],"
                       " \"robots\": [{\"id\": \"a\", \"pose\": [2, 2, 0]}, {\"id\": \"b\", \"pose\": [2, 6, 0]}]}";
    lsWorld* world = Load(text);
    ENSURE(world != NULL);
    lsSim* sim = lsCreateSim(world);
    lsControl drive[2] = {lsMakeManualControl(0.5, 0.0), lsMakeManualControl(0.8, 0.0)};
    for (int k = 0; k < 700; ++k)
        lsSim_StepRobots(sim, drive);
    lsRobotState b = lsSim_GetState(sim)->robots[1];
    ENSURE(b.food == 1 && b.position.x > 6.0); // b drove over the food

    // b deleted: its run kept, the sim it ran in gone; the run goes on without it.
    lsWorld* deleted = lsCloneWorld(world);
    ENSURE(lsWorld_RemoveRobot(deleted, 1));
    lsSim* without = lsCreateSim(deleted);
    lsSim_CarryOver(without, sim);
    lsRobotRun* runs[2] = {lsCreateRobotRun(sim, 1), lsCreateRobotRun(sim, 0)};
    lsDestroySim(sim);
    for (int k = 0; k < 60; ++k)
        lsSim_StepRobots(without, drive);

    // Undone: b is back where it was deleted, as fast, with its counters; a takes its run from `without`, not from
    // the older run offered (only a robot that old lacks takes one), which stays unused.
    const lsRobotRun* offered[2] = {runs[0], runs[1]};
    lsWorld* undone = lsCloneWorld(world);
    lsSim* back = lsCreateSim(undone);
    bool used[2] = {false, true};
    lsSim_CarryOverFrom(back, without, offered, 2, used);
    ENSURE(used[0] && !used[1]);
    const lsSimState* now = lsSim_GetState(back);
    ENSURE(now->robotCount == 2 && now->time == lsSim_GetState(without)->time);
    ENSURE(lsVecEqual(now->robots[1].position, b.position) && now->robots[1].v == b.v);
    ENSURE(now->robots[1].food == 1 && now->robots[1].distance == b.distance);
    ENSURE(now->robots[0].distance == lsSim_GetState(without)->robots[0].distance);
    lsDestroySim(back);

    // Without the earlier sim, or for a robot of that id that starts elsewhere: at its start pose, at rest.
    back = lsCreateSim(undone);
    lsSim_CarryOver(back, without);
    ENSURE(lsVecEqual(lsSim_GetState(back)->robots[1].position, lsV(2.0, 6.0)));
    lsDestroySim(back);
    lsWorld* other = lsCloneWorld(world);
    lsWorld_Robot(other, 1)->position = lsV(2.0, 10.0);
    back = lsCreateSim(other);
    lsSim_CarryOverFrom(back, without, offered, 2, used);
    ENSURE(!used[0] && !used[1]);
    ENSURE(lsVecEqual(lsSim_GetState(back)->robots[1].position, lsV(2.0, 10.0)));
    ENSURE(lsSim_GetState(back)->robots[1].food == 0);
    lsError err = {{0}};
    ENSURE(lsSim_CheckInvariants(back, &err));
    lsDestroySim(back);
    lsDestroyWorld(other);
    lsDestroyWorld(undone);
    lsDestroyRobotRun(runs[0]);
    lsDestroyRobotRun(runs[1]);
    lsDestroySim(without);
    lsDestroyWorld(deleted);
    lsDestroyWorld(world);
    return 0;
}

// A run kept for an undo holds the robot's own state only: on a world of 20 000 walls (megabytes with its sim and
// scene index) it is a few KB, and it outlives the sim it came from.
static int RunSizeTest(void)
{
    lsWorld* world = Load("{\"walls\": [], \"robots\": [{\"id\": \"a\", \"pose\": [0.5, 0.5, 0]}]}");
    ENSURE(world != NULL);
    long long empty = lsAllocatedBytes();
    for (int i = 0; i < 20000; ++i)
    {
        // Short walls in rows of 200, 2 m apart, away from the robot.
        int column = i % 200, row = i / 200;
        lsVec2 points[2] = {lsV(2.0 * (double)column, 10.0 + 2.0 * (double)row),
                            lsV(2.0 * (double)column + 1.0, 10.0 + 2.0 * (double)row)};
        ENSURE(lsWorld_AddWall(world, points, 2, false) == i);
    }
    lsSim* sim = lsCreateSim(world);
    ENSURE(sim != NULL);
    long long whole = lsAllocatedBytes() - empty; // the walls, the sim and its scene
    lsControl forward = lsMakeManualControl(0.5, 0.0);
    for (int k = 0; k < 10; ++k)
        lsSim_Step(sim, &forward);
    long long before = lsAllocatedBytes();
    lsRobotRun* run = lsCreateRobotRun(sim, 0);
    long long held = lsAllocatedBytes() - before;
    ENSURE(whole > 1000000 && held > 0 && held < 4096);

    // The run outlives its sim: a new sim of the world resumes it.
    lsVec2 was = lsSim_GetState(sim)->robot.position;
    lsSim* other = lsCreateSim(world);
    lsDestroySim(sim);
    lsWorld* without = lsCloneWorld(world);
    lsRobotDef b = *lsWorld_GetRobot(world, 0);
    memcpy(b.id, "b", 2);
    ENSURE(lsWorld_AddRobot(without, &b) == 1 && lsWorld_RemoveRobot(without, 0));
    lsSim* gone = lsCreateSim(without);
    const lsRobotRun* offered[1] = {run};
    lsSim_CarryOverFrom(other, gone, offered, 1, NULL);
    ENSURE(lsVecEqual(lsSim_GetState(other)->robot.position, was) && was.x > 0.5);
    lsDestroySim(gone);
    lsDestroyWorld(without);
    lsDestroyRobotRun(run);
    lsDestroySim(other);
    lsDestroyWorld(world);
    return 0;
}

int LiveEditTest(void)
{
    RUN_SUBTEST(SameRunTest);
    RUN_SUBTEST(ReloadWhileDrivingTest);
    RUN_SUBTEST(TouchedTest);
    RUN_SUBTEST(FleetEditTest);
    RUN_SUBTEST(UndoDeleteTest);
    RUN_SUBTEST(RunSizeTest);
    return 0;
}

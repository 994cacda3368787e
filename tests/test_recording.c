// RecordingTest: recordings read back for replay (core/recording.h): a recorded state goes into a sim exactly
// (poses at recorded lines, the path's poses between them, targets, the scan's beams), a recording is refused for
// another world, and every malformed line is a located error (file:line), never a crash.
#include "test.h"

#include "../fuzz/recording_check.h"
#include "core/recording.h"
#include "lidarsim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A room with two targets and the robot at (2, 2); a 4-beam lidar.
static const char s_world[] =
    "{\"name\": \"rec\", \"walls\": [{\"points\": [[0, 0], [8, 0], [8, 6], [0, 6]], "
    "\"closed\": true}], \"targets\": [{\"center\": [6, 2], \"radius\": 0.2}, "
    "{\"center\": [6, 4], \"radius\": 0.2, \"kind\": \"poison\"}], "
    "\"robot\": {\"pose\": [2, 2, 0], \"lidar\": {\"beams\": 4, \"fov\": 360, \"range\": 10}}}";

// A header for s_world (hash filled in), then three lines 3 steps apart: the second line's path holds the poses
// of steps 1 and 2; the first target is collected at step 3.
static char* MakeRecording(const lsWorld* world, size_t* size)
{
    char* text = lsAlloc(4096);
    int n = snprintf(
        text, 4096,
        "{\"lidarsim_recording\": 1, \"world\": \"rec.json\", \"world_hash\": \"%016llx\", \"dt\": 0.1, "
        "\"robots\": [{\"id\": \"robot\", \"beams\": 4, \"range_max\": 12.0}]}\n"
        "{\"step\": 0, \"time\": 0.0, \"pose\": [2.0, 2.0, 0.0], \"velocity\": [0.0, 0.0], \"scan\": {\"stamp\": 0.0, "
        "\"origin\": [2.0, 2.0, 0.0], \"ranges_mm\": [2000,null,3800,4000], \"intensities_milli\": [1000,0,900,0], "
        "\"hits\": \"w-tw\", \"indices\": [0,-1,0,0]}, \"vehicles\": [], \"targets\": [[0, 6.0, 2.0, true], "
        "[1, 6.0, 4.0, true]], \"score\": 0.0, \"food\": 0, \"poison\": 0, \"collisions\": 0, \"distance\": 0.0}\n"
        "{\"step\": 3, \"time\": 0.3, \"pose\": [2.3, 2.0, 90.0], \"velocity\": [1.0, 0.5], \"scan\": null, \"path\": "
        "[[2.1,2,30], [2.2,2,60]], \"vehicles\": [], \"targets\": [[0, 6.0, 2.0, false]], \"score\": 1.0, \"food\": "
        "1, \"poison\": 0, \"collisions\": 0, \"distance\": 0.3}\n"
        "{\"step\": 6, \"time\": 0.6, \"pose\": [2.3, 2.3, 90.0], \"velocity\": [1.0, 0.0], \"scan\": null, "
        "\"vehicles\": [], \"targets\": [], \"score\": 1.0, \"food\": 1, \"poison\": 0, \"collisions\": 0, "
        "\"distance\": 0.6}\n",
        (unsigned long long)lsWorld_ContentHash(world));
    *size = (size_t)n;
    return text;
}

static int ReplayStateTest(void)
{
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(s_world, sizeof s_world - 1, "rec.json", &err, NULL);
    ENSURE(world != NULL);
    size_t size = 0;
    char* text = MakeRecording(world, &size);
    lsRecording* rec = lsLoadRecordingFromString(text, size, "rec.jsonl", &err);
    lsFree(text, 4096);
    ENSURE(rec != NULL);
    ENSURE(lsRecording_CheckWorld(rec, world, "rec.json", &err));
    ENSURE(lsRecording_FirstStep(rec) == 0 && lsRecording_LastStep(rec) == 6 && lsRecording_LineCount(rec) == 3);
    lsRecording_Configure(rec, world);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);

    // A recorded line: its pose, counters and targets exactly; the scan's beams end where the ranges say.
    lsRecording_Apply(rec, 3, sim);
    ENSURE(state->step == 3 && state->robot.position.x == 2.3 && state->robot.position.y == 2.0);
    ENSURE_SMALL(state->robot.angle - 0.5 * LS_PI, 1e-15);
    ENSURE(state->score == 1.0 && state->food == 1 && state->robot.v == 1.0);
    ENSURE(!state->targets[0].active && state->targets[1].active);
    const lsScan* scan = lsSim_GetScan(sim);
    // Beam 0 looks back (a 360 degree lidar starts at -180 degrees), beam 2 ahead.
    ENSURE(scan->count == 4 && scan->kinds[2] == ls_hitTarget && scan->kinds[1] == ls_hitNone);
    ENSURE_SMALL(scan->points[2].x - 5.8, 1e-6);
    ENSURE_SMALL(scan->points[0].x - 0.0, 1e-6);
    ENSURE(isinf(scan->ranges[1]) && scan->intensities[0] == 1.0);

    // Between lines: the path's poses; past the path (line 3 to 6 has none): between the lines' poses.
    lsRecording_Apply(rec, 2, sim);
    ENSURE(state->robot.position.x == 2.2 && state->step == 2);
    ENSURE_SMALL(state->robot.angle - lsDegToRad(60.0), 1e-15);
    ENSURE_SMALL(state->time - 0.2, 1e-12);
    ENSURE(state->targets[0].active); // collected only at step 3
    lsRecording_Apply(rec, 4, sim);
    ENSURE_SMALL(state->robot.position.y - 2.1, 1e-12);
    // Back to the start (the target cache rewinds), and steps beyond the ends are clamped.
    lsRecording_Apply(rec, -5, sim);
    ENSURE(state->step == 0 && state->robot.position.x == 2.0 && state->targets[0].active);
    lsRecording_Apply(rec, 99, sim);
    ENSURE(state->step == 6 && state->robot.position.y == 2.3);

    // Another world (a target moved) is refused, naming both files.
    lsWorld* other = lsCloneWorld(world);
    other->targets[0].center.x = 5.0;
    ENSURE(!lsRecording_CheckWorld(rec, other, "moved.json", &err));
    ENSURE(strstr(err.message, "rec.jsonl: recorded in a world with hash") != NULL);
    ENSURE(strstr(err.message, "(rec.json), but moved.json has hash") != NULL);
    lsDestroyWorld(other);

    lsDestroySim(sim);
    lsDestroyRecording(rec);

    // A beam naming an object the world does not have (a hand-edited index) is refused for it: target 2 of 2.
    text = MakeRecording(world, &size);
    char* index = strstr(text, "\"indices\": [0,-1,0,0]");
    ENSURE(index != NULL);
    index[17] = '2'; // the third beam, "t"
    rec = lsLoadRecordingFromString(text, size, "rec.jsonl", &err);
    lsFree(text, 4096);
    ENSURE(rec != NULL && !lsRecording_CheckWorld(rec, world, "rec.json", &err));
    ENSURE(strstr(err.message, "rec.jsonl: a scan at time 0: beam 2 hits target 2, but rec.json has 2 targets") !=
           NULL);
    lsDestroyRecording(rec);
    // A target change naming a target the world lacks says which (not "3 targets recorded" for index 2).
    text = MakeRecording(world, &size);
    char* change = strstr(text, "[[0, 6.0, 2.0, false]]");
    ENSURE(change != NULL);
    change[2] = '2';
    rec = lsLoadRecordingFromString(text, size, "rec.jsonl", &err);
    lsFree(text, 4096);
    ENSURE(rec != NULL && !lsRecording_CheckWorld(rec, world, "rec.json", &err));
    ENSURE(strstr(err.message, "rec.jsonl: a line's targets name target 2, rec.json has 2 targets (0 to 1)") != NULL);
    lsDestroyRecording(rec);
    lsDestroyWorld(world);
    return 0;
}

// Each malformed recording gives a message naming the file and the line, and nothing is left allocated.
static int MalformedTest(void)
{
    static const char header[] =
        "{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
        "\"robots\": [{\"id\": \"robot\", \"beams\": 2, \"range_max\": 12.0}]}\n";
    static const char line[] = "{\"step\": 0, \"time\": 0.0, \"pose\": [1.0, 1.0, 0.0], \"velocity\": [0.0, 0.0], "
                               "\"scan\": null, \"vehicles\": [], \"targets\": [], \"score\": 0.0, \"food\": 0, "
                               "\"poison\": 0, \"collisions\": 0, \"distance\": 0.0}\n";
    static const char scan[] =
        "{\"step\": 0, \"time\": 0.0, \"pose\": [1.0, 1.0, 0.0], \"velocity\": [0.0, 0.0], \"scan\": {\"stamp\": "
        "0.0, \"origin\": [1.0, 1.0, 0.0], \"ranges_mm\": [1000,%s], \"intensities_milli\": [1,0], \"hits\": \"%s\", "
        "\"indices\": [0,-1]}, \"vehicles\": [], \"targets\": [], \"score\": 0.0, \"food\": 0, \"poison\": 0, "
        "\"collisions\": 0, \"distance\": 0.0}\n";
    char text[2048];
    struct
    {
        const char* what;
        const char* expected;
    } cases[] = {
        {"", "r.jsonl: empty file, not a recording"},
        {"{\"step\": 0, \"time\": 0.0}\n", "r.jsonl:1: no recording header (an older recording, or not one)"},
        {"{\"lidarsim_recording\": 2}\n",
         "r.jsonl:1: lidarsim_recording: format version 2, this program reads version 1"},
        {"{\"lidarsim_recording\": \"1\"}\n", "r.jsonl:1: lidarsim_recording: expected the format version (a number)"},
        {"{\"lidarsim_recording\": 1e999}\n",
         "r.jsonl:1: lidarsim_recording: format version beyond a double's range, this program reads version 1"},
        {"[1, 2]\n", "r.jsonl:1: no recording header"},
        {"{\n  \"name\": \"a world\",\n  \"walls\": []\n}\n", "r.jsonl:1: not a recording (its first line"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.js", "r.jsonl:1: invalid JSON at column 37"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"xyz\"}\n",
         "r.jsonl:1: world_hash: expected 16 hexadecimal digits"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"map_hash\": 7}\n",
         "r.jsonl:1: map_hash: expected 16 hexadecimal digits"},
        {"HEADER", "r.jsonl: a header but no recorded step"},
        {"HEADER{\"step\": 0, \"time\": 0.0, \"pose\": [1.0, 1.0", "r.jsonl:2: last line not complete"},
        {"HEADER{\"step\": 0, \"time\": 0.0, \"pose\": [1.0, 1.0\n", "r.jsonl:2: invalid JSON at column 43"},
        {"HEADERLINELINE", "r.jsonl:3: step: 0 after step 0: lines must go forward in time"},
        {"HEADER{\"step\": -1}\n", "r.jsonl:2: step: expected an integer in 0..9007199254740992"},
        {"HEADER{\"step\": 0, \"time\": 0.0, \"pose\": [1.0, \"a\", 0.0]}\n", "r.jsonl:2: score: missing"},
        {"SCAN:null:wx", "r.jsonl:2: scan.hits: [1]: 'x' is no hit letter"},
        {"SCAN:5:w-", "r.jsonl:2: scan.ranges_mm[1]: expected null (hits says no return)"},
        {"SCAN:null:w", "r.jsonl:2: scan.hits: expected 2 letters (the beams of the header, line 1), got 1"},
        // Every number held to the world loader's bounds (limits.h), not only finite (review 28).
        {"EDIT|\"pose\": [1.0, 1.0, 0.0]|\"pose\": [1e308, 1.0, 0.0]",
         "r.jsonl:2: pose[0]: expected a coordinate in [-1e+06, 1e+06] m, got 1e+308"},
        {"EDIT|\"pose\": [1.0, 1.0, 0.0]|\"pose\": [1.0, 1.0, -1e300]", "r.jsonl:2: pose[2]: expected an angle in"},
        {"EDIT|\"velocity\": [0.0, 0.0]|\"velocity\": [1e308, 0.0]",
         "r.jsonl:2: velocity[0]: expected a velocity component in"},
        {"EDIT|\"velocity\": [0.0, 0.0]|\"velocity\": [0.0, 1e300]",
         "r.jsonl:2: velocity[1]: expected a turn rate in [-1745.33, 1745.33] rad/s, got 1e+300"},
        {"EDIT|\"vehicles\": []|\"vehicles\": [[1.0, 1.0, 0.0, 0.0], [1e7, 1.0, 0.0, 0.0]]",
         "r.jsonl:2: vehicles[1][0]: expected a coordinate in"},
        {"EDIT|\"vehicles\": []|\"vehicles\": [[1.0, 1.0, 0.0, -1e9]]",
         "r.jsonl:2: vehicles[0][3]: expected a velocity component in"},
        {"EDIT|\"targets\": []|\"targets\": [[0, 1.0, -1e300, true]]",
         "r.jsonl:2: targets[0][2]: expected a coordinate"},
        {"EDIT|\"scan\": null|\"scan\": null, \"path\": [[1.0, 1.0, 0.0], [1.0, 2e6, 0.0]]",
         "r.jsonl:2: path[1][1]: expected a coordinate in"},
        // A path of another length than the steps skipped (replay would show its poses at the wrong steps).
        {"EDIT|\"scan\": null|\"scan\": null, \"path\": [[1.0, 1.0, 0.0]]",
         "r.jsonl:2: path: 1 pose, expected 0 (one per step between this line's and the previous one's)"},
        {"EDIT|\"scan\": null|\"scan\": {\"stamp\": -1.0, \"origin\": [1.0, 1.0, 0.0], \"ranges_mm\": [1,2], "
         "\"intensities_milli\": [1,1], \"hits\": \"ww\", \"indices\": [0,0]}",
         "r.jsonl:2: scan.stamp: expected a time >= 0 s"},
        {"EDIT|\"step\": 0|\"step\": 1e999", "r.jsonl:2: step: a number beyond the range of a double"},
        // A pose beyond the bound prints every digit; a scan's origin (a sensor on its mount) may reach 2.5e6 m.
        {"EDIT|\"pose\": [1.0, 1.0, 0.0]|\"pose\": [1000004, 1.0, 0.0]",
         "r.jsonl:2: pose[0]: expected a coordinate in [-1e+06, 1e+06] m, got 1000004"},
        {"EDIT|\"scan\": null|\"scan\": {\"stamp\": 0.0, \"origin\": [2600000, 1.0, 0.0], \"ranges_mm\": [1,2], "
         "\"intensities_milli\": [1,1], \"hits\": \"ww\", \"indices\": [0,0]}",
         "r.jsonl:2: scan.origin[0]: expected a sensor position in [-2.5e+06, 2.5e+06] m, got 2600000"},
        {"EDIT|\"time\": 0.0|\"time\": 2.5", "r.jsonl:2: time: 2.5, expected step times the header's dt, 0"},
        {"EDIT|\"scan\": null|\"scan\": {\"stamp\": 0.0, \"origin\": [1.0, 1.0, 0.0], \"ranges_mm\": [1,2], "
         "\"intensities_milli\": [1,1001], \"hits\": \"ww\", \"indices\": [0,0]}",
         "r.jsonl:2: scan.intensities_milli[1]: expected a number in [0, 1000]"},
        {"SCAN:1e308:ww", "r.jsonl:2: scan.ranges_mm[1]: expected a range in [0, 12] m (the lidar's range_max)"},
        // A range beyond the lidar's range (a hand-edited file): whole millimetres round by half of one at most.
        {"SCAN:12001:ww", "r.jsonl:2: scan.ranges_mm[1]: expected a range in [0, 12] m"},
        {"SCAN:-1:ww", "r.jsonl:2: scan.ranges_mm[1]: expected a range in [0, 12] m"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"robots\": [{\"id\": \"robot\", \"beams\": 2, \"range_max\": -1}]}\n",
         "r.jsonl:1: robots: [0].range_max: expected a range in [0, 1e+06] m"},
        // The fields that say how the run was made are optional, but held to what `run` writes when given.
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"steps\": \"600\"}\n",
         "r.jsonl:1: steps: expected an integer in 0..9007199254740992"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"every\": 0}\n",
         "r.jsonl:1: every: expected an integer in 1..9007199254740992"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"seed\": -1}\n",
         "r.jsonl:1: seed: expected an integer in 0..18446744073709551615"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"seed\": 1e999}\n",
         "r.jsonl:1: seed: expected an integer in 0..18446744073709551615"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"autopilot\": 1}\n",
         "r.jsonl:1: autopilot: expected true or false"},
        {"{\"lidarsim_recording\": 1, \"world\": \"w.json\", \"world_hash\": \"0123456789abcdef\", \"dt\": 0.1, "
         "\"scans\": \"fine\"}\n",
         "r.jsonl:1: scans: expected \"compact\" or \"precise\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        const char* what = cases[k].what;
        if (strncmp(what, "SCAN:", 5) == 0)
        {
            char range[16] = {0}, hits[16] = {0};
            ENSURE(sscanf(what, "SCAN:%15[^:]:%15s", range, hits) == 2);
            int n = snprintf(text, sizeof text, "%s", header);
            snprintf(text + n, sizeof text - (size_t)n, scan, range, hits);
        }
        else if (strncmp(what, "EDIT|", 5) == 0)
        {
            // EDIT|old|new: the valid line with old replaced by new, after the header.
            char from[128] = {0}, to[256] = {0};
            ENSURE(sscanf(what, "EDIT|%127[^|]|%255[^|]", from, to) == 2);
            const char* at = strstr(line, from);
            ENSURE(at != NULL);
            snprintf(text, sizeof text, "%s%.*s%s%s", header, (int)(at - line), line, to, at + strlen(from));
        }
        else
        {
            // HEADER and LINE stand for a valid header and a valid line.
            text[0] = '\0';
            for (const char* p = what; *p != '\0';)
            {
                size_t used = strlen(text);
                bool isHeader = strncmp(p, "HEADER", 6) == 0, isLine = strncmp(p, "LINE", 4) == 0;
                if (isHeader || isLine)
                    snprintf(text + used, sizeof text - used, "%s", isHeader ? header : line);
                else
                    snprintf(text + used, sizeof text - used, "%c", *p);
                p += isHeader ? 6 : (isLine ? 4 : 1);
            }
        }
        lsError err = {{0}};
        lsRecording* rec = lsLoadRecordingFromString(text, strlen(text), "r.jsonl", &err);
        if (rec != NULL || strstr(err.message, cases[k].expected) == NULL)
        {
            fprintf(stderr, "case %zu: expected '%s', got '%s'\n", k, cases[k].expected, err.message);
            lsDestroyRecording(rec);
            return 1;
        }
    }
    // Every prefix of a valid recording loads or fails cleanly (a run cut off anywhere).
    lsError err = {{0}};
    lsWorld* world = lsLoadWorldFromString(s_world, sizeof s_world - 1, "rec.json", &err, NULL);
    ENSURE(world != NULL);
    size_t size = 0;
    char* valid = MakeRecording(world, &size);
    for (size_t cut = 0; cut <= size; ++cut)
    {
        lsRecording* rec = lsLoadRecordingFromString(valid, cut, "cut.jsonl", &err);
        int newlines = 0;
        for (size_t i = 0; i < cut; ++i)
            newlines += valid[i] == '\n';
        bool complete = cut > 0 && valid[cut - 1] == '\n' && newlines >= 2; // the header and a line at least
        ENSURE((rec != NULL) == complete);
        ENSURE(rec != NULL || strncmp(err.message, "cut.jsonl", 9) == 0);
        lsDestroyRecording(rec);
    }
    lsFree(valid, 4096);
    lsDestroyWorld(world);
    return 0;
}

static int CheckOne(void* ctx, const char* path, char* data, size_t size)
{
    (void)ctx;
    if (lsFuzzCheckRecording((const uint8_t*)data, size) != 0)
    {
        fprintf(stderr, "fuzz regression: %s\n", path);
        return 1;
    }
    return 0;
}

// The fuzzer's property on its seeds and past findings (tests/data/fuzz_recording), and on the seed recording cut
// at every byte: valid.jsonl is a run of the fuzzer's world, so it is replayed at every step.
static int RecordingFuzzRegressionTest(void)
{
    int count = 0;
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz_recording", CheckOne, NULL, &count) == 0);
    ENSURE(count >= 4);
    lsError err = {{0}};
    size_t size = 0;
    char* valid = lsReadFile(LS_TEST_DATA_DIR "/fuzz_recording/valid.jsonl", 1 << 20, &size, &err);
    ENSURE(valid != NULL);
    lsRecording* rec = lsLoadRecordingFromString(valid, size, "valid.jsonl", &err);
    lsWorld* world = lsLoadWorldFromString(lsFuzzRecordingWorld, strlen(lsFuzzRecordingWorld), "fuzz.json", &err, NULL);
    ENSURE(rec != NULL && world != NULL && lsRecording_CheckShape(rec, world, "fuzz.json", &err));
    lsDestroyRecording(rec);
    lsDestroyWorld(world);
    for (size_t cut = 0; cut <= size; cut += 7)
        ENSURE(lsFuzzCheckRecording((const uint8_t*)valid, cut) == 0);
    lsFree(valid, size + 1);
    return 0;
}

int RecordingTest(void)
{
    RUN_SUBTEST(ReplayStateTest);
    RUN_SUBTEST(MalformedTest);
    RUN_SUBTEST(RecordingFuzzRegressionTest);
    return 0;
}

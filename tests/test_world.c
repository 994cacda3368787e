// Tests of world.c, world_load.c and world_save.c: editing, exact equality, the loader's errors (with their places),
// warnings, the malformed corpus (tests/data/malformed/EXPECTED.txt), limits, the canonical saver and the atomic save.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include "lidarsim/world.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* const s_shippedWorlds[] = {"default", "rldemo", "maze", "warehouse"};

// Loads a world from a literal; the label is "t.json".
static lsWorld* LoadText(const char* text, lsError* err, lsWarnings* warnings)
{
    return lsLoadWorldFromString(text, strlen(text), "t.json", err, warnings);
}

// True when loading text fails with a message containing expected.
static bool FailsWith(const char* text, const char* expected)
{
    lsError err = {{0}};
    lsWorld* world = LoadText(text, &err, NULL);
    if (world != NULL)
    {
        fprintf(stderr, "    loaded, expected failure '%s'\n", expected);
        lsDestroyWorld(world);
        return false;
    }
    if (strstr(err.message, expected) == NULL)
    {
        fprintf(stderr, "    got '%s'\n    expected '%s'\n", err.message, expected);
        return false;
    }
    return true;
}

// load(save(world)) equals world, and saving again gives the same text.
static bool RoundTrips(const lsWorld* world)
{
    char* json = lsSaveWorldToString(world);
    lsError err = {{0}};
    lsWarnings warnings;
    lsWorld* back = lsLoadWorldFromString(json, strlen(json), "roundtrip.json", &err, &warnings);
    bool ok = back != NULL && warnings.count == 0 && lsWorld_Equal(world, back);
    if (back == NULL)
    {
        fprintf(stderr, "    reload failed: %s\n", err.message);
    }
    if (ok)
    {
        char* again = lsSaveWorldToString(back);
        ok = strcmp(json, again) == 0;
        lsFreeString(again);
    }
    lsDestroyWorld(back);
    lsFreeString(json);
    return ok;
}

static char* ReadAll(const char* path, size_t* size)
{
    FILE* file = fopen(path, "rb");
    if (file == NULL)
    {
        return NULL;
    }
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char* text = lsAlloc((size_t)length + 1);
    size_t got = fread(text, 1, (size_t)length, file);
    fclose(file);
    text[got] = '\0';
    *size = (size_t)length + 1;
    return text;
}

// ---------------------------------------------------------------------------------------------------------------------

static int EditingTest(void)
{
    lsWorld* world = lsCreateWorld();
    ENSURE(world->wallCount == 0 && world->robot.lidar.beams == 360 && world->sim.respawn);
    lsVec2 square[4] = {{0, 0}, {4, 0}, {4, 3}, {0, 3}};
    ENSURE(lsWorld_AddWall(world, square, 4, true) == 0);
    ENSURE(lsWorld_AddWall(world, square, 3, false) == 1);
    ENSURE(lsWorld_SegmentCount(world) == 4 + 2);
    for (int i = 0; i < 20; ++i)
    {
        lsTargetDef target = lsDefaultTargetDef();
        target.center = lsV(1.0 + 0.1 * i, 1.0);
        ENSURE(lsWorld_AddTarget(world, target) == i);
    }
    lsWorld_RemoveTarget(world, 0);
    ENSURE(world->targetCount == 19 && world->targets[0].center.x == 1.1);
    lsVec2 line[2] = {{0, 1}, {4, 1}};
    lsWorld_AddPath(world, "a", line, 2, 0.5, false);
    lsWorld_AddPath(world, "b", line, 2, 0.5, false);
    lsVehicleDef vehicle = lsDefaultVehicleDef();
    vehicle.path = 0;
    lsWorld_AddVehicle(world, vehicle);
    vehicle.path = 1;
    lsWorld_AddVehicle(world, vehicle);
    lsWorld_AddVehicle(world, vehicle);

    lsWorld* clone = lsCloneWorld(world);
    ENSURE(lsWorld_Equal(world, clone));
    clone->targets[3].radius = 0.31;
    ENSURE(!lsWorld_Equal(world, clone));
    lsDestroyWorld(clone);

    // Removing path 0 removes its vehicle and re-points the others at path "b", now index 0.
    lsWorld_RemovePath(world, 0);
    ENSURE(world->pathCount == 1 && strcmp(world->paths[0].id, "b") == 0);
    ENSURE(world->vehicleCount == 2 && world->vehicles[0].path == 0 && world->vehicles[1].path == 0);
    lsWorld_RemoveWall(world, 0);
    ENSURE(world->wallCount == 1 && lsWorld_SegmentCount(world) == 2);

    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    bar.a = lsV(10, 0);
    bar.b = lsV(12, 0);
    bar.pivot = lsV(11, 0);
    lsWorld_AddMover(world, bar);
    lsAABB bounds = lsWorld_Bounds(world);
    // The bar sweeps a disc of radius 1 around (11, 0); the targets reach y = 1.3; the robot reaches -0.25.
    ENSURE(bounds.upper.x == 12.0 && bounds.lower.y == -1.0 && bounds.lower.x == -0.25);
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);
    return 0;
}

static int SyntaxErrorTest(void)
{
    // Line and column are 1-based and point where cJSON stopped, or at a trailing comma before it.
    ENSURE(FailsWith("{\n  \"walls\": [\n    {\"from\": [0, 0], \"to\": [1, 0]},,\n  ]\n}",
                     "t.json:3:36: syntax error: a comma before a closing bracket (JSON allows no trailing comma)"));
    ENSURE(FailsWith("{\"walls\": [{\"from\": [0, 0], \"to\": [1, 0]}],\n}",
                     "t.json:1:43: syntax error: a comma before a closing bracket (JSON allows no trailing comma)"));
    // A comma in a string is no trailing comma; a value right after another is a missing comma.
    ENSURE(FailsWith("{\"name\": \",]\", \"walls\": [1 2]}", "t.json:1:28: syntax error near '2]}'"));
    ENSURE(FailsWith("{\"walls\": [{\"from\": [0, 0], \"to\": [1, 0]}\n {\"from\": [1, 0], \"to\": [2, 0]}]}",
                     "t.json:2:2: syntax error near '{\"from\": [1, 0],' (a comma missing before it?)"));
    ENSURE(FailsWith("{\"walls\": [1, 2", "t.json:1:16: syntax error: unexpected end of file"));
    ENSURE(FailsWith("", "t.json:1:1: syntax error: unexpected end of file (the file is empty)"));
    ENSURE(FailsWith("{\"walls\": []}\n\n  }", "t.json:3:3: syntax error near '}'"));
    ENSURE(FailsWith("{\"walls\": [], \"name\": NaN}", "t.json:1:23: syntax error near 'NaN}'"));
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"dt\": -Infinity}}", "t.json:1:29: syntax error"));
    // Numbers follow RFC 8259, not strtod: cJSON alone would read 007 as 7, 1. as 1 and -.5 as -0.5.
    ENSURE(FailsWith("{\"walls\": [{\"from\": [007, 0], \"to\": [1, 0]}]}",
                     "t.json:1:22: a number with a leading zero, which JSON does not allow (write 7, not 007)"));
    ENSURE(FailsWith("{\"sim\": {\"dt\": 1.}}",
                     "t.json:1:16: a number without digits after its decimal point, which JSON does not allow (write "
                     "1.0 or 1)"));
    ENSURE(FailsWith("{\"sim\": {\"dt\": -.5}}", "t.json:1:16: a number without digits before its decimal point"));
    ENSURE(FailsWith("{\"sim\": {\"dt\": 2e}}", "t.json:1:16: a number without digits in its exponent (write 1e5)"));
    ENSURE(FailsWith("{\"sim\": {\"dt\": 0.5E+}}", "t.json:1:16: a number without digits in its exponent"));
    // A raw control character inside a string (JSON wants it escaped; a tab between values is whitespace).
    ENSURE(FailsWith("{\"name\": \"a\001b\", \"walls\": []}",
                     "t.json:1:12: a control character (0x01) inside a string: JSON needs it escaped (\\u0001"));
    ENSURE(FailsWith("{\"name\": \"a\tb\", \"walls\": []}", "t.json:1:12: a control character (0x09) inside a string"));
    // The first error in the file is the one reported: a syntax error before such a number or a control character in
    // a string, or the number before one.
    ENSURE(FailsWith("{\"walls\": [1,, 2], \"name\": \"a\tb\"}", "t.json:1:14: syntax error near ', 2]"));
    ENSURE(FailsWith("{\"name\": \"a\tb\", \"walls\": [007]}", "t.json:1:12: a control character (0x09)"));
    ENSURE(FailsWith("{\"walls\": [1,, 007]}", "t.json:1:14: syntax error near ', 007]}'"));
    ENSURE(FailsWith("{\"walls\": [007,, 1]}", "t.json:1:12: a number with a leading zero"));
    ENSURE(FailsWith("{\"walls\": [1.] \"x\"}", "t.json:1:12: a number without digits after its decimal point"));
    {
        // A malformed number is skipped whole: scanned again from each of its digits, 80 000 of them took 2.5 s.
        enum
        {
            digits = 200000
        };
        char* text = lsAlloc(digits + 16);
        memcpy(text, "{\"walls\": [", 12); // its NUL, overwritten by the digits
        memset(text + 11, '1', digits);
        memcpy(text + 11 + digits, ".]}", 4);
        ENSURE(FailsWith(text, "t.json:1:12: a number without digits after its decimal point"));
        lsFree(text, digits + 16);
    }
    // Every form the grammar allows still loads: zero, negative zero, exponents of both signs and cases, underflow.
    lsError err = {{0}};
    lsWorld* forms = LoadText("{\"walls\": [{\"from\": [0, -0], \"to\": [1E+2, 0.0e-0]}], \"robot\": {\"pose\": "
                              "[-0.5, 1e-400, 10]}}",
                              &err, NULL);
    ENSURE(forms != NULL && forms->walls[0].points[1].x == 100.0 && forms->robot.position.y == 0.0);
    lsDestroyWorld(forms);
    // An embedded NUL is reported, not silently taken as the end of the text.
    const char withNul[] = "{\"walls\": []}\0garbage";
    err = (lsError){{0}};
    ENSURE(lsLoadWorldFromString(withNul, sizeof withNul - 1, "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "t.json:1:14: unexpected NUL byte") != NULL);
    // Not NUL-terminated input is fine: the loader copies it.
    const char cut[] = "{\"walls\": []}XXXX";
    lsWorld* world = lsLoadWorldFromString(cut, 13, "t.json", &err, NULL);
    ENSURE(world != NULL && strcmp(world->name, "t") == 0);
    lsDestroyWorld(world);
    // A world file is UTF-8: any other byte (Latin-1, an overlong form, a surrogate, a character cut short) is refused
    // where it stands, since it would be written back into a save or a recording as JSON no reader takes.
    ENSURE(FailsWith("{\"walls\": [], \"name\": \"\xff\xfe\"}",
                     "t.json:1:24: a byte (0xff) that is not UTF-8: a world file is UTF-8 text"));
    ENSURE(FailsWith("{\"walls\": [], \"name\": \"caf\xe9\"}", "t.json:1:27: a byte (0xe9) that is not UTF-8"));
    ENSURE(FailsWith("{\"walls\": [],\n \"name\": \"\xc0\xaf\"}", "t.json:2:11: a byte (0xc0) that is not UTF-8"));
    ENSURE(FailsWith("{\"walls\": [], \"name\": \"\xed\xa0\x80\"}", "t.json:1:24: a byte (0xed)"));
    ENSURE(FailsWith("{\"walls\": [], \"name\": \"\xf4\x90\x80\x80\"}", "t.json:1:24: a byte (0xf4)"));
    ENSURE(FailsWith("{\"walls\": [], \"name\": \"\xe2\x82\"}", "t.json:1:24: a byte (0xe2)"));
    ENSURE(FailsWith("{\"walls\": []} \xc3", "t.json:1:15: a byte (0xc3)"));
    const char* utf8 = "{\"walls\": [], \"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}";
    world = lsLoadWorldFromString(utf8, strlen(utf8), "t.json", &err, NULL);
    ENSURE(world != NULL && strcmp(world->name, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == 0);
    lsDestroyWorld(world);
    // A name taken from a file name that is not UTF-8 (or cut inside a character) gets '?' for each such byte.
    world = lsLoadWorldFromString("{\"walls\": []}", 13, "dir/w\xff\xc3.json", &err, NULL);
    ENSURE(world != NULL && strcmp(world->name, "w??") == 0);
    lsDestroyWorld(world);
    // Without a file name, messages say <string> and the name is "world".
    ENSURE(lsLoadWorldFromString("{}", 2, NULL, &err, NULL) == NULL);
    ENSURE(strcmp(err.message, "<string>:1:1: missing key 'walls'") == 0);
    world = lsLoadWorldFromString("{\"walls\": []}", 13, NULL, &err, NULL);
    ENSURE(world != NULL && strcmp(world->name, "world") == 0);
    lsDestroyWorld(world);
    return 0;
}

static int ValueErrorTest(void)
{
    ENSURE(FailsWith(
        "{\n  \"walls\": [\n    {\"from\": [0, 0], \"to\": [1, 0]},\n    {\"from\": [0, 0], \"to\": [1]}\n  ]\n}",
        "t.json:4:28: walls[1].to: expected [x, y], two finite numbers"));
    ENSURE(FailsWith("{\"walls\": [{\"from\": [0, 1e400], \"to\": [1, 0]}]}",
                     "t.json:1:21: walls[0].from: expected [x, y], two finite numbers"));
    ENSURE(FailsWith("{\"walls\": [], \"targets\": [{\"center\": [0, 0], \"radius\": 0}]}",
                     "t.json:1:56: targets[0].radius: expected a size in [0.0001, 1e+06] m"));
    ENSURE(FailsWith("{\"walls\": [], \"boxes\": [{\"center\": [0, 0], \"size\": [1, -1]}]}",
                     "t.json:1:52: boxes[0].size: expected [w, h], each a size in [0.0001, 1e+06] m"));
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"beams\": 1000000000000}}}",
                     "t.json:1:44: robot.lidar.beams: expected an integer in [1, 100000]"));
    ENSURE(
        FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"beams\": 0}}}", "robot.lidar.beams: expected an integer"));
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"fov\": 360.0001}}}",
                     "t.json:1:42: robot.lidar.fov: expected a field of view in [1e-06, 360] deg"));
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"fov\": -1}}}",
                     "robot.lidar.fov: expected a field of view in [1e-06, 360] deg"));
    // A fov whose radians round to 0 gave a lidar of no beams (and a recording no reader takes).
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"fov\": 4.9e-324}}}",
                     "robot.lidar.fov: expected a field of view in [1e-06, 360] deg"));
    // An angle string's number is a decimal one as JSON writes numbers (strtod alone read hex, " 90", "+90", "inf").
    const char* const badAngles[] = {"0x10 deg", " 90 deg", "+90 deg", "inf deg", "nan rad", "deg", "90 degrees"};
    for (int i = 0; i < 7; ++i)
    {
        char text[128];
        snprintf(text, sizeof text, "{\"walls\": [], \"robot\": {\"pose\": [1, 2, \"%s\"]}}", badAngles[i]);
        ENSURE(FailsWith(text, "t.json:1:40: robot.pose[2]: expected an angle"));
    }
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"range\": 0}}}",
                     "robot.lidar.range: expected a range in [0.0001, 1e+06] m"));
    ENSURE(FailsWith("{\"walls\": [], \"polygons\": [{\"points\": [[0, 0], [2, 0], [1, 0.5], [1, 2]]}]}",
                     "t.json:1:39: polygons[0].points: expected a convex polygon with 3 to 32 points: not convex"));
    // A repeated point is named as such wherever it is, the first point repeated at the end of the outline included
    // (the orientation test of the triangle before it used to call it three points on one line).
    ENSURE(FailsWith("{\"walls\": [], \"polygons\": [{\"points\": [[0, 5], [1, 5], [1, 5], [0.5, 6]]}]}",
                     "polygons[0].points: expected a convex polygon with 3 to 32 points: repeated point"));
    ENSURE(FailsWith("{\"walls\": [], \"polygons\": [{\"points\": [[0, 5], [1, 5], [0.5, 6], [0, 5]]}]}",
                     "polygons[0].points: expected a convex polygon with 3 to 32 points: repeated point"));
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"footprint\": [[0.3, 0], [-0.2, 0.2], [0.3, 0], [-0.2, -0.2]]}}",
                     "robot.footprint: expected a convex polygon with 3 to 32 points: repeated point"));
    ENSURE(FailsWith("{\"walls\": [{\"points\": [[0, 0], [1, 0], [0, 0]], \"closed\": true}]}",
                     "walls[0].points[0]: the closing wall segment (last point to first) has zero length"));
    ENSURE(FailsWith("{\"walls\": [{\"from\": [0, 0], \"to\": [1, 0], \"closed\": true}]}",
                     "t.json:1:53: walls[0].closed: a wall given by \"from\" and \"to\" cannot be closed"));
    ENSURE(
        FailsWith("{\"walls\": [{\"from\": [3, 3], \"to\": [3, 3]}]}", "t.json:1:12: walls[0]: wall has zero length"));
    ENSURE(FailsWith("{\"walls\": [], \"paths\": [{\"id\": \"p\", \"points\": [[0, 0], [1, 0]]}], "
                     "\"vehicles\": [{\"path\": \"q\"}]}",
                     "t.json:1:89: vehicles[0].path: no path has the id 'q'"));
    ENSURE(FailsWith("{\"walls\": [], \"paths\": [{\"id\": \"p\", \"points\": [[0, 0], [1, 0]]}, "
                     "{\"id\": \"p\", \"points\": [[0, 1], [1, 1]]}]}",
                     "paths[1].id: duplicate path id 'p'"));
    ENSURE(FailsWith("{\"name\": \"x\"}", "t.json:1:1: missing key 'walls'"));
    ENSURE(FailsWith("[]", "t.json:1:1: expected a world"));
    ENSURE(
        FailsWith("{\"walls\": [], \"robot\": {\"pose\": [0, 0, \"90 grad\"]}}", "robot.pose[2]: expected an angle"));
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"seed\": -1}}", "sim.seed: expected an integer"));
    // A number seed goes up to 2^53; 2^53 + 1 reads as the same double but is refused by its digits, however written.
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"seed\": 9007199254740993}}",
                     "t.json:1:31: sim.seed: expected an integer"));
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"seed\": 9.007199254740993e15}}", "sim.seed: expected an integer"));
    ENSURE(FailsWith("{\"walls\": [], \"robot\": {\"lidar\": {\"seed\": 9007199254740992.000000000000000000000001}}}",
                     "robot.lidar.seed: expected an integer"));
    // Near 2^53 a double cannot hold a fraction either: 2^52 + 0.4 read as 2^52, and was taken as a whole seed.
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"seed\": 4503599627370496.4}}", "sim.seed: expected an integer"));
    // A seed whose text cannot be found (its key written with an escape) is refused from 2^32 on: its digits unread.
    ENSURE(FailsWith("{\"walls\": [], \"sim\": {\"se\\u0065d\": 9007199254740993}}", "sim.seed: expected an integer"));
    const char* const twoTo53[] = {"9007199254740992", "9.007199254740992e15", "900719925474099200000000000e-11",
                                   "0.9007199254740992E+16", "9007199254740992.000000000000000000000000"};
    for (int i = 0; i < 5; ++i)
    {
        char text[160];
        snprintf(text, sizeof text, "{\"walls\": [], \"sim\": {\"seed\": %s}}", twoTo53[i]);
        lsError err = {{0}};
        lsWorld* big = LoadText(text, &err, NULL);
        ENSURE(big != NULL && big->sim.seed == (uint64_t)1 << 53);
        lsDestroyWorld(big);
    }
    // A key written with escapes is not found by the re-scan: the message keeps the path and drops line:column.
    ENSURE(FailsWith("{\"walls\": [], \"r\\u006fbot\": {\"radius\": -1}}",
                     "t.json: robot.radius: expected a size in [0.0001, 1e+06] m"));
    return 0;
}

static int WarningTest(void)
{
    const char* text = "{\n  \"walls\": [\n    {\"from\": [0, 0], \"to\": [1, 0]},\n"
                       "    {\"from\": [0, 1], \"to\": [1, 1], \"reflectanse\": 0.5, \"colour\": \"red\"}\n  ],\n"
                       "  \"targets\": [{\"center\": [1, 1], \"radus\": 0.2}],\n"
                       "  \"sim\": {\"dt\": 0.01, \"dt\": 0.02}\n}";
    lsError err = {{0}};
    lsWarnings warnings;
    lsWorld* world = LoadText(text, &err, &warnings);
    ENSURE(world != NULL);
    ENSURE(warnings.count == 4 && warnings.dropped == 0);
    ENSURE(strcmp(warnings.messages[0],
                  "t.json:4:36: walls[1]: unknown key 'reflectanse' (did you mean 'reflectance'?)") == 0);
    ENSURE(strcmp(warnings.messages[1], "t.json:4:56: walls[1]: unknown key 'colour'") == 0);
    ENSURE(strcmp(warnings.messages[2], "t.json:6:34: targets[0]: unknown key 'radus' (did you mean 'radius'?)") == 0);
    // A key given twice is located at the second one, the one ignored (the first, the one used, is fine).
    ENSURE(strcmp(warnings.messages[3], "t.json:7:23: sim: duplicate key 'dt' (the first one is used)") == 0);
    // Unknown keys are ignored: the default radius stays, the first dt wins.
    ENSURE(world->targets[0].radius == lsDefaultTargetDef().radius && world->sim.dt == 0.01);
    lsDestroyWorld(world);

    // Swapped letters and a key in the wrong case are the commonest typos: each is one edit from the key it meant.
    world = LoadText("{\"walls\": [], \"robto\": {}, \"sim\": {\"DT\": 0.1}, \"Robot\": {}}", &err, &warnings);
    ENSURE(world != NULL && warnings.count == 3);
    ENSURE(strcmp(warnings.messages[0], "t.json:1:15: unknown key 'robto' (did you mean 'robot'?)") == 0);
    ENSURE(strcmp(warnings.messages[1], "t.json:1:48: unknown key 'Robot' (did you mean 'robot'?)") == 0);
    ENSURE(strcmp(warnings.messages[2], "t.json:1:36: sim: unknown key 'DT' (did you mean 'dt'?)") == 0);
    lsDestroyWorld(world);

    // An unknown key given twice: each warning at its own member.
    world = LoadText("{\"walls\": [], \"wals\": 1, \"wals\": 2}", &err, &warnings);
    ENSURE(world != NULL && warnings.count == 2);
    ENSURE(strcmp(warnings.messages[0], "t.json:1:15: unknown key 'wals' (did you mean 'walls'?)") == 0);
    ENSURE(strcmp(warnings.messages[1], "t.json:1:26: unknown key 'wals' (did you mean 'walls'?)") == 0);
    lsDestroyWorld(world);

    // More than 16 warnings: the rest are counted.
    char many[4096] = "{\"walls\": [";
    size_t used = strlen(many);
    for (int i = 0; i < 20; ++i)
    {
        used += (size_t)snprintf(many + used, sizeof many - used, "%s{\"from\": [0, 0], \"to\": [1, 0], \"x\": 1}",
                                 i > 0 ? ", " : "");
    }
    snprintf(many + used, sizeof many - used, "]}");
    world = LoadText(many, &err, &warnings);
    ENSURE(world != NULL && warnings.count == 16 && warnings.dropped == 4);
    lsDestroyWorld(world);
    return 0;
}

static int DefaultsTest(void)
{
    lsError err = {{0}};
    lsWarnings warnings;
    const char* text =
        "{\"walls\": [], \"targets\": [{\"center\": [0, 0]}, {\"center\": [1, 0], \"kind\": \"poison\"}],"
        " \"boxes\": [{\"center\": [0, 0], \"size\": [1, 2]}],"
        " \"paths\": [{\"id\": \"p\", \"points\": [[5, 6], [7, 6]]}], \"vehicles\": [{\"path\": \"p\"}],"
        " \"movers\": [{\"type\": \"bar\", \"from\": [0, 0], \"to\": [2, 4]},"
        " {\"type\": \"door\", \"from\": [0, 0], \"to\": [1, 0]}]}";
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "worlds/some.world.json", &err, &warnings);
    ENSURE(world != NULL && warnings.count == 0);
    ENSURE(strcmp(world->name, "some.world") == 0);
    ENSURE(world->targets[0].kind == ls_food && world->targets[0].reflectance == 0.6);
    ENSURE(world->targets[1].kind == ls_poison && world->targets[1].reflectance == 0.9);
    ENSURE(world->boxes[0].angle == 0.0 && world->boxes[0].reflectance == 0.5);
    ENSURE(world->paths[0].radius == 0.5 && !world->paths[0].closed);
    ENSURE(world->vehicles[0].position.x == 5.0 && world->vehicles[0].position.y == 6.0);
    ENSURE(world->vehicles[0].maxSpeed == 1.5 && world->vehicles[0].maxForce == 2.0 &&
           world->vehicles[0].radius == 0.2);
    ENSURE(world->movers[0].pivot.x == 1.0 && world->movers[0].pivot.y == 2.0);
    ENSURE_SMALL(world->movers[0].angularSpeed - LS_PI / 4.0, 1e-15);
    ENSURE(world->movers[1].offset.x == 1.0 && world->movers[1].period == 4.0);
    ENSURE(world->robot.radius == 0.25 && world->robot.lidar.range == 12.0 && world->robot.lidar.seed == 1);
    ENSURE(world->robot.lidar.fov == lsDegToRad(360.0));
    ENSURE(world->sim.dt == 1.0 / 60.0 && world->sim.poisonReward == -1.0);
    lsDestroyWorld(world);

    // Clockwise polygons and footprints are stored counter-clockwise.
    text = "{\"walls\": [], \"polygons\": [{\"points\": [[0, 0], [0, 1], [1, 0]]}],"
           " \"robot\": {\"footprint\": [[-1, -1], [-1, 1], [1, 1], [1, -1]]}}";
    world = LoadText(text, &err, &warnings);
    ENSURE(world != NULL);
    const lsVec2* p = world->polygons[0].points;
    ENSURE(lsCross(lsSub(p[1], p[0]), lsSub(p[2], p[1])) > 0.0);
    const lsVec2* f = world->robot.footprint;
    ENSURE(world->robot.footprintCount == 4 && lsCross(lsSub(f[1], f[0]), lsSub(f[2], f[1])) > 0.0);
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);
    return 0;
}

static int MalformedCorpusTest(void)
{
    const char* folder = LS_TEST_DATA_DIR "/malformed";
    char manifestPath[512];
    snprintf(manifestPath, sizeof manifestPath, "%s/EXPECTED.txt", folder);
    FILE* manifest = fopen(manifestPath, "r");
    ENSURE(manifest != NULL);
    char line[1024];
    int checked = 0;
    while (fgets(line, sizeof line, manifest) != NULL)
    {
        if (line[0] == '#' || line[0] == '\n')
        {
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        char* tab = strchr(line, '\t');
        ENSURE(tab != NULL);
        *tab = '\0';
        const char* expected = tab + 1;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", folder, line);
        lsError err = {{0}};
        lsWorld* world = lsLoadWorld(path, &err, NULL);
        if (world != NULL || strstr(err.message, expected) == NULL)
        {
            fprintf(stderr, "    %s: got '%s'\n    expected '%s'\n", line, world != NULL ? "(loaded)" : err.message,
                    expected);
            lsDestroyWorld(world);
            fclose(manifest);
            return 1;
        }
        ++checked;
    }
    fclose(manifest);
    // Every file of the corpus is in the manifest.
    DIR* dir = opendir(folder);
    ENSURE(dir != NULL);
    int files = 0;
    for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir))
    {
        files += strstr(entry->d_name, ".json") != NULL;
    }
    closedir(dir);
    ENSURE(checked >= 50 && files == checked);
    return 0;
}

// Builds head + count copies of item joined by commas (or nothing, when commas is false) + tail, with lsAlloc.
static char* RepeatJoined(const char* head, const char* item, int count, bool commas, const char* tail, size_t* size)
{
    size_t itemLength = strlen(item);
    *size = strlen(head) + (size_t)count * (itemLength + 1) + strlen(tail) + 1;
    char* text = lsAlloc(*size);
    char* p = text;
    p += sprintf(p, "%s", head);
    for (int i = 0; i < count; ++i)
    {
        p += snprintf(p, itemLength + 1, "%s", item); // its NUL is overwritten next
        if (commas)
        {
            *p++ = i + 1 < count ? ',' : ' ';
        }
    }
    sprintf(p, "%s", tail);
    return text;
}

static char* Repeat(const char* head, const char* item, int count, const char* tail, size_t* size)
{
    return RepeatJoined(head, item, count, true, tail, size);
}

static int LimitsTest(void)
{
    lsError err = {{0}};
    size_t size = 0;
    // 100 001 targets: refused by count before any is read.
    char* text = Repeat("{\"walls\": [], \"targets\": [", "0", 100001, "]}", &size);
    ENSURE(lsLoadWorldFromString(text, strlen(text), "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "t.json:1:26: targets: more than 100000 entries (the limit)") != NULL);
    lsFree(text, size);
    // 1 000 001 walls.
    text = Repeat("{\"walls\": [", "0", 1000001, "]}", &size);
    ENSURE(lsLoadWorldFromString(text, strlen(text), "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "walls: more than 1000000 entries") != NULL);
    lsFree(text, size);
    // Over 8 million JSON values: refused by the pre-scan, before cJSON builds a tree.
    text = Repeat("{\"walls\": [", "0", 8000001, "]}", &size);
    ENSURE(lsLoadWorldFromString(text, strlen(text), "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "more than 8000000 JSON values (the limit)") != NULL);
    lsFree(text, size);
    // 100 000 levels of nesting.
    text = RepeatJoined("{\"walls\": ", "[", 100000, false, "}", &size);
    ENSURE(lsLoadWorldFromString(text, strlen(text), "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "t.json:1:1010: nesting deeper than 1000 levels") != NULL);
    lsFree(text, size);
    // A 5 MB name.
    text = RepeatJoined("{\"walls\": [], \"name\": \"", "nnnnnnnnnn", 500000, false, "\"}", &size);
    ENSURE(lsLoadWorldFromString(text, strlen(text), "t.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "t.json:1:23: name: string of 5000000 bytes is too long (at most 127)") != NULL);
    lsFree(text, size);
    // A file over 64 MiB is refused from its size alone (a sparse file: nothing is written or read).
    char path[] = "/tmp/ls_world_big_XXXXXX";
    int fd = mkstemp(path);
    ENSURE(fd >= 0);
    ENSURE(ftruncate(fd, ((off_t)64 << 20) + 1) == 0);
    close(fd);
    ENSURE(lsLoadWorld(path, &err, NULL) == NULL);
    ENSURE(strstr(err.message, ": 67108865 bytes, over the limit of 64 MiB") != NULL);
    unlink(path);
    ENSURE(lsLoadWorld("/nonexistent/folder/w.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "/nonexistent/folder/w.json: cannot open: No such file or directory") != NULL);
    ENSURE(lsLoadWorld("/tmp", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "/tmp: not a regular file") != NULL);
    return 0;
}

static int ShippedWorldsTest(void)
{
    for (int i = 0; i < (int)(sizeof s_shippedWorlds / sizeof s_shippedWorlds[0]); ++i)
    {
        char path[512];
        snprintf(path, sizeof path, "%s/worlds/%s.json", LS_SOURCE_DIR, s_shippedWorlds[i]);
        lsError err = {{0}};
        lsWarnings warnings;
        lsWorld* world = lsLoadWorld(path, &err, &warnings);
        if (world == NULL)
        {
            fprintf(stderr, "    %s\n", err.message);
        }
        ENSURE(world != NULL);
        ENSURE(warnings.count == 0 && warnings.dropped == 0);
        ENSURE(world->wallCount > 0 && world->targetCount > 0);
        ENSURE(RoundTrips(world));
        // Also through a clone, and the clone saves to the same text.
        lsWorld* clone = lsCloneWorld(world);
        char* a = lsSaveWorldToString(world);
        char* b = lsSaveWorldToString(clone);
        ENSURE(strcmp(a, b) == 0);
        lsFreeString(a);
        lsFreeString(b);
        lsDestroyWorld(clone);
        lsDestroyWorld(world);
    }
    // What the issue asks of them.
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/default.json", &err, NULL);
    ENSURE(world != NULL && world->pathCount >= 1 && world->paths[0].closed && world->vehicleCount >= 3);
    ENSURE(world->moverCount >= 2 && world->boxCount > 0 && world->polygonCount > 0);
    ENSURE(world->robot.lidar.beams == 360);
    lsDestroyWorld(world);
    // Maze: every wall endpoint that lies on another wall is an endpoint (or vertex) of that wall too.
    world = lsLoadWorld(LS_SOURCE_DIR "/worlds/maze.json", &err, NULL);
    ENSURE(world != NULL);
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* w = world->walls + i;
        lsVec2 ends[2] = {w->points[0], w->points[w->pointCount - 1]};
        for (int e = 0; e < (w->closed ? 0 : 2); ++e)
        {
            for (int j = 0; j < world->wallCount; ++j)
            {
                const lsWallDef* v = world->walls + j;
                int segments = v->closed ? v->pointCount : v->pointCount - 1;
                for (int s = 0; s < segments; ++s)
                {
                    lsVec2 a = v->points[s], b = v->points[(s + 1) % v->pointCount];
                    bool onSegment = lsCross(lsSub(b, a), lsSub(ends[e], a)) == 0.0 &&
                                     lsDot(lsSub(ends[e], a), lsSub(ends[e], b)) < 0.0;
                    ENSURE(!onSegment);
                }
            }
        }
    }
    lsDestroyWorld(world);
    return 0;
}

static int BenchWorldsTest(void)
{
    // The shared benchmark worlds, when this checkout has them beside it (they are not part of the repository).
    const char* names[] = {"city-1k", "city-10k", "maze-2k"};
    for (int i = 0; i < 3; ++i)
    {
        char path[512];
        snprintf(path, sizeof path, "%s/../shared/bench-worlds/%s.json", LS_SOURCE_DIR, names[i]);
        if (access(path, R_OK) != 0)
        {
            continue;
        }
        lsError err = {{0}};
        lsWarnings warnings;
        lsWorld* world = lsLoadWorld(path, &err, &warnings);
        ENSURE(world != NULL && warnings.count == 0);
        ENSURE(strcmp(world->name, names[i]) == 0);
        ENSURE(RoundTrips(world));
        lsDestroyWorld(world);
    }
    return 0;
}

static int AngleRoundTripTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(99);
    // Radians from anywhere (not from a degree value): most have a decimal number of degrees that converts back
    // exactly; the rest are written as "R rad". Both must come back bit for bit.
    for (int i = 0; i < 2000; ++i)
    {
        lsBoxDef box = lsDefaultBoxDef();
        box.center = lsTestRandomPoint(&rng, -100.0, 100.0, -100.0, 100.0);
        box.angle = lsRng_Range(&rng, -10.0, 10.0) * pow(10.0, (double)(i % 7) - 3.0);
        lsWorld_AddBox(world, box);
    }
    world->robot.angle = 1.0;
    world->robot.lidar.mountAngle = -LS_PI;
    world->robot.lidar.fov = 2.0 * LS_PI;
    world->robot.lidar.angleNoise = 1e-300;
    world->robot.maxTurnRate = 0.1;
    world->robot.lidar.seed = UINT64_MAX;
    world->sim.seed = ((uint64_t)1 << 53) + 1;
    char* json = lsSaveWorldToString(world);
    // Some angles needed the radian form, and the big seeds went out as strings.
    ENSURE(strstr(json, " rad\"") != NULL);
    ENSURE(strstr(json, "\"seed\": \"18446744073709551615\"") != NULL);
    lsFreeString(json);
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);

    // Degrees from a file come back as the same short decimals.
    const char* text = "{\"walls\": [], \"boxes\": [{\"center\": [0.1, 0.2], \"size\": [1, 1], \"angle\": 33.3},"
                       " {\"center\": [0, 0], \"size\": [1, 1], \"angle\": \"0.5 rad\"}],"
                       " \"robot\": {\"pose\": [1, 2, 45], \"lidar\": {\"fov\": 270, \"mount\": [0, 0, -90]}}}";
    lsError err = {{0}};
    world = LoadText(text, &err, NULL);
    ENSURE(world != NULL && world->boxes[1].angle == 0.5);
    json = lsSaveWorldToString(world);
    ENSURE(strstr(json, "\"center\": [0.1, 0.2], \"size\": [1, 1], \"angle\": 33.3,") != NULL);
    ENSURE(strstr(json, "\"pose\": [1, 2, 45]") != NULL);
    ENSURE(strstr(json, "\"fov\": 270,") != NULL);
    ENSURE(strstr(json, "\"mount\": [0, 0, -90]") != NULL);
    lsFreeString(json);
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);
    return 0;
}

static int SaveFileTest(void)
{
    char folder[] = "/tmp/ls_world_save_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/w.json", folder);
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(LS_SOURCE_DIR "/worlds/warehouse.json", &err, NULL);
    ENSURE(world != NULL);

    // Over an existing file (with its permissions kept), then read back.
    FILE* old = fopen(path, "w");
    ENSURE(old != NULL);
    fputs("old contents", old);
    fclose(old);
    ENSURE(chmod(path, 0640) == 0);
    ENSURE(lsSaveWorld(world, path, &err));
    struct stat info;
    ENSURE(stat(path, &info) == 0 && (info.st_mode & 0777) == 0640);
    lsWorld* back = lsLoadWorld(path, &err, NULL);
    ENSURE(back != NULL);
    // The name was "Warehouse" in the file, and it is kept (not taken from w.json).
    ENSURE(lsWorld_Equal(world, back) && strcmp(back->name, "Warehouse") == 0);
    lsDestroyWorld(back);
    size_t size = 0;
    char* text = ReadAll(path, &size);
    char* expected = lsSaveWorldToString(world);
    ENSURE(text != NULL && strcmp(text, expected) == 0);
    lsFree(text, size);
    lsFreeString(expected);

    // No temporary file is left behind.
    DIR* dir = opendir(folder);
    ENSURE(dir != NULL);
    int entries = 0;
    for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir))
    {
        entries += entry->d_name[0] != '.';
    }
    closedir(dir);
    ENSURE(entries == 1);

    // Into a missing folder: fails, says why, creates nothing.
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/w.json", folder);
    ENSURE(!lsSaveWorld(world, missing, &err));
    ENSURE(strstr(err.message, "cannot create a temporary file next to it: No such file or directory") != NULL);
    char missingFolder[300];
    snprintf(missingFolder, sizeof missingFolder, "%s/no", folder);
    ENSURE(access(missingFolder, F_OK) != 0);

    // An invalid world (two paths with one id) is refused and the old file stays as it was.
    lsVec2 line[2] = {{0, 0}, {1, 0}};
    lsWorld_AddPath(world, world->paths[0].id, line, 2, 0.5, false);
    ENSURE(!lsSaveWorld(world, path, &err));
    ENSURE(strstr(err.message, "not saved, the world is not valid") != NULL);
    ENSURE(strstr(err.message, "duplicate path id") != NULL);
    back = lsLoadWorld(path, &err, NULL);
    ENSURE(back != NULL && back->pathCount == world->pathCount - 1);
    lsDestroyWorld(back);

    lsDestroyWorld(world);
    ENSURE(unlink(path) == 0);
    ENSURE(rmdir(folder) == 0);
    return 0;
}

static int NumberFormatTest(void)
{
    // Numbers are written as the shortest text that reads back exactly, down to the smallest subnormal and up to the
    // limits of the world format (docs/world-format.md, "Limits").
    lsWorld* world = lsCreateWorld();
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(0.1, 1.0 / 3.0);
    target.radius = 1e-4;
    lsWorld_AddTarget(world, target);
    target.center = lsV(-0.0, 123456.78901234567);
    target.radius = 0.1 + 0.2;
    lsWorld_AddTarget(world, target);
    target.center = lsV(1e6, -4.94065645841247e-324);
    target.radius = 1e6;
    lsWorld_AddTarget(world, target);
    char* json = lsSaveWorldToString(world);
    ENSURE(strstr(json, "\"center\": [0.1, 0.3333333333333333]") != NULL);
    ENSURE(strstr(json, "\"radius\": 0.0001") != NULL);
    ENSURE(strstr(json, "\"radius\": 0.30000000000000004") != NULL);
    ENSURE(strstr(json, "[-0, 123456.78901234567]") != NULL);
    ENSURE(strstr(json, "[1000000, -4.94065645841247e-324]") != NULL);
    lsFreeString(json);
    ENSURE(RoundTrips(world));
    // Names with quotes, backslashes and control characters are escaped.
    strcpy(world->name, "a \"quoted\" \\ name\twith tab");
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);
    return 0;
}

static int DocsExampleTest(void)
{
    // The complete example in docs/world-format.md loads without warnings and round-trips.
    size_t size = 0;
    char* doc = ReadAll(LS_SOURCE_DIR "/docs/world-format.md", &size);
    ENSURE(doc != NULL);
    const char* start = strstr(doc, "```json\n");
    const char* end = start != NULL ? strstr(start + 8, "```") : NULL;
    bool found = start != NULL && end != NULL;
    lsError err = {{0}};
    lsWarnings warnings;
    lsWorld* world =
        found ? lsLoadWorldFromString(start + 8, (size_t)(end - start - 8), "example.json", &err, &warnings) : NULL;
    lsFree(doc, size);
    ENSURE(found);
    if (world == NULL)
    {
        fprintf(stderr, "    %s\n", err.message);
    }
    ENSURE(world != NULL && warnings.count == 0);
    ENSURE(strcmp(world->name, "Two rooms") == 0 && lsWorld_SegmentCount(world) == 6 && world->moverCount == 2);
    ENSURE(world->robot.lidar.seed == 42 && world->vehicles[1].path == 0);
    ENSURE(RoundTrips(world));
    lsDestroyWorld(world);
    return 0;
}

int WorldTest(void)
{
    RUN_SUBTEST(EditingTest);
    RUN_SUBTEST(SyntaxErrorTest);
    RUN_SUBTEST(ValueErrorTest);
    RUN_SUBTEST(WarningTest);
    RUN_SUBTEST(DefaultsTest);
    RUN_SUBTEST(MalformedCorpusTest);
    RUN_SUBTEST(LimitsTest);
    RUN_SUBTEST(ShippedWorldsTest);
    RUN_SUBTEST(BenchWorldsTest);
    RUN_SUBTEST(AngleRoundTripTest);
    RUN_SUBTEST(SaveFileTest);
    RUN_SUBTEST(NumberFormatTest);
    RUN_SUBTEST(DocsExampleTest);
    return 0;
}

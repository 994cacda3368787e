// ReloadTest: hot reload of a world file (core/reload.h). Files live in a fresh folder under /tmp; modification
// times are set explicitly (utimensat) and the poller is given explicit times, so nothing sleeps.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include "core/reload.h"
#include "lidarsim/map.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char s_dir[64];
static char s_path[128];

// Writes text to path (truncating) and sets its modification time to `seconds` (since the epoch).
static int WriteFile(const char* path, const char* text, size_t size, long seconds)
{
    FILE* f = fopen(path, "wb");
    ENSURE(f != NULL);
    ENSURE(fwrite(text, 1, size, f) == size);
    ENSURE(fclose(f) == 0);
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    ENSURE(utimensat(AT_FDCWD, path, times, 0) == 0);
    return 0;
}

static int WriteWorld(const char* path, const lsWorld* world, long seconds)
{
    char* text = lsSaveWorldToString(world);
    int result = WriteFile(path, text, strlen(text), seconds);
    lsFreeString(text);
    return result;
}

static lsWorld* MakeWorld(void)
{
    lsWorld* world = lsCreateWorld();
    strcpy(world->name, "reload");
    lsVec2 square[4] = {{-5.0, -5.0}, {5.0, -5.0}, {5.0, 5.0}, {-5.0, 5.0}};
    lsWorld_AddWall(world, square, 4, true);
    lsTargetDef target = lsDefaultTargetDef();
    target.center = lsV(2.0, 1.0);
    lsWorld_AddTarget(world, target);
    return world;
}

// 1-based line of the first occurrence of needle in text (0 if absent).
static int LineOf(const char* text, const char* needle)
{
    const char* at = strstr(text, needle);
    if (at == NULL)
        return 0;
    int line = 1;
    for (const char* p = text; p < at; ++p)
    {
        line += *p == '\n';
    }
    return line;
}

static int SetUp(void)
{
    strcpy(s_dir, "/tmp/ls-reload-XXXXXX");
    ENSURE(mkdtemp(s_dir) != NULL);
    snprintf(s_path, sizeof s_path, "%s/world.json", s_dir);
    return 0;
}

static void TearDown(void)
{
    char tmp[160];
    unlink(s_path);
    snprintf(tmp, sizeof tmp, "%s.new", s_path);
    unlink(tmp);
    rmdir(s_dir);
}

// Unchanged, good edit, broken edits (syntax, bad value, truncated), fixed edit.
static int EditsTest(void)
{
    ENSURE(SetUp() == 0);
    lsWorld* world = MakeWorld();
    long t = 1700000000;
    ENSURE(WriteWorld(s_path, world, t) == 0);
    lsDestroyWorld(world);
    lsError err;
    lsWorld* shown = lsLoadWorld(s_path, &err, NULL);
    ENSURE(shown != NULL);
    lsReloader* reloader = lsCreateReloader(s_path, 0.0);
    lsWorld* fresh = (lsWorld*)1;

    // Unchanged: nothing, again and again.
    for (int i = 0; i < 3; ++i)
    {
        ENSURE(lsReloader_Poll(reloader, 0.1 * i, shown, &fresh) == ls_reloadNone && fresh == NULL);
    }
    ENSURE(!lsReloader_HasError(reloader) && lsReloader_Error(reloader)[0] == '\0');
    ENSURE(lsReloader_ReadCount(reloader) == 0);

    // A good edit is picked up at the next poll, as a new world equal to what the file says.
    lsWorld* edited = lsCloneWorld(shown);
    edited->targets[0].center = lsV(-1.5, 3.25);
    ENSURE(WriteWorld(s_path, edited, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 1.0, shown, &fresh) == ls_reloadLoaded);
    ENSURE(fresh != NULL && lsWorld_Equal(fresh, edited));
    lsDestroyWorld(shown);
    shown = fresh;
    ENSURE(lsReloader_Poll(reloader, 1.1, shown, &fresh) == ls_reloadNone && fresh == NULL);
    ENSURE(lsReloader_ReadCount(reloader) == 1);

    // A syntax error: the old world stays, the error names the file, line and column.
    char* good = lsSaveWorldToString(edited);
    size_t goodSize = strlen(good);
    int targetLine = LineOf(good, "\"targets\"");
    ENSURE(targetLine > 1);
    char* broken = lsAlloc(goodSize + 2);
    const char* at = strstr(good, "\"targets\"");
    size_t prefix = (size_t)(at - good);
    memcpy(broken, good, prefix);
    broken[prefix] = '@'; // not JSON
    memcpy(broken + prefix + 1, at, goodSize - prefix + 1);
    ENSURE(WriteFile(s_path, broken, goodSize + 1, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 2.0, shown, &fresh) == ls_reloadFailed && fresh == NULL);
    ENSURE(lsReloader_HasError(reloader));
    const char* message = lsReloader_Error(reloader);
    char location[160];
    snprintf(location, sizeof location, "%s:%d:", s_path, targetLine);
    if (strstr(message, location) == NULL)
        fprintf(stderr, "error was: %s (wanted %s)\n", message, location);
    ENSURE(strstr(message, location) == message);
    ENSURE(lsWorld_Equal(shown, edited));
    // Reported once; the error stays while the file stays broken.
    ENSURE(lsReloader_Poll(reloader, 2.1, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_HasError(reloader) && strstr(lsReloader_Error(reloader), location) != NULL);
    lsFree(broken, goodSize + 2);

    // A bad value: the error names the JSON path.
    lsWorld* bad = lsCloneWorld(edited);
    bad->targets[0].radius = -1.0;
    ENSURE(WriteWorld(s_path, bad, ++t) == 0);
    lsDestroyWorld(bad);
    ENSURE(lsReloader_Poll(reloader, 3.0, shown, &fresh) == ls_reloadFailed);
    message = lsReloader_Error(reloader);
    if (strstr(message, "targets[0].radius") == NULL)
        fprintf(stderr, "error was: %s\n", message);
    ENSURE(strstr(message, s_path) == message && strstr(message, "targets[0].radius") != NULL);
    ENSURE(lsWorld_Equal(shown, edited));

    // A truncated, half-written file: an error with a location, the old world kept.
    ENSURE(WriteFile(s_path, good, goodSize / 2, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 4.0, shown, &fresh) == ls_reloadFailed);
    message = lsReloader_Error(reloader);
    snprintf(location, sizeof location, "%s:", s_path);
    ENSURE(strstr(message, location) == message && strlen(message) > strlen(location) + 4);
    ENSURE(lsWorld_Equal(shown, edited));
    // An empty file (an editor that truncates before writing) too.
    ENSURE(WriteFile(s_path, "", 0, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 4.5, shown, &fresh) == ls_reloadFailed);

    // Fixed, with the content already shown: nothing to swap, the error is cleared.
    ENSURE(WriteFile(s_path, good, goodSize, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 5.0, shown, &fresh) == ls_reloadSame && fresh == NULL);
    ENSURE(!lsReloader_HasError(reloader) && lsReloader_Error(reloader)[0] == '\0');

    // Broken again, then fixed with a new world: loaded, error cleared.
    ENSURE(WriteFile(s_path, good, goodSize - 3, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 6.0, shown, &fresh) == ls_reloadFailed);
    edited->targets[0].kind = ls_poison;
    ENSURE(WriteWorld(s_path, edited, ++t) == 0);
    ENSURE(lsReloader_Poll(reloader, 7.0, shown, &fresh) == ls_reloadLoaded);
    ENSURE(!lsReloader_HasError(reloader) && lsWorld_Equal(fresh, edited));
    lsDestroyWorld(shown);
    shown = fresh;

    lsFreeString(good);
    lsDestroyWorld(edited);
    lsDestroyWorld(shown);
    lsDestroyReloader(reloader);
    TearDown();
    return 0;
}

// Atomic rename-replace (the way most editors and lsSaveWorld save), the window's own saves, a deleted file.
static int ReplaceTest(void)
{
    ENSURE(SetUp() == 0);
    lsWorld* shown = MakeWorld();
    long t = 1700000000;
    ENSURE(WriteWorld(s_path, shown, t) == 0);
    lsReloader* reloader = lsCreateReloader(s_path, 0.0);
    lsWorld* fresh = NULL;

    // A new file renamed over the old one, with the same size and the same modification time: the new inode
    // gives it away.
    lsWorld* edited = lsCloneWorld(shown);
    edited->targets[0].center = lsV(3.0, 1.0); // "2" becomes "3": same length
    char* a = lsSaveWorldToString(shown);
    char* b = lsSaveWorldToString(edited);
    ENSURE(strlen(a) == strlen(b));
    lsFreeString(a);
    lsFreeString(b);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.new", s_path);
    ENSURE(WriteWorld(tmp, edited, t) == 0);
    ENSURE(rename(tmp, s_path) == 0);
    ENSURE(lsReloader_Poll(reloader, 1.0, shown, &fresh) == ls_reloadLoaded);
    ENSURE(lsWorld_Equal(fresh, edited));
    lsDestroyWorld(shown);
    shown = fresh;

    // The window's own save (atomic, through lsSaveWorld) told to the poller: no reload.
    shown->targets[0].radius = 0.75;
    lsError err;
    ENSURE(lsSaveWorld(shown, s_path, &err));
    lsReloader_MarkSaved(reloader);
    ENSURE(lsReloader_Poll(reloader, 2.0, shown, &fresh) == ls_reloadNone && fresh == NULL);
    // Not told: the poller reads it, finds the world it already shows, and hands nothing back (no reload loop).
    shown->targets[0].radius = 0.5;
    ENSURE(lsSaveWorld(shown, s_path, &err));
    ENSURE(lsReloader_Poll(reloader, 3.0, shown, &fresh) == ls_reloadSame && fresh == NULL);
    ENSURE(lsReloader_Poll(reloader, 3.1, shown, &fresh) == ls_reloadNone);

    // Deleted: an error naming the file, the old world kept, reported once.
    ENSURE(unlink(s_path) == 0);
    ENSURE(lsReloader_Poll(reloader, 4.0, shown, &fresh) == ls_reloadFailed && fresh == NULL);
    ENSURE(lsReloader_HasError(reloader));
    ENSURE(strstr(lsReloader_Error(reloader), s_path) == lsReloader_Error(reloader));
    ENSURE(strstr(lsReloader_Error(reloader), "No such file") != NULL);
    ENSURE(lsReloader_Poll(reloader, 4.1, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_HasError(reloader));
    // Back again with a change: loaded, error gone.
    edited->targets[0].center = lsV(-4.0, -4.0);
    ENSURE(WriteWorld(s_path, edited, t + 5) == 0);
    ENSURE(lsReloader_Poll(reloader, 5.0, shown, &fresh) == ls_reloadLoaded);
    ENSURE(!lsReloader_HasError(reloader) && lsWorld_Equal(fresh, edited));
    lsDestroyWorld(fresh);

    lsDestroyWorld(edited);
    lsDestroyWorld(shown);
    lsDestroyReloader(reloader);
    TearDown();
    return 0;
}

// With a settle time, a change is read only once the file has looked the same for that long, so an editor's
// several writes (or a truncate, then a write) become one reload.
static int SettleTest(void)
{
    ENSURE(SetUp() == 0);
    lsWorld* shown = MakeWorld();
    long t = 1700000000;
    ENSURE(WriteWorld(s_path, shown, t) == 0);
    lsReloader* reloader = lsCreateReloader(s_path, 0.5);
    lsWorld* fresh = NULL;

    // Truncated first (as an editor writing in place does), completed 0.3 s later: one reload, no error shown.
    ENSURE(WriteFile(s_path, "{\"walls\": [", 11, t + 1) == 0);
    ENSURE(lsReloader_Poll(reloader, 10.0, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_Poll(reloader, 10.2, shown, &fresh) == ls_reloadNone);
    lsWorld* edited = lsCloneWorld(shown);
    edited->targets[0].center = lsV(0.0, 0.0);
    ENSURE(WriteWorld(s_path, edited, t + 2) == 0);
    ENSURE(lsReloader_Poll(reloader, 10.3, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_Poll(reloader, 10.7, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_ReadCount(reloader) == 0 && !lsReloader_HasError(reloader));
    ENSURE(lsReloader_Poll(reloader, 10.8, shown, &fresh) == ls_reloadLoaded);
    ENSURE(lsWorld_Equal(fresh, edited) && lsReloader_ReadCount(reloader) == 1);
    lsDestroyWorld(shown);
    shown = fresh;

    // A broken version replaced before it settles is never read: only the final one is.
    char* text = lsSaveWorldToString(shown);
    ENSURE(WriteFile(s_path, "{", 1, t + 3) == 0);
    ENSURE(lsReloader_Poll(reloader, 20.0, shown, &fresh) == ls_reloadNone);
    ENSURE(WriteFile(s_path, text, strlen(text), t + 4) == 0);
    ENSURE(lsReloader_Poll(reloader, 20.6, shown, &fresh) == ls_reloadNone);
    ENSURE(lsReloader_Poll(reloader, 21.2, shown, &fresh) == ls_reloadSame);
    ENSURE(lsReloader_ReadCount(reloader) == 2 && !lsReloader_HasError(reloader));
    lsFreeString(text);

    lsDestroyWorld(edited);
    lsDestroyWorld(shown);
    lsDestroyReloader(reloader);
    TearDown();
    return 0;
}

// A version with a mistyped key loads without it, and says so: the reload passed no warnings, so the window said
// only "reloaded" while the target it meant to make poison stayed food.
static int WarningsTest(void)
{
    ENSURE(SetUp() == 0);
    lsWorld* shown = MakeWorld();
    long t = 1700000000;
    ENSURE(WriteWorld(s_path, shown, t) == 0);
    lsReloader* reloader = lsCreateReloader(s_path, 0.0);
    lsWorld* fresh = NULL;
    ENSURE(lsReloader_Warnings(reloader)->count == 0);
    const char* typo = "{\"walls\": [{\"from\": [0, 0], \"to\": [1, 0]}], \"targets\": [{\"center\": [2, 2], "
                       "\"radius\": 0.3, \"knd\": \"poison\"}]}";
    ENSURE(WriteFile(s_path, typo, strlen(typo), t + 1) == 0);
    ENSURE(lsReloader_Poll(reloader, 1.0, shown, &fresh) == ls_reloadLoaded);
    const lsWarnings* warnings = lsReloader_Warnings(reloader);
    ENSURE(warnings->count == 1 && strstr(warnings->messages[0], "unknown key 'knd' (did you mean 'kind'?)") != NULL);
    ENSURE(fresh->targets[0].kind == ls_food);
    lsDestroyWorld(shown);
    shown = fresh;
    // Fixed: the warning goes with the next version read.
    char* text = lsSaveWorldToString(shown);
    ENSURE(WriteFile(s_path, text, strlen(text), t + 2) == 0);
    ENSURE(lsReloader_Poll(reloader, 2.0, shown, &fresh) == ls_reloadSame && lsReloader_Warnings(reloader)->count == 0);
    lsFreeString(text);
    lsDestroyWorld(shown);
    lsDestroyReloader(reloader);
    TearDown();
    return 0;
}

// A 30 x 12 px map at 0.1 m: a border of wall cells, free inside, and a 4 x 4 block at (bx, by) when bx >= 0.
static int WriteMap(const char* pgm, int bx, int by, long seconds)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "P2\n30 12\n255\n");
    for (int y = 0; y < 12; ++y)
    {
        for (int x = 0; x < 30; ++x)
        {
            bool wall =
                x == 0 || y == 0 || x == 29 || y == 11 || (bx >= 0 && x >= bx && x < bx + 4 && y >= by && y < by + 4);
            n += snprintf(text + n, sizeof text - (size_t)n, "%d ", wall ? 0 : 255);
        }
        n += snprintf(text + n, sizeof text - (size_t)n, "\n");
    }
    return WriteFile(pgm, text, (size_t)n, seconds);
}

// A map YAML watched as the world, or a world file naming a map and no robot: the robot's start is the loader's pick
// from the image, so a wall painted where it stood moved it (the window restarted the robot metres away). The reload
// keeps the start shown.
static int MapStartTest(void)
{
    ENSURE(SetUp() == 0);
    char yaml[160], pgm[160];
    snprintf(yaml, sizeof yaml, "%s/m.yaml", s_dir);
    snprintf(pgm, sizeof pgm, "%s/m.pgm", s_dir);
    const char* header = "image: m.pgm\nresolution: 0.1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                         "free_thresh: 0.196\nnegate: 0\n";
    const char* onMap = "{\"map\": \"m.yaml\"}";
    long t = 1700000000;
    ENSURE(WriteFile(yaml, header, strlen(header), t) == 0);
    ENSURE(WriteFile(s_path, onMap, strlen(onMap), t) == 0);
    for (int asWorld = 0; asWorld < 2; ++asWorld)
    {
        const char* watched = asWorld ? s_path : yaml;
        ENSURE(WriteMap(pgm, -1, 0, t) == 0);
        lsError err;
        lsWorld* shown = lsLoadWorld(watched, &err, NULL);
        ENSURE(shown != NULL && shown->map.robotPlaced);
        lsVec2 start = shown->robot.position;
        lsReloader* reloader = lsCreateReloader(watched, 0.0);
        lsWorld* fresh = NULL;
        ENSURE(lsReloader_Poll(reloader, 0.5, shown, &fresh) == ls_reloadNone); // the image is watched from here
        // The block where the robot starts: the loader alone picks another start.
        int bx = (int)(start.x / 0.1) - 2, by = (int)(start.y / 0.1) - 2;
        ENSURE(WriteMap(pgm, bx, by, t + 1) == 0);
        lsWorld* direct = lsLoadWorld(watched, &err, NULL);
        ENSURE(direct != NULL && !lsVecEqual(direct->robot.position, start));
        ENSURE(lsReloader_Poll(reloader, 1.0, shown, &fresh) == ls_reloadLoaded);
        ENSURE(lsVecEqual(fresh->robot.position, start) && fresh->robot.angle == shown->robot.angle);
        ENSURE(fresh->wallCount == direct->wallCount);
        lsDestroyWorld(direct);
        lsDestroyWorld(fresh);
        lsDestroyWorld(shown);
        lsDestroyReloader(reloader);
    }
    unlink(yaml);
    unlink(pgm);
    TearDown();
    return 0;
}

int ReloadTest(void)
{
    RUN_SUBTEST(EditsTest);
    RUN_SUBTEST(ReplaceTest);
    RUN_SUBTEST(SettleTest);
    RUN_SUBTEST(WarningsTest);
    RUN_SUBTEST(MapStartTest);
    return 0;
}

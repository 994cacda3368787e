// WorldTextTest: the format-preserving save (core/world_text.h). A hand-written world is edited through the editor's
// operations (core/edit.h, what the window calls), saved, and the new text is compared line by line with the old:
// only the lines of what changed may differ, and the text must load back to the edited world.
#include "test.h"

#include "core/edit.h"
#include "core/world_text.h"

#include <string.h>

// Odd on purpose: key orders that are not the canonical one, numbers spelt "1.50" and "2e0", a multi-line robot,
// two spaces here, none there.
static const char s_text[] = "{\n"
                             "  \"name\": \"hand written\",\n"
                             "  \"walls\": [\n"
                             "    {\"points\": [[0, 0], [10, 0], [10, 8], [0, 8]], \"closed\": true},\n"
                             "    {\"to\": [5, 3.00], \"from\": [5, 0]}\n"
                             "  ],\n"
                             "  \"targets\": [\n"
                             "    {\"radius\": 0.3,  \"center\": [2, 6]},\n"
                             "    {\"center\": [7.50, 6], \"radius\": 0.3, \"kind\": \"poison\"},\n"
                             "    {\"center\": [8, 2e0]}\n"
                             "  ],\n"
                             "  \"robot\": {\n"
                             "    \"pose\": [1.50, 4, 0],\n"
                             "    \"radius\": 0.25,\n"
                             "    \"lidar\": {\"beams\": 360, \"range\": 12}\n"
                             "  }\n"
                             "}\n";

static lsWorld* Load(const char* text)
{
    lsError err;
    lsWorld* world = lsLoadWorldFromString(text, strlen(text), "hand.json", &err, NULL);
    if (world == NULL)
        fprintf(stderr, "%s\n", err.message);
    return world;
}

// Number of lines of a that differ from b's when both have the same number of lines; -1 when they do not.
static int ChangedLines(const char* a, const char* b)
{
    int changed = 0;
    while (*a != '\0' || *b != '\0')
    {
        const char* ea = strchr(a, '\n');
        const char* eb = strchr(b, '\n');
        if (ea == NULL || eb == NULL)
            return ea == eb && strcmp(a, b) == 0 ? changed : -1;
        changed += (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) ? 1 : 0;
        a = ea + 1;
        b = eb + 1;
    }
    return changed;
}

// Saves `edited` over s_text, checks it loads back equal, and returns the text (free with lsFreeString).
static char* Save(const lsWorld* edited, const lsWorld* base)
{
    char* text = lsFormatWorldKeepingText(edited, s_text, base, "hand.json");
    lsWorld* back = Load(text);
    bool same = back != NULL && lsWorld_Equal(back, edited);
    lsDestroyWorld(back);
    if (!same)
    {
        fprintf(stderr, "does not load back to the edited world:\n%s", text);
        lsFreeString(text);
        return NULL;
    }
    return text;
}

static int UnchangedTest(void)
{
    lsWorld* base = Load(s_text);
    ENSURE(base != NULL);
    char* text = Save(base, base);
    ENSURE(text != NULL && strcmp(text, s_text) == 0);
    lsFreeString(text);
    // Without a base text: the canonical form.
    text = lsFormatWorldKeepingText(base, NULL, NULL, "hand.json");
    char* canonical = lsSaveWorldToString(base);
    ENSURE(strcmp(text, canonical) == 0);
    lsFreeString(canonical);
    lsFreeString(text);
    lsDestroyWorld(base);
    return 0;
}

static int MoveTest(void)
{
    lsWorld* base = Load(s_text);
    ENSURE(base != NULL);
    lsWorld* world = lsCloneWorld(base);
    // A moved target is one changed line, and only its center's value changed in it (its key order kept).
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editTarget, 1, 0), lsV(7.25, 5.5)));
    char* text = Save(world, base);
    ENSURE(text != NULL && ChangedLines(text, s_text) == 1);
    ENSURE(strstr(text, "    {\"center\": [7.25, 5.5], \"radius\": 0.3, \"kind\": \"poison\"},\n") != NULL);
    lsFreeString(text);
    // A moved robot start is one changed line of the multi-line robot; the key after it keeps its spelling.
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editRobot, 0, 0), lsV(2.0, 4.0)));
    text = Save(world, base);
    ENSURE(text != NULL && ChangedLines(text, s_text) == 2);
    ENSURE(strstr(text, "    \"pose\": [2, 4, 0],\n    \"radius\": 0.25,\n") != NULL);
    lsFreeString(text);
    // A moved wall corner: the wall's line only, "to" keeps its place before "from".
    lsDestroyWorld(world);
    world = lsCloneWorld(base);
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWallPoint, 1, 1), lsV(5.0, 3.5)));
    text = Save(world, base);
    ENSURE(text != NULL && ChangedLines(text, s_text) == 1);
    ENSURE(strstr(text, "    {\"to\": [5, 3.5], \"from\": [5, 0]}\n") != NULL);
    lsFreeString(text);
    lsDestroyWorld(world);
    lsDestroyWorld(base);
    return 0;
}

static int AddRemoveTest(void)
{
    lsWorld* base = Load(s_text);
    ENSURE(base != NULL);
    lsWorld* world = lsCloneWorld(base);
    // A new wall: one new line in the array's layout, only the keys that differ from the defaults.
    ENSURE(lsEdit_AddWall(world, lsV(1.0, 1.0), lsV(3.0, 1.5)) == 2);
    char* text = Save(world, base);
    ENSURE(text != NULL);
    ENSURE(strstr(text, "    {\"to\": [5, 3.00], \"from\": [5, 0]},\n    {\"from\": [1, 1], \"to\": [3, 1.5]}\n  ],") !=
           NULL);
    lsFreeString(text);
    // A removed target: its line goes, nothing else changes.
    lsDestroyWorld(world);
    world = lsCloneWorld(base);
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editTarget, 0, 0)));
    text = Save(world, base);
    ENSURE(text != NULL && strstr(text, "[2, 6]") == NULL);
    ENSURE(strstr(text, "  \"targets\": [\n    {\"center\": [7.50, 6], \"radius\": 0.3, \"kind\": \"poison\"},\n"
                        "    {\"center\": [8, 2e0]}\n  ],") != NULL);
    lsFreeString(text);
    // The knife turns a {"from", "to"} wall into two pieces: rewritten compactly, the rest untouched.
    lsDestroyWorld(world);
    world = lsCloneWorld(base);
    ENSURE(lsEdit_Cut(world, lsV(4.0, 1.5), lsV(6.0, 1.5), 0.05) == 1);
    ENSURE(world->wallCount == 3);
    text = Save(world, base);
    ENSURE(text != NULL && strstr(text, "[[0, 0], [10, 0], [10, 8], [0, 8]], \"closed\": true},\n") != NULL);
    ENSURE(strstr(text, "{\"center\": [7.50, 6], \"radius\": 0.3, \"kind\": \"poison\"}") != NULL);
    lsFreeString(text);
    // A section the file does not have (boxes) is added after the last member, in the file's indentation.
    lsDestroyWorld(world);
    world = lsCloneWorld(base);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(3.0, 3.0);
    box.size = lsV(1.0, 0.5);
    lsWorld_AddBox(world, box);
    text = Save(world, base);
    ENSURE(text != NULL && strstr(text, "  },\n  \"boxes\": [{\"center\": [3, 3], \"size\": [1, 0.5]}]\n}\n") != NULL);
    lsFreeString(text);
    lsDestroyWorld(world);
    lsDestroyWorld(base);
    return 0;
}

static int SaveFileTest(void)
{
    lsWorld* base = Load(s_text);
    lsWorld* world = lsCloneWorld(base);
    ENSURE(lsEdit_AddWall(world, lsV(1.0, 1.0), lsV(3.0, 1.5)) == 2);
    char* written = NULL;
    lsError err;
    ENSURE(lsSaveWorldKeepingText(world, "/tmp/ls-world-text-test.json", s_text, base, &written, &err));
    lsFreeString(written);
    remove("/tmp/ls-world-text-test.json");
    lsDestroyWorld(world);
    lsDestroyWorld(base);
    return 0;
}

int WorldTextTest(void)
{
    RUN_SUBTEST(SaveFileTest);
    RUN_SUBTEST(UnchangedTest);
    RUN_SUBTEST(MoveTest);
    RUN_SUBTEST(AddRemoveTest);
    return 0;
}

// WorldTextTest: the format-preserving save (core/world_text.h). A hand-written world is edited through the editor's
// operations (core/edit.h, what the window calls), saved, and the new text is compared line by line with the old:
// only the lines of what changed may differ, and the text must load back to the edited world.
#include "test.h"

#include "core/edit.h"
#include "core/world_text.h"

#include <stdio.h>
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

// Saves `edited` over `old` (which loads to base), checks it loads back equal, and returns the text (free with
// lsFreeString); NULL when it does not load back.
static char* SaveOver(const char* old, const lsWorld* edited, const lsWorld* base)
{
    char* text = lsFormatWorldKeepingText(edited, old, base, "hand.json");
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

// SaveOver s_text.
static char* Save(const lsWorld* edited, const lsWorld* base) { return SaveOver(s_text, edited, base); }

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

// The "robot" shorthand gaining a robot (the editor's add): saved as "robots", the first robot's text kept with the
// id the shorthand left implicit, the new one inserted with only its non-default keys (the file's radius and lidar
// spell the defaults); everything else unchanged.
// Then a list file: a robot added, moved and removed changes only its own line.
static int RobotsListTest(void)
{
    lsWorld* base = Load(s_text);
    ENSURE(base != NULL && !base->robotList);
    lsWorld* world = lsCloneWorld(base);
    int added = lsEdit_AddRobot(world, 0, world->robot.position, 0.0);
    ENSURE(added == 1 && strcmp(lsWorld_GetRobot(world, 1)->id, "robot2") == 0);
    lsVec2 at = lsWorld_GetRobot(world, 1)->position;
    char* text = Save(world, base);
    ENSURE(text != NULL);
    ENSURE(strstr(text, "\"robot\":") == NULL);
    char expected[512];
    snprintf(expected, sizeof expected,
             "  \"robots\": [{\n"
             "    \"id\": \"robot\",\n"
             "    \"pose\": [1.50, 4, 0],\n"
             "    \"radius\": 0.25,\n"
             "    \"lidar\": {\"beams\": 360, \"range\": 12}\n"
             "  }, {\"id\": \"robot2\", \"pose\": [%.15g, %.15g, 0], \"lidar\": {\"seed\": %d}}]\n}\n",
             at.x, at.y, (int)lsWorld_GetRobot(world, 1)->lidar.seed);
    char* tail = strstr(text, "  \"robots\": [");
    if (tail == NULL || strcmp(tail, expected) != 0)
    {
        fprintf(stderr, "    got:\n%s\n    expected the end:\n%s", text, expected);
        ENSURE(false);
    }
    // Everything before the robot is the file's text, byte for byte.
    size_t head = (size_t)(strstr(s_text, "  \"robot\": {") - s_text);
    ENSURE(strncmp(text, s_text, head) == 0 && (size_t)(tail - text) == head);

    // That list saved, then edited as a list: add one more, move the second, remove it again.
    lsWorld* listed = Load(text);
    ENSURE(listed != NULL && listed->robotList && lsWorld_RobotCount(listed) == 2);
    lsWorld* edited = lsCloneWorld(listed);
    ENSURE(lsEdit_AddRobot(edited, 1, at, 0.0) == 2 && strcmp(lsWorld_GetRobot(edited, 2)->id, "robot3") == 0);
    char* again = lsFormatWorldKeepingText(edited, text, listed, "hand.json");
    lsWorld* back = Load(again);
    ENSURE(back != NULL && lsWorld_Equal(back, edited));
    lsDestroyWorld(back);
    ENSURE(strncmp(again, text, strlen(text) - 4) == 0); // "}]\n}\n" ends both; the new robot follows the second
    ENSURE(strstr(again, "}, {\"id\": \"robot3\", \"pose\": [") != NULL);
    lsFreeString(again);
    lsDestroyWorld(edited);
    edited = lsCloneWorld(listed);
    ENSURE(lsEdit_Delete(edited, lsMakeEditRef(ls_editRobot, 1, 0)));
    again = lsFormatWorldKeepingText(edited, text, listed, "hand.json");
    back = Load(again);
    ENSURE(back != NULL && lsWorld_Equal(back, edited) && lsWorld_RobotCount(back) == 1 && back->robotList);
    lsDestroyWorld(back);
    ENSURE(strstr(again, "\"robot2\"") == NULL && strncmp(again, text, (size_t)(tail - text) + 120) == 0);
    lsFreeString(again);
    lsDestroyWorld(edited);
    lsDestroyWorld(listed);
    lsFreeString(text);

    // A file without a "robot" key (the default robot) gains one: the list is a new member.
    const char* bare = "{\"walls\": [{\"from\": [0, 0], \"to\": [4, 0]}]}\n";
    lsWorld* plain = Load(bare);
    ENSURE(plain != NULL);
    lsWorld* more = lsCloneWorld(plain);
    ENSURE(lsEdit_AddRobot(more, 0, lsV(0.0, 2.0), 0.0) == 1);
    text = lsFormatWorldKeepingText(more, bare, plain, "hand.json");
    back = Load(text);
    ENSURE(back != NULL && lsWorld_Equal(back, more));
    // The place asked for is free, so the robot goes exactly there.
    ENSURE(strcmp(text, "{\"walls\": [{\"from\": [0, 0], \"to\": [4, 0]}], \"robots\": [{\"id\": \"robot\"}, "
                        "{\"id\": \"robot2\", \"pose\": [0, 2, 0], \"lidar\": {\"seed\": 2}}]}\n") == 0);
    lsDestroyWorld(back);
    lsFreeString(text);
    lsDestroyWorld(more);
    lsDestroyWorld(plain);
    lsDestroyWorld(world);
    lsDestroyWorld(base);
    return 0;
}

// A wall written one corner a line (as long walls and imported maps are): a moved corner is one changed line, and
// a removed one removes its line, the other corners keeping their spelling ("8.00") and the array its layout.
static int PointsOneALineTest(void)
{
    const char* old = "{\n"
                      "  \"walls\": [\n"
                      "    {\n"
                      "      \"points\": [\n"
                      "        [0, 0],\n"
                      "        [10, 0],\n"
                      "        [10, 8.00],\n"
                      "        [0, 8]\n"
                      "      ],\n"
                      "      \"closed\": true\n"
                      "    }\n"
                      "  ]\n"
                      "}\n";
    lsWorld* base = Load(old);
    ENSURE(base != NULL);
    lsWorld* world = lsCloneWorld(base);
    ENSURE(lsEdit_MoveTo(world, lsMakeEditRef(ls_editWallPoint, 0, 1), lsV(9.5, 0.5)));
    char* text = SaveOver(old, world, base);
    ENSURE(text != NULL);
    if (ChangedLines(text, old) != 1 || strstr(text, "        [9.5, 0.5],\n        [10, 8.00],\n") == NULL)
    {
        fprintf(stderr, "    got:\n%s", text);
        ENSURE(false);
    }
    lsFreeString(text);
    lsDestroyWorld(world);
    world = lsCloneWorld(base);
    ENSURE(lsEdit_Delete(world, lsMakeEditRef(ls_editWallPoint, 0, 3)));
    text = SaveOver(old, world, base);
    ENSURE(text != NULL);
    if (strstr(text, "        [10, 0],\n        [10, 8.00]\n      ],\n") == NULL || strstr(text, "[0, 8]") != NULL)
    {
        fprintf(stderr, "    got:\n%s", text);
        ENSURE(false);
    }
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

    // Never over a map YAML (the window opened on a map saved its edits there, replacing the map with a world).
    const char* yaml = "/tmp/ls-world-text-test.yaml";
    FILE* f = fopen(yaml, "w");
    ENSURE(f != NULL);
    fputs("image: m.pgm\n", f);
    fclose(f);
    written = NULL;
    ENSURE(!lsSaveWorldKeepingText(world, yaml, s_text, base, &written, &err));
    ENSURE(written == NULL && strstr(err.message, "a map YAML is never overwritten") != NULL);
    char kept[64] = {0};
    f = fopen(yaml, "r");
    ENSURE(f != NULL && fgets(kept, sizeof kept, f) != NULL);
    fclose(f);
    remove(yaml);
    ENSURE(strcmp(kept, "image: m.pgm\n") == 0);
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
    RUN_SUBTEST(RobotsListTest);
    RUN_SUBTEST(PointsOneALineTest);
    return 0;
}

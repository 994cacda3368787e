#include "world_check.h"

#include "core/world_text.h"
#include "lidarsim/world.h"

#include <stdio.h>
#include <string.h>

// The window's save (lsFormatWorldKeepingText) after an edit chosen by the input's size: from the user's own text,
// the edited world must come back without the merge failing its check (which would write the canonical form), when
// the edited world is valid at all (an edit can take a value past its bound).
static int CheckKeepingText(const char* text, const lsWorld* world, size_t size)
{
    lsWorld* edited = lsCloneWorld(world);
    switch (size % 5)
    {
    case 0: // a target moved, or one added
        if (edited->targetCount > 0)
            edited->targets[0].center = lsAdd(edited->targets[0].center, lsV(0.25, -0.5));
        else
            lsWorld_AddTarget(edited, lsDefaultTargetDef());
        break;
    case 1: // the first wall removed
        if (edited->wallCount > 0)
            lsWorld_RemoveWall(edited, 0);
        break;
    case 2: // a wall added
        lsWorld_AddWall(edited, (const lsVec2[]){{0.5, 0.5}, {1.5, 0.75}}, 2, false);
        break;
    case 3: // the last target removed, or the last box
        if (edited->targetCount > 0)
            lsWorld_RemoveTarget(edited, edited->targetCount - 1);
        else if (edited->boxCount > 0)
            lsWorld_RemoveBox(edited, edited->boxCount - 1);
        break;
    default: // a box turned, or one added
        if (edited->boxCount > 0)
            edited->boxes[0].angle += 0.5;
        else
            lsWorld_AddBox(edited, lsDefaultBoxDef());
        break;
    }
    int failed = 0;
    char* canonical = lsSaveWorldToString(edited);
    lsWorld* valid = lsLoadWorldFromString(canonical, strlen(canonical), "fuzz.json", NULL, NULL);
    if (valid != NULL && lsWorld_Equal(valid, edited))
    {
        long long before = lsWorldText_MergeFailures();
        char* kept = lsFormatWorldKeepingText(edited, text, world, "fuzz.json");
        lsWorld* back = lsLoadWorldFromString(kept, strlen(kept), "fuzz.json", NULL, NULL);
        if (lsWorldText_MergeFailures() != before)
        {
            fprintf(stderr, "fuzz: the format-preserving save's merge failed its check (edit %zu)\n", size % 5);
            failed = 1;
        }
        else if (back == NULL || !lsWorld_Equal(back, edited))
        {
            fprintf(stderr, "fuzz: the format-preserving save does not load back to the edited world\n");
            failed = 1;
        }
        lsDestroyWorld(back);
        lsFreeString(kept);
    }
    lsDestroyWorld(valid);
    lsFreeString(canonical);
    lsDestroyWorld(edited);
    return failed;
}

int lsFuzzCheckWorld(const uint8_t* data, size_t size)
{
    long long bytesBefore = lsAllocatedBytes();
    // The loader takes a NUL-terminated buffer of `size` bytes; fuzz data has no terminator of its own.
    char* text = lsAlloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';

    int failed = 0;
    lsError err = {{0}};
    lsWarnings warnings = {0};
    lsWorld* world = lsLoadWorldFromString(text, size, "fuzz.json", &err, &warnings);
    if (world == NULL)
    {
        // A refusal must say where: the file label starts every message.
        if (strncmp(err.message, "fuzz.json", 9) != 0)
        {
            fprintf(stderr, "fuzz: error message without the file name: %s\n", err.message);
            failed = 1;
        }
    }
    else
    {
        char* saved = lsSaveWorldToString(world);
        lsError err2 = {{0}};
        lsWorld* again = lsLoadWorldFromString(saved, strlen(saved), "saved.json", &err2, NULL);
        if (again == NULL)
        {
            fprintf(stderr, "fuzz: the canonical save does not load: %s\n", err2.message);
            failed = 1;
        }
        else if (!lsWorld_Equal(world, again))
        {
            fprintf(stderr, "fuzz: load(save(w)) differs from w\n");
            failed = 1;
        }
        lsDestroyWorld(again);
        lsFreeString(saved);
        failed |= CheckKeepingText(text, world, size);
        lsDestroyWorld(world);
    }
    lsFree(text, size + 1);
    if (lsAllocatedBytes() != bytesBefore)
    {
        fprintf(stderr, "fuzz: %lld bytes leaked\n", lsAllocatedBytes() - bytesBefore);
        failed = 1;
    }
    return failed;
}

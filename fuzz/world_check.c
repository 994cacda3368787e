#include "world_check.h"

#include "lidarsim/world.h"

#include <stdio.h>
#include <string.h>

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

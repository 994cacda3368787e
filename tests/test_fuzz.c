// Every input the fuzzers ever crashed on, kept under tests/data/fuzz/, replayed through the same property check.
#include "test.h"

#include "../fuzz/world_check.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int ReplayFolder(const char* folder, int* replayed)
{
    DIR* dir = opendir(folder);
    ENSURE(dir != NULL);
    struct dirent* entry;
    while ((entry = readdir(dir)) != NULL)
    {
        if (entry->d_name[0] == '.')
        {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        FILE* f = fopen(path, "rb");
        if (f == NULL)
        {
            continue;
        }
        static uint8_t buffer[1 << 20];
        size_t n = fread(buffer, 1, sizeof buffer, f);
        fclose(f);
        if (lsFuzzCheckWorld(buffer, n) != 0)
        {
            fprintf(stderr, "  regression input failed: %s\n", path);
            closedir(dir);
            return 1;
        }
        ++*replayed;
    }
    closedir(dir);
    return 0;
}

static int ReplayTest(void)
{
    int replayed = 0;
    ENSURE(ReplayFolder(LS_TEST_DATA_DIR "/fuzz", &replayed) == 0);
    ENSURE(ReplayFolder(LS_TEST_DATA_DIR "/malformed", &replayed) == 0);
    ENSURE(ReplayFolder(LS_SOURCE_DIR "/worlds", &replayed) == 0);
    ENSURE(replayed > 10);
    return 0;
}

int FuzzRegressionTest(void)
{
    RUN_SUBTEST(ReplayTest);
    return 0;
}

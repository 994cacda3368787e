// The one test runner: `ls_test SUITE` runs one suite, `ls_test` runs them all.
#include "test.h"

#include <dirent.h>
#include <string.h>

typedef struct Suite
{
    const char* name;
    int (*run)(void);
} Suite;

static const Suite s_suites[] = {
#define LS_SUITE(name) {#name, name},
#include "suites.h"
#undef LS_SUITE
};

int lsTestForEachFile(const char* folder, int (*visit)(void* ctx, const char* path, char* data, size_t size), void* ctx,
                      int* count)
{
    DIR* dir = opendir(folder);
    if (dir == NULL)
    {
        fprintf(stderr, "cannot read folder %s\n", folder);
        return 1;
    }
    static char data[(1 << 20) + 1];
    int visited = 0, status = 0;
    for (struct dirent* entry = readdir(dir); entry != NULL && status == 0; entry = readdir(dir))
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
        size_t size = fread(data, 1, sizeof data - 1, f);
        fclose(f);
        data[size] = '\0';
        status = visit(ctx, path, data, size);
        if (status != 0)
        {
            fprintf(stderr, "  failed on %s\n", path);
        }
        ++visited;
    }
    closedir(dir);
    if (count != NULL)
    {
        *count = visited;
    }
    return status;
}

int main(int argc, char** argv)
{
    int count = (int)(sizeof s_suites / sizeof s_suites[0]);
    int failures = 0;
    int ran = 0;
    for (int i = 0; i < count; ++i)
    {
        if (argc > 1 && strcmp(argv[1], s_suites[i].name) != 0)
        {
            continue;
        }
        printf("%s\n", s_suites[i].name);
        ++ran;
        if (s_suites[i].run() != 0)
        {
            fprintf(stderr, "%s FAILED\n", s_suites[i].name);
            ++failures;
        }
    }
    if (ran == 0)
    {
        fprintf(stderr, "ls_test: no suite named '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return failures == 0 ? 0 : 1;
}

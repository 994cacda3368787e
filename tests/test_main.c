// The one test runner: `ls_test SUITE` runs one suite, `ls_test` runs them all.
#include "test.h"

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

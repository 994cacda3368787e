// Placeholder until the owner of `lidarsim run` lands it.
#include "cli/commands.h"

#include <stdio.h>

int lsCmdRun(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim run: not built yet\n");
    return 1;
}

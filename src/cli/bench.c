// Placeholder until the owner of `lidarsim bench` lands it.
#include "cli/commands.h"

#include <stdio.h>

int lsCmdBench(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim bench: not built yet\n");
    return 1;
}

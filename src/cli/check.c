// Placeholder until the owner of `lidarsim check` lands it.
#include "cli/commands.h"

#include <stdio.h>

int lsCmdCheck(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim check: not built yet\n");
    return 1;
}

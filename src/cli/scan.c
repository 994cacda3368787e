// Placeholder until the owner of `lidarsim scan` lands it.
#include "cli/commands.h"

#include <stdio.h>

int lsCmdScan(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim scan: not built yet\n");
    return 1;
}

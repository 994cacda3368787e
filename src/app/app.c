// Placeholder until the front end lands.
#include "cli/commands.h"

#include <stdio.h>

int lsCmdWindow(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim: window not built yet\n");
    return 1;
}

int lsCmdRender(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim render: not built yet\n");
    return 1;
}

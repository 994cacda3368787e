// The window and the headless renderer live in src/app (SDL2); without it they say so.
#include "cli/commands.h"

#include <stdio.h>

#ifndef LS_HAVE_APP
int lsCmdWindow(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim: built without the SDL2 front end; use `lidarsim run` or `lidarsim scan`\n");
    return 1;
}

int lsCmdRender(int argc, char** argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lidarsim render: built without the SDL2 front end\n");
    return 1;
}
#endif

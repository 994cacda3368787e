// lidarsim: one program, subcommands dispatched by name; no subcommand opens the window.
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

#ifndef LS_VERSION
#define LS_VERSION "dev"
#endif

typedef struct Command
{
    const char* name;
    int (*run)(int argc, char** argv);
    const char* usage;
} Command;

static const Command s_commands[] = {
    {"check", lsCmdCheck, "check WORLD.json...           validate worlds, print a one-line summary each"},
    {"scan", lsCmdScan, "scan WORLD.json [options]     print one lidar scan as LaserScan JSON or CSV"},
    {"run", lsCmdRun, "run WORLD.json --steps N      simulate headless, optionally record JSON lines"},
    {"render", lsCmdRender, "render WORLD.json -o F.png    draw what the window would show into a PNG"},
    {"bench", lsCmdBench, "bench [--worlds DIR] [--csv]  ray-casting benchmark on the bench worlds"},
};

static void PrintHelp(FILE* out)
{
    fprintf(out, "lidarsim %s: a 2D lidar robot simulator\n\n", LS_VERSION);
    fprintf(out, "usage: lidarsim [WORLD.json] [--beams N] [--paused] [--autopilot]   open the window\n");
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
    {
        fprintf(out, "       lidarsim %s\n", s_commands[i].usage);
    }
    fprintf(out, "       lidarsim --help | --version\n\n");
    fprintf(out, "Run `lidarsim COMMAND --help` for a command's options. Worlds are JSON: see docs/world-format.md.\n");
}

int main(int argc, char** argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
    {
        PrintHelp(stdout);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0)
    {
        printf("lidarsim %s\n", LS_VERSION);
        return 0;
    }
    if (argc > 1)
    {
        for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
        {
            if (strcmp(argv[1], s_commands[i].name) == 0)
            {
                return s_commands[i].run(argc - 2, argv + 2);
            }
        }
    }
    return lsCmdWindow(argc - 1, argv + 1);
}

// lidarsim check WORLD.json...: validates world files and prints a one-line summary of each.
#include "cli/commands.h"
#include "cli/options.h"
#include "lidarsim/world.h"

#include <stdio.h>

static void PrintUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim check WORLD.json...\n\n"
                 "Loads and validates each world file. For a valid one, prints on stdout\n"
                 "  FILE: N walls, N targets, N boxes, N polygons, N paths, N vehicles, N movers, N robots, W x H m\n"
                 "(walls counts wall segments; W x H is the size of the world's bounds in metres).\n"
                 "Warnings (unknown keys) go to stderr and do not fail the check; errors go to stderr as\n"
                 "FILE:LINE:COL: PATH: message. Exit status: 0 all valid, 1 some file invalid, 2 bad usage.\n"
                 "The format is described in docs/world-format.md.\n");
}

// "1 path" but "2 paths" (and "0 paths").
static const char* Plural(int count, const char* one, const char* many) { return count == 1 ? one : many; }

static bool CheckOne(const char* path)
{
    lsError err = {{0}};
    lsWarnings warnings;
    lsWorld* world = lsLoadWorld(path, &err, &warnings);
    lsPrintWarnings(path, &warnings);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message); // a recording says so (lsLoadWorld)
        return false;
    }
    int segments = lsWorld_SegmentCount(world);
    lsAABB bounds = lsWorld_Bounds(world);
    char shown[1024];
    snprintf(shown, sizeof shown, "%s", path);
    lsEscapeControl(shown, sizeof shown);
    printf("%s: %d %s, %d %s, %d %s, %d %s, %d %s, %d %s, %d %s, %d %s, %.1f x %.1f m\n", shown, segments,
           Plural(segments, "wall", "walls"), world->targetCount, Plural(world->targetCount, "target", "targets"),
           world->boxCount, Plural(world->boxCount, "box", "boxes"), world->polygonCount,
           Plural(world->polygonCount, "polygon", "polygons"), world->pathCount,
           Plural(world->pathCount, "path", "paths"), world->vehicleCount,
           Plural(world->vehicleCount, "vehicle", "vehicles"), world->moverCount,
           Plural(world->moverCount, "mover", "movers"), lsWorld_RobotCount(world),
           Plural(lsWorld_RobotCount(world), "robot", "robots"), bounds.upper.x - bounds.lower.x,
           bounds.upper.y - bounds.lower.y);
    lsDestroyWorld(world);
    return true;
}

int lsCmdCheck(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintUsage(stdout);
        return 0;
    }
    static const struct option longOptions[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    lsOptions options;
    lsBeginOptions(&options, "check", argc, argv, longOptions, "h");
    lsError err = {{0}};
    const char* value = NULL;
    int c = lsNextOption(&options, &value, &err);
    while (c != -1 && c != '?')
    {
        c = lsNextOption(&options, &value, &err);
    }
    int status = 0;
    if (c == '?')
    {
        fprintf(stderr, "lidarsim check: %s (see lidarsim check --help)\n", err.message);
        status = 2;
    }
    else if (options.positionalCount == 0)
    {
        fprintf(stderr, "lidarsim check: missing WORLD.json (see lidarsim check --help)\n");
        status = 2;
    }
    for (int i = 0; i < options.positionalCount && status != 2; ++i)
    {
        status = CheckOne(options.positionals[i]) ? status : 1;
    }
    lsEndOptions(&options);
    return status;
}

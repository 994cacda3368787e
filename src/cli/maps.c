// lidarsim import MAP.yaml -o WORLD.json and lidarsim export-map WORLD.json -o MAP.yaml: map_server maps to
// world files and back (docs/maps.md).
#define _POSIX_C_SOURCE 200809L // clock_gettime in cli/clock.h
#include "cli/clock.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/file_write.h"
#include "core/limits.h"
#include "lidarsim/map.h"

#include <stdio.h>
#include <string.h>

static void PrintImportUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim import MAP.yaml -o WORLD.json [--unknown free|occupied] [--simplify METRES]\n\n"
                 "Reads a ROS map_server map (a YAML file and its PGM, PNG or BMP image) and writes a world file with\n"
                 "its walls: the boundary between occupied cells and the others, exact, as closed chains, and a\n"
                 "robot placed in the widest free space. Edit the world as any other.\n"
                 "  -o, --output FILE     the world file to write (atomically)\n"
                 "  --unknown free|occupied\n"
                 "                        whether unknown cells are free space (default) or walls\n"
                 "  --simplify METRES     fewer segments: Douglas-Peucker with this tolerance (walls move at\n"
                 "                        most this far from the cell boundary; default 0, exact)\n"
                 "Prints the map's size and the segment counts. Exit status: 0 written, 1 bad map or failed\n"
                 "write, 2 bad usage. See docs/maps.md.\n");
}

static void PrintExportUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim export-map WORLD.json -o MAP.yaml [--resolution METRES]\n\n"
                 "Rasterises a world (or a map) into a map_server map that Nav2's map_server and AMCL load: MAP.yaml\n"
                 "and MAP.pgm beside it, trinary, occupied 0 and free 254. Every pixel a wall, box, polygon or\n"
                 "target touches is occupied; one free pixel of margin surrounds the world.\n"
                 "  -o, --output FILE     the map YAML to write (the PGM gets the same name); both atomically\n"
                 "  --resolution METRES   metres per pixel (default 0.05)\n"
                 "Exit status: 0 written, 1 bad world or failed write, 2 bad usage. See docs/maps.md.\n");
}

// Parses the options shared by both commands; returns 0 to go on, else the exit status.
static int ParseArgs(const char* command, int argc, char** argv, const struct option* longOptions, const char** input,
                     const char** output, lsMapOptions* map, double* resolution)
{
    lsOptions options;
    lsBeginOptions(&options, command, argc, argv, longOptions, "ho:");
    lsError err = {{0}};
    const char* value = NULL;
    int c;
    int status = 0;
    while (status == 0 && (c = lsNextOption(&options, &value, &err)) != -1)
    {
        double number = 0.0;
        switch (c)
        {
        case 'o':
            *output = value;
            break;
        case 'u':
            if (strcmp(value, "free") == 0 || strcmp(value, "occupied") == 0)
                map->unknownOccupied = strcmp(value, "occupied") == 0;
            else
            {
                lsFail(&err, "--unknown: expected free or occupied, got '%s'", value);
                status = 2;
            }
            break;
        case 's':
            if (lsParseQuantity(value, ls_quantityDistance, &number))
                map->simplify = number;
            else
            {
                char bound[96];
                lsFail(&err, "--simplify: expected %s, got '%s'",
                       lsLimit_Describe(ls_quantityDistance, bound, sizeof bound), value);
                status = 2;
            }
            break;
        case 'r':
            if (lsParseQuantity(value, ls_quantityResolution, &number))
                *resolution = number;
            else
            {
                char bound[96];
                lsFail(&err, "--resolution: expected %s (a map YAML's bound), got '%s'",
                       lsLimit_Describe(ls_quantityResolution, bound, sizeof bound), value);
                status = 2;
            }
            break;
        default:
            status = 2;
            break;
        }
    }
    if (status == 0 && options.positionalCount != 1)
    {
        lsFail(&err, "expected one input file, got %d", options.positionalCount);
        status = 2;
    }
    if (status == 0 && *output == NULL)
    {
        lsFail(&err, "missing -o FILE (the file to write)");
        status = 2;
    }
    // import reads a map and writes a world; export-map the other way round. A world named as export-map's output
    // was overwritten with map YAML (its PGM written beside it), and a world given to import was read as a YAML map
    // that lacked an image. lsExportMap refuses such an output too (the rule is lsIsMapPath in both); saying it here
    // makes it a usage error (status 2) before the world is loaded.
    bool exporting = strcmp(command, "export-map") == 0;
    char shown[1024];
    if (status == 0 && exporting && !lsIsMapPath(*output))
    {
        lsFail(&err, "-o %s: a map's file name ends in .yaml or .yml (its PGM image is written beside it)",
               lsShown(*output, shown, sizeof shown));
        status = 2;
    }
    if (status == 0 && !exporting && !lsIsMapPath(options.positionals[0]))
    {
        lsFail(&err, "%s: not a map YAML (.yaml or .yml): import turns a ROS map_server map into a world file",
               lsShown(options.positionals[0], shown, sizeof shown));
        status = 2;
    }
    if (status == 0)
        *input = options.positionals[0]; // a string of the caller's argv, valid after lsEndOptions
    lsEndOptions(&options);
    if (status != 0)
        fprintf(stderr, "lidarsim %s: %s (see lidarsim %s --help)\n", command, err.message, command);
    return status;
}

int lsCmdImport(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintImportUsage(stdout);
        return 0;
    }
    static const struct option longOptions[] = {{"help", no_argument, NULL, 'h'},
                                                {"output", required_argument, NULL, 'o'},
                                                {"unknown", required_argument, NULL, 'u'},
                                                {"simplify", required_argument, NULL, 's'},
                                                {NULL, 0, NULL, 0}};
    const char *input = NULL, *output = NULL;
    lsMapOptions map = {false, 0.0};
    double unused = 0.0;
    int status = ParseArgs("import", argc, argv, longOptions, &input, &output, &map, &unused);
    if (status != 0)
        return status;
    lsError err = {{0}};
    lsMapWallStats stats;
    double start = lsNowSeconds();
    lsWorld* world = lsLoadMapWorld(input, &map, &stats, &err);
    double seconds = lsNowSeconds() - start;
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    // The imported walls are the world's own from now on: written out, no longer tied to the map.
    long long segments = 0;
    for (int i = 0; i < world->wallCount; ++i)
    {
        world->walls[i].fromMap = false;
        segments += world->walls[i].closed ? world->walls[i].pointCount : world->walls[i].pointCount - 1;
    }
    if (segments > LS_MAX_WORLD_SEGMENTS)
    {
        // Said before saving: the save's own check would name a line of a file that is never written.
        fprintf(stderr,
                "%s: %lld wall segments, more than a world file holds (%d): not written; import with --simplify "
                "(0.05 m keeps about a quarter on SLAM maps), or name the map in a world file (\"map\": \"%s\"), "
                "which takes up to 4 million\n",
                output, segments, LS_MAX_WORLD_SEGMENTS, input);
        lsDestroyWorld(world);
        return 1;
    }
    // Not over the map read (its image, say: any name but a map YAML's is a world file's).
    bool saved = lsCheckOutputNotInput(output, input, "the map", world->map.yamlFile, world->map.imageFile, &err);
    memset(&world->map, 0, sizeof world->map);
    saved = saved && lsSaveWorld(world, output, &err);
    if (saved)
    {
        char shownInput[1024], shownOutput[1024];
        printf("%s: %lld wall cells, %lld unit edges -> %lld segments in %d closed chains",
               lsShown(input, shownInput, sizeof shownInput), stats.wallCells, stats.unitEdges, stats.segments,
               stats.chains);
        if (map.simplify > 0.0)
            printf(" -> %lld after --simplify %g", stats.simplified, map.simplify);
        printf("; robot at (%.3f, %.3f); read in %.3f s\n%s: written\n", world->robot.position.x,
               world->robot.position.y, seconds, lsShown(output, shownOutput, sizeof shownOutput));
    }
    else
    {
        fprintf(stderr, "%s\n", err.message);
    }
    lsDestroyWorld(world);
    return saved ? 0 : 1;
}

int lsCmdExportMap(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintExportUsage(stdout);
        return 0;
    }
    static const struct option longOptions[] = {{"help", no_argument, NULL, 'h'},
                                                {"output", required_argument, NULL, 'o'},
                                                {"resolution", required_argument, NULL, 'r'},
                                                {NULL, 0, NULL, 0}};
    const char *input = NULL, *output = NULL;
    lsMapOptions unused = {false, 0.0};
    double resolution = 0.05;
    int status = ParseArgs("export-map", argc, argv, longOptions, &input, &output, &unused, &resolution);
    if (status != 0)
        return status;
    lsError err = {{0}};
    lsWorld* world = lsLoadWorld(input, &err, NULL);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    bool ok = lsExportMap(world, output, resolution, &err);
    lsDestroyWorld(world);
    if (!ok)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    char shown[1024];
    printf("%s: written (with its PGM image beside it)\n", lsShown(output, shown, sizeof shown));
    return 0;
}

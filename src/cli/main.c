// lidarsim: one program, subcommands dispatched by name; no subcommand opens the window.
#define _POSIX_C_SOURCE 200809L // SIGXFSZ

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/signals.h"
#include "core/file_write.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef LS_VERSION
#define LS_VERSION "dev"
#endif

typedef struct Command
{
    const char* name;
    int (*run)(int argc, char** argv);
    const char* synopsis; ///< the command line, in the help's first column
    const char* summary;  ///< what it does, in the second
} Command;

static const Command s_commands[] = {
    {"check", lsCmdCheck, "check WORLD.json...", "validate worlds, print a one-line summary each"},
    {"scan", lsCmdScan, "scan WORLD.json [options]", "print one lidar scan as LaserScan JSON or CSV"},
    {"run", lsCmdRun, "run WORLD.json --steps N", "simulate headless, optionally record JSON lines"},
    {"replay", lsCmdReplay, "replay REC.jsonl [WORLD.json]", "play a recording in the window (timeline, speed)"},
    {"render", lsCmdRender, "render WORLD.json -o F.png", "draw what the window would show (PNG, JPEG, GIF)"},
    {"import", lsCmdImport, "import MAP.yaml -o WORLD.json", "a ROS map_server map as a world file (exact walls)"},
    {"export-map", lsCmdExportMap, "export-map WORLD.json -o M.yaml", "a world as a map_server map (PGM + YAML)"},
    {"bench", lsCmdBench, "bench [--world NAME] [options]", "the ray-casting benchmark"},
    {"fmt", lsCmdFmt, "fmt [--check] WORLD.json...", "rewrite worlds in the canonical form"},
};

/// The width of the help's first column: the longest synopsis.
#define LS_SYNOPSIS_COLUMNS 31

static void PrintHelp(FILE* out)
{
    fprintf(out, "lidarsim %s: a 2D lidar robot simulator\n\n", LS_VERSION);
    fprintf(out, "usage: lidarsim %-*s  %s\n", LS_SYNOPSIS_COLUMNS, "[WORLD.json] [options]", "open the window");
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
    {
        fprintf(out, "       lidarsim %-*s  %s\n", LS_SYNOPSIS_COLUMNS, s_commands[i].synopsis, s_commands[i].summary);
    }
    fprintf(out, "       lidarsim %-*s  %s\n\n", LS_SYNOPSIS_COLUMNS, "help [COMMAND | window]",
            "this help, or a command's");
    fprintf(out,
            "Run `lidarsim help COMMAND` for a command's options (`lidarsim help window` for the window's);\n"
            "options take their value as `--beams 4` or `--beams=4`. Worlds are JSON: see docs/world-format.md.\n");
}

// A first argument that is not a command names a world for the window when it is a file that exists or looks like
// a path (a '/' or a '.json'); anything else is taken as a mistyped command.
static bool LooksLikeWorld(const char* arg)
{
    size_t length = strlen(arg);
    if (strchr(arg, '/') != NULL || strchr(arg, '.') != NULL || (length >= 5 && strcmp(arg + length - 5, ".json") == 0))
    {
        return true;
    }
    // Any existing file (stat only: opening a FIFO would block); the window's loader says what is wrong with it.
    lsFileStamp stamp;
    return lsStatFile(arg, &stamp, NULL);
}

static const Command* FindCommand(const char* name)
{
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
    {
        if (strcmp(name, s_commands[i].name) == 0)
        {
            return &s_commands[i];
        }
    }
    return NULL;
}

static int UnknownCommand(const char* name)
{
    enum
    {
        count = sizeof s_commands / sizeof s_commands[0]
    };
    const char* names[count + 1];
    for (int i = 0; i < count; ++i)
    {
        names[i] = s_commands[i].name;
    }
    names[count] = "help";
    const char* nearest = lsNearestName(name, names, count + 1);
    char shown[256];
    name = lsShown(name, shown, sizeof shown);
    if (nearest != NULL)
    {
        fprintf(stderr, "lidarsim: unknown command '%s'; did you mean '%s'? (see lidarsim help)\n", name, nearest);
    }
    else
    {
        fprintf(stderr, "lidarsim: unknown command '%s' (see lidarsim help)\n", name);
    }
    return 2;
}

// Runs the command line; stdout is then flushed and checked, so results that did not reach their file (a full disk,
// /dev/full, a file size limit) are reported and the exit status says so.
static int Run(int argc, char** argv);

int main(int argc, char** argv)
{
    // Past a file size limit (ulimit -f) writes fail with EFBIG and a message, instead of the signal killing us.
    signal(SIGXFSZ, SIG_IGN);
    int status = Run(argc, argv);
    lsError err = {{0}};
    if (!lsCheckOutput(stdout, "stdout", &err))
    {
        fprintf(stderr, "lidarsim: %s\n", err.message);
        status = status != 0 ? status : 1;
    }
    if (status == LS_EXIT_INTERRUPTED)
    {
        // A run stopped by Ctrl+C saved its recording and printed its summary: now it ends as Ctrl+C ends a program.
        lsEndByInterrupt();
    }
    return status;
}

static int Run(int argc, char** argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0))
    {
        // "lidarsim help scan" is "lidarsim scan --help".
        const Command* command = strcmp(argv[1], "help") == 0 && argc > 2 ? FindCommand(argv[2]) : NULL;
        if (command != NULL)
        {
            char* help[] = {"--help", NULL};
            return command->run(1, help);
        }
        if (strcmp(argv[1], "help") == 0 && argc > 2 && strcmp(argv[2], "window") == 0)
        {
            // The window is no command word, but its options are what a newcomer looks for first.
            char* help[] = {"--help", NULL};
            return lsCmdWindow(1, help);
        }
        if (strcmp(argv[1], "help") == 0 && argc > 2)
        {
            return UnknownCommand(argv[2]);
        }
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
        const Command* command = FindCommand(argv[1]);
        if (command != NULL)
        {
            // For the headless commands only: the window and replay leave Ctrl+C to SDL, which turns it into a quit
            // event (and the quit asks about unsaved edits).
            if (command->run != lsCmdReplay)
            {
                lsCleanUpOnEndingSignals();
            }
            return command->run(argc - 2, argv + 2);
        }
        if (argv[1][0] != '-' && !LooksLikeWorld(argv[1]))
        {
            return UnknownCommand(argv[1]);
        }
    }
    return lsCmdWindow(argc - 1, argv + 1);
}

// lidarsim fmt WORLD.json...: rewrites worlds in the canonical form (every key, one spelling of every number), the
// counterpart of the window's format-preserving save (core/world_text.h), for those who want one layout everywhere.
#include "cli/commands.h"
#include "cli/options.h"
#include "core/recording.h" // lsFailIfRecording
#include "lidarsim/map.h"
#include "lidarsim/world.h"

#include <stdio.h>
#include <string.h>

static void PrintUsage(FILE* out)
{
    fprintf(out, "usage: lidarsim fmt [--check | --stdout] WORLD.json...\n\n"
                 "Rewrites each world file in the canonical form: every key written, in one order, numbers in their\n"
                 "shortest exact spelling (what `lidarsim` saved before it kept files as their authors wrote them).\n"
                 "The file is replaced atomically and loads to exactly the same world; a file already canonical is\n"
                 "left untouched. A file with warnings (an unknown key, a key given twice: what the canonical form\n"
                 "would drop) is not rewritten: the warnings are printed and the exit status is 1.\n\n"
                 "options:\n"
                 "  --check     change nothing; list the files that are not canonical, exit 1 if there are any\n"
                 "  --stdout    print the canonical form instead of writing the file\n"
                 "  -h, --help  this help\n\n"
                 "Exit status: 0 success, 1 a file cannot be read, written or is not canonical (--check), 2 usage.\n");
}

// Formats one file; returns 0, or 1 on failure (or not canonical under check).
static int FormatOne(const char* path, bool check, bool toStdout)
{
    lsError err = {{0}};
    if (lsIsMapPath(path))
    {
        // Read as JSON, a map YAML failed with a syntax error at its first line.
        char shown[1024];
        fprintf(stderr,
                "%s: a map YAML, not a world file: fmt rewrites world JSON files (lidarsim import turns a map into "
                "one)\n",
                lsShown(path, shown, sizeof shown));
        return 1;
    }
    size_t size = 0;
    char* text = lsReadFile(path, LS_MAX_FILE_BYTES, &size, &err);
    lsWarnings warnings = {.count = 0};
    lsWorld* world = text != NULL ? lsLoadWorldFromString(text, size, path, &err, &warnings) : NULL;
    if (world == NULL)
    {
        // fmt keeps the text to compare, so it loads from the string and gets lsLoadWorld's recording check here:
        // a recording's second line read as a syntax error ("r.jsonl:2:1: syntax error near ...").
        if (text != NULL)
            lsFailIfRecording(path, &err);
        lsFree(text, size + 1);
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    // What the loader warned of (an unknown key, a key given twice) is not in the world, so the canonical form would
    // drop it: the file is not rewritten until its author has fixed or removed it.
    bool dropsText = lsPrintWarnings(path, &warnings) > 0;
    if (dropsText && !check && !toStdout)
    {
        char shown[1024];
        fprintf(stderr,
                "%s: not rewritten: the canonical form would drop what the warnings above name (fix or remove "
                "it, then run fmt again)\n",
                lsShown(path, shown, sizeof shown));
        lsDestroyWorld(world);
        lsFree(text, size + 1);
        return 1;
    }
    char* canonical = lsSaveWorldToString(world);
    bool same = strlen(canonical) == size && memcmp(canonical, text, size) == 0;
    int status = 0;
    if (toStdout)
    {
        fputs(canonical, stdout);
    }
    else if (check)
    {
        if (!same)
        {
            char shown[1024];
            printf("%s\n", lsShown(path, shown, sizeof shown));
            status = 1;
        }
    }
    else if (!same && !lsSaveWorld(world, path, &err))
    {
        fprintf(stderr, "lidarsim fmt: %s\n", err.message);
        status = 1;
    }
    lsFreeString(canonical);
    lsDestroyWorld(world);
    lsFree(text, size + 1);
    return status;
}

int lsCmdFmt(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintUsage(stdout);
        return 0;
    }
    static const struct option longOptions[] = {{"help", no_argument, NULL, 'h'},
                                                {"check", no_argument, NULL, 'c'},
                                                {"stdout", no_argument, NULL, 's'},
                                                {NULL, 0, NULL, 0}};
    lsOptions options;
    lsBeginOptions(&options, "fmt", argc, argv, longOptions, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool check = false, toStdout = false;
    int c;
    while ((c = lsNextOption(&options, &value, &err)) != -1 && c != '?')
    {
        check = check || c == 'c';
        toStdout = toStdout || c == 's';
    }
    int status = 0;
    if (c == '?')
    {
        fprintf(stderr, "lidarsim fmt: %s (see lidarsim fmt --help)\n", err.message);
        status = 2;
    }
    else if (options.positionalCount == 0 || (check && toStdout))
    {
        fprintf(stderr, "lidarsim fmt: %s (see lidarsim fmt --help)\n",
                check && toStdout ? "--check and --stdout exclude each other" : "missing WORLD.json");
        status = 2;
    }
    for (int i = 0; i < options.positionalCount && status != 2; ++i)
    {
        status = FormatOne(options.positionals[i], check, toStdout) != 0 ? 1 : status;
    }
    lsEndOptions(&options);
    return status;
}

// lidarsim program: getopt_long for every command (see options.h).
#include "cli/options.h"

#include "core/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A quoted value too long to print whole is cut (messages hold 512 bytes).
#define QUOTE_MAX 64

void lsBeginOptions(lsOptions* o, const char* command, int argc, char** argv, const struct option* longOptions,
                    const char* shortOptions)
{
    LS_ASSERT(o != NULL && command != NULL && argc >= 0 && (argv != NULL || argc == 0) && longOptions != NULL);
    *o = (lsOptions){.command = command, .longOptions = longOptions, .shortOptions = shortOptions};
    o->argc = argc + 1;
    o->argv = lsAlloc((size_t)(argc + 2) * sizeof(char*));
    o->argv[0] = (char*)command;
    for (int i = 0; i < argc; ++i)
    {
        o->argv[i + 1] = argv[i];
    }
    o->argv[argc + 1] = NULL;
    o->positionals = lsAlloc((size_t)(argc + 1) * sizeof(char*));
    // 0 makes glibc start a fresh parse (state from an earlier command or test is dropped).
    optind = 0;
    opterr = 0;
}

void lsEndOptions(lsOptions* o)
{
    LS_ASSERT(o != NULL);
    lsFree(o->argv, (size_t)(o->argc + 1) * sizeof(char*));
    lsFree(o->positionals, (size_t)o->argc * sizeof(char*));
    *o = (lsOptions){0};
}

bool lsWantsHelp(int argc, char** argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; ++i)
    {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
        {
            return true;
        }
    }
    return false;
}

const char* lsNearestName(const char* word, const char* const* names, int count)
{
    int limit = strlen(word) <= 3 ? 1 : 2;
    const char* nearest = NULL;
    int best = limit + 1;
    for (int i = 0; i < count; ++i)
    {
        int distance = lsEditDistance(word, names[i], false);
        if (distance < best)
        {
            best = distance;
            nearest = names[i];
        }
    }
    return nearest;
}

// "unknown option '--beam' (did you mean '--beams'?)": the name is compared without its leading dashes and value.
static int UnknownLong(lsOptions* o, const char* text, lsError* err)
{
    size_t length = strcspn(text, "=");
    char name[QUOTE_MAX + 1];
    size_t nameLength = length - 2 < QUOTE_MAX ? length - 2 : QUOTE_MAX;
    memcpy(name, text + 2, nameLength);
    name[nameLength] = '\0';
    const char* names[128];
    int count = 0;
    for (const struct option* opt = o->longOptions; opt->name != NULL && count < 128; ++opt)
    {
        names[count++] = opt->name;
    }
    // A cut-short name suggests the one it starts (getopt_long would have taken it); else the nearest by spelling.
    const char* nearest = NULL;
    for (int i = 0; i < count && nameLength > 0; ++i)
    {
        if (strncmp(names[i], name, nameLength) == 0)
        {
            nearest = nearest == NULL ? names[i] : "";
        }
    }
    if (nearest == NULL || nearest[0] == '\0')
    {
        nearest = lsNearestName(name, names, count);
    }
    if (nearest != NULL)
    {
        lsFail(err, "unknown option '--%s' (did you mean '--%s'?)", name, nearest);
    }
    else
    {
        lsFail(err, "unknown option '--%s'", name);
    }
    return '?';
}

int lsNextOption(lsOptions* o, const char** value, lsError* err)
{
    LS_ASSERT(o != NULL && value != NULL);
    *value = NULL;
    if (o->done)
    {
        return -1;
    }
    // "-" first: arguments that are not options come back in order as code 1 (so getopt never reorders argv and
    // the option just read is always at argv[at]); ":" first: a missing value returns ':' instead of printing.
    char shortOptions[64];
    snprintf(shortOptions, sizeof shortOptions, "-:%s", o->shortOptions != NULL ? o->shortOptions : "");
    for (;;)
    {
        int at = optind == 0 ? 1 : optind;
        int index = -1;
        int c = getopt_long(o->argc, o->argv, shortOptions, o->longOptions, &index);
        const char* text = at < o->argc ? o->argv[at] : "";
        bool isLong = strncmp(text, "--", 2) == 0;
        if (c == -1)
        {
            // After "--" everything left is a positional.
            for (int i = optind; i < o->argc; ++i)
            {
                o->positionals[o->positionalCount++] = o->argv[i];
            }
            o->done = true;
            return -1;
        }
        if (c == 1)
        {
            o->positionals[o->positionalCount++] = optarg;
            continue;
        }
        if (c == ':')
        {
            // A missing value: the option is the last argument.
            if (isLong)
            {
                lsFail(err, "missing value after '%.*s'", QUOTE_MAX, text);
            }
            else
            {
                lsFail(err, "missing value after '-%c'", optopt);
            }
            return '?';
        }
        if (c == '?')
        {
            if (isLong && optopt != 0)
            {
                // A known long option that takes no value was given one ("--autopilot=1").
                lsFail(err, "'%.*s' takes no value", (int)strcspn(text, "="), text);
                return '?';
            }
            if (isLong)
            {
                return UnknownLong(o, text, err);
            }
            lsFail(err, "unknown option '-%c'", optopt != 0 ? optopt : '?');
            return '?';
        }
        // getopt_long accepts any unambiguous prefix; only whole names are taken here.
        if (isLong && index >= 0 && strlen(o->longOptions[index].name) != strcspn(text + 2, "="))
        {
            return UnknownLong(o, text, err);
        }
        if (c == 'h')
        {
            // A lone -h or --help never gets here (lsWantsHelp takes it first), so this h stands in a group of
            // letters such as "-hit": refuse the group rather than hand commands a help request they never see.
            lsFail(err, "unknown option '%.*s' (-h stands alone)", QUOTE_MAX, text);
            return '?';
        }
        *value = optarg;
        return c;
    }
}

bool lsParseSeed(const char* value, uint64_t* seed)
{
    char* end = NULL;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || end == value || *end != '\0' || errno == ERANGE)
    {
        return false;
    }
    *seed = (uint64_t)v;
    return true;
}

int lsPrintWarnings(const char* path, const lsWarnings* warnings)
{
    for (int i = 0; i < warnings->count; ++i)
    {
        fprintf(stderr, "%s\n", warnings->messages[i]);
    }
    if (warnings->dropped > 0)
    {
        char shown[1024];
        fprintf(stderr, "%s: warning: %d more warnings not shown\n", lsShown(path, shown, sizeof shown),
                warnings->dropped);
    }
    return warnings->count + warnings->dropped;
}

const char* lsShown(const char* text, char* buffer, size_t capacity)
{
    snprintf(buffer, capacity, "%s", text != NULL ? text : "");
    lsEscapeControl(buffer, capacity);
    return buffer;
}

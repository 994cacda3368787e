// lidarsim scan: command-line and poses-file parsing (see scan_args.h). Strict: every number is one whole finite
// number, every option takes exactly one value (getopt_long: `--beams=4` or `--beams 4`), and the first problem
// stops the parse with a message.
#include "cli/scan_args.h"

#include "cli/options.h"
#include "core/limits.h"
#include "lidarsim/pool.h"  // LS_POOL_MAX_THREADS
#include "lidarsim/world.h" // LS_MAX_BEAMS

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// "X,Y,DEG": exactly three numbers separated by commas, spaces around them allowed ("1, 2, 3", as a poses file).
static bool ParsePose(const char* s, double pose[3])
{
    char buffer[256];
    size_t length = strlen(s);
    if (length >= sizeof buffer)
    {
        return false;
    }
    memcpy(buffer, s, length + 1);
    char* p = buffer;
    for (int i = 0; i < 3; ++i)
    {
        char* comma = strchr(p, ',');
        if ((comma == NULL) != (i == 2))
        {
            return false; // fewer or more than three parts
        }
        if (comma != NULL)
        {
            *comma = '\0';
        }
        p += strspn(p, " \t");
        for (size_t n = strlen(p); n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'); --n)
        {
            p[n - 1] = '\0';
        }
        if (!lsParseNumber(p, pose + i))
        {
            return false;
        }
        p = comma != NULL ? comma + 1 : p;
    }
    return true;
}

static bool AddPose(lsScanArgs* args, const double pose[3], lsError* err)
{
    // The world file's bounds (core/limits.h): a pose the loader would refuse is refused here too.
    if (!lsLimit_Holds(ls_quantityCoordinate, pose[0]) || !lsLimit_Holds(ls_quantityCoordinate, pose[1]) ||
        !lsLimit_Holds(ls_quantityAngle, pose[2]))
    {
        char where[96], turn[96], x[40], y[40], angle[40];
        lsFormatNumber(x, sizeof x, pose[0]), lsFormatNumber(y, sizeof y, pose[1]);
        lsFormatNumber(angle, sizeof angle, pose[2]);
        return lsFail(err, "pose (%s, %s, %s): expected x and y each %s, and %s", x, y, angle,
                      lsLimit_Describe(ls_quantityCoordinate, where, sizeof where),
                      lsLimit_Describe(ls_quantityAngle, turn, sizeof turn));
    }
    if (args->poseCount >= LS_SCAN_MAX_POSES)
    {
        return lsFail(err, "more than %d poses (the limit)", LS_SCAN_MAX_POSES);
    }
    if (args->poseCount == args->poseCapacity)
    {
        int capacity = args->poseCapacity == 0 ? 16 : 2 * args->poseCapacity;
        args->poses = lsRealloc(args->poses, (size_t)args->poseCapacity * 3 * sizeof(double),
                                (size_t)capacity * 3 * sizeof(double));
        args->poseCapacity = capacity;
    }
    memcpy(args->poses + (size_t)3 * (size_t)args->poseCount, pose, 3 * sizeof(double));
    args->poseCount += 1;
    return true;
}

// A value too long to quote whole is cut in messages (they hold 512 bytes).
#define QUOTE_MAX 64

static bool ParseNoHit(const char* value, lsNoHitStyle* noHit)
{
    static const char* const names[] = {"inf", "max", "nan", "null"};
    static const lsNoHitStyle values[] = {ls_noHitInf, ls_noHitMax, ls_noHitNan, ls_noHitNull};
    for (int i = 0; i < 4; ++i)
    {
        if (strcmp(value, names[i]) == 0)
        {
            *noHit = values[i];
            return true;
        }
    }
    return false;
}

enum
{
    optPose = 256,
    optPoses,
    optBeams,
    optFov,
    optRange,
    optNoise,
    optSeed,
    optFormat,
    optNoHit,
    optThreads,
    optRobot,
};

static const struct option s_options[] = {
    {"pose", required_argument, NULL, optPose},
    {"poses", required_argument, NULL, optPoses},
    {"beams", required_argument, NULL, optBeams},
    {"fov", required_argument, NULL, optFov},
    {"range", required_argument, NULL, optRange},
    {"noise", required_argument, NULL, optNoise},
    {"seed", required_argument, NULL, optSeed},
    {"format", required_argument, NULL, optFormat},
    {"no-hit", required_argument, NULL, optNoHit},
    {"threads", required_argument, NULL, optThreads},
    {"robot", required_argument, NULL, optRobot},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

// A number flag held to the world file's bound for the same quantity (core/limits.h).
static bool ParseQuantity(const char* flag, const char* value, lsQuantity quantity, double* out, lsError* err)
{
    if (!lsParseQuantity(value, quantity, out))
    {
        char text[96];
        return lsFail(err, "%s: expected %s, got '%.*s'", flag, lsLimit_Describe(quantity, text, sizeof text),
                      QUOTE_MAX, value);
    }
    return true;
}

// One option with its value; false with err on a bad value.
static bool ParseOption(int option, const char* value, lsScanArgs* out, lsError* err)
{
    switch (option)
    {
    case optPose:
    {
        double pose[3];
        if (!ParsePose(value, pose))
        {
            return lsFail(err, "--pose: expected X,Y,DEG (three numbers), got '%.*s'", QUOTE_MAX, value);
        }
        return AddPose(out, pose, err);
    }
    case optPoses:
        out->posesPath = value;
        return true;
    case optRobot:
        out->robotId = value;
        return true;
    case optThreads:
    {
        long long threads = 0;
        if (!lsParseInteger(value, 0, LS_POOL_MAX_THREADS, &threads))
        {
            return lsFail(err, "--threads: expected an integer in 0..%d (0: one per core), got '%.*s'",
                          LS_POOL_MAX_THREADS, QUOTE_MAX, value);
        }
        out->threads = (int)threads;
        return true;
    }
    case optBeams:
    {
        long long beams = 0;
        if (!lsParseInteger(value, 1, LS_MAX_BEAMS, &beams))
        {
            return lsFail(err, "--beams: expected an integer in 1..%d, got '%.*s'", LS_MAX_BEAMS, QUOTE_MAX, value);
        }
        out->beams = (int)beams;
        return true;
    }
    case optFov:
        return ParseQuantity("--fov", value, ls_quantityFov, &out->fovDeg, err);
    case optRange:
        return ParseQuantity("--range", value, ls_quantityRange, &out->range, err);
    case optNoise:
        return ParseQuantity("--noise", value, ls_quantityDistance, &out->noise, err);
    case optSeed:
        if (!lsParseSeed(value, &out->seed))
        {
            return lsFail(err, "--seed: expected a non-negative integer below 2^64, got '%.*s'", QUOTE_MAX, value);
        }
        out->haveSeed = true;
        return true;
    case optFormat:
        if (strcmp(value, "json") != 0 && strcmp(value, "csv") != 0)
        {
            return lsFail(err, "--format: expected json or csv, got '%.*s'", QUOTE_MAX, value);
        }
        out->csv = strcmp(value, "csv") == 0;
        return true;
    default:
        LS_ASSERT(option == optNoHit);
        if (!ParseNoHit(value, &out->noHit))
        {
            return lsFail(err, "--no-hit: expected inf, max, nan or null, got '%.*s'", QUOTE_MAX, value);
        }
        return true;
    }
}

bool lsParseScanArgs(int argc, char** argv, lsScanArgs* out, lsError* err)
{
    LS_ASSERT(argc >= 0 && (argv != NULL || argc == 0) && out != NULL);
    *out = (lsScanArgs){0};
    out->noise = -1.0;
    if (lsWantsHelp(argc, argv))
    {
        out->help = true;
        return true;
    }
    lsOptions options;
    lsBeginOptions(&options, "scan", argc, argv, s_options, "h");
    bool ok = true;
    const char* value = NULL;
    for (int c = lsNextOption(&options, &value, err); c != -1 && ok; c = lsNextOption(&options, &value, err))
    {
        ok = c != '?' && ParseOption(c, value, out, err);
    }
    for (int i = 0; i < options.positionalCount && ok; ++i)
    {
        // A lone "-" is a world file name like any other.
        if (out->worldPath != NULL)
        {
            ok = lsFail(err, "more than one world file: '%.*s'", QUOTE_MAX, options.positionals[i]);
        }
        out->worldPath = options.positionals[i];
    }
    lsEndOptions(&options);
    if (ok && out->worldPath == NULL)
    {
        ok = lsFail(err, "missing WORLD.json");
    }
    if (ok && out->csv == false && (out->noHit == ls_noHitInf || out->noHit == ls_noHitNan))
    {
        ok = lsFail(err, "--no-hit %s: JSON has no infinity or NaN; use null or max, or --format csv",
                    out->noHit == ls_noHitInf ? "inf" : "nan");
    }
    if (!ok)
    {
        lsFreeScanArgs(out);
    }
    return ok;
}

static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool lsParseScanPoses(const char* text, size_t size, const char* label, lsScanArgs* args, lsError* err)
{
    LS_ASSERT((text != NULL || size == 0) && label != NULL && args != NULL);
    int lineNumber = 0;
    int found = 0;
    // A UTF-8 byte order mark is skipped, as world files' (editors on some systems write one).
    size_t at = size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (at < size)
    {
        lineNumber += 1;
        size_t lineEnd = at;
        while (lineEnd < size && text[lineEnd] != '\n')
        {
            ++lineEnd;
        }
        // Tokens up to the end of the line or a '#'. Columns (1-based bytes) say where a problem is, as the world
        // and map loaders' line:column do: the token that is wrong, or where a missing one should be.
        double pose[3];
        int columns[3] = {0};
        int count = 0;
        bool bad = false;
        size_t p = at;
        size_t badStart = at;
        size_t comma = 0; // where the comma after the last number is, or 0: one comma may stand between two numbers
        while (p < lineEnd && text[p] != '#' && !bad)
        {
            if (text[p] == '\0')
            {
                return lsFail(err, "%s:%d:%d: unexpected NUL byte (not a text file?)", label, lineNumber,
                              (int)(p - at) + 1);
            }
            if (IsSpace(text[p]))
            {
                ++p;
                continue;
            }
            if (text[p] == ',')
            {
                if (count == 0 || comma != 0)
                {
                    return lsFail(err, "%s:%d:%d: a comma stands only between two numbers ('x y deg' or 'x,y,deg')",
                                  label, lineNumber, (int)(p - at) + 1);
                }
                comma = p++;
                continue;
            }
            comma = 0;
            size_t start = p;
            while (p < lineEnd && text[p] != '#' && text[p] != '\0' && text[p] != ',' && !IsSpace(text[p]))
            {
                ++p;
            }
            char token[128];
            size_t length = p - start;
            badStart = start;
            if (count == 3 || length >= sizeof token)
            {
                bad = true;
                break;
            }
            memcpy(token, text + start, length);
            token[length] = '\0';
            bad = !lsParseNumber(token, pose + count);
            columns[count] = (int)(start - at) + 1;
            ++count;
        }
        if (comma != 0 && !bad)
        {
            return lsFail(err, "%s:%d:%d: a comma stands only between two numbers ('x y deg' or 'x,y,deg')", label,
                          lineNumber, (int)(comma - at) + 1);
        }
        if (bad || (count != 0 && count != 3))
        {
            int column = (int)((bad ? badStart : p) - at) + 1;
            return lsFail(err, "%s:%d:%d: expected three numbers 'x y deg'", label, lineNumber, column);
        }
        if (count == 3)
        {
            if (!AddPose(args, pose, err))
            {
                // The first number out of its bound (none: the pose limit, the pose's first number).
                int column = columns[0];
                for (int i = 2; i >= 0; --i)
                {
                    column =
                        !lsLimit_Holds(i < 2 ? ls_quantityCoordinate : ls_quantityAngle, pose[i]) ? columns[i] : column;
                }
                char reason[sizeof err->message];
                snprintf(reason, sizeof reason, "%s", err != NULL ? err->message : "");
                return lsFail(err, "%s:%d:%d: %s", label, lineNumber, column, reason);
            }
            ++found;
        }
        at = lineEnd + 1;
    }
    if (found == 0)
    {
        return lsFail(err, "%s: no poses", label);
    }
    return true;
}

void lsFreeScanArgs(lsScanArgs* args)
{
    LS_ASSERT(args != NULL);
    lsFree(args->poses, (size_t)args->poseCapacity * 3 * sizeof(double));
    *args = (lsScanArgs){0};
    args->noise = -1.0;
}

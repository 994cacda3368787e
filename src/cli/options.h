// lidarsim program: command-line options for every command through getopt_long, parsed one way everywhere:
// `--beams=4` and `--beams 4`, options and files in any order, `--` ends the options, only whole option names
// (an abbreviation that fits today would change meaning when an option is added), and the same messages
// ("unknown option '--beam' (did you mean '--beams'?)", "missing value after '--fov'").
#pragma once

#include "lidarsim/base.h"
#include "lidarsim/world.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/// One parse of one command's arguments. getopt keeps global state, so one parse runs at a time (commands run
/// one after the other; nothing parses from two threads).
typedef struct lsOptions
{
    const char* command;              ///< "scan": only for messages
    const struct option* longOptions; ///< terminated by a zero entry
    const char* shortOptions;         ///< getopt letters, e.g. "ho:" (the leading "-:" is added here)
    char** argv;                      ///< lsAlloc'd copy: [command, arguments..., NULL] (getopt may reorder it)
    int argc;                         ///< entries of argv before the NULL
    char** positionals;               ///< lsAlloc'd, argc entries: the arguments that are not options, in order
    int positionalCount;
    bool done;
} lsOptions;

/// Starts a parse of the arguments after the command name (argv is copied, never changed). End with lsEndOptions.
void lsBeginOptions(lsOptions* o, const char* command, int argc, char** argv, const struct option* longOptions,
                    const char* shortOptions);
/// The next option: its `val` from longOptions (or its letter), with *value its argument or NULL. Returns -1 when
/// all arguments are read (the positionals are then in o->positionals) and '?' on a usage error, with err saying
/// what: an unknown option (with the nearest name when one is close), a missing value, or a value given to an
/// option that takes none.
int lsNextOption(lsOptions* o, const char** value, lsError* err);
/// Frees what lsBeginOptions allocated.
void lsEndOptions(lsOptions* o);

/// True when -h or --help is among the arguments before any "--": help wins wherever it is, even next to errors.
bool lsWantsHelp(int argc, char** argv);

/// text (a path or a name from the command line or a file) copied into buffer with its control characters escaped
/// (lsEscapeControl), for messages printed directly rather than through lsFail; returns buffer.
const char* lsShown(const char* text, char* buffer, size_t capacity);

/// Prints a load's warnings on stderr, one a line, and how many more were not kept. Returns their count.
int lsPrintWarnings(const char* path, const lsWarnings* warnings);

/// --seed: a whole number in [0, 2^64), decimal digits only (a world file's sim.seed takes the same range). False
/// when value is not one.
bool lsParseSeed(const char* value, uint64_t* seed);

/// The name in names[0..count) nearest to word (Damerau-Levenshtein, adjacent swaps count one), or NULL when
/// none is within 2 edits (1 for words of up to 3 letters) and so likely meant.
const char* lsNearestName(const char* word, const char* const* names, int count);

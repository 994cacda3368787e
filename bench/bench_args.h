// The benchmarks' flag values: each is read in full and bounded, so a typo or an absurd value is a clear error
// (exit status 2), never a silent default or a run of days.
#pragma once

#include "lidarsim/base.h"

#include <stdio.h>

/// Parses text (the value of flag) as a number in [lo, hi]; otherwise prints "prog: flag: ..." and returns false.
static inline bool lsBenchNumberArg(const char* prog, const char* flag, const char* text, double lo, double hi,
                                    double* out)
{
    if (lsParseNumber(text, out) && *out >= lo && *out <= hi)
        return true;
    fprintf(stderr, "%s: %s: expected a number in [%g, %g], got '%s'\n", prog, flag, lo, hi, text);
    return false;
}

/// Parses text (the value of flag) as an integer in [lo, hi]; otherwise prints "prog: flag: ..." and returns false.
static inline bool lsBenchIntegerArg(const char* prog, const char* flag, const char* text, long long lo, long long hi,
                                     long long* out)
{
    if (lsParseInteger(text, lo, hi, out))
        return true;
    fprintf(stderr, "%s: %s: expected an integer in [%lld, %lld], got '%s'\n", prog, flag, lo, hi, text);
    return false;
}

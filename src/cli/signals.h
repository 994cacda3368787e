// lidarsim program: what the signals that end a program (Ctrl+C, kill, a hang-up) do to the headless commands.
#pragma once

#include <stdbool.h>

/// The exit status of a command stopped early by Ctrl+C (128 + SIGINT, what a shell reports for it); main then ends
/// the program by SIGINT itself (lsEndByInterrupt), so a shell script running it stops too.
#define LS_EXIT_INTERRUPTED 130

/// For the headless commands: a signal that ends the program first removes the temporary files of the writes in
/// progress (lsRemoveTemporaryFiles), then ends it as the signal would have. A signal ignored by whoever started us
/// (nohup, a shell's background job) stays ignored.
void lsCleanUpOnEndingSignals(void);

/// From now on the first SIGINT (Ctrl+C) only asks to stop: lsStopRequested turns true and message (a string that
/// outlives the program, or NULL) is written to stderr at once, so a run blocked on a slow disk or a full pipe says
/// it heard. A second SIGINT ends the program as lsCleanUpOnEndingSignals does. SIGINT ignored stays ignored.
void lsStopOnInterrupt(const char* message);
/// True once a SIGINT asked to stop (after lsStopOnInterrupt).
bool lsStopRequested(void);
/// Ends the program by SIGINT, as a program that Ctrl+C ended should (a shell running a loop of commands stops only
/// when the command died of it); called after the command saved what it had and its output was flushed.
void lsEndByInterrupt(void);

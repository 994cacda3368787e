// lidarsim program: the signals that end a program, for the headless commands (see signals.h).
#define _POSIX_C_SOURCE 200809L // sigaction, SIGXFSZ

#include "cli/signals.h"

#include "core/file_write.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

// A signal that ends the program first removes the temporary files of the writes in progress (a render, a
// recording, an import cut short by Ctrl+C left a .lidarsim-XXXXXX of up to its whole size beside the target), then
// ends it as the signal would have (the handler is reset first, and the signal stays blocked until it returns).
static void OnEndingSignal(int sig)
{
    lsRemoveTemporaryFiles();
    raise(sig);
}

void lsCleanUpOnEndingSignals(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = OnEndingSignal;
    action.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
    {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        {
            sigaction(signals[i], &action, NULL);
        }
    }
}

// What a signal handler may touch: a volatile sig_atomic_t, and the message's pointer and length set before the
// handler was installed.
static volatile sig_atomic_t s_stopRequested;
static const char* s_stopMessage;
static size_t s_stopMessageLength;

// The first SIGINT sets the flag the command polls and says so (write is async-signal-safe; stdio is not); the
// second does what OnEndingSignal does. SIGINT is blocked while this runs, so the two never overlap.
static void OnInterrupt(int sig)
{
    if (s_stopRequested)
    {
        lsRemoveTemporaryFiles();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    s_stopRequested = 1;
    if (s_stopMessage != NULL)
    {
        ssize_t written = write(STDERR_FILENO, s_stopMessage, s_stopMessageLength);
        (void)written; // nothing to do about a closed stderr here
    }
}

void lsStopOnInterrupt(const char* message)
{
    struct sigaction old;
    if (sigaction(SIGINT, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
    {
        return;
    }
    s_stopMessage = message;
    s_stopMessageLength = message != NULL ? strlen(message) : 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = OnInterrupt;
    // SA_RESTART: a write to a pipe or terminal interrupted by the first Ctrl+C goes on instead of failing with EINTR
    // (stdio would then count the recording as not written).
    action.sa_flags = (int)SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
}

bool lsStopRequested(void) { return s_stopRequested != 0; }

void lsEndByInterrupt(void)
{
    signal(SIGINT, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGINT);
}

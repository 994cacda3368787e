// HardeningTest: nothing is lost when saving fails or is killed, a reload never shows a half-written file, and
// hostile-but-valid inputs are refused with a clear message (issue 7). The loader's own limits (targets, walls by
// count, 8 million values, nesting, a 5 MB name, a 64 MiB file) are in WorldTest's LimitsTest; the reloader's
// scripted truncated and empty versions are in ReloadTest. This suite adds what needs other processes, signals,
// resource limits or mount namespaces, and the inputs those suites do not build.
#define _GNU_SOURCE // unshare, CLONE_NEWNS

#include "test.h"

#include "core/reload.h"
#include "lidarsim/world.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

static double Now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void SleepSeconds(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    {
    }
}

// The whole file, NUL-terminated, from lsAlloc (free with lsFree(text, *size + 1)); NULL when it cannot be read.
static char* ReadAll(const char* path, size_t* size)
{
    FILE* f = fopen(path, "rb");
    if (f == NULL)
    {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = lsAlloc((size_t)length + 1);
    size_t n = fread(text, 1, (size_t)length, f);
    fclose(f);
    text[n] = '\0';
    *size = n;
    if (n != (size_t)length)
    {
        lsFree(text, (size_t)length + 1);
        return NULL;
    }
    return text;
}

// True when the file holds exactly text.
static bool FileEquals(const char* path, const char* text)
{
    size_t size = 0;
    char* content = ReadAll(path, &size);
    if (content == NULL)
    {
        return false;
    }
    bool same = size == strlen(text) && memcmp(content, text, size) == 0;
    lsFree(content, size + 1);
    return same;
}

// Names in folder other than "." and "..", written into names (capacity entries of 256 bytes); returns the count.
static int ListFolder(const char* folder, char names[][256], int capacity)
{
    DIR* dir = opendir(folder);
    if (dir == NULL)
    {
        return -1;
    }
    int count = 0;
    for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir))
    {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
        {
            continue;
        }
        if (count < capacity)
        {
            snprintf(names[count], 256, "%s", entry->d_name);
        }
        ++count;
    }
    closedir(dir);
    return count;
}

// Removes every file in folder, then the folder.
static void RemoveFolder(const char* folder)
{
    char names[64][256];
    int count = ListFolder(folder, names, 64);
    for (int i = 0; i < count && i < 64; ++i)
    {
        char path[1024];
        if (snprintf(path, sizeof path, "%s/%s", folder, names[i]) < (int)sizeof path)
        {
            unlink(path);
        }
    }
    rmdir(folder);
}

// A world of `walls` random wall chains and targets in a 200 m square: a few hundred kilobytes of JSON, so a save
// takes long enough to be interrupted. Different seeds give different worlds.
static lsWorld* MakeBigWorld(int walls, uint64_t seed)
{
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(seed);
    snprintf(world->name, sizeof world->name, "big %llu", (unsigned long long)seed);
    for (int i = 0; i < walls; ++i)
    {
        lsVec2 points[4];
        lsVec2 p = lsTestRandomPoint(&rng, -100.0, 100.0, -100.0, 100.0);
        for (int j = 0; j < 4; ++j)
        {
            points[j] = p;
            p = lsAdd(p, lsTestRandomPoint(&rng, -2.0, 2.0, -2.0, 2.0));
        }
        lsWorld_AddWall(world, points, 4, false);
    }
    for (int i = 0; i < walls / 4; ++i)
    {
        lsTargetDef t = lsDefaultTargetDef();
        t.center = lsTestRandomPoint(&rng, -100.0, 100.0, -100.0, 100.0);
        t.kind = (i % 3) == 0 ? ls_poison : ls_food;
        lsWorld_AddTarget(world, t);
    }
    return world;
}

// Sends a child's lsError message through a pipe and exits with status (the child never returns to the runner).
static void ChildReport(int fd, const char* message, int status)
{
    size_t length = strlen(message);
    ssize_t written = write(fd, message, length);
    (void)written;
    close(fd);
    _exit(status);
}

// Reads what a child sent (up to capacity - 1 bytes) and waits for it; returns its exit status, or -1 when it did
// not exit normally.
static int ChildResult(pid_t pid, int fd, char* message, size_t capacity)
{
    size_t used = 0;
    for (;;)
    {
        ssize_t n = read(fd, message + used, capacity - 1 - used);
        if (n <= 0)
        {
            break;
        }
        used += (size_t)n;
        if (used == capacity - 1)
        {
            break;
        }
    }
    message[used] = '\0';
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---------------------------------------------------------------------------------------------------------------------
// Saving while the disk is full: a child whose file size limit (RLIMIT_FSIZE) is below the new file's size, with
// SIGXFSZ ignored, so write() fails with EFBIG exactly as on a full disk (ENOSPC takes the same path in lsSaveWorld).

static int DiskFullTest(void)
{
    char folder[] = "/tmp/ls_hardening_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/world.json", folder);
    lsError err = {{0}};

    lsWorld* small = MakeBigWorld(3, 1);
    lsWorld* big = MakeBigWorld(2000, 2);
    ENSURE(lsSaveWorld(small, path, &err));
    char* oldText = lsSaveWorldToString(small);
    char* newText = lsSaveWorldToString(big);
    size_t newSize = strlen(newText);
    ENSURE(newSize > 200000 && strlen(oldText) < 4096);

    // Limits below, at half and just under the new file's size: the write fails at its start, midway, at its end.
    const rlim_t limits[] = {4096, (rlim_t)newSize / 2, (rlim_t)newSize - 1};
    for (int i = 0; i < 3; ++i)
    {
        int fds[2];
        ENSURE(pipe(fds) == 0);
        pid_t pid = fork();
        ENSURE(pid >= 0);
        if (pid == 0)
        {
            close(fds[0]);
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit limit = {limits[i], limits[i]};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            {
                ChildReport(fds[1], "setrlimit failed", 2);
            }
            lsError childErr = {{0}};
            bool saved = lsSaveWorld(big, path, &childErr);
            ChildReport(fds[1], childErr.message, saved ? 3 : 0);
        }
        close(fds[1]);
        char message[600];
        int status = ChildResult(pid, fds[0], message, sizeof message);
        if (status != 0 || strstr(message, "File too large") == NULL)
        {
            fprintf(stderr, "  limit %llu: child status %d: %s\n", (unsigned long long)limits[i], status, message);
        }
        ENSURE(status == 0);
        ENSURE(strstr(message, path) == message);
        ENSURE(strstr(message, "not saved (write failed: File too large); the old file is untouched") != NULL);
        // The old file is byte-identical and the temporary file is gone.
        ENSURE(FileEquals(path, oldText));
        char names[8][256];
        ENSURE(ListFolder(folder, names, 8) == 1 && strcmp(names[0], "world.json") == 0);
    }
    // With room again, the same save goes through.
    ENSURE(lsSaveWorld(big, path, &err));
    ENSURE(FileEquals(path, newText));

    lsFreeString(oldText);
    lsFreeString(newText);
    lsDestroyWorld(small);
    lsDestroyWorld(big);
    RemoveFolder(folder);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Saving into a folder that cannot be written. Root ignores permission bits, so the cases are a "folder" that is a
// regular file, a missing folder, and a read-only bind mount in a private mount namespace (when the kernel allows
// one; when it does not, and the test does not run as root, a chmod 0555 folder stands in).

// In a child: makes folder read-only through a private bind mount, then tries to save. Exit 0 with the message
// when the save failed as it should, 4 when no read-only folder could be made (skip), 3 when the save succeeded.
static void ReadOnlyChild(const lsWorld* world, const char* folder, const char* path, int fd)
{
    // The mount namespace is private first, so the read-only bind mount never shows outside this child.
    bool readOnly = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                    mount(folder, folder, NULL, MS_BIND, NULL) == 0 &&
                    mount(NULL, folder, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0;
    readOnly = readOnly || (geteuid() != 0 && chmod(folder, 0555) == 0);
    if (!readOnly)
    {
        ChildReport(fd, strerror(errno), 4);
    }
    lsError err = {{0}};
    bool saved = lsSaveWorld(world, path, &err);
    if (geteuid() != 0)
    {
        chmod(folder, 0700);
    }
    ChildReport(fd, err.message, saved ? 3 : 0);
}

static int ReadOnlyFolderTest(void)
{
    char folder[] = "/tmp/ls_hardening_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    lsError err = {{0}};
    lsWorld* world = MakeBigWorld(50, 3);
    lsWorld* other = MakeBigWorld(50, 4);

    // A path whose folder is a regular file: ENOTDIR, and the file is untouched.
    char notFolder[300], path[400];
    snprintf(notFolder, sizeof notFolder, "%s/file", folder);
    FILE* f = fopen(notFolder, "wb");
    ENSURE(f != NULL);
    fputs("not a folder", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/world.json", notFolder);
    ENSURE(!lsSaveWorld(world, path, &err));
    ENSURE(strstr(err.message, path) == err.message);
    ENSURE(strstr(err.message, "cannot create a temporary file next to it: Not a directory") != NULL);
    ENSURE(FileEquals(notFolder, "not a folder"));

    // A missing folder: ENOENT, and nothing is created.
    snprintf(path, sizeof path, "%s/missing/world.json", folder);
    ENSURE(!lsSaveWorld(world, path, &err));
    ENSURE(strstr(err.message, "No such file or directory") != NULL);
    char names[8][256];
    ENSURE(ListFolder(folder, names, 8) == 1);

    // A read-only folder holding the old file.
    char sub[300];
    snprintf(sub, sizeof sub, "%s/ro", folder);
    ENSURE(mkdir(sub, 0700) == 0);
    snprintf(path, sizeof path, "%s/world.json", sub);
    ENSURE(lsSaveWorld(world, path, &err));
    char* oldText = lsSaveWorldToString(world);
    int fds[2];
    ENSURE(pipe(fds) == 0);
    pid_t pid = fork();
    ENSURE(pid >= 0);
    if (pid == 0)
    {
        close(fds[0]);
        ReadOnlyChild(other, sub, path, fds[1]);
    }
    close(fds[1]);
    char message[600];
    int status = ChildResult(pid, fds[0], message, sizeof message);
    if (status == 4)
    {
        printf("    read-only folder: skipped, no private mount namespace here and running as root (%s)\n", message);
    }
    else
    {
        if (status != 0)
        {
            fprintf(stderr, "  read-only folder: child status %d: %s\n", status, message);
        }
        ENSURE(status == 0);
        ENSURE(strstr(message, path) == message);
        ENSURE(strstr(message, "cannot create a temporary file next to it") != NULL);
        ENSURE(strstr(message, "Read-only file system") != NULL || strstr(message, "Permission denied") != NULL);
    }
    ENSURE(FileEquals(path, oldText));
    ENSURE(ListFolder(sub, names, 8) == 1 && strcmp(names[0], "world.json") == 0);

    lsFreeString(oldText);
    lsDestroyWorld(world);
    lsDestroyWorld(other);
    RemoveFolder(sub);
    unlink(notFolder);
    RemoveFolder(folder);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// A kill -9 during a save: a child saves two large worlds in turn, over and over, and is killed at random moments
// (a fixed seed). After every kill the file is exactly one of the two complete versions (so it loads), and the only
// other thing the kill may leave is the save's own temporary file ".lidarsim-XXXXXX" (lsSaveWorld documents a
// temporary file next to the target; a killed process cannot remove it), at most one per kill.

static bool IsSaveTempName(const char* name)
{
    const char* prefix = ".lidarsim-";
    size_t n = strlen(prefix);
    return strncmp(name, prefix, n) == 0 && strlen(name) == n + 6;
}

static int KillDuringSaveTest(void)
{
    char folder[] = "/tmp/ls_hardening_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/world.json", folder);
    lsError err = {{0}};
    lsWorld* a = MakeBigWorld(1500, 5);
    lsWorld* b = MakeBigWorld(1500, 6);
    char* aText = lsSaveWorldToString(a);
    char* bText = lsSaveWorldToString(b);
    ENSURE(strcmp(aText, bText) != 0);

    // How long one save takes here, to spread the kills over a few saves.
    double start = Now();
    ENSURE(lsSaveWorld(a, path, &err));
    double saveTime = Now() - start;

    lsRng rng = lsMakeRng(20261122);
    const int kills = 25;
    int olds = 0, news = 0, strays = 0;
    for (int k = 0; k < kills; ++k)
    {
        pid_t pid = fork();
        ENSURE(pid >= 0);
        if (pid == 0)
        {
            for (;;)
            {
                lsError childErr = {{0}};
                if (!lsSaveWorld(b, path, &childErr) || !lsSaveWorld(a, path, &childErr))
                {
                    _exit(1);
                }
            }
        }
        SleepSeconds(lsRng_Range(&rng, 0.0, 3.0 * saveTime));
        ENSURE(kill(pid, SIGKILL) == 0);
        int status = 0;
        ENSURE(waitpid(pid, &status, 0) == pid);
        ENSURE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        bool isA = FileEquals(path, aText);
        bool isB = !isA && FileEquals(path, bText);
        if (!isA && !isB)
        {
            fprintf(stderr, "  kill %d: the file is neither version\n", k);
        }
        ENSURE(isA || isB);
        olds += isA;
        news += isB;

        char names[8][256];
        int count = ListFolder(folder, names, 8);
        ENSURE(count >= 1 && count <= 2);
        for (int i = 0; i < count; ++i)
        {
            if (strcmp(names[i], "world.json") == 0)
            {
                continue;
            }
            if (!IsSaveTempName(names[i]))
            {
                fprintf(stderr, "  kill %d: unexpected file %s\n", k, names[i]);
            }
            ENSURE(IsSaveTempName(names[i]));
            // What a user (or the next run) may delete: remove it so the next kill is counted alone.
            char stray[600];
            snprintf(stray, sizeof stray, "%s/%s", folder, names[i]);
            ENSURE(unlink(stray) == 0);
            ++strays;
        }
    }
    // Whichever version is there loads to its world.
    lsWorld* back = lsLoadWorld(path, &err, NULL);
    ENSURE(back != NULL);
    ENSURE(lsWorld_Equal(back, a) || lsWorld_Equal(back, b));
    lsDestroyWorld(back);
    printf("    %d kills (save %.1f ms): %d left the first version, %d the second, %d a temporary file\n", kills,
           1000.0 * saveTime, olds, news, strays);

    lsFreeString(aText);
    lsFreeString(bText);
    lsDestroyWorld(a);
    lsDestroyWorld(b);
    RemoveFolder(folder);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Reload while another process writes the file in place, slowly, chunk by chunk (truncate, then write), with no
// settle time (the worst case: the poller reads every half-written state it sees). Every world handed back must be
// one of the complete versions; at the end the last version is shown.

static int ReloadWhileWritingTest(void)
{
    char folder[] = "/tmp/ls_hardening_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/world.json", folder);
    lsError err = {{0}};

    enum
    {
        versionCount = 6
    };
    lsWorld* versions[versionCount];
    char* texts[versionCount];
    for (int i = 0; i < versionCount; ++i)
    {
        versions[i] = MakeBigWorld(300, 100 + (uint64_t)i);
        texts[i] = lsSaveWorldToString(versions[i]);
    }
    ENSURE(lsSaveWorld(versions[0], path, &err));
    lsReloader* reloader = lsCreateReloader(path, 0.0);
    lsWorld* shown = lsCloneWorld(versions[0]);

    pid_t pid = fork();
    ENSURE(pid >= 0);
    if (pid == 0)
    {
        for (int i = 1; i < versionCount; ++i)
        {
            int fd = open(path, O_WRONLY | O_TRUNC);
            if (fd < 0)
            {
                _exit(1);
            }
            size_t size = strlen(texts[i]);
            for (size_t at = 0; at < size; at += 4096)
            {
                size_t n = size - at < 4096 ? size - at : 4096;
                if (write(fd, texts[i] + at, n) != (ssize_t)n)
                {
                    _exit(1);
                }
                SleepSeconds(0.0005);
            }
            close(fd);
            SleepSeconds(0.02);
        }
        _exit(0);
    }

    int loads = 0, failures = 0, polls = 0;
    bool childDone = false;
    int childStatus = 0;
    double t0 = Now();
    // Poll while the child writes, then until the last version shows (bounded: the child needs well under a second).
    while (Now() - t0 < 20.0)
    {
        if (!childDone && waitpid(pid, &childStatus, WNOHANG) == pid)
        {
            childDone = true;
        }
        lsWorld* fresh = NULL;
        lsReloadEvent e = lsReloader_Poll(reloader, Now() - t0, shown, &fresh);
        ++polls;
        if (e == ls_reloadLoaded)
        {
            bool complete = false;
            for (int i = 1; i < versionCount; ++i)
            {
                complete = complete || lsWorld_Equal(fresh, versions[i]);
            }
            if (!complete)
            {
                fprintf(stderr, "  poll %d loaded a world that is none of the versions\n", polls);
            }
            lsDestroyWorld(shown);
            shown = fresh;
            ENSURE(complete);
            ++loads;
        }
        else if (e == ls_reloadFailed)
        {
            ++failures;
        }
        if (childDone && lsWorld_Equal(shown, versions[versionCount - 1]))
        {
            break;
        }
        SleepSeconds(0.0002);
    }
    if (!childDone)
    {
        kill(pid, SIGKILL);
        waitpid(pid, &childStatus, 0);
    }
    ENSURE(childDone && WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 0);
    ENSURE(lsWorld_Equal(shown, versions[versionCount - 1]));
    ENSURE(!lsReloader_HasError(reloader));
    printf("    %d polls: %d reloads of complete versions, %d half-written states refused\n", polls, loads, failures);

    lsDestroyReloader(reloader);
    lsDestroyWorld(shown);
    for (int i = 0; i < versionCount; ++i)
    {
        lsFreeString(texts[i]);
        lsDestroyWorld(versions[i]);
    }
    RemoveFolder(folder);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------------
// Hostile but valid JSON the loader's own LimitsTest does not build: a 100 MB text in memory, 10 million walls,
// a lidar of 10^12 beams, and a 5 MB string under an unknown key (kept in bounded memory, with a warning).

// head, then count copies of item joined by sep, then tail; from lsAlloc (free with lsFree(text, *size)).
static char* Build(const char* head, const char* item, const char* sep, long long count, const char* tail, size_t* size)
{
    size_t h = strlen(head), i = strlen(item), s = strlen(sep), t = strlen(tail);
    *size = h + (size_t)count * (i + s) + t + 1;
    char* text = lsAlloc(*size);
    char* p = text;
    memcpy(p, head, h);
    p += h;
    for (long long k = 0; k < count; ++k)
    {
        if (k > 0)
        {
            memcpy(p, sep, s);
            p += s;
        }
        memcpy(p, item, i);
        p += i;
    }
    memcpy(p, tail, t);
    p += t;
    *p = '\0';
    return text;
}

static int HostileInputTest(void)
{
    lsError err = {{0}};
    lsWarnings warnings;
    size_t size = 0;

    // 100 MB of valid JSON in memory: refused from its size, before any parsing.
    char* text = Build("{\"walls\": [], \"pad\": \"", "0123456789", "", 10000000, "\"}", &size);
    ENSURE(lsLoadWorldFromString(text, size - 1, "big.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "big.json: 100000024 bytes, over the limit of 64 MiB") != NULL);
    lsFree(text, size);

    // 10 million walls as one chain of 10 million points (60 MB, under the size limit): refused by the pre-scan's
    // value count, before cJSON builds a tree. (10 million separate wall objects are over 250 MB: the size limit.)
    text = Build("{\"walls\": [{\"points\": [", "[0,1]", ",", 10000001, "]}]}", &size);
    ENSURE(size - 1 < ((size_t)64 << 20));
    ENSURE(lsLoadWorldFromString(text, size - 1, "walls.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "walls.json:1:") == err.message);
    ENSURE(strstr(err.message, "more than 8000000 JSON values (the limit)") != NULL);
    lsFree(text, size);

    // A lidar of 10^12 beams (and other ways of writing a huge count).
    const char* beams[] = {"1e12", "1000000000000", "100001", "1e308", "-1", "2147483648"};
    for (int i = 0; i < (int)(sizeof beams / sizeof beams[0]); ++i)
    {
        char json[256];
        snprintf(json, sizeof json, "{\"walls\": [], \"robot\": {\"lidar\": {\"beams\": %s}}}", beams[i]);
        ENSURE(lsLoadWorldFromString(json, strlen(json), "beams.json", &err, NULL) == NULL);
        if (strstr(err.message, "robot.lidar.beams: expected an integer in [1, 100000]") == NULL)
        {
            fprintf(stderr, "  beams %s: %s\n", beams[i], err.message);
        }
        ENSURE(strstr(err.message, "beams.json:1:") == err.message);
        ENSURE(strstr(err.message, "robot.lidar.beams: expected an integer in [1, 100000]") != NULL);
    }

    // A 5 MB string under an unknown key: the world loads, with a warning naming the key, and frees it all.
    long long before = lsAllocatedBytes();
    text = Build("{\"walls\": [], \"comment\": \"", "abcdefghij", "", 500000, "\"}", &size);
    lsWorld* world = lsLoadWorldFromString(text, size - 1, "comment.json", &err, &warnings);
    if (world == NULL)
    {
        fprintf(stderr, "  %s\n", err.message);
    }
    ENSURE(world != NULL);
    ENSURE(warnings.count >= 1 && strstr(warnings.messages[0], "comment") != NULL);
    lsDestroyWorld(world);
    lsFree(text, size);
    ENSURE(lsAllocatedBytes() == before);

    // The same 5 MB as a wall's reflectance (a string where a number belongs): a clear type error.
    text = Build("{\"walls\": [{\"from\": [0, 0], \"to\": [1, 0], \"reflectance\": \"", "abcdefghij", "", 500000,
                 "\"}]}", &size);
    ENSURE(lsLoadWorldFromString(text, size - 1, "s.json", &err, NULL) == NULL);
    ENSURE(strstr(err.message, "s.json:1:") == err.message && strstr(err.message, "walls[0].reflectance") != NULL);
    lsFree(text, size);
    return 0;
}

// Saving respects what is there: through a symlink (relative, chained or dangling) the target is replaced
// atomically in its own folder and the link stays a link; owner, group and mode are kept, setuid and setgid are
// dropped; a NAME_MAX-long name can be saved; a folder, a device and a link loop are refused with a message; no
// temporary file is left after any of it.
static int SaveRespectsLinksTest(void)
{
    char root[] = "/tmp/ls_links_XXXXXX";
    ENSURE(mkdtemp(root) != NULL);
    char a[300], b[300], target[600], link[600], chain[600], dangling[600], fresh[600], loop1[600], loop2[600];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b", root);
    ENSURE(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
    snprintf(target, sizeof target, "%s/world.json", a);
    snprintf(link, sizeof link, "%s/link.json", b);
    snprintf(chain, sizeof chain, "%s/chain.json", b);
    snprintf(dangling, sizeof dangling, "%s/dangling.json", b);
    snprintf(fresh, sizeof fresh, "%s/fresh.json", a);
    snprintf(loop1, sizeof loop1, "%s/loop1.json", b);
    snprintf(loop2, sizeof loop2, "%s/loop2.json", b);
    lsError err = {{0}};
    lsWorld* world = lsCreateWorld();
    strcpy(world->name, "first");
    ENSURE(lsSaveWorld(world, target, &err));
    ENSURE(chmod(target, 06640) == 0);
    if (geteuid() == 0)
    {
        ENSURE(chown(target, 1234, 5678) == 0);
        ENSURE(chmod(target, 06640) == 0); // chown cleared the bits
    }
    ENSURE(symlink("../a/world.json", link) == 0);
    ENSURE(symlink("link.json", chain) == 0);
    ENSURE(symlink("../a/fresh.json", dangling) == 0);
    ENSURE(symlink("loop2.json", loop1) == 0 && symlink("loop1.json", loop2) == 0);

    strcpy(world->name, "through the link");
    ENSURE(lsSaveWorld(world, chain, &err));
    struct stat st;
    ENSURE(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    ENSURE(lstat(chain, &st) == 0 && S_ISLNK(st.st_mode));
    ENSURE(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640); // setuid and setgid dropped
    if (geteuid() == 0)
    {
        ENSURE(st.st_uid == 1234 && st.st_gid == 5678);
    }
    lsWorld* back = lsLoadWorld(link, &err, NULL);
    ENSURE(back != NULL && strcmp(back->name, "through the link") == 0);
    lsDestroyWorld(back);
    // A dangling link: its target is created, in the target's folder, and the link kept.
    ENSURE(lsSaveWorld(world, dangling, &err));
    ENSURE(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    ENSURE(stat(fresh, &st) == 0 && S_ISREG(st.st_mode));
    mode_t mask = umask(0);
    umask(mask);
    ENSURE((st.st_mode & 0777) == (0666 & ~mask));
    // Refusals, each with a message and nothing left behind.
    ENSURE(!lsSaveWorld(world, loop1, &err));
    ENSURE(strstr(err.message, "loop1.json: cannot follow the symbolic link") != NULL);
    ENSURE(!lsSaveWorld(world, a, &err));
    ENSURE(strstr(err.message, "/a: is a folder") != NULL);
    ENSURE(!lsSaveWorld(world, "/dev/full", &err));
    ENSURE(strcmp(err.message, "/dev/full: not saved (write failed: No space left on device)") == 0);
    // The longest file name the folder allows (NAME_MAX bytes): the temporary name is short.
    char longName[600];
    int prefix = snprintf(longName, sizeof longName, "%s/", a);
    memset(longName + prefix, 'n', NAME_MAX - 5);
    memcpy(longName + prefix + NAME_MAX - 5, ".json", sizeof ".json");
    ENSURE(strlen(longName + prefix) == NAME_MAX);
    ENSURE(lsSaveWorld(world, longName, &err));
    ENSURE(lsSaveWorld(world, longName, &err)); // and replaced
    char names[8][256];
    ENSURE(ListFolder(a, names, 8) == 3); // world.json, fresh.json, the long one: no temporary file
    ENSURE(ListFolder(b, names, 8) == 5); // the links only
    ENSURE(unlink(longName) == 0 && unlink(fresh) == 0 && unlink(target) == 0);
    ENSURE(unlink(link) == 0 && unlink(chain) == 0 && unlink(dangling) == 0 && unlink(loop1) == 0 &&
           unlink(loop2) == 0);
    ENSURE(rmdir(a) == 0 && rmdir(b) == 0 && rmdir(root) == 0);
    lsDestroyWorld(world);
    return 0;
}

int HardeningTest(void)
{
    RUN_SUBTEST(DiskFullTest);
    RUN_SUBTEST(ReadOnlyFolderTest);
    RUN_SUBTEST(KillDuringSaveTest);
    RUN_SUBTEST(ReloadWhileWritingTest);
    RUN_SUBTEST(HostileInputTest);
    RUN_SUBTEST(SaveRespectsLinksTest);
    return 0;
}

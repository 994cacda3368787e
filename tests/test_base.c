// Tests of base.c: the allocation counter, the seeded generator, messages, the bounded reader, exact degrees.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int AllocCounterTest(void)
{
    long long before = lsAllocatedBytes();
    char* p = lsAlloc(100);
    ENSURE(lsAllocatedBytes() == before + 100);
    p = lsRealloc(p, 100, 300);
    ENSURE(lsAllocatedBytes() == before + 300);
    lsFree(p, 300);
    char* s = lsStrdup("lidar");
    ENSURE(strcmp(s, "lidar") == 0);
    lsFreeString(s);
    ENSURE(lsAllocatedBytes() == before);
    return 0;
}

static int RngTest(void)
{
    lsRng a = lsMakeRng(42), b = lsMakeRng(42), c = lsMakeRng(43);
    ENSURE(lsRng_Next(&a) == lsRng_Next(&b));
    ENSURE(lsRng_Next(&a) != lsRng_Next(&c));
    // Moments of the uniform and Gaussian streams from a fixed seed.
    lsRng r = lsMakeRng(7);
    double sum = 0.0, sumSq = 0.0;
    int n = 200000;
    for (int i = 0; i < n; ++i)
    {
        double u = lsRng_Uniform(&r);
        ENSURE(u >= 0.0 && u < 1.0);
        double g = lsRng_Gaussian(&r);
        ENSURE(isfinite(g));
        sum += g;
        sumSq += g * g;
    }
    ENSURE_SMALL(sum / n, 0.01);
    ENSURE_SMALL(sumSq / n - 1.0, 0.02);
    return 0;
}

static int FailTest(void)
{
    lsError err = {{0}};
    ENSURE(lsFail(&err, "%s:%d: bad", "a.json", 3) == false);
    ENSURE(strcmp(err.message, "a.json:3: bad") == 0);
    ENSURE(lsFailNull(NULL, "ignored") == NULL);
    return 0;
}

// Writes n bytes of 'x' to path; false on failure.
static bool WriteBytes(const char* path, size_t n)
{
    FILE* f = fopen(path, "wb");
    if (f == NULL)
        return false;
    for (size_t i = 0; i < n; ++i)
        fputc('x', f);
    return fclose(f) == 0;
}

// The bounded reader: every kind of file that is not a small regular one is refused at once, never blocking and
// never reading more than the limit.
static int ReadFileTest(void)
{
    char folder[] = "/tmp/ls_readfile_XXXXXX";
    ENSURE(mkdtemp(folder) != NULL);
    char path[256], link[256], fifo[256], sparse[256];
    snprintf(path, sizeof path, "%s/small", folder);
    snprintf(link, sizeof link, "%s/link", folder);
    snprintf(fifo, sizeof fifo, "%s/fifo", folder);
    snprintf(sparse, sizeof sparse, "%s/sparse", folder);
    lsError err = {{0}};
    size_t size = 99;

    // Exactly at the limit reads; one byte over is refused from the size alone.
    ENSURE(WriteBytes(path, 100));
    char* text = lsReadFile(path, 100, &size, &err);
    ENSURE(text != NULL && size == 100 && text[100] == '\0' && text[99] == 'x');
    lsFree(text, size + 1);
    ENSURE(lsReadFile(path, 99, &size, &err) == NULL);
    ENSURE(strstr(err.message, "/small: 100 bytes, over the limit of 99 bytes") != NULL);
    // An empty file is one NUL.
    ENSURE(WriteBytes(path, 0));
    text = lsReadFile(path, 100, &size, &err);
    ENSURE(text != NULL && size == 0 && text[0] == '\0');
    lsFree(text, 1);
    // A symlink is followed.
    ENSURE(WriteBytes(path, 3));
    ENSURE(symlink("small", link) == 0);
    lsFileStamp stamp;
    bool changed = true;
    text = lsReadFileStamped(link, 100, &size, &stamp, &changed, &err);
    ENSURE(text != NULL && size == 3 && !changed && stamp.regular && stamp.size == 3);
    lsFree(text, size + 1);
    lsFileStamp statted;
    ENSURE(lsStatFile(link, &statted, NULL) && lsSameFileStamp(&stamp, &statted));
    // A dangling symlink, a missing file.
    ENSURE(unlink(path) == 0);
    ENSURE(lsReadFile(link, 100, &size, &err) == NULL);
    ENSURE(strstr(err.message, "/link: cannot open: No such file or directory") != NULL);
    int code = 0;
    ENSURE(!lsStatFile(link, &statted, &code) && code == ENOENT);
    // A FIFO with no writer: refused at once, not waited on.
    ENSURE(mkfifo(fifo, 0600) == 0);
    ENSURE(lsReadFile(fifo, 100, &size, &err) == NULL);
    ENSURE(strstr(err.message, "/fifo: not a regular file") != NULL);
    ENSURE(lsStatFile(fifo, &statted, NULL) && !statted.regular);
    // A folder, a device that never ends, a device with nothing.
    ENSURE(lsReadFile(folder, 100, &size, &err) == NULL);
    ENSURE(strstr(err.message, ": not a regular file") != NULL);
    ENSURE(lsReadFile("/dev/zero", LS_MAX_FILE_BYTES, &size, &err) == NULL);
    ENSURE(strcmp(err.message, "/dev/zero: not a regular file") == 0);
    ENSURE(lsReadFile("/dev/null", LS_MAX_FILE_BYTES, &size, &err) == NULL);
    ENSURE(strcmp(err.message, "/dev/null: not a regular file") == 0);
    // A 64 GiB sparse file: refused from its size, nothing allocated or read.
    int fd = open(sparse, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ENSURE(fd >= 0);
    ENSURE(ftruncate(fd, (off_t)64 << 30) == 0);
    close(fd);
    long long bytes = lsAllocatedBytes();
    ENSURE(lsReadFile(sparse, LS_MAX_FILE_BYTES, &size, &err) == NULL);
    ENSURE(strstr(err.message, "/sparse: 68719476736 bytes, over the limit of 64 MiB") != NULL);
    ENSURE(lsAllocatedBytes() == bytes);
    // Unreadable (skipped as root, who can read anything).
    if (geteuid() != 0)
    {
        ENSURE(WriteBytes(path, 3) && chmod(path, 0) == 0);
        ENSURE(lsReadFile(path, 100, &size, &err) == NULL);
        ENSURE(strstr(err.message, "/small: cannot open: Permission denied") != NULL);
    }
    unlink(path);
    unlink(link);
    unlink(fifo);
    unlink(sparse);
    ENSURE(rmdir(folder) == 0);
    return 0;
}

// Control characters (terminal escape sequences) in names, keys and paths never reach a terminal raw.
static int EscapeTest(void)
{
    char text[32] = "a\x1b[31mred\tb\x7f";
    lsEscapeControl(text, sizeof text);
    ENSURE(strcmp(text, "a\\x1B[31mred\\x09b\\x7F") == 0);
    char small[8] = "ab\x1b\x1b";
    lsEscapeControl(small, sizeof small);
    ENSURE(strcmp(small, "ab\\x1B") == 0); // cut at a whole escape
    lsError err = {{0}};
    lsFail(&err, "%s: unknown key '%s'", "w\x1b]0;title\x07.json", "k\x1b[2J");
    ENSURE(strcmp(err.message, "w\\x1B]0;title\\x07.json: unknown key 'k\\x1B[2J'") == 0);
    return 0;
}

// Degrees print as given and read back as the same radians.
static int ExactDegreesTest(void)
{
    double d = 0.0;
    ENSURE(lsExactDegrees(lsDegToRad(3.0), &d) && d == 3.0); // lsRadToDeg's 3.0000000000000004
    ENSURE(lsExactDegrees(lsDegToRad(-33.3), &d) && d == -33.3);
    ENSURE(lsExactDegrees(0.0, &d) && d == 0.0);
    lsRng rng = lsMakeRng(7);
    int exact = 0, n = 20000;
    for (int i = 0; i < n; ++i)
    {
        // A decimal of at most 7 digits comes back as itself; any finite angle maps back when it says so.
        double given = (double)(long long)lsRng_Range(&rng, -3.6e6, 3.6e6) / 1e4;
        ENSURE(lsExactDegrees(lsDegToRad(given), &d) && lsDegToRad(d) == lsDegToRad(given));
        ENSURE(fabs(d - given) <= 1e-12 * fabs(given));
        double radians = lsRng_Range(&rng, -1e3, 1e3);
        if (lsExactDegrees(radians, &d))
        {
            ENSURE(lsDegToRad(d) == radians);
            exact += 1;
        }
        else
        {
            ENSURE(d == lsRadToDeg(radians));
        }
    }
    ENSURE(exact > n / 2); // most doubles of radians have one of degrees
    return 0;
}

int BaseTest(void)
{
    RUN_SUBTEST(AllocCounterTest);
    RUN_SUBTEST(RngTest);
    RUN_SUBTEST(FailTest);
    RUN_SUBTEST(ReadFileTest);
    RUN_SUBTEST(EscapeTest);
    RUN_SUBTEST(ExactDegreesTest);
    return 0;
}

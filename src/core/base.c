// POSIX for open/fstat and the nanosecond times of struct stat.
#define _POSIX_C_SOURCE 200809L

#include "lidarsim/base.h"
#include "lidarsim/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

lsVersion lsGetVersion(void) { return (lsVersion){LS_VERSION_MAJOR, LS_VERSION_MINOR, LS_VERSION_PATCH}; }

char* lsStrdup(const char* s)
{
    size_t n = strlen(s) + 1;
    char* copy = lsAlloc(n);
    memcpy(copy, s, n);
    return copy;
}

void lsFreeString(char* s)
{
    if (s != NULL)
    {
        lsFree(s, strlen(s) + 1);
    }
}

void lsEscapeControl(char* text, size_t capacity)
{
    LS_ASSERT(text != NULL && capacity > 0);
    char escaped[1024];
    size_t out = 0;
    bool changed = false;
    for (const unsigned char* p = (const unsigned char*)text; *p != '\0' && out + 5 <= sizeof escaped; ++p)
    {
        if (*p < 0x20 || *p == 0x7f)
        {
            if (out + 4 >= capacity)
            {
                break; // cut at a whole escape
            }
            snprintf(escaped + out, 5, "\\x%02X", *p);
            out += 4;
            changed = true;
        }
        else
        {
            escaped[out++] = (char)*p;
        }
    }
    if (!changed)
    {
        return;
    }
    out = out < capacity - 1 ? out : capacity - 1;
    memcpy(text, escaped, out);
    text[out] = '\0';
}

bool lsFail(lsError* err, const char* format, ...)
{
    if (err != NULL)
    {
        va_list args;
        va_start(args, format);
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
        lsEscapeControl(err->message, sizeof err->message);
    }
    return false;
}

void* lsFailNull(lsError* err, const char* format, ...)
{
    if (err != NULL)
    {
        va_list args;
        va_start(args, format);
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
        lsEscapeControl(err->message, sizeof err->message);
    }
    return NULL;
}

bool lsParseNumber(const char* text, double* out)
{
    // A decimal as people type one: [+-] digits with at most one point (.5 and 5. too) and an optional exponent. Not
    // strtod's other forms (hexadecimal, inf, nan, leading spaces), so that a flag reads a number as a world file
    // would; an underflow reads as the nearest double (0 or subnormal), as the world loader reads it.
    const char* p = text + (*text == '+' || *text == '-');
    int digits = 0, points = 0;
    for (;; ++p)
    {
        if (*p >= '0' && *p <= '9')
            digits += 1;
        else if (*p == '.' && points == 0)
            points += 1;
        else
            break;
    }
    if (digits == 0)
    {
        return false; // "", "-", "."
    }
    if (*p == 'e' || *p == 'E')
    {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (!(*p >= '0' && *p <= '9'))
        {
            return false;
        }
        while (*p >= '0' && *p <= '9')
        {
            ++p;
        }
    }
    char* end = NULL;
    double v = strtod(text, &end);
    if (*p != '\0' || end != p || !isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

bool lsParseInteger(const char* text, long long lo, long long hi, long long* out)
{
    char* end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    {
        return false;
    }
    *out = v;
    return true;
}

static lsFileStamp MakeStamp(const struct stat* st)
{
    lsFileStamp stamp;
    memset(&stamp, 0, sizeof stamp);
    stamp.regular = S_ISREG(st->st_mode);
    stamp.device = (uint64_t)st->st_dev;
    stamp.inode = (uint64_t)st->st_ino;
    stamp.size = (int64_t)st->st_size;
    stamp.modifiedSeconds = (int64_t)st->st_mtim.tv_sec;
    stamp.modifiedNanoseconds = (int64_t)st->st_mtim.tv_nsec;
    stamp.changedSeconds = (int64_t)st->st_ctim.tv_sec;
    stamp.changedNanoseconds = (int64_t)st->st_ctim.tv_nsec;
    return stamp;
}

bool lsStatFile(const char* path, lsFileStamp* stamp, int* errorCode)
{
    struct stat st;
    if (stat(path, &st) != 0)
    {
        if (errorCode != NULL)
        {
            *errorCode = errno;
        }
        return false;
    }
    *stamp = MakeStamp(&st);
    return true;
}

bool lsSameFileStamp(const lsFileStamp* a, const lsFileStamp* b)
{
    return a->regular == b->regular && a->device == b->device && a->inode == b->inode && a->size == b->size &&
           a->modifiedSeconds == b->modifiedSeconds && a->modifiedNanoseconds == b->modifiedNanoseconds &&
           a->changedSeconds == b->changedSeconds && a->changedNanoseconds == b->changedNanoseconds;
}

// Reads exactly `size` bytes (a regular file ignores O_NONBLOCK, so EAGAIN cannot happen); false on an error or
// an early end of file (the file shrank).
static bool ReadExactly(int fd, char* buffer, size_t size, int* code)
{
    size_t used = 0;
    while (used < size)
    {
        ssize_t got = read(fd, buffer + used, size - used);
        if (got < 0 && errno == EINTR)
        {
            continue;
        }
        if (got <= 0)
        {
            *code = got < 0 ? errno : 0;
            return false;
        }
        used += (size_t)got;
    }
    return true;
}

char* lsReadFileStamped(const char* path, size_t maxBytes, size_t* size, lsFileStamp* stamp, bool* changed,
                        lsError* err)
{
    if (changed != NULL)
    {
        *changed = false;
    }
    if (path == NULL || size == NULL)
    {
        return lsFailNull(err, "%s", path == NULL ? "no file name given" : "no size given to fill");
    }
    if (path[0] == '\0')
    {
        // A script's unset variable ("lidarsim check $WORLD"): ": cannot open: ..." named nothing.
        return lsFailNull(err, "no file name given (an empty name)");
    }
    // O_NONBLOCK: opening a FIFO without a writer, or a device, must not wait; fstat then refuses them.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        int code = errno;
        return lsFailNull(err, "%s: cannot open: %s", path, strerror(code));
    }
    struct stat before;
    if (fstat(fd, &before) != 0)
    {
        int code = errno;
        close(fd);
        return lsFailNull(err, "%s: cannot read: %s", path, strerror(code));
    }
    if (!S_ISREG(before.st_mode))
    {
        close(fd);
        return lsFailNull(err, "%s: not a regular file", path);
    }
    // The size is checked before reading, so a huge or sparse file costs nothing.
    if (before.st_size < 0 || (unsigned long long)before.st_size > maxBytes)
    {
        close(fd);
        if (maxBytes % ((size_t)1 << 20) == 0)
        {
            return lsFailNull(err, "%s: %lld bytes, over the limit of %zu MiB", path, (long long)before.st_size,
                              maxBytes >> 20);
        }
        return lsFailNull(err, "%s: %lld bytes, over the limit of %zu bytes", path, (long long)before.st_size,
                          maxBytes);
    }
    size_t length = (size_t)before.st_size;
    char* text = lsAlloc(length + 1);
    int code = 0;
    bool ok = ReadExactly(fd, text, length, &code);
    char extra;
    // One more byte must give end of file: a file that grew while being read is not taken whole.
    ssize_t more = 0;
    if (ok)
    {
        do
        {
            more = read(fd, &extra, 1);
        } while (more < 0 && errno == EINTR);
        code = more < 0 ? errno : 0;
    }
    struct stat after;
    bool same = ok && more == 0 && fstat(fd, &after) == 0;
    close(fd);
    lsFileStamp opened = MakeStamp(&before);
    if (same)
    {
        lsFileStamp finished = MakeStamp(&after);
        same = lsSameFileStamp(&opened, &finished);
    }
    if (!same)
    {
        lsFree(text, length + 1);
        if (code != 0)
        {
            return lsFailNull(err, "%s: cannot read: %s", path, strerror(code));
        }
        if (changed != NULL)
        {
            *changed = true;
        }
        return lsFailNull(err, "%s: changed while being read", path);
    }
    text[length] = '\0';
    *size = length;
    if (stamp != NULL)
    {
        *stamp = opened;
    }
    return text;
}

char* lsReadFile(const char* path, size_t maxBytes, size_t* size, lsError* err)
{
    return lsReadFileStamped(path, maxBytes, size, NULL, NULL, err);
}

static uint64_t SplitMix64(uint64_t* x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

lsRng lsMakeRng(uint64_t seed)
{
    lsRng rng;
    for (int i = 0; i < 4; ++i)
    {
        rng.s[i] = SplitMix64(&seed);
    }
    return rng;
}

static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t lsRng_Next(lsRng* rng)
{
    uint64_t* s = rng->s;
    uint64_t result = Rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = Rotl(s[3], 45);
    return result;
}

double lsRng_Uniform(lsRng* rng)
{
    // The top 53 bits make every double in [0, 1) with spacing 2^-53 equally likely.
    return (double)(lsRng_Next(rng) >> 11) * 0x1.0p-53;
}

double lsRng_Range(lsRng* rng, double lo, double hi) { return lo + (hi - lo) * lsRng_Uniform(rng); }

double lsRng_Gaussian(lsRng* rng)
{
    // 1 - u lies in (0, 1], so the logarithm is finite.
    double u1 = 1.0 - lsRng_Uniform(rng);
    double u2 = lsRng_Uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void lsFormatNumber(char* buffer, size_t capacity, double v)
{
    LS_ASSERT(isfinite(v) && capacity >= 32);
    for (int precision = 15; precision <= 17; ++precision)
    {
        snprintf(buffer, capacity, "%.*g", precision, v);
        if (strtod(buffer, NULL) == v)
        {
            return;
        }
    }
}

bool lsExactDegrees(double radians, double* degrees)
{
    LS_ASSERT(isfinite(radians) && degrees != NULL);
    double rounded = lsRadToDeg(radians);
    *degrees = rounded;
    if (!isfinite(rounded))
    {
        return false;
    }
    char buffer[40];
    for (int precision = 1; precision <= 17; ++precision)
    {
        // The conversion rounded to `precision` significant digits: the first that maps back is the shortest.
        snprintf(buffer, sizeof buffer, "%.*g", precision, rounded);
        double d = strtod(buffer, NULL);
        if (lsDegToRad(d) == radians)
        {
            *degrees = d;
            return true;
        }
    }
    // The rounded conversion's neighbours: multiplying by pi/180 rounds, so the double that maps back may lie a few
    // units in the last place away.
    double down = rounded, up = rounded;
    for (int step = 0; step < 4; ++step)
    {
        down = nextafter(down, -HUGE_VAL);
        up = nextafter(up, HUGE_VAL);
        if (isfinite(down) && lsDegToRad(down) == radians)
        {
            *degrees = down;
            return true;
        }
        if (isfinite(up) && lsDegToRad(up) == radians)
        {
            *degrees = up;
            return true;
        }
    }
    return false;
}

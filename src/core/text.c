// lidarsim core: the text helpers of text.h.
#include "core/text.h"

#include "lidarsim/base.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void lsText_Append(lsText* text, const char* s, size_t n)
{
    if (text->data == NULL || text->length + n + 1 > text->capacity)
    {
        size_t grown = text->capacity < 4096 ? 4096 : text->capacity;
        while (text->length + n + 1 > grown)
        {
            grown *= 2;
        }
        text->data = lsRealloc(text->data, text->capacity, grown);
        text->capacity = grown;
    }
    memcpy(text->data + text->length, s, n);
    text->length += n;
    text->data[text->length] = '\0';
}

int lsUtf8Length(const char* s, size_t n)
{
    const unsigned char* u = (const unsigned char*)s;
    if (n == 0)
    {
        return 0;
    }
    if (u[0] < 0x80)
    {
        return 1;
    }
    // The second byte's range depends on the first (RFC 3629's table): E0 and F0 exclude the overlong forms, ED the
    // surrogates, F4 what lies above U+10FFFF.
    int length;
    unsigned char lo = 0x80, hi = 0xBF;
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
    {
        length = 2;
    }
    else if (u[0] >= 0xE0 && u[0] <= 0xEF)
    {
        length = 3;
        lo = u[0] == 0xE0 ? 0xA0 : 0x80;
        hi = u[0] == 0xED ? 0x9F : 0xBF;
    }
    else if (u[0] >= 0xF0 && u[0] <= 0xF4)
    {
        length = 4;
        lo = u[0] == 0xF0 ? 0x90 : 0x80;
        hi = u[0] == 0xF4 ? 0x8F : 0xBF;
    }
    else
    {
        return 0;
    }
    if (n < (size_t)length || u[1] < lo || u[1] > hi)
    {
        return 0;
    }
    for (int k = 2; k < length; ++k)
    {
        if (u[k] < 0x80 || u[k] > 0xBF)
        {
            return 0;
        }
    }
    return length;
}

bool lsUtf8Valid(const char* s)
{
    size_t left = strlen(s);
    while (left > 0)
    {
        int n = lsUtf8Length(s, left);
        if (n == 0)
        {
            return false;
        }
        s += n, left -= (size_t)n;
    }
    return true;
}

void lsNameFromPath(const char* path, const char* fallback, char* out, size_t capacity)
{
    LS_ASSERT(capacity > 0);
    const char* base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    size_t length = strlen(base);
    const char* dot = strrchr(base, '.');
    if (dot != NULL && dot != base)
    {
        length = (size_t)(dot - base);
    }
    length = length < capacity ? length : capacity - 1;
    memcpy(out, base, length);
    out[length] = '\0';
    for (size_t i = 0; i < length;)
    {
        int n = lsUtf8Length(out + i, length - i);
        if (n == 0)
        {
            out[i] = '?';
            n = 1;
        }
        i += (size_t)n;
    }
    if (length == 0)
    {
        snprintf(out, capacity, "%s", fallback);
    }
}

int lsEditDistance(const char* a, const char* b, bool ignoreCase)
{
    enum
    {
        cap = 64
    };
    size_t n = strlen(a), m = strlen(b);
    if (n >= cap || m >= cap)
    {
        return cap;
    }
    unsigned char x[cap], y[cap];
    for (size_t i = 0; i < n; ++i)
    {
        x[i] = (unsigned char)a[i];
        x[i] = ignoreCase ? (unsigned char)tolower(x[i]) : x[i];
    }
    for (size_t j = 0; j < m; ++j)
    {
        y[j] = (unsigned char)b[j];
        y[j] = ignoreCase ? (unsigned char)tolower(y[j]) : y[j];
    }
    int d[cap][cap]; // 16 KB on the stack, once per suggestion
    for (size_t i = 0; i <= n; ++i)
    {
        d[i][0] = (int)i;
    }
    for (size_t j = 0; j <= m; ++j)
    {
        d[0][j] = (int)j;
    }
    for (size_t i = 1; i <= n; ++i)
    {
        for (size_t j = 1; j <= m; ++j)
        {
            int cost = x[i - 1] == y[j - 1] ? 0 : 1;
            int best = d[i - 1][j] + 1;
            best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
            best = d[i - 1][j - 1] + cost < best ? d[i - 1][j - 1] + cost : best;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] && d[i - 2][j - 2] + 1 < best)
            {
                best = d[i - 2][j - 2] + 1;
            }
            d[i][j] = best;
        }
    }
    return d[n][m];
}

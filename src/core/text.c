// lidarsim core: the text helpers of text.h.
#include "core/text.h"

#include "lidarsim/base.h"

#include <ctype.h>
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

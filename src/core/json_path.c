// Locating a JSON path ("walls[3].to") in the text, for error messages: cJSON nodes carry no offsets, so the
// loader re-scans the text along the path only when it reports an error or a warning.
#include "core/json_path.h"

#include <string.h>

size_t lsJsonSkipSpace(const char* t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
    {
        ++i;
    }
    return i;
}

// (declared in json_path.h)
size_t lsJsonSkipString(const char* t, size_t n, size_t i)
{
    for (++i; i < n; ++i)
    {
        if (t[i] == '\\')
        {
            ++i;
        }
        else if (t[i] == '"')
        {
            return i + 1;
        }
    }
    return n;
}

// (declared in json_path.h)
size_t lsJsonSkipValue(const char* t, size_t n, size_t i)
{
    if (i >= n)
    {
        return n;
    }
    if (t[i] == '"')
    {
        return lsJsonSkipString(t, n, i);
    }
    if (t[i] == '{' || t[i] == '[')
    {
        int depth = 0;
        while (i < n)
        {
            char c = t[i];
            if (c == '"')
            {
                i = lsJsonSkipString(t, n, i);
                continue;
            }
            if (c == '{' || c == '[')
            {
                ++depth;
            }
            else if (c == '}' || c == ']')
            {
                if (--depth == 0)
                {
                    return i + 1;
                }
            }
            ++i;
        }
        return n;
    }
    while (i < n && t[i] != ',' && t[i] != ']' && t[i] != '}' && t[i] != ' ' && t[i] != '\n' && t[i] != '\t' &&
           t[i] != '\r')
    {
        ++i;
    }
    return i;
}

// Offset of the value at the path (or of its key when atKey and the last part is a key); -1 when not found.
long lsFindJsonPath(const char* t, size_t n, const lsJsonPathPart* parts, int depth, bool atKey)
{
    size_t i = lsJsonSkipSpace(t, n, 0);
    for (int d = 0; d < depth; ++d)
    {
        if (parts[d].key != NULL)
        {
            if (i >= n || t[i] != '{')
            {
                return -1;
            }
            size_t keyLength = strlen(parts[d].key);
            int skip = parts[d].index; // members with this key to pass before the one wanted (a duplicate key)
            ++i;
            for (;;)
            {
                i = lsJsonSkipSpace(t, n, i);
                if (i >= n || t[i] != '"')
                {
                    return -1;
                }
                size_t keyStart = i;
                size_t keyEnd = lsJsonSkipString(t, n, i);
                // Raw comparison: a key written with escapes is not found, and the location is simply omitted.
                bool match =
                    keyEnd - keyStart == keyLength + 2 && memcmp(t + keyStart + 1, parts[d].key, keyLength) == 0;
                i = lsJsonSkipSpace(t, n, keyEnd);
                if (i >= n || t[i] != ':')
                {
                    return -1;
                }
                i = lsJsonSkipSpace(t, n, i + 1);
                if (match && skip-- == 0)
                {
                    if (atKey && d == depth - 1)
                    {
                        return (long)keyStart;
                    }
                    break;
                }
                i = lsJsonSkipSpace(t, n, lsJsonSkipValue(t, n, i));
                if (i >= n || t[i] != ',')
                {
                    return -1;
                }
                ++i;
            }
        }
        else
        {
            if (i >= n || t[i] != '[')
            {
                return -1;
            }
            i = lsJsonSkipSpace(t, n, i + 1);
            for (int k = 0; k < parts[d].index; ++k)
            {
                i = lsJsonSkipSpace(t, n, lsJsonSkipValue(t, n, i));
                if (i >= n || t[i] != ',')
                {
                    return -1;
                }
                i = lsJsonSkipSpace(t, n, i + 1);
            }
        }
    }
    return i < n ? (long)i : -1;
}

// 1-based line and column (in bytes) of an offset.
void lsLineColumn(const char* t, size_t offset, int* line, int* column)
{
    int l = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < offset; ++i)
    {
        if (t[i] == '\n')
        {
            ++l;
            lineStart = i + 1;
        }
    }
    *line = l;
    *column = (int)(offset - lineStart) + 1;
}

// lidarsim core: loading world files. The loader validates every value and names the place of the first error.
// Format: docs/world-format.md.
//
// cJSON nodes carry no offsets, so the loader keeps the JSON path it is at (walls[3].to) and, only when it reports
// an error or a warning, re-scans the text along that path (json_path.c) to turn it into line:column.
#include "lidarsim/world.h"

#include "core/json_path.h"
#include "core/limits.h"
#include "core/recording.h" // lsFailIfRecording
#include "core/text.h"
#include "core/world_fields.h"
#include "lidarsim/geometry.h"
#include "lidarsim/map.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Limits on hostile input (issue 7); docs/world-format.md states them.
#define LS_MAX_JSON_VALUES 8000000
#define LS_MAX_SEGMENTS LS_MAX_WORLD_SEGMENTS
#define LS_MAX_OBJECTS 100000
#define LS_MAX_PATH_POINTS 1000000
#define LS_MAX_SEED 9007199254740992.0 // 2^53: larger seeds are written as strings, which a double cannot hold

// ---------------------------------------------------------------------------------------------------------------------
// The loader's state

typedef struct Loader
{
    const char* text; ///< the parsed text (NUL-terminated copy)
    size_t size;
    const char* label; ///< file name for messages
    lsError* err;
    lsWarnings* warnings;
    lsJsonPathPart path[LS_MAX_PATH_DEPTH];
    int depth;
    lsVec2* scratch; ///< point buffer reused by every point list
    int scratchCapacity;
    struct PathId* pathIds; ///< the paths sorted by id (duplicates and vehicles' look-ups in n log n)
    int pathIdCount;
    long long segments;   ///< wall segments so far (bounded by LS_MAX_SEGMENTS in all)
    long long pathPoints; ///< path points so far (bounded by LS_MAX_PATH_POINTS in all)
    lsWorld* world;
} Loader;

typedef struct PathId
{
    const char* id;
    int index;
} PathId;

// By id, then by index, so equal ids sit together in file order.
static int ComparePathIds(const void* a, const void* b)
{
    const PathId* pa = a;
    const PathId* pb = b;
    int c = strcmp(pa->id, pb->id);
    return c != 0 ? c : (pa->index > pb->index) - (pa->index < pb->index);
}

static int CompareIdToPath(const void* key, const void* element)
{
    return strcmp((const char*)key, ((const PathId*)element)->id);
}

static void Enter(Loader* L, const char* key)
{
    LS_ASSERT(L->depth < LS_MAX_PATH_DEPTH);
    L->path[L->depth++] = (lsJsonPathPart){key, 0};
}

static void EnterIndex(Loader* L, int index)
{
    LS_ASSERT(L->depth < LS_MAX_PATH_DEPTH);
    L->path[L->depth++] = (lsJsonPathPart){NULL, index};
}

static void Leave(Loader* L)
{
    LS_ASSERT(L->depth > 0);
    L->depth -= 1;
}

// Writes the current path ("walls[3].to") into buffer.
static void FormatPath(const Loader* L, int depth, char* buffer, size_t capacity)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int d = 0; d < depth && used < capacity; ++d)
    {
        int written;
        if (L->path[d].key != NULL)
        {
            written = snprintf(buffer + used, capacity - used, "%s%.60s", d > 0 ? "." : "", L->path[d].key);
        }
        else
        {
            written = snprintf(buffer + used, capacity - used, "[%d]", L->path[d].index);
        }
        if (written < 0)
        {
            break;
        }
        used += (size_t)written;
    }
}

// "FILE:LINE:COL: PATH: " (or "FILE: PATH: " when the place cannot be found) for the first depth parts of the path.
static void FormatPlace(const Loader* L, int depth, bool atKey, char* buffer, size_t capacity)
{
    // A key is reported as a member of its object ("walls[2]: unknown key 'radus'"), located at the key itself.
    int shown = atKey ? depth - 1 : depth;
    char path[160];
    FormatPath(L, shown, path, sizeof path);
    long offset = lsFindJsonPath(L->text, L->size, L->path, depth, atKey);
    const char* separator = shown > 0 ? ": " : "";
    if (offset >= 0)
    {
        int line, column;
        lsLineColumn(L->text, (size_t)offset, &line, &column);
        snprintf(buffer, capacity, "%s:%d:%d: %s%s", L->label, line, column, path, separator);
    }
    else
    {
        snprintf(buffer, capacity, "%s: %s%s", L->label, path, separator);
    }
}

// Fails the load with a message about the value at the current path.
static bool Fail(Loader* L, const char* format, ...) __attribute__((format(printf, 2, 3)));
static bool Fail(Loader* L, const char* format, ...)
{
    if (L->err == NULL)
    {
        return false;
    }
    char place[256];
    FormatPlace(L, L->depth, false, place, sizeof place);
    char message[320];
    va_list args;
    va_start(args, format);
    // clang-tidy 14's va_list checker keeps state from the file analysed before this one (this file alone is
    // clean): va_start is right above.
    vsnprintf(message, sizeof message, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    return lsFail(L->err, "%s%s", place, message);
}

static void Warn(Loader* L, bool atKey, const char* format, ...) __attribute__((format(printf, 3, 4)));
static void Warn(Loader* L, bool atKey, const char* format, ...)
{
    if (L->warnings == NULL)
    {
        return;
    }
    if (L->warnings->count >= (int)(sizeof L->warnings->messages / sizeof L->warnings->messages[0]))
    {
        L->warnings->dropped += 1;
        return;
    }
    char place[256];
    FormatPlace(L, L->depth, atKey, place, sizeof place);
    char message[200];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args); // NOLINT(clang-analyzer-valist.Uninitialized): as in Fail
    va_end(args);
    char full[sizeof place + sizeof message];
    snprintf(full, sizeof full, "%s%s", place, message);
    // Cut to the slot's size by hand: a long key can make the message longer than a slot.
    char* slot = L->warnings->messages[L->warnings->count++];
    size_t length = strlen(full);
    length = length < sizeof L->warnings->messages[0] - 1 ? length : sizeof L->warnings->messages[0] - 1;
    memcpy(slot, full, length);
    slot[length] = '\0';
    lsEscapeControl(slot, sizeof L->warnings->messages[0]);
}

// ---------------------------------------------------------------------------------------------------------------------
// Unknown keys

#define LS_MAX_KNOWN_KEYS 16

// Warns about members of object not among the table's keys, suggesting the nearest known key, and about
// known keys given twice (cJSON keeps both; the loader reads the first). Linear in the number of members, so an
// object with millions of keys costs no more than reading them; suggestions are only worked out for warnings
// that are kept.
static void CheckKeys(Loader* L, const cJSON* object, const lsFieldTable* table)
{
    LS_ASSERT(table->count <= LS_MAX_KNOWN_KEYS);
    bool seen[LS_MAX_KNOWN_KEYS] = {false};
    for (const cJSON* child = object->child; child != NULL; child = child->next)
    {
        const char* key = child->string;
        int match = -1;
        for (int k = 0; k < table->count; ++k)
        {
            if (strcmp(key, table->fields[k].key) == 0)
            {
                match = k;
                break;
            }
        }
        if (match >= 0 && !seen[match])
        {
            seen[match] = true;
            continue;
        }
        if (L->warnings == NULL)
        {
            continue;
        }
        if (L->warnings->count >= (int)(sizeof L->warnings->messages / sizeof L->warnings->messages[0]))
        {
            L->warnings->dropped += 1;
            continue;
        }
        Enter(L, key);
        // Located at this member, not the first with its key (a duplicate's first is the one used): count the
        // members before it with the same key. Linear, but only for the few warnings kept.
        int occurrence = 0;
        for (const cJSON* before = object->child; before != child; before = before->next)
        {
            occurrence += strcmp(before->string, key) == 0 ? 1 : 0;
        }
        L->path[L->depth - 1].index = occurrence;
        if (match >= 0)
        {
            Warn(L, true, "duplicate key '%.40s' (the first one is used)", key);
            Leave(L);
            continue;
        }
        const char* nearest = NULL;
        int nearestDistance = 99;
        for (int k = 0; k < table->count; ++k)
        {
            // Ignoring case: "DT" and "Robot" are typos of "dt" and "robot".
            int distance = lsEditDistance(key, table->fields[k].key, true);
            if (distance < nearestDistance)
            {
                nearestDistance = distance;
                nearest = table->fields[k].key;
            }
        }
        // A suggestion is worth giving when at most a third of the key (and at least one letter) differs.
        int allowed = (int)strlen(nearest != NULL ? nearest : "") / 3;
        allowed = allowed < 1 ? 1 : allowed;
        if (nearest != NULL && nearestDistance <= allowed)
        {
            Warn(L, true, "unknown key '%.40s' (did you mean '%s'?)", key, nearest);
        }
        else
        {
            Warn(L, true, "unknown key '%.40s'", key);
        }
        Leave(L);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Values. Each reader takes the parent object and a key, leaves *out unchanged when the key is absent (the default
// stays) and fails with the key's path otherwise.

// Every number is checked against its quantity's bound in the one table of limits (core/limits.h).
static const char* Expected(lsQuantity quantity, char* buffer, size_t capacity)
{
    return lsLimit_Describe(quantity, buffer, capacity);
}

static const cJSON* Member(const cJSON* object, const char* key)
{
    return cJSON_GetObjectItemCaseSensitive(object, key);
}

static bool Require(Loader* L, const cJSON* object, const char* key)
{
    if (Member(object, key) == NULL)
    {
        return Fail(L, "missing key '%s'", key);
    }
    return true;
}

static bool ReadNumber(Loader* L, const cJSON* object, const char* key, lsQuantity quantity, double* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!cJSON_IsNumber(item) || !lsLimit_Holds(quantity, item->valuedouble))
    {
        char text[96];
        return Fail(L, "expected %s", Expected(quantity, text, sizeof text));
    }
    *out = item->valuedouble;
    Leave(L);
    return true;
}

static bool ReadBool(Loader* L, const cJSON* object, const char* key, bool* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!cJSON_IsBool(item))
    {
        return Fail(L, "expected true or false");
    }
    *out = cJSON_IsTrue(item);
    Leave(L);
    return true;
}

// An angle (the item itself, path already entered): a number of degrees, or a string "X deg" / "X rad" (the saver
// writes the radian form only when no decimal number of degrees converts back to exactly the stored radians).
static bool ParseAngle(Loader* L, const cJSON* item, lsQuantity quantity, double* radians)
{
    double degrees = (double)NAN;
    if (cJSON_IsNumber(item))
    {
        degrees = item->valuedouble;
        *radians = lsDegToRad(degrees);
    }
    else if (cJSON_IsString(item))
    {
        const char* s = item->valuestring;
        char* end = NULL;
        double value = strtod(s, &end);
        // A decimal number as JSON writes one (strtod also reads " 90", "0x10", "inf" and "nan").
        if (end != s && (*s == '-' || (*s >= '0' && *s <= '9')) && strspn(s, "-+0123456789.eE") == (size_t)(end - s))
        {
            while (*end == ' ')
            {
                ++end;
            }
            if (strcmp(end, "rad") == 0 && isfinite(value))
            {
                *radians = value;
                degrees = value * (180.0 / LS_PI);
            }
            else if (strcmp(end, "deg") == 0)
            {
                degrees = value;
                *radians = lsDegToRad(value);
            }
        }
    }
    if (isnan(degrees) || !isfinite(*radians))
    {
        return Fail(L, "expected an angle: finite degrees, or a string \"X deg\" or \"X rad\"");
    }
    // An angle written in radians is held to the bound in radians too, so "6.283185307179586 rad" is a full circle
    // although its conversion to degrees rounds above 360.
    const lsLimit* limit = lsGetLimit(quantity);
    bool inRadians = !cJSON_IsNumber(item) && strstr(item->valuestring, "rad") != NULL;
    bool holds = lsLimit_Holds(quantity, degrees) ||
                 (inRadians && (limit->loOpen ? *radians > lsDegToRad(limit->lo) : *radians >= lsDegToRad(limit->lo)) &&
                  (limit->hiOpen ? *radians < lsDegToRad(limit->hi) : *radians <= lsDegToRad(limit->hi)));
    if (!holds)
    {
        char text[96];
        return Fail(L, "expected %s", Expected(quantity, text, sizeof text));
    }
    return true;
}

static bool ReadAngle(Loader* L, const cJSON* object, const char* key, lsQuantity quantity, double* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    double radians = 0.0;
    if (!ParseAngle(L, item, quantity, &radians))
    {
        return false;
    }
    *out = radians;
    Leave(L);
    return true;
}

// [x, y] (the item itself, path already entered), each within the quantity's bound.
static bool ParseVec2(Loader* L, const cJSON* item, lsQuantity quantity, lsVec2* out)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2 || !cJSON_IsNumber(item->child) ||
        !cJSON_IsNumber(item->child->next) || !isfinite(item->child->valuedouble) ||
        !isfinite(item->child->next->valuedouble))
    {
        return Fail(L, "expected [x, y], two finite numbers");
    }
    if (!lsLimit_Holds(quantity, item->child->valuedouble) || !lsLimit_Holds(quantity, item->child->next->valuedouble))
    {
        char text[96];
        return Fail(L, "expected [x, y], each %s", Expected(quantity, text, sizeof text));
    }
    *out = lsV(item->child->valuedouble, item->child->next->valuedouble);
    return true;
}

static bool ReadVec2(Loader* L, const cJSON* object, const char* key, lsQuantity quantity, lsVec2* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!ParseVec2(L, item, quantity, out))
    {
        return false;
    }
    Leave(L);
    return true;
}

// [x, y, degrees] (pose: world coordinates; lidar mount: robot-frame offsets).
static bool ReadPose(Loader* L, const cJSON* object, const char* key, lsQuantity quantity, lsVec2* position,
                     double* angle)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3 || !cJSON_IsNumber(item->child) ||
        !cJSON_IsNumber(item->child->next) || !isfinite(item->child->valuedouble) ||
        !isfinite(item->child->next->valuedouble))
    {
        return Fail(L, "expected [x, y, theta], finite metres and degrees");
    }
    if (!lsLimit_Holds(quantity, item->child->valuedouble) || !lsLimit_Holds(quantity, item->child->next->valuedouble))
    {
        char text[96];
        return Fail(L, "expected [x, y, theta], x and y each %s", Expected(quantity, text, sizeof text));
    }
    EnterIndex(L, 2);
    if (!ParseAngle(L, item->child->next->next, ls_quantityAngle, angle))
    {
        return false;
    }
    Leave(L);
    *position = lsV(item->child->valuedouble, item->child->next->valuedouble);
    Leave(L);
    return true;
}

static bool ReadPositive2(Loader* L, const cJSON* object, const char* key, lsVec2* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    lsVec2 v;
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2 || !cJSON_IsNumber(item->child) ||
        !cJSON_IsNumber(item->child->next) || !lsLimit_Holds(ls_quantitySize, item->child->valuedouble) ||
        !lsLimit_Holds(ls_quantitySize, item->child->next->valuedouble))
    {
        char text[96];
        return Fail(L, "expected [w, h], each %s", Expected(ls_quantitySize, text, sizeof text));
    }
    v = lsV(item->child->valuedouble, item->child->next->valuedouble);
    *out = v;
    Leave(L);
    return true;
}

// A string (at most capacity - 1 bytes) copied into out.
static bool ReadString(Loader* L, const cJSON* object, const char* key, char* out, size_t capacity)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!cJSON_IsString(item))
    {
        return Fail(L, "expected a string");
    }
    size_t length = strlen(item->valuestring);
    if (length >= capacity)
    {
        return Fail(L, "string of %zu bytes is too long (at most %zu)", length, capacity - 1);
    }
    memcpy(out, item->valuestring, length + 1);
    Leave(L);
    return true;
}

// Whether the JSON number at text is exactly the integer value: its digits (the fraction's too) and exponent, with
// the leading zeros and the exponent's share of trailing zeros taken out, are value's digits at exponent 0. A double
// above 2^50 or so cannot tell 2^53 + 1 from 2^53, nor 2^52 + 0.4 from 2^52: the file's digits can.
static bool IsExactInteger(const char* text, uint64_t value)
{
    char expected[24];
    int expectedCount = snprintf(expected, sizeof expected, "%llu", (unsigned long long)value);
    while (expectedCount > 1 && expected[expectedCount - 1] == '0')
    {
        --expectedCount; // 1000 is 1 at exponent 3
    }
    int expectedExponent = (int)strlen(expected) - expectedCount;
    char digits[24] = {0};
    int count = 0, exponent = 0;
    bool fraction = false;
    const char* p = text;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !fraction); ++p)
    {
        if (*p == '.')
        {
            fraction = true;
        }
        else if (count > 0 || *p != '0')
        {
            if (count == (int)sizeof digits)
            {
                if (*p != '0')
                {
                    return false; // more significant digits than any 64-bit integer has
                }
                exponent += fraction ? 0 : 1; // a zero past what is kept: a power of ten (none in the fraction)
                continue;
            }
            digits[count++] = *p;
            exponent -= fraction ? 1 : 0;
        }
        else
        {
            exponent -= fraction ? 1 : 0;
        }
    }
    if (*p == 'e' || *p == 'E')
    {
        exponent += (int)strtol(p + 1, NULL, 10); // a seed has a small exponent; a huge one is no match
    }
    while (count > 0 && digits[count - 1] == '0')
    {
        --count, ++exponent;
    }
    if (count == 0)
    {
        return value == 0;
    }
    return count == expectedCount && exponent == expectedExponent && memcmp(digits, expected, (size_t)count) == 0;
}

// A seed: an integer in [0, 2^53] or a string of decimal digits (any 64-bit value).
static bool ReadSeed(Loader* L, const cJSON* object, const char* key, uint64_t* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (cJSON_IsNumber(item))
    {
        double v = item->valuedouble;
        if (!(v >= 0.0 && v <= LS_MAX_SEED && v == floor(v)))
        {
            return Fail(L, "expected an integer in [0, 2^53] (or a string of digits for larger seeds)");
        }
        // 2^53 + 1 (or 9.007199254740993e15) reads as the double 2^53, 2^52 + 0.4 as 2^52: from 2^32 on, the file's
        // own digits tell them apart (a value whose text is not found, under a key written with escapes, is refused).
        if (v >= 4294967296.0)
        {
            long offset = lsFindJsonPath(L->text, L->size, L->path, L->depth, false);
            if (offset < 0 || !IsExactInteger(L->text + offset, (uint64_t)v))
            {
                return Fail(L, "expected an integer in [0, 2^53] (or a string of digits for larger seeds)");
            }
        }
        *out = (uint64_t)v;
    }
    else if (cJSON_IsString(item))
    {
        const char* s = item->valuestring;
        size_t length = strlen(s);
        if (length == 0 || length > 20 || strspn(s, "0123456789") != length)
        {
            return Fail(L, "expected a seed: digits only");
        }
        errno = 0;
        unsigned long long v = strtoull(s, NULL, 10);
        if (errno == ERANGE)
        {
            return Fail(L, "seed does not fit in 64 bits");
        }
        *out = (uint64_t)v;
    }
    else
    {
        return Fail(L, "expected an integer seed");
    }
    Leave(L);
    return true;
}

// An array of objects (the key's item, path entered by the caller). Checks the type and the count limit.
static bool CheckArray(Loader* L, const cJSON* item, int limit, int* count)
{
    if (!cJSON_IsArray(item))
    {
        return Fail(L, "expected an array");
    }
    int n = 0;
    for (const cJSON* child = item->child; child != NULL; child = child->next)
    {
        if (++n > limit)
        {
            return Fail(L, "more than %d entries (the limit)", limit);
        }
    }
    *count = n;
    return true;
}

static bool CheckObject(Loader* L, const cJSON* item)
{
    return cJSON_IsObject(item) ? true : Fail(L, "expected an object");
}

// A list of points [[x, y], ...] read into L->scratch (the key's item, path entered by the caller).
static bool ParsePoints(Loader* L, const cJSON* item, lsQuantity quantity, int minCount, int maxCount, int* count)
{
    if (!cJSON_IsArray(item))
    {
        return Fail(L, "expected an array of points [[x, y], ...]");
    }
    int n = 0;
    for (const cJSON* child = item->child; child != NULL; child = child->next)
    {
        if (n >= maxCount)
        {
            return Fail(L, "more than %d points (the limit)", maxCount);
        }
        if (n >= L->scratchCapacity)
        {
            int newCapacity = L->scratchCapacity < 64 ? 64 : 2 * L->scratchCapacity;
            L->scratch = lsRealloc(L->scratch, (size_t)L->scratchCapacity * sizeof(lsVec2),
                                   (size_t)newCapacity * sizeof(lsVec2));
            L->scratchCapacity = newCapacity;
        }
        EnterIndex(L, n);
        if (!ParseVec2(L, child, quantity, L->scratch + n))
        {
            return false;
        }
        Leave(L);
        ++n;
    }
    if (n < minCount)
    {
        return Fail(L, "expected at least %d points, got %d", minCount, n);
    }
    *count = n;
    return true;
}

// Fails when two consecutive points (and, closed, the last and the first) coincide.
static bool CheckSegments(Loader* L, const lsVec2* points, int count, bool closed, const char* what)
{
    int i = lsFindZeroSegment(points, count, closed);
    if (i < 0)
    {
        return true;
    }
    int j = i + 1 < count ? i + 1 : 0;
    EnterIndex(L, j);
    if (j == 0)
    {
        return Fail(L, "the closing %s segment (last point to first) has zero length", what);
    }
    return Fail(L, "%s segment %d -> %d has zero length (repeated point)", what, i, j);
}

// Why points are not a strictly convex polygon, for the message (lsMakePolygon, with exact predicates, decides).
static const char* ConvexProblem(const lsVec2* points, int count)
{
    // Repeated points first, anywhere in the list: a corner whose next point repeats it looks like three points on
    // one line to the orientation test below.
    for (int i = 0; i < count; ++i)
    {
        for (int j = i + 1; j < count; ++j)
        {
            if (lsVecEqual(points[i], points[j]))
            {
                return "repeated point";
            }
        }
    }
    int sign = 0;
    double turning = 0.0;
    for (int i = 0; i < count; ++i)
    {
        lsVec2 a = points[i];
        lsVec2 b = points[(i + 1) % count];
        lsVec2 c = points[(i + 2) % count];
        lsVec2 e1 = lsSub(b, a);
        lsVec2 e2 = lsSub(c, b);
        int s = lsOrient(a, b, c);
        if (s == 0)
        {
            return "three points on one line";
        }
        if (sign != 0 && s != sign)
        {
            return "not convex (a reflex corner)";
        }
        sign = s;
        turning += atan2(lsCross(e1, e2), lsDot(e1, e2));
    }
    if (fabs(fabs(turning) - 2.0 * LS_PI) > 1e-6)
    {
        return "not convex (the outline crosses itself)";
    }
    return "not strictly convex";
}

// A convex polygon's points (the key's item, path entered by the caller) into out, counter-clockwise.
static bool ParseConvex(Loader* L, const cJSON* item, lsQuantity quantity, lsVec2* out, int* count)
{
    int n = 0;
    if (!ParsePoints(L, item, quantity, 3, LS_MAX_POLYGON_VERTICES, &n))
    {
        return false;
    }
    // lsMakePolygon decides with exact orientation tests and gives the points counter-clockwise, as stored.
    lsPolygon polygon;
    if (!lsMakePolygon(&polygon, L->scratch, n))
    {
        return Fail(L, "expected a convex polygon with 3 to %d points: %s", LS_MAX_POLYGON_VERTICES,
                    ConvexProblem(L->scratch, n));
    }
    memcpy(out, polygon.vertices, (size_t)n * sizeof(lsVec2));
    *count = n;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// Fields: one reader for every row of the key tables (core/world_fields.h)

// An integer in [1, max].
static bool ReadInteger(Loader* L, const cJSON* object, const char* key, int max, int* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    double v = cJSON_IsNumber(item) ? item->valuedouble : 0.0;
    if (!cJSON_IsNumber(item) || !(v >= 1.0 && v <= max) || v != floor(v))
    {
        return Fail(L, "expected an integer in [1, %d]", max);
    }
    *out = (int)v;
    Leave(L);
    return true;
}

// One of the strings names[0], names[1], ... (NULL-terminated); *out is its index.
static bool ReadChoice(Loader* L, const cJSON* object, const char* key, const char* const* names, int* out)
{
    const cJSON* item = Member(object, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    int n = 0;
    for (; names[n] != NULL; ++n)
    {
        if (cJSON_IsString(item) && strcmp(item->valuestring, names[n]) == 0)
        {
            *out = n;
            Leave(L);
            return true;
        }
    }
    // "expected "a" or "b"", "expected "a", "b" or "c"".
    char expected[128] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof expected; ++i)
    {
        const char* before = i == 0 ? "" : (i + 1 == n ? " or " : ", ");
        used += (size_t)snprintf(expected + used, sizeof expected - used, "%s\"%s\"", before, names[i]);
    }
    return Fail(L, "expected %s", expected);
}

// A string that is not empty.
static bool ReadNonEmptyString(Loader* L, const cJSON* object, const char* key, char* out, size_t capacity)
{
    if (!ReadString(L, object, key, out, capacity))
    {
        return false;
    }
    if (out[0] == '\0')
    {
        Enter(L, key);
        return Fail(L, "expected a non-empty %s", key);
    }
    return true;
}

// What one row cannot say: a lidar's range_min below its range.
static bool CheckLidar(Loader* L, const cJSON* object, const lsLidarDef* def)
{
    if (!(def->rangeMin < def->range))
    {
        Enter(L, Member(object, "range_min") != NULL ? "range_min" : "range");
        return Fail(L, "expected range_min < range (%g >= %g)", def->rangeMin, def->range);
    }
    return true;
}

static bool ReadObject(Loader* L, const cJSON* object, const lsFieldTable* table, void* def);

// Reads one row's key from object into def; an absent key leaves the default.
static bool ReadField(Loader* L, const cJSON* object, const lsField* f, void* def)
{
    void* at = lsField_Value(f, def);
    const char* key = f->key;
    switch (f->type)
    {
    case ls_fieldNumber:
        return ReadNumber(L, object, key, f->quantity, at);
    case ls_fieldAngle:
        return ReadAngle(L, object, key, f->quantity, at);
    case ls_fieldBool:
        return ReadBool(L, object, key, at);
    case ls_fieldSeed:
        return ReadSeed(L, object, key, at);
    case ls_fieldInteger:
        return ReadInteger(L, object, key, (int)f->extra, at);
    case ls_fieldString:
        return (f->flags & ls_fieldNonEmpty) != 0 ? ReadNonEmptyString(L, object, key, at, f->extra)
                                                  : ReadString(L, object, key, at, f->extra);
    case ls_fieldChoice:
        return ReadChoice(L, object, key, f->names, at);
    case ls_fieldVec2:
        return ReadVec2(L, object, key, f->quantity, at);
    case ls_fieldSize2:
        return ReadPositive2(L, object, key, at);
    case ls_fieldPose:
        return ReadPose(L, object, key, f->quantity, at, lsField_Extra(f, def));
    case ls_fieldConvex:
    case ls_fieldObject:
    {
        const cJSON* item = Member(object, key);
        if (item == NULL)
        {
            return true;
        }
        Enter(L, key);
        bool ok = f->type == ls_fieldConvex ? ParseConvex(L, item, f->quantity, at, lsField_Extra(f, def))
                                            : ReadObject(L, item, f->object, at) &&
                                                  (f->object != &lsWorldFields_Lidar || CheckLidar(L, item, at));
        if (ok)
        {
            Leave(L);
        }
        return ok;
    }
    case ls_fieldChain:
    case ls_fieldCustom:
        return true; // the section's own code reads it
    }
    return true;
}

// Reads rows [first, last) of the table: first the required keys' presence, then each value in row order.
static bool ReadFields(Loader* L, const cJSON* object, const lsFieldTable* table, int first, int last, void* def)
{
    for (int i = first; i < last; ++i)
    {
        if ((table->fields[i].flags & ls_fieldRequired) != 0 && !Require(L, object, table->fields[i].key))
        {
            return false;
        }
    }
    for (int i = first; i < last; ++i)
    {
        if (!ReadField(L, object, table->fields + i, def))
        {
            return false;
        }
    }
    return true;
}

// A whole object described by its table (the item itself, path entered): checked, keys checked, rows read.
static bool ReadObject(Loader* L, const cJSON* object, const lsFieldTable* table, void* def)
{
    if (!CheckObject(L, object))
    {
        return false;
    }
    CheckKeys(L, object, table);
    return ReadFields(L, object, table, 0, table->count, def);
}

// ---------------------------------------------------------------------------------------------------------------------
// Sections

// Runs load on each element of an array section, with its index on the path (the section checked the array and
// made room for its elements).
static bool EachElement(Loader* L, const cJSON* array, bool (*load)(Loader*, const cJSON*))
{
    int index = 0;
    for (const cJSON* item = array->child; item != NULL; item = item->next, ++index)
    {
        EnterIndex(L, index);
        if (!load(L, item))
        {
            return false;
        }
        Leave(L);
    }
    return true;
}

static bool LoadWall(Loader* L, const cJSON* item)
{
    if (!CheckObject(L, item))
    {
        return false;
    }
    CheckKeys(L, item, &lsWorldFields_Wall);
    const cJSON* points = Member(item, "points");
    bool fromTo = points == NULL;
    bool closed = false;
    int pointCount = 0;
    if (fromTo)
    {
        if (!Require(L, item, "from") || !Require(L, item, "to"))
        {
            return false;
        }
        // "closed": false is harmless on a single segment; true would make it a doubled segment.
        if (!ReadBool(L, item, "closed", &closed))
        {
            return false;
        }
        if (closed)
        {
            Enter(L, "closed");
            return Fail(L, "a wall given by \"from\" and \"to\" cannot be closed (use \"points\")");
        }
        if (L->scratchCapacity < 2)
        {
            L->scratch = lsRealloc(L->scratch, (size_t)L->scratchCapacity * sizeof(lsVec2), 64 * sizeof(lsVec2));
            L->scratchCapacity = 64;
        }
        if (!ReadVec2(L, item, "from", ls_quantityCoordinate, L->scratch) ||
            !ReadVec2(L, item, "to", ls_quantityCoordinate, L->scratch + 1))
        {
            return false;
        }
        if (lsVecEqual(L->scratch[0], L->scratch[1]))
        {
            return Fail(L, "wall has zero length (from == to)");
        }
        pointCount = 2;
    }
    else
    {
        if (Member(item, "from") != NULL || Member(item, "to") != NULL)
        {
            return Fail(L, "give either \"from\" and \"to\" or \"points\", not both");
        }
        if (!ReadBool(L, item, "closed", &closed))
        {
            return false;
        }
        Enter(L, "points");
        if (!ParsePoints(L, points, ls_quantityCoordinate, closed ? 3 : 2, LS_MAX_SEGMENTS, &pointCount) ||
            !CheckSegments(L, L->scratch, pointCount, closed, "wall"))
        {
            return false;
        }
        Leave(L);
    }
    // The form ("from"/"to" or "points"/"closed") is read above; the rows after it are the table's.
    lsWallDef def = {.reflectance = 0.8};
    int rest = lsFieldTable_Row(&lsWorldFields_Wall, "reflectance");
    if (!ReadFields(L, item, &lsWorldFields_Wall, rest, lsWorldFields_Wall.count, &def))
    {
        return false;
    }
    L->segments += closed ? pointCount : pointCount - 1;
    if (L->segments > LS_MAX_SEGMENTS)
    {
        return Fail(L, "more than %d wall segments in all (the limit)", LS_MAX_SEGMENTS);
    }
    lsWorld* world = L->world;
    int w = lsWorld_AddWall(world, L->scratch, pointCount, closed);
    world->walls[w].fromTo = fromTo;
    world->walls[w].reflectance = def.reflectance;
    return true;
}

static bool LoadWalls(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_SEGMENTS, &count))
    {
        return false;
    }
    lsWorld* world = L->world;
    // Room for the file's walls after the map's (already loaded, if any).
    int capacity = world->wallCount + count;
    world->walls =
        lsRealloc(world->walls, (size_t)world->wallCapacity * sizeof(lsWallDef), (size_t)capacity * sizeof(lsWallDef));
    world->wallCapacity = capacity;
    return EachElement(L, array, LoadWall);
}

static bool LoadTarget(Loader* L, const cJSON* item)
{
    if (!CheckObject(L, item))
    {
        return false;
    }
    CheckKeys(L, item, &lsWorldFields_Target);
    lsTargetDef def = lsDefaultTargetDef();
    // Poison is more reflective by default: its default applies once the kind is known.
    int reflectance = lsFieldTable_Row(&lsWorldFields_Target, "reflectance");
    if (!ReadFields(L, item, &lsWorldFields_Target, 0, reflectance, &def))
    {
        return false;
    }
    if (def.kind == ls_poison)
    {
        def.reflectance = 0.9;
    }
    if (!ReadFields(L, item, &lsWorldFields_Target, reflectance, lsWorldFields_Target.count, &def))
    {
        return false;
    }
    lsWorld_AddTarget(L->world, def);
    return true;
}

static bool LoadTargets(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->targets = lsAllocZero((size_t)count, sizeof(lsTargetDef));
    L->world->targetCapacity = count;
    return EachElement(L, array, LoadTarget);
}

static bool LoadBox(Loader* L, const cJSON* item)
{
    lsBoxDef def = lsDefaultBoxDef();
    if (!ReadObject(L, item, &lsWorldFields_Box, &def))
    {
        return false;
    }
    lsWorld_AddBox(L->world, def);
    return true;
}

static bool LoadBoxes(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->boxes = lsAllocZero((size_t)count, sizeof(lsBoxDef));
    L->world->boxCapacity = count;
    return EachElement(L, array, LoadBox);
}

static bool LoadPolygon(Loader* L, const cJSON* item)
{
    lsPolygonDef def;
    memset(&def, 0, sizeof def);
    def.reflectance = 0.5;
    if (!ReadObject(L, item, &lsWorldFields_Polygon, &def))
    {
        return false;
    }
    lsWorld_AddPolygon(L->world, &def);
    return true;
}

static bool LoadPolygons(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->polygons = lsAllocZero((size_t)count, sizeof(lsPolygonDef));
    L->world->polygonCapacity = count;
    return EachElement(L, array, LoadPolygon);
}

static bool LoadRobotInto(Loader* L, const cJSON* object, lsRobotDef* def)
{
    return ReadObject(L, object, &lsWorldFields_Robot, def);
}

// The one-robot shorthand: "robot": {...}.
static bool LoadRobot(Loader* L, const cJSON* object) { return LoadRobotInto(L, object, &L->world->robot); }

// "robots": [{...}, ...]: at least one, each with a unique "id"; the first is world->robot, the rest the fleet.
static bool LoadRobots(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_ROBOTS, &count))
    {
        return false;
    }
    if (count == 0)
    {
        return Fail(L, "expected at least one robot");
    }
    lsWorld* world = L->world;
    world->robotList = true;
    world->fleet = lsAllocZero((size_t)(count - 1 > 0 ? count - 1 : 1), sizeof(lsRobotDef));
    world->fleetCapacity = count - 1 > 0 ? count - 1 : 1;
    int index = 0;
    for (const cJSON* item = array->child; item != NULL; item = item->next, ++index)
    {
        EnterIndex(L, index);
        lsRobotDef def = lsDefaultRobotDef();
        def.id[0] = '\0';
        if (!Require(L, item, "id") || !LoadRobotInto(L, item, &def))
        {
            return false;
        }
        // Ids are unique: scan, the agent API and the window name robots by id. (Quadratic, but only for the
        // check of a file; LS_MAX_ROBOTS bounds it.)
        int same = index > 0 ? lsWorld_FindRobot(world, def.id) : -1;
        if (same >= 0)
        {
            Enter(L, "id");
            return Fail(L, "duplicate id \"%s\" (robots[%d] has it)", def.id, same);
        }
        if (index == 0)
        {
            world->robot = def;
        }
        else
        {
            world->fleet[world->fleetCount++] = def;
        }
        Leave(L);
    }
    return true;
}

static bool LoadPath(Loader* L, const cJSON* item)
{
    if (!CheckObject(L, item))
    {
        return false;
    }
    CheckKeys(L, item, &lsWorldFields_Path);
    lsPathDef def = {.radius = 0.5};
    if (!ReadFields(L, item, &lsWorldFields_Path, 0, lsWorldFields_Path.count, &def))
    {
        return false;
    }
    bool closed = def.closed;
    int pointCount = 0;
    Enter(L, "points");
    if (!ParsePoints(L, Member(item, "points"), ls_quantityCoordinate, closed ? 3 : 2, LS_MAX_PATH_POINTS,
                     &pointCount) ||
        !CheckSegments(L, L->scratch, pointCount, closed, "path"))
    {
        return false;
    }
    Leave(L);
    L->pathPoints += pointCount;
    if (L->pathPoints > LS_MAX_PATH_POINTS)
    {
        return Fail(L, "more than %d path points in all (the limit)", LS_MAX_PATH_POINTS);
    }
    lsWorld_AddPath(L->world, def.id, L->scratch, pointCount, def.radius, closed);
    return true;
}

static bool LoadPaths(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->paths = lsAllocZero((size_t)count, sizeof(lsPathDef));
    L->world->pathCapacity = count;
    if (!EachElement(L, array, LoadPath))
    {
        return false;
    }
    // Ids must be unique: sort, then the first later duplicate in file order is reported.
    int n = L->world->pathCount;
    L->pathIds = lsAlloc((size_t)n * sizeof(PathId));
    L->pathIdCount = n;
    for (int i = 0; i < n; ++i)
    {
        L->pathIds[i] = (PathId){L->world->paths[i].id, i};
    }
    qsort(L->pathIds, (size_t)n, sizeof(PathId), ComparePathIds);
    int duplicate = -1, original = -1;
    for (int i = 1; i < n; ++i)
    {
        if (strcmp(L->pathIds[i - 1].id, L->pathIds[i].id) == 0 && (duplicate < 0 || L->pathIds[i].index < duplicate))
        {
            duplicate = L->pathIds[i].index;
            original = L->pathIds[i - 1].index;
        }
    }
    if (duplicate >= 0)
    {
        EnterIndex(L, duplicate);
        Enter(L, "id");
        return Fail(L, "duplicate path id '%s' (paths[%d] has it too)", L->world->paths[duplicate].id, original);
    }
    return true;
}

static bool LoadVehicle(Loader* L, const cJSON* item)
{
    if (!CheckObject(L, item))
    {
        return false;
    }
    const lsFieldTable* table = &lsWorldFields_Vehicle;
    CheckKeys(L, item, table);
    lsVehicleDef def = lsDefaultVehicleDef();
    char pathId[LS_PATH_ID_CAPACITY] = "";
    if (!Require(L, item, "path") || !ReadString(L, item, "path", pathId, sizeof pathId))
    {
        return false;
    }
    const PathId* found = L->pathIdCount > 0
                              ? bsearch(pathId, L->pathIds, (size_t)L->pathIdCount, sizeof(PathId), CompareIdToPath)
                              : NULL;
    def.path = found != NULL ? found->index : -1;
    if (def.path < 0)
    {
        Enter(L, "path");
        return Fail(L, "no path has the id '%s'", pathId);
    }
    // The position defaults to the path's start.
    def.position = L->world->paths[def.path].points[0];
    if (!ReadFields(L, item, table, lsFieldTable_Row(table, "path") + 1, table->count, &def))
    {
        return false;
    }
    lsWorld_AddVehicle(L->world, def);
    return true;
}

static bool LoadVehicles(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->vehicles = lsAllocZero((size_t)count, sizeof(lsVehicleDef));
    L->world->vehicleCapacity = count;
    return EachElement(L, array, LoadVehicle);
}

static bool LoadMover(Loader* L, const cJSON* item)
{
    if (!CheckObject(L, item))
    {
        return false;
    }
    lsMoverDef def = lsDefaultMoverDef();
    static const char* const types[] = {"door", "bar", NULL};
    int kind = -1;
    if (!Require(L, item, "type") || !ReadChoice(L, item, "type", types, &kind))
    {
        return false;
    }
    def.kind = kind == 0 ? ls_moverDoor : ls_moverBar;
    const lsFieldTable* table = def.kind == ls_moverDoor ? &lsWorldFields_Door : &lsWorldFields_Bar;
    CheckKeys(L, item, table);
    // "from" and "to" first: the other keys' defaults depend on them.
    int rest = lsFieldTable_Row(table, "to") + 1;
    if (!ReadFields(L, item, table, lsFieldTable_Row(table, "from"), rest, &def))
    {
        return false;
    }
    if (lsVecEqual(def.a, def.b))
    {
        return Fail(L, "moving wall has zero length (from == to)");
    }
    // By default a door slides along itself by its own length (fully open, then closed again); a bar turns
    // about its middle.
    if (def.kind == ls_moverDoor)
    {
        def.offset = lsSub(def.b, def.a);
    }
    else
    {
        def.pivot = lsV(0.5 * (def.a.x + def.b.x), 0.5 * (def.a.y + def.b.y));
    }
    if (!ReadFields(L, item, table, rest, table->count, &def))
    {
        return false;
    }
    lsWorld_AddMover(L->world, def);
    return true;
}

static bool LoadMovers(Loader* L, const cJSON* array)
{
    int count = 0;
    if (!CheckArray(L, array, LS_MAX_OBJECTS, &count))
    {
        return false;
    }
    L->world->movers = lsAllocZero((size_t)count, sizeof(lsMoverDef));
    L->world->moverCapacity = count;
    return EachElement(L, array, LoadMover);
}

static bool LoadSim(Loader* L, const cJSON* object)
{
    return ReadObject(L, object, &lsWorldFields_Sim, &L->world->sim);
}

// "map": a map_server YAML, relative to the world file's folder, whose walls go first, under the world's own
// objects; "unknown": "free" (default) or "occupied" says what its unknown cells are (map.h).
static bool LoadMap(Loader* L, const cJSON* root)
{
    const cJSON* map = Member(root, "map");
    const cJSON* unknown = Member(root, "unknown");
    if (map == NULL)
    {
        if (unknown == NULL)
            return true;
        Enter(L, "unknown");
        return Fail(L, "\"unknown\" says what a map's unknown cells are: it needs \"map\" beside it");
    }
    lsMapOptions options = {false, 0.0};
    if (unknown != NULL)
    {
        Enter(L, "unknown");
        if (!cJSON_IsString(unknown) ||
            (strcmp(unknown->valuestring, "free") != 0 && strcmp(unknown->valuestring, "occupied") != 0))
            return Fail(L, "expected \"free\" or \"occupied\"");
        options.unknownOccupied = strcmp(unknown->valuestring, "occupied") == 0;
        Leave(L);
    }
    Enter(L, "map");
    if (!cJSON_IsString(map) || !lsIsMapPath(map->valuestring))
        return Fail(L, "expected the path of a map YAML (\"maps/office.yaml\"), relative to this file");
    const char* path = map->valuestring;
    const char* slash = strrchr(L->label, '/');
    lsMapRef* ref = &L->world->map;
    int n = path[0] == '/' || slash == NULL
                ? snprintf(ref->yamlFile, sizeof ref->yamlFile, "%s", path)
                : snprintf(ref->yamlFile, sizeof ref->yamlFile, "%.*s/%s", (int)(slash - L->label), L->label, path);
    if (n < 0 || (size_t)n >= sizeof ref->yamlFile)
        return Fail(L, "path too long");
    snprintf(ref->path, sizeof ref->path, "%s", path);
    ref->unknownOccupied = options.unknownOccupied;
    lsGrid grid;
    lsMapInfo info;
    lsError mapError;
    if (!lsLoadMapGrid(ref->yamlFile, &grid, &info, &mapError))
        return Fail(L, "%s", mapError.message);
    snprintf(ref->imageFile, sizeof ref->imageFile, "%s", info.image);
    bool ok = lsGrid_AddWalls(&grid, &options, L->world, NULL, ref->yamlFile, &mapError);
    // A world that names no robot gets one in the map's widest free space, as the map opened alone does: the default
    // place, (0, 0), may be inside a wall cell.
    if (ok && Member(root, "robot") == NULL && Member(root, "robots") == NULL)
    {
        L->world->robot.position = lsGrid_FreePlace(&grid, &options, L->world->robot.radius);
        ref->robotPlaced = true;
    }
    lsFreeGrid(&grid);
    if (!ok)
        return Fail(L, "%s", mapError.message);
    Leave(L);
    return true;
}

// Runs a section loader on root[key] when present, with the key on the path.
static bool Section(Loader* L, const cJSON* root, const char* key, bool (*load)(Loader*, const cJSON*))
{
    const cJSON* item = Member(root, key);
    if (item == NULL)
    {
        return true;
    }
    Enter(L, key);
    if (!load(L, item))
    {
        return false;
    }
    Leave(L);
    return true;
}

static bool LoadRoot(Loader* L, const cJSON* root)
{
    if (!cJSON_IsObject(root))
    {
        return Fail(L, "expected a world: a JSON object {\"walls\": [...], ...}");
    }
    CheckKeys(L, root, &lsWorldFields_Root);
    if (!ReadString(L, root, "name", L->world->name, sizeof L->world->name))
    {
        return false;
    }
    // A world standing on a map may have no walls of its own.
    if (!LoadMap(L, root) || (Member(root, "map") == NULL && !Require(L, root, "walls")))
    {
        return false;
    }
    if (Member(root, "robot") != NULL && Member(root, "robots") != NULL)
    {
        Enter(L, "robots");
        return Fail(L, "a world has either \"robot\" (one robot) or \"robots\" (a list), not both");
    }
    // Paths come before vehicles whatever the order in the file, so a vehicle can name any path.
    return Section(L, root, "walls", LoadWalls) && Section(L, root, "targets", LoadTargets) &&
           Section(L, root, "boxes", LoadBoxes) && Section(L, root, "polygons", LoadPolygons) &&
           Section(L, root, "robot", LoadRobot) && Section(L, root, "robots", LoadRobots) &&
           Section(L, root, "paths", LoadPaths) && Section(L, root, "vehicles", LoadVehicles) &&
           Section(L, root, "movers", LoadMovers) && Section(L, root, "sim", LoadSim);
}

// Offset of the first comma followed (after white space) by '}' or ']' outside strings, else SIZE_MAX: cJSON stops
// after the bracket there, so the message points at the comma instead.
static size_t TrailingComma(const char* text, size_t size)
{
    bool inString = false;
    for (size_t i = 0; i < size; ++i)
    {
        char c = text[i];
        if (inString)
        {
            i += c == '\\' ? 1 : 0;
            inString = c != '"';
            continue;
        }
        inString = c == '"';
        if (c != ',')
        {
            continue;
        }
        size_t j = i + 1;
        while (j < size && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
        {
            ++j;
        }
        if (j < size && (text[j] == '}' || text[j] == ']'))
        {
            return i;
        }
    }
    return SIZE_MAX;
}

// Whether a value starts at offset right after another one ended (only white space between): a missing comma.
static bool MissingComma(const char* text, size_t offset)
{
    size_t i = offset;
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r'))
    {
        --i;
    }
    if (i == 0 || i == offset)
    {
        return false;
    }
    char before = text[i - 1], at = text[offset];
    bool ended = before == '}' || before == ']' || before == '"' || (before >= '0' && before <= '9') || before == 'e' ||
                 before == 'l';
    bool starts = at == '{' || at == '[' || at == '"' || at == '-' || (at >= '0' && at <= '9') || at == 't' ||
                  at == 'f' || at == 'n';
    return ended && starts;
}

// ---------------------------------------------------------------------------------------------------------------------
// Before cJSON: byte checks and a scan that bounds nesting and the number of values, so hostile files are refused
// before cJSON builds a tree for them.

static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Where the number starting at text[i] ends, by RFC 8259's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]?
// [0-9]+)?; 0 with *why set when it breaks the grammar. cJSON hands strtod whatever run of digits, signs, points and
// exponents it finds, so it would read 007 as 7, 1. as 1 and -.5 as -0.5, which no other JSON reader takes.
static size_t JsonNumberEnd(const char* text, size_t size, size_t i, const char** why)
{
    size_t j = i + (text[i] == '-');
    if (j < size && text[j] == '.')
    {
        *why = "a number without digits before its decimal point, which JSON does not allow (write -0.5, not -.5)";
        return 0;
    }
    if (j >= size || !IsDigit(text[j]))
    {
        return j; // not a number (-Infinity, a lone '-'): cJSON's syntax error says where
    }
    if (text[j] == '0' && j + 1 < size && IsDigit(text[j + 1]))
    {
        *why = "a number with a leading zero, which JSON does not allow (write 7, not 007)";
        return 0;
    }
    while (j < size && IsDigit(text[j]))
        ++j;
    if (j < size && text[j] == '.')
    {
        if (++j >= size || !IsDigit(text[j]))
        {
            *why = "a number without digits after its decimal point, which JSON does not allow (write 1.0 or 1)";
            return 0;
        }
        while (j < size && IsDigit(text[j]))
            ++j;
    }
    if (j < size && (text[j] == 'e' || text[j] == 'E'))
    {
        j += 1 + (j + 1 < size && (text[j + 1] == '+' || text[j + 1] == '-'));
        if (j >= size || !IsDigit(text[j]))
        {
            *why = "a number without digits in its exponent (write 1e5)";
            return 0;
        }
        while (j < size && IsDigit(text[j]))
            ++j;
    }
    return j;
}

// What PreScan leaves to be refused once the parse has shown what comes first: the first control character outside a
// string (at control; size when none), the first one inside a string (inString) and the first number JSON does not
// allow (at number, why says how).
typedef struct PreScanFinds
{
    size_t control, inString, number;
    const char* why;
} PreScanFinds;

static bool PreScan(const char* text, size_t size, const char* label, PreScanFinds* finds, lsError* err)
{
    finds->control = size, finds->inString = size, finds->number = size, finds->why = NULL;
    long long values = 1;
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < size; ++i)
    {
        char c = text[i];
        int line, column;
        if (c == '\0')
        {
            lsLineColumn(text, i, &line, &column);
            return lsFail(err, "%s:%d:%d: unexpected NUL byte (not a text file?)", label, line, column);
        }
        if ((unsigned char)c >= 0x80)
        {
            // JSON text is UTF-8 (RFC 8259): a name in Latin-1 would be written back, into a recording's header or a
            // save, as bytes no JSON reader takes.
            int length = lsUtf8Length(text + i, size - i);
            if (length == 0)
            {
                lsLineColumn(text, i, &line, &column);
                return lsFail(err, "%s:%d:%d: a byte (0x%02x) that is not UTF-8: a world file is UTF-8 text", label,
                              line, column, (unsigned)(unsigned char)c);
            }
            i += (size_t)length - 1;
            continue;
        }
        if (inString)
        {
            if ((unsigned char)c < 0x20 && finds->inString == size)
            {
                // RFC 8259: a string holds no raw control character (cJSON takes one, and a save wrote it back as an
                // escape, so the file changed under the user). Refused unless a syntax error comes before it.
                finds->inString = i;
            }
            // cJSON decodes \u0000 into a NUL that ends its C string: "loop\u0000b" would load as the id "loop", and a
            // vehicle's "loop\u0000x" would find that path (and a key "walls\u0000x" would be "walls").
            if (c == '\\' && size - i > 5 && text[i + 1] == 'u' && strncmp(text + i + 2, "0000", 4) == 0)
            {
                lsLineColumn(text, i, &line, &column);
                return lsFail(err,
                              "%s:%d:%d: a \\u0000 escape (a NUL character) in a string: no name, id or key holds one",
                              label, line, column);
            }
            if (c == '\\' && (unsigned char)text[i + 1] < 0x80)
            {
                ++i; // the escaped character (a byte past it, of UTF-8, is checked as one: cJSON refuses the escape)
            }
            else if (c == '"')
            {
                inString = false;
            }
            continue;
        }
        if (c == '"')
        {
            inString = true;
        }
        else if (c == '-' || IsDigit(c))
        {
            const char* why = NULL;
            size_t end = JsonNumberEnd(text, size, i, &why);
            if (end == 0)
            {
                if (finds->number == size)
                {
                    finds->number = i, finds->why = why; // refused unless a syntax error comes before it
                }
                // Past the rest of the malformed number at once: scanned again from each of its digits, a megabyte
                // of them ending in '.' took minutes.
                end = i + 1;
                while (end < size && (IsDigit(text[end]) || text[end] == '.' || text[end] == 'e' || text[end] == 'E' ||
                                      text[end] == '+' || text[end] == '-'))
                    ++end;
            }
            i = end - 1;
        }
        else if ((unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r' && finds->control == size)
        {
            finds->control = i; // refused once the text parses (a syntax error, say in binary noise, comes first)
        }
        else if (c == '[' || c == '{')
        {
            ++values;
            if (++depth > CJSON_NESTING_LIMIT)
            {
                lsLineColumn(text, i, &line, &column);
                return lsFail(err, "%s:%d:%d: nesting deeper than %d levels (the limit)", label, line, column,
                              CJSON_NESTING_LIMIT);
            }
        }
        else if (c == ']' || c == '}')
        {
            --depth;
        }
        else if (c == ',')
        {
            if (++values > LS_MAX_JSON_VALUES)
            {
                lsLineColumn(text, i, &line, &column);
                return lsFail(err, "%s:%d:%d: more than %d JSON values (the limit)", label, line, column,
                              LS_MAX_JSON_VALUES);
            }
        }
    }
    return true;
}

lsWorld* lsLoadWorldFromString(const char* text, size_t size, const char* fileName, lsError* err, lsWarnings* warnings)
{
    const char* label = fileName != NULL ? fileName : "<string>";
    if (text == NULL && size > 0)
    {
        return lsFailNull(err, "%s: no text given (NULL) for %zu bytes", label, size);
    }
    if (warnings != NULL)
    {
        warnings->count = 0;
        warnings->dropped = 0;
    }
    if (size > LS_MAX_FILE_BYTES)
    {
        return lsFailNull(err, "%s: %zu bytes, over the limit of 64 MiB", label, size);
    }
    // A UTF-8 byte order mark is allowed and skipped (editors on some systems write one).
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    {
        text += 3;
        size -= 3;
    }
    // A NUL-terminated copy: cJSON needs the terminator inside the length it is given.
    char* copy = lsAlloc(size + 1);
    if (size > 0)
    {
        memcpy(copy, text, size);
    }
    copy[size] = '\0';
    Loader L;
    memset(&L, 0, sizeof L);
    L.text = copy;
    L.size = size;
    L.label = label;
    L.err = err;
    L.warnings = warnings;
    cJSON* root = NULL;
    PreScanFinds finds;
    if (!PreScan(copy, size, label, &finds, err))
    {
        goto fail;
    }
    const char* end = NULL;
    root = cJSON_ParseWithLengthOpts(copy, size + 1, &end, true);
    size_t stop =
        root != NULL ? size : (end != NULL && end >= copy && end <= copy + size ? (size_t)(end - copy) : size);
    size_t first = finds.number < finds.inString ? finds.number : finds.inString;
    if (first < size && first <= stop)
    {
        // A number JSON does not allow (cJSON reads 007 as 7) or a raw control character in a string, unless the
        // parse stopped before it: the first error in the file is the one reported.
        int line, column;
        lsLineColumn(copy, first, &line, &column);
        unsigned char c = (unsigned char)copy[first];
        if (first == finds.number)
        {
            lsFail(err, "%s:%d:%d: %s", label, line, column, finds.why);
        }
        else
        {
            lsFail(err,
                   "%s:%d:%d: a control character (0x%02x) inside a string: JSON needs it escaped (\\u%04x, or \\n, "
                   "\\t)",
                   label, line, column, (unsigned)c, (unsigned)c);
        }
        goto fail;
    }
    size_t control = finds.control;
    if (root != NULL && control < size)
    {
        // JSON's whitespace is space, tab and the line breaks; cJSON skips every control character, which a save that
        // keeps the file's own text (world_text.c) would not read as whitespace.
        int line, column;
        lsLineColumn(copy, control, &line, &column);
        lsFail(err,
               "%s:%d:%d: a control character (0x%02x) outside a string: between values JSON allows only spaces, tabs "
               "and line breaks",
               label, line, column, (unsigned)(unsigned char)copy[control]);
        goto fail;
    }
    if (root == NULL)
    {
        size_t offset = stop;
        int line, column;
        size_t comma = TrailingComma(copy, size);
        if (comma <= offset)
        {
            lsLineColumn(copy, comma, &line, &column);
            lsFail(err, "%s:%d:%d: syntax error: a comma before a closing bracket (JSON allows no trailing comma)",
                   label, line, column);
            goto fail;
        }
        lsLineColumn(copy, offset, &line, &column);
        size_t rest = offset;
        while (rest < size && (copy[rest] == ' ' || copy[rest] == '\n' || copy[rest] == '\r' || copy[rest] == '\t'))
        {
            ++rest;
        }
        if (rest >= size)
        {
            lsFail(err, "%s:%d:%d: syntax error: unexpected end of file%s", label, line, column,
                   size == 0 ? " (the file is empty)" : "");
        }
        else
        {
            // Quote a few bytes, printable ones only, so garbage does not garble the terminal.
            char near[24];
            int n = 0;
            for (size_t i = offset; i < size && n < 16; ++i)
            {
                unsigned char c = (unsigned char)copy[i];
                if (c == '\n' || c == '\r')
                {
                    break;
                }
                near[n++] = (char)(c >= 32 && c < 127 ? c : '?');
            }
            near[n] = '\0';
            lsFail(err, "%s:%d:%d: syntax error near '%s'%s", label, line, column, near,
                   MissingComma(copy, offset) ? " (a comma missing before it?)" : "");
        }
        goto fail;
    }
    L.world = lsCreateWorld();
    lsNameFromPath(fileName != NULL ? fileName : "world", "world", L.world->name, sizeof L.world->name);
    if (!LoadRoot(&L, root))
    {
        goto fail;
    }
    cJSON_Delete(root);
    lsFree(L.pathIds, (size_t)L.pathIdCount * sizeof(PathId));
    lsFree(L.scratch, (size_t)L.scratchCapacity * sizeof(lsVec2));
    lsFree(copy, size + 1);
    return L.world;

fail:
    cJSON_Delete(root);
    lsDestroyWorld(L.world);
    lsFree(L.pathIds, (size_t)L.pathIdCount * sizeof(PathId));
    lsFree(L.scratch, (size_t)L.scratchCapacity * sizeof(lsVec2));
    lsFree(copy, size + 1);
    return NULL;
}

lsWorld* lsLoadWorld(const char* path, lsError* err, lsWarnings* warnings)
{
    if (warnings != NULL)
    {
        warnings->count = 0;
        warnings->dropped = 0;
    }
    if (path == NULL)
    {
        return lsFailNull(err, "no world file name given");
    }
    if (lsIsMapPath(path))
    {
        // A map YAML is a world too: its walls and a robot in free space (map.h).
        return lsLoadMapWorld(path, NULL, NULL, err);
    }
    size_t size = 0;
    char* text = lsReadFile(path, LS_MAX_FILE_BYTES, &size, err);
    if (text == NULL)
    {
        return NULL;
    }
    lsWorld* world = lsLoadWorldFromString(text, size, path, err, warnings);
    lsFree(text, size + 1);
    if (world == NULL)
    {
        lsFailIfRecording(path, err); // its second line reads as a syntax error (in the window, run, scan...)
    }
    return world;
}

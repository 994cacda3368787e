// lidarsim core: reading recordings back (recording.h). The whole file is read through lsReadFile and every line
// parsed and checked once, at load, so a truncated or garbled line is reported before any replay starts (as
// "rec.jsonl:12: scan.hits: expected 360 characters, got 17"); what a replay needs is kept in flat arrays.
#include "core/recording.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/sim_replay.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Longest line read (a fleet of a thousand robots with 360 beams each writes about 5 MB): cJSON's tree of a
/// line is a few times the line's size, so this bounds the memory one line can take.
#define LS_MAX_RECORDING_LINE ((size_t)16 << 20)

uint64_t lsWorld_ContentHash(const lsWorld* world)
{
    char* text = lsSaveWorldToString(world);
    uint64_t h = LS_HASH_BASIS;
    lsHashBytes(&h, text, strlen(text));
    lsFreeString(text);
    return h;
}

bool lsWorld_MapHash(const lsWorld* world, uint64_t* hash)
{
    uint64_t h = LS_HASH_BASIS;
    bool any = false;
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* wall = world->walls + i;
        if (wall->fromMap)
        {
            uint64_t head = (uint64_t)wall->pointCount << 1 | (wall->closed ? 1 : 0);
            lsHashBytes(&h, &head, sizeof head);
            for (int k = 0; k < wall->pointCount; ++k)
            {
                lsHashVec(&h, wall->points[k]);
            }
            any = true;
        }
    }
    *hash = any ? h : 0;
    return any;
}

static const char s_hitLetters[LS_HIT_KIND_COUNT + 1] = "-wmtbpvr"; // in lsHitKind's order

char lsHitKindLetter(lsHitKind kind)
{
    LS_ASSERT((int)kind >= 0 && (int)kind < LS_HIT_KIND_COUNT);
    return s_hitLetters[kind];
}

bool lsIsRecordingFile(const char* path)
{
    // Only a regular file's first bytes: a FIFO or a folder named on the command line is left to the world loader.
    lsFileStamp stamp;
    if (!lsStatFile(path, &stamp, NULL) || !stamp.regular)
        return false;
    FILE* file = fopen(path, "rb");
    if (file == NULL)
        return false;
    // The first line as a JSON tool may have rewritten it: a byte order mark, spaces, the header's key anywhere in the
    // object, or a headerless recording's "step" first.
    char head[4096];
    size_t n = fread(head, 1, sizeof head - 1, file);
    fclose(file);
    head[n] = '\0';
    char* line = head + (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
    line[strcspn(line, "\n")] = '\0';
    const char* p = line + strspn(line, " \t\r");
    if (*p++ != '{')
        return false;
    p += strspn(p, " \t\r");
    if (strncmp(p, "\"step\"", 6) == 0)
        return true;
    static const char header[] = "\"lidarsim_recording\"";
    for (const char* key = strstr(line, header); key != NULL; key = strstr(key + 1, header))
    {
        const char* after = key + sizeof header - 1;
        if (after[strspn(after, " \t\r")] == ':')
            return true;
    }
    return false;
}

bool lsFailIfRecording(const char* path, lsError* err)
{
    if (!lsIsRecordingFile(path))
        return false;
    lsFail(err, "%s: a recording, not a world (lidarsim replay %s plays it)", path, path);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// What is kept

typedef struct RecScan
{
    double stamp;
    lsVec2 origin;  ///< the sensor's world position when it scanned
    double heading; ///< the sensor's world heading, radians
    int count;
    float* ranges; ///< metres, INFINITY for no return
    float* intensities;
    unsigned char* kinds; ///< lsHitKind
    int* indices;         ///< -1 for no return
} RecScan;

typedef struct RecRobot
{
    lsVec2 position;
    double angle, v, w; ///< radians, m/s, rad/s
    double score, distance;
    int food, poison, collisions, crushes;
    int scan;                 ///< the robot's latest scan as of this line (index into scans), -1 before the first
    int pathStart, pathCount; ///< poses of the steps after the previous line and before this one, in path
} RecRobot;

typedef struct RecLine
{
    long long step;
    double time;
    double score, distance;
    int food, poison, collisions;
    int changeStart, changeCount; ///< target changes, in changes
} RecLine;

typedef struct RecPose
{
    lsVec2 position;
    double angle;
} RecPose;

typedef struct RecChange
{
    int index;
    lsVec2 center;
    bool active;
} RecChange;

typedef struct RecVehicle
{
    lsVec2 position, velocity;
} RecVehicle;

// A growing array of fixed-size items: count used, capacity allocated.
typedef struct Grow
{
    void* items;
    int count, capacity;
    size_t size;
} Grow;

static void* GrowPush(Grow* g)
{
    if (g->count == g->capacity)
    {
        int capacity = g->capacity > 0 ? 2 * g->capacity : 64;
        g->items = lsRealloc(g->items, (size_t)g->capacity * g->size, (size_t)capacity * g->size);
        g->capacity = capacity;
    }
    char* item = (char*)g->items + (size_t)g->count * g->size;
    g->count += 1;
    memset(item, 0, g->size);
    return item;
}

static void GrowFree(Grow* g)
{
    lsFree(g->items, (size_t)g->capacity * g->size);
    g->items = NULL;
    g->count = g->capacity = 0;
}

struct lsRecording
{
    char path[1024];
    char worldPath[1024];
    uint64_t worldHash;
    uint64_t mapHash; ///< the header's map_hash (lsWorld_MapHash), when hasMapHash
    bool hasMapHash;
    double dt;
    int robotCount;
    char (*robotIds)[LS_ROBOT_ID_CAPACITY];
    int* beams;         ///< per robot
    double* rangeMax;   ///< per robot: its lidar's range (the header's range_max)
    int vehicleCount;   ///< from the first line; every line has as many
    int vehicleLine;    ///< the file's line that first line is
    int targetCount;    ///< 1 + the largest target index listed
    Grow lines;         ///< RecLine
    Grow robots;        ///< RecRobot, robotCount per line
    Grow vehicles;      ///< RecVehicle, vehicleCount per line
    Grow changes;       ///< RecChange
    Grow paths;         ///< RecPose
    Grow scans;         ///< RecScan
    RecChange* targets; ///< replay cache: each target as of line targetsLine (index -1: never listed)
    int targetsLine;
};

// ---------------------------------------------------------------------------------------------------------------------
// Parsing one line

// Where the parser is: the file and line for messages, and the key path inside the line.
typedef struct Parse
{
    const lsRecording* rec;
    int line;
    lsError* err;
} Parse;

static bool Fail(const Parse* p, const char* key, const char* format, ...) __attribute__((format(printf, 3, 4)));

static bool Fail(const Parse* p, const char* key, const char* format, ...)
{
    char what[200];
    va_list args;
    va_start(args, format);
    // clang-tidy 14 keeps va_list state from a file analysed before (as in map.c's FailAt).
    vsnprintf(what, sizeof what, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    return lsFail(p->err, "%s:%d: %s%s%s", p->rec->path, p->line, key != NULL ? key : "", key != NULL ? ": " : "",
                  what);
}

static const cJSON* Member(const cJSON* obj, const char* key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

static bool GetNumber(const Parse* p, const cJSON* obj, const char* key, double* out)
{
    const cJSON* item = Member(obj, key);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return Fail(p, key,
                    item == NULL           ? "missing"
                    : cJSON_IsNumber(item) ? "a number beyond the range of a double"
                                           : "expected a number");
    *out = item->valuedouble;
    return true;
}

static bool GetInt(const Parse* p, const cJSON* obj, const char* key, double lo, double hi, long long* out)
{
    double v = 0.0;
    if (!GetNumber(p, obj, key, &v))
        return false;
    if (v != floor(v) || v < lo || v > hi)
        return Fail(p, key, "expected an integer in %.0f..%.0f", lo, hi);
    *out = (long long)v;
    return true;
}

static bool GetCounter(const Parse* p, const cJSON* obj, const char* key, int* out)
{
    long long v = 0;
    if (!GetInt(p, obj, key, 0.0, 2147483647.0, &v))
        return false;
    *out = (int)v;
    return true;
}

// [a, b, ...] of exactly n finite numbers.
static bool GetNumbers(const Parse* p, const cJSON* item, const char* key, int n, double* out)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n)
        return Fail(p, key, item == NULL ? "missing" : "expected an array of %d numbers", n);
    int i = 0;
    for (const cJSON* v = item->child; v != NULL; v = v->next, ++i)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return Fail(p, key, "[%d]: expected a number", i);
        out[i] = v->valuedouble;
    }
    return true;
}

// Holds values[i] to quantities[i]'s bound (limits.h, as the world loader and the flags hold them), so what a
// replay draws and interpolates stays finite: "key[i]: expected a coordinate in [-1e+06, 1e+06] m, got 1e+308".
static bool InBounds(const Parse* p, const char* key, const double* values, const lsQuantity* quantities, int first,
                     int n)
{
    for (int i = first; i < n; ++i)
    {
        if (!lsLimit_Holds(quantities[i], values[i]))
        {
            char bound[96], given[40] = "a number beyond a double's range";
            if (isfinite(values[i]))
            {
                lsFormatNumber(given, sizeof given, values[i]); // every digit: 1000004 is not 1e+06
            }
            return Fail(p, NULL, "%s[%d]: expected %s, got %s", key, i,
                        lsLimit_Describe(quantities[i], bound, sizeof bound), given);
        }
    }
    return true;
}

// [x, y, degrees]: coordinates (a robot's, or a sensor's when sensor is set: its mount reaches further) and an angle.
static bool GetPose(const Parse* p, const cJSON* item, const char* key, bool sensor, RecPose* out)
{
    static const lsQuantity robot[3] = {ls_quantityCoordinate, ls_quantityCoordinate, ls_quantityAngle};
    static const lsQuantity lidar[3] = {ls_quantitySensor, ls_quantitySensor, ls_quantityAngle};
    double v[3] = {0};
    if (!GetNumbers(p, item, key, 3, v) || !InBounds(p, key, v, sensor ? lidar : robot, 0, 3))
        return false;
    *out = (RecPose){lsV(v[0], v[1]), lsDegToRad(v[2])};
    return true;
}

// A scan object: stamp, origin [x, y, deg], ranges_mm (integers) or ranges (metres), intensities_milli or
// intensities, hits (one letter per beam), indices. where: its path in the line ("scan", or a fleet's
// "robots[1].scan").
static bool ParseScan(Parse* p, const cJSON* item, const char* where, int beams, double rangeMax, RecScan* scan)
{
    RecPose origin;
    char originKey[48], hitsKey[48], stampKey[48];
    snprintf(originKey, sizeof originKey, "%s.origin", where);
    snprintf(hitsKey, sizeof hitsKey, "%s.hits", where);
    snprintf(stampKey, sizeof stampKey, "%s.stamp", where);
    if (!cJSON_IsObject(item))
        return Fail(p, where, "expected an object or null");
    const cJSON* stamp = Member(item, "stamp");
    if (!cJSON_IsNumber(stamp) || !(stamp->valuedouble >= 0.0 && stamp->valuedouble <= DBL_MAX))
        return Fail(p, stampKey, stamp == NULL ? "missing" : "expected a time >= 0 s");
    scan->stamp = stamp->valuedouble;
    if (!GetPose(p, Member(item, "origin"), originKey, true, &origin))
        return false;
    scan->origin = origin.position;
    scan->heading = origin.angle;
    const cJSON* hits = Member(item, "hits");
    if (!cJSON_IsString(hits))
        return Fail(p, hitsKey, "expected a string of one letter per beam");
    int count = (int)strlen(hits->valuestring);
    if (count != beams)
        return Fail(p, hitsKey, "expected %d letters (the beams of the header, line 1), got %d", beams, count);
    const char* rangeKey = Member(item, "ranges_mm") != NULL ? "ranges_mm" : "ranges";
    const char* intensityKey = Member(item, "intensities_milli") != NULL ? "intensities_milli" : "intensities";
    double rangeUnit = strcmp(rangeKey, "ranges_mm") == 0 ? LS_RECORDED_RANGE_UNIT : 1.0;
    // A lidar measures at most its range (lidar.c clamps the noise there); whole millimetres round by half of one.
    double rangeLimit = rangeUnit == 1.0 ? rangeMax : (rangeMax + 0.5 * LS_RECORDED_RANGE_UNIT) * (1.0 + 1e-12);
    double intensityUnit = strcmp(intensityKey, "intensities_milli") == 0 ? LS_RECORDED_INTENSITY_UNIT : 1.0;
    const cJSON* ranges = Member(item, rangeKey);
    const cJSON* intensities = Member(item, intensityKey);
    const cJSON* indices = Member(item, "indices");
    const char* keys[3] = {rangeKey, intensityKey, "indices"};
    const cJSON* arrays[3] = {ranges, intensities, indices};
    for (int k = 0; k < 3; ++k)
    {
        if (!cJSON_IsArray(arrays[k]) || cJSON_GetArraySize(arrays[k]) != beams)
            return Fail(p, NULL, "%s.%s: %s", where, keys[k],
                        arrays[k] == NULL ? "missing" : "expected an array with one entry per beam");
    }
    scan->count = beams;
    scan->ranges = lsAlloc((size_t)beams * sizeof(float));
    scan->intensities = lsAlloc((size_t)beams * sizeof(float));
    scan->kinds = lsAlloc((size_t)beams);
    scan->indices = lsAlloc((size_t)beams * sizeof(int));
    const cJSON* r = ranges->child;
    const cJSON* in = intensities->child;
    const cJSON* ix = indices->child;
    for (int i = 0; i < beams; ++i, r = r->next, in = in->next, ix = ix->next)
    {
        const char* letter = strchr(s_hitLetters, hits->valuestring[i]);
        if (letter == NULL)
            return Fail(p, hitsKey, "[%d]: '%c' is no hit letter (one of %s)", i, hits->valuestring[i], s_hitLetters);
        scan->kinds[i] = (unsigned char)(letter - s_hitLetters);
        bool none = scan->kinds[i] == ls_hitNone;
        // A range is at most the lidar's range (the header's range_max, within limits.h's bound).
        if (none ? !cJSON_IsNull(r)
                 : !(cJSON_IsNumber(r) && r->valuedouble >= 0.0 && r->valuedouble * rangeUnit <= rangeLimit))
        {
            char bound[32];
            lsFormatNumber(bound, sizeof bound, rangeMax);
            return none ? Fail(p, NULL, "%s.%s[%d]: expected null (hits says no return)", where, rangeKey, i)
                        : Fail(p, NULL, "%s.%s[%d]: expected a range in [0, %s] m (the lidar's range_max)", where,
                               rangeKey, i, bound);
        }
        scan->ranges[i] = none ? INFINITY : (float)(r->valuedouble * rangeUnit);
        // An intensity is reflectance times |cos incidence|: in [0, 1], 1000 in thousandths.
        if (!cJSON_IsNumber(in) || !(in->valuedouble >= 0.0 && in->valuedouble * intensityUnit <= 1.0))
            return Fail(p, NULL, "%s.%s[%d]: expected a number in [0, %g]", where, intensityKey, i,
                        1.0 / intensityUnit);
        scan->intensities[i] = (float)(in->valuedouble * intensityUnit);
        double index = cJSON_IsNumber(ix) ? ix->valuedouble : -2.0;
        if (index != floor(index) || index < (none ? -1.0 : 0.0) || index > (none ? -1.0 : 2147483647.0))
            return Fail(p, NULL, "%s.indices[%d]: expected %s", where, i, none ? "-1 (no return)" : "an index >= 0");
        scan->indices[i] = (int)index;
    }
    return true;
}

static void FreeScan(RecScan* scan)
{
    lsFree(scan->ranges, scan->ranges != NULL ? (size_t)scan->count * sizeof(float) : 0);
    lsFree(scan->intensities, scan->intensities != NULL ? (size_t)scan->count * sizeof(float) : 0);
    lsFree(scan->kinds, scan->kinds != NULL ? (size_t)scan->count : 0);
    lsFree(scan->indices, scan->indices != NULL ? (size_t)scan->count * sizeof(int) : 0);
    memset(scan, 0, sizeof *scan);
}

// One robot's part of a line: from the line itself (one robot) or from its entry in "robots".
// skipped: the steps since the previous line's, less one (the poses a path holds), or 0 on the first line.
static bool ParseRobot(Parse* p, lsRecording* rec, const cJSON* obj, int r, bool fleet, const RecRobot* previous,
                       long long skipped)
{
    RecRobot* robot = GrowPush(&rec->robots);
    RecPose pose;
    double velocity[2] = {0};
    static const lsQuantity speed[1] = {ls_quantityVelocity};
    if (!GetPose(p, Member(obj, "pose"), "pose", false, &pose) ||
        !GetNumbers(p, Member(obj, "velocity"), "velocity", 2, velocity) ||
        !InBounds(p, "velocity", velocity, speed, 0, 1))
        return false;
    // w is recorded in rad/s; its bound is a signed turn rate's, given in deg/s.
    const lsLimit* spin = lsGetLimit(ls_quantitySpin);
    if (!lsLimit_Holds(ls_quantitySpin, lsRadToDeg(velocity[1])))
        return Fail(p, NULL, "velocity[1]: expected a turn rate in [%g, %g] rad/s, got %g", lsDegToRad(spin->lo),
                    lsDegToRad(spin->hi), velocity[1]);
    robot->position = pose.position;
    robot->angle = pose.angle;
    robot->v = velocity[0];
    robot->w = velocity[1];
    if (!GetNumber(p, obj, "score", &robot->score) || !GetNumber(p, obj, "distance", &robot->distance) ||
        !GetCounter(p, obj, "food", &robot->food) || !GetCounter(p, obj, "poison", &robot->poison) ||
        !GetCounter(p, obj, "collisions", &robot->collisions))
        return false;
    if (fleet)
    {
        const cJSON* id = Member(obj, "id");
        if (!cJSON_IsString(id) || strcmp(id->valuestring, rec->robotIds[r]) != 0)
            return Fail(p, "robots", "[%d].id: expected \"%s\" (the header's robot %d)", r, rec->robotIds[r], r);
        if (!GetCounter(p, obj, "crushes", &robot->crushes))
            return false;
    }
    robot->scan = previous != NULL ? previous->scan : -1;
    const cJSON* scan = Member(obj, "scan");
    char prefix[24] = "", where[32];
    if (fleet)
        snprintf(prefix, sizeof prefix, "robots[%d].", r); // a fleet's keys are its robot's
    snprintf(where, sizeof where, "%sscan", prefix);
    if (scan == NULL)
        return Fail(p, where, "missing");
    if (!cJSON_IsNull(scan))
    {
        RecScan* s = GrowPush(&rec->scans);
        if (!ParseScan(p, scan, where, rec->beams[r], rec->rangeMax[r], s))
            return false;
        robot->scan = rec->scans.count - 1;
    }
    const cJSON* path = Member(obj, "path");
    robot->pathStart = rec->paths.count;
    if (path != NULL)
    {
        if (!cJSON_IsArray(path))
            return Fail(p, "path", "expected an array of [x, y, degrees]");
        for (const cJSON* q = path->child; q != NULL; q = q->next)
        {
            char key[32];
            snprintf(key, sizeof key, "path[%d]", robot->pathCount);
            if (!GetPose(p, q, key, false, GrowPush(&rec->paths)))
                return false;
            robot->pathCount += 1;
        }
        // A replay shows path[k] at the k-th skipped step: a path of another length would put poses at wrong steps.
        if (robot->pathCount != skipped)
        {
            char pathKey[32];
            snprintf(pathKey, sizeof pathKey, "%spath", prefix);
            return Fail(p, pathKey,
                        "%d pose%s, expected %lld (one per step between this line's and the previous one's)",
                        robot->pathCount, robot->pathCount == 1 ? "" : "s", skipped);
        }
    }
    return true;
}

static bool ParseLine(Parse* p, lsRecording* rec, const cJSON* root)
{
    if (!cJSON_IsObject(root))
        return Fail(p, NULL, "expected a JSON object");
    RecLine* line = GrowPush(&rec->lines);
    long long step = 0;
    if (!GetInt(p, root, "step", 0.0, 9007199254740992.0, &step) || !GetNumber(p, root, "time", &line->time))
        return false;
    // The simulation's time is step dt (sim.c): a replay places the skipped steps by it. Within rounding, so that a
    // line written by hand ("time": 0.3 at step 3 of dt 0.1) still reads.
    double stepTime = (double)step * rec->dt;
    if (!(fabs(line->time - stepTime) <= 1e-9 * lsFmax(1.0, stepTime)))
    {
        char given[40], expected[40];
        lsFormatNumber(given, sizeof given, line->time);
        lsFormatNumber(expected, sizeof expected, stepTime);
        return Fail(p, "time", "%s, expected step times the header's dt, %s", given, expected);
    }
    line->step = step;
    int index = rec->lines.count - 1;
    long long skipped = 0; // the steps between the previous line's and this one's, each a path's pose
    if (index > 0)
    {
        const RecLine* before = (const RecLine*)rec->lines.items + index - 1;
        if (step <= before->step)
            return Fail(p, "step", "%lld after step %lld: lines must go forward in time", step, before->step);
        skipped = step - before->step - 1;
    }
    if (!GetNumber(p, root, "score", &line->score) || !GetNumber(p, root, "distance", &line->distance) ||
        !GetCounter(p, root, "food", &line->food) || !GetCounter(p, root, "poison", &line->poison) ||
        !GetCounter(p, root, "collisions", &line->collisions))
        return false;

    bool fleet = rec->robotCount > 1;
    const cJSON* robots = Member(root, "robots");
    if (fleet && (!cJSON_IsArray(robots) || cJSON_GetArraySize(robots) != rec->robotCount))
        return Fail(p, "robots", "expected an array of the %d robots of the header (line 1)%s", rec->robotCount,
                    cJSON_IsArray(robots) ? ", got another count" : "");
    const cJSON* entry = fleet ? robots->child : root;
    for (int r = 0; r < rec->robotCount; ++r, entry = fleet ? entry->next : entry)
    {
        // The previous line's robot r (looked up before the push, which may move the array).
        const RecRobot* previous =
            index > 0 ? (const RecRobot*)rec->robots.items + (size_t)(index - 1) * (size_t)rec->robotCount + r : NULL;
        RecRobot before = previous != NULL ? *previous : (RecRobot){0};
        if (!cJSON_IsObject(entry))
            return Fail(p, "robots", "[%d]: expected an object", r);
        if (!ParseRobot(p, rec, entry, r, fleet, previous != NULL ? &before : NULL, skipped))
            return false;
    }

    const cJSON* vehicles = Member(root, "vehicles");
    if (!cJSON_IsArray(vehicles))
        return Fail(p, "vehicles", vehicles == NULL ? "missing" : "expected an array of [x, y, vx, vy]");
    int vehicleCount = cJSON_GetArraySize(vehicles);
    if (index == 0)
        rec->vehicleCount = vehicleCount, rec->vehicleLine = p->line;
    if (vehicleCount != rec->vehicleCount)
        return Fail(p, "vehicles", "%d vehicles, line %d had %d (every line lists the world's vehicles)", vehicleCount,
                    rec->vehicleLine, rec->vehicleCount);
    int vehicleIndex = 0;
    for (const cJSON* v = vehicles->child; v != NULL; v = v->next, ++vehicleIndex)
    {
        static const lsQuantity quantities[4] = {ls_quantityCoordinate, ls_quantityCoordinate, ls_quantityVelocity,
                                                 ls_quantityVelocity};
        char key[32];
        snprintf(key, sizeof key, "vehicles[%d]", vehicleIndex);
        double x[4] = {0};
        if (!GetNumbers(p, v, key, 4, x) || !InBounds(p, key, x, quantities, 0, 4))
            return false;
        RecVehicle* vehicle = GrowPush(&rec->vehicles);
        *vehicle = (RecVehicle){lsV(x[0], x[1]), lsV(x[2], x[3])};
    }

    const cJSON* targets = Member(root, "targets");
    if (!cJSON_IsArray(targets))
        return Fail(p, "targets", targets == NULL ? "missing" : "expected an array of [index, x, y, active]");
    line = (RecLine*)rec->lines.items + index;
    line->changeStart = rec->changes.count;
    for (const cJSON* t = targets->child; t != NULL; t = t->next)
    {
        const cJSON* active = cJSON_GetArrayItem(t, 3);
        double x[3] = {0};
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 4 || !cJSON_IsBool(active))
            return Fail(p, "targets", "expected [index, x, y, active] entries");
        for (int k = 0; k < 3; ++k)
        {
            const cJSON* v = cJSON_GetArrayItem(t, k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return Fail(p, "targets", "expected [index, x, y, active] entries");
            x[k] = v->valuedouble;
        }
        if (x[0] != floor(x[0]) || x[0] < 0.0 || x[0] >= 1e7)
            return Fail(p, "targets", "index %g: expected an integer >= 0", x[0]);
        // x[0] is the index, checked above.
        static const lsQuantity quantities[3] = {ls_quantityCoordinate, ls_quantityCoordinate, ls_quantityCoordinate};
        char key[32];
        snprintf(key, sizeof key, "targets[%d]", ((const RecLine*)rec->lines.items)[index].changeCount);
        if (!InBounds(p, key, x, quantities, 1, 3))
            return false;
        RecChange* change = GrowPush(&rec->changes);
        *change = (RecChange){(int)x[0], lsV(x[1], x[2]), cJSON_IsTrue(active)};
        rec->targetCount = change->index + 1 > rec->targetCount ? change->index + 1 : rec->targetCount;
        ((RecLine*)rec->lines.items)[index].changeCount += 1;
    }
    return true;
}

// The header: {"lidarsim_recording": 1, "world", "world_hash", "dt", "robots": [{"id", "beams", ...}], ...}.
static bool ParseHeader(Parse* p, lsRecording* rec, const cJSON* root)
{
    const cJSON* version = cJSON_IsObject(root) ? Member(root, "lidarsim_recording") : NULL;
    if (version == NULL)
        return Fail(p, NULL,
                    "no recording header (an older recording, or not one): record it again with `lidarsim "
                    "run WORLD --steps N --record FILE`");
    if (!cJSON_IsNumber(version))
        return Fail(p, "lidarsim_recording", "expected the format version (a number), this program reads version %d",
                    LS_RECORDING_VERSION);
    if (version->valuedouble != LS_RECORDING_VERSION)
    {
        char given[40] = "beyond a double's range"; // 1e999 reads as infinity
        if (isfinite(version->valuedouble))
        {
            lsFormatNumber(given, sizeof given, version->valuedouble);
        }
        return Fail(p, "lidarsim_recording", "format version %s, this program reads version %d", given,
                    LS_RECORDING_VERSION);
    }
    const cJSON* world = Member(root, "world");
    if (!cJSON_IsString(world) || world->valuestring[0] == '\0' || strlen(world->valuestring) >= sizeof rec->worldPath)
        return Fail(p, "world", "expected the world file's path");
    snprintf(rec->worldPath, sizeof rec->worldPath, "%s", world->valuestring);
    const cJSON* hash = Member(root, "world_hash");
    char* end = NULL;
    if (!cJSON_IsString(hash) || strlen(hash->valuestring) != 16 ||
        (rec->worldHash = strtoull(hash->valuestring, &end, 16), *end != '\0'))
        return Fail(p, "world_hash", "expected 16 hexadecimal digits");
    // Written for a world on a map, whose text names the map's file only; recordings from before it have none.
    const cJSON* mapHash = Member(root, "map_hash");
    if (mapHash != NULL && (!cJSON_IsString(mapHash) || strlen(mapHash->valuestring) != 16 ||
                            (rec->mapHash = strtoull(mapHash->valuestring, &end, 16), *end != '\0')))
        return Fail(p, "map_hash", "expected 16 hexadecimal digits");
    rec->hasMapHash = mapHash != NULL;
    if (!GetNumber(p, root, "dt", &rec->dt))
        return false;
    if (!lsLimit_Holds(ls_quantityTimeStep, rec->dt))
    {
        char bound[96];
        return Fail(p, "dt", "expected %s (a world's sim.dt bound)",
                    lsLimit_Describe(ls_quantityTimeStep, bound, sizeof bound));
    }
    // How the run was made: a replay needs none of these, and a header written by hand may leave them out; given,
    // they are what `run` writes.
    // (A seed's bound is 2^64 as a double: `run` writes up to 2^64 - 1, which reads back rounded to it.)
    static const struct
    {
        const char* key;
        double lo, hi;
        const char* range;
    } counts[] = {{"seed", 0.0, 0x1p64, "0..18446744073709551615"},
                  {"steps", 0.0, 0x1p53, "0..9007199254740992"},
                  {"every", 1.0, 0x1p53, "1..9007199254740992"}};
    for (int i = 0; i < (int)(sizeof counts / sizeof counts[0]); ++i)
    {
        double v = 0.0;
        if (Member(root, counts[i].key) != NULL &&
            (!GetNumber(p, root, counts[i].key, &v) || v != floor(v) || v < counts[i].lo || v > counts[i].hi))
            return Fail(p, counts[i].key, "expected an integer in %s", counts[i].range);
    }
    const cJSON* autopilot = Member(root, "autopilot");
    if (autopilot != NULL && !cJSON_IsBool(autopilot))
        return Fail(p, "autopilot", "expected true or false");
    const cJSON* scans = Member(root, "scans");
    if (scans != NULL && !(cJSON_IsString(scans) &&
                           (strcmp(scans->valuestring, "compact") == 0 || strcmp(scans->valuestring, "precise") == 0)))
        return Fail(p, "scans", "expected \"compact\" or \"precise\"");
    const cJSON* robots = Member(root, "robots");
    int count = cJSON_GetArraySize(robots);
    if (!cJSON_IsArray(robots) || count < 1 || count > LS_MAX_ROBOTS)
        return Fail(p, "robots", "expected an array of 1..%d robots", LS_MAX_ROBOTS);
    rec->robotCount = count;
    rec->robotIds = lsAllocZero((size_t)count, sizeof *rec->robotIds);
    rec->beams = lsAllocZero((size_t)count, sizeof(int));
    rec->rangeMax = lsAllocZero((size_t)count, sizeof(double));
    int r = 0;
    for (const cJSON* robot = robots->child; robot != NULL; robot = robot->next, ++r)
    {
        const cJSON* id = Member(robot, "id");
        long long beams = 0;
        if (!cJSON_IsString(id) || strlen(id->valuestring) >= LS_ROBOT_ID_CAPACITY)
            return Fail(p, "robots", "[%d].id: expected the robot's id", r);
        snprintf(rec->robotIds[r], LS_ROBOT_ID_CAPACITY, "%s", id->valuestring);
        if (!GetInt(p, robot, "beams", 1.0, LS_MAX_BEAMS, &beams))
            return false;
        rec->beams[r] = (int)beams;
        // The lidar's range bounds its scans' ranges; a header written by hand without it gets limits.h's bound.
        rec->rangeMax[r] = LS_MAX_LENGTH;
        if (Member(robot, "range_max") != NULL && !GetNumber(p, robot, "range_max", &rec->rangeMax[r]))
            return false;
        if (!lsLimit_Holds(ls_quantityDistance, rec->rangeMax[r]))
            return Fail(p, "robots", "[%d].range_max: expected a range in [0, %g] m", r, LS_MAX_LENGTH);
    }
    return true;
}

static bool ParseText(lsRecording* rec, char* text, size_t size, lsError* err)
{
    Parse p = {rec, 0, err};
    char* at = text;
    char* end = text + size;
    bool header = true;
    while (at < end)
    {
        p.line += 1;
        char* newline = memchr(at, '\n', (size_t)(end - at));
        char* stop = newline != NULL ? newline : end;
        if ((size_t)(stop - at) > LS_MAX_RECORDING_LINE)
            return Fail(&p, NULL, "line longer than %zu bytes", LS_MAX_RECORDING_LINE);
        *stop = '\0';
        if (newline == NULL && !header)
        {
            // A run still writing, or one cut off: the last line has no newline.
            return Fail(&p, NULL, "last line not complete (no newline at its end): the recording was cut off");
        }
        const char* parseEnd = NULL;
        cJSON* root = cJSON_ParseWithLengthOpts(at, (size_t)(stop - at) + 1, &parseEnd, true);
        if (root == NULL && header && strncmp(at, "{\"lidarsim_recording\"", 21) != 0)
        {
            // Not a broken recording but something else, most often a world file given to replay: its first line
            // ("{") is no JSON on its own.
            return Fail(&p, NULL,
                        "not a recording (its first line is not a recording's header; a world file opens with "
                        "`lidarsim WORLD.json`, and `lidarsim run WORLD --steps N --record FILE` records one)");
        }
        if (root == NULL)
        {
            bool ok = Fail(&p, NULL, "invalid JSON at column %ld", parseEnd != NULL ? (long)(parseEnd - at) + 1 : 1L);
            return ok;
        }
        bool ok = header ? ParseHeader(&p, rec, root) : ParseLine(&p, rec, root);
        cJSON_Delete(root);
        if (!ok)
            return false;
        header = false;
        at = stop + 1;
    }
    if (header)
        return lsFail(err, "%s: empty file, not a recording", rec->path);
    if (rec->lines.count == 0)
        return lsFail(err, "%s: a header but no recorded step", rec->path);
    return true;
}

// Parses text (size bytes and a NUL after them), cutting its lines in place.
static lsRecording* LoadInPlace(char* text, size_t size, const char* path, lsError* err)
{
    lsRecording* rec = lsAllocZero(1, sizeof(lsRecording));
    snprintf(rec->path, sizeof rec->path, "%s", path);
    rec->lines.size = sizeof(RecLine);
    rec->robots.size = sizeof(RecRobot);
    rec->vehicles.size = sizeof(RecVehicle);
    rec->changes.size = sizeof(RecChange);
    rec->paths.size = sizeof(RecPose);
    rec->scans.size = sizeof(RecScan);
    rec->targetsLine = -1;
    if (!ParseText(rec, text, size, err))
    {
        lsDestroyRecording(rec);
        return NULL;
    }
    rec->targets = lsAllocZero((size_t)(rec->targetCount > 0 ? rec->targetCount : 1), sizeof(RecChange));
    return rec;
}

lsRecording* lsLoadRecording(const char* path, lsError* err)
{
    size_t size = 0;
    char* text = lsReadFile(path, LS_MAX_RECORDING_BYTES, &size, err);
    if (text == NULL)
        return NULL;
    lsRecording* rec = LoadInPlace(text, size, path, err);
    lsFree(text, size + 1);
    return rec;
}

lsRecording* lsLoadRecordingFromString(const char* text, size_t size, const char* path, lsError* err)
{
    char* copy = lsAlloc(size + 1);
    memcpy(copy, text, size);
    copy[size] = '\0';
    lsRecording* rec = LoadInPlace(copy, size, path, err);
    lsFree(copy, size + 1);
    return rec;
}

void lsDestroyRecording(lsRecording* rec)
{
    if (rec == NULL)
        return;
    for (int i = 0; i < rec->scans.count; ++i)
        FreeScan((RecScan*)rec->scans.items + i);
    GrowFree(&rec->lines);
    GrowFree(&rec->robots);
    GrowFree(&rec->vehicles);
    GrowFree(&rec->changes);
    GrowFree(&rec->paths);
    GrowFree(&rec->scans);
    lsFree(rec->robotIds, (size_t)rec->robotCount * sizeof *rec->robotIds);
    lsFree(rec->beams, (size_t)rec->robotCount * sizeof(int));
    lsFree(rec->rangeMax, (size_t)rec->robotCount * sizeof(double));
    lsFree(rec->targets,
           rec->targets != NULL ? (size_t)(rec->targetCount > 0 ? rec->targetCount : 1) * sizeof(RecChange) : 0);
    lsFree(rec, sizeof(lsRecording));
}

// ---------------------------------------------------------------------------------------------------------------------
// The world

const char* lsRecording_WorldPath(const lsRecording* rec) { return rec->worldPath; }

void lsRecording_ResolveWorld(const lsRecording* rec, char* path, size_t capacity)
{
    lsFileStamp stamp;
    const char* slash = strrchr(rec->path, '/');
    if (rec->worldPath[0] == '/' || lsStatFile(rec->worldPath, &stamp, NULL) || slash == NULL)
    {
        snprintf(path, capacity, "%s", rec->worldPath);
        return;
    }
    snprintf(path, capacity, "%.*s/%s", (int)(slash - rec->path), rec->path, rec->worldPath);
}

bool lsRecording_CheckWorld(const lsRecording* rec, const lsWorld* world, const char* worldPath, lsError* err)
{
    uint64_t hash = lsWorld_ContentHash(world);
    if (hash != rec->worldHash)
        return lsFail(err,
                      "%s: recorded in a world with hash %016llx (%s), but %s has hash %016llx: not the same world "
                      "(edited since?); replay it with the world it was recorded in, or record it again",
                      rec->path, (unsigned long long)rec->worldHash, rec->worldPath, worldPath,
                      (unsigned long long)hash);
    uint64_t mapHash = 0;
    bool hasMap = lsWorld_MapHash(world, &mapHash);
    if (rec->hasMapHash && !hasMap)
        return lsFail(err,
                      "%s: recorded on a map whose walls have hash %016llx, but %s stands on no map: not the same "
                      "world; replay it with the world it was recorded in, or record it again",
                      rec->path, (unsigned long long)rec->mapHash, worldPath);
    if (rec->hasMapHash && mapHash != rec->mapHash)
        return lsFail(err,
                      "%s: recorded on a map whose walls have hash %016llx, but the map of %s has hash %016llx: "
                      "not the same map (its image or YAML changed since?); replay it with the map it was recorded "
                      "on, or record it again",
                      rec->path, (unsigned long long)rec->mapHash, worldPath, (unsigned long long)mapHash);
    return lsRecording_CheckShape(rec, world, worldPath, err);
}

bool lsRecording_CheckShape(const lsRecording* rec, const lsWorld* world, const char* worldPath, lsError* err)
{
    // The same content cannot disagree with the lines, which were checked against the header; these guard a
    // recording edited by hand (the header's hash copied onto other lines).
    if (lsWorld_RobotCount(world) != rec->robotCount)
        return lsFail(err, "%s: %d robots recorded, %s has %d", rec->path, rec->robotCount, worldPath,
                      lsWorld_RobotCount(world));
    for (int r = 0; r < rec->robotCount; ++r)
    {
        if (strcmp(lsWorld_GetRobot(world, r)->id, rec->robotIds[r]) != 0)
            return lsFail(err, "%s: robot %d is \"%s\", %s has \"%s\"", rec->path, r, rec->robotIds[r], worldPath,
                          lsWorld_GetRobot(world, r)->id);
    }
    if (world->vehicleCount != rec->vehicleCount)
        return lsFail(err, "%s: %d vehicles recorded (line %d), %s has %d", rec->path, rec->vehicleCount,
                      rec->vehicleLine, worldPath, world->vehicleCount);
    if (rec->targetCount > world->targetCount)
        return lsFail(err, "%s: a line's targets name target %d, %s has %d targets (0 to %d)", rec->path,
                      rec->targetCount - 1, worldPath, world->targetCount, world->targetCount - 1);
    // Every beam's object is one of the world's (the view draws what it names).
    const int counts[LS_HIT_KIND_COUNT] = {0,
                                           world->wallCount,
                                           world->moverCount,
                                           world->targetCount,
                                           world->boxCount,
                                           world->polygonCount,
                                           world->vehicleCount,
                                           lsWorld_RobotCount(world)};
    static const char* const kinds[LS_HIT_KIND_COUNT] = {"none", "wall",    "mover",   "target",
                                                         "box",  "polygon", "vehicle", "robot"};
    const RecScan* scans = rec->scans.items;
    for (int k = 0; k < rec->scans.count; ++k)
    {
        for (int i = 0; i < scans[k].count; ++i)
        {
            int kind = scans[k].kinds[i];
            if (kind != ls_hitNone && scans[k].indices[i] >= counts[kind])
                return lsFail(err, "%s: a scan at time %g: beam %d hits %s %d, but %s has %d %ss", rec->path,
                              scans[k].stamp, i, kinds[kind], scans[k].indices[i], worldPath, counts[kind],
                              kinds[kind]);
        }
    }
    return true;
}

void lsRecording_Configure(const lsRecording* rec, lsWorld* world) { world->sim.dt = rec->dt; }

lsSim* lsRecording_OpenWorld(lsRecording* rec, const char* worldPath, lsWorld** world, lsError* err)
{
    char resolved[1100];
    if (worldPath == NULL)
    {
        lsRecording_ResolveWorld(rec, resolved, sizeof resolved);
        worldPath = resolved;
    }
    *world = lsLoadWorld(worldPath, err, NULL);
    if (*world == NULL)
    {
        // Say which recording wanted the world, then why it could not be read; when the world was looked up from the
        // header (a path as given when recording, tried from here and beside the recording), how to name it instead.
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        if (worldPath == resolved)
            lsFail(err,
                   "%s: its world %s, looked for from here and beside the recording: %s (name the world after the "
                   "recording: lidarsim replay REC WORLD, or render REC WORLD -o FILE)",
                   rec->path, rec->worldPath, why);
        else
            lsFail(err, "%s: its world: %s", rec->path, why);
        return NULL;
    }
    if (!lsRecording_CheckWorld(rec, *world, worldPath, err))
    {
        lsDestroyWorld(*world);
        *world = NULL;
        return NULL;
    }
    lsRecording_Configure(rec, *world);
    lsSim* sim = lsCreateSim(*world);
    lsRecording_Apply(rec, lsRecording_FirstStep(rec), sim);
    return sim;
}

long long lsRecording_FirstStep(const lsRecording* rec) { return ((const RecLine*)rec->lines.items)[0].step; }

long long lsRecording_LastStep(const lsRecording* rec)
{
    return ((const RecLine*)rec->lines.items)[rec->lines.count - 1].step;
}

double lsRecording_Dt(const lsRecording* rec) { return rec->dt; }

int lsRecording_LineCount(const lsRecording* rec) { return rec->lines.count; }

long long lsRecording_LineStep(const lsRecording* rec, int i)
{
    LS_ASSERT(i >= 0 && i < rec->lines.count);
    return ((const RecLine*)rec->lines.items)[i].step;
}

// ---------------------------------------------------------------------------------------------------------------------
// Replay

lsVec2 lsRecording_RobotPosition(const lsRecording* rec, int i, int r)
{
    LS_ASSERT(i >= 0 && i < rec->lines.count && r >= 0 && r < rec->robotCount);
    return ((const RecRobot*)rec->robots.items)[(size_t)i * (size_t)rec->robotCount + (size_t)r].position;
}

int lsRecording_LineAt(const lsRecording* rec, long long step)
{
    const RecLine* lines = rec->lines.items;
    int lo = 0, hi = rec->lines.count - 1;
    while (lo < hi)
    {
        int mid = (lo + hi + 1) / 2;
        if (lines[mid].step <= step)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Brings the target cache to line `line`: forward from where it is, or from the start when going back.
static void TargetsAt(lsRecording* rec, int line)
{
    if (line < rec->targetsLine)
        rec->targetsLine = -1;
    if (rec->targetsLine < 0)
    {
        for (int i = 0; i < rec->targetCount; ++i)
            rec->targets[i].index = -1;
    }
    const RecLine* lines = rec->lines.items;
    const RecChange* changes = rec->changes.items;
    for (int l = rec->targetsLine + 1; l <= line; ++l)
    {
        for (int k = 0; k < lines[l].changeCount; ++k)
        {
            const RecChange* c = &changes[lines[l].changeStart + k];
            rec->targets[c->index] = *c;
        }
    }
    rec->targetsLine = line;
}

// Robot r's recorded scan into the sim's scan: beam ends from the sensor pose, ranges and angles.
static void FillScan(const RecScan* recorded, const lsRobotDef* def, lsScan* scan)
{
    LS_ASSERT(recorded->count <= scan->capacity);
    scan->count = recorded->count;
    scan->layout = lsMakeScanLayout(recorded->count, def->lidar.fov);
    scan->rangeMin = def->lidar.rangeMin;
    scan->rangeMax = def->lidar.range;
    scan->heading = recorded->heading;
    scan->pose = (lsTransform){recorded->origin, lsMakeRot(recorded->heading)};
    for (int i = 0; i < recorded->count; ++i)
    {
        double angle = lsScanLayout_Angle(&scan->layout, i);
        bool hit = recorded->kinds[i] != ls_hitNone;
        double range = hit ? (double)recorded->ranges[i] : scan->rangeMax;
        double a = recorded->heading + angle;
        scan->angles[i] = angle;
        scan->ranges[i] = hit ? range : (double)INFINITY;
        scan->intensities[i] = (double)recorded->intensities[i];
        scan->kinds[i] = (lsHitKind)recorded->kinds[i];
        scan->indices[i] = recorded->indices[i];
        scan->parts[i] = hit ? 0 : -1;
        scan->points[i] = lsMulAdd(recorded->origin, range, lsV(cos(a), sin(a)));
        scan->normals[i] = lsV(0.0, 0.0);
    }
}

void lsRecording_Apply(lsRecording* rec, long long step, lsSim* sim)
{
    const lsWorld* world = lsSim_GetWorld(sim);
    LS_ASSERT(lsWorld_RobotCount(world) == rec->robotCount && world->vehicleCount == rec->vehicleCount);
    long long first = lsRecording_FirstStep(rec), last = lsRecording_LastStep(rec);
    step = step < first ? first : (step > last ? last : step);
    int l = lsRecording_LineAt(rec, step);
    int n = l + 1 < rec->lines.count ? l + 1 : l;
    const RecLine* line = (const RecLine*)rec->lines.items + l;
    const RecLine* next = (const RecLine*)rec->lines.items + n;
    long long into = step - line->step; // steps past the line; 0 on a recorded line
    double f = next->step > line->step ? (double)into / (double)(next->step - line->step) : 0.0;

    for (int r = 0; r < rec->robotCount; ++r)
    {
        if (lsSim_GetRobotBeams(sim, r) != rec->beams[r])
            lsSim_SetRobotBeams(sim, r, rec->beams[r]);
    }
    lsSimReplayAccess access = lsSim_ReplayAccess(sim);
    lsSimState* state = access.state;
    state->step = step;
    state->time = line->time + (double)into * rec->dt;
    state->score = line->score;
    state->food = line->food;
    state->poison = line->poison;
    state->collisions = line->collisions;
    state->distance = line->distance;
    state->crushes = 0;
    state->scanned = false;
    const RecRobot* robots = (const RecRobot*)rec->robots.items + (size_t)l * (size_t)rec->robotCount;
    const RecRobot* nexts = (const RecRobot*)rec->robots.items + (size_t)n * (size_t)rec->robotCount;
    const RecPose* paths = rec->paths.items;
    for (int r = 0; r < rec->robotCount; ++r)
    {
        const RecRobot* a = &robots[r];
        const RecRobot* b = &nexts[r];
        lsRobotState* robot = &access.robots[r];
        robot->position = a->position;
        robot->angle = a->angle;
        if (into > 0 && into <= b->pathCount)
        {
            // The recorded pose of a skipped step.
            robot->position = paths[b->pathStart + into - 1].position;
            robot->angle = paths[b->pathStart + into - 1].angle;
        }
        else if (into > 0)
        {
            // No path recorded (an older writer, or --every with a path left out): between the lines' poses.
            robot->position = lsLerp(a->position, b->position, f);
            robot->angle = a->angle + f * remainder(b->angle - a->angle, 2.0 * LS_PI);
        }
        robot->v = a->v;
        robot->w = a->w;
        robot->score = rec->robotCount > 1 ? a->score : line->score;
        robot->food = rec->robotCount > 1 ? a->food : line->food;
        robot->poison = rec->robotCount > 1 ? a->poison : line->poison;
        robot->collisions = rec->robotCount > 1 ? a->collisions : line->collisions;
        robot->distance = rec->robotCount > 1 ? a->distance : line->distance;
        robot->crushes = a->crushes;
        state->crushes += a->crushes;
        // Scanned at this line: its scan differs from the previous line's.
        const RecRobot* before = l > 0 ? a - rec->robotCount : NULL;
        robot->scanned = into == 0 && a->scan >= 0 && (before == NULL || before->scan != a->scan);
        state->scanned = state->scanned || robot->scanned;
        if (a->scan >= 0)
            FillScan((const RecScan*)rec->scans.items + a->scan, lsWorld_GetRobot(world, r), lsSim_ReplayScan(sim, r));
    }
    const RecVehicle* va = (const RecVehicle*)rec->vehicles.items + (size_t)l * (size_t)rec->vehicleCount;
    const RecVehicle* vb = (const RecVehicle*)rec->vehicles.items + (size_t)n * (size_t)rec->vehicleCount;
    for (int i = 0; i < rec->vehicleCount; ++i)
    {
        lsVehicleState* v = &access.vehicles[i];
        v->position = lsLerp(va[i].position, vb[i].position, f);
        v->velocity = va[i].velocity;
        // The steering overlay's points are not recorded: they collapse onto the vehicle.
        v->predicted = v->normalPoint = v->target = v->position;
        v->seeking = false;
        // Nor is the progress along the path: a step from here would find it again from the recorded position.
        v->tracking = false;
    }
    TargetsAt(rec, l);
    for (int i = 0; i < rec->targetCount && i < state->targetCount; ++i)
    {
        if (rec->targets[i].index >= 0)
        {
            access.targets[i].center = rec->targets[i].center;
            access.targets[i].active = rec->targets[i].active;
        }
    }
    lsSim_ReplaySync(sim);
}

// lidarsim core: saving world files in the canonical form that loads back to an equal world (docs/world-format.md).
// Numbers are written as the shortest decimal that reads back exactly; the file is replaced atomically.
#define _XOPEN_SOURCE 700 // realpath
#include "lidarsim/map.h"
#include "lidarsim/world.h"

#include "core/file_write.h"
#include "core/text.h"
#include "core/world_fields.h"
#include "core/world_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The canonical writer's output.
typedef lsText Builder;

static void Put(Builder* b, const char* s) { lsText_Append(b, s, strlen(s)); }

static void PutNumber(Builder* b, double v)
{
    char buffer[40];
    lsFormatNumber(buffer, sizeof buffer, v);
    Put(b, buffer);
}

// An angle in degrees: the shortest decimal that reads back as exactly radians (lsExactDegrees), or when no double of
// degrees maps back, the string "R rad", which the loader reads as radians.
static void PutAngle(Builder* b, double radians)
{
    LS_ASSERT(isfinite(radians));
    char buffer[40];
    double degrees;
    if (lsExactDegrees(radians, &degrees))
    {
        lsFormatNumber(buffer, sizeof buffer, degrees);
        Put(b, buffer);
        return;
    }
    lsFormatNumber(buffer, sizeof buffer, radians);
    Put(b, "\"");
    Put(b, buffer);
    Put(b, " rad\"");
}

static void PutVec2(Builder* b, lsVec2 v)
{
    Put(b, "[");
    PutNumber(b, v.x);
    Put(b, ", ");
    PutNumber(b, v.y);
    Put(b, "]");
}

static void PutPoints(Builder* b, const lsVec2* points, int count)
{
    Put(b, "[");
    for (int i = 0; i < count; ++i)
    {
        if (i > 0)
        {
            Put(b, ", ");
        }
        PutVec2(b, points[i]);
    }
    Put(b, "]");
}

static void PutString(Builder* b, const char* s)
{
    Put(b, "\"");
    for (const unsigned char* p = (const unsigned char*)s; *p != '\0'; ++p)
    {
        char escaped[8];
        if (*p == '"' || *p == '\\')
        {
            escaped[0] = '\\';
            escaped[1] = (char)*p;
            lsText_Append(b, escaped, 2);
        }
        else if (*p < 0x20)
        {
            snprintf(escaped, sizeof escaped, "\\u%04x", (unsigned)*p);
            Put(b, escaped);
        }
        else
        {
            lsText_Append(b, (const char*)p, 1);
        }
    }
    Put(b, "\"");
}

static void PutSeed(Builder* b, uint64_t seed)
{
    char buffer[32];
    if (seed <= (uint64_t)1 << 53)
    {
        snprintf(buffer, sizeof buffer, "%llu", (unsigned long long)seed);
    }
    else
    {
        snprintf(buffer, sizeof buffer, "\"%llu\"", (unsigned long long)seed);
    }
    Put(b, buffer);
}

// Key with its separator: `"key": `.
static void PutKey(Builder* b, const char* key)
{
    Put(b, "\"");
    Put(b, key);
    Put(b, "\": ");
}

static void PutFields(Builder* b, const lsFieldTable* table, const void* def, int first, int last, bool after);

// One row's value in its canonical spelling.
static void PutValue(Builder* b, const lsField* f, const void* def)
{
    const void* at = lsField_Get(f, def);
    const void* extra = lsField_GetExtra(f, def);
    char buffer[32];
    switch (f->type)
    {
    case ls_fieldNumber:
        PutNumber(b, *(const double*)at);
        break;
    case ls_fieldAngle:
        PutAngle(b, *(const double*)at);
        break;
    case ls_fieldBool:
        Put(b, *(const bool*)at ? "true" : "false");
        break;
    case ls_fieldSeed:
        PutSeed(b, *(const uint64_t*)at);
        break;
    case ls_fieldInteger:
        snprintf(buffer, sizeof buffer, "%d", *(const int*)at);
        Put(b, buffer);
        break;
    case ls_fieldString:
        PutString(b, (const char*)at);
        break;
    case ls_fieldChoice:
        Put(b, "\"");
        Put(b, f->names[*(const int*)at]);
        Put(b, "\"");
        break;
    case ls_fieldVec2:
    case ls_fieldSize2:
        PutVec2(b, *(const lsVec2*)at);
        break;
    case ls_fieldPose:
    {
        lsVec2 p = *(const lsVec2*)at;
        Put(b, "[");
        PutNumber(b, p.x);
        Put(b, ", ");
        PutNumber(b, p.y);
        Put(b, ", ");
        PutAngle(b, *(const double*)extra);
        Put(b, "]");
        break;
    }
    case ls_fieldConvex:
        PutPoints(b, (const lsVec2*)at, *(const int*)extra);
        break;
    case ls_fieldChain:
        PutPoints(b, *(const lsVec2* const*)at, *(const int*)extra);
        break;
    case ls_fieldObject:
        Put(b, "{");
        PutFields(b, f->object, at, 0, f->object->count, false);
        Put(b, "}");
        break;
    case ls_fieldCustom:
        LS_ASSERT(false); // written by the section's own code
        break;
    }
}

// Rows [first, last) as `"key": value` members with the table's separators (`after`: a member came before). An
// empty convex polygon (a round robot's footprint) is left out.
static void PutFields(Builder* b, const lsFieldTable* table, const void* def, int first, int last, bool after)
{
    for (int i = first; i < last; ++i)
    {
        const lsField* f = table->fields + i;
        if (f->type == ls_fieldConvex && *(const int*)lsField_GetExtra(f, def) == 0)
        {
            continue;
        }
        if (after)
        {
            Put(b, (f->flags & ls_fieldNewLine) != 0 ? table->lineBreak : table->separator);
        }
        PutKey(b, f->key);
        PutValue(b, f, def);
        after = true;
    }
}

// Starts element i of an array of one-line objects.
static void BeginElement(Builder* b, int i) { Put(b, i > 0 ? ",\n    {" : "\n    {"); }

static void EndArray(Builder* b, int count) { Put(b, count > 0 ? "\n  ]" : "]"); }

// An array section of one-line objects, each written whole from the table.
static void PutArray(Builder* b, const char* key, const lsFieldTable* table, const void* defs, size_t size, int count)
{
    Put(b, ",\n  \"");
    Put(b, key);
    Put(b, "\": [");
    for (int i = 0; i < count; ++i)
    {
        BeginElement(b, i);
        PutFields(b, table, (const char*)defs + (size_t)i * size, 0, table->count, false);
        Put(b, "}");
    }
    EndArray(b, count);
}

// One robot's object. The shorthand names the id and controller only when they are not the defaults.
static void PutRobot(Builder* b, const lsRobotDef* r, bool listed)
{
    Put(b, listed ? "{\n    " : "  \"robot\": {\n    ");
    bool named = listed || strcmp(r->id, "robot") != 0 || r->controller != ls_controllerManual;
    const lsFieldTable* table = &lsWorldFields_Robot;
    PutFields(b, table, r, named ? 0 : lsFieldTable_Row(table, "pose"), table->count, false);
    Put(b, "\n  }");
}

// A world edited through its public struct may name a path that does not exist: nothing to write for that.
static bool CanSave(const lsWorld* world)
{
    if (world == NULL)
    {
        return false;
    }
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        if (world->vehicles[i].path < 0 || world->vehicles[i].path >= world->pathCount)
        {
            return false;
        }
    }
    return true;
}

// The canonical text, naming the map as mapPath.
static char* WorldToString(const lsWorld* world, const char* mapPath)
{
    if (!CanSave(world))
    {
        return NULL;
    }
    Builder b = {0};
    Put(&b, "{\n  \"name\": ");
    PutString(&b, world->name);
    if (mapPath[0] != '\0')
    {
        // The map is named, not copied: its walls come back from the map when the file loads.
        Put(&b, ",\n  \"map\": ");
        PutString(&b, mapPath);
        if (world->map.unknownOccupied)
            Put(&b, ",\n  \"unknown\": \"occupied\"");
    }

    Put(&b, ",\n  \"walls\": [");
    int written = 0;
    const lsFieldTable* wall = &lsWorldFields_Wall;
    int rest = lsFieldTable_Row(wall, "reflectance");
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* w = world->walls + i;
        if (w->fromMap)
            continue;
        BeginElement(&b, written++);
        // The form ("from"/"to" or "points"/"closed") is the section's own; the rows from `rest` are the table's.
        if (w->fromTo && !w->closed && w->pointCount == 2)
        {
            PutKey(&b, "from");
            PutVec2(&b, w->points[0]);
            Put(&b, ", ");
            PutKey(&b, "to");
            PutVec2(&b, w->points[1]);
        }
        else
        {
            PutKey(&b, "points");
            PutPoints(&b, w->points, w->pointCount);
            Put(&b, w->closed ? ", \"closed\": true" : ", \"closed\": false");
        }
        PutFields(&b, wall, w, rest, wall->count, true);
        Put(&b, "}");
    }
    EndArray(&b, written);

    PutArray(&b, "targets", &lsWorldFields_Target, world->targets, sizeof(lsTargetDef), world->targetCount);
    PutArray(&b, "boxes", &lsWorldFields_Box, world->boxes, sizeof(lsBoxDef), world->boxCount);
    PutArray(&b, "polygons", &lsWorldFields_Polygon, world->polygons, sizeof(lsPolygonDef), world->polygonCount);

    Put(&b, ",\n");
    if (world->robotList || world->fleetCount > 0)
    {
        Put(&b, "  \"robots\": [");
        for (int i = 0; i < lsWorld_RobotCount(world); ++i)
        {
            Put(&b, i > 0 ? ", " : "");
            PutRobot(&b, lsWorld_GetRobot(world, i), true);
        }
        Put(&b, "]");
    }
    else
    {
        PutRobot(&b, &world->robot, false);
    }

    PutArray(&b, "paths", &lsWorldFields_Path, world->paths, sizeof(lsPathDef), world->pathCount);

    // A vehicle names its path by id (the section's own "path" row); the rows after it are the table's.
    Put(&b, ",\n  \"vehicles\": [");
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        const lsVehicleDef* v = world->vehicles + i;
        LS_ASSERT(0 <= v->path && v->path < world->pathCount);
        BeginElement(&b, i);
        PutKey(&b, "path");
        PutString(&b, world->paths[v->path].id);
        PutFields(&b, &lsWorldFields_Vehicle, v, lsFieldTable_Row(&lsWorldFields_Vehicle, "path") + 1,
                  lsWorldFields_Vehicle.count, true);
        Put(&b, "}");
    }
    EndArray(&b, world->vehicleCount);

    // A mover's "type" picks its table; the rows after it are the table's.
    Put(&b, ",\n  \"movers\": [");
    for (int i = 0; i < world->moverCount; ++i)
    {
        const lsMoverDef* m = world->movers + i;
        BeginElement(&b, i);
        bool bar = m->kind == ls_moverBar;
        Put(&b, bar ? "\"type\": \"bar\"" : "\"type\": \"door\"");
        const lsFieldTable* table = bar ? &lsWorldFields_Bar : &lsWorldFields_Door;
        PutFields(&b, table, m, lsFieldTable_Row(table, "type") + 1, table->count, true);
        Put(&b, "}");
    }
    EndArray(&b, world->moverCount);

    Put(&b, ",\n  \"sim\": {");
    PutFields(&b, &lsWorldFields_Sim, &world->sim, 0, lsWorldFields_Sim.count, false);
    Put(&b, "}\n}\n");

    // Shrink to strlen + 1 bytes: lsFreeString frees by that size.
    b.data = lsRealloc(b.data, b.capacity, b.length + 1);
    return b.data;
}

char* lsSaveWorldToString(const lsWorld* world) { return world != NULL ? WorldToString(world, world->map.path) : NULL; }

// The folder part of a path ("." when it has none), into out.
static bool FolderOf(const char* path, char* out, size_t capacity)
{
    const char* slash = strrchr(path, '/');
    int n = slash == NULL ? snprintf(out, capacity, ".")
                          : snprintf(out, capacity, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return n >= 0 && (size_t)n < capacity;
}

bool lsRelocateMapPath(const lsWorld* world, const char* path, char* out, size_t capacity)
{
    LS_ASSERT(world != NULL && path != NULL && out != NULL && capacity > 0);
    const lsMapRef* map = &world->map;
    int n = snprintf(out, capacity, "%s", map->path);
    if (n < 0 || (size_t)n >= capacity)
        return false;
    if (map->path[0] == '\0' || map->path[0] == '/' || map->yamlFile[0] == '\0')
        return true;
    // Where the map is, and the folder the file is saved into, both resolved (symbolic links, "..").
    char folder[LS_MAP_REF_CAPACITY], joined[2 * LS_MAP_REF_CAPACITY];
    char* yaml = realpath(map->yamlFile, NULL);
    char* target = FolderOf(path, folder, sizeof folder) ? realpath(folder, NULL) : NULL;
    bool ok = true;
    if (yaml != NULL && target != NULL)
    {
        // Unchanged when the written path still reaches the map from there (saving beside the old file keeps the
        // user's spelling); else the path from the new folder to the map, "../" for each folder not shared.
        snprintf(joined, sizeof joined, "%s/%s", target, map->path);
        char* same = realpath(joined, NULL);
        if (same == NULL || strcmp(same, yaml) != 0)
        {
            // common: the length of the folder both share, where yaml has the '/' after it.
            bool root = strcmp(target, "/") == 0;
            size_t common = 0, t = strlen(target);
            for (size_t i = 0; !root && target[i] != '\0' && target[i] == yaml[i]; ++i)
                common = target[i] == '/' ? i : common;
            if (!root && strncmp(target, yaml, t) == 0 && yaml[t] == '/')
                common = t;
            size_t length = 0;
            out[0] = '\0';
            for (const char* p = target + common; !root && *p != '\0'; ++p)
            {
                if (*p == '/')
                {
                    int k = snprintf(out + length, capacity - length, "../");
                    ok = ok && k >= 0 && (size_t)k < capacity - length;
                    length = ok ? length + 3 : length;
                }
            }
            int k = ok ? snprintf(out + length, capacity - length, "%s", yaml + common + 1) : -1;
            ok = k >= 0 && (size_t)k < capacity - length;
        }
        free(same);
    }
    free(yaml);
    free(target);
    if (!ok)
        snprintf(out, capacity, "%s", map->path);
    return ok;
}

bool lsCheckSaveTarget(const lsWorld* world, const char* path, char* mapPath, size_t capacity, lsError* err)
{
    LS_ASSERT(capacity > 0);
    mapPath[0] = '\0'; // written whatever the outcome (the analyser cannot see that lsFail returns false)
    if (lsIsMapPath(path))
    {
        // The window opened on a map YAML saves with Ctrl+S like any world: never over the map itself.
        return lsFail(err,
                      "%s: not saved: a map YAML is never overwritten with a world (save a .json, or use "
                      "lidarsim import)",
                      path);
    }
    // A world on a map saved into another folder names the map from there.
    if (!lsRelocateMapPath(world, path, mapPath, capacity))
        return lsFail(err, "%s: not saved: the path from there to the map %s is too long", path, world->map.yamlFile);
    if (!lsUtf8Valid(mapPath))
        return lsFail(err, "%s: not saved: the map's path %s is not UTF-8, which a JSON file cannot hold (rename it)",
                      path, mapPath);
    return true;
}

bool lsSaveWorld(const lsWorld* world, const char* path, lsError* err)
{
    if (path == NULL)
    {
        return lsFail(err, "no file name given to save the world to");
    }
    if (!CanSave(world))
    {
        return lsFail(err, "%s: not saved: %s", path,
                      world == NULL ? "no world given" : "a vehicle is on a path the world does not have");
    }
    char mapPath[LS_MAP_REF_CAPACITY];
    if (!lsCheckSaveTarget(world, path, mapPath, sizeof mapPath, err))
        return false;
    char* json = WorldToString(world, mapPath);
    size_t length = strlen(json);
    // Never write a file the loader would refuse (an edited world with, say, two paths of one id).
    lsWorld* check = lsLoadWorldFromString(json, length, path, err, NULL);
    if (check == NULL)
    {
        lsFreeString(json);
        char reason[sizeof err->message];
        snprintf(reason, sizeof reason, "%s", err != NULL ? err->message : "");
        return lsFail(err, "%s: not saved, the world is not valid: %s", path, reason);
    }
    lsDestroyWorld(check);

    // Atomic, through a symlink to its target, keeping owner and mode (file_write.h).
    bool ok = lsWriteFileAtomic(path, json, length, err);
    lsFreeString(json);
    return ok;
}

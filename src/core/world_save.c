// lidarsim core: saving world files in the canonical form that loads back to an equal world (docs/world-format.md).
// Numbers are written as the shortest decimal that reads back exactly; the file is replaced atomically.
#include "lidarsim/map.h"
#include "lidarsim/world.h"

#include "core/file_write.h"
#include "core/text.h"

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

// An angle in degrees: the shortest decimal d with lsDegToRad(strtod(d)) == radians exactly. Neighbours of the
// rounded conversion are tried too; when no double of degrees maps back (multiplying by pi/180 skips some doubles),
// it is written as the string "R rad", which the loader reads as radians.
static void PutAngle(Builder* b, double radians)
{
    LS_ASSERT(isfinite(radians));
    char buffer[40];
    double degrees = lsRadToDeg(radians);
    if (isfinite(degrees))
    {
        for (int precision = 1; precision <= 17; ++precision)
        {
            // Round to `precision` digits, then print that double the usual way ("270", not "2.7e+02").
            snprintf(buffer, sizeof buffer, "%.*g", precision, degrees);
            double rounded = strtod(buffer, NULL);
            if (lsDegToRad(rounded) == radians)
            {
                lsFormatNumber(buffer, sizeof buffer, rounded);
                Put(b, buffer);
                return;
            }
        }
        double down = degrees, up = degrees;
        for (int step = 0; step < 4; ++step)
        {
            down = nextafter(down, -HUGE_VAL);
            up = nextafter(up, HUGE_VAL);
            double candidates[2] = {down, up};
            for (int k = 0; k < 2; ++k)
            {
                if (isfinite(candidates[k]) && lsDegToRad(candidates[k]) == radians)
                {
                    lsFormatNumber(buffer, sizeof buffer, candidates[k]);
                    Put(b, buffer);
                    return;
                }
            }
        }
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

// Starts element i of an array of one-line objects.
static void BeginElement(Builder* b, int i) { Put(b, i > 0 ? ",\n    {" : "\n    {"); }

static void EndArray(Builder* b, int count) { Put(b, count > 0 ? "\n  ]" : "]"); }

// One robot's object. The shorthand names the id and controller only when they are not the defaults.
static void PutRobot(Builder* b, const lsRobotDef* r, bool listed)
{
    static const char* const controllers[] = {"manual", "autopilot", "external"};
    Put(b, listed ? "{\n    " : "  \"robot\": {\n    ");
    if (listed || strcmp(r->id, "robot") != 0 || r->controller != ls_controllerManual)
    {
        Put(b, "\"id\": ");
        PutString(b, r->id);
        Put(b, ", \"controller\": \"");
        Put(b, controllers[r->controller]);
        Put(b, "\",\n    ");
    }
    Put(b, "\"pose\": [");
    PutNumber(b, r->position.x);
    Put(b, ", ");
    PutNumber(b, r->position.y);
    Put(b, ", ");
    PutAngle(b, r->angle);
    Put(b, "],\n    \"radius\": ");
    PutNumber(b, r->radius);
    if (r->footprintCount > 0)
    {
        Put(b, ",\n    \"footprint\": ");
        PutPoints(b, r->footprint, r->footprintCount);
    }
    Put(b, ",\n    \"max_speed\": ");
    PutNumber(b, r->maxSpeed);
    Put(b, ",\n    \"max_turn_rate\": ");
    PutAngle(b, r->maxTurnRate);
    Put(b, ",\n    \"max_accel\": ");
    PutNumber(b, r->maxAccel);
    Put(b, ",\n    \"max_turn_accel\": ");
    PutAngle(b, r->maxTurnAccel);
    const lsLidarDef* l = &r->lidar;
    char beams[32];
    snprintf(beams, sizeof beams, "%d", l->beams);
    Put(b, ",\n    \"lidar\": {\"beams\": ");
    Put(b, beams);
    Put(b, ", \"fov\": ");
    PutAngle(b, l->fov);
    Put(b, ", \"range\": ");
    PutNumber(b, l->range);
    Put(b, ", \"range_min\": ");
    PutNumber(b, l->rangeMin);
    Put(b, ", \"mount\": [");
    PutNumber(b, l->mountOffset.x);
    Put(b, ", ");
    PutNumber(b, l->mountOffset.y);
    Put(b, ", ");
    PutAngle(b, l->mountAngle);
    Put(b, "],\n              \"rate\": ");
    PutNumber(b, l->rate);
    Put(b, ", \"noise\": ");
    PutNumber(b, l->noise);
    Put(b, ", \"noise_per_m\": ");
    PutNumber(b, l->noisePerM);
    Put(b, ", \"angle_noise\": ");
    PutAngle(b, l->angleNoise);
    Put(b, ", \"dropout\": ");
    PutNumber(b, l->dropout);
    Put(b, ", \"grazing_dropout\": ");
    PutNumber(b, l->grazingDropout);
    Put(b, ", \"seed\": ");
    PutSeed(b, l->seed);
    Put(b, "}\n  }");
}

char* lsSaveWorldToString(const lsWorld* world)
{
    LS_ASSERT(world != NULL);
    Builder b = {0};
    Put(&b, "{\n  \"name\": ");
    PutString(&b, world->name);
    if (world->map.path[0] != '\0')
    {
        // The map is named, not copied: its walls come back from the map when the file loads.
        Put(&b, ",\n  \"map\": ");
        PutString(&b, world->map.path);
        if (world->map.unknownOccupied)
            Put(&b, ",\n  \"unknown\": \"occupied\"");
    }

    Put(&b, ",\n  \"walls\": [");
    int written = 0;
    for (int i = 0; i < world->wallCount; ++i)
    {
        const lsWallDef* w = world->walls + i;
        if (w->fromMap)
            continue;
        BeginElement(&b, written++);
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
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, w->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, written);

    Put(&b, ",\n  \"targets\": [");
    for (int i = 0; i < world->targetCount; ++i)
    {
        const lsTargetDef* t = world->targets + i;
        BeginElement(&b, i);
        PutKey(&b, "center");
        PutVec2(&b, t->center);
        Put(&b, ", \"radius\": ");
        PutNumber(&b, t->radius);
        Put(&b, t->kind == ls_poison ? ", \"kind\": \"poison\"" : ", \"kind\": \"food\"");
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, t->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, world->targetCount);

    Put(&b, ",\n  \"boxes\": [");
    for (int i = 0; i < world->boxCount; ++i)
    {
        const lsBoxDef* x = world->boxes + i;
        BeginElement(&b, i);
        PutKey(&b, "center");
        PutVec2(&b, x->center);
        Put(&b, ", \"size\": ");
        PutVec2(&b, x->size);
        Put(&b, ", \"angle\": ");
        PutAngle(&b, x->angle);
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, x->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, world->boxCount);

    Put(&b, ",\n  \"polygons\": [");
    for (int i = 0; i < world->polygonCount; ++i)
    {
        const lsPolygonDef* p = world->polygons + i;
        BeginElement(&b, i);
        PutKey(&b, "points");
        PutPoints(&b, p->points, p->count);
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, p->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, world->polygonCount);

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

    Put(&b, ",\n  \"paths\": [");
    for (int i = 0; i < world->pathCount; ++i)
    {
        const lsPathDef* p = world->paths + i;
        BeginElement(&b, i);
        PutKey(&b, "id");
        PutString(&b, p->id);
        Put(&b, ", \"points\": ");
        PutPoints(&b, p->points, p->pointCount);
        Put(&b, ", \"radius\": ");
        PutNumber(&b, p->radius);
        Put(&b, p->closed ? ", \"closed\": true}" : ", \"closed\": false}");
    }
    EndArray(&b, world->pathCount);

    Put(&b, ",\n  \"vehicles\": [");
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        const lsVehicleDef* v = world->vehicles + i;
        LS_ASSERT(0 <= v->path && v->path < world->pathCount);
        BeginElement(&b, i);
        PutKey(&b, "path");
        PutString(&b, world->paths[v->path].id);
        Put(&b, ", \"position\": ");
        PutVec2(&b, v->position);
        Put(&b, ", \"velocity\": ");
        PutVec2(&b, v->velocity);
        Put(&b, ", \"max_speed\": ");
        PutNumber(&b, v->maxSpeed);
        Put(&b, ", \"max_force\": ");
        PutNumber(&b, v->maxForce);
        Put(&b, ", \"radius\": ");
        PutNumber(&b, v->radius);
        Put(&b, v->pathEnd == ls_pathEndReverse ? ", \"at_end\": \"reverse\"" : ", \"at_end\": \"stop\"");
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, v->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, world->vehicleCount);

    Put(&b, ",\n  \"movers\": [");
    for (int i = 0; i < world->moverCount; ++i)
    {
        const lsMoverDef* m = world->movers + i;
        BeginElement(&b, i);
        Put(&b, m->kind == ls_moverBar ? "\"type\": \"bar\", " : "\"type\": \"door\", ");
        PutKey(&b, "from");
        PutVec2(&b, m->a);
        Put(&b, ", \"to\": ");
        PutVec2(&b, m->b);
        if (m->kind == ls_moverBar)
        {
            Put(&b, ", \"pivot\": ");
            PutVec2(&b, m->pivot);
            Put(&b, ", \"speed\": ");
            PutAngle(&b, m->angularSpeed);
        }
        else
        {
            Put(&b, ", \"offset\": ");
            PutVec2(&b, m->offset);
            Put(&b, ", \"period\": ");
            PutNumber(&b, m->period);
            Put(&b, ", \"phase\": ");
            PutNumber(&b, m->phase);
        }
        Put(&b, ", \"reflectance\": ");
        PutNumber(&b, m->reflectance);
        Put(&b, "}");
    }
    EndArray(&b, world->moverCount);

    const lsSimDef* s = &world->sim;
    Put(&b, ",\n  \"sim\": {\"dt\": ");
    PutNumber(&b, s->dt);
    Put(&b, ", \"seed\": ");
    PutSeed(&b, s->seed);
    Put(&b, s->respawn ? ", \"respawn\": true" : ", \"respawn\": false");
    Put(&b, ", \"food_reward\": ");
    PutNumber(&b, s->foodReward);
    Put(&b, ", \"poison_reward\": ");
    PutNumber(&b, s->poisonReward);
    Put(&b, "}\n}\n");

    // Shrink to strlen + 1 bytes: lsFreeString frees by that size.
    b.data = lsRealloc(b.data, b.capacity, b.length + 1);
    return b.data;
}

bool lsSaveWorld(const lsWorld* world, const char* path, lsError* err)
{
    LS_ASSERT(world != NULL && path != NULL);
    if (lsIsMapPath(path))
    {
        // The window opened on a map YAML saves with Ctrl+S like any world: never over the map itself.
        return lsFail(err,
                      "%s: not saved: a map YAML is never overwritten with a world (save a .json, or use "
                      "lidarsim import)",
                      path);
    }
    char* json = lsSaveWorldToString(world);
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

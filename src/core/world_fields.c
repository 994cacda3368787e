// lidarsim core: the world file's keys (see world_fields.h). Order matters: the loader reads the rows in order (so
// the first bad value reported is the first row's) and the canonical saver writes them in order.
#include "core/world_fields.h"

#include "lidarsim/world.h"

#include <string.h>

#define LS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// Columns: key, type, offset, extra, quantity, flags, names, object.
#define LS_CUSTOM(key, flags)                                                                                          \
    {                                                                                                                  \
        key, ls_fieldCustom, 0, 0, ls_quantityCount, flags, NULL, NULL                                                 \
    }
#define LS_NUMBER(T, key, member, quantity, flags)                                                                     \
    {                                                                                                                  \
        key, ls_fieldNumber, offsetof(T, member), 0, quantity, flags, NULL, NULL                                       \
    }
#define LS_ANGLE(T, key, member, quantity, flags)                                                                      \
    {                                                                                                                  \
        key, ls_fieldAngle, offsetof(T, member), 0, quantity, flags, NULL, NULL                                        \
    }
#define LS_VEC2(T, key, member, quantity, flags)                                                                       \
    {                                                                                                                  \
        key, ls_fieldVec2, offsetof(T, member), 0, quantity, flags, NULL, NULL                                         \
    }

static const char* const s_targetKinds[] = {"food", "poison", NULL};
static const char* const s_controllers[] = {"manual", "autopilot", "external", NULL};
static const char* const s_pathEnds[] = {"stop", "reverse", NULL};

static const lsField s_root[] = {
    LS_CUSTOM("name", 0),    LS_CUSTOM("map", 0),   LS_CUSTOM("unknown", 0),  LS_CUSTOM("walls", 0),
    LS_CUSTOM("targets", 0), LS_CUSTOM("boxes", 0), LS_CUSTOM("polygons", 0), LS_CUSTOM("robot", 0),
    LS_CUSTOM("robots", 0),  LS_CUSTOM("paths", 0), LS_CUSTOM("vehicles", 0), LS_CUSTOM("movers", 0),
    LS_CUSTOM("sim", 0),
};

// A wall is {"from", "to"} or {"points", "closed"}; the section's code reads the form, the rows the rest.
static const lsField s_wall[] = {
    LS_CUSTOM("from", ls_fieldForm),
    LS_CUSTOM("to", ls_fieldForm),
    LS_CUSTOM("points", ls_fieldForm),
    LS_CUSTOM("closed", 0),
    LS_NUMBER(lsWallDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_target[] = {
    LS_VEC2(lsTargetDef, "center", center, ls_quantityCoordinate, ls_fieldRequired),
    LS_NUMBER(lsTargetDef, "radius", radius, ls_quantitySize, 0),
    {"kind", ls_fieldChoice, offsetof(lsTargetDef, kind), 0, ls_quantityCount, 0, s_targetKinds, NULL},
    LS_NUMBER(lsTargetDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_box[] = {
    LS_VEC2(lsBoxDef, "center", center, ls_quantityCoordinate, ls_fieldRequired),
    {"size", ls_fieldSize2, offsetof(lsBoxDef, size), 0, ls_quantitySize, ls_fieldRequired, NULL, NULL},
    LS_ANGLE(lsBoxDef, "angle", angle, ls_quantityAngle, 0),
    LS_NUMBER(lsBoxDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_polygon[] = {
    {"points", ls_fieldConvex, offsetof(lsPolygonDef, points), offsetof(lsPolygonDef, count), ls_quantityCoordinate,
     ls_fieldRequired, NULL, NULL},
    LS_NUMBER(lsPolygonDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_lidar[] = {
    {"beams", ls_fieldInteger, offsetof(lsLidarDef, beams), LS_MAX_BEAMS, ls_quantityCount, 0, NULL, NULL},
    LS_ANGLE(lsLidarDef, "fov", fov, ls_quantityFov, 0),
    LS_NUMBER(lsLidarDef, "range", range, ls_quantityRange, 0),
    LS_NUMBER(lsLidarDef, "range_min", rangeMin, ls_quantityRangeMin, 0),
    {"mount", ls_fieldPose, offsetof(lsLidarDef, mountOffset), offsetof(lsLidarDef, mountAngle), ls_quantityOffset, 0,
     NULL, NULL},
    LS_NUMBER(lsLidarDef, "rate", rate, ls_quantityRate, ls_fieldNewLine),
    LS_NUMBER(lsLidarDef, "noise", noise, ls_quantityDistance, 0),
    LS_NUMBER(lsLidarDef, "noise_per_m", noisePerM, ls_quantityRatio, 0),
    LS_ANGLE(lsLidarDef, "angle_noise", angleNoise, ls_quantityAngleNoise, 0),
    LS_NUMBER(lsLidarDef, "dropout", dropout, ls_quantityUnit, 0),
    LS_NUMBER(lsLidarDef, "grazing_dropout", grazingDropout, ls_quantityUnit, 0),
    {"seed", ls_fieldSeed, offsetof(lsLidarDef, seed), 0, ls_quantityCount, 0, NULL, NULL},
};

const lsFieldTable lsWorldFields_Lidar = {s_lidar, LS_COUNT(s_lidar), ", ", ",\n              "};

static const lsField s_robot[] = {
    {"id", ls_fieldString, offsetof(lsRobotDef, id), LS_ROBOT_ID_CAPACITY, ls_quantityCount, ls_fieldNonEmpty, NULL,
     NULL},
    {"controller", ls_fieldChoice, offsetof(lsRobotDef, controller), 0, ls_quantityCount, 0, s_controllers, NULL},
    {"pose", ls_fieldPose, offsetof(lsRobotDef, position), offsetof(lsRobotDef, angle), ls_quantityCoordinate,
     ls_fieldNewLine, NULL, NULL},
    LS_NUMBER(lsRobotDef, "radius", radius, ls_quantitySize, ls_fieldNewLine),
    {"footprint", ls_fieldConvex, offsetof(lsRobotDef, footprint), offsetof(lsRobotDef, footprintCount),
     ls_quantityOffset, ls_fieldNewLine, NULL, NULL},
    LS_NUMBER(lsRobotDef, "max_speed", maxSpeed, ls_quantitySpeed, ls_fieldNewLine),
    LS_ANGLE(lsRobotDef, "max_turn_rate", maxTurnRate, ls_quantityTurnRate, ls_fieldNewLine),
    LS_NUMBER(lsRobotDef, "max_accel", maxAccel, ls_quantityAccel, ls_fieldNewLine),
    LS_ANGLE(lsRobotDef, "max_turn_accel", maxTurnAccel, ls_quantityTurnAccel, ls_fieldNewLine),
    {"lidar", ls_fieldObject, offsetof(lsRobotDef, lidar), 0, ls_quantityCount, ls_fieldNewLine, NULL,
     &lsWorldFields_Lidar},
};

// A path's points are a chain, read by the section's code (how many it needs depends on "closed").
static const lsField s_path[] = {
    {"id", ls_fieldString, offsetof(lsPathDef, id), LS_PATH_ID_CAPACITY, ls_quantityCount,
     ls_fieldRequired | ls_fieldNonEmpty, NULL, NULL},
    {"points", ls_fieldChain, offsetof(lsPathDef, points), offsetof(lsPathDef, pointCount), ls_quantityCoordinate,
     ls_fieldRequired, NULL, NULL},
    LS_NUMBER(lsPathDef, "radius", radius, ls_quantitySize, 0),
    {"closed", ls_fieldBool, offsetof(lsPathDef, closed), 0, ls_quantityCount, 0, NULL, NULL},
};

// A vehicle names its path by id (the section's code looks it up); its position defaults to the path's start.
static const lsField s_vehicle[] = {
    LS_CUSTOM("path", ls_fieldRequired),
    LS_VEC2(lsVehicleDef, "position", position, ls_quantityCoordinate, 0),
    LS_VEC2(lsVehicleDef, "velocity", velocity, ls_quantityVelocity, 0),
    LS_NUMBER(lsVehicleDef, "max_speed", maxSpeed, ls_quantitySpeed, 0),
    LS_NUMBER(lsVehicleDef, "max_force", maxForce, ls_quantityAccel, 0),
    LS_NUMBER(lsVehicleDef, "radius", radius, ls_quantitySize, 0),
    {"at_end", ls_fieldChoice, offsetof(lsVehicleDef, pathEnd), 0, ls_quantityCount, 0, s_pathEnds, NULL},
    LS_NUMBER(lsVehicleDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

// Movers: "type" picks the table; "from" and "to" come first, since the other keys' defaults depend on them.
static const lsField s_door[] = {
    LS_CUSTOM("type", ls_fieldRequired),
    LS_VEC2(lsMoverDef, "from", a, ls_quantityCoordinate, ls_fieldRequired),
    LS_VEC2(lsMoverDef, "to", b, ls_quantityCoordinate, ls_fieldRequired),
    LS_VEC2(lsMoverDef, "offset", offset, ls_quantityOffset, 0),
    LS_NUMBER(lsMoverDef, "period", period, ls_quantityPeriod, 0),
    LS_NUMBER(lsMoverDef, "phase", phase, ls_quantityPhase, 0),
    LS_NUMBER(lsMoverDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_bar[] = {
    LS_CUSTOM("type", ls_fieldRequired),
    LS_VEC2(lsMoverDef, "from", a, ls_quantityCoordinate, ls_fieldRequired),
    LS_VEC2(lsMoverDef, "to", b, ls_quantityCoordinate, ls_fieldRequired),
    LS_VEC2(lsMoverDef, "pivot", pivot, ls_quantityCoordinate, 0),
    LS_ANGLE(lsMoverDef, "speed", angularSpeed, ls_quantitySpin, 0),
    LS_NUMBER(lsMoverDef, "reflectance", reflectance, ls_quantityUnit, 0),
};

static const lsField s_sim[] = {
    LS_NUMBER(lsSimDef, "dt", dt, ls_quantityTimeStep, 0),
    {"seed", ls_fieldSeed, offsetof(lsSimDef, seed), 0, ls_quantityCount, 0, NULL, NULL},
    {"respawn", ls_fieldBool, offsetof(lsSimDef, respawn), 0, ls_quantityCount, 0, NULL, NULL},
    LS_NUMBER(lsSimDef, "food_reward", foodReward, ls_quantityReward, 0),
    LS_NUMBER(lsSimDef, "poison_reward", poisonReward, ls_quantityReward, 0),
};

const lsFieldTable lsWorldFields_Root = {s_root, LS_COUNT(s_root), ",\n  ", ",\n  "};
const lsFieldTable lsWorldFields_Wall = {s_wall, LS_COUNT(s_wall), ", ", ", "};
const lsFieldTable lsWorldFields_Target = {s_target, LS_COUNT(s_target), ", ", ", "};
const lsFieldTable lsWorldFields_Box = {s_box, LS_COUNT(s_box), ", ", ", "};
const lsFieldTable lsWorldFields_Polygon = {s_polygon, LS_COUNT(s_polygon), ", ", ", "};
const lsFieldTable lsWorldFields_Robot = {s_robot, LS_COUNT(s_robot), ", ", ",\n    "};
const lsFieldTable lsWorldFields_Path = {s_path, LS_COUNT(s_path), ", ", ", "};
const lsFieldTable lsWorldFields_Vehicle = {s_vehicle, LS_COUNT(s_vehicle), ", ", ", "};
const lsFieldTable lsWorldFields_Door = {s_door, LS_COUNT(s_door), ", ", ", "};
const lsFieldTable lsWorldFields_Bar = {s_bar, LS_COUNT(s_bar), ", ", ", "};
const lsFieldTable lsWorldFields_Sim = {s_sim, LS_COUNT(s_sim), ", ", ", "};

const lsField* lsFieldTable_Find(const lsFieldTable* table, const char* key, size_t length)
{
    for (int i = 0; i < table->count; ++i)
    {
        const char* k = table->fields[i].key;
        if (strlen(k) == length && memcmp(k, key, length) == 0)
        {
            return table->fields + i;
        }
    }
    return NULL;
}

int lsFieldTable_Row(const lsFieldTable* table, const char* key)
{
    const lsField* f = lsFieldTable_Find(table, key, strlen(key));
    LS_ASSERT(f != NULL);
    return (int)(f - table->fields);
}

bool lsWorldFields_IsRequiredKey(const char* key, size_t length)
{
    static const lsFieldTable* const tables[] = {
        &lsWorldFields_Wall,  &lsWorldFields_Target, &lsWorldFields_Box,  &lsWorldFields_Polygon,
        &lsWorldFields_Robot, &lsWorldFields_Lidar,  &lsWorldFields_Path, &lsWorldFields_Vehicle,
        &lsWorldFields_Door,  &lsWorldFields_Bar,    &lsWorldFields_Sim,
    };
    for (int t = 0; t < LS_COUNT(tables); ++t)
    {
        const lsField* f = lsFieldTable_Find(tables[t], key, length);
        if (f != NULL && (f->flags & (ls_fieldRequired | ls_fieldForm)) != 0)
        {
            return true;
        }
    }
    return false;
}

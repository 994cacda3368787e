// lidarsim core: the one table of bounds on every number a world file or a command line gives (coordinates,
// lengths, speeds, rates, periods, time steps...). The loader and every command-line flag check values against
// this table, so whatever is accepted can be simulated, scanned, rendered and drawn without overflow, a NaN, an
// infinity or a hang. docs/world-format.md ("Limits") gives each bound with its reason.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/// Largest |coordinate| of any point in a world, metres: a country, and doubles there still resolve 1.2e-10 m,
/// far below the 1e-6 m contact skin (see docs/world-format.md).
#define LS_MAX_COORDINATE 1e6
/// Largest length (size, radius, range, offset, mount, footprint point), metres: with the coordinates, everything a
/// world can reach stays within a few million metres.
#define LS_MAX_LENGTH 1e6
/// Smallest size or radius, metres: a hundred contact skins, so contacts between bodies stay well posed.
#define LS_MIN_LENGTH 1e-4

/// The kinds of numbers, each with one bound in the table.
typedef enum lsQuantity
{
    ls_quantityCoordinate, ///< a world point's x or y (walls, centres, poses, pivots, paths), metres
    ls_quantityOffset,     ///< a displacement or robot-frame coordinate (door offset, lidar mount, footprint), metres
    ls_quantitySize,       ///< a size or radius, metres
    ls_quantityRange,      ///< a lidar's maximum range, metres
    ls_quantityRangeMin,   ///< a lidar's minimum range, metres
    ls_quantityDistance,   ///< a non-negative distance (range noise), metres
    ls_quantityRatio,      ///< a non-negative ratio (noise per metre)
    ls_quantityAngle,      ///< an orientation (poses, boxes, mounts), degrees
    ls_quantityFov,        ///< a field of view, degrees
    ls_quantityAngleNoise, ///< a beam angle's noise deviation, degrees
    ls_quantitySpeed,      ///< a top speed, m/s
    ls_quantityVelocity,   ///< a velocity component, m/s
    ls_quantityAccel,      ///< an acceleration (or a vehicle's force per unit mass), m/s^2
    ls_quantityTurnRate,   ///< a top turn rate, deg/s
    ls_quantitySpin,       ///< a signed turn rate (a bar's speed), deg/s
    ls_quantityTurnAccel,  ///< a turn acceleration, deg/s^2
    ls_quantityPeriod,     ///< a door's period, s
    ls_quantityPhase,      ///< a fraction of a cycle
    ls_quantityRate,       ///< a lidar's scan rate, Hz
    ls_quantityTimeStep,   ///< the simulation's time step, s
    ls_quantityReward,     ///< a score change
    ls_quantityUnit,       ///< a probability or reflectance
    ls_quantityResolution, ///< a map's pixel size (map YAML resolution, export-map --resolution), metres
    ls_quantitySensor, ///< where a lidar may be: a coordinate plus a rotated mount offset (a recording's scan origin)
    ls_quantityCount,
} lsQuantity;

/// One bound: lo <= v <= hi (lo < v when loOpen, v < hi when hiOpen).
typedef struct lsLimit
{
    const char* what; ///< "a coordinate", for messages
    const char* unit; ///< "m", "deg/s", "" when none
    double lo, hi;
    bool loOpen, hiOpen;
} lsLimit;

/// The bound of a quantity.
const lsLimit* lsGetLimit(lsQuantity quantity);
/// True when v is finite and within the quantity's bound.
bool lsLimit_Holds(lsQuantity quantity, double v);
/// "a coordinate in [-1e+06, 1e+06] m" written into buffer (capacity bytes); returns buffer.
const char* lsLimit_Describe(lsQuantity quantity, char* buffer, size_t capacity);
/// Parses a whole string as one number within the quantity's bound (a command-line flag's value); false when it is
/// not one.
bool lsParseQuantity(const char* text, lsQuantity quantity, double* out);

// lidarsim core: the table of bounds (see limits.h; the reasons are in docs/world-format.md, "Limits").
#include "core/limits.h"

#include "lidarsim/base.h"

#include <math.h>
#include <stdio.h>

// what, unit, lo, hi, loOpen, hiOpen
static const lsLimit s_limits[ls_quantityCount] = {
    [ls_quantityCoordinate] = {"a coordinate", "m", -LS_MAX_COORDINATE, LS_MAX_COORDINATE, false, false},
    [ls_quantityOffset] = {"an offset", "m", -LS_MAX_LENGTH, LS_MAX_LENGTH, false, false},
    [ls_quantitySize] = {"a size", "m", LS_MIN_LENGTH, LS_MAX_LENGTH, false, false},
    [ls_quantityRange] = {"a range", "m", LS_MIN_LENGTH, LS_MAX_LENGTH, false, false},
    [ls_quantityRangeMin] = {"a minimum range", "m", 0.0, LS_MAX_LENGTH, false, true},
    [ls_quantityDistance] = {"a distance", "m", 0.0, LS_MAX_LENGTH, false, false},
    [ls_quantityRatio] = {"a ratio", "", 0.0, 1e3, false, false},
    [ls_quantityAngle] = {"an angle", "deg", -1e6, 1e6, false, false},
    [ls_quantityFov] = {"a field of view", "deg", 1e-6, 360.0, false, false}, // radians of 4.9e-324 deg are 0
    [ls_quantityAngleNoise] = {"an angle deviation", "deg", 0.0, 360.0, false, false},
    [ls_quantitySpeed] = {"a speed", "m/s", 0.0, 1e3, true, false},
    [ls_quantityVelocity] = {"a velocity component", "m/s", -1e3, 1e3, false, false},
    [ls_quantityAccel] = {"an acceleration", "m/s^2", 0.0, 1e5, true, false},
    [ls_quantityTurnRate] = {"a turn rate", "deg/s", 0.0, 1e5, true, false},
    [ls_quantitySpin] = {"a turn rate", "deg/s", -1e5, 1e5, false, false},
    [ls_quantityTurnAccel] = {"a turn acceleration", "deg/s^2", 0.0, 1e7, true, false},
    [ls_quantityPeriod] = {"a period", "s", 1e-3, 1e9, false, false},
    [ls_quantityPhase] = {"a phase", "", 0.0, 1.0, false, true},
    [ls_quantityRate] = {"a rate", "Hz", 1e-3, 1e3, false, false},
    [ls_quantityTimeStep] = {"a time step", "s", 1e-6, 1.0, false, false},
    [ls_quantityReward] = {"a reward", "", -1e9, 1e9, false, false},
    [ls_quantityUnit] = {"a number", "", 0.0, 1.0, false, false},
    [ls_quantityResolution] = {"a resolution", "m per pixel", LS_MIN_LENGTH, LS_MAX_LENGTH, false, false},
    // A pose's coordinate plus a mount offset turned by the heading: 1e6 + sqrt(2) 1e6 m at most.
    [ls_quantitySensor] = {"a sensor position", "m", -2.5 * LS_MAX_COORDINATE, 2.5 * LS_MAX_COORDINATE, false, false},
};

const lsLimit* lsGetLimit(lsQuantity quantity)
{
    LS_ASSERT((int)quantity >= 0 && quantity < ls_quantityCount);
    return &s_limits[quantity];
}

bool lsLimit_Holds(lsQuantity quantity, double v)
{
    const lsLimit* limit = lsGetLimit(quantity);
    if (!isfinite(v))
    {
        return false;
    }
    bool aboveLo = limit->loOpen ? v > limit->lo : v >= limit->lo;
    bool belowHi = limit->hiOpen ? v < limit->hi : v <= limit->hi;
    return aboveLo && belowHi;
}

const char* lsLimit_Describe(lsQuantity quantity, char* buffer, size_t capacity)
{
    const lsLimit* limit = lsGetLimit(quantity);
    snprintf(buffer, capacity, "%s in %c%g, %g%c%s%s", limit->what, limit->loOpen ? '(' : '[', limit->lo, limit->hi,
             limit->hiOpen ? ')' : ']', limit->unit[0] != '\0' ? " " : "", limit->unit);
    return buffer;
}

bool lsParseQuantity(const char* text, lsQuantity quantity, double* out)
{
    double v = 0.0;
    if (!lsParseNumber(text, &v) || !lsLimit_Holds(quantity, v))
    {
        return false;
    }
    *out = v;
    return true;
}

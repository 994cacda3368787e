// lidarsim program: the LaserScan JSON writer shared by `lidarsim scan` and `lidarsim run --record`, so both print
// the same fields the same way (numbers as the shortest text that reads back to the same double).
#pragma once

#include "core/lidar.h"

#include <stdio.h>

/// How a beam without a return is written in "ranges".
typedef enum lsNoHitStyle
{
    ls_noHitNull = 0, ///< null (the default)
    ls_noHitInf = 1,  ///< Infinity (LaserScan's own convention; not strict JSON)
    ls_noHitMax = 2,  ///< range_max
    ls_noHitNan = 3,  ///< NaN (not strict JSON)
} lsNoHitStyle;

/// Writes a double as the shortest of %.15g, %.16g, %.17g that reads back to the same value; whole numbers keep a
/// ".0" so JSON readers see floats.
void lsWriteJsonNumber(FILE* out, double value);
/// Writes one scan as a JSON object, without a newline: angle_min, angle_max, angle_increment, range_min,
/// range_max, time_increment (0), scan_time (seconds between scans), ranges, intensities, hits (kind names or
/// null), indices, target_kinds ("food"/"poison" for targets, else null) and pose [x, y, degrees] (the robot pose
/// the scan was taken from). The scene supplies the targets' kinds.
void lsWriteLaserScanJson(FILE* out, const lsScene* scene, const lsScan* scan, double scanTime, lsNoHitStyle noHit,
                          const double pose[3]);

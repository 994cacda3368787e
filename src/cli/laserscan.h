// lidarsim program: the LaserScan JSON writer shared by `lidarsim scan` and `lidarsim run --record`, so both print
// the same fields the same way (numbers as the shortest text that reads back to the same double).
#pragma once

#include "lidarsim/lidar.h"

#include <stdio.h>

/// How a beam without a return is written in "ranges".
typedef enum lsNoHitStyle
{
    ls_noHitNull = 0, ///< null (the default)
    ls_noHitInf = 1,  ///< inf (LaserScan's own convention): CSV only, JSON has no infinity
    ls_noHitMax = 2,  ///< range_max
    ls_noHitNan = 3,  ///< nan: CSV only
} lsNoHitStyle;

/// Writes a double as the shortest of %.15g, %.16g, %.17g that reads back to the same value; whole numbers keep a
/// ".0" so JSON readers see floats. A value that is not finite is written as null: output is always valid JSON.
void lsWriteJsonNumber(FILE* out, double value);
/// Writes text as a JSON string: quotes, with '"', '\\' and control characters escaped, UTF-8 as it is, and each
/// byte that is not UTF-8 (a file name in Latin-1) as U+FFFD: output is always valid JSON.
void lsWriteJsonString(FILE* out, const char* text);

/// The frame_id of every LaserScan header: the lidar's own frame (mounted on the robot, see robot.lidar).
#define LS_LASER_FRAME_ID "laser"

/// The robot pose a scan was taken from: position in metres, heading in radians (world frame).
typedef struct lsScanPose
{
    double x, y, theta;
} lsScanPose;

/// Writes one scan as a JSON object, without a newline, with the fields of a ROS sensor_msgs/LaserScan:
/// header {stamp {sec, nanosec} (simulated seconds `stamp`), frame_id LS_LASER_FRAME_ID}, angle_min, angle_max,
/// angle_increment, range_min, range_max, time_increment (0), scan_time (seconds between scans), ranges,
/// intensities; then hits (kind names or null), indices, target_kinds ("food"/"poison" for targets, else null) and
/// pose {x, y, theta (radians), theta_deg}: the robot pose the scan was taken from. noHit is ls_noHitNull or
/// ls_noHitMax. The scene supplies the targets' kinds.
void lsWriteLaserScanJson(FILE* out, const lsScene* scene, const lsScan* scan, double stamp, double scanTime,
                          lsNoHitStyle noHit, lsScanPose pose);

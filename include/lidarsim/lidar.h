// lidarsim core: the lidar sensor model. One scan casts `beams` rays from the sensor's world pose into a scene
// and reports, per beam, what a ROS sensor_msgs/LaserScan holds (range, intensity) plus what was hit.
//
// Beam layout: beam i points at heading + angleMin + i * angleIncrement (sensor frame angle angleMin + i * inc); its
// direction is the sensor frame's unit vector at that angle rotated by the heading (lsScan_BeamDirection).
// fov = 2 pi: angleIncrement = 2 pi / beams, angleMin = -pi. fov < 2 pi: angleIncrement = fov / (beams - 1) and the
// beams span -fov/2 .. +fov/2 inclusive; a single beam (beams = 1) points straight ahead (angleMin = 0, inc = 0).
//
// Noise model (only when an lsRng is given; every beam draws the same amount from it, so streams stay aligned):
// - angular jitter: the cast direction is turned by angleNoise * N(0, 1) radians (the reported angle stays nominal);
// - range noise: measured = true + (noise + noisePerM * true) * N(0, 1), clamped to [0, range];
// - dropout: the beam returns nothing with probability dropout + grazingDropout * (1 - |cos incidence|) (clamped
//   to [0, 1]), where incidence is the angle between the beam and the surface normal.
// A measured range below rangeMin is no return (so is an origin inside a solid when rangeMin > 0; with rangeMin 0
// such a beam returns range 0). Intensity = reflectance * |cos incidence| of the object hit, 0 for no return
// (so a beam from inside a solid, whose normal is -direction, reports the full reflectance).
#pragma once

#include "lidarsim/scene.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// The angles of a scan (radians, sensor frame, counter-clockwise from the sensor heading).
typedef struct lsScanLayout
{
    int beams;
    double angleMin;       ///< angle of beam 0
    double angleMax;       ///< angle of the last beam: angleMin + (beams - 1) * angleIncrement
    double angleIncrement; ///< between consecutive beams
} lsScanLayout;

/// The layout for `beams` (1 .. LS_MAX_BEAMS) beams over fov radians in (0, 2 pi] (see the file comment); a layout of
/// zero beams when either is out of range.
LS_API lsScanLayout lsMakeScanLayout(int beams, double fov);
/// Sensor-frame angle of beam i (radians): angleMin + i * angleIncrement.
static inline double lsScanLayout_Angle(const lsScanLayout* layout, int i)
{
    return layout->angleMin + (double)i * layout->angleIncrement;
}

/// One scan. Arrays hold `capacity` entries, the first `count` are filled by lsLidar_Scan. Threads: a scan is written
/// by one cast at a time; give each thread its own.
typedef struct lsScan
{
    int capacity;
    int count;                 ///< beams in the last scan
    lsScanLayout layout;       ///< of the last scan
    double rangeMin, rangeMax; ///< metres, of the last scan
    lsTransform pose;          ///< sensor world pose of the last scan
    double* angles;            ///< nominal beam angle, sensor frame, radians (jitter is not included)
    double* ranges;            ///< measured range in metres, or INFINITY for no return (LaserScan's convention)
    double* intensities;       ///< reflectance * |cos incidence|, 0 for no return
    lsHitKind* kinds;          ///< what was hit; ls_hitNone for no return (out of range, dropout or below rangeMin)
    int* indices;              ///< object index (see lsHitKind), -1 for no return
    int* parts;                ///< wall segment within the chain, else 0; -1 for no return
    lsVec2* points;            ///< world point where the beam ended: the true hit point (before range noise), or the
                               ///< beam's end at rangeMax along the (jittered) direction for no return
    lsVec2* normals;           ///< unit surface normal at the hit facing the beam, world frame; (0, 0) for no return
    double heading;            ///< sensor heading of the last scan, radians (world frame)
    // Internal: the sensor-frame unit direction (lsDirection of its angle) of each beam of directionLayout, computed
    // once and kept for the next scan with the same layout, whose beams are then these rotated by the heading.
    lsScanLayout directionLayout;
    lsVec2* directions;
} lsScan;

/// A scan with room for capacity beams (1 .. LS_MAX_BEAMS; NULL outside). Destroy with lsDestroyScan.
LS_API lsScan* lsCreateScan(int capacity);
/// Frees the scan. NULL is allowed.
LS_API void lsDestroyScan(lsScan* scan);

/// Casts one scan from the sensor at world `position` with world `heading` (radians; the robot's angle plus the
/// mount angle). Beam i travels along lsScan_BeamDirection(out, i): its sensor-frame direction (cos, sin of
/// angleMin + i * angleIncrement) rotated by (cos, sin of heading). A jittered beam travels along (cos a, sin a) with
/// a = heading + angleMin + i * angleIncrement + the jitter, evaluated in that order. rng is the noise stream (NULL:
/// noiseless, no jitter, no dropout). The robot is not in the scene: the lidar never sees it. False with out->count 0
/// (out may be NULL) when a pointer is NULL, def->beams is not in 1 .. out->capacity, def's range or fov is out of
/// range, or the pose is not finite.
LS_API bool lsLidar_ScanFrom(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, lsVec2 position,
                             double heading, lsRng* rng, lsScan* out);
/// Same, from a sensor pose given as a transform (see lsLidar_SensorPose); the heading is recovered as
/// atan2(q.s, q.c), which can differ from the angle the rotation was made from in the last bit. Prefer
/// lsLidar_ScanFrom when the heading angle is at hand.
LS_API bool lsLidar_Scan(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def,
                         lsTransform sensorPose, lsRng* rng, lsScan* out);
/// Numbers one scan with def draws from a noise stream (lsRng_Next calls; 0 when noiseless): every beam draws the
/// same amount, so a batch of scans cast in parallel can give scan k the stream advanced by k times this and match
/// the scans cast one after the other from one stream. -1 when def is NULL or its beams out of range.
LS_API int lsLidar_DrawsPerScan(const lsLidarDef* def);
/// The world direction beam i of the scan was cast along, angular jitter aside: the sensor-frame lsDirection(angles[i])
/// rotated by pose.q (which is lsMakeRot(heading)). A unit vector within a few units in the last place of
/// lsDirection(heading + angles[i]), exact for a beam at angle 0; the scan's hits are the exact casts along it. (0, 0)
/// when scan is NULL or i is not a beam of the last scan.
LS_API lsVec2 lsScan_BeamDirection(const lsScan* scan, int i);
/// Sensor world pose for a robot at robotPose: the mount offset and angle composed onto the robot's pose.
LS_API lsTransform lsLidar_SensorPose(const lsLidarDef* def, lsTransform robotPose);
/// Sensor world position for a robot at `position` with heading `angle` (radians): position + R(angle) mountOffset.
LS_API lsVec2 lsLidar_SensorPosition(const lsLidarDef* def, lsVec2 position, double angle);

#ifdef __cplusplus
}
#endif

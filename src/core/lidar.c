// The lidar sensor model: beam layout, one cast per beam through the scene, then the measurement model (jitter,
// range noise, dropout, minimum range) and intensities. No allocation per scan: everything goes into the lsScan.
#include "lidarsim/lidar.h"
#include "core/beam_runs.h"
#include "core/dynamic.h"
#include "core/scene_fan.h"

#include <math.h>
#include <string.h>

/// Room for the static objects near one scan whose beam runs are kept; more and every beam is cast.
#define LS_SCENE_RUN_CAPACITY 256

lsScanLayout lsMakeScanLayout(int beams, double fov)
{
    lsScanLayout layout = {0};
    if (beams < 1 || beams > LS_MAX_BEAMS || !(fov > 0.0 && fov <= 2.0 * LS_PI + 1e-9))
    {
        return layout; // zero beams: no layout
    }
    layout.beams = beams;
    // One beam looks straight ahead, whatever the fov (a full circle's rule would point it backwards, at -pi). A full
    // circle (fov 360 degrees, within rounding of the degree conversion) spaces the beams evenly without repeating the
    // first one at +pi.
    if (beams == 1)
    {
        layout.angleIncrement = 0.0;
        layout.angleMin = 0.0;
    }
    else if (fov >= 2.0 * LS_PI - 1e-12)
    {
        layout.angleIncrement = 2.0 * LS_PI / (double)beams;
        layout.angleMin = -LS_PI;
    }
    else
    {
        layout.angleIncrement = fov / (double)(beams - 1);
        layout.angleMin = -0.5 * fov;
    }
    layout.angleMax = layout.angleMin + (double)(beams - 1) * layout.angleIncrement;
    return layout;
}

lsScan* lsCreateScan(int capacity)
{
    if (capacity < 1 || capacity > LS_MAX_BEAMS)
    {
        return NULL;
    }
    lsScan* scan = lsAllocZero(1, sizeof(lsScan));
    size_t n = (size_t)capacity;
    scan->capacity = capacity;
    scan->angles = lsAllocZero(n, sizeof(double));
    scan->ranges = lsAllocZero(n, sizeof(double));
    scan->intensities = lsAllocZero(n, sizeof(double));
    scan->kinds = lsAllocZero(n, sizeof(lsHitKind));
    scan->indices = lsAllocZero(n, sizeof(int));
    scan->parts = lsAllocZero(n, sizeof(int));
    scan->points = lsAllocZero(n, sizeof(lsVec2));
    scan->normals = lsAllocZero(n, sizeof(lsVec2));
    scan->directions = lsAllocZero(n, sizeof(lsVec2));
    return scan;
}

void lsDestroyScan(lsScan* scan)
{
    if (scan == NULL)
    {
        return;
    }
    size_t n = (size_t)scan->capacity;
    lsFree(scan->angles, n * sizeof(double));
    lsFree(scan->ranges, n * sizeof(double));
    lsFree(scan->intensities, n * sizeof(double));
    lsFree(scan->kinds, n * sizeof(lsHitKind));
    lsFree(scan->indices, n * sizeof(int));
    lsFree(scan->parts, n * sizeof(int));
    lsFree(scan->points, n * sizeof(lsVec2));
    lsFree(scan->normals, n * sizeof(lsVec2));
    lsFree(scan->directions, n * sizeof(lsVec2));
    lsFree(scan, sizeof(lsScan));
}

lsTransform lsLidar_SensorPose(const lsLidarDef* def, lsTransform robotPose)
{
    LS_ASSERT(def != NULL);
    lsTransform pose;
    pose.p = lsTransformPoint(robotPose, def->mountOffset);
    lsRot m = lsMakeRot(def->mountAngle);
    // q = robot.q * m (rotation composition).
    pose.q = (lsRot){robotPose.q.c * m.c - robotPose.q.s * m.s, robotPose.q.s * m.c + robotPose.q.c * m.s};
    return pose;
}

lsVec2 lsLidar_SensorPosition(const lsLidarDef* def, lsVec2 position, double angle)
{
    LS_ASSERT(def != NULL);
    return lsTransformPoint((lsTransform){position, lsMakeRot(angle)}, def->mountOffset);
}

// The reflectance of the object a scan's last return hit: successive beams mostly hit the same object, and the
// scene's lookup is a call (about 5 % of a scan's time in the swarm).
typedef struct Reflectance
{
    lsHitKind kind;
    int index;
    double value;
} Reflectance;

// The scan's output arrays, read once per scan: through out, the compiler reloads each pointer after every store.
typedef struct ScanArrays
{
    double* ranges;
    double* intensities;
    lsHitKind* kinds;
    int* indices;
    int* parts;
    lsVec2* points;
    lsVec2* normals;
} ScanArrays;

// The measurement model of beam i along dir (range noise, dropout, minimum range, intensity) given its hit. noisy
// false (a constant where inlined) skips the draws, which are then 0 and 1 and would change nothing.
static inline void Measure(const lsScene* scene, const lsLidarDef* def, const lsRayHit* hit, lsVec2 dir, bool noisy,
                           double rangeDraw, double dropDraw, Reflectance* last, const ScanArrays* out, lsVec2 origin,
                           int i)
{
    double cosIncidence = fabs(lsDot(hit->normal, dir));
    cosIncidence = cosIncidence < 1.0 ? cosIncidence : 1.0; // fmin's value for every input, NaN included, no call
    double measured = hit->fraction;
    bool returned = hit->hit;
    if (noisy && returned)
    {
        if (rangeDraw != 0.0) // 0 without range noise (a zero draw would change nothing either)
        {
            double sigma = def->noise + def->noisePerM * hit->fraction;
            measured = lsFmin(lsFmax(measured + sigma * rangeDraw, 0.0), def->range);
        }
        if (dropDraw < 1.0) // 1 without dropout (uniform draws are below 1)
        {
            double p = lsFmin(lsFmax(def->dropout + def->grazingDropout * (1.0 - cosIncidence), 0.0), 1.0);
            returned = !(dropDraw < p);
        }
    }
    if (!returned || measured < def->rangeMin)
    {
        out->ranges[i] = HUGE_VAL;
        out->intensities[i] = 0.0;
        out->kinds[i] = ls_hitNone;
        out->indices[i] = -1;
        out->parts[i] = -1;
        out->points[i] = lsMulAdd(origin, def->range, dir);
        out->normals[i] = (lsVec2){0.0, 0.0};
        return;
    }
    out->ranges[i] = measured;
    if (hit->kind != last->kind || hit->index != last->index)
    {
        *last = (Reflectance){hit->kind, hit->index, lsScene_Reflectance(scene, hit->kind, hit->index)};
    }
    out->intensities[i] = last->value * cosIncidence;
    out->kinds[i] = hit->kind;
    out->indices[i] = hit->index;
    out->parts[i] = hit->part;
    out->points[i] = hit->point;
    out->normals[i] = hit->normal;
}

// The sensor-frame unit direction of each beam of layout, from the scan's cache when its last layout was this one.
// A beam's world direction is then its sensor-frame one rotated by the heading: four products and two sums instead of
// a cosine and a sine per beam (about a tenth of a scan's time). It is within a few units in the last place of
// lsDirection(heading + angle), the rounding of that sum included, and exact for a beam at angle 0.
static const lsVec2* SensorDirections(lsScan* out, const lsScanLayout* layout)
{
    const lsScanLayout* kept = &out->directionLayout;
    if (kept->beams != layout->beams || kept->angleMin != layout->angleMin ||
        kept->angleIncrement != layout->angleIncrement)
    {
        for (int i = 0; i < layout->beams; ++i)
        {
            out->directions[i] = lsDirection(lsScanLayout_Angle(layout, i));
        }
        out->directionLayout = *layout;
    }
    return out->directions;
}

lsVec2 lsScan_BeamDirection(const lsScan* scan, int i)
{
    if (scan == NULL || i < 0 || i >= scan->count)
    {
        return (lsVec2){0.0, 0.0};
    }
    return lsRotate(scan->pose.q, lsDirection(scan->angles[i])); // SensorDirections' value, rotated as in the scan
}

int lsLidar_DrawsPerScan(const lsLidarDef* def)
{
    if (def == NULL || def->beams < 1 || def->beams > LS_MAX_BEAMS)
    {
        return -1;
    }
    // Per beam, as lsLidar_ScanFrom draws: jitter and range noise one Gaussian each (two numbers, Box-Muller in
    // lsRng_Gaussian), dropout one uniform.
    int perBeam = (def->angleNoise > 0.0 ? 2 : 0) + (def->noise > 0.0 || def->noisePerM > 0.0 ? 2 : 0) +
                  (def->dropout > 0.0 || def->grazingDropout > 0.0 ? 1 : 0);
    return perBeam * def->beams;
}

bool lsLidar_Scan(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, lsTransform sensorPose,
                  lsRng* rng, lsScan* out)
{
    return lsLidar_ScanFrom(scene, dyn, def, sensorPose.p, lsRot_GetAngle(sensorPose.q), rng, out);
}

bool lsLidar_ScanFrom(const lsScene* scene, const lsDynamicObjects* dyn, const lsLidarDef* def, lsVec2 position,
                      double heading, lsRng* rng, lsScan* out)
{
    if (scene == NULL || def == NULL || out == NULL || def->beams < 1 || def->beams > out->capacity ||
        !(def->range > 0.0 && def->rangeMin >= 0.0) || !(def->fov > 0.0 && def->fov <= 2.0 * LS_PI + 1e-9) ||
        !lsIsValidVec2(position) || !isfinite(heading))
    {
        if (out != NULL)
        {
            out->count = 0;
        }
        return false;
    }
    lsScanLayout layout = lsMakeScanLayout(def->beams, def->fov);
    out->count = def->beams;
    out->layout = layout;
    out->rangeMin = def->rangeMin;
    out->rangeMax = def->range;
    lsRot rotation = lsMakeRot(heading);
    out->pose = (lsTransform){position, rotation};
    out->heading = heading;

    // Each noise term draws from the stream only when it is enabled, always the same number of times per beam
    // (whether or not the beam hits), so a given seed and settings give one reproducible scan.
    bool jitter = rng != NULL && def->angleNoise > 0.0;
    bool rangeNoise = rng != NULL && (def->noise > 0.0 || def->noisePerM > 0.0);
    bool dropout = rng != NULL && (def->dropout > 0.0 || def->grazingDropout > 0.0);
    bool noisy = jitter || rangeNoise || dropout; // a noiseless scan draws nothing and keeps no draws
    lsVec2 origin = position;
    double range = def->range;
    double start = heading + layout.angleMin;

    // The beams go to the scene in blocks through lsScene_CastRays, the batched cast (the same answers as one
    // lsScene_CastRay per beam); the noise is drawn beam by beam in order before each block is cast, exactly as
    // a beam-at-a-time loop would draw it, since casting draws nothing.
    // The objects near the lidar are gathered once, each with the runs of beams that can reach it (beam_runs.h):
    // the moving ones are then offered to just those beams after the static casts, and a beam that no static object
    // can reach skips its static cast. The same answers as casting every beam through the scene and the moving
    // objects' grid, for a fraction of the work among many robots in open space. Jittered beams leave the nominal
    // angles, so they are cast the usual way.
    // Without moving objects (or when their static runs overflow), the static objects are cast for a block of beams
    // at once by sweeping the grid outward from the origin (lsScene_CastFan), the same answers as casting each beam.
    lsBeamFan fan = {origin, range, start, layout.angleIncrement, layout.beams};
    const lsVec2* directions = SensorDirections(out, &layout);
    lsDynamicSpan spans[LS_DYNAMIC_SPAN_CAPACITY];
    lsSceneSpan sceneRuns[LS_SCENE_RUN_CAPACITY];
    int spanCount = dyn == NULL ? 0 : -1, sceneRunCount = -1;
    if (!jitter && dyn != NULL)
    {
        spanCount = lsDynamicObjects_GatherSpans(dyn, &fan, spans);
    }
    if (!jitter && spanCount >= 0 && dyn != NULL)
    {
        sceneRunCount = lsBeamFan_SceneSpans(&fan, scene, sceneRuns, LS_SCENE_RUN_CAPACITY);
    }
    const lsDynamicObjects* perBeam = spanCount >= 0 ? NULL : dyn;
    enum
    {
        blockSize = LS_FAN_MAX_BEAMS // a fan's block (lsScene_CastFan sweeps the grid once per block)
    };
    lsRayInput inputs[blockSize];
    lsRayHit hits[blockSize];
    double rangeDraws[blockSize], dropDraws[blockSize];
    // The spans' path takes shorter blocks: its state (a block's inputs and hits) then stays in the first-level cache.
    int block = sceneRunCount >= 0 ? 64 : blockSize;
    Reflectance last = {ls_hitNone, -1, lsScene_Reflectance(scene, ls_hitNone, -1)};
    ScanArrays arrays = {out->ranges, out->intensities, out->kinds,  out->indices,
                         out->parts,  out->points,      out->normals};
    for (int first = 0; first < layout.beams; first += block)
    {
        int count = layout.beams - first < block ? layout.beams - first : block;
        for (int k = 0; k < count && !noisy; ++k) // noiseless: a loop without the tests of the noise terms
        {
            int i = first + k;
            out->angles[i] = lsScanLayout_Angle(&layout, i);
            inputs[k] = (lsRayInput){origin, lsRotate(rotation, directions[i]), range};
        }
        for (int k = 0; k < count && noisy; ++k)
        {
            int i = first + k;
            out->angles[i] = lsScanLayout_Angle(&layout, i);
            lsVec2 direction;
            if (jitter)
            {
                // heading + angleMin + i * angleIncrement, left to right, as the layout rule is written, plus the
                // beam's own angular noise.
                double worldAngle = start + (double)i * layout.angleIncrement;
                direction = lsDirection(worldAngle + def->angleNoise * lsRng_Gaussian(rng));
            }
            else
            {
                direction = lsRotate(rotation, directions[i]);
            }
            // After the jitter's draw: each beam draws jitter, range noise, dropout, in that order.
            rangeDraws[k] = rangeNoise ? lsRng_Gaussian(rng) : 0.0;
            dropDraws[k] = dropout ? lsRng_Uniform(rng) : 1.0;
            inputs[k] = (lsRayInput){origin, direction, range};
        }
        if (sceneRunCount >= 0)
        {
            // The moving objects first: a beam that meets a robot before any static object could be skips its static
            // cast too.
            for (int k = 0; k < count; ++k) // the rest of a hit is read only once hit is true
            {
                hits[k].hit = false;
                hits[k].kind = ls_hitNone;
                hits[k].index = -1;
                hits[k].part = -1;
            }
            if (spanCount > 0)
            {
                lsDynamicObjects_CastSpans(dyn, spans, spanCount, first, inputs, count, hits);
            }
            lsSceneSpans_Cast(sceneRuns, sceneRunCount, first, inputs, count, hits);
        }
        else
        {
            if (!jitter && lsScene_CastFan(scene, &fan, first, inputs, count, hits))
            {
                for (int k = 0; k < count && perBeam != NULL; ++k)
                {
                    lsDynamicObjects_CastRay(perBeam, inputs + k, hits + k, NULL); // offered to the static answer
                }
            }
            else
            {
                lsScene_CastRays(scene, perBeam, inputs, count, hits);
            }
            if (spanCount > 0)
            {
                lsDynamicObjects_CastSpans(dyn, spans, spanCount, first, inputs, count, hits);
            }
        }
        if (noisy)
        {
            for (int k = 0; k < count; ++k)
            {
                Measure(scene, def, hits + k, inputs[k].direction, true, rangeDraws[k], dropDraws[k], &last, &arrays,
                        origin, first + k);
            }
        }
        else
        {
            for (int k = 0; k < count; ++k)
            {
                Measure(scene, def, hits + k, inputs[k].direction, false, 0.0, 1.0, &last, &arrays, origin, first + k);
            }
        }
    }
    return true;
}

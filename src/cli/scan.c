// lidarsim scan WORLD.json [options]: prints lidar scans as the fields of a ROS sensor_msgs/LaserScan (JSON, one
// scan per line) or as CSV (one beam per line).
// fmemopen is POSIX, not C17.
#define _POSIX_C_SOURCE 200809L

#include "cli/commands.h"
#include "cli/laserscan.h"
#include "cli/options.h"
#include "cli/scan_args.h"
#include "lidarsim/lidar.h"
#include "lidarsim/pool.h"
#include "lidarsim/sim.h" // lsMover_SegmentAt

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void PrintUsage(FILE* out)
{
    fprintf(
        out,
        "usage: lidarsim scan WORLD.json [options]\n\n"
        "Casts one lidar scan from a robot's pose with its lidar (the first robot, or --robot ID) and prints it as\n"
        "the fields of a ROS sensor_msgs/LaserScan, one JSON object per line:\n"
        "  {\"header\": {\"stamp\": {\"sec\": 0, \"nanosec\": 0}, \"frame_id\": \"laser\"}, \"angle_min\": ...,\n"
        "   \"angle_max\": ..., \"angle_increment\": ..., \"range_min\": ..., \"range_max\": ...,\n"
        "   \"time_increment\": 0.0, \"scan_time\": 1/rate, \"ranges\": [...], \"intensities\": [...],\n"
        "   \"hits\": [\"wall\", null, \"target\", ...], \"indices\": [...], \"target_kinds\": [...],\n"
        "   \"pose\": {\"x\": m, \"y\": m, \"theta\": rad, \"theta_deg\": deg}}\n"
        "Angles are radians in the sensor frame: beam i points at theta + mount angle + angle_min + i *\n"
        "angle_increment (in doubles: (cos a, sin a) for a = angle_min + i * angle_increment, rotated by the\n"
        "rotation (cos, sin) of theta + mount angle; within a few ulps of the direction of the whole sum).\n"
        "The stamp is simulated time (0: the world as loaded). Ranges are metres; intensities are\n"
        "reflectance * |cos incidence|; hits name what each beam hit (wall, mover, target, box, polygon,\n"
        "vehicle, robot), indices its index in the world's array of that kind, and target_kinds says food or poison\n"
        "for targets. pose is the robot pose the scan was taken from. Vehicles, movers and the other robots are\n"
        "where they are at time 0; the scanning robot never sees itself.\n"
        "The output is always valid JSON: a beam without a return is null (or range_max with --no-hit max).\n\n"
        "options:\n"
        "  --robot ID         the robot whose lidar scans (default: the first in the world)\n"
        "  --pose X,Y,DEG     robot pose (metres, degrees); repeat for several scans, one per line\n"
        "  --poses FILE       robot poses, one 'x y deg' per line (or 'x,y,deg'; '#' comments and blank lines\n"
        "                     skipped)\n"
        "                     (at most 1000000 poses in all and a 64 MiB file)\n"
        "  --beams N          number of beams (1..%d)\n"
        "  --fov DEG          field of view in degrees, [1e-6, 360]\n"
        "  --range M          maximum range in metres\n"
        "  --noise SIGMA      Gaussian range noise, standard deviation in metres (constant part)\n"
        "  --seed S           seed of the noise stream (default: the lidar's seed)\n"
        "  --threads N        threads casting the scans (default 0: one per core); the output is the same for any N\n"
        "  --format json|csv  output format (default json). CSV: a header, then one beam per line:\n"
        "                     scan,x,y,theta,beam,angle,range,intensity,hit,index (x, y, theta: the robot pose\n"
        "                     in metres and radians)\n"
        "  --no-hit inf|max|nan|null   how a beam without a return is written (default: null in JSON, an empty\n"
        "                     field in CSV; max prints range_max; inf and nan only with --format csv)\n"
        "  -h, --help         this help\n\n"
        "Exit status: 0 success, 1 the world or poses file cannot be read, 2 bad usage.\n",
        LS_MAX_BEAMS);
}

// Reads a poses file whole through the bounded reader (a FIFO, /dev/zero or a runaway file is refused, never read
// forever) and parses it with lsParseScanPoses.
static bool ReadPosesFile(const char* path, lsScanArgs* args, lsError* err)
{
    size_t size = 0;
    char* text = lsReadFile(path, LS_SCAN_MAX_POSES_FILE, &size, err);
    if (text == NULL)
    {
        return false;
    }
    bool ok = lsParseScanPoses(text, size, path, args, err);
    lsFree(text, size + 1);
    return ok;
}

// Numbers as the shortest text that reads back to the same double (the LaserScan writer's rule).
static void PrintCsv(FILE* out, const lsScan* scan, int scanIndex, lsScanPose pose, lsNoHitStyle noHit)
{
    for (int i = 0; i < scan->count; ++i)
    {
        fprintf(out, "%d,", scanIndex);
        lsWriteJsonNumber(out, pose.x);
        fputc(',', out);
        lsWriteJsonNumber(out, pose.y);
        fputc(',', out);
        lsWriteJsonNumber(out, pose.theta);
        fprintf(out, ",%d,", i);
        lsWriteJsonNumber(out, scan->angles[i]);
        fputc(',', out);
        if (scan->kinds[i] != ls_hitNone)
        {
            lsWriteJsonNumber(out, scan->ranges[i]);
        }
        else if (noHit == ls_noHitMax)
        {
            lsWriteJsonNumber(out, scan->rangeMax);
        }
        else if (noHit != ls_noHitNull)
        {
            fputs(noHit == ls_noHitInf ? "inf" : "nan", out);
        }
        fputc(',', out);
        lsWriteJsonNumber(out, scan->intensities[i]);
        if (scan->kinds[i] == ls_hitNone)
        {
            fputs(",,\n", out);
        }
        else
        {
            fprintf(out, ",%s,%d\n", lsHitKindName(scan->kinds[i]), scan->indices[i]);
        }
    }
}

// The most text one beam can take in either format (a CSV line: five numbers of at most 24 characters, two integers,
// a kind name and commas; in JSON less), and the most a scan's header, pose and newline take.
#define LS_SCAN_TEXT_PER_BEAM 256
#define LS_SCAN_TEXT_EXTRA 1024

// A batch of scans cast and written out on the pool: scan k from poses[k] with the noise stream streams[k], written
// into texts[k]; the caller's thread then prints the texts in order. Writing the numbers costs about 25 times as much
// as casting the beams, so it runs on the pool too, or a second thread would hardly shorten the command.
typedef struct ScanBatch
{
    const lsScene* scene;
    const lsDynamicObjects* dyn;
    const lsLidarDef* def;
    lsScanPose* poses;
    bool noisy;
    lsRng* streams;
    lsScan** scans; // one per worker
    char** texts;   // one per scan of the batch, textCapacity bytes each
    size_t* lengths;
    size_t textCapacity;
    int first; // the batch's first scan in the whole output (CSV's scan column)
    bool csv;
    lsNoHitStyle noHit;
} ScanBatch;

static void CastScans(void* context, int begin, int end, int worker)
{
    const ScanBatch* job = context;
    lsScan* scan = job->scans[worker];
    for (int k = begin; k < end; ++k)
    {
        lsScanPose pose = job->poses[k];
        lsVec2 position = lsLidar_SensorPosition(job->def, lsV(pose.x, pose.y), pose.theta);
        lsLidar_ScanFrom(job->scene, job->dyn, job->def, position, pose.theta + job->def->mountAngle,
                         job->noisy ? job->streams + k : NULL, scan);
        FILE* out = fmemopen(job->texts[k], job->textCapacity, "w");
        LS_ASSERT(out != NULL); // fails only when the system is out of memory
        if (job->csv)
        {
            PrintCsv(out, scan, job->first + k, pose, job->noHit);
        }
        else
        {
            // The LaserScan writer shared with `lidarsim run --record`; the world as loaded is time 0.
            lsWriteLaserScanJson(out, job->scene, scan, 0.0, 1.0 / job->def->rate, job->noHit, pose);
            fputc('\n', out);
        }
        long length = ftell(out);
        fclose(out);
        LS_ASSERT(length >= 0 && (size_t)length < job->textCapacity); // the capacity bounds every scan's text
        job->lengths[k] = (size_t)length;
    }
}

int lsCmdScan(int argc, char** argv)
{
    lsScanArgs args;
    lsError err = {{0}};
    if (!lsParseScanArgs(argc, argv, &args, &err))
    {
        fprintf(stderr, "lidarsim scan: %s (see lidarsim scan --help)\n", err.message);
        lsFreeScanArgs(&args);
        return 2;
    }
    if (args.help)
    {
        PrintUsage(stdout);
        lsFreeScanArgs(&args);
        return 0;
    }
    int status = 0;
    if (args.posesPath != NULL && !ReadPosesFile(args.posesPath, &args, &err))
    {
        fprintf(stderr, "lidarsim scan: %s\n", err.message);
        status = 1;
    }
    lsWorld* world = NULL;
    if (status == 0)
    {
        lsWarnings warnings;
        world = lsLoadWorld(args.worldPath, &err, &warnings);
        if (world != NULL)
        {
            lsPrintWarnings(args.worldPath, &warnings);
        }
        if (world == NULL)
        {
            fprintf(stderr, "%s\n", err.message);
            status = 1;
        }
    }
    lsLidarDef def;
    int self = 0;
    if (status == 0 && args.robotId != NULL)
    {
        self = lsWorld_FindRobot(world, args.robotId);
        if (self < 0)
        {
            char id[256], path[1024], first[256];
            fprintf(stderr, "lidarsim scan: --robot: no robot '%.64s' in %s (the first is '%s')\n",
                    lsShown(args.robotId, id, sizeof id), lsShown(args.worldPath, path, sizeof path),
                    lsShown(world->robot.id, first, sizeof first));
            status = 2;
        }
    }
    const lsRobotDef* robot = status == 0 ? lsWorld_GetRobot(world, self) : NULL;
    if (status == 0)
    {
        def = robot->lidar;
        if (args.beams > 0)
        {
            def.beams = args.beams;
        }
        if (args.fovDeg > 0.0)
        {
            def.fov = lsDegToRad(args.fovDeg);
        }
        if (args.range > 0.0)
        {
            def.range = args.range;
        }
        if (args.noise >= 0.0)
        {
            def.noise = args.noise;
        }
        if (args.haveSeed)
        {
            def.seed = args.seed;
        }
        if (!(def.range > def.rangeMin))
        {
            fprintf(stderr, "lidarsim scan: range %g must be greater than the lidar's range_min %g\n", def.range,
                    def.rangeMin);
            status = 2;
        }
    }
    if (status != 0)
    {
        lsDestroyWorld(world);
        lsFreeScanArgs(&args);
        return status;
    }
    // Without poses, one scan from the world's robot pose, keeping its angle in radians as loaded (not through
    // degrees again).
    const lsScanPose worldPose = {robot->position.x, robot->position.y, robot->angle};
    int scanCount = args.poseCount > 0 ? args.poseCount : 1;

    // Vehicles and movers where they are at time 0.
    lsCircle* vehicles = lsAlloc((size_t)world->vehicleCount * sizeof(lsCircle));
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        vehicles[i] = (lsCircle){world->vehicles[i].position, world->vehicles[i].radius};
    }
    lsSegment* movers = lsAlloc((size_t)world->moverCount * sizeof(lsSegment));
    for (int i = 0; i < world->moverCount; ++i)
    {
        movers[i] = lsMover_SegmentAt(&world->movers[i], 0.0); // a door's phase shifts it off its file segment
    }
    // The robots where they stand, as the sim's lidars see them (footprints; the scanning one skipped).
    int robotCount = lsWorld_RobotCount(world);
    lsCircle* robots = lsAlloc((size_t)robotCount * sizeof(lsCircle));
    lsPolygon* polygons = lsAllocZero((size_t)robotCount, sizeof(lsPolygon));
    for (int i = 0; i < robotCount; ++i)
    {
        const lsRobotDef* other = lsWorld_GetRobot(world, i);
        robots[i] = (lsCircle){other->position, lsRobotDef_Reach(other)};
        lsVec2 points[LS_MAX_POLYGON_VERTICES];
        lsTransform xf = {other->position, lsMakeRot(lsWrapAngle(other->angle))};
        for (int k = 0; k < other->footprintCount; ++k)
        {
            points[k] = lsTransformPoint(xf, other->footprint[k]);
        }
        if (other->footprintCount == 0 || !lsMakePolygon(&polygons[i], points, other->footprintCount))
        {
            polygons[i].count = 0;
        }
    }
    lsDynamicObjects dyn = {.vehicles = vehicles,
                            .vehicleCount = world->vehicleCount,
                            .movers = movers,
                            .moverCount = world->moverCount,
                            .robots = robots,
                            .robotPolygons = polygons,
                            .robotCount = robotCount,
                            .skipRobot = self};
    lsScene* scene = lsCreateScene(world);
    bool noisy =
        def.noise > 0.0 || def.noisePerM > 0.0 || def.angleNoise > 0.0 || def.dropout > 0.0 || def.grazingDropout > 0.0;
    // Scans are cast and written out in batches on the pool, then printed in order. Each scan gets the noise stream
    // where a scan after scan would have left it (lsLidar_DrawsPerScan), so the output does not depend on the thread
    // count.
    lsPool* pool = lsCreatePool(args.threads);
    int workers = lsPool_ThreadCount(pool);
    int batch = (1 << 16) / def.beams; // scans held at once: at most 16 MB of text (about 4 MB written)
    batch = batch < 1 ? 1 : (batch > 64 ? 64 : batch);
    batch = batch < scanCount ? batch : scanCount;
    size_t textCapacity = (size_t)def.beams * LS_SCAN_TEXT_PER_BEAM + LS_SCAN_TEXT_EXTRA;
    // Nothing moving and no other robot: no moving objects at all (NULL), as lsWorldScanner_Scan passes, which
    // lsLidar_ScanFrom casts 2.5 times as fast as an empty set.
    bool moving = world->vehicleCount + world->moverCount > 0 || robotCount > 1;
    ScanBatch job = {scene, moving ? &dyn : NULL, &def, NULL,     noisy,     NULL, NULL, NULL,
                     NULL,  textCapacity,         0,    args.csv, args.noHit};
    job.poses = lsAlloc((size_t)batch * sizeof(lsScanPose));
    job.streams = lsAlloc((size_t)batch * sizeof(lsRng));
    job.scans = lsAlloc((size_t)workers * sizeof(lsScan*));
    for (int w = 0; w < workers; ++w)
    {
        job.scans[w] = lsCreateScan(def.beams);
    }
    job.texts = lsAlloc((size_t)batch * sizeof(char*));
    job.lengths = lsAlloc((size_t)batch * sizeof(size_t));
    for (int k = 0; k < batch; ++k)
    {
        job.texts[k] = lsAlloc(textCapacity);
    }
    lsRng rng = lsMakeRng(def.seed);
    int draws = lsLidar_DrawsPerScan(&def);
    if (args.csv)
    {
        printf("scan,x,y,theta,beam,angle,range,intensity,hit,index\n");
    }
    for (int first = 0; first < scanCount; first += batch)
    {
        int count = scanCount - first < batch ? scanCount - first : batch;
        for (int k = 0; k < count; ++k)
        {
            job.poses[k] = worldPose;
            if (args.poseCount > 0)
            {
                const double* given = args.poses + (size_t)3 * (size_t)(first + k);
                job.poses[k] = (lsScanPose){given[0], given[1], lsDegToRad(given[2])};
            }
            job.streams[k] = rng;
            for (int n = 0; n < draws; ++n)
            {
                lsRng_Next(&rng);
            }
        }
        job.first = first;
        lsPool_ParallelFor(pool, count, 1, CastScans, &job);
        for (int k = 0; k < count; ++k)
        {
            fwrite(job.texts[k], 1, job.lengths[k], stdout);
        }
    }
    for (int w = 0; w < workers; ++w)
    {
        lsDestroyScan(job.scans[w]);
    }
    for (int k = 0; k < batch; ++k)
    {
        lsFree(job.texts[k], textCapacity);
    }
    lsFree(job.texts, (size_t)batch * sizeof(char*));
    lsFree(job.lengths, (size_t)batch * sizeof(size_t));
    lsFree(job.poses, (size_t)batch * sizeof(lsScanPose));
    lsFree(job.scans, (size_t)workers * sizeof(lsScan*));
    lsFree(job.streams, (size_t)batch * sizeof(lsRng));
    lsDestroyPool(pool);
    lsDestroyScene(scene);
    lsFree(vehicles, (size_t)world->vehicleCount * sizeof(lsCircle));
    lsFree(movers, (size_t)world->moverCount * sizeof(lsSegment));
    lsFree(robots, (size_t)robotCount * sizeof(lsCircle));
    lsFree(polygons, (size_t)robotCount * sizeof(lsPolygon));
    lsDestroyWorld(world);
    lsFreeScanArgs(&args);
    return 0;
}

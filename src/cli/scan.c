// lidarsim scan WORLD.json [options]: prints lidar scans as the fields of a ROS sensor_msgs/LaserScan (JSON, one
// scan per line) or as CSV (one beam per line).
#include "cli/commands.h"
#include "cli/laserscan.h"
#include "core/lidar.h"

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
        "Casts one lidar scan from the world's robot pose with the world's lidar (robot.lidar) and prints it as\n"
        "the fields of a ROS sensor_msgs/LaserScan, one JSON object per line:\n"
        "  {\"angle_min\": ..., \"angle_max\": ..., \"angle_increment\": ..., \"range_min\": ..., \"range_max\": ...,\n"
        "   \"time_increment\": 0.0, \"scan_time\": 1/rate, \"ranges\": [...], \"intensities\": [...],\n"
        "   \"hits\": [\"wall\", null, \"target\", ...], \"indices\": [...], \"target_kinds\": [...], \"pose\": [x, y, "
        "deg]}\n"
        "Angles are radians in the sensor frame: beam i points at heading + angle_min + i * angle_increment,\n"
        "where heading is the robot's angle plus the lidar's mount angle. Ranges are metres; intensities are\n"
        "reflectance * |cos incidence|; hits name what each beam hit (wall, mover, target, box, polygon,\n"
        "vehicle), indices its index in the world's array of that kind, and target_kinds says food or poison for\n"
        "targets. Vehicles and movers are where they are at time 0.\n\n"
        "options:\n"
        "  --pose X,Y,DEG     robot pose (metres, degrees); repeat for several scans, one per line\n"
        "  --poses FILE       robot poses, one 'x y deg' per line ('#' comments and blank lines skipped)\n"
        "  --beams N          number of beams (1..%d)\n"
        "  --fov DEG          field of view in degrees, (0, 360]\n"
        "  --range M          maximum range in metres\n"
        "  --noise SIGMA      Gaussian range noise, standard deviation in metres (constant part)\n"
        "  --seed S           seed of the noise stream (default: the lidar's seed)\n"
        "  --format json|csv  output format (default json). CSV: a header, then one beam per line:\n"
        "                     scan,beam,angle,range,intensity,hit,index\n"
        "  --no-hit inf|max|nan|null   how a beam without a return is written (default: null in JSON,\n"
        "                     an empty field in CSV; inf and nan print Infinity/NaN in JSON, inf/nan in CSV;\n"
        "                     max prints range_max)\n"
        "  -h, --help         this help\n\n"
        "Exit status: 0 success, 1 the world or poses file cannot be read, 2 bad usage.\n",
        LS_MAX_BEAMS);
}

typedef enum NoHit
{
    noHitDefault,
    noHitInf,
    noHitMax,
    noHitNan,
    noHitNull,
} NoHit;

// Strict number parsing: the whole string must be one finite number.
static bool ParseDouble(const char* s, double* out)
{
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

static bool ParseInt(const char* s, long lo, long hi, int* out)
{
    char* end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    {
        return false;
    }
    *out = (int)v;
    return true;
}

// "X,Y,DEG": three numbers separated by commas.
static bool ParsePose(const char* s, double pose[3])
{
    char buffer[256];
    if (strlen(s) >= sizeof buffer)
    {
        return false;
    }
    strcpy(buffer, s);
    char* parts[3];
    int count = 0;
    char* p = buffer;
    for (;;)
    {
        if (count == 3)
        {
            return false;
        }
        parts[count++] = p;
        char* comma = strchr(p, ',');
        if (comma == NULL)
        {
            break;
        }
        *comma = '\0';
        p = comma + 1;
    }
    if (count != 3)
    {
        return false;
    }
    for (int i = 0; i < 3; ++i)
    {
        if (!ParseDouble(parts[i], pose + i))
        {
            return false;
        }
    }
    return true;
}

typedef struct Poses
{
    double* values; // 4 per pose: x, y, degrees (as given, for printing), radians
    int count, capacity;
} Poses;

static void AddPose(Poses* poses, const double pose[3])
{
    if (poses->count == poses->capacity)
    {
        int capacity = poses->capacity == 0 ? 16 : 2 * poses->capacity;
        poses->values = lsRealloc(poses->values, (size_t)poses->capacity * 4 * sizeof(double),
                                  (size_t)capacity * 4 * sizeof(double));
        poses->capacity = capacity;
    }
    double* p = poses->values + 4 * poses->count;
    p[0] = pose[0];
    p[1] = pose[1];
    p[2] = pose[2];
    p[3] = lsDegToRad(pose[2]);
    poses->count += 1;
}

static bool ReadPosesFile(const char* path, Poses* poses, lsError* err)
{
    FILE* file = fopen(path, "r");
    if (file == NULL)
    {
        return lsFail(err, "%s: cannot open: %s", path, strerror(errno));
    }
    char line[1024];
    int lineNumber = 0;
    bool ok = true;
    while (fgets(line, sizeof line, file) != NULL)
    {
        lineNumber += 1;
        char* hash = strchr(line, '#');
        if (hash != NULL)
        {
            *hash = '\0';
        }
        char* tokens[4];
        int count = 0;
        for (char* t = strtok(line, " \t\r\n,"); t != NULL; t = strtok(NULL, " \t\r\n,"))
        {
            if (count == 4)
            {
                break;
            }
            tokens[count++] = t;
        }
        if (count == 0)
        {
            continue;
        }
        double pose[3];
        if (count != 3 || !ParseDouble(tokens[0], pose) || !ParseDouble(tokens[1], pose + 1) ||
            !ParseDouble(tokens[2], pose + 2))
        {
            ok = lsFail(err, "%s:%d: expected three numbers 'x y deg'", path, lineNumber);
            break;
        }
        AddPose(poses, pose);
    }
    fclose(file);
    if (ok && poses->count == 0)
    {
        ok = lsFail(err, "%s: no poses", path);
    }
    return ok;
}

// Numbers as the shortest text that reads back to the same double (the LaserScan writer's rule).
static void PrintNumber(double v) { lsWriteJsonNumber(stdout, v); }

static void PrintNoHit(NoHit noHit, bool json, double rangeMax)
{
    switch (noHit)
    {
    case noHitInf:
        fputs(json ? "Infinity" : "inf", stdout);
        break;
    case noHitNan:
        fputs(json ? "NaN" : "nan", stdout);
        break;
    case noHitMax:
        PrintNumber(rangeMax);
        break;
    default:
        fputs(json ? "null" : "", stdout);
        break;
    }
}

static void PrintCsv(const lsScan* scan, int scanIndex, NoHit noHit)
{
    for (int i = 0; i < scan->count; ++i)
    {
        printf("%d,%d,", scanIndex, i);
        PrintNumber(scan->angles[i]);
        putchar(',');
        if (scan->kinds[i] == ls_hitNone)
        {
            PrintNoHit(noHit, false, scan->rangeMax);
        }
        else
        {
            PrintNumber(scan->ranges[i]);
        }
        putchar(',');
        PrintNumber(scan->intensities[i]);
        if (scan->kinds[i] == ls_hitNone)
        {
            printf(",,\n");
        }
        else
        {
            printf(",%s,%d\n", lsHitKindName(scan->kinds[i]), scan->indices[i]);
        }
    }
}

static int Usage(const char* message, const char* value)
{
    fprintf(stderr, "lidarsim scan: %s", message);
    if (value != NULL)
    {
        fprintf(stderr, " '%s'", value);
    }
    fprintf(stderr, " (see lidarsim scan --help)\n");
    return 2;
}

int lsCmdScan(int argc, char** argv)
{
    for (int i = 0; i < argc; ++i)
    {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
        {
            PrintUsage(stdout);
            return 0;
        }
    }
    const char* worldPath = NULL;
    const char* posesPath = NULL;
    Poses poses = {NULL, 0, 0};
    int beams = 0;
    double fovDeg = 0.0, range = 0.0, noise = -1.0;
    bool haveSeed = false, csv = false;
    uint64_t seed = 0;
    NoHit noHit = noHitDefault;
    int status = 0;

    for (int i = 0; i < argc && status == 0; ++i)
    {
        const char* arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
        {
            if (worldPath != NULL)
            {
                status = Usage("more than one world file:", arg);
                break;
            }
            worldPath = arg;
            continue;
        }
        if (i + 1 >= argc)
        {
            status = Usage("missing value after", arg);
            break;
        }
        const char* value = argv[++i];
        if (strcmp(arg, "--pose") == 0)
        {
            double pose[3];
            if (!ParsePose(value, pose))
            {
                status = Usage("--pose: expected X,Y,DEG (three numbers), got", value);
                break;
            }
            AddPose(&poses, pose);
        }
        else if (strcmp(arg, "--poses") == 0)
        {
            posesPath = value;
        }
        else if (strcmp(arg, "--beams") == 0)
        {
            if (!ParseInt(value, 1, LS_MAX_BEAMS, &beams))
            {
                fprintf(stderr, "lidarsim scan: --beams: expected an integer in 1..%d, got '%s'\n", LS_MAX_BEAMS,
                        value);
                status = 2;
            }
        }
        else if (strcmp(arg, "--fov") == 0)
        {
            if (!ParseDouble(value, &fovDeg) || !(fovDeg > 0.0 && fovDeg <= 360.0))
            {
                status = Usage("--fov: expected degrees in (0, 360], got", value);
            }
        }
        else if (strcmp(arg, "--range") == 0)
        {
            if (!ParseDouble(value, &range) || !(range > 0.0))
            {
                status = Usage("--range: expected a positive number of metres, got", value);
            }
        }
        else if (strcmp(arg, "--noise") == 0)
        {
            if (!ParseDouble(value, &noise) || !(noise >= 0.0))
            {
                status = Usage("--noise: expected a standard deviation >= 0 in metres, got", value);
            }
        }
        else if (strcmp(arg, "--seed") == 0)
        {
            char* end;
            errno = 0;
            unsigned long long v = strtoull(value, &end, 10);
            if (value[0] == '-' || end == value || *end != '\0' || errno == ERANGE)
            {
                status = Usage("--seed: expected a non-negative integer, got", value);
            }
            seed = (uint64_t)v;
            haveSeed = true;
        }
        else if (strcmp(arg, "--format") == 0)
        {
            if (strcmp(value, "json") == 0 || strcmp(value, "csv") == 0)
            {
                csv = strcmp(value, "csv") == 0;
            }
            else
            {
                status = Usage("--format: expected json or csv, got", value);
            }
        }
        else if (strcmp(arg, "--no-hit") == 0)
        {
            if (strcmp(value, "inf") == 0)
            {
                noHit = noHitInf;
            }
            else if (strcmp(value, "max") == 0)
            {
                noHit = noHitMax;
            }
            else if (strcmp(value, "nan") == 0)
            {
                noHit = noHitNan;
            }
            else if (strcmp(value, "null") == 0)
            {
                noHit = noHitNull;
            }
            else
            {
                status = Usage("--no-hit: expected inf, max, nan or null, got", value);
            }
        }
        else
        {
            status = Usage("unknown option", arg);
        }
    }
    if (status == 0 && worldPath == NULL)
    {
        status = Usage("missing WORLD.json", NULL);
    }
    lsError err = {{0}};
    if (status == 0 && posesPath != NULL && !ReadPosesFile(posesPath, &poses, &err))
    {
        fprintf(stderr, "lidarsim scan: %s\n", err.message);
        status = 1;
    }
    lsWorld* world = NULL;
    if (status == 0)
    {
        lsWarnings warnings;
        world = lsLoadWorld(worldPath, &err, &warnings);
        for (int i = 0; i < warnings.count && world != NULL; ++i)
        {
            fprintf(stderr, "%s\n", warnings.messages[i]);
        }
        if (world == NULL)
        {
            fprintf(stderr, "%s\n", err.message);
            status = 1;
        }
    }
    lsLidarDef def;
    if (status == 0)
    {
        def = world->robot.lidar;
        if (beams > 0)
        {
            def.beams = beams;
        }
        if (fovDeg > 0.0)
        {
            def.fov = lsDegToRad(fovDeg);
        }
        if (range > 0.0)
        {
            def.range = range;
        }
        if (noise >= 0.0)
        {
            def.noise = noise;
        }
        if (haveSeed)
        {
            def.seed = seed;
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
        lsFree(poses.values, (size_t)poses.capacity * 4 * sizeof(double));
        return status;
    }
    if (poses.count == 0)
    {
        // The world's robot pose, keeping its angle in radians as loaded (not through degrees again).
        double pose[3] = {world->robot.position.x, world->robot.position.y, lsRadToDeg(world->robot.angle)};
        AddPose(&poses, pose);
        poses.values[3] = world->robot.angle;
    }

    // Vehicles and movers where they are at time 0.
    lsCircle* vehicles = lsAlloc((size_t)world->vehicleCount * sizeof(lsCircle));
    for (int i = 0; i < world->vehicleCount; ++i)
    {
        vehicles[i] = (lsCircle){world->vehicles[i].position, world->vehicles[i].radius};
    }
    lsSegment* movers = lsAlloc((size_t)world->moverCount * sizeof(lsSegment));
    for (int i = 0; i < world->moverCount; ++i)
    {
        movers[i] = (lsSegment){world->movers[i].a, world->movers[i].b};
    }
    lsDynamicObjects dyn = {vehicles, world->vehicleCount, movers, world->moverCount};
    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(def.beams);
    bool noisy =
        def.noise > 0.0 || def.noisePerM > 0.0 || def.angleNoise > 0.0 || def.dropout > 0.0 || def.grazingDropout > 0.0;
    lsRng rng = lsMakeRng(def.seed);
    if (csv)
    {
        printf("scan,beam,angle,range,intensity,hit,index\n");
    }
    for (int p = 0; p < poses.count; ++p)
    {
        const double* pose = poses.values + 4 * p;
        lsVec2 position = lsLidar_SensorPosition(&def, lsV(pose[0], pose[1]), pose[3]);
        lsLidar_ScanFrom(scene, &dyn, &def, position, pose[3] + def.mountAngle, noisy ? &rng : NULL, scan);
        if (csv)
        {
            PrintCsv(scan, p, noHit);
        }
        else
        {
            // The LaserScan writer shared with `lidarsim run --record`.
            static const lsNoHitStyle styles[] = {ls_noHitNull, ls_noHitInf, ls_noHitMax, ls_noHitNan, ls_noHitNull};
            lsWriteLaserScanJson(stdout, scene, scan, 1.0 / def.rate, styles[noHit], pose);
            putchar('\n');
        }
    }
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsFree(vehicles, (size_t)world->vehicleCount * sizeof(lsCircle));
    lsFree(movers, (size_t)world->moverCount * sizeof(lsSegment));
    lsDestroyWorld(world);
    lsFree(poses.values, (size_t)poses.capacity * 4 * sizeof(double));
    return 0;
}

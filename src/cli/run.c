// lidarsim run WORLD.json --steps N [options]: the simulation without a window. Prints a summary, optionally
// records one JSON line per step (or every K-th) with what a replay needs: pose, scan, vehicles, targets, score.
#define _POSIX_C_SOURCE 200809L
#include "cli/clock.h"
#include "cli/commands.h"
#include "cli/laserscan.h"
#include "cli/options.h"
#include "cli/signals.h"
#include "core/file_write.h"
#include "core/limits.h"
#include "core/recording.h"
#include "core/text.h"
#include "lidarsim/sim.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void PrintUsage(FILE* out)
{
    fprintf(out,
            "usage: lidarsim run WORLD.json --steps N [options]\n\n"
            "Runs the simulation headless for N fixed steps and prints a summary (simulated time, steps per second,\n"
            "score, food and poison collected, collisions, distance travelled). Without --autopilot the robot gets\n"
            "no command and stays where it is (vehicles and moving walls still move). In a world with several robots,\n"
            "robots whose controller is \"autopilot\" always drive themselves; --autopilot drives the others too\n"
            "(manual and external robots stand still without it), and the summary adds a line per robot.\n\n"
            "options:\n"
            "  --steps N          number of steps (required, 0 to 2^53)\n"
            "  --seed S           seed of the simulation (respawn places, lidar noise, autopilot); default: the\n"
            "                     world's sim.seed\n"
            "  --autopilot        drive with the built-in autopilot (it sees only the lidar)\n"
            "  --dt S             fixed step in seconds (default: the world's sim.dt)\n"
            "  --beams N          number of lidar beams (default: the world's robot.lidar.beams)\n"
            "  --record FILE      write JSON lines: a header, then one line per recorded step (see --every); '-' is\n"
            "                     stdout. `lidarsim replay FILE` plays it back, `lidarsim render FILE -o a.gif`\n"
            "                     animates it\n"
            "  --every K          record every K-th step (default: one line per lidar scan, every 1 / (rate * dt)\n"
            "                     steps); step 0 (the start) and the last step are always recorded. A recording\n"
            "                     expected over 300 MB is announced on stderr before the run; the progress bar\n"
            "                     shows an ETA\n"
            "  --precise-scans    record ranges and intensities as exact doubles (default: whole millimetres and\n"
            "                     thousandths, about 4x smaller)\n"
            "  -h, --help         this help\n\n"
            "The first line is a header: format version, the world's path and content hash, dt, seed, the lidars.\n"
            "A recorded line: {\"step\", \"time\", \"pose\": [x, y, deg], \"velocity\": [v, w (rad/s)], \"scan\": the\n"
            "new scan since the previous line or null, \"path\": the poses of the steps skipped since the previous\n"
            "line, \"vehicles\": [[x, y, vx, vy], ...], \"targets\": [[index, x, y, active], ...] for targets that\n"
            "changed since the previous line, \"score\", \"food\", \"poison\", \"collisions\", \"distance\"}; pose,\n"
            "velocity and scan are the first robot's, the counters the fleet's totals. With several robots a line\n"
            "also has \"robots\": [{\"id\", \"pose\", \"velocity\", \"scan\", \"score\", \"food\", \"poison\",\n"
            "\"collisions\", \"crushes\", \"distance\", \"path\"}, ...]. A scan: {\"stamp\", \"origin\": the sensor's\n"
            "[x, y, deg], \"ranges_mm\", \"intensities_milli\", \"hits\": one letter per beam, \"indices\"}. The\n"
            "whole format: docs/recording.md.\n\n"
            "Ctrl+C stops the run after the step it is in: that step is recorded as the last line, the header's\n"
            "\"steps\" is set to it (a recording to stdout or a FIFO keeps N there), so the recording is what\n"
            "--steps K would have written, and the summary says \"stopped by Ctrl+C at step K of N\". A second\n"
            "Ctrl+C ends at once without a recording, as any other ending signal (kill, a hang-up) does: the file\n"
            "keeps what it held before.\n\n"
            "Exit status: 0 success, 1 the world cannot be read or the recording cannot be written, 2 bad usage;\n"
            "stopped by Ctrl+C, the program ends by SIGINT once the recording is saved (a shell says 130).\n");
}

typedef struct Recorder
{
    FILE* file;
    bool ownsFile;
    lsAtomicFile atomic;        // a recording to a file: written beside it and renamed into place when complete
    lsTargetState* lastTargets; // what the previous line said about each target
    int targetCount;
    long long lastScanStep;
    long long* robotScanSteps; // per robot: the step of its latest scan, and of the last one written
    long long* robotWritten;
    bool preciseScans; // --precise-scans: ranges and intensities as full doubles (else millimetres, thousandths)
    int pathCapacity;  // poses kept per robot between lines (every - 1; 0: no path, --every above LS_MAX_PATH)
    int pathCount;     // poses kept since the previous line
    double* path;      // robotCount x pathCapacity x {x, y, degrees}
    long stepsOffset;  // where the header's "steps" number starts in the file (-1: not known), for a run stopped early
} Recorder;

/// Lines further apart than this many steps carry no "path" of the skipped steps' poses (a replay interpolates):
/// --every that large asks for a sparse recording.
#define LS_MAX_PATH 120

// A number rounded to `digits` decimals, without trailing zeros ("1.25", "-3", "0"): the skipped steps' poses.
static void WriteRounded(FILE* out, double value, int digits)
{
    char text[64];
    snprintf(text, sizeof text, "%.*f", digits, value);
    char* end = text + strlen(text);
    while (strchr(text, '.') != NULL && (end[-1] == '0' || end[-1] == '.'))
    {
        *--end = '\0';
    }
    fputs(strcmp(text, "-0") == 0 ? "0" : text, out);
}

// One recorded scan, compact (docs/recording.md): the sensor pose it was taken from, ranges in whole millimetres
// (null: no return), intensities in thousandths, one letter per beam for what was hit, and the hit objects'
// indices (-1: no return). With precise, ranges in metres and intensities as they are, every double exactly.
static void WriteRecordedScan(FILE* out, const lsScan* scan, double stamp, bool precise)
{
    fputs("{\"stamp\": ", out);
    lsWriteJsonNumber(out, stamp);
    fputs(", \"origin\": [", out);
    lsWriteJsonNumber(out, scan->pose.p.x);
    fputs(", ", out);
    lsWriteJsonNumber(out, scan->pose.p.y);
    fputs(", ", out);
    lsWriteJsonNumber(out, lsRadToDeg(scan->heading));
    fputs(precise ? "], \"ranges\": [" : "], \"ranges_mm\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? "," : "", out);
        if (scan->kinds[i] == ls_hitNone)
            fputs("null", out);
        else if (precise)
            lsWriteJsonNumber(out, scan->ranges[i]);
        else
            fprintf(out, "%lld", llround(scan->ranges[i] / LS_RECORDED_RANGE_UNIT));
    }
    fputs(precise ? "], \"intensities\": [" : "], \"intensities_milli\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? "," : "", out);
        if (precise)
            lsWriteJsonNumber(out, scan->intensities[i]);
        else
            fprintf(out, "%lld", llround(scan->intensities[i] / LS_RECORDED_INTENSITY_UNIT));
    }
    fputs("], \"hits\": \"", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputc(lsHitKindLetter(scan->kinds[i]), out);
    }
    fputs("\", \"indices\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fprintf(out, i > 0 ? ",%d" : "%d", scan->kinds[i] == ls_hitNone ? -1 : scan->indices[i]);
    }
    fputs("]}", out);
}

// Robot i's poses of the steps skipped since the previous line, as "path": [[x, y, degrees], ...].
static void WritePath(Recorder* rec, int i)
{
    if (rec->pathCount == 0 || rec->path == NULL) // no path kept (the analyser cannot tell the count keeps them apart)
        return;
    FILE* out = rec->file;
    fputs(", \"path\": [", out);
    for (int k = 0; k < rec->pathCount; ++k)
    {
        const double* pose = &rec->path[((size_t)i * (size_t)rec->pathCapacity + (size_t)k) * 3];
        fputs(k > 0 ? ", [" : "[", out);
        WriteRounded(out, pose[0], LS_RECORDED_PATH_DIGITS);
        fputc(',', out);
        WriteRounded(out, pose[1], LS_RECORDED_PATH_DIGITS);
        fputc(',', out);
        WriteRounded(out, pose[2], 2);
        fputc(']', out);
    }
    fputc(']', out);
}

// After a step that is not recorded: keep the robots' poses for the next line's "path".
static void KeepPoses(Recorder* rec, const lsSimState* s)
{
    if (rec->pathCount >= rec->pathCapacity)
        return;
    for (int i = 0; i < s->robotCount; ++i)
    {
        double* pose = &rec->path[((size_t)i * (size_t)rec->pathCapacity + (size_t)rec->pathCount) * 3];
        pose[0] = s->robots[i].position.x;
        pose[1] = s->robots[i].position.y;
        pose[2] = lsRadToDeg(s->robots[i].angle);
    }
    rec->pathCount += 1;
}

static void WritePose(FILE* out, const lsRobotState* robot)
{
    fputs("\"pose\": [", out);
    lsWriteJsonNumber(out, robot->position.x);
    fputs(", ", out);
    lsWriteJsonNumber(out, robot->position.y);
    fputs(", ", out);
    lsWriteJsonNumber(out, lsRadToDeg(robot->angle));
    fputs("], \"velocity\": [", out);
    lsWriteJsonNumber(out, robot->v);
    fputs(", ", out);
    lsWriteJsonNumber(out, robot->w);
    fputs("]", out);
}

// Every robot of a fleet: pose, velocity, its scan when it took a new one since the previous line, its counters.
static void RecordRobots(Recorder* rec, const lsSim* sim)
{
    FILE* out = rec->file;
    const lsSimState* s = lsSim_GetState(sim);
    const lsWorld* world = lsSim_GetWorld(sim);
    fputs(", \"robots\": [", out);
    for (int i = 0; i < s->robotCount; ++i)
    {
        const lsRobotState* robot = &s->robots[i];
        const lsRobotDef* def = lsWorld_GetRobot(world, i);
        fputs(i > 0 ? ", {\"id\": " : "{\"id\": ", out);
        lsWriteJsonString(out, def->id);
        fputs(", ", out);
        WritePose(out, robot);
        fputs(", \"scan\": ", out);
        if (rec->robotScanSteps[i] != rec->robotWritten[i])
        {
            WriteRecordedScan(out, lsSim_GetRobotScan(sim, i), (double)rec->robotScanSteps[i] * s->dt,
                              rec->preciseScans);
            rec->robotWritten[i] = rec->robotScanSteps[i];
        }
        else
        {
            fputs("null", out);
        }
        fputs(", \"score\": ", out);
        lsWriteJsonNumber(out, robot->score);
        fprintf(out, ", \"food\": %d, \"poison\": %d, \"collisions\": %d, \"crushes\": %d, \"distance\": ", robot->food,
                robot->poison, robot->collisions, robot->crushes);
        lsWriteJsonNumber(out, robot->distance);
        WritePath(rec, i);
        fputs("}", out);
    }
    fputs("]", out);
}

static void RecordLine(Recorder* rec, const lsSim* sim, long long lastScanStep)
{
    FILE* out = rec->file;
    const lsSimState* s = lsSim_GetState(sim);
    double pose[3] = {s->robot.position.x, s->robot.position.y, lsRadToDeg(s->robot.angle)};
    fprintf(out, "{\"step\": %lld, \"time\": ", s->step);
    lsWriteJsonNumber(out, s->time);
    fputs(", \"pose\": [", out);
    lsWriteJsonNumber(out, pose[0]);
    fputs(", ", out);
    lsWriteJsonNumber(out, pose[1]);
    fputs(", ", out);
    lsWriteJsonNumber(out, pose[2]);
    fputs("], \"velocity\": [", out);
    lsWriteJsonNumber(out, s->robot.v);
    fputs(", ", out);
    lsWriteJsonNumber(out, s->robot.w);
    fputs("], \"scan\": ", out);
    if (lastScanStep != rec->lastScanStep)
    {
        // Stamped with the time of the step that took the scan.
        WriteRecordedScan(out, lsSim_GetScan(sim), (double)lastScanStep * s->dt, rec->preciseScans);
        rec->lastScanStep = lastScanStep;
    }
    else
    {
        fputs("null", out);
    }
    fputs(", \"vehicles\": [", out);
    for (int i = 0; i < s->vehicleCount; ++i)
    {
        const lsVehicleState* v = &s->vehicles[i];
        fputs(i > 0 ? ", [" : "[", out);
        lsWriteJsonNumber(out, v->position.x);
        fputs(", ", out);
        lsWriteJsonNumber(out, v->position.y);
        fputs(", ", out);
        lsWriteJsonNumber(out, v->velocity.x);
        fputs(", ", out);
        lsWriteJsonNumber(out, v->velocity.y);
        fputs("]", out);
    }
    fputs("], \"targets\": [", out);
    bool first = true;
    for (int i = 0; i < s->targetCount; ++i)
    {
        const lsTargetState* t = &s->targets[i];
        lsTargetState* last = &rec->lastTargets[i];
        if (t->active == last->active && lsVecEqual(t->center, last->center))
        {
            continue;
        }
        fprintf(out, "%s[%d, ", first ? "" : ", ", i);
        lsWriteJsonNumber(out, t->center.x);
        fputs(", ", out);
        lsWriteJsonNumber(out, t->center.y);
        fprintf(out, ", %s]", t->active ? "true" : "false");
        *last = *t;
        first = false;
    }
    fputs("], \"score\": ", out);
    lsWriteJsonNumber(out, s->score);
    fprintf(out, ", \"food\": %d, \"poison\": %d, \"collisions\": %d, \"distance\": ", s->food, s->poison,
            s->collisions);
    lsWriteJsonNumber(out, s->distance);
    if (s->robotCount > 1)
        RecordRobots(rec, sim);
    else
        WritePath(rec, 0);
    rec->pathCount = 0;
    fputs("}\n", out);
}

// The header line: what the recording was made of, so a replay finds its world and refuses another
// (docs/recording.md).
static void RecordHeader(Recorder* rec, const lsSim* sim, const char* worldPath, uint64_t worldHash, long long steps,
                         long long every, bool autopilot)
{
    FILE* out = rec->file;
    const lsWorld* world = lsSim_GetWorld(sim);
    const lsSimState* s = lsSim_GetState(sim);
    fprintf(out, "{\"lidarsim_recording\": %d, \"world\": ", LS_RECORDING_VERSION);
    lsWriteJsonString(out, worldPath);
    fprintf(out, ", \"world_hash\": \"%016llx\", ", (unsigned long long)worldHash);
    uint64_t mapHash = 0;
    if (lsWorld_MapHash(world, &mapHash))
    {
        fprintf(out, "\"map_hash\": \"%016llx\", ", (unsigned long long)mapHash);
    }
    fputs("\"world_name\": ", out);
    lsWriteJsonString(out, world->name);
    fputs(", \"dt\": ", out);
    lsWriteJsonNumber(out, s->dt);
    fprintf(out, ", \"seed\": %llu, \"steps\": ", (unsigned long long)world->sim.seed);
    rec->stepsOffset = out != stdout ? ftell(out) : -1;
    fprintf(out, "%lld, \"every\": %lld, \"autopilot\": %s, \"scans\": \"%s\", \"robots\": [", steps, every,
            autopilot ? "true" : "false", rec->preciseScans ? "precise" : "compact");
    for (int i = 0; i < s->robotCount; ++i)
    {
        const lsRobotDef* def = lsWorld_GetRobot(world, i);
        lsScanLayout layout = lsMakeScanLayout(lsSim_GetRobotBeams(sim, i), def->lidar.fov);
        fputs(i > 0 ? ", {\"id\": " : "{\"id\": ", out);
        lsWriteJsonString(out, def->id);
        fprintf(out, ", \"frame_id\": \"%s\", \"beams\": %d, \"angle_min\": ", LS_LASER_FRAME_ID, layout.beams);
        lsWriteJsonNumber(out, layout.angleMin);
        fputs(", \"angle_max\": ", out);
        lsWriteJsonNumber(out, layout.angleMax);
        fputs(", \"angle_increment\": ", out);
        lsWriteJsonNumber(out, layout.angleIncrement);
        fputs(", \"range_min\": ", out);
        lsWriteJsonNumber(out, def->lidar.rangeMin);
        fputs(", \"range_max\": ", out);
        lsWriteJsonNumber(out, def->lidar.range);
        fputs(", \"scan_time\": ", out);
        lsWriteJsonNumber(out, 1.0 / def->lidar.rate);
        fputs("}", out);
    }
    fputs("]}\n", out);
}

/// A recording above this many bytes is announced before the run starts (it may fill a disk unnoticed).
#define LS_RECORDING_WARN_BYTES (300.0 * 1024.0 * 1024.0)

// After the first line (which holds a scan): estimates the recording's size, scanLines lines carrying a scan like it
// and the other lines about a small line's bytes each, and warns before a long run fills the disk.
static void WarnIfLarge(FILE* file, long headerBytes, const char* path, long long lines, long long scanLines,
                        bool everyGiven)
{
    long first = file != stdout && headerBytes >= 0 ? ftell(file) - headerBytes : -1;
    if (first <= 0)
        return;
    scanLines = scanLines < lines ? scanLines : lines;
    double bytes = (double)first * (double)scanLines + 400.0 * (double)(lines - scanLines);
    if (bytes > LS_RECORDING_WARN_BYTES)
    {
        fprintf(stderr,
                "lidarsim run: warning: %s will be about %.0f MB (%lld lines, %lld with a scan of about %ld bytes); "
                "%s\n",
                path, bytes / (1024.0 * 1024.0), lines, scanLines, first,
                everyGiven ? "a larger --every K records fewer steps" : "--every K records every K-th step only");
    }
}

// The run stopped early by Ctrl+C at step done: the header's "steps" says done instead of the steps asked for, so the
// recording is the one `--steps done` writes. The new number has no more digits than the old: it is written over it,
// right-aligned in the same width (JSON allows the spaces before it), instead of copying the whole file with a new
// first line. False when the file cannot be rewritten (stdout, a FIFO or device written in place): its header keeps
// the steps asked for.
static bool RewriteSteps(Recorder* rec, long long done, long long steps)
{
    FILE* out = rec->file;
    if (rec->stepsOffset < 0 || rec->atomic.temp == NULL || fflush(out) != 0)
        return false;
    long end = ftell(out);
    int width = snprintf(NULL, 0, "%lld", steps);
    if (end < 0 || fseek(out, rec->stepsOffset, SEEK_SET) != 0)
        return false;
    fprintf(out, "%*lld", width, done);
    // Back to the end (lsCommitAtomicWrite checks the writes); a failed write shows there.
    return fseek(out, end, SEEK_SET) == 0;
}

static void DrawProgress(long long done, long long total, double elapsed, bool finished)
{
    int width = 40;
    double fraction = total > 0 ? (double)done / (double)total : 1.0;
    int filled = (int)(fraction * width);
    fputc('\r', stderr);
    fputc('[', stderr);
    for (int i = 0; i < width; ++i)
    {
        fputc(i < filled ? '#' : '.', stderr);
    }
    double rate = elapsed > 0.0 ? (double)done / elapsed : 0.0;
    fprintf(stderr, "] %3d%%  %lld/%lld steps  %.0f steps/s", (int)(100.0 * fraction), done, total, rate);
    if (!finished && rate > 0.0)
    {
        // What is left at the rate so far; the padding clears a longer previous line.
        long long eta = (long long)ceil((double)(total - done) / rate);
        fprintf(stderr, "  ETA %lld:%02lld:%02lld   ", eta / 3600, eta / 60 % 60, eta % 60);
    }
    else
    {
        fprintf(stderr, "  done %.1f s        ", elapsed);
    }
    fflush(stderr);
}

enum
{
    optSteps = 256,
    optEvery,
    optSeed,
    optBeams,
    optDt,
    optRecord,
    optAutopilot,
    optPreciseScans,
};

static const struct option s_options[] = {
    {"steps", required_argument, NULL, optSteps},
    {"every", required_argument, NULL, optEvery},
    {"seed", required_argument, NULL, optSeed},
    {"beams", required_argument, NULL, optBeams},
    {"dt", required_argument, NULL, optDt},
    {"record", required_argument, NULL, optRecord},
    {"autopilot", no_argument, NULL, optAutopilot},
    {"precise-scans", no_argument, NULL, optPreciseScans},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int lsCmdRun(int argc, char** argv)
{
    if (lsWantsHelp(argc, argv))
    {
        PrintUsage(stdout);
        return 0;
    }
    const char* worldPath = NULL;
    const char* recordPath = NULL;
    long long steps = -1, every = 0, beams = 0; // every 0: one line per lidar scan
    uint64_t seed = 0;
    bool hasSeed = false;
    double dt = 0.0;
    bool autopilot = false, preciseScans = false;
    lsOptions options;
    lsBeginOptions(&options, "run", argc, argv, s_options, "h");
    lsError err = {{0}};
    const char* value = NULL;
    bool ok = true;
    for (int c = lsNextOption(&options, &value, &err); c != -1 && ok; c = lsNextOption(&options, &value, &err))
    {
        switch (c)
        {
        case optAutopilot:
            autopilot = true;
            break;
        case optPreciseScans:
            preciseScans = true;
            break;
        case optSteps:
            if (!lsParseInteger(value, 0, (long long)1 << 53, &steps))
                ok = lsFail(&err, "--steps: expected an integer in [0, 2^53], got '%s'", value);
            break;
        case optEvery:
            if (!lsParseInteger(value, 1, (long long)1 << 53, &every))
                ok = lsFail(&err, "--every: expected an integer in [1, 2^53], got '%s'", value);
            break;
        case optSeed:
            if (!lsParseSeed(value, &seed))
                ok = lsFail(&err, "--seed: expected a non-negative integer below 2^64, got '%s'", value);
            hasSeed = ok;
            break;
        case optBeams:
            if (!lsParseInteger(value, 1, LS_MAX_BEAMS, &beams))
                ok = lsFail(&err, "--beams: expected an integer in 1..%d, got '%s'", LS_MAX_BEAMS, value);
            break;
        case optDt:
            if (!lsParseQuantity(value, ls_quantityTimeStep, &dt))
            {
                char text[96];
                ok = lsFail(&err, "--dt: expected %s (the world file's bound), got '%s'",
                            lsLimit_Describe(ls_quantityTimeStep, text, sizeof text), value);
            }
            break;
        case optRecord:
            recordPath = value;
            break;
        default: // '?': err says what
            ok = false;
            break;
        }
    }
    for (int i = 0; i < options.positionalCount && ok; ++i)
    {
        if (worldPath != NULL)
            ok = lsFail(&err, "more than one world file: '%s'", options.positionals[i]);
        worldPath = options.positionals[i];
    }
    lsEndOptions(&options);
    if (ok && worldPath == NULL)
        ok = lsFail(&err, "missing WORLD.json");
    if (ok && steps < 0)
        ok = lsFail(&err, "missing --steps N");
    if (!ok)
    {
        fprintf(stderr, "lidarsim run: %s (see lidarsim run --help)\n", err.message);
        return 2;
    }

    lsWarnings warnings;
    lsWorld* world = lsLoadWorld(worldPath, &err, &warnings);
    if (world == NULL)
    {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    lsPrintWarnings(worldPath, &warnings);
    // The recording names the world as the file holds it, before the command line changes dt, seed or beams.
    uint64_t worldHash = recordPath != NULL ? lsWorld_ContentHash(world) : 0;
    if (dt > 0.0)
    {
        world->sim.dt = dt;
    }
    if (hasSeed)
    {
        world->sim.seed = seed;
    }
    if (beams > 0)
    {
        world->robot.lidar.beams = (int)beams;
    }

    Recorder rec = {.targetCount = world->targetCount, .lastScanStep = -1, .preciseScans = preciseScans};
    if (recordPath != NULL)
    {
        if (strcmp(recordPath, "-") == 0)
        {
            rec.file = stdout;
        }
        else
        {
            // Never a truncated recording under its name: the lines go to a temporary file renamed at the end.
            lsError openErr = {{0}};
            if (!lsCheckOutputNotInput(recordPath, worldPath, "the world file", world->map.yamlFile,
                                       world->map.imageFile, &openErr) ||
                !lsBeginAtomicWrite(&rec.atomic, recordPath, "written", false, &openErr))
            {
                fprintf(stderr, "lidarsim run: %s\n", openErr.message);
                lsDestroyWorld(world);
                return 1;
            }
            rec.file = rec.atomic.file;
            rec.ownsFile = true;
        }
        rec.lastTargets = lsAllocZero((size_t)(world->targetCount > 0 ? world->targetCount : 1), sizeof(lsTargetState));
    }

    bool everyGiven = every != 0;
    if (every == 0)
    {
        // Compact by default: one line per scan of the first robot's lidar (every 6th step of the default world's
        // 60 Hz steps and 10 Hz lidar) instead of one per step, so no scan is lost and no line repeats a pose the
        // next scan line has nearly the same.
        every = llround(1.0 / (world->robot.lidar.rate * world->sim.dt));
        every = every < 1 ? 1 : every;
    }

    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    int robotCount = state->robotCount;
    // A fleet's lidars scan in parallel (the results do not depend on the thread count).
    lsPool* pool = robotCount > 1 ? lsCreatePool(0) : NULL;
    lsSim_SetPool(sim, pool);
    lsControl* controls = lsAlloc((size_t)robotCount * sizeof(lsControl));
    for (int i = 0; i < robotCount; ++i)
    {
        bool drives = autopilot || lsWorld_GetRobot(world, i)->controller == ls_controllerAutopilot;
        controls[i] = drives ? lsMakeAutopilotControl() : lsMakeManualControl(0.0, 0.0);
    }
    rec.robotScanSteps = lsAllocZero((size_t)robotCount, sizeof(long long));
    rec.robotWritten = lsAllocZero((size_t)robotCount, sizeof(long long));
    for (int i = 0; i < robotCount; ++i)
    {
        rec.robotWritten[i] = -1;
    }
    rec.pathCapacity = rec.file != NULL && every <= LS_MAX_PATH ? (int)every - 1 : 0;
    rec.path =
        rec.pathCapacity > 0 ? lsAlloc((size_t)robotCount * (size_t)rec.pathCapacity * 3 * sizeof(double)) : NULL;
    if (rec.file != NULL)
    {
        RecordHeader(&rec, sim, worldPath, worldHash, steps, every, autopilot);
        if (!lsUtf8Valid(worldPath))
        {
            char shown[1024];
            fprintf(stderr,
                    "lidarsim run: note: the world's path is not UTF-8, so the recording names it with U+FFFD for "
                    "those bytes: replay it as `lidarsim replay %s WORLD.json`\n",
                    lsShown(recordPath, shown, sizeof shown));
        }
        long headerBytes = rec.file != stdout ? ftell(rec.file) : -1;
        // The first line lists every target, so a reader starts from the full set.
        for (int i = 0; i < state->targetCount; ++i)
        {
            rec.lastTargets[i] = state->targets[i];
            rec.lastTargets[i].active = !state->targets[i].active;
        }
        RecordLine(&rec, sim, 0);
        double scans = (double)steps * world->sim.dt * world->robot.lidar.rate;
        WarnIfLarge(rec.file, headerBytes, recordPath, steps / every + 1, (long long)lsFmin(scans, 1e15) + 1,
                    everyGiven);
    }
    bool progress = isatty(fileno(stderr)) && steps > 0;
    // From here Ctrl+C stops the run after the step it is in, and what was simulated is recorded and summed up; a
    // second Ctrl+C ends it at once, as before (docs/recording.md). Said at once from the signal handler: the step
    // may be long, or the write of a line blocked on a full pipe. The newline ends the progress bar's line.
#define LS_STOPPING                                                                                                    \
    "lidarsim run: Ctrl+C: stopping after this step, keeping what was done (Ctrl+C again ends at once)\n"
    lsStopOnInterrupt(progress ? "\n" LS_STOPPING : LS_STOPPING);
#undef LS_STOPPING
    long long lastScanStep = 0, done = steps;
    bool stopped = false;
    double start = lsNowSeconds();
    double lastDraw = start;
    for (long long k = 1; k <= steps; ++k)
    {
        lsSim_StepRobots(sim, controls);
        if (state->scanned)
        {
            lastScanStep = k;
        }
        for (int i = 0; i < robotCount && state->scanned; ++i)
        {
            rec.robotScanSteps[i] = state->robots[i].scanned ? k : rec.robotScanSteps[i];
        }
        // Asked to stop: this step is the last (not when it was the last anyway).
        stopped = k < steps && lsStopRequested();
        // The last step too, so a replay ends where the run did.
        if (rec.file != NULL && (k % every == 0 || k == steps || stopped))
        {
            RecordLine(&rec, sim, lastScanStep);
        }
        else if (rec.file != NULL)
        {
            KeepPoses(&rec, state);
        }
        if (progress && (k & 255) == 0)
        {
            double now = lsNowSeconds();
            if (now - lastDraw > 0.1)
            {
                DrawProgress(k, steps, now - start, false);
                lastDraw = now;
            }
        }
        if (stopped)
        {
            done = k;
            break;
        }
    }
    double elapsed = lsNowSeconds() - start;
    if (progress)
    {
        DrawProgress(done, steps, elapsed, true);
        fputc('\n', stderr);
    }

    int status = 0;
    bool headerRewritten = false;
    if (rec.file != NULL)
    {
        headerRewritten = stopped && RewriteSteps(&rec, done, steps);
        lsError writeErr = {{0}};
        bool written =
            rec.ownsFile ? lsCommitAtomicWrite(&rec.atomic, &writeErr) : lsCheckOutput(rec.file, "stdout", &writeErr);
        if (!written)
        {
            fprintf(stderr, "lidarsim run: %s\n", writeErr.message);
            status = 1;
        }
        lsFree(rec.lastTargets, (size_t)(world->targetCount > 0 ? world->targetCount : 1) * sizeof(lsTargetState));
    }
    // The summary goes to stderr when the recording is on stdout, so the JSON lines stay clean.
    FILE* out = rec.file == stdout ? stderr : stdout;
    char name[sizeof world->name], shown[1024];
    snprintf(name, sizeof name, "%s", world->name);
    snprintf(shown, sizeof shown, "%s", worldPath);
    lsEscapeControl(name, sizeof name);
    lsEscapeControl(shown, sizeof shown);
    fprintf(out, "world: %s (%s)\n", name, shown);
    fprintf(out, "steps: %lld of %g s, simulated %.3f s in %.3f s wall (%.0f steps/s, %.1fx real time)\n", done,
            state->dt, state->time, elapsed, elapsed > 0.0 ? (double)done / elapsed : 0.0,
            elapsed > 0.0 ? state->time / elapsed : 0.0);
    if (stopped)
    {
        // What the recording holds: steps 0 to done, its header saying so (a recording written in place, to stdout or a
        // FIFO, keeps the steps asked for in its header: its lines say where it ends).
        fprintf(out, "stopped by Ctrl+C at step %lld of %lld", done, steps);
        if (rec.file != NULL && status == 0)
            fprintf(out,
                    headerRewritten
                        ? "; the recording holds steps 0 to %lld\n"
                        : "; the recording's lines end at step %lld (its header says the steps asked for)\n",
                    done);
        else
            fputc('\n', out);
        status = status != 0 ? status : LS_EXIT_INTERRUPTED;
    }
    fprintf(out, "score: %g  food: %d  poison: %d  collisions: %d  crushes: %d  distance: %.2f m\n", state->score,
            state->food, state->poison, state->collisions, state->crushes, state->distance);
    for (int i = 0; i < robotCount && robotCount > 1; ++i)
    {
        // Escaped as the world's name is: an id's control characters ("\u001b" in the file) went to the terminal.
        const lsRobotState* r = &state->robots[i];
        char id[4 * LS_ROBOT_ID_CAPACITY];
        fprintf(out, "robot %s: score: %g  food: %d  poison: %d  collisions: %d  crushes: %d  distance: %.2f m\n",
                lsShown(lsWorld_GetRobot(world, i)->id, id, sizeof id), r->score, r->food, r->poison, r->collisions,
                r->crushes, r->distance);
    }
    fprintf(out, "hash: %016llx\n", (unsigned long long)lsSim_Hash(sim));
    lsFree(controls, (size_t)robotCount * sizeof(lsControl));
    lsFree(rec.robotScanSteps, (size_t)robotCount * sizeof(long long));
    lsFree(rec.robotWritten, (size_t)robotCount * sizeof(long long));
    lsFree(rec.path, rec.path != NULL ? (size_t)robotCount * (size_t)rec.pathCapacity * 3 * sizeof(double) : 0);
    lsDestroySim(sim);
    lsDestroyPool(pool);
    lsDestroyWorld(world);
    return status;
}

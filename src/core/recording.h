// lidarsim core: recordings (`lidarsim run --record`), read back for replay. A recording is JSON lines: a header
// line (format version, the world's path and content hash, dt, the lidars) then one line per recorded step (pose,
// velocity, the scan when a new one was taken, vehicles, target changes, counters, and the poses of the steps
// skipped since the previous line). docs/recording.md describes the format; src/cli/run.c writes it.
//
// A loaded recording puts any step's state into a sim of its world (lsRecording_Apply), so the window and the GIF
// writer draw a replay with the same code as a live run. Nothing here reads the clock or draws.
#pragma once

#include "lidarsim/sim.h"

#include <stdint.h>
#include <stdio.h>

/// The recording format this program writes and reads (the header's "lidarsim_recording").
#define LS_RECORDING_VERSION 1
/// Largest recording read: 1 GiB (run warns above 300 MB before writing one).
#define LS_MAX_RECORDING_BYTES ((size_t)1 << 30)
/// Recorded ranges are rounded to this many metres by default (millimetres, written as integers).
#define LS_RECORDED_RANGE_UNIT 0.001
/// Recorded intensities are rounded to this (thousandths, written as integers).
#define LS_RECORDED_INTENSITY_UNIT 0.001
/// Poses of the skipped steps ("path") are rounded to 0.1 mm and 0.01 degree: for drawing between lines.
#define LS_RECORDED_PATH_DIGITS 4

/// The hash a recording's header names its world by: 64-bit FNV-1a over the world's canonical text
/// (lsSaveWorldToString), so formatting, comments and key order of the file do not matter, but any change to
/// what the world is does.
uint64_t lsWorld_ContentHash(const lsWorld* world);
/// The hash a recording's header names the world's map by ("map_hash"): 64-bit FNV-1a (core/hash.h) over the walls
/// its cells make (lsWallDef.fromMap: each chain's point count and whether it is closed, then its coordinates' bits),
/// since the canonical text only names the map's file. False (and no hash) for a world without a map.
bool lsWorld_MapHash(const lsWorld* world, uint64_t* hash);

/// One character per hit kind in a recorded scan's "hits" string ('-' none, 'w' wall, 'm' mover, 't' target,
/// 'b' box, 'p' polygon, 'v' vehicle, 'r' robot).
char lsHitKindLetter(lsHitKind kind);

/// True when the file at path starts like a recording (a header line, or an older recording's first line), so
/// `lidarsim render` can tell a recording from a world. False when it cannot be read.
bool lsIsRecordingFile(const char* path);
/// When the file at path is a recording (lsIsRecordingFile), says so in err ("run.jsonl: a recording, not a world
/// (lidarsim replay run.jsonl plays it)") and returns true: for a world loader that failed on it, whose message
/// would be a syntax error on its second line.
bool lsFailIfRecording(const char* path, lsError* err);

/// A recording read whole into memory (opaque). Load with lsLoadRecording, free with lsDestroyRecording.
typedef struct lsRecording lsRecording;

/// Reads and checks every line of a recording. NULL with err filled ("rec.jsonl:12: scan.ranges_mm[3]: expected
/// an integer or null") when the file cannot be read, has no header (an older recording: re-record it), is of
/// another format version, or any line is malformed or out of order.
lsRecording* lsLoadRecording(const char* path, lsError* err);
/// The same from text in memory (size bytes; need not end in a NUL), path naming it in messages.
lsRecording* lsLoadRecordingFromString(const char* text, size_t size, const char* path, lsError* err);
/// Frees the recording (NULL allowed).
void lsDestroyRecording(lsRecording* rec);

/// The world path the header names (as given to `lidarsim run`), and that path resolved for opening: as written
/// when it exists from the current directory, else relative to the recording's folder.
const char* lsRecording_WorldPath(const lsRecording* rec);
/// Writes the path to open the recording's world at into path (capacity bytes).
void lsRecording_ResolveWorld(const lsRecording* rec, char* path, size_t capacity);
/// True when world (loaded from worldPath, before any change) is the one the recording was made in; else false
/// with err naming both files and both hashes.
bool lsRecording_CheckWorld(const lsRecording* rec, const lsWorld* world, const char* worldPath, lsError* err);
/// The part of lsRecording_CheckWorld that needs no hash: the robots (count and ids), vehicles and targets of the
/// lines fit world, so lsRecording_Apply may put them into a sim of it (the fuzzer's check).
bool lsRecording_CheckShape(const lsRecording* rec, const lsWorld* world, const char* worldPath, lsError* err);
/// Loads the recording's world (worldPath, or the one the header names when NULL: lsRecording_ResolveWorld),
/// checks it (lsRecording_CheckWorld), configures it and makes a sim of it showing the recording's first step.
/// The world goes to *world (destroy it after the sim). NULL with err filled on failure (nothing left allocated).
lsSim* lsRecording_OpenWorld(lsRecording* rec, const char* worldPath, lsWorld** world, lsError* err);
/// Sets the recorded dt and lidar beams on world (as `run`'s --dt and --beams did) before a sim is made from it.
void lsRecording_Configure(const lsRecording* rec, lsWorld* world);

/// The first and last recorded steps (the replay's timeline), and the fixed step in seconds.
long long lsRecording_FirstStep(const lsRecording* rec);
long long lsRecording_LastStep(const lsRecording* rec);
double lsRecording_Dt(const lsRecording* rec);
/// Number of recorded lines (not counting the header).
int lsRecording_LineCount(const lsRecording* rec);
/// The step of line i (0 .. lineCount - 1).
long long lsRecording_LineStep(const lsRecording* rec, int i);

/// Robot r's position on line i (the replay's trail).
lsVec2 lsRecording_RobotPosition(const lsRecording* rec, int i, int r);
/// The last line at or before step (0 for a step before the first line).
int lsRecording_LineAt(const lsRecording* rec, long long step);

/// Puts the recorded state at `step` (clamped to the timeline) into sim, a sim of the recording's world made after
/// lsRecording_Configure: time, robots (pose, speeds, counters), vehicles, targets, movers, and each robot's latest
/// scan as recorded (ranges, intensities, hits). Between recorded lines robots take the recorded poses of the
/// skipped steps and vehicles are interpolated. The sim is then for drawing only: stepping it again continues
/// from a state that is not exactly the run's (its generators were not recorded).
void lsRecording_Apply(lsRecording* rec, long long step, lsSim* sim);

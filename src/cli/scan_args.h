// lidarsim scan: its command line and poses file, parsed without I/O (so tests and the fuzzer fuzz_scan_args can
// call them) or exit(); getopt_long's own state is reset on every call. The command (scan.c) reads the files and
// prints; this only decides.
#pragma once

#include "cli/laserscan.h" // lsNoHitStyle
#include "lidarsim/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Most poses one scan command takes (from --pose and --poses together): 24 MB of poses at most.
#define LS_SCAN_MAX_POSES 1000000
/// Largest poses file read, bytes.
#define LS_SCAN_MAX_POSES_FILE ((size_t)64 << 20)

/// The parsed command line. Strings point into argv. Poses (x metres, y metres, heading degrees; 3 doubles each)
/// are owned: free with lsFreeScanArgs. Zero or negative fields mean "not given" as documented per field.
typedef struct lsScanArgs
{
    bool help;             ///< -h or --help was given (nothing else is checked then)
    const char* worldPath; ///< the world file (required unless help)
    const char* posesPath; ///< --poses FILE, or NULL
    const char* robotId;   ///< --robot ID: whose lidar and pose (the others are seen where they stand), or NULL: the
                           ///< first robot
    double* poses;         ///< 3 per pose, from --pose (and lsParseScanPoses); lsAlloc'd, poseCapacity * 3 doubles
    int poseCount, poseCapacity;
    int beams;          ///< --beams, 1..LS_MAX_BEAMS; 0 when not given
    int threads;        ///< --threads, 0..256 threads casting the scans; 0 (also when not given): one per core
    double fovDeg;      ///< --fov, degrees in [1e-6, 360]; 0 when not given
    double range;       ///< --range, metres > 0 (finite); 0 when not given
    double noise;       ///< --noise, metres >= 0; -1 when not given
    bool haveSeed;      ///< --seed was given
    uint64_t seed;      ///< --seed
    bool csv;           ///< --format csv
    lsNoHitStyle noHit; ///< --no-hit; default ls_noHitNull (null in JSON, an empty field in CSV); inf and nan
                        ///< only with --format csv (JSON has neither)
} lsScanArgs;

/// Parses the arguments after "scan". On success fills out and returns true; on a usage error returns false with
/// err saying what ("--fov: expected a field of view in [1e-06, 360] deg, got '400'") and leaves nothing to free.
/// Either way the caller calls lsFreeScanArgs(out) (harmless after a failure). Reads no file: --poses only records
/// the path.
bool lsParseScanArgs(int argc, char** argv, lsScanArgs* out, lsError* err);

/// Parses the text of a poses file (size bytes, not necessarily NUL-terminated): one "x y deg" per line (commas
/// or blanks between), '#' comments and blank lines skipped; appends to args->poses. label names the file in
/// messages ("poses.txt:3: expected three numbers 'x y deg'"). Fails on a NUL byte, on a bad line, when no pose
/// is found, and beyond LS_SCAN_MAX_POSES poses in all.
bool lsParseScanPoses(const char* text, size_t size, const char* label, lsScanArgs* args, lsError* err);

/// Frees what lsParseScanArgs and lsParseScanPoses allocated and zeroes args.
void lsFreeScanArgs(lsScanArgs* args);

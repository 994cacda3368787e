// libFuzzer target: the scan command's argument parser and poses-file parser (src/cli/scan_args.h).
// Input: the arguments after "scan", NUL-separated (a trailing NUL optional), at most 64 of them. The same bytes
// are also parsed as the text of a poses file. Properties: no crash or sanitizer report; a failure says why; a
// success gives values within their documented ranges; every byte allocated is freed.
#include "cli/scan_args.h"

#include "lidarsim/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define MAX_ARGS 64

static void Check(bool condition, const char* what)
{
    if (!condition)
    {
        fprintf(stderr, "fuzz_scan_args: property broken: %s\n", what);
        abort(); // libFuzzer keeps the input as a crash
    }
}

static void CheckArgs(const lsScanArgs* a)
{
    if (a->help)
    {
        return;
    }
    Check(a->worldPath != NULL, "a parse without a world file succeeded");
    Check(a->beams == 0 || (a->beams >= 1 && a->beams <= LS_MAX_BEAMS), "beams out of range");
    Check(a->fovDeg == 0.0 || (a->fovDeg > 0.0 && a->fovDeg <= 360.0), "fov out of range");
    Check(a->range == 0.0 || (a->range > 0.0 && isfinite(a->range)), "range out of range");
    Check(a->noise == -1.0 || (a->noise >= 0.0 && isfinite(a->noise)), "noise out of range");
    Check(a->poseCount >= 0 && a->poseCount <= a->poseCapacity && a->poseCount <= LS_SCAN_MAX_POSES, "pose count");
    for (int i = 0; i < 3 * a->poseCount; ++i)
    {
        Check(isfinite(a->poses[i]), "a pose is not finite");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    long long before = lsAllocatedBytes();

    // Split into NUL-terminated arguments, each in its own allocation so ASan sees any read past its end.
    char* args[MAX_ARGS];
    int argc = 0;
    size_t at = 0;
    while (at < size && argc < MAX_ARGS)
    {
        const uint8_t* nul = memchr(data + at, 0, size - at);
        size_t length = nul != NULL ? (size_t)(nul - (data + at)) : size - at;
        args[argc] = malloc(length + 1);
        memcpy(args[argc], data + at, length);
        args[argc][length] = '\0';
        ++argc;
        at += length + 1;
    }

    lsScanArgs parsed;
    lsError err = {{0}};
    if (lsParseScanArgs(argc, args, &parsed, &err))
    {
        CheckArgs(&parsed);
    }
    else
    {
        Check(err.message[0] != '\0', "a failed parse left no message");
    }
    lsFreeScanArgs(&parsed);
    for (int i = 0; i < argc; ++i)
    {
        free(args[i]);
    }

    // The same bytes as a poses file (a copy of exactly size bytes, so ASan catches a read past the end).
    char* text = malloc(size + 1);
    memcpy(text, data, size);
    lsScanArgs poses = {0};
    poses.noise = -1.0;
    err.message[0] = '\0';
    if (lsParseScanPoses(text, size, "poses.txt", &poses, &err))
    {
        Check(poses.poseCount >= 1, "a poses file without poses was accepted");
        for (int i = 0; i < 3 * poses.poseCount; ++i)
        {
            Check(isfinite(poses.poses[i]), "a pose from the file is not finite");
        }
    }
    else
    {
        Check(strncmp(err.message, "poses.txt:", 10) == 0, "a poses error does not name the file");
    }
    lsFreeScanArgs(&poses);
    free(text);

    Check(lsAllocatedBytes() == before, "memory leaked through lsAlloc");
    return 0;
}

// The recording fuzzer's property (recording_check.h): located refusals or a replay that stays finite.
#include "recording_check.h"

#include "core/recording.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char lsFuzzRecordingWorld[] =
    "{\"name\": \"fuzz\", \"walls\": [{\"points\": [[0, 0], [8, 0], [8, 6], [0, 6]], \"closed\": true}], "
    "\"targets\": [{\"center\": [6, 2], \"radius\": 0.2}, {\"center\": [6, 4], \"radius\": 0.2, \"kind\": "
    "\"poison\"}], \"paths\": [{\"id\": \"p\", \"points\": [[1, 5], [7, 5]]}], \"vehicles\": [{\"path\": \"p\"}], "
    "\"robot\": {\"pose\": [2, 2, 0], \"lidar\": {\"beams\": 4, \"fov\": 360, \"range\": 10}}}";

// Replays steps of the recording into a sim of the world; 1 when a state is not finite.
static int Replay(lsRecording* rec, lsWorld* world)
{
    lsRecording_Configure(rec, world);
    lsSim* sim = lsCreateSim(world);
    const lsSimState* state = lsSim_GetState(sim);
    long long first = lsRecording_FirstStep(rec), last = lsRecording_LastStep(rec);
    long long stride = (last - first) / 64 + 1;
    int status = 0;
    // Forward, then back (the target cache rewinds), then beyond both ends.
    for (int pass = 0; pass < 2 && status == 0; ++pass)
    {
        for (long long k = 0; k <= (last - first) / stride + 1 && status == 0; ++k)
        {
            long long step = pass == 0 ? first + k * stride : last - k * stride;
            lsRecording_Apply(rec, step, sim);
            if (!isfinite(state->robot.position.x) || !isfinite(state->robot.position.y) || !isfinite(state->time))
            {
                fprintf(stderr, "recording_check: step %lld replays to a pose or time that is not finite\n", step);
                status = 1;
            }
        }
    }
    lsRecording_Apply(rec, first - 1000, sim);
    lsRecording_Apply(rec, last + 1000, sim);
    lsDestroySim(sim);
    return status;
}

int lsFuzzCheckRecording(const uint8_t* data, size_t size)
{
    long long bytesBefore = lsAllocatedBytes();
    lsError err = {{0}};
    lsRecording* rec = lsLoadRecordingFromString((const char*)data, size, "fuzz.jsonl", &err);
    int status = 0;
    if (rec == NULL && strncmp(err.message, "fuzz.jsonl", 10) != 0)
    {
        fprintf(stderr, "recording_check: a refusal that does not name the input: '%s'\n", err.message);
        status = 1;
    }
    if (rec != NULL)
    {
        lsWorld* world =
            lsLoadWorldFromString(lsFuzzRecordingWorld, strlen(lsFuzzRecordingWorld), "fuzz.json", &err, NULL);
        if (world == NULL)
        {
            fprintf(stderr, "recording_check: the fuzz world does not load: %s\n", err.message);
            status = 1;
        }
        else if (lsRecording_CheckShape(rec, world, "fuzz.json", &err))
        {
            status = Replay(rec, world);
        }
        lsDestroyWorld(world);
        lsDestroyRecording(rec);
    }
    if (lsAllocatedBytes() != bytesBefore)
    {
        fprintf(stderr, "recording_check: %lld bytes not freed\n", lsAllocatedBytes() - bytesBefore);
        status = 1;
    }
    return status;
}

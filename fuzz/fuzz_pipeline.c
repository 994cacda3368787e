// libFuzzer target: the whole pipeline, load -> simulate with the autopilot -> scan -> LaserScan JSON -> draw
// offscreen (see pipeline_check.h for the property).
#include "pipeline_check.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (lsFuzzCheckPipeline(data, size) != 0)
    {
        abort(); // libFuzzer keeps the input as a crash
    }
    return 0;
}

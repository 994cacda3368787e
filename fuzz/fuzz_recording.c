// libFuzzer target: the recording reader and replay (see recording_check.h for the property).
#include "recording_check.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (lsFuzzCheckRecording(data, size) != 0)
    {
        abort(); // libFuzzer keeps the input as a crash
    }
    return 0;
}

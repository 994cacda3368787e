// libFuzzer target: the world loader and saver (see world_check.h for the property).
#include "world_check.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (lsFuzzCheckWorld(data, size) != 0)
    {
        abort(); // libFuzzer keeps the input as a crash
    }
    return 0;
}

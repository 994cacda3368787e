// libFuzzer target: the map readers (map.h), with the property in map_check.h.
#include "map_check.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (lsFuzzCheckMap(data, size) != 0)
        abort(); // libFuzzer keeps the input as a crash
    return 0;
}

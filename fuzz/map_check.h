// The property the map fuzzer checks on every input, shared with the regression suite (FuzzRegressionTest replays
// fuzz/map_corpus and tests/data/fuzz_map through it).
#pragma once

#include <stddef.h>
#include <stdint.h>

/// Feeds `data` to the map readers. The first byte picks what the rest is: a map YAML (even) or an image (odd), with
/// the mode, negate, unknown and simplify options taken from that byte's other bits; a decoded image's walls are
/// traced. Whatever it holds, the reader must either fail with a message that starts with the file name or give
/// values in range (a YAML) or closed wall chains on the cell lattice whose counts add up (an image), and in both
/// cases free every byte. Returns 0 when that holds, otherwise prints why on stderr and returns 1.
int lsFuzzCheckMap(const uint8_t* data, size_t size);

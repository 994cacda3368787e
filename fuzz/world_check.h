// The property the world fuzzer checks on every input, shared with the regression suite (FuzzRegressionTest).
#pragma once

#include <stddef.h>
#include <stdint.h>

/// Loads `data` as a world file. Whatever it holds, the loader must either fail with a located message or give a
/// world whose canonical save loads back equal, and whose format-preserving save (the window's Ctrl+S, from `data`
/// itself) after an edit chosen by the size loads back to the edited world without falling back to the canonical
/// form; in both cases every byte is freed. Returns 0 when that holds, otherwise prints why on stderr and returns 1.
int lsFuzzCheckWorld(const uint8_t* data, size_t size);

// The whole-pipeline property (fuzz_pipeline and the regression suite): every world that loads can be simulated,
// scanned, written out and drawn.
#pragma once

#include <stddef.h>
#include <stdint.h>

/// Loads `data` as a world file; a world that loads is simulated for some steps with the autopilot (invariants after
/// every step: no overlap beyond tolerance, nothing NaN; a robot that starts inside a closed wall chain never leaves
/// it), its scans are written as LaserScan JSON that must parse as strict JSON with finite numbers, and, when built
/// with the front end, it is drawn offscreen with the window's cameras (overview, close-up, the farthest zoom).
/// Worlds are clamped to a small cost first (beams, steps), so a fuzzer stays fast. Returns 0 when all of that
/// holds, otherwise prints why on stderr and returns 1. A crash, assert or sanitizer report is a failure too.
int lsFuzzCheckPipeline(const uint8_t* data, size_t size);

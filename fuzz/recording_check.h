// The property the recording fuzzer checks on every input, shared with the regression cases of RecordingTest.
#pragma once

#include <stddef.h>
#include <stdint.h>

/// A small world (one robot with a 4-beam lidar, two targets, one vehicle on a path) whose recordings the fuzzer
/// mutates: an input that fits it is replayed.
extern const char lsFuzzRecordingWorld[];

/// Loads `data` as a recording. Whatever it holds, the reader must either fail with a message naming the input, or
/// give a recording that, when its shape fits lsFuzzRecordingWorld, replays at every step (forward, backward and
/// beyond the ends) into finite poses; and in both cases free every byte. Returns 0 when that holds, otherwise
/// prints why on stderr and returns 1.
int lsFuzzCheckRecording(const uint8_t* data, size_t size);

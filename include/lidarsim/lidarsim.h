// lidarsim: a 2D lidar robot simulator as a C library. Include this one header, link lidarsim (CMake:
// find_package(lidarsim) and lidarsim::lidarsim; pkg-config: lidarsim). See docs/library.md.
//
// Modules, in the order data flows:
//   base.h      allocation with a byte counter, caller-owned errors, the seeded generator, the version
//   vec.h       2D vectors, rotations, transforms and boxes (inline)
//   geometry.h  shapes, ray casts, segment tests, closest points
//   world.h     the world's definitions: create in code, load from and save to JSON
//   map.h       ROS map_server maps (YAML + PGM/PNG) as exact walls, and worlds written back as maps
//   scene.h     the static scene built from a world: grid-indexed ray casts and box queries
//   lidar.h     scans: beam layout and casting a scan from a pose
//   sim.h       the deterministic fixed-step simulation
//   agent.h     a reinforcement-learning view of the sim: observations, discrete or continuous actions, rewards
//   pool.h      a thread pool for batch work (many scans, many sims), deterministic for any thread count
//   batch.h     many scans at once, vectors of agents on the pool, flat snapshots for bindings (Python)
#pragma once

#include "lidarsim/agent.h"
#include "lidarsim/base.h"
#include "lidarsim/batch.h"
#include "lidarsim/geometry.h"
#include "lidarsim/lidar.h"
#include "lidarsim/map.h"
#include "lidarsim/pool.h"
#include "lidarsim/scene.h"
#include "lidarsim/sim.h"
#include "lidarsim/vec.h"
#include "lidarsim/world.h"

// int8_pool_cost.hpp: what an int8 pool adds to a step, measured and predicted.
//
// An int8 pool (block_pool.hpp) holds 3.9 times the positions of a float32 pool
// in the same bytes, and pays for it in every layer of every forward pass:
// each text's held positions are rebuilt in float32 before attention reads
// them, the new ones included, which are stored as codes first. Both are loops
// over numbers, so a pass costs besides lesson 06's forward
//
//   ((held + new positions) x read_ns + new positions x write_ns) x 2 C x L
//
// (keys and values, every layer), with the two rates measured on this machine
// as the machine profile measures its loops: a whole context, many times, the median.
#pragma once

#include <cstddef>

#include "06_kvcache/step_cost.hpp"  // StepWork
#include "11_server/engine_options.hpp"
#include "config.hpp"

namespace tang {

struct Int8PoolCost {
  double read_ns = 0, write_ns = 0;  // a number rebuilt; a number stored

  // A pass of the engine's (B texts, each `rows / B` new positions, as
  // PagedEngine::step builds its work): its extra time in ms.
  double ms(const StepWork& w, const GPTConfig& config) const;
};

// The rates, from `repeats` rebuilds and stores of a whole context, every layer.
Int8PoolCost measure_int8_pool_cost(const GPTConfig& config, std::size_t repeats);

// options.predict_ms, plus what an int8 pool adds to each pass.
void add_int8_pool_cost(EngineOptions& options, const Int8PoolCost& cost, const GPTConfig& config);

}  // namespace tang

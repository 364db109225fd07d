// engine_options.hpp: what the engine takes (its options) and what it reports:
// how a text ended, what the cost model says it should have taken, and what the
// engine has done so far (for /metrics, the lesson's tables and the tests).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "06_kvcache/step_cost.hpp"    // StepWork
#include "11_server/block_pool.hpp"    // PoolCounts
#include "11_server/step_kernels.hpp"  // MatmulKernel
#include "fast/fast.hpp"               // the tuned path's kernels
#include "ops.hpp"

namespace tang {

struct EngineOptions {
  std::size_t blocks = 512;        // the pool, in blocks
  std::size_t block_size = 16;     // positions a block holds
  std::size_t max_batch = 64;      // texts written at once, the rest wait (1: one at a time)
  std::size_t prefill_chunk = 64;  // positions of openings computed per step
  std::size_t max_texts = 256;     // texts running at once; start() refuses more
  bool reuse_prefixes = true;      // take cached blocks of a matching opening
  // The pool's numbers (block_pool.hpp): float32, or int8 a position (lesson 13:
  // 3.9 times the positions in the same bytes; each layer rebuilds them in float32).
  PoolNumbers pool_numbers = PoolNumbers::kFloat32;
  // The step's products (step_kernels.hpp): the lesson's loop, or a tuned one
  // that sums a row alike whatever the batch (poem_server --tuned).
  MatmulKernel matmul = ops::matmul_forward;
  // The tuned path instead: every product fast::panel_matmul over the weights
  // copied once into panels (step_kernels.hpp: PanelWeights).
  bool panel_product = false;
  GeluKernel gelu = ops::gelu_forward;  // the tuned path: fast::vector_gelu
  // Each request's draw: lesson 03's step, or the tuned path's (tuned_draw.hpp:
  // the same characters, two passes over the vocabulary). Read by serve_poems.
  bool tuned_draw = false;
  // The cost model (step_clock.hpp): the time a forward pass of this work
  // should take, and what a step in which this many writers draw costs besides
  // (step_overhead.hpp). Given, every text's times are predicted too (TextEnd).
  std::function<double(const StepWork&)> predict_ms;
  std::function<double(std::size_t texts)> step_overhead_ms;
};

// `o` on the tuned path (poem_server --tuned): the tuned product, each row summed
// alike whatever the batch (fast::panel_matmul), GELU's erf in vectors and the
// tuned draw.
inline EngineOptions with_tuned_path(EngineOptions o) {
  o.panel_product = true;
  o.gelu = fast::vector_gelu;
  o.tuned_draw = true;
  return o;
}

// `o`, or std::invalid_argument when they cannot run a model of `context` positions.
inline const EngineOptions& checked(const EngineOptions& o, std::size_t context) {
  if (o.blocks * o.block_size < context)
    throw std::invalid_argument("PagedEngine: the pool must hold one whole context (" +
                                std::to_string((context + o.block_size - 1) / o.block_size) +
                                " blocks)");
  if (o.max_batch == 0 || o.prefill_chunk == 0 || o.max_texts == 0)
    throw std::invalid_argument("PagedEngine: max_batch, prefill_chunk and max_texts must be > 0");
  return o;
}

// What the cost model says a text's times should have been: the predicted time
// of the steps from its start to its first draw, and to its last.
struct PredictedTimes {
  double first_seconds = 0, seconds = 0;
};

// How a text ended: done (neither below), cancelled, or failed.
struct TextEnd {
  bool cancelled = false;      // cancel(), cancel_all() or the engine's end
  std::exception_ptr failure;  // what a step of it threw (its blocks are back)
  PredictedTimes predicted;    // with predict_ms
};

// What the engine has done since it started.
struct EngineCounters {
  std::size_t steps = 0;          // loops that computed something
  std::size_t batched_steps = 0;  // of them, with a batched step
  std::size_t batched_rows = 0;   // texts in those batched steps, all together
  std::size_t largest_batch = 0;
  std::size_t most_texts_written = 0;  // texts started and not ended, at the most (<= max_batch)
  std::size_t answers = 0;             // rows of logits a writer took, all steps together
  std::size_t computed_positions = 0;  // positions the forward passes took, openings included
  std::size_t prefills = 0;            // openings computed (a preempted text counts again)
  std::size_t prefill_positions = 0;   // positions the openings asked for
  std::size_t reused_positions = 0;    // of them, taken from the pool instead of computed
  std::size_t prefix_hits = 0;         // openings that took at least one position
  std::size_t reused_blocks = 0;       // full blocks found by their hash
  std::size_t copied_blocks = 0;       // part-filled blocks copied from a running text
  std::size_t preemptions = 0;
  std::size_t most_blocks_in_use = 0;
  std::size_t texts_started = 0, texts_refused = 0;
  double compute_seconds = 0;  // in forward passes
  // The engine thread's CPU time (its own clock, CLOCK_THREAD_CPUTIME_ID): in the
  // forward passes, in the writers' draws (each character to its request's
  // queue included), and handing each step's characters to the requests' threads.
  double forward_cpu_seconds = 0, draw_cpu_seconds = 0, hand_off_cpu_seconds = 0;

  // A text starts computing its opening of `window` positions, `taken` of them
  // (`blocks` full blocks) from the pool.
  void count_prefill(std::size_t window, std::size_t taken, std::size_t blocks) {
    ++prefills;
    prefill_positions += window;
    reused_positions += taken;
    reused_blocks += blocks;
    prefix_hits += taken > 0;
  }
  // A step with a batch of `texts` texts.
  void count_batch(std::size_t texts) {
    ++batched_steps;
    batched_rows += texts;
    largest_batch = texts > largest_batch ? texts : largest_batch;
  }
};

struct EngineStats {
  EngineCounters counters;
  PoolCounts pool;
  std::size_t open_texts = 0;  // started and not ended
  // the cost model's time of every step so far, and of it the overhead's part
  double predicted_seconds = 0, predicted_overhead_seconds = 0;
  double engine_cpu_seconds = 0;  // the engine thread's CPU time so far
};

}  // namespace tang

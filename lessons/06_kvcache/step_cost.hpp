// step_cost.hpp: what one forward step should cost on this machine, predicted
// from the model's shape and the machine profile (machine_profile.hpp), before
// anything is timed.
//
// Every weight matrix W (rows x cols) is read once per step, however many
// input rows N go through it, and does 2 x rows x cols x N flops with them
// (exercise 06d counts both, exercise/step_traffic.hpp).
// Whichever takes longer sets its time (the "roofline"):
//
//   matrix time = max( bytes of W / read bandwidth ,  flops / loop rate at N )
//
// The bandwidth is the one for the step's working set: every weight of the
// model is read each step, so once they no longer fit a cache level, each
// step streams them from the next one down. The loop rate is the one measured
// on matrices of W's width. Then what every row pays, and what every text pays:
//
//   GELU, LayerNorm  a fixed cost per number of each row (erf is not cheap)
//   attention        each row's query against every key it may see, in every layer
//   the draw         one softmax and sample over the vocabulary per text
//
// The additions of the residual stream are left out (well under 1% here).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "06_kvcache/exercise/step_traffic.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "gpt.hpp"

namespace tang {

// What a step pushes through the model.
struct StepWork {
  std::size_t rows = 1;         // rows through each block's matrices (positions, or texts)
  std::size_t output_rows = 1;  // rows whose logits are computed (the output layer)
  std::size_t keys = 1;         // keys attended per layer, summed over the rows
  std::size_t draws = 1;        // characters drawn
  bool operator==(const StepWork&) const = default;
  StepWork& operator+=(const StepWork& o) {  // two texts' work in one forward pass
    rows += o.rows;
    output_rows += o.output_rows;
    keys += o.keys;
    draws += o.draws;
    return *this;
  }
};

// A step of one text without the cache: its window of k positions again.
StepWork window_step(std::size_t k);
// A cached step of one text whose cache holds `cached` positions: one new row.
StepWork cached_step(std::size_t cached);
// A cached step of B texts whose caches hold `cached` positions each: B new rows.
StepWork batch_step(std::size_t B, std::size_t cached);
// A cached forward pass of one text whose cache holds `cached` positions: `rows`
// new rows (a piece of an opening, drafts to check), logits for `logit_rows` of
// them and `draws` characters drawn. window_step(k) is extend_step(k, 0, 1, 1).
StepWork extend_step(std::size_t rows, std::size_t cached, std::size_t logit_rows,
                     std::size_t draws);

// A kind of matrix's bytes and flops (exercise 06d counts them), and their times.
struct MatrixCost : MatrixTraffic {
  double memory_ms = 0.0, compute_ms = 0.0;  // all `count` of them
  double ms() const { return memory_ms > compute_ms ? memory_ms : compute_ms; }
};

struct StepCost {
  std::vector<MatrixCost> matrices;
  double weight_bytes = 0.0;  // read per step
  double kv_bytes = 0.0;      // keys and values attention reads (its time is attention_ms)
  double gb_per_s = 0.0;      // the bandwidth for that working set
  double pointwise_ms = 0.0;  // GELU and LayerNorm
  double attention_ms = 0.0, sampling_ms = 0.0;
  double matrices_ms() const;
  double total_ms() const { return matrices_ms() + pointwise_ms + attention_ms + sampling_ms; }
};

// `loop` names the profile's loop that does the products (e.g. "fp32 plain"),
// `bytes_per_weight` its format's size (4 for fp32).
StepCost predict_step(const GPTConfig& config, const StepWork& work, const MachineProfile& profile,
                      const std::string& loop, double bytes_per_weight);

// The sum of the predicted steps.
double predict_steps_ms(const GPTConfig& config, const std::vector<StepWork>& steps,
                        const MachineProfile& profile, const std::string& loop,
                        double bytes_per_weight);

// A step with lessons 01-07's plain fp32 loop (kPlainFp32Loop), 4 bytes a weight.
StepCost predict_plain_step(const GPTConfig& config, const StepWork& work,
                            const MachineProfile& profile);

// Writing n characters after a newline, one text, with the plain fp32 loop:
// the sum of its n predicted steps, without the cache or with it (a window
// that slides past the context is rebuilt, as CachedPredictor does).
double predict_writing_ms(const GPTConfig& config, const MachineProfile& profile, std::size_t n,
                          bool use_cache);

}  // namespace tang

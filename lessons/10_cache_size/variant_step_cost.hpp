// variant_step_cost.hpp: lesson 06's cost model (step_cost.hpp) for a cached step
// of every attention variant, predicted before it is timed.
//
// What changes from multi-head attention:
//   the input projection   P = C + W rows instead of 3C (W: what the cache keeps)
//   latent attention       also kv_up (2C x d_c) per layer: in the absorbed step
//                          every row multiplies by it once (query in, output out)
//   attention              reads W floats per cached position and layer; its
//                          compute is NH x HS per key for grouped (every query head
//                          still scores every key), NH x d_c for latent
// Attention's time is its compute plus reading the cache at the bandwidth of the
// whole working set (weights and every cache). Unlike a matrix product, which
// does many multiply-adds per weight it reads and so hides the reading behind
// them (lesson 06's roofline takes the longer of the two), attention does one per
// number of the cache (NH / KVH when grouped): its loop waits for the numbers, and
// the two times add up.
#pragma once

#include <cstddef>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "config.hpp"

namespace tang {

struct VariantStepCost {
  std::vector<MatrixCost> matrices;
  double weight_bytes = 0.0;  // read once a step
  double cache_bytes = 0.0;   // the caches attention reads, all texts and layers
  double gb_per_s = 0.0;      // the bandwidth for weights and caches together
  double pointwise_ms = 0.0;
  double cache_read_ms = 0.0, attention_compute_ms = 0.0;
  double sampling_ms = 0.0;
  double matrices_ms() const;
  double attention_ms() const { return cache_read_ms + attention_compute_ms; }
  double total_ms() const { return matrices_ms() + pointwise_ms + attention_ms() + sampling_ms; }
};

// A cached step of B texts whose caches hold `cached` positions each, with the
// plain fp32 loop (lesson_10's cached forward); `draws`: whether each text draws
// its next character in the step.
VariantStepCost predict_variant_step(const GPTConfig& config, std::size_t B, std::size_t cached,
                                     const MachineProfile& profile, bool draws = true);

}  // namespace tang

// variant_writing.hpp: what a variant writes, and how fast, through its own
// small cache (small_cache.hpp).
//
// Each poem starts from a newline with its own seed and ends at the model's
// newline or after max_chars characters, as lesson 09's knockout poems do:
//   in form          lesson 03's is_regular_verse
//   log-probability  ln p(each character drawn) under the model's own
//                    distribution at T = 1, the newline included: how sure the
//                    model is of what it writes, in nats per character
//   speed            characters a second, measured, and predicted step by step
//                    with lesson 10's cost model (variant_step_cost.hpp)
#pragma once

#include <cstdint>
#include <span>

#include "06_kvcache/machine_profile.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

struct VariantWriting {
  std::size_t poems = 0, in_form = 0;
  std::size_t characters = 0;    // drawn, each poem's newline included
  double log_probability = 0.0;  // mean, nats per character
  double seconds = 0.0;          // measured, all poems
  double predicted_ms = 0.0;     // the cost model's, all steps
  double chars_per_s() const { return seconds > 0.0 ? characters / seconds : 0.0; }
  double predicted_chars_per_s() const {
    return predicted_ms > 0.0 ? 1e3 * characters / predicted_ms : 0.0;
  }
};

VariantWriting write_poems(const GPT& model, std::span<const std::uint64_t> seeds,
                           const SamplingSettings& settings, std::size_t max_chars,
                           const MachineProfile& profile);

}  // namespace tang

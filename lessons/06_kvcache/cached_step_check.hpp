// cached_step_check.hpp: exercise 06a's functions against the full computation.
//
// On a random attention layer (random q, k, v; no model needed): run the whole
// sequence through ops::attention_forward at once, then the same sequence
// through the learner's attention_with_cache (a prefill, then one position at a
// time) and compare row by row. The same for the embedding with its position
// offset against ops::encoder_forward. lesson_06_kvcache --mine prints it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tang {

struct CachedStepCheck {
  std::size_t positions = 0;     // length of the random sequence
  std::size_t prefill = 0;       // positions fed in the first step
  double attention_error = 0.0;  // largest |cached - full| over every output
  double embedding_error = 0.0;  // the same for the embedding
  bool ok() const { return attention_error <= 1e-5 && embedding_error <= 1e-5; }
};

// Calls tang::mine::attention_with_cache and tang::mine::embed_with_offset.
CachedStepCheck check_cached_step(std::uint64_t seed);

}  // namespace tang

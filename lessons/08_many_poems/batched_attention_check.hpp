// batched_attention_check.hpp: where your batched_attention (exercise 08b) first
// gave other numbers than the reference solution, and how far (the `learner`
// preset).
//
// In the learner build forward_batch() runs your batched_attention in every
// layer. Before your call, this check runs the reference solution
// (tang::reference::batched_attention) on copies of the same caches; after it,
// it compares the two outputs and the key and value rows written. At the first
// difference of the run (lesson 08 writes its poems many times over, in batches
// of every size) it prints one note on stderr: the poem, its position, the layer,
// the largest difference, and whether that is only rounding (below 1e-4: sums
// in another order) or a real difference, with the tests to run. The poems go
// on with your numbers. In the default build both calls do nothing.
#pragma once

#include <cstddef>
#include <iostream>
#include <vector>

#include "reference_check.hpp"  // runs_learner_code

namespace tang {

class BatchedAttentionCheck {
 public:
  explicit BatchedAttentionCheck(std::ostream& report = std::cerr,
                                 bool enabled = runs_learner_code());

  // Before your call, with its arguments: the reference's answer, on copies.
  void run_reference(const float* qkv, float* const* k_caches, float* const* v_caches,
                     const std::size_t* lengths, std::size_t B, std::size_t C, std::size_t NH);
  // After it: your output and caches against that answer; `layer` for the note.
  void compare(const float* out, float* const* k_caches, float* const* v_caches, std::size_t layer);

 private:
  bool& reported() { return to_terminal_ ? terminal_reported_ : reported_; }

  std::ostream& report_;
  bool enabled_;
  bool to_terminal_;                      // reporting to std::cerr
  bool reported_ = false;                 // one note: the first difference
  static inline bool terminal_reported_;  // ... and one on the terminal, for the whole run
  std::size_t B_ = 0, C_ = 0;
  std::vector<std::size_t> lengths_;       // (B)
  std::vector<std::vector<float>> k_, v_;  // (B) copies of each cache, rows 0 .. length
  std::vector<float> out_;                 // (B, C) the reference's output
};

}  // namespace tang

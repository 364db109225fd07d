// beam_step_check.hpp: where your beam_step (exercise 07b) first kept other
// extensions than the reference solution, and why (the `learner` preset).
//
// In the learner build write_verse() runs your beam_step. After every step this
// check hands the same scores, log-probabilities and masks to the reference
// solution (tang::reference::beam_step) and compares the two lists, in order.
// At the first step of a poem where they differ it prints one note on stderr:
// which extension differs, and whether yours is only rounding (your list holds
// allowed extensions, correctly scored, whose scores match the reference's
// place by place within a millionth: a float sum or a near tie) or disagrees,
// with the tests to run. The poem goes on with your choices.
#pragma once

#include <iostream>
#include <span>
#include <vector>

#include "exercise/beam_step.hpp"
#include "reference_check.hpp"  // runs_learner_code
#include "tokenizer.hpp"

namespace tang {

class BeamStepCheck {
 public:
  explicit BeamStepCheck(const Tokenizer& tokenizer, std::ostream& report = std::cerr,
                         bool enabled = runs_learner_code());

  // Step `step` (from 0) of a poem: `yours` is what your beam_step returned for
  // these inputs.
  void compare(std::size_t step, std::span<const double> scores,
               std::span<const std::vector<float>> log_probs, std::span<const LogitMask> allowed,
               std::size_t width, const std::vector<BeamChoice>& yours);

 private:
  const Tokenizer& tokenizer_;
  std::ostream& report_;
  bool enabled_;
  bool reported_ = false;  // one note per poem: the first difference
};

}  // namespace tang

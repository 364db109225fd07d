// exercise/beam_step.hpp: EXERCISE 07b, one step of beam search.
//
// Lesson 07 writes regular verse by beam search (beam_search.hpp), which calls
// this once per character: the default build compiles the reference solution
// (solution/beam_step.cpp), the `learner` preset YOUR file
// exercise/beam_step.cpp, whose comment says exactly what it must do. Check
// yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_07b
//   build/learner/lessons/07_verse/lesson_07_verse --beam 8
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logit_mask.hpp"
#include "tokenizer.hpp"

namespace tang {

// One way to extend the beams: beam `beam` followed by `token`.
struct BeamChoice {
  std::size_t beam = 0;  // index into the beams it extends
  TokenId token = 0;     // the character added
  double score = 0.0;    // the beam's score + log_probs[beam][token]
};

}  // namespace tang

namespace tang::mine {

std::vector<BeamChoice> beam_step(std::span<const double> scores,
                                  std::span<const std::vector<float>> log_probs,
                                  std::span<const LogitMask> allowed, std::size_t width);

}  // namespace tang::mine

// The same function as the reference solution has it (solution/, compiled a second
// time as tang::reference): in the learner build lesson 07 runs both at every step
// and names the first step where yours kept other beams (beam_step_check.hpp).
namespace tang::reference {
std::vector<BeamChoice> beam_step(std::span<const double> scores,
                                  std::span<const std::vector<float>> log_probs,
                                  std::span<const LogitMask> allowed, std::size_t width);
}  // namespace tang::reference

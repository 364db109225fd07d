// exercise/beam_step.hpp: EXERCISE 07b, one step of beam search.
//
// Lesson 07 writes regular verse by beam search (beam_search.hpp), which calls
// this once per character. It runs the reference solution (solution/beam_step.cpp)
// unless started with --yours 07b; then YOUR file exercise/beam_step.cpp, whose
// comment says exactly what it must do. Check yours with
//   cmake --build --preset release --target exercise_07b_test
//   ctest --preset yours -L '^yours_07b$'
//   build/release/lessons/07_verse/lesson_07_verse --yours 07b --beam 8
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "05_acrostic/logit_mask.hpp"
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

// The reference solution's (solution/beam_step.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::beam_step) beam_step;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 07b yours, checked
// against it at every call (beam_step_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::beam_step) beam_step;
}  // namespace tang

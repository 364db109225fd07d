// exercise/logit_lens.hpp: EXERCISE 09b: the logit lens, what the model would
// say if it stopped after some layer.
//
// Lesson 09 runs it on the residual stream of every layer at a chosen position,
// for its layer-by-layer table. It runs the reference solution
// (solution/logit_lens.cpp) unless started with --yours 09b; then YOUR file
// exercise/logit_lens.cpp, whose comment says exactly what it must do:
//   cmake --build --preset release --target exercise_09b_test
//   ctest --preset yours -L '^yours_09b$'
//   build/release/lessons/09_inside/lesson_09_inside --yours 09b --section 9
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "01_probabilities/next_char.hpp"  // Candidate
#include "gpt.hpp"

namespace tang::mine {

// residual (C): one position's residual stream after some layer. The k most
// likely next characters if it went straight to ln_f and the output layer.
std::vector<Candidate> logit_lens(const GPT& model, std::span<const float> residual, std::size_t k);

}  // namespace tang::mine

// The reference solution's (solution/logit_lens.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::logit_lens) logit_lens;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 09b yours, checked
// against it at every call (logit_lens_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::logit_lens) logit_lens;
}  // namespace tang

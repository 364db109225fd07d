// exercise/min_p_penalty.hpp: EXERCISE 03b, a repetition penalty and min-p.
//
// The third block of lesson 03's section 3 writes with these two functions
// (min_p_sampler.cpp). It runs the reference solution (solution/min_p_penalty.cpp)
// unless started with --yours 03b; then YOUR file exercise/min_p_penalty.cpp,
// whose comment says exactly what they must do. Check yours with
//   cmake --build --preset release --target exercise_03b_test
//   ctest --preset yours -L '^yours_03b$'
//   build/release/lessons/03_topk_topp/lesson_03_topk_topp --yours 03b
#pragma once

#include <span>

#include "tokenizer.hpp"

namespace tang::mine {

// Makes every character that occurs in `recent` less likely, in place: a
// positive logit is divided by `penalty`, one <= 0 multiplied by it.
void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty);

// Keeps every character at least min_p times as likely as the most likely
// one, zeroes the rest and renormalises, in place.
void min_p_filter(std::span<float> probabilities, float min_p);

}  // namespace tang::mine

// The reference solution's (solution/min_p_penalty.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::repetition_penalty) repetition_penalty;
decltype(mine::min_p_filter) min_p_filter;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 03b yours, checked
// against it at every call (min_p_penalty_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::repetition_penalty) repetition_penalty;
decltype(mine::min_p_filter) min_p_filter;
}  // namespace tang

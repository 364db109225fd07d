// exercise/min_p_penalty.hpp: EXERCISE 03b, a repetition penalty and min-p.
//
// The third block of lesson 03's section 3 writes with these two functions
// (min_p_sampler.cpp): the default build compiles the reference solution
// (solution/min_p_penalty.cpp), the `learner` preset YOUR file
// exercise/min_p_penalty.cpp, whose comment says exactly what they must do.
// Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_03b
//   build/learner/lessons/03_topk_topp/lesson_03_topk_topp
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

// The reference solution's two functions (solution/, compiled a second time as
// tang::reference), which the learner build compares yours with
// (common/reference_check.hpp).
namespace tang::reference {
void repetition_penalty(std::span<float> logits, std::span<const TokenId> recent, float penalty);
void min_p_filter(std::span<float> probabilities, float min_p);
}  // namespace tang::reference

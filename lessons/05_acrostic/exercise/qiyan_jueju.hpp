// exercise/qiyan_jueju.hpp: EXERCISE 05, fixed-form constrained decoding
// (the seed's exercise 2): a mask that lets the model write only 七言绝句.
//
// A 七言绝句 is four lines of seven characters. Written as our corpus writes
// poems, it is 33 characters: 7 + "，" + 7 + "。" + 7 + "，" + 7 + "。" + "\n".
//
// You write qiyan_jueju_mask() in exercise/qiyan_jueju.cpp (the comment there
// says exactly what it must do). Check it with
//   cmake --preset learner && cmake --build --preset learner --target exercise_tests
//   ctest --preset learner -L exercise_05
// and see the model write under your mask with
//   build/learner/lessons/05_acrostic/lesson_05_acrostic --mine
// The reference solution is solution/qiyan_jueju.cpp (docs/exercises.md).
#pragma once

#include <cstddef>

#include "logit_mask.hpp"
#include "tokenizer.hpp"

namespace tang::mine {

// Which characters may be written at `position` (1-based) of a 七言绝句.
LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position);

}  // namespace tang::mine

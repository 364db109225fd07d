// exercise/qiyan_jueju.hpp: EXERCISE 05, fixed-form constrained decoding
// a mask that lets the model write only 七言绝句.
//
// A 七言绝句 is four lines of seven characters. Written as our corpus writes
// poems, it is 33 characters: 7 + "，" + 7 + "。" + 7 + "，" + 7 + "。" + "\n".
//
// Lesson 05 writes its fixed-form poems under this mask: the default build
// compiles the reference solution (solution/qiyan_jueju.cpp), the `learner`
// preset YOUR file exercise/qiyan_jueju.cpp, whose comment says exactly what
// it must do. Check yours with
//   cmake --preset learner && cmake --build --preset learner
//   ctest --preset learner -L exercise_05
//   build/learner/lessons/05_acrostic/lesson_05_acrostic
#pragma once

#include <cstddef>

#include "logit_mask.hpp"
#include "tokenizer.hpp"

namespace tang::mine {

// Which characters may be written at `position` (1-based) of a 七言绝句.
LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position);

}  // namespace tang::mine

// The reference solution's mask (solution/, compiled a second time as tang::reference),
// which the learner build compares yours with (common/reference_check.hpp).
namespace tang::reference {
LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position);
}  // namespace tang::reference

// exercise/qiyan_jueju.hpp: EXERCISE 05, fixed-form constrained decoding
// a mask that lets the model write only 七言绝句.
//
// A 七言绝句 is four lines of seven characters. Written as our corpus writes
// poems, it is 33 characters: 7 + "，" + 7 + "。" + 7 + "，" + 7 + "。" + "\n".
//
// Lesson 05 writes its fixed-form poems under this mask. It runs the reference
// solution (solution/qiyan_jueju.cpp) unless started with --yours 05; then YOUR
// file exercise/qiyan_jueju.cpp, whose comment says exactly what it must do.
// Check yours with
//   cmake --build --preset release --target exercise_05_test
//   ctest --preset yours -L '^yours_05$'
//   build/release/lessons/05_acrostic/lesson_05_acrostic --yours 05
#pragma once

#include <cstddef>

#include "05_acrostic/logit_mask.hpp"
#include "tokenizer.hpp"

namespace tang::mine {

// Which characters may be written at `position` (1-based) of a 七言绝句.
LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position);

}  // namespace tang::mine

// The reference solution's (solution/qiyan_jueju.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::qiyan_jueju_mask) qiyan_jueju_mask;
}  // namespace tang::reference

// What the lessons call: the reference solution's, or with --yours 05 yours, checked
// against it at every call (qiyan_jueju_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::qiyan_jueju_mask) qiyan_jueju_mask;
}  // namespace tang

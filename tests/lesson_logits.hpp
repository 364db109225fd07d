// lesson_logits.hpp: the prompts of tests/golden/lesson_logits.bin, shared by the
// program that writes it (write_lesson_logits.cpp) and the test that reads it
// (lesson_logits_test.cpp).
//
// The file holds, for each prompt in this order, the vocab_size logits (7,129 for
// the shipped model) of the character after the prompt, as forward() computes them
// on the lesson path (common/gpt.hpp, kPlainKernels): raw little-endian float32,
// nothing else, 3 x 7,129 x 4 = 85,548 bytes.
#pragma once

namespace tang::testing {

inline constexpr const char* kLessonLogitsPrompts[] = {
    "\n",                      // the first character of a poem
    "\n白日依山尽，黄河入海",  // lesson 01's prompts, from the start of a poem
    "\n床前明月光，疑是地上",
};

}  // namespace tang::testing

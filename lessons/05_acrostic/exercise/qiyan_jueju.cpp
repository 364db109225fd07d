// EXERCISE 05: a mask that only ever lets the model write a 七言绝句.
//
// LogitMask qiyan_jueju_mask(tokenizer, position)
//
//   position  the 1-based position, inside the poem, of the character about to
//             be written: 1 for the first character after the newline that
//             starts the poem, 2 for the next, ... 33 for the last
//
// Return a LogitMask (lessons/05_acrostic/logit_mask.hpp) over V =
// tokenizer.size() characters (ids 0 .. V-1) that allows, exactly:
//   positions 8 and 24        only "，"   (the end of lines 1 and 3)
//   positions 16 and 32       only "。"   (the end of lines 2 and 4)
//   position 33               only "\n"   (the poem ends)
//   every other position      every character EXCEPT "，", "。" and "\n"
//                             (1-7, 9-15, 17-23, 25-31: inside a line)
// and throws:
//   std::invalid_argument     when position is 0 or greater than 33
//   tang::UserError           (errors.hpp) when the tokenizer lacks "，", "。"
//                             or "\n" (name the missing character)
//
// The generation loop (fixed_form.hpp, write_under_masks) asks for the mask
// before every character and applies it before temperature, top-k and top-p,
// so whatever the sampling settings, the poem comes out in form.
// Hints: LogitMask::allow_only and LogitMask::ban; inside_line_mask()
// (logit_mask.hpp, written in logit_mask.cpp) already bans the three characters.
// Tests: ctest --preset yours -L '^yours_05$' (tests/exercises/exercise_05_test.cpp).

#include "05_acrostic/exercise/qiyan_jueju.hpp"

#include <stdexcept>
#include <string>

#include "05_acrostic/logit_mask.hpp"
#include "errors.hpp"
#include "tokenizer.hpp"

namespace tang::mine {

LogitMask qiyan_jueju_mask(const Tokenizer& tokenizer, std::size_t position) {
  (void)tokenizer, (void)position;
  throw NotImplemented(
      "not implemented yet: see exercise 05 (lessons/05_acrostic/exercise/qiyan_jueju.cpp)");
}

}  // namespace tang::mine

// exercise/accept_drafts.hpp: EXERCISE 12, the rule that keeps speculative decoding's text the
// model's.
//
// A drafter proposed k characters d_0 .. d_k-1, drawing d_i from its own
// distribution q_i; one cached forward of the model over them gave p_0 .. p_k,
// the sampler's distributions (sampling_distribution.hpp) after the context and
// after each drafted character. Then, in order:
//
//   d_i is kept with probability min(1, p_i(d_i) / q_i(d_i))   (coin i);
//   at the first one rejected, the next character is drawn from
//     max(0, p_i - q_i), renormalised                          (the last coin);
//   when all k are kept, one more is drawn from p_k: a bonus   (the last coin).
//
// Whatever q is, each character then comes out with probability p: a character
// x is kept with probability q(x) min(1, p(x)/q(x)) = min(q(x), p(x)), and the
// rejections, which happen with probability 1 - sum min(p, q) = sum max(0, p - q),
// give it the rest, max(0, p(x) - q(x)). So the text follows the model's
// distribution exactly, and the drafter only decides how fast (tests/exercises/
// exercise_12_test.cpp checks it with a chi-square test). At temperature 0 both
// are certain: a draft is kept when it is the model's argmax, and the next
// character is that argmax.
//
// Lesson 12's writer (speculative_writer.cpp) calls this after every
// verification. It runs the reference solution (solution/accept_drafts.cpp)
// unless started with --yours 12; then YOUR exercise/accept_drafts.cpp. Check
// yours with
//   ctest --preset yours -L '^yours_12$'
#pragma once

#include <cstddef>
#include <span>

#include "tokenizer.hpp"

namespace tang {

struct Verification {
  std::size_t accepted = 0;  // drafted characters kept, the first ones
  TokenId next = 0;          // drawn after them: from max(0, p - q), or the bonus from p_k
};

}  // namespace tang

namespace tang::mine {

// p (k+1, V), q (k, V): each row a distribution; drafted (k); coins (k+1), each
// uniform in [0, 1): one for each drafted character, the last for the character drawn
// after them.
Verification accept_drafts(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V);

}  // namespace tang::mine

// The reference solution's (solution/accept_drafts.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::accept_drafts) accept_drafts;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 12 yours,
// checked against it at every call (accept_drafts_switch.cpp). Throws
// std::invalid_argument when the sizes do not match.
namespace tang {
decltype(mine::accept_drafts) accept_drafts;
}  // namespace tang

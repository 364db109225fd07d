// exercise/accept_drafts.hpp: EXERCISE 12, the step that keeps speculative decoding's text the
// model's.
//
// A drafter proposed k characters d_0 .. d_k-1, drawing d_i from its own
// distribution q_i; one cached forward of the model over them gave p_0 .. p_k,
// the sampler's distributions (sampling_distribution.hpp) after the context and
// after each drafted character. accept_drafts decides how many of the drafts to
// keep (the first ones) and draws the one character that follows them.
//
// What it must guarantee (the exercise's stub says more):
//   - the text is the model's: whatever q is, each character written (a kept
//     draft or the one drawn after them) comes out with the probability p gives
//     it after what was written before it;
//   - and, with that, as many drafts kept as possible: a drafter that agrees with
//     the model keeps them all.
//
// Lesson 12's writer (speculative_writer.cpp) calls it after every
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
  TokenId next = 0;          // the character written after them (after a rejection, or after all k)
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

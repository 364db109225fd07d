// EXERCISE 07b: one step of beam search: expand, mask, keep the best `width`.
//
// std::vector<BeamChoice> beam_step(scores, log_probs, allowed, width)
//
//   scores     (B) each beam's score so far: the sum of ln p of its characters
//   log_probs  (B, V) for each beam, ln p of every next character under the
//              model (log-softmax of its logits at T = 1)
//   allowed    (B) for each beam, the LogitMask (lesson 05, logit_mask.hpp) of
//              the V characters it may add: the constraint, narrowed to the
//              candidates drawn
//   width      how many extensions to keep (the beam width)
//
// Every pair (beam b, token t) with allowed[b].allows(t) is an extension,
// scored scores[b] + log_probs[b][t]. Return the `width` best, best first; all
// of them when there are fewer. Break ties by the lower beam index, then the
// lower token id, so that the search is reproducible. An extension whose score
// is -infinity (the model gives the character probability 0) is never kept.
// Throw std::invalid_argument when scores, log_probs and allowed do not all
// have B entries, when a row of log_probs is not allowed[b]'s vocabulary size,
// or when width is 0.
//
// Hints: collect the extensions in a vector, then std::partial_sort with a
// comparison that compares the score, then the beam, then the token. With B
// beams of V characters that is B x V extensions: at most 8 x 7,129 here.
// Tests: ctest --preset yours -L '^yours_07b$' (tests/exercises/exercise_07b_test.cpp).

#include "07_verse/exercise/beam_step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "05_acrostic/logit_mask.hpp"
#include "errors.hpp"

namespace tang::mine {

std::vector<BeamChoice> beam_step(std::span<const double> scores,
                                  std::span<const std::vector<float>> log_probs,
                                  std::span<const LogitMask> allowed, std::size_t width) {
  (void)scores, (void)log_probs, (void)allowed, (void)width;
  throw NotImplemented(
      "not implemented yet: see exercise 07b (lessons/07_verse/exercise/beam_step.cpp)");
}

}  // namespace tang::mine

// EXERCISE 09b: the logit lens.
//
// Every block adds its output to the residual stream, a vector of C numbers
// per position, and only at the end does the model turn that vector into
// scores: the final LayerNorm ln_f, then the output layer (the token embedding
// wte, tied). Applied to the stream after an earlier block, the same two steps
// show what the model would predict if it stopped there.
//
//   logit_lens(model, residual, k)
//     residual (C): one position's stream, C = model.config().n_embd.
//     1. x (C) = ln_f(residual): LayerNorm with model.weights().lnf_w and
//        lnf_b, (C) each (mean and variance over the C numbers, eps 1e-5)
//     2. logits (V) = wte (V, C) @ x, wte = model.weights().wte (row stride C),
//        V = model.config().vocab_size, no bias
//     3. probabilities = softmax(logits)
//     4. return the k most likely characters, most likely first, ties by the
//        smaller id; k larger than V returns all V.
//     Throw std::invalid_argument when residual does not have C numbers.
//
// Hints: common/ops.hpp has layernorm_forward and matmul_forward (N = 1 row),
// common/sampling.hpp softmax_in_place, lesson 01's next_char.hpp most_likely.
// With them your answer is the reference's bit for bit: applied to the stream
// after the last block it is exactly the model's own next-character
// distribution, which the tests check.
// Tests: ctest --preset yours -L '^yours_09b$' (tests/exercises/exercise_09b_test.cpp).

#include "09_inside/exercise/logit_lens.hpp"

#include <stdexcept>
#include <vector>

#include "01_probabilities/next_char.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "ops.hpp"
#include "sampling.hpp"

namespace tang::mine {

std::vector<Candidate> logit_lens(const GPT& model, std::span<const float> residual,
                                  std::size_t k) {
  (void)model, (void)residual, (void)k;
  throw NotImplemented(
      "not implemented yet: see exercise 09b (lessons/09_inside/exercise/logit_lens.cpp)");
}

}  // namespace tang::mine

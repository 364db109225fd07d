// SOLUTION to exercise 09b (the learner's file is exercise/logit_lens.cpp,
// whose comment specifies the behaviour).
//
//   probabilities = softmax(wte @ ln_f(residual))   the model's own last two steps

#include "09_inside/exercise/logit_lens.hpp"

#include <stdexcept>

#include "ops.hpp"
#include "sampling.hpp"

namespace tang::reference {

std::vector<Candidate> logit_lens(const GPT& model, std::span<const float> residual,
                                  std::size_t k) {
  const GPTConfig& cfg = model.config();
  const std::size_t C = cfg.n_embd, V = cfg.vocab_size;
  if (residual.size() != C)
    throw std::invalid_argument("logit_lens: the residual must have n_embd numbers");
  std::vector<float> x(C);  // (C) ln_f(residual)
  float mean = 0.0f, rstd = 0.0f;
  ops::layernorm_forward(x.data(), &mean, &rstd, residual.data(), model.weights().lnf_w,
                         model.weights().lnf_b, 1, C);
  std::vector<float> probabilities(V);  // (V) logits, then their softmax
  ops::matmul_forward(probabilities.data(), x.data(), model.weights().wte, nullptr, 1, C, V);
  softmax_in_place(probabilities);
  return most_likely(probabilities, k);
}

}  // namespace tang::reference

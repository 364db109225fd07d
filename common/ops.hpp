// ops.hpp: the operations of a GPT, each a forward/backward pair.
//
// In the manner of llm.c: every function takes raw row-major float buffers
// (usually the .data() of an xtensor container), outputs first, then the
// activations the backward pass needs, then inputs, parameters and sizes.
// N is the number of rows (positions), B x T when a batch is flattened.
// Backward functions ACCUMULATE into their gradient outputs (+=), so the
// trainer zeroes gradients explicitly before each step.
#pragma once

#include <cstddef>

#include "tokenizer.hpp"

namespace tang::ops {

// --- embedding: token vector + position vector ------------------------------
// out (B*T, C) = wte[tokens[b,t]] + wpe[position_start + t]
void encoder_forward(float* out, const TokenId* tokens, const float* wte, const float* wpe,
                     std::size_t B, std::size_t T, std::size_t C, std::size_t position_start = 0);
void encoder_backward(float* dwte, float* dwpe, const float* dout, const TokenId* tokens,
                      std::size_t B, std::size_t T, std::size_t C);

// --- LayerNorm over the last dimension (eps 1e-5) ---------------------------
// out (N, C); mean, rstd (N) are saved for backward and may be null when not needed.
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::size_t N, std::size_t C);
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean, const float* rstd,
                        std::size_t N, std::size_t C);

// --- linear layer through BLAS ----------------------------------------------
// out (N, OC) = inp (N, IC) @ weight (OC, IC)^T + bias (OC); bias may be null.
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC);
void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::size_t N, std::size_t IC, std::size_t OC);

// --- GELU, the exact form x * Phi(x) (torch.nn.GELU's default) ---------------
void gelu_forward(float* out, const float* inp, std::size_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, std::size_t n);

// --- residual connection ----------------------------------------------------
void residual_forward(float* out, const float* a, const float* b, std::size_t n);
void residual_backward(float* da, float* db, const float* dout, std::size_t n);

// --- causal self-attention over a whole batch (training) --------------------
// qkv (B, T, 3C) holds q | k | v per position; att (B, NH, T, T) saves the
// softmax probabilities; out (B, T, C) is the heads' outputs side by side.
void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH);
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att,
                        std::size_t B, std::size_t T, std::size_t C, std::size_t NH);

// --- softmax + cross-entropy -------------------------------------------------
// probs (N, V) = softmax(logits); losses (N) = -log probs[target]. Returns the mean loss.
// probs may alias logits (computed in place).
float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V);
// dlogits (N, V) = (probs - onehot(target)) / N, the gradient of the mean loss;
// dlogits may alias probs. Overwrites rather than accumulates.
void crossentropy_backward(float* dlogits, const float* probs, const TokenId* targets,
                           std::size_t N, std::size_t V);

}  // namespace tang::ops

// ops.hpp: the operations of a GPT, each a forward/backward pair, in plain loops.
//
// In the manner of llm.c: every function takes raw row-major float buffers
// (usually the .data() of an xtensor container), outputs first, then the
// activations the backward pass needs, then inputs, parameters and sizes.
// N is the number of rows (positions), B x T when a batch is flattened.
//
// The forward halves (ops.cpp) are what every lesson runs. They are written so
// that each sum adds its terms in an order fixed by the code, never by the
// CPU: the same text comes out on every x86-64 machine (see dot() below).
// The loss, both halves, is ops_loss.cpp. The backward halves (ops_backward.cpp)
// are the trainer's; they ACCUMULATE
// into their gradient outputs (+=), so the trainer zeroes gradients first.
// Faster versions of the heavy ones live under the hood, in common/fast/.
#pragma once

#include <cstddef>

#include "tokenizer.hpp"

namespace tang::ops {

// --- dot product with a fixed order of additions ----------------------------
// Lane k (k = 0..7) adds the terms i = k, k+8, k+16, ... in that order; the 8
// lanes are then added pairwise. A compiler may run the lanes in one vector
// register or one at a time: the additions, and so the bits, are the same.
float dot(const float* a, const float* b, std::size_t n);

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

// --- linear layer -----------------------------------------------------------
// out (N, OC) = inp (N, IC) @ weight (OC, IC)^T + bias (OC); bias may be null.
// (The trainer's BLAS version and its backward: common/fast/matmul.hpp.)
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC);

// --- attention: one query against n keys ------------------------------------
// For each head h (columns h*HS .. h*HS+HS-1 of q, keys, values, out):
//   w_j = softmax_j(q . k_j / sqrt(HS)) for j < n,  out = sum_j w_j v_j
// Key and value j are at keys + j*stride and values + j*stride. weights
// (NH, n) receives the softmax of each head. This is the one attention every
// lesson runs: causal attention below calls it with n = t + 1 for position t,
// and the cached steps of lessons 06, 08 and 10 with n = all cached positions.
void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH);

// The same attention, the same sums in the same order, over keys and values
// scattered in a larger table: key j is row rows[j] of keys (C floats a row),
// value j row rows[j] of values. Lesson 11's paged cache reads its blocks so.
void attend_rows(float* out, float* weights, const float* q, const float* keys, const float* values,
                 const std::size_t* rows, std::size_t n, std::size_t C, std::size_t NH);

// --- causal self-attention over a window -------------------------------------
// qkv (B, T, 3C) holds q | k | v per position; out (B, T, C) the heads side by
// side; att (B, NH, T, T) receives the attention weights (row t: 0 after t),
// unless it is null.
// (The trainer's BLAS version and its backward: common/fast/attention.hpp.)
void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH);

// --- GELU, the exact form x * Phi(x) (torch.nn.GELU's default) ---------------
// out and inp are separate arrays (out is written before inp is read again).
void gelu_forward(float* out, const float* inp, std::size_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, std::size_t n);

// --- residual connection ----------------------------------------------------
void residual_forward(float* out, const float* a, const float* b, std::size_t n);
void residual_backward(float* da, float* db, const float* dout, std::size_t n);

// --- softmax + cross-entropy -------------------------------------------------
// probs (N, V) = softmax(logits); losses (N) = -log probs[target]. Returns the
// mean loss. probs may alias logits (computed in place).
float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V);
// dlogits (N, V) = (probs - onehot(target)) / N, the gradient of the mean loss;
// dlogits may alias probs. Overwrites rather than accumulates.
void crossentropy_backward(float* dlogits, const float* probs, const TokenId* targets,
                           std::size_t N, std::size_t V);

}  // namespace tang::ops

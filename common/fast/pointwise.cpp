// pointwise.cpp (under the hood): LayerNorm over threads, GELU and the loss with
// vectorised exp/erf (vector_math.hpp), and the Kernels made of the tuned operations.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "fast/fast.hpp"
#include "fast/threads.hpp"
#include "fast/vector_math.hpp"
#include "ops.hpp"

namespace tang::fast {

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::size_t N, std::size_t C) {
  // the plain LayerNorm, each thread on its own share of the rows (few rows: no threads)
  if (N < kRowsWorthSplitting)
    return ops::layernorm_forward(out, mean, rstd, inp, weight, bias, N, C);
#pragma omp parallel
  {
    const RowShare rows = my_share_of(N);
    ops::layernorm_forward(out + rows.begin * C, mean ? mean + rows.begin : nullptr,
                           rstd ? rstd + rows.begin : nullptr, inp + rows.begin * C, weight, bias,
                           rows.size(), C);
  }
}

// GELU works element by element; big tensors (training) are split into
// chunks over the threads, and each chunk is one `omp simd` loop, so that erf
// and exp run 8 or 16 at a time (vector_math.hpp).
namespace {

constexpr std::size_t kGeluChunk = 4096;

void gelu_forward_chunk(float* out, const float* inp, std::size_t n) {
  const float inv_sqrt2 = 0.70710678118654752f;
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i)
    out[i] = 0.5f * inp[i] * (1.0f + std::erf(inp[i] * inv_sqrt2));
}

void gelu_backward_chunk(float* dinp, const float* inp, const float* dout, std::size_t n) {
  const float inv_sqrt2 = 0.70710678118654752f;
  const float inv_sqrt_2pi = 0.39894228040143268f;
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const float x = inp[i];
    // d/dx [x * Phi(x)] = Phi(x) + x * phi(x)
    const float cdf = 0.5f * (1.0f + std::erf(x * inv_sqrt2));
    const float pdf = inv_sqrt_2pi * std::exp(-0.5f * x * x);
    dinp[i] += (cdf + x * pdf) * dout[i];
  }
}

}  // namespace

void gelu_forward(float* out, const float* inp, std::size_t n) {
  if (n <= kGeluChunk) return gelu_forward_chunk(out, inp, n);  // a decoding step: no threads
#pragma omp parallel for
  for (std::size_t begin = 0; begin < n; begin += kGeluChunk) {
    gelu_forward_chunk(out + begin, inp + begin, std::min(kGeluChunk, n - begin));
  }
}

void gelu_backward(float* dinp, const float* inp, const float* dout, std::size_t n) {
#pragma omp parallel for
  for (std::size_t begin = 0; begin < n; begin += kGeluChunk) {
    gelu_backward_chunk(dinp + begin, inp + begin, dout + begin, std::min(kGeluChunk, n - begin));
  }
}

float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V) {
  double total = 0.0;
#pragma omp parallel for reduction(+ : total) if (N > 1)
  for (std::size_t n = 0; n < N; ++n) {
    const float* z = logits + n * V;
    float* p = probs + n * V;
    const float max = max_of(z, V);
    const float target_logit = z[static_cast<std::size_t>(targets[n])];  // before p overwrites z
    const float sum = exp_minus_max_and_sum(p, z, V, max);
    const float inv = 1.0f / sum;
    for (std::size_t i = 0; i < V; ++i) p[i] *= inv;
    // -log p[target] = log(sum) - (z[target] - max), without taking the log of a tiny p
    losses[n] = std::log(sum) - (target_logit - max);
    total += losses[n];
  }
  return static_cast<float>(total / static_cast<double>(N));
}

void crossentropy_backward(float* dlogits, const float* probs, const TokenId* targets,
                           std::size_t N, std::size_t V) {
  const float inv_n = 1.0f / static_cast<float>(N);
#pragma omp parallel for if (N > 1)
  for (std::size_t n = 0; n < N; ++n) {
    const float* p = probs + n * V;
    float* d = dlogits + n * V;
    for (std::size_t i = 0; i < V; ++i) d[i] = p[i] * inv_n;
    d[static_cast<std::size_t>(targets[n])] -= inv_n;
  }
}

const Kernels& kernels() {
  static const Kernels tuned{matmul_forward, attention_forward, layernorm_forward, gelu_forward};
  return tuned;
}

}  // namespace tang::fast

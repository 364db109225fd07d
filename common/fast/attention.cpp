// attention.cpp (under the hood): batched causal attention as BLAS matrix products,
// for training, with its backward pass.
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

void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH) {
  // a short window: the plain loop (threads and BLAS cost more than they save)
  if (T < kAttentionThreadsFrom) return ops::attention_forward(out, att, qkv, B, T, C, NH);
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int t = static_cast<int>(T), hs = static_cast<int>(HS), c = static_cast<int>(C);
  SingleThreadedBlas one_thread;
#pragma omp parallel
  {
    // without `att` (inference keeps no attention weights) each thread scores in its own buffer
    std::vector<float> own(att == nullptr ? T * T : 0);
#pragma omp for schedule(static)
    for (std::size_t bh = 0; bh < B * NH; ++bh) {
      const std::size_t b = bh / NH, h = bh % NH;
      const float* q = qkv + b * T * 3 * C + h * HS;  // (T, HS), row stride 3C
      const float* k = q + C;
      const float* v = q + 2 * C;
      float* scores = att != nullptr ? att + bh * T * T : own.data();  // (T, T)
      // scores = q @ k^T / sqrt(HS)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, hs, scale, q, 3 * c, k, 3 * c,
                  0.0f, scores, t);
      // causal softmax: row i sees columns 0..i; the rest get probability 0
      for (std::size_t i = 0; i < T; ++i) {
        float* row = scores + i * T;
        const float max = max_of(row, i + 1);
        const float sum = exp_minus_max_and_sum(row, row, i + 1, max);
        for (std::size_t j = 0; j <= i; ++j) row[j] /= sum;
        std::fill(row + i + 1, row + T, 0.0f);
      }
      // out_h (T, HS) = att (T, T) @ v (T, HS)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, hs, t, 1.0f, scores, t, v, 3 * c,
                  0.0f, out + b * T * C + h * HS, c);
    }
  }
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att,
                        std::size_t B, std::size_t T, std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int t = static_cast<int>(T), hs = static_cast<int>(HS), c = static_cast<int>(C);
  SingleThreadedBlas one_thread;
#pragma omp parallel
  {
    std::vector<float> dscores(T * T);  // (T, T) scratch, one per thread
#pragma omp for schedule(static)
    for (std::size_t bh = 0; bh < B * NH; ++bh) {
      const std::size_t b = bh / NH, h = bh % NH;
      const std::size_t first = b * T * 3 * C + h * HS;
      const float* q = qkv + first;
      const float* k = q + C;
      const float* v = q + 2 * C;
      float* dq = dqkv + first;
      float* dk = dq + C;
      float* dv = dq + 2 * C;
      const float* a = att + bh * T * T;
      const float* d = dout + b * T * C + h * HS;  // (T, HS), row stride C
      float* ds = dscores.data();
      // datt = dout_h @ v^T ; dv += att^T @ dout_h
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, hs, 1.0f, d, c, v, 3 * c, 0.0f, ds,
                  t);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, t, hs, t, 1.0f, a, t, d, c, 1.0f, dv,
                  3 * c);
      // softmax backward, row by row: dscore_j = a_j * (datt_j - sum_i a_i datt_i), times the scale
      for (std::size_t i = 0; i < T; ++i) {
        const float* arow = a + i * T;
        float* row = ds + i * T;
        float dot = 0.0f;
        for (std::size_t j = 0; j <= i; ++j) dot += arow[j] * row[j];
        for (std::size_t j = 0; j <= i; ++j) row[j] = arow[j] * (row[j] - dot) * scale;
        std::fill(row + i + 1, row + T, 0.0f);
      }
      // dq += dscores @ k ; dk += dscores^T @ q
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, hs, t, 1.0f, ds, t, k, 3 * c, 1.0f,
                  dq, 3 * c);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, t, hs, t, 1.0f, ds, t, q, 3 * c, 1.0f,
                  dk, 3 * c);
    }
  }
}

}  // namespace tang::fast

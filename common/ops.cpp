#include "ops.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "vector_math.hpp"

namespace tang::ops {

namespace {

// One pool of threads for everything: OpenMP's. Inside a parallel region each
// thread calls single-threaded BLAS on its own share of the work; OpenBLAS's
// own threads would only compete with OpenMP's for the same cores (on 2 cores,
// 4 threads spinning and yielding cost a quarter of a training step).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() : previous_(openblas_get_num_threads()) { openblas_set_num_threads(1); }
  ~SingleThreadedBlas() { openblas_set_num_threads(previous_); }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int previous_;
};

// The calling thread's share [begin, end) of `rows` rows, in a parallel region.
struct RowShare {
  std::size_t begin, end;
  std::size_t size() const { return end - begin; }
};

RowShare my_share_of(std::size_t rows) {
  const auto threads = static_cast<std::size_t>(omp_get_num_threads());
  const auto me = static_cast<std::size_t>(omp_get_thread_num());
  return {rows * me / threads, rows * (me + 1) / threads};
}

// Below this many rows a matrix product runs on one thread.
constexpr std::size_t kRowsWorthSplitting = 64;

}  // namespace

void encoder_forward(float* out, const TokenId* tokens, const float* wte, const float* wpe,
                     std::size_t B, std::size_t T, std::size_t C, std::size_t position_start) {
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t t = 0; t < T; ++t) {
      float* o = out + (b * T + t) * C;
      const float* token_vector = wte + static_cast<std::size_t>(tokens[b * T + t]) * C;
      const float* position_vector = wpe + (position_start + t) * C;
      for (std::size_t i = 0; i < C; ++i) o[i] = token_vector[i] + position_vector[i];
    }
  }
}

void encoder_backward(float* dwte, float* dwpe, const float* dout, const TokenId* tokens,
                      std::size_t B, std::size_t T, std::size_t C) {
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t t = 0; t < T; ++t) {
      const float* d = dout + (b * T + t) * C;
      float* dtoken = dwte + static_cast<std::size_t>(tokens[b * T + t]) * C;
      float* dposition = dwpe + t * C;
      for (std::size_t i = 0; i < C; ++i) {
        dtoken[i] += d[i];
        dposition[i] += d[i];
      }
    }
  }
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::size_t N, std::size_t C) {
  constexpr float eps = 1e-5f;
#pragma omp parallel for if (N > 64)
  for (std::size_t n = 0; n < N; ++n) {
    const float* x = inp + n * C;
    float m = 0.0f;
    for (std::size_t i = 0; i < C; ++i) m += x[i];
    m /= static_cast<float>(C);
    float variance = 0.0f;
    for (std::size_t i = 0; i < C; ++i) variance += (x[i] - m) * (x[i] - m);
    variance /= static_cast<float>(C);
    const float s = 1.0f / std::sqrt(variance + eps);
    float* o = out + n * C;
    for (std::size_t i = 0; i < C; ++i) o[i] = (x[i] - m) * s * weight[i] + bias[i];
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean, const float* rstd,
                        std::size_t N, std::size_t C) {
  for (std::size_t n = 0; n < N; ++n) {
    const float* d = dout + n * C;
    const float* x = inp + n * C;
    // With xhat = (x - mean) * rstd and y = xhat * w + b:
    // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = dy * w.
    float dxhat_mean = 0.0f, dxhat_xhat_mean = 0.0f;
    for (std::size_t i = 0; i < C; ++i) {
      const float xhat = (x[i] - mean[n]) * rstd[n];
      const float dxhat = d[i] * weight[i];
      dxhat_mean += dxhat;
      dxhat_xhat_mean += dxhat * xhat;
    }
    dxhat_mean /= static_cast<float>(C);
    dxhat_xhat_mean /= static_cast<float>(C);
    float* dx = dinp + n * C;
    for (std::size_t i = 0; i < C; ++i) {
      const float xhat = (x[i] - mean[n]) * rstd[n];
      const float dxhat = d[i] * weight[i];
      dbias[i] += d[i];
      dweight[i] += xhat * d[i];
      dx[i] += (dxhat - dxhat_mean - xhat * dxhat_xhat_mean) * rstd[n];
    }
  }
}

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC) {
  float beta = 0.0f;
  if (bias) {
    for (std::size_t n = 0; n < N; ++n) std::memcpy(out + n * OC, bias, OC * sizeof(float));
    beta = 1.0f;
  }
  const auto ic = static_cast<int>(IC), oc = static_cast<int>(OC);
  if (N == 1) {  // one position (a decoding step): matrix-vector product
    cblas_sgemv(CblasRowMajor, CblasNoTrans, oc, ic, 1.0f, weight, ic, inp, 1, beta, out, 1);
    return;
  }
  // out (N, OC) = inp (N, IC) @ weight^T, each thread its own rows of inp and out
  SingleThreadedBlas one_thread;
#pragma omp parallel if (N >= kRowsWorthSplitting)
  {
    const RowShare rows = my_share_of(N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows.size()), oc, ic,
                1.0f, inp + rows.begin * IC, ic, weight, ic, beta, out + rows.begin * OC, oc);
  }
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::size_t N, std::size_t IC, std::size_t OC) {
  const auto n = static_cast<int>(N), ic = static_cast<int>(IC), oc = static_cast<int>(OC);
  SingleThreadedBlas one_thread;
#pragma omp parallel if (N >= kRowsWorthSplitting)
  {
    // dinp (N, IC) += dout (N, OC) @ weight (OC, IC): each thread its own rows of dinp
    const RowShare rows = my_share_of(N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows.size()), ic, oc,
                1.0f, dout + rows.begin * OC, oc, weight, ic, 1.0f, dinp + rows.begin * IC, ic);
    // dweight (OC, IC) += dout^T (OC, N) @ inp (N, IC): each thread its own rows of dweight
    const RowShare outs = my_share_of(OC);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(outs.size()), ic, n, 1.0f,
                dout + outs.begin, oc, inp, ic, 1.0f, dweight + outs.begin * IC, ic);
  }
  if (dbias) {
    for (std::size_t r = 0; r < N; ++r) {
      for (std::size_t o = 0; o < OC; ++o) dbias[o] += dout[r * OC + o];
    }
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

void residual_forward(float* out, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

void residual_backward(float* da, float* db, const float* dout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH) {
  const std::size_t HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int t = static_cast<int>(T), hs = static_cast<int>(HS), c = static_cast<int>(C);
  SingleThreadedBlas one_thread;
#pragma omp parallel for schedule(static)
  for (std::size_t bh = 0; bh < B * NH; ++bh) {
    const std::size_t b = bh / NH, h = bh % NH;
    const float* q = qkv + b * T * 3 * C + h * HS;  // (T, HS), row stride 3C
    const float* k = q + C;
    const float* v = q + 2 * C;
    float* scores = att + bh * T * T;  // (T, T)
    // scores = q @ k^T / sqrt(HS)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, hs, scale, q, 3 * c, k, 3 * c, 0.0f,
                scores, t);
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

}  // namespace tang::ops

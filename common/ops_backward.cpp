// The backward halves of ops.hpp, for the trainer (lessons/00_train), in plain
// loops. Each accumulates (+=) into its gradient outputs.
#include <cmath>

#include "ops.hpp"

namespace tang::ops {

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

void gelu_backward(float* dinp, const float* inp, const float* dout, std::size_t n) {
  const float inv_sqrt2 = 0.70710678118654752f;
  const float inv_sqrt_2pi = 0.39894228040143268f;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = inp[i];
    // d/dx [x * Phi(x)] = Phi(x) + x * phi(x)
    const float cdf = 0.5f * (1.0f + std::erf(x * inv_sqrt2));
    const float pdf = inv_sqrt_2pi * std::exp(-0.5f * x * x);
    dinp[i] += (cdf + x * pdf) * dout[i];
  }
}

void residual_backward(float* da, float* db, const float* dout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

}  // namespace tang::ops

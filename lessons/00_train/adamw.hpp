// adamw.hpp: the AdamW optimizer, one loop over the flat parameter buffer.
//
// m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
// p -= lr * ( m_hat / (sqrt(v_hat) + eps) + wd * p )   (wd only on matrices)
// with m_hat, v_hat the bias-corrected moments at step t (counting from 1).
#pragma once

#include <vector>

#include "config.hpp"
#include "tensor.hpp"

namespace tang {

struct AdamWSettings {
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;
};

class AdamW {
 public:
  AdamW(const GPTConfig& config, AdamWSettings settings);

  // One update with learning rate lr; `step` counts from 1.
  void update(Tensor<1>& params, const Tensor<1>& grads, float lr, long step);

  Tensor<1> m;  // (P) first moment
  Tensor<1> v;  // (P) second moment

 private:
  AdamWSettings settings_;
  std::vector<float> decay_;  // (P) 1 for matrix weights, 0 for biases and LayerNorm
};

// Scales grads so their global L2 norm is at most max_norm; returns the norm before.
float clip_grad_norm(Tensor<1>& grads, float max_norm);

// Throws UserError when the loss or the gradient norm of `step` is NaN or
// infinite (training diverged): called before the update, so that the weights
// and the last saved state stay finite and --resume can go on from there.
void require_finite_step(float loss, float grad_norm, long step);

// Linear warm-up to max_lr over warmup steps, then cosine down to min_lr at total steps.
float cosine_lr(long step, long warmup, long total, float max_lr, float min_lr);

}  // namespace tang

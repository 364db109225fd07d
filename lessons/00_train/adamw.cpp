#include "00_train/adamw.hpp"

#include <cmath>

#include "errors.hpp"
#include "parameters.hpp"

namespace tang {

AdamW::AdamW(const GPTConfig& config, AdamWSettings settings)
    : m(Tensor<1>::from_shape({parameter_count(config)})),
      v(Tensor<1>::from_shape({parameter_count(config)})),
      settings_(settings),
      decay_(parameter_count(config), 0.0f) {
  m.fill(0.0f);
  v.fill(0.0f);
  for (const ParameterSpec& spec : parameter_layout(config)) {
    if (spec.decays())
      std::fill_n(decay_.begin() + static_cast<long>(spec.offset), spec.size, 1.0f);
  }
}

void AdamW::update(Tensor<1>& params, const Tensor<1>& grads, float lr, long step) {
  // plain locals, not a structured binding: OpenMP regions cannot capture those (clang 14)
  const float b1 = settings_.beta1, b2 = settings_.beta2, eps = settings_.eps,
              wd = settings_.weight_decay;
  const float correction1 = 1.0f - std::pow(b1, static_cast<float>(step));
  const float correction2 = 1.0f - std::pow(b2, static_cast<float>(step));
  float* p = params.data();
  const float* g = grads.data();
  float* mp = m.data();
  float* vp = v.data();
  const std::size_t n = params.size();
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) {
    mp[i] = b1 * mp[i] + (1.0f - b1) * g[i];
    vp[i] = b2 * vp[i] + (1.0f - b2) * g[i] * g[i];
    const float m_hat = mp[i] / correction1;
    const float v_hat = vp[i] / correction2;
    p[i] -= lr * (m_hat / (std::sqrt(v_hat) + eps) + wd * decay_[i] * p[i]);
  }
}

float clip_grad_norm(Tensor<1>& grads, float max_norm) {
  double sum = 0.0;
  for (float g : grads) sum += static_cast<double>(g) * g;
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm > max_norm) {
    const float scale = max_norm / norm;
    for (float& g : grads) g *= scale;
  }
  return norm;
}

float cosine_lr(long step, long warmup, long total, float max_lr, float min_lr) {
  if (step < warmup) return max_lr * static_cast<float>(step + 1) / static_cast<float>(warmup);
  if (step >= total) return min_lr;
  const double progress = static_cast<double>(step - warmup) / static_cast<double>(total - warmup);
  return min_lr + static_cast<float>(0.5 * (1.0 + std::cos(M_PI * progress))) * (max_lr - min_lr);
}

void require_finite_step(float loss, float grad_norm, long step) {
  if (std::isfinite(loss) && std::isfinite(grad_norm)) return;
  throw UserError("training diverged at step " + std::to_string(step) + " (loss " +
                  std::to_string(loss) + ", gradient norm " + std::to_string(grad_norm) +
                  "): nothing of this step was saved; continue from the last saved state with "
                  "--resume and a lower --lr");
}

}  // namespace tang

#include "sampler.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>

#include "exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "exercise/top_p.hpp"                    // exercise 03: top_p_filter
#include "top_k.hpp"

namespace tang {

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng) {
  if (s.temperature == 0.0f) return argmax(logits);
  auto z = xt::adapt(logits.data(), logits.size(), xt::no_ownership(),
                     std::array<std::size_t, 1>{logits.size()});
  const float max = xt::amax(z)();
  z = (z - max) / s.temperature;  // minus the largest first: no overflow for any T > 0
  top_k_filter(logits, s.top_k);
  softmax_in_place(logits);
  if (s.top_p < 1.0f) mine::top_p_filter(logits, s.top_p);  // 1 = off
  return mine::sample_from(logits, rng.uniform());
}

Picker sampling_picker(const SamplingSettings& settings) {
  return [settings](std::span<float> logits, std::size_t, Rng& rng) {
    return sample_next(logits, settings, rng);
  };
}

SamplingSettings writing_settings(const LessonOptions& options) {
  return {temperature_or(options, 0.8f), options.top_k, 1.0f};
}

}  // namespace tang

#include "06_kvcache/cost_model.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "generate.hpp"
#include "rng.hpp"
#include "spread.hpp"

namespace tang {

namespace {

// Median milliseconds of `runs` calls of forward over `positions` tokens plus one draw.
double step_ms(const GPT& model, std::size_t positions, std::size_t runs) {
  Recompute predictor(model);
  const std::vector<TokenId> window(positions, 1);  // any characters: the cost is the same
  std::vector<float> logits;
  Rng rng(1);
  const SamplingSettings settings{0.8f, 20, 1.0f};  // lesson 06's settings
  std::vector<double> times;
  for (std::size_t r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto scores = predictor.next_logits(window);
    logits.assign(scores.begin(), scores.end());
    sample_next(logits, settings, rng);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return median(times);
}

}  // namespace

StepCosts measure_step_costs(const GPT& model, std::size_t window, std::size_t runs) {
  StepCosts c;
  c.t1_ms = std::max(step_ms(model, 1, runs), 1e-6);  // a clock tick at least
  if (window < 2) return c;                           // a context of one: b = 0
  const double tk = step_ms(model, window, runs);
  // On a tiny model the difference is within the clock's noise and can come out
  // below zero; a position never costs less than nothing.
  c.b_ms = std::max(0.0, (tk - c.t1_ms) / static_cast<double>(window - 1));
  return c;
}

}  // namespace tang

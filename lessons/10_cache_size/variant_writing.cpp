#include "10_cache_size/variant_writing.hpp"

#include <chrono>
#include <vector>

#include "03_topk_topp/poem_measures.hpp"
#include "03_topk_topp/sampler.hpp"
#include "10_cache_size/small_cache.hpp"
#include "10_cache_size/variant_step_cost.hpp"

namespace tang {

VariantWriting write_poems(const GPT& model, std::span<const std::uint64_t> seeds,
                           const SamplingSettings& settings, std::size_t max_chars,
                           const MachineProfile& profile) {
  const TokenId newline = model.tokenizer().encode("\n").front();
  const GPTConfig& cfg = model.config();
  VariantWriting w;
  SmallCachePredictor predictor(model);
  std::vector<float> logits;
  double nll = 0.0;  // -ln p of every character drawn, summed
  for (const std::uint64_t seed : seeds) {
    Rng rng(seed);
    std::vector<TokenId> context = {newline};
    std::size_t steps = 0;
    while (steps < max_chars) {
      // timed: the step and the draw, as the cost model predicts them
      const auto start = std::chrono::steady_clock::now();
      const std::span<const float> out = predictor.next_logits(context);
      logits.assign(out.begin(), out.end());
      const TokenId id = sample_next(logits, settings, rng);
      w.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      nll -= log_probability(out, id);
      steps += 1;
      if (id == newline) break;
      context.push_back(id);
    }
    // step i fed one new position to a cache of i (the newline first)
    for (std::size_t cached = 0; cached < steps; ++cached)
      w.predicted_ms += predict_variant_step(cfg, 1, cached, profile).total_ms();
    w.characters += steps;
    w.poems += 1;
    const std::vector<TokenId> poem(context.begin() + 1, context.end());
    if (is_regular_verse(model.tokenizer().decode(poem))) w.in_form += 1;
  }
  const std::size_t scored = w.characters;
  w.log_probability = scored > 0 ? -nll / static_cast<double>(scored) : 0.0;
  return w;
}

}  // namespace tang

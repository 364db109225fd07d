#include "12_speculative/eight_poems.hpp"

#include <string>

#include "03_topk_topp/sampler.hpp"  // lesson 03: sampling_picker
#include "06_kvcache/kv_cache.hpp"   // lesson 06: CachedPredictor
#include "06_kvcache/step_cost.hpp"
#include "generate.hpp"

namespace tang {

std::size_t EightPoems::characters() const {
  std::size_t n = 0;
  for (const auto& p : poems) n += p.size();
  return n;
}

EightPoems write_eight_plain(const GPT& model, const SamplingSettings& settings, std::size_t length,
                             std::uint64_t seed) {
  EightPoems eight;
  for (std::size_t i = 0; i < std::size(kEightOpenings); ++i) {
    std::vector<TokenId> context = model.tokenizer().encode(std::string("\n") + kEightOpenings[i]);
    const std::size_t before = context.size();
    CachedPredictor<> predictor(model);
    Rng rng(seed + i);
    eight.poems.push_back(write(predictor, context, sampling_picker(settings), rng, length,
                                model.tokenizer().newline()));
    eight.counts.work.push_back(window_step(before));  // lesson 06's first step: the opening
    for (std::size_t j = 1; j < eight.poems.back().size(); ++j)
      eight.counts.work.push_back(cached_step(before + j - 1));
  }
  return eight;
}

EightPoems write_eight_speculative(const GPT& model, Drafter& drafter,
                                   const SamplingSettings& settings, std::size_t k,
                                   std::size_t length, std::uint64_t seed) {
  EightPoems eight;
  for (std::size_t i = 0; i < std::size(kEightOpenings); ++i) {
    std::vector<TokenId> context = model.tokenizer().encode(std::string("\n") + kEightOpenings[i]);
    Rng rng(seed + i);
    eight.poems.push_back(write_speculative(model, drafter, context, settings, rng, k, length,
                                            model.tokenizer().newline(), &eight.counts));
  }
  return eight;
}

double predicted_ms(const GPTConfig& config, const std::vector<StepWork>& work,
                    const MachineProfile& profile) {
  double ms = 0;
  for (const StepWork& w : work) ms += predict_plain_step(config, w, profile).total_ms();
  return ms;
}

}  // namespace tang

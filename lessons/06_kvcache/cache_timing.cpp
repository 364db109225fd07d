#include "06_kvcache/cache_timing.hpp"

#include <chrono>
#include <memory>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "generate.hpp"
#include "spread.hpp"

namespace tang {

TimedText write_chars(const GPT& model, bool use_cache, std::size_t n,
                      const SamplingSettings& settings, std::uint64_t seed) {
  std::unique_ptr<Predictor> predictor;
  if (use_cache) {
    predictor = std::make_unique<CachedPredictor<>>(model);
  } else {
    predictor = std::make_unique<Recompute>(model);
  }
  Rng rng(seed);
  const Picker pick = sampling_picker(settings);
  std::vector<TokenId> context = model.tokenizer().encode("\n");
  const auto start = std::chrono::steady_clock::now();
  TimedText result;
  result.ids = write(*predictor, context, pick, rng, n, /*stop_after=*/std::nullopt);
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

TimedText median_of(std::size_t runs, const GPT& model, bool use_cache, std::size_t n,
                    const SamplingSettings& settings, std::uint64_t seed) {
  std::vector<double> times;
  TimedText last;
  for (std::size_t r = 0; r < runs; ++r) {
    last = write_chars(model, use_cache, n, settings, seed);
    times.push_back(last.milliseconds);
  }
  last.milliseconds = median(times);
  return last;
}

}  // namespace tang

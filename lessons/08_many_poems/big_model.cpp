#include "08_many_poems/big_model.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "08_many_poems/batched_forward.hpp"
#include "parameters.hpp"
#include "rng.hpp"

namespace tang {

GPT gpt2_small_shaped(const Tokenizer& tokenizer, std::uint64_t seed) {
  GPTConfig config;
  config.n_layer = 12;
  config.n_head = 12;
  config.n_embd = 768;
  config.block_size = 128;
  config.vocab_size = tokenizer.size();
  Rng rng(seed);
  Tensor<1> parameters = Tensor<1>::from_shape({parameter_count(config)});
  initialise_parameters(config, parameters.data(), rng);
  return GPT(config, tokenizer, std::move(parameters));
}

double time_batched_step_ms(const GPT& model, const StoredWeights& weights, std::size_t B,
                            std::size_t cached, std::size_t steps,
                            const SamplingSettings& settings) {
  const std::size_t V = model.config().vocab_size;
  // The caches' contents do not change the time: zeros, `cached` positions long.
  std::vector<KVCache> caches(B, KVCache(model.config()));
  std::vector<KVCache*> pointers;
  for (KVCache& cache : caches) pointers.push_back(&cache);
  BatchScratch scratch(model.config(), B);
  std::vector<TokenId> tokens(B, 1);
  std::vector<float> logits;
  Rng rng(1);
  std::vector<double> times;
  for (std::size_t s = 0; s <= steps; ++s) {  // step 0 warms up
    for (KVCache& cache : caches) cache.length = cached;
    const auto start = std::chrono::steady_clock::now();
    const View<2> all = forward_batch(model, weights, tokens, pointers, scratch);  // (B, V)
    for (std::size_t b = 0; b < B; ++b) {
      logits.assign(all.data() + b * V, all.data() + (b + 1) * V);
      tokens[b] = sample_next(logits, settings, rng);
    }
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    if (s > 0) times.push_back(took.count());
  }
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                   times.end());
  return times[times.size() / 2];
}

}  // namespace tang

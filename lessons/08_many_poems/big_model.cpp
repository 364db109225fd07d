#include "08_many_poems/big_model.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "03_topk_topp/sampler.hpp"
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

BatchedStep::BatchedStep(const GPT& model, const StoredWeights& weights, std::size_t B,
                         std::size_t cached, const SamplingSettings& settings)
    : model_(model),
      weights_(weights),
      cached_(cached),
      settings_(settings),
      caches_(B, KVCache(model.config())),
      acts_(step_activations(model.config(), B)),
      tokens_(B, 1) {
  if (cached >= model.config().block_size)
    throw std::invalid_argument("BatchedStep: the caches must have room for one more position");
  for (KVCache& cache : caches_) pointers_.push_back(&cache);
}

void BatchedStep::run() {
  const std::size_t V = model_.config().vocab_size;
  for (KVCache& cache : caches_) cache.length = cached_;
  const View<2> all =
      forward_with_cache(model_, weights_, tokens_, pointers_, acts_, LogitsFor::kLastPosition);
  for (std::size_t b = 0; b < tokens_.size(); ++b) {
    logits_.assign(all.data() + b * V, all.data() + (b + 1) * V);
    tokens_[b] = sample_next(logits_, settings_, rng_);
  }
}

double time_batched_step_ms(const GPT& model, const StoredWeights& weights, std::size_t B,
                            std::size_t cached, std::size_t steps,
                            const SamplingSettings& settings) {
  if (steps == 0) throw std::invalid_argument("time_batched_step_ms: time at least one step");
  BatchedStep step(model, weights, B, cached, settings);
  step.run();  // warms up
  std::vector<double> times;
  for (std::size_t s = 0; s < steps; ++s) {
    const auto start = std::chrono::steady_clock::now();
    step.run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                   times.end());
  return times[times.size() / 2];
}

}  // namespace tang

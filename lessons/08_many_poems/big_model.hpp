// big_model.hpp: a model that does not fit in the CPU's caches, for timing.
//
// Our model's 6.8 MB of fp32 weights fit in this machine's last-level cache,
// so a step reads them from the cache, not from main memory: batching and
// smaller weights save less than they would on a large model. The shape of
// GPT-2 small (12 layers, 12 heads, 768 dims: 85 million weights in its blocks,
// 340 MB in fp32) does not fit anywhere but main memory. Its weights are random
// (a fixed seed): how long a step takes does not depend on their values.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "08_many_poems/stored_weights.hpp"
#include "gpt.hpp"
#include "rng.hpp"
#include "sampling.hpp"

namespace tang {

// GPT-2 small's shape with our vocabulary and a context of 128, initialised as
// the trainer initialises a model (parameters.hpp) from Rng(seed).
GPT gpt2_small_shaped(const Tokenizer& tokenizer, std::uint64_t seed);

// One batched decoding step of B texts whose caches hold `cached` positions each
// (zeros: their values do not change the time), ready to run again and again.
// `Matrices` multiplies, as lesson 06's forward_with_cache takes them: the
// lesson's StoredWeights, or the benchmarks' tuned matrices; `Cache` keeps each
// text's keys and values and attends over them (lesson 06's KVCache, or the
// benchmarks' cache with the tuned attention); `draw` draws each text's
// character (lesson 03's sample_next, or the benchmarks' tuned one).
template <class Matrices = StoredWeights, class Cache = KVCache>
class BatchedStep {
 public:
  using Draw = std::function<TokenId(std::span<float> logits, const SamplingSettings&, Rng&)>;
  BatchedStep(const GPT& model, const Matrices& weights, std::size_t B, std::size_t cached,
              const SamplingSettings& settings, Draw draw = plain_draw)
      : model_(model),
        weights_(weights),
        cached_(cached),
        settings_(settings),
        draw_(std::move(draw)),
        caches_(B, Cache(model.config())),
        acts_(step_activations(model.config(), B)),
        tokens_(B, 1) {
    if (cached >= model.config().block_size)
      throw std::invalid_argument("BatchedStep: the caches must have room for one more position");
    for (Cache& cache : caches_) pointers_.push_back(&cache);
  }
  // lesson 06's cached forward and one draw per text, the caches set back to `cached` first.
  void run() {
    const std::size_t V = model_.config().vocab_size;
    for (Cache& cache : caches_) cache.length = cached_;
    const View<2> all =
        forward_with_cache(model_, weights_, tokens_, pointers_, acts_, LogitsFor::kLastPosition);
    for (std::size_t b = 0; b < tokens_.size(); ++b) {
      logits_.assign(all.data() + b * V, all.data() + (b + 1) * V);
      tokens_[b] = draw_(logits_, settings_, rng_);
    }
  }

 private:
  static TokenId plain_draw(std::span<float> logits, const SamplingSettings& s, Rng& rng) {
    return sample_next(logits, s, rng);
  }
  const GPT& model_;
  const Matrices& weights_;
  std::size_t cached_;
  SamplingSettings settings_;
  Draw draw_;
  std::vector<Cache> caches_;
  std::vector<Cache*> pointers_;
  Activations acts_;  // B rows
  std::vector<TokenId> tokens_;
  std::vector<float> logits_;
  Rng rng_{1};
};

// The median milliseconds of `steps` runs of a BatchedStep, after one not timed.
double time_batched_step_ms(const GPT& model, const StoredWeights& weights, std::size_t B,
                            std::size_t cached, std::size_t steps,
                            const SamplingSettings& settings);

}  // namespace tang

// model_drafter.hpp: drafts written by a smaller model of the same vocabulary.
//
// A draft model trained on the same poems (data/draft/: 2 layers, 64 dims)
// writes k characters the ordinary way, with the same sampler settings as the
// big model, and says with what distribution it drew each (q_i). Its own cache
// is cut back, like the big model's, to the characters both have kept: each
// round it computes only what is new.
#pragma once

#include "06_kvcache/kv_cache.hpp"   // lesson 06: KVCache
#include "06_kvcache/step_cost.hpp"  // StepWork
#include "12_speculative/drafter.hpp"
#include "gpt.hpp"
#include "sampling.hpp"

namespace tang {

class ModelDrafter : public Drafter {
 public:
  ModelDrafter(const GPT& draft, const SamplingSettings& settings);
  void draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
             std::vector<TokenId>& drafted, std::vector<float>& q) override;
  const GPT& model() const { return model_; }
  // What each of its forward passes pushed through the draft model (step_cost.hpp).
  std::vector<StepWork> work;

 private:
  const GPT& model_;
  SamplingSettings settings_;
  KVCache cache_;
  Activations acts_;
  std::vector<TokenId> seen_;  // the characters whose positions the cache holds
};

}  // namespace tang

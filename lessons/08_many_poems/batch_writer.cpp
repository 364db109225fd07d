#include "08_many_poems/batch_writer.hpp"

#include <deque>
#include <memory>

#include "03_topk_topp/sampler.hpp"  // lesson 03
#include "06_kvcache/kv_cache.hpp"   // lesson 06
#include "errors.hpp"
#include "generate.hpp"  // require_finite
#include "rng.hpp"

namespace tang {

namespace {

struct Poem {
  std::size_t index;  // into the seeds
  Rng rng;
  std::unique_ptr<KVCache> cache;
  std::vector<TokenId> written;
  TokenId next = 0;  // the character to feed at the next step
};

// One step for every poem in flight: each one's next character, at its own
// position, through lesson 06's cached forward over all their caches at once.
// Returns the logits (B, V), row b for poem b; records the step's work.
View<2> batched_step(const GPT& model, const StoredWeights& weights, std::vector<Poem>& active,
                     Activations& acts, std::vector<StepWork>& work) {
  std::vector<TokenId> tokens;   // (B) one new character per poem
  std::vector<KVCache*> caches;  // (B) each poem's own cache
  StepWork step{active.size(), active.size(), 0, active.size()};
  for (Poem& p : active) {
    tokens.push_back(p.next);
    caches.push_back(p.cache.get());
    step.keys += p.cache->length + 1;  // its cache and its new position
  }
  work.push_back(step);
  return forward_with_cache(model, weights, tokens, caches, acts, LogitsFor::kLastPosition);
}

}  // namespace

BatchedPoems write_batched(const GPT& model, const StoredWeights& weights,
                           std::span<const std::uint64_t> seeds, const std::string& opening,
                           const SamplingSettings& settings, std::size_t max_chars,
                           std::size_t batch) {
  const Tokenizer& tokenizer = model.tokenizer();
  const std::vector<TokenId> prompt = tokenizer.encode("\n" + opening);
  if (prompt.size() + max_chars > model.config().block_size) {
    throw UserError("an opening of " + std::to_string(prompt.size() - 1) + " characters and " +
                    std::to_string(max_chars) + " more do not fit the context of " +
                    std::to_string(model.config().block_size));
  }
  // The shared opening, once: its cache, and the logits of the first character.
  // All but its last character go in here; the last one is each poem's first
  // batched step, so that every step is the same for every poem.
  KVCache shared(model.config());
  if (prompt.size() > 1) {
    Activations acts(model.config(), 1, Keep::kLastLogits);
    forward_with_cache(model, std::span(prompt).first(prompt.size() - 1), 0, shared, acts);
  }

  BatchedPoems out;
  out.poems.resize(seeds.size());
  Activations acts = step_activations(model.config(), batch);  // B rows, B rows of logits
  std::deque<std::size_t> waiting;
  for (std::size_t i = 0; i < seeds.size(); ++i) waiting.push_back(i);
  std::vector<Poem> active;
  std::vector<float> logits;
  const TokenId newline = tokenizer.newline();  // ends a poem
  while (!waiting.empty() || !active.empty()) {
    while (active.size() < batch && !waiting.empty()) {  // a free place: the next poem joins
      const std::size_t i = waiting.front();
      waiting.pop_front();
      active.push_back(
          Poem{i, Rng(seeds[i]), std::make_unique<KVCache>(shared), {}, prompt.back()});
    }
    const View<2> all = batched_step(model, weights, active, acts, out.work);  // (B, V)
    ++out.steps;
    const std::size_t V = model.config().vocab_size;
    std::vector<Poem> still;
    for (std::size_t b = 0; b < active.size(); ++b) {
      Poem& p = active[b];
      const std::span<const float> row = require_finite({all.data() + b * V, V});
      logits.assign(row.begin(), row.end());  // the sampler overwrites its copy
      p.next = sample_next(logits, settings, p.rng);
      p.written.push_back(p.next);
      ++out.characters;
      const bool ended = p.next == newline || p.written.size() == max_chars;
      if (!ended) {
        still.push_back(std::move(p));
        continue;
      }
      if (p.written.back() == newline) p.written.pop_back();
      out.poems[p.index] = opening + tokenizer.decode(p.written);
    }
    active = std::move(still);
  }
  return out;
}

}  // namespace tang

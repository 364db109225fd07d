#include "12_speculative/speculative_writer.hpp"

#include <algorithm>
#include <stdexcept>

#include "06_kvcache/kv_cache.hpp"  // lesson 06: KVCache, forward_with_cache
#include "12_speculative/exercise/accept_drafts.hpp"
#include "12_speculative/sampling_distribution.hpp"
#include "generate.hpp"  // crop_to_context

namespace tang {

std::vector<TokenId> write_speculative(const GPT& model, Drafter& drafter,
                                       std::vector<TokenId>& context,
                                       const SamplingSettings& settings, Rng& rng, std::size_t k,
                                       std::size_t max_new, std::optional<TokenId> stop_after,
                                       SpeculativeCounts* counts, const MaskFor& mask_for) {
  if (context.empty()) throw std::invalid_argument("write_speculative: empty context");
  const GPTConfig& cfg = model.config();
  const std::size_t V = cfg.vocab_size;
  const ModelMatrices<> m(model);
  KVCache cache(cfg);
  KVCache* const caches[] = {&cache};
  Activations acts = step_activations(cfg, cfg.block_size);
  std::vector<TokenId> seen;  // the characters whose positions the cache holds
  std::vector<TokenId> written, drafted;
  std::vector<float> q, p;  // (drafts, V), (drafts + 1, V)
  SpeculativeCounts local;
  SpeculativeCounts& c = counts ? *counts : local;
  while (written.size() < max_new && (written.empty() || written.back() != stop_after)) {
    // as lesson 06's CachedPredictor: past the context the window slides and the cache starts over
    const std::span<const TokenId> window = crop_to_context(context, cfg.block_size);
    if (seen.size() >= window.size() || !std::equal(seen.begin(), seen.end(), window.begin()))
      cache.length = 0, seen.clear();
    const std::span<const TokenId> pending = window.subspan(seen.size());  // (>= 1)
    // room for the drafts: in the context, and in what is left to write after one drawn
    const std::size_t room =
        std::min({k, cfg.block_size - window.size(), max_new - written.size() - 1});
    drafter.draft(window, room, rng, drafted, q);
    if (pending.size() > 1) {  // an opening, or a window that slid: no logits needed but the last
      const std::span<const TokenId> before_last = pending.first(pending.size() - 1);
      forward_with_cache(model, m, before_last, caches, acts, LogitsFor::kLastPosition);
      c.work.push_back(extend_step(before_last.size(), seen.size(), 1, 0));
    }
    std::vector<TokenId> tokens = {pending.back()};  // (k + 1) the last character, the drafts
    tokens.insert(tokens.end(), drafted.begin(), drafted.end());
    c.work.push_back(extend_step(tokens.size(), cache.length, tokens.size(), tokens.size()));
    const View<2> logits = forward_with_cache(model, m, tokens, caches, acts,
                                              LogitsFor::kAllPositions);  // (k + 1, V)
    p.assign(logits.data(), logits.data() + tokens.size() * V);
    std::vector<TokenId> text;  // with a form: row i is after the context and drafts 0 .. i-1
    if (mask_for) text = context;
    for (std::size_t i = 0; i <= drafted.size(); ++i) {
      Constraint constraint;
      std::optional<LogitMask> mask;
      if (mask_for) {
        mask = mask_for(text);
        constraint = [&](std::span<float> z) { mask->apply(z); };
        if (i < drafted.size()) text.push_back(drafted[i]);
      }
      to_sampling_distribution(std::span(p).subspan(i * V, V), settings, constraint);
    }
    std::vector<float> coins(drafted.size() + 1);
    for (float& coin : coins) coin = rng.uniform();
    const Verification verification = accept_drafts(p, q, drafted, coins, V);
    // the cache keeps the pending character and the drafts kept; the rest is cut off
    seen.assign(window.begin(), window.end());
    seen.insert(seen.end(), drafted.begin(),
                drafted.begin() + static_cast<long>(verification.accepted));
    cache.length = seen.size();
    std::vector<TokenId> now(drafted.begin(),
                             drafted.begin() + static_cast<long>(verification.accepted));
    now.push_back(verification.next);
    for (const TokenId t : now) {  // a kept draft may end the poem: nothing after it counts
      context.push_back(t);
      written.push_back(t);
      if (written.size() == max_new || t == stop_after) break;
    }
    ++c.rounds;
    c.drafted += drafted.size();
    c.accepted += verification.accepted;
    c.kept.push_back(verification.accepted);
  }
  c.written += written.size();
  return written;
}

}  // namespace tang

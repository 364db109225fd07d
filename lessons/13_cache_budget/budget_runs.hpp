// budget_runs.hpp: how lesson 13 measures what a cache on a budget costs.
//
// Texts of 128 held-out characters are fed one character a step, teacher-forced
// (the next character is the text's, not the model's): each step the cache
// under test holds the text so far in its own way, and the model's prediction
// of the next character is compared with what lesson 06's float32 cache gives
// at the same place:
//
//   loss   -log p(next character), the held-out loss the trainer reports
//   KL     sum_c p32(c) (log p32(c) - log p(c)): how far the whole
//          distribution moved, in nats, also where the next character is
//          predicted no worse
//
// Each text gives one number of each; their differences from float32 are paired
// by text, and the spread of those differences over the texts gives the standard
// error (lesson 10's paired_difference).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "gpt.hpp"

namespace tang {

// `count` texts of `length` characters, cut one after another from `stream`
// (fewer if it runs out).
std::vector<std::vector<TokenId>> consecutive_texts(std::span<const TokenId> stream,
                                                    std::size_t length, std::size_t count);

// One text through lesson 06's KVCache: the log-probabilities of every
// position's next-character distribution, (n-1, V), in double.
std::vector<double> reference_log_probs(const GPT& model, std::span<const TokenId> text);

// What a cache did over one text, at the positions p >= from (predicting p+1).
struct TextScore {
  double loss = 0.0;       // mean over those positions
  double reference = 0.0;  // lesson 06's, the same positions
  double kl = 0.0;         // mean KL from lesson 06's distribution
};

// One character a step through a cache of the caller's kind (`step` feeds one
// token and returns its logits, (V)), scored against `log_probs` (from
// reference_log_probs).
TextScore score_text(const GPT& model, std::span<const TokenId> text,
                     std::span<const double> log_probs, std::size_t from,
                     const std::function<std::span<const float>(TokenId)>& step);

// The same for any cache type lesson 06's forward takes, made fresh for the text.
template <class Cache>
TextScore score_text_with(const GPT& model, std::span<const TokenId> text,
                          std::span<const double> log_probs, std::size_t from, Cache cache) {
  Activations acts = step_activations(model.config(), 1);
  const ModelMatrices<> matrices(model);
  Cache* const caches[] = {&cache};
  return score_text(model, text, log_probs, from, [&](TokenId id) {
    const TokenId one[] = {id};
    const View<2> logits = forward_with_cache(model, matrices, std::span<const TokenId>(one),
                                              caches, acts, LogitsFor::kLastPosition);
    return std::span<const float>(logits.data(), logits.size());
  });
}

// Greedy writing (the likeliest character each step) from `opening` to the
// end of the context, with `predictor`; the characters written.
std::vector<TokenId> write_greedily(Predictor& predictor, std::span<const TokenId> opening,
                                    std::size_t context);

// How many characters two texts share before their first difference.
std::size_t matching_prefix(std::span<const TokenId> a, std::span<const TokenId> b);

}  // namespace tang

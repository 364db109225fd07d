#include "12_speculative/model_drafter.hpp"

#include <algorithm>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // exercise 02: sample_from
#include "12_speculative/sampling_distribution.hpp"

namespace tang {

ModelDrafter::ModelDrafter(const GPT& draft, const SamplingSettings& settings)
    : model_(draft),
      settings_(settings),
      cache_(draft.config()),
      acts_(step_activations(draft.config(), draft.config().block_size)) {}

void ModelDrafter::draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
                         std::vector<TokenId>& drafted, std::vector<float>& q) {
  drafted.clear();
  q.clear();
  const std::size_t V = model_.config().vocab_size, T_max = model_.config().block_size;
  std::vector<TokenId> text(context.begin(), context.end());
  if (k == 0 || text.size() + k > T_max) return;  // no room: the model writes alone this round
  // the cache keeps what it shares with the text, and is cut back to it
  const std::size_t same = static_cast<std::size_t>(
      std::mismatch(seen_.begin(), seen_.end(), text.begin(), text.end()).first - seen_.begin());
  cache_.length = std::min(same, text.size() - 1);
  seen_.assign(text.begin(), text.begin() + static_cast<long>(cache_.length));
  const ModelMatrices<> m(model_);
  KVCache* const caches[] = {&cache_};
  for (std::size_t i = 0; i < k; ++i) {
    const std::span<const TokenId> fresh = std::span(text).subspan(seen_.size());
    work.push_back(extend_step(fresh.size(), cache_.length, 1, 1));
    const View<2> logits =
        forward_with_cache(model_, m, fresh, caches, acts_, LogitsFor::kLastPosition);
    seen_.assign(text.begin(), text.end());
    std::vector<float> row(logits.data(), logits.data() + V);  // (V)
    to_sampling_distribution(row, settings_);
    const TokenId next = sample_from(row, rng.uniform());
    drafted.push_back(next);
    q.insert(q.end(), row.begin(), row.end());
    text.push_back(next);
  }
}

}  // namespace tang

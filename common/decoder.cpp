#include "decoder.hpp"

#include <algorithm>
#include <stdexcept>

namespace tang {

Decoder::Decoder(const GPT& model, bool use_cache)
    : model_(model), use_cache_(use_cache), cache_(model.config()), state_(model.config()) {
  seen_.reserve(model.config().block_size);
}

View<2> Decoder::next_logits(std::span<const TokenId> context) {
  if (context.empty()) throw std::invalid_argument("Decoder::next_logits: empty context");
  const std::size_t block = model_.config().block_size;
  const std::span<const TokenId> window =
      context.size() > block ? context.subspan(context.size() - block) : context;

  // Reuse the cache only if it holds a prefix of this very window.
  const bool cache_is_prefix = use_cache_ && seen_.size() < window.size() &&
                               std::equal(seen_.begin(), seen_.end(), window.begin());
  if (!cache_is_prefix) reset();

  const std::size_t start = cache_.length;
  const auto logits =
      forward(model_, window.subspan(start), start, cache_, state_, LogitsFor::kLastPosition);
  if (use_cache_) {
    seen_.assign(window.begin(), window.end());
  } else {
    reset();
  }
  return logits;
}

}  // namespace tang

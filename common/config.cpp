#include "config.hpp"

#include "errors.hpp"

namespace tang {

void GPTConfig::validate() const {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw UserError("invalid model config: " + what);
  };
  require(vocab_size >= 2, "vocabulary size must be at least 2");
  require(block_size >= 1 && block_size <= 65536, "block size must be in [1, 65536]");
  require(n_layer >= 1 && n_layer <= 256, "layer count must be in [1, 256]");
  require(n_head >= 1 && n_head <= 256, "head count must be in [1, 256]");
  require(n_embd >= 1 && n_embd <= 65536, "embedding width must be in [1, 65536]");
  require(n_embd % n_head == 0, "embedding width " + std::to_string(n_embd) +
                                    " is not divisible by head count " + std::to_string(n_head));
  require(n_kv_head <= n_head && n_head % kv_heads() == 0,
          "key/value head count " + std::to_string(n_kv_head) + " must divide head count " +
              std::to_string(n_head));
  require(kv_latent <= 65536, "key/value latent width must be in [0, 65536]");
  require(kv_latent == 0 || kv_heads() == n_head,
          "a key/value latent rebuilds every head's keys: it takes no key/value head count");
}

Attention GPTConfig::attention() const {
  if (kv_latent > 0) return Attention::kLatent;
  return kv_heads() == n_head ? Attention::kMultiHead : Attention::kGroupedQuery;
}

std::size_t GPTConfig::cache_width() const {
  return attention() == Attention::kLatent ? kv_latent : 2 * kv_heads() * head_size();
}

std::string GPTConfig::attention_name() const {
  switch (attention()) {
    case Attention::kMultiHead:
      return "multi-head";
    case Attention::kGroupedQuery:
      return kv_heads() == 1 ? "multi-query"
                             : "grouped-query (" + std::to_string(kv_heads()) + " key/value heads)";
    case Attention::kLatent:
      return "latent (d_c " + std::to_string(kv_latent) + ")";
  }
  return "";
}

std::string GPTConfig::describe() const {
  return std::to_string(n_layer) + " layers, " + std::to_string(n_head) + " heads, " +
         std::to_string(n_embd) + " dims, context " + std::to_string(block_size) + ", vocabulary " +
         std::to_string(vocab_size) +
         (attention() == Attention::kGroupedQuery
              ? ", " + std::to_string(kv_heads()) + " key/value head" + (kv_heads() > 1 ? "s" : "")
              : "") +
         (attention() == Attention::kLatent ? ", key/value latent " + std::to_string(kv_latent)
                                            : "");
}

std::string why_not_multi_head(const GPTConfig& config, const std::string& who) {
  if (config.attention() == Attention::kMultiHead) return "";
  return "its attention is " + config.attention_name() + ", and " + who +
         " keeps a key and a value per head: lesson_10_cache_size runs such a model";
}

void require_multi_head(const GPTConfig& config, const std::string& who) {
  const std::string why = why_not_multi_head(config, who);
  if (!why.empty()) throw BadOption("--checkpoint: " + why);
}

}  // namespace tang

// ngram_drafter.hpp: drafts counted from the poems, no model at all.
//
// For every run of 1 to N characters in the training poems, the character that
// most often follows it. To draft, it takes the longest run at the end of the
// text that it has seen, appends that run's most frequent next character, and
// goes on from there, up to k characters or until it has seen no run at the
// end. It is sure of each guess (probability 1): cheap, and right only as often
// as the poems repeat themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "12_speculative/drafter.hpp"

namespace tang {

// The training poems of `corpus` (one poem a line; every 20th, from the first,
// is held out, as lesson 00 trains), each encoded with its newline, in order.
std::vector<TokenId> training_stream(const Tokenizer& tokenizer, const std::string& corpus);

class NgramDrafter : public Drafter {
 public:
  // Counted from `stream` (poems, each ending in a newline), runs of 1 .. max_n.
  NgramDrafter(std::span<const TokenId> stream, std::size_t max_n, std::size_t vocab_size);
  void draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
             std::vector<TokenId>& drafted, std::vector<float>& q) override;
  // The most frequent character after the longest seen run ending `text`, if any.
  std::optional<TokenId> next(std::span<const TokenId> text) const;

 private:
  std::size_t max_n_, vocab_size_;
  std::vector<std::unordered_map<std::uint64_t, TokenId>> best_;  // (max_n + 1) by run length
};

}  // namespace tang

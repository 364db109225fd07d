#include "12_speculative/ngram_drafter.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "poem_file.hpp"

namespace tang {

namespace {

// A run of up to 4 characters (ids below 2^16) as one number.
std::uint64_t key(std::span<const TokenId> run) {
  std::uint64_t k = 0;
  for (const TokenId t : run) k = (k << 16) | static_cast<std::uint64_t>(t);
  return k;
}

}  // namespace

std::vector<TokenId> training_stream(const Tokenizer& tokenizer, const std::string& corpus) {
  check_poem_file(corpus);
  std::ifstream in(corpus);
  std::vector<TokenId> stream;
  std::string line;
  for (std::size_t i = 0; read_line(in, line) == LineRead::kLine; ++i) {
    if (i % 20 == 0) continue;  // held out
    const std::vector<TokenId> poem = tokenizer.encode(line + "\n");
    stream.insert(stream.end(), poem.begin(), poem.end());
  }
  return stream;
}

NgramDrafter::NgramDrafter(std::span<const TokenId> stream, std::size_t max_n,
                           std::size_t vocab_size)
    : max_n_(max_n), vocab_size_(vocab_size), best_(max_n + 1) {
  if (max_n < 1 || max_n > 4) throw std::invalid_argument("NgramDrafter: runs of 1 to 4");
  if (vocab_size > 65536) throw std::invalid_argument("NgramDrafter: ids must fit in 16 bits");
  for (std::size_t n = 1; n <= max_n; ++n) {
    std::vector<std::pair<std::uint64_t, TokenId>> seen;  // (run, the character after it)
    seen.reserve(stream.size());
    for (std::size_t i = n; i < stream.size(); ++i)
      seen.emplace_back(key(stream.subspan(i - n, n)), stream[i]);
    std::sort(seen.begin(), seen.end());         // each run's followers together, by id
    for (std::size_t i = 0; i < seen.size();) {  // one run: its most frequent follower
      TokenId most = seen[i].second;
      std::size_t most_count = 0, j = i;
      while (j < seen.size() && seen[j].first == seen[i].first) {
        std::size_t same = j;
        while (same < seen.size() && seen[same] == seen[j]) ++same;
        if (same - j > most_count)
          most = seen[j].second, most_count = same - j;  // ties: smaller id
        j = same;
      }
      best_[n][seen[i].first] = most;
      i = j;
    }
  }
}

std::optional<TokenId> NgramDrafter::next(std::span<const TokenId> text) const {
  for (std::size_t n = std::min(max_n_, text.size()); n >= 1; --n) {
    const auto found = best_[n].find(key(text.last(n)));
    if (found != best_[n].end()) return found->second;
  }
  return std::nullopt;
}

void NgramDrafter::draft(std::span<const TokenId> context, std::size_t k, Rng&,
                         std::vector<TokenId>& drafted, std::vector<float>& q) {
  drafted.clear();
  q.clear();
  std::vector<TokenId> text(context.end() - static_cast<long>(std::min(context.size(), max_n_)),
                            context.end());  // the last max_n characters, then the drafts
  while (drafted.size() < k) {
    const std::optional<TokenId> guess = next(text);
    if (!guess) break;
    drafted.push_back(*guess);
    text.push_back(*guess);
    q.resize(q.size() + vocab_size_, 0.0f);
    q[q.size() - vocab_size_ + static_cast<std::size_t>(*guess)] = 1.0f;  // sure of it
  }
}

}  // namespace tang

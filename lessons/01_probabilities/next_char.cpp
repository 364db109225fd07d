#include "01_probabilities/next_char.hpp"

#include <algorithm>
#include <ostream>

#include "errors.hpp"
#include "sampling.hpp"

namespace tang {

std::vector<TokenId> encode_prompt(const GPT& model, const std::string& text, std::ostream& out) {
  if (text.empty()) throw UserError("the prompt is empty: give at least one character");
  std::vector<TokenId> ids = model.tokenizer().encode(text);
  const std::size_t block = model.config().block_size;
  if (ids.size() > block) {
    out << "  (the prompt has " << ids.size() << " characters; the model reads at most " << block
        << ", so it keeps the last " << block << ")\n";
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(block));
  }
  return ids;
}

std::vector<float> next_char_probabilities(Predictor& predictor,
                                           std::span<const TokenId> prompt_ids) {
  const std::span<const float> logits = predictor.next_logits(prompt_ids);  // (V)
  std::vector<float> probabilities(logits.begin(), logits.end());
  softmax_in_place(probabilities);
  return probabilities;
}

// One pass over the vocabulary, keeping the n best seen so far in order: a
// character that beats the last of them goes into its place (n is small, 5 or 8).
std::vector<Candidate> most_likely(std::span<const float> probabilities, std::size_t n) {
  const auto more_likely = [](const Candidate& a, const Candidate& b) {
    return a.probability != b.probability ? a.probability > b.probability : a.id < b.id;
  };
  std::vector<Candidate> best;
  best.reserve(std::min(n, probabilities.size()) + 1);
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const Candidate c{static_cast<TokenId>(i), probabilities[i]};
    if (best.size() == n && (n == 0 || !more_likely(c, best.back()))) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), c, more_likely), c);
    if (best.size() > n) best.pop_back();
  }
  return best;
}

}  // namespace tang

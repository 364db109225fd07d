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

std::vector<Candidate> most_likely(std::span<const float> probabilities, std::size_t n) {
  std::vector<Candidate> all;
  all.reserve(probabilities.size());
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    all.push_back({static_cast<TokenId>(i), probabilities[i]});
  }
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const Candidate& a, const Candidate& b) {
                      return a.probability != b.probability ? a.probability > b.probability
                                                            : a.id < b.id;
                    });
  all.resize(n);
  return all;
}

}  // namespace tang

#include "12_speculative/form_drafter.hpp"

#include "02_temperature/exercise/sample_with_temperature.hpp"  // exercise 02: sample_from

namespace tang {

void FormDrafter::draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
                        std::vector<TokenId>& drafted, std::vector<float>& q) {
  drafted.clear();
  q.clear();
  std::vector<TokenId> text(context.begin(), context.end()), one;
  std::vector<float> row;  // (V)
  while (drafted.size() < k) {
    const LogitMask mask = mask_for_(text);
    if (mask.allowed_count() == 1) {  // the form's own character: certain
      TokenId only = 0;
      while (!mask.allows(only)) ++only;
      one = {only};
      row.assign(vocab_size_, 0.0f);
      row[static_cast<std::size_t>(only)] = 1.0f;
    } else {
      rest_.draft(text, 1, rng, one, row);
      if (one.empty()) break;  // no guess: the text decided it, not a draw
      // q under the form's mask: the drafter's q on the allowed characters, renormalised
      double allowed = 0;
      for (std::size_t x = 0; x < vocab_size_; ++x) {
        if (!mask.allows(static_cast<TokenId>(x))) row[x] = 0.0f;
        allowed += row[x];
      }
      if (allowed == 0) break;  // q has nothing the form allows: the text decided it, too
      for (float& x : row) x = static_cast<float>(x / allowed);
      // a banned guess is drawn again from the masked q: the draft then follows it exactly
      if (!mask.allows(one[0])) one[0] = sample_from(row, rng.uniform());
    }
    drafted.push_back(one[0]);
    q.insert(q.end(), row.begin(), row.end());
    text.push_back(one[0]);
  }
}

}  // namespace tang

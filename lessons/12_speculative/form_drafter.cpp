#include "12_speculative/form_drafter.hpp"

namespace tang {

void FormDrafter::draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
                        std::vector<TokenId>& drafted, std::vector<float>& q) {
  drafted.clear();
  q.clear();
  std::vector<TokenId> text(context.begin(), context.end()), one;
  std::vector<float> row;
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
      if (one.empty() || !mask.allows(one[0])) break;  // no guess, or one the form bans
    }
    drafted.push_back(one[0]);
    q.insert(q.end(), row.begin(), row.end());
    text.push_back(one[0]);
  }
}

}  // namespace tang

// form_drafter.hpp: a form's certain characters, drafted for free.
//
// Where a form allows one character only (lesson 07's punctuation at a line's
// end, its final newline), the model's mask leaves it nothing else to write:
// the draft is certain and always kept. The form drafter proposes those
// characters with probability 1 and asks another drafter for the rest, one
// character at a time; a guess the form bans ends the round's drafts. SGLang
// calls skipping such characters "jump forward".
#pragma once

#include "12_speculative/drafter.hpp"
#include "12_speculative/speculative_writer.hpp"  // MaskFor

namespace tang {

class FormDrafter : public Drafter {
 public:
  // `rest` drafts where the form leaves a choice; both must outlive this.
  FormDrafter(Drafter& rest, const MaskFor& mask_for, std::size_t vocab_size)
      : rest_(rest), mask_for_(mask_for), vocab_size_(vocab_size) {}
  void draft(std::span<const TokenId> context, std::size_t k, Rng& rng,
             std::vector<TokenId>& drafted, std::vector<float>& q) override;

 private:
  Drafter& rest_;
  const MaskFor& mask_for_;
  std::size_t vocab_size_;
};

}  // namespace tang

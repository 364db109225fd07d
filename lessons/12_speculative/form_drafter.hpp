// form_drafter.hpp: a form's certain characters, drafted for free.
//
// Where a form allows one character only (lesson 07's punctuation at a line's
// end, its final newline), the model's mask leaves it nothing else to write:
// the draft is certain and always kept. The form drafter proposes those
// characters with probability 1 and asks another drafter for the rest, one
// character at a time. Its q is that drafter's q under the form's mask
// (renormalised over the characters the form allows), and a guess the form
// bans is drawn again from it. An allowed x comes out when it is drawn at once,
// with probability q(x), or when a banned guess (probability 1 - Z, Z the mass q
// puts on allowed characters) is followed by x drawn again, (1 - Z) q(x) / Z: in
// all q(x) / Z, which is the q it reports. The rule of exercise 12 is exact for a draft drawn
// from the q it is given, so the text stays the model's under the form. (Ending
// the round at a banned guess would not be: whether a guess is banned depends on
// where q's draw fell, and the character there would then come from p alone.)
// Where q leaves the form nothing, or the drafter has no guess, the round's
// drafts end: the text decided that, not a draw. SGLang calls drafting a form's
// certain characters "jump forward".
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

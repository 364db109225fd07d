// verse_constraint.hpp: one constraint type for every kind of poem lesson 05
// and lesson 07 write.
//
// A constraint is a template of slots, one per character of the poem (its
// punctuation and final newline included). Before each character, allowed_next()
// gives the LogitMask (lesson 05) of what may be written there:
//
//   lesson 05's fixed form   VerseConstraint(vocab, 七绝): ，。 and ⏎ where they
//                            belong, any other character elsewhere
//   the acrostic (藏头)      .with_heads(春眠不觉): line i starts with head i
//   regular verse            .with_tones(pattern): 平 / 仄 where the pattern asks,
//                            rhyming lines end in 平 characters of one group
//   no character twice       .without_repeats()
//   no line copied whole     .without_lines_of(training lines)
//
// Some rules look at what was written: the rhyme group is fixed by --rhyme or
// by the first rhyme character written; without_repeats() bans what was
// written and, looking ahead, the heads of the lines still to come.
// rest_of_line() says what the current line still needs.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "05_acrostic/logit_mask.hpp"
#include "07_verse/training_lines.hpp"
#include "07_verse/verse_form.hpp"
#include "07_verse/verse_tables.hpp"
#include "tokenizer.hpp"

namespace tang {

// The tables, looked up once per token id.
struct VerseVocabulary {
  VerseVocabulary(const Tokenizer& tokenizer, const VerseTables& tables);
  const Tokenizer& tokenizer;
  const VerseTables& tables;
  std::vector<std::optional<Tone>> tone;  // (V): nullopt for punctuation, the newline
  std::vector<int> rhyme_group;           // (V): 0 when in no group
  TokenId comma, full_stop, newline;
};

// What the character at one position must be.
struct Slot {
  std::optional<TokenId> fixed;  // exactly this one: punctuation, the newline, a head
  Tone tone = Tone::kEither;     // 平 or 仄 (kEither: any)
  bool rhyme = false;            // a 平 character of the poem's rhyme group
};

class VerseConstraint {
 public:
  // The fixed form: form.lines lines of form.chars characters, ，and 。 in turn, ⏎.
  VerseConstraint(const VerseVocabulary& vocab, const VerseForm& form);

  // One head per line (form.lines of them). Throws UserError otherwise.
  VerseConstraint& with_heads(std::span<const TokenId> heads);
  VerseConstraint& with_tones(const VersePattern& pattern);
  // The rhyme group (1 .. the number of groups); otherwise the first rhyme decides.
  VerseConstraint& with_rhyme_group(int group);
  VerseConstraint& without_repeats();
  // Bans the last character of a line when it would make a line of `lines`
  // (which must outlive the constraint).
  VerseConstraint& without_lines_of(const TrainingLines& lines);

  const VerseForm& form() const { return form_; }
  std::size_t length() const { return slots_.size(); }  // characters, ⏎ included
  const Slot& slot(std::size_t position) const { return slots_.at(position); }

  // What may be written after `written` (the poem so far, without the newline
  // before it). Throws std::invalid_argument when the poem is already complete.
  LogitMask allowed_next(std::span<const TokenId> written) const;

  // What the current line still needs after `written`, e.g. "中仄平 (rhyme, group 3)".
  std::string rest_of_line(std::span<const TokenId> written) const;

  // The rhyme group in force after `written` (nullopt: not chosen yet).
  std::optional<int> rhyme_group_after(std::span<const TokenId> written) const;

  // Why no poem can be written under this constraint ("" when one can): with no
  // character twice, a rhyme group needs as many 平 characters, besides the
  // heads, as the poem has rhyming lines. Checked before a lesson prints. While
  // the group is still open, the first rhyme is only drawn from groups that
  // have enough, so a poem never runs out of rhymes halfway.
  std::string why_impossible() const;

 private:
  const VerseVocabulary& vocab_;
  VerseForm form_;
  std::vector<Slot> slots_;
  // Per rhyme group (index 0: none), how many 平 characters a rhyme slot could
  // still take when `used` ones are banned.
  std::vector<std::size_t> rhyme_characters(const std::vector<bool>& used) const;
  std::size_t rhyme_slots_from(std::size_t position) const;

  std::optional<int> rhyme_group_;
  bool no_repeats_ = false;
  const TrainingLines* banned_lines_ = nullptr;
};

}  // namespace tang

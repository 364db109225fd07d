#include "07_verse/verse_constraint.hpp"

#include <stdexcept>

#include "errors.hpp"

namespace tang {

namespace {

TokenId id_of(const Tokenizer& tokenizer, const std::string& character) {
  const auto id = tokenizer.find(character);
  if (!id)
    throw UserError("the model's vocabulary has no '" + character + "': regular verse needs it");
  return *id;
}

}  // namespace

VerseVocabulary::VerseVocabulary(const Tokenizer& t, const VerseTables& tables_)
    : tokenizer(t),
      tables(tables_),
      tone(t.size()),
      rhyme_group(t.size(), 0),
      comma(id_of(t, "，")),
      full_stop(id_of(t, "。")),
      newline(id_of(t, "\n")) {
  for (std::size_t id = 0; id < t.size(); ++id) {
    const std::string& c = t.character(static_cast<TokenId>(id));
    tone[id] = tables.tone(c);
    rhyme_group[id] = tables.rhyme_group(c).value_or(0);
  }
}

VerseConstraint::VerseConstraint(const VerseVocabulary& vocab, const VerseForm& form)
    : vocab_(vocab), form_(form) {
  for (std::size_t line = 0; line < form.lines; ++line) {
    for (std::size_t i = 0; i < form.chars; ++i) slots_.push_back(Slot{});
    slots_.push_back(Slot{line % 2 == 0 ? vocab.comma : vocab.full_stop});
  }
  slots_.push_back(Slot{vocab.newline});
}

VerseConstraint& VerseConstraint::with_heads(std::span<const TokenId> heads) {
  if (heads.size() != form_.lines) {
    throw UserError(std::to_string(heads.size()) + " head characters for a " + form_.name +
                    ", which has " + std::to_string(form_.lines) + " lines: give one a line");
  }
  for (std::size_t line = 0; line < form_.lines; ++line) {
    slots_[line * (form_.chars + 1)].fixed = heads[line];
  }
  return *this;
}

VerseConstraint& VerseConstraint::with_tones(const VersePattern& pattern) {
  for (std::size_t line = 0; line < form_.lines; ++line) {
    for (std::size_t i = 0; i < form_.chars; ++i) {
      Slot& s = slots_[line * (form_.chars + 1) + i];
      s.tone = pattern.lines.at(line).at(i);
      s.rhyme = i + 1 == form_.chars && pattern.rhymes.at(line);
    }
  }
  return *this;
}

VerseConstraint& VerseConstraint::with_rhyme_group(int group) {
  if (group < 1 || group > vocab_.tables.group_count()) {
    throw UserError("rhyme group " + std::to_string(group) +
                    " does not exist: the groups are 1 .. " +
                    std::to_string(vocab_.tables.group_count()));
  }
  rhyme_group_ = group;
  return *this;
}

VerseConstraint& VerseConstraint::without_repeats() {
  no_repeats_ = true;
  return *this;
}

VerseConstraint& VerseConstraint::without_lines_of(const TrainingLines& lines) {
  banned_lines_ = &lines;
  return *this;
}

std::vector<std::size_t> VerseConstraint::rhyme_characters(const std::vector<bool>& used) const {
  std::vector<std::size_t> count(static_cast<std::size_t>(vocab_.tables.group_count()) + 1, 0);
  for (std::size_t id = 0; id < vocab_.tokenizer.size(); ++id) {
    if (!used[id] && vocab_.tone[id] == Tone::kPing && vocab_.rhyme_group[id] > 0)
      count[static_cast<std::size_t>(vocab_.rhyme_group[id])] += 1;
  }
  return count;
}

std::size_t VerseConstraint::rhyme_slots_from(std::size_t position) const {
  std::size_t n = 0;
  for (std::size_t i = position; i < slots_.size(); ++i) n += slots_[i].rhyme;
  return n;
}

std::string VerseConstraint::why_impossible() const {
  const std::size_t rhymes = rhyme_slots_from(0);
  if (rhymes == 0) return "";
  std::vector<bool> used(vocab_.tokenizer.size(), false);
  std::string heads;
  if (no_repeats_) {
    for (const Slot& s : slots_) {
      if (s.fixed && *s.fixed != vocab_.comma && *s.fixed != vocab_.full_stop &&
          *s.fixed != vocab_.newline) {
        used[static_cast<std::size_t>(*s.fixed)] = true;
        heads += vocab_.tokenizer.character(*s.fixed);
      }
    }
  }
  const std::size_t needed = no_repeats_ ? rhymes : 1;
  const std::vector<std::size_t> count = rhyme_characters(used);
  const std::string besides = heads.empty() ? "" : " besides the heads " + heads;
  if (rhyme_group_) {
    const std::size_t have = count[static_cast<std::size_t>(*rhyme_group_)];
    if (have >= needed) return "";
    return "rhyme group " + std::to_string(*rhyme_group_) + " has " + std::to_string(have) +
           (have == 1 ? " 平 character" : " 平 characters") + " this model knows" + besides +
           ", and a " + form_.name + " with no " + "character twice needs " +
           std::to_string(needed) + " for its rhyming lines";
  }
  for (std::size_t g = 1; g < count.size(); ++g) {
    if (count[g] >= needed) return "";
  }
  return "no rhyme group has " + std::to_string(needed) + " 平 characters this model knows" +
         besides + ", as a " + form_.name + " with no character twice needs";
}

std::optional<int> VerseConstraint::rhyme_group_after(std::span<const TokenId> written) const {
  if (rhyme_group_) return rhyme_group_;
  for (std::size_t i = 0; i < written.size() && i < slots_.size(); ++i) {
    const int g = vocab_.rhyme_group[static_cast<std::size_t>(written[i])];
    if (slots_[i].rhyme && g > 0) return g;
  }
  return std::nullopt;
}

LogitMask VerseConstraint::allowed_next(std::span<const TokenId> written) const {
  if (written.size() >= slots_.size()) {
    throw std::invalid_argument("allowed_next: the poem is complete (" +
                                std::to_string(slots_.size()) + " characters)");
  }
  const Slot& slot = slots_[written.size()];
  LogitMask mask(vocab_.tokenizer.size());
  if (slot.fixed) {
    const TokenId only[] = {*slot.fixed};
    return mask.allow_only(only);
  }
  const std::optional<int> group = slot.rhyme ? rhyme_group_after(written) : std::nullopt;
  std::vector<bool> used(vocab_.tokenizer.size(), false);
  if (no_repeats_) {
    for (TokenId id : written) used[static_cast<std::size_t>(id)] = true;
    for (std::size_t i = written.size() + 1; i < slots_.size(); ++i) {  // heads still to come
      if (slots_[i].fixed) used[static_cast<std::size_t>(*slots_[i].fixed)] = true;
    }
  }
  const bool line_ends_here = written.size() + 1 < slots_.size() &&
                              slots_[written.size() + 1].fixed &&
                              (*slots_[written.size() + 1].fixed == vocab_.comma ||
                               *slots_[written.size() + 1].fixed == vocab_.full_stop);
  if (banned_lines_ && line_ends_here) {  // no line copied whole from a training poem
    const std::size_t line_start = written.size() / (form_.chars + 1) * (form_.chars + 1);
    const std::string so_far = vocab_.tokenizer.decode(std::vector<TokenId>(
        written.begin() + static_cast<std::ptrdiff_t>(line_start), written.end()));
    if (const auto* endings = banned_lines_->endings(so_far)) {
      for (const std::string& c : *endings) {
        if (const auto id = vocab_.tokenizer.find(c)) used[static_cast<std::size_t>(*id)] = true;
      }
    }
  }
  // The first rhyme chooses the group: only one with rhymes enough for the
  // rest of the poem (with no character twice, one per rhyming line left).
  std::vector<std::size_t> rhymes_left;
  std::size_t rhymes_needed = 0;
  if (slot.rhyme && !group && no_repeats_) {
    rhymes_left = rhyme_characters(used);
    rhymes_needed = rhyme_slots_from(written.size());
  }
  std::vector<TokenId> allowed;
  for (std::size_t id = 0; id < vocab_.tokenizer.size(); ++id) {
    const auto t = static_cast<TokenId>(id);
    if (t == vocab_.comma || t == vocab_.full_stop || t == vocab_.newline || used[id]) {
      continue;  // punctuation and ⏎ only where a slot fixes them
    }
    const std::optional<Tone> tone = vocab_.tone[id];  // nullopt: not in data/tones.tsv
    if (slot.tone != Tone::kEither && (!tone || (*tone != Tone::kEither && *tone != slot.tone))) {
      continue;
    }
    if (slot.rhyme) {  // 平 and in the group (every group member is 平 in data/tones.tsv)
      if (tone != Tone::kPing || vocab_.rhyme_group[id] == 0) continue;
      if (group && vocab_.rhyme_group[id] != *group) continue;
      if (!rhymes_left.empty() &&
          rhymes_left[static_cast<std::size_t>(vocab_.rhyme_group[id])] < rhymes_needed)
        continue;
    }
    allowed.push_back(static_cast<TokenId>(id));
  }
  return mask.allow_only(allowed);
}

std::string VerseConstraint::rest_of_line(std::span<const TokenId> written) const {
  std::string rest;
  for (std::size_t i = written.size(); i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.fixed &&
        (*s.fixed == vocab_.comma || *s.fixed == vocab_.full_stop || *s.fixed == vocab_.newline)) {
      break;
    }
    rest += s.fixed ? vocab_.tokenizer.character(*s.fixed) : pattern_tone_name(s.tone);
    if (s.rhyme) {
      const auto g = rhyme_group_after(written);
      rest += g ? " (rhyme, group " + std::to_string(*g) + ")" : " (rhyme, any group)";
    }
  }
  return rest;
}

}  // namespace tang

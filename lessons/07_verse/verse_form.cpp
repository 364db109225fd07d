#include "07_verse/verse_form.hpp"

namespace tang {

const std::vector<VerseForm>& verse_forms() {
  static const std::vector<VerseForm> forms = {
      {"五绝", 4, 5}, {"七绝", 4, 7}, {"五律", 8, 5}, {"七律", 8, 7}};
  return forms;
}

std::optional<VerseForm> form_named(const std::string& name) {
  for (const VerseForm& f : verse_forms()) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

std::string form_names() {
  std::string names;
  const std::vector<VerseForm>& forms = verse_forms();
  for (std::size_t i = 0; i < forms.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + forms[i].name;
  }
  return names;
}

std::optional<VerseForm> form_of_shape(std::size_t lines, std::size_t chars) {
  for (const VerseForm& f : verse_forms()) {
    if (f.lines == lines && f.chars == chars) return f;
  }
  return std::nullopt;
}

std::string VersePattern::describe() const {
  return std::string(start == Tone::kPing ? "平起" : "仄起") +
         (first_line_rhymes ? ", first line rhymes" : ", first line does not rhyme");
}

VersePattern verse_pattern(const VerseForm& form, Tone start, bool first_line_rhymes) {
  VersePattern p;
  p.start = start;
  p.first_line_rhymes = first_line_rhymes;
  Tone second = start;  // position 2 of the current line
  for (std::size_t line = 0; line < form.lines; ++line) {
    if (line > 0) {
      // 对 inside a couplet (line 2 of it is the opposite), 粘 across couplets (the same)
      second = line % 2 == 1 ? opposite(second) : second;
    }
    std::vector<Tone> tones(form.chars, Tone::kEither);  // 一三五不论
    for (std::size_t position = 2; position < form.chars; position += 2) {
      tones[position - 1] = position % 4 == 2 ? second : opposite(second);  // 二四六分明
    }
    const bool rhymes = line % 2 == 1 || (line == 0 && first_line_rhymes);
    tones[form.chars - 1] = rhymes ? Tone::kPing : Tone::kZe;
    p.lines.push_back(tones);
    p.rhymes.push_back(rhymes);
  }
  return p;
}

VersePattern default_pattern(const VerseForm& form) {
  return form.chars == 7 ? verse_pattern(form, Tone::kPing, true)
                         : verse_pattern(form, Tone::kZe, false);
}

}  // namespace tang

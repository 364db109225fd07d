#include "07_verse/check_verse.hpp"

#include <map>
#include <set>

#include "07_verse/exercise/line_tones.hpp"  // exercise 07a
#include "errors.hpp"                        // printable
#include "utf8.hpp"

namespace tang {

namespace {

bool is_mark(const std::string& c) {
  return c == "，" || c == "。";
}

// A CJK ideograph: the unified blocks, their extensions and the compatibility forms.
bool is_han(const std::string& c) {
  const char32_t u = utf8_decode_one(c);
  return (u >= 0x4E00 && u <= 0x9FFF) || (u >= 0x3400 && u <= 0x4DBF) ||
         (u >= 0x20000 && u <= 0x3134F) || (u >= 0xF900 && u <= 0xFAFF);
}

std::string quoted(const std::string& text) {
  std::string q(1, '\'');
  q += text;
  q += '\'';
  return q;
}

// Why a character that is neither a Chinese character nor ，。 cannot be in a
// poem, for the message; `line` counts from 1.
std::string not_verse_character(const std::string& c, std::size_t line) {
  std::string where = " in line ";
  where += std::to_string(line);
  const char32_t u = utf8_decode_one(c);
  if (u == 0xFEFF) return "it has a byte-order mark (U+FEFF): save the text without one";
  if (u == ' ' || u == '\t' || u == 0x3000 || u == 0xA0) {
    return "it has a space" + where + ": write the poem without spaces";
  }
  if (c == "？" || c == "！" || c == "；" || c == "、" || c == "：" || c == "," || c == "." ||
      c == "?" || c == "!" || c == ";") {
    return quoted(c) + where + ": the lines of regular verse end in ，or 。 only";
  }
  return quoted(printable(c)) + where +
         " is not a Chinese character: regular verse is written in Chinese characters, its lines "
         "ending in ，or 。";
}

// The rule a position of a line stands for, for the message.
std::string rule_at(std::size_t line, std::size_t position, const VerseForm& form,
                    const VersePattern& pattern) {
  if (position == form.chars) {
    return pattern.rhymes[line] ? "a rhyming line ends in 平"
                                : "a line that does not rhyme ends in 仄";
  }
  if (position == 2) {
    if (line == 0) return pattern.start == Tone::kPing ? "平起" : "仄起";
    return line % 2 == 1 ? "对: the opposite of line " + std::to_string(line) + "'s"
                         : "粘: the same as line " + std::to_string(line) + "'s";
  }
  return "二四六分明";
}

// Checks `check.lines` against one pattern; fills problems and counts.
void check_against(VerseCheck& check, const VerseTables& tables) {
  const VerseForm& form = *check.form;
  check.tone_problems = check.rhyme_problems = 0;
  check.rhyme_group.reset();
  for (std::size_t i = 0; i < check.lines.size(); ++i) {
    LineCheck& line = check.lines[i];
    line.problems.clear();
    for (std::size_t position : tone_mismatches(line.tones, check.pattern.lines[i])) {
      line.problems.push_back("position " + std::to_string(position) + ": '" +
                              line.characters[position - 1] + "' is " +
                              character_tone_name(line.tones[position - 1]) + ", needs " +
                              pattern_tone_name(check.pattern.lines[i][position - 1]) + " (" +
                              rule_at(i, position, form, check.pattern) + ")");
      ++check.tone_problems;
    }
  }
  // The rhyme: the group most rhyme characters are in (ties: the first seen).
  std::map<int, int> votes;
  std::vector<int> order;
  for (std::size_t i = 0; i < check.lines.size(); ++i) {
    if (!check.pattern.rhymes[i]) continue;
    if (auto g = tables.rhyme_group(check.lines[i].characters.back())) {
      if (votes[*g]++ == 0) order.push_back(*g);
    }
  }
  for (int g : order) {
    if (!check.rhyme_group || votes[g] > votes[*check.rhyme_group]) check.rhyme_group = g;
  }
  if (!check.rhyme_group) return;
  for (std::size_t i = 0; i < check.lines.size(); ++i) {
    if (!check.pattern.rhymes[i]) continue;
    const std::string& last = check.lines[i].characters.back();
    const auto g = tables.rhyme_group(last);
    if (g && *g != *check.rhyme_group) {
      check.lines[i].problems.push_back("rhyme: '" + last + "' is in group " + std::to_string(*g) +
                                        ", the poem rhymes in group " +
                                        std::to_string(*check.rhyme_group));
      ++check.rhyme_problems;
    }
  }
}

}  // namespace

VerseCheck check_verse(const std::string& poem, const VerseTables& tables) {
  VerseCheck check;
  std::string text = poem;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  LineCheck current;
  std::set<std::string> seen;
  for (const std::string& c : utf8_split(text)) {
    if (!is_mark(c) && !is_han(c)) {
      check.not_a_form = not_verse_character(c, check.lines.size() + 1);
      return check;
    }
    if (is_mark(c)) {
      current.mark = c;
      check.lines.push_back(current);
      current = LineCheck{};
      continue;
    }
    if (check.repeated.empty() && !seen.insert(c).second) check.repeated = c;
    current.characters.push_back(c);
    current.tones.push_back(tables.tone(c).value_or(Tone::kEither));
  }
  if (!current.characters.empty()) {
    check.not_a_form = "it does not end with ，or 。 (the last line is unfinished)";
    return check;
  }
  const std::size_t chars = check.lines.empty() ? 0 : check.lines[0].characters.size();
  for (std::size_t i = 0; i < check.lines.size(); ++i) {
    if (check.lines[i].characters.size() != chars) {
      check.not_a_form = "line " + std::to_string(i + 1) + " has " +
                         std::to_string(check.lines[i].characters.size()) +
                         " characters and line 1 has " + std::to_string(chars) +
                         ": all lines of a regular verse have as many";
      return check;
    }
  }
  check.form = form_of_shape(check.lines.size(), chars);
  if (!check.form) {
    const std::size_t n = check.lines.size();
    check.not_a_form = std::to_string(n) + (n == 1 ? " line" : " lines") + " of " +
                       std::to_string(chars) +
                       " characters: regular verse has 4 or 8 lines of 5 or 7";
    return check;
  }
  // Try the four patterns; keep the one with the fewest problems (ties: the order below,
  // which starts with what line 1's second and last characters suggest).
  const Tone second = check.lines[0].tones[1];
  const bool ends_level = check.lines[0].tones.back() != Tone::kZe;
  VerseCheck best;
  bool have_best = false;
  for (Tone start : {second == Tone::kZe ? Tone::kZe : Tone::kPing,
                     second == Tone::kZe ? Tone::kPing : Tone::kZe}) {
    for (bool first_rhymes : {ends_level, !ends_level}) {
      VerseCheck candidate = check;
      candidate.pattern = verse_pattern(*check.form, start, first_rhymes);
      check_against(candidate, tables);
      const std::size_t problems = candidate.tone_problems + candidate.rhyme_problems;
      if (!have_best || problems < best.tone_problems + best.rhyme_problems) {
        best = std::move(candidate);
        have_best = true;
      }
    }
  }
  return best;
}

std::string tone_row(const std::vector<Tone>& tones) {
  std::string row;
  for (Tone t : tones) row += character_tone_name(t);
  return row;
}

std::string describe_check(const VerseCheck& check, bool no_repeat, const std::string& indent) {
  std::string out;
  if (!check.form) return indent + "not regular verse: " + check.not_a_form + "\n";
  for (std::size_t i = 0; i < check.lines.size(); ++i) {
    const LineCheck& line = check.lines[i];
    std::string text;
    for (const std::string& c : line.characters) text += c;
    out += indent + text + line.mark + "  " + tone_row(line.tones);
    out += check.pattern.rhymes[i] ? "  rhyme" : "       ";
    if (line.problems.empty()) out += "  ok";
    for (std::size_t p = 0; p < line.problems.size(); ++p) {
      out += (p == 0 ? "  " : "; ") + line.problems[p];
    }
    out += "\n";
  }
  out += indent + "-> " + check.form->name + ", " + check.pattern.describe();
  if (check.rhyme_group) out += ", rhyme group " + std::to_string(*check.rhyme_group);
  if (!check.repeated.empty()) out += ", repeats '" + check.repeated + "'";
  out += check.passes(no_repeat) ? ": passes\n" : ": FAILS\n";
  return out;
}

}  // namespace tang

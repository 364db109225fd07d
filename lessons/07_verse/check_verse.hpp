// check_verse.hpp: does a poem keep the rules of regular verse (verse_form.hpp)?
//
//   VerseCheck c = check_verse("秦时明月汉时关，万里长征人未还。...", tables);
//   c.passes()          the form, 粘 对 二四六 and the line ends, one rhyme group
//   c.lines[i].problems what line i+1 broke, in words
//
// A poem is its lines, each ending in ，or 。 (a final newline is ignored); it
// has a form when it has 4 or 8 lines, all of 5 or all of 7 characters. The
// check tries the patterns of both starts (平起, 仄起) and with and without a
// rhyming first line, and keeps the one the poem breaks least; each line is
// compared with its pattern by exercise 07a (tone_mismatches).
//
// Rhyme: the characters that end the rhyming lines must share one group of
// data/rhymes.tsv. A rhyme character that is in no group (两 characters such as
// 空 看 长, rare ones) cannot be judged and is not held against the poem.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "07_verse/verse_form.hpp"
#include "07_verse/verse_tables.hpp"

namespace tang {

struct LineCheck {
  std::vector<std::string> characters;  // the line without its mark
  std::string mark;                     // "，" or "。"
  std::vector<Tone> tones;              // (chars); kEither for 两 and unknown characters
  std::vector<std::string> problems;    // empty: the line keeps every rule
};

struct VerseCheck {
  std::optional<VerseForm> form;   // nullopt: not 4 or 8 lines of 5 or 7 characters
  std::string not_a_form;          // why, when form is nullopt
  VersePattern pattern;            // the pattern the poem fits best
  std::optional<int> rhyme_group;  // the group its rhymes share (nullopt: none judged)
  std::vector<LineCheck> lines;
  std::size_t tone_problems = 0;   // positions against the pattern (粘 对 二四六, line ends)
  std::size_t rhyme_problems = 0;  // rhyme characters outside the poem's group
  std::string repeated;            // a character the poem uses twice ("": none)

  bool tones_ok() const { return form && tone_problems == 0; }
  bool rhyme_ok() const { return form && rhyme_problems == 0; }
  // Form, tones and rhyme; with no_repeat also no character twice.
  bool passes(bool no_repeat = false) const {
    return tones_ok() && rhyme_ok() && (!no_repeat || repeated.empty());
  }
};

VerseCheck check_verse(const std::string& poem, const VerseTables& tables);

// The check as text: per line its characters, their tones and any problem,
// then the verdict. Every line starts with `indent`.
std::string describe_check(const VerseCheck& check, bool no_repeat, const std::string& indent);

// A line's tones as text, one 平 / 仄 / 两 per character.
std::string tone_row(const std::vector<Tone>& tones);

}  // namespace tang

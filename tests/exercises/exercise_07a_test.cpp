// exercise_07a_test: EXERCISE 07a, the tone check of one line
// (lessons/07_verse/exercise/line_tones.cpp).
//
//   ctest --preset yours -L '^yours_07a$'     your code
//   ctest --preset release -L exercise_07a     the reference solution
//
// Hand-made lines first (each rule of the comment on its own), then every
// line of a famous poem against the pattern of its form, and random lines
// against a check written here in another way (count what fits).

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "07_verse/exercise/line_tones.hpp"
#include "07_verse/verse_form.hpp"

namespace {

using tang::Tone;
using tang::tone_mismatches;
constexpr Tone P = Tone::kPing, Z = Tone::kZe, E = Tone::kEither;

using Positions = std::vector<std::size_t>;

// Tones as the lesson writes them: a line's characters 平 仄 两 (either), a
// pattern's positions 平 仄 中 (either), so that a failure reads as a line.
std::string shown(const std::vector<Tone>& tones, const char* either) {
  std::string text;
  for (Tone t : tones) text += t == P ? "平" : t == Z ? "仄" : either;
  return text.empty() ? "(empty)" : text;
}

// The positions yours reports for `line` against `pattern` must be `expected`.
void expect_mismatches(const std::vector<Tone>& line, const std::vector<Tone>& pattern,
                       const Positions& expected, const std::string& why) {
  EXPECT_EQ(tone_mismatches(line, pattern), expected)
      << "the line " << shown(line, "两") << " against the pattern " << shown(pattern, "中")
      << " (positions from 1): " << why;
}

TEST(Exercise07a, ALineThatFitsHasNoMismatch) {
  expect_mismatches({Z, Z, P, P, Z}, {Z, Z, P, P, Z}, {}, "every position fits");
}

TEST(Exercise07a, EachWrongPositionIsReportedOneBasedInOrder) {
  expect_mismatches({P, P, P}, {E, P, P}, {}, "every position fits");
  expect_mismatches({P, Z, P}, {E, P, P}, {2}, "only position 2 breaks (仄 where 平 is due)");
  expect_mismatches({P, Z, Z, P, Z}, {Z, P, Z, Z, P}, {1, 2, 4, 5},
                    "four positions break, reported in order");
}

TEST(Exercise07a, AnEitherPositionTakesAnything) {
  expect_mismatches({P, Z, E}, {E, E, E}, {}, "中 takes any character");
}

TEST(Exercise07a, AnEitherCharacterFitsAnyPosition) {
  expect_mismatches({E, E, E}, {P, Z, E}, {}, "a 两 character fits any position");
  expect_mismatches({E, Z, E}, {P, P, Z}, {2}, "the 两 characters fit; 仄 at position 2 does not");
}

TEST(Exercise07a, AnEmptyLineAgainstAnEmptyPatternFits) {
  expect_mismatches({}, {}, {}, "nothing to check, nothing breaks");
}

TEST(Exercise07a, LengthsThatDifferThrow) {
  EXPECT_THROW(tone_mismatches(std::vector{P, P, P, P, P}, std::vector{P, P, P, P, P, P, P}),
               std::invalid_argument)
      << "a line of 5 against a pattern of 7 must throw std::invalid_argument";
  EXPECT_THROW(tone_mismatches(std::vector{P}, std::vector<Tone>{}), std::invalid_argument)
      << "a line of 1 against an empty pattern must throw std::invalid_argument";
}

// A five-character line and its pattern, each the first five tones of a longer buffer
// (a line of a poem's tones, a row of a form's patterns): positions 6 and 7 past their
// ends clash, 仄 against 平, and must not be checked.
TEST(Exercise07a, ChecksNothingPastTheEndOfTheSpans) {
  const std::vector<Tone> line_buffer = {P, P, Z, Z, P, Z, Z};
  const std::vector<Tone> pattern_buffer = {P, P, Z, Z, P, P, P};
  const std::span<const Tone> line = std::span(line_buffer).first(5);
  const std::span<const Tone> pattern = std::span(pattern_buffer).first(5);
  const Positions got = tone_mismatches(line, pattern);
  EXPECT_EQ(got, Positions{})
      << "the line 平平仄仄平 against the pattern 平平仄仄平 fits; the spans end at position 5, "
         "but the buffers they lie in go on with 仄仄 and 平平, which clash at 6 and 7. Check "
         "line.size() positions only, never past the spans' ends (a line may have 5 characters)";
}

TEST(Exercise07a, ChuSaiAgainstTheSevenCharacterPattern) {
  // 秦时明月汉时关 ... with the tones of data/tones.tsv (教 将 两), 七绝 平起, first line rhyming
  const std::vector<std::vector<Tone>> poem = {
      {P, P, P, Z, Z, P, P}, {Z, Z, E, P, P, Z, P}, {Z, Z, P, P, P, E, Z}, {Z, E, P, Z, Z, P, P}};
  const tang::VersePattern pattern =
      tang::verse_pattern(*tang::form_named("七绝"), Tone::kPing, true);
  for (std::size_t i = 0; i < poem.size(); ++i) {
    expect_mismatches(poem[i], pattern.lines[i], {},
                      "line " + std::to_string(i + 1) + " of 出塞 fits its 平起 pattern");
  }
  // against the 仄起 pattern, the first line breaks at 2, 4 and 6
  const tang::VersePattern other = tang::verse_pattern(*tang::form_named("七绝"), Tone::kZe, true);
  expect_mismatches(poem[0], other.lines[0], {2, 4, 6},
                    "against the 仄起 pattern, 出塞's first line breaks at 2, 4 and 6");
}

TEST(Exercise07a, RandomLinesAgreeWithCountingWhatFits) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> tone(0, 2);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 9);
    std::vector<Tone> line(n), pattern(n);
    Positions expected;
    for (std::size_t i = 0; i < n; ++i) {
      line[i] = static_cast<Tone>(tone(gen));
      pattern[i] = static_cast<Tone>(tone(gen));
      const bool clash = (line[i] == P && pattern[i] == Z) || (line[i] == Z && pattern[i] == P);
      if (clash) expected.push_back(i + 1);
    }
    ASSERT_EQ(tone_mismatches(line, pattern), expected)
        << "trial " << trial << ": the line " << shown(line, "两") << " against the pattern "
        << shown(pattern, "中") << " (positions from 1; 平 against 仄 breaks, 两 and 中 never do)";
  }
}

}  // namespace

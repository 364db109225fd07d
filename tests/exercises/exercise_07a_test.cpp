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
#include <stdexcept>
#include <vector>

#include "07_verse/exercise/line_tones.hpp"
#include "07_verse/verse_form.hpp"

namespace {

using tang::Tone;
using tang::tone_mismatches;
constexpr Tone P = Tone::kPing, Z = Tone::kZe, E = Tone::kEither;

using Positions = std::vector<std::size_t>;

TEST(Exercise07a, ALineThatFitsHasNoMismatch) {
  EXPECT_EQ(tone_mismatches(std::vector{Z, Z, P, P, Z}, std::vector{Z, Z, P, P, Z}), Positions{});
}

TEST(Exercise07a, EachWrongPositionIsReportedOneBasedInOrder) {
  EXPECT_EQ(tone_mismatches(std::vector{P, P, P}, std::vector{E, P, P}), Positions{});
  EXPECT_EQ(tone_mismatches(std::vector{P, Z, P}, std::vector{E, P, P}), Positions{2});
  EXPECT_EQ(tone_mismatches(std::vector{P, Z, Z, P, Z}, std::vector{Z, P, Z, Z, P}),
            (Positions{1, 2, 4, 5}));
}

TEST(Exercise07a, AnEitherPositionTakesAnything) {
  EXPECT_EQ(tone_mismatches(std::vector{P, Z, E}, std::vector{E, E, E}), Positions{});
}

TEST(Exercise07a, AnEitherCharacterFitsAnyPosition) {
  EXPECT_EQ(tone_mismatches(std::vector{E, E, E}, std::vector{P, Z, E}), Positions{});
  EXPECT_EQ(tone_mismatches(std::vector{E, Z, E}, std::vector{P, P, Z}), Positions{2});
}

TEST(Exercise07a, AnEmptyLineAgainstAnEmptyPatternFits) {
  EXPECT_EQ(tone_mismatches(std::vector<Tone>{}, std::vector<Tone>{}), Positions{});
}

TEST(Exercise07a, LengthsThatDifferThrow) {
  EXPECT_THROW(tone_mismatches(std::vector{P, P, P, P, P}, std::vector{P, P, P, P, P, P, P}),
               std::invalid_argument);
  EXPECT_THROW(tone_mismatches(std::vector{P}, std::vector<Tone>{}), std::invalid_argument);
}

TEST(Exercise07a, ChuSaiAgainstTheSevenCharacterPattern) {
  // 秦时明月汉时关 ... with the tones of data/tones.tsv (教 将 两), 七绝 平起, first line rhyming
  const std::vector<std::vector<Tone>> poem = {
      {P, P, P, Z, Z, P, P}, {Z, Z, E, P, P, Z, P}, {Z, Z, P, P, P, E, Z}, {Z, E, P, Z, Z, P, P}};
  const tang::VersePattern pattern =
      tang::verse_pattern(*tang::form_named("七绝"), Tone::kPing, true);
  for (std::size_t i = 0; i < poem.size(); ++i) {
    EXPECT_EQ(tone_mismatches(poem[i], pattern.lines[i]), Positions{}) << "line " << i + 1;
  }
  // against the 仄起 pattern, every line breaks at 2, 4 and 6
  const tang::VersePattern other = tang::verse_pattern(*tang::form_named("七绝"), Tone::kZe, true);
  EXPECT_EQ(tone_mismatches(poem[0], other.lines[0]), (Positions{2, 4, 6}));
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
    ASSERT_EQ(tone_mismatches(line, pattern), expected) << "trial " << trial;
  }
}

}  // namespace

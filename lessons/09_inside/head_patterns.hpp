// head_patterns.hpp: what each head attends to, measured over many poems.
//
// For every position t of a poem (the query) and every head, the attention
// weight it gives to a few kinds of earlier position, summed over that kind:
//
//   self          t itself
//   previous      t - 1
//   column        the same column of the previous line (exercise 09a), the
//                 couplet's parallel position
//   next column   the column after it in the previous line: the parallel of
//                 the character t is about to predict
//   newline       position 0, the poem's opening newline (a "sink": a head
//                 with nothing to look for can park its weight there)
//   rhyme ends    when t's next character ends line 4 or a later even line, the
//                 ends of the earlier even lines, the rhymes already written
//   punctuation   every ，and 。 up to t
//
// A query counts only for the kinds it has a target of (the first line has no
// previous line; only rhyme queries count for "rhyme ends"). Beside each head,
// the same sums for uniform causal attention (1 / (t + 1) on every s <= t):
// what a head that looks nowhere in particular would get.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "09_inside/exercise/column_attention.hpp"  // PatternSum, exercise 09a
#include "gpt.hpp"

namespace tang {

constexpr std::size_t kPatterns = 7;
extern const std::array<const char*, kPatterns> kPatternNames;

using PatternSums = std::array<PatternSum, kPatterns>;

struct HeadPatterns {
  std::size_t L = 0, NH = 0, poems = 0, positions = 0;
  std::vector<PatternSums> heads;  // (L * NH), head h of layer l at l * NH + h
  PatternSums uniform;             // uniform causal attention over the same queries
};

// `poems`: "\n" poem "\n" token ids (lesson 08's heldout_poems); each is read
// without its final newline, at most the context.
HeadPatterns measure_head_patterns(const GPT& model,
                                   const std::vector<std::vector<TokenId>>& poems);

}  // namespace tang

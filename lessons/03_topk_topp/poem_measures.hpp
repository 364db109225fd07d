// poem_measures.hpp: what measure_settings counts in a poem.
//
// A "line" (句) is the text before a ，or a 。 (the punctuation not included);
// text after the last mark, where a poem was cut off or ended without one, is
// not a line. Punctuation means ，and 。, the only marks of the corpus.
//
//   copied lines   lines of 5 or more characters that are also a line of some
//                  training poem (the model may have learnt them by heart)
//   repeats        some character, not punctuation, occurs twice or more
//   regular verse  the corpus's own filter (data/README.md, "Filter rules"):
//                  not empty, ends with 。, every line 5 or 7 characters, all
//                  of the same length, every character in U+4E00..U+9FFF
//   log p          ln of the probability the model gave each character at
//                  T = 1, softmax(logits)[id], before any sampling setting
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

// Whether `character` is ，or 。.
bool is_punctuation(const std::string& character);

// The lines of a poem, in order, each without its mark.
std::vector<std::string> lines_of_poem(const std::string& poem);

struct LineCopies {
  std::size_t long_lines = 0;  // lines of 5 or more characters
  std::size_t copied = 0;      // ... of them in the training lines
};

// The poem's long lines, and how many of them are in `training_lines`.
LineCopies count_copied_lines(const std::string& poem,
                              const std::unordered_set<std::string>& training_lines);

// Whether some character other than punctuation occurs twice or more.
bool repeats_a_character(const std::string& poem);

// Whether the poem passes the corpus's filter (rule 4 of data/README.md).
bool is_regular_verse(const std::string& poem);

// ln softmax(logits)[id]: the model's own log-probability of `id` at T = 1.
// Computed as (z_id - max) - ln sum_j exp(z_j - max) in double, so that a very
// unlikely character still gets a finite number.
double log_probability(std::span<const float> logits, TokenId id);

// The figures of one row of the table, poem by poem.
struct Tally {
  std::size_t poems = 0;
  LineCopies lines;
  std::size_t repeating = 0;       // poems that repeat a character
  std::size_t valid = 0;           // regular verse that ended by itself
  std::size_t characters = 0;      // poem characters, punctuation included, newline not
  std::set<std::string> distinct;  // characters used, punctuation not
  double log_p = 0.0;              // sum of ln p over the scored characters
  std::size_t scored = 0;          // characters scored (the final newline included)

  // One poem: its text (no newline), whether it ended by itself (wrote the
  // newline), and the ln p of every character it was written with.
  void add(const std::string& poem, bool ended, double log_p_sum, std::size_t scored_characters,
           const std::unordered_set<std::string>& training_lines);
};

}  // namespace tang

// poem_layout.hpp: where each position of a poem sits in its lines.
//
// The text is "\n" + poem, as the model reads it: position 0 is the opening
// newline, then the characters, each line ending in ，or 。. For
// "\n白日依山尽，黄河入海流。":
//
//   position  0   1  2  3  4  5  6   7  8  9 10 11 12
//   character ⏎   白 日 依 山 尽 ，  黄 河 入 海 流 。
//   line     -1   0  0  0  0  0 -1   1  1  1  1  1 -1
//   column   -1   0  1  2  3  4 -1   0  1  2  3  4 -1
#pragma once

#include <span>
#include <vector>

#include "tokenizer.hpp"

namespace tang {

struct PoemLayout {
  std::vector<int> line;    // (T) 0-based line of a character; -1 for ⏎, ，and 。
  std::vector<int> column;  // (T) 0-based column in its line; -1 likewise
  std::vector<bool> mark;   // (T) whether position t is ，or 。
  std::vector<std::vector<std::size_t>> lines;  // each line's positions, in order
};

PoemLayout layout_of(const Tokenizer& tokenizer, std::span<const TokenId> tokens);

// The rhyme positions of regular verse: the last character of every second
// line (lines 2, 4, ...; 0-based 1, 3, ...). Positions, in order.
std::vector<std::size_t> rhyme_positions(const PoemLayout& layout);

}  // namespace tang

// exercise/column_attention.hpp: EXERCISE 09a: how much one head attends to the
// same column of the previous line, the couplet's parallel position (对仗).
//
// Lesson 09 runs it on every head, over the held-out poems, for its table of
// what each head is for, and on uniform causal attention for the baseline
// beside each number. It runs the reference solution
// (solution/column_attention.cpp) unless started with --yours 09a; then YOUR
// file exercise/column_attention.cpp, whose comment says exactly what it must do:
//   cmake --build --preset release --target exercise_09a_test
//   ctest --preset yours -L '^yours_09a$'
//   build/release/lessons/09_inside/lesson_09_inside --yours 09a --section 9
#pragma once

#include <cstddef>
#include <span>

namespace tang {

// A pattern's score over some positions: the attention weight it received,
// summed, and the number of positions (queries) that had the pattern's target.
// The mean is weight / queries; sums add up over poems.
struct PatternSum {
  double weight = 0.0;
  std::size_t queries = 0;
};

}  // namespace tang

namespace tang::mine {

// weights (T, T), row t the attention of position t over positions 0 .. t (a
// row sums to 1, zeros past t); line[t] and column[t] place position t in the
// poem (0-based), or are -1 where t is not a character of a line (the newline,
// ，and 。).
PatternSum previous_line_column(std::span<const float> weights, std::size_t T,
                                std::span<const int> line, std::span<const int> column);

}  // namespace tang::mine

// The reference solution's (solution/column_attention.cpp): the same signature as
// yours, written once above (decltype names a function's type).
namespace tang::reference {
decltype(mine::previous_line_column) previous_line_column;
}  // namespace tang::reference

// What the lesson calls: the reference solution's, or with --yours 09a yours, checked
// against it at every call (column_attention_switch.cpp, common/exercise_code.hpp).
namespace tang {
decltype(mine::previous_line_column) previous_line_column;
}  // namespace tang

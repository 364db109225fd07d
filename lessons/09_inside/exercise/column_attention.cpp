// EXERCISE 09a: attention to the same column of the previous line.
//
// In regular verse the lines of a couplet answer each other position by
// position (对仗): 白日 against 黄河, 依山尽 against 入海流. A head that
// tracks that structure puts weight, at column j of line i, on column j of
// line i - 1.
//
//   previous_line_column(weights, T, line, column)
//     weights (T, T), row stride T: weights[t * T + s] is how much position t
//     attends to position s (s <= t). line (T), column (T): line[t] and
//     column[t] are where position t sits, 0-based, or -1 for a position that
//     is not a character of a line (the opening newline, ，and 。). For every
//     position t with line[t] >= 1, look for the position s < t with
//     line[s] == line[t] - 1 and column[s] == column[t]. If there is one, add
//     weights[t * T + s] to `weight` (in double) and count t in `queries`; if
//     the previous line is shorter, t does not count.
//     Positions in the first line, and those with line -1, never count.
//     Throw std::invalid_argument when weights.size() != T * T or line or
//     column does not have T entries.
//
// Example: "\n白日依山尽，黄河入海流。" has 黄 at line 1, column 0 (position 7)
// and 白 at line 0, column 0 (position 1): weights[7 * T + 1] is added for 黄,
// weights[8 * T + 2] (日) for 河, and so on: 5 queries.
// The lesson passes the weights of every head for every held-out poem, and
// those of uniform causal attention (1 / (t + 1) on each s <= t), whose score
// is the baseline: what a head that looks nowhere in particular would get.
// Tests: ctest --preset yours -L '^yours_09a$' (tests/exercises/exercise_09a_test.cpp).

#include "09_inside/exercise/column_attention.hpp"

#include <stdexcept>

#include "errors.hpp"

namespace tang::mine {

PatternSum previous_line_column(std::span<const float> weights, std::size_t T,
                                std::span<const int> line, std::span<const int> column) {
  (void)weights, (void)T, (void)line, (void)column;
  throw NotImplemented(
      "not implemented yet: see exercise 09a (lessons/09_inside/exercise/column_attention.cpp)");
}

}  // namespace tang::mine

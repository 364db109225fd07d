// The switch of exercise 08a (common/exercise_code.hpp): the reference solution's
// int8 rows, or with --yours 08a yours, checked against them row by row.
#include <cstdlib>
#include <vector>

#include "08_many_poems/exercise/quantize_row.hpp"
#include "exercise_code.hpp"

namespace tang {

void quantize_row(const float* x, std::size_t n, std::int8_t* quants, float* scales) {
  static ExerciseSwitch use("08a", "quantize_row");
  if (!use.yours()) return reference::quantize_row(x, n, quants, scales);
  mine::quantize_row(x, n, quants, scales);
  if (!use.compares()) return;
  std::vector<std::int8_t> q(n);
  std::vector<float> s(n / kQuantBlock);
  reference::quantize_row(x, n, q.data(), s.data());
  Verdict verdict = compare_floats({scales, s.size()}, s, 1e-6f);
  for (std::size_t i = 0; i < n && verdict.kind != Verdict::kDisagrees; ++i) {
    if (quants[i] == q[i]) continue;
    // one step off where x / scale sits on a half: a rounding; more is a mistake
    const bool one_off = std::abs(int{quants[i]} - int{q[i]}) == 1;
    verdict = {one_off ? Verdict::kRounding : Verdict::kDisagrees,
               "weight " + std::to_string(i) + ": yours " + std::to_string(int{quants[i]}) +
                   ", theirs " + std::to_string(int{q[i]})};
  }
  use.check(verdict, "a row of " + std::to_string(n) + " weights");
}

void dequantize_row(const std::int8_t* quants, const float* scales, std::size_t n, float* x) {
  static ExerciseSwitch use("08a", "dequantize_row");
  const ExerciseSwitch::Written written[] = {{{x, n}}};
  use.writes(
      written, reference::dequantize_row, mine::dequantize_row,
      [&] { return "a row of " + std::to_string(n) + " weights"; }, quants, scales, n, x);
}

}  // namespace tang

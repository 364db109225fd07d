// The switch of exercise 08b (common/exercise_code.hpp): the reference solution's
// bf16 rows, or with --yours 08b yours, checked against them weight by weight.
#include <bit>
#include <cstdio>
#include <vector>

#include "08_many_poems/exercise/bf16_row.hpp"
#include "exercise_code.hpp"

namespace tang {

namespace {

std::string hex(std::uint32_t bits, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", digits, bits);
  return text;
}

}  // namespace

void round_to_bf16(const float* x, std::size_t n, std::uint16_t* out) {
  static ExerciseSwitch use("08b", "round_to_bf16");
  if (!use.yours()) return reference::round_to_bf16(x, n, out);
  mine::round_to_bf16(x, n, out);
  if (!use.compares()) return;
  std::vector<std::uint16_t> theirs(n);
  reference::round_to_bf16(x, n, theirs.data());
  Verdict verdict;
  for (std::size_t i = 0; i < n && verdict.kind != Verdict::kDisagrees; ++i) {  // the first
    if (out[i] == theirs[i] || verdict.kind == Verdict::kRounding) continue;
    // one bf16 step apart: the other way at a tie, or cut instead of rounded
    const bool one_step = out[i] + 1 == theirs[i] || theirs[i] + 1 == out[i];
    verdict = {one_step ? Verdict::kRounding : Verdict::kDisagrees,
               "weight " + std::to_string(i) + " (" + hex(std::bit_cast<std::uint32_t>(x[i]), 8) +
                   "): yours " + hex(out[i], 4) + ", theirs " + hex(theirs[i], 4)};
  }
  use.check(verdict, "a row of " + std::to_string(n) + " weights");
}

}  // namespace tang

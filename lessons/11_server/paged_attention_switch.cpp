// The switch of exercise 11a (common/exercise_code.hpp): the reference solution's
// paged attention step, or with --yours 11a yours, checked against it: the
// reference runs on a copy of this text's blocks (renumbered 0, 1, ...), then
// the outputs and the text's rows are compared, bit for bit.
#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "11_server/exercise/paged_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void paged_attention_with_cache(float* out, const float* qkv, float* k_pool, float* v_pool,
                                std::span<const BlockId> table, std::size_t block_size,
                                std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  static ExerciseSwitch use("11a", "paged_attention_with_cache");
  if (!use.yours()) {
    return reference::paged_attention_with_cache(out, qkv, k_pool, v_pool, table, block_size, start,
                                                 T, C, NH);
  }
  if (!use.compares()) {
    return mine::paged_attention_with_cache(out, qkv, k_pool, v_pool, table, block_size, start, T,
                                            C, NH);
  }
  const std::size_t blocks = (start + T + block_size - 1) / block_size, rows = block_size * C;
  std::vector<float> k_copy(blocks * rows), v_copy(blocks * rows), theirs(T * C);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::copy_n(k_pool + table[b] * rows, rows, k_copy.begin() + static_cast<long>(b * rows));
    std::copy_n(v_pool + table[b] * rows, rows, v_copy.begin() + static_cast<long>(b * rows));
  }
  std::vector<BlockId> renumbered(blocks);
  std::iota(renumbered.begin(), renumbered.end(), BlockId{0});
  reference::paged_attention_with_cache(theirs.data(), qkv, k_copy.data(), v_copy.data(),
                                        renumbered, block_size, start, T, C, NH);
  mine::paged_attention_with_cache(out, qkv, k_pool, v_pool, table, block_size, start, T, C, NH);
  // the same bits, as the tests; a difference is named by where it is (value i of a
  // block is its row i / C, channel i % C)
  Verdict verdict;
  const auto differs = [&](const std::string& where, std::span<const float> yours,
                           std::span<const float> reference) {
    verdict = compare_floats(yours, reference, 0.0f);
    if (verdict.kind == Verdict::kSame) return false;
    verdict.detail = where + ", " + verdict.detail;
    return true;
  };
  if (!differs("out", {out, T * C}, theirs)) {
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::string block = " of table block " + std::to_string(b);
      const std::size_t at = table[b] * rows;
      if (differs("keys" + block, {k_pool + at, rows}, {k_copy.data() + b * rows, rows}) ||
          differs("values" + block, {v_pool + at, rows}, {v_copy.data() + b * rows, rows}))
        break;
    }
  }
  use.check(verdict, counted(T, "new position") + " after " + std::to_string(start) + ", " +
                         counted(blocks, "block"));
}

}  // namespace tang

// The switch of exercise 11a (common/exercise_code.hpp): the reference solution's
// paged attention step, or with --yours 11a yours, checked against it: the
// reference runs on a copy of this text's blocks (renumbered 0, 1, ...), then
// the outputs and the text's rows are compared, bit for bit.
#include <algorithm>
#include <numeric>
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
  // the same bits, as the tests; a difference is named by where it is ("out", "keys
  // of table block 0": value i is row i / C, channel i % C)
  Verdict verdict = compare_floats({out, T * C}, theirs, 0.0f);
  std::string where = "out";
  for (std::size_t b = 0; b < blocks && verdict.kind == Verdict::kSame; ++b) {
    for (const bool keys : {true, false}) {
      if (verdict.kind != Verdict::kSame) break;  // the values only when the keys agree
      const float* pool = keys ? k_pool : v_pool;
      const std::vector<float>& copy = keys ? k_copy : v_copy;
      verdict =
          compare_floats({pool + table[b] * rows, rows}, {copy.data() + b * rows, rows}, 0.0f);
      where = std::string(keys ? "keys" : "values") + " of table block " + std::to_string(b);
    }
  }
  if (verdict.kind != Verdict::kSame) verdict.detail = where + ", " + verdict.detail;
  use.check(verdict, counted(T, "new position") + " after " + std::to_string(start) + ", " +
                         counted(blocks, "block"));
}

}  // namespace tang

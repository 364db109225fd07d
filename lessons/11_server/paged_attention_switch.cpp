// The switch of exercise 11a (common/exercise_code.hpp): the reference solution's
// paged attention step, or with --yours 11a yours, checked against it: the
// outputs and the rows of this text's blocks, bit for bit.
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
  // the same bits, as the tests; a difference is named by where it is (value i of a
  // block is its row i / C, channel i % C)
  const std::size_t blocks = (start + T + block_size - 1) / block_size, rows = block_size * C;
  std::vector<ExerciseSwitch::Written> written = {{{out, T * C}, 0.0f, "out"}};
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::string block = " of table block " + std::to_string(b);
    written.push_back({{k_pool + table[b] * rows, rows}, 0.0f, "keys" + block});
    written.push_back({{v_pool + table[b] * rows, rows}, 0.0f, "values" + block});
  }
  use.writes(
      written, reference::paged_attention_with_cache, mine::paged_attention_with_cache,
      [&] {
        return counted(T, "new position") + " after " + std::to_string(start) + ", " +
               counted(blocks, "block");
      },
      out, qkv, k_pool, v_pool, table, block_size, start, T, C, NH);
}

}  // namespace tang

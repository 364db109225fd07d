// The switch of exercise 10a (common/exercise_code.hpp): the reference solution's
// grouped attention step, or with --yours 10a yours, checked against it on the
// same cache: the outputs and the whole of this layer's cache.
#include <vector>

#include "10_cache_size/exercise/grouped_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t capacity,
                                  std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                  std::size_t KVH) {
  static ExerciseSwitch use("10a", "grouped_attention_with_cache");
  const std::size_t floats = 2 * KVH * capacity * (C / NH);  // this layer's whole cache
  // the same bits, as the tests
  const ExerciseSwitch::Written written[] = {{{out, T * C}}, {{cache, floats}}};
  use.writes(
      written, reference::grouped_attention_with_cache, mine::grouped_attention_with_cache,
      [&] {
        return counted(T, "new position") + " after " + std::to_string(start) + ", " +
               counted(KVH, "key/value head");
      },
      out, proj, cache, capacity, start, T, C, NH, KVH);
}

}  // namespace tang

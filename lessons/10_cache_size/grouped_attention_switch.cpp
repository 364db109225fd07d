// The switch of exercise 10a (common/exercise_code.hpp): the reference solution's
// grouped attention step, or with --yours 10a yours, checked against it on a copy
// of the same cache: the outputs and the whole of this layer's cache.
#include <vector>

#include "10_cache_size/exercise/grouped_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void grouped_attention_with_cache(float* out, const float* proj, float* cache, std::size_t capacity,
                                  std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                  std::size_t KVH) {
  static ExerciseSwitch use("10a", "grouped_attention_with_cache");
  if (!use.yours()) {
    return reference::grouped_attention_with_cache(out, proj, cache, capacity, start, T, C, NH,
                                                   KVH);
  }
  if (!use.compares())
    return mine::grouped_attention_with_cache(out, proj, cache, capacity, start, T, C, NH, KVH);
  const std::size_t floats = 2 * KVH * capacity * (C / NH);  // this layer's whole cache
  std::vector<float> theirs_cache(cache, cache + floats), theirs(T * C);
  reference::grouped_attention_with_cache(theirs.data(), proj, theirs_cache.data(), capacity, start,
                                          T, C, NH, KVH);
  mine::grouped_attention_with_cache(out, proj, cache, capacity, start, T, C, NH, KVH);
  Verdict verdict = compare_floats({out, T * C}, theirs, 0.0f);  // the same bits, as the tests
  if (verdict.kind == Verdict::kSame) verdict = compare_floats({cache, floats}, theirs_cache, 0.0f);
  use.check(verdict, counted(T, "new position") + " after " + std::to_string(start) + ", " +
                         counted(KVH, "key/value head"));
}

}  // namespace tang

// The switch of exercise 06a (common/exercise_code.hpp): the reference solution's
// two cache steps, or with --yours 06a yours, checked against them on copies of
// the same cache: the outputs and the key and value rows written.
#include <vector>

#include "06_kvcache/exercise/attention_with_cache.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  static ExerciseSwitch use("06a", "attention_with_cache");
  if (!use.yours())
    return reference::attention_with_cache(out, qkv, k_cache, v_cache, start, T, C, NH);
  if (!use.compares())
    return mine::attention_with_cache(out, qkv, k_cache, v_cache, start, T, C, NH);
  const std::size_t rows = (start + T) * C;  // the cache rows read and written
  std::vector<float> k(k_cache, k_cache + rows), v(v_cache, v_cache + rows), theirs(T * C);
  reference::attention_with_cache(theirs.data(), qkv, k.data(), v.data(), start, T, C, NH);
  mine::attention_with_cache(out, qkv, k_cache, v_cache, start, T, C, NH);
  Verdict verdict = compare_floats({out, T * C}, theirs, 1e-4f);
  if (verdict.kind == Verdict::kSame) verdict = compare_floats({k_cache, rows}, k, 0.0f);
  if (verdict.kind == Verdict::kSame) verdict = compare_floats({v_cache, rows}, v, 0.0f);
  use.check(verdict, counted(T, "new position") + " after " + std::to_string(start));
}

void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C) {
  static ExerciseSwitch use("06a", "embed_with_offset");
  if (!use.yours()) return reference::embed_with_offset(out, tokens, T, start, wte, wpe, C);
  mine::embed_with_offset(out, tokens, T, start, wte, wpe, C);
  if (use.compares()) {
    std::vector<float> theirs(T * C);
    reference::embed_with_offset(theirs.data(), tokens, T, start, wte, wpe, C);
    use.check(compare_floats({out, T * C}, theirs, 0.0f),
              counted(T, "character") + " from position " + std::to_string(start));
  }
}

}  // namespace tang

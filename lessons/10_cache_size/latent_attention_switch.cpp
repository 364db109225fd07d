// The switch of exercise 10b (common/exercise_code.hpp): the reference solution's
// absorbed latent attention step, or with --yours 10b yours, checked against it on
// a copy of the same cache: the outputs (to rounding) and the cache rows written.
#include <vector>

#include "10_cache_size/exercise/latent_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void latent_attention_with_cache(float* out, const float* proj, float* cache, const float* kv_up,
                                 std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                 std::size_t latent) {
  static ExerciseSwitch use("10b", "latent_attention_with_cache");
  if (!use.yours())
    return reference::latent_attention_with_cache(out, proj, cache, kv_up, start, T, C, NH, latent);
  if (!use.compares())
    return mine::latent_attention_with_cache(out, proj, cache, kv_up, start, T, C, NH, latent);
  const std::size_t rows = (start + T) * latent;  // the cache read and written
  std::vector<float> theirs_cache(cache, cache + rows), theirs(T * C);
  reference::latent_attention_with_cache(theirs.data(), proj, theirs_cache.data(), kv_up, start, T,
                                         C, NH, latent);
  mine::latent_attention_with_cache(out, proj, cache, kv_up, start, T, C, NH, latent);
  Verdict verdict = compare_floats({out, T * C}, theirs, 1e-4f);
  if (verdict.kind == Verdict::kSame) verdict = compare_floats({cache, rows}, theirs_cache, 0.0f);
  use.check(verdict, counted(T, "new position") + " after " + std::to_string(start));
}

}  // namespace tang

// The switch of exercise 10b (common/exercise_code.hpp): the reference solution's
// absorbed latent attention step, or with --yours 10b yours, checked against it on
// the same cache: the outputs (to rounding) and the cache rows written.
#include <vector>

#include "10_cache_size/exercise/latent_attention.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void latent_attention_with_cache(float* out, const float* proj, float* cache, const float* kv_up,
                                 std::size_t start, std::size_t T, std::size_t C, std::size_t NH,
                                 std::size_t latent) {
  static ExerciseSwitch use("10b", "latent_attention_with_cache");
  const std::size_t rows = (start + T) * latent;  // the cache read and written
  const ExerciseSwitch::Written written[] = {{{out, T * C}, 1e-4f}, {{cache, rows}}};
  use.writes(
      written, reference::latent_attention_with_cache, mine::latent_attention_with_cache,
      [&] { return counted(T, "new position") + " after " + std::to_string(start); }, out, proj,
      cache, kv_up, start, T, C, NH, latent);
}

}  // namespace tang

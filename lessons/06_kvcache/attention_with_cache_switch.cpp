// The switch of exercise 06a (common/exercise_code.hpp): the reference solution's
// two cache steps, or with --yours 06a yours, checked against them on the same
// cache: the outputs and the key and value rows written.
#include <string>

#include "06_kvcache/exercise/attention_with_cache.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  static ExerciseSwitch use("06a", "attention_with_cache");
  const std::size_t rows = (start + T) * C;  // the cache rows read and written
  const ExerciseSwitch::Written written[] = {
      {{out, T * C}, 1e-4f}, {{k_cache, rows}}, {{v_cache, rows}}};
  use.writes(
      written, reference::attention_with_cache, mine::attention_with_cache,
      [&] { return counted(T, "new position") + " after " + std::to_string(start); }, out, qkv,
      k_cache, v_cache, start, T, C, NH);
}

void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C) {
  static ExerciseSwitch use("06a", "embed_with_offset");
  const ExerciseSwitch::Written written[] = {{{out, T * C}}};
  use.writes(
      written, reference::embed_with_offset, mine::embed_with_offset,
      [&] { return counted(T, "character") + " from position " + std::to_string(start); }, out,
      tokens, T, start, wte, wpe, C);
}

}  // namespace tang

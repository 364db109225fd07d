// The switch of exercise 06b (common/exercise_code.hpp): the reference solution's
// timing, or with --yours 06b yours, whose two texts must then be the reference's
// (the times differ from run to run; the texts may not).
#include <string>

#include "06_kvcache/exercise/block512_timing.hpp"
#include "exercise_code.hpp"

namespace tang {

CacheRatio time_block512(std::size_t n_chars, std::uint64_t seed) {
  static ExerciseSwitch use("06b", "time_block512");
  const auto same_texts = [](const CacheRatio& yours, const CacheRatio& theirs) {
    return compare_exactly(yours.text_without_cache == theirs.text_without_cache &&
                               yours.text_with_cache == theirs.text_with_cache,
                           "your texts are not the ones the reference writes");
  };
  return use.returns(
      reference::time_block512, mine::time_block512, same_texts,
      [&] { return std::to_string(n_chars) + " characters, seed " + std::to_string(seed); },
      n_chars, seed);
}

}  // namespace tang

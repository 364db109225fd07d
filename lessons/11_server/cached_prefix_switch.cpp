// The switch of exercise 11b (common/exercise_code.hpp): the reference solution's
// prefix lookup, or with --yours 11b yours, checked against it: the same blocks.
#include "11_server/exercise/cached_prefix.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"

namespace tang {

std::vector<BlockId> cached_prefix(const PrefixIndex& index, std::span<const TokenId> tokens,
                                   std::size_t block_size, std::size_t max_blocks) {
  static ExerciseSwitch use("11b", "cached_prefix");
  const auto same = [](const std::vector<BlockId>& yours, const std::vector<BlockId>& theirs) {
    return compare_exactly(
        yours == theirs,
        counted(yours.size(), "block") + " where the cache has " + std::to_string(theirs.size()));
  };
  return use.returns(
      reference::cached_prefix, mine::cached_prefix, same,
      [&] {
        return counted(tokens.size(), "token") + ", " + counted(index.size(), "cached block");
      },
      index, tokens, block_size, max_blocks);
}

}  // namespace tang

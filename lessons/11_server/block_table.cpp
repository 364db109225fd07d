#include "11_server/block_table.hpp"

namespace tang {

namespace {

// splitmix64's finaliser: every input bit moves about half of the output bits.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

BlockHash block_hash(BlockHash parent, std::span<const TokenId> tokens) {
  std::uint64_t h = mix(parent + 0x9e3779b97f4a7c15ULL);
  for (TokenId t : tokens) h = mix(h ^ static_cast<std::uint32_t>(t));
  return h == kNoParent ? 1 : h;  // never the first block's parent
}

}  // namespace tang

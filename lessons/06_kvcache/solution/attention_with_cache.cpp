// SOLUTION to exercise 06a (the learner's file is exercise/attention_with_cache.cpp,
// whose comment specifies the behaviour).
//
// In PyTorch terms, per layer:
//   k_cache[start:start+T] = qkv[:, C:2C];  v_cache[start:start+T] = qkv[:, 2C:3C]
//   new row t attends over cache rows 0 .. start+t  (torch.tril(ones(T, start+T), diagonal=start))

#include "06_kvcache/exercise/attention_with_cache.hpp"

#include <array>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

#include "ops.hpp"

namespace tang::reference {

void attention_with_cache(float* out, const float* qkv, float* k_cache, float* v_cache,
                          std::size_t start, std::size_t T, std::size_t C, std::size_t NH) {
  const std::size_t total = start + T;  // positions after this step
  using Shape = std::array<std::size_t, 2>;
  const auto rows = xt::adapt(qkv, T * 3 * C, xt::no_ownership(), Shape{T, 3 * C});  // (T, 3C)
  auto keys = xt::adapt(k_cache, total * C, xt::no_ownership(), Shape{total, C});    // (total, C)
  auto values = xt::adapt(v_cache, total * C, xt::no_ownership(), Shape{total, C});  // (total, C)

  // 1. append the keys and values of the new positions start .. start+T-1
  xt::view(keys, xt::range(start, total), xt::all()) =
      xt::view(rows, xt::all(), xt::range(C, 2 * C));
  xt::view(values, xt::range(start, total), xt::all()) =
      xt::view(rows, xt::all(), xt::range(2 * C, 3 * C));

  // 2. new row t is position start+t: it sees positions 0 .. start+t
  std::vector<float> weights(NH * total);  // (NH, n) scratch for ops::attend
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t n = start + t + 1;
    ops::attend(out + t * C, weights.data(), qkv + t * 3 * C, k_cache, v_cache, C, n, C, NH);
  }
}

void embed_with_offset(float* out, const TokenId* tokens, std::size_t T, std::size_t start,
                       const float* wte, const float* wpe, std::size_t C) {
  for (std::size_t t = 0; t < T; ++t) {
    const float* token_row = wte + static_cast<std::size_t>(tokens[t]) * C;
    const float* position_row = wpe + (start + t) * C;  // absolute position, not t
    for (std::size_t i = 0; i < C; ++i) out[t * C + i] = token_row[i] + position_row[i];
  }
}

}  // namespace tang::reference

#include "cached_step_check.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "exercise/attention_with_cache.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace tang {

namespace {

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return std::isnan(worst) ? INFINITY : worst;
}

}  // namespace

CachedStepCheck check_cached_step(std::uint64_t seed) {
  CachedStepCheck check;
  check.positions = 48;
  check.prefill = 8;
  const std::size_t N = check.positions, C = 32, NH = 4, V = 20;
  Rng rng(seed);
  std::vector<float> qkv(N * 3 * C), wte(V * C), wpe(N * C);  // (N, 3C), (V, C), (N, C)
  for (float& x : qkv) x = rng.normal();
  for (float& x : wte) x = rng.normal();
  for (float& x : wpe) x = rng.normal();
  std::vector<TokenId> tokens(N);
  for (TokenId& t : tokens) t = static_cast<TokenId>(rng.below(V));

  // the whole sequence at once
  std::vector<float> full(N * C), att(NH * N * N), full_embedding(N * C);
  ops::attention_forward(full.data(), att.data(), qkv.data(), 1, N, C, NH);
  ops::encoder_forward(full_embedding.data(), tokens.data(), wte.data(), wpe.data(), 1, N, C);

  // the prefill, then one position at a time, through the cache
  std::vector<float> cached(N * C), k_cache(N * C), v_cache(N * C), embedding(N * C);
  for (std::size_t start = 0; start < N;) {
    const std::size_t T = start == 0 ? check.prefill : 1;
    mine::attention_with_cache(cached.data() + start * C, qkv.data() + start * 3 * C,
                               k_cache.data(), v_cache.data(), start, T, C, NH);
    mine::embed_with_offset(embedding.data() + start * C, tokens.data() + start, T, start,
                            wte.data(), wpe.data(), C);
    start += T;
  }
  check.attention_error = largest_difference(cached, full);
  check.embedding_error = largest_difference(embedding, full_embedding);
  return check;
}

}  // namespace tang

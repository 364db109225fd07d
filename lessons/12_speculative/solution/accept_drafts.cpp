// EXERCISE 12, the reference solution (see exercise/accept_drafts.hpp).
#include "12_speculative/exercise/accept_drafts.hpp"

#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"  // exercise 02: sample_from

namespace tang::reference {

Verification accept_drafts(std::span<const float> p, std::span<const float> q,
                           std::span<const TokenId> drafted, std::span<const float> coins,
                           std::size_t V) {
  const std::size_t k = drafted.size();
  for (std::size_t i = 0; i < k; ++i) {
    const std::span<const float> pi = p.subspan(i * V, V), qi = q.subspan(i * V, V);
    const auto d = static_cast<std::size_t>(drafted[i]);
    if (coins[i] * qi[d] < pi[d]) continue;  // kept: coin < p/q, without dividing by q
    // rejected: the next character from what p has more of than q
    std::vector<float> residual(V);  // (V)
    double total = 0;
    for (std::size_t x = 0; x < V; ++x) {
      residual[x] = pi[x] > qi[x] ? pi[x] - qi[x] : 0.0f;
      total += residual[x];
    }
    if (total == 0)
      return {i, reference::sample_from(pi, coins[k])};  // p <= q everywhere: rounding only
    for (float& r : residual) r = static_cast<float>(r / total);
    return {i, reference::sample_from(residual, coins[k])};
  }
  return {k, reference::sample_from(p.subspan(k * V, V), coins[k])};  // every draft kept: a bonus
}

}  // namespace tang::reference

#include "top_k_top_p.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "vector_math.hpp"

namespace tang::fast {

float kth_largest(std::span<const float> values, std::size_t k, std::vector<float>& scratch) {
  if (k <= 64) {
    // One pass with the k largest so far in a min-heap (scratch.front() is the
    // smallest of them). Most values lose to it, 16 at a time: a block is looked
    // at one by one only when one of its values beats the heap's smallest.
    const auto greater = std::greater<float>();
    scratch.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k));
    std::make_heap(scratch.begin(), scratch.end(), greater);
    const auto take = [&](float z) {
      if (z <= scratch.front()) return;
      std::pop_heap(scratch.begin(), scratch.end(), greater);
      scratch.back() = z;
      std::push_heap(scratch.begin(), scratch.end(), greater);
    };
    constexpr std::size_t kBlock = 16;
    std::size_t i = k;
    for (; i + kBlock <= values.size(); i += kBlock) {
      const float smallest = scratch.front();
      const float* block = values.data() + i;
      int beats = 0;
#pragma omp simd reduction(| : beats)
      for (std::size_t j = 0; j < kBlock; ++j) beats |= block[j] > smallest;
      if (beats)
        for (std::size_t j = 0; j < kBlock; ++j) take(block[j]);
    }
    for (; i < values.size(); ++i) take(values[i]);
    return scratch.front();
  }
  // For larger k, quickselect: nth_element puts the k-th largest in its place.
  scratch.assign(values.begin(), values.end());
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k - 1),
                   scratch.end(), std::greater<float>());
  return scratch[k - 1];
}

void top_k_filter(std::span<float> logits, std::size_t k, std::vector<float>& scratch) {
  if (k == 0 || k >= logits.size()) return;
  const float kth = kth_largest(logits, k, scratch);
  // every value written back, chosen by a blend: storing only where z < kth
  // compiles to a masked vector store, which this core runs slowly
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (float& z : logits) z = z < kth ? minus_infinity : z;
}

namespace {

// Calls take(i) for every i where keep(values[i]), for the few among many: 16
// values at a time are tested in vector lanes, and only a block that holds one
// is looked at value by value (nearly every block holds none).
template <class Keep, class Take>
void for_each_kept(std::span<const float> values, Keep keep, Take take) {
  const float* v = values.data();
  const std::size_t n = values.size();
  for (std::size_t block = 0; block < n; block += 16) {
    const std::size_t end = std::min(block + 16, n);
    int any = 0;
#pragma omp simd reduction(| : any)
    for (std::size_t i = block; i < end; ++i) any |= keep(v[i]) ? 1 : 0;
    if (any == 0) continue;
    for (std::size_t i = block; i < end; ++i) {
      if (keep(v[i])) take(i);
    }
  }
}

NucleusKey key_of(float probability, std::size_t id) {
  const auto high = std::bit_cast<std::uint32_t>(probability);  // orders like p >= 0
  const auto low = ~static_cast<std::uint32_t>(id);             // smaller id: larger
  return (NucleusKey{high} << 32) | low;
}

float probability_of(NucleusKey key) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(key >> 32));
}

// Zeroes every character that sorts after `last` (the nucleus's last member)
// and divides the kept ones by `kept`, the running total at `last`.
void keep_up_to(std::span<float> probabilities, NucleusKey last, double kept) {
  const float last_p = probability_of(last);
  const std::size_t last_id = ~static_cast<std::uint32_t>(last);
  const auto total = static_cast<float>(kept);
  float* q = probabilities.data();
  // branch-free and element by element, so that it runs in vector lanes
#pragma omp simd
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const bool in = q[i] > last_p || (q[i] == last_p && i <= last_id);
    q[i] = in ? q[i] / total : 0.0f;
  }
}

// The last member of the nucleus and the running total there.
struct Edge {
  NucleusKey last;
  double total;
};

// Sorts the keys (best first), adds them up after `total` (what sorts before
// all of them) and returns the first one at which the running total reaches p
// (the last one if it never does).
Edge last_member_by_sorting(std::vector<NucleusKey>& keys, float p, double total = 0.0) {
  std::sort(keys.begin(), keys.end(), std::greater<NucleusKey>());
  for (const NucleusKey key : keys) {
    total += probability_of(key);
    if (total >= p) return {key, total};
  }
  return {keys.back(), total};
}

// How much probability lies at or above a threshold, and on how many
// characters: one pass without branches, in vector lanes. The sum is counted
// in units of 2^-51, as an integer: for thresholds >= 2^-28 every term (a
// 24-bit float >= 2^-28) is a whole number of such units, so the sum is exact
// whatever the order, exactly the running total of a sort, and the double
// comparisons below (< 2^53) are exact too.
constexpr float kUnitsPerOne = 0x1p51f;

struct Mass {
  std::int64_t units = 0;  // the probability, times 2^51
  std::int64_t count = 0;
};

Mass mass_at_or_above(std::span<const float> probabilities, float threshold) {
  const float* q = probabilities.data();
  const std::size_t n = probabilities.size();
  std::int64_t units = 0;
  std::int32_t count = 0;  // 32 bits: 16 lanes at a time instead of 8
  // two loops: GCC vectorises each of them better than the two sums in one
#pragma omp simd reduction(+ : units)
  for (std::size_t i = 0; i < n; ++i) {
    units += static_cast<std::int64_t>((q[i] >= threshold ? q[i] : 0.0f) * kUnitsPerOne);
  }
#pragma omp simd reduction(+ : count)
  for (std::size_t i = 0; i < n; ++i) count += q[i] >= threshold ? 1 : 0;
  return {units, count};
}

// The same answer as sorting, with a binary search for the threshold instead:
// the nucleus ends at the largest threshold whose mass still reaches p. The
// bits of floats >= 0 order like the floats, so bisect on them until only a
// few characters are left between `lo` (mass >= p) and `hi` (mass < p), then
// sort just those. Requires from_lo = mass_at_or_above(lo_p) >= p, lo_p >= 2^-28.
Edge last_member_by_bisection(std::span<const float> probabilities, float p, float lo_p,
                              Mass from_lo, std::vector<NucleusKey>& keys) {
  constexpr std::int64_t kFewEnoughToSort = 64;
  const double p_units = static_cast<double>(p) * kUnitsPerOne;
  auto lo = std::bit_cast<std::uint32_t>(lo_p);
  // just above the largest probability, where the mass is 0
  auto hi = std::bit_cast<std::uint32_t>(max_of(probabilities.data(), probabilities.size())) + 1;
  Mass from_hi;
  while (hi - lo > 1 && from_lo.count - from_hi.count > kFewEnoughToSort) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const Mass m = mass_at_or_above(probabilities, std::bit_cast<float>(mid));
    if (static_cast<double>(m.units) >= p_units) {
      lo = mid;
      from_lo = m;
    } else {
      hi = mid;
      from_hi = m;
    }
  }
  // Everything at or above `hi` is in the nucleus (it sorts first and holds
  // less than p); the last member is among the few in [lo, hi).
  // lo <= bits < hi as one unsigned comparison
  const auto in_bracket = [lo, width = hi - lo](float q) {
    return std::bit_cast<std::uint32_t>(q) - lo < width;
  };
  keys.clear();
  for_each_kept(probabilities, in_bracket,
                [&](std::size_t i) { keys.push_back(key_of(probabilities[i], i)); });
  // from_hi in a double is exact (under 2^53 units), and so are the sums after
  // it: every term is a whole number of units too.
  return last_member_by_sorting(keys, p, static_cast<double>(from_hi.units) / kUnitsPerOne);
}

}  // namespace

namespace {

Edge last_member_by_sorting_all(std::span<const float> probabilities, float p,
                                std::vector<NucleusKey>& keys) {
  keys.resize(probabilities.size());
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = key_of(probabilities[i], i);
  return last_member_by_sorting(keys, p);
}

}  // namespace

void top_p_filter(std::span<float> probabilities, float p, std::vector<NucleusKey>& keys) {
  if (p >= 1.0f) return;
  const std::size_t n = probabilities.size();
  // If at least one character is at or above the cut-off, the (at most n-1)
  // characters below it hold less than (n-1) * cutoff = 1 - p together, so the
  // ones above already reach p and the nucleus never needs the small ones.
  const float cutoff = n > 1 ? (1.0f - p) / static_cast<float>(n - 1) : 0.0f;
  // The bound can be too tight (e.g. a flat distribution leaves no candidate),
  // and below 2^-28 the sums might round differently from a sorted running
  // total: in both cases sort everything instead.
  const Mass candidates = mass_at_or_above(probabilities, cutoff);
  const Edge edge = cutoff < 0x1p-28f || static_cast<double>(candidates.units) < p * kUnitsPerOne
                        ? last_member_by_sorting_all(probabilities, p, keys)
                        : last_member_by_bisection(probabilities, p, cutoff, candidates, keys);
  keep_up_to(probabilities, edge.last, edge.total);
}

namespace {

// The walk along the cumulative distribution of `probabilities`, as exercise
// 02: the first whose running total passes the coin, else the last non-zero.
std::size_t walk(std::span<const float> probabilities, float coin) {
  float total = 0.0f;
  std::size_t last_possible = 0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    if (probabilities[i] <= 0.0f) continue;
    total += probabilities[i];
    last_possible = i;
    if (coin < total) break;
  }
  return last_possible;
}

}  // namespace

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng,
                    SamplerScratch& scratch) {
  if (s.temperature == 0.0f) return argmax(logits);
  if (!leaves_scaled_logits(s, logits.size())) {
    const float max = max_of(logits.data(), logits.size());
    for (float& z : logits) z = (z - max) / s.temperature;  // as lesson 03: no overflow
    top_k_filter(logits, s.top_k, scratch.values);
    softmax_in_place(logits);
    top_p_filter(logits, s.top_p, scratch.keys);
    return static_cast<TokenId>(walk(logits, rng.uniform()));
  }
  // A small top-k, in two passes over the vocabulary. Everything below the k-th
  // largest would be 0 after the softmax, so the softmax, top-p and the walk
  // take only the kept characters (k of them, more on a tie), in order of id,
  // which keeps top-p's and the walk's order of ties.
  //   1. the k largest logits (a heap, 16 at a time): the k-th, and the largest
  //   2. every logit at the temperature, (z - max) / T as lesson 03 computes it,
  //      written back, and those at or above the k-th's kept
  // (z - max) / T never reverses an order, so the k-th largest at the
  // temperature is the k-th largest's, computed the same way: the same cut, the
  // same ties, as the lesson's top-k on the scaled logits.
  const float kth_logit = kth_largest(logits, s.top_k, scratch.values);
  const float max = *std::max_element(scratch.values.begin(), scratch.values.end());
  const float t = s.temperature;
  const float kth = (kth_logit - max) / t;
  scratch.kept_ids.clear();
  scratch.kept.clear();
  float* z = logits.data();
  const std::size_t n = logits.size();
  for (std::size_t block = 0; block < n; block += 16) {
    const std::size_t end = std::min(block + 16, n);
    int any = 0;
#pragma omp simd reduction(| : any)
    for (std::size_t i = block; i < end; ++i) {
      z[i] = (z[i] - max) / t;
      any |= z[i] >= kth ? 1 : 0;
    }
    if (any == 0) continue;
    for (std::size_t i = block; i < end; ++i) {
      if (z[i] < kth) continue;
      scratch.kept_ids.push_back(static_cast<TokenId>(i));
      scratch.kept.push_back(z[i]);
    }
  }
  softmax_in_place(scratch.kept);
  top_p_filter(scratch.kept, s.top_p, scratch.keys);
  return scratch.kept_ids[walk(scratch.kept, rng.uniform())];
}

}  // namespace tang::fast

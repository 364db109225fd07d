#include "top_k_top_p.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "next_char.hpp"
#include "temperature.hpp"

namespace tang {

float kth_largest(std::span<const float> values, std::size_t k, std::vector<float>& scratch) {
  if (k <= 64) {
    // One pass with the k largest so far in a min-heap (scratch.front() is the
    // smallest of them): most values lose a single comparison with it.
    const auto greater = std::greater<float>();
    scratch.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k));
    std::make_heap(scratch.begin(), scratch.end(), greater);
    for (const float z : values.subspan(k)) {
      if (z > scratch.front()) {
        std::pop_heap(scratch.begin(), scratch.end(), greater);
        scratch.back() = z;
        std::push_heap(scratch.begin(), scratch.end(), greater);
      }
    }
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
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

namespace {

// The nucleus order: higher probability first, equal probabilities by smaller id.
struct NucleusOrder {
  std::span<const float> probabilities;
  bool operator()(TokenId a, TokenId b) const {
    const float pa = probabilities[static_cast<std::size_t>(a)];
    const float pb = probabilities[static_cast<std::size_t>(b)];
    return pa != pb ? pa > pb : a < b;
  }
};

// Zeroes every character that sorts after `last` (the nucleus's last member)
// and renormalises what is left.
void keep_up_to(std::span<float> probabilities, TokenId last) {
  const float last_p = probabilities[static_cast<std::size_t>(last)];
  float kept = 0.0f;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const bool in = probabilities[i] > last_p ||
                    (probabilities[i] == last_p && static_cast<TokenId>(i) <= last);
    if (in) {
      kept += probabilities[i];
    } else {
      probabilities[i] = 0.0f;
    }
  }
  for (float& q : probabilities) q /= kept;
}

// Sorts the candidates in `order`, adds them up and returns the first one at
// which the running total reaches p (the last one if it never does).
TokenId last_member_by_sorting(std::span<const float> probabilities, float p,
                               std::vector<TokenId>& order) {
  std::sort(order.begin(), order.end(), NucleusOrder{probabilities});
  double total = 0.0;
  for (const TokenId id : order) {
    total += probabilities[static_cast<std::size_t>(id)];
    if (total >= p) return id;
  }
  return order.back();
}

// The same answer without sorting, like quickselect: split the candidates
// around a pivot; if the ones before it already reach p the answer is among
// them, otherwise they are all in the nucleus and the search goes on after
// the pivot. Expected O(n) instead of O(n log n). Requires that all
// candidates together reach p. The sums are exact in double as long as every
// candidate is >= about 2^-28 (24-bit floats added into 53 bits), which the
// cut-off guarantees, so they agree with the running total of a full sort.
TokenId last_member_by_selection(std::span<const float> probabilities, float p,
                                 std::vector<TokenId>& order) {
  const NucleusOrder before{probabilities};
  const auto prob = [&](TokenId id) { return probabilities[static_cast<std::size_t>(id)]; };
  auto lo = order.begin(), hi = order.end();
  double included = 0.0;  // sum of everything known to sort before `lo`
  while (hi - lo > 16) {
    // median of three as the pivot, moved to the front of the range
    auto mid = lo + (hi - lo) / 2, last = hi - 1;
    if (before(*mid, *lo)) std::iter_swap(mid, lo);
    if (before(*last, *lo)) std::iter_swap(last, lo);
    if (before(*last, *mid)) std::iter_swap(last, mid);
    std::iter_swap(lo, mid);
    const TokenId pivot = *lo;
    const auto split = std::partition(lo + 1, hi, [&](TokenId id) { return before(id, pivot); });
    double ahead = 0.0;  // the candidates that sort before the pivot
    for (auto it = lo + 1; it != split; ++it) ahead += prob(*it);
    if (included + ahead >= p) {  // the nucleus ends before the pivot
      lo = lo + 1;
      hi = split;
    } else if (included + ahead + prob(pivot) >= p) {
      return pivot;
    } else {  // the pivot and all before it are in; go on after it
      included += ahead + prob(pivot);
      lo = split;
    }
  }
  std::sort(lo, hi, before);
  for (auto it = lo; it != hi; ++it) {
    included += prob(*it);
    if (included >= p) return *it;
  }
  return *(hi - 1);  // unreachable when the candidates reach p
}

}  // namespace

void top_p_filter(std::span<float> probabilities, float p, std::vector<TokenId>& order) {
  if (p >= 1.0f) return;
  order.resize(probabilities.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<TokenId>(i);
  keep_up_to(probabilities, last_member_by_sorting(probabilities, p, order));
}

void top_p_filter_with_cutoff(std::span<float> probabilities, float p,
                              std::vector<TokenId>& order) {
  if (p >= 1.0f) return;
  const std::size_t n = probabilities.size();
  // If at least one character is at or above the cut-off, the (at most n-1)
  // characters below it hold less than (n-1) * cutoff = 1 - p together, so the
  // ones above already reach p and the nucleus never needs the small ones.
  const float cutoff = n > 1 ? (1.0f - p) / static_cast<float>(n - 1) : 0.0f;
  order.clear();
  double candidates = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (probabilities[i] >= cutoff) {
      order.push_back(static_cast<TokenId>(i));
      candidates += probabilities[i];
    }
  }
  // The bound can be too tight (e.g. a flat distribution leaves no candidate),
  // and below 2^-28 the sums might round differently from a sorted running
  // total: in both cases sort everything instead.
  if (candidates < p || cutoff < 0x1p-28f) {
    top_p_filter(probabilities, p, order);
    return;
  }
  keep_up_to(probabilities, last_member_by_selection(probabilities, p, order));
}

TokenId sample_next(std::span<float> logits, const SamplingSettings& s, Rng& rng,
                    SamplerScratch& scratch) {
  if (s.temperature == 0.0f) return argmax(logits);
  apply_temperature(logits, s.temperature);
  top_k_filter(logits, s.top_k, scratch.values);
  softmax_in_place(logits);
  top_p_filter_with_cutoff(logits, s.top_p, scratch.order);
  return sample_from(logits, rng.uniform());
}

}  // namespace tang

// spread.hpp: a sample of timings as the lessons print it: its median and its
// range (the smallest and the largest), since one run of a timing on a shared
// machine says little on its own.
#pragma once

#include <algorithm>
#include <vector>

namespace tang {

struct Spread {
  double median = 0, low = 0, high = 0;
};

// `values` must not be empty; an even count's median is its two middle values' mean.
inline Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return {n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2, values.front(),
          values.back()};
}

inline double median(std::vector<double> values) {
  return spread_of(std::move(values)).median;
}

}  // namespace tang

#include "10_cache_size/paired_runs.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace tang {

double sample_standard_deviation(std::span<const double> values) {
  const std::size_t n = values.size();
  if (n < 2) throw std::invalid_argument("sample_standard_deviation: two or more values");
  double mean = 0.0;
  for (const double v : values) mean += v;
  mean /= static_cast<double>(n);
  double squares = 0.0;  // of each value's distance from the mean
  for (const double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(n - 1));
}

PairedDifference paired_difference(std::span<const double> variant,
                                   std::span<const double> baseline) {
  const std::size_t n = variant.size();
  if (n != baseline.size() || n < 2)
    throw std::invalid_argument("paired_difference: two or more pairs of losses");
  std::vector<double> differences(n);
  for (std::size_t i = 0; i < n; ++i) differences[i] = variant[i] - baseline[i];
  double sum = 0.0;
  for (const double d : differences) sum += d;
  return {n, sum / static_cast<double>(n),
          sample_standard_deviation(differences) / std::sqrt(static_cast<double>(n))};
}

PairedVerdict verdict_of(const PairedDifference& d) {
  if (std::abs(d.mean) <= 2.0 * d.standard_error) return PairedVerdict::kNotMeasurable;
  return d.mean > 0.0 ? PairedVerdict::kCost : PairedVerdict::kGain;
}

std::string verdict_text(PairedVerdict v) {
  switch (v) {
    case PairedVerdict::kNotMeasurable:
      return "not measurable here";
    case PairedVerdict::kCost:
      return "a cost";
    case PairedVerdict::kGain:
      return "a gain";
  }
  return "";
}

double share_standard_error(std::size_t k, std::size_t n) {
  if (n == 0) return 0.0;
  const double p = static_cast<double>(k) / static_cast<double>(n);
  return std::sqrt(p * (1.0 - p) / static_cast<double>(n));
}

}  // namespace tang

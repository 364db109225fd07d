// paired_runs.hpp: how lesson 10 reads its runs. Each variant is trained with
// the same initialisation seeds as multi-head and on the same batches
// (scripts/train_variants.sh), so the run of a variant with seed s and the
// multi-head run with seed s form a pair: their difference in held-out loss is
// what the variant changed, and the spread of that difference over the seeds
// is how far one pair can be trusted.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace tang {

// The mean of the per-seed differences variant - baseline, and its standard
// error over the seeds: s / sqrt(n), s the sample standard deviation (n - 1).
struct PairedDifference {
  std::size_t pairs = 0;
  double mean = 0.0;
  double standard_error = 0.0;
};

// The sample standard deviation of `values` (over n - 1); needs at least 2.
double sample_standard_deviation(std::span<const double> values);

// Throws std::invalid_argument unless both hold the same number (at least 2) of losses.
PairedDifference paired_difference(std::span<const double> variant,
                                   std::span<const double> baseline);

// A mean no larger than two standard errors is not told apart from no
// difference at all: "not measurable here". A larger one is "a cost" (the
// variant's loss is higher) or "a gain".
enum class PairedVerdict { kNotMeasurable, kCost, kGain };
PairedVerdict verdict_of(const PairedDifference& d);
std::string verdict_text(PairedVerdict v);

// The standard error of a share k of n, sqrt(p (1 - p) / n): how far a rate
// such as the share of poems in form moves from one set of n draws to another.
double share_standard_error(std::size_t k, std::size_t n);

}  // namespace tang

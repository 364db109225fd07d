// chi_square.hpp: the chi-square tests of lesson 12's sampling tests, with exact
// tail probabilities (no table, no approximation).
//
// Pearson's statistic over cells sum (seen - expected)^2 / expected, against
// its distribution with `df` degrees of freedom: the probability of a statistic
// at least this large is the regularised upper incomplete gamma Q(df/2, x/2).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

namespace tang::testing {

// P(chi-square with df degrees of freedom >= x): 1 - P(df/2, x/2), P by its series
// sum_n (x/2)^(s+n) e^(-x/2) / Gamma(s+n+1), which converges for every x. Taken as
// 1 - P in doubles, a tail below about 1e-15 is rounding: enough to test at 0.001.
inline double chi_square_tail(double x, double df) {
  if (x <= 0) return 1.0;
  const double s = df / 2, h = x / 2;
  double term = 1.0 / s, sum = term;
  for (int n = 1; n < 100000 && term > 1e-17 * sum; ++n) sum += term *= h / (s + n);
  const double lower = sum * std::exp(-h + s * std::log(h) - std::lgamma(s));
  return lower >= 1.0 ? 0.0 : 1.0 - lower;
}

// The statistic that chi-square with df degrees of freedom exceeds with
// probability `tail` (bisection on chi_square_tail): 103.44 for df 63, tail 0.001.
inline double chi_square_quantile(double df, double tail) {
  double lo = 0, hi = df + 100 * std::sqrt(2 * df) + 100;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (chi_square_tail(mid, df) > tail ? lo : hi) = mid;
  }
  return lo;
}

// Two samples of counts over the same cells (`a` and `b`): the statistic of "both
// drawn from one distribution", and its degrees of freedom (the cells used, less
// one). Cells whose two counts add up to less than `pool_below` are pooled into one
// (chi-square's approximation needs cells that are not nearly empty); an empty
// cell is left out.
struct TwoSample {
  double statistic = 0;
  double df = 0;
  double tail() const { return chi_square_tail(statistic, df); }
};

inline TwoSample two_sample_chi_square(std::span<const double> a, std::span<const double> b,
                                       double pool_below = 1) {
  double na = 0, nb = 0, rare_a = 0, rare_b = 0;
  for (const double x : a) na += x;
  for (const double x : b) nb += x;
  TwoSample t;
  const auto add_cell = [&](double ca, double cb) {
    if (ca + cb == 0) return;
    const double ea = (ca + cb) * na / (na + nb), eb = (ca + cb) * nb / (na + nb);  // expected
    t.statistic += (ca - ea) * (ca - ea) / ea + (cb - eb) * (cb - eb) / eb;
    t.df += 1;
  };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] + b[i] < pool_below) {
      rare_a += a[i], rare_b += b[i];
    } else {
      add_cell(a[i], b[i]);
    }
  }
  add_cell(rare_a, rare_b);
  t.df -= 1;
  return t;
}

}  // namespace tang::testing

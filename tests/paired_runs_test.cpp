// paired_runs_test: lesson 10's reading of its runs: the paired difference and
// its standard error, the verdict's rule, and the standard error of a share.
#include "10_cache_size/paired_runs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

TEST(PairedRuns, TheMeanDifferenceAndItsStandardError) {
  // differences 0.01, 0.03, 0.05: mean 0.03, sample sd 0.02, standard error 0.02 / sqrt 3
  const std::vector<double> variant = {4.81, 4.83, 4.80}, baseline = {4.80, 4.80, 4.75};
  const tang::PairedDifference d = tang::paired_difference(variant, baseline);
  EXPECT_EQ(d.pairs, 3u);
  EXPECT_NEAR(d.mean, 0.03, 1e-12);
  EXPECT_NEAR(d.standard_error, 0.02 / std::sqrt(3.0), 1e-12);
}

TEST(PairedRuns, PairingRemovesWhatTheSeedMovesInBoth) {
  // the seeds move both runs by the same amount: the pairs see the steady difference
  const std::vector<double> baseline = {4.70, 4.80, 4.90}, variant = {4.72, 4.82, 4.92};
  const tang::PairedDifference d = tang::paired_difference(variant, baseline);
  EXPECT_NEAR(d.mean, 0.02, 1e-12);
  EXPECT_NEAR(d.standard_error, 0.0, 1e-12);
  EXPECT_EQ(tang::verdict_of(d), tang::PairedVerdict::kCost);
}

TEST(PairedRuns, TheVerdictIsTwoStandardErrors) {
  EXPECT_EQ(tang::verdict_of({3, 0.019, 0.01}), tang::PairedVerdict::kNotMeasurable);
  EXPECT_EQ(tang::verdict_of({3, 0.020, 0.01}), tang::PairedVerdict::kNotMeasurable);
  EXPECT_EQ(tang::verdict_of({3, 0.021, 0.01}), tang::PairedVerdict::kCost);
  EXPECT_EQ(tang::verdict_of({3, -0.021, 0.01}), tang::PairedVerdict::kGain);
  EXPECT_EQ(tang::verdict_of({3, -0.019, 0.01}), tang::PairedVerdict::kNotMeasurable);
  EXPECT_EQ(tang::verdict_of({3, 0.0, 0.0}), tang::PairedVerdict::kNotMeasurable);
  EXPECT_EQ(tang::verdict_text(tang::PairedVerdict::kNotMeasurable), "not measurable here");
  EXPECT_EQ(tang::verdict_text(tang::PairedVerdict::kCost), "a cost");
}

TEST(PairedRuns, NeedsTwoPairsOfEqualLength) {
  const std::vector<double> one = {4.8}, two = {4.8, 4.9}, three = {4.8, 4.9, 5.0};
  EXPECT_THROW(tang::paired_difference(one, one), std::invalid_argument);
  EXPECT_THROW(tang::paired_difference(two, three), std::invalid_argument);
}

TEST(PairedRuns, TheStandardErrorOfAShare) {
  // 200 poems, 86% in form: sqrt(0.86 * 0.14 / 200) = 0.0245, about 2.5 points
  EXPECT_NEAR(tang::share_standard_error(172, 200), std::sqrt(0.86 * 0.14 / 200), 1e-12);
  EXPECT_EQ(tang::share_standard_error(0, 200), 0.0);
  EXPECT_EQ(tang::share_standard_error(200, 200), 0.0);
  EXPECT_EQ(tang::share_standard_error(0, 0), 0.0);
}

}  // namespace

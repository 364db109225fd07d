// tuned_product_test: which product the benchmarks' tuned path runs
// (benchmarks/tuned_product.hpp), chosen from a paper profile: weights that come from
// main memory get the product that was fastest from memory, weights in the cache the
// one fastest there. No rate is measured here.

#include "tuned_product.hpp"

#include <gtest/gtest.h>

#include <cstddef>

#include "06_kvcache/machine_profile.hpp"

namespace {

using tang::MachineProfile;
using tang::bench::Product;

// A machine whose bandwidth falls to main memory's at 64 MB (12 GB/s, within 1.5x of
// the slowest, 10), and whose products rank differently in the cache and from memory:
// in the cache few rows is fastest at one row and BLAS at 16; from memory the lesson
// loop at one row and panels at 16, with few rows second (the fastest without panels).
MachineProfile paper_machine() {
  MachineProfile p;
  p.read_gb_per_s = {{1u << 20, 50.0}, {16u << 20, 30.0}, {64u << 20, 12.0}, {256u << 20, 10.0}};
  struct Rates {
    double cache_1, cache_16, memory_1, memory_16;
  };
  const Rates rates[] = {{10.0, 20.0, 7.0, 20.0},   // lesson loop
                         {11.0, 30.0, 6.0, 40.0},   // panels
                         {12.0, 25.0, 5.0, 30.0},   // few rows
                         {2.0, 35.0, 1.0, 25.0}};  // BLAS
  for (std::size_t i = 0; i < std::size(tang::bench::kProductLoops); ++i) {
    const tang::bench::ProductLoop& loop = tang::bench::kProductLoops[i];
    for (std::size_t cols : {std::size_t{768}, std::size_t{3072}}) {
      p.loop_gflops[loop.loop].push_back({cols, 1, rates[i].cache_1});
      p.loop_gflops[loop.loop].push_back({cols, 16, rates[i].cache_16});
      p.loop_gflops[loop.memory_loop].push_back({cols, 1, rates[i].memory_1});
      p.loop_gflops[loop.memory_loop].push_back({cols, 16, rates[i].memory_16});
    }
  }
  return p;
}

TEST(MachineProfile, MainMemoryStartsWhereTheBandwidthIsNearTheSlowest) {
  const MachineProfile p = paper_machine();
  EXPECT_EQ(p.main_memory_bytes(), std::size_t{64} << 20);
  // GPT-2 small's shape (362 MB of fp32 weights) comes from main memory, our model's
  // 6.8 MB stay in the cache
  EXPECT_TRUE(tang::bench::weights_from_memory(p, 362e6));
  EXPECT_FALSE(tang::bench::weights_from_memory(p, 6.8e6));
}

TEST(TunedProduct, WeightsFromMemoryGetTheProductFastestFromMemory) {
  const tang::bench::ProductChoice choice(paper_machine());
  for (std::size_t cols : {std::size_t{768}, std::size_t{3072}}) {
    EXPECT_EQ(choice.fastest(1, cols, true, false), Product::kFewRows) << cols;
    EXPECT_EQ(choice.fastest(16, cols, true, false), Product::kBlas) << cols;
    EXPECT_EQ(choice.fastest(1, cols, true, true), Product::kLessonLoop) << cols;
    EXPECT_EQ(choice.fastest(16, cols, true, true), Product::kPanels) << cols;
    // N between the measured batch sizes: the largest measured one below it
    EXPECT_EQ(choice.fastest(20, cols, true, true), Product::kPanels) << cols;
    EXPECT_EQ(choice.fastest(8, cols, true, true), Product::kLessonLoop) << cols;
    // weights without a panel copy: the fastest of the other three
    EXPECT_EQ(choice.fastest(16, cols, false, true), Product::kFewRows) << cols;
    // and the rates the cost model predicts the tuned path from are the chosen ones'
    EXPECT_DOUBLE_EQ(choice.gflops(16, cols, true), 40.0) << cols;
    EXPECT_DOUBLE_EQ(choice.gflops(16, cols, false), 35.0) << cols;
  }
  // a width between the measured ones: the nearest on a log scale
  EXPECT_EQ(choice.fastest(16, 1024, true, true), Product::kPanels);
}

}  // namespace

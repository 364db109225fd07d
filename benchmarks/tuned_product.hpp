// tuned_product.hpp: which matrix product the benchmarks' tuned path runs, chosen
// from this machine's profile rather than by a constant.
//
// Four products compute a step's out (N, rows) = in (N, cols) @ W^T, and which one
// is fastest depends on N, on the matrix's width and on the machine:
//   tuned: lesson loop   ops::matmul_forward, the lessons' own loop (one weight row
//                        at a time, the next asked for ahead)
//   tuned: panels        fast::panel_matmul, from a copy of W in panels of outputs
//   tuned: few rows      fast::few_rows_matmul, from W as the model stores it
//   tuned: BLAS          fast::blas_matmul, OpenBLAS's sgemm (packs W first)
// The machine profile measures the four side by side (measure_loops), at every width
// and batch size, and TunedMatrix calls the one that was fastest at the profile's
// nearest width and at the largest batch size it measured that is not above N.
// Read once per program, before anything is timed (bench_main); measured first (about
// 6 seconds here) when the profile lacks them.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "fast/fast.hpp"
#include "ops.hpp"

namespace tang::bench {

enum class Product { kLessonLoop, kPanels, kFewRows, kBlas };

struct ProductLoop {
  Product product;
  const char* loop;  // its name in the machine profile
};
inline constexpr ProductLoop kProductLoops[] = {{Product::kLessonLoop, "tuned: lesson loop"},
                                                {Product::kPanels, "tuned: panels"},
                                                {Product::kFewRows, "tuned: few rows"},
                                                {Product::kBlas, "tuned: BLAS"}};

// The four as loops for the machine profile (panels copied from each loop's W once).
inline std::vector<LoopToMeasure> product_loops() {
  std::vector<LoopToMeasure> loops = {
      fp32_product_loop(kProductLoops[0].loop, ops::matmul_forward),
      {kProductLoops[1].loop,
       [](std::size_t rows, std::size_t cols) -> MatmulLoop {
         std::vector<float> w(rows * cols);
         for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * float(i));
         auto panels = std::make_shared<fast::PanelMatrix>(w.data(), rows, cols);
         return [panels](float* out, const float* in, std::size_t B) {
           fast::panel_matmul(out, in, *panels, nullptr, B);
         };
       }},
      fp32_product_loop(kProductLoops[2].loop, fast::few_rows_matmul),
      fp32_product_loop(kProductLoops[3].loop, fast::blas_matmul)};
  return loops;
}

// For every width and batch size of the profile, the fastest product, and the
// fastest without panels (for weights that have no panel copy).
class ProductChoice {
 public:
  explicit ProductChoice(const MachineProfile& profile) {
    for (const ProductLoop& p : kProductLoops) {
      for (const LoopRate& r : profile.loop_gflops.at(p.loop)) {
        keep_faster(best_[{r.cols, r.B}], {p.product, r.gflops});
        if (p.product != Product::kPanels)
          keep_faster(best_unpanelled_[{r.cols, r.B}], {p.product, r.gflops});
      }
    }
  }
  // The fastest for N rows of a matrix `cols` wide: at the measured width nearest
  // to cols (on a log scale), at the largest measured batch size up to N.
  Product fastest(std::size_t N, std::size_t cols, bool with_panels) const {
    return (with_panels ? best_ : best_unpanelled_).at(point(N, cols)).product;
  }
  double gflops(std::size_t N, std::size_t cols) const { return best_.at(point(N, cols)).gflops; }

 private:
  struct Best {
    Product product = Product::kLessonLoop;
    double gflops = 0.0;
  };
  static void keep_faster(Best& best, const Best& other) {
    if (other.gflops > best.gflops) best = other;
  }
  static std::pair<std::size_t, std::size_t> point(std::size_t N, std::size_t cols) {
    // nearest on a log scale: the smallest ratio of the larger to the smaller
    const auto ratio = [cols](std::size_t w) {
      return double(std::max(w, cols)) / double(std::max<std::size_t>(1, std::min(w, cols)));
    };
    std::size_t width = kProfileWidths[0];
    for (std::size_t w : kProfileWidths) {
      if (ratio(w) < ratio(width)) width = w;
    }
    std::size_t B = kProfileBatches[0];
    for (std::size_t b : kProfileBatches) {
      if (b <= N) B = b;
    }
    return {width, B};
  }
  std::map<std::pair<std::size_t, std::size_t>, Best> best_, best_unpanelled_;  // (width, B) ->
};

// The profile with the four products (measured now when it lacks them), and the
// choice made from it.
inline const MachineProfile& product_profile() {
  static const MachineProfile p = [] {
    const std::vector<LoopToMeasure> loops = product_loops();
    return load_or_measure_profile(default_profile_path(), loops, [](const std::string&) {});
  }();
  return p;
}
inline const ProductChoice& product_choice() {
  static const ProductChoice choice(product_profile());
  return choice;
}

// The profile's rates of the chosen product as one more loop, `name`, so that the
// cost model predicts the tuned path's steps from the products they run.
inline void add_chosen_loop(MachineProfile& p, const std::string& name) {
  std::vector<LoopRate>& rates = p.loop_gflops[name];
  rates.clear();
  for (std::size_t cols : kProfileWidths) {
    for (std::size_t B : kProfileBatches)
      rates.push_back({cols, B, product_choice().gflops(B, cols)});
  }
}

// W copied into panels once per program, for weights that live as long as the
// program does (the benchmarks' models): the same matrix gets the same panels.
inline const fast::PanelMatrix& panels_of(const float* weight, std::size_t rows, std::size_t cols) {
  static std::mutex mutex;
  static std::map<std::tuple<const float*, std::size_t, std::size_t>,
                  std::unique_ptr<fast::PanelMatrix>>
      made;
  const std::lock_guard lock(mutex);
  auto& panels = made[{weight, rows, cols}];
  if (!panels) panels = std::make_unique<fast::PanelMatrix>(weight, rows, cols);
  return *panels;
}

// out (N, OC) = inp (N, IC) @ weight^T + bias with the chosen product; `panels` is
// weight's panel copy, or null when there is none (the fastest of the other three).
inline void tuned_product(float* out, const float* inp, const float* weight,
                          const fast::PanelMatrix* panels, const float* bias, std::size_t N,
                          std::size_t IC, std::size_t OC) {
  switch (product_choice().fastest(N, IC, panels != nullptr)) {
    case Product::kLessonLoop:
      return ops::matmul_forward(out, inp, weight, bias, N, IC, OC);
    case Product::kPanels:
      return fast::panel_matmul(out, inp, *panels, bias, N);
    case Product::kFewRows:
      return fast::few_rows_matmul(out, inp, weight, bias, N, IC, OC);
    case Product::kBlas:
      return fast::blas_matmul(out, inp, weight, bias, N, IC, OC);
  }
}

// The product of Kernels (gpt.hpp) on the tuned path: weights without panels.
inline void tuned_matmul_forward(float* out, const float* inp, const float* weight,
                                 const float* bias, std::size_t N, std::size_t IC, std::size_t OC) {
  tuned_product(out, inp, weight, nullptr, bias, N, IC, OC);
}

}  // namespace tang::bench

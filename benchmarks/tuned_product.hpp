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
// and batch size, twice: on a matrix in the cache, and from memory (on weights twice
// the size of the last cache, so that every call streams them from main memory; at
// GPT-2 small's widths and lesson 08's batch sizes only). Which
// is fastest differs between the two: from memory a loop is as fast as its reads keep
// up with main memory, in the cache as fast as its arithmetic. A model whose weights
// are at least the profile's main_memory_bytes() (lesson 08's GPT-2-shaped one) reads
// them from main memory every step, so TunedMatrix calls the product that was fastest
// from memory; a smaller one (ours) the one fastest in the cache; either at the
// profile's nearest width and at the largest batch size it measured that is not above N.
// Read once per program, before anything is timed (bench_main); measured first (about
// 6 seconds here in the cache, 7 more from memory) when the profile lacks them.
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
#include "gpt.hpp"
#include "ops.hpp"

namespace tang::bench {

enum class Product { kLessonLoop, kPanels, kFewRows, kBlas };

struct ProductLoop {
  Product product;
  const char* loop;         // its name in the machine profile, in the cache
  const char* memory_loop;  // and from memory
};
inline constexpr ProductLoop kProductLoops[] = {
    {Product::kLessonLoop, "tuned: lesson loop", "tuned: lesson loop, from memory"},
    {Product::kPanels, "tuned: panels", "tuned: panels, from memory"},
    {Product::kFewRows, "tuned: few rows", "tuned: few rows, from memory"},
    {Product::kBlas, "tuned: BLAS", "tuned: BLAS, from memory"}};

// The four as loops for the machine profile (panels copied from each loop's W once),
// in the cache, then from memory.
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
  for (std::size_t i = 0; i < std::size(kProductLoops); ++i) {
    LoopToMeasure from_memory = loops[i];
    from_memory.name = kProductLoops[i].memory_loop;
    from_memory.from_memory = true;
    loops.push_back(from_memory);
  }
  return loops;
}

// Whether a model's weights, `bytes` of them all read every step, come from main
// memory on the machine of `profile` (as lesson 08's GPT-2-shaped model's do) or
// stay in a cache (as ours do).
inline bool weights_from_memory(const MachineProfile& profile, double bytes) {
  return bytes >= static_cast<double>(profile.main_memory_bytes());
}

// For every width and batch size of the profile, in the cache and from memory, the
// fastest product, and the fastest without panels (for weights that have no panel copy).
class ProductChoice {
 public:
  explicit ProductChoice(const MachineProfile& profile) {
    for (const bool memory : {false, true}) {
      Table& table = tables_[memory];
      for (const ProductLoop& p : kProductLoops) {
        for (const LoopRate& r : profile.loop_gflops.at(memory ? p.memory_loop : p.loop)) {
          keep_faster(table.best[{r.cols, r.B}], {p.product, r.gflops});
          if (p.product != Product::kPanels)
            keep_faster(table.best_unpanelled[{r.cols, r.B}], {p.product, r.gflops});
        }
      }
    }
  }
  // The fastest for N rows of a matrix `cols` wide, its weights in the cache or
  // (from_memory) streamed from main memory: at the measured width nearest to cols
  // (on a log scale), at the largest measured batch size up to N.
  Product fastest(std::size_t N, std::size_t cols, bool with_panels, bool from_memory) const {
    const Table& table = tables_[from_memory];
    return (with_panels ? table.best : table.best_unpanelled).at(table.point(N, cols)).product;
  }
  double gflops(std::size_t N, std::size_t cols, bool from_memory) const {
    const Table& table = tables_[from_memory];
    return table.best.at(table.point(N, cols)).gflops;
  }

 private:
  struct Best {
    Product product = Product::kLessonLoop;
    double gflops = 0.0;
  };
  static void keep_faster(Best& best, const Best& other) {
    if (other.gflops > best.gflops) best = other;
  }
  struct Table {
    std::map<std::pair<std::size_t, std::size_t>, Best> best, best_unpanelled;  // (width, B) ->
    // The measured (width, B) for N rows of a matrix `cols` wide: the width nearest on a
    // log scale (the smallest ratio of the larger to the smaller), the largest B up to N
    // (the smallest when N is below them all).
    std::pair<std::size_t, std::size_t> point(std::size_t N, std::size_t cols) const {
      const auto ratio = [cols](std::size_t w) {
        return double(std::max(w, cols)) / double(std::max<std::size_t>(1, std::min(w, cols)));
      };
      std::pair<std::size_t, std::size_t> at = best.begin()->first;
      for (const auto& [p, b] : best) {
        if (ratio(p.first) < ratio(at.first)) at.first = p.first;
      }
      for (const auto& [p, b] : best) {  // by increasing B at each width
        if (p.first == at.first && p.second <= N) at.second = p.second;
      }
      return at;
    }
  };
  Table tables_[2];  // in the cache, from memory
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

// Whether a model's weights come from main memory on this machine (its profile's).
inline bool weights_from_memory(const GPT& model) {
  return weights_from_memory(product_profile(),
                             static_cast<double>(model.parameters().size() * sizeof(float)));
}

// The profile's rates of the chosen product, in the cache or from memory, as one more
// loop, `name`, so that the cost model predicts the tuned path's steps from the rates
// their products were chosen by.
inline void add_chosen_loop(MachineProfile& p, const std::string& name, bool from_memory) {
  std::vector<LoopRate>& rates = p.loop_gflops[name];
  rates.clear();
  if (from_memory) {
    for (std::size_t cols : kMemoryWidths) {
      for (std::size_t B : kMemoryBatches)
        rates.push_back({cols, B, product_choice().gflops(B, cols, true)});
    }
  } else {
    for (std::size_t cols : kProfileWidths) {
      for (std::size_t B : kProfileBatches)
        rates.push_back({cols, B, product_choice().gflops(B, cols, false)});
    }
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
// weight's panel copy, or null when there is none (the fastest of the other three);
// from_memory: the weights are read from main memory (weights_from_memory).
inline void tuned_product(float* out, const float* inp, const float* weight,
                          const fast::PanelMatrix* panels, const float* bias, std::size_t N,
                          std::size_t IC, std::size_t OC, bool from_memory) {
  switch (product_choice().fastest(N, IC, panels != nullptr, from_memory)) {
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

// The product of Kernels (gpt.hpp) on the tuned path: weights without panels, in the
// cache (the rows that run it run our model).
inline void tuned_matmul_forward(float* out, const float* inp, const float* weight,
                                 const float* bias, std::size_t N, std::size_t IC, std::size_t OC) {
  tuned_product(out, inp, weight, nullptr, bias, N, IC, OC, false);
}

}  // namespace tang::bench

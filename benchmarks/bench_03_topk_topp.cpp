// bench_03_topk_topp: what lesson 03 adds, cutting off the tail before the draw.
//
// On the V logits after a prompt, at T = 1.5 (the lesson's setting), plain (what the lessons
// run) against tuned (common/fast/top_k_top_p.hpp), the same results:
//   lesson03/top_k/plain          lesson 03's top_k_filter, k = 20: partial_sort_copy into k slots
//   lesson03/top_k/tuned          fast::top_k_filter: one pass with a 20-element heap
//   lesson03/top_p/plain          exercise 03's solution, p = 0.9: sort all V ids, running sum
//   lesson03/top_p/tuned          fast::top_p_filter: drop what cannot be in the nucleus
//                                 (llama2.c's cut-off), find its edge by bisection
//   lesson03/sample_next/plain|tuned/top_k   the full sampling step: T -> top-k -> softmax ->
//   lesson03/sample_next/plain|tuned/top_p   top-p -> coin (lesson 03's sample_next against
//                                 fast::sample_next)
//   lesson03/write_chars/plain|tuned/top_k|top_p   64 characters with lesson 06's cache, so
//                                 that the sampling's share of a step shows: characters/s
// Each iteration starts by copying the logits (or probabilities) it works on.
#include <algorithm>
#include <vector>

#include "03_topk_topp/exercise/top_p.hpp"
#include "03_topk_topp/sampler.hpp"
#include "bench_common.hpp"
#include "bench_writing.hpp"
#include "fast/top_k_top_p.hpp"

namespace {

using namespace tang;

constexpr float kTemperature = 1.5f;
constexpr std::size_t kTopK = 20;
constexpr float kTopP = 0.9f;

// The logits after a prompt at T = 1.5, as sample_next scales them: (z - max) / T.
std::vector<float> hot_logits() {
  std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  const float max = *std::max_element(logits.begin(), logits.end());
  for (float& z : logits) z = (z - max) / kTemperature;
  return logits;
}

void BM_top_k(benchmark::State& state, bench::Path path) {
  const std::vector<float> logits = hot_logits();
  std::vector<float> work(logits.size()), scratch;
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    if (path == bench::Path::kPlain) {
      top_k_filter(work, kTopK);
    } else {
      fast::top_k_filter(work, kTopK, scratch);
    }
    benchmark::DoNotOptimize(work.data());
  }
  clock.finish(state, 1, "calls_per_s");
}

void BM_top_p(benchmark::State& state, bench::Path path) {
  std::vector<float> probabilities = hot_logits();
  softmax_in_place(probabilities);
  std::vector<float> work(probabilities.size());
  std::vector<fast::NucleusKey> keys;
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(probabilities.begin(), probabilities.end(), work.begin());
    if (path == bench::Path::kPlain) {
      top_p_filter(work, kTopP);
    } else {
      fast::top_p_filter(work, kTopP, keys);
    }
    benchmark::DoNotOptimize(work.data());
  }
  clock.finish(state, 1, "calls_per_s");
  std::size_t kept = 0;
  for (float q : work) kept += q > 0.0f;
  state.counters["kept"] = static_cast<double>(kept);
}

SamplingSettings settings_for(bool use_top_p) {
  return use_top_p ? SamplingSettings{kTemperature, 0, kTopP}
                   : SamplingSettings{kTemperature, kTopK, 1.0f};
}

void BM_sample_next(benchmark::State& state, bench::Path path, bool use_top_p) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  const SamplingSettings settings = settings_for(use_top_p);
  std::vector<float> work(logits.size());
  fast::SamplerScratch scratch;
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    if (path == bench::Path::kPlain) {
      benchmark::DoNotOptimize(sample_next(work, settings, rng));
    } else {
      benchmark::DoNotOptimize(fast::sample_next(work, settings, rng, scratch));
    }
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_chars(benchmark::State& state, bench::Path path, bool use_top_p) {
  bench::time_writing(state, bench::course_model(), path, /*use_cache=*/true,
                      bench::sampler_for(path, settings_for(use_top_p)), 64);
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson03/top_k", path), BM_top_k, path)
        ->UseRealTime()
        ->Unit(us);
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson03/top_p", path), BM_top_p, path)
        ->UseRealTime()
        ->Unit(us);
  }
  for (bool use_top_p : {false, true}) {
    for (bench::Path path : bench::kBothPaths) {
      const std::string filter = use_top_p ? "/top_p" : "/top_k";
      bench::register_row(bench::row_name("lesson03/sample_next", path) + filter, BM_sample_next,
                          path, use_top_p)
          ->UseRealTime()
          ->Unit(us);
    }
  }
  for (bool use_top_p : {false, true}) {
    for (bench::Path path : bench::kBothPaths) {
      const std::string filter = use_top_p ? "/top_p" : "/top_k";
      bench::register_row(bench::row_name("lesson03/write_chars", path) + filter, BM_write_chars,
                          path, use_top_p)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

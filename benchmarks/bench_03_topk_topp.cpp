// bench_03_topk_topp: what lesson 03 adds, cutting off the tail before the draw.
//
// On the V logits after a prompt, at T = 1.5 (the lesson's setting):
//   lesson03/top_k/heap             top_k_filter, k = 20: one pass with a 20-element heap
//   lesson03/top_k/nth_element      the same result, the k-th value by partial selection
//   lesson03/top_k/full_sort        the same result by sorting all V values first
//   lesson03/top_p/full_sort        top_p_filter, p = 0.9: sorts the whole vocabulary
//   lesson03/top_p/cutoff           top_p_filter_with_cutoff: drops every probability
//                                   below (1 - p) / (V - 1) (llama2.c), then finds the
//                                   nucleus's edge by bisection instead of sorting
//   lesson03/sample_next/top_k      the full sampling step: T -> top-k -> softmax -> coin
//   lesson03/sample_next/top_p      T -> softmax -> top-p (cut-off) -> coin
//   lesson03/write_chars/top_k|top_p  64 characters with the cache: characters/s
// Each iteration starts by copying the logits (or probabilities) it works on.
#include <functional>
#include <limits>
#include <vector>

#include "bench_common.hpp"
#include "bench_writing.hpp"
#include "decoder.hpp"
#include "next_char.hpp"
#include "poem_writer.hpp"
#include "temperature.hpp"
#include "top_k_top_p.hpp"
#include "topk_topp_section.hpp"

namespace {

using namespace tang;

constexpr float kTemperature = 1.5f;
constexpr std::size_t kTopK = 20;
constexpr float kTopP = 0.9f;

std::vector<float> hot_logits() {
  std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  apply_temperature(logits, kTemperature);
  return logits;
}

// Two slower ways to the same top-k result, for comparison with top_k_filter.
enum class KthBy { kNthElement, kFullSort };

template <KthBy kMethod>
void top_k_by(std::span<float> logits, std::size_t k, std::vector<float>& sorted) {
  sorted.assign(logits.begin(), logits.end());
  const auto kth_position = sorted.begin() + static_cast<std::ptrdiff_t>(k - 1);
  if constexpr (kMethod == KthBy::kNthElement) {
    std::nth_element(sorted.begin(), kth_position, sorted.end(), std::greater<float>());
  } else {
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  }
  const float kth = *kth_position;
  for (float& z : logits) {
    if (z < kth) z = -std::numeric_limits<float>::infinity();
  }
}

template <void (*TopK)(std::span<float>, std::size_t, std::vector<float>&)>
void BM_top_k(benchmark::State& state) {
  const std::vector<float> logits = hot_logits();
  std::vector<float> work(logits.size()), scratch;
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    TopK(work, kTopK, scratch);
    benchmark::DoNotOptimize(work.data());
  }
  clock.finish(state, 1, "calls_per_s");
}

template <void (*Filter)(std::span<float>, float, std::vector<NucleusKey>&)>
void BM_top_p(benchmark::State& state) {
  std::vector<float> probabilities = hot_logits();
  softmax_in_place(probabilities);
  std::vector<float> work(probabilities.size());
  std::vector<NucleusKey> keys;
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(probabilities.begin(), probabilities.end(), work.begin());
    Filter(work, kTopP, keys);
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

void BM_sample_next(benchmark::State& state, bool use_top_p) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  const SamplingSettings settings = settings_for(use_top_p);
  std::vector<float> work(logits.size());
  SamplerScratch scratch;
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    benchmark::DoNotOptimize(sample_next(work, settings, rng, scratch));
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_chars(benchmark::State& state, bool use_top_p) {
  bench::time_writing(state, sampling_picker(settings_for(use_top_p)), 64);
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  benchmark::RegisterBenchmark("lesson03/top_k/heap", BM_top_k<top_k_filter>)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/top_k/nth_element", BM_top_k<top_k_by<KthBy::kNthElement>>)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/top_k/full_sort", BM_top_k<top_k_by<KthBy::kFullSort>>)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/top_p/full_sort", BM_top_p<top_p_filter>)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/top_p/cutoff", BM_top_p<top_p_filter_with_cutoff>)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/sample_next/top_k", BM_sample_next, false)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/sample_next/top_p", BM_sample_next, true)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson03/write_chars/top_k", BM_write_chars, false)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("lesson03/write_chars/top_p", BM_write_chars, true)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

// bench_13_cache_budget: lesson 13's caches on a budget, a cached step on the lesson
// path and tuned.
//
//   lesson13/step/plain|tuned/<format>/n:100   one cached step of one text whose cache
//                                      holds 100 positions in <format> (QuantizedCache,
//                                      quantized_cache.hpp): every layer rebuilds the held
//                                      keys and values in float32, then attends as lesson 06
//                                      does. fp32 is lesson 06's KVCache step itself
//   lesson13/step/plain|tuned/drop:<rule>/n:100  the same step through a DroppingCache
//                                      keeping 32 of the 100 (dropping_cache.hpp), timed
//                                      step by step (each iteration first puts back a copy
//                                      of the cache at 100 positions, not timed)
// The tuned rows run the same caches with the tuned matrix products and GELU
// (bench_writing.hpp's TunedMatrices); the caches' own loops are the lesson's on both.
// Counters: steps_per_s, step_us; every plain row has predicted_steps_per_s: lesson
// 06's cost model for the step (06_kvcache/step_cost.hpp, no draw) plus the numbers the
// format rebuilds times its rebuild loop's time per number, measured here as the lesson
// measures it (QuantizedCache::measure_rebuild_ns).
#include <chrono>
#include <string>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "13_cache_budget/dropping_cache.hpp"
#include "13_cache_budget/quantized_cache.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"
#include "bench_writing.hpp"

namespace {

using namespace tang;

constexpr std::size_t kHeld = 100, kDropBudget = 32;

// The text: the benchmarks' prompt over and over, kHeld + 1 characters.
std::vector<TokenId> text_of(const GPT& model) {
  const std::vector<TokenId> prompt = bench::ids(model, bench::kPrompt);
  std::vector<TokenId> text(kHeld + 1);
  for (std::size_t t = 0; t < text.size(); ++t) text[t] = prompt[t % prompt.size()];
  return text;
}

double plain_step_ms() {
  const StepCost cost = predict_plain_step(bench::course_model().config(), cached_step(kHeld),
                                           bench::plain_loop_profile());
  return cost.total_ms() - cost.sampling_ms;
}

void BM_quantized_step(benchmark::State& state, bench::Path path, std::string format_name) {
  const GPT& model = bench::course_model();
  QuantizedCache cache(model.config(), parse_cache_format(format_name));
  const double rebuild_ns = cache.measure_rebuild_ns(25);
  Activations acts = step_activations(model.config(), 1);
  const std::vector<TokenId> text = text_of(model);
  for (std::size_t p = 0; p < kHeld; ++p)
    bench::forward_with_cache_on(path, model, std::span(text).subspan(p, 1), cache, acts);
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = kHeld;  // forget the step before
    benchmark::DoNotOptimize(
        bench::forward_with_cache_on(path, model, std::span(text).subspan(kHeld, 1), cache, acts)
            .data());
  }
  clock.finish(state, 1, "steps_per_s");
  if (path == bench::Path::kPlain) {
    state.counters["predicted_steps_per_s"] =
        1e3 / (plain_step_ms() +
               static_cast<double>(cache.dequantized_numbers(kHeld)) * rebuild_ns * 1e-6);
  }
}

void BM_dropping_step(benchmark::State& state, bench::Path path, KeepRule::Kind kind) {
  const GPT& model = bench::course_model();
  const std::vector<TokenId> text = text_of(model);
  Activations acts = step_activations(model.config(), 1);
  const auto filled = [&] {
    DroppingCache cache(model.config(), {kind, kDropBudget});
    for (std::size_t p = 0; p < kHeld; ++p)
      bench::forward_with_cache_on(path, model, std::span(text).subspan(p, 1), cache, acts);
    return cache;
  }();
  DroppingCache cache = filled;
  double seconds = 0.0;  // the steps alone, not the copies that undo them
  for (auto _ : state) {
    cache = filled;  // the step before forgotten: the cache at kHeld again
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(
        bench::forward_with_cache_on(path, model, std::span(text).subspan(kHeld, 1), cache, acts)
            .data());
    const double step =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(step);
    seconds += step;
  }
  const double per_step = seconds / static_cast<double>(state.iterations());
  state.counters["steps"] = 1;
  state.counters["steps_per_s"] = 1.0 / per_step;
  state.counters["step_us"] = 1e6 * per_step;
  state.counters["x_floor"] = per_step / bench::floor_seconds();
  if (path == bench::Path::kPlain) {  // attention over 32 + 1 positions, not 100 + 1
    const StepCost cost =
        predict_plain_step(model.config(), cached_step(kDropBudget), bench::plain_loop_profile());
    state.counters["predicted_steps_per_s"] = 1e3 / (cost.total_ms() - cost.sampling_ms);
  }
}

void register_lesson() {
  for (const bench::Path path : bench::kBothPaths) {
    for (const char* format : {"fp32", "bf16", "int8-token", "int8-channel", "int4-channel",
                               "kivi4", "kivi4-recent32"}) {
      bench::register_row(bench::row_name("lesson13/step", path) + "/" + format + "/n:100",
                          BM_quantized_step, path, std::string(format))
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
    for (const KeepRule::Kind kind : {KeepRule::kWindow, KeepRule::kSinks, KeepRule::kHeavy}) {
      bench::register_row(bench::row_name("lesson13/step", path) +
                              "/drop:" + KeepRule{kind, kDropBudget}.name() + "/n:100",
                          BM_dropping_step, path, kind)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

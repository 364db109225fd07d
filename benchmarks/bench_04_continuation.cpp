// bench_04_continuation: what lesson 04 adds, reading a given opening first (prefill).
//
//   lesson04/prefill/plain|tuned/T      T prompt characters in ONE forward pass into lesson
//                                       06's cache: one matrix-matrix product per weight,
//                                       every weight read once
//   lesson04/one_by_one/plain|tuned/T   the same T characters as T one-position steps: every
//                                       weight read T times
// plain: the lesson's cached forward; tuned: the same with its matrix products by OpenBLAS
// (bench_writing.hpp's forward_with_cache_on).
// Counters per prompt character (tokens_per_s, x_floor): prefill gets far below the
// floor because a weight read once serves T positions.
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "bench_common.hpp"
#include "bench_writing.hpp"

namespace {

using namespace tang;

std::vector<TokenId> prompt_of_length(const GPT& model, std::size_t T) {
  const std::vector<TokenId> opening = bench::ids(model, bench::after_newline(bench::kOpening));
  std::vector<TokenId> text(T);
  for (std::size_t t = 0; t < T; ++t) text[t] = opening[t % opening.size()];
  return text;
}

void BM_prefill(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  const std::vector<TokenId> text = prompt_of_length(model, T);
  KVCache cache(model.config());
  Activations acts(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = 0;
    const auto logits = bench::forward_with_cache_on(path, model, text, cache, acts);
    benchmark::DoNotOptimize(logits.data());
  }
  clock.finish(state, static_cast<double>(T), "tokens_per_s");
}

void BM_one_by_one(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  const std::vector<TokenId> text = prompt_of_length(model, T);
  KVCache cache(model.config());
  Activations acts(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = 0;
    for (std::size_t t = 0; t < T; ++t) {
      const auto logits =
          bench::forward_with_cache_on(path, model, std::span(text).subspan(t, 1), cache, acts);
      benchmark::DoNotOptimize(logits.data());
    }
  }
  clock.finish(state, static_cast<double>(T), "tokens_per_s");
}

void register_lesson() {
  for (auto* function : {BM_prefill, BM_one_by_one}) {
    const char* what = function == BM_prefill ? "lesson04/prefill" : "lesson04/one_by_one";
    for (int T : {7, 32, 128}) {
      for (bench::Path path : bench::kBothPaths) {
        bench::register_row(bench::row_name(what, path), function, path)
            ->Arg(T)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

// bench_04_continuation: what lesson 04 adds, reading a given opening first (prefill).
//
//   lesson04/prefill/T        T prompt characters in ONE forward pass into the cache:
//                             one matrix-matrix product per weight, every weight read once
//   lesson04/one_by_one/T     the same T characters as T one-position steps: every weight
//                             read T times
// Counters per prompt character (tokens_per_s, x_floor): prefill gets far below the
// floor because a weight read once serves T positions.
#include <vector>

#include "bench_common.hpp"

namespace {

using namespace tang;

std::vector<TokenId> prompt_of_length(const GPT& model, std::size_t T) {
  const std::vector<TokenId> opening = bench::ids(model, bench::after_newline(bench::kOpening));
  std::vector<TokenId> text(T);
  for (std::size_t t = 0; t < T; ++t) text[t] = opening[t % opening.size()];
  return text;
}

void BM_prefill(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  const std::vector<TokenId> text = prompt_of_length(model, T);
  KVCache cache(model.config());
  ForwardState forward_state(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.reset();
    const auto logits = forward(model, text, 0, cache, forward_state, LogitsFor::kLastPosition);
    benchmark::DoNotOptimize(logits.data());
  }
  clock.finish(state, static_cast<double>(T), "tokens_per_s");
}

void BM_one_by_one(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  const std::vector<TokenId> text = prompt_of_length(model, T);
  KVCache cache(model.config());
  ForwardState forward_state(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.reset();
    for (std::size_t t = 0; t < T; ++t) {
      const auto logits = forward(model, std::span(text).subspan(t, 1), t, cache, forward_state,
                                  LogitsFor::kLastPosition);
      benchmark::DoNotOptimize(logits.data());
    }
  }
  clock.finish(state, static_cast<double>(T), "tokens_per_s");
}

void register_lesson() {
  for (auto* b : {benchmark::RegisterBenchmark("lesson04/prefill", BM_prefill),
                  benchmark::RegisterBenchmark("lesson04/one_by_one", BM_one_by_one)}) {
    b->Arg(7)->Arg(32)->Arg(128)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char** argv) { return tang::bench::bench_main(argc, argv, 1, register_lesson); }

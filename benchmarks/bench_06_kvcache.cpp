// bench_06_kvcache: what lesson 06 adds, the KV cache.
//
//   lesson06/write_chars/N/cache:C     write_chars() of lesson 06: N characters after a
//                                      newline, T 0.8 and top-k 20, with (C = 1) or
//                                      without (C = 0) the cache, on the course model.
//                                      Without it, character t re-reads all t before it:
//                                      the time grows with N^2; with it, with N.
//   lesson06/block512/N/cache:C        the same on a random model with context 512
//                                      (exercise 3), N up to 500: the chart's curves
//   lesson06/decode_step/P             one cached step at position P: the attention over
//                                      P cached positions is all that grows
// Counters per character: chars_per_s, step_us, x_floor.
#include <vector>

#include "bench_common.hpp"
#include "cache_timing.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags
constexpr std::uint64_t kSeed = 42;

void BM_write_chars(benchmark::State& state, std::size_t block_size) {
  const GPT& model = block_size == 0 ? bench::course_model() : bench::wide_context_model(block_size);
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool use_cache = state.range(1) != 0;
  bench::StepClock clock(state);
  for (auto _ : state) {
    const TimedText text = write_chars(model, use_cache, n, kSettings, kSeed);
    benchmark::DoNotOptimize(text.ids.data());
  }
  clock.finish(state, static_cast<double>(n), "chars_per_s");
}

void BM_decode_step(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const auto position = static_cast<std::size_t>(state.range(0));
  KVCache cache(model.config());
  ForwardState forward_state(model.config());
  std::vector<TokenId> text(position + 1);
  const std::vector<TokenId> prompt = bench::ids(model, bench::kPrompt);
  for (std::size_t t = 0; t < text.size(); ++t) text[t] = prompt[t % prompt.size()];
  if (position > 0) {
    forward(model, std::span(text).first(position), 0, cache, forward_state, LogitsFor::kLastPosition);
  }
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = position;  // forget the step before: the cache holds positions 0 .. P-1
    const auto logits = forward(model, std::span(text).subspan(position, 1), position, cache,
                                forward_state, LogitsFor::kLastPosition);
    benchmark::DoNotOptimize(logits.data());
  }
  clock.finish(state, 1, "steps_per_s");
}

void register_lesson() {
  benchmark::RegisterBenchmark("lesson06/write_chars", BM_write_chars, std::size_t{0})
      ->ArgNames({"", "cache"})
      ->ArgsProduct({{32, 64, 120}, {0, 1}})
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("lesson06/block512", BM_write_chars, std::size_t{512})
      ->ArgNames({"", "cache"})
      ->ArgsProduct({{32, 64, 120, 250, 500}, {0, 1}})
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("lesson06/decode_step", BM_decode_step)
      ->Arg(0)->Arg(64)->Arg(127)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) { return tang::bench::bench_main(argc, argv, 1, register_lesson); }

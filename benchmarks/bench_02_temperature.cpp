// bench_02_temperature: what lesson 02 adds, drawing one character at a temperature.
//
//   lesson02/sample_with_temperature/plain   exercise 02's sample_with_temperature:
//                                      logits / T -> softmax -> one coin (T = 1.0), on the
//                                      V logits the model gives after a prompt
//   lesson02/sample_with_temperature/tuned   the same draw by fast::sample_next (T = 1, no
//                                      top-k, no top-p): the vectorised softmax, no copy
//   lesson02/argmax                    T = 0, the greedy pick
//   lesson02/write_chars/plain|tuned/64   the whole generation step: 64 characters at T = 1
//                                      with lesson 06's cache (so that the draw's share
//                                      shows), the lesson path (plain kernels, exercise 02's
//                                      draw) against the tuned one: characters/s
// Every sampling iteration starts by copying the V logits, as write() does each step.
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "bench_common.hpp"
#include "bench_writing.hpp"

namespace {

using namespace tang;

void BM_sample_with_temperature(benchmark::State& state, bench::Path path) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  std::vector<float> work(logits.size());
  fast::SamplerScratch scratch;
  const SamplingSettings settings{1.0f, 0, 1.0f};
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    if (path == bench::Path::kPlain) {
      benchmark::DoNotOptimize(sample_with_temperature(work, 1.0f, rng.uniform()));
    } else {
      benchmark::DoNotOptimize(fast::sample_next(work, settings, rng, scratch));
    }
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_argmax(benchmark::State& state) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  std::vector<float> work(logits.size());
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    benchmark::DoNotOptimize(sample_with_temperature(work, 0.0f, rng.uniform()));
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_chars(benchmark::State& state, bench::Path path) {
  // the lesson's picker (temperature_section.cpp), or the tuned draw at T = 1
  const Picker plain = [](std::span<float> logits, std::size_t, Rng& rng, StepRecord*) {
    return sample_with_temperature(logits, 1.0f, rng.uniform());
  };
  const Picker pick = path == bench::Path::kPlain
                          ? plain
                          : bench::sampler_for(path, SamplingSettings{1.0f, 0, 1.0f});
  bench::time_writing(state, bench::course_model(), path, /*use_cache=*/true, pick,
                      static_cast<std::size_t>(state.range(0)));
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson02/sample_with_temperature", path),
                        BM_sample_with_temperature, path)
        ->UseRealTime()
        ->Unit(us);
  }
  benchmark::RegisterBenchmark("lesson02/argmax", BM_argmax)->UseRealTime()->Unit(us);
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson02/write_chars", path), BM_write_chars, path)
        ->Arg(64)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

// bench_02_temperature: what lesson 02 adds, drawing one character at a temperature.
//
//   lesson02/sample_with_temperature   logits / T -> softmax -> one coin (T = 1.0),
//                                      on the V logits the model gives after a prompt
//   lesson02/argmax                    T = 0, the greedy pick
//   lesson02/write_chars/64            the whole generation step: 64 characters with the
//                                      cache and temperature sampling: characters/s
// Every sampling iteration starts by copying the V logits, as write() does each step.
#include <vector>

#include "bench_common.hpp"
#include "bench_writing.hpp"
#include "decoder.hpp"
#include "poem_writer.hpp"
#include "temperature.hpp"

namespace {

using namespace tang;

void BM_sample_with_temperature(benchmark::State& state) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  std::vector<float> work(logits.size());
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    benchmark::DoNotOptimize(sample_with_temperature(work, 1.0f, rng));
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
    benchmark::DoNotOptimize(sample_with_temperature(work, 0.0f, rng));
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_chars(benchmark::State& state) {
  bench::time_writing(state, temperature_picker(1.0f), static_cast<std::size_t>(state.range(0)));
}

void register_lesson() {
  benchmark::RegisterBenchmark("lesson02/sample_with_temperature", BM_sample_with_temperature)
      ->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("lesson02/argmax", BM_argmax)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("lesson02/write_chars", BM_write_chars)
      ->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) { return tang::bench::bench_main(argc, argv, 1, register_lesson); }

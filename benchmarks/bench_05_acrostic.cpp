// bench_05_acrostic: what lesson 05 adds, one constrained step.
//
//   lesson05/mask_apply              inside_line_mask().apply: ban "，", "。", newline
//   lesson05/sample/unconstrained    sample_next at the lesson's settings (T 0.8, top-k 20)
//   lesson05/sample/constrained      the mask first, then the same sample_next
//   lesson05/write_acrostic          春眠不觉, 7 characters a line, with the cache:
//                                    characters/s over the 24 the model writes
#include <vector>

#include "acrostic.hpp"
#include "bench_common.hpp"
#include "decoder.hpp"
#include "logit_mask.hpp"
#include "top_k_top_p.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags

void BM_mask_apply(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const std::vector<float> logits = bench::logits_after(model, bench::kOpening);
  const LogitMask mask = inside_line_mask(model.tokenizer());
  std::vector<float> work(logits.size());
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    mask.apply(work);
    benchmark::DoNotOptimize(work.data());
  }
  clock.finish(state, 1, "calls_per_s");
}

void BM_sample(benchmark::State& state, bool constrained) {
  const GPT& model = bench::course_model();
  const std::vector<float> logits = bench::logits_after(model, bench::kOpening);
  const LogitMask mask = inside_line_mask(model.tokenizer());
  std::vector<float> work(logits.size());
  SamplerScratch scratch;
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    if (constrained) mask.apply(work);
    benchmark::DoNotOptimize(sample_next(work, kSettings, rng, scratch));
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_acrostic(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const std::string heads(bench::kHeads);
  const std::size_t per_line = 7, lines = 4;
  Decoder decoder(model, /*use_cache=*/true);
  bench::StepClock clock(state);
  for (auto _ : state) {
    decoder.reset();
    Rng rng(42);
    const std::string poem =
        write_acrostic(decoder, model.tokenizer(), heads, per_line, kSettings, rng);
    benchmark::DoNotOptimize(poem.data());
  }
  clock.finish(state, static_cast<double>(lines * (per_line - 1)), "chars_per_s");
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  benchmark::RegisterBenchmark("lesson05/mask_apply", BM_mask_apply)->UseRealTime()->Unit(us);
  benchmark::RegisterBenchmark("lesson05/sample/unconstrained", BM_sample, false)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson05/sample/constrained", BM_sample, true)
      ->UseRealTime()
      ->Unit(us);
  benchmark::RegisterBenchmark("lesson05/write_acrostic", BM_write_acrostic)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

// bench_05_acrostic: what lesson 05 adds, one constrained step.
//
//   lesson05/mask_apply                    inside_line_mask().apply: ban "，", "。", newline
//   lesson05/sample/plain|tuned/unconstrained   one sampling step at the lesson's settings
//                                          (T 0.8, top-k 20): lesson 03's sample_next, or
//                                          fast::sample_next
//   lesson05/sample/plain|tuned/constrained     the mask first, then the same step
//   lesson05/write_acrostic/plain|tuned    春眠不觉, 7 characters a line, with lesson 06's
//                                          cache: characters/s over the 24 the model writes.
//                                          write_acrostic samples with lesson 03's
//                                          sample_next either way; tuned changes the kernels
#include <vector>

#include "05_acrostic/acrostic.hpp"
#include "05_acrostic/logit_mask.hpp"
#include "bench_common.hpp"
#include "bench_writing.hpp"

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

void BM_sample(benchmark::State& state, bench::Path path, bool constrained) {
  const GPT& model = bench::course_model();
  const std::vector<float> logits = bench::logits_after(model, bench::kOpening);
  const LogitMask mask = inside_line_mask(model.tokenizer());
  std::vector<float> work(logits.size());
  fast::SamplerScratch scratch;
  Rng rng(42);
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    if (constrained) mask.apply(work);
    if (path == bench::Path::kPlain) {
      benchmark::DoNotOptimize(sample_next(work, kSettings, rng));
    } else {
      benchmark::DoNotOptimize(fast::sample_next(work, kSettings, rng, scratch));
    }
  }
  clock.finish(state, 1, "samples_per_s");
}

void BM_write_acrostic(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const std::string heads(bench::kHeads);
  const std::size_t per_line = 7, lines = 4;
  bench::StepClock clock(state);
  for (auto _ : state) {
    const auto predictor = bench::make_predictor(model, path, /*use_cache=*/true);
    Rng rng(42);
    const std::string poem =
        write_acrostic(*predictor, model.tokenizer(), heads, per_line, kSettings, rng);
    benchmark::DoNotOptimize(poem.data());
  }
  clock.finish(state, static_cast<double>(lines * (per_line - 1)), "chars_per_s");
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  benchmark::RegisterBenchmark("lesson05/mask_apply", BM_mask_apply)->UseRealTime()->Unit(us);
  for (bool constrained : {false, true}) {
    for (bench::Path path : bench::kBothPaths) {
      const std::string which = constrained ? "/constrained" : "/unconstrained";
      bench::register_row(bench::row_name("lesson05/sample", path) + which, BM_sample, path,
                          constrained)
          ->UseRealTime()
          ->Unit(us);
    }
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson05/write_acrostic", path), BM_write_acrostic, path)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

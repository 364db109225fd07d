// bench_01_probabilities: what lesson 01 adds, one forward pass and the softmax of
// the last position's logits (the next-character distribution).
//
//   lesson01/forward_softmax/plain/T   a T-character text through the model from scratch
//                                      (no cache), then softmax over the vocabulary, as
//                                      lesson 01 runs it (kPlainKernels, the plain softmax).
//                                      T = 1 is the smallest possible step: compare with the floor.
//   lesson01/forward_softmax/tuned/T   the same with fast::kernels() and fast::softmax_in_place
//   lesson01/softmax/plain|tuned       the softmax over the V logits alone: common/sampling.hpp
//                                      against common/fast/vector_math.hpp
//   lesson01/top8                      most_likely(probabilities, 8), the lesson's printout
#include <vector>

#include "01_probabilities/next_char.hpp"
#include "bench_common.hpp"
#include "fast/vector_math.hpp"
#include "sampling.hpp"

namespace {

using namespace tang;

void softmax_for(bench::Path path, std::span<float> logits) {
  if (path == bench::Path::kPlain) {
    softmax_in_place(logits);
  } else {
    fast::softmax_in_place(logits);
  }
}

void BM_forward_softmax(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  // the prompt repeated to length T (the values do not change the cost)
  const std::vector<TokenId> prompt = bench::ids(model, bench::kPrompt);
  std::vector<TokenId> text(T);
  for (std::size_t t = 0; t < T; ++t) text[t] = prompt[t % prompt.size()];
  Activations acts = bench::activations_for(model.config(), path);
  const Kernels& kernels = bench::kernels_for(path);
  std::vector<float> probabilities(model.config().vocab_size);
  bench::StepClock clock(state);
  for (auto _ : state) {
    const auto logits = forward(model.config(), model.weights(), text, 1, T, acts, kernels,
                                LogitsFor::kLastPosition);
    std::copy(logits.begin(), logits.end(), probabilities.begin());
    softmax_for(path, probabilities);
    benchmark::DoNotOptimize(probabilities.data());
  }
  clock.finish(state, 1, "steps_per_s");
  state.counters["positions"] = static_cast<double>(T);
}

void BM_softmax(benchmark::State& state, bench::Path path) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  std::vector<float> work(logits.size());
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    softmax_for(path, work);
    benchmark::DoNotOptimize(work.data());
  }
  clock.finish(state, 1, "steps_per_s");
}

void BM_top8(benchmark::State& state) {
  std::vector<float> probabilities = bench::logits_after(bench::course_model(), bench::kPrompt);
  softmax_in_place(probabilities);
  bench::StepClock clock(state);
  for (auto _ : state) {
    auto best = most_likely(probabilities, 8);
    benchmark::DoNotOptimize(best.data());
  }
  clock.finish(state, 1, "steps_per_s");
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  for (int T : {1, 10, 128}) {
    for (bench::Path path : bench::kBothPaths) {
      bench::register_row(bench::row_name("lesson01/forward_softmax", path), BM_forward_softmax,
                          path)
          ->Arg(T)
          ->UseRealTime()
          ->Unit(us);
    }
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson01/softmax", path), BM_softmax, path)
        ->UseRealTime()
        ->Unit(us);
  }
  benchmark::RegisterBenchmark("lesson01/top8", BM_top8)->UseRealTime()->Unit(us);
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

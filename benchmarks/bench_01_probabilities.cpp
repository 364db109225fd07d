// bench_01_probabilities: what lesson 01 adds, one forward pass and the softmax of
// the last position's logits (the next-character distribution).
//
//   lesson01/forward_softmax/T   a T-character text through the model from scratch
//                                (no cache), then softmax over the vocabulary.
//                                T = 1 is the smallest possible step: compare with the floor.
//   lesson01/softmax             the softmax over the V logits alone
//   lesson01/top8                most_likely(probabilities, 8), the lesson's printout
#include <vector>

#include "bench_common.hpp"
#include "next_char.hpp"

namespace {

using namespace tang;

void BM_forward_softmax(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const auto T = static_cast<std::size_t>(state.range(0));
  // the prompt repeated to length T (the values do not change the cost)
  const std::vector<TokenId> prompt = bench::ids(model, bench::kPrompt);
  std::vector<TokenId> text(T);
  for (std::size_t t = 0; t < T; ++t) text[t] = prompt[t % prompt.size()];
  KVCache cache(model.config());
  ForwardState forward_state(model.config());
  std::vector<float> probabilities(model.config().vocab_size);
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.reset();
    const auto logits = forward(model, text, 0, cache, forward_state, LogitsFor::kLastPosition);
    std::copy(logits.begin(), logits.end(), probabilities.begin());
    softmax_in_place(probabilities);
    benchmark::DoNotOptimize(probabilities.data());
  }
  clock.finish(state, 1, "steps_per_s");
  state.counters["positions"] = static_cast<double>(T);
}

void BM_softmax(benchmark::State& state) {
  const std::vector<float> logits = bench::logits_after(bench::course_model(), bench::kPrompt);
  std::vector<float> work(logits.size());
  bench::StepClock clock(state);
  for (auto _ : state) {
    std::copy(logits.begin(), logits.end(), work.begin());
    softmax_in_place(work);
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
  benchmark::RegisterBenchmark("lesson01/forward_softmax", BM_forward_softmax)
      ->Arg(1)->Arg(10)->Arg(128)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("lesson01/softmax", BM_softmax)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("lesson01/top8", BM_top8)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) { return tang::bench::bench_main(argc, argv, 1, register_lesson); }

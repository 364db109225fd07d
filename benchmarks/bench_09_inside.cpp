// bench_09_inside: what lesson 09 adds, looking inside the model, and what it costs.
//
//   lesson09/forward/plain/last_logits/T:n   one forward pass over a window of n positions
//                                      (common/gpt.hpp, Keep::kLastLogits): what writing needs
//   lesson09/forward/plain/everything/T:n    the same pass keeping every activation and
//                                      every head's attention weights (Keep::kEverything),
//                                      copied out by look_inside (lessons/09_inside/
//                                      inside_view.hpp): what section 9 reads. n = 33 (a 七绝
//                                      with its newline) and 128 (the context). The lesson keeps
//                                      the weights of a whole window, not of a cached step: its
//                                      tables need every row of every head, which a cached step
//                                      never computes. Per call: calls_per_s
//   lesson09/knockout/plain/poems:200  one row of section 9's knockout table: a copy of the
//                                      model with layer 4 head 3 knocked out, its held-out loss
//                                      on 200 held-out poems and 200 poems written at T 0.8,
//                                      top-k 20 (batch 32), checked for form, rhyme and copied
//                                      lines. Per evaluation: calls_per_s
//   every row has predicted_calls_per_s: the cost model (06_kvcache/step_cost.hpp) from this
//   machine's profile, the forward as one window step, the knockout as one window step per
//   held-out poem (logits at every position) plus the batched steps that wrote the poems; it
//   leaves out the copy of the weights and the checks of the poems
#include <numeric>
#include <optional>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "07_verse/training_lines.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "08_many_poems/format_loops.hpp"
#include "08_many_poems/weight_quality.hpp"
#include "09_inside/inside_view.hpp"
#include "09_inside/knockout.hpp"
#include "bench_common.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags
constexpr std::size_t kPoems = 200;                // section 9's default --poems

const MachineProfile& profile() {
  static const MachineProfile p = [] {
    const std::vector<LoopToMeasure> loops = lesson_loops();
    return load_or_measure_profile(default_profile_path(), loops, [](const std::string&) {});
  }();
  return p;
}

double predicted_calls_per_s(double ms) {
  return 1e3 / ms;
}

// A window of T positions of a poem the lesson reads: 登鹳雀楼, repeated to fill it.
std::vector<TokenId> window(std::size_t T) {
  const GPT& model = bench::course_model();
  std::vector<TokenId> tokens = {model.tokenizer().newline()};
  const std::vector<TokenId> poem =
      model.tokenizer().encode("白日依山尽，黄河入海流。欲穷千里目，更上一层楼。");
  while (tokens.size() < T) tokens.push_back(poem[(tokens.size() - 1) % poem.size()]);
  return tokens;
}

void BM_forward(benchmark::State& state, Keep keep) {
  const GPT& model = bench::course_model();
  const std::vector<TokenId> tokens = window(static_cast<std::size_t>(state.range(0)));
  Activations acts(model.config(), 1, keep);
  bench::StepClock clock(state);
  for (auto _ : state) {
    if (keep == Keep::kEverything) {
      const InsideView view = look_inside(model, tokens, acts);
      benchmark::DoNotOptimize(view.attention.data());
    } else {
      const auto logits = forward(model, tokens, acts);
      benchmark::DoNotOptimize(logits.data());
    }
  }
  clock.finish(state, 1.0, "calls_per_s", false);
  state.counters["predicted_calls_per_s"] = predicted_calls_per_s(
      predict_plain_step(model.config(), window_step(tokens.size()), profile()).total_ms());
}

// What the knockout table measures every model on (section 9's defaults).
struct Bench {
  std::vector<std::vector<TokenId>> heldout;
  VerseTables tables = VerseTables::load_shipped();
  TrainingLines training =
      TrainingLines::from_corpus(std::string(TANG_DATA_DIR) + "/tang_poems.txt");
  KnockoutBench knockout;
  Bench() {
    const GPT& model = bench::course_model();
    heldout = heldout_poems(model, std::string(TANG_DATA_DIR) + "/tang_poems.txt", kPoems);
    knockout.heldout = heldout;
    knockout.seeds.resize(kPoems);
    std::iota(knockout.seeds.begin(), knockout.seeds.end(), std::uint64_t{42});
    knockout.settings = kSettings;
    knockout.max_chars = model.config().block_size - 1;
    knockout.tables = &tables;
    knockout.training_lines = &training.lines();
  }
};

void BM_knockout(benchmark::State& state) {
  static const Bench bench;  // reading the corpus takes seconds: once, before the clock
  const GPT& model = bench::course_model();
  bench::StepClock clock(state);
  for (auto _ : state) {
    const GPT knocked = without_head(model, 3, 2);
    const ModelScore score = score_model(knocked, bench.knockout);
    benchmark::DoNotOptimize(score.loss);
  }
  clock.finish(state, 1.0, "calls_per_s", false);
  // predicted: a window step per held-out poem with logits at every position, then the
  // batched steps that write the 200 poems (write_batched counts them)
  const GPTConfig& cfg = model.config();
  std::vector<StepWork> steps;
  for (const std::vector<TokenId>& poem : bench.heldout) {
    const std::size_t T = poem.size() - 1;
    steps.push_back({T, T, T * (T + 1) / 2, 0});
  }
  const GPT knocked = without_head(model, 3, 2);
  const StoredWeights weights(knocked, WeightFormat::kFp32);
  const BatchedPoems written = write_batched(knocked, weights, bench.knockout.seeds, "", kSettings,
                                             bench.knockout.max_chars, 32);
  steps.insert(steps.end(), written.work.begin(), written.work.end());
  state.counters["predicted_calls_per_s"] =
      predicted_calls_per_s(predict_steps_ms(cfg, steps, profile(), kPlainFp32Loop, 4.0));
}

void register_lesson() {
  for (Keep keep : {Keep::kLastLogits, Keep::kEverything}) {
    bench::register_row(std::string("lesson09/forward/plain/") +
                            (keep == Keep::kEverything ? "everything" : "last_logits"),
                        BM_forward, keep)
        ->ArgName("T")
        ->Arg(33)
        ->Arg(128)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  bench::register_row("lesson09/knockout/plain/poems:200", BM_knockout)
      ->Iterations(2)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

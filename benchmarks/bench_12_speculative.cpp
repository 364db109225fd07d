// bench_12_speculative: lesson 12's speculative writing beside lesson 06's cached writing.
//
//   lesson12/write/plain/T:t          lesson 06's cached writing (CachedPredictor and
//                                     lesson 03's sampler) of 8 poems, one after each
//                                     opening below, up to 64 characters each, at T = t
//                                     (0: greedy; 0.8 with top-k 20); per character
//   lesson12/write/ngram/k:K/T:t      the same poems written by write_speculative with
//                                     the n-gram drafter (runs of up to 4 characters,
//                                     counted from the training poems), up to K drafts a
//                                     round; at T 0 the same characters as the plain row
// Each row 5 times (unless --benchmark_repetitions says otherwise): its median,
// mean, spread and range (min, max) are printed.
// Counters: chars_per_s; predicted_chars_per_s, the cost model's (lesson 06's
// step_cost.hpp from this machine's profile) for the forward passes the rows ran
// and the draws (each verification prices k + 1 rows and k + 1 distributions);
// and for the speculative rows kept_per_round (drafts kept a verification) and
// chars_per_round (characters written a verification).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "12_speculative/eight_poems.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"
#include "number_text.hpp"  // label

namespace {

using namespace tang;

constexpr std::size_t kMaxChars = 64;

SamplingSettings settings_at(int temperature_tenths) {
  return temperature_tenths == 0 ? SamplingSettings{0.0f, 0, 1.0f}
                                 : SamplingSettings{0.1f * float(temperature_tenths), 20, 1.0f};
}

NgramDrafter& ngram() {
  static NgramDrafter drafter(training_stream(bench::course_model().tokenizer(),
                                              std::string(TANG_DATA_DIR) + "/tang_poems.txt"),
                              4, bench::course_model().config().vocab_size);
  return drafter;
}

double predicted_ms(const std::vector<StepWork>& work) {
  return tang::predicted_ms(bench::course_model().config(), work, bench::plain_loop_profile());
}

// Lesson 12's eight poems written `write`'s way, per character, with the prediction.
template <class Write>
void time_eight(benchmark::State& state, const Write& write) {
  EightPoems eight;  // of the last iteration: the same every time
  bench::StepClock clock(state);
  for (auto _ : state) eight = write();
  const double chars = double(eight.characters());
  clock.finish(state, chars, "chars_per_s", false);
  state.counters["predicted_chars_per_s"] = 1e3 * chars / predicted_ms(eight.counts.work);
  if (eight.counts.rounds == 0) return;  // lesson 06's writing: no verifications
  state.counters["kept_per_round"] = double(eight.counts.accepted) / double(eight.counts.rounds);
  state.counters["chars_per_round"] = chars / double(eight.counts.rounds);
}

void BM_plain(benchmark::State& state, int tenths) {
  time_eight(state, [&] {
    return write_eight_plain(bench::course_model(), settings_at(tenths), kMaxChars, 42);
  });
}

void BM_speculative(benchmark::State& state, std::size_t k, int tenths) {
  time_eight(state, [&] {
    return write_eight_speculative(bench::course_model(), ngram(), settings_at(tenths), k,
                                   kMaxChars, 42);
  });
}

// Every row shows, besides its median, mean and spread, its range (min and max)
// over the repetitions: one timing of a row that writes 8 poems moves with the
// machine's load.
benchmark::internal::Benchmark* with_spread(benchmark::internal::Benchmark* row) {
  return row->UseRealTime()
      ->Unit(benchmark::kMillisecond)
      ->DisplayAggregatesOnly(true)
      ->ComputeStatistics(
          "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics("max", [](const std::vector<double>& v) {
        return *std::max_element(v.begin(), v.end());
      });
}

void register_lesson() {
  // built here, before any row is timed: counting the n-gram table takes seconds, and a
  // function's static built inside the first timed iteration would be that row's time
  ngram();
  bench::plain_loop_profile();
  for (const int t : {0, 8}) {
    with_spread(
        bench::register_row("lesson12/write/plain/T:" + label(0.1f * float(t)), BM_plain, t));
    for (const std::size_t k : {1, 2, 4, 8}) {
      with_spread(bench::register_row(
          "lesson12/write/ngram/k:" + std::to_string(k) + "/T:" + label(0.1f * float(t)),
          BM_speculative, k, t));
    }
  }
}

}  // namespace

// 5 repetitions of every row unless the command line asks for another number
// (scripts/run_benchmarks.sh asks for 3, as for every program).
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string five = "--benchmark_repetitions=5";
  if (std::none_of(args.begin() + 1, args.end(), [](const char* arg) {
        return std::string_view(arg).starts_with("--benchmark_repetitions");
      }))
    args.push_back(five.data());
  const int count = static_cast<int>(args.size());
  args.push_back(nullptr);  // argv's end, for a program that starts itself again
  return tang::bench::bench_main(count, args.data(), 1, register_lesson);
}

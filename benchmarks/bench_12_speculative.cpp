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
// Counters: chars_per_s; predicted_chars_per_s, the cost model's (lesson 06's
// step_cost.hpp from this machine's profile) for the forward passes the rows ran
// and the draws (each verification prices k + 1 rows and k + 1 distributions);
// and for the speculative rows kept_per_round (drafts kept a verification) and
// chars_per_round (characters written a verification).
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/step_cost.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "12_speculative/speculative_writer.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"
#include "number_text.hpp"  // label

namespace {

using namespace tang;

const char* const kOpenings[] = {"", "春风", "明月", "山", "白日依山尽，", "江上", "秋", "孤城"};
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
  double ms = 0;
  for (const StepWork& w : work)
    ms += predict_plain_step(bench::course_model().config(), w, bench::plain_loop_profile())
              .total_ms();
  return ms;
}

void BM_plain(benchmark::State& state, int tenths) {
  const GPT& model = bench::course_model();
  const SamplingSettings s = settings_at(tenths);
  double chars = 0;
  std::vector<StepWork> work;  // of one iteration
  bench::StepClock clock(state);
  for (auto _ : state) {
    chars = 0;
    work.clear();
    for (std::size_t i = 0; i < std::size(kOpenings); ++i) {
      std::vector<TokenId> context = model.tokenizer().encode(std::string("\n") + kOpenings[i]);
      const std::size_t before = context.size();
      CachedPredictor<> predictor(model);
      Rng rng(42 + i);
      const std::vector<TokenId> written = write(predictor, context, sampling_picker(s), rng,
                                                 kMaxChars, model.tokenizer().newline());
      StepWork opening{before, 1, 0, 1};  // the first step: the whole opening, one draw
      for (std::size_t p = 0; p < before; ++p) opening.keys += p + 1;
      work.push_back(opening);
      for (std::size_t j = 1; j < written.size(); ++j) work.push_back(cached_step(before + j - 1));
      chars += double(written.size());
    }
  }
  clock.finish(state, chars, "chars_per_s", false);
  state.counters["predicted_chars_per_s"] = 1e3 * chars / predicted_ms(work);
}

void BM_speculative(benchmark::State& state, std::size_t k, int tenths) {
  const GPT& model = bench::course_model();
  const SamplingSettings s = settings_at(tenths);
  NgramDrafter& drafter = ngram();
  SpeculativeCounts counts;  // of one iteration
  bench::StepClock clock(state);
  for (auto _ : state) {
    counts = {};
    for (std::size_t i = 0; i < std::size(kOpenings); ++i) {
      std::vector<TokenId> context = model.tokenizer().encode(std::string("\n") + kOpenings[i]);
      Rng rng(42 + i);
      write_speculative(model, drafter, context, s, rng, k, kMaxChars, model.tokenizer().newline(),
                        &counts);
    }
  }
  const double chars = double(counts.written);
  clock.finish(state, chars, "chars_per_s", false);
  state.counters["predicted_chars_per_s"] = 1e3 * chars / predicted_ms(counts.work);
  state.counters["kept_per_round"] = double(counts.accepted) / double(counts.rounds);
  state.counters["chars_per_round"] = chars / double(counts.rounds);
}

void register_lesson() {
  for (const int t : {0, 8}) {
    bench::register_row("lesson12/write/plain/T:" + label(0.1f * float(t)), BM_plain, t)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    for (const std::size_t k : {1, 2, 4, 8}) {
      bench::register_row(
          "lesson12/write/ngram/k:" + std::to_string(k) + "/T:" + label(0.1f * float(t)),
          BM_speculative, k, t)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

#include "06_kvcache/kvcache_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/cache_timing.hpp"
#include "06_kvcache/cost_model.hpp"
#include "06_kvcache/exercise/block512_timing.hpp"  // exercise 06b
#include "06_kvcache/exercise/cost_model.hpp"       // exercise 06c
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/kv_memory.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "errors.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

// Exercise 06b's length: long enough that recomputing costs far more than at 120.
constexpr std::size_t kContext512Chars = 400;

std::string show(const Tokenizer& tokenizer, const std::vector<TokenId>& ids) {
  std::string text;
  for (TokenId id : ids) text += printable(tokenizer.character(id));
  return text;
}

// 1. Correctness: the cache only skips repeated work, so the text must not change.
void show_same_text(LessonContext& c, const SamplingSettings& settings) {
  const std::size_t n = 120;
  const TimedText without = write_chars(c.model, false, n, settings, c.options.seed);
  const TimedText with = write_chars(c.model, true, n, settings, c.options.seed);
  const bool identical = without.ids == with.ids;
  c.out << "  Same seed, " << n << " characters without and with the cache: "
        << (identical ? "IDENTICAL" : "DIFFERENT (this is a bug!)") << "\n";
  c.out << "    " << show(c.model.tokenizer(), with.ids) << "\n";
}

// One cached step, matrix by matrix: which of the two limits sets each one's time.
void show_one_step(LessonContext& c, const StepCost& step, std::size_t cached) {
  char line[160];
  c.out << "\n  One cached step (a cache of " << cached
        << " positions), predicted: every matrix is read once, "
        << fixed(step.weight_bytes / 1e6, 2) << " MB a step, at " << fixed(step.gb_per_s, 1)
        << " GB/s (the bandwidth measured for that many bytes)\n"
        << "    matrix       rows x cols   read (ms)   multiply (ms)   limit\n";
  for (const MatrixCost& m : step.matrices) {
    const std::string shape = std::to_string(m.rows) + " x " + std::to_string(m.cols);
    const std::string times = m.count > 1 ? std::to_string(m.count) + "x " + shape : shape;
    std::snprintf(line, sizeof line, "    %-10s %15s   %9.4f   %13.4f   %s\n", m.name.c_str(),
                  times.c_str(), m.memory_ms, m.compute_ms,
                  m.memory_ms > m.compute_ms ? "memory" : "arithmetic");
    c.out << line;
  }
  std::snprintf(line, sizeof line,
                "    GELU and LayerNorm %.4f ms, attention %.4f ms (it reads %.0f KB of keys and "
                "values), the draw %.4f ms: %.3f ms in all\n",
                step.pointwise_ms, step.attention_ms, step.kv_bytes / 1e3, step.sampling_ms,
                step.total_ms());
  c.out << line;
}

// 2. Speed: without the cache, character n re-reads all n-1 before it. Then why
// not n/2 times faster? A step's cost is not its number of positions
// (step_cost.hpp): reading the weights is paid once per step, however many.
// Every time is predicted from this machine's profile first, then measured.
void show_speed_and_its_cost_model(LessonContext& c, const SamplingSettings& settings) {
  const GPT& model = c.model;
  const GPTConfig& cfg = model.config();
  const LoopToMeasure loops[] = {plain_fp32_loop()};
  const MachineProfile profile = lesson_profile(c.out, loops, "  ");
  char line[200];
  c.out << "\n  characters     without cache (ms)       with cache (ms)         speed-up\n"
           "              predicted  measured     predicted  measured     predicted  measured"
           "   (median of 5 runs, 1 thread)\n";
  const std::vector<std::size_t> lengths = {32, 64, 120};
  std::vector<double> measured;
  for (std::size_t length : lengths) {
    const double slow = median_of(5, model, false, length, settings, c.options.seed).milliseconds;
    const double fast = median_of(5, model, true, length, settings, c.options.seed).milliseconds;
    const double slow_p = predict_writing_ms(cfg, profile, length, false);
    const double fast_p = predict_writing_ms(cfg, profile, length, true);
    std::snprintf(line, sizeof line, "  %10zu   %9.2f %9.2f     %9.2f %9.2f     %8.1fx %8.1fx\n",
                  length, slow_p, slow, fast_p, fast, slow_p / fast_p, slow / fast);
    c.out << line;
    measured.push_back(slow / fast);
  }
  const std::size_t cached = std::min<std::size_t>(63, cfg.block_size - 1);  // mid-poem
  show_one_step(c, predict_plain_step(cfg, cached_step(cached), profile), cached);

  // t1 and b: predicted from the profile, and measured (cost_model.hpp)
  const std::size_t K = cfg.block_size;
  const double t1 = predict_plain_step(cfg, window_step(1), profile).total_ms();
  const double tK = predict_plain_step(cfg, window_step(K), profile).total_ms();
  const double b = K > 1 ? (tK - t1) / static_cast<double>(K - 1) : 0.0;
  const StepCosts costs = measure_step_costs(model, K, 9);
  c.out << "\n  Why these speed-ups? A step over k positions costs about t1 + (k - 1) x b:\n";
  std::snprintf(
      line, sizeof line,
      "    t1 = %.3f ms predicted, %.3f measured: one position, every weight read once, the draw\n"
      "    b  = %.4f ms predicted, %.4f measured: each more position in the same window\n",
      t1, costs.t1_ms, b, costs.b_ms);
  c.out << line;
  c.out << "  characters   positions without / with   predicted   measured   (exercise 06c, "
           "predicted t1 and b)\n";
  try {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const std::size_t n = lengths[i];
      const std::size_t without_positions = positions_without_cache(n, K);
      const std::size_t with_positions = positions_with_cache(n);
      std::snprintf(line, sizeof line, "  %10zu   %8zu / %-4zu = %5.1fx    %7.1fx   %7.1fx\n", n,
                    without_positions, with_positions,
                    static_cast<double>(without_positions) / static_cast<double>(with_positions),
                    predicted_speedup(n, t1, b, K), measured[i]);
      c.out << line;
    }
  } catch (const NotImplemented& stub) {  // exercise 06c not done yet: the rest still runs
    c.out << "  " << stub.what() << "\n";
  }
}

// 3. Memory: what the cache holds per position.
void show_memory(LessonContext& c) {
  char line[160];
  const GPTConfig& cfg = c.model.config();
  const CacheLayout ours = layout_of(cfg);
  c.out << "\n  Cache memory of this model: 2 (k, v) x " << cfg.n_layer << " layers x "
        << cfg.n_embd
        << " dims x 4 bytes = " << human_bytes(static_cast<double>(ours.bytes_per_position()))
        << " per character, "
        << human_bytes(static_cast<double>(ours.bytes_per_position() * cfg.block_size))
        << " for the full context of " << cfg.block_size << "\n";
  c.out << "\n  Large models (published configs, 16-bit cache):\n";
  std::snprintf(line, sizeof line, "  %-18s %-28s %14s %22s\n", "model", "attention", "per token",
                "128K-token context");
  c.out << line;
  for (const CacheLayout& m : published_layouts()) {
    const double per = static_cast<double>(m.bytes_per_position());
    std::snprintf(line, sizeof line, "  %-18s %-28s %14s %22s\n", m.model.c_str(),
                  m.attention.c_str(), human_bytes(per).c_str(), human_bytes(per * 131072).c_str());
    c.out << line;
  }
}

// Exercise 06b: a model with context 512, where recomputing costs far more.
void show_context_512(LessonContext& c) {
  char line[160];
  c.out << "\n  Exercise 06b: a random model with context 512, " << kContext512Chars
        << " characters both ways...\n";
  c.out.flush();
  const CacheRatio r = time_block512(kContext512Chars, c.options.seed);
  c.out << "  " << r.config.describe() << "\n";
  std::snprintf(line, sizeof line,
                "  without cache %.1f ms, with cache %.1f ms: %.1fx faster; same text: %s\n",
                r.without_cache_ms, r.with_cache_ms, r.ratio,
                r.text_without_cache == r.text_with_cache ? "yes" : "NO (a bug)");
  c.out << line;
}

void show_kv_cache(LessonContext& c, bool timed) {
  const SamplingSettings settings = writing_settings(c.options);
  show_same_text(c, settings);
  if (timed) show_speed_and_its_cost_model(c, settings);
  show_memory(c);
  if (timed) {
    show_context_512(c);
  } else {
    c.out << "\n  (The timings of this section, the cost model and exercise 06b's context of 512 "
             "take seconds: lesson_06_kvcache prints them, and --timings here.)\n";
  }
}

std::string needs(const LessonOptions&) {
  return "\n";
}  // the text starts after a newline

}  // namespace

Section kv_cache_section(CacheTimings timings) {
  auto timed = std::make_shared<bool>(timings == CacheTimings::kAlways);  // or --timings
  Section section{"KV cache: same text? how much faster? what does it cost?",
                  [timed](LessonContext& c) { show_kv_cache(c, *timed); }, needs};
  section.cannot_run = [](const GPT& model) {
    return why_not_multi_head(model.config(), "lesson 06's KV cache");
  };
  // a broken profile file is named before the lesson prints, not halfway through it
  section.prepare = [timed](const GPT&, const LessonOptions&) {
    if (*timed) check_profile_file(default_profile_path());
  };
  if (timings == CacheTimings::kOnRequest) {
    section.declare = [timed](CLI::App& app) {
      app.add_flag("--timings", *timed,
                   "section 6: time the cache as lesson 06 does (its speed table, cost model and "
                   "context of 512, which take seconds)");
    };
  }
  return section;
}

}  // namespace tang

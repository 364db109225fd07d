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
#include "errors.hpp"

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

// 2. Speed: without the cache, character n re-reads all n-1 before it. Then why
// not n/2 times faster? A step's cost is not its number of positions
// (cost_model.hpp): reading the weights is paid once per step, however many.
void show_speed_and_its_cost_model(LessonContext& c, const SamplingSettings& settings) {
  const GPT& model = c.model;
  char line[160];
  c.out
      << "\n  characters   without cache   with cache   speed-up   (median of 5 runs, 1 thread)\n";
  const std::vector<std::size_t> lengths = {32, 64, 120};
  std::vector<double> measured;
  for (std::size_t length : lengths) {
    const double slow = median_of(5, model, false, length, settings, c.options.seed).milliseconds;
    const double fast = median_of(5, model, true, length, settings, c.options.seed).milliseconds;
    std::snprintf(line, sizeof line, "  %10zu   %10.2f ms   %7.2f ms   %7.1fx\n", length, slow,
                  fast, slow / fast);
    c.out << line;
    measured.push_back(slow / fast);
  }

  const StepCosts costs = measure_step_costs(model, model.config().block_size, 9);
  c.out << "\n  Why these speed-ups? A step over k positions costs about t1 + (k - 1) x b:\n";
  std::snprintf(
      line, sizeof line,
      "    t1 = %.3f ms  one position: every weight read once, the output layer, the draw\n"
      "    b  = %.3f ms  each more position in the same window: arithmetic only\n",
      costs.t1_ms, costs.b_ms);
  c.out << line;
  c.out << "  characters   positions without / with   predicted   measured   (exercise 06c)\n";
  try {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const std::size_t n = lengths[i], block = model.config().block_size;
      const std::size_t without_positions = positions_without_cache(n, block);
      const std::size_t with_positions = positions_with_cache(n);
      std::snprintf(line, sizeof line, "  %10zu   %8zu / %-4zu = %5.1fx    %7.1fx   %7.1fx\n", n,
                    without_positions, with_positions,
                    static_cast<double>(without_positions) / static_cast<double>(with_positions),
                    predicted_speedup(n, costs.t1_ms, costs.b_ms, block), measured[i]);
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

#include "kvcache_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <vector>

#include "cache_timing.hpp"
#include "cost_model.hpp"
#include "errors.hpp"
#include "exercise/block512_timing.hpp"  // exercise 06b
#include "exercise/cost_model.hpp"       // exercise 06c
#include "kv_cache.hpp"
#include "kv_memory.hpp"
#include "sampler.hpp"

namespace tang {

namespace {

std::string show(const Tokenizer& tokenizer, const std::vector<TokenId>& ids) {
  std::string text;
  for (TokenId id : ids) text += printable(tokenizer.character(id));
  return text;
}

void show_kv_cache(LessonContext& c) {
  const GPT& model = c.model;
  const SamplingSettings settings = writing_settings(c.options);
  char line[160];

  // 1. Correctness: the cache only skips repeated work, so the text must not change.
  const std::size_t n = 120;
  const TimedText without = write_chars(model, false, n, settings, c.options.seed);
  const TimedText with = write_chars(model, true, n, settings, c.options.seed);
  const bool identical = without.ids == with.ids;
  c.out << "  Same seed, " << n << " characters without and with the cache: "
        << (identical ? "IDENTICAL" : "DIFFERENT (this is a bug!)") << "\n";
  c.out << "    " << show(model.tokenizer(), with.ids) << "\n";

  // 2. Speed: without the cache, character n re-reads all n-1 before it.
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

  // 2b. Why not n/2 times faster? A step's cost is not its number of positions
  // (cost_model.hpp): reading the weights is paid once per step, however many.
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

  // 3. Memory: what the cache holds per position.
  const GPTConfig& cfg = model.config();
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

  // Exercise 06b: a model with context 512, where recomputing costs far more.
  c.out << "\n  Exercise 06b: a random model with context 512, 500 characters both ways...\n";
  c.out.flush();
  const CacheRatio r = time_block512(500, c.options.seed);
  c.out << "  " << r.config.describe() << "\n";
  std::snprintf(line, sizeof line,
                "  without cache %.1f ms, with cache %.1f ms: %.1fx faster; same text: %s\n",
                r.without_cache_ms, r.with_cache_ms, r.ratio,
                r.text_without_cache == r.text_with_cache ? "yes" : "NO (a bug)");
  c.out << line;
}

std::string needs(const LessonOptions&) {
  return "\n";
}  // the text starts after a newline

}  // namespace

Section kv_cache_section() {
  return {"KV cache: same text? how much faster? what does it cost?", show_kv_cache, needs};
}

}  // namespace tang

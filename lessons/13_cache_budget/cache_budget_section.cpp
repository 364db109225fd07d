#include "13_cache_budget/cache_budget_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>

#include "00_train/poem_dataset.hpp"
#include "06_kvcache/kv_memory.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "10_cache_size/paired_runs.hpp"
#include "11_server/engine_options.hpp"
#include "13_cache_budget/budget_runs.hpp"
#include "13_cache_budget/dropping_cache.hpp"
#include "13_cache_budget/quantized_cache.hpp"
#include "errors.hpp"
#include "number_text.hpp"
#include "spread.hpp"

namespace tang {

namespace {

constexpr std::size_t kOpenings = 16, kOpeningLength = 8;  // greedy writing
constexpr std::size_t kTimedAt = 100;                      // positions held when a step is timed

struct CacheBudgetOptions {
  std::size_t texts = 160;  // --budget-texts
  std::string formats_text, budgets_text = "16,32,64";
  std::vector<CacheFormat> formats;
  std::vector<std::size_t> budgets;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

double mean_of(const std::vector<double>& values) {
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

std::string with_error(const PairedDifference& d) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.5f ± %.5f", d.mean, d.standard_error);
  return text;
}

// A step's time with kTimedAt positions held in `format` (median and range of
// 7 runs of 100 steps over `text`), and its prediction: lesson 06's step
// (`plain_us`) plus the numbers the format rebuilds times its loop's time per number.
struct StepTiming {
  Spread us;
  double predicted_us = 0.0;
};
StepTiming time_step(const GPT& model, const CacheFormat& format, std::span<const TokenId> text,
                     double plain_us) {
  QuantizedCache cache(model.config(), format);
  const double rebuild_ns = cache.measure_rebuild_ns(25);  // on a new cache: it overwrites it
  Activations acts = step_activations(model.config(), 1);
  const ModelMatrices<> matrices(model);
  QuantizedCache* const caches[] = {&cache};
  const auto step = [&](std::size_t p) {  // position p, the cache holding 0 .. p-1
    cache.length = p;
    forward_with_cache(model, matrices, text.subspan(p, 1), caches, acts, LogitsFor::kLastPosition);
  };
  for (std::size_t p = 0; p <= kTimedAt; ++p) step(p);
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) step(kTimedAt);
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    runs.push_back(took.count() / 100.0);
  }
  return {spread_of(runs),
          plain_us + static_cast<double>(cache.dequantized_numbers(kTimedAt)) * rebuild_ns * 1e-3};
}

// Every cache's score on every text, text by text: only one text's reference
// distributions (127 x V doubles, 7 MB) are held at a time.
struct Scores {
  std::vector<std::vector<TextScore>> formats;   // [format][text]
  std::vector<std::vector<TextScore>> dropping;  // [budget][rule][text], flattened
};
const KeepRule::Kind kRules[] = {KeepRule::kWindow, KeepRule::kSinks, KeepRule::kHeavy};

Scores score_texts(const GPT& model, const CacheBudgetOptions& o,
                   const std::vector<std::vector<TokenId>>& texts) {
  const GPTConfig& cfg = model.config();
  Scores scores{std::vector<std::vector<TextScore>>(o.formats.size()),
                std::vector<std::vector<TextScore>>(o.budgets.size() * std::size(kRules))};
  for (const std::vector<TokenId>& text : texts) {
    const std::vector<double> log_probs = reference_log_probs(model, text);
    for (std::size_t f = 0; f < o.formats.size(); ++f) {
      scores.formats[f].push_back(
          score_text_with(model, text, log_probs, 0, QuantizedCache(cfg, o.formats[f])));
    }
    for (std::size_t b = 0; b < o.budgets.size(); ++b) {
      for (std::size_t r = 0; r < std::size(kRules); ++r) {
        // positions 0 .. budget see all before them; budget + 1 is the first to miss one
        scores.dropping[b * std::size(kRules) + r].push_back(
            score_text_with(model, text, log_probs, o.budgets[b] + 1,
                            DroppingCache(cfg, {kRules[r], o.budgets[b]})));
      }
    }
  }
  return scores;
}

// The losses of one cache over the texts, and lesson 06's on the same positions.
struct Losses {
  std::vector<double> mine, lessons;
};
Losses losses_of(const std::vector<TextScore>& scores) {
  Losses losses;
  for (const TextScore& s : scores) {
    losses.mine.push_back(s.loss);
    losses.lessons.push_back(s.reference);
  }
  return losses;
}

// Part 1: every format, against lesson 06's float32 cache.
void show_formats(LessonContext& c, const CacheBudgetOptions& o,
                  const std::vector<std::vector<TokenId>>& texts, const Scores& scores) {
  const GPT& model = c.model;
  const GPTConfig& cfg = model.config();
  const std::size_t T = cfg.block_size;
  const double fp32_bytes = static_cast<double>(kv_cache_bytes_per_position(cfg));
  const std::size_t openings = std::min(kOpenings, texts.size());
  c.out << "  Part 1: fewer bits, against lesson 06's float32 cache: KL (nats), the loss "
           "difference (paired\n  by text, ± its standard error), greedy characters from "
        << openings << " openings before the first that differs\n  (median, least; "
        << T - kOpeningLength << " = all the same), a step's time with " << kTimedAt
        << " positions held (median, range).\n";
  const MachineProfile profile = lesson_profile(c.out, std::vector{plain_fp32_loop()});
  const double plain_us = predict_plain_step(cfg, cached_step(kTimedAt), profile).total_ms() * 1e3;
  c.out << "    format               keys          values        a position  of fp32  KL (nats)  "
           "loss vs fp32         verdict               greedy (least)  step us (range)      "
           "predicted\n";
  // lesson 06's greedy texts, the yardstick of the greedy column
  std::vector<std::vector<TokenId>> lesson_texts;
  for (std::size_t i = 0; i < openings; ++i) {
    CachedPredictor<> lesson(model);
    lesson_texts.push_back(write_greedily(lesson, std::span(texts[i]).first(kOpeningLength), T));
  }
  char line[320];
  for (std::size_t f = 0; f < o.formats.size(); ++f) {
    const CacheFormat& format = o.formats[f];
    const Losses losses = losses_of(scores.formats[f]);
    double kl = 0.0;
    for (const TextScore& s : scores.formats[f]) kl += s.kl / static_cast<double>(texts.size());
    const PairedDifference d = paired_difference(losses.mine, losses.lessons);
    std::vector<double> matches;
    for (std::size_t i = 0; i < lesson_texts.size(); ++i) {
      QuantizedPredictor predictor(model, ModelMatrices<>(model), QuantizedCache(cfg, format));
      const std::vector<TokenId> written =
          write_greedily(predictor, std::span(texts[i]).first(kOpeningLength), T);
      matches.push_back(static_cast<double>(matching_prefix(written, lesson_texts[i])));
    }
    const Spread greedy = spread_of(matches);
    const StepTiming timing = time_step(model, format, texts[0], plain_us);
    const double bytes = format.bytes_per_position(cfg);
    // the same bits as lesson 06's: not one distribution moved (KL exactly 0 on every text)
    const std::string verdict = kl == 0.0 && losses.mine == losses.lessons
                                    ? "lesson 06's bits"
                                    : verdict_text(verdict_of(d));
    std::snprintf(line, sizeof line,
                  "    %-20s %-13s %-13s %10s  %6.1f%%  %9.6f  %-19s  %-20s  %4.0f  (%3.0f)   "
                  "%6.1f (%.1f-%.1f)  %6.1f\n",
                  format.name.c_str(), format.keys.name().c_str(), format.values.name().c_str(),
                  human_bytes(bytes).c_str(), 100.0 * bytes / fp32_bytes, kl, with_error(d).c_str(),
                  verdict.c_str(), greedy.median, greedy.low, timing.us.median, timing.us.low,
                  timing.us.high, timing.predicted_us);
    c.out << line;
    c.out.flush();
  }
}

// Part 2: where the heads look: the share of attention on the first positions.
void show_first_positions(LessonContext& c, const std::vector<std::vector<TokenId>>& texts) {
  const GPTConfig& cfg = c.model.config();
  DroppingCache full(cfg, {KeepRule::kWindow, cfg.block_size});
  Activations acts = step_activations(cfg, 1);
  const ModelMatrices<> matrices(c.model);
  DroppingCache* const caches[] = {&full};
  for (const std::vector<TokenId>& text : texts) {
    full.length = 0;
    for (std::size_t p = 0; p < text.size(); ++p)
      forward_with_cache(c.model, matrices, std::span(text).subspan(p, 1), caches, acts,
                         LogitsFor::kLastPosition);
  }
  double even = 0.0;  // kSinkPositions / (p + 1), averaged over the queries counted
  for (std::size_t p = DroppingCache::kFirstShareFrom; p < cfg.block_size; ++p)
    even += static_cast<double>(kSinkPositions) / static_cast<double>(p + 1) /
            static_cast<double>(cfg.block_size - DroppingCache::kFirstShareFrom);
  c.out << "\n  Part 2: where the heads rest: the share of each head's attention on the first "
        << kSinkPositions << " positions,\n  for queries at position "
        << DroppingCache::kFirstShareFrom << " or later. Spread evenly they would draw "
        << fixed(even, 3) << ".\n    layer";
  for (std::size_t h = 0; h < cfg.n_head; ++h) c.out << "   head " << h;
  c.out << '\n';
  char cell[32];
  for (std::size_t l = 0; l < cfg.n_layer; ++l) {
    c.out << "    " << l << "    ";
    for (std::size_t h = 0; h < cfg.n_head; ++h) {
      std::snprintf(cell, sizeof cell, "   %6.3f", full.first_positions_share(l, h));
      c.out << cell;
    }
    c.out << '\n';
  }
}

// Part 3: caches that drop positions.
void show_dropping(LessonContext& c, const CacheBudgetOptions& o, const Scores& scores) {
  const GPTConfig& cfg = c.model.config();
  c.out << "\n  Part 3: fewer positions: the loss over the positions past the budget "
           "(budget + 1 on),\n  against the full cache's on the same positions, paired by text:\n"
           "    rule     budget   kept     loss     full cache   difference            verdict\n";
  char line[200];
  for (std::size_t b = 0; b < o.budgets.size(); ++b) {
    for (std::size_t r = 0; r < std::size(kRules); ++r) {
      const KeepRule rule{kRules[r], o.budgets[b]};
      const Losses losses = losses_of(scores.dropping[b * std::size(kRules) + r]);
      const PairedDifference d = paired_difference(losses.mine, losses.lessons);
      std::snprintf(line, sizeof line, "    %-8s %6zu   %5.1f%%   %6.4f   %6.4f       %-19s   %s\n",
                    rule.name().c_str(), rule.budget,
                    100.0 * static_cast<double>(rule.budget) / static_cast<double>(cfg.block_size),
                    mean_of(losses.mine), mean_of(losses.lessons), with_error(d).c_str(),
                    verdict_text(verdict_of(d)).c_str());
      c.out << line;
    }
  }
}

// Part 4: what the formats buy lesson 11's server.
void show_server_pool(LessonContext& c, const CacheBudgetOptions& o) {
  const GPTConfig& cfg = c.model.config();
  const EngineOptions engine;  // lesson 11's defaults
  const std::size_t positions = engine.blocks * engine.block_size, T = cfg.block_size;
  const double pool_bytes = static_cast<double>(kv_cache_bytes_per_position(cfg) * positions);
  c.out << "\n  Part 4: what it buys a server: how many texts of a whole context (" << T
        << " positions)\n  lesson 11's pool of " << positions << " float32 positions ("
        << human_bytes(pool_bytes)
        << ") holds in each format:\n"
           "    format               a whole context   texts in the pool   of fp32's\n";
  const double fp32_texts = pool_bytes / parse_cache_format("fp32").bytes_held(T, cfg);
  char line[120];
  for (const CacheFormat& format : o.formats) {
    const double context_bytes = format.bytes_held(T, cfg);
    const double texts = std::floor(pool_bytes / context_bytes);
    std::snprintf(line, sizeof line, "    %-20s %15s   %17.0f   %8.2fx\n", format.name.c_str(),
                  human_bytes(context_bytes).c_str(), texts, texts / fp32_texts);
    c.out << line;
  }
}

void show_cache_budget(LessonContext& c, const CacheBudgetOptions& o) {
  const GPTConfig& cfg = c.model.config();
  c.out << "Lesson 06's cache keeps every key and value in float32, "
        << human_bytes(static_cast<double>(kv_cache_bytes_per_position(cfg)))
        << " a position here.\nWhat fewer bits and fewer positions cost, without retraining:\n";
  const PoemDataset data = load_poem_dataset(c.options.corpus);
  const Tokenizer& tokenizer = c.model.tokenizer();
  const std::vector<TokenId> heldout = tokenizer.encode(data.tokenizer.decode(data.heldout));
  const std::vector<std::vector<TokenId>> texts =
      consecutive_texts(heldout, cfg.block_size, o.texts);
  if (texts.size() < 2) throw UserError("section 13 needs at least 2 held-out texts");
  c.out << "  (" << texts.size() << " held-out texts of " << cfg.block_size
        << " characters through every cache first: " << o.formats.size() << " formats and "
        << o.budgets.size() * std::size(kRules) << " dropping caches)\n";
  c.out.flush();
  const Scores scores = score_texts(c.model, o, texts);
  show_formats(c, o, texts, scores);
  show_first_positions(c, texts);
  show_dropping(c, o, scores);
  show_server_pool(c, o);
}

void declare_cache_budget_flags(CLI::App& app, CacheBudgetOptions& o) {
  app.add_option("--budget-texts", o.texts,
                 "section 13: held-out texts of a whole context each table measures, in [2, 500]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{2}, std::size_t{500}));
  std::string formats;
  for (const std::string& f : default_cache_formats()) formats += (formats.empty() ? "" : ",") + f;
  o.formats_text = formats;
  app.add_option("--cache-formats", o.formats_text,
                 "section 13: the cache formats to compare, separated by commas (fp32, bf16, "
                 "int8-token, int8-group, int8-channel, the same in int4, kivi8, kivi4; "
                 "-recentN keeps the last N in float32)")
      ->capture_default_str();
  app.add_option("--budgets", o.budgets_text,
                 "section 13: the budgets of the dropping caches, in positions, separated by "
                 "commas, each from 5 to the context - 1")
      ->capture_default_str();
}

void prepare_cache_budget(CacheBudgetOptions& o, const GPT& model) {
  o.formats.clear();
  for (const std::string& name : split_commas(o.formats_text)) {
    try {
      o.formats.push_back(parse_cache_format(name));
    } catch (const UserError& e) {
      throw BadOption("--cache-formats " + o.formats_text + ": " + e.what());
    }
  }
  if (o.formats.empty()) throw BadOption("--cache-formats '': name at least one format, e.g. fp32");
  o.budgets.clear();
  const std::size_t context = model.config().block_size;
  for (const std::string& text : split_commas(o.budgets_text)) {
    // digits only (no sign, no space), at most 4 of them
    const bool digits =
        !text.empty() && text.size() <= 4 &&
        std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    const std::size_t budget = digits ? std::stoul(text) : 0;
    if (budget <= kSinkPositions || budget >= context) {
      throw BadOption("--budgets " + o.budgets_text + ": '" + text + "' is not a budget from " +
                      std::to_string(kSinkPositions + 1) + " to " + std::to_string(context - 1) +
                      " positions (the model's context is " + std::to_string(context) + ")");
    }
    o.budgets.push_back(budget);
  }
  if (o.budgets.empty()) throw BadOption("--budgets '': name at least one budget, e.g. 32");
}

std::string cannot_run_cache_budget(const GPT& model) {
  if (model.config().attention() != Attention::kMultiHead)
    return "its caches are lesson 06's, for multi-head attention";
  if (model.config().block_size > kTimedAt + 1 && model.config().block_size > kSinkPositions + 1)
    return "";
  return "it times a step at " + std::to_string(kTimedAt) +
         " positions held; this model's context is " + std::to_string(model.config().block_size);
}

}  // namespace

Section cache_budget_section() {
  auto options = std::make_shared<CacheBudgetOptions>();
  return {
      "A cache on a budget: fewer bits, fewer positions",
      [options](LessonContext& c) { show_cache_budget(c, *options); },
      [](const LessonOptions&) { return std::string("\n"); },
      [options](CLI::App& app) { declare_cache_budget_flags(app, *options); },
      [options](const GPT& model, const LessonOptions&) { prepare_cache_budget(*options, model); },
      [](const GPT& model) { return cannot_run_cache_budget(model); }};
}

}  // namespace tang

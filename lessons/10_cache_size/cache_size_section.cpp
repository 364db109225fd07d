#include "10_cache_size/cache_size_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <ostream>

#include "00_train/heldout_loss.hpp"
#include "00_train/poem_dataset.hpp"
#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_memory.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "10_cache_size/long_context.hpp"
#include "10_cache_size/paired_runs.hpp"
#include "10_cache_size/small_cache.hpp"
#include "10_cache_size/variant_runs.hpp"
#include "10_cache_size/variant_step_cost.hpp"
#include "10_cache_size/variant_writing.hpp"
#include "errors.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

constexpr std::size_t kLongContext = 1024, kLongBatch = 8, kLongSteps = 3;

struct CacheSizeOptions {
  std::string variants = default_variants_dir();  // --variants
  std::size_t poems = 200;                        // --variant-poems
  std::size_t heldout_poems = 0;                  // --heldout-poems (0: all of them)
  bool skip_long_context = false;                 // --no-long-context
  CLI::Option* variants_flag = nullptr;
  std::vector<std::shared_ptr<const GPT>> models;  // variant_runs()'s order
};

struct Row {
  std::string name;
  const GPT* model;
};

std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The first `poems` poems of a held-out stream (each ends with a newline); all when 0.
std::vector<TokenId> first_poems(const std::vector<TokenId>& stream, TokenId newline,
                                 std::size_t poems) {
  if (poems == 0) return stream;
  std::size_t end = 0, seen = 0;
  while (end < stream.size() && seen < poems) seen += stream[end++] == newline;
  return {stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(end)};
}

// The held-out losses: the lesson's model, and every run of variant_runs() by variant and seed.
struct HeldoutLosses {
  double lesson = 0.0;
  std::vector<std::vector<double>> by_variant;  // [variant][seed]
};

// Part 1: what each variant caches, and the held-out loss of each of its runs.
HeldoutLosses show_sizes(LessonContext& c, const std::vector<Row>& rows,
                         const CacheSizeOptions& o) {
  const PoemDataset data = load_poem_dataset(c.options.corpus);
  // in the lesson's model's ids, which every variant shares (prepare_cache_size checks it)
  const Tokenizer& tokenizer = c.model.tokenizer();
  const std::vector<TokenId> heldout =
      first_poems(tokenizer.encode(data.tokenizer.decode(data.heldout)),
                  tokenizer.encode("\n").front(), o.heldout_poems);
  const std::size_t T = c.model.config().block_size;
  const std::string which = o.heldout_poems == 0 || o.heldout_poems >= data.heldout_poems
                                ? "the " + std::to_string(data.heldout_poems)
                                : "the first " + std::to_string(o.heldout_poems) + " of the " +
                                      std::to_string(data.heldout_poems);
  const std::vector<std::uint64_t>& seeds = variant_seeds();
  c.out << "  Each model, what its cache keeps per position (all layers, float32) and for a "
           "full context of "
        << T << ",\n  the cache lesson 10's forward allocates, and the held-out loss over " << which
        << " held-out poems\n  (" << thousands(heldout.size())
        << " characters, as the trainer's log measures it) of each seed's run and their mean:\n"
           "    model              attention                          parameters  per position  "
           "full context  allocated ";
  for (const std::uint64_t seed : seeds) c.out << "   seed " << seed;
  c.out << "     mean\n";
  HeldoutLosses losses;
  char line[220];
  // rows[0] is the lesson's model; rows[1 + v * S + s] variant v's run with seed s
  for (std::size_t v = 0; v <= variant_names().size(); ++v) {
    const bool lesson = v == 0;
    const Row& first = lesson ? rows[0] : rows[1 + (v - 1) * seeds.size()];
    const GPTConfig& cfg = first.model->config();
    const SmallCache cache(cfg);
    std::snprintf(line, sizeof line, "    %-17s  %-33s  %10s  %12s  %12s  %9s ",
                  lesson ? first.name.c_str() : variant_names()[v - 1].c_str(),
                  cfg.attention_name().c_str(), thousands(first.model->parameters().size()).c_str(),
                  human_bytes(static_cast<double>(small_cache_bytes_per_position(cfg))).c_str(),
                  human_bytes(static_cast<double>(small_cache_bytes_per_position(cfg) * T)).c_str(),
                  human_bytes(static_cast<double>(cache.layers.size() * sizeof(float))).c_str());
    c.out << line;
    if (lesson) {
      losses.lesson = heldout_loss(*first.model, heldout, 32);
      std::snprintf(line, sizeof line, "%*s %8.4f\n", static_cast<int>(9 * seeds.size()), "",
                    losses.lesson);
      c.out << line;
      c.out.flush();
      continue;
    }
    std::vector<double> runs;
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      runs.push_back(heldout_loss(*rows[1 + (v - 1) * seeds.size() + s].model, heldout, 32));
      std::snprintf(line, sizeof line, " %8.4f", runs.back());
      c.out << line;
      c.out.flush();
    }
    const double mean = std::accumulate(runs.begin(), runs.end(), 0.0) / double(runs.size());
    std::snprintf(line, sizeof line, " %8.4f\n", mean);
    c.out << line;
    c.out.flush();
    losses.by_variant.push_back(std::move(runs));
  }
  return losses;
}

// Part 2: what sharing cost in loss, pair by pair: each variant against the
// multi-head run of its seed, which saw the same batches.
void show_cost_in_loss(LessonContext& c, const std::vector<Row>& rows,
                       const HeldoutLosses& losses) {
  const std::vector<std::uint64_t>& seeds = variant_seeds();
  const std::vector<double>& mha = losses.by_variant[0];
  const auto [low, high] = std::minmax_element(mha.begin(), mha.end());
  c.out << "\n  Multi-head's " << mha.size() << " runs land " << fixed(*high - *low, 4)
        << " nats apart (standard deviation " << fixed(sample_standard_deviation(mha), 4)
        << "): what the seed alone moves.\n"
           "  Each variant against the multi-head run of the same seed, trained on the same "
           "batches (data seed "
        << kVariantDataSeed
        << "):\n  the difference in held-out loss per seed, its mean and the mean's standard "
           "error over the seeds;\n  a mean within two standard errors of zero is not "
           "measurable here:\n"
           "    variant          cache";
  for (const std::uint64_t seed : seeds) c.out << "    seed " << seed;
  c.out << "      mean  std. error  verdict\n";
  const std::size_t mha_position = small_cache_bytes_per_position(rows[1].model->config());
  char line[200];
  for (std::size_t v = 1; v < variant_names().size(); ++v) {
    const std::vector<double>& runs = losses.by_variant[v];
    const std::size_t per_position =
        small_cache_bytes_per_position(rows[1 + v * seeds.size()].model->config());
    std::snprintf(line, sizeof line, "    %-15s %5.1f%%", variant_names()[v].c_str(),
                  100.0 * double(per_position) / double(mha_position));
    c.out << line;
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      std::snprintf(line, sizeof line, "  %+8.4f", runs[s] - mha[s]);
      c.out << line;
    }
    const PairedDifference d = paired_difference(runs, mha);
    std::snprintf(line, sizeof line, "  %+8.4f  %10.4f  %s\n", d.mean, d.standard_error,
                  verdict_text(verdict_of(d)).c_str());
    c.out << line;
  }
}

// Part 3: poems written by each model through its own cache, and how fast.
void show_writing(LessonContext& c, const std::vector<Row>& rows, const CacheSizeOptions& o,
                  const MachineProfile& profile) {
  const SamplingSettings s = writing_settings(c.options);
  std::vector<std::uint64_t> seeds(o.poems);
  std::iota(seeds.begin(), seeds.end(), c.options.seed);
  const std::size_t max_chars = c.model.config().block_size - 1;
  c.out
      << "\n  " << o.poems << " poems from each model at T " << label(s.temperature) << ", top-k "
      << s.top_k << " (seeds " << seeds.front() << " .. " << seeds.back()
      << "), through its own cache: in form\n  (regular verse, with a 95% interval: two "
         "standard errors of a share of "
      << o.poems
      << " poems), the mean log-probability\n  of what it drew, and characters a second, "
         "predicted step by step by the cost model and measured:\n"
         "    model                      in form   log-prob/char   chars/s predicted   measured   "
         "measured/predicted\n";
  char line[200];
  for (const Row& r : rows) {
    const VariantWriting w = write_poems(*r.model, seeds, s, max_chars, profile);
    std::snprintf(
        line, sizeof line, "    %-19s  %5.1f%% ± %4.1f   %13.3f   %17.0f   %8.0f   %18.2f\n",
        r.name.c_str(), 100.0 * double(w.in_form) / double(w.poems),
        200.0 * share_standard_error(w.in_form, w.poems), w.log_probability,
        w.predicted_chars_per_s(), w.chars_per_s(), w.chars_per_s() / w.predicted_chars_per_s());
    c.out << line;
    c.out.flush();
  }
}

// Part 4: a large model's shape at a long context, where the cache is most of what a step reads.
void show_long_context(LessonContext& c, const std::vector<Row>& rows,
                       const MachineProfile& profile) {
  const GPTConfig shape = long_context_shape(rows.front().model->config(), kLongContext + 1);
  c.out << "\n  At a long context: GPT-2 small's shape (" << shape.n_layer << " layers, "
        << shape.n_head << " heads, " << shape.n_embd
        << " dims), random weights, B = " << kLongBatch << " texts whose\n  caches hold "
        << kLongContext << " positions each; one step (median of " << kLongSteps
        << "), predicted and measured, in ms:\n"
           "    attention                          cache a text  read a step   matrices  "
           "attention  predicted  measured  measured/predicted\n";
  char line[220];
  for (std::size_t v = 0; v < variant_names().size(); ++v) {  // one row a variant: its shape
    const Row& r = rows[1 + v * variant_seeds().size()];
    const GPTConfig cfg = long_context_shape(r.model->config(), kLongContext + 1);
    const VariantStepCost p = predict_variant_step(cfg, kLongBatch, kLongContext, profile, false);
    const GPT big = initialised_model(cfg, c.model.tokenizer(), c.options.seed);
    const double m = time_small_cache_step_ms(big, kLongBatch, kLongContext, kLongSteps);
    std::snprintf(
        line, sizeof line, "    %-33s  %12s  %11s  %9.1f  %9.1f  %9.1f  %8.1f  %18.2f\n",
        cfg.attention_name().c_str(),
        human_bytes(static_cast<double>(small_cache_bytes_per_position(cfg) * kLongContext))
            .c_str(),
        human_bytes(p.weight_bytes + p.cache_bytes).c_str(), p.matrices_ms() + p.pointwise_ms,
        p.attention_ms(), p.total_ms(), m, m / p.total_ms());
    c.out << line;
    c.out.flush();
  }
}

// Part 5: the same choice for a 70B model at a 128K context.
void show_large_model(LessonContext& c) {
  constexpr std::size_t kLayers = 80, kHeads = 64, kHeadDim = 128, kContext = 128 * 1024;
  const std::vector<CacheLayout> schemes = {
      {"", "multi-head (64 key/value heads)", kLayers, kHeads, kHeadDim, 0, 0, 2},
      {"", "grouped-query (8, Llama 2 70B's)", kLayers, 8, kHeadDim, 0, 0, 2},
      {"", "multi-query (1)", kLayers, 1, kHeadDim, 0, 0, 2},
      {"", "latent (d_c 512 + 64 rotary)", kLayers, 0, 0, 512, 64, 2},
  };
  c.out << "\n  The same choice for a 70B model: Llama 2 70B's shape (" << kLayers << " layers, "
        << kHeads << " query heads of " << kHeadDim
        << "), bf16,\n  one text at a context of 128K positions (latent: DeepSeek's d_c and "
           "rotary key width):\n"
           "    attention                          per position   128K context   of multi-head\n";
  const double mha = static_cast<double>(schemes.front().bytes_per_position());
  char line[160];
  for (const CacheLayout& s : schemes) {
    const double bytes = static_cast<double>(s.bytes_per_position());
    std::snprintf(line, sizeof line, "    %-33s  %12s   %12s   %11.1f%%\n", s.attention.c_str(),
                  human_bytes(bytes).c_str(), human_bytes(bytes * kContext).c_str(),
                  100.0 * bytes / mha);
    c.out << line;
  }
}

void show_cache_size(LessonContext& c, const CacheSizeOptions& o) {
  c.out << "Four attentions that shrink lesson 06's cache of 2C floats per position and layer, "
           "each\ntrained three times with one recipe (scripts/train_variants.sh), and this "
           "lesson's model\nbeside them:\n";
  std::vector<Row> rows = {{"this lesson's", &c.model}};
  for (std::size_t i = 0; i < o.models.size(); ++i)
    rows.push_back({variant_runs()[i].name(), o.models[i].get()});
  const HeldoutLosses losses = show_sizes(c, rows, o);
  show_cost_in_loss(c, rows, losses);
  c.out << "\n";
  const MachineProfile profile = lesson_profile(c.out, std::vector{plain_fp32_loop()}, "  ");
  show_writing(c, rows, o, profile);
  if (!o.skip_long_context) show_long_context(c, rows, profile);
  show_large_model(c);
}

void declare_cache_size_flags(CLI::App& app, CacheSizeOptions& o) {
  o.variants_flag =
      app.add_option("--variants", o.variants,
                     "section 10: the folder of the twelve models scripts/train_variants.sh trains")
          ->capture_default_str();
  app.add_option("--variant-poems", o.poems,
                 "section 10: poems each model writes for the form and speed table, in [1, 2000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{2000}));
  app.add_option("--heldout-poems", o.heldout_poems,
                 "section 10: held-out poems for the loss column, the first N (0 = all of them, "
                 "as the trainer measures)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  app.add_flag("--no-long-context", o.skip_long_context,
               "section 10: leave out the timings at a long context (they take seconds)");
}

void prepare_cache_size(CacheSizeOptions& o, const GPT& model) {
  const std::string missing = missing_variants(o.variants);
  if (!missing.empty()) throw BadOption(missing);
  o.models.clear();
  for (const VariantRun& run : variant_runs()) {
    auto variant = std::make_shared<const GPT>(load_variant(o.variants, run));
    if (variant->tokenizer().characters() != model.tokenizer().characters()) {
      throw BadOption("--variants " + o.variants + ": " + run.name() +
                      ".safetensors has another vocabulary than the lesson's model: train the "
                      "variants on the lesson's corpus");
    }
    o.models.push_back(std::move(variant));
  }
}

// Without the twelve models in the default folder, the section cannot run (a
// folder named with --variants must hold them: prepare refuses it otherwise).
std::string cannot_run_cache_size(const CacheSizeOptions& o, const GPT& model) {
  if (o.variants_flag->count() == 0) {
    const std::string missing = missing_variants(o.variants);
    if (!missing.empty()) return missing;
  }
  if (model.config().block_size >= 2) return "";
  return "its poems need a context of at least 2; this model's is " +
         std::to_string(model.config().block_size);
}

}  // namespace

Section cache_size_section() {
  auto options = std::make_shared<CacheSizeOptions>();
  return {
      "Shrinking the cache: grouped-query, multi-query and latent attention",
      [options](LessonContext& c) { show_cache_size(c, *options); },
      [](const LessonOptions&) { return std::string("\n"); },
      [options](CLI::App& app) { declare_cache_size_flags(app, *options); },
      [options](const GPT& model, const LessonOptions&) { prepare_cache_size(*options, model); },
      [options](const GPT& model) { return cannot_run_cache_size(*options, model); }};
}

}  // namespace tang

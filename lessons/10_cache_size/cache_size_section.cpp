#include "10_cache_size/cache_size_section.hpp"

#include <CLI/CLI.hpp>
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

// Part 1: what each model caches, and its held-out loss.
std::vector<double> show_sizes(LessonContext& c, const std::vector<Row>& rows,
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
  c.out << "  Each model, what its cache keeps per position (all layers, float32) and for a "
           "full context of "
        << T << ",\n  the cache lesson 10's forward allocates, and the held-out loss over " << which
        << " held-out poems\n  (" << thousands(heldout.size())
        << " characters, as the trainer's log measures it):\n"
           "    model              attention                          parameters  per position  "
           "full context  allocated  held-out loss\n";
  std::vector<double> losses;
  char line[220];
  for (const Row& r : rows) {
    const GPTConfig& cfg = r.model->config();
    const SmallCache cache(cfg);
    const double loss = heldout_loss(*r.model, heldout, 32);
    losses.push_back(loss);
    std::snprintf(
        line, sizeof line, "    %-17s  %-33s  %10s  %12s  %12s  %9s  %13.4f\n", r.name.c_str(),
        cfg.attention_name().c_str(), thousands(r.model->parameters().size()).c_str(),
        human_bytes(static_cast<double>(small_cache_bytes_per_position(cfg))).c_str(),
        human_bytes(static_cast<double>(small_cache_bytes_per_position(cfg) * T)).c_str(),
        human_bytes(static_cast<double>(cache.layers.size() * sizeof(float))).c_str(), loss);
    c.out << line;
    c.out.flush();
  }
  return losses;
}

// Part 2: what sharing cost in loss, against the spread of two runs of one recipe.
void show_cost_in_loss(LessonContext& c, const std::vector<Row>& rows,
                       const std::vector<double>& losses) {
  // rows: the lesson's model, then variant_runs(): multi_head, multi_head_seed2, ...
  const double a = losses[1], b = losses[2], mha = (a + b) / 2, spread = std::abs(a - b);
  c.out << "\n  The two multi-head runs (seeds " << variant_runs()[0].seed << " and "
        << variant_runs()[1].seed << ") land " << fixed(spread, 4)
        << " nats apart: the spread of one pair of runs of one recipe.\n";
  for (std::size_t i = 3; i < rows.size(); ++i) {
    const double d = losses[i] - mha;
    const std::size_t per_position = small_cache_bytes_per_position(rows[i].model->config());
    const std::size_t mha_position = small_cache_bytes_per_position(rows[1].model->config());
    c.out << "    " << rows[i].name << ": "
          << fixed(100.0 * double(per_position) / double(mha_position), 1)
          << "% of multi-head's cache, " << (d >= 0 ? "+" : "") << fixed(d, 4)
          << " nats against the two multi-head runs' mean: "
          << (std::abs(d) > spread ? "more than" : "within") << " the spread\n";
  }
}

// Part 3: poems written by each model through its own cache, and how fast.
void show_writing(LessonContext& c, const std::vector<Row>& rows, const CacheSizeOptions& o,
                  const MachineProfile& profile) {
  const SamplingSettings s = writing_settings(c.options);
  std::vector<std::uint64_t> seeds(o.poems);
  std::iota(seeds.begin(), seeds.end(), c.options.seed);
  const std::size_t max_chars = c.model.config().block_size - 1;
  c.out << "\n  " << o.poems << " poems from each model at T " << label(s.temperature) << ", top-k "
        << s.top_k << " (seeds " << seeds.front() << " .. " << seeds.back()
        << "), through its own cache: in form\n  (regular verse), the mean log-probability "
           "of what it drew, and characters a second, predicted\n  step by step by the cost "
           "model and measured:\n"
           "    model              in form   log-prob/char   chars/s predicted   measured   "
           "measured/predicted\n";
  char line[200];
  for (const Row& r : rows) {
    const VariantWriting w = write_poems(*r.model, seeds, s, max_chars, profile);
    std::snprintf(line, sizeof line, "    %-17s  %6.1f%%   %13.3f   %17.0f   %8.0f   %18.2f\n",
                  r.name.c_str(), 100.0 * double(w.in_form) / double(w.poems), w.log_probability,
                  w.predicted_chars_per_s(), w.chars_per_s(),
                  w.chars_per_s() / w.predicted_chars_per_s());
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
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (i == 2) continue;  // the second multi-head run has the first's shape
    const GPTConfig cfg = long_context_shape(rows[i].model->config(), kLongContext + 1);
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
  c.out << "Lesson 06's cache keeps a key and a value for every head: 2C floats per position "
           "and layer.\nSharing them shrinks it: grouped-query attention lets NH / KVH query "
           "heads read one\nkey/value head (multi-query: KVH = 1); latent attention caches one "
           "vector of d_c floats\nand rebuilds keys and values from it (exercise 10b never "
           "rebuilds them). Five models\ntrained with one recipe (scripts/train_variants.sh), "
           "and this lesson's model beside them:\n";
  std::vector<Row> rows = {{"this lesson's", &c.model}};
  for (std::size_t i = 0; i < o.models.size(); ++i)
    rows.push_back({variant_runs()[i].name, o.models[i].get()});
  const std::vector<double> losses = show_sizes(c, rows, o);
  show_cost_in_loss(c, rows, losses);
  const MachineProfile profile = load_or_measure_profile(
      default_profile_path(), std::vector{plain_fp32_loop()}, [&](const std::string& note) {
        c.out << "(" << note << ")\n";
        c.out.flush();
      });
  show_writing(c, rows, o, profile);
  if (!o.skip_long_context) show_long_context(c, rows, profile);
  show_large_model(c);
}

void declare_cache_size_flags(CLI::App& app, CacheSizeOptions& o) {
  o.variants_flag =
      app.add_option("--variants", o.variants,
                     "section 10: the folder of the five models scripts/train_variants.sh trains")
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
      throw BadOption("--variants " + o.variants + ": " + run.name +
                      ".safetensors has another vocabulary than the lesson's model: train the "
                      "variants on the lesson's corpus");
    }
    o.models.push_back(std::move(variant));
  }
}

// Without the five models in the default folder, the section cannot run (a
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

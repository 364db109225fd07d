#include "08_many_poems/many_poems_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <ostream>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "08_many_poems/big_model.hpp"
#include "08_many_poems/format_loops.hpp"
#include "08_many_poems/weight_quality.hpp"
#include "errors.hpp"
#include "number_text.hpp"

namespace tang {

namespace {

const char* const kOpening =
    "白日依山尽，黄河入海流。欲穷千里目，";  // part 2: ends in a comma, the poem goes on
constexpr std::size_t kPoems = 32;           // poems per batch size in part 1
constexpr std::size_t kQualityPoems = 200;   // held-out poems in part 3

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::uint64_t> seeds_from(std::uint64_t first, std::size_t n) {
  std::vector<std::uint64_t> seeds(n);
  std::iota(seeds.begin(), seeds.end(), first);
  return seeds;
}

std::string megabytes(std::size_t bytes) {
  return fixed(static_cast<double>(bytes) / 1e6, 2) + " MB";
}

// Part 1: the same 32 poems at batch sizes 1 .. 32, each time predicted first.
void batch_sizes(LessonContext& c, const StoredWeights& weights, const SamplingSettings& s,
                 std::size_t length, const MachineProfile& profile) {
  const std::vector<std::uint64_t> seeds = seeds_from(c.options.seed, kPoems);
  c.out << "  " << kPoems << " poems (seeds " << seeds.front() << " .. " << seeds.back() << "), "
        << format_name(weights.format) << " weights, one thread; B poems in flight:\n"
        << "       B   steps   chars/s predicted  measured   x B=1   weight bytes read per "
           "character\n";
  write_batched(c.model, weights, seeds_from(c.options.seed, 4), "", s, length, 4);  // warm-up
  std::vector<std::string> first;
  double base = 0.0;
  bool same = true;
  for (std::size_t B : {1, 2, 4, 8, 16, 32}) {
    const auto start = std::chrono::steady_clock::now();
    const BatchedPoems r = write_batched(c.model, weights, seeds, "", s, length, B);
    const double rate = static_cast<double>(r.characters) / seconds_since(start);
    const double predicted_ms =
        predict_steps_ms(c.model.config(), r.work, profile, loop_name(weights.format),
                         bytes_per_weight(weights.format));
    if (B == 1) base = rate, first = r.poems;
    same = same && r.poems == first;
    char row[160];
    std::snprintf(row, sizeof row, "    %4zu  %6zu   %15.0f  %8.0f  %6.2f   %s\n", B, r.steps,
                  static_cast<double>(r.characters) / predicted_ms * 1e3, rate, rate / base,
                  megabytes(weights.bytes() * r.steps / r.characters).c_str());
    c.out << row;
  }
  c.out << "  the same " << kPoems << " poems at every B: " << (same ? "yes" : "NO") << "\n"
        << "  poem 1: " << first.front() << "\n";
}

// Part 2: a shared opening, prefilled once and copied, against one prefill per poem.
void shared_opening(LessonContext& c, const StoredWeights& weights, std::size_t B,
                    std::size_t length) {
  const GPTConfig& cfg = c.model.config();
  const std::vector<TokenId> prompt = c.model.tokenizer().encode(std::string("\n") + kOpening);
  const std::size_t P = prompt.size();
  Activations acts(cfg, 1, Keep::kLastLogits);
  // the poems' caches, allocated before either timing: both time the work, not
  // the allocation (fresh memory costs a page fault per 4 KB on first touch)
  std::vector<KVCache> caches(B, KVCache(cfg));
  auto start = std::chrono::steady_clock::now();
  for (KVCache& cache : caches) {  // one prefill per poem
    cache.length = 0;
    forward_with_cache(c.model, prompt, 0, cache, acts);
  }
  const double each = seconds_since(start);
  KVCache shared(cfg);
  start = std::chrono::steady_clock::now();
  forward_with_cache(c.model, prompt, 0, shared, acts);  // one prefill,
  for (KVCache& cache : caches) cache = shared;          // copied into every
  const double once = seconds_since(start);              // poem's cache
  // a poem is G positions at most: the opening's P, then G - P new characters
  const std::size_t G = length, per = kv_cache_bytes_per_position(cfg);
  c.out << "\n  A shared opening, " << kOpening << " (" << P << " positions with its newline), for "
        << B << " poems:\n"
        << "    prefilled " << B << " times: " << fixed(each * 1e3, 2)
        << " ms;  once and copied: " << fixed(once * 1e3, 2) << " ms (" << fixed(each / once, 1)
        << "x less)\n"
        << "    cache memory, " << per << " bytes a position, poems of G = " << G
        << " positions at most: copied, B x G = " << megabytes(B * G * per)
        << "; shared rows, P + B x (G - P) = " << megabytes((P + B * (G - P)) * per) << "\n";
  const std::vector<std::uint64_t> seeds = seeds_from(c.options.seed, 3);
  const BatchedPoems r =
      write_batched(c.model, weights, seeds, kOpening, writing_settings(c.options), G - P, B);
  for (const std::string& poem : r.poems) c.out << "    " << poem << "\n";
}

// Part 3: the three weight formats: bytes, quality, speed.
void weight_formats(LessonContext& c, const StoredWeights& fp32, const SamplingSettings& s,
                    std::size_t length, const std::vector<std::vector<TokenId>>& poems) {
  c.out << "\n  The weights a step reads, in three formats (" << poems.size()
        << " held-out poems for the quality, 16 poems at B = 1 for the speed):\n"
        << "    format  bytes read   held-out loss   KL from fp32   same top-1   us per char"
           "   x fp32\n";
  const std::vector<std::uint64_t> seeds = seeds_from(c.options.seed, 16);
  double fp32_time = 0.0;
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    const StoredWeights w(c.model, f);
    const WeightQuality q = compare_with_fp32(c.model, fp32, w, poems, 32);
    write_batched(c.model, w, seeds_from(c.options.seed, 2), "", s, length, 1);  // warm-up
    const auto start = std::chrono::steady_clock::now();
    const BatchedPoems r = write_batched(c.model, w, seeds, "", s, length, 1);
    const double us = seconds_since(start) * 1e6 / static_cast<double>(r.characters);
    if (f == WeightFormat::kFp32) fp32_time = us;
    char row[160];
    if (poems.empty()) {  // a context too short for any held-out poem: no quality to show
      std::snprintf(row, sizeof row, "    %-6s  %10s   %13s   %12s   %10s   %11.1f   %6.2f\n",
                    format_name(f).c_str(), megabytes(w.bytes()).c_str(), "-", "-", "-", us,
                    fp32_time / us);
    } else {
      std::snprintf(row, sizeof row,
                    "    %-6s  %10s   %13.4f   %12.5f   %9.2f%%   %11.1f   %6.2f\n",
                    format_name(f).c_str(), megabytes(w.bytes()).c_str(), q.loss, q.kl,
                    100.0 * q.top1, us, fp32_time / us);
    }
    c.out << row;
  }
  if (poems.empty()) {
    c.out << "    (no held-out poem fits this model's context of " << c.model.config().block_size
          << ": the quality columns are left empty)\n";
  }
}

// The smallest B at which multiplying takes as long as reading the weights.
std::string ridge_point(const GPTConfig& cfg, const MachineProfile& profile, WeightFormat f) {
  for (std::size_t B = 1; B <= 128; ++B) {
    const StepCost step =
        predict_step(cfg, batch_step(B, 0), profile, loop_name(f), bytes_per_weight(f));
    double memory = 0.0, compute = 0.0;
    for (const MatrixCost& m : step.matrices) memory += m.memory_ms, compute += m.compute_ms;
    if (compute >= memory) return std::to_string(B);
  }
  return "over 128";
}

// Part 4: a model that does not fit in the cache, every B and format, predicted first.
void big_model(LessonContext& c, const SamplingSettings& s, const MachineProfile& profile) {
  constexpr std::size_t kCached = 64, kSteps = 3;
  const std::size_t batches[] = {1, 2, 4, 8, 16, 32};
  const GPT big = gpt2_small_shaped(c.model.tokenizer(), c.options.seed);
  const GPTConfig& cfg = big.config();
  c.out << "\n  A model that does not fit in the cache: GPT-2 small's shape (" << cfg.n_layer
        << " layers, " << cfg.n_head << " heads, " << cfg.n_embd
        << " dims), random weights;\n  chars/s of a step of B texts whose caches hold " << kCached
        << " positions (median of " << kSteps
        << " steps), and the ratio measured / predicted:\n             ";
  for (std::size_t B : batches) c.out << (B < 10 ? "     B=" : "    B=") << B;
  c.out << "\n";
  c.out.flush();
  for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
    const StoredWeights w(big, f);
    std::string predicted = "    predicted", measured = "    measured ", ratio = "    ratio    ";
    char cell[32];
    for (std::size_t B : batches) {
      const StepWork work = batch_step(B, kCached);
      const double p =
          predict_step(cfg, work, profile, loop_name(f), bytes_per_weight(f)).total_ms();
      const double m = time_batched_step_ms(big, w, B, kCached, kSteps, s);
      std::snprintf(cell, sizeof cell, " %7.0f", 1e3 * static_cast<double>(B) / p);
      predicted += cell;
      std::snprintf(cell, sizeof cell, " %7.0f", 1e3 * static_cast<double>(B) / m);
      measured += cell;
      std::snprintf(cell, sizeof cell, " %7.2f", p / m);
      ratio += cell;
    }
    c.out << "  " << format_name(f) << ", " << megabytes(w.bytes())
          << " a step; multiplying sets the pace from B = " << ridge_point(cfg, profile, f)
          << " (the ridge point)\n"
          << predicted << "\n"
          << measured << "\n"
          << ratio << "\n";
    c.out.flush();
  }
}

void show_many_poems(LessonContext& c, const ManyPoemsOptions& o) {
  const SamplingSettings s = writing_settings(c.options);
  const StoredWeights fp32(c.model, WeightFormat::kFp32);
  const StoredWeights chosen(c.model, o.format);
  c.out << "A cached step reads every weight matrix once, " << megabytes(fp32.bytes())
        << " in fp32, to write one character. Two ways to read less per character:\n";
  if (o.length != c.options.length) {
    c.out << "(poems of at most " << o.length << " characters: this model's context is "
          << c.model.config().block_size << ")\n";
  }
  const std::vector<LoopToMeasure> loops = lesson_loops();
  const MachineProfile profile = lesson_profile(c.out, loops);
  batch_sizes(c, chosen, s, o.length, profile);
  shared_opening(c, chosen, o.batch, o.length);
  weight_formats(c, fp32, s, o.length, o.quality_poems);
  if (!o.skip_big_model) big_model(c, s, profile);
}

void declare_many_poems_flags(CLI::App& app, ManyPoemsOptions& o) {
  app.add_option("--batch", o.batch,
                 "section 8: poems in flight for the shared opening, in [1, 64]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  app.add_option("--weights", o.weights,
                 "section 8: the weights of the batched poems: fp32, bf16 or int8")
      ->capture_default_str();
  app.add_flag("--no-big-model", o.skip_big_model,
               "section 8: leave out the timings of the model that does not fit in the cache "
               "(they take seconds)");
  o.length_flag = app.get_option("--length");
  o.length_flag->description(
      "longest poem, in characters, in [1, 10000]; in section 8 also longer than its "
      "19-position opening and shorter than the model's context (at most 127 for a context of "
      "128)");
}

// The shared opening's positions, its newline included.
std::size_t opening_positions(const GPT& model) {
  return model.tokenizer().encode(std::string("\n") + kOpening).size();
}

// Section 8 writes every poem in one batched pass over its own cache, with no
// window to slide: the opening and at least one more character must fit.
std::string too_small_for_many_poems(const GPT& model) {
  const std::string shared = why_not_multi_head(model.config(), "lesson 08's batched cache");
  if (!shared.empty()) return shared;
  const std::size_t opening = opening_positions(model);
  if (model.config().block_size >= opening + 2) return "";
  return "its poems start from a " + std::to_string(opening) +
         "-position opening and need a context of at least " + std::to_string(opening + 2) +
         "; this model's is " + std::to_string(model.config().block_size);
}

void prepare_many_poems(ManyPoemsOptions& o, const GPT& model, const LessonOptions& lesson) {
  const auto format = format_named(o.weights);
  if (!format) throw BadOption("--weights " + o.weights + ": choose fp32, bf16 or int8");
  o.format = *format;
  const std::size_t opening = opening_positions(model);
  const std::size_t longest = model.config().block_size - 1;
  o.length = lesson.length;
  if (o.length_flag->count() == 0) o.length = std::min(o.length, longest);  // the default
  if (o.length <= opening || o.length > longest) {
    throw BadOption("--length " + std::to_string(lesson.length) + ": section 8 needs " +
                    std::to_string(opening + 1) + " .. " + std::to_string(longest) +
                    " on this model (context " + std::to_string(model.config().block_size) +
                    "): its poems and their opening must fit the context");
  }
  o.quality_poems = heldout_poems(model, lesson.corpus, kQualityPoems);  // names a bad line
  check_profile_file(default_profile_path());  // a broken one, before the lesson prints
}

}  // namespace

Section many_poems_section() {
  auto options = std::make_shared<ManyPoemsOptions>();  // the section's flags
  return {"Many poems at once, and weights below fp32",
          [options](LessonContext& c) { show_many_poems(c, *options); },
          [](const LessonOptions&) { return std::string("\n") + kOpening; },
          [options](CLI::App& app) { declare_many_poems_flags(app, *options); },
          [options](const GPT& model, const LessonOptions& lesson) {
            prepare_many_poems(*options, model, lesson);
          },
          too_small_for_many_poems};
}

}  // namespace tang

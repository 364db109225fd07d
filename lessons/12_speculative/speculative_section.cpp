#include "12_speculative/speculative_section.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/verse_constraint.hpp"
#include "07_verse/verse_form.hpp"
#include "12_speculative/eight_poems.hpp"
#include "12_speculative/form_drafter.hpp"
#include "12_speculative/model_drafter.hpp"
#include "12_speculative/ngram_drafter.hpp"
#include "12_speculative/speculative_writer.hpp"
#include "checkpoint.hpp"
#include "number_text.hpp"
#include "parameters.hpp"  // parameter_count
#include "spread.hpp"

#ifndef TANG_DATA_DIR
#define TANG_DATA_DIR "data"
#endif

namespace tang {

namespace {

constexpr std::size_t kKs[] = {1, 2, 4, 8};

struct SpeculativeOptions {
  std::string draft = std::string(TANG_DATA_DIR) + "/draft/tang_draft.safetensors";  // --draft
  CLI::Option* draft_flag = nullptr;
  std::shared_ptr<const GPT> draft_model;
};

using Clock = std::chrono::steady_clock;

// Eight poems written one way (eight_poems.hpp), and the seconds they took.
struct Run {
  EightPoems eight;
  double seconds = 0;
};

template <class Write>
Run timed(const Write& write) {
  const Clock::time_point start = Clock::now();
  Run run{write(), 0};
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

// One greedy poem: each character marked as a kept draft (==) or drawn by the model (..).
void show_one_poem(LessonContext& c, Drafter& drafter, const std::string& name) {
  const Tokenizer& tok = c.model.tokenizer();
  std::vector<TokenId> context = tok.encode("\n春风");
  Rng rng(c.options.seed);
  SpeculativeCounts counts;
  const std::vector<TokenId> written = write_speculative(
      c.model, drafter, context, {0.0f, 0, 1.0f}, rng, 4, c.options.length, tok.newline(), &counts);
  std::string poem = "春风", marks = "    ";
  std::size_t i = 0;
  for (const std::size_t kept : counts.kept) {  // each round: its kept drafts, then one drawn
    for (std::size_t j = 0; j <= kept && i < written.size(); ++j, ++i) {
      if (written[i] == tok.newline()) break;
      poem += tok.character(written[i]);
      marks += j < kept ? "==" : "..";
    }
  }
  c.out << "  A poem at T 0 after 春风, " << name << " drafts, k = 4: '==' under a kept draft, "
        << "'..' under the\n  character the model drew at the end of each of its " << counts.rounds
        << " verifications:\n"
        << "    " << poem << "\n    " << marks << "\n";
}

// A drafter with no guesses: the form drafter in front of it drafts only the form's characters.
class NoGuesses : public Drafter {
 public:
  void draft(std::span<const TokenId>, std::size_t, Rng&, std::vector<TokenId>& drafted,
             std::vector<float>& q) override {
    drafted.clear(), q.clear();
  }
};

// Lesson 07's regular verse (a 七绝 with its tones, rhyme and no repeats), 8
// seeds, k = 4: the form drafter drafts each line's punctuation, certain, in
// front of each drafter. Counts only: the form's mask costs a pass over the
// vocabulary for every row, which the cost model does not price.
void show_verse(LessonContext& c, NgramDrafter& ngram, const SpeculativeOptions& o) {
  const GPT& model = c.model;
  const Tokenizer& tok = model.tokenizer();
  const VerseTables tables = VerseTables::load_shipped();
  const VerseVocabulary vocab(tok, tables);
  const VerseForm form = *form_named("七绝");
  VerseConstraint constraint(vocab, form);
  constraint.with_tones(default_pattern(form)).without_repeats();
  const MaskFor mask_for = [&](std::span<const TokenId> context) {
    return constraint.allowed_next(context.subspan(1));  // what was written after "\n"
  };
  c.out << "\n  Lesson 07's regular verse (七绝, its tones, rhyme and no repeats; 8 seeds), k = 4, "
           "each line's\n  punctuation drafted by the form itself, certain, in front of each "
           "drafter:\n"
        << "    drafter        T     verifications  drafted  kept   chars a verification   "
           "same text as lesson 07\n";
  NoGuesses none;
  for (const float t : {0.0f, 0.8f}) {
    const SamplingSettings s =
        t == 0 ? SamplingSettings{0.0f, 0, 1.0f} : SamplingSettings{t, c.options.top_k, 1.0f};
    for (const int which : {0, 1, 2}) {
      if (which == 2 && !o.draft_model) continue;
      std::unique_ptr<ModelDrafter> small;
      Drafter* rest = which == 0 ? static_cast<Drafter*>(&none) : &ngram;
      if (which == 2) rest = (small = std::make_unique<ModelDrafter>(*o.draft_model, s)).get();
      FormDrafter drafter(*rest, mask_for, model.config().vocab_size);
      SpeculativeCounts counts;
      std::size_t same = 0;
      for (std::uint64_t seed = c.options.seed; seed < c.options.seed + 8; ++seed) {
        std::vector<TokenId> context = tok.encode("\n");
        Rng rng(seed), lesson_rng(seed);
        const std::vector<TokenId> written =
            write_speculative(model, drafter, context, s, rng, 4, constraint.length(),
                              tok.newline(), &counts, mask_for);
        if (t == 0)
          same += written == write_verse(model, constraint, BeamSettings{1, s}, lesson_rng).tokens;
      }
      char line[200];
      std::snprintf(
          line, sizeof line, "    %-13s  %-3s  %13zu  %7zu  %5s  %21s   %s\n",
          which == 0   ? "form"
          : which == 1 ? "form, n-gram"
                       : "form, model",
          label(t).c_str(), counts.rounds, counts.drafted,
          percent(counts.accepted, std::max<std::size_t>(counts.drafted, 1)).c_str(),
          fixed(double(counts.written) / double(counts.rounds), 2).c_str(),
          t == 0 ? (same == 8 ? "8 of 8" : (std::to_string(same) + " of 8").c_str()) : "(sampled)");
      c.out << line;
    }
  }
}

// A speed-up as the table prints it: its median, then its range, "0.70 (0.62-0.74)".
std::string with_range(const Spread& s) {
  return fixed(s.median, 2) + " (" + fixed(s.low, 2) + "-" + fixed(s.high, 2) + ")";
}

constexpr std::size_t kRepeats = 5;  // timed pairs a row: lesson 06's writing, then the row's

void show_speculative(LessonContext& c, const SpeculativeOptions& o) {
  const GPT& model = c.model;
  c.out << "A drafter guesses k characters; the model checks them as k + 1 rows of one cached "
           "forward\npass, keeps those exercise 12's rule accepts, draws one more and cuts its "
           "cache back. The\ntext is the model's own: at T 0 lesson 06's, character for "
           "character.\n";
  NgramDrafter ngram(training_stream(model.tokenizer(), c.options.corpus), 4,
                     model.config().vocab_size);
  show_one_poem(c, ngram, "n-gram");
  const std::string profile_path = default_profile_path();
  const MachineProfile profile =
      load_or_measure_profile(profile_path, std::vector{plain_fp32_loop()},
                              [&](const std::string& note) { c.out << "(" << note << ")\n"; });
  c.out << "\n  8 poems, one after each of 8 openings, up to " << c.options.length
        << " characters each (seeds " << c.options.seed << " .. " << c.options.seed + 7
        << ").\n  Each row is timed " << kRepeats
        << " times, each right after lesson 06's writing of the same poems: the medians,\n"
           "  and the speed-up's range over the "
        << kRepeats << " pairs (the machine's load moves them).\n  "
        << profile_provenance(profile_path) << "\n"
        << "    drafter  T     k  verifications  drafted  kept   chars a verification   ms a "
           "char  lesson 06   speed-up (range)   predicted   same text\n";
  struct Greedy {  // a T 0 row: its characters a verification, for the large shape below
    bool with_model;
    std::size_t k;
    double chars_per_verification;
  };
  std::vector<Greedy> greedy;
  for (const float t : {0.0f, 0.8f}) {
    const SamplingSettings s =
        t == 0 ? SamplingSettings{0.0f, 0, 1.0f} : SamplingSettings{t, c.options.top_k, 1.0f};
    const EightPoems plain = write_eight_plain(model, s, c.options.length, c.options.seed);
    const double plain_predicted = predicted_ms(model.config(), plain.counts.work, profile);
    for (const bool with_model : {false, true}) {
      if (with_model && !o.draft_model) continue;
      std::size_t best_k = 0;  // the k the cost model picks: the highest predicted speed-up
      double best_predicted = 0;
      Spread best_measured;
      for (const std::size_t k : kKs) {
        std::vector<double> ms_char, plain_ms_char, speed_up;
        Run run;
        std::unique_ptr<ModelDrafter> drafter_model;
        for (std::size_t r = 0; r < kRepeats; ++r) {
          Drafter* drafter = &ngram;
          if (with_model)  // a new one each time: its work is one run's
            drafter = (drafter_model = std::make_unique<ModelDrafter>(*o.draft_model, s)).get();
          const Run lesson06 =
              timed([&] { return write_eight_plain(model, s, c.options.length, c.options.seed); });
          run = timed([&] {
            return write_eight_speculative(model, *drafter, s, k, c.options.length, c.options.seed);
          });
          plain_ms_char.push_back(1000 * lesson06.seconds / double(lesson06.eight.characters()));
          ms_char.push_back(1000 * run.seconds / double(run.eight.characters()));
          speed_up.push_back(plain_ms_char.back() / ms_char.back());
        }
        const SpeculativeCounts& counts = run.eight.counts;
        double spec_predicted = predicted_ms(model.config(), counts.work, profile);
        if (drafter_model)
          spec_predicted += predicted_ms(o.draft_model->config(), drafter_model->work, profile);
        const double chars_per_verification = double(counts.written) / double(counts.rounds);
        const Spread measured = spread_of(speed_up);
        const double predicted = plain_predicted / spec_predicted;
        char line[256];
        std::snprintf(
            line, sizeof line,
            "    %-7s  %-3s  %2zu  %13zu  %7zu  %5s  %21s  %9s  %9s  %17s  %10s   %s\n",
            with_model ? "model" : "n-gram", label(t).c_str(), k, counts.rounds, counts.drafted,
            percent(counts.accepted, std::max<std::size_t>(counts.drafted, 1)).c_str(),
            fixed(chars_per_verification, 2).c_str(), fixed(spread_of(ms_char).median, 3).c_str(),
            fixed(spread_of(plain_ms_char).median, 3).c_str(), with_range(measured).c_str(),
            fixed(predicted, 2).c_str(),
            t == 0 ? (run.eight.poems == plain.poems ? "yes" : "NO") : "(sampled)");
        c.out << line;
        if (t == 0) greedy.push_back({with_model, k, chars_per_verification});
        if (predicted > best_predicted)
          best_k = k, best_predicted = predicted, best_measured = measured;
      }
      c.out << "      the cost model's best k: " << best_k << " (predicted "
            << fixed(best_predicted, 2) << "x, measured " << fixed(best_measured.median, 2)
            << "x, range " << fixed(best_measured.low, 2) << "-" << fixed(best_measured.high, 2)
            << ")\n";
    }
  }
  show_verse(c, ngram, o);
  // the same rounds on a model whose weights do not fit in the caches: predicted only
  GPTConfig big = model.config();
  big.n_layer = 12, big.n_head = 12, big.n_embd = 768;
  const double one = predict_plain_step(big, cached_step(32), profile).total_ms();
  c.out << "\n  Predicted, not measured, for GPT-2 small's shape with our vocabulary (12 layers, "
           "768 dims,\n  "
        << big.vocab_size << " characters: " << fixed(double(parameter_count(big)) / 1e6, 1)
        << " M parameters, " << fixed(4.0 * double(parameter_count(big)) / 1e6, 0)
        << " MB of weights, read from memory every forward pass;\n  one row " << fixed(one, 1)
        << " ms), with the characters a verification measured above at T 0:\n"
        << "    drafter   k  verification / one row  draft / one row  chars a verification  "
           "speed-up\n";
  for (const Greedy& g : greedy) {
    const StepWork verify = extend_step(g.k + 1, 32, g.k + 1, g.k + 1);  // after 32 positions
    const double verify_ratio = predict_plain_step(big, verify, profile).total_ms() / one;
    const double draft_ratio =
        g.with_model
            ? double(g.k) *
                  predict_plain_step(o.draft_model->config(), cached_step(32), profile).total_ms() /
                  one
            : 0.0;
    char line[160];
    std::snprintf(line, sizeof line, "    %-7s  %2zu  %22s  %15s  %20s  %8s\n",
                  g.with_model ? "model" : "n-gram", g.k, fixed(verify_ratio, 2).c_str(),
                  fixed(draft_ratio, 3).c_str(), fixed(g.chars_per_verification, 2).c_str(),
                  fixed(g.chars_per_verification / (verify_ratio + draft_ratio), 2).c_str());
    c.out << line;
  }
}

void prepare(SpeculativeOptions& o, const GPT& model) {
  if (!std::filesystem::exists(o.draft)) {
    if (o.draft_flag->count() == 0) return;  // none shipped: the n-gram drafter alone
    throw BadOption("--draft: no file " + o.draft +
                    ": pass a draft model's checkpoint (data/draft/tang_draft.safetensors)");
  }
  auto draft = std::make_shared<const GPT>(load_checkpoint(o.draft));
  if (const std::string why = why_not_multi_head(draft->config(), "lesson 12's draft model");
      !why.empty())
    throw BadOption("--draft: " + o.draft + ": " + why);
  if (draft->config().vocab_size != model.config().vocab_size)
    throw BadOption("--draft: " + o.draft + " has a vocabulary of " +
                    std::to_string(draft->config().vocab_size) + ", the model " +
                    std::to_string(model.config().vocab_size) + ": a draft model must share it");
  o.draft_model = std::move(draft);
}

}  // namespace

Section speculative_section() {
  auto options = std::make_shared<SpeculativeOptions>();
  return {"Speculative decoding: a drafter's guesses checked in one forward pass",
          [options](LessonContext& c) { show_speculative(c, *options); },
          [](const LessonOptions&) { return std::string("\n春风"); },
          [options](CLI::App& app) {
            options->draft_flag =
                app.add_option("--draft", options->draft,
                               "section 12: the draft model (a checkpoint of our vocabulary)")
                    ->capture_default_str();
          },
          [options](const GPT& model, const LessonOptions&) { prepare(*options, model); }};
}

}  // namespace tang

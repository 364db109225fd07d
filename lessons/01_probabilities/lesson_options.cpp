#include "lesson_options.hpp"

#include <cblas.h>
#include <omp.h>

#include <charconv>
#include <cmath>
#include <iostream>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "fast_blas.hpp"
#include "program.hpp"

namespace tang {

int run_lesson(int argc, char** argv, const std::string& name, const std::string& description,
               const std::vector<Section>& sections) {
  ensure_fast_blas(argv);
  // Generation is one small step after another: one thread is fastest, and
  // the timings in the lesson text are one-thread numbers.
  openblas_set_num_threads(1);
  omp_set_num_threads(1);
  LessonOptions o;
  o.checkpoint = default_checkpoint_path();
  o.corpus = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  float temperature = 1.0f;
  CLI::App app{description, name};
  app.add_option("--checkpoint", o.checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--corpus", o.corpus, "poems for the count check of section 1")
      ->capture_default_str();
  std::string seed_text = std::to_string(o.seed);
  app.add_option("--seed", seed_text,
                 "random seed in [0, 2^64-1]; the same seed writes the same text")
      ->capture_default_str();
  auto* t = app.add_option("--temperature", temperature,
                           "sampling temperature in [0, 10]; 0 means greedy (always the most "
                           "likely character). Default: each section's own")
                ->check(CLI::Range(0.0f, 10.0f));
  app.add_option("--top-k", o.top_k, "keep the k most likely characters (0 = off), in [0, 100000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  app.add_option("--top-p", o.top_p, "keep the smallest set reaching probability p, in (0, 1]")
      ->capture_default_str()
      ->check(CLI::Range(1e-6f, 1.0f));
  app.add_option("--prompt", o.prompts, "prompt(s) for sections 1 and 4 (repeatable)");
  app.add_option("--heads", o.heads,
                 "acrostic head characters for section 5 (repeatable), e.g. 春眠不觉");
  app.add_option("--length", o.length, "longest poem, in characters, in [1, 10000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
  app.add_flag("--mine", o.mine, "also run YOUR exercise code next to the reference");
  return run_program(argc, argv, app, [&] {
    // CLI11's range checks let "nan" through (every comparison with NaN is false).
    if (!std::isfinite(temperature)) throw UserError("--temperature must be a number in [0, 10]");
    if (!std::isfinite(o.top_p)) throw UserError("--top-p must be a number in (0, 1]");
    if (t->count() > 0) o.temperature = temperature;
    // Decimal digits only: strtoull would wrap "-1", clamp 2^64 and read "010" as octal.
    const auto [end, error] =
        std::from_chars(seed_text.data(), seed_text.data() + seed_text.size(), o.seed);
    if (seed_text.empty() || error != std::errc() || end != seed_text.data() + seed_text.size()) {
      throw UserError("--seed " + seed_text + ": must be a whole number in [0, 2^64-1]");
    }
    for (const std::string& p : o.prompts) {
      if (p.empty())
        throw UserError("--prompt is empty: give at least one character, e.g. --prompt 春风");
    }
    for (const std::string& h : o.heads) {
      if (h.empty())
        throw UserError("--heads is empty: give the head characters, e.g. --heads 春眠不觉");
    }
    const GPT model = load_checkpoint(o.checkpoint);
    std::cout << name << ": " << model.config().describe() << ", seed " << o.seed << "\n";
    LessonContext context{model, o, std::cout};
    for (std::size_t i = 0; i < sections.size(); ++i) {
      std::cout << "\n== " << i + 1 << ". " << sections[i].title << "\n";
      sections[i].run(context);
    }
    return 0;
  });
}

std::vector<TokenId> encode_prompt(const GPT& model, const std::string& text, std::ostream& out) {
  if (text.empty()) throw UserError("the prompt is empty: give at least one character");
  std::vector<TokenId> ids = model.tokenizer().encode(text);
  const std::size_t block = model.config().block_size;
  if (ids.size() > block) {
    out << "  (the prompt has " << ids.size() << " characters; the model reads at most " << block
        << ", so it keeps the last " << block << ")\n";
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(block));
  }
  return ids;
}

float temperature_or(const LessonOptions& options, float section_default) {
  return options.temperature.value_or(section_default);
}

}  // namespace tang

#include "options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "poem_file.hpp"
#include "utf8.hpp"

namespace tang {

void add_lesson_flags(CLI::App& app, LessonFlags& f) {
  LessonOptions& o = f.options;
  o.checkpoint = default_checkpoint_path();
  o.corpus = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  app.add_option("--checkpoint", o.checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--corpus", o.corpus, "poems for the count check of section 1")
      ->capture_default_str();
  app.add_option("--seed", f.seed_text,
                 "random seed in [0, 2^64-1]; the same seed writes the same text")
      ->capture_default_str();
  app.add_option("--temperature", o.temperature,
                 "sampling temperature in [0, 10]; 0 means greedy (always the most likely "
                 "character). Default: each section's own")
      ->check(CLI::Range(0.0f, 10.0f));
  app.add_option("--top-k", o.top_k, "keep the k most likely characters (0 = off), in [0, 100000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  app.add_option("--top-p", o.top_p,
                 "section 3's top-p block: keep the smallest set reaching probability p, in "
                 "(0, 1] (the other sections write with top-p off)")
      ->capture_default_str()
      ->check(CLI::Range(1e-6f, 1.0f));
  app.add_option("--prompt", o.prompts,
                 "prompt(s) for sections 1 and 4 (repeatable); section 9 looks inside the step "
                 "after the first");
  app.add_option("--heads", o.heads,
                 "acrostic head characters for section 5 (repeatable), e.g. 春眠不觉");
  app.add_flag("--trace", o.trace,
               "print every step of every poem: the top 5, what each filter removed, the coin");
  app.add_option("--length", o.length, "longest poem, in characters, in [1, 10000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
  add_yours_flag(app, o.yours);
}

void add_yours_flag(CLI::App& app, std::string& yours) {
  app.add_option("--yours", yours,
                 "run YOUR exercise code (lessons/*/exercise/) instead of the reference solutions, "
                 "checked against them: every exercise, or some, e.g. --yours 03,06a")
      ->expected(0, 1)
      ->default_str("all");
}

LessonOptions check_lesson_options(LessonFlags& f) {
  LessonOptions& o = f.options;
  // CLI11's range checks let "nan" through (every comparison with NaN is false).
  if (o.temperature && !std::isfinite(*o.temperature))
    throw BadOption("--temperature must be a number in [0, 10]");
  if (!std::isfinite(o.top_p)) throw BadOption("--top-p must be a number in (0, 1]");
  o.seed = parse_seed("--seed", f.seed_text);
  check_poem_file(o.corpus);  // sections 1, 7 and 8 read it: UTF-8, one poem a line
  for (const std::string& p : o.prompts) {
    if (p.empty())
      throw BadOption("--prompt is empty: give at least one character, e.g. --prompt 春风");
  }
  for (const std::string& h : o.heads) {
    if (h.empty())
      throw BadOption("--heads is empty: give the head characters, e.g. --heads 春眠不觉");
  }
  return o;
}

// The characters of a flag's text; text that is not UTF-8 is a bad flag.
static std::vector<std::string> characters_of(const std::string& flag, const std::string& text) {
  try {
    return utf8_split(text);
  } catch (const UserError& e) {
    throw BadOption(flag + ": " + e.what());
  }
}

void check_options_against_model(const LessonOptions& o, const GPT& model) {
  const Tokenizer& tokenizer = model.tokenizer();
  for (const std::string& prompt : o.prompts) {
    for (const std::string& c : characters_of("--prompt", prompt)) {
      if (!tokenizer.find(c)) {
        throw BadOption("--prompt " + prompt + ": the model does not know the character '" + c +
                        "'; use characters of Tang poems");
      }
    }
  }
  for (const std::string& heads : o.heads) {
    for (const std::string& c : characters_of("--heads", heads)) {
      if (!can_head_a_line(tokenizer, c)) {
        throw BadOption("--heads " + heads + ": the head character '" + c +
                        "' cannot start a line (not in the vocabulary, or punctuation): "
                        "choose Tang-poem characters");
      }
    }
  }
}

bool can_head_a_line(const Tokenizer& tokenizer, const std::string& character) {
  return tokenizer.find(character) && character != "\n" && character != "，" && character != "。";
}

}  // namespace tang

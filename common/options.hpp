// options.hpp: the flags every lesson executable takes, checked before any work.
//
// Every lesson_NN program accepts the same flags; their defaults reproduce the
// lesson text. parse_lesson_options() reads them and load_and_check() loads the
// model and checks every flag against it (a prompt or head character the model
// does not know, punctuation as an acrostic head, ...), so that a bad flag
// ends as one "error:" line and exit status 2 before the lesson prints anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpt.hpp"

// CLI11 is declared here only; the files that build or parse the flags include
// <CLI/CLI.hpp> themselves (it costs seconds to compile, in every file that includes it).
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tang {

struct LessonOptions {
  std::string checkpoint;            // default: the shipped model
  std::string corpus;                // default: data/tang_poems.txt (for the count check)
  std::uint64_t seed = 42;           // one seed for every section
  std::optional<float> temperature;  // unset: each section's own value(s)
  std::size_t top_k = 20;            // section 3; 0 turns top-k off
  float top_p = 0.9f;                // section 3; 1 turns top-p off
  std::vector<std::string> prompts;  // replace the prompts of sections 1 and 4
  std::vector<std::string> heads;    // replace the acrostic heads of section 5
  std::size_t length = 64;           // cap on characters per poem
  bool trace = false;                // print every sampling step (trace.hpp)
  std::string yours;                 // --yours: whose exercise code runs (exercise_code.hpp)
};

// Declares the flags on `app`; call check_lesson_options() after app.parse().
struct LessonFlags {
  LessonOptions options;
  std::string seed_text = "42";
  float temperature = 1.0f;
  CLI::Option* temperature_flag = nullptr;
};
void add_lesson_flags(CLI::App& app, LessonFlags& flags);

// --yours [ids] alone, for programs that take no other lesson flag (check_verse).
void add_yours_flag(CLI::App& app, std::string& yours);

// Checks the values CLI11 cannot (NaN, the seed's digits, empty texts) and
// returns the options. Throws BadOption.
LessonOptions check_lesson_options(LessonFlags& flags);

// Throws BadOption when a prompt or head does not fit `model` (unknown
// characters, punctuation or a newline as an acrostic head).
void check_options_against_model(const LessonOptions& options, const GPT& model);

// A seed as every program of the course reads it: decimal digits only, in
// [0, 2^64-1] (no sign, no wrap-around, no octal "010"). Throws BadOption.
std::uint64_t parse_seed(const std::string& flag, const std::string& text);

// Whether `character` may start an acrostic line: the model knows it, and it is
// not the newline or the punctuation that ends a line (，。).
bool can_head_a_line(const Tokenizer& tokenizer, const std::string& character);

// The temperature for a section: --temperature when given, else its own default.
float temperature_or(const LessonOptions& options, float section_default);

}  // namespace tang

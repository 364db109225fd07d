// options.hpp: the flags every lesson program takes (their defaults reproduce
// the lesson text), checked before any work: on their own (check_lesson_options)
// and against the loaded model (check_options_against_model), so that a bad
// flag ends as one "error:" line and exit status 2 before anything is printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpt.hpp"
#include "program.hpp"  // parse_seed, CLI::App declared

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

// The flags as parsed: the options, and the seed as typed (checked after parsing).
struct LessonFlags {
  LessonOptions options;
  std::string seed_text = "42";
};
// Declares the flags on `app`; call check_lesson_options() after app.parse().
void add_lesson_flags(CLI::App& app, LessonFlags& flags);

// --yours [ids] alone, for programs that take no other lesson flag (check_verse).
void add_yours_flag(CLI::App& app, std::string& yours);

// Checks the values CLI11 cannot (NaN, the seed's digits, empty texts) and
// returns the options. Throws BadOption.
LessonOptions check_lesson_options(LessonFlags& flags);

// Throws BadOption when a prompt or head does not fit `model` (unknown
// characters, punctuation or a newline as an acrostic head).
void check_options_against_model(const LessonOptions& options, const GPT& model);

// Whether `character` may start an acrostic line: the model knows it, and it is
// not the newline or the punctuation that ends a line (，。).
bool can_head_a_line(const Tokenizer& tokenizer, const std::string& character);

}  // namespace tang

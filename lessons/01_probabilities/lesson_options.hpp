// lesson_options.hpp: the flags every lesson executable takes, and the run loop.
//
// Every lesson_NN program accepts the same flags; their defaults reproduce the
// lesson text. A lesson is a list of sections; lesson N runs sections 1..N.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gpt.hpp"

namespace tang {

struct LessonOptions {
  std::string checkpoint;              // default: the shipped model
  std::string corpus;                  // default: data/tang_poems.txt (for the count check)
  std::uint64_t seed = 42;             // one seed for every section
  std::optional<float> temperature;    // unset: each section's own value(s)
  std::size_t top_k = 20;              // section 3; 0 turns top-k off
  float top_p = 0.9f;                  // section 3; 1 turns top-p off
  std::vector<std::string> prompts;    // replace the prompts of sections 1 and 4
  std::vector<std::string> heads;      // replace the acrostic heads of section 5
  std::size_t length = 64;             // cap on characters per poem
  bool mine = false;                   // also run the learner's exercise code
};

// What a section needs: the model, the options, where to print.
struct LessonContext {
  const GPT& model;
  const LessonOptions& options;
  std::ostream& out;
};

struct Section {
  std::string title;  // printed as "== N. title"
  std::function<void(LessonContext&)> run;
};

// Parses the shared flags, loads the checkpoint and runs the sections in
// order, numbered from 1. Bad input ends as one "error:" line (see program.hpp).
int run_lesson(int argc, char** argv, const std::string& name, const std::string& description,
               const std::vector<Section>& sections);

// The prompt as token ids: unknown characters are an error naming them, an
// empty prompt is an error, and a prompt longer than the context keeps its
// last block_size characters and says so on `out`.
std::vector<TokenId> encode_prompt(const GPT& model, const std::string& text, std::ostream& out);

// The temperature for a section: --temperature when given, else its own default.
float temperature_or(const LessonOptions& options, float section_default);

}  // namespace tang

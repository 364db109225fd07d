// lesson.hpp: how a lesson program runs its sections.
//
// A lesson is a list of sections; lesson N runs the sections of lessons 1..N,
// in order, numbered from 1. Its main() names them:
//
//   return run_lesson(argc, argv, "lesson_02_temperature", "Lesson 02: temperature",
//                     {probabilities_section(), temperature_section()});
//
// A section declares its own flags (lesson 07's --form), prepares (checks them
// against the loaded model) and runs. run_lesson declares every section's flags,
// parses, loads the model and prepares every section BEFORE the first line is
// printed, prints which exercise code runs (the reference solutions, or yours
// with --yours), then runs each section. A section that cannot run on the
// loaded model (one too small for it) is named in the first lines and skipped.
// A section that needs an exercise you
// have not done yet prints the stub's "not implemented yet" line instead, and
// the next section runs.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "errors.hpp"  // printable
#include "generate.hpp"
#include "number_text.hpp"  // label
#include "options.hpp"
#include "trace.hpp"

// CLI11 is declared here only; the files that build or parse the flags include
// <CLI/CLI.hpp> themselves (it costs seconds to compile, in every file that includes it).
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tang {

// What a section needs: the model, the options, where to print.
struct LessonContext {
  const GPT& model;
  const LessonOptions& options;
  std::ostream& out;
};

struct Section {
  std::string title;  // printed as "== N. title"
  std::function<void(LessonContext&)> run;
  // The characters the section will look up or write with these options (its
  // default prompts, punctuation, ...), checked against the model's vocabulary
  // before the lesson starts.
  std::function<std::string(const LessonOptions&)> needs;
  // Its own flags, on top of the ones every lesson takes (options.hpp), added
  // before parsing; none when empty.
  std::function<void(CLI::App&)> declare = {};
  // After the model is loaded and before anything is printed: checks its flags
  // against the model and the lesson's options; throws BadOption.
  std::function<void(const GPT&, const LessonOptions&)> prepare = {};
  // Why the section cannot run on this model at all ("" when it can: always,
  // when empty), naming the model's size and what the section needs. The
  // lesson says so in its first lines and runs the other sections; asked for
  // alone (--section N), it refuses.
  std::function<std::string(const GPT&)> cannot_run = {};
};

int run_lesson(int argc, char** argv, const std::string& name, const std::string& description,
               const std::vector<Section>& sections);

// Throws UserError naming the first character of `text` that the model does
// not know, the checkpoint, and `who` needs it.
void check_vocabulary_has(const GPT& model, const std::string& checkpoint, const std::string& text,
                          const std::string& who);

// The prompt as token ids (its characters were checked with the flags); a
// prompt longer than the context keeps its last block_size characters and
// says so on `out`.
std::vector<TokenId> encode_prompt(const GPT& model, const std::string& text, std::ostream& out);

// `count` poems from scratch with one picker, each on its own indented line,
// written without a cache; the Rng starts from --seed, so every block of
// poems begins from the same random numbers.
void print_poems(LessonContext& context, const Picker& pick, std::size_t count);

// With --trace: what prints each step of a poem as a line (trace.hpp), before the
// poem; without it, nothing (an empty report: write() records no step).
StepReport step_lines(LessonContext& context);

}  // namespace tang

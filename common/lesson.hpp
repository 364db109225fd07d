// lesson.hpp: how a lesson program runs its sections.
//
// Lesson N runs the sections of lessons 1..N, numbered from 1; its main() lists them:
//
//   return run_lesson(argc, argv, "lesson_02_temperature", "Lesson 02: temperature",
//                     {probabilities_section(), temperature_section()});
//
// Before the first line is printed, run_lesson parses every flag (the common
// ones and each section's own), loads the model and prepares every section
// (checks its flags against the model). Then it prints which exercise code runs
// and runs the sections. A section the model is too small for is named in the
// first lines and skipped; one that reaches an exercise stub not done yet prints
// the stub's "not implemented yet" line, and the next section runs.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "errors.hpp"  // printable
#include "gpt.hpp"
#include "number_text.hpp"  // label
#include "options.hpp"

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
  // The characters it will look up or write with these options (default
  // prompts, punctuation), checked against the model's vocabulary.
  std::function<std::string(const LessonOptions&)> needs;
  // Its own flags, beyond every lesson's (options.hpp); none when empty.
  std::function<void(CLI::App&)> declare = {};
  // Checks its flags against the loaded model; throws BadOption.
  std::function<void(const GPT&, const LessonOptions&)> prepare = {};
  // Why it cannot run on this model ("": it can), naming the sizes; asked
  // for alone (--section N), the lesson refuses.
  std::function<std::string(const GPT&)> cannot_run = {};
};

int run_lesson(int argc, char** argv, const std::string& name, const std::string& description,
               const std::vector<Section>& sections);

// Throws UserError naming the first character of `text` that the model does
// not know, the checkpoint, and `who` needs it.
void check_vocabulary_has(const GPT& model, const std::string& checkpoint, const std::string& text,
                          const std::string& who);

}  // namespace tang

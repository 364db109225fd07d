#include "lesson.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "exercise_code.hpp"
#include "program.hpp"
#include "utf8.hpp"

namespace tang {

int run_lesson(int argc, char** argv, const std::string& name, const std::string& description,
               const std::vector<Section>& sections) {
  CLI::App app{description, name};
  LessonFlags flags;
  add_lesson_flags(app, flags);
  std::size_t only = 0;  // --section N: run section N alone (0: all of them)
  app.add_option("--section", only,
                 "run only section N, numbered as in the whole lesson (its text is the same)")
      ->check(CLI::Range(std::size_t{1}, sections.size()));
  for (const Section& s : sections) {
    if (s.declare) s.declare(app);
  }
  return run_program(argc, argv, app, [&] {
    const LessonOptions options = check_lesson_options(flags);
    choose_exercise_code(options.yours);  // --yours: the learner's code, checked
    const GPT model = load_checkpoint(options.checkpoint);
    name_characters_with(&model.tokenizer());
    check_options_against_model(options, model);
    std::vector<std::string> unable(sections.size());  // why section i cannot run ("": it can)
    for (std::size_t i = 0; i < sections.size(); ++i) {
      const std::string who = "section " + std::to_string(i + 1) + " (" + sections[i].title + ")";
      if (sections[i].cannot_run) unable[i] = sections[i].cannot_run(model);
      if (!unable[i].empty() && only == i + 1) {
        throw BadOption("--section " + std::to_string(only) + ": " + who +
                        " cannot run on this model: " + unable[i]);
      }
      if (unable[i].empty())
        check_vocabulary_has(model, options.checkpoint, sections[i].needs(options), who);
    }
    for (std::size_t i = 0; i < sections.size(); ++i) {  // its own flags, on a model it can use
      if (sections[i].prepare && unable[i].empty()) sections[i].prepare(model, options);
    }
    // every flag is good: from here on the lesson prints
    std::cout << name << ": " << model.config().describe() << ", seed " << options.seed << "\n"
              << exercise_code_line() << "\n";
    for (std::size_t i = 0; i < sections.size(); ++i) {
      if (!unable[i].empty() && only == 0)
        std::cout << "section " << i + 1 << " does not run on this model: " << unable[i] << "\n";
    }
    LessonContext context{model, options, std::cout};
    for (std::size_t i = 0; i < sections.size(); ++i) {
      if (only != 0 && i + 1 != only) continue;  // every section starts from --seed on its own
      std::cout << "\n== " << i + 1 << ". " << sections[i].title << "\n";
      if (!unable[i].empty()) {
        std::cout << "  (not run on this model: see the lines at the top)\n";
        continue;
      }
      try {
        sections[i].run(context);
      } catch (const NotImplemented& e) {
        std::cout << "  " << e.what() << "\n";
      }
    }
    std::cout << exercise_summary();
    return 0;  // run_program checks that it all reached stdout
  });
}

void check_vocabulary_has(const GPT& model, const std::string& checkpoint, const std::string& text,
                          const std::string& who) {
  for (const std::string& c : utf8_split(text)) {
    if (!model.tokenizer().find(c)) {
      throw UserError("the checkpoint " + checkpoint + " has no '" + c +
                      "' in its vocabulary, which " + who +
                      " needs: use a model trained on the Tang poems");
    }
  }
}

}  // namespace tang

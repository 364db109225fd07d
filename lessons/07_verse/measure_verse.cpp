// measure_verse: lesson 07's claims, measured on many poems.
//
// For each form (五绝 七绝 五律 七律) it writes N poems (default 200) in four
// ways and runs check_verse on every one:
//   form only               lesson 05's fixed form, beam 1: the model's own tones
//   verse, beam 1           lesson 07's constraint, masks alone: tones, rhyme, no
//                           character twice, no line copied whole from a training poem
//   verse, beam B           the same with beam search (default B = 4, the lesson's)
//   ... copies allowed      beam B without the rule against copied lines: why it is there
// all at the lessons' writing settings (T 0.8, top-k 20). Poem n (n = 1..N)
// uses Rng(n), so `lesson_07_verse --seed n --form F` writes poem n of the
// first, second and last setting in its section 7.
//
//   build/release/lessons/07_verse/measure_verse              aligned text
//   build/release/lessons/07_verse/measure_verse --markdown   a Markdown table
//
// The columns:
//   pass            passes check_verse with no character twice (form, 粘 对 二四六,
//                   line ends, one rhyme group; check_verse.hpp)
//   tones, rhyme    the two halves of it on their own
//   copied lines    lines also found in a training poem (every poem but each
//                   20th of data/tang_poems.txt), as lesson 03's measure_settings counts
//   ln p per char   mean ln p under the model at T = 1 of the characters inside
//                   the lines (not ，。⏎): what the constraint costs the model
//   ms per poem     wall-clock time to write one poem, one thread
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "03_topk_topp/poem_measures.hpp"
#include "07_verse/beam_search.hpp"
#include "07_verse/check_verse.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "number_text.hpp"
#include "poem_file.hpp"
#include "program.hpp"

namespace {

using namespace tang;

struct Row {
  std::size_t poems = 0, pass = 0, tones = 0, rhyme = 0;
  LineCopies lines;
  double log_p = 0.0, seconds = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"measure_verse: lesson 07's constraint and beam search on many poems",
               "measure_verse"};
  std::string checkpoint = default_checkpoint_path();
  std::string corpus = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::size_t poems = 200, beam = 4;
  bool markdown = false;
  app.add_option("--checkpoint", checkpoint, "model file")->capture_default_str();
  app.add_option("--corpus", corpus, "the training poems, for copied lines")->capture_default_str();
  app.add_option("--poems", poems, "poems per form and setting, in [1, 100000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_option("--beam", beam, "the beam width of the last setting, in [1, 64]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  app.add_flag("--markdown", markdown, "print a Markdown table");
  return run_program(argc, argv, app, [&] {
    const VerseTables tables = VerseTables::load_shipped();
    check_poem_file(corpus);
    // the lines of the training poems (every 20th poem held out, as the trainer splits)
    const TrainingLines index_of_lines = TrainingLines::from_corpus(corpus);
    if (index_of_lines.size() == 0) throw BadOption("--corpus " + corpus + " has no poems");
    const std::unordered_set<std::string>& training_lines = index_of_lines.lines();
    const GPT model = load_checkpoint(checkpoint);
    require_multi_head(model.config(), "measure_verse (lesson 07's beam search)");
    const VerseVocabulary vocab(model.tokenizer(), tables);
    const SamplingSettings sampling{0.8f, 20, 1.0f};  // the lessons' writing settings

    if (markdown) {
      std::cout << "| form | setting | pass | tones | rhyme | copied lines | ln p per char "
                   "| ms per poem |\n|---|---|--:|--:|--:|--:|--:|--:|\n";
    } else {
      std::printf("%-6s %-28s %7s %7s %7s %13s %13s %11s\n", "form", "setting", "pass", "tones",
                  "rhyme", "copied lines", "ln p / char", "ms / poem");
    }
    for (const VerseForm& form : verse_forms()) {
      VerseConstraint form_only(vocab, form);
      VerseConstraint copies_allowed(vocab, form);
      copies_allowed.with_tones(default_pattern(form)).without_repeats();
      VerseConstraint verse = copies_allowed;
      verse.without_lines_of(index_of_lines);
      const struct {
        std::string name;
        const VerseConstraint& constraint;
        std::size_t width;
      } settings[] = {{"form only, beam 1", form_only, 1},
                      {"verse, beam 1", verse, 1},
                      {"verse, beam " + std::to_string(beam), verse, beam},
                      {"copies allowed, beam " + std::to_string(beam), copies_allowed, beam}};
      for (const auto& s : settings) {
        Row row;
        for (std::size_t n = 1; n <= poems; ++n) {
          Rng rng(n);
          const auto start = std::chrono::steady_clock::now();
          const WrittenVerse v = write_verse(model, s.constraint, {s.width, sampling}, rng);
          row.seconds +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::string text = model.tokenizer().decode(v.tokens);
          const VerseCheck check = check_verse(text, tables);
          ++row.poems;
          row.pass += check.passes(/*no_repeat=*/true);
          row.tones += check.tones_ok();
          row.rhyme += check.rhyme_ok();
          const LineCopies copies = count_copied_lines(text, training_lines);
          row.lines.long_lines += copies.long_lines;
          row.lines.copied += copies.copied;
          row.log_p += mean_log_p_per_character(v, vocab);
        }
        const std::string copied = percent(row.lines.copied, row.lines.long_lines);
        const std::string log_p = fixed(row.log_p / static_cast<double>(row.poems), 2);
        const std::string ms = fixed(1000.0 * row.seconds / static_cast<double>(row.poems), 1);
        if (markdown) {
          std::cout << "| " << form.name << " | " << s.name << " | " << percent(row.pass, row.poems)
                    << " | " << percent(row.tones, row.poems) << " | "
                    << percent(row.rhyme, row.poems) << " | " << copied << " | " << log_p << " | "
                    << ms << " |\n";
        } else {
          std::printf("%-8s %-28s %7s %7s %7s %13s %13s %11s\n", form.name.c_str(), s.name.c_str(),
                      percent(row.pass, row.poems).c_str(), percent(row.tones, row.poems).c_str(),
                      percent(row.rhyme, row.poems).c_str(), copied.c_str(), log_p.c_str(),
                      ms.c_str());
        }
        std::cout.flush();
      }
    }
    std::cout << "\n"
              << poems << " poems per form and setting, T 0.8, top-k 20, poem n from Rng(n)\n";
    return 0;
  });
}

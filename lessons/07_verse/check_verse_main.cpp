// check_verse: the rules of regular verse, checked line by line (check_verse.hpp).
//
//   check_verse 床前明月光，疑是地上霜。举头望明月，低头思故乡。   one poem or more
//   check_verse - < poems.txt                                        one poem a line
//   check_verse --corpus data/tang_poems.txt [--markdown]            pass rates per form
//
// --no-repeat also fails a poem that uses a character twice. For poems, the
// exit status is 0 when every poem passes and 1 when one fails or could not be
// checked (a row that is not UTF-8), and on an error, after its one "error:"
// line (nothing to check, a row over 64 KB, output that could not be written);
// 2 for a bad flag.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "07_verse/check_verse.hpp"
#include "errors.hpp"
#include "exercise_code.hpp"
#include "number_text.hpp"
#include "options.hpp"  // add_yours_flag
#include "poem_file.hpp"
#include "program.hpp"

namespace {

using namespace tang;

struct FormTally {
  std::size_t poems = 0, tones = 0, rhyme = 0, both = 0, both_no_repeat = 0, repeating = 0;
};

int pass_rates(const std::string& corpus, bool markdown, const VerseTables& tables) {
  check_poem_file(corpus);  // UTF-8, one poem a line, each line bounded
  std::ifstream in(corpus, std::ios::binary);
  std::map<std::string, FormTally> tally;
  std::size_t poems = 0;
  for (std::string line; read_line(in, line) == LineRead::kLine;) {
    if (line.empty()) continue;
    ++poems;
    const VerseCheck c = check_verse(line, tables);
    if (!c.form) continue;
    FormTally& t = tally[c.form->name];
    ++t.poems;
    t.tones += c.tones_ok();
    t.rhyme += c.rhyme_ok();
    t.both += c.passes();
    t.both_no_repeat += c.passes(/*no_repeat=*/true);
    t.repeating += !c.repeated.empty();
  }
  std::cout << poems << " poems in " << corpus << "\n\n";
  if (markdown) {
    std::cout << "| form | poems of its shape | 粘 对 二四六, line ends | one rhyme group "
                 "| both: pass | pass, no character twice | repeat a character |\n"
                 "|---|--:|--:|--:|--:|--:|--:|\n";
  } else {
    std::printf("%-6s %8s %10s %10s %10s %12s %10s\n", "form", "poems", "tones", "rhyme", "pass",
                "pass+norep", "repeats");
  }
  for (const VerseForm& f : verse_forms()) {
    const FormTally& t = tally[f.name];
    if (markdown) {
      std::cout << "| " << f.name << " | " << t.poems << " | " << percent(t.tones, t.poems) << " | "
                << percent(t.rhyme, t.poems) << " | " << percent(t.both, t.poems) << " | "
                << percent(t.both_no_repeat, t.poems) << " | " << percent(t.repeating, t.poems)
                << " |\n";
    } else {
      std::printf("%-8s %8zu %10s %10s %10s %12s %10s\n", f.name.c_str(), t.poems,
                  percent(t.tones, t.poems).c_str(), percent(t.rhyme, t.poems).c_str(),
                  percent(t.both, t.poems).c_str(), percent(t.both_no_repeat, t.poems).c_str(),
                  percent(t.repeating, t.poems).c_str());
    }
  }
  return 0;
}

// One or two whole lines of 5 or 7 characters: a poem's lines on rows of their own?
bool looks_like_one_line_a_row(const VerseCheck& c) {
  if (c.form || c.lines.empty() || c.lines.size() > 2) return false;
  const std::size_t chars = c.lines[0].characters.size();
  for (const LineCheck& line : c.lines) {
    if (line.characters.size() != chars) return false;
  }
  return chars == 5 || chars == 7;
}

// `check_verse -`: one poem a row of stdin, each checked as it comes (memory
// holds one bounded row). Returns whether every poem passed.
bool check_stdin(bool no_repeat, const VerseTables& tables) {
  struct stat input {};
  if (::fstat(STDIN_FILENO, &input) != 0) {
    throw UserError("stdin is closed: check_verse - reads one poem a row from stdin");
  }
  if (S_ISDIR(input.st_mode)) {
    throw UserError("stdin is a directory: check_verse - reads one poem a row from a file or pipe");
  }
  bool all_pass = true;
  std::size_t row = 0, poems = 0;
  std::string line;
  for (LineRead r; (r = read_line(std::cin, line)) != LineRead::kEnd;) {
    ++row;
    const std::string where = "stdin row " + std::to_string(row);
    if (r == LineRead::kTooLong) {
      throw UserError(where + " is longer than " + std::to_string(kMaxPoemLineBytes) +
                      " bytes: check_verse - reads one poem a row");
    }
    if (line.empty()) continue;
    ++poems;
    try {
      const VerseCheck c = check_verse(line, tables);
      std::string text = describe_check(c, no_repeat, "");
      if (looks_like_one_line_a_row(c)) {
        text.pop_back();
        text += " (check_verse - reads one whole poem a row)\n";
      }
      std::cout << text;
      all_pass = all_pass && c.passes(no_repeat);
    } catch (const UserError& e) {  // invalid UTF-8: that row is not checked, the next ones are
      std::cout << "not checked (" << where << "): " << e.what() << "\n";
      all_pass = false;
    }
  }
  if (std::cin.bad()) throw UserError("stdin could not be read to the end");
  if (poems == 0) {
    throw UserError(
        "stdin held no poem: check_verse - reads one poem a row, e.g. "
        "check_verse - < poems.txt");
  }
  return all_pass;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"check_verse: the tones and rhyme of regular verse, line by line", "check_verse"};
  std::vector<std::string> poems;
  std::string corpus;
  bool markdown = false, no_repeat = false;
  app.add_option("poems", poems, "poems to check; - reads one poem a line from stdin");
  app.add_option("--corpus", corpus, "print the pass rates of every poem of this file, per form");
  app.add_flag("--markdown", markdown, "with --corpus: the table in Markdown");
  app.add_flag("--no-repeat", no_repeat, "a poem that uses a character twice fails");
  std::string yours;  // --yours 07a: your tone check (exercise 07a), checked against the reference
  add_yours_flag(app, yours);
  return run_program(argc, argv, app, [&] {
    choose_exercise_code(yours);
    if (corpus.empty() == poems.empty()) {
      throw BadOption("give poems to check, or --corpus FILE for pass rates (not both)");
    }
    const VerseTables tables = VerseTables::load_shipped();
    const auto check = [&] {
      if (!corpus.empty()) return pass_rates(corpus, markdown, tables);
      if (poems.size() == 1 && poems[0] == "-") return check_stdin(no_repeat, tables) ? 0 : 1;
      bool all_pass = true;
      for (const std::string& poem : poems) {
        const VerseCheck c = check_verse(poem, tables);
        std::cout << describe_check(c, no_repeat, "");
        all_pass = all_pass && c.passes(no_repeat);
      }
      return all_pass ? 0 : 1;
    };
    const int status = check();
    std::cout << exercise_summary();
    return status;
  });
}

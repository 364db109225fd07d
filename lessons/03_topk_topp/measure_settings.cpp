// measure_settings: numbers instead of adjectives.
//
// Lessons 02 and 03 say that at T = 0.3 the verse is plain and repeats itself
// and that at T = 1.5 it falls apart. This program measures it: it writes N
// poems (default 100) at each setting, from scratch, exactly as the lessons
// draw them, and prints one table, with the same figures for N real poems the
// model never trained on.
//
//   build/release/lessons/03_topk_topp/measure_settings              aligned text
//   build/release/lessons/03_topk_topp/measure_settings --markdown   a Markdown table
//
// The settings and the code that draws them:
//   T 0.3, T 1.0, T 1.5    lesson 02's draw, sample_with_temperature
//   T 1.5 + top-k 20       lesson 03's sample_next (sampling_picker)
//   T 1.5 + top-p 0.9      the same, with top-p instead of top-k
// Every poem starts after "\n", has at most 64 characters (the lessons'
// --length) and ends at the newline the model writes; the model runs without a
// cache (Recompute) on the plain kernels, and write_poem writes. Poem n of
// every setting (n = 1..N) has its own Rng(n), so `--seed n` reprints it: it is
// the first poem of the block of lesson_02_temperature --seed n --temperature T,
// or of the top-k and top-p blocks of lesson_03_topk_topp --seed n. It draws
// with the reference solutions of exercises 02, 03 and 03b.
//
// The columns (poem_measures.hpp says exactly what is counted):
//   copied lines    lines of 5+ characters that are also a line of a training poem
//   repeats         poems in which some character (not ，。) occurs twice or more
//   form valid      poems that are regular verse by the corpus's rules and ended by themselves
//   log p per char  the mean of ln p(character | the text before it) under the
//                   model at T = 1, whatever setting drew the character, over every
//                   character written, punctuation and the final newline included:
//                   nats per character, the trainer's loss with the sign turned
//   distinct        different characters (not ，。) in all N poems together
//   length          mean characters per poem (punctuation included, the newline not)
// The corpus row: the first N held-out poems (index % 20 == 0), each scored
// after "\n" by feeding the model its own characters; they all end with their
// newline, so "ended by itself" holds for them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "02_temperature/exercise/sample_with_temperature.hpp"
#include "03_topk_topp/poem_measures.hpp"
#include "03_topk_topp/sampler.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "lesson.hpp"  // check_vocabulary_has
#include "poem_file.hpp"
#include "program.hpp"

namespace {

using namespace tang;

constexpr std::size_t kLength = 64;  // the lessons' --length

struct Options {
  std::string checkpoint = default_checkpoint_path();
  std::string corpus = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::size_t poems = 100;
  bool markdown = false;
};

// The corpus split as the trainer splits it: poem i is held out when i % 20 == 0.
struct Corpus {
  std::unordered_set<std::string> training_lines;  // every line of every training poem
  std::vector<std::string> held_out;               // the first N held-out poems
};

// Throws BadOption naming the line of a held-out poem the model cannot score
// (a character it does not know, invalid UTF-8), or when there are fewer than
// --poems held-out poems.
Corpus read_corpus(const Options& o, const Tokenizer& tokenizer) {
  std::ifstream in(o.corpus, std::ios::binary);
  if (!in) throw BadOption("--corpus " + o.corpus + " cannot be opened: check its permissions");
  Corpus corpus;
  std::size_t index = 0;
  for (std::string poem; std::getline(in, poem); ++index) {
    const std::string where = "--corpus " + o.corpus + " line " + std::to_string(index + 1);
    try {
      if (index % 20 != 0) {
        for (const std::string& line : lines_of_poem(poem)) corpus.training_lines.insert(line);
      } else if (corpus.held_out.size() < o.poems) {
        tokenizer.encode(poem);  // the model must know every character it will score
        corpus.held_out.push_back(poem);
      }
    } catch (const UserError& e) {
      throw BadOption(where + ": " + e.what() + "; pass the corpus the model was trained on");
    }
  }
  if (corpus.held_out.size() < o.poems) {
    const std::string n = std::to_string(o.poems), has = std::to_string(corpus.held_out.size());
    throw BadOption("--poems " + n + " needs " + n +
                    " held-out poems (every 20th line of --corpus " + o.corpus + "), and it has " +
                    has + ": pass --poems " + has + " or a larger corpus");
  }
  return corpus;
}

// Wraps a picker: keeps a copy of the logits before it runs (the samplers
// overwrite them), then adds ln softmax(copy)[chosen], the model's own
// probability at T = 1, to the running sums.
struct Scores {
  double log_p = 0.0;
  std::size_t characters = 0;
  TokenId last = -1;
  std::vector<float> logits;
};

Picker scored(const Picker& pick, Scores& s) {
  return [&pick, &s](std::span<float> logits, std::size_t written, Rng& rng, StepRecord*) {
    s.logits.assign(logits.begin(), logits.end());
    const TokenId next = pick(logits, written, rng, nullptr);
    s.log_p += log_probability(s.logits, next);
    s.characters += 1;
    s.last = next;
    return next;
  };
}

struct Setting {
  std::string name;
  Picker pick;
};

std::vector<Setting> settings() {
  std::vector<Setting> list;
  for (const float t : {0.3f, 1.0f, 1.5f}) {
    // lesson 02's draw (temperature_section.cpp): one coin, exercise 02's function
    const Picker draw = [t](std::span<float> logits, std::size_t, Rng& rng, StepRecord*) {
      const float coin = rng.uniform();
      return sample_with_temperature(logits, t, coin);
    };
    char name[32];
    std::snprintf(name, sizeof name, "T %.1f", static_cast<double>(t));
    list.push_back({name, draw});
  }
  // lesson 03's sampling step (topk_topp_section.cpp)
  list.push_back({"T 1.5 + top-k 20", sampling_picker({1.5f, 20, 1.0f})});
  list.push_back({"T 1.5 + top-p 0.9", sampling_picker({1.5f, 0, 0.9f})});
  return list;
}

// One row of the table, aligned or in Markdown.
std::string row(const Options& o, const std::string& name, const Tally& t) {
  const auto percent = [](std::size_t part, std::size_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  };
  const double copied = percent(t.lines.copied, t.lines.long_lines);
  const double repeats = percent(t.repeating, t.poems);
  const double valid = percent(t.valid, t.poems);
  const double log_p = t.scored == 0 ? 0.0 : t.log_p / static_cast<double>(t.scored);
  const double length = static_cast<double>(t.characters) / static_cast<double>(t.poems);
  char text[256];
  if (o.markdown) {
    std::snprintf(text, sizeof text, "| %s | %.1f%% | %.1f%% | %.1f%% | %.2f | %zu | %.1f |",
                  name.c_str(), copied, repeats, valid, log_p, t.distinct.size(), length);
  } else {
    std::snprintf(text, sizeof text, "%-20s %11.1f%% %8.1f%% %9.1f%% %10.2f %9zu %7.1f",
                  name.c_str(), copied, repeats, valid, log_p, t.distinct.size(), length);
  }
  return text;
}

void print_header(const Options& o) {
  if (o.markdown) {
    std::cout << "| setting | lines copied from training | poems repeating a character "
                 "| form valid | log p per character (nats) | distinct characters "
                 "| mean length |\n"
              << "|---|---:|---:|---:|---:|---:|---:|\n";
  } else {
    std::cout << "measure_settings: " << o.poems << " poems per setting (seeds 1.." << o.poems
              << "), at most " << kLength << " characters each; corpus: the first " << o.poems
              << " held-out poems\n"
              << "setting              copied lines  repeats  form valid  log p/char  distinct  "
                 "length\n";
  }
}

void print_legend(const Options& o) {
  if (o.markdown) return;  // the page explains its columns
  std::cout << "\ncopied lines: lines of 5+ characters that are also a line of a training poem\n"
               "repeats: poems with some character (not ，。) twice or more\n"
               "form valid: lines of 5 or 7 characters, all alike, ending in 。 (data/README.md), "
               "and the poem ended by itself\n"
               "log p/char: mean ln p of each character (punctuation and newline included) under "
               "the model at T = 1, in nats\n"
               "distinct: different characters (not ，。) in all the poems of the row; "
               "length: mean characters per poem\n";
}

int measure(const Options& o) {
  check_poem_file(o.corpus);
  const GPT model = load_checkpoint(o.checkpoint);
  const Tokenizer& tokenizer = model.tokenizer();
  check_vocabulary_has(model, o.checkpoint, "\n，。", "measure_settings");
  const Corpus corpus = read_corpus(o, tokenizer);
  const std::vector<Setting> all = settings();
  // every flag and file is good: from here on the program prints
  print_header(o);
  Recompute predictor(model);
  for (const Setting& setting : all) {
    Tally tally;
    for (std::size_t n = 1; n <= o.poems; ++n) {
      Rng rng(n);  // poem n is the first poem of --seed n
      Scores s;
      const std::string poem =
          write_poem(predictor, tokenizer, "", scored(setting.pick, s), rng, kLength);
      tally.add(poem, s.last == tokenizer.newline(), s.log_p, s.characters, corpus.training_lines);
    }
    std::cout << row(o, setting.name, tally) << std::endl;  // a row as soon as it is done
  }
  Tally real;
  for (const std::string& poem : corpus.held_out) {
    // the model scores the poem's own characters, then its newline
    std::vector<TokenId> ids = tokenizer.encode(poem);
    ids.push_back(tokenizer.newline());
    const Picker the_poem = [&ids](std::span<float>, std::size_t written, Rng&, StepRecord*) {
      return ids[written];
    };
    Rng unused(0);
    Scores s;
    write_poem(predictor, tokenizer, "", scored(the_poem, s), unused, ids.size());
    real.add(poem, true, s.log_p, s.characters, corpus.training_lines);
  }
  std::cout << row(o, "corpus (held out)", real) << "\n";
  print_legend(o);
  return 0;  // run_program checks that it all reached stdout
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Measure the lessons' sampling settings on many poems", "measure_settings"};
  app.add_option("--checkpoint", o.checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--corpus", o.corpus, "the poems, one a line; every 20th is held out")
      ->capture_default_str();
  app.add_option("--poems", o.poems, "poems per setting, and held-out poems, in [1, 10000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
  app.add_flag("--markdown", o.markdown, "print the table in Markdown, to paste into a page");
  return tang::run_program(argc, argv, app, [&] { return measure(o); });
}

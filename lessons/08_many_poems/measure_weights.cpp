// measure_weights: the quality of bf16 and int8 weights on every held-out poem.
//
// Section 8 of the lesson measures 200 held-out poems; this program measures
// them all (every 20th poem of data/tang_poems.txt, 2,236 that fit the
// context), B poems at a time (weight_quality.hpp says what is measured).
//
//   build/release/lessons/08_many_poems/measure_weights              aligned text
//   build/release/lessons/08_many_poems/measure_weights --markdown   a Markdown table
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "08_many_poems/weight_quality.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "poem_file.hpp"
#include "program.hpp"

int main(int argc, char** argv) {
  using namespace tang;
  CLI::App app{"measure_weights: held-out loss, KL from fp32 and top-1 agreement per weight format",
               "measure_weights"};
  std::string checkpoint = default_checkpoint_path();
  std::string corpus = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::size_t poems = 100000;
  bool markdown = false;
  app.add_option("--checkpoint", checkpoint, "model file")->capture_default_str();
  app.add_option("--corpus", corpus, "the poems; every 20th is held out")->capture_default_str();
  app.add_option("--poems", poems, "at most this many held-out poems, in [1, 100000]")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_flag("--markdown", markdown, "print a Markdown table");
  return run_program(argc, argv, app, [&] {
    check_poem_file(corpus);
    const GPT model = load_checkpoint(checkpoint);
    require_multi_head(model.config(), "measure_weights (lesson 08's stored weights)");
    const auto held_out = heldout_poems(model, corpus, poems);
    if (held_out.empty()) {
      throw BadOption("--corpus " + corpus + ": none of its held-out poems (every 20th) fits " +
                      "this model's context of " + std::to_string(model.config().block_size) +
                      " with its newlines: measure a model with a longer context, or pass a "
                      "corpus of shorter poems");
    }
    const StoredWeights fp32(model, WeightFormat::kFp32);
    if (markdown) {
      std::cout << "| weights | bytes a step reads | held-out loss | minus fp32's | KL from fp32 "
                   "| same top-1 |\n|---|--:|--:|--:|--:|--:|\n";
    }
    std::size_t positions = 0;
    for (WeightFormat f : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
      const StoredWeights w(model, f);
      const WeightQuality q = compare_with_fp32(model, fp32, w, held_out, 32);
      positions = q.positions;
      char row[200];
      std::snprintf(row, sizeof row,
                    markdown ? "| %s | %.2f MB | %.4f | %+.4f | %.5f | %.2f%% |\n"
                             : "%-5s %8.2f MB   loss %.4f (%+.4f)   KL %.5f   top-1 %.2f%%\n",
                    format_name(f).c_str(), static_cast<double>(w.bytes()) / 1e6, q.loss,
                    q.loss - q.fp32_loss, q.kl, 100.0 * q.top1);
      std::cout << row;
    }
    std::cout << "\n"
              << held_out.size() << " held-out poems, " << positions
              << " characters predicted, each poem from its own newline\n";
    return 0;
  });
}

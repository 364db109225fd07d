// distribution_table: the 30 most likely next characters after one context, at
// T = 0.3, 1 and 1.5, as tab-separated columns (rank, character, p at each T),
// for scripts/plot_distribution.sh to draw.
//
//   distribution_table [--checkpoint PATH] [--context TEXT] [--count N]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <vector>

#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "program.hpp"
#include "sampling.hpp"

namespace {

std::vector<float> at_temperature(std::span<const float> logits, float t) {
  std::vector<float> p(logits.begin(), logits.end());
  const float max = *std::max_element(p.begin(), p.end());
  for (float& z : p) z = (z - max) / t;
  tang::softmax_in_place(p);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The most likely next characters at T = 0.3, 1 and 1.5, as TSV"};
  std::string checkpoint = tang::default_checkpoint_path();
  std::string context = "床前明月光，疑是地上";
  std::size_t count = 30;
  app.add_option("--checkpoint", checkpoint, "model file");
  app.add_option("--context", context, "the text before the next character");
  app.add_option("--count", count, "how many characters, in [1, 200]")->check(CLI::Range(1, 200));
  return tang::run_program(argc, argv, app, [&] {
    const tang::GPT model = tang::load_checkpoint(checkpoint);
    if (context.empty())
      throw tang::UserError("--context is empty: give the text before the next character");
    const auto ids = model.tokenizer().encode(context);  // names a character the model lacks
    tang::Recompute predictor(model);
    const std::span<const float> logits = predictor.next_logits(ids);
    const std::vector<float> t1 = at_temperature(logits, 1.0f);
    std::vector<tang::TokenId> order(t1.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](tang::TokenId a, tang::TokenId b) {
      return t1[static_cast<std::size_t>(a)] > t1[static_cast<std::size_t>(b)];
    });
    const std::vector<float> cold = at_temperature(logits, 0.3f),
                             hot = at_temperature(logits, 1.5f);
    std::printf("rank\tcharacter\tT=0.3\tT=1.0\tT=1.5\n");
    for (std::size_t r = 0; r < count && r < order.size(); ++r) {
      const auto id = static_cast<std::size_t>(order[r]);
      std::printf("%zu\t%s\t%.6f\t%.6f\t%.6f\n", r + 1,
                  model.tokenizer().character(order[r]).c_str(), static_cast<double>(cold[id]),
                  static_cast<double>(t1[id]), static_cast<double>(hot[id]));
    }
    return 0;
  });
}

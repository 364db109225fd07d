// attention_table: every head's attention weights over one poem, as
// tab-separated rows (layer, head, query position, key position, weight; every
// (query, key) pair, zeros past the query included), for
// scripts/plot_attention.sh to draw as 16 small heat maps. The first line
// names the positions' characters.
//
//   attention_table [--checkpoint PATH] [--text POEM]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "09_inside/inside_view.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "program.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Every head's attention weights over one poem, as TSV"};
  std::string checkpoint = tang::default_checkpoint_path();
  std::string text = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。";
  app.add_option("--checkpoint", checkpoint, "model file");
  app.add_option("--text", text, "the poem, read after a newline as the lessons read one");
  return tang::run_program(argc, argv, app, [&] {
    const tang::GPT model = tang::load_checkpoint(checkpoint);
    if (text.empty()) throw tang::UserError("--text is empty: give a poem");
    const auto tokens = model.tokenizer().encode("\n" + text);  // names a character it lacks
    if (tokens.size() > model.config().block_size) {
      throw tang::UserError("--text has " + std::to_string(tokens.size() - 1) +
                            " characters; with its newline it must fit the model's context of " +
                            std::to_string(model.config().block_size));
    }
    tang::Activations acts(model.config(), 1, tang::Keep::kEverything);
    const tang::InsideView view = tang::look_inside(model, tokens, acts);
    std::printf("# characters");
    for (tang::TokenId id : tokens) {
      const std::string& c = model.tokenizer().character(id);
      std::printf("\t%s", c == "\n" ? "⏎" : c.c_str());
    }
    std::printf("\nlayer\thead\tquery\tkey\tweight\n");
    for (std::size_t l = 0; l < view.L; ++l) {
      for (std::size_t h = 0; h < view.NH; ++h) {
        const auto w = view.weights(l, h);  // (T, T)
        for (std::size_t t = 0; t < view.T; ++t) {
          for (std::size_t s = 0; s < view.T; ++s)
            std::printf("%zu\t%zu\t%zu\t%zu\t%.5f\n", l + 1, h + 1, t, s,
                        static_cast<double>(w[t * view.T + s]));
        }
      }
    }
    return 0;
  });
}

// bench_dump_logits: what the PyTorch peer checks itself against.
//
//   bench_dump_logits OUT.json
//
// Writes, for the model the benchmarks use (bench_common.hpp: the shipped
// checkpoint, or a random stand-in that is then saved next to OUT so the peer
// can load the very same weights):
//   "checkpoint"  the safetensors file to load
//   "prompts"     for a few texts: their ids and the last position's logits (V), by the
//                 lesson path (common/gpt.hpp's forward, plain kernels)
//   "greedy"      32 characters after a newline, argmax each step, with lesson 06's
//                 cache (CachedPredictor, plain kernels)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "06_kvcache/kv_cache.hpp"
#include "bench_common.hpp"

int main(int argc, char** argv) {
  tang::ensure_fast_blas(argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_dump_logits OUT.json\n");
    return 2;
  }
  const std::filesystem::path out_path = argv[1];
  if (out_path.has_parent_path()) std::filesystem::create_directories(out_path.parent_path());
  const tang::bench::LoadedModel& loaded = tang::bench::course();
  const tang::GPT& model = loaded.model;

  std::string checkpoint = loaded.source;
  if (!loaded.trained) {
    checkpoint = (out_path.parent_path() / "random_model.safetensors").string();
    tang::save_checkpoint(checkpoint, model,
                          {{"note", "random stand-in written by bench_dump_logits"}});
  }

  nlohmann::json out;
  out["checkpoint"] = std::filesystem::absolute(checkpoint).string();
  out["trained"] = loaded.trained;
  out["prompts"] = nlohmann::json::array();
  for (const std::string_view prompt :
       {tang::bench::kPrompt, tang::bench::kPrompt2, tang::bench::kPrompt3}) {
    const std::string text = tang::bench::after_newline(prompt);
    const std::vector<tang::TokenId> ids = tang::bench::ids(model, text);
    const std::vector<float> logits = tang::bench::logits_after(model, prompt);
    out["prompts"].push_back({{"text", text}, {"ids", ids}, {"logits", logits}});
  }

  tang::CachedPredictor predictor(model);
  std::vector<tang::TokenId> context = tang::bench::ids(model, "\n");
  std::vector<tang::TokenId> greedy;
  for (int i = 0; i < 32; ++i) {
    const auto logits = predictor.next_logits(context);
    const auto best =
        static_cast<tang::TokenId>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    context.push_back(best);
    greedy.push_back(best);
  }
  out["greedy"] = greedy;

  std::ofstream file(out_path);
  file << out.dump() << "\n";
  if (!file) {
    std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str());
    return 1;
  }
  std::printf("wrote %s (model: %s)\n", out_path.c_str(), checkpoint.c_str());
  return 0;
}

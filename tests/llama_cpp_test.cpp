// llama_cpp_test: our model exported by export_gguf and run in llama.cpp (the npm
// package node-llama-cpp with its prebuilt CPU binary, tests/llama_cpp/evaluate.mjs)
// against our own forward pass (common/gpt.hpp), on held-out openings: llama.cpp's
// tokenizer gives our ids; the next-character logits and probabilities agree over the
// whole vocabulary at every step of 32 greedy characters; the greedy texts are the same.
// Skipped without Node or the package (scripts/install_deps.sh --client installs both).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "08_many_poems/gguf_writer.hpp"  // fp16_bits, fp16_value
#include "checkpoint.hpp"
#include "errors.hpp"
#include "gpt.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;
using tang_tests::command_line;
using tang_tests::run_command;

namespace {

const std::string kCheckpoint = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
const fs::path kScript = fs::path(TANG_TESTS_DIR) / "llama_cpp" / "evaluate.mjs";
const fs::path kPackage = fs::path(TANG_TESTS_DIR) / "llama_cpp" / "node_modules";
constexpr std::size_t kOpenings = 8;
constexpr std::size_t kSteps = 32;

// The bounds, from what separates llama.cpp's run from ours (F32AgreesWithOurForward
// prints each part): its GELU is the tanh approximation looked up in a table of fp16
// values (about 3 significant digits), ours the exact erf form in float32; and its KV
// cache keeps keys and values as fp16. Over these openings the largest differences were
// 2.2e-3 in a probability and 3.0e-2 in a logit; with llama.cpp's GELU in our forward
// 8.2e-3 in a logit, and with a float32 cache in llama.cpp as well 2.4e-3: the two
// explain all but a twelfth. The bounds are 4 times the measurement: room for another
// CPU's summation order, far below what a wrong export does (a transposed matrix or a
// missing layer moves logits by whole units).
constexpr double kLogitBound = 0.12;          // 4 x 3.0e-2
constexpr double kProbabilityBound = 8.8e-3;  // 4 x 2.2e-3

struct Opening {
  std::string text;                // "\n" then the poem's first words
  std::vector<tang::TokenId> ids;  // our ids for it
  std::string poem;                // "\n", the whole held-out poem, "\n"
};

// The first line (to the first "，") of the first kOpenings held-out poems (every 20th).
std::vector<Opening> openings(const tang::GPT& model) {
  std::ifstream in(std::string(TANG_DATA_DIR) + "/tang_poems.txt");
  std::vector<Opening> out;
  std::size_t index = 0;
  for (std::string line; out.size() < kOpenings && std::getline(in, line); ++index) {
    const std::size_t comma = line.find("，");
    if (index % 20 != 0 || comma == std::string::npos) continue;
    Opening o{"\n" + line.substr(0, comma), {}, "\n" + line + "\n"};
    o.ids = model.tokenizer().encode(o.text);
    out.push_back(o);
  }
  return out;
}

struct LlamaRun {
  std::vector<nlohmann::json> lines;  // one per opening
  std::vector<float> logits;          // openings x steps x row
  std::size_t row = 0;  // llama.cpp's vocabulary: our characters, then the byte pieces
};

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("tang_llama_cpp_test_" + std::to_string(::getpid()));
}

// Exports the shipped model as `type` and runs evaluate.mjs on it.
// cache: llama.cpp's KV cache, "f16" (its default) or "f32".
LlamaRun run_llama(const std::vector<Opening>& cases, const std::string& type,
                   const std::string& cache = "f16") {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir);
  const fs::path gguf = dir / ("tang-" + type + ".gguf");
  fs::remove(gguf);
  auto r =
      run_command(command_line(TANG_EXPORT_GGUF, {"--out", gguf.string(), "--type", type}), dir);
  if (r.status != 0) throw std::runtime_error("export_gguf: " + r.err);
  nlohmann::json input = nlohmann::json::array();
  for (const Opening& o : cases)
    input.push_back({{"text", o.text}, {"ids", o.ids}, {"poem", o.poem}});
  std::ofstream(dir / "openings.json") << input.dump();
  r = run_command(
      command_line("node", {kScript.string(), gguf.string(), (dir / "openings.json").string(),
                            (dir / "logits.bin").string(), std::to_string(kSteps), cache}),
      dir);
  if (r.status != 0) throw std::runtime_error("evaluate.mjs: " + r.out + r.err);
  LlamaRun run;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    run.lines.push_back(nlohmann::json::parse(line));
  const std::string bytes = tang_tests::read_file(dir / "logits.bin");
  run.logits.resize(bytes.size() / sizeof(float));
  std::memcpy(run.logits.data(), bytes.data(), run.logits.size() * sizeof(float));
  run.row = run.logits.size() / (cases.size() * kSteps);
  if (run.lines.size() != cases.size() || run.logits.size() != cases.size() * kSteps * run.row) {
    throw std::runtime_error("evaluate.mjs gave " + std::to_string(run.lines.size()) +
                             " lines and " + std::to_string(run.logits.size()) + " logits");
  }
  return run;
}

std::vector<double> softmax(const float* logits, std::size_t n) {
  const double top = *std::max_element(logits, logits + n);
  std::vector<double> p(n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += p[i] = std::exp(static_cast<double>(logits[i]) - top);
  for (double& x : p) x /= sum;
  return p;
}

// How llama.cpp's run differs from our forward over the same contexts.
struct Agreement {
  double logit = 0;               // largest |logit difference|
  double probability = 0;         // largest |probability difference|
  double byte_logit = -INFINITY;  // largest logit of a byte piece
  std::size_t same_text = 0;      // openings whose greedy characters are ours
  std::string first_text;         // llama.cpp's greedy text after the first opening
};

// llama.cpp's GELU, written from its description: the tanh approximation
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), looked up in a table indexed by x as
// an fp16 and holding fp16 values; x itself below -10 gives 0, above 10 gives x.
void llama_cpp_gelu(float* out, const float* in, std::size_t n) {
  const auto half = [](float x) {
    return tang::gguf::fp16_value(tang::gguf::fp16_bits(x));
  };  // to fp16
  for (std::size_t i = 0; i < n; ++i) {
    const float x = half(in[i]);
    const float tanh_form =
        0.5f * x * (1.0f + std::tanh(0.79788456080286536f * x * (1.0f + 0.044715f * x * x)));
    out[i] = in[i] <= -10.0f ? 0.0f : in[i] >= 10.0f ? in[i] : half(tanh_form);
  }
}

tang::Kernels with_llama_cpp_gelu() {
  tang::Kernels kernels = tang::kPlainKernels;
  kernels.gelu = llama_cpp_gelu;
  return kernels;
}

Agreement compare(const tang::GPT& model, const std::vector<Opening>& cases, const LlamaRun& run,
                  const tang::Kernels& kernels = tang::kPlainKernels) {
  const std::size_t V = model.config().vocab_size;
  tang::Activations acts(model.config());
  Agreement a;
  for (std::size_t o = 0; o < cases.size(); ++o) {
    const std::vector<tang::TokenId> greedy = run.lines[o]["greedy"];
    std::vector<tang::TokenId> context = cases[o].ids;
    bool same = true;
    for (std::size_t step = 0; step < kSteps; ++step) {
      const float* theirs = &run.logits[(o * kSteps + step) * run.row];
      const auto ours = tang::forward(model.config(), model.weights(), context, 1, context.size(),
                                      acts, kernels, tang::LogitsFor::kLastPosition);  // (1, V)
      const std::vector<double> p_ours = softmax(&ours(0, 0), V);
      const std::vector<double> p_theirs = softmax(theirs, run.row);  // what it samples from
      a.byte_logit = std::max(a.byte_logit,
                              static_cast<double>(*std::max_element(theirs + V, theirs + run.row)));
      for (std::size_t v = 0; v < V; ++v) {
        a.logit = std::max(a.logit, std::fabs(static_cast<double>(ours(0, v)) - theirs[v]));
        a.probability = std::max(a.probability, std::fabs(p_ours[v] - p_theirs[v]));
      }
      const auto best = std::max_element(p_ours.begin(), p_ours.end()) - p_ours.begin();
      same = same && best == greedy[step];
      context.push_back(greedy[step]);  // both continue with llama.cpp's choice
    }
    a.same_text += same ? 1 : 0;
  }
  a.first_text = run.lines[0]["text"];
  return a;
}

class LlamaCpp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCheckpoint)) GTEST_SKIP() << "data/tang_gpt.safetensors missing";
    if (run_command("command -v node", fs::temp_directory_path()).status != 0) {
      GTEST_SKIP() << "Node is not installed (scripts/install_deps.sh --client)";
    }
    if (!fs::exists(kPackage / "node-llama-cpp" / "package.json") ||
        !fs::exists(kPackage / "@node-llama-cpp" / "linux-x64" / "package.json")) {
      GTEST_SKIP() << "node-llama-cpp is not installed (scripts/install_deps.sh --client)";
    }
  }
  static void TearDownTestSuite() { fs::remove_all(scratch_dir()); }
  static const tang::GPT& model() {
    static const tang::GPT m = tang::load_checkpoint(kCheckpoint);
    return m;
  }
};

TEST_F(LlamaCpp, F32AgreesWithOurForward) {
  const auto cases = openings(model());
  ASSERT_EQ(cases.size(), kOpenings);
  const LlamaRun run = run_llama(cases, "f32");
  // llama.cpp's tokenizer on our text: the SentencePiece vocabulary of single characters
  for (std::size_t o = 0; o < cases.size(); ++o) {
    EXPECT_EQ(run.lines[o]["tokenized"].get<std::vector<tang::TokenId>>(), cases[o].ids)
        << cases[o].text;
    EXPECT_EQ(run.lines[o]["tokenized_poem"].get<std::vector<tang::TokenId>>(),
              model().tokenizer().encode(cases[o].poem))
        << cases[o].poem;
  }
  const Agreement a = compare(model(), cases, run);
  std::printf(
      "llama.cpp f32 against our forward, %zu openings x %zu steps x %zu characters:\n"
      "  largest difference: %.2e in a probability, %.2e in a logit\n"
      "  greedy text the same after %zu of %zu openings; the first: %s\n"
      "  largest logit of a byte piece: %.2f\n",
      cases.size(), kSteps, model().config().vocab_size, a.probability, a.logit, a.same_text,
      cases.size(), tang::one_line(a.first_text).c_str(), a.byte_logit);
  // the same forward with llama.cpp's GELU in place of ours
  const Agreement gelu = compare(model(), cases, run, with_llama_cpp_gelu());
  // and llama.cpp with a float32 cache
  const Agreement both =
      compare(model(), cases, run_llama(cases, "f32", "f32"), with_llama_cpp_gelu());
  std::printf(
      "  with llama.cpp's GELU in our forward: %.2e in a probability, %.2e in a logit\n"
      "  and a float32 KV cache in llama.cpp:   %.2e in a probability, %.2e in a logit\n",
      gelu.probability, gelu.logit, both.probability, both.logit);
  EXPECT_LE(a.probability, kProbabilityBound);
  EXPECT_LE(a.logit, kLogitBound);
  EXPECT_EQ(a.same_text, cases.size());
  EXPECT_LT(a.byte_logit, -90);  // kept out of the text
}

// Q8_0 is not our model any more: each weight moves by up to half a step (d/2), and
// llama.cpp also rounds each matrix's input to 8 bits for the dot products. Printed for
// the lesson page, checked only loosely: the same first character after every opening.
TEST_F(LlamaCpp, Q8_0StaysClose) {
  const auto cases = openings(model());
  const LlamaRun run = run_llama(cases, "q8_0");
  const Agreement a = compare(model(), cases, run);
  std::printf(
      "llama.cpp q8_0 against our float32 forward, %zu openings x %zu steps:\n"
      "  largest difference: %.2e in a probability, %.2e in a logit\n"
      "  greedy text the same after %zu of %zu openings; the first: %s\n"
      "  largest logit of a byte piece: %.2f\n",
      cases.size(), kSteps, a.probability, a.logit, a.same_text, cases.size(),
      tang::one_line(a.first_text).c_str(), a.byte_logit);
  EXPECT_LE(a.probability, 0.1);
  EXPECT_LT(a.byte_logit, -90);
}

}  // namespace

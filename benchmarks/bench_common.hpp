// bench_common.hpp: what every benchmark program shares.
//
//   course_model()       the shipped model (data/tang_gpt.safetensors); when that file is
//                        missing or unreadable, a random model of the same shape, and the
//                        programs say so on stderr and in the JSON context
//   random_model(...)    weights N(0, 0.02), biases 0, LayerNorm scales 1 (as the trainer:
//                        initialise_parameters, common/parameters.hpp)
//   GemvFloor            one cblas_sgemv per weight matrix (6.8 MB for our model): what
//                        any decoding step has to read, so no step can be faster. Every
//                        program registers it as "floor/gemv_all_weights", so each
//                        lesson's steps are compared with a floor from the same run.
//   StepClock            counters for a benchmark: steps per second (characters/s or
//                        tokens/s) and x_floor, the time of one step over the floor
//   Path, path_name, kernels_for
//                        "plain": the lesson path, the code the lessons run (common/ops.hpp,
//                        compiled in the lesson libraries with the lessons' fixed flags);
//                        "tuned": the same work under the hood (common/fast/, tang_fast).
//                        Rows of the two are named <lesson>/<what>/plain|tuned/... so that
//                        compare.py can put them side by side.
//   bench_main(...)      the main() of every program: fast OpenBLAS kernels, threads,
//                        context, run
//
// Benchmarks are not tests: nothing here checks results, it only times them.
// (benchmarks/peers/torch_peer.py checks our logits against PyTorch.)
#pragma once

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint.hpp"
#include "fast/blas_cores.hpp"
#include "fast/fast.hpp"
#include "gpt.hpp"
#include "parameters.hpp"
#include "rng.hpp"
#include "spread.hpp"
#include "tuned_product.hpp"
#include "utf8.hpp"

namespace tang::bench {

// --- texts the benchmarks read ------------------------------------------------

inline constexpr std::string_view kPrompt = "白日依山尽，黄河入海";  // lesson 01's prompts
inline constexpr std::string_view kPrompt2 = "床前明月光，疑是地上";
inline constexpr std::string_view kPrompt3 = "春风";
inline constexpr std::string_view kOpening = "床前明月光，";  // lesson 04's first opening
inline constexpr std::string_view kHeads = "春眠不觉";        // lesson 05's acrostic
// lesson 07's famous 七绝 that keeps every rule (王昌龄, 出塞)
inline constexpr std::string_view kChuSai =
    "秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。";

// --- the model ------------------------------------------------------------------

inline constexpr std::size_t kCourseVocabSize = 7129;  // data/tang_poems.txt's characters

// A vocabulary for random models: newline, the punctuation, every character the
// benchmarks' texts use, then CJK characters from U+4E00 until there are `size`.
inline Tokenizer synthetic_tokenizer(std::size_t size) {
  std::vector<std::string> characters = {"\n", "，", "。"};
  std::set<std::string> seen(characters.begin(), characters.end());
  auto add = [&](const std::string& c) {
    if (characters.size() < size && seen.insert(c).second) characters.push_back(c);
  };
  for (std::string_view text : {kPrompt, kPrompt2, kPrompt3, kOpening, kHeads, kChuSai}) {
    for (const std::string& c : utf8_split(text)) add(c);
  }
  for (char32_t cp = 0x4E00; characters.size() < size; ++cp) add(utf8_encode(cp));
  return Tokenizer(std::move(characters));
}

// Weights as lesson 00 initialises them: matrices N(0, 0.02), LayerNorm scales 1, rest 0.
inline GPT random_model(const GPTConfig& config, Tokenizer tokenizer, std::uint64_t seed = 1) {
  return initialised_model(config, std::move(tokenizer), seed);
}

struct LoadedModel {
  GPT model;
  std::string source;  // the checkpoint path, or why a random model stands in
  bool trained;
};

inline LoadedModel load_course_model() {
  const std::string path = default_checkpoint_path();
  std::string why;
  if (std::filesystem::exists(path)) {
    try {
      return {load_checkpoint(path), path, true};
    } catch (const std::exception& e) {
      why = e.what();
    }
  } else {
    why = path + " not found";
  }
  std::fprintf(stderr, "note: %s; benchmarking a random model of the same shape instead\n",
               why.c_str());
  GPTConfig config;  // 4 layers, 4 heads, 128 dims, context 128
  config.vocab_size = kCourseVocabSize;
  return {random_model(config, synthetic_tokenizer(kCourseVocabSize)),
          "random weights (" + why + ")", false};
}

// Loaded once per program, on first use.
inline const LoadedModel& course() {
  static const LoadedModel loaded = load_course_model();
  return loaded;
}
inline const GPT& course_model() {
  return course().model;
}

// A random model like the course's but with another context length (lesson 06's
// exercise 3: block size 512 "or just random init"). Same vocabulary.
inline const GPT& wide_context_model(std::size_t block_size) {
  static std::optional<GPT> model;
  if (!model || model->config().block_size != block_size) {
    GPTConfig config = course_model().config();
    config.block_size = block_size;
    model.emplace(random_model(config, course_model().tokenizer(), 7));
  }
  return *model;
}

inline std::vector<TokenId> ids(const GPT& model, std::string_view text) {
  return model.tokenizer().encode(text);
}

// "\n" + text: how a poem starts in the corpus.
inline std::string after_newline(std::string_view text) {
  std::string line = "\n";
  line += text;
  return line;
}

// The model's logits (V) for the character after "\n" + text, by the lesson path:
// what the sampling benchmarks work on, so they see the real shape of the distribution.
inline std::vector<float> logits_after(const GPT& model, std::string_view text) {
  const std::vector<TokenId> context = ids(model, after_newline(text));
  Activations acts(model.config());
  const auto logits = forward(model, context, acts, LogitsFor::kLastPosition);
  return std::vector<float>(logits.begin(), logits.end());
}

// --- plain and tuned ------------------------------------------------------------

// Which code a row runs: the lessons' plain loops, or the tuned operations.
enum class Path { kPlain, kTuned };
inline constexpr Path kBothPaths[] = {Path::kPlain, Path::kTuned};
inline const char* path_name(Path path) {
  return path == Path::kPlain ? "plain" : "tuned";
}
// The tuned kernels: fast::kernels() with the product this machine's profile finds
// fastest for each width and number of rows (tuned_product.hpp).
inline const Kernels& kernels_for(Path path) {
  static const Kernels tuned = [] {
    Kernels k = fast::kernels();
    k.matmul = tuned_matmul_forward;
    return k;
  }();
  return path == Path::kPlain ? kPlainKernels : tuned;
}
// Activations for a window of text (no cache) on a path. fast::attention_forward writes the
// attention weights of every position (its scratch space) and does not accept the null
// pointer forward() passes when they are not kept, so the tuned path keeps everything
// (Keep::kEverything); the plain path keeps what the lessons keep.
inline Activations activations_for(const GPTConfig& config, Path path) {
  return Activations(config, 1, path == Path::kPlain ? Keep::kLastLogits : Keep::kEverything);
}
// "lesson06/decode_step" + kTuned -> "lesson06/decode_step/tuned"
inline std::string row_name(std::string_view what, Path path) {
  std::string name(what);
  name += "/";
  name += path_name(path);
  return name;
}

// RegisterBenchmark with a std::string name (Debian's Google Benchmark takes a const char*,
// which it copies).
template <class... Args>
benchmark::internal::Benchmark* register_row(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...);
}

// --- the floor ------------------------------------------------------------------

// The matrix-vector products of one decoding step, and nothing else: per layer
// qkv (3C x C), attention projection (C x C), MLP in (4C x C) and out (C x 4C),
// then the tied output layer (V x C). Every weight is read once, as in a step.
class GemvFloor {
 public:
  explicit GemvFloor(const GPT& model) {
    const std::size_t C = model.config().n_embd;
    for (const LayerWeights& lw : model.weights().layers) {
      add(lw.qkv_w, 3 * C, C);
      add(lw.attn_proj_w, C, C);
      add(lw.fc_w, 4 * C, C);
      add(lw.fc_proj_w, C, 4 * C);
    }
    add(model.weights().wte, model.config().vocab_size, C);
    std::size_t longest_in = 0, longest_out = 0;
    for (const Matrix& m : matrices_) {
      longest_in = std::max(longest_in, m.cols);
      longest_out = std::max(longest_out, m.rows);
    }
    in_.assign(longest_in, 0.01f);
    out_.assign(longest_out, 0.0f);
  }

  // One pass over all weights, on ONE thread whatever the program's setting.
  void run() {
    const int threads = openblas_get_num_threads();
    if (threads != 1) openblas_set_num_threads(1);
    for (const Matrix& m : matrices_) {
      cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(m.rows), static_cast<int>(m.cols),
                  1.0f, m.data, static_cast<int>(m.cols), in_.data(), 1, 0.0f, out_.data(), 1);
    }
    if (threads != 1) openblas_set_num_threads(threads);
    benchmark::DoNotOptimize(out_.data());
    benchmark::ClobberMemory();
  }

  std::size_t bytes() const {
    std::size_t floats = 0;
    for (const Matrix& m : matrices_) floats += m.rows * m.cols;
    return floats * sizeof(float);
  }

 private:
  struct Matrix {
    const float* data;
    std::size_t rows, cols;
  };
  void add(const float* data, std::size_t rows, std::size_t cols) {
    matrices_.push_back({data, rows, cols});
  }
  std::vector<Matrix> matrices_;
  std::vector<float> in_, out_;
};

namespace detail {
inline double g_floor_seconds = 0.0;  // set by the floor benchmark; calibrated if it did not run
}

// Seconds of one floor pass over the course model: the last result of the floor
// benchmark of this run, or (when a filter left it out) a quick median of its own.
inline double floor_seconds() {
  if (detail::g_floor_seconds > 0.0) return detail::g_floor_seconds;
  GemvFloor floor(course_model());
  for (int i = 0; i < 50; ++i) floor.run();
  std::vector<double> batches;
  for (int b = 0; b < 9; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) floor.run();
    batches.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 100);
  }
  detail::g_floor_seconds = median(batches);
  return detail::g_floor_seconds;
}

// Wall time of a benchmark loop, turned into counters once it is done:
//   steps        steps per iteration (a step: one character, one token, one call)
//   <rate_name>  steps per second
//   step_us      microseconds per step
//   x_floor      step time / floor time (see floor_seconds)
// Usage:  StepClock clock(state);  for (auto _ : state) {...}  clock.finish(state, 32,
// "chars_per_s");
class StepClock {
 public:
  explicit StepClock(benchmark::State&) : start_(std::chrono::steady_clock::now()) {}
  void finish(benchmark::State& state, double steps_per_iteration, const char* rate_name,
              bool compare_with_floor = true) const {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double steps = steps_per_iteration * static_cast<double>(state.iterations());
    if (steps <= 0.0 || seconds <= 0.0) return;
    state.counters["steps"] = steps_per_iteration;  // benchmarks/compare.py divides the time by it
    state.counters[rate_name] = steps / seconds;
    state.counters["step_us"] = 1e6 * seconds / steps;
    if (compare_with_floor) state.counters["x_floor"] = seconds / steps / floor_seconds();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// "floor/gemv_all_weights": one pass of GemvFloor over the course model.
inline void BM_floor(benchmark::State& state) {
  GemvFloor floor(course_model());
  floor.run();  // warm the caches as a step would find them
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) floor.run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double per_pass = seconds / static_cast<double>(state.iterations());
  detail::g_floor_seconds = per_pass;
  state.counters["steps"] = 1;
  state.counters["steps_per_s"] = 1.0 / per_pass;
  state.counters["step_us"] = 1e6 * per_pass;
  state.counters["x_floor"] = 1.0;
  state.counters["weight_MB"] = static_cast<double>(floor.bytes()) / 1e6;
  state.counters["GB_per_s"] = static_cast<double>(floor.bytes()) / per_pass / 1e9;
}

// --- main -----------------------------------------------------------------------

// Every program's main(): `default_threads` OpenBLAS/OpenMP threads unless the
// command line says --threads=N (besides Google Benchmark's own --benchmark_* flags).
// The floor is registered first, so it runs first and the x_floor counters of the
// lesson's benchmarks (registered by `register_lesson`) divide by this run's floor.
inline int bench_main(int argc, char** argv, int default_threads, void (*register_lesson)()) {
  ensure_fast_blas(argv);  // first: may restart the program with better BLAS kernels
  benchmark::Initialize(&argc, argv);
  int threads = default_threads;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--threads=")) {
      threads = std::atoi(argv[i] + 10);
    } else {
      std::fprintf(stderr, "error: unknown argument %s (use --threads=N or --benchmark_*)\n",
                   argv[i]);
      return 2;
    }
  }
  if (threads < 1) {
    std::fprintf(stderr, "error: --threads must be at least 1\n");
    return 2;
  }
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);

  const LoadedModel& loaded = course();
  benchmark::AddCustomContext("model", loaded.model.config().describe());
  benchmark::AddCustomContext("checkpoint", loaded.source);
  benchmark::AddCustomContext("trained", loaded.trained ? "yes" : "no");
  benchmark::AddCustomContext("blas_core", blas_core_name());
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("floor_note", "floor = one cblas_sgemv per weight matrix, 1 thread");

  benchmark::RegisterBenchmark("floor/gemv_all_weights", BM_floor)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  register_lesson();
  // which product the tuned path runs (tuned_product.hpp): read from the machine profile,
  // or measured into it (about 13 seconds here) when it lacks them, before anything is timed
  product_choice();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::cout.flush();  // the results must have reached stdout (closed, or a full disk: an error)
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    std::fprintf(stderr,
                 "error: could not write the results to stdout (closed, or the disk is full)\n");
    return 1;
  }
  return 0;
}

}  // namespace tang::bench

// bench_06_kvcache: what lesson 06 adds, the KV cache, on the lesson path and tuned.
//
//   lesson06/write_chars/plain/N/cache:C   lesson 06's write_chars() itself: N characters
//                                      after a newline, T 0.8 and top-k 20, with (C = 1,
//                                      CachedPredictor with the plain kernels) or without
//                                      (C = 0, Recompute) the cache, on the course model.
//                                      Without it, character t re-reads all t before it:
//                                      the time grows with N^2; with it, with N.
//   lesson06/write_chars/tuned/N/cache:C   the same loop with the tuned matrix products
//                                      (bench_writing.hpp) and fast::sample_next
//   lesson06/block512/plain|tuned/N/cache:C   the same on a random model with context 512
//                                      (exercise 06b), N up to 500: the chart's curves
//   lesson06/decode_step/plain|tuned/P one cached step at position P (forward_with_cache):
//                                      the attention over P cached positions is all that grows
// One decoding step taken apart (all layers of one step, N = 1 position):
//   lesson06/step_matmul/plain|tuned   the 17 matrix products (4 per layer and the output
//                                      layer): ops::matmul_forward against the tuned path's
//                                      products (tuned_product.hpp: at one row, the fastest
//                                      one-row loop in the machine profile)
//   lesson06/step_attend/P             the cached attention at position P in every layer
//                                      (exercise 06a's attention_with_cache calls ops::attend;
//                                      both paths run it)
//   lesson06/step_layernorm/plain|tuned  the 9 LayerNorms of a step
//   lesson06/step_gelu/plain|tuned     the 4 GELUs of a step (4C values each)
// The softmax, top-k and the draw of a step: bench_01_probabilities and bench_03_topk_topp.
// Counters per character or step: chars_per_s, step_us, x_floor. Every plain row that the
// cost model covers (write_chars, block512, decode_step, step_matmul, step_attend) also has
// predicted_chars_per_s or predicted_steps_per_s: lesson 06's prediction
// (06_kvcache/step_cost.hpp) from this machine's profile (build/release/machine_profile.tsv,
// measured first when it is missing). The tuned rows have none: the profile times the
// lesson's loops, not OpenBLAS.
#include <string>
#include <vector>

#include "06_kvcache/cache_timing.hpp"
#include "06_kvcache/exercise/attention_with_cache.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"
#include "bench_writing.hpp"
#include "ops.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags
constexpr std::uint64_t kSeed = 42;

// One cached step of the lesson's forward at `position`, predicted: `part` of its cost.
double predicted_per_s(std::size_t position, double (*part)(const StepCost&)) {
  const StepCost cost = predict_plain_step(bench::course_model().config(), cached_step(position),
                                           bench::plain_loop_profile());
  return 1e3 / part(cost);
}

void BM_write_chars(benchmark::State& state, bench::Path path, std::size_t block_size) {
  const GPT& model =
      block_size == 0 ? bench::course_model() : bench::wide_context_model(block_size);
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool use_cache = state.range(1) != 0;
  if (path == bench::Path::kTuned) {
    bench::time_writing(state, model, path, use_cache, bench::sampler_for(path, kSettings), n);
    return;
  }
  bench::StepClock clock(state);
  for (auto _ : state) {
    const TimedText text = write_chars(model, use_cache, n, kSettings, kSeed);  // the lesson's
    benchmark::DoNotOptimize(text.ids.data());
  }
  clock.finish(state, static_cast<double>(n), "chars_per_s");
  const double predicted_ms =
      predict_writing_ms(model.config(), bench::plain_loop_profile(), n, use_cache);
  state.counters["predicted_chars_per_s"] = 1e3 * static_cast<double>(n) / predicted_ms;
}

void BM_decode_step(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const auto position = static_cast<std::size_t>(state.range(0));
  KVCache cache(model.config());
  Activations acts(model.config());
  std::vector<TokenId> text(position + 1);
  const std::vector<TokenId> prompt = bench::ids(model, bench::kPrompt);
  for (std::size_t t = 0; t < text.size(); ++t) text[t] = prompt[t % prompt.size()];
  if (position > 0) {
    bench::forward_with_cache_on(path, model, std::span(text).first(position), cache, acts);
  }
  bench::StepClock clock(state);
  for (auto _ : state) {
    cache.length = position;  // forget the step before: the cache holds positions 0 .. P-1
    const auto logits = bench::forward_with_cache_on(
        path, model, std::span(text).subspan(position, 1), cache, acts);
    benchmark::DoNotOptimize(logits.data());
  }
  clock.finish(state, 1, "steps_per_s");
  if (path == bench::Path::kPlain) {  // the forward alone: no draw
    state.counters["predicted_steps_per_s"] =
        predicted_per_s(position, [](const StepCost& c) { return c.total_ms() - c.sampling_ms; });
  }
}

// Inputs for the pieces of one step: a vector of 0.01s long enough for any of them.
struct StepBuffers {
  explicit StepBuffers(const GPTConfig& c)
      : in(c.vocab_size + 4 * c.n_embd, 0.01f), out(c.vocab_size + 4 * c.n_embd) {
    Rng rng(9);
    for (float& x : in) x = rng.normal();
  }
  std::vector<float> in, out;
};

void BM_step_matmul(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const std::size_t C = model.config().n_embd, V = model.config().vocab_size;
  const auto matmul = bench::kernels_for(path).matmul;
  StepBuffers b(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    for (const LayerWeights& lw : model.weights().layers) {
      matmul(b.out.data(), b.in.data(), lw.qkv_w, lw.qkv_b, 1, C, 3 * C);
      matmul(b.out.data(), b.in.data(), lw.attn_proj_w, lw.attn_proj_b, 1, C, C);
      matmul(b.out.data(), b.in.data(), lw.fc_w, lw.fc_b, 1, C, 4 * C);
      matmul(b.out.data(), b.in.data(), lw.fc_proj_w, lw.fc_proj_b, 1, 4 * C, C);
    }
    matmul(b.out.data(), b.in.data(), model.weights().wte, nullptr, 1, C, V);
    benchmark::DoNotOptimize(b.out.data());
    benchmark::ClobberMemory();
  }
  clock.finish(state, 1, "steps_per_s");
  if (path == bench::Path::kPlain) {
    state.counters["predicted_steps_per_s"] =
        predicted_per_s(0, [](const StepCost& c) { return c.matrices_ms(); });
  }
}

void BM_step_attend(benchmark::State& state) {
  const GPT& model = bench::course_model();
  const GPTConfig& c = model.config();
  const auto position = static_cast<std::size_t>(state.range(0));
  std::vector<float> keys(c.block_size * c.n_embd), values(keys.size()), qkv(3 * c.n_embd),
      out(c.n_embd);
  Rng rng(11);
  for (float& x : keys) x = rng.normal();
  for (float& x : values) x = rng.normal();
  for (float& x : qkv) x = rng.normal();
  bench::StepClock clock(state);
  for (auto _ : state) {
    for (std::size_t l = 0; l < c.n_layer; ++l) {  // what each layer of a step runs
      attention_with_cache(out.data(), qkv.data(), keys.data(), values.data(), position, 1,
                           c.n_embd, c.n_head);
    }
    benchmark::DoNotOptimize(out.data());
  }
  clock.finish(state, 1, "steps_per_s");
  state.counters["predicted_steps_per_s"] =
      predicted_per_s(position, [](const StepCost& c) { return c.attention_ms; });
}

void BM_step_layernorm(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const std::size_t C = model.config().n_embd;
  const auto layernorm = bench::kernels_for(path).layernorm;
  StepBuffers b(model.config());
  float mean, rstd;
  bench::StepClock clock(state);
  for (auto _ : state) {
    for (const LayerWeights& lw : model.weights().layers) {
      layernorm(b.out.data(), &mean, &rstd, b.in.data(), lw.ln1_w, lw.ln1_b, 1, C);
      layernorm(b.out.data(), &mean, &rstd, b.in.data(), lw.ln2_w, lw.ln2_b, 1, C);
    }
    layernorm(b.out.data(), &mean, &rstd, b.in.data(), model.weights().lnf_w, model.weights().lnf_b,
              1, C);
    benchmark::DoNotOptimize(b.out.data());
    benchmark::ClobberMemory();
  }
  clock.finish(state, 1, "steps_per_s");
}

void BM_step_gelu(benchmark::State& state, bench::Path path) {
  const GPT& model = bench::course_model();
  const std::size_t C = model.config().n_embd;
  const auto gelu = bench::kernels_for(path).gelu;
  StepBuffers b(model.config());
  bench::StepClock clock(state);
  for (auto _ : state) {
    for (std::size_t l = 0; l < model.config().n_layer; ++l) gelu(b.out.data(), b.in.data(), 4 * C);
    benchmark::DoNotOptimize(b.out.data());
    benchmark::ClobberMemory();
  }
  clock.finish(state, 1, "steps_per_s");
}

void register_write_chars(const char* what, std::size_t block_size,
                          std::initializer_list<std::int64_t> lengths) {
  for (std::int64_t n : lengths) {
    for (std::int64_t cache : {0, 1}) {
      for (bench::Path path : bench::kBothPaths) {
        bench::register_row(bench::row_name(what, path), BM_write_chars, path, block_size)
            ->ArgNames({"", "cache"})
            ->Args({n, cache})
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

void register_lesson() {
  const auto us = benchmark::kMicrosecond;
  register_write_chars("lesson06/write_chars", 0, {32, 64, 120});
  register_write_chars("lesson06/block512", 512, {32, 64, 120, 250, 500});
  for (int position : {0, 64, 127}) {
    for (bench::Path path : bench::kBothPaths) {
      bench::register_row(bench::row_name("lesson06/decode_step", path), BM_decode_step, path)
          ->Arg(position)
          ->UseRealTime()
          ->Unit(us);
    }
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson06/step_matmul", path), BM_step_matmul, path)
        ->UseRealTime()
        ->Unit(us);
  }
  benchmark::RegisterBenchmark("lesson06/step_attend", BM_step_attend)
      ->Arg(0)
      ->Arg(64)
      ->Arg(127)
      ->UseRealTime()
      ->Unit(us);
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson06/step_layernorm", path), BM_step_layernorm, path)
        ->UseRealTime()
        ->Unit(us);
  }
  for (bench::Path path : bench::kBothPaths) {
    bench::register_row(bench::row_name("lesson06/step_gelu", path), BM_step_gelu, path)
        ->UseRealTime()
        ->Unit(us);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

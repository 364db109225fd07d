// bench_08_many_poems: what lesson 08 adds, many poems at once and weights below fp32.
// The plain rows run the lesson path (lesson 06's cached forward over B caches and
// StoredMatrix, lesson 03's sample_next); the tuned rows the same forward with the model's
// fp32 weights multiplied under the hood (the products the machine profile found fastest,
// tuned_product.hpp), in fp32 only.
//
//   lesson08/batched/plain/FORMAT/B:N  write_batched of 32 poems (seeds 1 .. 32, no opening,
//                                      at most 64 characters each) with N = 1, 2, 4, 8, 16, 32
//                                      poems in flight, the weights in FORMAT = fp32, bf16,
//                                      int8: one cached forward per step for all N, one
//                                      sample_next per poem. Per character: chars_per_s,
//                                      step_us, x_floor; batching never changes the text, so
//                                      every N writes the same characters (each format its own)
//   lesson08/decode/plain/FORMAT       cached decoding at B = 1 (write_batched of 8 poems,
//                                      seeds 1 .. 8, batch 1) with the weights stored as
//                                      FORMAT = fp32, bf16, int8: section 8's speed column
//   lesson08/step_matmul/plain/FORMAT/N:n   the 17 matrix products of one step (StoredWeights:
//                                      qkv, attention projection, MLP in and out per layer, then
//                                      the tied output layer), with biases, on n = 1, 16 or 32
//                                      random input rows: what the format buys on the products
//                                      alone. Counted per row (rows_per_s, step_us, x_floor per
//                                      row), with predicted_rows_per_s
//   lesson08/step_matmul/tuned|exact/fp32/N:n   the same 17 products on the model's fp32
//                                      weights through the tuned path's products (tuned:
//                                      tuned_product.hpp, other bits) and fast::exact_matmul
//                                      (exact: the plain loop's own sums, six rows a weight read)
//   lesson08/step/plain/FORMAT/B:N     one batched step (the cached forward and one draw a
//                                      text) of N = 1 .. 32 texts whose caches hold 64
//                                      positions, on our model: part 1's step without the
//                                      batch writer around it
//   lesson08/big/plain/FORMAT/B:N      one batched step (the cached forward and one draw a text)
//                                      of N = 1 .. 32 texts whose caches hold 64 positions, on
//                                      a random model of GPT-2 small's shape (12 layers, 12
//                                      heads, 768 dims: 362 MB of fp32 weights, which do not
//                                      fit in the cache): section 8, part 4
//   every row that writes (batched, decode, big) also has predicted_chars_per_s: the cost
//   model's prediction (06_kvcache/step_cost.hpp) from this machine's profile
//   (build/release/machine_profile.tsv, measured first when it is missing)
//   lesson08/big/tuned/fp32/B:N, lesson08/step/tuned/fp32/B:N   the same step on the tuned
//                                      path: the model's fp32 weights through the products
//                                      the profile found fastest (tuned_product.hpp), with
//                                      each part's prediction (predicted_products_us, ...)
//   lesson08/few_rows_alignment/tuned/aligned|16_bytes_off/N:n   few_rows_matmul over 12
//                                      matrices of 3072 x 768 (113 MB) for n = 4, 16 rows, the
//                                      weights and inputs on a 64-byte boundary or 16 bytes
//                                      past one (what common/tensor.hpp's allocator prevents)
//   lesson08/shared_opening/prefill_each/B:16   16 prefills (lesson 06's forward_with_cache)
//                                      of the opening "\n白日依山尽，黄河入海流。欲穷千里目，"
//                                      (19 positions), one into each poem's cache
//   lesson08/shared_opening/prefill_once/B:16   one prefill of it, then its cache copied into
//                                      the 16 poems' caches (llama.cpp's seq_cp). Both write
//                                      into 16 caches allocated once, outside the timing;
//                                      counted per poem (poems_per_s)
// The poems are written at T 0.8, top-k 20 (writing_settings with default flags).
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "08_many_poems/big_model.hpp"
#include "08_many_poems/format_loops.hpp"
#include "08_many_poems/stored_weights.hpp"
#include "bench_common.hpp"
#include "bench_writing.hpp"
#include "fast/fast.hpp"
#include "tensor.hpp"

namespace {

using namespace tang;

const SamplingSettings kSettings{0.8f, 20, 1.0f};  // writing_settings() with default flags
constexpr std::size_t kMaxChars = 64;              // new characters a poem, at most
constexpr std::size_t kBatchPoems = 32;            // section 8, part 1
constexpr std::size_t kDecodePoems = 8;            // section 8, part 3 (speed at B = 1)
constexpr std::size_t kSharedPoems = 16;           // the lesson's default --batch
const char* const kSharedOpening = "白日依山尽，黄河入海流。欲穷千里目，";  // section 8, part 2

constexpr WeightFormat kFormats[] = {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8};

// The course model's weights in each format, converted once, on first use (the fp32 ones
// are the model's own floats).
const StoredWeights& stored(WeightFormat format) {
  static std::optional<StoredWeights> weights[std::size(kFormats)];
  std::optional<StoredWeights>& w = weights[static_cast<std::size_t>(format)];
  if (!w) w.emplace(bench::course_model(), format);
  return *w;
}

// The tuned products of a decoding step (at each width and batch size the fastest of
// the four in tuned_product.hpp), and fast::exact_matmul (the plain loop's own sums,
// six rows a weight read).
constexpr const char* kTunedFp32Loop = "fp32 tuned";
constexpr const char* kTunedFp32MemoryLoop = "fp32 tuned, from memory";
constexpr const char* kExactFp32Loop = "fp32 exact";

// This machine's profile, as the lesson reads it (and the exact loop, and the rates of
// the tuned path's chosen products as kTunedFp32Loop, in the cache, and as
// kTunedFp32MemoryLoop, from memory).
const MachineProfile& profile() {
  static const MachineProfile p = [] {
    std::vector<LoopToMeasure> loops = lesson_loops();
    loops.push_back(fp32_product_loop(kExactFp32Loop, fast::exact_matmul));
    MachineProfile read =
        load_or_measure_profile(default_profile_path(), loops, [](const std::string&) {});
    bench::add_chosen_loop(read, kTunedFp32Loop, false);
    bench::add_chosen_loop(read, kTunedFp32MemoryLoop, true);
    return read;
  }();
  return p;
}

// The profile with the tuned path's own per-sequence rates (fast::attend,
// fast::gelu_forward and the tuned draw, measured here and not kept in the file), for
// the tuned step's predictions.
const MachineProfile& tuned_profile() {
  static const MachineProfile p = [] {
    MachineProfile tuned = profile();
    measure_per_sequence(tuned, {fast::attend, fast::gelu_forward, bench::tuned_draw});
    return tuned;
  }();
  return p;
}

// Seeds 1 .. n, as section 8 with the default --seed 1.
std::vector<std::uint64_t> seeds(std::size_t n) {
  std::vector<std::uint64_t> s(n);
  std::iota(s.begin(), s.end(), std::uint64_t{1});
  return s;
}

// write_batched of `poems` poems after a newline, `batch` in flight, counted per character.
// The same seeds write the same characters every time, so one call before the clock
// starts (which also warms the caches) counts them.
void time_poems(benchmark::State& state, WeightFormat format, std::size_t poems,
                std::size_t batch) {
  const GPT& model = bench::course_model();
  const StoredWeights& weights = stored(format);
  const std::vector<std::uint64_t> s = seeds(poems);
  const BatchedPoems first = write_batched(model, weights, s, "", kSettings, kMaxChars, batch);
  bench::StepClock clock(state);
  for (auto _ : state) {
    const BatchedPoems r = write_batched(model, weights, s, "", kSettings, kMaxChars, batch);
    benchmark::DoNotOptimize(r.poems.data());
  }
  clock.finish(state, static_cast<double>(first.characters), "chars_per_s");
  state.counters["batched_steps"] = static_cast<double>(first.steps);  // cached forward calls
  const double predicted_ms = predict_steps_ms(model.config(), first.work, profile(),
                                               loop_name(format), bytes_per_weight(format));
  state.counters["predicted_chars_per_s"] =
      1e3 * static_cast<double>(first.characters) / predicted_ms;
}

// The model of section 8's part 4, built once (a few seconds), and its weights per format.
const GPT& big_model() {
  static const GPT model = gpt2_small_shaped(bench::course_model().tokenizer(), 1);
  return model;
}

// One batched step (the cached forward of B texts whose caches hold 64 positions, one draw
// each) on the large model, or on ours (`ours`): what a step costs without the batch
// writer's bookkeeping around it.
void BM_step(benchmark::State& state, WeightFormat format, bool ours) {
  constexpr std::size_t kCached = 64;
  const GPT& model = ours ? bench::course_model() : big_model();
  static std::optional<StoredWeights> big_weights[std::size(kFormats)];
  std::optional<StoredWeights>& w = big_weights[static_cast<std::size_t>(format)];
  if (!ours && !w) w.emplace(model, format);
  const auto B = static_cast<std::size_t>(state.range(0));
  BatchedStep step(model, ours ? stored(format) : *w, B, kCached, kSettings);
  bench::StepClock clock(state);
  for (auto _ : state) step.run();
  clock.finish(state, static_cast<double>(B), "chars_per_s", false);
  const StepWork work = batch_step(B, kCached);
  const double predicted_ms =
      predict_step(model.config(), work, profile(), loop_name(format), bytes_per_weight(format))
          .total_ms();
  state.counters["predicted_chars_per_s"] = 1e3 * static_cast<double>(B) / predicted_ms;
}

// The same step on the tuned path: lesson 06's cached forward over the model's own
// fp32 weights, each product the one the profile found fastest, its GELU, attention and
// draws tuned too (bench_writing.hpp's TunedMatrices, TunedKVCache and tuned_draw). The
// prediction, whole and per part (per text: products, attention, GELU with LayerNorm,
// the draw), comes from the rates the products were chosen by (from memory on the
// large model, in the cache on ours) and the tuned pieces' own (tuned_profile).
void BM_step_tuned(benchmark::State& state, bool ours) {
  constexpr std::size_t kCached = 64;
  const GPT& model = ours ? bench::course_model() : big_model();
  const bench::TunedMatrices matrices(model);
  const auto B = static_cast<std::size_t>(state.range(0));
  BatchedStep<bench::TunedMatrices, bench::TunedKVCache> step(model, matrices, B, kCached,
                                                              kSettings, bench::tuned_draw);
  bench::StepClock clock(state);
  for (auto _ : state) step.run();
  clock.finish(state, static_cast<double>(B), "chars_per_s", false);
  const StepCost cost =
      predict_step(model.config(), batch_step(B, kCached), tuned_profile(),
                   matrices.from_memory ? kTunedFp32MemoryLoop : kTunedFp32Loop, 4.0);
  const double texts = static_cast<double>(B);
  state.counters["predicted_chars_per_s"] = 1e3 * texts / cost.total_ms();
  state.counters["predicted_products_us"] = 1e3 * cost.matrices_ms() / texts;
  state.counters["predicted_attention_us"] = 1e3 * cost.attention_ms / texts;
  state.counters["predicted_pointwise_us"] = 1e3 * cost.pointwise_ms / texts;
  state.counters["predicted_draw_us"] = 1e3 * cost.sampling_ms / texts;
}

// fast::few_rows_matmul on 12 matrices of 3072 x 768 (GPT-2 small's MLP, 113 MB: from
// main memory) for N rows, with weights and inputs on a 64-byte boundary, as every
// Tensor's are, or 16 bytes past one, as malloc returns large blocks.
void BM_few_rows_alignment(benchmark::State& state, bool aligned) {
  constexpr std::size_t kMatrices = 12, kRows = 3072, kCols = 768;
  const auto N = static_cast<std::size_t>(state.range(0));
  const std::size_t offset = aligned ? 0 : 4;  // floats
  Tensor<1> weights = Tensor<1>::from_shape({kMatrices * kRows * kCols + offset});
  Tensor<1> in = Tensor<1>::from_shape({N * kCols + offset});
  Rng rng(5);
  for (float& w : weights) w = rng.uniform() - 0.5f;
  for (float& x : in) x = rng.normal();
  std::vector<float> out(N * kRows);
  for (auto _ : state) {
    for (std::size_t m = 0; m < kMatrices; ++m) {
      fast::few_rows_matmul(out.data(), in.data() + offset,
                            weights.data() + offset + m * kRows * kCols, nullptr, N, kCols, kRows);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

void BM_step_on_big(benchmark::State& state, WeightFormat format) {
  BM_step(state, format, false);
}
void BM_step_on_ours(benchmark::State& state, WeightFormat format) {
  BM_step(state, format, true);
}

void BM_batched(benchmark::State& state, WeightFormat format) {
  time_poems(state, format, kBatchPoems, static_cast<std::size_t>(state.range(0)));
}

void BM_decode(benchmark::State& state, WeightFormat format) {
  time_poems(state, format, kDecodePoems, 1);
}

// The 17 products of one step (4 a layer with their biases, then the tied output layer)
// on N random rows, per row, with the cost model's prediction for `loop`; layer(l) gives
// layer l's four matrices.
template <class LayerOf, class Output>
void time_step_products(benchmark::State& state, const LayerOf& layer, const Output& output,
                        const std::string& loop, double bytes_per_weight) {
  const GPT& model = bench::course_model();
  const std::size_t C = model.config().n_embd, V = model.config().vocab_size;
  const auto N = static_cast<std::size_t>(state.range(0));
  std::vector<float> in(N * 4 * C), out(N * V);  // (N, widest input), (N, widest output)
  Rng rng(11);
  for (float& x : in) x = rng.normal();
  bench::StepClock clock(state);
  for (auto _ : state) {
    for (std::size_t l = 0; l < model.config().n_layer; ++l) {
      const auto& matrices = layer(l);
      const LayerWeights& lw = model.weights().layers[l];  // the biases stay fp32
      matrices.qkv.matmul(out.data(), in.data(), lw.qkv_b, N);
      matrices.attn_proj.matmul(out.data(), in.data(), lw.attn_proj_b, N);
      matrices.fc.matmul(out.data(), in.data(), lw.fc_b, N);
      matrices.fc_proj.matmul(out.data(), in.data(), lw.fc_proj_b, N);
    }
    output.matmul(out.data(), in.data(), nullptr, N);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  clock.finish(state, static_cast<double>(N), "rows_per_s");
  const StepWork work{N, N, 0, 0};  // the products alone: no attention, no draw
  const double predicted_ms =
      predict_step(model.config(), work, profile(), loop, bytes_per_weight).matrices_ms();
  state.counters["predicted_rows_per_s"] = 1e3 * static_cast<double>(N) / predicted_ms;
}

void BM_step_matmul(benchmark::State& state, WeightFormat format) {
  const StoredWeights& w = stored(format);
  time_step_products(
      state, [&](std::size_t l) -> const StoredWeights::Layer& { return w.layers[l]; }, w.output,
      loop_name(format), bytes_per_weight(format));
}

// The same 17 products on the model's fp32 weights under the hood: the tuned path's
// (tuned: the products the profile found fastest, other bits) or fast::exact_matmul (exact:
// the plain loop's sums, bit for bit, six rows a weight read).
template <class Matrices>
void BM_step_matmul_fast(benchmark::State& state, const char* loop) {
  const Matrices m(bench::course_model());
  std::vector<typename Matrices::Layer> layers;
  for (std::size_t l = 0; l < bench::course_model().config().n_layer; ++l)
    layers.push_back(m.layer(l));
  time_step_products(
      state, [&](std::size_t l) -> const typename Matrices::Layer& { return layers[l]; }, m.output,
      loop, sizeof(float));
}

void BM_shared_opening(benchmark::State& state, bool once) {
  const GPT& model = bench::course_model();
  const GPTConfig& cfg = model.config();
  const std::vector<TokenId> prompt = bench::ids(model, bench::after_newline(kSharedOpening));
  const auto B = static_cast<std::size_t>(state.range(0));
  std::vector<KVCache> caches(B, KVCache(cfg));  // every poem's cache
  KVCache shared(cfg);
  Activations acts(cfg, 1, Keep::kLastLogits);  // as section 8 prefills
  bench::StepClock clock(state);
  for (auto _ : state) {
    if (once) {
      shared.length = 0;
      forward_with_cache(model, prompt, 0, shared, acts);
      for (KVCache& c : caches) c = shared;  // a copy of the whole cache, as write_batched makes
    } else {
      for (KVCache& c : caches) {
        c.length = 0;
        forward_with_cache(model, prompt, 0, c, acts);
      }
    }
    benchmark::DoNotOptimize(caches.data());
    benchmark::ClobberMemory();
  }
  clock.finish(state, static_cast<double>(B), "poems_per_s", false);
}

// `what`/plain/FORMAT/B:N for every format and B = 1, 2, 4, .. 32, as section 8.
template <class... Args>
void register_batches(const std::string& what, Args... args) {
  for (WeightFormat f : kFormats) {
    bench::register_row(what + "/plain/" + format_name(f), args..., f)
        ->ArgName("B")
        ->RangeMultiplier(2)
        ->Range(1, 32)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

void register_lesson() {
  register_batches("lesson08/batched", BM_batched);
  for (WeightFormat f : kFormats) {
    bench::register_row("lesson08/decode/plain/" + format_name(f), BM_decode, f)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (WeightFormat f : kFormats) {
    bench::register_row("lesson08/step_matmul/plain/" + format_name(f), BM_step_matmul, f)
        ->ArgName("N")
        ->Arg(1)
        ->Arg(16)
        ->Arg(32)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  for (const bool exact : {false, true}) {
    auto* row =
        exact ? bench::register_row("lesson08/step_matmul/exact/fp32",
                                    BM_step_matmul_fast<ModelMatrices<fast::ExactMatrix>>,
                                    kExactFp32Loop)
              : bench::register_row("lesson08/step_matmul/tuned/fp32",
                                    BM_step_matmul_fast<bench::TunedMatrices>, kTunedFp32Loop);
    row->ArgName("N")->Arg(1)->Arg(16)->Arg(32)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  register_batches("lesson08/big", BM_step_on_big);
  register_batches("lesson08/step", BM_step_on_ours);
  for (bool ours : {false, true}) {
    bench::register_row(std::string(ours ? "lesson08/step" : "lesson08/big") + "/tuned/fp32",
                        BM_step_tuned, ours)
        ->ArgName("B")
        ->RangeMultiplier(2)
        ->Range(1, 32)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (bool aligned : {true, false}) {
    bench::register_row(
        std::string("lesson08/few_rows_alignment/tuned/") + (aligned ? "aligned" : "16_bytes_off"),
        BM_few_rows_alignment, aligned)
        ->ArgName("N")
        ->Arg(4)
        ->Arg(16)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (bool once : {false, true}) {
    bench::register_row(
        std::string("lesson08/shared_opening/") + (once ? "prefill_once" : "prefill_each"),
        BM_shared_opening, once)
        ->ArgName("B")
        ->Arg(static_cast<std::int64_t>(kSharedPoems))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

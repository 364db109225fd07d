// bench_writing.hpp: the timed generation loops that lessons 02, 03, 05 and 06 share.
//
//   make_predictor(model, path, use_cache)   the Predictor (common/generate.hpp) of a path:
//       plain, cache     lesson 06's CachedPredictor with the plain kernels: the lesson path
//       plain, no cache  common/generate.hpp's Recompute: what lessons 01-05 run
//       tuned, cache     CachedPredictor over TunedMatrices (below): each matrix
//                        product the fastest this machine's profile found for its
//                        shape (tuned_product.hpp), GELU by vector erf, the rest as
//                        the lesson does it
//       tuned, no cache  RecomputeWith (below): Recompute with kernels_for(kTuned)
//   sampler_for(path, settings)   a Picker: lesson 03's sample_next (temperature, top-k,
//                        the plain softmax, exercise 03's top-p, exercise 02's draw), or
//                        fast::sample_next (heap top-k, vectorised softmax, bisection top-p)
//   time_writing(state, path, use_cache, pick, n)
//                        writes n characters after a newline with lesson 02's write(),
//                        the same seed every iteration, a fresh predictor every iteration
//                        (as lesson 06's write_chars does), and reports characters/s
//
// Both paths write the same text; the tuned one's sums run in another order, so after many
// characters a draw that falls right on a border can go the other way (tests/fast_test.cpp).
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "06_kvcache/kv_cache.hpp"
#include "bench_common.hpp"
#include "fast/fast.hpp"
#include "fast/top_k_top_p.hpp"
#include "generate.hpp"

namespace tang::bench {

// A weight matrix multiplied by the tuned product: the fastest for its width and
// number of rows in this machine's profile (tuned_product.hpp), its panel copy
// among the choices, from memory when its model's weights come from main memory.
struct TunedMatrix {
  const float* weight;
  std::size_t rows, cols;
  const fast::PanelMatrix* panels;
  bool from_memory;
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
    tuned_product(out, inp, weight, panels, bias, N, cols, rows, from_memory);
  }
};

// The tuned cached step's matrices: the model's own floats (and their panel copies)
// through TunedMatrix, and its GELU through glibc's vector erf (fast::gelu_forward;
// lesson 06's forward takes the matrices' own GELU, step_gelu). LayerNorm and
// attention stay the lesson's. Shaped as lesson 06's ModelMatrices.
struct TunedMatrices {
  explicit TunedMatrices(const GPT& model)
      : from_memory(weights_from_memory(model)),
        output(tuned(model.weights().wte, model.config().vocab_size, model.config().n_embd)) {
    const std::size_t C = model.config().n_embd, P = model.config().proj_width();
    for (const LayerWeights& w : model.weights().layers) {
      layers_.push_back({tuned(w.qkv_w, P, C), tuned(w.attn_proj_w, C, C), tuned(w.fc_w, 4 * C, C),
                         tuned(w.fc_proj_w, C, 4 * C)});
    }
  }
  struct Layer {
    TunedMatrix qkv, attn_proj, fc, fc_proj;
  };
  const Layer& layer(std::size_t l) const { return layers_[l]; }
  void gelu(float* out, const float* inp, std::size_t n) const { fast::gelu_forward(out, inp, n); }
  bool from_memory;    // the model's weights are read from main memory every step
  TunedMatrix output;  // the tied output layer: wte (V, C)

 private:
  TunedMatrix tuned(const float* weight, std::size_t rows, std::size_t cols) const {
    return {weight, rows, cols, &panels_of(weight, rows, cols), from_memory};
  }
  std::vector<Layer> layers_;
};

// Lesson 06's KVCache with the tuned attention: the same keys and values appended,
// each new query attending through fast::attend (vector exp, fused multiply-adds)
// instead of ops::attend. lesson 06's forward takes it as it takes KVCache (the four
// members); the logits differ from the lesson's in the last bits.
struct TunedKVCache : KVCache {
  explicit TunedKVCache(const GPTConfig& config)
      : KVCache(config), weights_(config.n_head * config.block_size) {}
  void attend(std::size_t l, float* out, const float* rows, std::size_t T, const GPT& model) {
    const std::size_t C = model.config().n_embd, NH = model.config().n_head;
    for (std::size_t t = 0; t < T; ++t) {  // append, as exercise 06a does
      std::memcpy(&k(l, length + t, 0), rows + t * 3 * C + C, C * sizeof(float));
      std::memcpy(&v(l, length + t, 0), rows + t * 3 * C + 2 * C, C * sizeof(float));
    }
    for (std::size_t t = 0; t < T; ++t) {  // new row t sees positions 0 .. length + t
      fast::attend(out + t * C, weights_.data(), rows + t * 3 * C, &k(l, 0, 0), &v(l, 0, 0), C,
                   length + t + 1, C, NH);
    }
  }

 private:
  std::vector<float> weights_;  // (NH, n) scratch
};

// The tuned sampler (fast::sample_next: heap top-k, bisection top-p, vector
// softmax), as BatchedStep's draw: the lesson's character up to the softmax's last bit.
inline TokenId tuned_draw(std::span<float> logits, const SamplingSettings& settings, Rng& rng) {
  thread_local fast::SamplerScratch scratch;
  return fast::sample_next(logits, settings, rng, scratch);
}

// Lesson 06's cached forward of one text on a path, the last position's logits;
// `cache` is lesson 06's KVCache or any cache of its kind (lesson 13's).
template <class Cache>
View<2> forward_with_cache_on(Path path, const GPT& model, std::span<const TokenId> tokens,
                              Cache& cache, Activations& acts) {
  Cache* const caches[] = {&cache};
  if (path == Path::kPlain) {
    return forward_with_cache(model, ModelMatrices<>(model), tokens, caches, acts,
                              LogitsFor::kLastPosition);
  }
  return forward_with_cache(model, TunedMatrices(model), tokens, caches, acts,
                            LogitsFor::kLastPosition);
}

// Recompute (common/generate.hpp) with any kernels: the whole context through forward().
class RecomputeWith : public Predictor {
 public:
  RecomputeWith(const GPT& model, const Kernels& kernels)
      : model_(model), kernels_(kernels), acts_(activations_for(model.config(), Path::kTuned)) {}
  std::span<const float> next_logits(std::span<const TokenId> context) override {
    const auto window = crop_to_context(context, model_.config().block_size);
    const auto logits = forward(model_.config(), model_.weights(), window, 1, window.size(), acts_,
                                kernels_, LogitsFor::kLastPosition);
    return require_finite({logits.data(), logits.size()});  // as Recompute does
  }

 private:
  const GPT& model_;
  const Kernels& kernels_;
  Activations acts_;
};

inline std::unique_ptr<Predictor> make_predictor(const GPT& model, Path path, bool use_cache) {
  if (use_cache && path == Path::kPlain) return std::make_unique<CachedPredictor<>>(model);
  if (use_cache) return std::make_unique<CachedPredictor<TunedMatrices>>(model);
  if (path == Path::kPlain) return std::make_unique<Recompute>(model);
  return std::make_unique<RecomputeWith>(model, kernels_for(Path::kTuned));
}

inline Picker sampler_for(Path path, const SamplingSettings& settings) {
  if (path == Path::kPlain) return sampling_picker(settings);
  auto scratch = std::make_shared<fast::SamplerScratch>();
  return [settings, scratch](std::span<float> logits, std::size_t, Rng& rng, StepRecord*) {
    return fast::sample_next(logits, settings, rng, *scratch);
  };
}

inline void time_writing(benchmark::State& state, const GPT& model, Path path, bool use_cache,
                         const Picker& pick, std::size_t n) {
  std::vector<TokenId> context;
  StepClock clock(state);
  for (auto _ : state) {
    const std::unique_ptr<Predictor> predictor = make_predictor(model, path, use_cache);
    context = ids(model, "\n");
    Rng rng(42);
    benchmark::DoNotOptimize(
        write(*predictor, context, pick, rng, n, /*stop_after=*/std::nullopt).data());
  }
  clock.finish(state, static_cast<double>(n), "chars_per_s");
}

}  // namespace tang::bench

// bench_10_cache_size: lesson 10's cached step for every way of sharing keys and
// values, on our model's shape and at a long context on GPT-2 small's.
//
//   lesson10/step/plain/<attention>/n:64|128     one cached step of one text whose
//                                      cache holds n-1 positions (lesson 06's
//                                      forward_with_cache over a SmallCache), on a model of
//                                      our shape (4 layers, 4 heads, 128 dims) with random
//                                      weights: multi-head, grouped-query (2 key/value heads),
//                                      multi-query, latent (d_c 32). Per step: steps_per_s
//   lesson10/long/plain/<attention>/B:8/n:1024   a step of 8 texts whose caches hold
//                                      1,024 positions each, GPT-2 small's shape (12 layers,
//                                      12 heads, 768 dims) with the same share of key/value
//                                      heads (multi-query: 1) or latent width (d_c 192)
//   every row has predicted_steps_per_s: lesson 10's cost model (variant_step_cost.hpp)
//   from this machine's profile, no draw (the rows time the forward alone)
#include <string>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "10_cache_size/long_context.hpp"
#include "10_cache_size/small_cache.hpp"
#include "10_cache_size/variant_step_cost.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"

namespace {

using namespace tang;

// Our model's shape with the variant's attention.
GPTConfig our_shape(std::size_t kv_heads, std::size_t kv_latent) {
  GPTConfig c = bench::course_model().config();
  c.n_kv_head = kv_heads;
  c.kv_latent = kv_latent;
  return c;
}

void BM_step(benchmark::State& state, GPTConfig config, std::size_t B) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));  // positions after the step
  if (n > config.block_size) config.block_size = n;
  const GPT model = initialised_model(config, bench::course_model().tokenizer(), 42);
  std::vector<SmallCache> caches(B, SmallCache(config));
  std::vector<SmallCache*> pointers;
  for (SmallCache& cache : caches) {
    cache.layers.fill(0.0f);     // numbers, not leftovers of the allocation (their values do
    pointers.push_back(&cache);  // not change the time, but denormals or NaNs would)
  }
  Activations acts = step_activations(config, B);
  const ModelMatrices<> matrices(model);
  const std::vector<TokenId> tokens(B, 1);
  auto step = [&] {
    for (SmallCache& cache : caches) cache.length = n - 1;
    return forward_with_cache(model, matrices, tokens, pointers, acts, LogitsFor::kLastPosition);
  };
  step();  // one step before the clock, as the lesson's timing does
  bench::StepClock clock(state);
  for (auto _ : state) benchmark::DoNotOptimize(step().data());
  clock.finish(state, 1.0, "steps_per_s", false);
  state.counters["predicted_steps_per_s"] =
      1e3 / predict_variant_step(config, B, n - 1, bench::plain_loop_profile(), false).total_ms();
}

struct Variant {
  const char* name;
  std::size_t kv_heads, kv_latent;
};
const Variant kVariants[] = {
    {"multi_head", 0, 0}, {"grouped_query", 2, 0}, {"multi_query", 1, 0}, {"latent", 0, 32}};

void register_lesson() {
  for (const Variant& v : kVariants) {
    bench::register_row("lesson10/step/plain/" + std::string(v.name), BM_step,
                        our_shape(v.kv_heads, v.kv_latent), std::size_t{1})
        ->ArgName("n")
        ->Arg(64)
        ->Arg(128)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  for (const Variant& v : kVariants) {
    bench::register_row("lesson10/long/plain/" + std::string(v.name) + "/B:8", BM_step,
                        long_context_shape(our_shape(v.kv_heads, v.kv_latent), 1025),
                        std::size_t{8})
        ->ArgName("n")
        ->Arg(1025)
        ->Iterations(5)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

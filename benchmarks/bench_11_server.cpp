// bench_11_server: lesson 11's paged cache and its engine, each next to the
// cost model's prediction.
//
//   lesson11/paged_step/plain/B:b     one batched step of b texts whose caches
//                                     hold 63 positions each, through their block
//                                     tables (paged_forward.hpp), the blocks of the
//                                     texts interleaved in one pool: the forward pass
//                                     of the engine's step, nothing else
//   lesson11/paged_step_cold/plain/B:b  the same step after 64 MB were swept through
//                                     the caches (outside the clock): its weights and
//                                     cache come from main memory, as far colder as a
//                                     step can find them
//   lesson11/engine/plain/clients:b   the engine itself: b writers at once, each
//                                     writing 24 characters after an empty opening
//                                     (T 0.8, top-k 20, each its seed) through
//                                     serve_poem, in-process; per character served
//                                     (chars_per_s) and per step (step_us), and the
//                                     forward passes' time a step (forward_us)
// Every row has a prediction: paged_step's is lesson 06's cost model for the
// work (06_kvcache/step_cost.hpp, no draw: the row draws nothing), engine's is
// the engine's own (the forward passes plus the step overhead measured with a
// one-layer model, step_overhead.hpp), as predicted_steps_per_s or
// predicted_chars_per_s (and forward_us_predicted).
#include <string>
#include <thread>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "11_server/load_run.hpp"
#include "11_server/paged_forward.hpp"
#include "11_server/step_overhead.hpp"
#include "bench_common.hpp"
#include "bench_profile.hpp"

namespace {

using namespace tang;

void BM_paged_step(benchmark::State& state, std::size_t B, bool cold) {
  const GPT& model = bench::course_model();
  const GPTConfig& config = model.config();
  const std::size_t cached = 63, block = 16;
  const std::size_t per_text = (cached + 1 + block - 1) / block;
  BlockPool pool(config, B * per_text, block);
  std::vector<PagedText> texts(B);
  for (std::size_t i = 0; i < per_text; ++i) {  // block i of every text, then block i + 1
    for (PagedText& t : texts) t.table.push_back(*pool.allocate());
  }
  std::vector<TokenId> opening;  // (64) a poem again and again
  while (opening.size() <= cached) {
    const std::vector<TokenId> poem = bench::ids(model, bench::kChuSai);
    opening.insert(opening.end(), poem.begin(), poem.end());
  }
  const ModelMatrices<> m(model);
  Activations acts = step_activations(config, std::max<std::size_t>(B, cached));
  std::vector<PagedText*> pointers;
  for (PagedText& t : texts) {  // fill each cache with its 63 positions
    PagedText* const one[] = {&t};
    forward_with_cache(model, m, std::span(opening).first(cached), one, pool, acts,
                       LogitsFor::kLastPosition);
    pointers.push_back(&t);
  }
  const std::vector<TokenId> next(B, opening[cached]);
  const auto step = [&] {
    const View<2> logits =
        forward_with_cache(model, m, next, pointers, pool, acts, LogitsFor::kLastPosition);
    for (PagedText& t : texts) t.tokens.pop_back();  // back to 63: every step the same
    return logits;
  };
  step();
  if (cold) {  // 64 MB swept before each step, outside the clock: the weights come from memory
    std::vector<float> sweep(16 << 20, 1.0f);
    double seconds = 0;
    for (auto _ : state) {
      for (std::size_t i = 0; i < sweep.size(); i += 16) sweep[i] += 1.0f;  // a line each
      benchmark::DoNotOptimize(sweep.data());
      const auto start = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(step().data());
      const double step_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      state.SetIterationTime(step_seconds);  // the row's time: the step, not the sweep
      seconds += step_seconds;
    }
    state.counters["steps_per_s"] = double(state.iterations()) / seconds;
    state.counters["step_us"] = 1e6 * seconds / double(state.iterations());
  } else {
    bench::StepClock clock(state);
    for (auto _ : state) benchmark::DoNotOptimize(step().data());
    clock.finish(state, 1.0, "steps_per_s", false);
  }
  StepWork work = batch_step(B, cached);
  work.draws = 0;
  state.counters["predicted_steps_per_s"] =
      1e3 / predict_plain_step(config, work, bench::plain_loop_profile()).total_ms();
}

// The engine's step overhead, measured once (as lesson 11's section does).
const StepOverhead& overhead() {
  static const StepOverhead o = measure_step_overhead_in_process(bench::course_model());
  return o;
}

void BM_engine(benchmark::State& state, std::size_t clients) {
  const GPT& model = bench::course_model();
  std::vector<PoemRequest> requests(clients);
  for (std::size_t i = 0; i < clients; ++i) requests[i].seed = 42 + i, requests[i].max_chars = 24;
  EngineOptions options;
  predict_served_steps(options, model.config(), bench::plain_loop_profile(), overhead());
  double seconds = 0, predicted = 0, characters = 0, steps = 0, forward = 0, predicted_forward = 0;
  for (auto _ : state) {
    PagedEngine engine(model, options);
    const LoadRun run = run_clients(engine, requests, clients);
    const EngineStats stats = engine.stats();
    const EngineCounters& k = stats.counters;
    seconds += run.seconds;
    predicted += stats.predicted_seconds;
    characters += double(run.characters);
    steps += double(k.steps);
    forward += k.compute_seconds;
    predicted_forward += stats.predicted_seconds - stats.predicted_overhead_seconds;
  }
  state.counters["chars_per_s"] = characters / seconds;
  state.counters["step_us"] = 1e6 * seconds / steps;
  state.counters["predicted_chars_per_s"] = characters / predicted;
  // the forward passes alone: in a server, each step finds the caches colder than a loop does
  state.counters["forward_us"] = 1e6 * forward / steps;
  state.counters["forward_us_predicted"] = 1e6 * predicted_forward / steps;
}

void register_lesson() {
  for (const std::size_t B : {1, 4, 16, 64}) {
    for (const bool cold : {false, true}) {
      auto* row = bench::register_row("lesson11/paged_step" + std::string(cold ? "_cold" : "") +
                                          "/plain/B:" + std::to_string(B),
                                      BM_paged_step, B, cold);
      (cold ? row->UseManualTime() : row->UseRealTime())->Unit(benchmark::kMicrosecond);
    }
  }
  for (const std::size_t clients : {1, 4, 16, 64}) {
    bench::register_row("lesson11/engine/plain/clients:" + std::to_string(clients), BM_engine,
                        clients)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tang::bench::bench_main(argc, argv, 1, register_lesson);
}

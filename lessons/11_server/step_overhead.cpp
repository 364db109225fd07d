#include "11_server/step_overhead.hpp"

#include <algorithm>

#include "06_kvcache/step_cost.hpp"
#include "11_server/load_run.hpp"  // mixed_requests, run_clients

namespace tang {

double StepOverhead::ms(double texts) const {
  if (ms_at.empty()) return 0;
  if (texts <= ms_at.front().first) return ms_at.front().second;
  if (texts >= ms_at.back().first) return ms_at.back().second;
  std::size_t i = 1;
  while (ms_at[i].first < texts) ++i;
  const auto [x0, y0] = ms_at[i - 1];
  const auto [x1, y1] = ms_at[i];
  return y0 + (y1 - y0) * (texts - x0) / (x1 - x0);
}

GPT overhead_model(const GPT& model) {
  GPTConfig config = model.config();
  config.n_layer = 1;
  config.n_head = 1;
  config.n_embd = 4;
  config.n_kv_head = 0;
  config.kv_latent = 0;
  return initialised_model(config, model.tokenizer(), 1);
}

std::vector<PoemRequest> overhead_requests(std::size_t clients) {
  std::vector<PoemRequest> requests = mixed_requests(2 * clients, 1000);
  for (PoemRequest& r : requests) r.max_chars = 24;
  return requests;
}

StepOverhead measure_step_overhead(const GPT& model, const RunOverheadClients& run) {
  const GPT tiny = overhead_model(model);
  run(tiny, 4);  // once first: threads, pages and caches warm
  StepOverhead overhead;
  for (const std::size_t clients : kOverheadClients) {
    const OverheadRun r = run(tiny, clients);
    const EngineCounters& k = r.counters;
    if (k.steps == 0) continue;
    const double texts = double(k.answers) / double(k.steps);
    const double ms = 1000 * std::max(0.0, r.seconds - k.compute_seconds) / double(k.steps);
    overhead.ms_at.emplace_back(texts, ms);
  }
  std::sort(overhead.ms_at.begin(), overhead.ms_at.end());
  return overhead;
}

StepOverhead measure_step_overhead_in_process(const GPT& model) {
  return measure_step_overhead(model, [](const GPT& tiny, std::size_t clients) {
    PagedEngine engine(tiny, EngineOptions{});
    const LoadRun run = run_clients(engine, overhead_requests(clients), clients);
    return OverheadRun{run.seconds, engine.stats().counters};
  });
}

void predict_served_steps(EngineOptions& options, const GPTConfig& config,
                          const MachineProfile& profile, const StepOverhead& overhead,
                          const std::string& loop) {
  options.predict_ms = [config, profile, loop](const StepWork& w) {
    const StepCost cost = predict_step(config, w, profile, loop, 4.0);
    return cost.total_ms() - cost.sampling_ms;
  };
  options.step_overhead_ms = [overhead](std::size_t texts) { return overhead.ms(double(texts)); };
}

}  // namespace tang

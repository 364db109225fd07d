// step_overhead.hpp: what a served step costs besides the model, measured.
//
// Lesson 06's cost model predicts a step's forward pass. A server pays more for
// every step: after the forward pass the engine's loop hands each text's row
// to its writer, which draws its character with lesson 03's sampler, and the
// character goes to its request's queue (with the logits it was drawn from,
// for the request's thread to work out the five candidates a client sees);
// over HTTP the request threads' events and sockets share the cores with it.
// None of it depends on the model's size.
// So it is measured once, with a model that costs almost nothing (ours with
// one layer 4 wide: the same vocabulary, so the same draws) and its forward
// passes taken out:
//
//   overhead of a step = (a run's time - its forward passes) / its steps
//
// at 1, 2, 4, ... 64 clients at once, each point at the run's mean number of
// texts a step. A served step is then predicted as
//
//   forward(its work, lesson 06's cost model, without the draws) + overhead(its texts)
//
// with the overhead interpolated between the measured points.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "11_server/paged_engine.hpp"
#include "11_server/poem_request.hpp"

namespace tang {

struct StepOverhead {
  std::vector<std::pair<double, double>> ms_at;  // (texts a step, ms a step), by texts
  // Linear between the measured points; the end values beyond them.
  double ms(double texts) const;
};

// One measuring run: `clients` clients at once on an engine over `model`,
// which the caller drives (in-process, or over HTTP); its time and the
// engine's counters for the run alone.
struct OverheadRun {
  double seconds = 0;
  EngineCounters counters;
};
using RunOverheadClients = std::function<OverheadRun(const GPT& model, std::size_t clients)>;

inline constexpr std::size_t kOverheadClients[] = {1, 2, 4, 8, 16, 32, 64};

// `model` with one layer 4 wide: its vocabulary, tokenizer and context.
GPT overhead_model(const GPT& model);

// The overhead measured with run(overhead_model(model), clients) at each of
// kOverheadClients.
StepOverhead measure_step_overhead(const GPT& model, const RunOverheadClients& run);

// The same with the clients in this process (run_clients, load_run.hpp), each
// run on a new engine: what section 11 and bench_11_server predict with.
StepOverhead measure_step_overhead_in_process(const GPT& model);

// The requests one measuring run sends: 2 a client, openings of lesson 11's
// mix, 24 characters each.
std::vector<PoemRequest> overhead_requests(std::size_t clients);

// A step's prediction: its forward passes by lesson 06's cost model (the
// profile's `loop` for the products) without the draws, which are the
// writers' and in the overhead, plus `overhead` for the texts it answers.
void predict_served_steps(EngineOptions& options, const GPTConfig& config,
                          const MachineProfile& profile, const StepOverhead& overhead,
                          const std::string& loop = kPlainFp32Loop);

}  // namespace tang

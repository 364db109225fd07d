#include "11_server/server_section.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <ostream>

#include "03_topk_topp/sampler.hpp"  // writing_settings
#include "06_kvcache/kv_cache.hpp"
#include "06_kvcache/kv_memory.hpp"
#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "11_server/cpu_clock.hpp"
#include "11_server/load_run.hpp"
#include "11_server/paged_forward.hpp"
#include "11_server/step_overhead.hpp"
#include "number_text.hpp"
#include "utf8.hpp"

namespace tang {

namespace {

struct ServerOptions {
  std::size_t requests = 32;  // --requests
};

// Lesson 11's requests (load_run.hpp) with the lesson's settings and --length.
std::vector<PoemRequest> lesson_requests(const LessonContext& c,
                                         std::vector<PoemRequest> requests) {
  for (PoemRequest& r : requests) {
    r.settings = writing_settings(c.options);
    r.max_chars = c.options.length;
  }
  return requests;
}

EngineOptions engine_options(const GPTConfig& config, const MachineProfile& profile,
                             const StepOverhead& overhead) {
  EngineOptions o;
  predict_served_steps(o, config, profile, overhead);
  return o;
}

std::size_t same_as_alone(const GPT& model, const std::vector<PoemRequest>& requests,
                          const LoadRun& run) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < requests.size(); ++i)
    same += run.served[i].poem == write_alone(model, requests[i]);
  return same;
}

// Part 1: the paged cache gives lesson 06's logits, bit for bit.
void show_paged_check(LessonContext& c) {
  const GPT& model = c.model;
  const GPTConfig& config = model.config();
  std::vector<TokenId> tokens = model.tokenizer().encode("\n");
  while (tokens.size() < config.block_size) {
    const std::vector<TokenId> more = model.tokenizer().encode(kSharedOpening);
    tokens.insert(tokens.end(), more.begin(), more.end());
  }
  tokens.resize(config.block_size);
  const std::size_t block_size = 16, blocks = 64;
  BlockPool pool(config, blocks, block_size);
  // take the blocks from the back of the pool, every other one: a text's blocks lie apart
  std::vector<BlockId> taken;
  while (const auto b = pool.allocate()) taken.push_back(*b);
  PagedText text;
  for (std::size_t i = 0; i * block_size < tokens.size(); ++i)
    text.table.push_back(taken[blocks - 1 - 2 * i]);
  KVCache contiguous(config);
  Activations a(config), b(config);
  const ModelMatrices<> m(model);
  std::size_t first_difference = 0;
  for (std::size_t i = 0; i < tokens.size() && first_difference == 0; ++i) {
    const std::span<const TokenId> one = std::span(tokens).subspan(i, 1);
    PagedText* const texts[] = {&text};
    const auto paged = forward_with_cache(model, m, one, texts, pool, a, LogitsFor::kLastPosition);
    const auto plain = forward_with_cache(model, one, i, contiguous, b);
    if (!std::equal(paged.begin(), paged.end(), plain.begin())) first_difference = i + 1;
  }
  c.out << "  One text of " << tokens.size() << " positions in " << text.table.size()
        << " blocks of " << block_size << " from all over a pool of " << blocks << " (blocks";
  for (BlockId id : text.table) c.out << " " << id;
  c.out << "),\n  against lesson 06's cache: ";
  if (first_difference == 0) {
    c.out << "the logits are IDENTICAL, bit for bit, at all " << tokens.size() << " positions\n";
  } else {
    c.out << "DIFFERENT from position " << first_difference - 1 << "\n";
  }
}

// The cost model of a served step: lesson 06's for the forward passes, and the
// overhead measured here for the rest.
struct ServedCost {
  MachineProfile profile;
  StepOverhead overhead;
};

// Part 2: 1, 4 and 16 clients at a time, the cost model beside each.
void show_clients(LessonContext& c, const ServerOptions& o, const ServedCost& cost) {
  const std::vector<PoemRequest> requests =
      lesson_requests(c, mixed_requests(o.requests, c.options.seed));
  c.out << "\n  A step's overhead besides its forward passes (step_overhead.hpp), by texts in the "
           "step:\n   ";
  for (const auto& [texts, ms] : cost.overhead.ms_at)
    c.out << " " << fixed(texts, 1) << " texts " << fixed(ms, 3) << " ms;";
  c.out << "\n\n  " << requests.size() << " requests (openings and acrostics, T "
        << label(requests[0].settings.temperature) << ", top-k " << requests[0].settings.top_k
        << ", seeds " << c.options.seed << " .. " << c.options.seed + requests.size() - 1
        << "), from clients that each send\n  the next when theirs is answered; "
           "each step predicted as its forward passes plus the overhead:\n"
           "    clients  steps  mean batch   forward s predicted  measured   besides s predicted  "
           "measured   chars/s predicted  measured  measured/predicted   ms/char p50 predicted  "
           "measured   p95   same as lesson 06\n";
  char line[300];
  struct Spent {
    std::size_t clients, characters;
    CpuParts cpu;  // where the CPU time went
  };
  std::vector<Spent> spent;
  for (const std::size_t clients : {1, 4, 16}) {
    PagedEngine engine(c.model, engine_options(c.model.config(), cost.profile, cost.overhead));
    const double probabilities = probabilities_cpu_seconds();
    const LoadRun run = run_clients(engine, requests, clients);
    const EngineStats s = engine.stats();
    spent.push_back({clients, run.characters,
                     CpuParts::of(s.counters, s.engine_cpu_seconds, run.clients_cpu_seconds,
                                  probabilities_cpu_seconds() - probabilities)});
    const double predicted = s.predicted_seconds;
    const double predicted_besides = s.predicted_overhead_seconds;
    const double predicted_cps = double(run.characters) / predicted;
    std::vector<double> predicted_per_char;
    for (const ServedPoem& p : run.served) {
      if (p.characters > 1)
        predicted_per_char.push_back((p.predicted.seconds - p.predicted.first_seconds) /
                                     double(p.characters - 1));
    }
    const std::vector<double> per_char = seconds_per_character(run.served);
    std::snprintf(
        line, sizeof line,
        "    %7zu  %5zu  %10.1f   %19.3f  %8.3f   %19.3f  %8.3f   %17.0f  %8.0f  %18.2f   "
        "%21.2f  %8.2f  %4.2f   %zu of %zu\n",
        clients, s.counters.steps,
        double(s.counters.batched_rows) / double(s.counters.batched_steps),
        predicted - predicted_besides, s.counters.compute_seconds, predicted_besides,
        run.seconds - s.counters.compute_seconds, predicted_cps, run.chars_per_second(),
        run.chars_per_second() / predicted_cps, 1000 * percentile(predicted_per_char, 50),
        1000 * percentile(per_char, 50), 1000 * percentile(per_char, 95),
        same_as_alone(c.model, requests, run), requests.size());
    c.out << line;
    c.out.flush();
  }
  c.out << "\n  Where the CPU time went (each thread's own clock; the engine times its parts), "
           "in % of it:\n"
           "    clients  CPU s  forward   draw  hand-off  engine's rest  clients' threads   "
           "CPU us a char\n";
  for (const Spent& x : spent) {
    const CpuParts& p = x.cpu;
    const auto share = [&](double seconds) { return 100.0 * seconds / p.total(); };
    std::snprintf(line, sizeof line,
                  "    %7zu  %5.2f  %6.1f%%  %4.1f%%  %7.1f%%  %12.1f%%  %15.1f%%   %13.1f\n",
                  x.clients, p.total(), share(p.forward), share(p.draw), share(p.hand_off),
                  share(p.engine_rest), share(p.requests + p.probabilities),
                  1e6 * p.total() / double(std::max<std::size_t>(1, x.characters)));
    c.out << line;
  }
}

// Part 3: sixteen requests with one opening, with and without taking it from the pool.
void show_shared_opening(LessonContext& c, const ServedCost& cost) {
  const std::vector<PoemRequest> requests =
      lesson_requests(c, shared_opening_requests(16, c.options.seed));
  const std::size_t positions =
      c.model.tokenizer().encode("\n" + std::string(kSharedOpening)).size();
  c.out << "\n  16 clients at once, every request opening with " << kSharedOpening << " ("
        << positions
        << " positions with its newline):\n"
           "    from the pool  positions asked  computed  reused  hits  copied blocks"
           "   first char p50 predicted  measured   p95\n";
  char line[200];
  for (const bool reuse : {false, true}) {
    EngineOptions options = engine_options(c.model.config(), cost.profile, cost.overhead);
    options.reuse_prefixes = reuse;
    PagedEngine engine(c.model, options);
    const LoadRun run = run_clients(engine, requests, requests.size());
    const EngineCounters k = engine.stats().counters;
    std::vector<double> first, predicted_first;
    for (const ServedPoem& p : run.served) {
      first.push_back(p.first_seconds);
      predicted_first.push_back(p.predicted.first_seconds);
    }
    std::snprintf(line, sizeof line,
                  "    %-13s  %15zu  %8zu  %5.1f%%  %4zu  %13zu   %24.2f  %8.2f  %4.2f ms\n",
                  reuse ? "yes" : "no", k.prefill_positions,
                  k.prefill_positions - k.reused_positions,
                  100.0 * double(k.reused_positions) / double(k.prefill_positions), k.prefix_hits,
                  k.copied_blocks, 1000 * percentile(predicted_first, 50),
                  1000 * percentile(first, 50), 1000 * percentile(first, 95));
    c.out << line;
  }
}

// Part 4: a pool of one context and two blocks more, for 16 clients.
void show_small_pool(LessonContext& c) {
  const std::vector<PoemRequest> requests = lesson_requests(c, mixed_requests(16, c.options.seed));
  EngineOptions options;
  const std::size_t one_context = (c.model.config().block_size + 15) / 16;
  options.blocks = one_context + 2;
  PagedEngine engine(c.model, options);
  const LoadRun run = run_clients(engine, requests, requests.size());
  const EngineStats s = engine.stats();
  c.out << "\n  The same 16 clients with a pool of " << options.blocks << " blocks ("
        << human_bytes(double(options.blocks) * 16 * kv_cache_bytes_per_position(c.model.config()))
        << "; lesson 06's caches for 16 texts: "
        << human_bytes(16.0 * double(c.model.config().block_size) *
                       double(kv_cache_bytes_per_position(c.model.config())))
        << "):\n    " << s.counters.preemptions
        << " times a text gave its blocks back and computed them again later; at most "
        << s.counters.most_blocks_in_use
        << " blocks in use;\n    the poems the same as lesson "
           "06 writes alone: "
        << same_as_alone(c.model, requests, run) << " of " << requests.size() << "\n";
}

// Part 5: one request as the server streams it.
void show_stream(LessonContext& c) {
  PagedEngine engine(c.model, EngineOptions{});
  PoemRequest r;
  r.opening = "春风";
  r.settings = writing_settings(c.options);
  r.seed = c.options.seed;
  r.max_chars = c.options.length;
  r.probabilities = true;  // the five candidates below, as a request with logprobs gets them
  std::size_t shown = 0;
  c.out << "\n  One request as poem_server streams it (opening 春风): each character with the "
           "five it was drawn from\n";
  const ServedPoem served = serve_poem(engine, r, [&](const WrittenCharacter& w) {
    if (shown++ < 4) {
      c.out << "    " << w.character << "  ";
      for (const Candidate& k : w.top)
        c.out << " " << c.model.tokenizer().character(k.id) << " " << fixed(100 * k.probability, 1)
              << "%";
      c.out << "\n";
    }
    return true;
  });
  c.out << "    ... " << served.characters << " characters: " << served.poem << "\n";
}

void show_server(LessonContext& c, const ServerOptions& o) {
  c.out << "Many clients at once: a cache in blocks (exercise 11a), openings taken from the pool "
           "(exercise 11b)\nand one batched step for every text in flight, each poem checked "
           "against lesson 06's.\n";
  show_paged_check(c);
  ServedCost cost;
  cost.profile = lesson_profile(c.out, std::vector{plain_fp32_loop()});
  cost.overhead = measure_step_overhead_in_process(c.model);
  show_clients(c, o, cost);
  show_shared_opening(c, cost);
  show_small_pool(c);
  show_stream(c);
  c.out << "\n  Over HTTP: build/release/lessons/11_server/poem_server --port 8080, then "
           "http://127.0.0.1:8080/\n";
}

}  // namespace

Section server_section() {
  auto options = std::make_shared<ServerOptions>();
  return {"A poem server: a paged cache, shared openings, continuous batching",
          [options](LessonContext& c) { show_server(c, *options); },
          [](const LessonOptions&) {
            return std::string(kSharedOpening) + "春风明月松间照山花秋江如画";
          },
          [options](CLI::App& app) {
            app.add_option("--requests", options->requests,
                           "section 11: requests of the clients table, in [1, 2000]")
                ->capture_default_str()
                ->check(CLI::Range(std::size_t{1}, std::size_t{2000}));
          },
          {},
          [](const GPT& model) {
            return why_not_multi_head(model.config(), "lesson 11's paged cache");
          }};
}

}  // namespace tang

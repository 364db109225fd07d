// serve_bench: poem_server under load, over real HTTP.
//
// Starts two servers in this process on free ports of 127.0.0.1 (for each row,
// each warmed up with a few requests that are not counted): the lesson's
// (continuous batching, up to 64 texts a step) and the same with a batch of one
// (one request at a time, the others queue). For 1, 4, 16 and 64 clients, each
// sending its next streamed request as soon as the last one ended, it sends a
// fixed number of requests, with mixed openings (openings and acrostics, lesson
// 11's mix), with a shared opening of 19 positions, and with that opening but
// the servers told not to take it from the pool (--no-prefix-reuse), and prints:
// characters a second (measured, predicted by lesson 06's cost model for the
// steps the engine ran, and the batch-of-one server's), the time to the first
// character and per character (p50, p95, p99, from the client's side, with the
// cost model's p50), and what the pool reused. Then the tuned path (poem_server
// --tuned) at 1 and 16 clients, batched and one at a time. Then the first
// character of a fresh request on an idle server and behind eight clients
// writing long poems. With --pool-budget, instead, lesson 13's table: 64
// clients on a pool of 1.5 MB in float32 and in int8 (3.9 times the positions),
// and in float32 with the int8 pool's blocks.
//
//   build/release/lessons/11_server/serve_bench                  64 requests a row
//   build/release/lessons/11_server/serve_bench --requests 256 --tsv out.tsv
//   build/release/lessons/11_server/serve_bench --pool-budget      lesson 13's (256 requests)
//   scripts/plot_serve_bench.sh out.tsv chart.svg                 the page's chart
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "11_server/cpu_clock.hpp"
#include "11_server/int8_pool_cost.hpp"
#include "11_server/load_run.hpp"                    // percentile, the requests
#include "11_server/serving/completion_request.hpp"  // completion_body
#include "11_server/serving/poem_http.hpp"
#include "11_server/step_kernels.hpp"  // panel_product_loop
#include "11_server/step_overhead.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "number_text.hpp"
#include "program.hpp"

namespace {

using namespace tang;
using Clock = std::chrono::steady_clock;

// The tuned path's product in the machine profile.
constexpr const char* kTunedLoop = "fp32 panels";

// What one client saw of one streamed answer.
struct Seen {
  std::size_t characters = 0;
  double first = 0, last = 0;  // seconds from sending to the first and last character
  bool ok = false;
};

// The bodies of n streamed requests: lesson 11's mix, or all with its shared opening.
std::vector<std::string> request_bodies(std::size_t n, bool shared, std::uint64_t seed) {
  std::vector<std::string> bodies;
  for (const PoemRequest& r : shared ? shared_opening_requests(n, seed) : mixed_requests(n, seed))
    bodies.push_back(completion_body(r, true));
  return bodies;
}

// A running server on a free port, in a thread of this process.
struct RunningServer {
  RunningServer(const GPT& model, const ServerSettings& settings)
      : server(model, settings), port(server.bind()), thread([this] { server.serve(); }) {}
  ~RunningServer() {
    server.shut_down(std::chrono::milliseconds(0));
    thread.join();
  }
  PoemHttpServer server;
  int port;
  std::thread thread;
};

// A client of `s`, as every client here: a long read timeout, each event at once.
httplib::Client client_of(const RunningServer& s) {
  httplib::Client client("127.0.0.1", s.port);
  client.set_read_timeout(std::chrono::seconds(120));
  client.set_tcp_nodelay(true);
  return client;
}

// One streamed request, as its client sees it.
Seen send_streamed(httplib::Client& client, const std::string& body) {
  Seen me;
  const Clock::time_point sent = Clock::now();
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = body;
  req.set_header("Content-Type", "application/json");
  std::string pending;
  req.content_receiver = [&](const char* data, std::size_t n, uint64_t, uint64_t) {
    pending.append(data, n);
    for (std::size_t end; (end = pending.find("\n\n")) != std::string::npos;) {
      if (pending.find("\"finish_reason\":null") < end) {  // one character
        const double t = std::chrono::duration<double>(Clock::now() - sent).count();
        if (me.characters++ == 0) me.first = t;
        me.last = t;
      }
      pending.erase(0, end + 2);
    }
    return true;
  };
  const auto res = client.send(req);
  me.ok = res && res->status == 200;
  return me;
}

struct Row {
  double seconds = 0;
  std::size_t characters = 0, failed = 0;
  std::vector<double> first, per_character;
  double predicted_seconds = 0,
         predicted_overhead_seconds = 0;  // the steps', and of it the overhead's
  std::vector<double> predicted_first, predicted_per_character;
  EngineCounters counters;
  // Where the server's CPU time went (cpu_clock.hpp): its threads by name, and
  // the probabilities' share of them.
  std::map<std::string, double> thread_cpu;
  double probabilities_cpu = 0;
  std::size_t wakes = 0;  // the requests' threads took what was waiting (request_wakes_taken)
  double chars_per_second() const { return double(characters) / seconds; }
};

// `clients` threads send `bodies` in turn to `server`, each waiting for its answer.
Row run(RunningServer& s, const std::vector<std::string>& bodies, std::size_t clients) {
  const EngineStats before = s.server.engine().stats();
  const std::size_t served_before = s.server.served().size();
  const std::map<std::string, double> cpu_before = cpu_seconds_by_thread_name();
  const double probabilities_before = probabilities_cpu_seconds();
  const std::size_t wakes_before = request_wakes_taken();
  std::vector<Seen> seen(bodies.size());
  std::atomic<std::size_t> next = 0;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client client = client_of(s);
      for (std::size_t i = next++; i < bodies.size(); i = next++)
        seen[i] = send_streamed(client, bodies[i]);
    });
  }
  for (std::thread& t : threads) t.join();
  Row row;
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  row.thread_cpu = cpu_seconds_by_thread_name();
  for (auto& [name, seconds] : row.thread_cpu)
    if (const auto was = cpu_before.find(name); was != cpu_before.end()) seconds -= was->second;
  row.probabilities_cpu = probabilities_cpu_seconds() - probabilities_before;
  row.wakes = request_wakes_taken() - wakes_before;
  for (const Seen& x : seen) {
    row.failed += !x.ok;
    row.characters += x.characters;
    if (x.characters > 0) row.first.push_back(x.first);
    if (x.characters > 1)
      row.per_character.push_back((x.last - x.first) / double(x.characters - 1));
  }
  const std::vector<ServedPoem> served = s.server.served();
  for (std::size_t i = served_before; i < served.size(); ++i) {
    const ServedPoem& p = served[i];
    row.predicted_first.push_back(p.predicted.first_seconds);
    if (p.characters > 1)
      row.predicted_per_character.push_back((p.predicted.seconds - p.predicted.first_seconds) /
                                            double(p.characters - 1));
  }
  const EngineStats now = s.server.engine().stats();
  row.predicted_seconds = now.predicted_seconds - before.predicted_seconds;
  row.predicted_overhead_seconds =
      now.predicted_overhead_seconds - before.predicted_overhead_seconds;
  const EngineCounters &after = now.counters, &was = before.counters;
  row.counters.prefill_positions = after.prefill_positions - was.prefill_positions;
  row.counters.reused_positions = after.reused_positions - was.reused_positions;
  row.counters.batched_rows = after.batched_rows - was.batched_rows;
  row.counters.batched_steps = after.batched_steps - was.batched_steps;
  row.counters.prefix_hits = after.prefix_hits - was.prefix_hits;
  row.counters.compute_seconds = after.compute_seconds - was.compute_seconds;
  row.counters.steps = after.steps - was.steps;
  row.counters.forward_cpu_seconds = after.forward_cpu_seconds - was.forward_cpu_seconds;
  row.counters.draw_cpu_seconds = after.draw_cpu_seconds - was.draw_cpu_seconds;
  row.counters.hand_off_cpu_seconds = after.hand_off_cpu_seconds - was.hand_off_cpu_seconds;
  row.counters.answers = after.answers - was.answers;
  row.counters.most_blocks_in_use = after.most_blocks_in_use;  // its warm-up's and its own
  row.counters.preemptions = after.preemptions - was.preemptions;
  return row;
}

// Where the server's CPU time went in a row (cpu_clock.hpp): the requests'
// threads are its handlers and the HTTP library's thread.
CpuParts cpu_parts(const Row& r) {
  const auto cpu = [&](const char* thread) {
    const auto found = r.thread_cpu.find(thread);
    return found == r.thread_cpu.end() ? 0.0 : found->second;
  };
  return CpuParts::of(r.counters, cpu("tang-engine"), cpu("tang-handler") + cpu("tang-http"),
                      r.probabilities_cpu);
}

// A row of the breakdown: its name, the row, and the run on the tiny model
// (step_overhead.hpp) at the same clients on the same path, whose parts
// besides the forward passes predict the row's.
struct BrokenDown {
  std::string name;
  Row row, tiny;
};

// Where the server's CPU time went in each row, as shares of it, and what a
// character cost besides the forward passes: measured, and predicted from the
// same parts on the tiny model (whose forward passes cost almost nothing: the
// same vocabulary, draws, hand-offs and HTTP): the draw, the hand-off and the
// engine's rest a character, the probabilities a character that asked, and
// HTTP a wake-up of a request's thread. The tiny model writes faster than its
// clients read, so there a wake-up sends several characters at once; at the
// model's pace each sends one: HTTP a character is predicted at a wake-up's.
void print_breakdown(const std::vector<BrokenDown>& rows) {
  std::cout << "\nWhere the server's CPU time went (each thread's own CPU clock; the engine "
               "times its parts\nitself), mixed openings, in % of the server's CPU seconds; "
               "then its CPU time a character\nbesides the forward passes, predicted from the "
               "same parts on the tiny model above, and\nmeasured (microseconds):\n"
               "  path, clients  CPU s  forward   draw  probabilities  hand-off  engine's rest"
               "   HTTP   besides/char predicted  measured\n";
  char line[200];
  for (const BrokenDown& b : rows) {
    const CpuParts p = cpu_parts(b.row), tiny = cpu_parts(b.tiny);
    const auto share = [&](double seconds) { return 100.0 * seconds / p.total(); };
    const auto per = [](double seconds, std::size_t n) {
      return 1e6 * seconds / double(std::max<std::size_t>(1, n));
    };
    const auto per_char = [&](double seconds, const Row& r) { return per(seconds, r.characters); };
    const double predicted =
        per_char(tiny.besides() - tiny.requests, b.tiny) + per(tiny.requests, b.tiny.wakes);
    std::snprintf(line, sizeof line,
                  "  %-13s  %5.2f  %6.1f%%  %4.1f%%  %12.1f%%  %7.1f%%  %12.1f%%  %4.1f%%   "
                  "%22.1f  %8.1f\n",
                  b.name.c_str(), p.total(), share(p.forward), share(p.draw),
                  share(p.probabilities), share(p.hand_off), share(p.engine_rest),
                  share(p.requests), predicted, per_char(p.besides(), b.row));
    std::cout << line;
  }
}

// The first character of a fresh request (opening 春风, one character), sent
// kFresh times one after another, on a server that is otherwise idle and while
// `long_clients` clients keep it writing long poems (127 characters, one after
// another): measured from the client's side, and as the cost model predicts it.
struct Fresh {
  std::vector<double> first, predicted;
};

Fresh fresh_requests(RunningServer& s, std::size_t long_clients) {
  constexpr int kFresh = 30;
  std::atomic<bool> stop = false;
  std::vector<std::thread> longs;
  for (std::size_t c = 0; c < long_clients; ++c) {
    longs.emplace_back([&, c] {
      httplib::Client client = client_of(s);
      PoemRequest r;
      r.max_chars = 127;  // with the newline the opening is, the whole context
      r.seed = 7000 + c;
      const std::string body = completion_body(r, true);
      while (!stop) send_streamed(client, body);
    });
  }
  for (int i = 0; i < 5000 && s.server.engine().stats().open_texts < long_clients; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::size_t served_before = s.server.served().size();
  Fresh f;
  httplib::Client client = client_of(s);
  PoemRequest fresh;
  fresh.opening = "春风";
  fresh.max_chars = 1;
  for (int i = 0; i < kFresh; ++i) {
    fresh.seed = static_cast<std::uint64_t>(i);
    const Seen seen = send_streamed(client, completion_body(fresh, true));
    if (!seen.ok || seen.characters != 1) throw UserError("a fresh request failed");
    f.first.push_back(seen.first);
  }
  stop = true;
  for (std::thread& t : longs) t.join();
  const std::vector<ServedPoem> served = s.server.served();
  for (std::size_t i = served_before; i < served.size(); ++i)
    if (served[i].characters == 1 && !served[i].stopped)  // the fresh ones
      f.predicted.push_back(served[i].predicted.first_seconds);
  return f;
}

// Lesson 13's question for a server: a pool of the same bytes in int8 holds 3.9
// times the positions; what does that do to the rows? 64 clients, mixed
// openings, on a pool of kBudgetBlocks float32 blocks (1.5 MB), on the int8
// pool of the same bytes, and on a float32 pool of the int8 pool's blocks (the
// same batches as int8, without its rebuild). Predicted: lesson 06's cost
// model for the steps each engine ran, plus the int8 pool's rebuild and store
// (int8_pool_cost.hpp) at rates measured here.
template <class RowOn>
void pool_on_a_budget(const GPT& model, const ServerSettings& settings, std::size_t requests,
                      std::uint64_t seed, const RowOn& row_on) {
  constexpr std::size_t kBudgetBlocks = 24, kClients = 64;
  const GPTConfig& config = model.config();
  const std::size_t block_size = settings.engine.block_size;
  const BlockPool fp32_block(config, 1, block_size),
      int8_block(config, 1, block_size, PoolNumbers::kInt8);
  const std::size_t int8_blocks = kBudgetBlocks * fp32_block.bytes() / int8_block.bytes();
  const Int8PoolCost cost = measure_int8_pool_cost(config, 51);
  struct Pool {
    const char* name;
    PoolNumbers numbers;
    std::size_t blocks;
  };
  const Pool pools[] = {{"float32", PoolNumbers::kFloat32, kBudgetBlocks},
                        {"int8", PoolNumbers::kInt8, int8_blocks},
                        {"float32", PoolNumbers::kFloat32, int8_blocks}};
  std::cout << "\nA pool on a budget (lesson 13): " << kClients
            << " clients, mixed openings, on a pool of " << kBudgetBlocks
            << " float32 blocks, on the int8 pool\nof the same bytes (a scale a position: "
            << int8_blocks
            << " blocks), and on a float32 pool of as many blocks. Predicted: the "
               "cost\nmodel for the steps each ran, int8's rebuild and store included ("
            << fixed(cost.read_ns, 2) << " and " << fixed(cost.write_ns, 2)
            << " ns a number, measured\nhere). Latencies in ms, p50, the cost model's in "
               "brackets:\n"
               "  pool     blocks     MB   chars/s predicted  measured  measured/predicted   mean "
               "batch  most blocks  preempted   first p50 (pred)   per char p50 (pred)\n";
  const std::vector<std::string> mixed = request_bodies(requests, false, seed);
  char line[320];
  for (const Pool& pool : pools) {
    ServerSettings s = settings;
    s.engine.blocks = pool.blocks;
    s.engine.pool_numbers = pool.numbers;
    if (pool.numbers == PoolNumbers::kInt8) add_int8_pool_cost(s.engine, cost, config);
    const Row b = row_on(s, mixed, kClients);
    const double bytes =
        double(pool.blocks) *
        double(pool.numbers == PoolNumbers::kInt8 ? int8_block.bytes() : fp32_block.bytes());
    const double predicted = double(b.characters) / b.predicted_seconds;
    std::snprintf(line, sizeof line,
                  "  %-7s  %6zu  %5.2f   %17.0f  %8.0f  %18.2f   %10.1f  %11zu  %9zu   %7.2f "
                  "(%6.2f)   %11.3f (%5.3f)\n",
                  pool.name, pool.blocks, bytes / (1 << 20), predicted, b.chars_per_second(),
                  b.chars_per_second() / predicted,
                  double(b.counters.batched_rows) /
                      double(std::max<std::size_t>(1, b.counters.batched_steps)),
                  b.counters.most_blocks_in_use, b.counters.preemptions,
                  1000 * percentile(b.first, 50), 1000 * percentile(b.predicted_first, 50),
                  1000 * percentile(b.per_character, 50),
                  1000 * percentile(b.predicted_per_character, 50));
    std::cout << line;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"serve_bench: poem_server under 1, 4, 16 and 64 clients, over HTTP", "serve_bench"};
  std::string checkpoint = default_checkpoint_path(), tsv;
  std::size_t requests = 64;
  std::uint64_t seed = 42;
  app.add_option("--checkpoint", checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--requests", requests,
                 "requests a row, in [1, 100000] (with --pool-budget, 256 unless given)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_option("--seed", seed, "the first request's seed (then seed + 1, ...)")
      ->capture_default_str();
  CLI::Option* tsv_option =
      app.add_option("--tsv", tsv, "also write the rows here, for scripts/plot_serve_bench.sh");
  bool pool_budget = false;
  app.add_flag("--pool-budget", pool_budget,
               "instead of the tables: a pool on a budget, float32 against int8 (lesson 13)")
      ->excludes(tsv_option);
  return run_program(argc, argv, app, [&] {
    // lesson 13's table: 64 requests from its 64 clients would all arrive at once and end
    // together; 256 reach the steady state that the cost model's latencies describe
    if (pool_budget && app.count("--requests") == 0) requests = 256;
    const GPT model = load_checkpoint(checkpoint);
    require_multi_head(model.config(), "lesson 11's paged cache");
    const MachineProfile profile = load_or_measure_profile(
        default_profile_path(), std::vector{plain_fp32_loop(), panel_product_loop(kTunedLoop)},
        [](const std::string& note) { std::cout << "(" << note << ")\n"; });
    ServerSettings settings;
    settings.port = 0;
    settings.web_dir = TANG_WEB_DIR;
    // what a step costs besides the model, over HTTP to clients in this process, on
    // the lesson's path and on the tuned one; each run's parts kept (tiny_runs)
    std::map<std::size_t, Row> tiny_runs, tuned_tiny_runs;  // by clients
    const auto measure_overhead = [&](const ServerSettings& on, std::map<std::size_t, Row>& runs) {
      return measure_step_overhead(model, [&](const GPT& tiny, std::size_t clients) {
        RunningServer s(tiny, on);
        std::vector<std::string> bodies;
        for (const PoemRequest& r : overhead_requests(clients))
          bodies.push_back(completion_body(r, true));
        run(s, bodies, clients);  // warm, as every row's server is
        const Row row = run(s, bodies, clients);
        runs[clients] = row;
        return OverheadRun{row.seconds, row.counters};
      });
    };
    const StepOverhead overhead = measure_overhead(settings, tiny_runs);
    predict_served_steps(settings.engine, model.config(), profile, overhead);
    ServerSettings one_at_a_time = settings;
    one_at_a_time.engine.max_batch = 1;
    std::ofstream table;
    if (!tsv.empty()) {
      table.open(tsv);
      if (!table) throw UserError("cannot write " + tsv + ": check the folder");
      table << "clients\topenings\tchars_per_s\tpredicted_chars_per_s\tone_at_a_time_chars_per_s"
               "\tfirst_p50_ms\tfirst_p95_ms\tper_char_p50_ms\tper_char_p95_ms\n";
    }
    std::cout << "serve_bench: " << requests
              << " streamed requests a row over HTTP, to poem_server in this process; the\n"
                 "cost model's predictions from this machine's profile.\n\n"
                 "What a step costs besides the model (the draws, the characters handed to each "
                 "request's queue,\nthe events sent and read), measured over HTTP with our "
                 "vocabulary on one layer 4 "
                 "wide, its forward\npasses taken out:\n ";
    for (const auto& [texts, ms] : overhead.ms_at) std::printf(" %.1f texts %.3f ms;", texts, ms);
    std::cout << "\n";
    // the requests: mixed openings; one shared opening; the same without taking it from the pool
    struct Openings {
      const char* name;
      bool shared, reuse;
    };
    const Openings kinds[] = {
        {"mixed", false, true}, {"shared", true, true}, {"no reuse", true, false}};
    struct Result {
      std::size_t clients;
      const char* openings;
      Row batched, single;
    };
    // a row: `clients` clients send `bodies` to a fresh server of `s`, after `clients`
    // requests of its own (mixed openings, other seeds) that are not counted: its threads
    // and memory are warm when the row starts
    const auto row_on = [&](const ServerSettings& s, const std::vector<std::string>& bodies,
                            std::size_t clients) {
      RunningServer server(model, s);
      run(server, request_bodies(clients, false, seed + 1000000), clients);
      Row row = run(server, bodies, clients);
      if (row.failed > 0) throw UserError(std::to_string(row.failed) + " requests failed");
      return row;
    };
    if (pool_budget) {
      pool_on_a_budget(model, settings, requests, seed, row_on);
      return 0;
    }
    std::vector<Result> results;
    for (const Openings& kind : kinds) {
      const std::vector<std::string> bodies = request_bodies(requests, kind.shared, seed);
      settings.engine.reuse_prefixes = one_at_a_time.engine.reuse_prefixes = kind.reuse;
      for (const std::size_t clients : {1, 4, 16, 64}) {
        results.push_back({clients, kind.name, row_on(settings, bodies, clients),
                           row_on(one_at_a_time, bodies, clients)});
      }
    }
    char line[320];
    std::cout
        << "\nThroughput: all the characters over the row's time. The row's time as the cost "
           "model predicts it\nand as measured: the forward passes (lesson 06's cost model; "
           "timed by the engine) and the rest\n(the overhead above, for each step's texts; the "
           "row's time less the forward passes). The same\nserver with a batch of one (one "
           "request at a time) beside:\n"
           "  clients  openings   chars/s predicted  measured  measured/predicted   forward s "
           "predicted  measured   besides s predicted  measured   one at a time  x one   mean "
           "batch\n";
    for (const Result& r : results) {
      const Row& b = r.batched;
      const double predicted = double(b.characters) / b.predicted_seconds;
      std::snprintf(line, sizeof line,
                    "  %7zu  %-9s  %17.0f  %8.0f  %18.2f   %19.3f  %8.3f   %19.3f  %8.3f   %13.0f  "
                    "%5.2f   %10.1f\n",
                    r.clients, r.openings, predicted, b.chars_per_second(),
                    b.chars_per_second() / predicted,
                    b.predicted_seconds - b.predicted_overhead_seconds, b.counters.compute_seconds,
                    b.predicted_overhead_seconds, b.seconds - b.counters.compute_seconds,
                    r.single.chars_per_second(), b.chars_per_second() / r.single.chars_per_second(),
                    double(b.counters.batched_rows) /
                        double(std::max<std::size_t>(1, b.counters.batched_steps)));
      std::cout << line;
    }
    std::cout << "\nLatency, from the client's side, in ms (the cost model's p50 in brackets): "
                 "first, from sending\nto the first character; per char, between a poem's "
                 "characters. The pool: openings' positions\nreused, openings that found some, "
                 "the most blocks in use at once:\n"
                 "  clients  openings    first p50 (pred)    p95     p99   per char p50 (pred)    "
                 "p95     p99   reused  hits  blocks\n";
    for (const Result& r : results) {
      const Row& b = r.batched;
      std::snprintf(
          line, sizeof line,
          "  %7zu  %-9s  %10.2f (%5.2f)  %6.2f  %6.2f   %13.3f (%5.3f)  %6.3f  %6.3f   %5.1f%%  "
          "%4zu  %6zu\n",
          r.clients, r.openings, 1000 * percentile(b.first, 50),
          1000 * percentile(b.predicted_first, 50), 1000 * percentile(b.first, 95),
          1000 * percentile(b.first, 99), 1000 * percentile(b.per_character, 50),
          1000 * percentile(b.predicted_per_character, 50), 1000 * percentile(b.per_character, 95),
          1000 * percentile(b.per_character, 99),
          100.0 * double(b.counters.reused_positions) /
              double(std::max<std::size_t>(1, b.counters.prefill_positions)),
          b.counters.prefix_hits, b.counters.most_blocks_in_use);
      std::cout << line;
      if (table) {
        table << r.clients << "\t" << r.openings << "\t" << b.chars_per_second() << "\t"
              << double(b.characters) / b.predicted_seconds << "\t" << r.single.chars_per_second()
              << "\t" << 1000 * percentile(b.first, 50) << "\t" << 1000 * percentile(b.first, 95)
              << "\t" << 1000 * percentile(b.per_character, 50) << "\t"
              << 1000 * percentile(b.per_character, 95) << "\n";
      }
    }
    // the tuned path: the same rows with every product panel_matmul
    settings.engine.reuse_prefixes = true;
    ServerSettings tuned = settings;
    tuned.engine = with_tuned_path(tuned.engine);
    const StepOverhead tuned_overhead = measure_overhead(tuned, tuned_tiny_runs);
    predict_served_steps(tuned.engine, model.config(), profile, tuned_overhead, kTunedLoop);
    ServerSettings tuned_one = tuned;
    tuned_one.engine.max_batch = 1;
    std::cout << "\nThe tuned path (poem_server --tuned: every product fast::panel_matmul, a "
                 "row summed alike in any\nbatch; GELU and the draw in vectors), mixed openings, "
                 "beside the lesson's path above:\n"
                 "  clients   chars/s predicted  measured  measured/predicted   one at a time  x "
                 "one   lesson's path  x lesson's\n";
    const std::vector<std::string> mixed = request_bodies(requests, false, seed);
    std::vector<BrokenDown> broken_down;
    for (const Result& r : results)
      if (std::string(r.openings) == "mixed" && (r.clients == 1 || r.clients == 16))
        broken_down.push_back(
            {"lesson's, " + std::to_string(r.clients), r.batched, tiny_runs.at(r.clients)});
    for (const std::size_t clients : {1, 16}) {
      const Row b = row_on(tuned, mixed, clients), one = row_on(tuned_one, mixed, clients);
      broken_down.push_back({"tuned, " + std::to_string(clients), b, tuned_tiny_runs.at(clients)});
      const double plain = std::find_if(results.begin(), results.end(), [&](const Result& r) {
                             return r.clients == clients && std::string(r.openings) == "mixed";
                           })->batched.chars_per_second();
      const double predicted = double(b.characters) / b.predicted_seconds;
      std::snprintf(line, sizeof line,
                    "  %7zu  %18.0f  %8.0f  %18.2f   %13.0f  %5.2f   %13.0f  %10.2f\n", clients,
                    predicted, b.chars_per_second(), b.chars_per_second() / predicted,
                    one.chars_per_second(), b.chars_per_second() / one.chars_per_second(), plain,
                    b.chars_per_second() / plain);
      std::cout << line;
    }
    print_breakdown(broken_down);
    // a fresh request's first character, idle and behind eight long texts
    std::cout
        << "\nThe first character of a fresh request (opening 春风, one character; 30 sent one "
           "after another),\nin ms, p50 (the cost model's p50 in brackets) and p95: on a "
           "server otherwise idle, and while\neight clients keep it writing poems of 127 "
           "characters:\n";
    double idle_p50 = 0;
    for (const std::size_t long_clients : {0, 8}) {
      RunningServer s(model, settings);
      run(s, request_bodies(8, false, seed + 1000000), 8);  // warm, as every row's server is
      const Fresh f = fresh_requests(s, long_clients);
      const double p50 = percentile(f.first, 50);
      if (long_clients == 0) idle_p50 = p50;
      std::snprintf(line, sizeof line, "  %-16s %6.2f (%5.2f)  %6.2f",
                    long_clients == 0 ? "idle" : "8 long streams", 1000 * p50,
                    1000 * percentile(f.predicted, 50), 1000 * percentile(f.first, 95));
      std::cout << line;
      if (long_clients > 0) std::cout << "   " << fixed(p50 / idle_p50, 2) << " times idle";
      std::cout << "\n";
    }
    return 0;
  });
}

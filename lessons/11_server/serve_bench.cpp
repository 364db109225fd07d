// serve_bench: poem_server under load, over real HTTP.
//
// Starts two servers in this process on free ports of 127.0.0.1: the lesson's
// (continuous batching, up to 64 texts a step) and the same with a batch of one
// (one request at a time, the others queue). For 1, 4, 16 and 64 clients, each
// sending its next streamed request as soon as the last one ended, it sends a
// fixed number of requests, once with mixed openings (openings and acrostics,
// lesson 11's mix) and once with a shared opening of 19 positions, and prints:
// characters a second (measured, predicted by lesson 06's cost model for the
// steps the engine ran, and the batch-of-one server's), the time to the first
// character and per character (p50, p95, p99, from the client's side, with the
// cost model's p50), and what the pool reused.
//
//   build/release/lessons/11_server/serve_bench                  64 requests a row
//   build/release/lessons/11_server/serve_bench --requests 256 --tsv out.tsv
//   scripts/plot_serve_bench.sh out.tsv chart.svg                 the page's chart
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "06_kvcache/machine_profile.hpp"
#include "06_kvcache/step_cost.hpp"
#include "11_server/load_run.hpp"  // percentile
#include "11_server/poem_http.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "program.hpp"

namespace {

using namespace tang;
using Clock = std::chrono::steady_clock;

const char* const kSharedOpening = "白日依山尽，黄河入海流。欲穷千里目，";  // 19 positions

// What one client saw of one streamed answer.
struct Seen {
  std::size_t characters = 0;
  double first = 0, last = 0;  // seconds from sending to the first and last character
  bool ok = false;
};

std::vector<nlohmann::json> request_bodies(std::size_t n, bool shared, std::uint64_t seed) {
  const char* openings[] = {"", "春风", "明月松间照，", "山"};
  const char* heads[] = {"春花秋月", "江山如画"};
  std::vector<nlohmann::json> bodies;
  for (std::size_t i = 0; i < n; ++i) {
    nlohmann::json b = {{"stream", true}, {"seed", seed + i}};
    if (shared) {
      b["prompt"] = kSharedOpening;
    } else if (i % 4 == 3) {
      b["heads"] = heads[(i / 4) % 2];
    } else {
      b["prompt"] = openings[i % 4];
    }
    bodies.push_back(b);
  }
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

struct Row {
  double seconds = 0;
  std::size_t characters = 0, failed = 0;
  std::vector<double> first, per_character;
  double predicted_seconds = 0;
  std::vector<double> predicted_first, predicted_per_character;
  EngineCounters counters;
  double chars_per_second() const { return double(characters) / seconds; }
};

// `clients` threads send `bodies` in turn to `server`, each waiting for its answer.
Row run(RunningServer& s, const std::vector<nlohmann::json>& bodies, std::size_t clients) {
  const EngineCounters before = s.server.engine().stats().counters;
  const double predicted_before = s.server.engine().predicted_seconds();
  const std::size_t served_before = s.server.served().size();
  std::vector<Seen> seen(bodies.size());
  std::atomic<std::size_t> next = 0;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client client("127.0.0.1", s.port);
      client.set_read_timeout(std::chrono::seconds(120));
      client.set_tcp_nodelay(true);
      for (std::size_t i = next++; i < bodies.size(); i = next++) {
        Seen& me = seen[i];
        const Clock::time_point sent = Clock::now();
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/completions";
        req.body = bodies[i].dump();
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
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Row row;
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const Seen& x : seen) {
    row.failed += !x.ok;
    row.characters += x.characters;
    if (x.characters > 0) row.first.push_back(x.first);
    if (x.characters > 1)
      row.per_character.push_back((x.last - x.first) / double(x.characters - 1));
  }
  row.predicted_seconds = s.server.engine().predicted_seconds() - predicted_before;
  const std::vector<ServedPoem> served = s.server.served();
  for (std::size_t i = served_before; i < served.size(); ++i) {
    const ServedPoem& p = served[i];
    row.predicted_first.push_back(p.predicted.first_seconds);
    if (p.characters > 1)
      row.predicted_per_character.push_back((p.predicted.seconds - p.predicted.first_seconds) /
                                            double(p.characters - 1));
  }
  const EngineCounters after = s.server.engine().stats().counters;
  row.counters.prefill_positions = after.prefill_positions - before.prefill_positions;
  row.counters.reused_positions = after.reused_positions - before.reused_positions;
  row.counters.batched_rows = after.batched_rows - before.batched_rows;
  row.counters.batched_steps = after.batched_steps - before.batched_steps;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"serve_bench: poem_server under 1, 4, 16 and 64 clients, over HTTP", "serve_bench"};
  std::string checkpoint = default_checkpoint_path(), tsv;
  std::size_t requests = 64;
  std::uint64_t seed = 42;
  app.add_option("--checkpoint", checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--requests", requests, "requests a row, in [1, 100000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_option("--seed", seed, "the first request's seed (then seed + 1, ...)")
      ->capture_default_str();
  app.add_option("--tsv", tsv, "also write the rows here, for scripts/plot_serve_bench.sh");
  return run_program(argc, argv, app, [&] {
    const GPT model = load_checkpoint(checkpoint);
    require_multi_head(model.config(), "lesson 11's paged cache");
    const MachineProfile profile =
        load_or_measure_profile(default_profile_path(), std::vector{plain_fp32_loop()},
                                [](const std::string& note) { std::cout << "(" << note << ")\n"; });
    ServerSettings settings;
    settings.port = 0;
    settings.web_dir = TANG_WEB_DIR;
    settings.engine.predict_ms = [config = model.config(), profile](const StepWork& w) {
      return predict_plain_step(config, w, profile).total_ms();
    };
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
                 "cost model's predictions from this machine's profile. chars/s: all the "
                 "characters over the\nrow's time; first: from sending to the first character; "
                 "per char: between a poem's characters.\n\n"
                 "  clients  openings  chars/s predicted  measured  /pred  one at a time  x one"
                 "   first ms p50 (pred)    p95     p99   per char ms p50 (pred)   p95    p99"
                 "   reused  mean batch\n";
    char line[320];
    for (const bool shared : {false, true}) {
      const std::vector<nlohmann::json> bodies = request_bodies(requests, shared, seed);
      for (const std::size_t clients : {1, 4, 16, 64}) {
        Row batched, single;
        {
          RunningServer s(model, settings);
          batched = run(s, bodies, clients);
        }
        {
          RunningServer s(model, one_at_a_time);
          single = run(s, bodies, clients);
        }
        if (batched.failed + single.failed > 0)
          throw UserError(std::to_string(batched.failed + single.failed) + " requests failed");
        const double predicted = double(batched.characters) / batched.predicted_seconds;
        std::snprintf(
            line, sizeof line,
            "  %7zu  %-8s  %17.0f  %8.0f  %5.2f  %13.0f  %5.2f   %12.2f (%5.2f)  %6.2f  %6.2f"
            "   %15.3f (%5.3f)  %5.3f  %5.3f   %5.1f%%  %10.1f\n",
            clients, shared ? "shared" : "mixed", predicted, batched.chars_per_second(),
            batched.chars_per_second() / predicted, single.chars_per_second(),
            batched.chars_per_second() / single.chars_per_second(),
            1000 * percentile(batched.first, 50), 1000 * percentile(batched.predicted_first, 50),
            1000 * percentile(batched.first, 95), 1000 * percentile(batched.first, 99),
            1000 * percentile(batched.per_character, 50),
            1000 * percentile(batched.predicted_per_character, 50),
            1000 * percentile(batched.per_character, 95),
            1000 * percentile(batched.per_character, 99),
            100.0 * double(batched.counters.reused_positions) /
                double(std::max<std::size_t>(1, batched.counters.prefill_positions)),
            double(batched.counters.batched_rows) /
                double(std::max<std::size_t>(1, batched.counters.batched_steps)));
        std::cout << line << std::flush;
        if (table) {
          table << clients << "\t" << (shared ? "shared" : "mixed") << "\t"
                << batched.chars_per_second() << "\t" << predicted << "\t"
                << single.chars_per_second() << "\t" << 1000 * percentile(batched.first, 50) << "\t"
                << 1000 * percentile(batched.first, 95) << "\t"
                << 1000 * percentile(batched.per_character, 50) << "\t"
                << 1000 * percentile(batched.per_character, 95) << "\n";
        }
      }
    }
    return 0;
  });
}

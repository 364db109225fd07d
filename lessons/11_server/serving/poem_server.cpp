// poem_server: lesson 11's engine over HTTP, on this machine only by default.
//
//   build/release/lessons/11_server/poem_server --port 8080
//   then open http://127.0.0.1:8080/, or
//   curl -N http://127.0.0.1:8080/v1/completions -d '{"prompt": "春风", "stream": true}'
//
// --port 0 takes any free port. It prints one line, "listening on URL", when it
// is ready. SIGTERM or Ctrl-C: no new poems, the running ones get --drain
// seconds to finish and are cut after that, then it exits 0.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>

#include "11_server/serving/poem_http.hpp"
#include "checkpoint.hpp"
#include "program.hpp"

int main(int argc, char** argv) {
  using namespace tang;
  CLI::App app{"poem_server: lesson 11's poem server (continuous batching over a paged cache)",
               "poem_server"};
  std::string checkpoint = default_checkpoint_path();
  ServerSettings settings;
  settings.web_dir = TANG_WEB_DIR;
  bool no_reuse = false, tuned = false, int8_pool = false;
  double drain = 10;
  int timeout = 10;
  app.add_option("--checkpoint", checkpoint, "model file (safetensors)")->capture_default_str();
  app.add_option("--host", settings.host, "address to listen on (127.0.0.1: this machine only)")
      ->capture_default_str();
  app.add_option("--port", settings.port, "port, in [0, 65535]; 0 takes any free one")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_option("--web", settings.web_dir, "the folder of the page (index.html)")
      ->capture_default_str();
  app.add_option("--blocks", settings.engine.blocks,
                 "cache blocks of 16 positions in the pool, in [8, 1000000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{8}, std::size_t{1000000}));
  app.add_option("--max-batch", settings.engine.max_batch,
                 "poems written at once, the others wait, in [1, 256] (1: one request at a time)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
  app.add_option("--max-texts", settings.engine.max_texts,
                 "poems open at once (written or waiting to start); more get 503 (busy), "
                 "in [1, 4096]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  app.add_flag("--no-prefix-reuse", no_reuse, "compute every opening, even one the pool holds");
  app.add_flag("--int8-pool", int8_pool,
               "keep the pool's keys and values in int8 with a scale a position (lesson 13): "
               "3.9 times the positions in the same bytes, poems slightly different");
  app.add_flag("--tuned", tuned,
               "the tuned product (fused multiply-adds in the widest vectors, each row summed "
               "alike in any batch), GELU (erf in vectors) and draw (two passes over the "
               "vocabulary): the poems of the tuned single-text writer, not lesson 06's");
  app.add_option("--timeout", timeout,
                 "seconds a connection has to send a whole request (from its last answer), and "
                 "a client to take more of its answer; then the server closes it, in [1, 600]")
      ->capture_default_str()
      ->check(CLI::Range(1, 600));
  app.add_option("--max-connections", settings.http.max_connections,
                 "connections open at once (idle ones too); one more closes the one idle the "
                 "longest between two requests, in [1, 100000] (and at most what the system "
                 "lets this process open)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_option("--max-client-connections", settings.http.max_client_connections,
                 "connections open at once from one address; one more is closed at once, "
                 "in [1, 100000]")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  app.add_option("--drain", drain,
                 "seconds the running poems get to finish at SIGTERM, in [0, 600]")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600.0));
  return run_program(argc, argv, app, [&] {
    settings.engine.reuse_prefixes = !no_reuse;
    if (tuned) settings.engine = with_tuned_path(settings.engine);
    if (int8_pool) settings.engine.pool_numbers = PoolNumbers::kInt8;
    settings.http.timeout = std::chrono::seconds(timeout);
    // SIGINT and SIGTERM go to one thread that waits for them (every thread made
    // after this inherits the mask), never to a thread inside the engine
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);  // a client that went away is a failed write, not a signal

    const GPT model = load_checkpoint(checkpoint);
    require_multi_head(model.config(), "lesson 11's paged cache");
    PoemHttpServer server(model, settings);
    const int port = server.bind();
    std::cout << "poem_server: listening on http://" << settings.host << ":" << port << "/"
              << std::endl;
    std::atomic<bool> signalled = false;
    std::thread signals([&] {
      int signal = 0;
      sigwait(&stop_signals, &signal);
      signalled = true;
      std::cout << "poem_server: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT")
                << ": no new poems; the running ones get " << drain << " s" << std::endl;
      server.shut_down(std::chrono::milliseconds(static_cast<long>(drain * 1000)));
    });
    server.serve();
    if (!signalled) kill(getpid(), SIGTERM);  // it stopped on its own: wake the waiting thread
    signals.join();
    const EngineStats s = server.engine().stats();
    std::cout << "poem_server: stopped after " << s.counters.texts_started << " poems; "
              << s.pool.in_use << " blocks in use" << std::endl;
    return 0;
  });
}

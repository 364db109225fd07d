// poem_http.hpp: the engine over HTTP (http_server.hpp: libmicrohttpd and our bounds).
//
//   POST /v1/completions   completion_request.hpp's body; the poem as one JSON
//                          answer, or with "stream": true as Server-Sent Events:
//                          one event per character with its top 5, a last event
//                          with the finish reason and the usage, then [DONE]
//   GET  /                 the page (web/index.html): type an opening or heads,
//                          watch the poem appear with each character's candidates
//   GET  /metrics          Prometheus text: requests, characters, batch size, time
//                          to the first character and per character, blocks, hits
//
// A bad body gets 400 with a JSON error naming the field; a full engine 503
// with Retry-After; every error of ours, the HTTP layer's too (a body too large,
// no handler free), a JSON body in OpenAI's shape, counted in /metrics. A request's handler runs
// on a thread of the server's pool while the engine writes its poems; a client
// that goes away (it closes the connection, or stops reading for --timeout)
// stops its poems, streamed or not, and the engine frees their blocks at the
// next step.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "11_server/paged_engine.hpp"
#include "11_server/poem_service.hpp"
#include "11_server/serving/completion_request.hpp"
#include "11_server/serving/http_server.hpp"

namespace tang {

struct ServerSettings {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  EngineOptions engine;
  std::string web_dir;      // holds index.html
  HttpServerSettings http;  // limits, the request deadline, connections
};

class PoemHttpServer {
 public:
  PoemHttpServer(const GPT& model, const ServerSettings& settings);
  ~PoemHttpServer();

  // Binds the port; returns it (the free one chosen for port 0). Throws
  // UserError when it cannot (in use, not allowed).
  int bind();
  // Answers requests until stop(). Call after bind().
  void serve();
  // From another thread: no new poems (503), the running ones get `grace` to
  // finish and are cut after it; then the server stops answering.
  void shut_down(std::chrono::milliseconds grace);

  std::string metrics_text() const;
  // The first 100,000 poems served, with their counts and times as the server saw
  // them and as the cost model predicts them (when the engine has predict_ms), but
  // not their text, so that the log stays under 10 MB; for serve_bench.
  std::vector<ServedPoem> served() const;
  PagedEngine& engine() { return *engine_; }

  struct Written;  // one choice of a request, as it was written (poem_http.cpp)

 private:
  struct Metrics;
  void route(const HttpRequest& req, HttpExchange& exchange);
  // Answers and counts it.
  void answer(HttpExchange& exchange, int status, std::string_view type, std::string_view body,
              const HttpHeaders& extra = {});
  // POST /v1/completions (chat false) and /v1/chat/completions (chat true).
  void complete(const HttpRequest& req, HttpExchange& exchange, bool chat);
  // false: the engine takes no more texts (nothing was written or called)
  bool write_choices(const CompletionRequest& r, std::vector<Written>& choices,
                     const std::function<bool(std::size_t, const WrittenCharacter&)>& on_character,
                     const std::function<void()>& on_started = {});
  std::string error_answer(int status, const std::string& message);  // the HTTP layer's
  const GPT& model_;
  ServerSettings settings_;
  std::string page_;
  std::unique_ptr<PagedEngine> engine_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace tang

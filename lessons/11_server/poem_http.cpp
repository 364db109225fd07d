#include "11_server/poem_http.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "11_server/completion_request.hpp"
#include "11_server/poem_service.hpp"
#include "errors.hpp"

namespace tang {

namespace {

using Json = nlohmann::ordered_json;  // fields in the order written

constexpr const char* kModelName = "tang-gpt";

// Counts of observations at or below each bound, as Prometheus histograms keep them.
struct Histogram {
  static constexpr double kBounds[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
                                       0.1,    0.2,   0.5,   1,     2,    5};
  std::size_t counts[std::size(kBounds)] = {};
  std::size_t count = 0;
  double sum = 0;
  void observe(double seconds) {
    for (std::size_t i = 0; i < std::size(kBounds); ++i) counts[i] += seconds <= kBounds[i];
    ++count;
    sum += seconds;
  }
  void write(std::ostream& out, const std::string& name, const std::string& help) const {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
    for (std::size_t i = 0; i < std::size(kBounds); ++i)
      out << name << "_bucket{le=\"" << kBounds[i] << "\"} " << counts[i] << "\n";
    out << name << "_bucket{le=\"+Inf\"} " << count << "\n"
        << name << "_sum " << sum << "\n"
        << name << "_count " << count << "\n";
  }
};

std::string error_body(const std::string& message, const std::string& field,
                       const std::string& type = "invalid_request_error") {
  Json j;
  j["error"] = {{"message", message}, {"type", type}, {"param", field}};
  return j.dump() + "\n";
}

// The one model of GET /v1/models, and the answer for any other name.
Json model_entry() {
  return {{"id", kModelName}, {"object", "model"}, {"created", 0}, {"owned_by", "tang"}};
}

std::string model_not_found(const std::string& name) {
  Json j;
  j["error"] = {{"message", "model: the model '" + name +
                                "' does not exist here; GET /v1/models "
                                "lists the one there is ('" +
                                kModelName + "')"},
                {"type", "invalid_request_error"},
                {"param", "model"},
                {"code", "model_not_found"}};
  return j.dump() + "\n";
}

// The message of an error cpp-httplib answers by itself.
std::string http_error_message(const httplib::Request& req, int status) {
  switch (status) {
    case 404:
      return "no route " + req.method + " " + req.path +
             ": the routes are GET /, GET /metrics, GET /v1/models and POST /v1/completions";
    case 413:
      return "the request is larger than the server takes (1 MB)";
    case 414:
      return "the request's address is too long";
    case 400:
      return "the request could not be read: malformed, or not sent within --timeout seconds";
    default:
      return "the server cannot answer this request (HTTP " + std::to_string(status) + ")";
  }
}

std::string finish_reason(const ServedPoem& p) {
  return p.stopped ? "cancelled" : p.ended ? "stop" : "length";
}

Json usage(const ServedPoem& p, std::size_t prompt) {
  return {{"prompt_tokens", prompt},
          {"completion_tokens", p.characters},
          {"total_tokens", prompt + p.characters}};
}

// One streamed character: OpenAI's completion chunk, its logprobs with the top 5.
std::string character_event(const std::string& id, std::time_t created, const WrittenCharacter& w,
                            const Tokenizer& tokenizer) {
  Json choice = {{"index", 0}, {"text", w.character}};
  if (w.probability >= 0) {
    Json top = Json::object();
    for (const Candidate& c : w.top) top[tokenizer.character(c.id)] = std::log(c.probability);
    choice["logprobs"] = {{"tokens", {w.character}},
                          {"token_logprobs", {std::log(w.probability)}},
                          {"top_logprobs", {top}}};
  } else {
    choice["logprobs"] = nullptr;  // a character the acrostic put there itself
  }
  choice["finish_reason"] = nullptr;
  const Json chunk = {{"id", id},
                      {"object", "text_completion"},
                      {"created", created},
                      {"model", kModelName},
                      {"choices", {choice}}};
  return "data: " + chunk.dump() + "\n\n";
}

}  // namespace

struct PoemHttpServer::Metrics {
  mutable std::mutex mutex;
  std::map<int, std::size_t> responses;  // by status
  std::size_t characters = 0, poems = 0, cut = 0, next_id = 1;
  Histogram first_character, per_character;
  std::vector<ServedPoem> log;  // the last kLogged poems
  static constexpr std::size_t kLogged = 100000;

  void answered(int status) {
    const std::lock_guard lock(mutex);
    ++responses[status];
  }
  void served(const ServedPoem& p) {
    const std::lock_guard lock(mutex);
    characters += p.characters;
    ++poems;
    cut += p.stopped;
    if (p.characters > 0) first_character.observe(p.first_seconds);
    if (p.characters > 1)
      per_character.observe((p.seconds - p.first_seconds) / double(p.characters - 1));
    if (log.size() < kLogged) log.push_back(p);
  }
  std::string new_id() {
    const std::lock_guard lock(mutex);
    return "cmpl-" + std::to_string(next_id++);
  }
};

PoemHttpServer::PoemHttpServer(const GPT& model, const ServerSettings& settings)
    : model_(model),
      settings_(settings),
      engine_(std::make_unique<PagedEngine>(model, settings.engine)),
      metrics_(std::make_unique<Metrics>()),
      http_(std::make_unique<httplib::Server>()) {
  const std::string page_path = settings.web_dir + "/index.html";
  std::ifstream page(page_path, std::ios::binary);
  if (!page)
    throw UserError("cannot read the page " + page_path + ": give --web the folder of index.html");
  page_.assign(std::istreambuf_iterator<char>(page), {});
  const std::size_t threads = settings.engine.max_texts + 8;  // every open text and a few more
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // --timeout: the longest wait for a request to start, for each read of it and
  // each write of the answer (cpp-httplib's keep-alive wait is 5 s of its own otherwise)
  http_->set_keep_alive_timeout(settings.client_timeout.count());
  http_->set_read_timeout(settings.client_timeout);
  http_->set_write_timeout(settings.client_timeout);
  // Every error answer has a JSON body and is counted, also those cpp-httplib gives
  // itself (a route that does not exist, a request it could not read, one too large).
  http_->set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // ours: counted and with its body already
    res.set_content(error_body(http_error_message(req, res.status), "",
                               res.status == 404 ? "not_found_error" : "invalid_request_error"),
                    "application/json");
    metrics_->answered(res.status);
  });
  http_->set_payload_max_length(1 << 20);  // bigger bodies: 413 before reading them
  http_->set_tcp_nodelay(true);            // each event goes out at once, not held to fill a packet
  // cpp-httplib 0.11 listens with a queue of 5 connections not yet accepted: a burst
  // of clients overflows it and some are dropped. Keep the socket to listen again
  // with the system's limit after binding (bind()).
  http_->set_socket_options([this](int socket) {
    httplib::default_socket_options(socket);
    listening_socket_ = socket;
  });
  routes();
}

PoemHttpServer::~PoemHttpServer() {
  if (http_->is_running()) http_->stop();
}

int PoemHttpServer::bind() {
  const int port =
      settings_.port == 0
          ? http_->bind_to_any_port(settings_.host)
          : (http_->bind_to_port(settings_.host, settings_.port) ? settings_.port : -1);
  if (port < 0) {
    throw UserError("cannot listen on " + settings_.host + ":" + std::to_string(settings_.port) +
                    " (in use, or not allowed): pick another --port");
  }
  if (listening_socket_ >= 0) ::listen(listening_socket_, SOMAXCONN);  // a longer queue
  return port;
}

void PoemHttpServer::serve() {
  http_->listen_after_bind();
}

void PoemHttpServer::shut_down(std::chrono::milliseconds grace) {
  engine_->stop_taking();
  const auto until = std::chrono::steady_clock::now() + grace;
  while (engine_->stats().open_texts > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  engine_->cancel_all();  // the streams still running end with finish_reason "cancelled"
  const auto cut_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (engine_->stats().open_texts > 0 && std::chrono::steady_clock::now() < cut_until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  http_->stop();
}

void PoemHttpServer::routes() {
  http_->Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(page_, "text/html; charset=utf-8");
    metrics_->answered(200);
  });
  // The models this server has, as OpenAI lists them: one.
  http_->Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(Json{{"object", "list"}, {"data", {model_entry()}}}.dump() + "\n",
                    "application/json");
    metrics_->answered(200);
  });
  http_->Get(R"(/v1/models/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (req.matches[1] != kModelName) {
      res.status = 404;
      res.set_content(model_not_found(req.matches[1]), "application/json");
      metrics_->answered(404);
      return;
    }
    res.set_content(model_entry().dump() + "\n", "application/json");
    metrics_->answered(200);
  });
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_text(), "text/plain; version=0.0.4");
  });
  http_->Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    const ParsedRequest parsed = parse_completion_request(req.body, model_.tokenizer());
    if (!parsed.request) {
      res.status = 400;
      res.set_content(error_body(parsed.error.message, parsed.error.field), "application/json");
      metrics_->answered(400);
      return;
    }
    if (!parsed.request->model.empty() && parsed.request->model != kModelName) {
      res.status = 404;  // as OpenAI answers a model it does not have
      res.set_content(model_not_found(parsed.request->model), "application/json");
      metrics_->answered(404);
      return;
    }
    const std::optional<PagedEngine::TextId> text = engine_->open();
    if (!text) {
      res.status = 503;
      res.set_header("Retry-After", "1");
      res.set_content(error_body("the server is writing as many poems as it takes; try again "
                                 "in a moment",
                                 "", "server_busy"),
                      "application/json");
      metrics_->answered(503);
      return;
    }
    const PoemRequest poem = parsed.request->poem;
    const std::size_t prompt = model_.tokenizer().encode("\n" + poem.opening).size();
    const std::string id = metrics_->new_id();
    const std::time_t created = std::time(nullptr);
    if (!parsed.request->stream) {
      ServedPoem served;
      try {
        served = serve_poem(*engine_, *text, poem, [](const WrittenCharacter&) { return true; });
      } catch (const std::exception& e) {
        engine_->close(*text);
        res.status = 500;
        res.set_content(error_body(e.what(), "", "server_error"), "application/json");
        metrics_->answered(500);
        return;
      }
      engine_->close(*text);
      metrics_->served(served);
      const Json body = {
          {"id", id},
          {"object", "text_completion"},
          {"created", created},
          {"model", kModelName},
          {"choices",
           {{{"index", 0},
             {"text", served.poem.substr(std::min(poem.opening.size(), served.poem.size()))},
             {"finish_reason", finish_reason(served)}}}},
          {"usage", usage(served, prompt)},
          {"poem", served.poem}};
      res.set_content(body.dump() + "\n", "application/json");
      metrics_->answered(200);
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, text = *text, poem, prompt, id, created](std::size_t, httplib::DataSink& sink) {
          ServedPoem served;
          try {
            served = serve_poem(*engine_, text, poem, [&](const WrittenCharacter& w) {
              const std::string event = character_event(id, created, w, model_.tokenizer());
              return sink.write(event.data(), event.size());  // false: the client went away
            });
          } catch (const std::exception& e) {
            served.stopped = true;
          }
          metrics_->served(served);
          metrics_->answered(200);
          Json last = {
              {"id", id},
              {"object", "text_completion"},
              {"created", created},
              {"model", kModelName},
              {"choices", {{{"index", 0}, {"text", ""}, {"finish_reason", finish_reason(served)}}}},
              {"usage", usage(served, prompt)},
              {"poem", served.poem}};
          const std::string end = "data: " + last.dump() + "\n\ndata: [DONE]\n\n";
          if (sink.write(end.data(), end.size())) sink.done();
          return true;
        },
        [this, text = *text](bool) { engine_->close(text); });
  });
}

std::vector<ServedPoem> PoemHttpServer::served() const {
  const std::lock_guard lock(metrics_->mutex);
  return metrics_->log;
}

std::string PoemHttpServer::metrics_text() const {
  std::ostringstream out;
  const EngineStats s = engine_->stats();
  {
    const std::lock_guard lock(metrics_->mutex);
    out << "# HELP tang_responses_total HTTP responses, by status.\n"
           "# TYPE tang_responses_total counter\n";
    for (const auto& [status, n] : metrics_->responses)
      out << "tang_responses_total{status=\"" << status << "\"} " << n << "\n";
    out << "# HELP tang_poems_total Poems written (streamed or not).\n"
           "# TYPE tang_poems_total counter\ntang_poems_total "
        << metrics_->poems
        << "\n# HELP tang_poems_cut_total Poems stopped early: the client left, or shutdown.\n"
           "# TYPE tang_poems_cut_total counter\ntang_poems_cut_total "
        << metrics_->cut
        << "\n# HELP tang_characters_total Characters written.\n"
           "# TYPE tang_characters_total counter\ntang_characters_total "
        << metrics_->characters << "\n";
    metrics_->first_character.write(out, "tang_time_to_first_character_seconds",
                                    "From the request to its first character.");
    metrics_->per_character.write(out, "tang_time_per_character_seconds",
                                  "Mean time between a poem's characters after the first.");
  }
  const EngineCounters& c = s.counters;
  out << "# HELP tang_batched_steps_total Batched steps run.\n"
         "# TYPE tang_batched_steps_total counter\ntang_batched_steps_total "
      << c.batched_steps
      << "\n# HELP tang_batched_rows_total Texts in those steps, all together (over the steps: "
         "the mean batch).\n# TYPE tang_batched_rows_total counter\ntang_batched_rows_total "
      << c.batched_rows
      << "\n# HELP tang_largest_batch Texts in the largest batched step.\n"
         "# TYPE tang_largest_batch gauge\ntang_largest_batch "
      << c.largest_batch
      << "\n# HELP tang_open_texts Poems open now, written or waiting to start.\n"
         "# TYPE tang_open_texts gauge\ntang_open_texts "
      << s.open_texts
      << "\n# HELP tang_blocks Cache blocks of the pool, by state.\n# TYPE tang_blocks gauge\n"
      << "tang_blocks{state=\"in_use\"} " << s.pool.in_use << "\n"
      << "tang_blocks{state=\"shared\"} " << s.pool.shared << "\n"
      << "tang_blocks{state=\"cached\"} " << s.pool.cached << "\n"
      << "tang_blocks{state=\"free\"} " << s.pool.free << "\n"
      << "# HELP tang_prefix_hits_total Openings that took positions from the pool.\n"
         "# TYPE tang_prefix_hits_total counter\ntang_prefix_hits_total "
      << c.prefix_hits
      << "\n# HELP tang_prefill_positions_total Positions of openings asked for.\n"
         "# TYPE tang_prefill_positions_total counter\ntang_prefill_positions_total "
      << c.prefill_positions
      << "\n# HELP tang_reused_positions_total Of them, taken from the pool.\n"
         "# TYPE tang_reused_positions_total counter\ntang_reused_positions_total "
      << c.reused_positions
      << "\n# HELP tang_preemptions_total Texts that gave their blocks back to make room.\n"
         "# TYPE tang_preemptions_total counter\ntang_preemptions_total "
      << c.preemptions << "\n";
  return out.str();
}

}  // namespace tang

#include "11_server/serving/poem_http.hpp"

#include <cmath>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>
#include <thread>

#include "11_server/poem_service.hpp"
#include "11_server/serving/completion_request.hpp"
#include "11_server/serving/stop_strings.hpp"
#include "errors.hpp"
#include "utf8.hpp"

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

// OpenAI's error shape; `code` only where OpenAI gives one (model_not_found).
std::string error_body(const std::string& message, const std::string& field,
                       const std::string& type = "invalid_request_error",
                       const std::string& code = "") {
  Json j;
  j["error"] = {{"message", message}, {"type", type}, {"param", field}};
  if (!code.empty()) j["error"]["code"] = code;
  return j.dump() + "\n";
}

// The one model of GET /v1/models, and the answer for any other name.
Json model_entry() {
  return {{"id", kModelName}, {"object", "model"}, {"created", 0}, {"owned_by", "tang"}};
}

std::string model_not_found(const std::string& name) {
  return error_body("model: the model '" + name +
                        "' does not exist here; GET /v1/models lists the one there is ('" +
                        kModelName + "')",
                    "model", "invalid_request_error", "model_not_found");
}

std::string finish_reason(const ServedPoem& p, bool stop_string) {
  return stop_string ? "stop" : p.stopped ? "cancelled" : p.ended ? "stop" : "length";
}

}  // namespace

// One choice as it was written: the poem, the characters its answer holds
// (stop strings cut off) and whether a stop string ended it.
struct PoemHttpServer::Written {
  ServedPoem served;
  std::vector<WrittenCharacter> kept;
  bool stop_string = false;
};

namespace {

// The prompt counts once, however many choices it has.
Json usage(std::span<const PoemHttpServer::Written> choices, std::size_t prompt) {
  std::size_t written = 0;
  for (const PoemHttpServer::Written& w : choices) written += w.served.characters;
  return {{"prompt_tokens", prompt},
          {"completion_tokens", written},
          {"total_tokens", prompt + written}};
}

// The first `n` alternatives of a written character, most likely first.
std::vector<Candidate> alternatives(const WrittenCharacter& w, int n) {
  return {w.top.begin(), w.top.begin() + std::min<long>(n, static_cast<long>(w.top.size()))};
}

// A character's log-probability; a character the acrostic put there itself
// had no choice: probability 1.
double logprob(const WrittenCharacter& w) {
  return w.probability >= 0 ? std::log(w.probability) : 0.0;
}

// Completions' logprobs of `written` (OpenAI's shape: four lists, one entry a
// character), the first at character `offset` of the answer's text.
Json completion_logprobs(const std::vector<WrittenCharacter>& written, int n, std::size_t offset,
                         const Tokenizer& tokenizer) {
  Json tokens = Json::array(), token_logprobs = Json::array(), top_logprobs = Json::array(),
       text_offset = Json::array();
  for (const WrittenCharacter& w : written) {
    tokens.push_back(w.character);
    Json top = Json::object();
    for (const Candidate& c : alternatives(w, n))
      top[tokenizer.character(c.id)] = std::log(c.probability);
    token_logprobs.push_back(w.probability >= 0 ? Json(std::log(w.probability)) : Json());
    top_logprobs.push_back(w.probability >= 0 ? top : Json());
    text_offset.push_back(offset++);
  }
  return {{"tokens", tokens},
          {"token_logprobs", token_logprobs},
          {"top_logprobs", top_logprobs},
          {"text_offset", text_offset}};
}

// Chat's logprobs of `written`: {"content": [{token, logprob, bytes, top_logprobs}]}.
Json chat_logprobs(const std::vector<WrittenCharacter>& written, int n,
                   const Tokenizer& tokenizer) {
  const auto entry = [](const std::string& token, double lp) {
    return Json{{"token", token},
                {"logprob", lp},
                {"bytes", std::vector<unsigned char>(token.begin(), token.end())}};
  };
  Json content = Json::array();
  for (const WrittenCharacter& w : written) {
    Json one = entry(w.character, logprob(w)), top = Json::array();
    for (const Candidate& c : alternatives(w, n))
      top.push_back(entry(tokenizer.character(c.id), std::log(c.probability)));
    one["top_logprobs"] = top;
    content.push_back(one);
  }
  return {{"content", content}};
}

// Text made of characters.
std::string text_of(const std::vector<WrittenCharacter>& written) {
  std::string text;
  for (const WrittenCharacter& w : written) text += w.character;
  return text;
}

// What every answer and streamed event of one request starts with.
Json head(const CompletionRequest& r, const std::string& id, std::time_t created, bool chunk) {
  const char* object =
      r.chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  return {{"id", id}, {"object", object}, {"created", created}, {"model", kModelName}};
}

// Choice `index` of an answer or an event: `written` (the echoed prompt before
// it when `echo`), its logprobs if asked, and how the text ended (null: not yet).
Json choice(const CompletionRequest& r, std::size_t index,
            const std::vector<WrittenCharacter>& written, const std::string& echo,
            std::size_t offset, const Json& finish, bool chunk, const Tokenizer& tokenizer) {
  Json c = {{"index", index}};
  const std::string text = echo + text_of(written);
  if (r.chat && chunk) {
    c["delta"] = text.empty() ? Json::object() : Json{{"content", text}};
  } else if (r.chat) {
    c["message"] = {{"role", "assistant"}, {"content", text}};
  } else {
    c["text"] = text;
  }
  const bool forced = written.size() == 1 && written[0].probability < 0;  // put there, not drawn
  if (r.logprobs < 0 || written.empty() || forced) {
    c["logprobs"] = nullptr;
  } else {
    c["logprobs"] = r.chat ? chat_logprobs(written, r.logprobs, tokenizer)
                           : completion_logprobs(written, r.logprobs, offset, tokenizer);
  }
  c["finish_reason"] = finish;
  return c;
}

std::string event(const Json& chunk) {
  return "data: " + chunk.dump() + "\n\n";
}

}  // namespace

struct PoemHttpServer::Metrics {
  mutable std::mutex mutex;
  std::map<int, std::size_t> responses;  // by status
  std::size_t characters = 0, poems = 0, cut = 0, next_id = 1;
  Histogram first_character, per_character;
  std::vector<ServedPoem> log;  // the first kLogged poems' counts and times, not their text
  static constexpr std::size_t kLogged = 100000;  // about 100 bytes each: 10 MB at most

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
    if (log.size() < kLogged) {
      log.push_back(p);
      log.back().poem = {};  // a prompt may be 8 KB: the log keeps no text
    }
  }
  std::string new_id() {
    const std::lock_guard lock(mutex);
    return std::to_string(next_id++);
  }
};

PoemHttpServer::PoemHttpServer(const GPT& model, const ServerSettings& settings)
    : model_(model),
      settings_(settings),
      engine_(std::make_unique<PagedEngine>(model, settings.engine)),
      metrics_(std::make_unique<Metrics>()) {
  const std::string page_path = settings.web_dir + "/index.html";
  std::ifstream page(page_path, std::ios::binary);
  if (!page)
    throw UserError("cannot read the page " + page_path + ": give --web the folder of index.html");
  page_.assign(std::istreambuf_iterator<char>(page), {});
  HttpServerSettings http = settings.http;
  // a handler's thread for every text the engine takes, and a few for the quick routes
  http.max_handlers = std::max(http.max_handlers, settings.engine.max_texts + 8);
  http_ = std::make_unique<HttpServer>(
      http, [this](const HttpRequest& req, HttpExchange& exchange) { route(req, exchange); },
      [this](int status, const std::string& message) { return error_answer(status, message); });
}

PoemHttpServer::~PoemHttpServer() = default;

int PoemHttpServer::bind() {
  const int port = http_->bind(settings_.host, settings_.port);
  if (port < 0) {
    throw UserError("cannot listen on " + settings_.host + ":" + std::to_string(settings_.port) +
                    " (in use, or not allowed): pick another --port");
  }
  return port;
}

void PoemHttpServer::serve() {
  http_->serve();
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

std::string PoemHttpServer::error_answer(int status, const std::string& message) {
  metrics_->answered(status);
  // as complete() types its own: a full server, the server's fault, the client's
  return error_body(message, "",
                    status == 503   ? "server_busy"
                    : status == 500 ? "server_error"
                                    : "invalid_request_error");
}

void PoemHttpServer::answer(HttpExchange& exchange, int status, std::string_view type,
                            std::string_view body, const HttpHeaders& extra) {
  metrics_->answered(status);  // first: a client that has its answer finds it counted
  exchange.respond(status, type, body, extra);
}

void PoemHttpServer::route(const HttpRequest& req, HttpExchange& exchange) {
  const std::string_view path = req.path, models = "/v1/models/";
  const bool get = req.method == "GET";
  if (get && path == "/") {
    answer(exchange, 200, "text/html; charset=utf-8", page_);
  } else if (get && path == "/v1/models") {  // the models this server has, as OpenAI lists them
    answer(exchange, 200, "application/json",
           Json{{"object", "list"}, {"data", {model_entry()}}}.dump() + "\n");
  } else if (get && path.starts_with(models) && path.size() > models.size() &&
             path.find('/', models.size()) == std::string_view::npos) {
    const std::string name(path.substr(models.size()));
    if (name != kModelName)
      answer(exchange, 404, "application/json", model_not_found(name));
    else
      answer(exchange, 200, "application/json", model_entry().dump() + "\n");
  } else if (get && path == "/metrics") {
    exchange.respond(200, "text/plain; version=0.0.4", metrics_text());
  } else if (req.method == "POST" && path == "/v1/completions") {
    complete(req, exchange, /*chat=*/false);
  } else if (req.method == "POST" && path == "/v1/chat/completions") {
    complete(req, exchange, /*chat=*/true);
  } else {
    answer(exchange, 404, "application/json",
           error_body("no route " + req.method + " " + req.path +
                          ": the routes are GET /, GET /metrics, GET /v1/models, POST "
                          "/v1/completions and POST /v1/chat/completions",
                      "", "not_found_error"));
  }
}

void PoemHttpServer::complete(const HttpRequest& req, HttpExchange& exchange, bool chat) {
  const Tokenizer& tokenizer = model_.tokenizer();
  const std::size_t context = model_.config().block_size;
  const ParsedRequest parsed = chat ? parse_chat_request(req.body, tokenizer, context)
                                    : parse_completion_request(req.body, tokenizer, context);
  if (!parsed.request) {
    answer(exchange, 400, "application/json", error_body(parsed.error.message, parsed.error.field));
    return;
  }
  const CompletionRequest r = *parsed.request;
  if (!r.model.empty() && r.model != kModelName) {  // as OpenAI answers a model it does not have
    answer(exchange, 404, "application/json", model_not_found(r.model));
    return;
  }
  const std::size_t prompt = r.prompt_positions;
  const std::string echo = r.echo ? r.poem.opening : "";  // what every choice's text starts with
  const std::size_t echoed = utf8_split(echo).size();
  const std::string id = (chat ? "chatcmpl-" : "cmpl-") + metrics_->new_id();
  const std::time_t created = std::time(nullptr);
  const auto busy = [&] {
    answer(exchange, 503, "application/json",
           error_body("the server is writing as many poems as it takes; try again in a moment", "",
                      "server_busy"),
           {{"Retry-After", "1"}});
  };
  if (!r.stream) {
    // the poems stop when the client goes, though it has nothing to read yet
    std::vector<Written> choices(r.n);
    if (!write_choices(r, choices,
                       [&](std::size_t, const WrittenCharacter&) { return !exchange.gone(); }))
      return busy();
    for (const Written& w : choices) {
      if (!w.served.failure) continue;
      std::string message = "the poem could not be written";
      try {
        std::rethrow_exception(w.served.failure);
      } catch (const std::exception& e) {
        message = e.what();
      }
      answer(exchange, 500, "application/json", error_body(message, "", "server_error"));
      return;
    }
    Json body = head(r, id, created, false);
    body["choices"] = Json::array();
    for (std::size_t i = 0; i < r.n; ++i) {
      const Written& w = choices[i];
      Json c = choice(r, i, w.kept, echo, echoed, finish_reason(w.served, w.stop_string), false,
                      tokenizer);
      if (r.n > 1 && !chat) c["poem"] = w.served.poem;
      body["choices"].push_back(c);
    }
    body["usage"] = usage(choices, prompt);
    if (!chat) body["poem"] = choices[0].served.poem;
    answer(exchange, 200, "application/json", body.dump() + "\n");
    return;
  }
  const auto send = [&](const Json& chunk) { return exchange.send(event(chunk)); };
  const auto one = [&](std::size_t i, const std::vector<WrittenCharacter>& written,
                       const std::string& echo, std::size_t offset, const Json& finish) {
    Json chunk = head(r, id, created, true);
    // not `= {choice(...)}`: clang reads that as a copy of the one choice
    chunk["choices"] = Json::array({choice(r, i, written, echo, offset, finish, true, tokenizer)});
    return chunk;
  };
  const auto begin = [&] {  // once the engine took the texts: the head, chat's role, the echo
    exchange.start_stream("text/event-stream", {{"Cache-Control", "no-cache"}});
    metrics_->answered(200);
    for (std::size_t i = 0; i < r.n && r.chat; ++i) {  // chat's first event: who speaks
      Json first = head(r, id, created, true);
      first["choices"] = Json::array({Json{{"index", i},
                                           {"delta", {{"role", "assistant"}, {"content", ""}}},
                                           {"logprobs", nullptr},
                                           {"finish_reason", nullptr}}});
      send(first);
    }
    for (std::size_t i = 0; i < r.n && !echo.empty(); ++i) send(one(i, {}, echo, 0, nullptr));
  };
  std::vector<Written> choices(r.n);
  std::vector<std::size_t> offsets(r.n, echoed);
  const bool taken = write_choices(
      r, choices,
      [&](std::size_t i, const WrittenCharacter& c) {
        return send(one(i, {c}, "", offsets[i]++, nullptr));  // false: the client went away
      },
      begin);
  if (!taken) return busy();
  for (std::size_t i = 0; i < r.n; ++i) {
    Json last =
        one(i, {}, "", offsets[i], finish_reason(choices[i].served, choices[i].stop_string));
    if (!r.chat) {
      last["usage"] = usage({&choices[i], 1}, prompt);
      last["poem"] = choices[i].served.poem;
    }
    send(last);
  }
  if (r.include_usage) {  // OpenAI's last chunk: no choice, the usage
    Json tally = head(r, id, created, true);
    tally["choices"] = Json::array();
    tally["usage"] = usage(choices, prompt);
    send(tally);
  }
  exchange.send("data: [DONE]\n\n");
}

// Writes choice i of `r` (seed + i), all at once (serve_poems); `on_character(i,
// c)` gets each character a choice may send (stop strings held back), false
// when its client went away. False when the engine took none of them.
bool PoemHttpServer::write_choices(
    const CompletionRequest& r, std::vector<Written>& choices,
    const std::function<bool(std::size_t, const WrittenCharacter&)>& on_character,
    const std::function<void()>& on_started) {
  std::vector<PoemRequest> poems(r.n, r.poem);
  for (std::size_t i = 0; i < r.n; ++i) poems[i].seed = r.poem.seed + i;
  std::vector<StopStrings> stops(r.n, StopStrings(r.stop));
  std::vector<char> open(r.n, 1);  // (n) its client still reads
  const auto pass_on = [&](std::size_t i, std::vector<WrittenCharacter> released) {
    for (WrittenCharacter& c : released) {
      open[i] = open[i] && on_character(i, c);
      choices[i].kept.push_back(std::move(c));
    }
  };
  std::vector<ServedPoem> served;
  try {
    served = serve_poems(
        *engine_, poems,
        [&](std::size_t i, const WrittenCharacter& c) {
          pass_on(i, stops[i].add(c));
          return open[i] && !stops[i].matched();  // a stop string: the text ends here
        },
        on_started);
  } catch (const EngineBusy&) {
    return false;
  }
  for (std::size_t i = 0; i < r.n; ++i) {
    Written& w = choices[i];
    w.served = std::move(served[i]);
    if (open[i] && !w.served.stopped) pass_on(i, stops[i].flush());
    if (stops[i].matched()) {  // the text as it ends, before the stop string
      w.stop_string = true;
      w.served.stopped = !open[i];
      w.served.ended = open[i];
      w.served.poem = r.poem.opening + text_of(w.kept);
    }
    metrics_->served(w.served);
  }
  return true;
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
      << c.preemptions
      << "\n# HELP tang_engine_cpu_seconds_total The engine thread's CPU time: all of it, and "
         "its forward passes, draws and hand-offs.\n"
         "# TYPE tang_engine_cpu_seconds_total counter\n"
      << "tang_engine_cpu_seconds_total{part=\"all\"} " << s.engine_cpu_seconds << "\n"
      << "tang_engine_cpu_seconds_total{part=\"forward\"} " << c.forward_cpu_seconds << "\n"
      << "tang_engine_cpu_seconds_total{part=\"draw\"} " << c.draw_cpu_seconds << "\n"
      << "tang_engine_cpu_seconds_total{part=\"hand_off\"} " << c.hand_off_cpu_seconds << "\n";
  return out.str();
}

}  // namespace tang

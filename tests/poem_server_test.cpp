// poem_server_test: lesson 11's poem_server over real HTTP. Every bad request
// gets its status and a message naming the field; 32 streamed requests at once
// get exactly the poems lesson 06 writes alone; 100 clients that leave
// mid-stream give every block back (/metrics says so); a full server answers
// 503 with Retry-After; a client that never sends its body is timed out;
// SIGTERM finishes the running stream and exits 0.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>
#include <vector>

#include "11_server/load_run.hpp"
#include "11_server/poem_service.hpp"
#include "11_server/serving/completion_request.hpp"
#include "11_server/serving/stop_strings.hpp"
#include "fast/fast.hpp"
#include "loopback.hpp"
#include "shipped_model.hpp"
#include "utf8.hpp"

namespace {

using nlohmann::json;

// poem_server on a free port, stopped (SIGKILL) when it goes out of scope unless stopped.
class Server {
 public:
  explicit Server(std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      std::vector<std::string> all = {TANG_POEM_SERVER, "--port", "0"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = fdopen(out[0], "r");
    char line[256] = {};
    if (fgets(line, sizeof line, out_) == nullptr)
      throw std::runtime_error("poem_server said nothing");
    std::smatch m;
    const std::string text(line);
    if (!std::regex_search(text, m, std::regex(":([0-9]+)/")))
      throw std::runtime_error("poem_server: " + text);
    port_ = std::stoi(m[1]);
  }
  ~Server() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(std::chrono::seconds(60));
    return c;
  }
  // Sends SIGTERM; the exit status, and what it printed after its first line.
  int terminate(std::string& printed) {
    kill(pid_, SIGTERM);
    char line[512];
    while (fgets(line, sizeof line, out_) != nullptr) printed += line;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  int port_ = 0;
};

// A metric's value from /metrics ("name" or "name{labels}").
double metric(const Server& server, const std::string& name) {
  auto c = server.client();
  const auto res = c.Get("/metrics");
  if (!res || res->status != 200) return -1;
  std::istringstream lines(res->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

// A streamed POST /v1/completions of `body`; its answer goes to `receive` as it arrives.
httplib::Request streamed_post(json body, httplib::ContentReceiverWithProgress receive) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  body["stream"] = true;
  req.body = body.dump();
  req.set_header("Content-Type", "application/json");
  req.content_receiver = std::move(receive);
  return req;
}

// The text of a streamed answer: its character events joined, and the last event.
struct Stream {
  std::string text;
  json last;
  bool done = false;
};
Stream read_stream(const std::string& body) {
  Stream s;
  std::size_t at = 0;
  while ((at = body.find("data: ", at)) != std::string::npos) {
    const std::size_t end = body.find("\n\n", at);
    const std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    if (data == "[DONE]") {
      s.done = true;
      continue;
    }
    const json j = json::parse(data);
    if (j["choices"][0]["finish_reason"].is_null()) {
      s.text += j["choices"][0]["text"].get<std::string>();
    } else {
      s.last = j;
    }
  }
  return s;
}

struct BadBody {
  const char* name;
  std::string body;
  const char* field;
  const char* says;
};

// Each body posted to `route` gets a 400 whose JSON error names the field and
// says what is wrong, its message starting with the field.
void expect_each_refused(Server& server, const std::string& route,
                         const std::vector<BadBody>& cases) {
  auto c = server.client();
  for (const BadBody& bad : cases) {
    const auto res = c.Post(route, bad.body, "application/json");
    ASSERT_TRUE(res) << bad.name;
    EXPECT_EQ(res->status, 400) << bad.name << ": " << res->body;
    const json j = json::parse(res->body, nullptr, false);
    ASSERT_TRUE(j.contains("error")) << bad.name << ": " << res->body;
    EXPECT_EQ(j["error"]["param"], bad.field) << bad.name;
    EXPECT_NE(j["error"]["message"].get<std::string>().find(bad.says), std::string::npos)
        << bad.name << ": " << j["error"]["message"];
    EXPECT_EQ(j["error"]["message"].get<std::string>().rfind(bad.field, 0), 0u)
        << bad.name << ": the message starts with the field";
  }
}

// Bodies POST /v1/completions refuses with a 400, each named as docs/robustness.md's
// table names it (PrintTheRobustnessTables prints that table from them).
std::vector<BadBody> bad_completion_bodies() {
  return {
      {"malformed JSON", "{\"prompt\": ", "body", "not JSON"},
      {"not an object", "[1, 2]", "body", "not a JSON object"},
      {"a field given twice (`{\"seed\": 1, \"seed\": 2}`)", R"({"seed": 1, "seed": 2})", "seed",
       "given twice"},
      {"an unknown field", R"({"prompt": "春", "colour": 2})", "colour",
       "not a field of this route"},
      {"best_of 2", R"({"best_of": 2})", "best_of", "ask for n poems"},
      {"logit_bias {}", R"({"logit_bias": {}})", "logit_bias", "heads and form"},
      {"logprobs 6", R"({"logprobs": 6})", "logprobs", "[0, 5]"},
      {"stop \"\"", R"({"stop": ""})", "stop", "none empty"},
      {"five stop strings", R"({"stop": ["a", "b", "c", "d", "e"]})", "stop", "up to 4"},
      {"echo 1", R"({"echo": 1})", "echo", "true or false"},
      {"a prompt that is not a string", R"({"prompt": 5})", "prompt", "must be a string"},
      {"temperature 11", R"({"temperature": 11})", "temperature", "[0, 10]"},
      {"temperature \"hot\"", R"({"temperature": "hot"})", "temperature", "must be a number"},
      {"top_p 0", R"({"top_p": 0})", "top_p", "(0, 1]"},
      {"top_k -1", R"({"top_k": -1})", "top_k", "must not be negative"},
      {"top_k 100001", R"({"top_k": 100001})", "top_k", "must be in [0, 100000]"},
      {"max_tokens 0", R"({"max_tokens": 0})", "max_tokens", "[1, 512]"},
      {"max_tokens 2.5", R"({"max_tokens": 2.5})", "max_tokens", "whole number"},
      {"seed -3", R"({"seed": -3})", "seed", "must not be negative"},
      {"stream \"yes\"", R"({"stream": "yes"})", "stream", "true or false"},
      {"n 9", R"({"n": 9})", "n", "must be in [1, 8]"},
      {"prompt 床前明月光, max_tokens 123", R"({"prompt": "床前明月光", "max_tokens": 123})",
       "max_tokens",
       "123 characters after an opening of 6 positions (its newline included) pass the model's "
       "context of 128: ask for at most 122"},
      {"stream_options without stream", R"({"stream_options": {"include_usage": true}})",
       "stream_options", "give stream true"},
      {"stream_options {\"x\": 1}", R"({"stream": true, "stream_options": {"x": 1}})",
       "stream_options", "include_usage"},
      {"user 7", R"({"user": 7})", "user", "must be a string"},
      {"a prompt outside the vocabulary", R"({"prompt": "hello"})", "prompt",
       "'h' is not in the model's vocabulary"},
      {"a newline in the prompt", R"({"prompt": "春\n风"})", "prompt", "has no newline"},
      {"three heads", R"({"heads": "春花秋"})", "heads", "4 or 8"},
      {"a head that cannot start a line", R"({"heads": "春花，月"})", "heads",
       "cannot start a line"},
      {"an opening and heads", R"({"prompt": "春", "heads": "春花秋月"})", "heads", "not both"},
      {"a verse form lesson 07 lacks (六绝)", R"({"form": "六绝"})", "form",
       "五绝, 七绝, 五律 or 七律"},
      {"a verse form with a prompt", R"({"form": "五绝", "prompt": "春"})", "form",
       "give no prompt"},
      {"a form of another length", R"({"heads": "春花秋月", "form": "七律"})", "form", "8 lines"},
      {"an acrostic's form lesson 07 lacks (heads and 六绝)",
       R"({"heads": "春花秋月", "form": "六绝"})", "form",
       "form: lesson 07's regular verse is 五绝, 七绝, 五律 or 七律 (got '六绝')"},
      {"a body of 9,000 bytes", "{\"prompt\": \"" + std::string(9000, ' ') + "\"}", "body",
       "larger than 8192 bytes"},
  };
}

TEST(PoemServer, EveryBadRequestGets400NamingTheField) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  const std::vector<BadBody> cases = bad_completion_bodies();
  expect_each_refused(server, "/v1/completions", cases);
  EXPECT_EQ(metric(server, "tang_responses_total{status=\"400\"}"), double(cases.size()));
  EXPECT_EQ(metric(server, "tang_poems_total"), 0) << "no bad request reached the engine";
}

// OpenAI's clients ask GET /v1/models first and send model, user, n and
// stream_options: the one model is listed, another name is a 404 model_not_found.
TEST(PoemServer, TheModelsRouteAndTheFieldsClientsSend) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  auto c = server.client();
  const auto models = c.Get("/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(models->status, 200);
  const json list = json::parse(models->body, nullptr, false);
  ASSERT_TRUE(list.contains("data")) << models->body;
  ASSERT_EQ(list["data"].size(), 1u) << models->body;
  const std::string name = list["data"][0]["id"];
  EXPECT_EQ(list["data"][0]["object"], "model");
  const auto one = c.Get("/v1/models/" + name);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200);
  const auto other = c.Get("/v1/models/gpt-4");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);

  const auto wrong =
      c.Post("/v1/completions", R"({"model": "gpt-4", "prompt": "春"})", "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 404);
  const json error = json::parse(wrong->body, nullptr, false);
  ASSERT_TRUE(error.contains("error")) << wrong->body;
  EXPECT_EQ(error["error"]["code"], "model_not_found");
  EXPECT_EQ(error["error"]["param"], "model");

  const std::string body = R"({"model": ")" + name +
                           R"(", "prompt": "春风", "user": "a learner", "n": 1, "max_tokens": 4,
                           "stream": true, "stream_options": {"include_usage": true}})";
  const auto right = c.Post("/v1/completions", body, "application/json");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200) << right->body;
  EXPECT_NE(right->body.find("\"usage\""), std::string::npos) << right->body;
  EXPECT_NE(right->body.find("data: [DONE]"), std::string::npos) << right->body;
  EXPECT_EQ(metric(server, "tang_responses_total{status=\"404\"}"), 2.0);
}

// Bodies POST /v1/chat/completions refuses with a 400, named as docs/robustness.md's
// second table names them.
std::vector<BadBody> bad_chat_bodies() {
  const std::string user = R"("messages": [{"role": "user", "content": "春风"}])";
  return {
      {"no messages", R"({"max_tokens": 4})", "messages", "required"},
      {"an assistant message", R"({"messages": [{"role": "assistant", "content": "春"}]})",
       "messages", "role 'assistant'"},
      {"only a system message", R"({"messages": [{"role": "system", "content": "poet"}]})",
       "messages", "no user message"},
      {"a message without content", R"({"messages": [{"role": "user"}]})", "messages",
       "string role and content"},
      {"an opening outside the vocabulary", R"({"messages": [{"role": "user", "content": "hi"}]})",
       "messages", "not in the model's vocabulary"},
      {"logprobs 2", "{" + user + R"(, "logprobs": 2})", "logprobs", "true or false"},
      {"top_logprobs without logprobs", "{" + user + R"(, "top_logprobs": 2})", "top_logprobs",
       "logprobs true"},
      {"echo", "{" + user + R"(, "echo": true})", "echo", "not a field of this route"},
      {"a prompt", "{" + user + R"(, "prompt": "春"})", "prompt", "not a field of this route"},
      {"max_tokens and max_completion_tokens",
       "{" + user + R"(, "max_tokens": 4, "max_completion_tokens": 4})", "max_completion_tokens",
       "not both"},
  };
}

TEST(PoemServer, EveryBadChatRequestGets400NamingTheField) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  const std::vector<BadBody> cases = bad_chat_bodies();
  expect_each_refused(server, "/v1/chat/completions", cases);
}

// Prints docs/robustness.md's two tables of bad requests as the server answers them
// now (`poem_server_test --gtest_filter=*PrintTheRobustnessTables`); the ctest
// robustness_tables_check compares them with the page.
TEST(PoemServer, PrintTheRobustnessTables) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  auto c = server.client();
  std::vector<BadBody> completions = bad_completion_bodies();
  const auto after_user =
      std::find_if(completions.begin(), completions.end(),
                   [](const BadBody& b) { return b.name == std::string("user 7"); });
  ASSERT_NE(after_user, completions.end());
  completions.insert(after_user + 1, {"model \"gpt-4\"", R"({"model": "gpt-4", "prompt": "春"})",
                                      "model", "does not exist here"});
  const std::pair<const char*, std::vector<BadBody>> routes[] = {
      {"/v1/completions", completions}, {"/v1/chat/completions", bad_chat_bodies()}};
  for (const auto& [route, cases] : routes) {
    std::cout << "route " << route << "\n";
    for (const BadBody& bad : cases) {
      const auto res = c.Post(route, bad.body, "application/json");
      ASSERT_TRUE(res) << bad.name;
      const json error = json::parse(res->body, nullptr, false).value("error", json::object());
      std::string message = error.value("message", "");
      if (error.contains("code") && error["code"].is_string())
        message += " (code `" + error["code"].get<std::string>() + "`)";
      std::cout << "| " << bad.name << " | " << res->status << " | `" << error.value("param", "")
                << "` | " << message << " |\n";
    }
  }
}

// The events of a stream, parsed, without "[DONE]" (which must end it).
std::vector<json> stream_events(const std::string& body) {
  std::vector<json> events;
  std::size_t at = 0;
  bool done = false;
  while ((at = body.find("data: ", at)) != std::string::npos) {
    const std::size_t end = body.find("\n\n", at);
    const std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    EXPECT_FALSE(done) << "nothing after [DONE]";
    if (data == "[DONE]") done = true;
    if (data != "[DONE]") events.push_back(json::parse(data));
  }
  EXPECT_TRUE(done) << body;
  return events;
}

// logprobs, stop, echo and n as OpenAI documents them, on one poem: the same seed
// writes the same characters, so each answer is the plain one cut or extended.
TEST(PoemServer, LogprobsStopAndEchoShapeTheSamePoem) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  auto c = server.client();
  const auto ask = [&](const std::string& route, const json& body) {
    const auto res = c.Post(route, body.dump(), "application/json");
    EXPECT_TRUE(res && res->status == 200) << body << ": " << (res ? res->body : "no answer");
    return res ? json::parse(res->body, nullptr, false) : json();
  };
  const json plain = {{"prompt", "床前明月光"}, {"max_tokens", 20}, {"seed", 7}};
  const std::string text = ask("/v1/completions", plain)["choices"][0]["text"];
  const std::vector<std::string> chars = tang::utf8_split(text);
  ASSERT_GE(chars.size(), 8u) << text;

  json with = plain;
  with["logprobs"] = 3;
  const json lp = ask("/v1/completions", with)["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), chars.size()) << lp;
  for (std::size_t i = 0; i < chars.size(); ++i) {
    EXPECT_EQ(lp["tokens"][i], chars[i]);
    EXPECT_LE(lp["token_logprobs"][i].get<double>(), 0.0);
    EXPECT_EQ(lp["top_logprobs"][i].size(), 3u);
    EXPECT_EQ(lp["text_offset"][i], i);
  }

  const std::string stop = chars[5] + chars[6];  // the text ends before its first match
  const std::string before = text.substr(0, text.find(stop));
  with = plain;
  with["stop"] = {"不在诗里", stop};
  const json cut = ask("/v1/completions", with)["choices"][0];
  EXPECT_EQ(cut["text"], before);
  EXPECT_EQ(cut["finish_reason"], "stop");
  with["stream"] = true;
  const auto streamed = c.Post("/v1/completions", with.dump(), "application/json");
  ASSERT_TRUE(streamed);
  std::string sent;
  for (const json& e : stream_events(streamed->body)) {
    if (e["choices"][0]["finish_reason"].is_null()) {
      sent += e["choices"][0]["text"];
    } else {
      EXPECT_EQ(e["choices"][0]["finish_reason"], "stop");
    }
  }
  EXPECT_EQ(sent, before) << "a stream sends nothing of the stop string";

  with = plain;
  with["echo"] = true;
  EXPECT_EQ(ask("/v1/completions", with)["choices"][0]["text"], "床前明月光" + text);

  // n: choice i is the poem of seed + i
  with = plain;
  with["n"] = 2;
  const json two = ask("/v1/completions", with);
  json next = plain;
  next["seed"] = 8;
  ASSERT_EQ(two["choices"].size(), 2u) << two;
  EXPECT_EQ(two["choices"][0]["text"], text);
  EXPECT_EQ(two["choices"][1]["index"], 1);
  EXPECT_EQ(two["choices"][1]["text"], ask("/v1/completions", next)["choices"][0]["text"]);
  with["stream"] = true;
  const auto both = c.Post("/v1/completions", with.dump(), "application/json");
  ASSERT_TRUE(both);
  std::string streams[2];
  for (const json& e : stream_events(both->body)) {
    const json& one = e["choices"][0];
    if (one["finish_reason"].is_null()) streams[one["index"].get<std::size_t>()] += one["text"];
  }
  EXPECT_EQ(streams[0], text);
  EXPECT_EQ(streams[1], two["choices"][1]["text"]);

  // chat: the last user message is the opening; the same seed, the same characters
  const json chat = {{"messages",
                      {{{"role", "system"}, {"content", "ignored"}},
                       {{"role", "user"}, {"content", "床前明月光"}}}},
                     {"max_tokens", 20},
                     {"seed", 7},
                     {"logprobs", true},
                     {"top_logprobs", 2}};
  const json answer = ask("/v1/chat/completions", chat);
  EXPECT_EQ(answer["object"], "chat.completion");
  EXPECT_EQ(answer["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(answer["choices"][0]["message"]["content"], text);
  ASSERT_EQ(answer["choices"][0]["logprobs"]["content"].size(), chars.size());
  EXPECT_EQ(answer["choices"][0]["logprobs"]["content"][0]["top_logprobs"].size(), 2u);
  json chunks = chat;
  chunks["stream"] = true;
  chunks["stream_options"] = {{"include_usage", true}};
  const auto chat_stream = c.Post("/v1/chat/completions", chunks.dump(), "application/json");
  ASSERT_TRUE(chat_stream);
  const std::vector<json> events = stream_events(chat_stream->body);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["choices"][0]["delta"]["role"], "assistant");
  std::string deltas;
  for (const json& e : events) {
    EXPECT_EQ(e["object"], "chat.completion.chunk");
    if (!e["choices"].empty()) deltas += e["choices"][0]["delta"].value("content", "");
  }
  EXPECT_EQ(deltas, text);
  EXPECT_TRUE(events.back()["choices"].empty()) << "include_usage: the last chunk, the usage";
  EXPECT_EQ(events.back()["usage"]["completion_tokens"], chars.size());
}

TEST(StopStrings, HoldsWhatMayBeginAStopAndCutsBeforeIt) {
  const auto chars = [](const char* text) {
    std::vector<tang::WrittenCharacter> out;
    for (const std::string& c : tang::utf8_split(text)) out.push_back({c, -1, {}});
    return out;
  };
  const auto joined = [](const std::vector<tang::WrittenCharacter>& written) {
    std::string text;
    for (const tang::WrittenCharacter& w : written) text += w.character;
    return text;
  };
  tang::StopStrings stops({"明月光", "霜"});
  std::string out;
  for (const tang::WrittenCharacter& c : chars("床前明月")) out += joined(stops.add(c));
  EXPECT_EQ(out, "床前") << "明月 may begin 明月光: held";
  out += joined(stops.add(chars("光")[0]));
  EXPECT_TRUE(stops.matched());
  EXPECT_EQ(out, "床前") << "the stop string never goes out";
  EXPECT_TRUE(stops.add(chars("疑")[0]).empty()) << "nothing after a match";

  tang::StopStrings other({"明月光"});
  out.clear();
  for (const tang::WrittenCharacter& c : chars("明月照")) out += joined(other.add(c));
  EXPECT_EQ(out, "明月照") << "明月 released once 照 shows it is no stop";
  out += joined(other.add(chars("明")[0]));
  EXPECT_FALSE(other.matched());
  EXPECT_EQ(out + joined(other.flush()), "明月照明") << "flush gives what was held";
}

// Errors the HTTP layer answers by itself get a JSON body and are counted too.
TEST(PoemServer, AnUnknownRouteGets404WithAJsonError) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  auto c = server.client();
  const auto res = c.Get("/v1/nothing");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  const json j = json::parse(res->body, nullptr, false);
  ASSERT_TRUE(j.contains("error")) << res->body;
  EXPECT_NE(j["error"]["message"].get<std::string>().find("POST /v1/completions"),
            std::string::npos)
      << res->body;
  EXPECT_EQ(metric(server, "tang_responses_total{status=\"404\"}"), 1.0);
}

// logprobs and top_logprobs as OpenAI's API takes them (null: not given); anything
// else refused naming the field. Only a request with logprobs asks for probabilities.
TEST(PoemServer, LogprobsAreTakenAsOpenAIsAPITakesThem) {
  NEED_SHIPPED_MODEL();
  const std::string user = R"("messages": [{"role": "user", "content": "春风"}])";
  const auto parse = [&](const std::string& body, bool chat) {
    const std::size_t context = model.config().block_size;
    return chat ? tang::parse_chat_request(body, model.tokenizer(), context)
                : tang::parse_completion_request(body, model.tokenizer(), context);
  };
  struct Taken {
    const char* body;
    bool chat;
    int logprobs;  // -1: none
  };
  const Taken taken[] = {
      {R"({"prompt": "春"})", false, -1},
      {R"({"logprobs": null})", false, -1},
      {R"({"logprobs": 0})", false, 0},
      {R"({"logprobs": 5})", false, 5},
      {R"({"logprobs": false, "top_logprobs": null})", true, -1},
      {R"({"logprobs": null})", true, -1},
      {R"({"logprobs": true})", true, 0},
      {R"({"logprobs": true, "top_logprobs": 5})", true, 5},
  };
  for (const Taken& t : taken) {
    std::string body = t.body;
    if (t.chat) body = "{" + user + ", " + body.substr(1);
    const tang::ParsedRequest r = parse(body, t.chat);
    ASSERT_TRUE(r.request) << body << ": " << r.error.message;
    EXPECT_EQ(r.request->logprobs, t.logprobs) << body;
    EXPECT_EQ(r.request->poem.probabilities, t.logprobs >= 0) << body;
  }
  struct Refused {
    const char* body;
    bool chat;
    const char* field;
    const char* says;
  };
  const Refused refused[] = {
      {R"({"logprobs": 6})", false, "logprobs", "[0, 5]"},
      {R"({"logprobs": -1})", false, "logprobs", "must not be negative"},
      {R"({"logprobs": 2.5})", false, "logprobs", "whole number"},
      {R"({"logprobs": true})", false, "logprobs", "whole number"},
      {R"({"logprobs": "2"})", false, "logprobs", "whole number"},
      {R"({"top_logprobs": 2})", false, "top_logprobs", "not a field of this route"},
      {R"({"logprobs": 2})", true, "logprobs", "true or false"},
      {R"({"logprobs": true, "top_logprobs": 6})", true, "top_logprobs", "[0, 5]"},
      {R"({"logprobs": true, "top_logprobs": -1})", true, "top_logprobs", "must not be negative"},
      {R"({"logprobs": true, "top_logprobs": 1.5})", true, "top_logprobs", "whole number"},
      {R"({"top_logprobs": 2})", true, "top_logprobs", "logprobs true"},
      {R"({"logprobs": false, "top_logprobs": 2})", true, "top_logprobs", "logprobs true"},
  };
  for (const Refused& t : refused) {
    std::string body = t.body;
    if (t.chat) body = "{" + user + ", " + body.substr(1);
    const tang::ParsedRequest r = parse(body, t.chat);
    EXPECT_FALSE(r.request) << body;
    EXPECT_EQ(r.error.field, t.field) << body;
    EXPECT_NE(r.error.message.find(t.says), std::string::npos) << body << ": " << r.error.message;
    EXPECT_EQ(r.error.message.rfind(std::string(t.field) + ":", 0), 0u) << r.error.message;
  }
}

// serve_bench's bodies: completion_body writes what parse_completion_request reads back.
TEST(PoemServer, ABodyReadsBackAsItsRequest) {
  NEED_SHIPPED_MODEL();
  std::vector<tang::PoemRequest> requests = tang::mixed_requests(8, 5);
  requests[3].line_chars = 5;  // an acrostic of 五言 lines: written with a form
  requests[1].settings = {1.3f, 0, 0.75f};
  requests[2].max_chars = 9;
  requests[4] = {};
  requests[4].verse = "七律";  // lesson 07's regular verse: a form without heads
  for (const tang::PoemRequest& r : requests) {
    const std::string body = tang::completion_body(r, true);
    const tang::ParsedRequest back =
        tang::parse_completion_request(body, model.tokenizer(), model.config().block_size);
    ASSERT_TRUE(back.request) << body << ": " << back.error.message;
    const tang::PoemRequest& b = back.request->poem;
    EXPECT_TRUE(back.request->stream);
    EXPECT_EQ(b.opening, r.opening) << body;
    EXPECT_EQ(b.heads, r.heads) << body;
    EXPECT_EQ(b.line_chars, r.line_chars) << body;
    EXPECT_EQ(b.verse, r.verse) << body;
    EXPECT_EQ(b.seed, r.seed) << body;
    EXPECT_EQ(b.max_chars, r.max_chars) << body;
    EXPECT_EQ(b.settings.temperature, r.settings.temperature) << body;
    EXPECT_EQ(b.settings.top_k, r.settings.top_k) << body;
    EXPECT_EQ(b.settings.top_p, r.settings.top_p) << body;
  }
}

// 32 streams at once to poem_server started with `args`: each poem must be the
// one `alone` writes for its request by itself.
void thirty_two_streams_are_the_writers_alone(
    const std::vector<std::string>& args,
    const std::function<std::string(const tang::PoemRequest&)>& alone) {
  Server server(args);
  std::vector<tang::PoemRequest> requests(32);
  std::vector<json> bodies(32);
  const char* openings[] = {"", "春风", "明月", "山"};
  for (std::size_t i = 0; i < requests.size(); ++i) {
    bodies[i] = {{"stream", true}, {"seed", 900 + i}, {"max_tokens", 24 + i % 20}};
    requests[i].seed = 900 + i;
    requests[i].max_chars = 24 + i % 20;
    if (i % 8 == 7) {
      bodies[i]["heads"] = "江山如画";
      bodies[i]["form"] = "五绝";
      requests[i].heads = "江山如画";
      requests[i].line_chars = 5;
    } else if (i % 8 == 5) {  // lesson 07's regular verse
      bodies[i]["form"] = "七绝";
      requests[i].verse = "七绝";
    } else {
      bodies[i]["prompt"] = openings[i % 4];
      requests[i].opening = openings[i % 4];
    }
    if (i % 3 == 1) {
      bodies[i]["temperature"] = 1.1, bodies[i]["top_p"] = 0.85;
      requests[i].settings = {1.1f, 20, 0.85f};
    }
  }
  std::vector<Stream> streams(32);
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    clients.emplace_back([&, i] {
      auto c = server.client();
      const auto res = c.Post("/v1/completions", bodies[i].dump(), "application/json");
      if (res && res->status == 200) streams[i] = read_stream(res->body);
      if (!res) streams[i].text = "(no answer: " + httplib::to_string(res.error()) + ")";
      if (res && res->status != 200) streams[i].text = "(" + std::to_string(res->status) + ")";
    });
  }
  for (std::thread& t : clients) t.join();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string poem = alone(requests[i]);
    EXPECT_TRUE(streams[i].done) << "request " << i << " ends with [DONE]";
    EXPECT_EQ(requests[i].opening + streams[i].text, poem) << "request " << i;
    EXPECT_EQ(streams[i].last.value("poem", ""), poem) << "request " << i;
  }
  EXPECT_GT(metric(server, "tang_largest_batch"), 4) << "they were written together";
  // the engine's CPU time by part: its forward passes, draws and hand-offs within the whole
  const auto cpu = [&](const std::string& part) {
    return metric(server, "tang_engine_cpu_seconds_total{part=\"" + part + "\"}");
  };
  EXPECT_GT(cpu("forward"), 0.0);
  EXPECT_GT(cpu("draw"), 0.0);
  EXPECT_LE(cpu("forward") + cpu("draw") + cpu("hand_off"), cpu("all"));
}

TEST(PoemServer, ThirtyTwoStreamsAtOnceAreLessonSixsPoems) {
  NEED_SHIPPED_MODEL();
  thirty_two_streams_are_the_writers_alone(
      {}, [&](const tang::PoemRequest& r) { return tang::write_alone(model, r); });
}

// --tuned: the tuned single-text writer's poems (the engine's test,
// OnTheTunedPathEveryRowIsTheTunedWritersAlone, compares every row of logits).
TEST(PoemServer, WithTunedThirtyTwoStreamsAtOnceAreTheTunedWritersPoems) {
  NEED_SHIPPED_MODEL();
  thirty_two_streams_are_the_writers_alone({"--tuned"}, [&](const tang::PoemRequest& r) {
    return tang::write_alone(model, r, tang::with_tuned_path({}));
  });
}

// --int8-pool: lesson 13's pool in int8 (its poems differ from lesson 06's in
// places); 32 streams at once write what an int8 engine writes one poem at a time.
TEST(PoemServer, WithAnInt8PoolThirtyTwoStreamsAtOnceAreItsPoemsOneAtATime) {
  NEED_SHIPPED_MODEL();
  tang::EngineOptions one_at_a_time;
  one_at_a_time.pool_numbers = tang::PoolNumbers::kInt8;
  one_at_a_time.max_batch = 1;
  tang::PagedEngine engine(model, one_at_a_time);
  thirty_two_streams_are_the_writers_alone({"--int8-pool"}, [&](const tang::PoemRequest& r) {
    return tang::serve_poem(engine, r, [](const auto&) { return true; }).poem;
  });
}

// What a raw socket reads until the server closes it.
std::string read_to_end(int fd) {
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) got.append(buffer, n);
  return got;
}

// The body of the last answer in `raw` (an interim 100 before it skipped),
// chunks joined.
std::string body_of(const std::string& raw) {
  const std::size_t head = raw.rfind("HTTP/1.1 ");
  const std::size_t start = raw.find("\r\n\r\n", head) + 4;
  if (raw.find("Transfer-Encoding: chunked", head) > start) return raw.substr(start);
  std::string body;
  for (std::size_t at = start;;) {
    const std::size_t line = raw.find("\r\n", at);
    if (line == std::string::npos) break;
    const std::size_t size = std::stoul(raw.substr(at, line - at), nullptr, 16);
    if (size == 0) break;
    body += raw.substr(line + 2, size);
    at = line + 2 + size + 2;
  }
  return body;
}

std::string post_request(const json& body) {
  const std::string text = body.dump();
  return "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
         std::to_string(text.size()) + "\r\n\r\n" + text;
}

// A client that leaves before its (not streamed) answer, closing both ways or
// resetting, stops its poems: the engine ends them at its next step instead of
// writing them for nobody.
TEST(PoemServer, AClientLeavingBeforeItsAnswerStopsItsPoems) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  const std::string request =
      post_request({{"prompt", "春风"}, {"max_tokens", 120}, {"n", 4}, {"temperature", 1.5}});
  for (const bool reset : {false, true}) {
    const double cut_before = metric(server, "tang_poems_cut_total");
    const double written_before = metric(server, "tang_characters_total");
    const int fd = connect_loopback(server.port());
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    while (metric(server, "tang_open_texts") < 4)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (reset) {
      const linger now{1, 0};
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
    }
    close(fd);  // gone before its answer
    double cut = 0;
    for (int i = 0; i < 1000 && (cut = metric(server, "tang_poems_cut_total") - cut_before) < 4;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(cut, 4.0) << (reset ? "reset" : "closed") << ": the four poems were stopped";
    EXPECT_LT(metric(server, "tang_characters_total") - written_before, 4.0 * 120)
        << "not written to the end";
    EXPECT_EQ(metric(server, "tang_open_texts"), 0.0);
  }
}

// HTTP/1.1 lets a client close its sending side once its request is sent
// (shutdown(SHUT_WR), `curl --no-keepalive` with a body from a pipe, netcat's
// -N): it gets its whole answer, lesson 06's poem, streamed or not.
TEST(PoemServer, AClientThatHalfClosesGetsItsWholePoem) {
  NEED_SHIPPED_MODEL();
  Server server({});
  tang::PoemRequest r;
  r.opening = "春风";
  r.max_chars = 60;
  r.settings = {1.0f, 0, 1.0f};
  r.seed = 11;
  const std::string poem = tang::write_alone(model, r);
  for (const bool stream : {false, true}) {
    const int fd = connect_loopback(server.port());
    ASSERT_GE(fd, 0);
    const std::string request = post_request({{"prompt", "春风"},
                                              {"seed", 11},
                                              {"max_tokens", 60},
                                              {"temperature", 1.0},
                                              {"top_k", 0},
                                              {"stream", stream}});
    ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    shutdown(fd, SHUT_WR);
    const std::string raw = read_to_end(fd);
    close(fd);
    const std::size_t head = raw.rfind("HTTP/1.1 ");
    ASSERT_NE(head, std::string::npos) << raw;
    EXPECT_EQ(raw.substr(head, 12), "HTTP/1.1 200") << raw.substr(0, 300);
    if (stream) {
      const Stream s = read_stream(body_of(raw));
      EXPECT_TRUE(s.done) << "streamed to [DONE]";
      EXPECT_EQ(r.opening + s.text, poem);
      EXPECT_NE(s.last["choices"][0]["finish_reason"], "cancelled");
    } else {
      const json j = json::parse(body_of(raw), nullptr, false);
      ASSERT_TRUE(j.is_object()) << raw;
      EXPECT_EQ(j["poem"], poem);
      EXPECT_NE(j["choices"][0]["finish_reason"], "cancelled");
    }
  }
}

// A stream its client never reads, its answer larger than the buffers between
// (a receive buffer of 4 KB, the server's 64 KB and 64 KB, the library's 32 KB;
// 8 acrostic chats of 8 lines of 7, with 5 alternatives a character: about
// 260 KB): cut after --timeout without progress, its poems stopped.
TEST(PoemServer, AStreamItsClientDoesNotReadIsCutAtTheTimeout) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({"--timeout", "1"});
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  json body = {{"acrostic", true},  {"form", "七律"},     {"n", 8},        {"logprobs", true},
               {"top_logprobs", 5}, {"temperature", 1.5}, {"stream", true}};
  body["messages"] = json::array({json{{"role", "user"}, {"content", "春花秋月江山如画"}}});
  const std::string text = body.dump();
  const std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                              std::to_string(text.size()) + "\r\n\r\n" + text;
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  const auto start = std::chrono::steady_clock::now();
  double cut = 0;
  for (int i = 0; i < 800 && (cut = metric(server, "tang_poems_cut_total")) < 8; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(cut, 8.0) << "the eight poems were stopped";
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 6.0);
  EXPECT_EQ(metric(server, "tang_open_texts"), 0.0);
  close(fd);
}

// --max-connections 50 and 50 kept-alive connections from other addresses, each
// asking for the models more often than --timeout: a normal request still gets
// its poem within 1 s (the idlest of them makes room), every time.
TEST(PoemServer, KeptAliveConnectionsAtTheLimitLeaveRoomForAPoem) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({"--max-connections", "50", "--timeout", "2"});
  Flood flood(server.port(), 50, std::chrono::milliseconds(500), "/v1/models");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  double slowest = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto c = server.client();
    c.set_read_timeout(std::chrono::seconds(5));
    c.set_connection_timeout(std::chrono::seconds(5));
    const auto res =
        c.Post("/v1/completions", R"({"prompt": "春风", "max_tokens": 8})", "application/json");
    EXPECT_TRUE(res && res->status == 200) << "request " << i;
    slowest = std::max(
        slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_LT(slowest, 1.0);
  EXPECT_GT(flood.answers, 50u) << "the kept-alive ones were answered too";
}

TEST(PoemServer, HundredClientsLeavingMidStreamGiveEveryBlockBack) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({});
  std::atomic<int> left = 0;
  std::vector<std::thread> clients;
  for (int i = 0; i < 100; ++i) {
    clients.emplace_back([&, i] {
      auto c = server.client();
      std::size_t chunks = 0;
      bool streamed = false;  // its first chunk is an event, not an error
      const httplib::Request req = streamed_post(
          json{{"prompt", "春风"}, {"seed", i}, {"max_tokens", 120}, {"temperature", 1.5}},
          [&](const char* data, std::size_t n, uint64_t, uint64_t) {
            if (chunks == 0) streamed = std::string(data, n).rfind("data: ", 0) == 0;
            return ++chunks < 2;  // goes away after its first event
          });
      const auto res = c.send(req);
      left += streamed;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(left, 100) << "every client read at least one event";
  for (int i = 0; i < 500 && metric(server, "tang_open_texts") != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(metric(server, "tang_open_texts"), 0);
  EXPECT_EQ(metric(server, "tang_blocks{state=\"in_use\"}"), 0);
  EXPECT_EQ(metric(server, "tang_blocks{state=\"free\"}") +
                metric(server, "tang_blocks{state=\"cached\"}"),
            512);
  // and the server goes on
  auto c = server.client();
  const auto res = c.Post("/v1/completions", R"({"prompt": "春风"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(PoemServer, AFullServerAnswers503WithRetryAfter) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({"--max-texts", "1"});
  std::atomic<int> busy = 0, ok = 0;
  std::string retry_after;
  std::mutex m;
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i) {
    clients.emplace_back([&, i] {
      auto c = server.client();
      const auto res = c.Post("/v1/completions",
                              json{{"seed", i}, {"max_tokens", 100}, {"temperature", 2.0}}.dump(),
                              "application/json");
      if (res && res->status == 503) {
        ++busy;
        const std::lock_guard lock(m);
        retry_after = res->get_header_value("Retry-After");
      }
      if (res && res->status == 200) ++ok;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_GT(busy, 0) << "16 at once, one at a time taken";
  EXPECT_GT(ok, 0);
  EXPECT_EQ(busy + ok, 16);
  EXPECT_EQ(retry_after, "1");
}

TEST(PoemServer, AClientThatNeverSendsItsBodyIsTimedOut) {
  NEED_SHIPPED_MODEL();
  (void)model;
  Server server({"--timeout", "1"});
  const int fd = connect_loopback(server.port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"prompt\"";
  ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  const auto start = std::chrono::steady_clock::now();
  char buffer[512];
  // the server gives up on it: the connection closed without an answer
  ssize_t n = read(fd, buffer, sizeof buffer);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(n, 0) << "closed without an answer";
  close(fd);
  EXPECT_GE(waited, 0.9) << "it waited --timeout 1 for the body";
  EXPECT_LT(waited, 10.0) << "cut after about --timeout 1";

  // a client that connects and sends nothing is closed after about --timeout 1 too,
  // without an answer (it asked nothing)
  const int silent = connect_loopback(server.port());
  ASSERT_GE(silent, 0);
  const auto silent_start = std::chrono::steady_clock::now();
  EXPECT_LE(read(silent, buffer, sizeof buffer), 0) << "closed without an answer";
  close(silent);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - silent_start).count(),
            4.0);
  auto c = server.client();
  const auto res = c.Post("/v1/completions", R"({"prompt": "春风"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(PoemServer, SigtermFinishesTheRunningStreamAndExitsZero) {
  NEED_SHIPPED_MODEL();
  Server server({"--drain", "30"});
  tang::PoemRequest r;
  r.opening = "春风";
  r.max_chars = 120;  // with the opening's 3 positions, the whole context: a long poem
  r.settings = {1.0f, 0, 1.0f};
  r.seed = 3;
  Stream stream;
  std::atomic<bool> started = false;
  std::thread client([&] {
    auto c = server.client();
    std::string body;
    const httplib::Request req =
        streamed_post(json{{"prompt", "春风"},
                           {"seed", 3},
                           {"max_tokens", 120},
                           {"temperature", 1.0},
                           {"top_k", 0}},
                      [&](const char* data, std::size_t n, uint64_t, uint64_t) {
                        body.append(data, n);
                        started = true;
                        return true;
                      });
    c.send(req);
    stream = read_stream(body);
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::string printed;
  EXPECT_EQ(server.terminate(printed), 0) << printed;
  client.join();
  EXPECT_NE(printed.find("SIGTERM"), std::string::npos) << printed;
  EXPECT_TRUE(stream.done) << "the stream ended with [DONE]";
  EXPECT_EQ(r.opening + stream.text, tang::write_alone(model, r)) << "finished, not cut";
}

}  // namespace

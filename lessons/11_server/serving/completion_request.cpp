#include "11_server/serving/completion_request.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "07_verse/verse_form.hpp"  // form_named
#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

namespace {

using nlohmann::json;

ParsedRequest refuse(const std::string& field, const std::string& message) {
  return {std::nullopt, {field, field + ": " + message}};
}

// A field's name as an error shows it: its invisible characters written out, "" for none.
std::string shown(const std::string& key) {
  return key.empty() ? "\"\"" : show_invisible(key);
}

// Each route's fields, in the order its error lists them.
constexpr std::array<std::string_view, 16> kCompletionFields = {
    "model",    "prompt", "max_tokens", "temperature",    "top_k", "top_p", "seed",  "stop",
    "logprobs", "echo",   "stream",     "stream_options", "n",     "user",  "heads", "form"};
constexpr std::array<std::string_view, 17> kChatFields = {"messages",
                                                          "model",
                                                          "max_tokens",
                                                          "max_completion_tokens",
                                                          "temperature",
                                                          "top_k",
                                                          "top_p",
                                                          "seed",
                                                          "stop",
                                                          "logprobs",
                                                          "top_logprobs",
                                                          "stream",
                                                          "stream_options",
                                                          "n",
                                                          "user",
                                                          "acrostic",
                                                          "form"};

// The body as a JSON object, or what is wrong with it.
std::optional<json> read_object(std::string_view body, RequestError& error) {
  if (body.size() > kMaxBodyBytes) {
    error = refuse("body", "larger than " + std::to_string(kMaxBodyBytes) + " bytes").error;
    return std::nullopt;
  }
  // A key given twice in one object would silently keep its last value: refused.
  std::vector<std::vector<std::string>> keys;  // of each object open while parsing
  std::optional<std::string> twice;
  const auto watch = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end() && !twice)
        twice = key;
      keys.back().push_back(key);
    }
    return true;
  };
  json j = json::parse(body, watch, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error = refuse("body", "not JSON (or not UTF-8): send one JSON object").error;
    return std::nullopt;
  }
  if (twice) {
    error = refuse(shown(*twice), "given twice: give each field once").error;
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = refuse("body", "not a JSON object").error;
    return std::nullopt;
  }
  return j;
}

// `stop`: one string or a list of up to 4, none empty.
std::optional<std::string> read_stop(const json& value, std::vector<std::string>& stop) {
  const json list = value.is_array() ? value : json::array({value});
  if (list.size() > kMaxStops) return "must be a string or a list of up to 4 strings";
  for (const json& one : list) {
    if (!one.is_string() || one.get<std::string>().empty())
      return "must be a string or a list of up to 4 strings, none empty";
    stop.push_back(one.get<std::string>());
  }
  return std::nullopt;
}

// OpenAI's fields this server does not take, and why; nullptr for any other.
const char* unsupported(const std::string& key) {
  if (key == "best_of") return "not taken: ask for n poems (n) and choose among them yourself";
  if (key == "suffix") return "not taken: a poem is written from its opening on, not into a gap";
  if (key == "logit_bias")
    return "not taken: this server steers what may come next with heads and form";
  if (key == "presence_penalty" || key == "frequency_penalty")
    return "not taken: the server samples as lessons 04-06 do, without a penalty";
  return nullptr;
}

// The fields both routes share, and each route's own, into a request. A chat
// request's opening (or heads) is its last user message, `chat_text`.
ParsedRequest read_fields(const json& j, const Tokenizer& tokenizer, std::size_t context,
                          const std::optional<std::string>& chat_text) {
  const bool chat = chat_text.has_value();
  CompletionRequest r;
  r.chat = chat;
  std::string form;
  bool stream_options = false, logprobs = false;
  std::optional<std::uint64_t> top_logprobs;
  const std::span<const std::string_view> fields =
      chat ? std::span<const std::string_view>(kChatFields) : kCompletionFields;
  for (const auto& [key, value] : j.items()) {
    if (const char* why = unsupported(key)) return refuse(key, why);
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      std::string list;
      for (std::string_view f : fields) list += (list.empty() ? "" : ", ") + std::string(f);
      return refuse(shown(key), "not a field of this route (" + list + ")");
    }
    if (key == "messages") continue;  // read by parse_chat_request
    if ((key == "logprobs" || key == "top_logprobs") && value.is_null())
      continue;  // OpenAI's default, as if not given
    if (key == "prompt" || key == "heads" || key == "form" || key == "model" || key == "user") {
      if (!value.is_string()) return refuse(key, "must be a string");
      const std::string text = value.get<std::string>();
      if (key == "prompt") r.poem.opening = text;
      if (key == "heads") r.poem.heads = text;
      if (key == "form") form = text;
      if (key == "model") r.model = text;
    } else if (key == "n") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1 ||
          value.get<std::int64_t>() > static_cast<std::int64_t>(kMaxChoices))
        return refuse(key, "must be in [1, " + std::to_string(kMaxChoices) +
                               "]: poems for one prompt, with seeds seed, seed+1, ...");
      r.n = value.get<std::size_t>();
    } else if (key == "stream_options") {
      if (!value.is_object()) return refuse(key, "must be an object, {\"include_usage\": true}");
      for (const auto& [option, setting] : value.items()) {
        if (option != "include_usage" || !setting.is_boolean())
          return refuse(key, "takes include_usage (true or false) only");
        r.include_usage = setting.get<bool>();
      }
      stream_options = true;
    } else if (key == "stop") {
      if (const auto problem = read_stop(value, r.stop)) return refuse(key, *problem);
    } else if (key == "echo" || key == "acrostic" || key == "stream" ||
               (chat && key == "logprobs")) {
      if (!value.is_boolean()) return refuse(key, "must be true or false");
      if (key == "echo") r.echo = value.get<bool>();
      if (key == "acrostic") r.acrostic = value.get<bool>();
      if (key == "stream") r.stream = value.get<bool>();
      if (key == "logprobs") logprobs = value.get<bool>();
    } else if (key == "max_tokens" || key == "max_completion_tokens" || key == "top_k" ||
               key == "seed" || key == "logprobs" || key == "top_logprobs") {
      if (!value.is_number_integer()) return refuse(key, "must be a whole number");
      if (!value.is_number_unsigned() && value.get<std::int64_t>() < 0)
        return refuse(key, "must not be negative");
      const std::uint64_t n = value.get<std::uint64_t>();
      if (key == "max_tokens" || key == "max_completion_tokens") {
        if (n < 1 || n > kMaxTokens)
          return refuse(key, "must be in [1, " + std::to_string(kMaxTokens) + "]");
        r.poem.max_chars = n;
      }
      if (key == "top_k") {  // as the lessons' --top-k: k past the vocabulary keeps all
        if (n > kMaxTopK) return refuse(key, "must be in [0, " + std::to_string(kMaxTopK) + "]");
        r.poem.settings.top_k = n;
      }
      if (key == "seed") r.poem.seed = n;
      if (key == "logprobs" || key == "top_logprobs") {
        if (n > kMaxLogprobs)
          return refuse(key, "must be in [0, " + std::to_string(kMaxLogprobs) + "]");
        if (key == "logprobs") r.logprobs = static_cast<int>(n);
        if (key == "top_logprobs") top_logprobs = n;
      }
    } else if (key == "temperature" || key == "top_p") {
      if (!value.is_number()) return refuse(key, "must be a number");
      const double x = value.get<double>();
      if (key == "temperature") {
        if (!(x >= 0 && x <= 10)) return refuse(key, "must be in [0, 10]");
        r.poem.settings.temperature = static_cast<float>(x);
      } else {
        if (!(x > 0 && x <= 1)) return refuse(key, "must be in (0, 1]");
        r.poem.settings.top_p = static_cast<float>(x);
      }
    }
  }
  if (j.contains("max_tokens") && j.contains("max_completion_tokens"))
    return refuse("max_completion_tokens", "give max_tokens or max_completion_tokens, not both");
  if (chat) {  // chat's logprobs says whether; top_logprobs how many alternatives
    if (top_logprobs && !logprobs) return refuse("top_logprobs", "needs logprobs true as well");
    if (logprobs) r.logprobs = static_cast<int>(top_logprobs.value_or(0));
    (r.acrostic ? r.poem.heads : r.poem.opening) = *chat_text;
  }
  r.poem.probabilities = r.logprobs >= 0;  // worked out only when asked
  if (stream_options && !r.stream)
    return refuse("stream_options", "is for a streamed request: give stream true as well");
  if (!form.empty() && r.poem.heads.empty()) {
    r.poem.verse = form;  // lesson 07's regular verse: request_problem checks the name
  } else if (!form.empty()) {
    const std::optional<VerseForm> named = form_named(form);  // lesson 07's four forms
    if (!named) return {std::nullopt, {"form", form_problem(form)}};
    const std::size_t heads = utf8_split(r.poem.heads).size(), lines = named->lines;
    if (heads != lines)
      return refuse("form", "a " + form + " has " + std::to_string(lines) + " lines: give " +
                                std::to_string(lines) + " heads (got " + std::to_string(heads) +
                                ")");
    r.poem.line_chars = named->chars;
  }
  if (const std::string problem = request_problem(r.poem, tokenizer); !problem.empty()) {
    const std::string field = problem.substr(0, problem.find(':'));
    if (chat && (field == "prompt" || field == "heads"))  // it came from the user message
      return {std::nullopt, {"messages", "messages" + problem.substr(field.size())}};
    return {std::nullopt, {field, problem}};
  }
  r.prompt_positions = tokenizer.encode("\n" + r.poem.opening).size();
  if (r.poem.heads.empty() && r.poem.verse.empty()) {  // an acrostic's, a verse's length is fixed
    const std::size_t positions = r.prompt_positions;
    if (positions + r.poem.max_chars > context) {
      return refuse(j.contains("max_completion_tokens") ? "max_completion_tokens" : "max_tokens",
                    std::to_string(r.poem.max_chars) + " characters after an opening of " +
                        std::to_string(positions) + " positions (its newline included) pass " +
                        "the model's context of " + std::to_string(context) + ": ask for at most " +
                        std::to_string(positions < context ? context - positions : 0));
    }
  }
  return {r, {}};
}

}  // namespace

ParsedRequest parse_completion_request(std::string_view body, const Tokenizer& tokenizer,
                                       std::size_t context) {
  RequestError error;
  const std::optional<json> j = read_object(body, error);
  if (!j) return {std::nullopt, error};
  return read_fields(*j, tokenizer, context, std::nullopt);
}

ParsedRequest parse_chat_request(std::string_view body, const Tokenizer& tokenizer,
                                 std::size_t context) {
  RequestError error;
  const std::optional<json> j = read_object(body, error);
  if (!j) return {std::nullopt, error};
  const auto found = j->find("messages");
  if (found == j->end() || !found->is_array() || found->empty()) {
    return refuse("messages",
                  "required: a list of messages, e.g. [{\"role\": \"user\", \"content\": "
                  "\"床前明月光\"}]");
  }
  std::optional<std::string> last_user;  // the poem's opening (or an acrostic's heads)
  for (const json& message : *found) {
    if (!message.is_object() || !message.contains("role") || !message["role"].is_string() ||
        !message.contains("content") || !message["content"].is_string())
      return refuse("messages", "each message is an object with a string role and content");
    const std::string role = message["role"].get<std::string>();
    if (role == "user") last_user = message["content"].get<std::string>();
    if (role != "user" && role != "system") {
      return refuse("messages", "role '" + show_invisible(role) +
                                    "': this server takes system messages (ignored) and user "
                                    "messages (the last one is the poem's opening)");
    }
  }
  if (!last_user) return refuse("messages", "no user message: its content is the poem's opening");
  return read_fields(*j, tokenizer, context, last_user);
}

std::string completion_body(const PoemRequest& r, bool stream) {
  json body = {{"max_tokens", r.max_chars},
               {"temperature", r.settings.temperature},
               {"top_k", r.settings.top_k},
               {"top_p", r.settings.top_p},
               {"seed", r.seed},
               {"stream", stream}};
  if (!r.verse.empty()) {
    body["form"] = r.verse;
  } else if (r.heads.empty()) {
    body["prompt"] = r.opening;
  } else {
    body["heads"] = r.heads;
    if (r.line_chars == 5) body["form"] = utf8_split(r.heads).size() == 8 ? "五律" : "五绝";
  }
  return body.dump();
}

}  // namespace tang

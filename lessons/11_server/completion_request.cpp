#include "11_server/completion_request.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "07_verse/verse_form.hpp"  // form_named
#include "errors.hpp"
#include "utf8.hpp"

namespace tang {

namespace {

using nlohmann::json;

ParsedRequest refuse(const std::string& field, const std::string& message) {
  return {std::nullopt, {field, field + ": " + message}};
}

}  // namespace

ParsedRequest parse_completion_request(std::string_view body, const Tokenizer& tokenizer) {
  if (body.size() > kMaxBodyBytes)
    return refuse("body", "larger than " + std::to_string(kMaxBodyBytes) + " bytes");
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return refuse("body", "not JSON (or not UTF-8): send one JSON object");
  if (!j.is_object()) return refuse("body", "not a JSON object");

  CompletionRequest r;
  std::string form;
  bool stream_options = false;
  for (const auto& [key, value] : j.items()) {
    if (key == "prompt" || key == "heads" || key == "form" || key == "model" || key == "user") {
      if (!value.is_string()) return refuse(key, "must be a string");
      const std::string text = value.get<std::string>();
      if (key == "prompt") r.poem.opening = text;
      if (key == "heads") r.poem.heads = text;
      if (key == "form") form = text;
      if (key == "model") r.model = text;
    } else if (key == "n") {
      if (!value.is_number_integer() || value.get<std::int64_t>() != 1)
        return refuse(key, "must be 1: this server writes one poem a request");
    } else if (key == "stream_options") {
      if (!value.is_object()) return refuse(key, "must be an object, {\"include_usage\": true}");
      for (const auto& [option, setting] : value.items()) {
        if (option != "include_usage" || !setting.is_boolean())
          return refuse(key, "takes include_usage (true or false) only");
      }
      stream_options = true;
    } else if (key == "max_tokens" || key == "top_k" || key == "seed") {
      if (!value.is_number_integer()) return refuse(key, "must be a whole number");
      if (value.is_number_unsigned() || value.get<std::int64_t>() >= 0) {
        const std::uint64_t n = value.get<std::uint64_t>();
        if (key == "max_tokens") {
          if (n < 1 || n > kMaxTokens)
            return refuse(key, "must be in [1, " + std::to_string(kMaxTokens) + "]");
          r.poem.max_chars = n;
        }
        if (key == "top_k") {  // as the lessons' --top-k: k past the vocabulary keeps all
          if (n > kMaxTopK) return refuse(key, "must be in [0, " + std::to_string(kMaxTopK) + "]");
          r.poem.settings.top_k = n;
        }
        if (key == "seed") r.poem.seed = n;
      } else {
        return refuse(key, "must not be negative");
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
    } else if (key == "stream") {
      if (!value.is_boolean()) return refuse(key, "must be true or false");
      r.stream = value.get<bool>();
    } else {
      return refuse(key.empty() ? "\"\"" : show_invisible(key),
                    "not a field of this server (model, prompt, max_tokens, temperature, "
                    "top_k, top_p, seed, stream, stream_options, n, user, heads, form)");
    }
  }
  if (stream_options && !r.stream)
    return refuse("stream_options", "is for a streamed request: give stream true as well");
  if (!form.empty() && r.poem.heads.empty()) {
    r.poem.verse = form;  // lesson 07's regular verse: request_problem checks the name
  } else if (!form.empty()) {
    const std::optional<VerseForm> named = form_named(form);  // lesson 07's four forms
    if (!named) return refuse("form", "must be 五绝, 七绝, 五律 or 七律");
    const std::size_t heads = utf8_split(r.poem.heads).size(), lines = named->lines;
    if (heads != lines)
      return refuse("form", "a " + form + " has " + std::to_string(lines) + " lines: give " +
                                std::to_string(lines) + " heads (got " + std::to_string(heads) +
                                ")");
    r.poem.line_chars = named->chars;
  }
  if (const std::string problem = request_problem(r.poem, tokenizer); !problem.empty()) {
    const std::string field = problem.substr(0, problem.find(':'));
    return {std::nullopt, {field, problem}};
  }
  return {r, {}};
}

std::string completion_body(const CompletionRequest& request) {
  const PoemRequest& r = request.poem;
  json body = {{"max_tokens", r.max_chars},
               {"temperature", r.settings.temperature},
               {"top_k", r.settings.top_k},
               {"top_p", r.settings.top_p},
               {"seed", r.seed},
               {"stream", request.stream}};
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

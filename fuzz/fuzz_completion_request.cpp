// fuzz_completion_request: any bytes as the body of POST /v1/completions and
// of POST /v1/chat/completions.
//
// parse_completion_request and parse_chat_request
// (lessons/11_server/serving/completion_request.hpp) must never
// throw and never crash: it gives a request, or an error whose field is named
// and whose message is one line starting with that field. A request it gives
// must pass request_problem and keep its values in their ranges.
// Anything else (a crash, a sanitizer report, an exception) is a finding.

#include <cstdint>
#include <string>
#include <string_view>

#include "11_server/serving/completion_request.hpp"
#include "fuzz_checks.hpp"

namespace {

using tang::fuzz::finding;

const tang::Tokenizer& small_tokenizer() {
  static const tang::Tokenizer tokenizer(
      {"\n", "春", "风", "花", "秋", "月", "江", "山", "，", "。", "\xF0\xA0\x80\x80" /* 𠀀 */});
  return tokenizer;
}

void check(const tang::ParsedRequest& parsed, std::string_view body) {
  if (!parsed.request) {
    const tang::RequestError& e = parsed.error;
    if (e.field.empty() || e.message.empty()) finding("an error without its field", e.message);
    if (e.message.rfind(e.field + ": ", 0) != 0)
      finding("the message does not start with the field", e.message);
    if (e.message.find('\n') != std::string::npos)
      finding("an error of more than one line", e.message);
    return;
  }
  const tang::PoemRequest& r = parsed.request->poem;
  if (!tang::request_problem(r, small_tokenizer()).empty())
    finding("a request with a problem", body.data());
  if (r.max_chars < 1 || r.max_chars > tang::kMaxTokens) finding("max_tokens out of range", "");
  if (!(r.settings.temperature >= 0 && r.settings.temperature <= 10)) finding("temperature", "");
  if (!(r.settings.top_p > 0 && r.settings.top_p <= 1)) finding("top_p", "");
  if (r.settings.top_k > tang::kMaxTopK) finding("top_k", "");
  if (r.line_chars != 5 && r.line_chars != 7) finding("line_chars", "");
  if (parsed.request->logprobs > static_cast<int>(tang::kMaxLogprobs)) finding("logprobs", "");
  if (parsed.request->stop.size() > tang::kMaxStops) finding("stop", "");
  for (const std::string& s : parsed.request->stop)
    if (s.empty()) finding("an empty stop string", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  constexpr std::size_t kContext = 128;
  check(tang::parse_completion_request(body, small_tokenizer(), kContext), body);
  check(tang::parse_chat_request(body, small_tokenizer(), kContext), body);
  return 0;
}

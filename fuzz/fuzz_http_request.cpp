// fuzz_http_request: any bytes as what a client sends lesson 11's server, fed to
// its HttpRequestReader whole and again in pieces whose sizes the input's first
// byte sets (http_request_reader.hpp).
//
// Both feedings must end alike (the same state, request and problem); a problem
// must be an HTTP status of 4xx or 5xx with a one-line message; a request read
// must keep its body and head within the limits; a reader never takes more bytes
// than it was given. Anything else (a crash, a sanitizer report) is a finding.

#include <cstdint>
#include <string>
#include <string_view>

#include "11_server/serving/http_request_reader.hpp"
#include "fuzz_checks.hpp"

namespace {

using tang::fuzz::finding;
using State = tang::HttpRequestReader::State;

const tang::HttpLimits kLimits{512, 8, 256};

// Feeds `bytes` in pieces of `piece`; returns the bytes taken.
std::size_t feed(tang::HttpRequestReader& reader, std::string_view bytes, std::size_t piece) {
  std::size_t used = 0;
  while (used < bytes.size() && (reader.state() == State::head || reader.state() == State::body)) {
    const std::string_view next = bytes.substr(used, piece);
    const std::size_t took = reader.feed(next);
    if (took > next.size()) finding("took more than it was given", std::to_string(took));
    used += took;
    if (took < next.size()) break;  // the request ended inside this piece
  }
  return used;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  tang::HttpRequestReader whole(kLimits), pieces(kLimits);
  const std::size_t used_whole = feed(whole, bytes, bytes.size() + 1);
  const std::size_t used_pieces = feed(pieces, bytes, piece);
  if (whole.state() != pieces.state()) finding("pieces end in another state", "");
  if (whole.state() == State::done && used_whole != used_pieces)
    finding("pieces take another length", std::to_string(used_whole));
  if (whole.state() == State::failed) {
    const tang::HttpProblem& p = whole.problem();
    if (p.status < 400 || p.status > 599) finding("not an error status", std::to_string(p.status));
    if (p.message.empty() || p.message.find('\n') != std::string::npos)
      finding("not a one-line message", p.message);
    if (p.status != pieces.problem().status) finding("pieces fail otherwise", p.message);
  }
  if (whole.state() == State::done) {
    const tang::HttpRequest& r = whole.request();
    if (r.body.size() > kLimits.max_body_bytes) finding("body over the limit", "");
    if (r.headers.size() > kLimits.max_headers) finding("headers over the limit", "");
    if (r.body != pieces.request().body || r.target != pieces.request().target)
      finding("pieces read another request", r.target);
  }
  return 0;
}

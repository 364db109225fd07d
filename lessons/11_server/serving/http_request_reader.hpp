// http_request_reader.hpp: one HTTP/1.1 request, read from bytes as they come.
//
// The server's event loop hands each connection's bytes to its reader, in
// whatever pieces the network delivers them. The reader keeps what it needs and
// knows at every byte whether the request is over a limit, so a request too
// large is refused as soon as that is known, before its body is buffered:
//
//   head (request line and headers)  at most max_head_bytes    431 (414: its line)
//   headers                          at most max_headers       431
//   body, Content-Length             at most max_body_bytes    413 right after the head
//   body, chunked                    at most max_body_bytes    413 at the chunk that passes it
//   a POST without either            -                         411
//
// It takes no time: the deadline for the whole request is the event loop's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tang {

struct HttpLimits {
  std::size_t max_head_bytes = 16 * 1024;  // request line and headers together
  std::size_t max_headers = 64;
  std::size_t max_body_bytes = 1 << 20;
};

struct HttpRequest {
  std::string method, target, path;                          // path: the target before any '?'
  int minor_version = 1;                                     // HTTP/1.<minor>
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;                                          // chunked bodies decoded
  // The value of a header (the first of that name), or nullptr.
  const std::string* header(std::string_view lower_case_name) const;
  bool keep_alive() const;        // HTTP/1.1 unless "Connection: close"; 1.0 only if asked
  bool expects_continue() const;  // "Expect: 100-continue"
};

// Why a request could not be read: an HTTP status and a sentence for its body.
struct HttpProblem {
  int status = 0;
  std::string message;
};

class HttpRequestReader {
 public:
  enum class State { head, body, done, failed };

  explicit HttpRequestReader(const HttpLimits& limits) : limits_(limits) {}

  // Takes the next bytes of the connection; returns how many belong to this
  // request (the rest, if it is done, begin the next one).
  std::size_t feed(std::string_view bytes);
  State state() const { return state_; }
  bool started() const { return started_; }  // any byte of this request yet
  const HttpRequest& request() const { return request_; }
  const HttpProblem& problem() const { return problem_; }
  // Ready for the connection's next request.
  void reset();

 private:
  std::size_t feed_head(std::string_view bytes);
  std::size_t feed_body(std::string_view bytes);
  bool read_head();  // the whole head is in head_: parse it
  bool fail(int status, std::string message);
  bool add_body(std::size_t bytes);  // false (413) when the body would pass the limit
  bool too_large();                  // the 413

  enum class Chunk { size_line, data, data_end, trailer };
  HttpLimits limits_;
  State state_ = State::head;
  bool started_ = false;
  std::string head_;           // the head as it comes, until its empty line
  std::string line_;           // a chunk's size line or a trailer line
  bool chunked_ = false;       // else body_left_ bytes of Content-Length
  std::size_t body_left_ = 0;  // of the body (Content-Length) or of this chunk
  Chunk chunk_ = Chunk::size_line;
  std::size_t trailers_ = 0;
  HttpRequest request_;
  HttpProblem problem_;
};

}  // namespace tang

// http_server.hpp: HTTP/1.1 from a library (GNU libmicrohttpd), with our bounds.
//
// libmicrohttpd parses every request, keeps every connection on one thread of its
// own (Linux epoll), writes every answer, and enforces the sizes and the limit
// per address below. What is ours: a request whose framing is ambiguous is
// refused before its body is read; a whole request goes to a handler on a
// thread of a pool (at most max_handlers at once), which answers through its
// HttpExchange, whole or streamed; one watchdog thread closes a connection whose
// request is not whole within `timeout` of the connection's start or last
// answer, however slowly it keeps sending; and past max_connections the
// connection silent the longest between two requests is closed to make room.
//
//   a request's head and body   within `timeout`                    closed (no answer)
//   head                        the connection's 36 KB of memory    431 (414: its first line)
//   framing: Content-Length and Transfer-Encoding, two lengths that differ, a
//   name with a space before its colon, a coding but chunked, no Host or two
//   (HTTP/1.1), a NUL, a bare LF or a folded line                   400, closed
//   body, Content-Length        max_body_bytes                      413 right after the head
//   body, chunked               max_body_bytes                      413 when it ends; the rest
//                                                                   of the body is read and dropped
//   a POST with neither         -                                   411
//   connections from an address max_client_connections; one more   closed at once
//   connections open            max_connections; one more           the idlest silent one between
//                                                                   requests closed (none: let in,
//                                                                   up to an eighth more)
//   a connection's answers      max_requests_per_connection,        the last says Connection: close
//                               max_connection_life
//   requests handled at once    max_handlers; one more              503
//   an answer the client does   not read, past 64 KB + 64 KB of     closed; its handler sees gone()
//                               the server's: for `timeout` (whole
//                               seconds) the library closes it
//
// A client that resets its connection, or closes it both ways, while its request
// is handled is seen at once: gone() turns true, send() false. One that only
// half-closes (HTTP/1.1 allows it) still gets its answer.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct MHD_Response;  // libmicrohttpd's answer

namespace tang {

struct HttpServerSettings {
  std::size_t max_body_bytes = 1 << 20;
  std::chrono::milliseconds timeout{10000};
  std::size_t max_connections = 1000;
  std::size_t max_client_connections = 256;  // from one address
  std::size_t max_handlers = 264;
  // A kept-alive connection's answers close it after these (as nginx's
  // keepalive_requests and keepalive_time)
  std::size_t max_requests_per_connection = 1000;
  std::chrono::milliseconds max_connection_life{std::chrono::hours(1)};
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method, path;  // the path without any '?query'
  HttpHeaders headers;       // names in lower case
  std::string body;          // chunked bodies decoded
  // The value of a header (the first of that name), or nullptr.
  const std::string* header(std::string_view lower_case_name) const;
};

struct HttpConnection;  // http_server.cpp: a request's answer between its handler and the library

// One request's answer, written from its handler's thread.
class HttpExchange {
 public:
  explicit HttpExchange(std::shared_ptr<HttpConnection> connection);
  // The whole answer at once.
  void respond(int status, std::string_view content_type, std::string_view body,
               const HttpHeaders& extra = {});
  // A 200 whose body follows in pieces (chunked), each sent as it comes; the
  // head goes with the first.
  void start_stream(std::string_view content_type, const HttpHeaders& extra = {});
  // One piece; false once the client has gone. Waits while the client is
  // more than 64 KB behind the library.
  bool send(std::string_view piece);
  bool gone() const;  // the client closed the connection, or stopped reading
  void finish();      // the handler is done (the server calls it)

 private:
  void queue(int status, ::MHD_Response* response);
  std::shared_ptr<HttpConnection> connection_;
  ::MHD_Response* stream_ = nullptr;  // started, not yet handed to the library
  bool answered_ = false, streaming_ = false;
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpExchange&)>;
  // The body of an error the server answers by itself (a body too large, no
  // handler free): the caller's JSON and its count of answers by status.
  using ErrorBody = std::function<std::string(int status, const std::string& message)>;

  HttpServer(const HttpServerSettings& settings, Handler handler, ErrorBody error_body);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on host:port (0: any free port) and starts answering; returns the
  // port, or -1 when it cannot (in use, not allowed, no such host).
  int bind(const std::string& host, int port);
  // Waits until stop().
  void serve();
  // From any thread: stop taking requests, give the handlers 2 s to finish, tell
  // those still running that their clients have gone, wait for them, give the
  // answers 2 s to be written, close.
  void stop();
  std::size_t open_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tang

// http_server.hpp: HTTP/1.1 on one event loop, bounded by design.
//
// One thread watches every connection (Linux epoll): it accepts, reads each
// request through its HttpRequestReader and writes every answer. A connection
// that is idle, or sends its request a byte at a time, costs a socket and a few
// kilobytes, never a thread. Only a whole request goes to a handler, on a
// thread of a pool that grows to max_handlers; the handler answers through its
// HttpExchange, which queues the bytes for the loop to write.
//
// The bounds, each answered at once with an error in the caller's words:
//
//   a request's head and body    within `timeout` of the connection's last answer   408
//   head, headers, body          HttpLimits (http_request_reader.hpp)              414 431 413 411
//   connections open             max_connections; one more gets 503 and is closed   503
//   requests handled at once     max_handlers; one more gets 503                    503
//   an answer the client does    not read for `timeout`: the connection is closed,
//                                and its handler sees gone()
//
// A client that closes its connection while its request is handled is seen at
// once (the loop keeps reading): gone() turns true, send() false.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "11_server/serving/http_request_reader.hpp"

namespace tang {

struct HttpServerSettings {
  HttpLimits limits;
  std::chrono::milliseconds timeout{10000};
  std::size_t max_connections = 1000;
  std::size_t max_handlers = 264;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpConnection;  // http_server.cpp

// One request's answer, written from its handler's thread.
class HttpExchange {
 public:
  explicit HttpExchange(std::shared_ptr<HttpConnection> connection);
  // The whole answer at once.
  void respond(int status, std::string_view content_type, std::string_view body,
               const HttpHeaders& extra = {});
  // A 200 whose body follows in pieces (chunked), each sent as it comes.
  void start_stream(std::string_view content_type, const HttpHeaders& extra = {});
  // One piece; false once the client has gone. Waits while the client is
  // more than a few hundred kilobytes behind.
  bool send(std::string_view piece);
  bool gone() const;      // the client closed the connection, or stopped reading
  bool answered() const;  // respond() or start_stream() was called
  void finish();          // the handler is done (the server calls it)

 private:
  void queue(std::string bytes);
  std::shared_ptr<HttpConnection> connection_;
  bool chunked_ = true;  // HTTP/1.1: a stream in chunks; 1.0: until the connection closes
  bool answered_ = false, streaming_ = false;
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpExchange&)>;
  // The body of an error the server answers by itself (a limit, a deadline,
  // no room): the caller's JSON and its count of answers by status.
  using ErrorBody = std::function<std::string(int status, const std::string& message)>;

  HttpServer(const HttpServerSettings& settings, Handler handler, ErrorBody error_body);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on host:port (0: any free port); returns the port. Throws UserError
  // when it cannot.
  int bind(const std::string& host, int port);
  // Runs the loop until stop(); then waits for the handlers still running.
  void serve();
  // From any thread: stop taking connections, write what is queued (2 s at
  // most), close every connection.
  void stop();
  std::size_t open_connections() const { return open_connections_.load(); }

 private:
  struct Loop;
  std::unique_ptr<Loop> loop_;
  std::atomic<std::size_t> open_connections_ = 0;
};

}  // namespace tang

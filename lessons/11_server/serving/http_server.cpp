#include "11_server/serving/http_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tang {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBehind = 256 * 1024;  // queued bytes a handler may be ahead of its client
constexpr auto kLinger = std::chrono::seconds(1);  // reading what a refused client still sends
constexpr auto kStopWait = std::chrono::seconds(2);

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string head_of(int status, std::string_view content_type, const HttpHeaders& extra) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  head += "Content-Type: " + std::string(content_type) + "\r\n";
  for (const auto& [name, value] : extra) head += name + ": " + value + "\r\n";
  return head;
}

std::string whole_answer(int status, std::string_view content_type, std::string_view body,
                         const HttpHeaders& extra, bool keep_alive) {
  return head_of(status, content_type, extra) + "Content-Length: " + std::to_string(body.size()) +
         "\r\n" + (keep_alive ? "" : "Connection: close\r\n") + "\r\n" + std::string(body);
}

// Threads for handlers, made when needed up to `most`, kept while idle.
class Handlers {
 public:
  explicit Handlers(std::size_t most) : most_(most) {}
  // False when `most` handlers are busy.
  bool submit(std::function<void()> job) {
    const std::lock_guard lock(mutex_);
    if (idle_ <= jobs_.size() && threads_.size() >= most_) return false;
    jobs_.push_back(std::move(job));
    if (idle_ >= jobs_.size()) {
      work_.notify_one();
    } else {
      threads_.emplace_back([this] { run(); });
    }
    return true;
  }
  void join() {
    {
      const std::lock_guard lock(mutex_);
      quitting_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      work_.wait(lock, [&] { return quitting_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }
  std::size_t most_, idle_ = 0;
  bool quitting_ = false;
  std::mutex mutex_;
  std::condition_variable work_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
};

// The connections with bytes to write or a handler that ended, for the loop.
struct Waker {
  int fd = -1;  // an eventfd the loop watches
  std::mutex mutex;
  std::vector<std::shared_ptr<HttpConnection>> ready;
};

}  // namespace

struct HttpConnection {
  // the loop's alone
  int fd = -1;
  HttpRequestReader reader;
  std::string in;  // read and not yet taken by the reader
  enum class Phase { reading, handling, closing } phase = Phase::reading;
  Clock::time_point deadline;         // reading: the request's; closing: the linger's
  Clock::time_point stalled_since{};  // the socket has not taken `out` since then
  bool continued = false;             // "100 Continue" sent for this request
  bool shut = false;                  // our side is shut (closing)
  // shared with the handler's thread
  Waker* waker = nullptr;
  std::atomic<bool> queued = false;  // in waker->ready
  std::mutex mutex;
  std::condition_variable drained;  // out shrank, or the client went
  std::string out;
  bool gone = false, handler_done = false, keep_alive = true, chunked = true;

  HttpConnection(int socket, const HttpLimits& limits) : fd(socket), reader(limits) {}
  void wake(const std::shared_ptr<HttpConnection>& self) {
    if (queued.exchange(true)) return;
    {
      const std::lock_guard lock(waker->mutex);
      waker->ready.push_back(self);
    }
    const std::uint64_t one = 1;
    (void)!::write(waker->fd, &one, sizeof one);
  }
};

HttpExchange::HttpExchange(std::shared_ptr<HttpConnection> connection)
    : connection_(std::move(connection)) {
  const std::lock_guard lock(connection_->mutex);
  chunked_ = connection_->chunked;  // set before the handler starts, fixed since
}

void HttpExchange::queue(std::string bytes) {
  {
    std::unique_lock lock(connection_->mutex);
    connection_->drained.wait(
        lock, [&] { return connection_->gone || connection_->out.size() < kBehind; });
    if (connection_->gone) return;
    connection_->out += bytes;
  }
  connection_->wake(connection_);
}

void HttpExchange::respond(int status, std::string_view content_type, std::string_view body,
                           const HttpHeaders& extra) {
  answered_ = true;
  bool keep_alive = false;
  {
    const std::lock_guard lock(connection_->mutex);
    keep_alive = connection_->keep_alive;
  }
  queue(whole_answer(status, content_type, body, extra, keep_alive));
}

void HttpExchange::start_stream(std::string_view content_type, const HttpHeaders& extra) {
  answered_ = streaming_ = true;
  std::string head = head_of(200, content_type, extra);
  if (!chunked_) {  // HTTP/1.0: the end of the answer is the end of the connection
    const std::lock_guard lock(connection_->mutex);
    connection_->keep_alive = false;
  }
  head += chunked_ ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n";
  queue(head + "\r\n");
}

bool HttpExchange::send(std::string_view piece) {
  if (piece.empty()) return !gone();  // an empty chunk would end the stream
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
  queue(chunked_ ? size + std::string(piece) + "\r\n" : std::string(piece));
  return !gone();
}

bool HttpExchange::gone() const {
  const std::lock_guard lock(connection_->mutex);
  return connection_->gone;
}

bool HttpExchange::answered() const {
  return answered_;
}

void HttpExchange::finish() {
  if (streaming_ && chunked_) queue("0\r\n\r\n");
  {
    const std::lock_guard lock(connection_->mutex);
    connection_->handler_done = true;
  }
  connection_->wake(connection_);
}

struct HttpServer::Loop {
  HttpServerSettings settings;
  Handler handler;
  ErrorBody error_body;
  std::atomic<std::size_t>& open;
  int listener = -1, epoll = -1;
  Waker waker;
  std::map<int, std::shared_ptr<HttpConnection>> connections;  // by socket
  Handlers handlers;
  std::atomic<bool> stopping = false;
  Clock::time_point accept_again{}, stop_by{}, next_check{};

  Loop(const HttpServerSettings& s, Handler h, ErrorBody errors, std::atomic<std::size_t>& count)
      : settings(s),
        handler(std::move(h)),
        error_body(std::move(errors)),
        open(count),
        handlers(s.max_handlers) {
    epoll = ::epoll_create1(EPOLL_CLOEXEC);
    waker.fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll < 0 || waker.fd < 0) throw std::runtime_error("HttpServer: no epoll or eventfd");
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = waker.fd;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, waker.fd, &e);
  }
  ~Loop() {
    for (auto& [fd, c] : connections) ::close(fd);
    if (listener >= 0) ::close(listener);
    ::close(waker.fd);
    ::close(epoll);
  }

  // Every open connection, to go through while closing some of them.
  std::vector<std::shared_ptr<HttpConnection>> open_now() const {
    std::vector<std::shared_ptr<HttpConnection>> all;
    for (const auto& [fd, c] : connections) all.push_back(c);
    return all;
  }

  void watch_listener(bool on) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = listener;
    ::epoll_ctl(epoll, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, listener, &e);
  }

  void close_connection(const std::shared_ptr<HttpConnection>& c) {
    if (c->fd < 0) return;
    {
      const std::lock_guard lock(c->mutex);
      c->gone = true;
      c->out.clear();
    }
    c->drained.notify_all();
    ::epoll_ctl(epoll, EPOLL_CTL_DEL, c->fd, nullptr);
    ::close(c->fd);
    connections.erase(c->fd);
    c->fd = -1;
    --open;
  }

  // An error the server answers itself; the connection closes after it.
  void answer_error(const std::shared_ptr<HttpConnection>& c, int status,
                    const std::string& message) {
    const std::string body = error_body(status, message);
    {
      const std::lock_guard lock(c->mutex);
      c->out += whole_answer(status, "application/json", body, {}, false);
    }
    c->phase = HttpConnection::Phase::closing;
    c->deadline = Clock::now() + settings.timeout;  // to write it; then the linger
    flush(c);
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          watch_listener(false);  // out of sockets: try again shortly, not in a busy loop
          accept_again = Clock::now() + std::chrono::milliseconds(100);
        }
        return;
      }
      if (connections.size() >= settings.max_connections) {
        refuse(fd);
        continue;
      }
      const int yes = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);  // each event at once
      auto c = std::make_shared<HttpConnection>(fd, settings.limits);
      c->waker = &waker;
      c->deadline = Clock::now() + settings.timeout;
      epoll_event e{};
      e.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
      e.data.fd = fd;
      ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e);
      connections[fd] = c;
      ++open;
    }
  }

  // One connection too many: a 503 at once, what it sent read and dropped (so
  // that closing sends no reset before the answer), closed.
  void refuse(int fd) {
    const std::string answer = whole_answer(
        503, "application/json",
        error_body(503, "the server has as many connections open as it takes (" +
                            std::to_string(settings.max_connections) + "); try again in a moment"),
        {{"Retry-After", "1"}}, false);
    (void)!::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    char scratch[4096];
    while (::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0) {
    }
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }

  void on_readable(const std::shared_ptr<HttpConnection>& c) {
    char buffer[64 * 1024];
    while (c->fd >= 0) {
      // while a request is handled, what comes after it waits here, a head's worth at most
      if (c->phase == HttpConnection::Phase::handling &&
          c->in.size() >= settings.limits.max_head_bytes)
        return;
      const ssize_t got = ::recv(c->fd, buffer, sizeof buffer, 0);
      if (got > 0) {
        if (c->phase == HttpConnection::Phase::closing) continue;  // dropped
        c->in.append(buffer, static_cast<std::size_t>(got));
        if (c->phase == HttpConnection::Phase::reading) read_requests(c);
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      // the client closed its side (or the connection broke): whatever it
      // waited for, it is gone; a running handler sees gone()
      close_connection(c);
      return;
    }
  }

  // Feeds what came to the reader; a whole request goes to a handler.
  void read_requests(const std::shared_ptr<HttpConnection>& c) {
    while (c->fd >= 0 && c->phase == HttpConnection::Phase::reading && !c->in.empty()) {
      const std::size_t used = c->reader.feed(c->in);
      c->in.erase(0, used);
      switch (c->reader.state()) {
        case HttpRequestReader::State::head:
          return;
        case HttpRequestReader::State::body:
          if (!c->continued && c->reader.request().expects_continue()) {
            c->continued = true;  // the head is taken: send the body
            {
              const std::lock_guard lock(c->mutex);
              c->out += "HTTP/1.1 100 Continue\r\n\r\n";
            }
            flush(c);
          }
          return;
        case HttpRequestReader::State::failed:
          answer_error(c, c->reader.problem().status, c->reader.problem().message);
          return;
        case HttpRequestReader::State::done:
          dispatch(c);
          return;
      }
    }
  }

  void dispatch(const std::shared_ptr<HttpConnection>& c) {
    auto request = std::make_shared<HttpRequest>(c->reader.request());
    c->phase = HttpConnection::Phase::handling;
    {
      const std::lock_guard lock(c->mutex);
      c->keep_alive = request->keep_alive() && !stopping;
      c->chunked = request->minor_version >= 1;
      c->handler_done = false;
    }
    const bool taken = handlers.submit([this, c, request] {
      HttpExchange exchange(c);
      try {
        handler(*request, exchange);
      } catch (const std::exception& e) {
        if (!exchange.answered())
          exchange.respond(500, "application/json", error_body(500, e.what()));
      }
      if (!exchange.answered())
        exchange.respond(500, "application/json", error_body(500, "the request had no answer"));
      exchange.finish();
    });
    if (!taken) {
      c->phase = HttpConnection::Phase::reading;  // not handled: answered here
      answer_error(c, 503,
                   "the server is answering as many requests as it takes (" +
                       std::to_string(settings.max_handlers) + "); try again in a moment");
    }
  }

  // Writes what is queued; then moves the connection on (next request, or close).
  void flush(const std::shared_ptr<HttpConnection>& c) {
    if (c->fd < 0) return;
    enum class Sent { all, blocked, broken } how = Sent::all;
    bool done = false, keep_alive = false;
    {
      const std::lock_guard lock(c->mutex);
      std::size_t sent = 0;
      while (sent < c->out.size() && how == Sent::all) {
        const ssize_t n = ::send(c->fd, c->out.data() + sent, c->out.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
          sent += static_cast<std::size_t>(n);
          c->stalled_since = {};
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          how = Sent::blocked;
          if (c->stalled_since == Clock::time_point{}) c->stalled_since = Clock::now();
        } else if (!(n < 0 && errno == EINTR)) {
          how = Sent::broken;
        }
      }
      c->out.erase(0, sent);
      done = c->handler_done;
      keep_alive = c->keep_alive;
    }
    c->drained.notify_all();
    if (how == Sent::broken) close_connection(c);
    if (how != Sent::all) return;
    if (c->phase == HttpConnection::Phase::handling && done) {
      if (!keep_alive) {
        c->phase = HttpConnection::Phase::closing;
      } else {  // the next request on this connection
        c->phase = HttpConnection::Phase::reading;
        c->reader.reset();
        c->continued = false;
        c->deadline = Clock::now() + settings.timeout;
        read_requests(c);
        on_readable(c);  // bytes the socket held while the request was handled
        return;
      }
    }
    if (c->phase == HttpConnection::Phase::closing && !c->shut) {
      ::shutdown(c->fd, SHUT_WR);  // the answer is out; read what still comes, briefly
      c->shut = true;
      c->deadline = Clock::now() + kLinger;
    }
  }

  // Deadlines: a request not read in time, a closing connection's linger, an
  // answer the client has not read for `timeout`.
  void check_deadlines() {
    const Clock::time_point now = Clock::now();
    if (now < next_check) return;
    next_check = now + std::chrono::milliseconds(50);
    for (const std::shared_ptr<HttpConnection>& c : open_now()) {
      if (c->fd < 0) continue;
      if (c->stalled_since != Clock::time_point{} && now - c->stalled_since > settings.timeout) {
        close_connection(c);  // it stopped reading its answer
      } else if (c->phase == HttpConnection::Phase::reading && now > c->deadline) {
        if (c->reader.started())
          answer_error(c, 408,
                       "the request did not arrive whole within " +
                           std::to_string(settings.timeout.count() / 1000) +
                           " s; send it at once (or raise the server's --timeout)");
        else
          close_connection(c);  // idle
      } else if (c->phase == HttpConnection::Phase::closing && now > c->deadline) {
        close_connection(c);
      }
    }
  }

  void run() {
    epoll_event events[256];
    for (;;) {
      if (stopping && stop_by == Clock::time_point{}) begin_stop();
      if (stopping && (connections.empty() || Clock::now() > stop_by)) break;
      if (accept_again != Clock::time_point{} && Clock::now() > accept_again && !stopping) {
        accept_again = {};
        watch_listener(true);
      }
      const int n = ::epoll_wait(epoll, events, 256, 50);
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == listener) {
          if (!stopping) accept_all();
          continue;
        }
        if (fd == waker.fd) {
          std::uint64_t count;
          (void)!::read(waker.fd, &count, sizeof count);
          continue;
        }
        const auto found = connections.find(fd);
        if (found == connections.end()) continue;
        const std::shared_ptr<HttpConnection> c = found->second;
        if (events[i].events & EPOLLOUT) flush(c);
        if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(c);
      }
      std::vector<std::shared_ptr<HttpConnection>> ready;
      {
        const std::lock_guard lock(waker.mutex);
        ready.swap(waker.ready);
      }
      for (const std::shared_ptr<HttpConnection>& c : ready) {
        c->queued = false;
        flush(c);
      }
      check_deadlines();
    }
    for (const std::shared_ptr<HttpConnection>& c : open_now()) close_connection(c);
  }

  void begin_stop() {
    stop_by = Clock::now() + kStopWait;
    if (listener >= 0) {
      watch_listener(false);
      ::close(listener);
      listener = -1;
    }
    for (const std::shared_ptr<HttpConnection>& c : open_now()) {
      if (c->phase == HttpConnection::Phase::reading && !c->reader.started()) {
        close_connection(c);  // idle
      } else {
        const std::lock_guard lock(c->mutex);
        c->keep_alive = false;
      }
    }
  }
};

HttpServer::HttpServer(const HttpServerSettings& settings, Handler handler, ErrorBody error_body)
    : loop_(std::make_unique<Loop>(settings, std::move(handler), std::move(error_body),
                                   open_connections_)) {}

HttpServer::~HttpServer() = default;

int HttpServer::bind(const std::string& host, int port) {
  // every connection is a socket: take the most sockets the system allows this process
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
    loop_->settings.max_connections = std::min<std::size_t>(
        loop_->settings.max_connections, files.rlim_cur > 64 ? files.rlim_cur - 64 : 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) return -1;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  loop_->listener = fd;
  loop_->watch_listener(true);
  return ntohs(address.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

void HttpServer::serve() {
  loop_->run();
  loop_->handlers.join();
}

void HttpServer::stop() {
  loop_->stopping = true;
  const std::uint64_t one = 1;
  (void)!::write(loop_->waker.fd, &one, sizeof one);
}

}  // namespace tang

#include "11_server/serving/http_server.hpp"

#include <linux/tcp.h>  // tcp_info with tcpi_bytes_received (glibc's lacks it)
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "11_server/cpu_clock.hpp"  // name_this_thread

namespace tang {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kKB = 1024;
constexpr std::size_t kBehind = 64 * kKB;  // bytes a stream may be ahead of the library
// A connection's buffers, its head within them. Past 32 KB libmicrohttpd maps
// them apart (mmap) and unmaps them when the connection closes: a flood of
// connections leaves no freed heap behind in this process.
constexpr std::size_t kConnectionMemory = 36 * kKB;
constexpr std::size_t kStreamBlock = 32 * kKB;  // the most a stream is asked for at once
constexpr int kSendBuffer = 32 * 1024;          // a socket's send buffer (the kernel doubles it)
constexpr auto kWatchEvery = std::chrono::milliseconds(50);
constexpr auto kStopWait = std::chrono::seconds(2);
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr auto kGrace = std::chrono::milliseconds(100);  // a new connection's time to speak
constexpr std::uint8_t kTcpClose = 7;                    // tcpi_state after a reset (TCP_CLOSE)

// What the kernel knows of a socket's TCP connection (none when it cannot say).
std::optional<tcp_info> tcp_state(int fd) {
  tcp_info state{};
  socklen_t size = sizeof state;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &state, &size) != 0) return std::nullopt;
  return state;
}

}  // namespace

// A request's answer, shared by its handler's thread and the library's. The
// handler owns the connection while the library has it suspended: it queues the
// answer, then resumes it; a stream suspends again whenever it has written all
// it was given.
struct HttpConnection {
  HttpConnection(MHD_Connection* c, int socket, bool http11, bool last)
      : connection(c), fd(socket), http11(http11), last(last) {}
  MHD_Connection* connection;
  int fd;
  bool http11;             // the client speaks HTTP/1.1 (it takes an interim 100)
  bool last;               // the connection's last answer: it says Connection: close
  bool probed = false;     // a 100 went out to tell a half-close from a close
  bool answering = false;  // the answer's head was handed to the library
  std::mutex mutex;
  std::condition_variable drained;  // `out` shrank, or the client went
  std::string out;                  // a stream's bytes not yet taken by the library
  bool suspended = true;            // the library waits for us (we may touch `connection`)
  bool finished = false;            // the stream has all its pieces
  bool gone = false;                // the client left, or the server is stopping
  bool closed = false;              // the library is done with the request

  // Hands the connection back to the library, if it waits for us.
  void resume(std::unique_lock<std::mutex>& lock) {
    if (!suspended || closed) return;
    suspended = false;
    lock.unlock();
    MHD_resume_connection(connection);  // safe from any thread
  }
  // While suspended the library does not read the socket: look at it ourselves.
  // The end of what the client sends is a half-close (HTTP/1.1 allows it: the
  // answer is still wanted) or a close both ways, which TCP tells apart only
  // when something is sent: an orphaned socket answers it with a reset. Before
  // the answer's head, that something is an interim 100 (an HTTP/1.1 client
  // takes any number of them before the answer); after it, the answer itself.
  bool client_gone() {
    if (gone || !suspended || closed) return gone;
    char byte = 0;
    const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) gone = true;
    if (n != 0 || gone) return gone;
    if (!http11) {  // an HTTP/1.0 client may get no 100: its end is a leave
      gone = true;
    } else if (!probed && !answering) {
      probed = true;
      gone = ::send(fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
             static_cast<ssize_t>(kContinue.size());
    } else {
      const std::optional<tcp_info> state = tcp_state(fd);
      gone = !state || state->tcpi_state == kTcpClose;  // the reset came back
    }
    return gone;
  }
};

namespace {

MHD_Response* response_with(MHD_Response* response, std::string_view content_type,
                            const HttpHeaders& extra) {
  MHD_add_response_header(response, "Content-Type", std::string(content_type).c_str());
  for (const auto& [name, value] : extra)
    MHD_add_response_header(response, name.c_str(), value.c_str());
  return response;
}

// A whole answer: `body` copied into the library's response.
MHD_Response* whole_response(std::string_view body, std::string_view content_type,
                             const HttpHeaders& extra) {
  return response_with(MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                       MHD_RESPMEM_MUST_COPY),
                       content_type, extra);
}

// Bytes the kernel has received on a socket, read or not.
std::uint64_t received(int fd) {
  const std::optional<tcp_info> state = tcp_state(fd);
  return state ? state->tcpi_bytes_received : 0;
}

// The connection's socket (-1 if the library has none for it).
int socket_of(MHD_Connection* c) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

// The library asks a stream for its next bytes.
ssize_t read_stream(void* cls, std::uint64_t /*pos*/, char* buffer, std::size_t most) {
  HttpConnection& c = **static_cast<std::shared_ptr<HttpConnection>*>(cls);
  const std::lock_guard lock(c.mutex);
  if (!c.out.empty()) {
    const std::size_t n = std::min(most, c.out.size());
    std::memcpy(buffer, c.out.data(), n);
    c.out.erase(0, n);
    c.drained.notify_all();
    return static_cast<ssize_t>(n);
  }
  if (c.finished || c.gone) return MHD_CONTENT_READER_END_OF_STREAM;
  c.suspended = true;  // until the handler sends more (returning 0 alone would spin)
  MHD_suspend_connection(c.connection);
  return 0;
}

void free_stream(void* cls) {
  delete static_cast<std::shared_ptr<HttpConnection>*>(cls);
}

}  // namespace

const std::string* HttpRequest::header(std::string_view lower_case_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_case_name) return &value;
  return nullptr;
}

HttpExchange::HttpExchange(std::shared_ptr<HttpConnection> connection)
    : connection_(std::move(connection)) {}

namespace {

// A connection's last answer (max_requests_per_connection, max_connection_life)
// tells its client so.
HttpHeaders with_close(HttpHeaders extra, bool last) {
  if (last) extra.emplace_back("Connection", "close");
  return extra;
}

}  // namespace

void HttpExchange::respond(int status, std::string_view content_type, std::string_view body,
                           const HttpHeaders& extra) {
  if (answered_) return;
  answered_ = true;
  queue(status, whole_response(body, content_type, with_close(extra, connection_->last)));
}

// The answer goes to the library, which then has the connection back.
// (Not under the connection's lock: the library takes its own locks in both
// orders. While the connection is suspended no other thread touches it.)
void HttpExchange::queue(int status, MHD_Response* response) {
  std::unique_lock lock(connection_->mutex);
  const bool suspended = connection_->suspended && !connection_->closed;
  connection_->answering = true;
  lock.unlock();
  if (suspended)
    MHD_queue_response(connection_->connection, static_cast<unsigned>(status), response);
  MHD_destroy_response(response);  // the library keeps its own reference
  lock.lock();
  connection_->resume(lock);
}

void HttpExchange::start_stream(std::string_view content_type, const HttpHeaders& extra) {
  if (answered_) return;
  answered_ = streaming_ = true;
  // queued with the first piece: the head and it go to the library in one hand-over
  stream_ = response_with(MHD_create_response_from_callback(
                              MHD_SIZE_UNKNOWN, kStreamBlock, &read_stream,
                              new std::shared_ptr<HttpConnection>(connection_), &free_stream),
                          content_type, with_close(extra, connection_->last));
}

bool HttpExchange::send(std::string_view piece) {
  HttpConnection& c = *connection_;
  std::unique_lock lock(c.mutex);
  c.drained.wait(lock, [&] { return c.gone || c.closed || c.out.size() < kBehind; });
  if (c.gone || c.closed) return false;
  c.out += piece;
  if (stream_ != nullptr) {
    lock.unlock();
    queue(200, std::exchange(stream_, nullptr));
    return true;
  }
  c.resume(lock);
  return true;
}

bool HttpExchange::gone() const {
  const std::lock_guard lock(connection_->mutex);
  return connection_->client_gone();
}

void HttpExchange::finish() {
  if (!answered_) respond(500, "text/plain", "the request had no answer\n");
  if (!streaming_) return;
  std::unique_lock lock(connection_->mutex);
  connection_->finished = true;
  if (stream_ != nullptr) {  // a stream of no piece
    lock.unlock();
    queue(200, std::exchange(stream_, nullptr));
    return;
  }
  connection_->resume(lock);
}

namespace {

// A header as the library parsed it: its name and value in the library's copy
// of the head (for head_is_plain), and ours, the name in lower case.
struct RawHeader {
  const char* name;
  const char* value;
};

bool is_token_char(unsigned char ch) {  // RFC 9110's tchar
  return std::isalnum(ch) ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(ch)) != std::string_view::npos;
}

// libmicrohttpd (0.9.75) parses a head in place, in one buffer from the method
// on: each line's CRLF becomes two zero bytes (a bare LF one), a header's colon
// one, and a name and value point into it, the value after the blanks that
// follow the colon. So a head of CRLF lines with no NUL and no folded line
// reads back exactly: after the version, for each header "\0\0" then its name,
// "\0", blanks, its value; then "\0\0\0\0" to the head's end. A NUL (the value
// seen cut short), a bare LF (one zero byte), or a folded line (its value moved
// out of the buffer) breaks that.
bool head_is_plain(const char* method, const char* version, std::size_t head_size,
                   const std::vector<RawHeader>& headers) {
  const char* const end = method + head_size;
  const auto inside = [&](const char* p) { return p >= method && p <= end; };
  const auto text_end = [&](const char* p) { return p + ::strnlen(p, end - p); };
  const auto zeros = [&](const char* p, std::size_t n) {
    return inside(p) && static_cast<std::size_t>(end - p) >= n &&
           std::all_of(p, p + n, [](char ch) { return ch == 0; });
  };
  if (!inside(version)) return false;
  const char* at = text_end(version);
  for (const RawHeader& h : headers) {
    if (!zeros(at, 2) || h.name != at + 2 || !inside(h.value)) return false;
    const char* colon = text_end(h.name);
    if (!zeros(colon, 1) || h.value < colon + 1) return false;
    if (!std::all_of(colon + 1, h.value, [](char ch) { return ch == ' ' || ch == '\t'; }))
      return false;
    at = text_end(h.value);
  }
  return zeros(at, 4) && at + 4 == end;
}

// Why a head's framing is ambiguous (RFC 9112: a proxy in front might read the
// same bytes as other requests), or "" when it is not.
std::string framing_error(const HttpHeaders& headers, const std::vector<RawHeader>& raw,
                          const char* method, const char* version, std::size_t head_size) {
  if (!head_is_plain(method, version, head_size, raw))
    return "the request's head has a NUL, a line not ended by CRLF, or a folded line";
  for (const auto& [name, value] : headers) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) {
          return is_token_char(static_cast<unsigned char>(ch));
        }))
      return "the header name '" + name + "' is not a token (a space before its colon?)";
    if (std::any_of(value.begin(), value.end(), [](char ch) {
          return (static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7f;
        }))
      return "the header " + name + " has a control character in its value";
  }
  std::size_t hosts = 0, codings = 0;
  std::string length, coding;
  for (const auto& [name, value] : headers) {
    hosts += name == "host";
    if (name == "transfer-encoding") {
      ++codings;
      coding = value;
    }
    if (name != "content-length") continue;
    if (!length.empty() && value != length)
      return "the request has two Content-Lengths that differ (" + length + " and " + value + ")";
    length = value;
  }
  if (codings > 0 && !length.empty())
    return "the request has both Content-Length and Transfer-Encoding";
  std::string lower;
  for (const char ch : coding)
    if (ch != ' ' && ch != '\t')
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (codings > 1 || (codings == 1 && lower != "chunked"))
    return "the request's Transfer-Encoding is not chunked alone (got '" + coding + "')";
  if (std::string_view(version) != "HTTP/1.0" && hosts != 1)
    return "an HTTP/1.1 request has one Host header (got " + std::to_string(hosts) + ")";
  if (hosts > 1) return "the request has " + std::to_string(hosts) + " Host headers";
  return "";
}

}  // namespace

// One request as the library hands it to us, from its head to its answer.
struct Call {
  HttpRequest request;
  bool too_large = false;                  // the body passed the limit: read and dropped
  bool last = false;                       // the connection's last answer
  std::string version;                     // "HTTP/1.1" or "HTTP/1.0"
  std::shared_ptr<HttpConnection> answer;  // once a handler has it
};

struct HttpServer::Impl {
  HttpServerSettings settings;
  Handler handler;
  ErrorBody error_body;
  MHD_Daemon* daemon = nullptr;

  std::mutex mutex;  // what follows
  std::condition_variable changed;
  std::size_t handlers = 0, calls = 0;
  std::set<std::shared_ptr<HttpConnection>> handled;
  bool stopping = false, stopped = false;
  // The handlers' threads, made when none is idle and kept (a thread made for
  // each request would cost the engine's thread its core more often)
  std::vector<std::thread> threads;
  std::deque<std::function<void()>> jobs;
  std::size_t idle = 0;
  std::condition_variable work;

  void handle_jobs() {
    name_this_thread("tang-handler");  // serve_bench counts its CPU time by this name
    std::unique_lock lock(mutex);
    for (;;) {
      ++idle;
      work.wait(lock, [&] { return stopped || !jobs.empty(); });
      --idle;
      if (jobs.empty()) return;
      const std::function<void()> job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  // Every open connection: its deadline for a whole request (the watchdog's),
  // its age and answers (its life's bounds), and whether it is between two
  // requests, where it may be closed to make room. All but the watchdog's
  // reads happen on the library's thread.
  struct Watch {
    int fd = -1;
    Clock::time_point deadline, born;
    Clock::time_point since;  // its start, or its last answer
    std::uint64_t heard = 0;  // bytes received by then
    std::size_t answers = 0;
    bool in_request = false;                    // from its head whole to its answer written
    bool closing = false;                       // shut down by us; the library has yet to close it
    std::list<MHD_Connection*>::iterator idle;  // its place in `idlest`, between requests
  };
  std::mutex watch_mutex;
  std::condition_variable watch_wake;
  std::map<MHD_Connection*, Watch> watches;
  std::list<MHD_Connection*> idlest;  // the connections between requests, idlest first
  std::size_t closing = 0;            // of `watches`, shut down by us, not yet closed
  bool watching = true;
  std::thread watchdog;

  // Ends a connection: the library reads the end and closes it. (Under
  // watch_mutex: the library closes a socket only after telling on_connection.)
  void shut(Watch& w) {
    if (w.closing) return;
    ::shutdown(w.fd, SHUT_RDWR);
    w.closing = true;
    ++closing;
    w.deadline = Clock::time_point::max();
    if (!w.in_request) idlest.erase(w.idle);
  }

  void set_deadline(MHD_Connection* c, Clock::time_point deadline) {
    const std::lock_guard lock(watch_mutex);
    const auto w = watches.find(c);
    if (w != watches.end()) w->second.deadline = deadline;
  }
  void watch() {
    std::unique_lock lock(watch_mutex);
    while (watching) {
      watch_wake.wait_for(lock, kWatchEvery);
      const Clock::time_point now = Clock::now();
      for (auto& [c, w] : watches)
        if (w.deadline <= now) shut(w);
      make_room(nullptr, now);
    }
  }

  // An answer of the server's own: an error the caller words.
  MHD_Result refuse(MHD_Connection* c, int status, const std::string& message,
                    const HttpHeaders& extra) {
    MHD_Response* response = whole_response(error_body(status, message), "application/json", extra);
    const MHD_Result queued = MHD_queue_response(c, static_cast<unsigned>(status), response);
    MHD_destroy_response(response);
    return queued;
  }

  MHD_Result on_request(MHD_Connection* c, const char* url, const char* method, const char* version,
                        const char* upload, std::size_t* upload_size, void** context) {
    static thread_local const bool named = (name_this_thread("tang-http"), true);  // the library's
    (void)named;
    if (*context == nullptr) {  // the head is whole
      auto call = std::make_unique<Call>();
      call->request.method = method;
      call->request.path = url;  // the library keeps the query apart
      call->version = version;
      struct Headers {
        HttpHeaders ours;
        std::vector<RawHeader> raw;
      } headers;
      MHD_get_connection_values(
          c, MHD_HEADER_KIND,
          [](void* cls, MHD_ValueKind, const char* key, const char* value) {
            auto& h = *static_cast<Headers*>(cls);
            std::string name = key;
            for (char& ch : name)
              ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            h.ours.emplace_back(std::move(name), value ? value : "");
            h.raw.push_back({key, value ? value : ""});
            return MHD_YES;
          },
          &headers);
      call->request.headers = std::move(headers.ours);
      const HttpRequest& r = call->request;
      *context = call.release();
      {
        const std::lock_guard lock(mutex);
        ++calls;
      }
      bool last = false;
      {
        const std::lock_guard lock(watch_mutex);
        const auto w = watches.find(c);
        if (w != watches.end()) {
          Watch& watch = w->second;
          if (!watch.in_request && !watch.closing) idlest.erase(watch.idle);
          watch.in_request = true;
          last = watch.answers + 1 >= settings.max_requests_per_connection ||
                 Clock::now() - watch.born >= settings.max_connection_life;
        }
      }
      static_cast<Call*>(*context)->last = last;
      const MHD_ConnectionInfo* head =
          MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
      const std::string ambiguous =
          framing_error(r.headers, headers.raw, method, version, head ? head->header_size : 0);
      if (!ambiguous.empty())  // the library reads no more of this connection
        return refuse(c, 400, ambiguous, {{"Connection", "close"}});
      const std::string* length = r.header("content-length");
      const std::size_t most = settings.max_body_bytes;
      if (length && (length->size() > 18 || std::stoull("0" + *length) > most))
        return refuse(c, 413, "the body is " + *length + " bytes; at most " + std::to_string(most),
                      {{"Connection", "close"}});
      if (r.method == "POST" && !length && !r.header("transfer-encoding"))
        return refuse(c, 411, "a POST needs a Content-Length or a chunked body",
                      {{"Connection", "close"}});
      return MHD_YES;
    }
    Call& call = *static_cast<Call*>(*context);
    if (*upload_size > 0) {  // a piece of the body
      if (!call.too_large && call.request.body.size() + *upload_size > settings.max_body_bytes) {
        call.too_large = true;
        std::string().swap(call.request.body);
      }
      if (!call.too_large) call.request.body.append(upload, *upload_size);
      *upload_size = 0;
      return MHD_YES;
    }
    if (call.answer) return MHD_YES;  // resumed before its answer was queued
    if (call.too_large)
      return refuse(c, 413, "the body passed " + std::to_string(settings.max_body_bytes) + " bytes",
                    {{"Connection", "close"}});
    set_deadline(c, Clock::time_point::max());  // whole: no deadline while it is answered
    {
      const std::lock_guard lock(mutex);
      if (stopping || handlers >= settings.max_handlers) {
        return refuse(c, 503, "the server is busy: try again in a second",
                      with_close({{"Retry-After", "1"}}, call.last));
      }
      ++handlers;
      call.answer = std::make_shared<HttpConnection>(
          c, socket_of(c), std::string_view(call.version) != "HTTP/1.0", call.last);
      handled.insert(call.answer);
      MHD_suspend_connection(c);
      jobs.emplace_back([this, request = std::move(call.request), answer = call.answer] {
        HttpExchange exchange(answer);
        try {
          handler(request, exchange);
        } catch (const std::exception& e) {
          exchange.respond(500, "application/json", error_body(500, e.what()));
        }
        exchange.finish();
        const std::lock_guard lock(mutex);
        handled.erase(answer);
        --handlers;
        changed.notify_all();
      });
      if (idle >= jobs.size())
        work.notify_one();
      else
        threads.emplace_back([this] { handle_jobs(); });
    }
    return MHD_YES;
  }

  void on_completed(MHD_Connection* c, void** context, MHD_RequestTerminationCode why) {
    auto* call = static_cast<Call*>(*context);
    if (call == nullptr) return;
    if (call->answer) {
      const std::lock_guard lock(call->answer->mutex);
      call->answer->closed = true;
      if (why != MHD_REQUEST_TERMINATED_COMPLETED_OK) call->answer->gone = true;
      call->answer->drained.notify_all();
    }
    delete call;
    *context = nullptr;
    {
      const std::lock_guard lock(watch_mutex);
      const auto w = watches.find(c);
      if (w != watches.end() && w->second.in_request) {  // between requests again
        Watch& watch = w->second;
        watch.in_request = false;
        ++watch.answers;
        watch.since = Clock::now();
        watch.deadline = watch.since + settings.timeout;  // for its next request
        watch.heard = received(watch.fd);
        if (!watch.closing) watch.idle = idlest.insert(idlest.end(), c);
        make_room(c, watch.since);
      }
    }
    const std::lock_guard lock(mutex);
    --calls;
    changed.notify_all();
  }

  // Past max_connections a connection is closed to make room: the one silent
  // the longest between two requests (as nginx reuses its connections waiting
  // for a request). One that has sent part of its next request is passed over,
  // and so is a new one younger than kGrace (it has had little time to speak).
  // When none may be closed, the new one stays: the library takes up to an
  // eighth more, and room is made again when a connection finishes an answer
  // and at each of the watchdog's rounds.
  MHD_Connection* idlest_silent(MHD_Connection* spared, Clock::time_point now) {
    std::size_t looked = 0;
    for (MHD_Connection* c : idlest) {
      if (c == spared) continue;
      if (++looked > 64) break;
      const Watch& w = watches[c];
      if ((w.answers > 0 || now - w.since >= kGrace) && received(w.fd) == w.heard) return c;
    }
    return nullptr;
  }
  void make_room(MHD_Connection* spared, Clock::time_point now) {
    while (watches.size() - closing > settings.max_connections) {
      MHD_Connection* victim = idlest_silent(spared, now);
      if (victim == nullptr) return;
      shut(watches[victim]);
    }
  }

  void on_connection(MHD_Connection* c, MHD_ConnectionNotificationCode what) {
    const std::lock_guard lock(watch_mutex);
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
      const Clock::time_point now = Clock::now();
      Watch& w = watches[c];
      w.fd = socket_of(c);
      w.since = now;
      // the kernel may hold this much of an answer the client does not read
      // (its own buffer then takes more): past it, the library's timeout sees
      // no progress and closes the connection, and its poems stop
      ::setsockopt(w.fd, SOL_SOCKET, SO_SNDBUF, &kSendBuffer, sizeof kSendBuffer);
      w.born = now;
      w.deadline = now + settings.timeout;
      w.idle = idlest.insert(idlest.end(), c);
      make_room(c, now);
      return;
    }
    const auto w = watches.find(c);
    if (w == watches.end()) return;
    if (w->second.closing)
      --closing;
    else if (!w->second.in_request)
      idlest.erase(w->second.idle);
    watches.erase(w);
  }
};

HttpServer::HttpServer(const HttpServerSettings& settings, Handler handler, ErrorBody error_body)
    : impl_(std::make_unique<Impl>()) {
  impl_->settings = settings;
  impl_->handler = std::move(handler);
  impl_->error_body = std::move(error_body);
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::bind(const std::string& host, int port) {
  // a thousand connections need more descriptors than a shell's 1024 by default
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  Impl& s = *impl_;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
    s.settings.max_connections = std::min<std::size_t>(
        s.settings.max_connections, files.rlim_cur > 64 ? files.rlim_cur - 64 : 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  const unsigned seconds =
      static_cast<unsigned>(std::max<long long>(1, (s.settings.timeout.count() + 999) / 1000));
  // the library's own limit: room for the connections we close to end
  const std::size_t most = std::min<std::size_t>(
      s.settings.max_connections + std::max<std::size_t>(8, s.settings.max_connections / 8),
      files.rlim_cur == RLIM_INFINITY ? 1000000 : std::max<rlim_t>(files.rlim_cur, 96) - 32);
  const std::size_t per_client =
      std::min(s.settings.max_client_connections, s.settings.max_connections);
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                         MHD_ALLOW_SUSPEND_RESUME |
                         (found->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
  s.daemon = MHD_start_daemon(
      flags, static_cast<std::uint16_t>(port), nullptr, nullptr,
      [](void* cls, MHD_Connection* c, const char* url, const char* method, const char* version,
         const char* upload, std::size_t* upload_size, void** context) {
        return static_cast<Impl*>(cls)->on_request(c, url, method, version, upload, upload_size,
                                                   context);
      },
      &s, MHD_OPTION_SOCK_ADDR, found->ai_addr, MHD_OPTION_CONNECTION_LIMIT,
      static_cast<unsigned>(most), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
      static_cast<unsigned>(per_client), MHD_OPTION_CONNECTION_TIMEOUT, seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, kConnectionMemory, MHD_OPTION_NOTIFY_COMPLETED,
      +[](void* cls, MHD_Connection* c, void** context, MHD_RequestTerminationCode why) {
        static_cast<Impl*>(cls)->on_completed(c, context, why);
      },
      &s, MHD_OPTION_NOTIFY_CONNECTION,
      +[](void* cls, MHD_Connection* c, void**, MHD_ConnectionNotificationCode what) {
        static_cast<Impl*>(cls)->on_connection(c, what);
      },
      &s, MHD_OPTION_END);
  ::freeaddrinfo(found);
  if (s.daemon == nullptr) return -1;
  s.watchdog = std::thread([&s] { s.watch(); });
  return MHD_get_daemon_info(s.daemon, MHD_DAEMON_INFO_BIND_PORT)->port;
}

void HttpServer::serve() {
  std::unique_lock lock(impl_->mutex);
  impl_->changed.wait(lock, [&] { return impl_->stopped; });
}

void HttpServer::stop() {
  Impl& s = *impl_;
  std::unique_lock lock(s.mutex);
  if (s.stopping) return;
  s.stopping = true;
  // the handlers get kStopWait to finish their answers (a stream its last events), then
  // every one still running is told its client has gone, and ends soon
  s.changed.wait_for(lock, kStopWait, [&] { return s.handlers == 0; });
  for (const std::shared_ptr<HttpConnection>& c : s.handled) {
    const std::lock_guard answer_lock(c->mutex);
    c->gone = true;
    c->drained.notify_all();
  }
  s.changed.wait(lock, [&] { return s.handlers == 0; });
  if (s.daemon != nullptr) {
    const MHD_socket listening = MHD_quiesce_daemon(s.daemon);          // no new connections
    s.changed.wait_for(lock, kStopWait, [&] { return s.calls == 0; });  // answers written
    lock.unlock();
    MHD_stop_daemon(s.daemon);
    if (listening != MHD_INVALID_SOCKET) ::close(listening);
    {
      const std::lock_guard watch_lock(s.watch_mutex);
      s.watching = false;
    }
    s.watch_wake.notify_all();
    s.watchdog.join();
    lock.lock();
  }
  s.stopped = true;
  s.changed.notify_all();
  s.work.notify_all();
  lock.unlock();
  for (std::thread& t : s.threads) t.join();
  s.threads.clear();
}

std::size_t HttpServer::open_connections() const {
  const std::lock_guard lock(impl_->watch_mutex);
  return impl_->watches.size();  // every open connection is watched
}

}  // namespace tang

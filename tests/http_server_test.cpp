// http_server_test: lesson 11's HTTP layer (libmicrohttpd with our bounds) in this
// process, with a handler of its own, against the clients the server must survive:
// slow, idle, too many, too large, gone. Every test is on loopback and ends by itself
// within seconds.
#include "11_server/serving/http_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback.hpp"

namespace {

using namespace std::chrono_literals;

// A server on a free port with a handler that answers "path body-length", or on
// /stream sends until its client goes, or on /wait waits for its client to go.
class TestServer {
 public:
  explicit TestServer(tang::HttpServerSettings settings = quick()) {
    server_ = std::make_unique<tang::HttpServer>(
        settings, [this](const tang::HttpRequest& r, tang::HttpExchange& e) { handle(r, e); },
        [this](int status, const std::string& message) {
          const std::lock_guard lock(mutex_);
          ++errors_[status];
          return "{\"error\": {\"message\": \"" + message + "\"}}";
        });
    port_ = server_->bind("127.0.0.1", 0);
    thread_ = std::thread([this] { server_->serve(); });
  }
  ~TestServer() {
    release_ = true;
    server_->stop();
    thread_.join();
  }
  static tang::HttpServerSettings quick() {
    tang::HttpServerSettings s;
    s.timeout = 2s;
    return s;
  }
  int port() const { return port_; }
  std::size_t errors(int status) {
    const std::lock_guard lock(mutex_);
    return errors_[status];
  }
  std::atomic<bool> release_ = false;  // /block returns
  std::atomic<int> saw_gone = 0;       // /wait and /stream handlers that saw their client go
  tang::HttpServer& server() { return *server_; }

 private:
  void handle(const tang::HttpRequest& r, tang::HttpExchange& e) {
    if (r.path == "/stream") {
      e.start_stream("text/plain");
      const std::string piece(16 * 1024, 'x');
      while (e.send(piece)) {
      }
      ++saw_gone;
      return;
    }
    if (r.path == "/wait" || r.path == "/block") {
      for (int i = 0; i < 1000 && !e.gone() && !release_; ++i) std::this_thread::sleep_for(5ms);
      if (e.gone()) ++saw_gone;
    }
    e.respond(200, "text/plain", r.path + " " + std::to_string(r.body.size()));
  }
  std::unique_ptr<tang::HttpServer> server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::map<int, std::size_t> errors_;
};

void send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

// What the server sends until it closes (or `until` appears).
std::string read_answer(int fd, const std::string& until = "") {
  std::string got;
  char buffer[4096];
  for (;;) {
    if (!until.empty() && got.find(until) != std::string::npos) return got;
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string ask(int port, const std::string& request) {
  const int fd = connect_loopback(port);
  send_all(fd, request);
  std::string answer = read_answer(fd);
  close(fd);
  return answer;
}

std::size_t threads_now() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoul(line.substr(8));
  return 0;
}

const std::string kGet = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

TEST(HttpServer, AnswersAndKeepsAConnectionForTheNextRequest) {
  TestServer server;
  const int fd = connect_loopback(server.port());
  // two requests at once (pipelined), then a third with a body
  send_all(fd, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  std::string answers = read_answer(fd, "/b 0");
  EXPECT_NE(answers.find("/a 0"), std::string::npos) << answers;
  EXPECT_LT(answers.find("/a 0"), answers.find("/b 0"));
  send_all(fd, "POST /c HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  answers = read_answer(fd);
  EXPECT_NE(answers.find("/c 3"), std::string::npos) << answers;
  EXPECT_NE(answers.find("Connection: close"), std::string::npos);
  close(fd);
}

TEST(HttpServer, ABodyAfterContinue) {
  TestServer server;
  const int fd = connect_loopback(server.port());
  send_all(fd, "POST /c HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(read_answer(fd, "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  send_all(fd, "ok");
  EXPECT_NE(read_answer(fd, "/c 2").find("/c 2"), std::string::npos);
  close(fd);
}

// 300 connections that send their heads a byte at a time, and 200 that send
// nothing, hold no thread; a normal request is answered meanwhile, and the
// deadline closes them all, however slowly they keep sending.
TEST(HttpServer, SlowAndIdleClientsCostNoThreadAndStallNothing) {
  TestServer server;
  const std::size_t threads_before = threads_now();
  std::vector<int> slow, idle;
  for (int i = 0; i < 300; ++i) slow.push_back(connect_loopback(server.port()));
  for (int i = 0; i < 200; ++i) idle.push_back(connect_loopback(server.port()));
  const std::string head = "POST /slow HTTP/1.1\r\n";
  for (std::size_t byte = 0; byte < 3; ++byte)
    for (const int fd : slow) send_all(fd, head.substr(byte, 1));
  for (int i = 0; i < 200 && server.server().open_connections() < 500; ++i)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.server().open_connections(), 500u);
  EXPECT_LE(threads_now(), threads_before) << "no thread for a connection that sends a request";
  EXPECT_NE(ask(server.port(), kGet).find("/hello 0"), std::string::npos);
  // a byte every 0.5 s keeps a connection busy, not alive: the deadline (2 s) closes it
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t byte = 3; byte < head.size(); ++byte) {
    if (send(slow[0], head.data() + byte, 1, MSG_NOSIGNAL) <= 0) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_EQ(read_answer(slow[0]), "") << "closed without an answer";
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
  EXPECT_EQ(read_answer(idle[0]), "");
  for (const int fd : slow) close(fd);
  for (const int fd : idle) close(fd);
}

// Past the limit the library takes no connection: one more waits in the system's
// queue of the listening socket, and is answered as soon as another closes.
TEST(HttpServer, OneConnectionTooManyWaitsForARoom) {
  tang::HttpServerSettings settings = TestServer::quick();
  settings.max_connections = 4;
  TestServer server(settings);
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) held.push_back(connect_loopback(server.port()));
  for (int i = 0; i < 200 && server.server().open_connections() < 4; ++i)
    std::this_thread::sleep_for(5ms);
  auto fifth = std::async(std::launch::async, [&] { return ask(server.port(), kGet); });
  EXPECT_EQ(fifth.wait_for(300ms), std::future_status::timeout) << "not taken while 4 are open";
  EXPECT_EQ(server.server().open_connections(), 4u);
  close(held[0]);
  EXPECT_EQ(fifth.wait_for(500ms), std::future_status::ready) << "taken when one closed";
  EXPECT_NE(fifth.get().find("/hello 0"), std::string::npos);
  for (std::size_t i = 1; i < held.size(); ++i) close(held[i]);
}

// A Content-Length past the limit is refused before the body is sent; a chunked
// body is dropped from the chunk that passes it, and refused when it ends.
TEST(HttpServer, ABodyTooLargeGets413) {
  TestServer server;
  std::string answer = ask(server.port(), "POST /big HTTP/1.1\r\nContent-Length: 33554432\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  EXPECT_NE(answer.find("\"error\""), std::string::npos) << "a JSON body";
  const int fd = connect_loopback(server.port());
  send_all(fd, "POST /big HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";  // 64 KB
  for (int i = 0; i < 17; ++i) send_all(fd, chunk);
  send_all(fd, "0\r\n\r\n");
  answer = read_answer(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  close(fd);
  // a POST with neither length nor chunks, half-closed: 411 at once
  const int half = connect_loopback(server.port());
  send_all(half, "POST /big HTTP/1.1\r\n\r\n" + std::string(100000, 'x'));
  shutdown(half, SHUT_WR);
  answer = read_answer(half);
  EXPECT_EQ(answer.rfind("HTTP/1.1 411", 0), 0u) << answer;
  close(half);
  EXPECT_EQ(server.errors(413), 2u);
  EXPECT_EQ(server.errors(411), 1u);
}

TEST(HttpServer, AHeadPastTheConnectionsMemoryGets431Or414) {
  TestServer server;
  const int fd = connect_loopback(server.port());
  send_all(fd, "GET / HTTP/1.1\r\n");
  for (int i = 0; i < 200000 && fd >= 0; ++i) {  // stops when the server has answered
    const std::string header = "X-" + std::to_string(i) + ": y\r\n";
    if (send(fd, header.data(), header.size(), MSG_NOSIGNAL) <= 0) break;
    if (i == 5000) break;  // well past 32 KB; the answer is already on its way
  }
  const std::string answer = read_answer(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431", 0), 0u) << answer;
  close(fd);
  // a request line past it: 414
  const std::string line =
      ask(server.port(), "GET /" + std::string(40000, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(line.rfind("HTTP/1.1 414", 0), 0u) << line.substr(0, 100);
}

// A handler learns at once that its client left, streamed or not.
TEST(HttpServer, AHandlerSeesItsClientGo) {
  TestServer server;
  int fd = connect_loopback(server.port());
  send_all(fd, "GET /wait HTTP/1.1\r\n\r\n");
  std::this_thread::sleep_for(50ms);
  close(fd);
  for (int i = 0; i < 400 && server.saw_gone < 1; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.saw_gone, 1) << "a non-streamed request's client left";
  // a stream its client stops reading: cut after the timeout (2 s), the handler told
  fd = connect_loopback(server.port());
  send_all(fd, "GET /stream HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 1000 && server.saw_gone < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server.saw_gone, 2) << "a client that stopped reading";
  close(fd);
}

TEST(HttpServer, AllHandlersBusyGets503) {
  tang::HttpServerSettings settings = TestServer::quick();
  settings.max_handlers = 1;
  TestServer server(settings);
  const int fd = connect_loopback(server.port());
  send_all(fd, "GET /block HTTP/1.1\r\n\r\n");
  std::this_thread::sleep_for(50ms);
  const std::string answer = ask(server.port(), kGet);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  server.release_ = true;
  EXPECT_NE(read_answer(fd, "/block 0").find("/block 0"), std::string::npos);
  close(fd);
}

}  // namespace

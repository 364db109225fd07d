// loopback.hpp: a plain socket to a server on this machine, for the tests that
// send what a client library would not (a head a byte at a time, a body too
// large, nothing at all). The whole of 127.0.0.0/8 is this machine: a client
// may connect from 127.0.0.2 or 127.0.0.3, so that a limit per address can be
// told from the limit of all.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

// A connection from `from` (an address of 127.0.0.0/8, any free port) to
// 127.0.0.1:port, or -1. A read on it waits 10 s at most, so that a test whose
// server never answers ends instead of hanging.
inline int connect_loopback(int port, const char* from = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  inet_pton(AF_INET, from, &source.sin_addr);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  timeval wait{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  return fd;
}

// A connection opened without waiting (a flood's connects must not wait for the
// server to take them), or -1.
inline int connect_now(int port, const char* from) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in source{}, address{};
  source.sin_family = address.sin_family = AF_INET;
  inet_pton(AF_INET, from, &source.sin_addr);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
      (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
       errno != EINPROGRESS)) {
    close(fd);
    return -1;
  }
  return fd;
}

// `count` connections from 127.0.0.2 to 127.0.0.9, each reopened as soon as
// the server closes it; idle ones (`every` 0) send nothing, kept-alive ones
// GET `path` every `every`. One thread, until destroyed.
class Flood {
 public:
  Flood(int port, std::size_t count, std::chrono::milliseconds every, std::string path)
      : port_(port), every_(every), request_("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n") {
    for (std::size_t i = 0; i < count; ++i) fds_.push_back(open(i));
    thread_ = std::thread([this] { run(); });
  }
  ~Flood() {
    stop_ = true;
    thread_.join();
    for (const int fd : fds_) close(fd);
  }
  std::atomic<std::size_t> reopened = 0, answers = 0;

 private:
  int open(std::size_t i) {
    const std::string from = "127.0.0." + std::to_string(2 + i % 8);
    return connect_now(port_, from.c_str());
  }
  void run() {
    auto next = std::chrono::steady_clock::now();
    while (!stop_) {
      std::vector<pollfd> polled;
      for (const int fd : fds_) polled.push_back({fd, POLLIN, 0});
      poll(polled.data(), polled.size(), 20);
      for (std::size_t i = 0; i < fds_.size(); ++i) {
        if (fds_[i] < 0) fds_[i] = open(i);
        if (polled[i].revents == 0) continue;
        char buffer[4096];
        const ssize_t n = recv(fds_[i], buffer, sizeof buffer, MSG_DONTWAIT);
        if (n > 0) {
          ++answers;
          continue;
        }
        if (n < 0 && errno == EAGAIN) continue;
        close(fds_[i]);
        fds_[i] = open(i);
        ++reopened;
      }
      if (every_.count() > 0 && std::chrono::steady_clock::now() >= next) {
        next += every_;
        for (const int fd : fds_) send(fd, request_.data(), request_.size(), MSG_NOSIGNAL);
      }
    }
  }
  int port_;
  std::chrono::milliseconds every_;
  std::string request_;
  std::vector<int> fds_;
  std::atomic<bool> stop_ = false;
  std::thread thread_;
};

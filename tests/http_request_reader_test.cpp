// http_request_reader_test: lesson 11's HTTP request reader, fed whole and a
// byte at a time, and every limit refused as soon as it is passed.
#include "11_server/serving/http_request_reader.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using tang::HttpRequestReader;
using State = HttpRequestReader::State;

// Feeds `bytes` in pieces of `piece`; returns the bytes it used.
std::size_t feed(HttpRequestReader& reader, const std::string& bytes, std::size_t piece) {
  std::size_t used = 0;
  for (std::size_t at = 0;
       at < bytes.size() && reader.state() != State::done && reader.state() != State::failed;
       at += piece)
    used += reader.feed(std::string_view(bytes).substr(at, piece));
  return used;
}

TEST(HttpRequestReader, ReadsAHeadAndABodyInAnyPieces) {
  const std::string request =
      "\r\nPOST /v1/completions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
      "X-Thing:  two words \r\n\r\nhelloGET / HTTP/1.1\r\n\r\n";
  for (const std::size_t piece : {std::size_t{1}, std::size_t{3}, request.size()}) {
    HttpRequestReader reader({});
    const std::size_t used = feed(reader, request, piece);
    ASSERT_EQ(reader.state(), State::done) << "pieces of " << piece;
    EXPECT_EQ(reader.request().method, "POST");
    EXPECT_EQ(reader.request().path, "/v1/completions");
    EXPECT_EQ(reader.request().target, "/v1/completions?x=1");
    EXPECT_EQ(reader.request().body, "hello");
    ASSERT_NE(reader.request().header("x-thing"), nullptr);
    EXPECT_EQ(*reader.request().header("x-thing"), "two words");
    EXPECT_TRUE(reader.request().keep_alive());
    EXPECT_EQ(request.substr(used), "GET / HTTP/1.1\r\n\r\n") << "the next request is left";
  }
}

TEST(HttpRequestReader, DecodesAChunkedBody) {
  const std::string request =
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer: t\r\n\r\n";
  for (const std::size_t piece : {std::size_t{1}, request.size()}) {
    HttpRequestReader reader({});
    feed(reader, request, piece);
    ASSERT_EQ(reader.state(), State::done) << reader.problem().message;
    EXPECT_EQ(reader.request().body, "hello world");
  }
}

// Each limit gives its status at the byte that passes it, not at the end.
TEST(HttpRequestReader, EveryLimitIsRefusedWhenPassed) {
  const tang::HttpLimits limits{1024, 8, 100};
  const auto status = [&](const std::string& bytes) {
    HttpRequestReader reader(limits);
    feed(reader, bytes, 1);
    return reader.state() == State::failed ? reader.problem().status : 0;
  };
  EXPECT_EQ(status("GET /" + std::string(2000, 'a') + " HTTP/1.1\r\n\r\n"), 414);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 9; ++i) many += "A" + std::to_string(i) + ": b\r\n";
  EXPECT_EQ(status(many), 431) << "nine headers, before the head ends";
  EXPECT_EQ(status("GET / HTTP/1.1\r\nA: " + std::string(2000, 'b')), 431);
  // a body too large: 413 right after the head, with none of the body sent
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n"), 413);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n"), 0);
  // chunked: at the chunk whose size passes it
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n60\r\n" +
                   std::string(96, 'x') + "\r\n5\r\n"),
            413);
  EXPECT_EQ(status("POST / HTTP/1.1\r\n\r\n"), 411) << "a POST of unknown length";
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"), 501);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status("GET nothing HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nno colon\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nA: b\r\n\r\n"), 0);
}

TEST(HttpRequestReader, KeepAliveAndContinueAsAsked) {
  HttpRequestReader reader({});
  feed(reader, "GET / HTTP/1.0\r\n\r\n", 64);
  EXPECT_FALSE(reader.request().keep_alive()) << "HTTP/1.0 closes unless asked";
  reader.reset();
  feed(reader, "GET / HTTP/1.1\r\nConnection: Close\r\n\r\n", 64);
  EXPECT_FALSE(reader.request().keep_alive());
  reader.reset();
  feed(reader, "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", 64);
  EXPECT_EQ(reader.state(), State::body);
  EXPECT_TRUE(reader.request().expects_continue());
}

}  // namespace

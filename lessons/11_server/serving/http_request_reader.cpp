#include "11_server/serving/http_request_reader.hpp"

#include <algorithm>
#include <cctype>

namespace tang {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A line without its "\r\n" (or bare "\n").
std::string_view without_end(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool is_token(std::string_view s) {  // a method or a header's name
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

}  // namespace

const std::string* HttpRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return &v;
  return nullptr;
}

bool HttpRequest::keep_alive() const {
  const std::string* connection = header("connection");
  const std::string value = connection ? lower(*connection) : "";
  return minor_version >= 1 ? value != "close" : value == "keep-alive";
}

bool HttpRequest::expects_continue() const {
  const std::string* expect = header("expect");
  return expect != nullptr && lower(*expect) == "100-continue";
}

void HttpRequestReader::reset() {
  *this = HttpRequestReader(limits_);
}

bool HttpRequestReader::fail(int status, std::string message) {
  state_ = State::failed;
  problem_ = {status, std::move(message)};
  return false;
}

std::size_t HttpRequestReader::feed(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && (state_ == State::head || state_ == State::body)) {
    const std::string_view rest = bytes.substr(used);
    used += state_ == State::head ? feed_head(rest) : feed_body(rest);
  }
  return used;
}

// The head ends at its first empty line; it is kept whole (it is small) and
// parsed then. Blank lines before a request are skipped, as RFC 9112 allows.
std::size_t HttpRequestReader::feed_head(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size()) {
    const char c = bytes[used++];
    if (head_.empty() && (c == '\r' || c == '\n')) continue;
    started_ = true;
    head_ += c;
    if (c == '\n') {
      const std::size_t previous = head_.rfind('\n', head_.size() - 2);
      const std::size_t start = previous == std::string::npos ? 0 : previous + 1;
      if (without_end(std::string_view(head_).substr(start)).empty()) {
        read_head();
        return used;
      }
      // a header line: one more than the limit is refused before the head ends
      if (std::count(head_.begin(), head_.end(), '\n') >
          static_cast<long>(limits_.max_headers) + 1) {
        fail(431, "the request has more than " + std::to_string(limits_.max_headers) +
                      " headers; send fewer");
        return used;
      }
    }
    if (head_.size() >= limits_.max_head_bytes) {
      if (head_.find('\n') == std::string::npos)
        fail(414, "the request line is longer than " + std::to_string(limits_.max_head_bytes) +
                      " bytes: the address is too long");
      else
        fail(431, "the request's headers are larger than " +
                      std::to_string(limits_.max_head_bytes) +
                      " bytes; send fewer or shorter ones");
      return used;
    }
  }
  return used;
}

bool HttpRequestReader::read_head() {
  std::string_view head = head_;
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const std::size_t end = head.find('\n');
    lines.push_back(without_end(head.substr(0, end + 1)));
    head.remove_prefix(end + 1);
  }
  lines.pop_back();  // the empty line
  // The request line: METHOD SP target SP HTTP/1.x
  const std::string_view line = lines.front();
  const std::size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string_view::npos || a == b)
    return fail(400, "the request line is not METHOD PATH HTTP/1.1");
  request_.method = line.substr(0, a);
  request_.target = line.substr(a + 1, b - a - 1);
  const std::string_view version = line.substr(b + 1);
  if (!is_token(request_.method) || request_.target.empty() || request_.target[0] != '/' ||
      request_.target.find(' ') != std::string::npos)
    return fail(400, "the request line is not METHOD PATH HTTP/1.1");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return fail(505, "this server speaks HTTP/1.1 (and 1.0), not " + std::string(version));
  request_.minor_version = version.back() - '0';
  request_.path = request_.target.substr(0, request_.target.find('?'));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t colon = lines[i].find(':');
    if (colon == std::string_view::npos || !is_token(lines[i].substr(0, colon)))
      return fail(400, "a header is not 'Name: value' (line " + std::to_string(i + 1) + ")");
    request_.headers.emplace_back(lower(lines[i].substr(0, colon)),
                                  std::string(trim(lines[i].substr(colon + 1))));
  }
  if (request_.headers.size() > limits_.max_headers)
    return fail(431, "the request has more than " + std::to_string(limits_.max_headers) +
                         " headers; send fewer");
  // How long the body is: Content-Length, or chunked, or (not for a POST) none.
  const std::string* encoding = request_.header("transfer-encoding");
  std::string length;
  for (const auto& [name, value] : request_.headers) {
    if (name != "content-length") continue;
    if (!length.empty() && value != length)
      return fail(400, "the request gives two different Content-Length headers");
    length = value;
  }
  if (encoding != nullptr) {
    if (!length.empty())
      return fail(400, "the request gives both Content-Length and Transfer-Encoding");
    if (lower(*encoding) != "chunked")
      return fail(501, "the body's Transfer-Encoding '" + *encoding +
                           "' is not chunked, the one this server reads");
    chunked_ = true;
    state_ = State::body;
    return true;
  }
  if (!length.empty()) {
    if (length.size() > 18 || !std::all_of(length.begin(), length.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      return fail(400, "the Content-Length '" + length + "' is not a number of bytes");
    body_left_ = std::stoull(length);
    if (body_left_ > limits_.max_body_bytes) return too_large();  // before any of it
    state_ = body_left_ > 0 ? State::body : State::done;
    return true;
  }
  if (request_.method == "POST" || request_.method == "PUT" || request_.method == "PATCH")
    return fail(411, "a " + request_.method + " needs a Content-Length header (or a chunked body)");
  state_ = State::done;
  return true;
}

bool HttpRequestReader::too_large() {
  return fail(413, "the body is larger than the server takes (" +
                       std::to_string(limits_.max_body_bytes / 1024) +
                       " KB); send a shorter prompt");
}

bool HttpRequestReader::add_body(std::size_t bytes) {
  return request_.body.size() + bytes <= limits_.max_body_bytes || too_large();
}

std::size_t HttpRequestReader::feed_body(std::string_view bytes) {
  if (!chunked_) {
    const std::size_t take = std::min(body_left_, bytes.size());
    request_.body.append(bytes.substr(0, take));
    body_left_ -= take;
    if (body_left_ == 0) state_ = State::done;
    return take;
  }
  // chunked: "<hex size>[;ext]\r\n<data>\r\n" ... "0\r\n" [trailers] "\r\n"
  constexpr std::size_t kLongestLine = 1024;
  std::size_t used = 0;
  while (used < bytes.size() && state_ == State::body) {
    if (chunk_ == Chunk::data) {
      const std::size_t take = std::min(body_left_, bytes.size() - used);
      request_.body.append(bytes.substr(used, take));
      used += take;
      body_left_ -= take;
      if (body_left_ == 0) chunk_ = Chunk::data_end;
      continue;
    }
    const char c = bytes[used++];
    line_ += c;
    if (c != '\n') {
      if (line_.size() > kLongestLine) fail(400, "a chunk's size line or trailer is too long");
      continue;
    }
    const std::string_view line = without_end(line_);
    if (chunk_ == Chunk::data_end) {
      if (!line.empty()) fail(400, "a chunk's data does not end where its size says");
      chunk_ = Chunk::size_line;
    } else if (chunk_ == Chunk::size_line) {
      const std::string_view hex = trim(line.substr(0, line.find(';')));
      if (hex.empty() || hex.size() > 8 || !std::all_of(hex.begin(), hex.end(), [](char h) {
            return std::isxdigit(static_cast<unsigned char>(h));
          })) {
        fail(400, "a chunk's size is not a hexadecimal number");
      } else {
        body_left_ = std::stoul(std::string(hex), nullptr, 16);
        if (add_body(body_left_)) chunk_ = body_left_ > 0 ? Chunk::data : Chunk::trailer;
      }
    } else if (line.empty()) {  // the trailers' end: the body's
      state_ = State::done;
    } else if (++trailers_ > limits_.max_headers) {
      fail(431, "the body has more than " + std::to_string(limits_.max_headers) + " trailers");
    }
    line_.clear();
  }
  return used;
}

}  // namespace tang

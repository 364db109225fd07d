// completion_request.hpp: a POST /v1/completions or /v1/chat/completions body,
// read and checked.
//
// The body is a JSON object with a subset of OpenAI's request and this course's
// own fields:
//
//   prompt       string   the poem's opening (default "")
//   max_tokens   integer  characters to write at most, in [1, 512] (default 64); with
//                         the opening's positions, at most the model's context
//   temperature  number   in [0, 10]; 0 is greedy (default 0.8)
//   top_k        integer  in [0, 100000]; 0 is off (default 20)
//   top_p        number   in (0, 1]; 1 is off (default 1)
//   seed         integer  in [0, 2^64 - 1] (default 42)
//   stop         string, or a list of up to 4: the text ends before the first
//                one it would hold (finish_reason "stop")
//   logprobs     integer  in [0, 5]: each character's log-probability and its
//                         most likely alternatives (default and null: none, and
//                         no probabilities worked out)
//   echo         boolean  the answer's text starts with the prompt (default false)
//   stream       boolean  Server-Sent Events, one per character (default false)
//   heads        string   an acrostic instead: 4 or 8 head characters
//   form         string   五绝, 七绝, 五律 or 七律: with heads, the acrostic's form (4 heads
//                         for 绝, 8 for 律; without form 7 characters a line); without
//                         heads (and without prompt), lesson 07's regular verse of that
//                         form: tones, rhyme and no repeated character
//   model        string   the model's name, as GET /v1/models lists it; another
//                         name is answered 404 model_not_found (poem_http.cpp)
//   user         string   accepted and ignored, as OpenAI's clients send it
//   n            integer  poems for the prompt, in [1, 8] (default 1): choice i is
//                         written with seed + i
//   stream_options object {"include_usage": boolean}, with stream only
//
// A chat body has `messages` instead of prompt and heads: system messages are
// ignored, the last user message is the opening (with "acrostic": true, the
// heads); `logprobs` is true or false there and `top_logprobs` (0-5) says how
// many alternatives (null for either: as if not given); `max_completion_tokens`
// is max_tokens' newer name; there is no echo.
//
// Anything else is refused, naming the field: another field, a wrong type, a
// value out of range, a character the vocabulary lacks. The defaults are
// lessons 04-06's, so the same request and seed write lesson 06's poem.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "11_server/poem_service.hpp"
#include "tokenizer.hpp"

namespace tang {

struct CompletionRequest {
  PoemRequest poem;
  bool stream = false;
  bool include_usage = false;        // stream_options: a last event with the usage alone
  std::string model;                 // "" when the body names none
  std::vector<std::string> stop;     // end the text before the first of these
  int logprobs = -1;                 // alternatives per character, 0-5; -1: no logprobs
  bool echo = false;                 // the text starts with the prompt
  bool chat = false;                 // /v1/chat/completions: answered in chat's shape
  bool acrostic = false;             // chat: the user message holds the heads
  std::size_t n = 1;                 // poems: choice i is written with seed + i
  std::size_t prompt_positions = 0;  // the opening's positions, its newline included
};

// What is wrong with a body: the field ("body" for the whole) and one line.
struct RequestError {
  std::string field;
  std::string message;
};

inline constexpr std::size_t kMaxBodyBytes = 8192;
inline constexpr std::size_t kMaxTokens = 512;
inline constexpr std::size_t kMaxTopK = 100000;  // the lessons' --top-k range
inline constexpr std::size_t kMaxStops = 4;      // as OpenAI's API
inline constexpr std::size_t kMaxLogprobs = 5;   // the alternatives the server keeps
inline constexpr std::size_t kMaxChoices = 8;    // n: poems for one prompt

// The request in `body`, or what is wrong with it. Never throws.
struct ParsedRequest {
  std::optional<CompletionRequest> request;
  RequestError error;
};
// `context`: the model's context (block_size). An opening whose positions and
// max_tokens together pass it is refused, naming both numbers (as vLLM does):
// past the context every character would recompute the whole window.
ParsedRequest parse_completion_request(std::string_view body, const Tokenizer& tokenizer,
                                       std::size_t context);
ParsedRequest parse_chat_request(std::string_view body, const Tokenizer& tokenizer,
                                 std::size_t context);

// The body that asks for `poem` (what parse_completion_request reads back):
// every field written out, `form` only for regular verse and for an acrostic
// of 5 characters a line.
std::string completion_body(const PoemRequest& poem, bool stream);

}  // namespace tang

// fuzz_utf8_tokenizer: any bytes, read as text a learner typed.
//
// utf8_split must accept exactly the well-formed UTF-8 and give back pieces that
// join to the input, each one code point that encodes back to itself. A small
// Tokenizer must encode what it knows, refuse the rest with a one-line
// tang::UserError, and decode what it encoded back to the input; so must the
// vocabulary built from the input itself (Tokenizer::from_corpus).
// Anything else (a crash, a sanitizer report, another exception) is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "fuzz_checks.hpp"
#include "tokenizer.hpp"
#include "utf8.hpp"

namespace {

using tang::fuzz::check_one_line;
using tang::fuzz::finding;

const tang::Tokenizer& small_tokenizer() {
  // 1-, 2-, 3- and 4-byte characters, and the newline.
  static const tang::Tokenizer tokenizer(
      {"\n", "a", "\xC3\xA9" /* é */, "春", "风", "，", "。", "\xF0\xA0\x80\x80" /* 𠀀 */});
  return tokenizer;
}

void check_encode_decode(const tang::Tokenizer& tokenizer, std::string_view text,
                         bool must_encode) {
  try {
    const std::vector<tang::TokenId> ids = tokenizer.encode(text);
    if (tokenizer.decode(ids) != text) finding("encode/decode", "text changed");
  } catch (const tang::UserError& e) {
    check_one_line(e);
    if (must_encode) finding("from_corpus vocabulary cannot encode its corpus", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  bool well_formed = true;
  try {
    const std::vector<std::string> characters = tang::utf8_split(text);
    std::string joined;
    for (const std::string& c : characters) {
      const char32_t cp = tang::utf8_decode_one(c);
      if (tang::utf8_encode(cp) != c)
        finding("utf8 round trip", "character re-encodes differently");
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        finding("utf8", "accepted a non-scalar value");
      joined += c;
    }
    if (joined != text) finding("utf8_split", "pieces do not join to the input");
  } catch (const tang::UserError& e) {
    check_one_line(e);
    well_formed = false;
  }

  check_encode_decode(small_tokenizer(), text, false);

  if (well_formed) {
    const tang::Tokenizer own = tang::Tokenizer::from_corpus(text);
    check_encode_decode(own, text, true);
  }
  return 0;
}

// tokenizer_test: the vocabulary of the shipped corpus, and strict UTF-8.
//
// The model reads one character (code point) per token. Its vocabulary is "\n" (id 0)
// followed by every other character of data/tang_poems.txt in code point order.

#include "tokenizer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "utf8.hpp"

namespace {

using tang::TokenId;
using tang::Tokenizer;
using tang::UserError;

// The vocabulary size of the shipped corpus, measured (data/README.md: 7,126 CJK
// characters + "，" + "。" + newline).
constexpr std::size_t kCorpusVocabularySize = 7129;

std::string read_corpus() {
  const std::string path = std::string(TANG_DATA_DIR) + "/tang_poems.txt";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message of the UserError that `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

Tokenizer small_tokenizer() {
  return Tokenizer({"\n", "春", "风", "，", "。"});
}

// --- the corpus ----------------------------------------------------------------

TEST(Tokenizer, CorpusRoundTripsAndHasTheExpectedVocabulary) {
  const std::string corpus = read_corpus();
  ASSERT_FALSE(corpus.empty());
  const Tokenizer tokenizer = Tokenizer::from_corpus(corpus);

  std::printf("[ measured ] vocabulary of the corpus: %zu characters\n", tokenizer.size());
  EXPECT_GE(tokenizer.size(), 7000u);
  EXPECT_LE(tokenizer.size(), 7300u);
  EXPECT_EQ(tokenizer.size(), kCorpusVocabularySize);

  EXPECT_EQ(tokenizer.character(0), "\n");
  EXPECT_EQ(tokenizer.find("\n"), 0);
  // After the newline, characters by code point, each exactly once.
  for (std::size_t id = 2; id < tokenizer.size(); ++id) {
    ASSERT_LT(tang::utf8_decode_one(tokenizer.character(static_cast<TokenId>(id - 1))),
              tang::utf8_decode_one(tokenizer.character(static_cast<TokenId>(id))))
        << "ids " << id - 1 << " and " << id;
  }
  EXPECT_TRUE(tokenizer.find("，").has_value());
  EXPECT_TRUE(tokenizer.find("。").has_value());
  EXPECT_TRUE(tokenizer.find("春").has_value());

  const std::vector<TokenId> ids = tokenizer.encode(corpus);
  EXPECT_EQ(ids.size(), tang::utf8_split(corpus).size());
  EXPECT_EQ(tokenizer.decode(ids), corpus);
  // Every id is used (the vocabulary holds nothing the corpus lacks).
  std::vector<bool> used(tokenizer.size(), false);
  for (TokenId id : ids) used.at(static_cast<std::size_t>(id)) = true;
  EXPECT_EQ(std::count(used.begin(), used.end(), false), 0);
}

TEST(Tokenizer, SameCorpusSameIds) {
  const Tokenizer a = Tokenizer::from_corpus("春风。\n明月，春");
  const Tokenizer b = Tokenizer::from_corpus("明月，春\n春风。");
  EXPECT_EQ(a.characters(), b.characters());
  EXPECT_EQ(a.characters(), (std::vector<std::string>{"\n", "。", "明", "春", "月", "风", "，"}));
  // The newline is id 0 even when the text has none.
  EXPECT_EQ(Tokenizer::from_corpus("风").characters(), (std::vector<std::string>{"\n", "风"}));
}

TEST(Tokenizer, EncodeDecodeSmall) {
  const Tokenizer tokenizer = small_tokenizer();
  EXPECT_EQ(tokenizer.encode("春风，\n"), (std::vector<TokenId>{1, 2, 3, 0}));
  EXPECT_EQ(tokenizer.decode({2, 1, 4}), "风春。");
  EXPECT_EQ(tokenizer.encode(""), std::vector<TokenId>{});
  EXPECT_FALSE(tokenizer.find("花").has_value());
}

// --- errors ----------------------------------------------------------------------

TEST(Tokenizer, UnknownCharacterIsNamed) {
  const Tokenizer tokenizer = small_tokenizer();
  const std::string message = error_of([&] { tokenizer.encode("春风花"); });
  EXPECT_NE(message.find("'花'"), std::string::npos) << message;
  EXPECT_NE(message.find("byte 6"), std::string::npos) << message;
  // An ASCII letter and a newline the vocabulary lacks are named too.
  EXPECT_NE(error_of([&] { tokenizer.encode("春a"); }).find("'a'"), std::string::npos);
  const Tokenizer no_newline({"春", "风"});
  EXPECT_NE(error_of([&] { no_newline.encode("春\n"); }).find("'\\n'"), std::string::npos);
}

struct BadUtf8 {
  const char* what;
  std::string text;
  std::size_t offset;  // the byte the error must name
};

// How ctest and gtest show a case: by what is wrong with it.
void PrintTo(const BadUtf8& c, std::ostream* os) {
  *os << c.what;
}

class InvalidUtf8 : public ::testing::TestWithParam<BadUtf8> {};

TEST_P(InvalidUtf8, ErrorNamesTheByteOffset) {
  const BadUtf8& c = GetParam();
  const std::string expected = "invalid UTF-8 at byte " + std::to_string(c.offset) + " ";
  // The same error from every way text comes in.
  const Tokenizer tokenizer = Tokenizer::from_corpus("春风");
  for (const std::string& message :
       {error_of([&] { tang::utf8_split(c.text); }), error_of([&] { tokenizer.encode(c.text); }),
        error_of([&] { Tokenizer::from_corpus(c.text); })}) {
    EXPECT_NE(message.find(expected), std::string::npos) << c.what << ": " << message;
  }
}

// "春" is E6 98 A5, "风" is E9 A3 8E: three bytes each.
INSTANTIATE_TEST_SUITE_P(
    Tokenizer, InvalidUtf8,
    ::testing::Values(BadUtf8{"truncated at the end", "春风\xE6\x98", 6},
                      BadUtf8{"truncated before the next character", "春\xE9\xA3春", 3},
                      BadUtf8{"continuation byte as lead", "春\x80", 3},
                      BadUtf8{"0xFF is never a lead byte", "\xFF春", 0},
                      BadUtf8{"five-byte lead 0xF8", "春风\xF8\x88\x80\x80\x80", 6},
                      BadUtf8{"overlong slash in two bytes", "春\xC0\xAF", 3},
                      BadUtf8{"overlong U+0000 in three bytes", "春风\xE0\x80\x80", 6},
                      BadUtf8{"overlong in four bytes", "\xF0\x8F\xBF\xBF", 0},
                      BadUtf8{"surrogate U+D800", "春\xED\xA0\x80", 3},
                      BadUtf8{"surrogate U+DFFF", "春风\xED\xBF\xBF", 6},
                      BadUtf8{"past U+10FFFF", "春\xF4\x90\x80\x80", 3}),
    [](const auto& info) {  // "truncated at the end" -> "truncated_at_the_end"
      std::string name = info.param.what;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(Tokenizer, ValidEdgesOfUtf8AreAccepted) {
  // The largest and smallest code points of each length, and the ones around the surrogates.
  const std::string text =
      "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF"
      "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF";
  const auto characters = tang::utf8_split(text);
  EXPECT_EQ(characters.size(), 9u);
  const Tokenizer tokenizer = Tokenizer::from_corpus(text);
  EXPECT_EQ(tokenizer.decode(tokenizer.encode(text)), text);
  EXPECT_EQ(tang::utf8_decode_one("\xF4\x8F\xBF\xBF"), U'\U0010FFFF');
  EXPECT_EQ(tang::utf8_encode(U'春'), "春");
}

TEST(Tokenizer, BadVocabulariesAreRejected) {
  const std::string duplicate = error_of([] { Tokenizer({"\n", "春", "风", "春"}); });
  EXPECT_NE(duplicate.find("'春' twice"), std::string::npos) << duplicate;
  EXPECT_NE(duplicate.find("ids 1 and 3"), std::string::npos) << duplicate;
  EXPECT_THROW(Tokenizer({"\n", "\n"}), UserError);
  EXPECT_THROW(Tokenizer({"\n", ""}), UserError);          // empty entry
  EXPECT_THROW(Tokenizer({"\n", "春风"}), UserError);      // two characters
  EXPECT_THROW(Tokenizer({"\n", "\xE6\x98"}), UserError);  // a cut-off character
}

}  // namespace

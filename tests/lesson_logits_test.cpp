// lesson_logits_test: the lesson path gives the same bits on every machine.
//
// tests/golden/lesson_logits.bin holds the logits the shipped model
// (data/tang_gpt.safetensors) computes after three prompts (lesson_logits.hpp),
// written by write_lesson_logits.cpp (its header says how to regenerate it).
// The lessons' forward pass (common/gpt.hpp, kPlainKernels) is compiled for one
// instruction set without floating-point contraction and adds in a fixed order:
// on any x86-64 machine with AVX2 and FMA it must reproduce those bits exactly,
// and so write exactly the text the lesson READMEs show. Lesson 06's cache
// (CachedPredictor) runs the same per-row arithmetic: the same bits again.
//
// Skipped when the model file is missing (not trained yet). It first prints
// the CPU it runs on (vendor, AVX2, FMA, AVX-512): scripts/check_other_cpus.sh
// runs it on emulated CPUs and reads that line to know which one it got.

#include "lesson_logits.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "06_kvcache/kv_cache.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "gpt.hpp"
#include "tiny_golden.hpp"

namespace {

// Prints "cpu: vendor intel, avx2 1, fma 1, avx512f 0" before the tests run.
class CpuReport : public ::testing::Environment {
 public:
  void SetUp() override {
    __builtin_cpu_init();
    const char* vendor = __builtin_cpu_is("intel") ? "intel"
                         : __builtin_cpu_is("amd") ? "amd"
                                                   : "other";
    std::printf("cpu: vendor %s, avx2 %d, fma %d, avx512f %d\n", vendor,
                __builtin_cpu_supports("avx2") ? 1 : 0, __builtin_cpu_supports("fma") ? 1 : 0,
                __builtin_cpu_supports("avx512f") ? 1 : 0);
  }
};
[[maybe_unused]] ::testing::Environment* const cpu_report =
    ::testing::AddGlobalTestEnvironment(new CpuReport);

using tang::TokenId;
using tang::testing::bit_difference;
using tang::testing::kLessonLogitsPrompts;

const std::string kGoldenFile = std::string(TANG_TESTS_DIR) + "/golden/lesson_logits.bin";
constexpr std::size_t kPrompts = std::size(kLessonLogitsPrompts);

std::string shown(const std::string& prompt) {
  std::string text;
  for (char c : prompt) text += c == '\n' ? std::string("\\n") : std::string(1, c);
  return "\"" + text + "\"";
}

class LessonLogits : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = tang::default_checkpoint_path();
    if (std::filesystem::exists(path)) model_ = new tang::GPT(tang::load_checkpoint(path));
  }
  static void TearDownTestSuite() { delete model_, model_ = nullptr; }

  void SetUp() override {
    if (!model_) GTEST_SKIP() << tang::default_checkpoint_path() << " not found: train the model";
    std::ifstream in(kGoldenFile, std::ios::binary);
    ASSERT_TRUE(in) << kGoldenFile << " is missing (write_lesson_logits.cpp says how to write it)";
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>()};
    const std::size_t V = model_->config().vocab_size;
    ASSERT_EQ(bytes.size(), kPrompts * V * sizeof(float))
        << kGoldenFile << " should hold " << kPrompts << " x " << V
        << " float32: was it written for another model?";
    golden_.resize(kPrompts * V);
    std::memcpy(golden_.data(), bytes.data(), bytes.size());
  }

  const tang::GPT& model() const { return *model_; }
  std::span<const float> golden(std::size_t prompt) const {
    const std::size_t V = model_->config().vocab_size;
    return std::span<const float>(golden_).subspan(prompt * V, V);
  }
  std::vector<TokenId> ids(std::size_t prompt) const {
    return model_->tokenizer().encode(kLessonLogitsPrompts[prompt]);
  }

 private:
  static tang::GPT* model_;
  std::vector<float> golden_;
};
tang::GPT* LessonLogits::model_ = nullptr;

TEST_F(LessonLogits, ForwardGivesTheGoldenBits) {
  tang::Activations acts(model().config());
  for (std::size_t i = 0; i < kPrompts; ++i) {
    const auto logits = tang::forward(model(), ids(i), acts);
    const std::span<const float> got(logits.data(), logits.size());
    EXPECT_EQ(bit_difference(got, golden(i)), "")
        << "prompt " << shown(kLessonLogitsPrompts[i])
        << ": this machine's logits (first) differ from tests/golden/lesson_logits.bin (second). "
           "The lesson path must give the same bits on every x86-64-v3 machine: look for an "
           "operation whose order of additions changed, or a compiler flag (-march, "
           "-ffp-contract) that no longer reaches common/";
  }
}

TEST_F(LessonLogits, RecomputeGivesTheGoldenBits) {
  tang::Recompute predictor(model());
  for (std::size_t i = 0; i < kPrompts; ++i) {
    EXPECT_EQ(bit_difference(predictor.next_logits(ids(i)), golden(i)), "")
        << "prompt " << shown(kLessonLogitsPrompts[i]);
  }
}

// Lesson 06's cache: the whole prompt at once (a prefill), and character by
// character (every step one new position on top of the cache).
TEST_F(LessonLogits, CachedPredictorGivesTheGoldenBits) {
  try {
    for (std::size_t i = 0; i < kPrompts; ++i) {
      const std::vector<TokenId> prompt = ids(i);
      tang::CachedPredictor prefill(model());
      EXPECT_EQ(bit_difference(prefill.next_logits(prompt), golden(i)), "")
          << "prompt " << shown(kLessonLogitsPrompts[i]) << " read at once with the cache";
      tang::CachedPredictor steps(model());
      std::span<const float> last;
      for (std::size_t n = 1; n <= prompt.size(); ++n) {
        last = steps.next_logits(std::span(prompt).first(n));
        EXPECT_EQ(steps.cache().length, n);
      }
      EXPECT_EQ(bit_difference(last, golden(i)), "")
          << "prompt " << shown(kLessonLogitsPrompts[i]) << " read one character at a time";
    }
  } catch (const tang::NotImplemented& e) {
    GTEST_SKIP() << "exercise 06a is not done yet in this build: " << e.what();
  }
}

}  // namespace

// permuted_vocabulary_test: the shipped model with its ids renamed is the same
// model. Its vocabulary is permuted (the newline no longer id 0) and the rows of
// wte (the token embedding, tied to the output layer) moved with it. Nothing may
// depend on which id a character has: the logits are the same bits, character by
// character; greedy poems (T = 0) are the same and end at the newline, written
// alone, in a batch (lesson 08) and by lessons 01-05 as programs. Sampled text may
// differ: the draw walks the distribution in id order, so a renaming moves each
// character's slice of [0, 1).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "08_many_poems/batch_writer.hpp"
#include "checkpoint.hpp"
#include "generate.hpp"
#include "rng.hpp"
#include "sampling.hpp"
#include "shipped_model.hpp"

namespace {

namespace fs = std::filesystem;
using tang::GPT;
using tang::TokenId;

// old id -> new id: a shuffle in which the newline moves too
std::vector<TokenId> renaming(std::size_t V) {
  std::vector<TokenId> to(V);
  std::iota(to.begin(), to.end(), 0);
  tang::Rng rng(2024);
  for (std::size_t i = V - 1; i > 0; --i) {  // Fisher-Yates
    const auto j = static_cast<std::size_t>(rng.uniform() * static_cast<float>(i + 1)) % (i + 1);
    std::swap(to[i], to[j]);
  }
  if (to[0] == 0) std::swap(to[0], to[1]);
  return to;
}

GPT renamed(const GPT& model, const std::vector<TokenId>& to) {
  const std::size_t V = model.config().vocab_size, C = model.config().n_embd;
  std::vector<std::string> characters(V);
  tang::Tensor<1> parameters = model.parameters();
  const float* wte = model.weights().wte;  // (V, C)
  float* new_wte = parameters.data() + (wte - model.parameters().data());
  for (std::size_t id = 0; id < V; ++id) {
    const auto new_id = static_cast<std::size_t>(to[id]);
    characters[new_id] = model.tokenizer().character(static_cast<TokenId>(id));
    std::copy(wte + id * C, wte + (id + 1) * C, new_wte + new_id * C);
  }
  return GPT(model.config(), tang::Tokenizer(std::move(characters)), std::move(parameters));
}

class PermutedVocabulary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shipped_ = tang::testing::shipped_model();
    if (shipped_ == nullptr) return;
    to_ = renaming(shipped_->config().vocab_size);
    permuted_ = new GPT(renamed(*shipped_, to_));
  }
  static void TearDownTestSuite() { delete permuted_; }
  void SetUp() override {
    if (shipped_ == nullptr) GTEST_SKIP() << "data/tang_gpt.safetensors is missing";
  }
  static inline const GPT* shipped_ = nullptr;
  static inline GPT* permuted_ = nullptr;
  static inline std::vector<TokenId> to_;
};

TEST_F(PermutedVocabulary, TheNewlineIsNoLongerIdZero) {
  EXPECT_EQ(shipped_->tokenizer().newline(), 0);
  EXPECT_NE(permuted_->tokenizer().newline(), 0);
}

TEST_F(PermutedVocabulary, LessonOnesPromptsGiveTheSameLogitsAndProbabilities) {
  for (const std::string prompt :
       {"白日依山尽，黄河入海", "床前明月光，疑是地上", "春眠不觉晓，处处闻啼"}) {
    tang::Recompute a(*shipped_), b(*permuted_);
    const auto za = a.next_logits(shipped_->tokenizer().encode("\n" + prompt));
    std::vector<float> pa(za.begin(), za.end());
    const auto zb = b.next_logits(permuted_->tokenizer().encode("\n" + prompt));
    std::vector<float> pb(zb.begin(), zb.end());
    for (std::size_t id = 0; id < pa.size(); ++id) {
      ASSERT_EQ(pa[id], pb[static_cast<std::size_t>(to_[id])]) << prompt << ", id " << id;
    }
    tang::softmax_in_place(pa);
    tang::softmax_in_place(pb);  // the softmax's sum in another order: a few last bits move
    for (std::size_t id = 0; id < pa.size(); ++id) {
      ASSERT_NEAR(pa[id], pb[static_cast<std::size_t>(to_[id])], 1e-5 * pa[id] + 1e-12)
          << prompt << ", " << shipped_->tokenizer().character(static_cast<TokenId>(id));
    }
  }
}

TEST_F(PermutedVocabulary, GreedyPoemsAreTheSameAndEndAtTheNewline) {
  const tang::Picker greedy = tang::sampling_picker({0.0f, 0, 1.0f});
  for (const std::string opening : {"", "床前明月光，", "大漠孤烟直，"}) {
    tang::Recompute a(*shipped_), b(*permuted_);
    tang::Rng ra(1), rb(1);
    const std::string poem = tang::write_poem(a, shipped_->tokenizer(), opening, greedy, ra, 100);
    EXPECT_EQ(poem, tang::write_poem(b, permuted_->tokenizer(), opening, greedy, rb, 100));
    EXPECT_LT(poem.size(), opening.size() + 100 * 3) << "it ended at its newline: " << poem;
  }
  const std::vector<std::uint64_t> seeds{1, 2, 3, 4, 5};
  const tang::StoredWeights wa(*shipped_, tang::WeightFormat::kFp32);
  const tang::StoredWeights wb(*permuted_, tang::WeightFormat::kFp32);
  const auto batch_a = tang::write_batched(*shipped_, wa, seeds, "白日", {0.0f, 0, 1.0f}, 60, 4);
  const auto batch_b = tang::write_batched(*permuted_, wb, seeds, "白日", {0.0f, 0, 1.0f}, 60, 4);
  EXPECT_EQ(batch_a.poems, batch_b.poems);
  EXPECT_EQ(batch_a.characters, batch_b.characters) << "each poem stopped at its newline";
}

std::string stdout_of(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? out : "exit " + std::to_string(status);
}

// Lesson 05 as a program, greedy: section 1 (lesson 01's probabilities and counts) and
// the poems of sections 3-5. Section 2 is left out: at T = 0 its table of the five most
// likely characters lists four of probability 0, ties that it orders by id.
TEST_F(PermutedVocabulary, LessonFivePrintsTheSameGreedyText) {
  const fs::path file = fs::temp_directory_path() / ("permuted_" + std::to_string(::getpid()));
  tang::save_checkpoint(file.string(), *permuted_);
  const std::string shipped = std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors";
  for (const char* section : {"1", "3", "4", "5"}) {
    const std::string lesson =
        std::string(TANG_LESSON_05) + " --temperature 0 --section " + section + " --checkpoint ";
    EXPECT_EQ(stdout_of(lesson + file.string()), stdout_of(lesson + shipped))
        << "section " << section;
  }
  fs::remove(file);
}

}  // namespace

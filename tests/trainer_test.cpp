// trainer_test: the training loop behaves: loss goes down, resume is exact,
// bad input is refused, and the training forward agrees with the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <string>

#include "00_train/adamw.hpp"
#include "00_train/poem_dataset.hpp"
#include "00_train/trainable_gpt.hpp"
#include "checkpoint.hpp"
#include "errors.hpp"
#include "safetensors.hpp"

namespace fs = std::filesystem;

namespace {

struct CommandResult {
  int status;
  std::string output;
};

CommandResult run(const std::string& command) {
  CommandResult result{0, ""};
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe)) result.output += buffer.data();
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tang_trainer_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A small corpus: the first 400 poems of the real one.
fs::path small_corpus(const fs::path& dir) {
  std::ifstream in(std::string(TANG_DATA_DIR) + "/tang_poems.txt");
  const fs::path path = dir / "poems.txt";
  std::ofstream out(path);
  std::string line;
  for (int i = 0; i < 400 && std::getline(in, line); ++i) out << line << "\n";
  return path;
}

std::string trainer_command(const fs::path& dir, const fs::path& corpus, const std::string& extra,
                            const std::string& dims = "16") {
  return std::string(LESSON_00_TRAIN) + " --data " + corpus.string() + " --out " +
         (dir / "model.safetensors").string() + " --state " + (dir / "state.safetensors").string() +
         " --log " + (dir / "log.csv").string() + " --layers 1 --heads 2 --dims " + dims +
         " --block-size 16 --batch 4 --steps 12 --warmup 2"
         " --eval-every 6 --save-every 3 --threads 1 " +
         extra;
}

std::vector<float> saved_params(const fs::path& state) {
  for (const auto& t : tang::read_safetensors(state.string()).tensors) {
    if (t.name == "params") return t.to_floats();
  }
  return {};
}

TEST(Trainer, AFewStepsOnOneBatchLowerTheLoss) {
  const tang::GPTConfig config{11, 16, 2, 2, 16};
  tang::TrainableGPT model(config, 2);
  tang::Rng rng(3);
  model.init_random(rng);
  tang::AdamW optimizer(config, {});
  const std::vector<tang::TokenId> inputs{0, 1, 2, 9, 3, 4, 10, 0,  5, 6, 7, 9, 8, 1, 10, 0,
                                          0, 2, 3, 4, 9, 5, 6,  10, 0, 7, 8, 1, 9, 2, 3,  10};
  std::vector<tang::TokenId> targets(inputs.begin() + 1, inputs.end());
  targets.push_back(0);
  float first = 0.0f, last = 0.0f;
  for (int step = 1; step <= 30; ++step) {
    model.zero_grad();
    const float loss = model.forward(inputs, targets, 2, 16);
    model.backward();
    optimizer.update(model.params, model.grads, 1e-2f, step);
    if (step == 1) first = loss;
    last = loss;
  }
  EXPECT_LT(last, 0.5f * first)
      << "30 AdamW steps on one fixed batch should at least halve the loss";
}

TEST(Dropout, DropsAboutItsShareAndKeepsTheMean) {
  const std::size_t n = 100000;
  tang::Dropout dropout(0.25f, 1, n);
  dropout.reseed(7);
  std::vector<float> x(n, 1.0f);
  dropout.apply(x.data(), n, 2);
  const auto zeros = static_cast<double>(std::count(x.begin(), x.end(), 0.0f));
  EXPECT_NEAR(zeros / n, 0.25, 0.01);
  EXPECT_NEAR(std::accumulate(x.begin(), x.end(), 0.0) / n, 1.0, 0.02);
  for (float v : x) ASSERT_TRUE(v == 0.0f || v == 1.0f / 0.75f) << v;
  std::vector<float> again(n, 1.0f);
  dropout.apply(again.data(), n, 2);
  EXPECT_EQ(x, again) << "the same seed and site must give the same mask";
  std::vector<float> other_site(n, 1.0f);
  dropout.apply(other_site.data(), n, 1);
  EXPECT_NE(x, other_site) << "each site needs its own mask";
  std::vector<float> dx(n, 2.0f);
  dropout.backward(dx.data(), n, 2);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dx[i], 2.0f * again[i]) << i;
}

TEST(Dropout, OnlyTheTrainingPassDrops) {
  const tang::GPTConfig config{11, 16, 2, 2, 16};
  tang::TrainableGPT plain(config, 1), dropping(config, 1, 0.2f);
  tang::Rng rng(3);
  plain.init_random(rng);
  std::copy(plain.params.begin(), plain.params.end(), dropping.params.begin());
  const std::vector<tang::TokenId> inputs{0, 1, 2, 9, 3, 4, 10, 0, 5, 6, 7, 9, 8, 1, 10, 0};
  const std::vector<tang::TokenId> targets{1, 2, 9, 3, 4, 10, 0, 5, 6, 7, 9, 8, 1, 10, 0, 2};
  const float evaluated = plain.forward(inputs, targets, 1, 16);
  EXPECT_EQ(dropping.forward(inputs, targets, 1, 16), evaluated)
      << "the held-out loss must see the whole model";
  EXPECT_EQ(plain.training_forward(inputs, targets, 1, 16, 5), evaluated)
      << "without a dropout rate a training pass is the plain pass";
  EXPECT_NE(dropping.training_forward(inputs, targets, 1, 16, 5), evaluated);
}

TEST(Trainer, TrainingForwardMatchesTheNumpyReferenceLoss) {
  const tang::GPT reference =
      tang::load_checkpoint(std::string(TANG_TESTS_DIR) + "/golden/tiny_model.safetensors");
  const auto golden =
      tang::read_safetensors(std::string(TANG_TESTS_DIR) + "/golden/tiny_golden.safetensors");
  std::vector<tang::TokenId> tokens;
  for (const auto& t : golden.tensors) {
    if (t.name == "tokens") {
      tokens.resize(t.element_count());
      std::memcpy(tokens.data(), t.bytes.data(), t.bytes.size());
    }
  }
  ASSERT_EQ(tokens.size(), 12u);
  const double expected = std::stod(golden.metadata.at("loss"));
  tang::TrainableGPT model(reference.config(), 1);
  std::copy(reference.parameters().begin(), reference.parameters().end(), model.params.begin());
  const std::vector<tang::TokenId> inputs(tokens.begin(), tokens.end() - 1);
  const std::vector<tang::TokenId> targets(tokens.begin() + 1, tokens.end());
  const float loss = model.forward(inputs, targets, 1, 11);
  EXPECT_NEAR(loss, expected, 1e-5 * expected);
}

TEST(Trainer, StopAndResumeGivesTheSameWeightsAsOneRun) {
  const fs::path one = fresh_dir("one"), two = fresh_dir("two");
  const fs::path corpus = small_corpus(one);
  const auto straight = run(trainer_command(one, corpus, ""));
  ASSERT_EQ(straight.status, 0) << straight.output;
  const auto first_half = run(trainer_command(two, corpus, "--stop-at 7"));
  ASSERT_EQ(first_half.status, 0) << first_half.output;
  const auto second_half = run(trainer_command(two, corpus, "--resume"));
  ASSERT_EQ(second_half.status, 0) << second_half.output;
  EXPECT_NE(second_half.output.find("resumed from"), std::string::npos) << second_half.output;
  const auto a = saved_params(one / "state.safetensors"),
             b = saved_params(two / "state.safetensors");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "resuming at step 7 must end bit-identical to 12 uninterrupted steps";
}

TEST(Trainer, RefusesToResumeADifferentConfig) {
  const fs::path dir = fresh_dir("config");
  const fs::path corpus = small_corpus(dir);
  ASSERT_EQ(run(trainer_command(dir, corpus, "--stop-at 3")).status, 0);
  const auto other = run(trainer_command(dir, corpus, "--resume", "32"));
  EXPECT_NE(other.status, 0);
  EXPECT_NE(other.output.find("cannot resume"), std::string::npos) << other.output;
}

// Lesson 10's variants: a resumed run must keep the attention it started with, and a
// key/value head count that does not divide the heads is refused before training.
TEST(Trainer, RefusesToResumeAnotherAttention) {
  const fs::path dir = fresh_dir("variant");
  const fs::path corpus = small_corpus(dir);
  ASSERT_EQ(run(trainer_command(dir, corpus, "--kv-heads 1 --stop-at 3")).status, 0);
  const auto other = run(trainer_command(dir, corpus, "--resume"));  // multi-head now
  EXPECT_NE(other.status, 0);
  EXPECT_NE(other.output.find("cannot resume"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("1 key/value head"), std::string::npos) << other.output;
  const auto same = run(trainer_command(dir, corpus, "--kv-heads 1 --resume"));
  EXPECT_EQ(same.status, 0) << same.output;
  const auto eval = run(std::string(LESSON_00_TRAIN) + " --data " + corpus.string() + " --eval " +
                        (dir / "model.safetensors").string());
  EXPECT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("1 key/value head"), std::string::npos) << eval.output;
}

std::map<std::string, std::string> metadata_of(const fs::path& file) {
  return tang::read_safetensors(file.string()).metadata;
}

// Lesson 10's pairs: with one --data-seed, models of different shapes (here
// multi-head and multi-query, which draw different numbers of initial weights)
// draw the same batches in the same order: their batch samplers stand at the
// same place after every step. Without it the batches follow the initialisation.
TEST(Trainer, OneDataSeedGivesRunsOfDifferentShapesTheSameBatches) {
  const fs::path mha = fresh_dir("pair_mha"), mqa = fresh_dir("pair_mqa");
  const fs::path corpus = small_corpus(mha);
  ASSERT_EQ(run(trainer_command(mha, corpus, "--seed 1 --data-seed 7")).status, 0);
  const auto r = run(trainer_command(mqa, corpus, "--seed 2 --data-seed 7 --kv-heads 1"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("seeds        2 (initialisation), 7 (batches)"), std::string::npos)
      << r.output;
  const auto a = metadata_of(mha / "state.safetensors"), b = metadata_of(mqa / "state.safetensors");
  EXPECT_EQ(a.at("rng_state"), b.at("rng_state")) << "the same batches, whatever the shape";
  EXPECT_EQ(b.at("setting.data_seed"), "7");
  const auto model = metadata_of(mqa / "model.safetensors");
  EXPECT_EQ(model.at("seed"), "2");
  EXPECT_EQ(model.at("data_seed"), "7");

  // without --data-seed the two shapes part at once
  const fs::path legacy_mha = fresh_dir("legacy_mha"), legacy_mqa = fresh_dir("legacy_mqa");
  ASSERT_EQ(run(trainer_command(legacy_mha, corpus, "--seed 1 --stop-at 3")).status, 0);
  ASSERT_EQ(run(trainer_command(legacy_mqa, corpus, "--seed 1 --stop-at 3 --kv-heads 1")).status,
            0);
  EXPECT_NE(metadata_of(legacy_mha / "state.safetensors").at("rng_state"),
            metadata_of(legacy_mqa / "state.safetensors").at("rng_state"));
  EXPECT_EQ(metadata_of(legacy_mha / "state.safetensors").at("setting.data_seed"), "init");

  // a resumed run keeps its batch order
  const auto other = run(trainer_command(legacy_mha, corpus, "--seed 1 --data-seed 7 --resume"));
  EXPECT_NE(other.status, 0);
  EXPECT_NE(other.output.find("data_seed = init, this run asks for 7"), std::string::npos)
      << other.output;
}

TEST(Trainer, KeyValueHeadsMustDivideTheHeads) {
  const fs::path dir = fresh_dir("kv_heads");
  const fs::path corpus = small_corpus(dir);
  const auto r = run(trainer_command(dir, corpus, "--kv-heads 3"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("key/value head count 3 must divide head count 2"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "state.safetensors")) << "refused before training";
}

TEST(Trainer, EvalPrintsTheHeldOutLossOfACheckpoint) {
  const fs::path dir = fresh_dir("eval");
  const fs::path corpus = small_corpus(dir);
  ASSERT_EQ(run(trainer_command(dir, corpus, "")).status, 0);
  const auto eval = run(std::string(LESSON_00_TRAIN) + " --data " + corpus.string() + " --eval " +
                        (dir / "model.safetensors").string());
  EXPECT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("held-out loss"), std::string::npos) << eval.output;
  EXPECT_FALSE(fs::exists(dir / "model.safetensors.tmp"))
      << "checkpoints are written through a rename";
}

TEST(Trainer, ADivergedStepIsRefusedBeforeTheUpdate) {
  EXPECT_NO_THROW(tang::require_finite_step(3.25f, 0.75f, 5));
  try {
    tang::require_finite_step(std::nanf(""), 1.0f, 17);
    FAIL() << "a NaN loss must stop training";
  } catch (const tang::UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("diverged at step 17"), std::string::npos) << what;
    EXPECT_NE(what.find("--resume"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_THROW(tang::require_finite_step(2.0f, INFINITY, 3), tang::UserError);
}

TEST(TrainingInput, InvalidUtf8NamesTheLine) {
  const fs::path dir = fresh_dir("utf8");
  std::ofstream(dir / "bad.txt") << "春风一夜来，\n花开满城中。\xff\xfe\n";
  try {
    tang::load_poem_dataset((dir / "bad.txt").string());
    FAIL() << "invalid UTF-8 must be refused";
  } catch (const tang::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(TrainingInput, EmptyCorpusIsRefused) {
  const fs::path dir = fresh_dir("empty");
  std::ofstream(dir / "empty.txt") << "\n\n";
  EXPECT_THROW(tang::load_poem_dataset((dir / "empty.txt").string()), tang::UserError);
  const auto result = run(std::string(LESSON_00_TRAIN) + " --data " + (dir / "empty.txt").string() +
                          " --state " + (dir / "s.safetensors").string());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.output.rfind("error: ", 0), 0u) << result.output;
}

}  // namespace

// checkpoint_shapes_test: every checkpoint the trainer can write runs every
// lesson and every measurement program (label checkpoint_shapes).
//
// A property test over the trainer's shapes: for each of a few corners (the
// smallest model there is, a context too short for section 8, one just long
// enough, a width that is not a multiple of 32, odd head counts, lesson 10's
// grouped, multi-query and latent attention) and a few shapes drawn at random, lesson_00_train
// trains a checkpoint for two steps, and the programs run on it with their default flags. Each run
// must end in its output (exit 0) or in one refusal before any output (exit 2, one "error:" line);
// none may end in an "internal problem" or a crash. It used to: a context of 16 stopped lesson 07
// after a page of output ("text longer than the context"), a width of 80 stopped lesson 08 and
// measure_weights after 32 s
// ("int8 stores rows in blocks of 32 weights").
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace fs = std::filesystem;

namespace {

struct Shape {
  std::size_t context, layers, heads, dims;
  std::size_t kv_heads = 0, kv_latent = 0;  // lesson 10's variants; 0: multi-head
  std::string name() const {
    return "context " + std::to_string(context) + ", " + std::to_string(layers) + " layers, " +
           std::to_string(heads) + " heads, " + std::to_string(dims) + " dims" +
           (kv_heads > 0 ? ", " + std::to_string(kv_heads) + " key/value heads" : "") +
           (kv_latent > 0 ? ", latent " + std::to_string(kv_latent) : "");
  }
};

using tang_tests::Outcome;
using tang_tests::shell_quote;

const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("tang_shapes_test_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

Outcome run(const std::string& command) {
  return tang_tests::run_command(command, scratch());
}

std::string quote(const fs::path& path) {
  return shell_quote(path.string());
}

// The shapes: the corners, then random ones (a fixed seed, so a failure reruns).
std::vector<Shape> shapes() {
  std::vector<Shape> all = {
      {2, 1, 1, 1},          // the smallest model the trainer writes
      {16, 2, 5, 80},        // section 8 cannot run; int8 rows of 80; five heads
      {21, 1, 3, 12},        // just long enough for section 8
      {64, 1, 2, 8},         // one position short of a 七律 with its newline
      {33, 2, 4, 16, 2, 0},  // grouped-query: lessons 06-09's cache refuses it, lesson 10 runs it
      {21, 1, 3, 12, 1, 0},  // multi-query
      {40, 1, 2, 8, 0, 4},   // latent attention
  };
  std::mt19937 gen(2026);
  for (int i = 0; i < 1; ++i) {
    const std::size_t heads = 1 + gen() % 6;
    all.push_back({2 + gen() % 127, 1 + gen() % 3, heads, heads * (1 + gen() % 12)});
  }
  return all;
}

void PrintTo(const Shape& s, std::ostream* out) {
  *out << s.name();
}

class CheckpointShapes : public testing::TestWithParam<Shape> {};

TEST_P(CheckpointShapes, RunEverySectionOrRefuseBeforeAnyOutput) {
  const Shape s = GetParam();
  std::string folder = "c";
  for (std::size_t n : {s.context, s.layers, s.heads, s.dims, s.kv_heads, s.kv_latent}) {
    folder += '_';
    folder += std::to_string(n);
  }
  const fs::path dir = scratch() / folder;
  const std::string model = quote(dir / "m.safetensors");
  const Outcome trained =
      run(quote(TANG_TRAINER) + " --block-size " + std::to_string(s.context) + " --layers " +
          std::to_string(s.layers) + " --heads " + std::to_string(s.heads) + " --dims " +
          std::to_string(s.dims) + " --kv-heads " + std::to_string(s.kv_heads) + " --kv-latent " +
          std::to_string(s.kv_latent) + " --steps 2 --warmup 1 --batch 2 --threads 1 --out " +
          model + " --state " + quote(dir / "s.safetensors") + " --log " + quote(dir / "log.csv"));
  ASSERT_EQ(trained.status, 0) << s.name() << ": " << trained.err;

  const std::string checkpoint = " --checkpoint " + model;
  std::vector<std::string> commands = {
      // sections 1-9: lessons 01-08 too
      quote(TANG_LESSON_09) + checkpoint + " --no-big-model --poems 4",
      quote(TANG_LESSON_10) + checkpoint +
          " --section 10 --variant-poems 2 --heldout-poems 10 --no-long-context",
      quote(TANG_LESSON_07) + checkpoint + " --form 七律 --section 7",
      quote(TANG_LESSON_05) + checkpoint + " --heads 春夏秋冬 --length 200",
      quote(TANG_MEASURE_SETTINGS) + checkpoint + " --poems 2",
      quote(TANG_MEASURE_VERSE) + checkpoint + " --poems 1",
      quote(TANG_MEASURE_WEIGHTS) + checkpoint + " --poems 5",
      quote(TANG_TRAINER) + " --eval " + model,
  };
  if (s.context == 2) {  // lesson 06's own timings (its 06b takes seconds, once is enough)
    commands.push_back(quote(TANG_LESSON_06) + checkpoint + " --section 6");
  }
  for (const std::string& command : commands) {
    const Outcome r = run(command);
    SCOPED_TRACE(s.name() + ": " + command);
    EXPECT_EQ(r.err.find("internal problem"), std::string::npos) << r.err;
    EXPECT_TRUE(r.status == 0 || r.status == 2) << "exit " << r.status << ": " << r.err;
    if (r.status == 0) {
      EXPECT_FALSE(r.out.empty());
    } else {
      EXPECT_EQ(r.out, "") << "a refusal comes before any output";
      EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    }
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(TrainerShapes, CheckpointShapes, testing::ValuesIn(shapes()),
                         [](const testing::TestParamInfo<Shape>& info) {
                           const Shape& s = info.param;
                           return "context" + std::to_string(s.context) + "_layers" +
                                  std::to_string(s.layers) + "_heads" + std::to_string(s.heads) +
                                  "_dims" + std::to_string(s.dims) +
                                  (s.kv_heads > 0 ? "_kv" + std::to_string(s.kv_heads) : "") +
                                  (s.kv_latent > 0 ? "_latent" + std::to_string(s.kv_latent) : "");
                         });

}  // namespace

// step_cost_test: the machine profile's file and look-ups, and the cost model's
// arithmetic on paper cases (lessons/06_kvcache/machine_profile.hpp, step_cost.hpp).
//
// Nothing here checks a measured rate against a number: the machine decides those.
// What is checked is what the course computes from them.

#include "06_kvcache/step_cost.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "06_kvcache/machine_profile.hpp"
#include "errors.hpp"

namespace {

namespace fs = std::filesystem;
using tang::MachineProfile;

// A machine with round numbers: 10 GB/s up to 1 MB, 1 GB/s from 100 MB; a loop
// at 1 GFLOP/s for one row and 4 GFLOP/s for four or more on narrow matrices,
// half of that on matrices 1,000 wide.
MachineProfile paper_machine() {
  MachineProfile p;
  p.read_gb_per_s = {{1'000'000, 10.0}, {100'000'000, 1.0}};
  p.loop_gflops["fp32 plain"] = {{16, 1, 1.0}, {16, 4, 4.0}, {1000, 1, 0.5}, {1000, 4, 2.0}};
  p.attention_ns = 0.5;
  p.gelu_ns = 3.0;
  p.layernorm_ns = 1.0;
  p.sampling_ns = 2.0;
  return p;
}

tang::GPTConfig small_config() {
  tang::GPTConfig c;
  c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.block_size = 8, c.vocab_size = 50;
  return c;
}

TEST(MachineProfile, InterpolatesOnLogScalesAndHoldsTheEndValuesBeyond) {
  const MachineProfile p = paper_machine();
  EXPECT_DOUBLE_EQ(p.read_gb_per_s_at(1'000'000), 10.0);
  EXPECT_DOUBLE_EQ(p.read_gb_per_s_at(100'000'000), 1.0);
  EXPECT_NEAR(p.read_gb_per_s_at(10'000'000), std::sqrt(10.0), 1e-9) << "halfway on a log scale";
  EXPECT_DOUBLE_EQ(p.read_gb_per_s_at(10), 10.0);
  EXPECT_DOUBLE_EQ(p.read_gb_per_s_at(1e12), 1.0);
  EXPECT_DOUBLE_EQ(p.loop_gflops_at("fp32 plain", 16, 2), 2.0);
  EXPECT_DOUBLE_EQ(p.loop_gflops_at("fp32 plain", 16, 64), 4.0);
  // the nearest measured width on a log scale: 100 is nearer 16 than 1000, 200 is not
  EXPECT_DOUBLE_EQ(p.loop_gflops_at("fp32 plain", 100, 4), 4.0);
  EXPECT_DOUBLE_EQ(p.loop_gflops_at("fp32 plain", 200, 4), 2.0);
  EXPECT_DOUBLE_EQ(p.loop_gflops_at("fp32 plain", 5000, 1), 0.5);
  EXPECT_THROW(p.loop_gflops_at("int8", 16, 1), tang::UserError);
}

TEST(MachineProfile, TextRoundTripsAndRefusesWhatItDidNotWrite) {
  const MachineProfile p = paper_machine();
  const MachineProfile back = tang::parse_profile(tang::profile_text(p), "test");
  EXPECT_EQ(back.read_gb_per_s, p.read_gb_per_s);
  EXPECT_EQ(back.loop_gflops, p.loop_gflops);
  EXPECT_DOUBLE_EQ(back.attention_ns, p.attention_ns);
  EXPECT_DOUBLE_EQ(back.sampling_ns, p.sampling_ns);
  EXPECT_DOUBLE_EQ(back.gelu_ns, p.gelu_ns);
  EXPECT_DOUBLE_EQ(back.layernorm_ns, p.layernorm_ns);

  const auto message = [](const std::string& text) {
    try {
      tang::parse_profile(text, "f.tsv");
    } catch (const tang::UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("hello\n").find("f.tsv is not a machine profile"), std::string::npos);
  const std::string text = tang::profile_text(p);
  EXPECT_NE(message(text + "loop\tfp32\t16\tx\t1\n").find("f.tsv line "), std::string::npos);
  EXPECT_NE(message(text + "read\t5\t-1\n").find("line "), std::string::npos);
  // a profile without its bandwidth is not one the cost model can use
  const std::string header = text.substr(0, text.find('\n') + 1);
  EXPECT_NE(message(header + "attention_ns\t1\ngelu_ns\t1\nlayernorm_ns\t1\nsampling_ns\t1\n")
                .find("incomplete"),
            std::string::npos);
}

TEST(MachineProfile, AFileThatIsNotAProfileIsNeverReplaced) {
  const fs::path dir = fs::temp_directory_path() / ("step_cost_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "notes.txt").string();
  std::ofstream(path) << "my notes\n";
  EXPECT_THROW(tang::load_or_measure_profile(path, {}, [](const std::string&) {}), tang::UserError);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "my notes");
  EXPECT_FALSE(tang::read_profile_file((dir / "none.tsv").string()).has_value());
  fs::remove_all(dir);
}

TEST(MachineProfile, IsMeasuredAndWrittenWhenMissingAndReadAfterwards) {
  const fs::path dir =
      fs::temp_directory_path() / ("step_cost_test_m" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "profile.tsv").string();
  const tang::LoopToMeasure loops[] = {tang::plain_fp32_loop()};
  int notes = 0;
  const auto note = [&](const std::string&) { ++notes; };
  const MachineProfile measured = tang::load_or_measure_profile(path, loops, note);
  EXPECT_EQ(notes, 1);
  ASSERT_TRUE(measured.has_loop("fp32 plain"));
  EXPECT_EQ(measured.loop_gflops.at("fp32 plain").size(),
            std::size(tang::kProfileWidths) * std::size(tang::kProfileBatches));
  for (const auto& [bytes, rate] : measured.read_gb_per_s) EXPECT_GT(rate, 0.0) << bytes;
  const MachineProfile read = tang::load_or_measure_profile(path, loops, note);
  EXPECT_EQ(notes, 1) << "the second call reads the file";
  EXPECT_EQ(read.read_gb_per_s.size(), measured.read_gb_per_s.size());

  // A loop the file lacks is measured and added; what the file had is kept as it was.
  tang::LoopToMeasure other = tang::plain_fp32_loop();
  other.name = "another loop";
  const tang::LoopToMeasure both[] = {tang::plain_fp32_loop(), other};
  std::vector<std::string> told;
  const MachineProfile added = tang::load_or_measure_profile(
      path, both, [&](const std::string& note) { told.push_back(note); });
  ASSERT_EQ(told.size(), 1u);
  EXPECT_NE(told[0].find("\"another loop\""), std::string::npos) << told[0];
  EXPECT_TRUE(added.has_loop("another loop"));
  EXPECT_EQ(added.loop_gflops.at("fp32 plain"), read.loop_gflops.at("fp32 plain"));
  EXPECT_EQ(added.read_gb_per_s, read.read_gb_per_s);
  EXPECT_TRUE(tang::load_or_measure_profile(path, both, note).has_loop("another loop"));
  EXPECT_EQ(notes, 1) << "both loops are in the file now";

  // Where it cannot be kept, it is measured, used and not kept, with a note saying so.
  std::vector<std::string> said;
  const MachineProfile unkept =
      tang::load_or_measure_profile((dir / "no_such_folder" / "profile.tsv").string(), loops,
                                    [&](const std::string& note) { said.push_back(note); });
  EXPECT_TRUE(unkept.has_loop("fp32 plain"));
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[1].find("could not keep the profile"), std::string::npos) << said[1];
  fs::remove_all(dir);
}

// A step that extends a cache counts its rows' keys as the window and the
// cached step do: extend_step(k, 0, 1, 1) is a window, (1, c, 1, 1) a cached step.
TEST(StepCost, AnExtendingStepCountsEveryRowsKeys) {
  for (const std::size_t k : {1u, 5u, 33u})
    EXPECT_EQ(tang::extend_step(k, 0, 1, 1), tang::window_step(k)) << k;
  for (const std::size_t c : {0u, 7u, 127u})
    EXPECT_EQ(tang::extend_step(1, c, 1, 1), tang::cached_step(c)) << c;
  const tang::StepWork five = tang::extend_step(5, 10, 5, 5);  // rows see 11, 12, .. 15 keys
  EXPECT_EQ(five.keys, 11u + 12u + 13u + 14u + 15u);
  EXPECT_EQ(five.output_rows, 5u);
}

// Weights of the small config: 2 layers x 12 x 16^2 + 50 x 16 = 6,944, 27,776 bytes in
// fp32, so 10 GB/s (under 1 MB): 2.7776 us for all of them.
TEST(StepCost, EachMatrixTakesTheLongerOfReadingAndMultiplying) {
  const tang::GPTConfig cfg = small_config();
  const MachineProfile p = paper_machine();
  const tang::StepCost one = tang::predict_step(cfg, tang::cached_step(3), p, "fp32 plain", 4.0);
  EXPECT_DOUBLE_EQ(one.weight_bytes, 4.0 * (2 * 12 * 16 * 16 + 50 * 16));
  EXPECT_DOUBLE_EQ(one.gb_per_s, 10.0);
  ASSERT_EQ(one.matrices.size(), 5u);
  const tang::MatrixCost& qkv = one.matrices[0];
  EXPECT_EQ(qkv.name, "qkv");
  EXPECT_EQ(qkv.rows, 48u);
  EXPECT_EQ(qkv.count, 2u);
  // 2 x 48 x 16 weights: 6,144 bytes at 10 GB/s = 0.6144 us; 3,072 flops at 1 GFLOP/s = 3.072 us
  EXPECT_NEAR(qkv.memory_ms, 6144.0 / 1e10 * 1e3, 1e-12);
  EXPECT_NEAR(qkv.compute_ms, 3072.0 / 1e9 * 1e3, 1e-12);
  EXPECT_DOUBLE_EQ(qkv.ms(), qkv.compute_ms);
  // attention: 4 keys x 16 channels x 2 layers x 0.5 ns; the draw: 50 x 2 ns
  EXPECT_NEAR(one.attention_ms, 4 * 16 * 2 * 0.5e-6, 1e-15);
  EXPECT_NEAR(one.sampling_ms, 50 * 2e-6, 1e-15);
  // per layer GELU over 64 numbers (3 ns) and two LayerNorms over 16 (1 ns), then ln_f
  EXPECT_NEAR(one.pointwise_ms, (2 * (64 * 3.0 + 2 * 16 * 1.0) + 16 * 1.0) * 1e-6, 1e-15);

  // Four rows: four times the flops at four times the rate, the same bytes.
  const tang::StepCost four = tang::predict_step(cfg, tang::window_step(4), p, "fp32 plain", 4.0);
  EXPECT_NEAR(four.matrices[0].compute_ms, qkv.compute_ms, 1e-15);
  EXPECT_EQ(tang::window_step(4).keys, 10u) << "rows see 1 + 2 + 3 + 4 keys";
  EXPECT_EQ(tang::batch_step(3, 4).keys, 15u) << "three texts, each sees 4 cached keys and itself";
  EXPECT_EQ(tang::batch_step(3, 4).rows, 3u);
  EXPECT_EQ(four.matrices[4].flops, one.matrices[4].flops) << "logits for the last row only";
  // A quarter of the bytes (int8-like): reading gets cheaper, multiplying does not.
  const tang::StepCost small = tang::predict_step(cfg, tang::cached_step(3), p, "fp32 plain", 1.0);
  EXPECT_NEAR(small.matrices[0].memory_ms, qkv.memory_ms / 4, 1e-15);
  EXPECT_DOUBLE_EQ(small.matrices[0].compute_ms, qkv.compute_ms);
  EXPECT_NEAR(one.total_ms(),
              one.matrices_ms() + one.pointwise_ms + one.attention_ms + one.sampling_ms, 1e-15);
}

TEST(StepCost, WritingAddsItsStepsAndRebuildsAWindowThatSlid) {
  const tang::GPTConfig cfg = small_config();  // context 8
  const MachineProfile p = paper_machine();
  const auto step = [&](const tang::StepWork& w) {
    return tang::predict_step(cfg, w, p, "fp32 plain", 4.0).total_ms();
  };
  double with = 0.0, without = 0.0;
  for (std::size_t i = 1; i <= 10; ++i) {
    with += i <= 8 ? step(tang::cached_step(i - 1)) : step(tang::window_step(8));
    without += step(tang::window_step(std::min<std::size_t>(i, 8)));
  }
  EXPECT_NEAR(tang::predict_writing_ms(cfg, p, 10, true), with, 1e-12);
  EXPECT_NEAR(tang::predict_writing_ms(cfg, p, 10, false), without, 1e-12);
  EXPECT_GT(without, with);
}

}  // namespace

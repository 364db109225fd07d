// lesson_checks_test: the learner build's checks of exercises 07b and 08b against
// the reference solutions (lessons/07_verse/beam_step_check.hpp,
// lessons/08_many_poems/batched_attention_check.hpp), on inputs whose answers
// are known: the same answer says nothing, a near tie or a last-bit change says
// "only rounding", a real mistake names the tests.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "batched_attention_check.hpp"
#include "beam_step_check.hpp"
#include "exercise/batched_attention.hpp"
#include "rng.hpp"

namespace {

using tang::BeamChoice;
using tang::LogitMask;

const tang::Tokenizer& abc() {
  static const tang::Tokenizer tokenizer({"a", "b", "c"});
  return tokenizer;
}

// Two beams over three characters; the best two extensions are 1+b (score -1.5)
// and 0+a (-1.5 + 1e-9: a near tie whose order a float sum may swap).
struct BeamInputs {
  std::vector<double> scores{-1.0, -0.5};
  std::vector<std::vector<float>> log_probs{{-0.5f, -3.0f, -4.0f}, {-2.0f, -1.0f, -5.0f}};
  std::vector<LogitMask> allowed{LogitMask(3), LogitMask(3)};
};

std::string beam_note(const std::vector<BeamChoice>& yours) {
  BeamInputs in;
  in.scores[0] += 1e-9;
  std::ostringstream report;
  tang::BeamStepCheck check(abc(), report, /*enabled=*/true);
  check.compare(4, in.scores, in.log_probs, in.allowed, 2, yours);
  return report.str();
}

TEST(BeamStepCheck, SaysNothingWhenYoursKeepsTheSame) {
  BeamInputs in;
  in.scores[0] += 1e-9;
  const auto theirs = tang::reference::beam_step(in.scores, in.log_probs, in.allowed, 2);
  EXPECT_EQ(beam_note(theirs), "");
}

TEST(BeamStepCheck, ANearTieInTheOtherOrderIsOnlyRounding) {
  const std::vector<BeamChoice> swapped{{1, 1, -1.5}, {0, 0, -1.5 + 1e-9}};
  const std::string note = beam_note(swapped);
  EXPECT_NE(note.find("step 5 of the beam search, extension 1"), std::string::npos) << note;
  EXPECT_NE(note.find("only rounding"), std::string::npos) << note;
}

TEST(BeamStepCheck, AWrongExtensionDisagrees) {
  const std::vector<BeamChoice> wrong{{0, 0, -1.5 + 1e-9}, {0, 1, -4.0}};  // 1+b missing
  const std::string note = beam_note(wrong);
  EXPECT_NE(note.find("extension 2: yours b after beam 1"), std::string::npos) << note;
  EXPECT_NE(note.find("disagrees"), std::string::npos) << note;
  EXPECT_NE(note.find("-L '^exercise_07b$'"), std::string::npos) << note;
}

TEST(BeamStepCheck, AWronglyReportedScoreDisagrees) {
  const std::vector<BeamChoice> misreported{{0, 0, -1.5 + 1e-9}, {1, 1, -1.0}};
  EXPECT_NE(beam_note(misreported).find("disagrees"), std::string::npos);
}

TEST(BeamStepCheck, NotesOnlyTheFirstDifferenceOfAPoem) {
  BeamInputs in;
  std::ostringstream report;
  tang::BeamStepCheck check(abc(), report, true);
  const std::vector<BeamChoice> wrong{{0, 2, -5.0}};
  check.compare(0, in.scores, in.log_probs, in.allowed, 1, wrong);
  check.compare(1, in.scores, in.log_probs, in.allowed, 1, wrong);
  const std::string notes = report.str();
  EXPECT_EQ(notes.find("note:"), notes.rfind("note:")) << notes;
}

// Two sequences, C = 4, two heads; sequence 0 has 2 cached positions, 1 has none.
struct AttentionInputs {
  static constexpr std::size_t B = 2, C = 4, NH = 2, T = 4;
  std::vector<float> qkv = std::vector<float>(B * 3 * C);
  std::vector<std::vector<float>> k{std::vector<float>(T * C), std::vector<float>(T* C)};
  std::vector<std::vector<float>> v = k;
  std::vector<std::size_t> lengths{2, 0};
  std::vector<float*> k_rows{k[0].data(), k[1].data()}, v_rows{v[0].data(), v[1].data()};
  AttentionInputs() {
    tang::Rng rng(5);
    for (float& x : qkv) x = rng.normal();
    for (auto* cache : {&k[0], &v[0]})
      for (std::size_t i = 0; i < 2 * C; ++i) (*cache)[i] = rng.normal();
  }
};

// The note after the reference's answer, nudged by `nudge` at out[b=1][2].
std::string attention_note(float nudge) {
  AttentionInputs in;
  std::ostringstream report;
  tang::BatchedAttentionCheck check(report, /*enabled=*/true);
  const std::vector<float> k_before = in.k[0];
  check.run_reference(in.qkv.data(), in.k_rows.data(), in.v_rows.data(), in.lengths.data(), in.B,
                      in.C, in.NH);
  EXPECT_EQ(in.k[0], k_before) << "the reference must work on copies of the caches";
  std::vector<float> out(in.B * in.C);
  tang::reference::batched_attention(out.data(), in.qkv.data(), in.k_rows.data(), in.v_rows.data(),
                                     in.lengths.data(), in.B, in.C, in.NH);
  out[1 * in.C + 2] += nudge;
  check.compare(out.data(), in.k_rows.data(), in.v_rows.data(), 2);
  return report.str();
}

TEST(BatchedAttentionCheck, SaysNothingForTheSameNumbers) {
  EXPECT_EQ(attention_note(0.0f), "");
}

TEST(BatchedAttentionCheck, ALastBitIsOnlyRounding) {
  const std::string note = attention_note(3e-7f);
  EXPECT_NE(note.find("poem 2, position 0"), std::string::npos) << note;
  EXPECT_NE(note.find("layer 3"), std::string::npos) << note;
  EXPECT_NE(note.find("only rounding"), std::string::npos) << note;
}

TEST(BatchedAttentionCheck, ARealDifferenceNamesTheTests) {
  const std::string note = attention_note(0.25f);
  EXPECT_NE(note.find("a real difference: ctest --preset learner -L '^exercise_08b$'"),
            std::string::npos)
      << note;
}

TEST(BatchedAttentionCheck, AKeyWrittenToTheWrongRowIsARealDifference) {
  AttentionInputs in;
  std::ostringstream report;
  tang::BatchedAttentionCheck check(report, true);
  check.run_reference(in.qkv.data(), in.k_rows.data(), in.v_rows.data(), in.lengths.data(), in.B,
                      in.C, in.NH);
  std::vector<float> out(in.B * in.C);
  tang::reference::batched_attention(out.data(), in.qkv.data(), in.k_rows.data(), in.v_rows.data(),
                                     in.lengths.data(), in.B, in.C, in.NH);
  in.k[0][2 * in.C] += 1.0f;  // poem 1's new key, row 2, changed after the fact
  check.compare(out.data(), in.k_rows.data(), in.v_rows.data(), 0);
  EXPECT_NE(report.str().find("poem 1, position 2"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("a real difference"), std::string::npos) << report.str();
}

}  // namespace

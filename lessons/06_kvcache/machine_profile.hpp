// machine_profile.hpp: what this machine can do, measured, so that a step's
// cost can be predicted before it is timed (step_cost.hpp).
//
// A decoding step reads bytes (the weights, the cache) and does multiply-adds
// with them. Each takes time at a rate this machine has:
//
//   read bandwidth   GB/s at which one thread streams through a working set of a
//                    given size: fast while it fits a cache level (L1, L2, L3),
//                    slow once it must come from main memory
//   loop rate        GFLOP/s of one matrix-product loop of the course (a multiply
//                    and an add are 2 flops) on a matrix that sits in the cache,
//                    for B input rows at once: B = 1 is a matrix-vector product;
//                    a loop measured from memory runs on weights twice the size
//                    of the last cache instead, which it must stream from main memory
//   per sequence     what batching cannot share: attention over a sequence's own
//                    keys, and drawing its next character
//
// measure_machine_profile() measures them (a few seconds); the profile is kept
// in a small text file (build/release/machine_profile.tsv, written by the
// machine_profile program or by the first lesson that needs it).
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rng.hpp"
#include "sampling.hpp"
#include "tokenizer.hpp"

namespace tang {

// A loop's rate on matrices `cols` wide, for B input rows.
struct LoopRate {
  std::size_t cols = 0, B = 0;
  double gflops = 0.0;
  auto operator<=>(const LoopRate&) const = default;
};

struct MachineProfile {
  // (working-set bytes, GB/s), by increasing size
  std::vector<std::pair<std::size_t, double>> read_gb_per_s;
  // loop name -> its rates, by increasing width, then B
  std::map<std::string, std::vector<LoopRate>> loop_gflops;
  double attention_ns = 0.0;  // ops::attend, per key and per channel (scores + weighted sum)
  double gelu_ns = 0.0;       // ops::gelu_forward, per number (inputs like a model's)
  double layernorm_ns = 0.0;  // ops::layernorm_forward, per number
  double sampling_ns = 0.0;   // one draw with lesson 06's settings, per vocabulary entry

  // Bandwidth for a working set of `bytes`: interpolated between the two
  // measured sizes around it (on a log scale), the end values beyond them.
  double read_gb_per_s_at(double bytes) const;
  // A loop's rate on a matrix `cols` wide at B rows: at the measured width
  // nearest to cols (on a log scale), interpolated in B the same way. Throws
  // UserError when the profile has no such loop.
  double loop_gflops_at(const std::string& loop, std::size_t cols, std::size_t B) const;
  bool has_loop(const std::string& loop) const { return loop_gflops.count(loop) > 0; }
  // Where main memory starts: the smallest measured working set whose bandwidth is
  // within kMainMemoryPace of the slowest measured (main memory's). Weights this large
  // or larger stream from main memory every step; smaller ones stay in a cache.
  std::size_t main_memory_bytes() const;
};
inline constexpr double kMainMemoryPace = 1.5;

// One matrix-product loop to measure: make(rows, cols) builds it for a W of its
// own (rows x cols); the loop it returns does out (B, rows) = in (B, cols) @ W^T.
using MatmulLoop = std::function<void(float* out, const float* in, std::size_t B)>;
struct LoopToMeasure {
  std::string name;  // e.g. "fp32", "int8"
  std::function<MatmulLoop(std::size_t rows, std::size_t cols)> make;
  // false: measured on one matrix of kProfileRows rows, which sits in the cache;
  // true: on matrices of kMemoryRows rows, as many as make twice main_memory_bytes()
  // (so each call finds its weights gone from the cache), called in turn, at
  // kMemoryWidths and kMemoryBatches only (each call is long)
  bool from_memory = false;
};

// The widths and batch sizes at which every loop is measured, on 256-row
// matrices (the widths of our model and of GPT-2 small's matrices).
inline constexpr std::size_t kProfileWidths[] = {128, 512, 768, 3072};
inline constexpr std::size_t kProfileBatches[] = {1, 2, 4, 8, 16, 32, 64, 128};
inline constexpr std::size_t kProfileRows = 256;
// A loop measured from memory: rows a matrix (as many as GPT-2 small's have), the
// widths (GPT-2 small's: the only model here whose weights do not fit in the cache)
// and the batch sizes (those lesson 08 runs that model at).
inline constexpr std::size_t kMemoryRows = 2048;
inline constexpr std::size_t kMemoryWidths[] = {768, 3072};
inline constexpr std::size_t kMemoryBatches[] = {1, 2, 4, 8, 16, 32};

// The plain fp32 loop of lessons 01-07 (ops::matmul_forward), and its name.
inline constexpr const char* kPlainFp32Loop = "fp32 plain";
LoopToMeasure plain_fp32_loop();
// Any product with ops::matmul_forward's signature, on fp32 weights, as `name`.
using Fp32Product = void (*)(float* out, const float* inp, const float* weight, const float* bias,
                             std::size_t N, std::size_t IC, std::size_t OC);
LoopToMeasure fp32_product_loop(const std::string& name, Fp32Product product);

// The code whose cost a profile's per-sequence rates measure: attention over a
// cache (ops::attend's arguments), GELU, and one draw from the logits.
using AttendCode = std::function<void(float* out, float* weights, const float* q, const float* keys,
                                      const float* values, std::size_t stride, std::size_t n,
                                      std::size_t C, std::size_t NH)>;
using GeluCode = std::function<void(float* out, const float* inp, std::size_t n)>;
using DrawCode =
    std::function<TokenId(std::span<float> logits, const SamplingSettings& settings, Rng& rng)>;
struct PerSequenceCode {
  AttendCode attend;
  GeluCode gelu;
  DrawCode draw;
};
// The lessons' own: ops::attend, ops::gelu_forward, lesson 03's sample_next.
PerSequenceCode lesson_per_sequence_code();
// Measures attention_ns, gelu_ns and sampling_ns of `p` again, with `code` (the
// benchmarks' tuned path measures its own pieces this way, for its predictions).
void measure_per_sequence(MachineProfile& p, const PerSequenceCode& code);

// Measures bandwidth at working sets of 16 KB .. 256 MB, every loop at every
// width and batch size, attention, GELU, LayerNorm and sampling. One thread;
// a few seconds a loop.
MachineProfile measure_machine_profile(std::span<const LoopToMeasure> loops);
// Measures `loops` at every width and batch size into `p` (replacing any rates
// of the same names), side by side: every loop at one width and batch size before
// the next, so that loops measured in one call can be compared. Loops measured
// from memory take their working set from p's bandwidth (main_memory_bytes).
void measure_loops(MachineProfile& p, std::span<const LoopToMeasure> loops);

// The profile as text (one measurement a line) and back. parse_profile throws
// UserError naming the line it cannot read.
std::string profile_text(const MachineProfile& profile);
MachineProfile parse_profile(const std::string& text, const std::string& source);

// The text of the profile file at `path`, or nothing when there is none; throws
// UserError when the file there is not a machine profile (it is never replaced).
std::optional<std::string> read_profile_file(const std::string& path);

// Where the lessons keep the profile: build/release/machine_profile.tsv, or the
// file the environment variable TANG_MACHINE_PROFILE names (the test suite's
// own, so that a profile measured while tests load the machine stays theirs).
std::string default_profile_path();

// Where a lesson's predictions come from, in one line: the profile's path (relative
// to the current folder when it is inside it), when it was measured, and the program
// that measures it again.
std::string profile_provenance(const std::string& path);

// Reads the profile at `path`, when there is one, only to refuse it (UserError)
// when it is broken: the lessons call it before they print anything.
void check_profile_file(const std::string& path);

// The profile at `path`, if it holds every loop of `loops`; a profile lacking
// some of them gets those measured now and added (the rest kept), a missing one
// is measured whole; either is written there (atomically), telling `note`
// first. A file there that is not a profile is refused (UserError), never replaced;
// a profile that cannot be written (a full disk) is used all the same, with a note.
MachineProfile load_or_measure_profile(const std::string& path,
                                       std::span<const LoopToMeasure> loops,
                                       const std::function<void(const std::string&)>& note);

// The profile as a lesson takes it: load_or_measure_profile at default_profile_path(),
// its notes printed to `out` as they come, then the line of profile_provenance, each
// after `indent`.
MachineProfile lesson_profile(std::ostream& out, std::span<const LoopToMeasure> loops,
                              const std::string& indent = "");

}  // namespace tang

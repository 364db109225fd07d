// machine_profile.cpp: the measurements behind a step's predicted cost.
//
// Every measurement runs its loop for at least kMinSeconds, five times, and
// keeps the fastest: the slower runs are this machine doing something else.
#include "06_kvcache/machine_profile.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

#include "03_topk_topp/sampler.hpp"
#include "atomic_file.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "rng.hpp"

namespace tang {

namespace {

constexpr double kMinSeconds = 0.01;  // each timed run
constexpr int kRuns = 5;              // the fastest of these
const char* const kHeader = "# tang machine profile 1";

using Clock = std::chrono::steady_clock;

// The fastest seconds per call of `work` over kRuns runs of >= kMinSeconds each.
template <typename Work>
double seconds_per_call(Work&& work) {
  work();  // once first: page in, warm the caches
  double best = 1e30;
  for (int run = 0; run < kRuns; ++run) {
    std::size_t calls = 0;
    const auto start = Clock::now();
    double elapsed = 0.0;
    do {
      work();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < kMinSeconds);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform() - 0.5f;
  return v;
}

// Reads `n` floats (n a multiple of 64) with eight independent sums of eight
// lanes each: enough loads in flight that the memory, not the adds, sets the pace.
using Lanes = float __attribute__((vector_size(32)));
float read_all(const float* data, std::size_t n) {
  Lanes sum[8] = {};
  for (std::size_t i = 0; i < n; i += 64) {
    for (std::size_t k = 0; k < 8; ++k) {
      Lanes x;
      std::memcpy(&x, data + i + 8 * k, sizeof x);
      sum[k] += x;
    }
  }
  for (std::size_t k = 1; k < 8; ++k) sum[0] += sum[k];
  float total = 0.0f;
  for (std::size_t k = 0; k < 8; ++k) total += sum[0][k];
  return total;
}

double measure_read_gb_per_s(std::size_t bytes) {
  const std::size_t n = bytes / sizeof(float);
  const std::vector<float> data = random_floats(n, bytes);
  volatile float sink = 0.0f;  // keeps the reads from being optimised away
  const double seconds = seconds_per_call([&] { sink = sink + read_all(data.data(), n); });
  return static_cast<double>(bytes) / seconds / 1e9;
}

// One loop's copies (each on a W of its own, rows x cols), called in turn on the same
// B input rows: GFLOP/s over them all.
double measure_loop(const std::vector<MatmulLoop>& copies, std::size_t rows, std::size_t cols,
                    std::size_t B) {
  const std::vector<float> in = random_floats(B * cols, B);
  std::vector<float> out(B * rows);
  const double seconds = seconds_per_call([&] {
    for (const MatmulLoop& loop : copies) loop(out.data(), in.data(), B);
  });
  return 2.0 * static_cast<double>(copies.size() * rows * cols * B) / seconds / 1e9;
}

// A loop as measure_loops times it at one width: one matrix of kProfileRows rows,
// or, from memory, enough matrices of kMemoryRows rows to fill `memory_bytes`.
std::vector<MatmulLoop> make_copies(const LoopToMeasure& loop, std::size_t cols,
                                    std::size_t memory_bytes) {
  if (!loop.from_memory) return {loop.make(kProfileRows, cols)};
  const std::size_t bytes = kMemoryRows * cols * sizeof(float);
  std::vector<MatmulLoop> copies(std::max<std::size_t>(2, (memory_bytes + bytes - 1) / bytes));
  for (MatmulLoop& copy : copies) copy = loop.make(kMemoryRows, cols);
  return copies;
}

// Inputs spread as a model's activations are (GELU's erf takes longer on some
// values than on others): normal, standard deviation 1.
std::vector<float> normal_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.normal();
  return v;
}

double measure_gelu_ns(const GeluCode& gelu) {
  const std::size_t n = 512 * 128;
  const std::vector<float> in = normal_floats(n, 8);
  std::vector<float> out(n);
  return seconds_per_call([&] { gelu(out.data(), in.data(), n); }) * 1e9 / static_cast<double>(n);
}

double measure_layernorm_ns() {
  const std::size_t N = 64, C = 768;
  const std::vector<float> in = normal_floats(N * C, 9), weight(C, 1.0f), bias(C, 0.0f);
  std::vector<float> out(N * C), mean(N), rstd(N);
  return seconds_per_call([&] {
           ops::layernorm_forward(out.data(), mean.data(), rstd.data(), in.data(), weight.data(),
                                  bias.data(), N, C);
         }) *
         1e9 / static_cast<double>(N * C);
}

// Attention for one query over n keys of C channels (NH heads), per key and channel.
double measure_attention_ns(const AttendCode& attend) {
  const std::size_t n = 128, C = 128, NH = 4;
  const std::vector<float> q = random_floats(C, 1), keys = random_floats(n * C, 2),
                           values = random_floats(n * C, 3);
  std::vector<float> out(C), weights(NH * n);
  const double seconds = seconds_per_call([&] {
    attend(out.data(), weights.data(), q.data(), keys.data(), values.data(), C, n, C, NH);
  });
  return seconds * 1e9 / static_cast<double>(n * C);
}

// One draw with lesson 06's settings from logits over a vocabulary of our size.
double measure_sampling_ns(const DrawCode& draw) {
  const std::size_t V = 7129;
  const std::vector<float> logits = random_floats(V, 4);
  std::vector<float> scratch(V);
  Rng rng(5);
  const SamplingSettings settings{0.8f, 20, 1.0f};
  const double seconds = seconds_per_call([&] {
    scratch = logits;  // a draw may overwrite its logits
    draw(scratch, settings, rng);
  });
  return seconds * 1e9 / static_cast<double>(V);
}

// Interpolates y at x between the points around it, on log scales.
double log_interpolate(const std::vector<std::pair<std::size_t, double>>& points, double x) {
  if (x <= static_cast<double>(points.front().first)) return points.front().second;
  if (x >= static_cast<double>(points.back().first)) return points.back().second;
  std::size_t i = 1;
  while (static_cast<double>(points[i].first) < x) ++i;
  const double x0 = std::log(static_cast<double>(points[i - 1].first));
  const double x1 = std::log(static_cast<double>(points[i].first));
  const double f = (std::log(x) - x0) / (x1 - x0);
  return std::exp(std::log(points[i - 1].second) * (1.0 - f) + std::log(points[i].second) * f);
}

}  // namespace

double MachineProfile::read_gb_per_s_at(double bytes) const {
  if (read_gb_per_s.empty()) throw UserError("machine profile: no bandwidth measured");
  return log_interpolate(read_gb_per_s, bytes);
}

double MachineProfile::loop_gflops_at(const std::string& loop, std::size_t cols,
                                      std::size_t B) const {
  const auto found = loop_gflops.find(loop);
  if (found == loop_gflops.end() || found->second.empty())
    throw UserError("machine profile: no loop named " + loop + ": rerun machine_profile");
  // the measured width nearest to cols, on a log scale
  std::size_t width = found->second.front().cols;
  const auto distance = [&](std::size_t w) {
    return std::abs(std::log(static_cast<double>(w) / static_cast<double>(cols)));
  };
  for (const LoopRate& r : found->second) {
    if (distance(r.cols) < distance(width)) width = r.cols;
  }
  std::vector<std::pair<std::size_t, double>> by_batch;  // (B, GFLOP/s) at that width
  for (const LoopRate& r : found->second) {
    if (r.cols == width) by_batch.emplace_back(r.B, r.gflops);
  }
  return log_interpolate(by_batch, static_cast<double>(B));
}

std::size_t MachineProfile::main_memory_bytes() const {
  if (read_gb_per_s.empty()) throw UserError("machine profile: no bandwidth measured");
  double slowest = read_gb_per_s.front().second;
  for (const auto& [bytes, rate] : read_gb_per_s) slowest = std::min(slowest, rate);
  for (const auto& [bytes, rate] : read_gb_per_s) {
    if (rate <= kMainMemoryPace * slowest) return bytes;
  }
  return read_gb_per_s.back().first;  // not reached: the slowest is within its own pace
}

LoopToMeasure plain_fp32_loop() {
  return fp32_product_loop(kPlainFp32Loop, ops::matmul_forward);
}

LoopToMeasure fp32_product_loop(const std::string& name, Fp32Product product) {
  return {name, [product](std::size_t rows, std::size_t cols) -> MatmulLoop {
            auto weights = std::make_shared<std::vector<float>>(random_floats(rows * cols, 6));
            return [weights, rows, cols, product](float* out, const float* in, std::size_t B) {
              product(out, in, weights->data(), nullptr, B, cols, rows);
            };
          }};
}

void measure_loops(MachineProfile& p, std::span<const LoopToMeasure> loops) {
  for (const LoopToMeasure& loop : loops) p.loop_gflops[loop.name].clear();
  // every loop at one width and batch size, then the next: loops measured together
  // are measured side by side, under the same load, and can be compared
  const bool any_from_memory =
      std::any_of(loops.begin(), loops.end(), [](const LoopToMeasure& l) { return l.from_memory; });
  const std::size_t memory_bytes = any_from_memory ? 2 * p.main_memory_bytes() : 0;
  const auto among = [](const auto& values, std::size_t x) {
    return std::find(std::begin(values), std::end(values), x) != std::end(values);
  };
  const auto measured_at = [&](const LoopToMeasure& loop, std::size_t cols, std::size_t B) {
    return !loop.from_memory || (among(kMemoryWidths, cols) && among(kMemoryBatches, B));
  };
  for (std::size_t cols : kProfileWidths) {
    std::vector<std::vector<MatmulLoop>> runs;  // none for a loop not measured at this width
    for (const LoopToMeasure& loop : loops) {
      runs.push_back(measured_at(loop, cols, 1) ? make_copies(loop, cols, memory_bytes)
                                                : std::vector<MatmulLoop>{});
    }
    for (std::size_t B : kProfileBatches) {
      for (std::size_t i = 0; i < loops.size(); ++i) {
        if (!measured_at(loops[i], cols, B)) continue;
        const std::size_t rows = loops[i].from_memory ? kMemoryRows : kProfileRows;
        p.loop_gflops[loops[i].name].push_back({cols, B, measure_loop(runs[i], rows, cols, B)});
      }
    }
  }
}

MachineProfile measure_machine_profile(std::span<const LoopToMeasure> loops) {
  MachineProfile p;
  for (std::size_t kb = 16; kb <= 256 * 1024; kb *= 2)
    p.read_gb_per_s.emplace_back(kb * 1024, measure_read_gb_per_s(kb * 1024));
  measure_loops(p, loops);
  measure_per_sequence(p, lesson_per_sequence_code());
  p.layernorm_ns = measure_layernorm_ns();
  return p;
}

PerSequenceCode lesson_per_sequence_code() {
  return {ops::attend, ops::gelu_forward,
          [](std::span<float> logits, const SamplingSettings& settings, Rng& rng) {
            return sample_next(logits, settings, rng);
          }};
}

void measure_per_sequence(MachineProfile& p, const PerSequenceCode& code) {
  p.attention_ns = measure_attention_ns(code.attend);
  p.gelu_ns = measure_gelu_ns(code.gelu);
  p.sampling_ns = measure_sampling_ns(code.draw);
}

std::string profile_text(const MachineProfile& p) {
  std::ostringstream s;
  s.precision(6);
  s << kHeader << "\n"
    << "# read <working-set bytes> <GB/s>; loop <name> <width> <B rows> <GFLOP/s>;\n"
    << "# attention_ns per key and channel, gelu_ns and layernorm_ns per number,\n"
    << "# sampling_ns per vocabulary entry\n";
  for (const auto& [bytes, rate] : p.read_gb_per_s) s << "read\t" << bytes << "\t" << rate << "\n";
  for (const auto& [name, rates] : p.loop_gflops) {
    for (const LoopRate& r : rates)
      s << "loop\t" << name << "\t" << r.cols << "\t" << r.B << "\t" << r.gflops << "\n";
  }
  s << "attention_ns\t" << p.attention_ns << "\n"
    << "gelu_ns\t" << p.gelu_ns << "\n"
    << "layernorm_ns\t" << p.layernorm_ns << "\n"
    << "sampling_ns\t" << p.sampling_ns << "\n";
  return s.str();
}

MachineProfile parse_profile(const std::string& text, const std::string& source) {
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != kHeader)
    throw UserError(source + " is not a machine profile (its first line is not \"" + kHeader +
                    "\"): move it away, or name another file");
  MachineProfile p;
  std::size_t number = 1;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind;
    std::getline(fields, kind, '\t');
    bool ok = true;
    if (kind == "read") {
      std::size_t bytes = 0;
      double rate = 0.0;
      ok = static_cast<bool>(fields >> bytes >> rate) && rate > 0.0;
      if (ok) p.read_gb_per_s.emplace_back(bytes, rate);
    } else if (kind == "loop") {
      std::string name;
      LoopRate r;
      ok = std::getline(fields, name, '\t') &&
           static_cast<bool>(fields >> r.cols >> r.B >> r.gflops) && r.gflops > 0.0 && r.B > 0 &&
           r.cols > 0;
      if (ok) p.loop_gflops[name].push_back(r);
    } else if (kind == "attention_ns") {
      ok = static_cast<bool>(fields >> p.attention_ns) && p.attention_ns > 0.0;
    } else if (kind == "gelu_ns") {
      ok = static_cast<bool>(fields >> p.gelu_ns) && p.gelu_ns > 0.0;
    } else if (kind == "layernorm_ns") {
      ok = static_cast<bool>(fields >> p.layernorm_ns) && p.layernorm_ns > 0.0;
    } else if (kind == "sampling_ns") {
      ok = static_cast<bool>(fields >> p.sampling_ns) && p.sampling_ns > 0.0;
    } else {
      ok = false;
    }
    if (!ok)
      throw UserError(source + " line " + std::to_string(number) +
                      ": not a measurement this course writes; delete the file and rerun "
                      "machine_profile");
  }
  const auto ascending = [](const auto& points) {
    return std::is_sorted(points.begin(), points.end()) && !points.empty();
  };
  bool complete = ascending(p.read_gb_per_s) && p.attention_ns > 0.0 && p.gelu_ns > 0.0 &&
                  p.layernorm_ns > 0.0 && p.sampling_ns > 0.0;
  for (const auto& [name, rates] : p.loop_gflops) complete = complete && ascending(rates);
  if (!complete)
    throw UserError(source +
                    ": an incomplete machine profile; delete it and rerun machine_profile");
  return p;
}

std::string default_profile_path() {
  const char* chosen = std::getenv("TANG_MACHINE_PROFILE");
  return chosen != nullptr && *chosen != '\0' ? chosen : TANG_PROFILE_PATH;
}

std::string profile_provenance(const std::string& path) {
  std::error_code error;
  const std::filesystem::path shown = std::filesystem::proximate(path, error);
  std::string text = "Predicted from the machine profile " + (error ? path : shown.string());
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    char when[32];
    std::tm local{};
    localtime_r(&info.st_mtime, &local);
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &local);
    text += std::string(", measured ") + when;
  }
  return text + " (lesson 08's machine_profile measures it again)";
}

std::optional<std::string> read_profile_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  const std::string s = text.str();
  if (s.substr(0, s.find('\n')) != kHeader)
    throw UserError(path + " is not a machine profile (its first line is not \"" + kHeader +
                    "\"): move it away, or name another file");
  return s;
}

void check_profile_file(const std::string& path) {
  if (const auto text = read_profile_file(path)) parse_profile(*text, path);
}

MachineProfile load_or_measure_profile(const std::string& path,
                                       std::span<const LoopToMeasure> loops,
                                       const std::function<void(const std::string&)>& note) {
  MachineProfile p;
  if (const auto text = read_profile_file(path)) {
    p = parse_profile(*text, path);
    std::vector<LoopToMeasure> missing;  // measured now and added: the rest is kept
    std::string names;
    for (const LoopToMeasure& l : loops) {
      if (p.has_loop(l.name)) continue;
      missing.push_back(l);
      names += (names.empty() ? "\"" : ", \"") + l.name + "\"";
    }
    if (missing.empty()) return p;
    note("measuring the " + names + " loop" + (missing.size() > 1 ? "s" : "") + " (" + path +
         " has no such loop; a few seconds)");
    measure_loops(p, missing);
  } else {
    note("measuring this machine (none at " + path + "; a few seconds)");
    p = measure_machine_profile(loops);
  }
  try {
    write_file_atomically(path, profile_text(p));
  } catch (const UserError& e) {  // a full disk or a read-only folder: measure again next time
    note(std::string("could not keep the profile: ") + e.what());
  }
  return p;
}

MachineProfile lesson_profile(std::ostream& out, std::span<const LoopToMeasure> loops,
                              const std::string& indent) {
  const std::string path = default_profile_path();
  const MachineProfile profile = load_or_measure_profile(path, loops, [&](const std::string& note) {
    out << indent << "(" << note << ")\n";
    out.flush();
  });
  out << indent << profile_provenance(path) << "\n";
  return profile;
}

}  // namespace tang

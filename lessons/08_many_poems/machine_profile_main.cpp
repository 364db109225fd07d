// machine_profile: measures what this machine can do (one thread) and keeps it
// in the file lessons 06, 08, 10, 11 and 12 predict their timings from.
//
//   build/release/lessons/08_many_poems/machine_profile            measure, print, write
//   build/release/lessons/08_many_poems/machine_profile --out F    write F instead
//
// The lessons measure it themselves when the file is missing; rerun this after
// the machine changed, or when the predictions look off.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "06_kvcache/machine_profile.hpp"
#include "08_many_poems/format_loops.hpp"
#include "atomic_file.hpp"
#include "program.hpp"

namespace {

std::string size_text(std::size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MB"
                             : std::to_string(bytes >> 10) + " KB";
}

void print(const tang::MachineProfile& p) {
  std::cout << "Read bandwidth of one thread streaming through a working set:\n"
               "  working set    GB/s\n";
  for (const auto& [bytes, rate] : p.read_gb_per_s) {
    std::printf("  %11s  %6.1f\n", size_text(bytes).c_str(), rate);
  }
  std::cout << "\nMatrix products, GFLOP/s (2 per multiply-add) on " << tang::kProfileRows
            << "-row matrices in the cache, for B input rows:\n  loop         width";
  for (std::size_t B : tang::kProfileBatches)
    std::printf(" %6s", ("B=" + std::to_string(B)).c_str());
  for (const auto& [name, rates] : p.loop_gflops) {
    std::size_t width = 0;
    for (const tang::LoopRate& r : rates) {
      if (r.cols != width) std::printf("\n  %-11s %6zu", name.c_str(), width = r.cols);
      std::printf(" %6.1f", r.gflops);
    }
  }
  std::cout << "\n";
  std::printf(
      "\nPer row: GELU %.2f ns and LayerNorm %.2f ns per number\n"
      "Per text, whatever the batch: attention %.3f ns per key and channel (each layer), "
      "the draw %.2f ns per vocabulary entry\n",
      p.gelu_ns, p.layernorm_ns, p.attention_ns, p.sampling_ns);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tang;
  CLI::App app{"machine_profile: read bandwidth, loop rates and per-text costs of this machine",
               "machine_profile"};
  std::string out = default_profile_path();
  app.add_option("--out", out, "the profile file to write")->capture_default_str();
  return run_program(argc, argv, app, [&] {
    read_profile_file(out);  // refuses a file there that is not a profile
    std::cout << "Measuring (one thread, a few seconds)...\n\n";
    std::cout.flush();
    const MachineProfile p = measure_machine_profile(lesson_loops());
    print(p);
    write_file_atomically(out, profile_text(p));
    std::cout << "\nwritten to " << out << "\n";
    return 0;
  });
}

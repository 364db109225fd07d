// bench_profile.hpp: the machine profile behind the benchmarks' predictions, for
// the programs whose rows run lessons 01-07's plain fp32 loop (bench_06, bench_10,
// bench_11): this machine's profile (06_kvcache/machine_profile.hpp) as the lessons
// read it, measured first when build/release/machine_profile.tsv is missing.
// Read once per program.
#pragma once

#include <string>

#include "06_kvcache/machine_profile.hpp"

namespace tang::bench {

inline const MachineProfile& plain_loop_profile() {
  static const MachineProfile p = [] {
    const LoopToMeasure loops[] = {plain_fp32_loop()};
    return load_or_measure_profile(default_profile_path(), loops, [](const std::string&) {});
  }();
  return p;
}

}  // namespace tang::bench

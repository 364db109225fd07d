#include "fast/blas_cores.hpp"

#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

extern "C" char* openblas_get_corename();

namespace tang {

const char* blas_core_name() {
  return openblas_get_corename();
}

bool blas_core_runs_on(const char* core, bool has_avx512, bool has_avx2) {
  for (const char* avx512 : {"SkylakeX", "Cooperlake", "SapphireRapids"}) {
    if (strcasecmp(core, avx512) == 0) return has_avx512;
  }
  for (const char* avx2 : {"Haswell", "Zen"}) {
    if (strcasecmp(core, avx2) == 0) return has_avx2;
  }
  return true;
}

namespace {

// The best kernel family this CPU can run, from what the CPU itself reports.
const char* best_core_for_this_cpu() {
  if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;  // let OpenBLAS choose
}

bool cpu_can_run(const char* core) {
  return blas_core_runs_on(core, __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx2"));
}

void restart_with(const char* core, char** argv) {
  setenv("OPENBLAS_CORETYPE", core, 1);
  execv("/proc/self/exe", argv);  // only returns on failure: then carry on as we are
}

}  // namespace

void ensure_fast_blas(char** argv) {
  if (const char* chosen = std::getenv("OPENBLAS_CORETYPE"); chosen != nullptr) {
    if (cpu_can_run(chosen)) return;  // chosen by the user, or by us before the restart
    const char* best = best_core_for_this_cpu();
    std::fprintf(stderr,
                 "note: OPENBLAS_CORETYPE=%s needs instructions this CPU does not have; using %s\n",
                 chosen, best ? best : "OpenBLAS's own choice");
    if (best == nullptr) {
      unsetenv("OPENBLAS_CORETYPE");
      execv("/proc/self/exe", argv);
    }
    restart_with(best, argv);
    return;
  }
  if (std::strcmp(openblas_get_corename(), "Prescott") != 0) return;  // detection worked
  if (const char* best = best_core_for_this_cpu()) restart_with(best, argv);
}

}  // namespace tang

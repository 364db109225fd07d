#include "fast/blas_cores.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern "C" char* openblas_get_corename();

namespace tang {

const char* blas_core_name() {
  return openblas_get_corename();
}

void ensure_fast_blas(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // chosen by the user, or done already
  if (std::strcmp(openblas_get_corename(), "Prescott") != 0) return;  // detection worked
  const char* better = nullptr;
  if (__builtin_cpu_supports("avx512f")) {
    better = "SkylakeX";
  } else if (__builtin_cpu_supports("avx2")) {
    better = "Haswell";
  }
  if (better == nullptr) return;
  setenv("OPENBLAS_CORETYPE", better, 1);
  execv("/proc/self/exe", argv);  // only returns on failure: then carry on with the slow kernels
}

}  // namespace tang

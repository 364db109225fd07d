// blas_cores.hpp (under the hood): make sure OpenBLAS uses the vector units this CPU has.
//
// Debian's OpenBLAS picks its kernels at start-up from the CPU model. Version
// 0.3.21 does not know recent Xeons (e.g. family 6 model 207) and falls back to
// its oldest kernels ("Prescott", SSE3): matrix products run about 4x slower
// (25 instead of 90 GFLOP/s measured here). OpenBLAS reads its choice from the
// environment variable OPENBLAS_CORETYPE only while the library loads, so when
// the fallback happened on a CPU with AVX-512 (or AVX2) we set the variable and
// start the program again, once, with the best family the CPU reports it can
// run (SkylakeX with AVX-512, Haswell with AVX2 + FMA). Set OPENBLAS_CORETYPE
// yourself to override; a value naming kernels this CPU cannot run (SkylakeX on
// an AVX2-only CPU would die with SIGILL) is replaced, with a note on stderr.
#pragma once

namespace tang {

// Call first thing in main(). May replace the process (execv) with itself.
void ensure_fast_blas(char** argv);

// Whether a CPU with (or without) AVX-512 and AVX2 can run the kernels an
// OPENBLAS_CORETYPE value names: the AVX-512 families die with SIGILL on a CPU
// without AVX-512, the AVX2 ones without AVX2; other values are left to OpenBLAS.
bool blas_core_runs_on(const char* core, bool has_avx512, bool has_avx2);

// The OpenBLAS kernel family in use, e.g. "SkylakeX".
const char* blas_core_name();

}  // namespace tang

// threads.hpp (under the hood): how the tuned operations share the cores.
#pragma once

#include <cblas.h>
#include <omp.h>

#include <cstddef>

namespace tang::fast {

// One pool of threads for everything: OpenMP's. Inside a parallel region each
// thread calls single-threaded BLAS on its own share of the work; OpenBLAS's
// own threads would only compete with OpenMP's for the same cores (on 2 cores,
// 4 threads spinning and yielding cost a quarter of a training step).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() : previous_(openblas_get_num_threads()) { openblas_set_num_threads(1); }
  ~SingleThreadedBlas() { openblas_set_num_threads(previous_); }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int previous_;
};

// The calling thread's share [begin, end) of `rows` rows, in a parallel region.
struct RowShare {
  std::size_t begin, end;
  std::size_t size() const { return end - begin; }
};

inline RowShare my_share_of(std::size_t rows) {
  const auto threads = static_cast<std::size_t>(omp_get_num_threads());
  const auto me = static_cast<std::size_t>(omp_get_thread_num());
  return {rows * me / threads, rows * (me + 1) / threads};
}

// Below this many rows a matrix product runs on one thread.
constexpr std::size_t kRowsWorthSplitting = 64;

}  // namespace tang::fast

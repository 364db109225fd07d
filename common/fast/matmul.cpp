// matmul.cpp (under the hood): the linear layer through OpenBLAS, rows split over threads.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "fast/fast.hpp"
#include "fast/threads.hpp"
#include "fast/vector_math.hpp"
#include "ops.hpp"

namespace tang::fast {

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC) {
  if (N == 1) {  // one position (a decoding step): the lesson path's own loop reads the
    // weights faster than cblas_sgemv does (it asks for the next rows ahead); same bits too
    ops::matmul_forward(out, inp, weight, bias, N, IC, OC);
    return;
  }
  if (N <= kFewRows) {  // a batched decoding step: sgemm would pack the whole matrix first
    few_rows_matmul(out, inp, weight, bias, N, IC, OC);
    return;
  }
  blas_matmul(out, inp, weight, bias, N, IC, OC);
}

void blas_matmul(float* out, const float* inp, const float* weight, const float* bias,
                 std::size_t N, std::size_t IC, std::size_t OC) {
  float beta = 0.0f;
  if (bias) {
    for (std::size_t n = 0; n < N; ++n) std::memcpy(out + n * OC, bias, OC * sizeof(float));
    beta = 1.0f;
  }
  const auto ic = static_cast<int>(IC), oc = static_cast<int>(OC);
  // out (N, OC) = inp (N, IC) @ weight^T, each thread its own rows of inp and out
  SingleThreadedBlas one_thread;
#pragma omp parallel if (N >= kRowsWorthSplitting)
  {
    const RowShare rows = my_share_of(N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows.size()), oc, ic,
                1.0f, inp + rows.begin * IC, ic, weight, ic, beta, out + rows.begin * OC, oc);
  }
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::size_t N, std::size_t IC, std::size_t OC) {
  const auto n = static_cast<int>(N), ic = static_cast<int>(IC), oc = static_cast<int>(OC);
  SingleThreadedBlas one_thread;
#pragma omp parallel if (N >= kRowsWorthSplitting)
  {
    // dinp (N, IC) += dout (N, OC) @ weight (OC, IC): each thread its own rows of dinp
    const RowShare rows = my_share_of(N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows.size()), ic, oc,
                1.0f, dout + rows.begin * OC, oc, weight, ic, 1.0f, dinp + rows.begin * IC, ic);
    // dweight (OC, IC) += dout^T (OC, N) @ inp (N, IC): each thread its own rows of dweight
    const RowShare outs = my_share_of(OC);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(outs.size()), ic, n, 1.0f,
                dout + outs.begin, oc, inp, ic, 1.0f, dweight + outs.begin * IC, ic);
  }
  if (dbias) {
    for (std::size_t r = 0; r < N; ++r) {
      for (std::size_t o = 0; o < OC; ++o) dbias[o] += dout[r * OC + o];
    }
  }
}

}  // namespace tang::fast

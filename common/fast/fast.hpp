// fast.hpp: under the hood. The tuned versions of the model's heavy operations.
//
// The lessons run the plain loops of common/ops.hpp. The trainer and the
// benchmarks run these instead: the same results (tests/fast_test.cpp checks
// each pair; sums in another order differ in the last bits), several times
// faster. docs/under-the-hood.md tells what profiling showed and what each
// one bought. What is done differently:
//   matmul     OpenBLAS sgemm; big products split by rows over OpenMP
//              threads, each calling single-threaded BLAS (matmul.cpp); a
//              batched decoding step's few rows in a loop of our own
//              (few_rows_matmul.cpp), one row in the lesson's ops::matmul_forward;
//              and the lesson's own sums, bit for bit, six rows a weight read
//              (exact_matmul.cpp: no faster here, kept for the comparison)
//   attention  the batched training attention as BLAS matrix products, with
//              its backward pass (attention.cpp)
//   layernorm  rows over OpenMP threads
//   gelu       erf/exp 8 or 16 at a time through glibc's vector math
//              (vector_math.hpp), chunks over threads
//   loss       the same vectorised softmax inside the cross-entropy
// and for sampling: top_k_top_p.hpp, and the BLAS kernel choice: blas_cores.hpp.
#pragma once

#include <cstddef>
#include <vector>

#include "gpt.hpp"
#include "tensor.hpp"
#include "tokenizer.hpp"

namespace tang::fast {

// matmul_forward as ops.hpp says; matmul_backward adds dinp (N, IC),
// dweight (OC, IC) and dbias (OC, may be null) for dout (N, OC).
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                    std::size_t N, std::size_t IC, std::size_t OC);
// The same product by OpenBLAS's sgemm alone (rows split over threads when there
// are many), whatever N is: what matmul_forward calls past kFewRows.
void blas_matmul(float* out, const float* inp, const float* weight, const float* bias,
                 std::size_t N, std::size_t IC, std::size_t OC);
// The same product for a batched decoding step's few input rows (N up to
// kFewRows): each weight read once, fused multiply-adds in the widest vectors
// (few_rows_matmul.cpp). matmul_forward calls it for 2 <= N <= kFewRows; for
// N = 1 it calls the lesson's own ops::matmul_forward, which is as fast there.
inline constexpr std::size_t kFewRows = 32;
void few_rows_matmul(float* out, const float* inp, const float* weight, const float* bias,
                     std::size_t N, std::size_t IC, std::size_t OC);
// GELU as ops::gelu_forward, its erf plain arithmetic the compiler runs in the
// widest vectors (vector_gelu.cpp): within 2 units in the last place of std::erf
// over [-10, 10], and a number's result the same in any batch. The serving
// engine's tuned path (poem_server --tuned), beside few_rows_matmul.
void vector_erf(float* out, const float* inp, std::size_t n);
void vector_gelu(float* out, const float* inp, std::size_t n);
// A weight matrix (rows x cols, as the model stores it) copied once into the
// layout of panel_matmul: panels of 16 output channels (one AVX-512 register of
// floats; 8 without AVX-512), each (cols, 16), the last one padded with zeros
// (panel_matmul.cpp).
class PanelMatrix {
 public:
  PanelMatrix(const float* weight, std::size_t rows, std::size_t cols);
  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  std::size_t panels() const { return panels_; }
  const float* data() const { return data_.data(); }

 private:
  std::size_t rows_, cols_, panels_;
  std::vector<float, CacheLineAllocator<float>> data_;  // (panels, cols, 16)
};
// out (N, rows) = inp (N, cols) @ W^T + bias (may be null), for any N: each weight
// read from memory once, every output summed in order of the input channels with
// fused multiply-adds, the same sums whatever N and the other rows are.
void panel_matmul(float* out, const float* inp, const PanelMatrix& w, const float* bias,
                  std::size_t N);
// ops::matmul_forward's own outputs, bit for bit (every output summed in the
// plain loop's lanes and order, no fused multiply-add), with each weight read
// once for six input rows (exact_matmul.cpp). Measured no faster than the plain
// loop on a decoding step here (lesson 11's page): the comparison rows of
// bench_08_many_poems use it.
void exact_matmul(float* out, const float* inp, const float* weight, const float* bias,
                  std::size_t N, std::size_t IC, std::size_t OC);
// A weight matrix (rows x cols) multiplied by exact_matmul: lesson 06's cached
// forward over ModelMatrices<ExactMatrix> gives lesson 06's logits, bit for bit.
struct ExactMatrix {
  const float* weight;
  std::size_t rows, cols;
  void matmul(float* out, const float* inp, const float* bias, std::size_t N) const {
    exact_matmul(out, inp, weight, bias, N, cols, rows);
  }
};
void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::size_t N, std::size_t IC, std::size_t OC);

// Causal attention over B windows of T positions, as ops::attention_forward
// (att may be null), and its backward pass (adds into dqkv (B, T, 3C)).
// Windows shorter than kAttentionThreadsFrom go through the plain loop: for
// our model (4 heads of 32) at B = 1 the threads and BLAS calls cost 6.7 us at
// T = 1 against the loop's 0.15, and first win at T = 32 (21.6 us against 24.8).
inline constexpr std::size_t kAttentionThreadsFrom = 32;
// One query against n cached keys and values, as ops::attend (the same
// arguments): a decoding step's attention, with vector exp and fused
// multiply-adds (cached_attention.cpp).
void attend(float* out, float* weights, const float* q, const float* keys, const float* values,
            std::size_t stride, std::size_t n, std::size_t C, std::size_t NH);
void attention_forward(float* out, float* att, const float* qkv, std::size_t B, std::size_t T,
                       std::size_t C, std::size_t NH);
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att,
                        std::size_t B, std::size_t T, std::size_t C, std::size_t NH);

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::size_t N, std::size_t C);
void gelu_forward(float* out, const float* inp, std::size_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, std::size_t n);
float crossentropy_forward(float* losses, float* probs, const float* logits, const TokenId* targets,
                           std::size_t N, std::size_t V);
void crossentropy_backward(float* dlogits, const float* probs, const TokenId* targets,
                           std::size_t N, std::size_t V);

// The Kernels (gpt.hpp) made of the functions above.
const Kernels& kernels();

}  // namespace tang::fast

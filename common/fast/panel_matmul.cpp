// panel_matmul.cpp (under the hood): a decoding step's product from weights laid
// out for it, in panels of output channels.
//
// few_rows_matmul.cpp reads the model's weight rows as they are stored: each
// output is a dot product, summed in vector lanes that must be added together at
// the end. Here the weights are copied once, when a model is loaded, into panels
// of kPanelLanes output channels: panel p holds, for every input channel k, the
// weights of outputs p*16 .. p*16+15 side by side (16 with AVX-512, 8 without).
// One vector load then gives 16 outputs' weights for input k, and one fused
// multiply-add adds x[k] times them to 16 running sums at once: no lanes to add
// at the end, and each input number is read as a single broadcast float.
//
// A tile is 3 panels (48 outputs) by up to 8 input rows: 24 sums in registers,
// 3 weight loads and 8 broadcasts for 24 multiply-adds. The 3 panels are taken
// 128 input channels at a time (24 KB, which stays in the L1 cache): every tile
// of rows runs over that block before the next, so each weight comes from main
// memory once a step, and the last tile asks for the next block ahead (a
// prefetch) so that it arrives while the cache serves this one. Between blocks
// the running sums wait in memory, unchanged. Each output is x[0]*w[0] +
// x[1]*w[1] + ... in order of k, one fused multiply-add at a time, then its bias:
// the same sums whatever the other rows of the batch are, so a row's result does
// not depend on N (a batch-invariant product, as few_rows_matmul is).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "fast/fast.hpp"
#include "fast/wide.hpp"

namespace tang::fast {

namespace {

#if defined(__AVX512F__)
constexpr std::size_t kRowsAtOnce = 8;  // 24 sums + 3 weights + 1 input of 32 registers
#else
constexpr std::size_t kRowsAtOnce = 4;  // 12 sums + 3 weights + 1 of 16
#endif
constexpr std::size_t kPanelLanes = kWideLanes;  // a panel's outputs: one register
constexpr std::size_t kPanelsAtOnce = 3;
constexpr std::size_t kLineFloats = 64 / sizeof(float);  // one cache line
constexpr std::size_t kChannelsAtOnce = 128;             // a block of 3 panels: 24 KB, in L1

// sum + w * x, rounded once: the fused multiply-add written out, so that every tile
// shape compiles to the same operations (a compiler free to contract a * b + c may
// fuse in one loop and not in another: clang did, and a row's bits then followed N)
Wide fused(Wide sum, Wide w, float x) {
#if defined(__AVX512F__)
  return _mm512_fmadd_ps(w, _mm512_set1_ps(x), sum);
#elif defined(__FMA__)
  return _mm256_fmadd_ps(w, _mm256_set1_ps(x), sum);
#else
  return sum + w * x;  // no FMA: a multiply, then an add (this file never contracts)
#endif
}

// sums (X, V*16) += x (X, k0 .. k1) times the V panels that start at `panels`
// (each sum in order of k, one fused multiply-add at a time); meanwhile asks for
// `ahead` floats of every panel from `next` on, one cache line a panel and channel.
template <std::size_t X, std::size_t V>
void tile(float* sums_out, const float* x, std::size_t IC, const float* panels, std::size_t k0,
          std::size_t k1, const float* next, std::size_t ahead) {
  const std::size_t panel_size = IC * kPanelLanes;
  Wide sums[X][V];
  std::memcpy(sums, sums_out, sizeof sums);
  for (std::size_t k = k0; k < k1; ++k) {
    const std::size_t line = (k - k0) * kLineFloats;
    if (line < ahead) {
      for (std::size_t v = 0; v < V; ++v) __builtin_prefetch(next + v * panel_size + line);
    }
    Wide w[V];
    for (std::size_t v = 0; v < V; ++v) w[v] = load_wide(panels + v * panel_size + k * kPanelLanes);
    for (std::size_t j = 0; j < X; ++j) {
      const float xk = x[j * IC + k];  // broadcast to every lane
      for (std::size_t v = 0; v < V; ++v) sums[j][v] = fused(sums[j][v], w[v], xk);
    }
  }
  std::memcpy(sums_out, sums, sizeof sums);
}

using Tile = void (*)(float*, const float*, std::size_t, const float*, std::size_t, std::size_t,
                      const float*, std::size_t);

// kTiles[V - 1][X - 1] = tile<X, V>
template <std::size_t V, std::size_t... X>
constexpr std::array<Tile, sizeof...(X)> tiles_of_width(std::index_sequence<X...>) {
  return {&tile<X + 1, V>...};
}
constexpr std::array<std::array<Tile, kRowsAtOnce>, kPanelsAtOnce> kTiles = {
    tiles_of_width<1>(std::make_index_sequence<kRowsAtOnce>{}),
    tiles_of_width<2>(std::make_index_sequence<kRowsAtOnce>{}),
    tiles_of_width<3>(std::make_index_sequence<kRowsAtOnce>{})};

}  // namespace

PanelMatrix::PanelMatrix(const float* weight, std::size_t rows, std::size_t cols)
    : rows_(rows),
      cols_(cols),
      panels_((rows + kPanelLanes - 1) / kPanelLanes),
      data_(panels_ * kPanelLanes * cols, 0.0f) {
  for (std::size_t o = 0; o < rows; ++o) {
    float* panel = data_.data() + (o / kPanelLanes) * cols * kPanelLanes;
    for (std::size_t k = 0; k < cols; ++k)
      panel[k * kPanelLanes + o % kPanelLanes] = weight[o * cols + k];
  }
}

void panel_matmul(float* out, const float* inp, const PanelMatrix& w, const float* bias,
                  std::size_t N) {
  const std::size_t IC = w.cols(), OC = w.rows(), panel_size = IC * kPanelLanes;
  thread_local std::vector<float> sums;  // (N, 3 panels): every row's running sums
  sums.resize(N * kPanelsAtOnce * kPanelLanes);
  for (std::size_t p = 0; p < w.panels(); p += kPanelsAtOnce) {  // 48 outputs at a time
    const std::size_t V = std::min(kPanelsAtOnce, w.panels() - p), width = V * kPanelLanes;
    const float* panels = w.data() + p * panel_size;
    std::fill(sums.begin(), sums.begin() + long(N * width), 0.0f);
    for (std::size_t k0 = 0; k0 < IC; k0 += kChannelsAtOnce) {
      const std::size_t k1 = std::min(IC, k0 + kChannelsAtOnce);
      // the next block of channels (or the next panels' first), asked for during the
      // last tile of rows: it comes from memory while the cache serves this block
      const bool more = k1 < IC;
      const float* next = more ? panels + k1 * kPanelLanes : panels + V * panel_size;
      const std::size_t next_panels = more ? V : std::min(kPanelsAtOnce, w.panels() - p - V);
      const std::size_t ahead =
          next_panels == V ? std::min(kChannelsAtOnce, IC - (more ? k1 : 0)) * kPanelLanes : 0;
      for (std::size_t n = 0; n < N; n += kRowsAtOnce) {
        const std::size_t X = std::min(kRowsAtOnce, N - n);
        const bool last = n + X == N;
        kTiles[V - 1][X - 1](sums.data() + n * width, inp + n * IC, IC, panels, k0, k1, next,
                             last ? ahead : 0);
      }
    }
    const std::size_t o = p * kPanelLanes, valid = std::min(width, OC - o);
    for (std::size_t n = 0; n < N; ++n) {
      float* row = out + n * OC + o;
      const float* s = sums.data() + n * width;
      for (std::size_t c = 0; c < valid; ++c) row[c] = bias ? s[c] + bias[o + c] : s[c];
    }
  }
}

}  // namespace tang::fast

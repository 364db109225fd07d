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
// 3 weight loads and 8 broadcasts for 24 multiply-adds. Every row's tiles run
// while the 3 panels are still in the cache, so each weight comes from main
// memory once a step. Each output is x[0]*w[0] + x[1]*w[1] + ... in order of k,
// one fused multiply-add at a time, then its bias: the same sums whatever the
// other rows of the batch are, so a row's result does not depend on N (a
// batch-invariant product, as few_rows_matmul is).
#include <array>
#include <cstring>
#include <utility>

#include "fast/fast.hpp"
#include "ops.hpp"

namespace tang::fast {

namespace {

#if defined(__AVX512F__)
using Wide = float __attribute__((vector_size(64)));  // 16 floats, one zmm register
constexpr std::size_t kRowsAtOnce = 8;  // 24 sums + 3 weights + 1 input of 32 registers
#else
using Wide = float __attribute__((vector_size(32)));  // 8 floats, one ymm register
constexpr std::size_t kRowsAtOnce = 4;                // 12 sums + 3 weights + 1 of 16
#endif
static_assert(sizeof(Wide) == kPanelLanes * sizeof(float));
constexpr std::size_t kPanelsAtOnce = 3;

Wide load(const float* p) {
  Wide v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// out (X, OC) columns o .. o + V*16 (of which `valid` exist) = x (X, IC) times
// the V panels that start at `panels`.
template <std::size_t X, std::size_t V>
void tile(float* out, std::size_t OC, const float* x, std::size_t IC, const float* panels,
          std::size_t o, std::size_t valid) {
  const std::size_t panel_size = IC * kPanelLanes;
  Wide sums[X][V] = {};
  for (std::size_t k = 0; k < IC; ++k) {
    Wide w[V];
    for (std::size_t v = 0; v < V; ++v) w[v] = load(panels + v * panel_size + k * kPanelLanes);
    for (std::size_t j = 0; j < X; ++j) {
      const float xk = x[j * IC + k];                               // broadcast to every lane
      for (std::size_t v = 0; v < V; ++v) sums[j][v] += w[v] * xk;  // one FMA
    }
  }
  for (std::size_t j = 0; j < X; ++j) {
    float* row = out + j * OC + o;
    if (valid == V * kPanelLanes) {
      std::memcpy(row, sums[j], sizeof sums[j]);
    } else {  // the matrix's last outputs: the panel's padding is not written
      float all[V * kPanelLanes];
      std::memcpy(all, sums[j], sizeof all);
      std::memcpy(row, all, valid * sizeof(float));
    }
  }
}

using Tile = void (*)(float*, std::size_t, const float*, std::size_t, const float*, std::size_t,
                      std::size_t);

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
  const std::size_t IC = w.cols(), OC = w.rows();
  for (std::size_t p = 0; p < w.panels(); p += kPanelsAtOnce) {  // 48 outputs at a time
    const std::size_t V = std::min(kPanelsAtOnce, w.panels() - p);
    const std::size_t o = p * kPanelLanes;
    const std::size_t valid = std::min(V * kPanelLanes, OC - o);
    const float* panels = w.data() + p * IC * kPanelLanes;
    for (std::size_t n = 0; n < N; n += kRowsAtOnce) {  // every row while the panels are near
      const std::size_t X = std::min(kRowsAtOnce, N - n);
      kTiles[V - 1][X - 1](out + n * OC, OC, inp + n * IC, IC, panels, o, valid);
    }
  }
  if (bias) {
    for (std::size_t n = 0; n < N; ++n) {
      for (std::size_t k = 0; k < OC; ++k) out[n * OC + k] += bias[k];
    }
  }
}

}  // namespace tang::fast

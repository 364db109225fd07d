// tensor.hpp: the two kinds of arrays the course uses.
//
// Tensor<N> owns its floats (xt::xtensor). View<N> is an xtensor view onto
// floats owned by someone else, e.g. one weight matrix inside the flat
// parameter buffer; writing through it writes the buffer.
#pragma once

#include <array>
#include <cstddef>
#include <new>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

namespace tang {

// Every Tensor's floats start on a 64-byte boundary (a cache line, and one
// AVX-512 register). A vector load that starts elsewhere straddles two cache
// lines, and malloc returns large blocks 16 bytes past a boundary: with the
// weights there, the tuned decoding product (common/fast/few_rows_matmul.cpp)
// ran far slower on a batch of texts. docs/under-the-hood.md has the numbers.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}  // NOLINT: rebinding converts
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
};

template <std::size_t N>
using Tensor = xt::xtensor<float, N, xt::layout_type::row_major, CacheLineAllocator<float>>;

template <std::size_t N>
using View = decltype(xt::adapt(std::declval<float*>(), std::size_t{}, xt::no_ownership(),
                                std::declval<std::array<std::size_t, N>>()));

template <std::size_t N>
View<N> view_of(float* data, std::array<std::size_t, N> shape) {
  std::size_t size = 1;
  for (std::size_t d : shape) size *= d;
  return xt::adapt(static_cast<float*>(data), size, xt::no_ownership(),
                   shape);  // prvalue: the view holds a plain float*
}

}  // namespace tang

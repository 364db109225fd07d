// tensor.hpp: the two kinds of arrays the course uses.
//
// Tensor<N> owns its floats (xt::xtensor). View<N> is an xtensor view onto
// floats owned by someone else, e.g. one weight matrix inside the flat
// parameter buffer; writing through it writes the buffer.
#pragma once

#include <array>
#include <cstddef>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

namespace tang {

template <std::size_t N>
using Tensor = xt::xtensor<float, N>;

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

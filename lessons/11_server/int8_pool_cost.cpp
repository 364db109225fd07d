#include "11_server/int8_pool_cost.hpp"

#include <chrono>
#include <random>
#include <vector>

#include "11_server/block_pool.hpp"
#include "spread.hpp"  // median

namespace tang {

double Int8PoolCost::ms(const StepWork& w, const GPTConfig& config) const {
  if (w.output_rows == 0 || w.rows == 0) return 0.0;
  // Each of B texts adds T rows after its c held positions: keys = sum over
  // texts of T c + T (T + 1) / 2 (06_kvcache/step_cost.cpp's extend_step).
  const double B = double(w.output_rows), T = double(w.rows) / B;
  const double held = (double(w.keys) - B * T * (T + 1) / 2) / T;  // summed over the texts
  const double numbers_per_position = 2.0 * double(config.n_embd * config.n_layer);
  const double rebuilt = held + double(w.rows), stored = double(w.rows);
  return (rebuilt * read_ns + stored * write_ns) * numbers_per_position / 1e6;
}

Int8PoolCost measure_int8_pool_cost(const GPTConfig& config, std::size_t repeats) {
  const std::size_t T = config.block_size, C = config.n_embd, block_size = 16;
  const std::size_t blocks = (T + block_size - 1) / block_size;
  BlockPool pool(config, blocks, block_size, PoolNumbers::kInt8);
  std::vector<BlockId> table;
  for (std::size_t b = 0; b < blocks; ++b) table.push_back(*pool.allocate());
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> rows(T * 3 * C), keys(T * C), values(T * C);  // (T, 3C), (T, C), (T, C)
  for (float& x : rows) x = normal(rng);
  const auto every_layer = [&](auto&& f) {  // ns a number, f run on every layer
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t l = 0; l < config.n_layer; ++l) f(l);
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    return took.count() / double(2 * T * C * config.n_layer);
  };
  std::vector<double> read, write;
  for (std::size_t r = 0; r < repeats; ++r) {
    write.push_back(
        every_layer([&](std::size_t l) { pool.write_rows(l, table, 0, T, rows.data()); }));
    read.push_back(every_layer(
        [&](std::size_t l) { pool.read_rows(l, table, T, keys.data(), values.data()); }));
  }
  return {median(read), median(write)};
}

void add_int8_pool_cost(EngineOptions& options, const Int8PoolCost& cost, const GPTConfig& config) {
  options.predict_ms = [forward = options.predict_ms, cost, config](const StepWork& w) {
    return forward(w) + cost.ms(w, config);
  };
}

}  // namespace tang

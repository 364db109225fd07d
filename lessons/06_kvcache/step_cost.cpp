#include "06_kvcache/step_cost.hpp"

#include <algorithm>

namespace tang {

StepWork window_step(std::size_t k) {
  return {k, 1, k * (k + 1) / 2, 1};  // row t sees keys 0 .. t
}

StepWork cached_step(std::size_t cached) {
  return {1, 1, cached + 1, 1};  // one row, which sees the cache and itself
}

StepWork extend_step(std::size_t rows, std::size_t cached, std::size_t logit_rows,
                     std::size_t draws) {
  return {rows, logit_rows, rows * cached + rows * (rows + 1) / 2,
          draws};  // row t: the cache, 0 .. t
}

StepWork batch_step(std::size_t B, std::size_t cached) {
  return {B, B, B * (cached + 1), B};  // each row sees its own cache and itself
}

double StepCost::matrices_ms() const {
  double ms = 0.0;
  for (const MatrixCost& m : matrices) ms += m.ms();
  return ms;
}

StepCost predict_step(const GPTConfig& cfg, const StepWork& work, const MachineProfile& profile,
                      const std::string& loop, double bytes_per_weight) {
  const std::size_t C = cfg.n_embd, L = cfg.n_layer;
  StepCost cost;
  for (const MatrixTraffic& t : step_matrices(cfg, work.rows, work.output_rows, bytes_per_weight)) {
    cost.matrices.push_back({t});
    cost.weight_bytes += t.bytes;
  }
  cost.gb_per_s = profile.read_gb_per_s_at(cost.weight_bytes);
  for (MatrixCost& m : cost.matrices) {
    m.memory_ms = m.bytes / (cost.gb_per_s * 1e6);  // GB/s = 1e6 bytes per ms
    m.compute_ms = m.flops / (profile.loop_gflops_at(loop, m.cols, m.inputs) * 1e6);
  }
  cost.kv_bytes = kv_bytes_read(cfg, work.keys);
  // per row and layer: GELU over 4C numbers, two LayerNorms over C; then ln_f
  const double rows = static_cast<double>(work.rows);
  cost.pointwise_ms = rows * static_cast<double>(L * C) *
                          (4.0 * profile.gelu_ns + 2.0 * profile.layernorm_ns) * 1e-6 +
                      rows * static_cast<double>(C) * profile.layernorm_ns * 1e-6;
  cost.attention_ms = static_cast<double>(work.keys * C * L) * profile.attention_ns * 1e-6;
  cost.sampling_ms = static_cast<double>(work.draws * cfg.vocab_size) * profile.sampling_ns * 1e-6;
  return cost;
}

StepCost predict_plain_step(const GPTConfig& config, const StepWork& work,
                            const MachineProfile& profile) {
  return predict_step(config, work, profile, kPlainFp32Loop, 4.0);
}

double predict_steps_ms(const GPTConfig& config, const std::vector<StepWork>& steps,
                        const MachineProfile& profile, const std::string& loop,
                        double bytes_per_weight) {
  double ms = 0.0;
  for (const StepWork& work : steps)
    ms += predict_step(config, work, profile, loop, bytes_per_weight).total_ms();
  return ms;
}

double predict_writing_ms(const GPTConfig& cfg, const MachineProfile& profile, std::size_t n,
                          bool use_cache) {
  double ms = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {  // step i reads a text of i characters
    const std::size_t k = std::min(i, cfg.block_size);
    const bool rebuilt = i > cfg.block_size;  // the window slid: the cache starts over
    const StepWork work = use_cache && !rebuilt ? cached_step(i - 1) : window_step(k);
    ms += predict_plain_step(cfg, work, profile).total_ms();
  }
  return ms;
}

}  // namespace tang

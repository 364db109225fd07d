#include "10_cache_size/variant_step_cost.hpp"

namespace tang {

double VariantStepCost::matrices_ms() const {
  double ms = 0.0;
  for (const MatrixCost& m : matrices) ms += m.ms();
  return ms;
}

VariantStepCost predict_variant_step(const GPTConfig& cfg, std::size_t B, std::size_t cached,
                                     const MachineProfile& profile, bool draws) {
  const std::size_t C = cfg.n_embd, L = cfg.n_layer, NH = cfg.n_head;
  StepWork work = batch_step(B, cached);
  if (!draws) work.draws = 0;
  // lesson 06's prediction of a multi-head model of this shape, then what the variant changes
  const StepCost base = predict_step(cfg, work, profile, kPlainFp32Loop, 4.0);
  VariantStepCost cost;
  cost.pointwise_ms = base.pointwise_ms;
  cost.sampling_ms = base.sampling_ms;
  for (const MatrixCost& m : base.matrices) {
    MatrixTraffic t = m;
    if (t.name == "qkv") t.rows = cfg.proj_width();  // queries and what the cache keeps
    cost.matrices.push_back({t});
  }
  if (cfg.attention() == Attention::kLatent)  // absorbed: each row's query in, its output out
    cost.matrices.push_back({{"kv_up", 2 * C, cfg.kv_latent, L, B}});
  for (MatrixCost& m : cost.matrices) {
    const double weights = static_cast<double>(m.rows * m.cols * m.count);
    m.bytes = 4.0 * weights;
    m.flops = 2.0 * weights * static_cast<double>(m.inputs);
    cost.weight_bytes += m.bytes;
  }
  const double keys = static_cast<double>(work.keys);  // summed over the texts
  cost.cache_bytes = keys * static_cast<double>(cfg.cache_width() * L) * 4.0;
  cost.gb_per_s = profile.read_gb_per_s_at(cost.weight_bytes + cost.cache_bytes);
  for (MatrixCost& m : cost.matrices) {
    m.memory_ms = m.bytes / (cost.gb_per_s * 1e6);  // GB/s = 1e6 bytes per ms
    m.compute_ms = m.flops / (profile.loop_gflops_at(kPlainFp32Loop, m.cols, m.inputs) * 1e6);
  }
  // every query head scores each key and adds its value: HS channels a head, or d_c
  const double channels = cfg.attention() == Attention::kLatent
                              ? static_cast<double>(NH * cfg.kv_latent)
                              : static_cast<double>(C);
  cost.attention_compute_ms =
      keys * channels * static_cast<double>(L) * profile.attention_ns * 1e-6;
  cost.cache_read_ms = cost.cache_bytes / (cost.gb_per_s * 1e6);
  return cost;
}

}  // namespace tang

// A job's parallel split beyond the pipeline's layers: its rank layout, micro-batch default, context-parallel
// and sharding checks; the names of the attention, rank-order, checkpoint and communication-group settings;
// and a model shape's own checks.
#include <fmt/format.h>

#include <algorithm>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

const char* to_string(Attention a) noexcept {
  return a == Attention::eager ? "eager" : a == Attention::flash2 ? "flash2" : "fused";
}

bool parse_attention(std::string_view name, Attention& out) noexcept {
  for (const auto a : {Attention::fused, Attention::flash2, Attention::eager})
    if (name == to_string(a)) {
      out = a;
      return true;
    }
  return false;
}

const char* to_string(RankOrder o) noexcept {
  return o == RankOrder::tp_cp_pp_dp ? "tp-cp-pp-dp" : "tp-cp-dp-pp";
}

bool parse_rank_order(std::string_view name, RankOrder& out) noexcept {
  for (const auto o : {RankOrder::tp_cp_dp_pp, RankOrder::tp_cp_pp_dp})
    if (name == to_string(o)) {
      out = o;
      return true;
    }
  return false;
}

const char* to_string(CheckpointMode m) noexcept {
  return m == CheckpointMode::async ? "async" : "sync";
}

bool parse_checkpoint_mode(std::string_view name, CheckpointMode& out) noexcept {
  for (const auto m : {CheckpointMode::sync, CheckpointMode::async})
    if (name == to_string(m)) {
      out = m;
      return true;
    }
  return false;
}

const char* to_string(CommGroup g) noexcept {
  switch (g) {
    case CommGroup::tp:
      return "tp";
    case CommGroup::cp:
      return "cp";
    case CommGroup::pp:
      return "pp";
    case CommGroup::dp:
      return "dp";
  }
  return "?";
}

double Parallelism::micro_batch_of(double per_replica) const noexcept {
  if (micro_batch > 0) return std::min<double>(micro_batch, per_replica);
  return pp > 1 ? std::min(1.0, per_replica) : per_replica;
}

RankCoords Parallelism::coords(std::uint32_t r, std::uint32_t dp) const noexcept {
  RankCoords c;
  c.tp = r % tp, r /= tp;
  c.cp = r % cp, r /= cp;
  if (order == RankOrder::tp_cp_dp_pp) {
    c.dp = r % dp, c.pp = r / dp;
  } else {
    c.pp = r % pp, c.dp = r / pp;
  }
  return c;
}

std::uint32_t Parallelism::rank(const RankCoords& c, std::uint32_t dp) const noexcept {
  const std::uint32_t outer = order == RankOrder::tp_cp_dp_pp ? c.dp + dp * c.pp : c.pp + pp * c.dp;
  return c.tp + tp * (c.cp + cp * outer);
}

std::pair<std::string, std::string> Parallelism::split_problem(std::uint32_t seq, std::uint32_t dp) const {
  // Megatron balances the causal mask by giving each context-parallel rank two of 2 cp chunks.
  if (cp > 1 && seq > 0 && seq % (2 * cp) != 0)
    return {"cp",
            fmt::format("cp {} does not divide the {}-token sequence into 2 x {} equal chunks (each GPU "
                        "holds two, balancing the causal mask)",
                        cp, seq, cp)};
  if (fsdp_shard_size > 0) {
    if (zero < 3)
      return {"fsdp_shard_size",
              fmt::format("fsdp_shard_size {} shards ZeRO-3 / FSDP state: it needs zero = 3 (fsdp = true)",
                          fsdp_shard_size)};
    if (dp > 0 && dp % fsdp_shard_size != 0)
      return {"fsdp_shard_size", fmt::format("fsdp_shard_size {} does not divide the data-parallel degree {}",
                                             fsdp_shard_size, dp)};
  }
  return {};
}

std::pair<std::string, std::string> ModelShape::problem() const {
  if (!given()) return {};
  for (const auto& [key, v] : {std::pair{"hidden", hidden}, std::pair{"heads", heads}})
    if (v == 0) return {key, fmt::format("a model given by its shape needs {} (layers {})", key, layers)};
  if (hidden % heads != 0)
    return {"heads", fmt::format("{} heads do not divide hidden {} into equal heads", heads, hidden)};
  if (kv_heads > 0 && (kv_heads > heads || heads % kv_heads != 0))
    return {"kv_heads",
            fmt::format("{} key/value heads do not divide the {} heads into equal groups", kv_heads, heads)};
  if (experts == 0) return {"experts", "must be at least 1"};
  if (top_k == 0 || top_k > experts)
    return {"top_k", fmt::format("top_k {} must be between 1 and the {} experts", top_k, experts)};
  return {};
}

}  // namespace fleetwatt::jobs

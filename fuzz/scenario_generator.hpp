// Whole valid scenarios, generated from what the registries declare: a policy, placement, predictor,
// fabric kind, [failures] and [smoothing] each with their declared parameters (name, type, default) set to
// values pushed toward their edges (0, tiny, huge, negative, NaN, infinities, 2^63, just beside the
// default), inside a frame of modest sizes (a few servers, an hour at most) so that a run is short. Every
// decision is drawn from a Choices: the fuzz target (scenario_generated.cpp) draws them from libFuzzer's
// bytes, the seeded test (tests/runs/scenario_generated_test.cpp) from a seeded generator, so both walk the
// same space. Header-only: the fuzz build has no test libraries and the test build has no fuzz ones.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fleetwatt/core/param_set.hpp"
#include "fleetwatt/jobs/cluster_presets.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/sim/engine/failures_config.hpp"
#include "fleetwatt/sim/fleet/smoothing_config.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::fuzz {

/// Where the generator's decisions come from.
class Choices {
 public:
  virtual ~Choices() = default;
  /// A number in [0, n); n >= 1.
  virtual std::uint32_t below(std::uint32_t n) = 0;
  /// How often a value is pushed to an edge: one time in this many (set per scenario by the generator, so
  /// that some scenarios hold one edge value and run, others many and are refused).
  std::uint32_t edge_one_in = 4;
  /// True one time in `one_in`; a 0 decision is false (an optional part left out).
  bool chance(std::uint32_t one_in) { return below(one_in) == one_in - 1; }
  template <class T>
  const T& pick(const std::vector<T>& from) {
    return from[below(static_cast<std::uint32_t>(from.size()))];
  }
};

/// Decisions from a seed: the normal test suite's walk.
class SeededChoices final : public Choices {
 public:
  explicit SeededChoices(std::uint64_t seed) : rng_(seed) {}
  std::uint32_t below(std::uint32_t n) override {
    return static_cast<std::uint32_t>(std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_));
  }

 private:
  std::mt19937_64 rng_;
};

/// Decisions from a fuzzer's bytes, two at a time; once they run out every decision is 0 (the first
/// option: mostly a default), so short inputs make plain scenarios and libFuzzer's mutations move one
/// decision at a time.
class ByteChoices final : public Choices {
 public:
  ByteChoices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint32_t below(std::uint32_t n) override {
    std::uint32_t v = 0;
    for (int i = 0; i < 2; ++i) v = (v << 8) | (at_ < size_ ? data_[at_++] : 0U);
    return v % n;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

namespace generator_detail {

/// A double as TOML writes it: nan, inf and -inf are TOML's own spellings; whole numbers keep a ".0" so
/// that they stay floats.
inline std::string toml_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// A number pushed toward an edge of its range, or a value near `d` (its default or a sane value).
inline double edge_number(Choices& c, double d) {
  const double inf = std::numeric_limits<double>::infinity();
  if (!c.chance(c.edge_one_in)) return d;
  switch (c.below(20)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
      return d;
    case 5:
      return 0.0;
    case 6:
      return 1e-9;
    case 7:
      return 1e300;
    case 8:
      return -1e300;
    case 9:
      return std::nan("");
    case 10:
      return inf;
    case 11:
      return -inf;
    case 12:
      return 9223372036854775808.0;  // 2^63: one past int64
    case 13:
      return -1.0;
    case 14:
      return d * 2.0;
    case 15:
      return d / 2.0;
    case 16:
      return std::nextafter(d, inf);  // just above
    case 17:
      return std::nextafter(d, -inf);  // just below
    case 18:
      return 1e6;
    default:
      return 4294967296.0;  // 2^32: one past uint32
  }
}

inline std::int64_t edge_integer(Choices& c, std::int64_t d) {
  if (!c.chance(c.edge_one_in)) return d;
  switch (c.below(12)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return d;
    case 4:
      return 0;
    case 5:
      return 1;
    case 6:
      return -1;
    case 7:
      return d + 1;
    case 8:
      return d > std::numeric_limits<std::int64_t>::lowest() ? d - 1 : d;
    case 9:
      return 4294967296LL;
    case 10:
      return std::numeric_limits<std::int64_t>::max();
    default:
      return std::numeric_limits<std::int64_t>::lowest();
  }
}

/// One declared parameter as a TOML value, or "" to leave it out (its default).
inline std::string param_value(Choices& c, const core::ParamSpec& p) {
  if (!p.required() && c.below(3) != 0) return "";
  switch (p.type) {
    case core::ParamType::boolean:
      return c.chance(2) ? "true" : "false";
    case core::ParamType::integer: {
      const auto* d = std::get_if<std::int64_t>(&p.value);
      return std::to_string(edge_integer(c, d != nullptr ? *d : 1));
    }
    case core::ParamType::number: {
      const auto* d = std::get_if<double>(&p.value);
      const auto* i = std::get_if<std::int64_t>(&p.value);
      return toml_double(edge_number(c, d != nullptr ? *d : i != nullptr ? static_cast<double>(*i) : 1.0));
    }
    case core::ParamType::string: {
      const auto* d = std::get_if<std::string>(&p.value);
      if (d != nullptr && !c.chance(c.edge_one_in)) return fmt::format("\"{}\"", *d);
      return c.chance(2) ? "\"\"" : "\"no-such-value\"";
    }
    case core::ParamType::numbers: {
      switch (c.below(4)) {
        case 0:
          return "[]";
        case 1:
          return fmt::format("[{}]", toml_double(edge_number(c, 1.0)));
        case 2:
          return "[0.0, 0.5, 1.0]";
        default:
          return fmt::format("[{}, {}]", toml_double(edge_number(c, 10.0)),
                             toml_double(edge_number(c, 100.0)));
      }
    }
  }
  return "";
}

/// The declared parameters of one component as `key = value` lines.
inline std::string param_lines(Choices& c, const core::ParamSpecs& specs) {
  std::string out;
  for (const auto& p : specs)
    if (const std::string v = param_value(c, p); !v.empty()) out += fmt::format("{} = {}\n", p.name, v);
  return out;
}

/// A frame value: mostly a sane one, sometimes an edge.
inline std::string frame_number(Choices& c, const std::vector<double>& sane) {
  const double v = c.pick(sane);
  return toml_double(c.chance(4) ? edge_number(c, v) : v);
}

/// Components that need a file the generator does not write (the sr predictor's model, the carbon
/// policy's [grid.carbon] signal): picked rarely, so that most scenarios get past the loader.
inline bool needs_a_file(const std::string& name) {
  return name == "sr" || name == "carbon";
}

/// A registry entry; one needing a file is drawn again, except one time in 16.
template <class Entry>
const Entry& pick_entry(Choices& c, const std::vector<Entry>& entries) {
  const Entry* e = &entries[c.below(static_cast<std::uint32_t>(entries.size()))];
  if (needs_a_file(e->name) && !c.chance(16))
    e = &entries[c.below(static_cast<std::uint32_t>(entries.size()))];
  return *e;
}

}  // namespace generator_detail

/// One scenario's TOML text, every decision drawn from `c`.
inline std::string generate_scenario(Choices& c) {
  using namespace generator_detail;
  c.edge_one_in = c.pick(std::vector<std::uint32_t>{16, 4, 64, 2});
  std::string s = fmt::format("seed = {}\n", c.below(1000));

  // [fleet]: a few servers of one preset.
  std::vector<std::string> gpus;
  for (const auto& g : models::gpu_presets())
    if (gpus.size() < 8) gpus.push_back(g.id);
  s += fmt::format("[fleet]\nnodes = {}\ngpus_per_node = {}\ngpu = \"{}\"\n", 1 + c.below(6),
                   c.pick(std::vector<int>{1, 2, 4, 8}), c.pick(gpus));
  if (c.chance(3)) s += fmt::format("node_base_w = {}\n", frame_number(c, {0.0, 300.0, 2000.0}));
  if (c.chance(4)) s += fmt::format("gpu_idle_w = {}\n", frame_number(c, {0.0, 50.0}));
  if (c.chance(4)) s += fmt::format("node_load_w_per_gpu_w = {}\n", frame_number(c, {0.0, 0.2, 10.0}));

  s += fmt::format("[facility]\npue = {}\ncarbon_kg_per_kwh = {}\n", frame_number(c, {1.0, 1.2, 5.0}),
                   frame_number(c, {0.0, 0.4, 10.0}));
  // A battery with the keys its mode needs; a peak_shave one gets its [grid] import limit below.
  const bool battery = c.chance(5);
  const std::string battery_mode = c.pick(std::vector<std::string>{"peak_shave", "ramp_limit", "carbon"});
  if (battery) {
    s += fmt::format("[[facility.battery]]\nenergy_kwh = {}\npower_kw = {}\nmode = \"{}\"\n",
                     frame_number(c, {1.0, 50.0}), frame_number(c, {1.0, 20.0}), battery_mode);
    if (battery_mode == "ramp_limit")
      s += fmt::format("ramp_limit_kw_per_min = {}\n", frame_number(c, {5.0, 0.5}));
    if (battery_mode == "carbon")
      s += fmt::format("charge_below_g_per_kwh = {}\ndischarge_above_g_per_kwh = {}\n",
                       frame_number(c, {200.0}), frame_number(c, {400.0}));
  }

  // [predictor]: a registered kind with its declared parameters.
  const auto predictors = models::PredictorRegistry::with_builtins();
  const auto& predictor = pick_entry(c, predictors.entries());
  s += fmt::format("[predictor]\nkind = \"{}\"\nband = \"{}\"\n", predictor.name,
                   c.pick(std::vector<std::string>{"mid", "low", "high"}));
  s += param_lines(c, predictor.params);

  // [scheduler]: a policy and a placement, each with its declared parameters in its own table.
  const auto& policy = pick_entry(c, sim::scheduler_entries().entries());
  const auto& placement = pick_entry(c, sim::placement_entries().entries());
  // The placement's keys sit in [scheduler] itself, the policy's in [scheduler.NAME].
  s += fmt::format("[scheduler]\npolicy = \"{}\"\nplacement = \"{}\"\n", policy.name, placement.name);
  s += param_lines(c, placement.params);
  if (const std::string lines = param_lines(c, policy.params); !lines.empty())
    s += fmt::format("[scheduler.{}]\n{}", policy.name, lines);

  // [topology]: sometimes, a registered fabric kind.
  if (c.chance(3)) {
    const auto& kinds = topologies::fabric_kinds().entries();
    const auto& kind = pick_entry(c, kinds);
    s += fmt::format("[topology]\nkind = \"{}\"\n", kind.name);
    s += param_lines(c, kind.params);
  }

  // [workload]: at most an hour, a short warm-up, a handful of jobs.
  // Edges of the frame too, one time in 8: a horizon of a millisecond, a periodic warm-up (its window
  // repeated), an interval at the 1 ms floor and below it.
  const bool frame_edge = c.chance(8);
  const double horizon = frame_edge ? c.pick(std::vector<double>{1e-3, 1.0, 1e-9})
                                    : c.pick(std::vector<double>{600.0, 60.0, 3600.0, 1800.0});
  s += fmt::format("[workload]\nhorizon_s = {}\n", toml_double(horizon));
  if (c.chance(6)) s += "warmup_arrivals = \"periodic\"\n";
  if (c.below(4) != 0)
    s += fmt::format("warmup_s = {}\n", toml_double(c.pick(std::vector<double>{0.0, 300.0})));
  switch (c.below(3)) {
    case 0: {
      s += fmt::format("[workload.generator]\nrate_per_hour = {}\n", frame_number(c, {30.0, 5.0, 120.0}));
      if (c.chance(3)) s += fmt::format("diurnal_amplitude = {}\n", frame_number(c, {0.0, 0.5, 1.0}));
      const std::uint32_t mixes = 1 + c.below(2);
      for (std::uint32_t m = 0; m < mixes; ++m)
        s += fmt::format(
            "[[workload.generator.mix]]\nclass = \"{}\"\nn_gpus = [{}]\nepochs = [1, {}]\ndataset_samples = "
            "[{}, {}]\n",
            c.pick(std::vector<std::string>{"vit", "bert"}),
            c.pick(std::vector<std::string>{"1", "1, 2", "1, 4, 8"}), 1 + c.below(3), 1000 + c.below(4000),
            5000 + c.below(20000));
      break;
    }
    case 1: {
      const std::uint32_t jobs = 1 + c.below(4);
      for (std::uint32_t j = 0; j < jobs; ++j) {
        s += fmt::format("[[workload.jobs]]\nsubmit_s = {}\nn_gpus = {}\nepochs = {}\n",
                         toml_double(c.below(std::max(1U, static_cast<std::uint32_t>(horizon)))),
                         1 + c.below(4), c.chance(16) ? 4294967295U : 1 + c.below(3));
        if (c.chance(2))
          s += fmt::format("class = \"{}\"\ndataset_samples = {}\n",
                           c.pick(std::vector<std::string>{"vit", "bert"}),
                           frame_number(c, {2000.0, 20000.0}));
        else
          s += fmt::format("peak_w = {}\npeak_s = {}\nvalley_w = {}\nvalley_s = {}\n",
                           frame_number(c, {250.0, 100.0}), frame_number(c, {30.0, 5.0}),
                           frame_number(c, {80.0, 60.0}), frame_number(c, {5.0, 1.0}));
      }
      break;
    }
    default: {
      std::vector<std::string> clusters;
      for (const auto& p : jobs::cluster_presets()) clusters.push_back(p.name);
      s += fmt::format("[workload.preset]\ncluster = \"{}\"\nrate_per_hour = {}\n", c.pick(clusters),
                       frame_number(c, {10.0, 60.0}));
      break;
    }
  }

  if (c.chance(4) || (battery && battery_mode == "peak_shave")) {
    s += fmt::format("[grid]\nimport_limit_kw = {}\n", frame_number(c, {10.0, 100.0}));
    if (c.chance(2)) s += "system_peak_hours = [0, 17]\n";
    if (c.chance(2))
      s += fmt::format("[[grid.event]]\nat_s = {}\nduration_s = {}\nkind = \"{}\"\n",
                       toml_double(c.below(std::max(1U, static_cast<std::uint32_t>(horizon)))),
                       frame_number(c, {0.01, 5.0, 60.0}), c.pick(std::vector<std::string>{"dip", "fault"}));
  }
  if (c.chance(4)) s += "[failures]\n" + param_lines(c, sim::failure_params());
  if (c.chance(4)) s += "[smoothing]\n" + param_lines(c, sim::smoothing_params());

  s += fmt::format("[output]\nfacility_interval_s = {}\nnode_interval_s = {}\n",
                   toml_double(frame_edge ? c.pick(std::vector<double>{1e-3, 1e-6, 0.01})
                                          : c.pick(std::vector<double>{1.0, 10.0, 0.5, 60.0})),
                   toml_double(c.pick(std::vector<double>{10.0, 60.0})));
  return s;
}

}  // namespace fleetwatt::fuzz

// An LLM service given by its model's shape instead of a zoo name (a scenario service's shape keys,
// ServeRequest::model_shape): a shape equal to a zoo decoder's serves exactly as the zoo model does, through
// serve and through a scenario; a shape that does not fit, a shape without layers, a shape beside a zoo name
// are each one located error.
#include <catch2/catch.hpp>

#include <string>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/service_request.hpp"
#include "fleetwatt/runs/service_series.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"
#include "scenario_test_support.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

namespace {

std::string trace_path() {
  return (test::source_dir() / "examples" / "requests" / "chat-minute.csv").string();
}

/// Llama 3 8B's published shape, written out (the Llama 3 Herd of Models report, table 3: 32 layers, model
/// width 4096, 32 attention heads, 8 key/value heads, FFN width 14336, vocabulary 128,000 + 256 special
/// tokens; a SwiGLU feed-forward), not read from the zoo.
jobs::ModelShape llama3_8b_shape() {
  jobs::ModelShape s;
  s.layers = 32, s.hidden = 4096, s.heads = 32, s.kv_heads = 8, s.ffn_hidden = 14336, s.vocab = 128256;
  return s;
}

/// The same shape as a service table's keys.
const std::string kShapeKeys =
    "layers = 32\nhidden = 4096\nheads = 32\nkv_heads = 8\nffn_hidden = 14336\nvocab = 128256\n";

/// One server of 8 H100s serving the chat trace at 20 requests/s; `model_keys` say which model (line 9 on).
std::string serving(const std::string& model_keys, const std::string& more = "") {
  return "[fleet]\nnodes = 1\ngpus_per_node = 8\ngpu = \"h100-sxm\"\n[workload]\nhorizon_s = 120\n"
         "[[workload.service]]\nname = \"chat\"\n" +
         model_keys + "trace = \"" + trace_path() + "\"\narrival_rate_per_s = 20\n" + more;
}

}  // namespace

TEST_CASE("a service given by Llama 3 8B's shape serves as the zoo's llama3_8b", "[service][shape]") {
  runs::ServeRequest zoo;
  zoo.trace = trace_path();
  zoo.model = "llama3_8b";
  zoo.gpu = "h100-sxm";
  zoo.replicas = 2;
  zoo.max_batch = 8;
  runs::ServeRequest shaped = zoo;
  shaped.model.clear();
  shaped.model_shape = llama3_8b_shape();
  const sim::ServiceConfig a = runs::service_config(zoo), b = runs::service_config(shaped);
  // The replica's model: every count the serving iteration and the KV cache read.
  const models::ModelCount &m = a.replica.model, &n = b.replica.model;
  CHECK(n.name == "custom");
  CHECK(n.params == m.params);
  CHECK(n.params == 8030261248.0);  // the model card's exact count
  CHECK(n.active_params == m.active_params);
  CHECK(n.blocks == m.blocks);
  CHECK(n.d_model == m.d_model);
  CHECK(n.d_attention == m.d_attention);
  CHECK(n.heads == m.heads);
  CHECK(n.kv_heads == m.kv_heads);
  CHECK(n.d_ff == m.d_ff);
  CHECK(n.ffn_in_matrices == m.ffn_in_matrices);
  CHECK(n.experts == m.experts);
  CHECK(n.top_k == m.top_k);
  CHECK(n.vocab == m.vocab);
  CHECK(sim::kv_capacity_tokens(b) == sim::kv_capacity_tokens(a));
  CHECK(runs::shortest_iteration_s(b) == runs::shortest_iteration_s(a));
  // The served trace, request by request (exact mode) and by interval (fleet mode): the same summary.
  for (const char* mode : {"exact", "fleet"}) {
    INFO(mode);
    zoo.mode = shaped.mode = mode;
    const runs::ServedTrace x = runs::serve(zoo), y = runs::serve(shaped);
    CHECK(y.summary.requests == x.summary.requests);
    CHECK(y.summary.energy_J == x.summary.energy_J);
    CHECK(y.summary.ttft_p50_s == x.summary.ttft_p50_s);
    CHECK(y.summary.tpot_p99_s == x.summary.tpot_p99_s);
    CHECK(y.summary.iterations == x.summary.iterations);
    CHECK(y.summary.kv_capacity_tokens == x.summary.kv_capacity_tokens);
    CHECK(y.run.power_W == x.run.power_W);
    CHECK(x.summary.energy_J > 0.0);
  }
  // The summary names the shaped model by its name, depth and width.
  CHECK(runs::model_label(shaped) == "custom (32 layers, hidden 4096)");
  shaped.model = "my8b";
  CHECK(runs::model_label(shaped) == "my8b (32 layers, hidden 4096)");
  CHECK(runs::service_config(shaped).replica.model.name == "my8b");
}

TEST_CASE("a scenario service given by a zoo model's shape is the zoo model's service", "[service][shape]") {
  const auto zoo = runs::prepare_run(runs::parse_scenario(serving("model = \"llama3_8b\"\n"), "s.toml"));
  const auto shaped = runs::prepare_run(runs::parse_scenario(serving(kShapeKeys), "s.toml"));
  REQUIRE(zoo.services.size() == 1);
  REQUIRE(shaped.services.size() == 1);
  const results::ServiceRecord &a = zoo.services[0].record, &b = shaped.services[0].record;
  CHECK(b.model == "custom");
  CHECK(a.model == "llama3_8b");
  CHECK(b.replicas == a.replicas);
  CHECK(b.gpus == 8);
  CHECK(b.energy_J == a.energy_J);
  CHECK(b.power_W == a.power_W);
  CHECK(b.requests_served == a.requests_served);
  CHECK(b.output_tokens == a.output_tokens);
  CHECK(b.latency.ttft_p50_s == a.latency.ttft_p50_s);
  CHECK(b.latency.tpot_p99_s == a.latency.tpot_p99_s);
  CHECK(a.requests_served > 0);
  CHECK(sim::kv_capacity_tokens(shaped.services[0].config) ==
        sim::kv_capacity_tokens(zoo.services[0].config));
  // A name of its own beside the shape names the record.
  const auto named =
      runs::prepare_run(runs::parse_scenario(serving("model = \"my8b\"\n" + kShapeKeys), "s.toml"));
  CHECK(named.services[0].record.model == "my8b");
  CHECK(named.services[0].record.energy_J == a.energy_J);
}

TEST_CASE("a shape whose weights do not fit the GPUs is refused at the shape", "[service][shape]") {
  // Llama 3 70B's shape (report table 3): 141 GB of 16-bit weights on one 80 GB H100.
  runs::ServeRequest o;
  o.trace = trace_path();
  o.gpu = "h100-sxm";
  o.model_shape = llama3_8b_shape();
  o.model_shape.layers = 80, o.model_shape.hidden = 8192, o.model_shape.heads = 64,
  o.model_shape.ffn_hidden = 28672;
  try {
    (void)runs::service_config(o);
    FAIL("no error");
  } catch (const core::ConfigError& e) {
    CHECK(e.field() == "--model-shape");
    CHECK_THAT(e.message(),
               Catch::StartsWith("custom's weights (131.4 GiB in 16 bits) do not fit 1 x h100-sxm"));
  }
  // On four GPUs it fits.
  o.tp = 4;
  CHECK(runs::service_config(o).replica.model.params == 70553706496.0);
  // A scenario's: at its layers key (line 9), when the service is prepared.
  const std::string big =
      "layers = 80\nhidden = 8192\nheads = 64\nkv_heads = 8\nffn_hidden = 28672\nvocab = 128256\ntp = 1\n";
  CHECK_THAT(test::prepare_error_of(serving(big)),
             Catch::StartsWith("bad.toml:9:1: workload.service[0].layers: custom's weights (131.4 GiB in 16 "
                               "bits) do not fit 1 x h100-sxm"));
}

TEST_CASE("a service's shape misuse is one located error", "[service][shape]") {
  // No layers: at the first shape key written (line 9).
  CHECK(test::error_of(serving("hidden = 4096\nheads = 32\n")) ==
        "bad.toml:9:1: workload.service[0].hidden: a model given by its shape needs layers (and hidden, "
        "heads)");
  // A shape that cannot be: at the key that breaks it (heads, line 11).
  CHECK(test::error_of(serving("layers = 32\nhidden = 4096\nheads = 30\n")) ==
        "bad.toml:11:1: workload.service[0].heads: 30 heads do not divide hidden 4096 into equal heads");
  // Neither a model nor a shape: at the service's model key (its table, line 7).
  CHECK_THAT(test::error_of(serving("")),
             Catch::StartsWith("bad.toml:7:1: workload.service[0].model: missing (the LLM the service runs"));
  // A zoo name beside a shape: the zoo fixes that model's shape, so one of them is wrong (model, line 9).
  CHECK(test::prepare_error_of(serving("model = \"llama3_8b\"\n" + kShapeKeys)) ==
        "bad.toml:9:1: workload.service[0].model: 'llama3_8b' is a zoo model, whose shape the zoo fixes: a "
        "model given by its shape takes a name of its own (or none: custom)");
  // The same through serve's request: at the option.
  runs::ServeRequest o;
  o.trace = trace_path();
  o.model = "llama3_8b";
  o.model_shape = llama3_8b_shape();
  CHECK_THROWS_WITH(runs::service_config(o), Catch::Contains("--model: 'llama3_8b' is a zoo model"));
  o.model.clear();
  o.model_shape.kv_heads = 5;
  CHECK_THROWS_WITH(runs::service_config(o),
                    Catch::Contains("--model-shape: kv_heads: 5 key/value heads do not divide the 32 heads"));
  o.model_shape = {};
  CHECK_THROWS_WITH(runs::service_config(o), Catch::Contains("--model: missing: a zoo decoder"));
}

// fleetwatt.serve(): an LLM request trace played on replicas of a model in process, from the same request,
// run and summary as `fleetwatt serve` (runs/service_request.hpp), with keyword names for the command's
// flags.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "fleetwatt/runs/model_shape_text.hpp"
#include "fleetwatt/runs/service_request.hpp"
#include "keywords.hpp"

namespace py = pybind11;

namespace fleetwatt::python {
namespace {

constexpr const char* kOrigin = "serve()";

runs::ServeRequest request_of(const std::string& trace, const py::dict& options) {
  runs::ServeRequest r;
  r.origin = kOrigin;
  r.keyword_names = true;
  r.trace = trace;
  for (const auto& [k, v] : options) {
    const std::string key = py::str(k).cast<std::string>();
    if (v.is_none()) continue;  // as if not given
    if (key == "model")
      r.model = as_text(kOrigin, key, v);
    else if (key == "model_shape")
      r.model_shape = runs::parse_model_shape_text(shape_text(kOrigin, key, v), kOrigin, key);
    else if (key == "gpu")
      r.gpu = as_text(kOrigin, key, v);
    else if (key == "tp")
      r.tp = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "pp")
      r.pp = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "replicas")
      r.replicas = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "max_batch")
      r.max_batch = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "max_batched_tokens")
      r.max_batched_tokens = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "memory_fraction")
      r.memory_fraction = as_number(kOrigin, key, v);
    else if (key == "rate_scale")
      r.rate_scale = as_number(kOrigin, key, v);
    else if (key == "horizon_s")
      r.horizon_s = as_number(kOrigin, key, v);
    else if (key == "interval_s")
      r.interval_s = as_number(kOrigin, key, v);
    else if (key == "generate_rate")
      r.generate_rate = as_number(kOrigin, key, v);
    else if (key == "start_hour")
      r.start_hour = as_number(kOrigin, key, v);
    else if (key == "burstiness")
      r.burstiness = as_number(kOrigin, key, v);
    else if (key == "mode")
      r.mode = as_text(kOrigin, key, v);
    else if (key == "scheduler")
      r.scheduler = as_text(kOrigin, key, v);
    else if (key == "prefill_replicas")
      r.prefill_replicas = as_integer<std::uint32_t>(kOrigin, key, v);
    else if (key == "kv_link_gbytes_per_s")
      r.kv_link_gbytes_per_s = as_number(kOrigin, key, v);
    else if (key == "seed")
      r.seed = as_integer<std::uint64_t>(kOrigin, key, v);
    else if (key == "hourly") {
      if (py::isinstance<py::str>(v)) {
        r.hourly = v.cast<std::string>();
      } else {
        r.hourly.clear();
        for (const auto& x : v.cast<py::sequence>())
          r.hourly += (r.hourly.empty() ? "" : ",") + fmt::format("{}", as_number(kOrigin, key, x));
      }
    } else
      throw keyword_error(
          kOrigin, key,
          "unknown keyword; serve() takes model, model_shape, gpu, tp, pp, replicas, max_batch, "
          "max_batched_tokens, memory_fraction, rate_scale, horizon_s, interval_s, generate_rate, hourly, "
          "start_hour, burstiness, seed, mode, scheduler, prefill_replicas, kv_link_gbytes_per_s");
  }
  return r;
}

}  // namespace

void bind_serve(py::module_& m) {
  m.def(
      "serve_run",
      [](const std::string& trace, const py::dict& options) {
        const runs::ServedTrace s = runs::serve(request_of(trace, options));
        py::dict requests;
        std::vector<double> arrival, first, end;
        std::vector<std::uint32_t> record, replica, input, output;
        for (const auto& r : s.run.requests) {
          record.push_back(r.record), replica.push_back(r.replica), arrival.push_back(r.arrival_s);
          input.push_back(r.input_tokens), output.push_back(r.output_tokens);
          first.push_back(r.first_token_s), end.push_back(r.end_s);
        }
        requests["record"] = record, requests["replica"] = replica, requests["arrival_s"] = arrival;
        requests["input_tokens"] = input, requests["output_tokens"] = output;
        requests["first_token_s"] = first, requests["end_s"] = end;
        return py::make_tuple(runs::summary_json(s.summary), requests, s.run.power_W, s.config.interval_s);
      },
      py::arg("trace"), py::arg("options"),
      "`fleetwatt serve`'s run: (summary JSON, requests as columns, power per interval, interval)");
}

}  // namespace fleetwatt::python

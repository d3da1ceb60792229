// fleetwatt.predict(): one job's prediction in process, from the same request and JSON text as
// `fleetwatt predict --json` (runs/job_prediction.hpp), with keyword names for the command's flags.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>

#include "bindings.hpp"
#include "fleetwatt/runs/job_prediction.hpp"
#include "fleetwatt/runs/scenario.hpp"
#include "keywords.hpp"

namespace py = pybind11;

namespace fleetwatt::python {
namespace {

constexpr const char* kOrigin = "predict()";

jobs::ConfigError keyword_error(const std::string& key, const std::string& message) {
  return python::keyword_error(kOrigin, key, message);
}
std::string as_text(const std::string& key, const py::handle& v) {
  return python::as_text(kOrigin, key, v);
}
double as_number(const std::string& key, const py::handle& v) {
  return python::as_number(kOrigin, key, v);
}
template <typename Int>
Int as_integer(const std::string& key, const py::handle& v) {
  return python::as_integer<Int>(kOrigin, key, v);
}

runs::PredictionRequest request_of(const py::dict& options) {
  runs::PredictionRequest r;
  r.origin = kOrigin;
  r.keyword_names = true;
  for (const auto& [k, v] : options) {
    const std::string key = py::str(k).cast<std::string>();
    if (v.is_none()) continue;  // as if not given
    if (key == "model")
      r.model = as_text(key, v);
    else if (key == "gpu")
      r.gpu = as_text(key, v);
    else if (key == "precision")
      r.precision = as_text(key, v);
    else if (key == "stack")
      r.stack = as_text(key, v);
    else if (key == "predictor")
      r.predictor = as_text(key, v);
    else if (key == "scenario")
      r.scenario = py::str(v).cast<std::string>();  // str or a path
    else if (key == "gpu_file")
      r.gpu_file = py::str(v).cast<std::string>();
    else if (key == "site")
      r.site = py::str(v).cast<std::string>();  // str or a path
    else if (key == "recompute")
      r.recompute = as_text(key, v);
    else if (key == "attention")
      r.attention = as_text(key, v);
    else if (key == "checkpoint")
      r.checkpoint = as_text(key, v);
    else if (key == "rank_order")
      r.rank_order = as_text(key, v);
    else if (key == "model_shape")
      r.model_shape = python::shape_text(kOrigin, key, v);
    else if (key == "tp_comm_overlap") {
      if (!py::isinstance<py::bool_>(v)) throw keyword_error(key, "expects True or False");
      r.tp_comm_overlap = v.cast<bool>();
    } else if (key == "cp")
      r.cp = as_integer<std::uint32_t>(key, v);
    else if (key == "fsdp_shard_size")
      r.fsdp_shard_size = as_integer<std::uint32_t>(key, v);
    else if (key == "job")
      r.job_id = as_integer<std::int64_t>(key, v);
    else if (key == "gpus")
      r.gpus = as_integer<std::uint32_t>(key, v);
    else if (key == "batch")
      r.batch = as_integer<std::uint32_t>(key, v);
    else if (key == "image")
      r.image = as_integer<std::uint32_t>(key, v);
    else if (key == "seq")
      r.seq = as_integer<std::uint32_t>(key, v);
    else if (key == "epochs")
      r.epochs = as_integer<std::uint32_t>(key, v);
    else if (key == "workers")
      r.workers = as_integer<std::uint32_t>(key, v);
    else if (key == "tp")
      r.tp = as_integer<std::uint32_t>(key, v);
    else if (key == "pp")
      r.pp = as_integer<std::uint32_t>(key, v);
    else if (key == "vp")
      r.vp = as_integer<std::uint32_t>(key, v);
    else if (key == "first_stage_layers")
      r.first_stage_layers = as_integer<std::uint32_t>(key, v);
    else if (key == "last_stage_layers")
      r.last_stage_layers = as_integer<std::uint32_t>(key, v);
    else if (key == "ep")
      r.ep = as_integer<std::uint32_t>(key, v);
    else if (key == "zero")
      r.zero = as_integer<std::uint32_t>(key, v);
    else if (key == "micro_batch")
      r.micro_batch = as_integer<std::uint32_t>(key, v);
    else if (key == "samples")
      r.samples = as_number(key, v);
    else if (key == "params")
      r.params = as_number(key, v);
    else if (key == "flops")
      r.flops = as_number(key, v);
    else if (key == "pue")
      r.pue = as_number(key, v);
    else if (key == "power_limit")
      r.power_limit = as_number(key, v);
    else
      throw keyword_error(
          key,
          "unknown keyword; predict() takes model, gpu, gpus, batch, image, seq, samples, "
          "epochs, workers, params, flops, precision, stack, tp, pp, cp, vp, "
          "first_stage_layers, last_stage_layers, ep, zero, fsdp_shard_size, micro_batch, "
          "recompute, attention, checkpoint, rank_order, tp_comm_overlap, model_shape, power_limit, "
          "predictor, "
          "pue, scenario, job, gpu_file, site");
  }
  return r;
}

}  // namespace

void bind_predict(py::module_& m) {
  m.def(
      "predict_json",
      [](const py::dict& options) { return runs::prediction_json(runs::predict_job(request_of(options))); },
      py::arg("options"),
      "`fleetwatt predict --json`'s text for keyword options (fleetwatt.predict wraps it)");
}

}  // namespace fleetwatt::python

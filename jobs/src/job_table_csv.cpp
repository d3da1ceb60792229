// fleetwatt's job table CSV: reader (as a trace format) and writer.
#include "fleetwatt/jobs/job_table_csv.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "fleetwatt/core/time.hpp"
#include "trace_formats.hpp"

namespace fleetwatt::jobs {

const char* to_string(JobStatus s) noexcept {
  switch (s) {
    case JobStatus::unknown:
      return "unknown";
    case JobStatus::completed:
      return "completed";
    case JobStatus::failed:
      return "failed";
    case JobStatus::cancelled:
      return "cancelled";
    case JobStatus::running:
      return "running";
    case JobStatus::pending:
      return "pending";
  }
  return "unknown";
}

namespace {

constexpr std::array<std::pair<std::uint32_t, const char*>, 9> kInferredNames{{
    {inferred::job_class, "job_class"},
    {inferred::model, "model"},
    {inferred::batch_size, "batch_size"},
    {inferred::dataset_samples, "dataset_samples"},
    {inferred::epochs, "epochs"},
    {inferred::precision, "precision"},
    {inferred::n_gpus, "n_gpus"},
    {inferred::status, "status"},
    {inferred::deferrable, "deferrable"},
}};

constexpr std::array<const char*, 5> kPrecisions{"fp32", "tf32", "fp16", "bf16", "fp8"};

std::optional<JobStatus> status_from(std::string_view s) {
  for (auto st : {JobStatus::unknown, JobStatus::completed, JobStatus::failed, JobStatus::cancelled,
                  JobStatus::running, JobStatus::pending})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

}  // namespace

std::string inferred_names(std::uint32_t mask) {
  std::string out;
  for (const auto& [bit, name] : kInferredNames)
    if (mask & bit) {
      if (!out.empty()) out += ',';
      out += name;
    }
  return out;
}

const std::vector<std::string>& job_table_columns() {
  static const std::vector<std::string> columns{"id",
                                                "trace_id",
                                                "submit_s",
                                                "n_gpus",
                                                "gpu_fraction",
                                                "epochs",
                                                "job_class",
                                                "model",
                                                "params",
                                                "flops_per_sample",
                                                "training_flops_per_sample",
                                                "batch_size",
                                                "dataset_samples",
                                                "input_size",
                                                "workers",
                                                "precision",
                                                "stack",
                                                "tp",
                                                "pp",
                                                "cp",
                                                "vp",
                                                "first_stage_layers",
                                                "last_stage_layers",
                                                "ep",
                                                "zero",
                                                "fsdp_shard_size",
                                                "micro_batch",
                                                "recompute",
                                                "peak_W",
                                                "peak_s",
                                                "valley_W",
                                                "valley_s",
                                                "user",
                                                "status",
                                                "recorded_runtime_s",
                                                "recorded_wait_s",
                                                "user_estimate_s",
                                                "limit_s",
                                                "deferrable",
                                                "deadline_s",
                                                "inferred"};
  return columns;
}

namespace {

std::string quote(const std::string& s) {
  return core::csv_quote(s);
}

std::string num(double v) {
  return fmt::format("{}", v);
}
std::string opt(const std::optional<double>& v) {
  return v ? num(*v) : std::string();
}
std::string nz(double v) {
  return v != 0.0 ? num(v) : std::string();
}

}  // namespace

void write_job_table_csv(std::ostream& out, const std::vector<JobSpec>& jobs) {
  const auto& cols = job_table_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << '\n';
  for (const auto& j : jobs) {
    const auto& m = j.meta;
    const bool ph = j.phases.has_value();
    const auto& par = m.parallel;
    // The parallel split is blank at its defaults (plain data parallelism), so ordinary tables stay light.
    const auto count = [](std::uint32_t v, std::uint32_t dflt) {
      return v != dflt ? fmt::format("{}", v) : "";
    };
    const std::array<std::string, 41> f{fmt::format("{}", j.id),
                                        quote(j.trace_id),
                                        num(j.submit_s),
                                        fmt::format("{}", j.n_gpus),
                                        num(j.gpu_fraction),
                                        fmt::format("{}", j.epochs),
                                        quote(j.job_class),
                                        quote(m.model),
                                        nz(m.params),
                                        nz(m.flops_per_sample),
                                        nz(m.training_flops_per_sample),
                                        m.batch_size ? fmt::format("{}", m.batch_size) : "",
                                        nz(m.dataset_samples),
                                        m.input_size ? fmt::format("{}", m.input_size) : "",
                                        m.workers ? fmt::format("{}", m.workers) : "",
                                        kPrecisions[static_cast<std::size_t>(m.precision)],
                                        to_string(m.stack),
                                        count(par.tp, 1),
                                        count(par.pp, 1),
                                        count(par.cp, 1),
                                        count(par.vp, 1),
                                        count(par.first_stage_layers, 0),
                                        count(par.last_stage_layers, 0),
                                        count(par.ep, 1),
                                        count(par.zero, 0),
                                        count(par.fsdp_shard_size, 0),
                                        count(par.micro_batch, 0),
                                        par.recompute != Recompute::none ? to_string(par.recompute) : "",
                                        ph ? num(j.phases->peak_W) : "",
                                        ph ? num(j.phases->peak_s) : "",
                                        ph ? num(j.phases->valley_W) : "",
                                        ph ? num(j.phases->valley_s) : "",
                                        quote(j.user),
                                        to_string(j.status),
                                        opt(j.recorded_runtime_s),
                                        opt(j.recorded_wait_s),
                                        opt(j.user_estimate_s),
                                        opt(j.limit_s),
                                        j.deferrable ? "1" : "0",
                                        opt(j.deadline_s),
                                        quote(inferred_names(j.inferred))};
    for (std::size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << f[i];
    out << '\n';
  }
}

namespace trace_detail {

std::vector<RawJob> parse_job_table(std::istream& in, RecordErrors& errors) {
  HeaderCsv csv(in, errors);
  const auto& known = job_table_columns();
  std::vector<int> col(csv.header().size(), -1);  // header position -> index in `known`
  for (std::size_t i = 0; i < csv.header().size(); ++i) {
    for (std::size_t k = 0; k < known.size(); ++k)
      if (csv.header()[i] == known[k]) col[i] = static_cast<int>(k);
    if (col[i] < 0) {
      std::string list;
      for (const auto& k : known) {
        if (!list.empty()) list += ", ";
        list += k;
      }
      // The column is named only when the first line reads as a header: not a line of an unrelated file.
      const bool header = core::header_for_message(csv.header()).rfind("header has: ", 0) == 0;
      errors.fatal(1, header ? csv.header()[i] : std::string("header"),
                   header
                       ? fmt::format("unknown column (known: {})", list)
                       : fmt::format("{} (known columns: {})", core::header_for_message(csv.header()), list));
    }
  }
  (void)csv.require("submit_s");
  (void)csv.require("n_gpus");
  std::vector<RawJob> jobs;
  std::vector<std::string> f;
  while (csv.next(f)) {
    RawJob job;
    job.line = csv.line();
    JobSpec& s = job.spec;
    bool ok = true;
    bool have_epochs = false, have_phase[4] = {false, false, false, false};
    std::uint32_t given_inferred = 0;
    bool have_inferred = false;
    for (std::size_t i = 0; i < f.size() && ok; ++i) {
      const std::string& v = f[i];
      const std::string& name = known[static_cast<std::size_t>(col[i])];
      const auto column = csv.row().fields[i].column;
      auto bad = [&](const std::string& why) {
        errors.bad(job.line, name, why, column);
        ok = false;
      };
      if (v.empty()) continue;
      auto number = [&](double lo) -> double {
        auto x = core::parse_number(v);
        if (!x)
          bad(fmt::format("'{}' is not a number", v));
        else if (*x < lo)
          bad(fmt::format("{} is below {}", *x, lo));
        // A column in seconds is a time on the engine's clock, bounded as a scenario's own times are.
        else if (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0 &&
                 *x > core::kMaxInputSeconds)
          bad(fmt::format("{} s is beyond the {:.0e} s (31.7 years) a simulated time may span", *x,
                          core::kMaxInputSeconds));
        return x.value_or(0.0);
      };
      auto whole = [&](double lo) -> std::uint32_t {
        auto x = core::parse_integer(v);
        if (!x || *x < lo || *x > 4294967295.0) {
          bad(fmt::format("'{}' is not a whole number >= {}", v, lo));
          return 0;
        }
        return static_cast<std::uint32_t>(*x);
      };
      if (name == "id") {
        auto x = core::parse_integer(v);
        if (!x)
          bad(fmt::format("'{}' is not an integer", v));
        else
          s.id = *x;
      } else if (name == "trace_id")
        s.trace_id = v;
      else if (name == "submit_s")
        s.submit_s = number(0.0);
      else if (name == "n_gpus")
        s.n_gpus = whole(0);
      else if (name == "gpu_fraction") {
        s.gpu_fraction = number(0.0);
        if (ok && (s.gpu_fraction <= 0.0 || s.gpu_fraction > 1.0)) bad("must lie in (0, 1]");
      } else if (name == "epochs") {
        s.epochs = whole(1);
        have_epochs = true;
      } else if (name == "job_class")
        s.job_class = v;
      else if (name == "model")
        s.meta.model = v;
      else if (name == "params")
        s.meta.params = number(0.0);
      else if (name == "flops_per_sample")
        s.meta.flops_per_sample = number(0.0);
      else if (name == "training_flops_per_sample")
        s.meta.training_flops_per_sample = number(0.0);
      else if (name == "batch_size")
        s.meta.batch_size = whole(1);
      else if (name == "dataset_samples")
        s.meta.dataset_samples = number(0.0);
      else if (name == "input_size")
        s.meta.input_size = whole(0);
      else if (name == "workers")
        s.meta.workers = whole(0);
      else if (name == "precision") {
        bool found = false;
        for (std::size_t p = 0; p < kPrecisions.size(); ++p)
          if (v == kPrecisions[p]) {
            s.meta.precision = static_cast<Precision>(p);
            found = true;
          }
        if (!found) bad(fmt::format("unknown precision '{}' (fp32, tf32, fp16, bf16, fp8)", v));
      } else if (name == "stack") {
        if (!parse_software_stack(v, s.meta.stack))
          bad(fmt::format("unknown stack '{}' (eager, amp, compiled, optimized)", v));
      } else if (name == "tp") {
        s.meta.parallel.tp = whole(1);
      } else if (name == "pp") {
        s.meta.parallel.pp = whole(1);
      } else if (name == "cp") {
        s.meta.parallel.cp = whole(1);
      } else if (name == "vp") {
        s.meta.parallel.vp = whole(1);
      } else if (name == "first_stage_layers") {
        s.meta.parallel.first_stage_layers = whole(1);
      } else if (name == "last_stage_layers") {
        s.meta.parallel.last_stage_layers = whole(1);
      } else if (name == "ep") {
        s.meta.parallel.ep = whole(1);
      } else if (name == "zero") {
        s.meta.parallel.zero = whole(0);
        if (ok && s.meta.parallel.zero > 3) bad("must be a ZeRO stage 0..3");
      } else if (name == "fsdp_shard_size") {
        s.meta.parallel.fsdp_shard_size = whole(1);
      } else if (name == "micro_batch") {
        s.meta.parallel.micro_batch = whole(1);
      } else if (name == "recompute") {
        if (!parse_recompute(v, s.meta.parallel.recompute))
          bad(fmt::format("unknown recompute '{}' (none, selective, full)", v));
      } else if (name == "peak_W" || name == "peak_s" || name == "valley_W" || name == "valley_s") {
        if (!s.phases) s.phases = PhaseProfile{};
        s.power_key_suffix = "_W";
        const double x = number(0.0);
        if (name == "peak_W")
          s.phases->peak_W = x, have_phase[0] = true;
        else if (name == "peak_s")
          s.phases->peak_s = x, have_phase[1] = true;
        else if (name == "valley_W")
          s.phases->valley_W = x, have_phase[2] = true;
        else
          s.phases->valley_s = x, have_phase[3] = true;
      } else if (name == "user")
        s.user = v;
      else if (name == "status") {
        if (auto st = status_from(v))
          s.status = *st;
        else
          bad(fmt::format("unknown status '{}' (unknown, completed, failed, cancelled, running, pending)",
                          v));
      } else if (name == "recorded_runtime_s")
        s.recorded_runtime_s = number(0.0);
      else if (name == "recorded_wait_s")
        s.recorded_wait_s = number(0.0);
      else if (name == "user_estimate_s")
        s.user_estimate_s = number(0.0);
      else if (name == "limit_s")
        s.limit_s = number(0.0);
      else if (name == "deferrable") {
        const std::string b = core::lower_case(v);
        if (b == "1" || b == "true")
          s.deferrable = true;
        else if (b == "0" || b == "false")
          s.deferrable = false;
        else
          bad(fmt::format("'{}' is not 0, 1, true or false", v));
      } else if (name == "deadline_s")
        s.deadline_s = number(0.0);
      else if (name == "inferred") {
        have_inferred = true;
        for (const auto& part : core::split_csv(v)) {
          bool found = false;
          for (const auto& [bit, n] : kInferredNames)
            if (part == n) given_inferred |= bit, found = true;
          if (!found && !part.empty()) bad(fmt::format("unknown field name '{}'", part));
        }
      }
    }
    if (!ok) continue;
    if (s.phases && !(have_phase[0] && have_phase[1] && have_phase[2] && have_phase[3])) {
      errors.bad(job.line, "peak_W", "explicit phases need all of peak_W, peak_s, valley_W and valley_s");
      continue;
    }
    // The split must fit the job's GPUs, as a scenario job's must (runs/src/scenario_loader.cpp).
    if (const auto& par = s.meta.parallel; s.n_gpus > 0 && par.dp(s.n_gpus) == 0) {
      errors.bad(job.line, par.cp > 1 ? "cp" : "tp",
                 fmt::format("n_gpus {} is not a multiple of tp x cp x pp = {} x {} x {}", s.n_gpus, par.tp,
                             par.cp, par.pp));
      continue;
    } else if (const auto [key, why] = par.pipeline_key_problem(); !key.empty()) {
      errors.bad(job.line, key, why);
      continue;
    } else if (s.n_gpus > 0 && par.dp(s.n_gpus) % par.ep != 0) {
      errors.bad(job.line, "ep",
                 fmt::format("ep {} does not divide the data-parallel degree {}", par.ep, par.dp(s.n_gpus)));
      continue;
    } else if (const auto [k, w] = par.split_problem(s.meta.input_size, s.n_gpus > 0 ? par.dp(s.n_gpus) : 0);
               !k.empty()) {
      errors.bad(job.line, k, w);
      continue;
    }
    if (have_inferred) s.inferred = given_inferred;
    // Infer the model fields only when the row names neither phases, a class nor a model.
    if (!s.phases && s.job_class.empty() && s.meta.model.empty()) {
      job.missing = inferred::job_class | inferred::model | inferred::precision;
      if (s.meta.batch_size == 0) job.missing |= inferred::batch_size;
      if (s.meta.dataset_samples == 0.0) job.missing |= inferred::dataset_samples;
    }
    if (!have_epochs) job.missing |= inferred::epochs;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace trace_detail

}  // namespace fleetwatt::jobs

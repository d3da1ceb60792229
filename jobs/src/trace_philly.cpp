// Microsoft Philly trace (Jeon et al., ATC'19; github.com/msr-fiddle/philly-traces), cluster_job_log: a JSON
// array of jobs {status: Pass|Killed|Failed, vc, jobid, submitted_time, user, attempts: [{start_time,
// end_time, detail: [{ip, gpus: [...]}]}]}, times "YYYY-MM-DD HH:MM:SS" (or "None"). The array is cut into
// its elements first so that a malformed job is reported at its own line and the rest still read.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "fleetwatt/core/time.hpp"
#include "trace_formats.hpp"

namespace fleetwatt::jobs::trace_detail {

namespace {

struct Element {
  std::string_view text;
  std::uint32_t line;
};

// Deeper nesting than any Philly record has (an attempt list of objects: 3 levels) is refused before the
// recursive JSON parser sees it, so a hostile file cannot exhaust the stack.
constexpr int kMaxNesting = 64;

// Splits the top-level JSON array into its elements' text, tracking strings so that brackets inside them
// do not count. Throws (fatal) when the file is not an array, when a closing bracket has no opening one
// (every element must make progress: a stray '}' once made this loop push empty elements forever), and
// when nesting exceeds kMaxNesting.
std::vector<Element> split_array(std::string_view doc, RecordErrors& errors) {
  std::vector<Element> out;
  std::size_t i = 0;
  std::uint32_t line = 1;
  auto skip_blank = [&] {
    while (i < doc.size() && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r')) {
      if (doc[i] == '\n') ++line;
      ++i;
    }
  };
  skip_blank();
  if (i >= doc.size() || doc[i] != '[')
    errors.fatal(line, "file", "a Philly cluster_job_log is a JSON array ('[' expected)");
  ++i;
  while (true) {
    skip_blank();
    if (i >= doc.size()) errors.fatal(line, "file", "unterminated JSON array (']' expected)");
    if (doc[i] == ']') break;
    const std::size_t start = i;
    const std::uint32_t start_line = line;
    int depth = 0;
    bool in_string = false;
    for (; i < doc.size(); ++i) {
      const char c = doc[i];
      if (c == '\n') ++line;
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"')
        in_string = true;
      else if (c == '{' || c == '[') {
        if (++depth > kMaxNesting)
          errors.fatal(line, "file", fmt::format("JSON nested deeper than {} levels", kMaxNesting));
      } else if (c == '}' || c == ']') {
        if (depth == 0) {
          if (c == '}') errors.fatal(line, "file", "'}' without a matching '{'");
          break;  // the array's own ']'
        }
        --depth;
      } else if (c == ',' && depth == 0) {
        break;
      }
    }
    out.push_back({doc.substr(start, i - start), start_line});
    if (i < doc.size() && doc[i] == ',') ++i;
    if (i >= doc.size()) errors.fatal(line, "file", "unterminated JSON array (']' expected)");
  }
  return out;
}

std::optional<double> json_time(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  return core::parse_timestamp(v.get<std::string>());
}

}  // namespace

std::vector<RawJob> parse_philly(std::istream& in, RecordErrors& errors) {
  const std::string doc{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<RawJob> jobs;
  for (const auto& element : split_array(doc, errors)) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(element.text);
    } catch (const nlohmann::json::exception& e) {
      // parse_error, and out_of_range for a number beyond double's range (-1e999; it escaped as exit 3).
      errors.bad(element.line, "job", fmt::format("malformed JSON: {}", e.what()));
      continue;
    }
    if (!j.is_object()) {
      errors.bad(element.line, "job", "is not a JSON object");
      continue;
    }
    RawJob job;
    job.line = element.line;
    job.missing = kModelFields;
    const auto submit = j.contains("submitted_time") ? json_time(j["submitted_time"]) : std::nullopt;
    if (!submit) {
      errors.bad(element.line, "submitted_time", "is missing or not a 'YYYY-MM-DD HH:MM:SS' time");
      continue;
    }
    job.spec.submit_s = *submit;
    if (j.contains("jobid") && j["jobid"].is_string()) job.spec.trace_id = j["jobid"].get<std::string>();
    if (j.contains("user") && j["user"].is_string()) job.spec.user = j["user"].get<std::string>();
    const std::string status =
        j.contains("status") && j["status"].is_string() ? j["status"].get<std::string>() : "";
    job.spec.status = status == "Pass"     ? JobStatus::completed
                      : status == "Killed" ? JobStatus::cancelled
                      : status == "Failed" ? JobStatus::failed
                                           : JobStatus::unknown;
    // Run time: first attempt's start to last attempt's end (retries and gaps included, as in the paper).
    std::optional<double> start, end;
    std::uint32_t gpus = 0;
    if (j.contains("attempts") && j["attempts"].is_array() && !j["attempts"].empty()) {
      const auto& attempts = j["attempts"];
      // value() throws on an attempt that is not an object: such an attempt has no time.
      const auto field = [](const nlohmann::json& a, const char* key) {
        return a.is_object() ? a.value(key, nlohmann::json()) : nlohmann::json();
      };
      start = json_time(field(attempts.front(), "start_time"));
      end = json_time(field(attempts.back(), "end_time"));
      // GPUs: the largest attempt (retries normally ask for the same set).
      for (const auto& a : attempts) {
        std::uint32_t n = 0;
        if (a.contains("detail") && a["detail"].is_array())
          for (const auto& d : a["detail"])
            if (d.contains("gpus") && d["gpus"].is_array()) n += static_cast<std::uint32_t>(d["gpus"].size());
        gpus = std::max(gpus, n);
      }
    }
    job.spec.n_gpus = gpus;
    if (start && end && *end < *start) {
      errors.bad(element.line, "attempts", "the last attempt ends before the first one starts");
      continue;
    }
    // Time stamps of any four-digit year are far apart: the run time and wait must fit the engine's clock.
    if (start && end && *end - *start > core::kMaxInputSeconds) {
      errors.bad(
          element.line, "end_time",
          fmt::format("the run time (last end - first start) of {} s is beyond the {:.0e} s (31.7 years) "
                      "a simulated time may span",
                      *end - *start, core::kMaxInputSeconds));
      continue;
    }
    if (start && *start - *submit > core::kMaxInputSeconds) {
      errors.bad(
          element.line, "start_time",
          fmt::format("the wait (start - submitted_time) of {} s is beyond the {:.0e} s (31.7 years) a "
                      "simulated time may span",
                      *start - *submit, core::kMaxInputSeconds));
      continue;
    }
    if (start && end) {
      job.spec.recorded_runtime_s = *end - *start;
      job.spec.recorded_wait_s = std::max(0.0, *start - *submit);
    } else {
      job.no_runtime = true;  // no attempt, or still running at the snapshot ("None" end)
      if (!start)
        job.spec.status = JobStatus::pending;
      else
        job.spec.status = JobStatus::running;
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace fleetwatt::jobs::trace_detail

// Checks on a run's result path before the run: see output_path.hpp.
#include "fleetwatt/runs/output_path.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::runs {

namespace fs = std::filesystem;

namespace {

// Every string in the document (arrays and nested tables included) but [output] path.
void collect_strings(const toml::node& node, const std::string& key, std::vector<std::string>& out) {
  if (const auto* t = node.as_table()) {
    for (const auto& [k, v] : *t) {
      const std::string dotted = key.empty() ? std::string(k.str()) : key + "." + std::string(k.str());
      if (dotted != "output.path") collect_strings(v, dotted, out);
    }
  } else if (const auto* a = node.as_array()) {
    for (const auto& v : *a) collect_strings(v, key, out);
  } else if (const auto* s = node.as_string()) {
    out.push_back(s->get());
  }
}

}  // namespace

std::vector<fs::path> scenario_inputs(const Scenario& scenario) {
  std::vector<fs::path> inputs{scenario.file};
  std::vector<std::string> strings;
  collect_strings(core::parse_toml(scenario.text, scenario.file.string()), "", strings);
  for (const auto& s : strings) {
    if (s.empty() || s.find('\0') != std::string::npos) continue;
    const fs::path p = fs::path(s).is_relative() ? scenario.file.parent_path() / s : fs::path(s);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) inputs.push_back(p);
  }
  return inputs;
}

void check_output_path(const fs::path& path, const core::SourceLocation& where, const std::string& key,
                       const std::vector<fs::path>& inputs) {
  auto refuse = [&](const std::string& why) {
    throw core::ConfigError(where, key, fmt::format("{}: {}", path.string(), why));
  };
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::is_directory(status)) refuse("is a folder; give a file name");
  if (fs::exists(status)) {
    // The writer renames its temporary file over the target: never over a device (/dev/null) or a pipe.
    if (!fs::is_regular_file(status)) refuse("exists and is not a regular file");
    // Writing over a file the run reads would destroy it (the scenario, its jobs or trace, a signal).
    for (const auto& input : inputs)
      if (fs::equivalent(path, input, ec))
        refuse(input == inputs.front() ? std::string("is the scenario file")
                                       : fmt::format("is {}, which the run reads", input.string()));
  }
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const auto folder_status = fs::status(folder, ec);
  if (!fs::exists(folder_status)) refuse(fmt::format("folder {} does not exist", folder.string()));
  if (!fs::is_directory(folder_status)) refuse(fmt::format("{} is not a folder", folder.string()));
  // Permission bits do not say it all (root, read-only mounts, /proc): create and remove a probe file
  // beside the target, where the writer will put its temporary file.
  fs::path probe = path;
  probe += fmt::format(".probe-{}", static_cast<long>(getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;  // a stale probe of an earlier process with our id: the folder is writable
    refuse(fmt::format("cannot be written ({})", std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void check_output_confined(const Scenario& scenario) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(
      fs::absolute(scenario.file.parent_path().empty() ? fs::path(".") : scenario.file.parent_path()), ec);
  const fs::path target = fs::weakly_canonical(fs::absolute(scenario.output.path), ec);
  // Inside: the folder's components are a prefix of the target's parent's.
  const fs::path parent = target.parent_path();
  auto f = folder.begin();
  auto p = parent.begin();
  for (; f != folder.end() && p != parent.end(); ++f, ++p)
    if (*f != *p) break;
  if (f == folder.end() && !ec) return;
  throw core::ConfigError(
      scenario.output.path_where, "output.path",
      fmt::format("{} is outside the scenario's folder {}; a scenario writes only beside itself: give the "
                  "result file on the command line (-o) instead",
                  scenario.output.path.string(), folder.string()));
}

}  // namespace fleetwatt::runs

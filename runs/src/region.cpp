// Reading a region file: the [[site]] tables, each read as a scenario by the scenario loader itself (inline,
// with its keys named under site[i]), or loaded from its scenario file with its `set` assignments.
#include "fleetwatt/runs/region.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>

#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/timestamp.hpp"
#include "fleetwatt/core/toml_table.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/scenario_override.hpp"
#include "scenario_table.hpp"

namespace fleetwatt::runs {

using jobs::ConfigError;
using models::Band;
using models::JobClassConfig;

namespace {

std::string read_text(const std::filesystem::path& file) {
  auto text = core::read_file_text(file);
  if (!text) throw ConfigError({file.string(), 0, 0}, "", "cannot open region file");
  return std::move(*text);
}

// A site's name becomes a file name and an HDF5 link name: letters, digits, '-', '_' and '.' only.
bool good_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || n.front() == '.') return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

bool is_region_text(std::string_view text) {
  try {
    const toml::table root = core::parse_toml(text, "");
    return root.contains("site");
  } catch (const std::exception&) {
    return false;  // not TOML at all: the scenario loader says where
  }
}

bool is_region_file(const std::filesystem::path& file) {
  const auto text = core::read_file_text(file);
  return text && is_region_text(*text);
}

Region load_region(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                   std::optional<std::uint64_t> seed) {
  return parse_region(read_text(file), file, overrides, seed);
}

namespace {

/// [[region.grid_event]]: one dip at one instant, met by every site whose window holds it.
struct RegionGridEvent {
  double at_unix_s = 0.0;
  GridEventConfig event;  ///< at_s unset: each site's own
};

RegionGridEvent parse_region_event(const core::TomlTable& t) {
  t.require_known({"at", "duration_s", "kind"});
  for (const char* k : {"at", "duration_s"})
    if (!t.has(k)) throw ConfigError(t.where(), t.dotted(k), "missing");
  RegionGridEvent e;
  const std::string at = *t.timestamp_text("at");
  const auto unix_s = core::parse_timestamp(at);
  if (!unix_s)
    t.fail("at",
           fmt::format("'{}' is not an instant (ISO 8601 with its zone: \"2026-01-01T19:00:00Z\")", at));
  e.at_unix_s = *unix_s;
  e.event.where = t.where();
  // At least the clock's nanosecond: a shorter (subnormal) duration was accepted as positive and became an
  // event of no time on the site's clock.
  e.event.duration_s = *t.number_at_least("duration_s", 1e-9, false);
  e.event.kind = t.string("kind").value_or(e.event.kind);
  if (e.event.kind != "dip" && e.event.kind != "fault")
    t.fail("kind", fmt::format("'{}' is not dip or fault", e.event.kind));
  return e;
}

/// The region's event on the site's own clock, when it falls in the site's window; each site meets it with
/// its own [facility] ride-through keys.
void add_event_to_site(const RegionGridEvent& e, RegionSite& site) {
  auto& s = site.scenario;
  const double at_s = e.at_unix_s - static_cast<double>(s.output.start_unix_s);
  if (at_s < 0.0 || at_s >= s.workload.horizon_s) return;
  if (!s.facility.batteries.empty())
    throw ConfigError(e.event.where, "region.grid_event",
                      fmt::format("site '{}' has [[facility.battery]]: batteries with grid events are not "
                                  "modelled",
                                  site.name));
  GridEventConfig event = e.event;
  event.at_s = at_s;
  auto& list = s.grid.events;
  const auto at = std::lower_bound(list.begin(), list.end(), at_s,
                                   [](const GridEventConfig& g, double t) { return g.at_s < t; });
  const bool clash = (at != list.end() && at->at_s < at_s + event.duration_s) ||
                     (at != list.begin() && std::prev(at)->at_s + std::prev(at)->duration_s > at_s);
  if (clash)
    throw ConfigError(e.event.where, "region.grid_event",
                      fmt::format("overlaps a [[grid.event]] of site '{}'", site.name));
  list.insert(at, event);
}

}  // namespace

Region parse_region(std::string_view text, const std::filesystem::path& file,
                    const std::vector<std::string>& overrides, std::optional<std::uint64_t> seed) {
  Region r;
  r.file = file;
  r.text = std::string(text);
  toml::table root = core::parse_toml(r.text, file.string());
  if (!overrides.empty()) {
    if (!r.text.empty() && r.text.back() != '\n') r.text += '\n';
    r.text += "\n# Overrides given on the command line (--set), applied in this order over the text above:\n";
    for (const auto& a : overrides) {
      apply_override(root, a);
      r.text += "#   " + a + "\n";
    }
  }
  const std::string name = file.string();
  const core::TomlTable top(root, "", name);
  top.require_known({"name", "description", "seed", "region", "site"});
  r.name = top.string("name").value_or(file.stem().string());
  (void)top.string("description");
  r.seed = static_cast<std::uint64_t>(
      top.integer("seed", 0, std::numeric_limits<std::int64_t>::max()).value_or(1));
  if (seed) r.seed = *seed;
  std::vector<RegionGridEvent> events;
  if (auto t = top.table("region")) {
    t->require_known({"interval_s", "grid_event"});
    r.interval_s = t->number_at_least("interval_s", 1e-9, true).value_or(0.0);
    r.interval_where = t->where("interval_s");
    for (const auto& et : t->tables("grid_event")) events.push_back(parse_region_event(et));
  }
  const auto sites = top.tables("site");
  if (sites.empty()) throw ConfigError(top.where(), "site", "a region needs at least one [[site]] table");
  std::set<std::string> names;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const core::TomlTable& t = sites[i];
    RegionSite site;
    site.where = t.where();
    if (!t.has("name")) throw ConfigError(t.where(), t.dotted("name"), "missing (each site has a name)");
    site.name = *t.string("name");
    if (!good_name(site.name))
      t.fail("name", fmt::format("'{}' is not a site name (letters, digits, '-', '_' and '.'; it names the "
                                 "site's result file)",
                                 site.name));
    if (!names.insert(site.name).second) t.fail("name", fmt::format("site '{}' is given twice", site.name));
    const auto own_seed = t.integer("seed", 0, std::numeric_limits<std::int64_t>::max());
    if (auto path = t.string("scenario")) {
      // From a scenario file: its own keys live there; here only the site's name, seed and overrides.
      t.require_known({"name", "scenario", "set", "seed"});
      std::filesystem::path p = *path;
      if (p.is_relative()) p = file.parent_path() / p;
      if (auto why = core::missing_file(p)) t.fail("scenario", *why);
      const std::vector<std::string> sets = t.strings("set").value_or(std::vector<std::string>{});
      site.scenario = load_scenario(p, sets, t.dotted("set"));
      site.source = p.string();
      site.overrides = fmt::format("{}", fmt::join(sets, "; "));
      // --seed gives every site without its own a seed from the region's; else the file's own stands.
      if (own_seed)
        site.scenario.seed = static_cast<std::uint64_t>(*own_seed);
      else if (seed)
        site.scenario.seed = r.seed + i;
    } else {
      if (t.has("set"))
        t.fail("set", "only a site taken from a scenario file has overrides; edit the site's keys");
      // Inline: the [[site]] table is a scenario; its text (kept in the site's result) is the table's.
      std::ostringstream text;
      text << "# site '" << site.name << "' of region file " << name << "\n" << toml::toml_formatter(t.raw());
      site.scenario = parse_scenario_table(t.raw(), text.str(), file, t.path(), {});
      site.scenario.seed = own_seed ? static_cast<std::uint64_t>(*own_seed) : r.seed + i;
    }
    for (const auto& e : events) add_event_to_site(e, site);
    r.sites.push_back(std::move(site));
  }
  return r;
}

}  // namespace fleetwatt::runs

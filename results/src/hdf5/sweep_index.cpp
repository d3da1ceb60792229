// The sweep's index file: /sweep/members as one compound dataset (a table h5py returns as a numpy record
// array, so `pandas.DataFrame(f["sweep/members"][:])` reads the whole sweep), and external links to the
// members' own result files.
#include "fleetwatt/results/hdf5/sweep_index.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <stdexcept>

#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "hdf5_commit.hpp"
#include "hdf5_datasets.hpp"
#include "member_index.hpp"

namespace fleetwatt::results {

namespace {

// One row as HDF5 sees it: strings are variable-length (pointers into the rows' std::strings).
struct PackedRow {
  std::int64_t member;
  const char* name;
  const char* overrides;
  std::int64_t seed;
  const char* band;
  const char* status;
  const char* error;
  std::int64_t rank;
  double wall_s;
  const char* file;
  std::int64_t jobs_finished;
  double gpu_utilisation, gpu_energy_J, it_energy_J, facility_energy_J, peak_facility_W,
      peak_facility_interval_mean_W, mean_facility_W, peak_15min_W, carbon_kg, cost, wait_mean_s, jct_mean_s;
};

// Column, its offset, and its unit (the `units` attribute lists them in this order).
struct Column {
  const char* name;
  std::size_t offset;
  enum { integer, real, text } kind;
  const char* unit;
};

const Column kColumns[] = {
    {"member", offsetof(PackedRow, member), Column::integer, "1"},
    {"name", offsetof(PackedRow, name), Column::text, "text"},
    {"overrides", offsetof(PackedRow, overrides), Column::text, "text"},
    {"seed", offsetof(PackedRow, seed), Column::integer, "1"},
    {"band", offsetof(PackedRow, band), Column::text, "text"},
    {"status", offsetof(PackedRow, status), Column::text, "text"},
    {"error", offsetof(PackedRow, error), Column::text, "text"},
    {"rank", offsetof(PackedRow, rank), Column::integer, "1"},
    {"wall_s", offsetof(PackedRow, wall_s), Column::real, "s"},
    {"file", offsetof(PackedRow, file), Column::text, "text"},
    {"jobs_finished", offsetof(PackedRow, jobs_finished), Column::integer, "1"},
    {"gpu_utilisation", offsetof(PackedRow, gpu_utilisation), Column::real, "1"},
    {"gpu_energy_J", offsetof(PackedRow, gpu_energy_J), Column::real, "J"},
    {"it_energy_J", offsetof(PackedRow, it_energy_J), Column::real, "J"},
    {"facility_energy_J", offsetof(PackedRow, facility_energy_J), Column::real, "J"},
    {"peak_facility_W", offsetof(PackedRow, peak_facility_W), Column::real, "W"},
    {"peak_facility_interval_mean_W", offsetof(PackedRow, peak_facility_interval_mean_W), Column::real, "W"},
    {"mean_facility_W", offsetof(PackedRow, mean_facility_W), Column::real, "W"},
    {"peak_15min_W", offsetof(PackedRow, peak_15min_W), Column::real, "W"},
    {"carbon_kg", offsetof(PackedRow, carbon_kg), Column::real, "kg"},
    {"cost", offsetof(PackedRow, cost), Column::real, "currency of the [grid.price] signal"},
    {"wait_mean_s", offsetof(PackedRow, wait_mean_s), Column::real, "s"},
    {"jct_mean_s", offsetof(PackedRow, jct_mean_s), Column::real, "s"},
};

H5::StrType utf8_text() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

double scalar_or_nan(const ResultReader& r, const std::string& path) {
  if (!r.has(path)) return kNoFigure;
  const auto v = r.doubles(path);
  return v.empty() ? kNoFigure : v.front();
}

}  // namespace

MemberFigures read_member_figures(const std::filesystem::path& result_file) {
  const ResultReader r(result_file);
  MemberFigures f;
  if (r.has("/summary/jobs_finished")) f.jobs_finished = r.integers("/summary/jobs_finished").front();
  f.gpu_utilisation = scalar_or_nan(r, "/summary/gpu_utilisation");
  f.gpu_energy_J = scalar_or_nan(r, "/summary/gpu_energy_J");
  f.it_energy_J = scalar_or_nan(r, "/summary/it_energy_J");
  f.facility_energy_J = scalar_or_nan(r, "/summary/facility_energy_J");
  f.peak_facility_W = scalar_or_nan(r, "/summary/peak_facility_W");
  f.peak_facility_interval_mean_W = scalar_or_nan(r, "/summary/peak_facility_interval_mean_W");
  f.mean_facility_W = scalar_or_nan(r, "/summary/mean_facility_W");
  f.peak_15min_W = scalar_or_nan(r, "/summary/peak_15min_W");
  f.carbon_kg = scalar_or_nan(r, "/summary/carbon_kg");
  f.cost = scalar_or_nan(r, "/summary/cost");
  f.wait_mean_s = scalar_or_nan(r, "/summary/wait_mean_s");
  f.jct_mean_s = scalar_or_nan(r, "/summary/jct_mean_s");
  return f;
}

void write_sweep_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                       const SweepProvenance& p) {
  write_member_index(out, rows, p, {"sweep", "members", "members", "sweep index"}, {});
}

void write_member_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                        const SweepProvenance& p, const MemberIndexLayout& layout,
                        const std::function<void(H5::H5File&)>& extra) {
  // The shared writer path (hdf5_commit.hpp): a full disk is one message naming the file and the reason.
  write_hdf5_file(out, layout.what, [&](H5::H5File& file) {
    H5::Group root = file.openGroup("/");
    write_string_attribute(root, "scenario", p.scenario_text);
    write_string_attribute(root, "scenario_file", p.scenario_file);
    write_string_attribute(root, layout.table_group, p.command);
    write_int_attribute(root, "ranks", p.ranks);
    write_double_attribute(root, "wall_s", p.wall_s);
    write_string_attribute(root, "fleetwatt_version", p.version);
    write_string_attribute(root, "git_commit", p.git_commit);

    const H5::StrType text = utf8_text();
    H5::CompType type(sizeof(PackedRow));
    std::string units;
    for (const auto& c : kColumns) {
      if (c.kind == Column::integer) type.insertMember(c.name, c.offset, H5::PredType::NATIVE_INT64);
      if (c.kind == Column::real) type.insertMember(c.name, c.offset, H5::PredType::NATIVE_DOUBLE);
      if (c.kind == Column::text) type.insertMember(c.name, c.offset, text);
      units += fmt::format("{}{}: {}", units.empty() ? "" : "; ", c.name, c.unit);
    }
    std::vector<PackedRow> packed;
    packed.reserve(rows.size());
    for (const auto& r : rows) {
      const auto& f = r.figures;
      packed.push_back({r.member,
                        r.name.c_str(),
                        r.overrides.c_str(),
                        r.seed,
                        r.band.c_str(),
                        r.status.c_str(),
                        r.error.c_str(),
                        r.rank,
                        r.wall_s,
                        r.file.c_str(),
                        f.jobs_finished,
                        f.gpu_utilisation,
                        f.gpu_energy_J,
                        f.it_energy_J,
                        f.facility_energy_J,
                        f.peak_facility_W,
                        f.peak_facility_interval_mean_W,
                        f.mean_facility_W,
                        f.peak_15min_W,
                        f.carbon_kg,
                        f.cost,
                        f.wait_mean_s,
                        f.jct_mean_s});
    }
    H5::Group sweep = file.createGroup("/" + layout.table_group);
    hsize_t dims[1] = {packed.size()};
    H5::DataSet ds = sweep.createDataSet(layout.table, type, H5::DataSpace(1, dims));
    if (!packed.empty()) ds.write(packed.data(), type);
    // One table, many units: the attribute names each column's ("member: 1; ...; wall_s: s; ...").
    write_string_attribute(ds, "units", units);

    // Each completed member's own result file, as if it were a group of this one. The target is relative to
    // this file's folder, where HDF5 looks first, so the index and its folder of members can be moved
    // together.
    H5::Group members = file.createGroup("/" + layout.links);
    for (const auto& r : rows) {
      if (r.file.empty()) continue;
      if (H5Lcreate_external(r.file.c_str(), "/", members.getId(), r.name.c_str(), H5P_DEFAULT, H5P_DEFAULT) <
          0)
        throw std::runtime_error(fmt::format("{}: cannot link member {}", out.string(), r.name));
    }
    if (extra) extra(file);
  });
}

}  // namespace fleetwatt::results

// The scenario reference of docs/scenario.md is a real scenario: it parses, so the documentation cannot
// drift from the schema.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

TEST_CASE("docs/scenario.md's scenario reference parses as a scenario", "[scenario][docs]") {
  std::ifstream in(test::source_dir() / "docs" / "scenario.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  const auto heading = page.find("## Scenario reference");
  REQUIRE(heading != std::string::npos);
  const auto start = page.find("```toml\n", heading);
  REQUIRE(start != std::string::npos);
  const auto end = page.find("```\n", start + 8);
  const std::string toml = page.substr(start + 8, end - start - 8);
  test::TempDir dir;
  dir.write("my-gpus.toml", "");  // the reference names a user preset file
  dir.write("my-site.toml", "name = \"lab\"\n");  // and a site file (no runs yet)
  dir.write("jobs.csv",
            "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n100,0,4,2,10,250,1,60\n");
  auto s = runs::load_scenario(dir.write("reference.toml", toml));
  CHECK(s.fleet.nodes == 1000);
  CHECK(s.workload.jobs.size() == 2);
  REQUIRE(s.workload.generator);
  CHECK(s.workload.generator->mix.size() == 1);
  CHECK(s.predictor.classes.size() == 1);
  CHECK(s.fleet.site.filename() == "my-site.toml");
}

// The symbolic-regression model file (`fleetwatt fit -o`) with each numeric field, a constant of its
// formula included, at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and a subnormal (numeric_edges.hpp): a located
// error (file, line, key) or a model whose scaler, correction and band metric lie in their ranges and whose
// prediction is finite.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "fleetwatt/models/fit/sr_model.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

TEST_CASE("every numeric field of a symbolic-regression model file at the numeric edges is located or finite",
          "[sr_model][bad-input][edges]") {
  // Ranges (sr_model.cpp says why): scaler means and corrections within ±1e30, standard deviations in
  // [1e-30, 1e30], alpha in (0, 1], updates and version integers (version 1 only), the band's metric a
  // percentage in [0, 1e6]; other metrics are notes, a non-finite one skipped. A formula's constant is any
  // number its parser reads as finite.
  const Fields fields = {{"version", "1"},
                         {"constant", "40"},
                         {"scaler_mean", "10"},
                         {"scaler_std", "2"},
                         {"test_mre_mean_percent_sr", "2.5"},
                         {"train_mae", "3"},
                         {"alpha", "0.2"},
                         {"correction", "5"},
                         {"updates", "7"}};
  // Each field's line and the dotted name its error gives.
  const std::vector<std::pair<unsigned, std::string>> at = {
      {2, "version"},
      {5, "models.peak_W.formula"},
      {7, "models.peak_W.scaler_mean"},
      {8, "models.peak_W.scaler_std"},
      {10, "models.peak_W.metrics.test_mre_mean_percent_sr"},
      {11, "models.peak_W.metrics.train_mae"},
      {13, "models.peak_W.update.alpha"},
      {14, "models.peak_W.update.correction"},
      {15, "models.peak_W.update.updates"}};
  const std::string text =
      "format = \"fleetwatt-sr\"\n"
      "version = {version}\n"
      "[models.peak_W]\n"
      "target = \"peak_W\"\n"
      "formula = \"200 + {constant} * flops\"\n"
      "features = [\"flops\"]\n"
      "scaler_mean = [{scaler_mean}]\n"
      "scaler_std = [{scaler_std}]\n"
      "[models.peak_W.metrics]\n"
      "test_mre_mean_percent_sr = {test_mre_mean_percent_sr}\n"
      "train_mae = {train_mae}\n"
      "[models.peak_W.update]\n"
      "alpha = {alpha}\n"
      "correction = {correction}\n"
      "updates = {updates}\n";
  {
    const auto file = models::fit::parse_sr_model(test::fill(text, fields, "", ""), "model.toml");
    REQUIRE(file.models.size() == 1);
    // flops 14 -> z = 2 -> 200 + 40 * 2, + 5.
    CHECK(file.models.front().predict({14.0}) == Approx(285.0));
    CHECK(file.models.front().metrics.at("test_mre_mean_percent_sr") == 2.5);
  }
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const auto& name = fields[k].first;
    for (const auto& value : test::numeric_edges()) {
      INFO(name << " = " << value);
      models::fit::SrModelFile file;
      const auto error = test::input_error_of(
          [&] { file = models::fit::parse_sr_model(test::fill(text, fields, name, value), "model.toml"); });
      if (error) {
        if (test::beyond_64_bits(value) && name != "constant")
          CHECK(error->rfind("model.toml:" + std::to_string(at[k].first) + ":", 0) == 0);
        else
          test::check_located(*error, "model.toml", at[k].first, at[k].second);
        continue;
      }
      REQUIRE(file.models.size() == 1);
      const auto& m = file.models.front();
      CHECK(std::fabs(m.scaler.mean(0)) <= 1e30);
      CHECK(m.scaler.std(0) >= 1e-30);
      CHECK(m.scaler.std(0) <= 1e30);
      CHECK(std::fabs(m.correction) <= 1e30);
      CHECK(m.update_alpha > 0.0);
      CHECK(m.update_alpha <= 1.0);
      CHECK(m.updates >= 0);
      for (const auto& [key, v] : m.metrics) {
        CAPTURE(key);
        CHECK(std::isfinite(v));
      }
      const auto band = m.metrics.find("test_mre_mean_percent_sr");
      if (band != m.metrics.end()) {
        CHECK(band->second >= 0.0);
        CHECK(band->second <= 1e6);
      }
      CHECK(std::isfinite(m.predict({14.0})));
    }
  }
}

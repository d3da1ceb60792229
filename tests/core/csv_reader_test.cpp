// The CSV reader: quoting per RFC 4180, located fields, number parsing.
#include <catch2/catch.hpp>
#include <sstream>

#include "fleetwatt/workloads/csv_reader.hpp"

using namespace fleetwatt::workloads;

TEST_CASE("quoted fields may hold separators, quotes and line breaks", "[csv]") {
  std::istringstream in("a,b\n\"x,1\",\"say \"\"hi\"\"\"\n\"two\nlines\",z\n");
  CsvReader csv(in, "t.csv");
  csv.read_header({"a", "b"});
  auto r1 = csv.next();
  REQUIRE(r1);
  CHECK(csv.text(*r1, "a") == "x,1");
  CHECK(csv.text(*r1, "b") == "say \"hi\"");
  auto r2 = csv.next();
  REQUIRE(r2);
  CHECK(csv.text(*r2, "a") == "two\nlines");
  CHECK(r2->line == 3);
  CHECK_FALSE(csv.next());
}

TEST_CASE("numbers parse strictly", "[csv]") {
  CHECK(parse_number("1.5e3") == 1500.0);
  CHECK(parse_number(" 42 ") == 42.0);
  CHECK(parse_number("+7") == 7.0);
  CHECK_FALSE(parse_number("72.36 W"));
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number("nan"));
  CHECK_FALSE(parse_number("inf"));
}

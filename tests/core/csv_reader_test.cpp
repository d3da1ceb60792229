// The CSV tokenizer every reader shares: quoting per RFC 4180, blanks around fields, located fields, number
// parsing.
#include <catch2/catch.hpp>
#include <limits>
#include <sstream>

#include "fleetwatt/core/csv_reader.hpp"

using namespace fleetwatt::core;

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
  // The record starts on line 3 and ends on line 4; the next one would start on line 5.
  CHECK(r2->line == 3);
  CHECK(csv.line() == 4);
  CHECK_FALSE(csv.next());
}

TEST_CASE("CSV records split on commas outside double quotes", "[csv]") {
  const auto f = split_csv(R"(a, "b,c" ,"say ""hi""",,x)");
  REQUIRE(f.size() == 5);
  CHECK(f[0] == "a");
  CHECK(f[1] == "b,c");
  CHECK(f[2] == "say \"hi\"");
  CHECK(f[3].empty());
  CHECK(f[4] == "x");
}

TEST_CASE("blanks around unquoted fields are dropped, blanks inside quotes kept", "[csv]") {
  // nvidia-smi writes ", " between fields; a quoted field keeps its own blanks.
  const auto f = split_csv_fields("2023/02/20 08:38:16.296, 0, 72.36 W,\" padded \" , x y ");
  REQUIRE(f.size() == 5);
  CHECK(f[0].text == "2023/02/20 08:38:16.296");
  CHECK(f[1].text == "0");
  CHECK(f[2].text == "72.36 W");
  CHECK(f[3].text == " padded ");
  CHECK(f[4].text == "x y");
  // Columns are 1-based and point at the first character of the field (or its opening quote):
  // "2023/02/20 08:38:16.296" is 23 characters, so ", " puts field 2 at column 26, field 3 at 29.
  CHECK(f[0].column == 1);
  CHECK(f[1].column == 26);
  CHECK(f[2].column == 29);
  CHECK(f[3].column == 37);
}

TEST_CASE("edge cases of quoting", "[csv]") {
  // An empty quoted field is an empty field, not a missing one; "" alone is one quote inside quotes.
  auto f = split_csv(R"("",x,"""")");
  REQUIRE(f.size() == 3);
  CHECK(f[0].empty());
  CHECK(f[1] == "x");
  CHECK(f[2] == "\"");
  // A quote inside an unquoted field is an ordinary character (27" screens).
  f = split_csv(R"(27" screen,b)");
  REQUIRE(f.size() == 2);
  CHECK(f[0] == "27\" screen");
  // A trailing separator makes a last, empty field.
  CHECK(split_csv("a,b,").size() == 3);
  // Another separator, for semicolon files.
  f = split_csv("1,5;2", ';');
  REQUIRE(f.size() == 2);
  CHECK(f[0] == "1,5");
}

TEST_CASE("an unterminated quote is an error at the line where it opened", "[csv]") {
  std::istringstream in("a,b\n1,\"open\nstill open\n");
  CsvReader csv(in, "t.csv");
  csv.read_header({"a"});
  try {
    (void)csv.next();
    FAIL("expected a TraceFormatError");
  } catch (const TraceFormatError& e) {
    CHECK(std::string(e.what()) == "t.csv:2:3: unterminated quoted field");
  }
}

TEST_CASE("blank lines, comments, CRLF and a byte-order mark are not records", "[csv]") {
  std::istringstream in("\xEF\xBB\xBFtime,power\r\n\r\n# a note\r\n  \r\n1,2\r\n");
  CsvReader csv(in, "t.csv", CsvDialect{',', '#'});
  csv.read_header({"time", "power"});
  CHECK(csv.header()[0] == "time");
  auto r = csv.next();
  REQUIRE(r);
  CHECK(r->line == 5);
  CHECK(csv.number(*r, "power") == 2.0);
  CHECK_FALSE(csv.next());
}

TEST_CASE("a bad field is reported at its line and column", "[csv]") {
  std::istringstream in("a,b\n1,  lots\n");
  CsvReader csv(in, "t.csv");
  csv.read_header({"a", "b"});
  auto r = csv.next();
  REQUIRE(r);
  CHECK_THROWS_WITH(csv.number(*r, "b"), "t.csv:2:5: b: not a number: 'lots'");
  CHECK_THROWS_WITH(csv.integer(*r, "a", 2, 9), "t.csv:2:1: a: expected an integer in [2, 9], got 1");
  std::istringstream in2("a,b\n");
  CsvReader missing(in2, "m.csv");
  CHECK_THROWS_WITH(missing.read_header({"c"}), "m.csv:1:1: c: missing column (header has: a,b)");
}

TEST_CASE("a first line that is not a CSV header is not quoted back", "[csv]") {
  // A path naming an unrelated file (a system file a hostile scenario points at) must not disclose it.
  std::istringstream in("root:x:0:0:secret:/root:/bin/bash\nnext\n");
  CsvReader csv(in, "/etc/passwd");
  CHECK_THROWS_WITH(csv.read_header({"job_id", "submit_s"}),
                    "/etc/passwd:1:1: job_id: missing column (its first line is not a CSV header: is it the "
                    "right file?)");
  CHECK(header_for_message({"time", "dry bulb (C)", "rh_%"}) == "header has: time,dry bulb (C),rh_%");
  CHECK(header_for_message({"password=hunter2"}) ==
        "its first line is not a CSV header: is it the right file?");
  CHECK(header_for_message({"user", "pass:word"}) ==
        "its first line is not a CSV header: is it the right file?");
}

TEST_CASE("fields written with csv_quote read back unchanged", "[csv]") {
  const std::vector<std::string> fields{"plain", "a,b", "say \"hi\"", "two\nlines", " padded ", "", "x"};
  std::string line;
  for (const auto& f : fields) {
    if (!line.empty()) line += ',';
    line += csv_quote(f);
  }
  CHECK(csv_quote("plain") == "plain");
  CHECK(csv_quote("a,b") == "\"a,b\"");
  CHECK(csv_quote("say \"hi\"") == "\"say \"\"hi\"\"\"");
  std::istringstream in(line + "\n");
  CsvReader csv(in, "t.csv");
  const auto row = csv.next();
  REQUIRE(row);
  CHECK(row->texts() == fields);
}

TEST_CASE("numbers parse strictly", "[csv]") {
  CHECK(parse_number("1.5e3") == 1500.0);
  CHECK(parse_number(" 42 ") == 42.0);
  CHECK(parse_number(" -2.5 ") == -2.5);
  CHECK(parse_number("+7") == 7.0);
  CHECK_FALSE(parse_number("72.36 W"));
  CHECK_FALSE(parse_number("12abc"));
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number("nan"));
  CHECK_FALSE(parse_number("inf"));
  CHECK(*parse_integer("4.0") == 4);
  CHECK_FALSE(parse_integer("4.5"));
  // 2^53 + 1 cannot be told from 2^53 in a double: integers beyond 9e15 are refused.
  CHECK_FALSE(parse_integer("9007199254740993"));
}

TEST_CASE("a column in seconds beyond what the clock can hold is refused at its record", "[csv]") {
  std::istringstream in("id,submit_s,power_W\n1,1e18,1e18\n");
  CsvReader csv(in, "jobs.csv");
  csv.read_header({"id", "submit_s", "power_W"});
  const auto row = csv.next();
  REQUIRE(row);
  CHECK(csv.number(*row, "power_W") == 1e18);  // not a time
  try {
    (void)csv.number(*row, "submit_s");
    FAIL("no error");
  } catch (const TraceFormatError& e) {
    CHECK(std::string(e.what()).find("jobs.csv:2") == 0);
    CHECK(std::string(e.what()).find("submit_s: 1e18 s is beyond the 1e+09 s") != std::string::npos);
  }
}

TEST_CASE("an integer column bounded by int64's largest value refuses 2^63", "[csv][edges]") {
  // int64's largest value is 2^63 as a double, so 9223372036854775808 passed a double comparison and was
  // cast.
  std::istringstream in("a,b\n9223372036854775808,9223372036854774784\n");
  CsvReader csv(in, "t.csv");
  csv.read_header({"a", "b"});
  auto r = csv.next();
  REQUIRE(r);
  constexpr auto most = std::numeric_limits<std::int64_t>::max();
  CHECK_THROWS_WITH(csv.integer(*r, "a", 0, most),
                    "t.csv:2:1: a: expected an integer in [0, 9223372036854775807], got 9223372036854775808");
  CHECK(csv.integer(*r, "b", 0, most) == 9223372036854774784LL);
}

// The instruction-count gate's pure parts (tools/instruction_baseline.hpp): the verdict on a count against
// its baseline with hand-computed figures, the count read from callgrind's log and output file, the baseline
// file's located errors, and its rewrite that keeps every byte but the figures.
#include <catch2/catch.hpp>

#include "fleetwatt/core/input_error.hpp"
#include "instruction_baseline.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::tools::callgrind_collected;
using fleetwatt::tools::callgrind_totals;
using fleetwatt::tools::group_digits;
using fleetwatt::tools::InstructionVerdict;
using fleetwatt::tools::judge_instructions;
using fleetwatt::tools::read_instruction_baseline;
using fleetwatt::tools::rewrite_instruction_counts;

TEST_CASE("instruction gate: a count within the tolerance passes, over it fails, under it asks to lower",
          "[instructions]") {
  // 1,000,000 baseline, 3 % tolerance: 1,030,000 is +3.00 % exactly (within), 1,030,001 is +3.0001 %.
  auto j = judge_instructions(1'000'000, 1'030'000, 3.0);
  CHECK(j.verdict == InstructionVerdict::within);
  CHECK(j.change_pct == Approx(3.0).margin(1e-12));
  j = judge_instructions(1'000'000, 1'030'001, 3.0);
  CHECK(j.verdict == InstructionVerdict::slower);
  CHECK(j.change_pct == Approx(3.0001).margin(1e-12));
  // -3.00 % exactly is within; -3.0001 % passes but asks for the baseline to be lowered.
  CHECK(judge_instructions(1'000'000, 970'000, 3.0).verdict == InstructionVerdict::within);
  j = judge_instructions(1'000'000, 969'999, 3.0);
  CHECK(j.verdict == InstructionVerdict::faster);
  CHECK(j.change_pct == Approx(-3.0001).margin(1e-12));
  // The end-to-end test's figures: a baseline 5 % below the measured count is 1/0.95 - 1 = +5.263 % over.
  j = judge_instructions(950'000, 1'000'000, 3.0);
  CHECK(j.verdict == InstructionVerdict::slower);
  CHECK(j.change_pct == Approx(5.2631578947).epsilon(1e-9));
  // The default day before and after the meter's exports (docs/development.md): 6,286,730,131 ->
  // 6,287,605,490 instructions is 875,359 more, +0.013924 %.
  j = judge_instructions(6'286'730'131, 6'287'605'490, 3.0);
  CHECK(j.verdict == InstructionVerdict::within);
  CHECK(j.change_pct == Approx(0.0139239156).epsilon(1e-8));
  // A tolerance of 0: one instruction more fails, one fewer asks to lower.
  CHECK(judge_instructions(100, 100, 0.0).verdict == InstructionVerdict::within);
  CHECK(judge_instructions(100, 101, 0.0).verdict == InstructionVerdict::slower);
  CHECK(judge_instructions(100, 99, 0.0).verdict == InstructionVerdict::faster);
}

TEST_CASE("instruction gate: the count is read from callgrind's log or its output file", "[instructions]") {
  // valgrind-3.19.0's log of `valgrind --tool=callgrind --log-file=...`.
  const std::string log =
      "==4242== Callgrind, a call-graph generating cache profiler\n"
      "==4242== Copyright (C) 2002-2017, and GNU GPL'd, by Josef Weidendorfer et al.\n"
      "==4242== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n"
      "==4242== Command: fleetwatt run -q s.toml -o s.h5\n"
      "==4242== \n"
      "==4242== Events    : Ir\n"
      "==4242== Collected : 6286730131\n"
      "==4242== \n"
      "==4242== I   refs:      6,286,730,131\n";
  CHECK(callgrind_collected(log) == 6'286'730'131u);
  CHECK(fleetwatt::tools::valgrind_version(log) == "Valgrind-3.19.0");
  CHECK_FALSE(callgrind_collected("==1== Events    : Ir\n"));
  CHECK(fleetwatt::tools::valgrind_version("no version here").empty());
  // The output file: "totals:" (3.x) or "summary:" (older); "fn=" lines are not counts.
  CHECK(callgrind_totals("version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfn=(1) main\n16 3\n"
                         "totals: 123456789\n") == 123'456'789u);
  CHECK(callgrind_totals("events: Ir\nsummary: 42\n") == 42u);
  CHECK_FALSE(callgrind_totals("events: Ir\n"));
  CHECK(group_digits(6'286'730'131) == "6,286,730,131");
  CHECK(group_digits(999) == "999");
  CHECK(group_digits(1000) == "1,000");
  CHECK(group_digits(0) == "0");
}

TEST_CASE("instruction gate: the baseline file's cases, paths relative to its root", "[instructions]") {
  TempDir dir;
  dir.write("s.toml", "seed = 1\n");
  const auto file = dir.write("b.toml",
                              "root = \".\"\n"
                              "[[case]]\nname = \"one\"\nscenario = \"s.toml\"\n"
                              "args = [\"--set\", \"workload.horizon_s=60\"]\ninstructions = 1234\n"
                              "compiler = \"gcc 12.2.0, Release\"\nmachine = \"m\"\n"
                              "[[case]]\nname = \"two\"\nscenario = \"./s.toml\"\n");
  const auto b = read_instruction_baseline(file);
  REQUIRE(b.cases.size() == 2);
  CHECK(b.cases[0].name == "one");
  CHECK(b.cases[0].scenario_path == (dir.path() / "s.toml").lexically_normal());
  CHECK(b.cases[0].args == std::vector<std::string>{"--set", "workload.horizon_s=60"});
  CHECK(b.cases[0].instructions == 1234u);
  CHECK(b.cases[0].compiler == "gcc 12.2.0, Release");
  CHECK(b.cases[1].name == "two");
  CHECK_FALSE(b.cases[1].instructions);  // added, not measured yet
  CHECK(b.cases[1].args.empty());
}

TEST_CASE("instruction gate: a bad baseline file is one located error", "[instructions][bad-input]") {
  TempDir dir;
  dir.write("s.toml", "seed = 1\n");
  const auto message = [&](const std::string& text) {
    const auto file = dir.write("b.toml", text);
    try {
      (void)read_instruction_baseline(file);
    } catch (const fleetwatt::core::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string path = (dir / "b.toml").string();
  const std::string head = "[[case]]\nname = \"one\"\nscenario = \"s.toml\"\n";
  CHECK(message(head + "instrucions = 5\n") ==
        path + ":4:1: case[0].instrucions: unknown key (known here: name, scenario, args, instructions, "
               "compiler, machine)");
  CHECK(message(head + "instructions = 0\n") == path + ":4:1: case[0].instructions: must be positive, got 0");
  CHECK(message(head + "instructions = \"12\"\n") ==
        path + ":4:1: case[0].instructions: expected an integer, found a string");
  CHECK(message("[[case]]\nname = \"one\"\nscenario = \"nothing.toml\"\n").find(
            path + ":3:1: case[0].scenario: " + (dir / "nothing.toml").string() + ": no such file") == 0);
  CHECK(message("[[case]]\nscenario = \"s.toml\"\n") == path + ":1:1: case[0].name: missing: each [[case]] needs a name");
  CHECK(message(head + head) == path + ":5:1: case[1].name: 'one' is also the name of the case at " + path + ":1:1");
  CHECK(message("[[case]]\nname = \"a b\"\nscenario = \"s.toml\"\n") ==
        path + ":2:1: case[0].name: 'a b': letters, digits, '-', '_' and '.' only");
  CHECK(message("root = \"..\"\n").find("case: no [[case]] table") != std::string::npos);
  CHECK(message("[[case]\n").find(path + ":1:") == 0);  // TOML syntax
  CHECK(message("colour = 1\n" + head).find("colour: unknown key") != std::string::npos);
  try {
    (void)read_instruction_baseline(dir / "absent.toml");
    FAIL("no error");
  } catch (const fleetwatt::core::ConfigError& e) {
    CHECK(std::string(e.what()) == (dir / "absent.toml").string() + ": file: cannot be opened");
  }
}

TEST_CASE("instruction gate: the rewrite changes the figures and keeps every other byte", "[instructions]") {
  const std::string text =
      "# the gate's cases\n"
      "root = \".\"\n"
      "\n"
      "# measured\n"
      "[[case]]\n"
      "name = \"old\"\n"
      "scenario = \"s.toml\"\n"
      "instructions = 1000   # a trailing comment\n"
      "compiler = \"gcc 11.0.0, Release\"\n"
      "machine = \"Xéon® (2 hardware threads)\"\n"
      "args = [\"--set\", \"a=1\"]\n"
      "\n"
      "# added by hand, not measured yet\n"
      "[[case]]\n"
      "  name = \"new\"\n"
      "  scenario = \"s.toml\"\n"
      "  args = [\n"
      "    \"--set\", \"b=2\",\n"
      "  ]\n"
      "\n"
      "[[case]]\n"
      "name = \"untouched\"\n"
      "scenario = \"s.toml\"\n"
      "instructions = 7\n";
  const std::string out = rewrite_instruction_counts(
      text, "b.toml",
      {{"old", 123456789, "gcc 12.2.0, Release", "CPU \"quoted\" \\ (2 hardware threads)"},
       {"new", 42, "gcc 12.2.0, Release", "m"}});
  CHECK(out ==
        "# the gate's cases\n"
        "root = \".\"\n"
        "\n"
        "# measured\n"
        "[[case]]\n"
        "name = \"old\"\n"
        "scenario = \"s.toml\"\n"
        "instructions = 123456789   # a trailing comment\n"
        "compiler = \"gcc 12.2.0, Release\"\n"
        "machine = \"CPU \\\"quoted\\\" \\\\ (2 hardware threads)\"\n"
        "args = [\"--set\", \"a=1\"]\n"
        "\n"
        "# added by hand, not measured yet\n"
        "[[case]]\n"
        "  name = \"new\"\n"
        "  scenario = \"s.toml\"\n"
        "  args = [\n"
        "    \"--set\", \"b=2\",\n"
        "  ]\n"
        "  instructions = 42\n"
        "  compiler = \"gcc 12.2.0, Release\"\n"
        "  machine = \"m\"\n"
        "\n"
        "[[case]]\n"
        "name = \"untouched\"\n"
        "scenario = \"s.toml\"\n"
        "instructions = 7\n");
  // The rewritten file reads back with the new figures.
  TempDir dir;
  dir.write("s.toml", "seed = 1\n");
  const auto b = read_instruction_baseline(dir.write("b.toml", out));
  REQUIRE(b.cases.size() == 3);
  CHECK(b.cases[0].instructions == 123'456'789u);
  CHECK(b.cases[0].machine == "CPU \"quoted\" \\ (2 hardware threads)");
  CHECK(b.cases[1].instructions == 42u);
  CHECK(b.cases[1].args == std::vector<std::string>{"--set", "b=2"});
  CHECK(b.cases[2].instructions == 7u);
  CHECK_THROWS_AS(rewrite_instruction_counts(text, "b.toml", {{"absent", 1, "", ""}}),
                  fleetwatt::core::ConfigError);
}

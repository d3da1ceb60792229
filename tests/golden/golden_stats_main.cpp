// fleetwatt_golden_stats RESULT.h5 PRINTED.txt: prints a scenario's golden figures as JSON (tools/scripts/
// regen-golden.sh writes them to tests/golden/<scenario>.json; the golden test recomputes and compares them).
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "golden_figures.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fleetwatt_golden_stats RESULT.h5 PRINTED_SUMMARY.txt\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::cerr << "fleetwatt_golden_stats: " << argv[2] << ": cannot be read\n";
    return 2;
  }
  const std::string printed{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    std::cout << fleetwatt::golden::figures(argv[1], printed).dump(2) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "fleetwatt_golden_stats: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

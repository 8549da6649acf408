// explore [--plan] [FILE|-]: reads a scenario (the book's default with no argument) and prints
// its report as JSON, or with --plan the ten fastest layouts that fit (planner.h).
// Bad input: exit status 2 and one line on stderr starting with "error:".
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "contract.h"

namespace {

bool read_all(std::istream& in, std::string& out) {
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

int usage() {
  std::cerr << "usage: explore [--plan] [FILE|-]   (no file: the book lab's default scenario)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string text = "{}";
  const bool planning = argc > 1 && std::string(argv[1]) == "--plan";
  if (planning) --argc, ++argv;
  if (argc > 2) return usage();
  if (argc == 2) {
    const std::string arg = argv[1];
    if (arg == "-h" || arg == "--help") return usage(), 0;
    bool ok;
    if (arg == "-") {
      ok = read_all(std::cin, text);
    } else {
      std::ifstream file(arg, std::ios::binary);
      ok = file && read_all(file, text);
    }
    if (!ok) {
      std::cerr << "error: cannot read " << (arg == "-" ? "standard input" : arg) << "\n";
      return 2;
    }
  }
  const std::string result = planning ? pe::plan_json(text, 10) : pe::evaluate_json(text);
  const auto out = nlohmann::json::parse(result, nullptr, false);
  if (out.contains("error")) {
    std::cerr << "error: " << out["error"].get<std::string>() << "\n";
    return 2;
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

// explore [FILE|-]: reads a scenario (the book's default with no argument) and prints the
// report as JSON. Bad input: exit status 2 and one line on stderr starting with "error:".
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
  std::cerr << "usage: explore [FILE|-]   (no argument: the book lab's default scenario)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string text = "{}";
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
  const auto out = nlohmann::json::parse(pe::evaluate_json(text), nullptr, false);
  if (out.contains("error")) {
    std::cerr << "error: " << out["error"].get<std::string>() << "\n";
    return 2;
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

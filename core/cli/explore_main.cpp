// explore [--plan [--rank R]] [FILE|-]: reads a scenario (the book's default with no argument)
// and prints its report as JSON, or with --plan the ten fastest layouts that fit (planner.h),
// ranked by step time or (--rank time_with_failures) by the time to train with failures.
// explore --calibrate RUN [FILE|-]: the scenario (the run's own with no FILE) calibrated to a
// measured run (RUN: a calibration block, {"scenario", "step_time_s", ...}): its report, with
// the fitted constants and the residuals under "calibration". RUN and FILE are each one JSON
// object, read whole: keys after RUN's object are refused, never read into the scenario.
// explore --schema prints the scenario's field table as JSON; --schema-table as core/README.md's
// Markdown table.
// Bad input: exit status 2 and one line on stderr starting with "error:". A report that cannot
// be written (a full disk): exit status 1. A reader that stops reading (`| head -c1`): exit
// status 0, quietly.
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "contract/contract.h"
#include "model/schema.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

int usage() {
  std::fprintf(stderr,
               "usage: explore [--plan [--rank step|time_with_failures] | --explain KEY] "
               "[FILE|-]\n"
               "         (no file: the book lab's default scenario; --explain all: the report "
               "with every derivation)\n"
               "       explore --calibrate RUN [FILE|-]   (RUN: {\"scenario\": {...}, "
               "\"step_time_s\": ...};\n"
               "         no FILE: the run's own scenario)\n"
               "       explore --schema | --schema-table\n");
  return 2;
}

// Reads at most kMaxScenarioBytes + 1 bytes: one more than allowed is enough to refuse, so
// /dev/zero or a 100 MB file is refused at once with bounded memory.
bool read_bounded(std::FILE* in, std::string& out) {
  char buffer[4096];
  out.clear();
  while (out.size() <= pe::kMaxScenarioBytes) {
    const size_t n = std::fread(buffer, 1, sizeof buffer, in);
    out.append(buffer, n);
    if (n < sizeof buffer) return !std::ferror(in);
  }
  return true;
}

// The scenario text of `arg`, or "" with `problem` set.
std::string read_input(const std::string& arg, std::string& problem) {
  std::string text;
  if (arg == "-") {
    if (!read_bounded(stdin, text)) problem = "cannot read standard input";
    return text;
  }
  struct stat info {};
  if (stat(arg.c_str(), &info) != 0) {
    problem = "cannot read " + arg + ": " + std::strerror(errno);
    return text;
  }
  if (S_ISDIR(info.st_mode)) {
    problem = arg + " is a directory: allowed a scenario file or - for standard input";
    return text;
  }
  std::FILE* file = std::fopen(arg.c_str(), "rb");
  if (!file) {
    problem = "cannot read " + arg + ": " + std::strerror(errno);
    return text;
  }
  if (!read_bounded(file, text)) problem = "cannot read " + arg + ": " + std::strerror(errno);
  std::fclose(file);
  return text;
}

// Writes the whole text or says why not: a full disk must not pass for a report.
int write_out(const std::string& text) {
  const bool written =
      std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  // The reader closed the pipe: it has what it wanted, which is no error of ours (ripgrep
  // does the same). SIGPIPE is ignored in main, so the write fails with EPIPE instead of
  // killing the process with status 141.
  if (written || errno == EPIPE) return 0;
  std::fprintf(stderr, "error: cannot write the report: %s\n", std::strerror(errno));
  return 1;
}

int print_result(const std::string& result) {
  const auto out = nlohmann::json::parse(result, nullptr, false);
  if (out.contains("error")) return fail(out["error"]["message"].get<std::string>());
  return write_out(out.dump(2) + "\n");
}

// --calibrate RUN [FILE|-]: without FILE, the run's own scenario, calibrated.
int calibrate(int argc, char** argv) {
  if (argc < 1 || argc > 2) return usage();
  // Standard input is read once: a second "-" would read nothing and be refused as a scenario
  // cut short, which is not what is wrong.
  if (argc == 2 && std::strcmp(argv[0], "-") == 0 && std::strcmp(argv[1], "-") == 0) {
    return fail(
        "RUN and SCENARIO are both - (standard input, read once): allowed - for at most "
        "one of them, a file for the other");
  }
  std::string problem;
  const std::string run = read_input(argv[0], problem);
  if (!problem.empty()) return fail(problem);
  std::string scenario;
  if (argc == 2) {
    scenario = read_input(argv[1], problem);
    if (!problem.empty()) return fail(problem);
  } else {
    if (const std::string why = pe::not_one_object(run); !why.empty()) {
      return fail(std::string(argv[0]) + " " + why +
                  ": allowed one calibration block, {\"scenario\": {...}, \"step_time_s\": "
                  "...}, and nothing after it");
    }
    const auto block = nlohmann::json::parse(run, nullptr, false);
    if (!block.is_object() || !block.contains("scenario") || !block["scenario"].is_object()) {
      return fail(std::string(argv[0]) +
                  " has no \"scenario\" object: allowed a calibration block, {\"scenario\": "
                  "{...}, \"step_time_s\": ...}");
    }
    scenario = block["scenario"].dump();
  }
  return print_result(pe::calibrated_json(run, scenario));
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--schema" || first == "--schema-table") {
    if (argc > 2) return usage();
    return write_out(first == "--schema" ? nlohmann::json::parse(pe::schema_text()).dump(2) + "\n"
                                         : pe::schema_markdown());
  }
  if (first == "--calibrate") return calibrate(argc - 2, argv + 2);
  const bool planning = first == "--plan";
  const bool explaining = first == "--explain";
  if (explaining && argc < 3) return usage();
  const std::string explain_key = explaining ? argv[2] : "";
  if (planning) --argc, ++argv;
  std::string rank = "step";
  if (planning && argc > 1 && std::string(argv[1]) == "--rank") {
    if (argc < 3) return usage();
    rank = argv[2];
    argc -= 2, argv += 2;
  }
  if (explaining) argc -= 2, argv += 2;
  if (argc > 2) return usage();
  std::string text = "{}";
  if (argc == 2) {
    const std::string arg = argv[1];
    if (arg == "-h" || arg == "--help") return usage(), 0;
    std::string problem;
    text = read_input(arg, problem);
    if (!problem.empty()) return fail(problem);
  }
  const std::string result = planning ? pe::plan_json(text, 10, 0, {}, rank)
                             : explaining
                                 ? pe::explain_json(text, explain_key == "all" ? "" : explain_key)
                                 : pe::evaluate_json(text);
  return print_result(result);
}

// The one contract: scenario JSON in, report JSON out. The CLI, the wasm module and the tests
// all speak it; core/README.md documents every key.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"
#include "model/result.h"
#include "model/scenario.h"
#include "model/schema.h"

namespace pe {

// A scenario is a few hundred bytes; anything past this is refused (the CLI stops reading at
// one byte more, so /dev/zero is refused at once).
constexpr size_t kMaxScenarioBytes = 64 * 1024;

// Reads a scenario through the field table (schema.h). Missing keys take the book's defaults;
// an unknown or repeated key, a wrong type, bytes after the document or a value out of range
// fail with a Problem that names the key and what is allowed. What is kept but changes
// meaning (a field with no effect, a preset overridden) is added to `warnings`.
Result<Scenario> parse_scenario(std::string_view json_text,
                                std::vector<std::string>* warnings = nullptr);

// Why `json_text` is not one JSON object read as strictly as parse_scenario reads one ("is
// not one JSON document: bytes after the document at byte 52", "is [1]"), or "" when it is.
std::string not_one_object(std::string_view json_text);

// {"error": {"key": "gpus" | null, "message": "..."}}: how every call reports a Problem.
std::string error_json(const Problem& problem);

// The field table as JSON (schema.h schema_json), for `explore --schema` and lab.schema().
std::string schema_text();

// The scenario with presets expanded: every input the report was computed from.
Json scenario_json(const Scenario& s);
Json report_json(const Report& r);

// parse_scenario + evaluate + report_json, with the resolved scenario under "scenario".
// The report also carries "layouts" (accepted_layouts) so a page needs one call per change,
// and "explained": the keys of the numbers explain_json can derive (explain.h).
// On failure: error_json.
std::string evaluate_json(std::string_view scenario_text, bool with_ranks = true);

// `scenario_text` calibrated to a measured run: `run_text` is a calibration block
// ({"scenario": {...}, "step_time_s": ..., ...}, the scenario's "calibration" key), set into
// the scenario, which is then evaluated (evaluate_json). Each text must be one JSON object and
// nothing after it (a run's text cannot add keys to the scenario): else an error naming
// "calibration" (the run) or the scenario. On failure: error_json.
std::string calibrated_json(std::string_view run_text, std::string_view scenario_text);

// The math behind one number of the scenario's report (explain.h): {"formula", "text",
// "result", "source"} for `key`, a key the report lists under "explained"; with an empty key,
// the whole report (ranks included) with every derivation under "explain". A key the report
// does not explain is an error naming "key" and the keys it does.
std::string explain_json(std::string_view scenario_text, std::string_view key);

// The explicit layouts the scenario's GPU count and model allow (explorer.h accepted_layouts):
// {"layouts": [[dp, tp, pp], ...]}, or {"error": "..."} for a bad scenario.
std::string layouts_json(std::string_view scenario_text);

// The presets a user can pick: {"models": [...], "gpus": [...], "precisions": [...]}, each
// with its numbers (model params resolved by Narayanan Eq. 2 where the preset has none).
std::string presets_json();

// The schedule's timeline (timeline.h) for drawing: {"stages", "microbatches",
// "shown_microbatches", "span", "blocks": [[stage, microbatch, pass 0 F / 1 B / 2 W, start,
// duration], ...]}. Only the first micro-batches are laid out when stages x micro-batches would
// exceed 1,024 (a readable drawing), but at least what the schedule needs (m >= p or 2p);
// stages are 1..1024 (1..32 for the schedules that split the backward) and micro-batches
// 1..2^24, else an error naming the one out of range; `drawn` > 0 lays out at most that many
// micro-batches (still at least what the schedule needs). An unknown schedule is an error naming
// the key, and what evaluate's schedule rule refuses (DualPipe on an odd PP, too few micro-batches)
// an error naming "stages" or "microbatches" (timeline.h timeline_problem).
std::string timeline_json(int stages, int microbatches, std::string_view schedule = "1f1b",
                          int drawn = 0);

// Reads a scenario and runs the planner (planner.h) on it: {"evaluated", "feasible",
// "why_best", "warnings", "headroom", "memory_limit_bytes", "plans": [{...the plan's choices and
// figures, "scenario": {...}, "variants": [...the layout's next fastest, same shape]}]} (one
// plan per DP x TP x PP layout; each plan's "verdict" "fits" or "tight", memory.h), or
// {"error": "..."}. top_k is clamped to 1..100; headroom (the fraction of GPU memory a plan
// leaves free: 0 every plan within the GPU, 0.2 only those under the 80% rule) must be in
// 0..0.7 (PlanOptions::kMaxHeadroom), or the answer is an error naming it; progress is called with
// layouts done, layouts in all and configurations evaluated, and returns false to stop the search
// (then the answer is an error saying so). rank: "step" (the default) ranks by step time,
// "time_with_failures" by the time to train with failures and checkpoints (PlanRank); anything
// else is an error naming `rank`.
std::string plan_json(std::string_view scenario_text, int top_k, double headroom = 0,
                      const std::function<bool(int, int, long long)>& progress = {},
                      std::string_view rank = "step");

}  // namespace pe

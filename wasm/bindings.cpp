// The embind layer: declarations only. The core speaks JSON text (contract.h), so the
// boundary is strings in, strings out -- no class handles for JS to .delete(), no 64-bit
// integers. Errors come back as {"error": {"key", "message"}}; wasm/lab.js turns them into
// LabError.
// The one exception is the rank list, which at fleet scale is handed over as a typed array.
//
// Compiled twice (wasm/CMakeLists.txt): for lab-module, the page's first load, without the
// planner and the reference runs, so that LTO drops their code; for lab-planner, with
// PE_LAB_PLANNER defined, with every binding.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "model/layout.h"
#include "model/schema.h"
#ifdef PE_LAB_PLANNER
#include "contract/reference_runs.h"

// The planner's progress goes to Module.onPlanProgress (lab.js sets it for one call): a
// function written into the glue at build time, so nothing is evaluated under the CSP.
// Returns 0 to stop the search. A JS exception must never cross the wasm frames: it would skip
// their stack restore and frees, and after about a thousand such calls the module's memory was
// corrupt. lab.js's callback catches what the user's throws; this catch is the last guard.
// clang-format off
EM_JS(int, plan_progress, (int done, int total, double evaluated), {
  var f = Module['onPlanProgress'];
  try {
    return f ? f(done, total, evaluated) : 1;
  } catch (e) {
    return 0;
  }
});
// clang-format on
#endif

namespace {

std::string evaluate(const std::string& scenario) { return pe::evaluate_json(scenario); }

// The report without its per-rank list: what the page needs at fleet scale.
std::string evaluate_summary(const std::string& scenario) {
  return pe::evaluate_json(scenario, /*with_ranks=*/false);
}

#ifdef PE_LAB_PLANNER
std::string plan(const std::string& scenario, int top_k, double headroom, const std::string& rank) {
  return pe::plan_json(
      scenario, top_k, headroom,
      [](int done, int total, long long evaluated) {
        return plan_progress(done, total, static_cast<double>(evaluated)) != 0;
      },
      rank);
}
#endif

#ifdef PE_LAB_PLANNER
// The math behind one number of the report, or (key "") the report with all of it. Only in
// lab-planner: the first-load module builds no derivation (wasm/CMakeLists.txt).
std::string explain(const std::string& scenario, const std::string& key) {
  return pe::explain_json(scenario, key);
}

// The schedule laid out for drawing: the Advanced section's, so the first load leaves it out.
std::string timeline(int stages, int microbatches, std::string schedule, int drawn) {
  return pe::timeline_json(stages, microbatches, schedule, drawn);
}
#endif

std::string layouts(const std::string& scenario) { return pe::layouts_json(scenario); }

// [dp, tp, pp, cp, ep, node, expert group] per rank, as an Int32Array view of wasm memory: 16,384
// ranks cost 448 KB here against ~1.7 MB of JSON. The view is valid until the next call; lab.js
// copies it. `order` is the scenario's nesting order ("tp,pp,dp"); an unknown one, or an ep that
// does not divide dp x cp, gives an empty list.
emscripten::val ranks(int dp, int tp, int pp, int cp, int ep, int gpus_per_node,
                      const std::string& order) {
  static std::vector<int32_t> flat;
  flat.clear();
  const pe::Degrees d{dp, tp, pp, cp, ep};
  // At most the GPUs a scenario may have; lab.js names `degrees` when the list comes back empty.
  const auto n = pe::rank_count(d, static_cast<long long>(pe::find_field("gpus")->max));
  const auto seams = pe::order_from_text(order);
  if (!n || ep < 1 || gpus_per_node < 1 || !seams || (1LL * dp * cp) % ep != 0) {
    return emscripten::val(emscripten::typed_memory_view(flat.size(), flat.data()));
  }
  flat.reserve(static_cast<size_t>(7 * *n));
  for (const pe::RankPlace& p : pe::layout(d, gpus_per_node, *seams)) {
    flat.insert(flat.end(), {p.dp, p.tp, p.pp, p.cp, p.ep, p.node, p.expert_group});
  }
  return emscripten::val(emscripten::typed_memory_view(flat.size(), flat.data()));
}

}  // namespace

EMSCRIPTEN_BINDINGS(parallelism_explorer) {
  emscripten::function("evaluate", &evaluate);
  emscripten::function("evaluateSummary", &evaluate_summary);
  emscripten::function("layouts", &layouts);
  emscripten::function("ranks", &ranks);
  emscripten::function("presets", &pe::presets_json);
  emscripten::function("schema", &pe::schema_text);
#ifdef PE_LAB_PLANNER
  emscripten::function("explain", &explain);
  emscripten::function("timeline", &timeline);
  emscripten::function("plan", &plan);
  emscripten::function("referenceRuns", &pe::reference_runs_json);
#endif
}

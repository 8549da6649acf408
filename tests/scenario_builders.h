// Small helpers that read like the book: "16 GPUs, data + tensor on".
#pragma once

#include "model/explorer.h"
#include "model/scenario.h"

namespace pe::test {

inline Scenario with_seams(bool data, bool tensor, bool pipeline, int gpus = 16) {
  Scenario s;
  s.fleet.gpus = gpus;
  s.recipe.seams = {data, tensor, pipeline};
  return s;
}

inline Scenario with_degrees(int dp, int tp, int pp) {
  Scenario s;
  s.fleet.gpus = dp * tp * pp;
  s.recipe.degrees = Degrees{dp, tp, pp};
  return s;
}

inline Report report_of(const Scenario& s) {
  Result<Report> r = evaluate(s);
  if (!r.ok()) ADD_FAILURE() << r.error();
  return r.ok() ? r.value() : Report{};
}

}  // namespace pe::test

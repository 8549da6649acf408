// The lab's public JS API: the C++ core behind one friendly call.
//
//   import { createLab, LabError } from './lab/lab.js';
//   const lab = await createLab();
//   const report = lab.evaluate({ seams: { data: true, tensor: true, pipeline: true } });
//
// The scenario and report are the JSON contract documented in README.md. A bad scenario
// throws LabError carrying the core's message (which names the key and what is allowed);
// the module is unharmed and keeps answering.
import createLabModule from './lab-module.js';

// key: the dotted scenario key at fault ('gpus', 'model.layers'), or null when the scenario
// as a whole is.
export class LabError extends Error {
  constructor(message, key = null) {
    super(message);
    this.name = 'LabError';
    this.key = key;
  }
}

// options are passed to the Emscripten module factory, e.g. { wasmBinary } in Node, where
// the web build cannot fetch a file path (Emscripten 3.1.6 predates Node's file fetch).
export async function createLab(options = {}) {
  const module = await createLabModule({ ...options });
  const call = (fn, ...args) => {
    const result = JSON.parse(fn(...args));
    if (result && result.error) throw new LabError(result.error.message, result.error.key);
    return result;
  };
  return {
    // The full report, with ranks[] for every GPU.
    evaluate: (scenario = {}) => call(module.evaluate, toJson(scenario)),
    // The report without ranks[]: for fleets, pair it with ranks().
    evaluateSummary: (scenario = {}) => call(module.evaluateSummary, toJson(scenario)),
    // The planner: { evaluated, feasible, why_best, plans: [...] }, fastest first.
    plan: (scenario = {}, top = 10) => call(module.plan, toJson(scenario), top | 0),
    // Every [dp, tp, pp] the core accepts for the scenario's GPU count and model.
    layouts: (scenario = {}) => call(module.layouts, toJson(scenario)).layouts,
    // The 1F1B schedule: { stages, microbatches, shown_microbatches, span, blocks }.
    timeline: (stages, microbatches) => call(module.timeline, stages | 0, microbatches | 0),
    // Int32Array of [dp, tp, pp, node] per rank (a copy; empty for an invalid layout).
    // order: the scenario's nesting order, innermost first (report.scenario.order).
    ranks: (degrees, gpusPerNode, order = 'tp,pp,dp') =>
      module
        .ranks(degrees.dp | 0, degrees.tp | 0, degrees.pp | 0, gpusPerNode | 0, String(order))
        .slice(),
    presets: () => call(module.presets),
    // The scenario's field table: { fields: [{ key, type, default, min, max, choices, ... }] }.
    schema: () => call(module.schema),
    referenceRuns: () => call(module.referenceRuns),
  };
}

function toJson(scenario) {
  let text;
  try {
    text = JSON.stringify(scenario);
  } catch (e) {
    throw new LabError(`scenario is not serialisable to JSON: ${e.message}`);
  }
  if (typeof text !== 'string') throw new LabError('scenario is missing: allowed a JSON object');
  return text;
}

// The lab's public JS API: the C++ core behind one friendly call.
//
//   import { createLab, LabError } from './lab/lab.js';
//   const lab = await createLab();
//   const report = lab.evaluate({ seams: { data: true, tensor: true, pipeline: true } });
//
// The scenario and report are the JSON contract documented in core/README.md. A bad scenario
// throws LabError carrying the core's message and the dotted key of the field at fault
// (error.key: "gpus", "model.layers", or null when the scenario as a whole is at fault);
// the module is unharmed and keeps answering.
//
// Two modules behind the same API, built from the same core (wasm/CMakeLists.txt):
//   createLab()                  lab-module, small (the page's first load): every call but
//                                explain(), plan(), referenceRuns() and timeline(), which throw a
//                                LabError saying so (its reports still list what they
//                                explain, under `explained`);
//   createLab({ planner: true }) lab-planner, built for speed and larger: every call. Its
//                                glue is imported only then, so a page that never plans
//                                downloads none of it.
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

// The wasm functions take 32-bit ints: a value past 2^31 would wrap around and a fraction
// would be cut, so both are refused here, before the call.
const INT_MAX = 2 ** 31 - 1;
function wholeNumber(name, value) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > INT_MAX) {
    let text;
    try {
      text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value);
    } catch {
      text = typeof value;
    }
    throw new LabError(`${name} is ${text}: allowed a whole number from 1`, name);
  }
  return value;
}

// The calls only lab-planner has.
const PLANNER_ONLY = ['explain', 'plan', 'referenceRuns', 'timeline'];

// planner: load lab-planner rather than lab-module (above). The other options are passed to
// the Emscripten module factory, e.g. { wasmBinary } in Node, where the web build cannot fetch
// a file path (Emscripten 3.1.6 predates Node's file fetch).
export async function createLab({ planner = false, ...options } = {}) {
  const module = await loadModule(planner, options);
  let schema = null;
  const lab = {
    // The full report, with ranks[] for every GPU.
    evaluate: (scenario = {}) => answer(module.evaluate, toJson(scenario)),
    // The report without ranks[]: for fleets, pair it with ranks().
    evaluateSummary: (scenario = {}) => answer(module.evaluateSummary, toJson(scenario)),
    // The calls whose arguments are checked here are functions of their own, below.
    explain: (...args) => explain(module, ...args),
    plan: (...args) => plan(module, ...args),
    // Every [dp, tp, pp] the core accepts for the scenario's GPU count and model; where the
    // context or expert seam is on, [dp, tp, pp, cp, ep] for layouts that use them.
    layouts: (scenario = {}) => answer(module.layouts, toJson(scenario)).layouts,
    timeline: (...args) => timeline(module, ...args),
    ranks: (...args) => ranks(module, () => lab.schema().fields, ...args),
    presets: () => answer(module.presets),
    // Published runs beside the model's prediction (createLab({ planner: true }) only).
    referenceRuns: () => answer(module.referenceRuns),
    // The scenario's fields: { fields: [{ key, type, default, min, max, choices, unit, group,
    // doc }, ...] }, the same table the core reads, checks and writes scenarios with; and
    // planner: { headroom: { ...the same shape }, fit_rule: the sentence a plan's fit obeys }.
    schema: () => (schema ??= answer(module.schema)),
  };
  return lab;
}

// The module, with a LabError in place of each call it does not bind (lab-module leaves out
// the planner's), saying which module has it.
async function loadModule(planner, options) {
  const factory = planner ? (await import('./lab-planner.js')).default : createLabModule;
  const module = await factory({ ...options });
  for (const name of PLANNER_ONLY) {
    module[name] ??= () => {
      throw new LabError(
        `${name}() is in the planner's module, not in the first-load one: ` +
          'create the lab with createLab({ planner: true })',
      );
    };
  }
  return module;
}

// A call's JSON answer, parsed; the core's error value thrown as a LabError.
function answer(fn, ...args) {
  const result = JSON.parse(fn(...args));
  if (result && result.error) throw new LabError(result.error.message, result.error.key);
  return result;
}

// lab.explain: the math behind one number of the scenario's report, a key its report lists
// under `explained` ('memory.per_gpu_bytes'): { formula, text, result, source }. Without a
// key, the full report with every derivation under `explain`. A key the report does not
// explain throws a LabError with key 'key', naming the keys it does.
function explain(module, scenario = {}, key = '') {
  if (typeof key !== 'string') {
    throw new LabError(`key is ${typeof key}: allowed a report key such as "time.step_s"`, 'key');
  }
  return answer(module.explain, toJson(scenario), key);
}

// lab.plan, the planner (createLab({ planner: true }) only): { evaluated, feasible, why_best,
// warnings, plans: [...] }, one plan per DP×TP×PP (×CP×EP) layout, fastest first, each with
// its layout's next fastest in variants.
// options: headroom (the fraction of GPU memory a plan leaves free: 0 keeps every plan within
// the GPU, those past the core's 80% rule marked verdict "tight"; 0.2 keeps only plans under
// the rule; its range is the core's, schema().planner.headroom), rank ("step", or
// "time_with_failures": the step over goodput's effective time; the core's
// schema().planner.rank) and onProgress(done, total, evaluated), called as the search goes
// (layouts done of all). onProgress returning false cancels the search: plan() then throws a
// LabError with key 'onProgress' and cancelled true. An exception in onProgress also ends the
// search and is thrown as a LabError (key 'onProgress', the exception as its cause). Either
// way the module is unharmed and answers the next call.
function plan(module, scenario = {}, top = 10, options = {}) {
  const { headroom = 0, rank = 'step', onProgress = null } = options;
  const text = toJson(scenario);
  wholeNumber('top', top);
  // A number, or embind would refuse it with its own words; the core checks its range.
  if (typeof headroom !== 'number') {
    throw new LabError(`headroom is ${String(headroom)}: allowed a number`, 'headroom');
  }
  // A string; the core names the values it allows.
  if (typeof rank !== 'string') {
    throw new LabError(`rank is ${String(rank)}: allowed "step" or "time_with_failures"`, 'rank');
  }
  let stop = null; // why the search stopped early: { thrown } or { cancelled: true }
  module.onPlanProgress = (done, total, evaluated) => {
    if (typeof onProgress !== 'function') return 1;
    try {
      if (onProgress(done, total, evaluated) !== false) return 1;
      stop = { cancelled: true };
    } catch (thrown) {
      stop = { thrown };
    }
    return 0;
  };
  try {
    return answer(module.plan, text, top, headroom, rank);
  } catch (e) {
    throw stop ? stoppedSearch(stop) : e;
  } finally {
    module.onPlanProgress = null;
  }
}

// lab.timeline, the schedule laid out (createLab({ planner: true }) only: the Advanced section
// draws it): { stages, microbatches, shown_microbatches, span, blocks }, each block [stage,
// micro-batch, pass (0 forward, 1 backward, 2 weight gradient), start, duration]. The core
// draws up to a limit of its own; past it the call is refused, not cut short, and so is what
// evaluate's schedule rule refuses (DualPipe on an odd number of stages: `stages`; too few
// micro-batches: `microbatches`). schedule: a value of the schema's `schedule` (1f1b when left
// out). drawn: at most this many micro-batches laid out (at least what the schedule needs; 0,
// the core's own limit).
function timeline(module, stages, microbatches, schedule = '1f1b', { drawn = 0 } = {}) {
  wholeNumber('stages', stages);
  wholeNumber('microbatches', microbatches);
  if (drawn !== 0) wholeNumber('drawn', drawn);
  return answer(module.timeline, stages, microbatches, String(schedule), drawn);
}

// lab.ranks: an Int32Array of [dp, tp, pp, cp, ep, node, expert group] per rank (a copy).
// degrees as report.degrees (cp and ep 1 when left out). order: the scenario's nesting order,
// innermost first (report.scenario.order; the core's default when left out). schemaFields:
// the schema's fields, for that default and the GPU limit.
function ranks(module, schemaFields, degrees, gpusPerNode, order = undefined) {
  const d = { cp: 1, ep: 1, ...(degrees ?? {}) };
  const [dp, tp, pp, cp, ep] = ['dp', 'tp', 'pp', 'cp', 'ep'].map((k) =>
    wholeNumber(`degrees.${k}`, d[k]),
  );
  wholeNumber('gpus_per_node', gpusPerNode);
  const fields = schemaFields();
  const nesting = order ?? fields.find((f) => f.key === 'order')?.default;
  if (typeof nesting !== 'string') {
    throw new LabError(`order is ${typeof nesting}: allowed a text such as "tp,pp,dp"`, 'order');
  }
  const out = module.ranks(dp, tp, pp, cp, ep, gpusPerNode, nesting).slice();
  if (out.length > 0) return out;
  throw ranksRefusal(fields, { dp, tp, pp, cp, ep }, nesting);
}

// Why the core laid out no rank: more GPUs than a scenario may have, an EP degree that does not
// divide DP × CP, or an order it does not know.
function ranksRefusal(fields, { dp, tp, pp, cp, ep }, nesting) {
  const max = fields.find((f) => f.key === 'gpus')?.max;
  if (dp * tp * pp * cp > max) {
    return new LabError(
      `degrees ${dp}x${tp}x${pp}x${cp} is ${dp * tp * pp * cp} GPUs: allowed up to ${max} GPUs`,
      'degrees',
    );
  }
  if ((dp * cp) % ep !== 0) {
    return new LabError(
      `degrees.ep is ${ep}: it must divide dp x cp = ${dp * cp} (EP groups are carved out ` +
        'of the data- and context-parallel ranks)',
      'degrees.ep',
    );
  }
  return new LabError(
    `order is ${JSON.stringify(nesting)}: allowed a permutation of tp, pp, dp`,
    'order',
  );
}

// The LabError for a search that onProgress stopped: by returning false (cancelled), or by
// throwing (the exception is the error's cause).
function stoppedSearch({ thrown, cancelled = false }) {
  if (cancelled) {
    const error = new LabError('the search was cancelled: onProgress returned false', 'onProgress');
    error.cancelled = true;
    return error;
  }
  let text;
  try {
    text = String(thrown?.message ?? thrown);
  } catch {
    text = typeof thrown;
  }
  const error = new LabError(`onProgress threw, so the search stopped: ${text}`, 'onProgress');
  error.cause = thrown;
  return error;
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

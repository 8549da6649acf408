// One lab's state: what the controls show (`state`), the last state the core accepted
// (`good`: the panels and the URL show it) and its report. Every change (a control, a preset
// button, mount()'s or update()'s options, the URL) goes through the state table, then once
// through the core; the frame that draws it reuses that answer. No DOM here: the view draws,
// the notes explain.
//
// A refusal carries the key of the field at fault. A field the reader just set stays as set,
// with the core's message beside it; a field the change did not set (an explicit layout when
// the GPU count changes) goes back to its default, and one set by options to where it was,
// with a note: one field at a time, each one the core names, until the core accepts (at most
// one call per field). Only when a refusal names no field that can go back (none, one the
// reader just set, one already put back or already at its fallback) is the change refused:
// the reader's stays beside its field, options' values are dropped as a whole.
import * as fmt from '../lib/format.js';
import { rowForKey, shown } from './options.js';
import {
  applyPreset,
  change,
  defaults,
  entry,
  fromScenario,
  keepPage,
  parse,
  toScenario,
} from './state.js';

const isLabError = (e) => e?.name === 'LabError';

// Each call into the core is marked ('lab-core-call', a User Timing mark: seen in a browser's
// performance panel), so a test can count them: one evaluation per change, the rank list only
// when the report is new.
const markCoreCall = (name) => performance.mark('lab-core-call', { detail: name });

// The core's answer for a state: { report } or { error: a LabError with its .key }. The last
// answer is kept, so the frame that draws a change does not ask again.
function asker(lab) {
  let last = { text: null, result: null };
  return (candidate) => {
    const scenario = toScenario(candidate);
    const text = JSON.stringify(scenario);
    if (text === last.text) return last.result;
    let result;
    try {
      markCoreCall('evaluateSummary');
      result = { report: lab.evaluateSummary(scenario) };
    } catch (e) {
      if (!isLabError(e)) throw e;
      result = { error: e };
    }
    last = { text, result };
    return result;
  };
}

// The candidate, or (when the core refuses it) the candidate with the rows its refusals name
// put back to `fallback`'s values, one at a time, each as long as `may(row)` allows, until the
// core accepts: { state, notes }, a note per row put back. When a refusal names no row, one
// `may` keeps, one already put back or one already at its fallback value: { state: candidate,
// error: the candidate's refusal, notes: [] }.
function consult(check, candidate, fallback, may) {
  const refused = check(candidate).error;
  if (!refused) return { state: candidate, notes: [] };
  const notes = [];
  const back = new Set(); // each row once: the loop ends within the table's length
  let state = candidate;
  for (let error = refused; error; error = check(state).error) {
    const row = rowForKey(error.key, state);
    if (!row || !may(row) || back.has(row.name) || state[row.name] === fallback[row.name]) {
      return { state: candidate, error: refused, notes: [] };
    }
    back.add(row.name);
    // An empty fallback (no calibration) is said as such, never as "; using ."
    const instead = fallback[row.name] === '' ? 'left out' : `using ${String(fallback[row.name])}`;
    notes.push(
      `${row.name}: ${shown(String(state[row.name]))} was refused by the model ` +
        `(${error.message}); ${instead}.`,
    );
    state = change(state, row.name, fallback[row.name]);
  }
  return { state, notes };
}

// A seam switched on an explicit layout sends the lab back to auto-factoring: said, with the
// layout it left and the one the core then chose.
function seamNote(name, on, before, after) {
  const row = entry(name);
  if (!row.scenario?.startsWith('seams.') || before.degrees === 'auto' || after.degrees !== 'auto')
    return '';
  const was = before.degrees.replaceAll('x', '×');
  return (report) =>
    `${row.label} switched ${on ? 'on' : 'off'}: the explicit layout ${was} gave way to ` +
    `auto-factoring the seams, now ${fmt.degrees(report.degrees)} on ` +
    `${fmt.integer(report.active_gpus)} GPUs.`;
}

export function createStore({ view, notes, onAccepted }) {
  let lab = null;
  let check = null;
  let state = null; // what the controls show
  let good = null; // the last state the core accepted
  let report = null;
  let frame = 0;
  let destroyed = false;
  // What the last change did beyond itself, said once the core has answered: a function of
  // the report, '' to clear, undefined when nothing is due.
  let changeNote;

  function set(next) {
    state = next;
    view.showState(state);
    if (!frame) frame = requestAnimationFrame(render);
  }

  function render() {
    cancelAnimationFrame(frame);
    frame = 0;
    if (!lab || destroyed) return;
    const result = check(state);
    if (result.error) {
      // The panels and the URL keep the last state the core accepted; the controls keep what
      // was set (so a change that needs two fields, hidden size then heads, can pass through
      // a refused one).
      changeNote = undefined; // a refused change did nothing to say
      const { key, message } = result.error;
      notes.error(`The model refused this scenario: ${message}`, rowForKey(key, state), key);
      return;
    }
    // The same answer object means only the page's own rows changed (the planner's margin, a
    // search asked): the drawn grid and panels stand, which at 15,360 GPUs saves a 60 ms redraw
    // in the middle of a search.
    const fresh = result.report !== report;
    // The state drawn already (a redraw once the advanced section has loaded): nothing new to
    // report or to write in the URL.
    const known = !fresh && state === good;
    report = result.report;
    good = state;
    notes.error(null);
    // The summary report has no ranks[]: the core's typed array is cheap at any fleet size.
    const { gpus_per_node: perNode, order } = report.scenario;
    if (fresh) markCoreCall('ranks');
    view.render(good, report, fresh ? lab.ranks(report.degrees, perNode, order) : null);
    if (changeNote !== undefined) {
      view.say(typeof changeNote === 'function' ? changeNote(report) : changeNote);
      changeNote = undefined;
    }
    if (!known) onAccepted(report);
  }

  // A control's new value, read as strictly as a URL's: one the table refuses (a number out
  // of range, an empty or mistyped field) is explained beside its control and changes nothing.
  function onChange(name, value) {
    if (!lab) return; // not started: the controls show the defaults until then
    const parsed = parse(name, value);
    if ('error' in parsed) {
      notes.error(`${name}: ${shown(value)} is not allowed (${parsed.error}).`, entry(name));
      return;
    }
    const next = change(state, name, parsed.value);
    changeNote = seamNote(name, parsed.value, state, next);
    const settled = consult(check, next, defaults(), (row) => row.name !== name);
    // The notes say what the lab did with the last thing it was given: this change's replace
    // the last one's (a refusal for the previous model is stale once another is chosen).
    notes.show(settled.notes);
    set(settled.state);
  }

  return {
    start(loadedLab, initial) {
      lab = loadedLab;
      check = asker(lab);
      state = initial;
    },
    get state() {
      return state;
    },
    get good() {
      return good;
    },
    get report() {
      return report;
    },
    onChange,
    // The core's answer for a state, without showing it: { report } or { error }.
    evaluate: (candidate) => check(candidate),
    // A preset or a loaded run replaces the state whole: no earlier note still applies.
    onPreset: (name) => (notes.show([]), set(applyPreset(state, name))),
    onLoad: (scenario) => (notes.show([]), set(keepPage(fromScenario(scenario), state))),
    // Options' values (read by the table) set on `from`: the notes about what the core refused.
    apply(next, from) {
      const settled = consult(check, next, from, () => true);
      if (!settled.error) {
        set(settled.state);
        return settled.notes;
      }
      set(from); // the last resort: no value the core names can go back
      return [
        `The model refused these values (${settled.error.message}); using the previous ones.`,
      ];
    },
    render,
    redraw() {
      if (!frame) frame = requestAnimationFrame(render);
    },
    destroy() {
      destroyed = true;
      cancelAnimationFrame(frame);
    },
  };
}

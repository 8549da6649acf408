// Compare's pins (the state's `pins` row): a pin is a whole state written as its URL
// parameters, read back through the state table and evaluated by the core on its own. The
// Compare panel (panels/compare.js) draws them and is given this by the view: it knows no
// state table. No DOM here.
import { paramsText, readOptions, stateFrom, toParams } from './options.js';
import { defaults, MAX_PINS, PIN_SEPARATOR, pinList, toScenario } from './state.js';

// A state as a pin: its URL parameters from the defaults (its own pins left out; the
// defaults themselves as advanced=0, so no pin is empty).
export const pinOf = (state) =>
  paramsText(toParams({ ...state, pins: '' }, defaults())) || 'advanced=0';

// A pin's state, read as a URL is: { state } or { error }.
function pinState(text) {
  const read = readOptions(new URLSearchParams(text));
  if (read.notes.length) return { error: read.notes[0] };
  return { state: stateFrom(read.values) };
}

// Each pin's answer from the core, kept by its text: { report } or { error }.
function evaluator(lab) {
  const cache = new Map();
  return (text) => {
    if (!cache.has(text)) {
      const read = pinState(text);
      let result;
      if (read.error) {
        result = { error: read.error };
      } else {
        try {
          result = { report: lab().evaluateSummary(toScenario(read.state)) };
        } catch (e) {
          result = { error: e.message };
        }
      }
      cache.set(text, result);
    }
    return cache.get(text);
  };
}

// One lab's pins. `lab()` is its core (once loaded); the answers are kept for the lab's life.
export function createPins({ lab }) {
  return {
    max: MAX_PINS,
    list: (state) => pinList(state.pins),
    of: pinOf,
    join: (list) => list.join(PIN_SEPARATOR),
    evaluate: evaluator(lab),
    stateOf: (text) => pinState(text).state,
  };
}

// Options and URLs, both read and written through the state table (state.js). One reader for
// the three ways options reach a lab (mount() options, the custom element's attributes, a
// page's query string or hash) and one writer for the URL. No DOM here.
//
// A value the table refuses, or a key it does not know, is dropped with a note (what was
// given, what is allowed, what is used instead); the lab shows the notes and starts anyway.
import {
  allowed, change, defaults, entry, factorizations, normalize, parseValue, STATE,
} from './state.js';

export const SEAMS = ['data', 'tensor', 'pipeline'];
export const THEMES = ['auto', 'light', 'dark'];
export const URL_MODES = ['none', 'query', 'hash'];

// Parts of the lab an author can hide; any control can be hidden too, by its state name.
export const PARTS = ['intro', 'switches', 'badge', 'warnings', 'advanced', 'grid', 'caption',
  'legend', 'readout', 'memory', 'wire', 'breakdown', 'steptime', 'timeline', 'planner',
  'references', 'share', 'export'];
const CONTROLS = STATE.filter((e) => e.control && e.name !== 'advanced').map((e) => e.name);
export const HIDEABLE = [...PARTS, ...CONTROLS];

// Keys that are not state: they say how the lab looks and where its state lives. A URL written
// by the lab keeps them (embed.html?hide=advanced stays hidden as its state changes).
export const OPTION_KEYS = ['hide', 'theme', 'url'];

const STATE_NAMES = new Set(STATE.map((e) => e.name));
const SHOWN_NOTES = 8;
const MAX_NOTES = 100;

// A value as it may be echoed in a note: quoted, short, one line (the note is text, never HTML).
export function shown(value) {
  let text;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, ' ');
  return `"${text.length > 40 ? `${text.slice(0, 37)}…` : text}"`;
}

const listOf = (value) => (Array.isArray(value) ? value.map(String)
  : typeof value === 'string' ? value.split(/[,\s]+/) : null);

// [key, value] pairs (an object's entries, a URLSearchParams, attributes) ->
//   { values: state rows given, valid by the table; hide, theme, url (undefined if not given);
//     notes: what was refused }
// Keys are case-insensitive and take - for _ (gpus-per-node). Unknown keys get a note.
export function readOptions(pairs, ctx = {}) {
  const values = Object.create(null); // no prototype: a key like __proto__ is just a key
  const notes = [];
  const out = { values, notes, hide: undefined, theme: undefined, url: undefined };
  const refuse = (key, value, what, instead) => notes.push(
    `${key}: ${shown(value)} is not allowed (${what})${instead ? `; using ${instead}` : ''}.`);
  for (const [rawKey, value] of pairs) {
    const key = String(rawKey).trim().toLowerCase().replace(/-/g, '_');
    if (key === 'seams') {
      const list = listOf(value)?.map((s) => s.trim().toLowerCase()).filter(Boolean);
      const none = list?.length === 1 && list[0] === 'none';
      if (!list || (!none && !list.every((s) => SEAMS.includes(s)))) {
        refuse('seams', value, `a list of ${SEAMS.join(', ')}, or none`, 'data');
        continue;
      }
      for (const s of SEAMS) values[s] = !none && list.includes(s);
    } else if (key === 'hide') {
      const list = listOf(value)?.map((s) => s.trim().toLowerCase().replace(/-/g, '_')).filter(Boolean);
      if (!list) {
        refuse('hide', value, 'a list of parts or controls');
        continue;
      }
      const bad = list.filter((p) => !HIDEABLE.includes(p));
      if (bad.length) refuse('hide', bad.join(','), `parts to hide: ${HIDEABLE.join(', ')}`);
      out.hide = list.filter((p) => HIDEABLE.includes(p));
    } else if (key === 'theme' || key === 'url') {
      const allowedValues = key === 'theme' ? THEMES : URL_MODES;
      const v = typeof value === 'string' ? value.trim().toLowerCase() : null;
      if (allowedValues.includes(v)) out[key] = v;
      else refuse(key, value, `one of ${allowedValues.join(', ')}`, allowedValues[0]);
    } else if (STATE_NAMES.has(key)) {
      const result = parseValue(key, value, ctx);
      if ('error' in result) refuse(key, value, result.error, String(entry(key).default));
      else values[key] = result.value;
    } else {
      notes.push(`${shown(rawKey)} is not an option of this lab (ignored). Options: seams, ` +
        `${[...STATE_NAMES].join(', ')}, ${OPTION_KEYS.join(', ')}.`);
    }
  }
  // An advanced row only counts while the Advanced section is open: setting one away from its
  // default opens it, unless `advanced` itself was given (a URL the lab wrote always says).
  if (!('advanced' in values) &&
      Object.keys(values).some((k) => entry(k).advanced && values[k] !== entry(k).default)) {
    values.advanced = true;
  }
  return out;
}

// The state for the values read: every row at its default unless given, applied through the
// table's own rules (change()) in the table's order, the layout last since whether it is valid
// depends on the rest. A layout that does not fit the rest falls back to auto with a note.
export function stateFrom(values, ctx = {}, base = defaults(), notes = []) {
  let state = base;
  for (const e of STATE) {
    if (e.name in values && e.name !== 'degrees') state = change(state, e.name, values[e.name], ctx);
  }
  if ('degrees' in values) {
    state = change(state, 'degrees', values.degrees, ctx);
    if (state.degrees !== values.degrees) {
      const valid = factorizations(state, ctx).slice(0, 6)
        .map((d) => `${d.dp}x${d.tp}x${d.pp}`).join(', ');
      notes.push(`degrees: ${shown(values.degrees)} is not a layout of ${state.gpus} GPUs for ` +
        `this model (allowed: auto${valid ? `, ${valid}, …` : ''}); using auto.`);
    }
  }
  return normalize(state, ctx);
}

// The notes to show: the first few at once, the next ones behind "… and N more", the rest
// only counted, so a URL with a thousand bad keys neither buries the lab nor floods the page.
export function splitNotes(notes) {
  const shownNow = notes.slice(0, SHOWN_NOTES);
  const more = notes.slice(SHOWN_NOTES, MAX_NOTES);
  return { shown: shownNow, more, dropped: Math.max(0, notes.length - MAX_NOTES) };
}

// Does the URL carry this row? Only when it differs from where the reader starts, and not a
// preset's detail while the preset is picked (its value is then the preset's).
function carried(e, state, from) {
  if (e.detailOf && state[e.detailOf] !== 'custom') return false;
  return state[e.name] !== from[e.name];
}

// The state as URL parameters: what differs from `from` (the defaults, or the state a lab's
// options start it in), in the table's order, the seams as one list (unless an explicit
// layout sets them). `advanced` is written whenever an advanced row is, so the reader does not
// have to guess it. Read back by readOptions + stateFrom from the same start, it gives the
// same state (tests/browser/share.test.mjs).
export function toParams(state, from = defaults()) {
  const params = new URLSearchParams();
  if (state.degrees === 'auto' && SEAMS.some((s) => state[s] !== from[s])) {
    const on = SEAMS.filter((s) => state[s]);
    params.set('seams', on.length ? on.join(',') : 'none');
  }
  const rows = STATE.filter((e) => e.advanced && carried(e, state, from));
  if (rows.length || state.advanced !== from.advanced) params.set('advanced', state.advanced ? '1' : '0');
  for (const e of rows) params.set(e.name, String(state[e.name]));
  return params;
}

// The parameters as the URL shows them: commas left readable (seams=data,tensor).
export const paramsText = (params) => params.toString().replaceAll('%2C', ',');

// Every row whose scenario key the message mentions ("... must divide model.hidden (4096)"),
// in the order they appear: the rows a refusal may be fixed by, after the one it names.
export function rowsInMessage(message) {
  const text = String(message);
  return STATE.filter((e) => new RegExp(`(^|[^a-z_.])${e.scenario.replace('.', '\\.')}([^a-z_.]|$)`).test(text))
    .sort((a, b) => text.indexOf(a.scenario) - text.indexOf(b.scenario));
}

// The row a core message is about ("model.heads is 30: ...", "degrees: ...", "micro_batch is
// ..."): its leading key, matched to a row's scenario key, else a row's name, else the first
// part of the key. Prefers the row that applies in this state (network vs network_gb_s).
export function rowForError(message, state) {
  const key = /^([a-z_]+(?:\.[a-z_]+)*)/.exec(String(message))?.[1];
  if (!key) return null;
  const applies = (e) => (!e.when || e.when(state)) && (!e.sendIf || e.sendIf(state));
  const pick = (rows) => rows.find(applies) ?? rows[0] ?? null;
  return pick(STATE.filter((e) => e.scenario === key))
    ?? pick(STATE.filter((e) => e.name === key))
    ?? pick(STATE.filter((e) => e.scenario === key.split('.')[0]));
}

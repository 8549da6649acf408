// Options and URLs, both read and written through the state table (state.js). One reader for
// the three ways options reach a lab (mount() options, the custom element's attributes, a
// page's query string or hash) and one writer for the URL. No DOM here.
//
// A value the table refuses, or a key it does not know, is dropped with a note (what was
// given, what is allowed, what is used instead); the lab shows the notes and starts anyway.
import {
  applies,
  change,
  defaults,
  entry,
  hasSchema,
  normalize,
  parse,
  ROWS,
  rows,
} from './state.js';

export const SEAMS = ['data', 'tensor', 'pipeline'];
export const THEMES = ['auto', 'light', 'dark'];
export const URL_MODES = ['none', 'query', 'hash'];

// Parts of the lab an author can hide; any control can be hidden too, by its state name.
export const PARTS = [
  'intro',
  'switches',
  'order',
  'fleet',
  'badge',
  'status',
  'warnings',
  'advanced',
  'grid',
  'caption',
  'legend',
  'readout',
  'memory',
  'wire',
  'compare',
  'breakdown',
  'steptime',
  'timeline',
  'planner',
  'references',
  'calibrate',
  'goodput',
  'exercises',
  'share',
  'export',
];
const CONTROLS = ROWS.filter((e) => e.control && e.name !== 'advanced').map((e) => e.name);
export const HIDEABLE = [...PARTS, ...CONTROLS];

// Keys that are not state: they say how the lab looks and where its state lives. A URL written
// by the lab keeps them (embed.html?hide=advanced stays hidden as its state changes).
export const OPTION_KEYS = ['hide', 'theme', 'url'];

const STATE_NAMES = new Set(ROWS.map((e) => e.name));
const SHOWN_NOTES = 8;
const MAX_NOTES = 100;

// A value as it may be echoed in a note: quoted, short, one line (the note is text, never
// HTML). The limit counts characters, so a cut never splits one in half.
export function shown(value) {
  const chars = [...textOf(value).replace(/\s+/g, ' ')];
  return `"${chars.length > 40 ? `${chars.slice(0, 37).join('')}…` : chars.join('')}"`;
}

// Any value as text, whatever it is: a symbol, an object whose toString throws, a Proxy.
export function textOf(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return `[${typeof value}]`;
    }
  }
}

// A value read once into plain data: strings, numbers, booleans, null and undefined as they
// are; an array as an array of those; any other object as its JSON copy (a getter that throws,
// a cycle or a hostile Proxy: its text). Nothing read later can throw or change under the lab.
function plain(value, depth = 0) {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'object':
      if (value === null) return null;
      try {
        if (depth === 0 && Array.isArray(value)) {
          return Array.from({ length: Math.min(value.length, 1000) }, (_, i) => plain(value[i], 1));
        }
        return JSON.parse(JSON.stringify(value) ?? 'null');
      } catch {
        return textOf(value);
      }
    default: // a function, a symbol, a bigint: refused by every row, shown as text
      return textOf(value);
  }
}

const errorText = (e) => {
  try {
    return String(e?.message ?? e);
  } catch {
    return 'an exception';
  }
};

// mount()'s and update()'s options, read once and never throwing: { pairs: [key, value] of
// plain data, js: { onReport?, linkBase? } (given from JavaScript only), notes }. Options may be
// an object, a URLSearchParams or an array of [key, value] pairs; a key whose getter throws,
// or options that cannot be listed at all, get a note.
export function readMountOptions(options, jsOnly = []) {
  const out = { pairs: [], js: {}, notes: [] };
  const note = (text) => out.notes.push(text);
  let entries = [];
  try {
    if (options == null) return out;
    if (typeof options !== 'object') {
      entries = [['options', options]];
    } else if (options instanceof URLSearchParams) {
      entries = [...options];
    } else if (Array.isArray(options)) {
      for (let i = 0; i < Math.min(options.length, 10_000); i++) {
        const pair = options[i];
        if (Array.isArray(pair) && pair.length === 2) entries.push([pair[0], pair[1]]);
      }
    } else {
      for (const key of Object.keys(options)) {
        try {
          entries.push([key, options[key]]);
        } catch (e) {
          note(`${shown(key)} could not be read (${errorText(e)}); ignored.`);
        }
      }
    }
  } catch (e) {
    note(`The options could not be read (${errorText(e)}); using the defaults.`);
  }
  for (const [rawKey, value] of entries) {
    const key = textOf(rawKey);
    if (jsOnly.includes(key)) out.js[key] = typeof value === 'function' ? value : plain(value);
    else out.pairs.push([key, plain(value)]);
  }
  return out;
}

const listOf = (value) =>
  Array.isArray(value)
    ? value.map(textOf)
    : typeof value === 'string'
      ? value.split(/[,\s]+/)
      : null;

// The old network picker's fabrics, for links written before the GPU presets carried their
// network: HDR InfiniBand is 200 Gb/s per port (25 GB/s), NDR 400 Gb/s (50 GB/s).
const OLD_NETWORK_GB_S = Object.freeze({ __proto__: null, hdr: 25, ndr: 50 });

// [key, value] pairs (an object's entries, a URLSearchParams, attributes) ->
//   { values: state rows given, valid by the table; hide, theme, url (undefined if not given);
//     notes: what was refused }
// Keys are case-insensitive and take - for _ (gpus-per-node). Unknown keys get a note, and so
// does a key given more than once (?gpus=32&gpus=64): the last one counts.
export function readOptions(pairs) {
  const values = Object.create(null); // no prototype: a key like __proto__ is just a key
  const notes = [];
  const out = { values, notes, hide: undefined, theme: undefined, url: undefined };
  const refuse = (key, value, what, instead) =>
    notes.push(
      `${key}: ${shown(value)} is not allowed (${what})${instead ? `; using ${instead}` : ''}.`,
    );
  const keyOf = (rawKey) => textOf(rawKey).trim().toLowerCase().replace(/-/g, '_');
  const list = [...pairs].map(([rawKey, value]) => [keyOf(rawKey), rawKey, value]);
  const given = new Map(); // key -> every value given for it, in order
  for (const [key, , value] of list) {
    if (!given.has(key)) given.set(key, []);
    given.get(key).push(value);
  }
  for (const [key, all] of given) {
    if (all.length < 2) continue;
    const first = all.slice(0, 3).map(shown).join(', ');
    notes.push(
      `${key}: given ${all.length} times (${first}${all.length > 3 ? ', …' : ''}); ` +
        `using the last, ${shown(all.at(-1))}.`,
    );
  }
  const last = new Map(list.map(([key], i) => [key, i]));
  for (const [i, [key, rawKey, value]] of list.entries()) {
    if (last.get(key) !== i) continue; // an earlier copy of a repeated key
    if (key === 'seams') {
      const list = listOf(value)
        ?.map((s) => s.trim().toLowerCase())
        .filter(Boolean);
      const none = list?.length === 1 && list[0] === 'none';
      if (!list || (!none && !list.every((s) => SEAMS.includes(s)))) {
        refuse('seams', value, `a list of ${SEAMS.join(', ')}, or none`);
        continue;
      }
      for (const s of SEAMS) values[s] = !none && list.includes(s);
    } else if (key === 'hide') {
      const list = listOf(value)
        ?.map((s) => s.trim().toLowerCase().replace(/-/g, '_'))
        .filter(Boolean);
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
    } else if (key === 'network' && !STATE_NAMES.has(key)) {
      // Links written before the GPU presets carried their network named its fabric.
      const fabric = typeof value === 'string' ? value.trim().toLowerCase() : null;
      if (fabric in OLD_NETWORK_GB_S) values.network_gb_s ??= OLD_NETWORK_GB_S[fabric];
      else if (fabric !== 'custom')
        refuse(key, value, 'hdr or ndr, the old picker; network_gb_s sets it now');
    } else if (STATE_NAMES.has(key)) {
      if (!hasSchema()) continue; // the look alone, before the module has loaded
      const result = parse(key, value);
      const instead = entry(key).default ?? "the core's choice";
      if ('error' in result) refuse(key, value, result.error, String(instead));
      else values[key] = result.value;
    } else {
      notes.push(
        `${shown(rawKey)} is not an option of this lab (ignored). Options: seams, ` +
          `${[...STATE_NAMES].join(', ')}, ${OPTION_KEYS.join(', ')}.`,
      );
    }
  }
  // An advanced row only counts while the Advanced section is open: setting one away from its
  // default opens it, unless `advanced` itself was given (a URL the lab wrote always says).
  if (
    hasSchema() &&
    !('advanced' in values) &&
    Object.keys(values).some((k) => entry(k).advanced && values[k] !== entry(k).default)
  ) {
    values.advanced = true;
  }
  return out;
}

// The state for the values read: every row at its default unless given, applied through the
// table's own rules (change()) in the table's order, the layout last so that the seams it
// implies win. Whether the result is a scenario the core accepts is the core's to say.
export function stateFrom(values, base = defaults()) {
  let state = base;
  for (const e of rows()) {
    if (e.name in values && e.name !== 'degrees') state = change(state, e.name, values[e.name]);
  }
  if ('degrees' in values) state = change(state, 'degrees', values.degrees);
  return normalize(state);
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
// layout sets them), then the book's other rows (the nesting order). `advanced` is written
// whenever an advanced row is, so the reader does not have to guess it. Read back by
// readOptions + stateFrom from the same start, it gives the same state
// (tests/browser/share.test.mjs).
export function toParams(state, from = defaults()) {
  const params = new URLSearchParams();
  if (state.degrees === 'auto' && SEAMS.some((s) => state[s] !== from[s])) {
    const on = SEAMS.filter((s) => state[s]);
    params.set('seams', on.length ? on.join(',') : 'none');
  }
  for (const e of rows()) {
    if (!e.advanced && !e.own && !SEAMS.includes(e.name) && carried(e, state, from))
      params.set(e.name, String(state[e.name]));
  }
  const advanced = rows().filter((e) => e.advanced && carried(e, state, from));
  if (advanced.length || state.advanced !== from.advanced)
    params.set('advanced', state.advanced ? '1' : '0');
  for (const e of advanced) params.set(e.name, String(state[e.name]));
  // The page's own rows outside the section (the pinned states), last.
  for (const e of rows()) {
    if (e.page && !e.advanced && carried(e, state, from)) params.set(e.name, String(state[e.name]));
  }
  return params;
}

// The parameters as the URL shows them: commas left readable (seams=data,tensor).
export const paramsText = (params) => params.toString().replaceAll('%2C', ',');

// The row a core refusal is about, by the key it carries ("model.heads", "degrees.dp",
// "seams.data"): the row fed by that key, else by the nearest key above it ("degrees" for
// "degrees.dp"). Prefers the row that applies in this state, where two rows feed one key.
export function rowForKey(key, state) {
  if (typeof key !== 'string') return null;
  for (let k = key; k; k = k.slice(0, Math.max(0, k.lastIndexOf('.')))) {
    const fed = rows().filter((e) => e.scenario === k);
    if (fed.length) return fed.find((e) => applies(e, state)) ?? fed[0];
  }
  return null;
}

// The state table: the page's rows (rows.js) joined with the core's field table
// (lab.schema()). From the schema each row takes its type, default, range or choices, unit,
// fieldset and, for a preset's detail, the preset it belongs to and what each preset sets; so
// no range, default, group or preset value is typed on the page. useSchema() builds the table
// once (every lab on a page shares the core's schema) as new, frozen rows: the rows in
// rows.js are never changed. No DOM here.
import { GROUPS, ROWS } from './rows.js';

const SCHEMA_TYPES = {
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  enum: 'enum',
  preset: 'enum',
  order: 'enum',
  set: 'set',
};

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

// "1 to 1,024", "above 0, up to 100,000": a number row's range in words.
export function span(e) {
  const [lo, hi] = e.range.map((v) => grouped.format(v));
  return e.above ? `above ${lo}, up to ${hi}` : `${lo} to ${hi}`;
}

// Every order of the seams, "tp,pp,dp" style, `first` (the chapter's) first.
function orders(seams, first) {
  const all = [];
  const walk = (done, rest) => {
    if (!rest.length) all.push(done.join(','));
    for (const s of rest)
      walk(
        [...done, s],
        rest.filter((x) => x !== s),
      );
  };
  walk([], seams);
  return [first, ...all.filter((o) => o !== first)];
}

// "TP, PP, DP (the chapter's rule)", "DP, TP, PP".
function orderLabels(choices, rule) {
  const words = (o) => o.toUpperCase().replaceAll(',', ', ');
  return Object.fromEntries(
    choices.map((o) => [o, o === rule ? `${words(o)} (the chapter's rule)` : words(o)]),
  );
}

const wholeRange = ([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

// A schema field's type, default, range, choices and unit, as the row holds them.
function fromField(e, f) {
  if (!f || !(f.type in SCHEMA_TYPES))
    throw new Error(`no scenario field "${e.scenario}" for ${e.name}`);
  // 0.7 / 0.01 is 69.99999999999999: twelve digits are more than any field holds. An unscaled
  // value is the core's as it is (a default rate of 12.621467496141975 failures stays exact).
  const unscale = (v) => (e.scale ? Number((v / e.scale).toPrecision(12)) : v);
  const b = { type: SCHEMA_TYPES[f.type] };
  b.default = e.core ? null : typeof f.default === 'number' ? unscale(f.default) : f.default;
  if (f.type === 'set') b.default = f.default.join(','); // a list, held as "core_attn,mlp"
  if ('min' in f) b.range = [unscale(f.min), unscale(f.max)];
  b.above = Boolean(f.min_exclusive);
  if (f.choices) b.choices = f.type === 'preset' ? [...f.choices, 'custom'] : f.choices;
  if (f.type === 'order') {
    b.choices = orders(f.choices, f.default);
    b.labels = orderLabels(b.choices, f.default);
  }
  if (b.type === 'integer' && e.control === 'select') b.choices = wholeRange(b.range);
  b.unit = e.unit ?? (f.unit || undefined);
  return b;
}

// What each choice of a preset row sets, by state name: { choice: { row: value } }, of its
// details (tuned: false) or of the values a user may tune under its name (tuned: true).
function presetDetails(f, rows, tuned) {
  const byKey = (values) => {
    const out = {};
    for (const r of rows) {
      if (r.scenario in values && !r.own && Boolean(r.tunes) === tuned)
        out[r.name] = r.scale ? values[r.scenario] / r.scale : values[r.scenario];
    }
    return out;
  };
  const details = f?.details;
  if (!details) return null;
  return Object.fromEntries(Object.entries(details).map(([name, v]) => [name, byKey(v)]));
}

// The table for a schema: the rows in order, each with what the schema says of its field.
function bind(schema) {
  const fields = new Map(schema.fields.map((f) => [f.key, f]));
  const rows = ROWS.map((e) => {
    const f = fields.get(e.scenario);
    const b = { ...e };
    if (e.own?.planner) {
      // A planner option (the margin): its range and default are the core's, with the rule
      // it adds to.
      Object.assign(b, fromField(e, schema.planner[e.own.planner]));
      b.fitRule = schema.planner.fit_rule;
    } else if (e.own) {
      Object.assign(b, e.own);
      // A block read as JSON (the calibration): the keys it may hold are the schema's.
      const inside = `${e.scenario}.`;
      if (b.type === 'calibration')
        b.keys = schema.fields
          .filter((x) => x.key.startsWith(inside))
          .map((x) => x.key.slice(inside.length));
    } else {
      Object.assign(b, fromField(e, f));
    }
    b.group = f?.group;
    b.tunes = Boolean(f?.tunes_preset);
    // A detail of one of the core's presets (a tuned value such as efficiency is not: it
    // shows and is sent whatever the preset).
    if (f?.detail_of && !f.tunes_preset) {
      b.detailOf = ROWS.find((r) => r.scenario === f.detail_of && !r.own).name;
    }
    return b;
  });
  for (const b of rows) {
    const f = fields.get(b.scenario);
    b.presets = presetDetails(f, rows, false);
    const tuned = presetDetails(f, rows, true);
    if (tuned && Object.values(tuned).some((v) => Object.keys(v).length)) b.tuned = tuned;
    if (typeof b.hint === 'string' && b.range) b.hint = b.hint.replace('{range}', span(b));
    Object.freeze(b);
  }
  return {
    rows: Object.freeze(rows),
    byName: new Map(rows.map((r) => [r.name, r])),
    groups: GROUPS.map((g) => ({ ...g, rows: rows.filter((r) => r.group === g.name) })),
  };
}

let table = null;

// The core's schema, given once the wasm module has loaded (again: the same schema, ignored).
export function useSchema(schema) {
  table ??= bind(schema);
}

// Has the table the schema yet? Before it, only the look of a lab can be read.
export const hasSchema = () => table !== null;

function bound() {
  if (!table) throw new Error('the state table needs the schema: call useSchema(lab.schema())');
  return table;
}

// Every row, in order, with the schema's part.
export const rows = () => bound().rows;

// The Advanced form's fieldsets: { name, label, rows }.
export const groups = () => bound().groups;

export function entry(name) {
  const e = bound().byName.get(name);
  if (!e) throw new Error(`unknown state "${name}"`);
  return e;
}

export function defaults() {
  return Object.fromEntries(rows().map((e) => [e.name, e.default]));
}

// Does the row apply in this state (its control shows; it is sent unless its picker says
// 'custom')? A preset's detail applies while the preset is 'custom'.
export function shows(e, state) {
  if (e.detailOf && state[e.detailOf] !== 'custom') return false;
  if (!e.when) return true;
  return Object.entries(e.when).every(([k, v]) =>
    v === true ? Boolean(state[k]) : state[k] === v,
  );
}

// A preset picker (model, gpu, precision): it has choices that set other rows.
export const isPicker = (e) => Boolean(e.presets);

// The rows a preset choice sets, by state name (null for 'custom' or an unknown choice).
export const presetValues = (name, choice) => entry(name).presets?.[choice] ?? null;

// A select's options: [[value, label], ...] (a choice's label is the page's, else the choice).
export function optionsOf(e) {
  return e.choices?.map((v) => [v, e.labels?.[v] ?? String(v)]) ?? null;
}

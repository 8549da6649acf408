// The one reader of a row's value, for every way one reaches the lab: a control, a URL, an
// embed option or attribute, a loaded scenario. parse() says whether the row takes the value
// as it is ({ value }) or not ({ error: what is allowed, fallback }); `fallback` is what a
// control's value stands for instead (a number above the range is the top of the range, a
// whole-number row rounds, anything else is the default). No DOM here.
import { MAX_PINS, PIN_SEPARATOR, pinList } from './rows.js';
import { entry, span } from './table.js';

const MAX_PIN_CHARS = 4000;
const MAX_BLOCK_CHARS = 8000;

// A block given as JSON text (the calibration): '' for none, else one JSON object holding only
// the keys the schema lists for it, kept as its compact text. What each key holds is the
// core's to judge: a value it refuses names its key (calibration.step_time_s).
function blockOk(e, value) {
  if (value === '') return { value };
  if (typeof value !== 'string' || value.length > MAX_BLOCK_CHARS) return null;
  let block;
  try {
    block = JSON.parse(value);
  } catch {
    return null;
  }
  if (!block || typeof block !== 'object' || Array.isArray(block)) return null;
  if (!Object.keys(block).every((k) => e.keys.includes(k))) return null;
  // JSON.parse reads 1e309 as Infinity, which would reach the core as null: refused here,
  // naming its key.
  const huge = infinitePath(block);
  if (huge) {
    return {
      error: `${e.name}.${huge} is past the largest number (about 1.8e308): allowed a finite number`,
    };
  }
  return { value: JSON.stringify(block) };
}

// The dotted key of the first number in `value` that is not finite, or ''. MAX_BLOCK_CHARS
// bounds the walk.
function infinitePath(value, at = '') {
  if (typeof value === 'number') return Number.isFinite(value) ? '' : at;
  if (!value || typeof value !== 'object') return '';
  for (const [k, v] of Object.entries(value)) {
    const found = infinitePath(v, at ? `${at}.${k}` : k);
    if (found) return found;
  }
  return '';
}

// 'DPxTPxPP' or 'DPxTPxPPxCPxEP' (or with ×) -> { dp, tp, pp, cp, ep }; anything else ->
// null. EP is not a factor of the GPU count (its groups are carved out of DP × CP).
export function parseDegrees(text) {
  const n = '\\s*[x×]\\s*(\\d+)';
  const m = new RegExp(`^(\\d+)${n}${n}(?:${n}${n})?$`).exec(String(text).trim());
  if (!m) return null;
  return {
    dp: Number(m[1]),
    tp: Number(m[2]),
    pp: Number(m[3]),
    cp: m[4] === undefined ? 1 : Number(m[4]),
    ep: m[5] === undefined ? 1 : Number(m[5]),
  };
}

// The book's '2x4x2'; '8x8x16x16x1' when context or expert parallelism is in play.
export const degreesText = ({ dp, tp, pp, cp = 1, ep = 1 }) =>
  cp === 1 && ep === 1 ? `${dp}x${tp}x${pp}` : `${dp}x${tp}x${pp}x${cp}x${ep}`;

const positive = (d) => d && d.dp > 0 && d.tp > 0 && d.pp > 0 && d.cp > 0 && d.ep > 0;

// A pins text the row takes: a string of at most MAX_PINS pins, none empty. What each pin
// holds is read when it is evaluated (a pin the core refuses says so in the comparison).
function pinsOk(value) {
  if (typeof value !== 'string' || value.length > MAX_PIN_CHARS) return false;
  const list = pinList(value);
  return list.length <= MAX_PINS && list.every((p) => p !== '');
}

// What a row accepts, in words, for the notes about refused URL values and embed options.
export function allowed(name) {
  const e = entry(name);
  const unset = e.core ? ', or empty for the core to choose' : '';
  switch (e.type) {
    case 'boolean':
      return 'true or false';
    case 'integer':
    case 'number':
      return `${e.type === 'integer' ? 'a whole number' : 'a number'} ${e.above ? '' : 'from '}${span(e)}${unset}`;
    case 'enum':
      return `one of ${e.choices.join(', ')}`;
    case 'set':
      return `any of ${e.choices.join(', ')}, separated by commas`;
    case 'pins':
      return `up to ${MAX_PINS} states pinned by the lab, separated by ${PIN_SEPARATOR}`;
    case 'calibration':
      return `empty, or one JSON object of the measured run with the keys ${e.keys.join(', ')}`;
    case 'degrees':
      return (
        'auto, or DP×TP×PP of the GPU count written as 2x4x2 ' +
        '(with context and expert parallelism DP×TP×PP×CP×EP, as 8x8x16x16x1)'
      );
    default:
      return '';
  }
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const inRange = (e, n) => (e.above ? n > e.range[0] : n >= e.range[0]) && n <= e.range[1];

// A number the row refuses, as a control's value: the top of the range above it (nothing
// sits just above an open bound, so below it is the default), a whole number rounded.
function numberFallback(e, n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return e.default;
  if (n > e.range[1]) return e.range[1];
  if (inRange(e, n) && e.type === 'integer') return Math.round(n);
  return e.default;
}

// Booleans also take 1/0, on/off, yes/no and '' (a bare attribute or ?tensor); a row the
// core chooses for takes '' (or null) to leave it to the core.
export function parse(name, value) {
  const e = entry(name);
  const refuse = (fallback = e.default) => ({ error: allowed(name), fallback });
  const text = typeof value === 'string' ? value.trim() : null;
  if (e.core && (value === null || text === '')) return { value: null };
  switch (e.type) {
    case 'boolean': {
      if (typeof value === 'boolean') return { value };
      const key = text?.toLowerCase();
      if (['true', '1', 'on', 'yes', ''].includes(key)) return { value: true };
      if (['false', '0', 'off', 'no'].includes(key)) return { value: false };
      return refuse();
    }
    case 'integer':
    case 'number': {
      let n = value;
      if (text !== null) n = NUMBER_TEXT.test(text) ? Number(text) : NaN;
      const ok = typeof n === 'number' && Number.isFinite(n) && inRange(e, n);
      if (!ok || (e.type === 'integer' && !Number.isInteger(n))) {
        return refuse(numberFallback(e, n));
      }
      return { value: n };
    }
    case 'enum': {
      const v = text ?? (typeof value === 'number' ? String(value) : null);
      return e.choices.includes(v) ? { value: v } : refuse();
    }
    case 'set': {
      // A list or "a,b": the choices given, in the schema's order, each once.
      const items = Array.isArray(value) ? value : text?.split(',').map((x) => x.trim());
      if (!items?.every((x) => x === '' || e.choices.includes(x))) return refuse();
      return { value: e.choices.filter((c) => items.includes(c)).join(',') };
    }
    case 'degrees': {
      if (text === 'auto') return { value: text };
      const d = text === null ? null : parseDegrees(text);
      return positive(d) ? { value: degreesText(d) } : refuse();
    }
    case 'pins':
      return pinsOk(value) ? { value } : refuse();
    case 'calibration': {
      const r = blockOk(e, typeof value === 'string' ? value.trim() : value);
      return !r ? refuse() : r.error ? { error: r.error, fallback: e.default } : r;
    }
    default:
      throw new Error(`state "${name}" has unknown type ${e.type}`);
  }
}

// The value a row holds for `value`: as parsed, or its fallback.
export function valueOf(name, value) {
  const r = parse(name, value);
  return 'value' in r ? r.value : r.fallback;
}

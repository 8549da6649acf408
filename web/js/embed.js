// The lab as a component: mount(element, options) -> { update(options), destroy(), ready }.
// Every lab on a page is independent (its own state, markup and ids, everything found inside
// its own root) and all of them share one compiled wasm module (getLab()). The standalone
// page (main.js), the custom element (../parallelism-explorer.js) and the iframe page
// (embed-page.js) are its three users.
//
//   import { mount } from './js/embed.js';
//   const lab = mount(document.querySelector('#lab'), { gpus: 64, seams: 'data,tensor',
//     hide: ['advanced'], theme: 'dark', url: 'hash' });
//
// Options (README.md "Embedding"): any state key of state.js (gpus, degrees, model, ...),
// seams (a list), hide (parts or controls), theme (auto | light | dark), url (none | query |
// hash: where the state is read from and written to), and from JavaScript only: onReport
// (called with each report the core accepts) and linkBase (the page a copied link opens).
// A value the state table refuses, an unknown key, or one the core refuses falls back to its
// default with a note in the lab; mount never throws for bad options.
import { createControls } from './controls.js';
import { make, uid } from './dom.js';
import { MARKUP } from './markup.js';
import {
  OPTION_KEYS, paramsText, PARTS, readOptions, rowForError, rowsInMessage, shown, splitNotes, stateFrom, toParams,
} from './options.js';
import { createGrid } from './render-grid.js';
import { createMemory } from './render-memory.js';
import { createSummary } from './render-summary.js';
import { createWire } from './render-wire.js';
import {
  applyPreset, change, defaults, entry, fromScenario, normalize, parseValue, toScenario,
} from './state.js';

const CSS_URL = new URL('../explorer.css', import.meta.url).href;
const PAGE_URL = new URL('../', import.meta.url).href;
const EMBED_URL = new URL('../embed.html', import.meta.url).href;
const URL_WRITE_MS = 250; // history.replaceState at most this often
const JS_ONLY = new Set(['onReport', 'linkBase']);

let labPromise = null;

// The one compiled module (and the lab API around it) that every lab on the page shares,
// loaded by the first lab that needs it. The JS glue is imported here, not at the top, so a
// page that only defines labs (the custom element off screen) downloads none of it yet.
export function getLab() {
  labPromise ??= import('../lab/lab.js').then((m) => m.createLab()).catch((e) => {
    labPromise = null; // a later lab may try again
    throw e;
  });
  return labPromise;
}

// The stylesheet, once per document or shadow root; resolves once it applies.
function ensureStyles(host) {
  const rootNode = host.getRootNode();
  const parent = rootNode instanceof ShadowRoot ? rootNode : document.head;
  let link = [...parent.querySelectorAll('link[rel="stylesheet"]')].find((l) => l.href === CSS_URL);
  if (!link) link = make('link', { rel: 'stylesheet', href: CSS_URL }, parent);
  if (link.sheet) return Promise.resolve();
  return new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  });
}

const isLabError = (e) => e?.name === 'LabError';

// Options as [key, value] pairs: from an object, a URLSearchParams or an array of pairs.
function pairsOf(options) {
  if (options == null) return [];
  if (typeof options !== 'object') return [['options', options]];
  let entries;
  if (options instanceof URLSearchParams) entries = [...options];
  else if (Array.isArray(options)) entries = options.filter((p) => Array.isArray(p) && p.length === 2);
  else entries = Object.entries(options);
  return entries.filter(([k]) => !JS_ONLY.has(k));
}

export function mount(host, options = {}) {
  if (!(host instanceof Element)) throw new TypeError('mount(element, options): element must be a DOM element');
  const root = make('section', { className: 'pe-lab loading' });
  const prefix = uid('lab');
  root.innerHTML = MARKUP.replaceAll('@@', `${prefix}-`);
  root.setAttribute('aria-labelledby', `${prefix}-title`);
  root.setAttribute('aria-busy', 'true');
  root.dataset.theme = 'auto';
  host.append(root);

  const $ = (selector) => root.querySelector(selector);
  const details = $('details.advanced');
  const outputs = $('.advanced-out');
  const errorBox = $('.lab-error');
  const js = {
    onReport: typeof options?.onReport === 'function' ? options.onReport : null,
    linkBase: PAGE_URL,
  };

  let lab = null;
  let ctx = {};
  let state = defaults(); // what the controls show
  let good = null; // the last state the core accepted: the panels and the URL show it
  let base = defaults(); // the state the options start from: the URL says how good differs
  let report = null;
  let look = { hide: [], theme: 'auto', url: 'none' };
  let urlOptions = {}; // hide/theme/url given in the URL itself, written back with the state
  let frame = 0;
  let urlTimer = 0;
  let destroyed = false;
  let advanced = null; // the advanced module's view, once loaded
  let advancedLoading = null;
  let notes = [];

  const summary = createSummary(root);
  const grid = createGrid({ svg: $('.gpu-grid'), legend: $('.legend'), readout: $('.readout') });
  const renderers = [summary, createMemory($('.memory')), createWire($('.wire'))];
  const controls = createControls($('.switches'), { onChange: (name, value) => onChange(name, value) });

  // ---- notes about refused options, and the hidden parts

  const notesBody = $('.pe-notes-body');
  function showNotes(list) {
    notes = list;
    const { shown: first, more, dropped } = splitNotes(list);
    const items = first.map((text) => make('li', { textContent: text }));
    if (more.length) {
      const li = make('li');
      const details = make('details', {}, li);
      make('summary', { textContent: `… and ${more.length + dropped} more` }, details);
      const ul = make('ul', {}, details);
      for (const text of more) make('li', { textContent: text }, ul);
      if (dropped) make('li', { textContent: `(${dropped} more not listed)` }, ul);
      items.push(li);
    }
    $('.pe-notes-list').replaceChildren(...items);
    notesBody.hidden = list.length === 0;
  }
  $('.pe-notes-dismiss').addEventListener('click', () => showNotes([]));

  function applyLook() {
    root.dataset.theme = look.theme;
    for (const el of root.querySelectorAll('[data-pe-hidden]')) el.removeAttribute('data-pe-hidden');
    for (const name of look.hide) {
      const targets = PARTS.includes(name)
        ? root.querySelectorAll(`[data-part="${name}"]`)
        : [...root.querySelectorAll(`[data-state="${name}"]`)].map((el) => el.closest('.field') ?? el);
      for (const el of targets) el.setAttribute('data-pe-hidden', '');
    }
  }

  // ---- state changes and rendering

  function set(next) {
    state = next;
    controls.update(state);
    if (state.advanced) loadAdvanced();
    if (!frame) frame = requestAnimationFrame(render);
  }
  // A control's new value, read as strictly as a URL's: one the table refuses (a number out
  // of range, an empty or mistyped field) is explained beside its control and changes nothing.
  function onChange(name, value) {
    const parsed = parseValue(name, value, ctx);
    if ('error' in parsed) {
      showError(`${name}: ${shown(value)} is not allowed (${parsed.error}).`, entry(name));
      return;
    }
    set(change(state, name, parsed.value, ctx));
  }

  details.addEventListener('toggle', () => {
    if (details.open !== state.advanced) onChange('advanced', details.open);
  });

  function loadAdvanced() {
    advancedLoading ??= import('./advanced.js').then(({ createAdvanced }) => {
      if (destroyed) return;
      advanced = createAdvanced({
        body: details.querySelector('.advanced-body'), outputs, lab, ctx, onChange,
        onPreset: (name) => set(applyPreset(state, name, ctx)),
        onLoad: (scenario) => set(fromScenario(scenario, ctx)),
      });
      applyLook();
      if (!frame) frame = requestAnimationFrame(render);
    });
    return advancedLoading;
  }

  function showError(message, row = null) {
    // Beside the form's field when the advanced section shows it, else at the top. The form
    // keeps what was typed, so the reader sees the value the message is about.
    const besideForm = Boolean(message) && state.advanced && advanced;
    errorBox.hidden = !message || besideForm;
    errorBox.textContent = message && !besideForm ? message : '';
    if (advanced) advanced.showError(besideForm ? message : null, row?.name ?? null);
  }

  function render() {
    frame = 0;
    if (!lab || destroyed) return;
    if (details.open !== state.advanced) details.open = state.advanced;
    let next;
    try {
      next = lab.evaluateSummary(toScenario(state));
    } catch (e) {
      if (!isLabError(e)) throw e;
      // The panels and the URL keep the last state the core accepted; the controls keep what
      // was set (so a change that needs two fields, hidden size then heads, can pass through a
      // refused one), and the message beside the field it names says what to fix.
      showError(`The model refused this scenario: ${e.message}`, rowForError(e.message, state));
      return;
    }
    report = next;
    good = state;
    showError(null);
    outputs.hidden = !state.advanced || !advanced;
    // The summary report has no ranks[]: the core's typed array is cheap at any fleet size.
    grid.update(report, lab.ranks(report.degrees, report.scenario.gpus_per_node));
    for (const r of renderers) r.update(report);
    if (advanced && state.advanced) advanced.update(state, report);
    scheduleUrl();
    js.onReport?.(report);
  }

  // ---- the URL

  function readUrl() {
    if (look.url === 'none') return [];
    const text = look.url === 'query' ? location.search.slice(1) : location.hash.slice(1);
    return [...new URLSearchParams(text)];
  }

  // This lab's URL: the state as it differs from `from` (the options' state for the page's own
  // URL; the defaults for a link to the standalone page or to embed.html), and the look given
  // in the URL itself.
  function urlFor(mode, page, from = base, extra = urlOptions) {
    const params = toParams(good ?? state, from);
    for (const k of OPTION_KEYS) if (extra[k] !== undefined) params.set(k, extra[k]);
    const url = new URL(page);
    if (mode === 'hash') url.hash = paramsText(params);
    else url.search = paramsText(params);
    return url.href;
  }

  function writeUrl() {
    urlTimer = 0;
    delete root.dataset.urlPending;
    if (look.url === 'none' || !good || destroyed) return;
    const href = urlFor(look.url, location.href);
    if (href !== location.href) history.replaceState(history.state, '', href);
  }
  // At most one write per URL_WRITE_MS, with the state as it is then; data-url-pending says
  // one is due (the tests wait for it to go).
  function scheduleUrl() {
    if (look.url === 'none' || urlTimer || !good) return;
    if (urlFor(look.url, location.href) === location.href) return;
    root.dataset.urlPending = '';
    urlTimer = setTimeout(writeUrl, URL_WRITE_MS);
  }
  function onHashChange() {
    if (look.url === 'hash' && good && location.href !== urlFor('hash', location.href)) {
      showNotes(apply(readUrl(), { fromUrl: true, from: base }));
    }
  }
  addEventListener('hashchange', onHashChange);

  // ---- options

  // Reads option pairs into the lab: the look at once, the state through the table and then
  // the core (a row it refuses goes back to its default, with a note).
  function apply(pairs, { fromUrl = false, from = state } = {}) {
    const read = readOptions(pairs, ctx);
    const list = [...read.notes];
    if (read.hide !== undefined) look.hide = read.hide;
    if (read.theme !== undefined) look.theme = read.theme;
    if (read.url !== undefined) look.url = read.url;
    if (fromUrl) {
      urlOptions = {};
      if (read.hide !== undefined) urlOptions.hide = read.hide.join(',');
      if (read.theme !== undefined) urlOptions.theme = read.theme;
      if (read.url !== undefined) urlOptions.url = read.url;
    }
    applyLook();
    if (!lab) return list;
    let next = stateFrom(read.values, ctx, from, list);
    // The core has the last word: each refusal names a row, which goes back to its default.
    for (let tries = 0; tries < 8; tries++) {
      try {
        lab.evaluateSummary(toScenario(next));
        break;
      } catch (e) {
        if (!isLabError(e)) throw e;
        // The row it names, else another it mentions ("must divide model.hidden"), that is
        // not at its default yet; failing that, the defaults.
        const row = [rowForError(e.message, next), ...rowsInMessage(e.message)]
          .find((r) => r && next[r.name] !== r.default);
        if (!row) {
          list.push(`The model refused these values (${e.message}); using the defaults.`);
          next = normalize({}, ctx);
          break;
        }
        list.push(`${row.name}: ${shown(String(next[row.name]))} was refused by the model ` +
          `(${e.message}); using ${entry(row.name).default}.`);
        next = change(next, row.name, row.default, ctx);
      }
    }
    set(next);
    return list;
  }

  // ---- share and export

  const status = $('.share-status');
  const fallback = $('.copy-fallback');
  function fileStem() {
    const d = report.degrees;
    return `parallelism-${report.gpus}gpus-${d.dp}x${d.tp}x${d.pp}`;
  }
  function snippet() {
    // The iframe looks as this lab does: same state, same hidden parts and theme.
    const src = urlFor('query', EMBED_URL, defaults(), {
      hide: look.hide.length ? look.hide.join(',') : undefined,
      theme: look.theme !== 'auto' ? look.theme : undefined,
    });
    const origin = new URL(EMBED_URL).origin;
    return `<iframe src="${src.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}" ` +
      'title="3D parallelism explorer" width="100%" height="900" loading="lazy" ' +
      'style="border:0"></iframe>\n<script>addEventListener("message", (e) => {\n' +
      `  if (e.origin !== ${JSON.stringify(origin)} || e.data?.context !== "iframe.resize") return;\n` +
      '  for (const f of document.querySelectorAll("iframe"))\n' +
      '    if (f.contentWindow === e.source) f.style.height = `${e.data.height}px`;\n' +
      '});</script>';
  }
  const say = (text) => { status.textContent = text; };
  // share.js is imported on the first click: most readers never copy or export.
  const actions = {
    async 'copy-link'({ copyText }) {
      const link = look.url === 'none' ? urlFor('query', js.linkBase, defaults(), {})
        : urlFor(look.url, location.href);
      const how = await copyText(link, fallback);
      say(how === 'copied' ? 'Link copied.' : 'The link is selected below: copy it with Ctrl+C.');
    },
    async 'copy-snippet'({ copyText }) {
      const how = await copyText(snippet(), fallback);
      say(how === 'copied' ? 'Embed snippet copied.' : 'The snippet is selected below: copy it with Ctrl+C.');
    },
    'export-json'({ download }) {
      const full = lab.evaluate(toScenario(good));
      download(new Blob([`${JSON.stringify(full, null, 2)}\n`], { type: 'application/json' }),
        `${fileStem()}.json`);
      say('Report downloaded (JSON).');
    },
    'export-svg'({ download, serializeSvg }) {
      download(new Blob([gridDrawing(serializeSvg).text], { type: 'image/svg+xml' }), `${fileStem()}.svg`);
      say('Grid downloaded (SVG).');
    },
    async 'export-png'({ download, serializeSvg, svgToPng }) {
      download(await svgToPng(gridDrawing(serializeSvg)), `${fileStem()}.png`);
      say('Grid downloaded (PNG).');
    },
  };
  function gridDrawing(serializeSvg) {
    const svg = grid.mode === 'fleet' ? root.querySelector('svg.fleet') : $('.gpu-grid');
    return serializeSvg(svg, { title: $('.layout-text').textContent,
      background: getComputedStyle(root).backgroundColor });
  }
  for (const button of root.querySelectorAll('.share-bar [data-action]')) {
    button.addEventListener('click', async () => {
      if (!report) return;
      try {
        await actions[button.dataset.action](await import('./share.js'));
      } catch (e) {
        say(`That did not work: ${e.message}`);
      }
    });
  }

  // ---- start

  // The look first (theme, hidden parts), before the module loads; then the state.
  const initial = pairsOf(options);
  const jsNotes = [];
  if (options?.linkBase !== undefined) {
    let link = null;
    try {
      link = new URL(String(options.linkBase), location.href);
    } catch {
      link = null;
    }
    if (link && (link.protocol === 'https:' || link.protocol === 'http:')) js.linkBase = link.href;
    else jsNotes.push(`linkBase: ${shown(options.linkBase)} is not allowed (an http or https URL); using ${PAGE_URL}.`);
  }
  if (options?.onReport !== undefined && !js.onReport) {
    jsNotes.push(`onReport: ${shown(typeof options.onReport)} is not allowed (a function); ignored.`);
  }
  apply(initial);

  const ready = Promise.all([getLab(), ensureStyles(host)]).then(async ([loaded]) => {
    if (destroyed) return;
    lab = loaded;
    ctx = { presets: lab.presets(), layouts: (scenario) => lab.layouts(scenario) };
    const fromUrl = readUrl();
    const list = [...jsNotes, ...apply(initial)];
    base = state;
    if (fromUrl.length) list.push(...apply(fromUrl, { fromUrl: true }));
    showNotes(list);
    // Ready means drawn: with the advanced section, once its module has loaded too.
    if (state.advanced) await loadAdvanced();
    if (destroyed) return;
    cancelAnimationFrame(frame);
    render();
    await grid.drawn();
    root.classList.remove('loading');
    root.removeAttribute('aria-busy');
    root.dataset.ready = '1';
  }).catch((e) => {
    errorBox.hidden = false;
    errorBox.textContent = `The lab could not start: ${e.message}`;
    root.classList.remove('loading');
    root.removeAttribute('aria-busy');
    throw e;
  });
  ready.catch(() => {}); // reported in the lab; callers may still await it

  return {
    ready,
    // Changes some options: state keys go through the table and the core as at mount
    // (null resets a key to its default); hide, theme and url replace theirs.
    update(partial = {}) {
      if (destroyed) return;
      // null or undefined: back to the default.
      const pairs = pairsOf(partial).map(([k, v]) => {
        if (v !== null && v !== undefined) return [k, v];
        const name = String(k).toLowerCase().replace(/-/g, '_');
        const reset = { hide: '', theme: 'auto', url: 'none', seams: 'data' }[name] ?? defaultOf(name);
        return [k, reset === undefined ? v : String(reset)];
      });
      if (typeof partial?.onReport === 'function') js.onReport = partial.onReport;
      showNotes(apply(pairs));
      scheduleUrl();
    },
    get state() { return { ...(good ?? state) }; },
    get report() { return report; },
    destroy() {
      destroyed = true;
      cancelAnimationFrame(frame);
      clearTimeout(urlTimer);
      summary.destroy();
      grid.destroy();
      removeEventListener('hashchange', onHashChange);
      root.remove();
    },
  };
}

function defaultOf(name) {
  try {
    return entry(name).default;
  } catch {
    return undefined; // not a state key: readOptions notes it
  }
}

// Where one lab's state lives in the page's URL (the `url` option: none, query or hash): read
// once at start, written back as it changes (history.replaceState, at most every
// URL_WRITE_MS), read again when the reader edits the hash. A lab owns its part of the URL,
// and reads its state from nowhere else, so the URL and the lab never disagree. Also the links
// a lab hands out (copy link, the embed snippet).
import { OPTION_KEYS, paramsText, toParams } from './options.js';

const URL_WRITE_MS = 250;

export function createUrlSync({ root, current, onHashChange }) {
  let mode = 'none';
  let base = null; // the state the options start from: the URL says how the lab differs
  let given = {}; // hide/theme/url given in the URL itself, written back with the state
  let timer = 0;

  function read() {
    if (mode === 'none') return [];
    const text = mode === 'query' ? location.search.slice(1) : location.hash.slice(1);
    return [...new URLSearchParams(text)];
  }

  // The lab's URL on `page`: the state as it differs from `from` (the options' state for the
  // page's own URL; the defaults for a link to the standalone page or to embed.html), and the
  // look given in the URL itself.
  function urlFor(where, page, from = base, extra = given) {
    const params = toParams(current(), from);
    for (const k of OPTION_KEYS) if (extra[k] !== undefined) params.set(k, extra[k]);
    const url = new URL(page);
    if (where === 'hash') url.hash = paramsText(params);
    else url.search = paramsText(params);
    return url.href;
  }

  function write() {
    timer = 0;
    delete root.dataset.urlPending;
    if (mode === 'none' || !current()) return;
    const href = urlFor(mode, location.href);
    if (href !== location.href) history.replaceState(history.state, '', href);
  }

  function hashChanged() {
    if (mode === 'hash' && current() && location.href !== urlFor('hash', location.href)) {
      onHashChange(read());
    }
  }
  addEventListener('hashchange', hashChanged);

  return {
    get mode() {
      return mode;
    },
    set mode(next) {
      mode = next;
    },
    set base(state) {
      base = state;
    },
    read,
    urlFor,
    // The look the URL itself gave (hide, theme, url), kept in the URL as the state changes.
    keep(read) {
      given = {};
      if (read.hide !== undefined) given.hide = read.hide.join(',');
      if (read.theme !== undefined) given.theme = read.theme;
      if (read.url !== undefined) given.url = read.url;
    },
    // At most one write per URL_WRITE_MS, with the state as it is then; data-url-pending says
    // one is due (the tests wait for it to go).
    schedule() {
      if (mode === 'none' || timer || !current()) return;
      if (urlFor(mode, location.href) === location.href) return;
      root.dataset.urlPending = '';
      timer = setTimeout(write, URL_WRITE_MS);
    },
    destroy() {
      clearTimeout(timer);
      removeEventListener('hashchange', hashChanged);
    },
  };
}

// The lab's share and export bar: "Copy link", "Copy embed snippet", the report (JSON) and the
// grid (SVG, PNG). lib/share.js does the copying and the drawing; it is imported on the first
// click, since most readers never copy or export.
import { defaults, toScenario } from '../state/state.js';

const EMBED_URL = new URL('../../embed.html', import.meta.url).href;
// The host's listener, a classic script published beside embed.html (not code of this page).
const HOST_URL = new URL('iframe-host.js', EMBED_URL).href;

// The iframe snippet for `src`, with the script file that sizes it (README.md "Embedding"): a
// file, not an inline script, so it runs under a page's CSP that refuses inline scripts.
function snippet(src) {
  return (
    `<iframe src="${src.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}" ` +
    'title="3D parallelism explorer" width="100%" height="1280" loading="lazy" ' +
    'allow="clipboard-write"></iframe>\n' +
    `<script src="${HOST_URL.replaceAll('"', '&quot;')}"></script>`
  );
}

// The report as a person reads it: whole numbers exact, the rest to 6 significant digits
// (0.30000000000000004 -> 0.3, 1.2345678e-7 -> 1.23457e-7).
export const rounded = (key, value) =>
  typeof value === 'number' && !Number.isInteger(value) && Number.isFinite(value)
    ? Number(value.toPrecision(6))
    : value;

// `lab` is the mounted lab's parts (embed.js): its store (report, good state), look, url
// sync, core, view and JavaScript options (linkBase).
export function createShareBar(root, lab) {
  const status = root.querySelector('.share-status');
  const fallback = root.querySelector('.copy-fallback');
  const say = (text) => {
    status.textContent = text;
  };
  function fileStem() {
    const { report } = lab.store;
    const d = report.degrees;
    return `parallelism-${report.gpus}gpus-${d.dp}x${d.tp}x${d.pp}`;
  }
  function gridDrawing(serializeSvg) {
    return serializeSvg(lab.view.gridSvg(), {
      title: root.querySelector('.layout-text').textContent,
      background: getComputedStyle(root).backgroundColor,
    });
  }
  const actions = {
    async 'copy-link'({ copyText }) {
      const { url } = lab;
      const link =
        url.mode === 'none'
          ? url.urlFor('query', lab.js.linkBase, defaults(), {})
          : url.urlFor(url.mode, location.href);
      const how = await copyText(link, fallback);
      say(how === 'copied' ? 'Link copied.' : 'The link is selected below: copy it with Ctrl+C.');
    },
    async 'copy-snippet'({ copyText }) {
      // The iframe looks as this lab does: same state, same hidden parts and theme.
      const { hide, theme } = lab.look;
      const src = lab.url.urlFor('query', EMBED_URL, defaults(), {
        hide: hide.length ? hide.join(',') : undefined,
        theme: theme !== 'auto' ? theme : undefined,
      });
      const how = await copyText(snippet(src), fallback);
      say(
        how === 'copied'
          ? 'Embed snippet copied.'
          : 'The snippet is selected below: copy it with Ctrl+C.',
      );
    },
    'export-json'({ download }) {
      const full = lab.core.evaluate(toScenario(lab.store.good));
      const text = `${JSON.stringify(full, rounded, 2)}\n`;
      download(new Blob([text], { type: 'application/json' }), `${fileStem()}.json`);
      say('Report downloaded (JSON).');
    },
    'export-svg'({ download, serializeSvg }) {
      const blob = new Blob([gridDrawing(serializeSvg).text], { type: 'image/svg+xml' });
      download(blob, `${fileStem()}.svg`);
      say('Grid downloaded (SVG).');
    },
    async 'export-png'({ download, serializeSvg, svgToPng }) {
      // A picture on its own: the layout's sentence as a visible title, the legend under it.
      const { composeFigure, legendRows } = await import('../lib/figure.js');
      const style = getComputedStyle(root);
      const figure = composeFigure(gridDrawing(serializeSvg), {
        title: root.querySelector('.layout-text').textContent,
        legend: legendRows(root.querySelector('.legend')),
        background: style.backgroundColor,
        foreground: style.color,
      });
      download(await svgToPng(figure), `${fileStem()}.png`);
      say('Grid downloaded (PNG).');
    },
  };
  for (const button of root.querySelectorAll('.share-bar [data-action]')) {
    button.addEventListener('click', async () => {
      if (!lab.store.report) return;
      try {
        await actions[button.dataset.action](await import('../lib/share.js'));
      } catch (e) {
        say(`That did not work: ${e.message}`);
      }
    });
  }
}

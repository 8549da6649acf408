// Sharing and figures: "Copy link", "Copy embed snippet", and downloads of the report (JSON)
// and of the GPU grid (SVG, PNG) for authors. app/share-bar.js says what to copy and export; this
// module does the copying (the clipboard API, else the text shown selected for Ctrl+C) and
// turns the grid on screen into a self-contained drawing.

const SVG_NS = 'http://www.w3.org/2000/svg';

// The computed properties a drawing needs once it leaves the page's stylesheet.
const PAINT = [
  'fill',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-linecap',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'dominant-baseline',
];
const COLOURS = new Set(['fill', 'stroke']);

// Any CSS colour (the tiles are oklch()) as #rrggbb plus an opacity, read back from a 1×1
// canvas, so the file opens in tools that know only sRGB.
export function colourConverter() {
  const ctx = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext(
    '2d',
    { willReadFrequently: true },
  );
  const cache = new Map();
  return (css) => {
    if (css === 'none' || css.startsWith('url(')) return { value: css };
    if (!cache.has(css)) {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#000';
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
      const hex = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
      cache.set(css, { value: hex, opacity: a < 255 ? +(a / 255).toFixed(3) : null });
    }
    return cache.get(css);
  };
}

// A standalone copy of an SVG on screen: each element's computed paint written as presentation
// attributes (not style attributes, which a strict CSP refuses to apply), elements that do not
// show dropped, a background, a title. Returns { text, width, height }.
export function serializeSvg(svg, { title = '', background = null } = {}) {
  const clone = svg.cloneNode(true);
  const convert = colourConverter();
  const originals = [svg, ...svg.querySelectorAll('*')];
  const copies = [clone, ...clone.querySelectorAll('*')];
  const drop = [];
  originals.forEach((el, i) => {
    const copy = copies[i];
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') {
      if (i > 0) drop.push(copy);
      return;
    }
    copy.removeAttribute('style');
    copy.removeAttribute('tabindex');
    copy.removeAttribute('class');
    for (const prop of PAINT) {
      const v = cs.getPropertyValue(prop);
      if (!v || (prop === 'opacity' && v === '1')) continue;
      if (COLOURS.has(prop)) {
        const c = convert(v);
        copy.setAttribute(prop, c.value);
        if (c.opacity !== null) copy.setAttribute(`${prop}-opacity`, String(c.opacity));
      } else {
        copy.setAttribute(prop, v);
      }
    }
  });
  for (const el of drop) el.remove();
  const [, , width, height] = (svg.getAttribute('viewBox') ?? '0 0 300 150')
    .split(/\s+/)
    .map(Number);
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  for (const attr of ['role', 'aria-label', 'aria-describedby']) clone.removeAttribute(attr);
  if (background) {
    const rect = document.createElementNS(SVG_NS, 'rect');
    for (const [k, v] of Object.entries({
      x: 0,
      y: 0,
      width,
      height,
      fill: convert(background).value,
    })) {
      rect.setAttribute(k, String(v));
    }
    clone.prepend(rect);
  }
  if (title) {
    const t = document.createElementNS(SVG_NS, 'title');
    t.textContent = title;
    clone.prepend(t);
  }
  return { text: new XMLSerializer().serializeToString(clone), width, height };
}

// The same drawing as a PNG: the SVG drawn onto a canvas (an <img> of a blob: URL, which the
// CSP allows with img-src blob:), about 2,000 pixels wide at most.
export async function svgToPng({ text, width, height }) {
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const scale = Math.max(1, Math.min(3, 2000 / width));
    const canvas = Object.assign(document.createElement('canvas'), {
      width: Math.round(width * scale),
      height: Math.round(height * scale),
    });
    canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob(
        (blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be made'))),
        'image/png',
      ),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function download(blob, filename) {
  const a = Object.assign(document.createElement('a'), {
    href: URL.createObjectURL(blob),
    download: filename,
  });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

// Copies text: the clipboard API where the page may use it, else the text is shown selected
// in the fallback box (copied with execCommand when the browser still allows that).
export async function copyText(text, fallback) {
  fallback.hidden = true;
  try {
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch {
    const area = fallback.querySelector('textarea');
    area.value = text;
    fallback.hidden = false;
    area.focus();
    area.select();
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    return copied ? 'copied' : 'selected';
  }
}

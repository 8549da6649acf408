// The exported figure (Grid (PNG)): the grid's standalone drawing (share.js serializeSvg) under
// a visible title and over its legend, so the picture explains itself once it leaves the page.
// legend: rows of { swatches: [{ text, fill, ink }], text }, read off the legend on screen.
import { colourConverter } from './share.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PAD = 16;
const TITLE_H = 30;
const ROW_H = 24;
const CHIP_W = 30;
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

const escape = (text) =>
  String(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function composeFigure(drawing, { title, legend = [], background, foreground }) {
  const convert = colourConverter();
  const ink = convert(foreground).value;
  const rowWidth = (row) => 2 * PAD + row.swatches.length * CHIP_W + 8 + row.text.length * 6.5;
  const width = Math.ceil(
    Math.max(drawing.width + 2 * PAD, 640, title.length * 9 + 2 * PAD, ...legend.map(rowWidth)),
  );
  const gridTop = PAD + TITLE_H;
  const legendTop = gridTop + drawing.height + PAD;
  const height = legendTop + legend.length * ROW_H + PAD;
  const parts = [
    `<rect x="0" y="0" width="${width}" height="${height}" fill="${convert(background).value}"/>`,
    `<text x="${PAD}" y="${PAD + 18}" font-family='${FONT}' font-size="16" font-weight="700" ` +
      `fill="${ink}">${escape(title)}</text>`,
    // The grid's own document, placed as a nested drawing (its xmlns stripped: it inherits).
    drawing.text.replace(/^<svg\b/, `<svg x="${PAD}" y="${gridTop}"`).replace(/ xmlns="[^"]*"/, ''),
  ];
  legend.forEach((row, i) => {
    const y = legendTop + i * ROW_H;
    let x = PAD;
    for (const chip of row.swatches) {
      const fill = chip.fill ? convert(chip.fill).value : 'none';
      parts.push(
        `<rect x="${x}" y="${y}" width="${CHIP_W - 4}" height="18" rx="3" fill="${fill}" ` +
          `stroke="${ink}" stroke-opacity="0.3"/>`,
        `<text x="${x + (CHIP_W - 4) / 2}" y="${y + 13}" text-anchor="middle" font-family='${FONT}' ` +
          `font-size="10" fill="${chip.ink ? convert(chip.ink).value : ink}">${escape(chip.text)}</text>`,
      );
      x += CHIP_W;
    }
    parts.push(
      `<text x="${x + 4}" y="${y + 13}" font-family='${FONT}' font-size="12" fill="${ink}">` +
        `${escape(row.text)}</text>`,
    );
  });
  const text =
    `<svg xmlns="${SVG_NS}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<title>${escape(title)}</title>${parts.join('')}</svg>`;
  return { text, width, height };
}

// The legend on screen as rows for composeFigure: each entry that shows, its chips (colour,
// ink, label) and its words.
export function legendRows(legend) {
  const rows = [];
  for (const el of legend.querySelectorAll('[data-legend]')) {
    if (el.hidden || getComputedStyle(el).display === 'none') continue;
    const swatches = [...el.querySelectorAll('.chip')].map((c) => {
      const cs = getComputedStyle(c);
      const fill = c.style.background ? cs.backgroundColor : null;
      return { text: c.textContent, fill, ink: fill ? cs.color : null };
    });
    const words = [...el.querySelectorAll('.legend-title, .legend-note')]
      .map((n) => n.textContent.trim())
      .filter(Boolean)
      .join(' ');
    rows.push({ swatches, text: words });
  }
  return rows;
}

// The GPU grid: a tile per GPU (panels/tiles.js) up to TILE_LIMIT GPUs, the aggregate fleet
// map (panels/fleet.js) past it. The map's module is imported the first time a fleet needs
// it, so the book's 16 GPUs never download it. `ranks` is the core's lab.ranks() array for
// the report's degrees.
import { createTiles } from '../panels/tiles.js';

// Eight nodes of eight: the largest fleet whose tiles still show their labels at a readable size.
export const TILE_LIMIT = 64;
const MAX_COLS = 8; // wider nodes wrap onto more rows
// In a narrow column (a phone, 200% zoom, a slim chapter layout) eight tiles a row would
// shrink their labels below reading size: four a row, twice the size.
const NARROW_PX = 520;
const NARROW_COLS = 4;

// Whether a report's fleet is drawn as tiles: up to TILE_LIMIT GPUs, and up to 8 node boxes
// (small nodes, stacked, would leave the tiles too small).
export const usesTiles = (report) => report.gpus <= TILE_LIMIT && report.nodes <= 8;

// Where the readout (the picked GPU's groups) sits: under the wire cards beside the legend
// while the book's grid shares its row with the memory panel (so that row and the cards fit
// the first screen), and right under the grid where the grid takes the column's width (a
// narrow column, the fleet map) or grows down (past four nodes), so a tap or a hover there
// shows its words in view.
function readoutPlace(readout, figure) {
  const home = { parent: readout.parentElement, next: readout.nextSibling };
  return (underGrid) => {
    const parent = underGrid ? figure : home.parent;
    if (readout.parentElement === parent) return;
    parent.insertBefore(readout, underGrid ? null : home.next);
  };
}

export function createGrid({ svg, legend, readout }) {
  let narrow = false;
  const place = readoutPlace(readout, svg.parentElement);
  const tiles = createTiles({
    svg,
    legend,
    readout,
    maxCols: () => (narrow ? NARROW_COLS : MAX_COLS),
  });
  let fleet = null; // made the first time a fleet needs it
  let fleetLoading = null;
  let mode = '';
  let last = null;
  // The column's width decides the tiles per row; crossing the line rebuilds them.
  const fit = (width) => {
    const next = width > 0 && width < NARROW_PX;
    if (next === narrow) return;
    narrow = next;
    if (last && mode === 'tiles') update(...last);
  };
  const watch = new ResizeObserver(([entry]) => fit(entry.contentRect.width));
  watch.observe(svg.parentElement);

  function update(report, ranks) {
    last = [report, ranks];
    const next = usesTiles(report) ? 'tiles' : 'fleet';
    if (next === 'fleet' && !fleet) {
      // The map's module first (the grid stays empty for that moment), then this update.
      if (mode === 'tiles') tiles.clear();
      svg.style.display = 'none';
      mode = '';
      fleetLoading ??= import('../panels/fleet.js').then(({ createFleet }) => {
        fleet = createFleet({ after: svg, legend, readout });
        update(...last);
      });
      return;
    }
    if (next !== mode) {
      if (mode === 'tiles') tiles.clear();
      if (mode === 'fleet') fleet.clear();
      svg.style.display = next === 'fleet' ? 'none' : '';
      // The map wants the page's width; the memory panel moves under it.
      svg.closest('.columns')?.classList.toggle('wide', next === 'fleet');
      mode = next;
    }
    if (mode === 'fleet') fleet.update(report, ranks);
    else tiles.update(report, ranks);
    place(narrow || mode === 'fleet' || svg.classList.contains('tall'));
  }

  return {
    update,
    // Fits the tiles to the column now (a lab drawn while hidden, just shown), not a frame later.
    fit: () => fit(svg.parentElement.getBoundingClientRect().width),
    // Resolves once the grid shows the last report (after the fleet map's module, if needed).
    drawn() {
      return fleetLoading && !fleet ? fleetLoading : Promise.resolve();
    },
    get mode() {
      return mode;
    },
    destroy() {
      watch.disconnect();
    },
  };
}

// The GPU grid: one SVG tile per GPU, grouped in node boxes, with data-parallel replicas
// outlined. Encodings (the book lab's): hue = pipeline stage, shade = tensor slice; because
// shade alone fails colour-blind readers, the slice is also the position of the mark in the
// tile's bottom strip, and every tile is labelled with its coordinates.
//
// Tiles are built once per fleet shape and then updated in place: attribute writes only, no
// nodes moved or recreated on a toggle (toolchain.md measures ~19 µs per tile that way).
// Past TILE_LIMIT GPUs a tile per GPU is neither legible nor fast, so createGrid hands the
// picture to render-fleet.js (the aggregate map, imported the first time a fleet needs it, so
// the book's 16 GPUs never download it) and empties the tiles.
import { svg as el } from './dom.js';
import * as fmt from './format.js';
import { createLegend, describe, groupsOf, placeOf, tileColour } from './grid-common.js';

// Eight nodes of eight: the largest fleet whose tiles still show their labels at a readable size.
export const TILE_LIMIT = 64;


// Geometry in SVG user units; the SVG scales to its box.
const TILE = 64;
const GAP = 12;
const PAD = 14; // node box padding around the tiles
const HEAD = 22; // node label band at the top of a node box
const NODE_GAP = 30; // between node boxes: room for the "network" label
const MAX_COLS = 8; // wider nodes wrap onto more rows
// In a narrow column (a phone, 200% zoom, a slim chapter layout) eight tiles a row would
// shrink their labels below reading size: four a row, twice the size.
const NARROW_PX = 520;
const NARROW_COLS = 4;
const OUTLINE = 5; // a replica outline sits this far outside its tiles
const STRIP_INSET = 7;

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function createTiles({ svg, legend, readout, maxCols }) {
  const layers = {
    nodes: el('g', { class: 'nodes' }, svg),
    tiles: el('g', { class: 'tiles' }, svg),
    replicas: el('g', { class: 'replicas', 'aria-hidden': 'true' }, svg),
  };
  let shape = null; // { gpus, perNode, cols, rowsPerNode }
  let tiles = [];
  let replicaRects = [];
  let report = null;
  let ranks = null;
  const legendView = createLegend(legend);
  let focusIndex = 0;
  let highlighted = -1;

  function tileXY(rank) {
    const node = Math.floor(rank / shape.perNode);
    const i = rank % shape.perNode;
    const row = Math.floor(i / shape.cols);
    const col = i % shape.cols;
    return {
      x: PAD + col * (TILE + GAP),
      y: node * (shape.nodeHeight + NODE_GAP) + HEAD + PAD + row * (TILE + GAP),
      row: node * shape.rowsPerNode + row,
      col,
    };
  }

  function build(gpus, perNode) {
    const cols = Math.min(perNode, maxCols());
    const rowsPerNode = Math.ceil(perNode / cols);
    const nodeHeight = HEAD + 2 * PAD + rowsPerNode * TILE + (rowsPerNode - 1) * GAP;
    const nodes = Math.ceil(gpus / perNode);
    const width = 2 * PAD + cols * TILE + (cols - 1) * GAP;
    shape = { gpus, perNode, cols, rowsPerNode, nodeHeight, nodes, width };
    const height = nodes * nodeHeight + (nodes - 1) * NODE_GAP;
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);

    layers.nodes.replaceChildren();
    layers.tiles.replaceChildren();
    layers.replicas.replaceChildren();
    replicaRects = [];
    shape.nodeLabels = [];
    shape.gapLabels = [];
    for (let n = 0; n < nodes; n++) {
      const top = n * (nodeHeight + NODE_GAP);
      const inNode = Math.min(perNode, gpus - n * perNode);
      const rows = Math.ceil(inNode / cols);
      el('rect', {
        class: 'node', x: 1, y: top + 1, width: width - 2, rx: 10,
        height: HEAD + 2 * PAD + rows * TILE + (rows - 1) * GAP - 2,
      }, layers.nodes);
      shape.nodeLabels.push(el('text', { class: 'node-label', x: PAD, y: top + 18 }, layers.nodes));
      if (n > 0) {
        shape.gapLabels.push(el('text', {
          class: 'gap-label', x: width / 2, y: top - NODE_GAP / 2 + 4, 'text-anchor': 'middle',
        }, layers.nodes));
      }
    }

    tiles = [];
    for (let r = 0; r < gpus; r++) {
      const { x, y } = tileXY(r);
      const g = el('g', { class: 'gpu' }, layers.tiles);
      const rect = el('rect', {
        class: 'tile', x, y, width: TILE, height: TILE, rx: 6,
        'data-rank': r, role: 'img', tabindex: r === 0 ? 0 : -1,
      }, g);
      const rankText = el('text', { class: 'tile-rank', x: x + 6, y: y + 14 }, g);
      const coords = el('text', {
        class: 'tile-coords', x: x + TILE / 2, y: y + 38, 'text-anchor': 'middle',
      }, g);
      const strip = el('rect', {
        class: 'strip', x: x + STRIP_INSET, y: y + TILE - 13, width: TILE - 2 * STRIP_INSET,
        height: 6, rx: 1,
      }, g);
      const mark = el('rect', { class: 'strip-mark', y: y + TILE - 14, height: 8, rx: 1 }, g);
      setText(rankText, `GPU ${r}`);
      tiles.push({ g, rect, coords, strip, mark, x, y });
    }
    focusIndex = 0;
    highlighted = -1;
  }

  function updateTile(r) {
    const t = tiles[r];
    const place = placeOf(ranks, r);
    const { dp: DP, tp: TP, pp: PP } = report.degrees;
    if (!place) {
      t.g.setAttribute('class', 'gpu idle');
      t.rect.removeAttribute('style');
      for (const k of ['data-dp', 'data-tp', 'data-pp', 'data-node']) t.rect.removeAttribute(k);
      t.rect.setAttribute('data-idle', 'true');
      t.rect.setAttribute('aria-label', `GPU ${r}: idle`);
      setText(t.coords, 'idle');
      t.strip.setAttribute('visibility', 'hidden');
      t.mark.setAttribute('visibility', 'hidden');
      return;
    }
    const { fill, dark } = tileColour(place.pp, PP, place.tp, TP);
    t.g.setAttribute('class', dark ? 'gpu ink-light' : 'gpu ink-dark');
    t.rect.style.fill = fill;
    t.rect.removeAttribute('data-idle');
    t.rect.setAttribute('data-dp', place.dp);
    t.rect.setAttribute('data-tp', place.tp);
    t.rect.setAttribute('data-pp', place.pp);
    t.rect.setAttribute('data-node', place.node);
    const parts = [];
    if (DP > 1) parts.push(`D${place.dp}`);
    if (TP > 1) parts.push(`T${place.tp}`);
    if (PP > 1) parts.push(`P${place.pp}`);
    setText(t.coords, parts.length ? parts.join(' ') : 'whole');
    t.rect.setAttribute('aria-label',
      `GPU ${r}, node ${place.node}: replica ${place.dp}, stage ${place.pp}, slice ${place.tp}`);
    const show = TP > 1 ? 'visible' : 'hidden';
    t.strip.setAttribute('visibility', show);
    t.mark.setAttribute('visibility', show);
    if (TP > 1) {
      const w = (TILE - 2 * STRIP_INSET) / TP;
      t.mark.setAttribute('x', t.x + STRIP_INSET + place.tp * w);
      t.mark.setAttribute('width', w);
    }
  }

  // One outline per data-parallel replica (TP×PP consecutive ranks). A replica made of whole
  // rows, or of part of one row, is one rectangle; anything else gets one per row.
  function updateReplicas() {
    const size = report.degrees.tp * report.degrees.pp;
    const boxes = [];
    for (let first = 0; first < report.active_gpus; first += size) {
      const rows = new Map();
      for (let r = first; r < first + size; r++) {
        const { row, col } = tileXY(r);
        const seg = rows.get(row) ?? { row, c0: col, c1: col, r0: r, r1: r };
        seg.c1 = col;
        seg.r1 = r;
        rows.set(row, seg);
      }
      const segs = [...rows.values()];
      const sameColumns = segs.every((s) => s.c0 === segs[0].c0 && s.c1 === segs[0].c1);
      const groups = sameColumns ? [segs] : segs.map((s) => [s]);
      for (const group of groups) {
        const a = tileXY(group[0].r0);
        const b = tileXY(group.at(-1).r1);
        boxes.push({ x: a.x - OUTLINE, y: a.y - OUTLINE,
          w: b.x + TILE - a.x + 2 * OUTLINE, h: b.y + TILE - a.y + 2 * OUTLINE });
      }
    }
    while (replicaRects.length < boxes.length) {
      replicaRects.push(el('rect', { class: 'replica', rx: 9 }, layers.replicas));
    }
    replicaRects.forEach((rect, i) => {
      const box = boxes[i];
      rect.setAttribute('visibility', box ? 'visible' : 'hidden');
      if (!box) return;
      rect.setAttribute('x', box.x);
      rect.setAttribute('y', box.y);
      rect.setAttribute('width', box.w);
      rect.setAttribute('height', box.h);
    });
  }

  function updateLabels() {
    const s = report.scenario;
    shape.nodeLabels.forEach((label, n) => {
      const count = Math.min(shape.perNode, shape.gpus - n * shape.perNode);
      setText(label, `node ${n} · ${count} GPUs on NVLink (${s.nvlink_gb_s} GB/s)`);
    });
    for (const label of shape.gapLabels) {
      setText(label, `↕ network between nodes (${s.network_gb_s} GB/s)`);
    }
    const d = report.degrees;
    svg.setAttribute('aria-label', `${report.gpus} GPUs in ${report.nodes} nodes; ` +
      `DP×TP×PP = ${fmt.degrees(d)}; arrow keys move between GPUs`);
  }

  function highlight(r) {
    highlighted = r;
    svg.classList.toggle('highlighting', r >= 0);
    const place = r >= 0 ? placeOf(ranks, r) : undefined;
    const groups = place ? groupsOf(ranks, place) : null;
    const roleOf = new Map();
    if (groups) {
      for (const key of ['dp', 'pp', 'tp']) for (const q of groups[key]) roleOf.set(q, key);
      roleOf.set(r, 'self');
    } else if (r >= 0) {
      roleOf.set(r, 'self');
    }
    tiles.forEach((t, q) => {
      const role = roleOf.get(q);
      if (role) t.g.setAttribute('data-hl', role);
      else t.g.removeAttribute('data-hl');
    });
    describe(readout, report, r, place, groups);
  }

  function tileIndex(target) {
    const rank = target?.closest?.('rect.tile')?.getAttribute('data-rank');
    return rank == null ? -1 : Number(rank);
  }

  function moveFocus(to) {
    const next = Math.max(0, Math.min(tiles.length - 1, to));
    tiles[focusIndex].rect.setAttribute('tabindex', -1);
    tiles[next].rect.setAttribute('tabindex', 0);
    focusIndex = next;
    tiles[next].rect.focus();
  }

  svg.addEventListener('pointerover', (e) => {
    const r = tileIndex(e.target);
    if (r >= 0 && r !== highlighted) highlight(r);
  });
  svg.addEventListener('pointerleave', () => {
    // The root node's, not the document's: inside a shadow root the document sees the host.
    const active = svg.getRootNode().activeElement;
    highlight(svg.contains(active) ? tileIndex(active) : -1);
  });
  svg.addEventListener('focusin', (e) => {
    const r = tileIndex(e.target);
    if (r < 0) return;
    tiles[focusIndex].rect.setAttribute('tabindex', -1);
    e.target.setAttribute('tabindex', 0);
    focusIndex = r;
    highlight(r);
  });
  svg.addEventListener('focusout', (e) => {
    if (!svg.contains(e.relatedTarget)) highlight(-1);
  });
  svg.addEventListener('keydown', (e) => {
    const r = tileIndex(e.target);
    if (r < 0) return;
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: shape.cols, ArrowUp: -shape.cols,
      Home: -r, End: tiles.length - 1 - r }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    moveFocus(r + step);
  });

  return {
    update(next, nextRanks) {
      report = next;
      ranks = nextRanks;
      const perNode = report.scenario.gpus_per_node;
      if (!shape || shape.gpus !== report.gpus || shape.perNode !== perNode ||
          shape.cols !== Math.min(perNode, maxCols())) {
        build(report.gpus, perNode);
      }
      for (let r = 0; r < tiles.length; r++) updateTile(r);
      updateReplicas();
      updateLabels();
      legendView.update(report.degrees);
      highlight(highlighted);
    },
    // Drops every tile (the fleet map has taken over); the next update builds them again.
    clear() {
      for (const layer of Object.values(layers)) layer.replaceChildren();
      shape = null;
      tiles = [];
      replicaRects = [];
      legendView.reset();
    },
  };
}

// The grid: tiles up to TILE_LIMIT GPUs, the aggregate fleet map past it. `ranks` is the
// core's lab.ranks() array for the report's degrees.
export function createGrid({ svg, legend, readout }) {
  let narrow = false;
  const tiles = createTiles({ svg, legend, readout, maxCols: () => (narrow ? NARROW_COLS : MAX_COLS) });
  let fleet = null; // made the first time a fleet needs it
  let fleetLoading = null;
  let mode = '';
  let last = null;
  // The column's width decides the tiles per row; crossing the line rebuilds them.
  const watch = new ResizeObserver(([entry]) => {
    const next = entry.contentRect.width > 0 && entry.contentRect.width < NARROW_PX;
    if (next === narrow) return;
    narrow = next;
    if (last && mode === 'tiles') tiles.update(...last);
  });
  watch.observe(svg.parentElement);

  function update(report, ranks) {
    last = [report, ranks];
    // Also past 8 node boxes (small nodes): stacked, they would leave the tiles too small.
    const next = report.gpus > TILE_LIMIT || report.nodes > 8 ? 'fleet' : 'tiles';
    if (next === 'fleet' && !fleet) {
      // The map's module first (the grid stays empty for that moment), then this update.
      if (mode === 'tiles') tiles.clear();
      svg.style.display = 'none';
      mode = '';
      fleetLoading ??= import('./render-fleet.js').then(({ createFleet }) => {
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
  }

  return {
    update,
    // Resolves once the grid shows the last report (after the fleet map's module, if needed).
    drawn() {
      return fleetLoading && !fleet ? fleetLoading : Promise.resolve();
    },
    get mode() { return mode; },
    destroy() {
      watch.disconnect();
    },
  };
}

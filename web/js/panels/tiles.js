// The GPU grid: one SVG tile per GPU, grouped in node boxes, with data-parallel replicas
// outlined. Encodings (the book lab's): hue = pipeline stage, shade = tensor slice; because
// shade alone fails colour-blind readers, the slice is also the position of the mark in the
// tile's bottom strip, and every tile is labelled with its coordinates.
//
// Tiles are built once per fleet shape and then updated in place: attribute writes only, no
// nodes moved or recreated on a toggle (about 19 µs per tile that way, measured in headless
// Chromium). app/grid.js uses these tiles up to a few dozen GPUs, and the fleet map past that.
import { svg as el } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import {
  createLegend,
  describe,
  groupsOf,
  placeOf,
  replicaRuns,
  splitNote,
  tileColour,
} from '../lib/grid-common.js';

// Geometry in SVG user units; the SVG scales to its box.
const TILE = 64;
const GAP = 12;
const PAD = 10; // node box padding around the tiles
const HEAD = 20; // node label band at the top of a node box
const NODE_GAP = 24; // between node boxes: room for the "network" label
const OUTLINE = 5; // a replica outline sits this far outside its tiles
const STRIP_INSET = 7;
const TALL_NODES = 4;

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// The fleet's shape in SVG units: `cols` tiles a row, nodes stacked.
function shapeOf(gpus, perNode, maxCols) {
  const cols = Math.min(perNode, maxCols);
  const rowsPerNode = Math.ceil(perNode / cols);
  const nodeHeight = HEAD + 2 * PAD + rowsPerNode * TILE + (rowsPerNode - 1) * GAP;
  const nodes = Math.ceil(gpus / perNode);
  const width = 2 * PAD + cols * TILE + (cols - 1) * GAP;
  const height = nodes * nodeHeight + (nodes - 1) * NODE_GAP;
  return { gpus, perNode, cols, rowsPerNode, nodeHeight, nodes, width, height };
}

// Where rank's tile sits: its corner, and its visual row and column.
function tileXY(shape, rank) {
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

// The node boxes and their labels (filled in by labelNodes).
function buildNodes(layer, shape) {
  const { gpus, perNode, cols, nodeHeight, width } = shape;
  const nodeLabels = [];
  const gapLabels = [];
  for (let n = 0; n < shape.nodes; n++) {
    const top = n * (nodeHeight + NODE_GAP);
    const rows = Math.ceil(Math.min(perNode, gpus - n * perNode) / cols);
    el(
      'rect',
      {
        class: 'node',
        x: 1,
        y: top + 1,
        width: width - 2,
        rx: 10,
        height: HEAD + 2 * PAD + rows * TILE + (rows - 1) * GAP - 2,
      },
      layer,
    );
    nodeLabels.push(el('text', { class: 'node-label', x: PAD, y: top + 16 }, layer));
    if (n > 0) {
      gapLabels.push(
        el(
          'text',
          {
            class: 'gap-label',
            x: width / 2,
            y: top - NODE_GAP / 2 + 4,
            'text-anchor': 'middle',
          },
          layer,
        ),
      );
    }
  }
  return { nodeLabels, gapLabels };
}

// One tile per GPU: its rect (the focus target), rank, coordinates and TP strip.
function buildTile(layer, shape, r) {
  const { x, y } = tileXY(shape, r);
  const g = el('g', { class: 'gpu' }, layer);
  const rect = el(
    'rect',
    {
      class: 'tile',
      x,
      y,
      width: TILE,
      height: TILE,
      rx: 6,
      'data-rank': r,
      role: 'img',
      tabindex: r === 0 ? 0 : -1,
    },
    g,
  );
  const rankText = el('text', { class: 'tile-rank', x: x + 6, y: y + 14 }, g);
  const coords = el(
    'text',
    { class: 'tile-coords', x: x + TILE / 2, y: y + 38, 'text-anchor': 'middle' },
    g,
  );
  const strip = el(
    'rect',
    {
      class: 'strip',
      x: x + STRIP_INSET,
      y: y + TILE - 13,
      width: TILE - 2 * STRIP_INSET,
      height: 6,
      rx: 1,
    },
    g,
  );
  const mark = el('rect', { class: 'strip-mark', y: y + TILE - 14, height: 8, rx: 1 }, g);
  setText(rankText, `GPU ${r}`);
  return { g, rect, coords, strip, mark, x, y };
}

function updateIdleTile(t, r) {
  t.g.setAttribute('class', 'gpu idle');
  t.rect.removeAttribute('style');
  for (const k of ['data-dp', 'data-tp', 'data-pp', 'data-cp', 'data-ep', 'data-node']) {
    t.rect.removeAttribute(k);
  }
  t.rect.setAttribute('data-idle', 'true');
  t.rect.setAttribute('aria-label', `GPU ${r}: idle`);
  setText(t.coords, 'idle');
  t.strip.setAttribute('visibility', 'hidden');
  t.mark.setAttribute('visibility', 'hidden');
}

// A tile's colour, coordinates and strip mark for its place in the layout.
function updateTile(t, r, place, degrees) {
  if (!place) return updateIdleTile(t, r);
  const { dp: DP, tp: TP, pp: PP, cp: CP = 1, ep: EP = 1 } = degrees;
  const { fill, dark } = tileColour(place.pp, PP, place.tp, TP);
  t.g.setAttribute('class', dark ? 'gpu ink-light' : 'gpu ink-dark');
  t.rect.style.fill = fill;
  t.rect.removeAttribute('data-idle');
  for (const k of ['dp', 'tp', 'pp', 'cp', 'ep', 'node'])
    t.rect.setAttribute(`data-${k}`, place[k]);
  const parts = [];
  if (DP > 1) parts.push(`D${place.dp}`);
  if (TP > 1) parts.push(`T${place.tp}`);
  if (PP > 1) parts.push(`P${place.pp}`);
  if (CP > 1) parts.push(`C${place.cp}`);
  setText(t.coords, parts.length ? parts.join(' ') : 'whole');
  t.rect.setAttribute(
    'aria-label',
    `GPU ${r}, node ${place.node}: replica ${place.dp}, stage ${place.pp}, slice ${place.tp}` +
      (CP > 1 ? `, context chunk ${place.cp}` : '') +
      (EP > 1 ? `, expert rank ${place.ep}` : ''),
  );
  const show = TP > 1 ? 'visible' : 'hidden';
  t.strip.setAttribute('visibility', show);
  t.mark.setAttribute('visibility', show);
  if (TP > 1) {
    const w = (TILE - 2 * STRIP_INSET) / TP;
    t.mark.setAttribute('x', t.x + STRIP_INSET + place.tp * w);
    t.mark.setAttribute('width', w);
  }
  return undefined;
}

// One outline per run of a data-parallel replica (replicaRuns: the whole replica in the
// chapter's order). A run made of whole rows, or of part of one row, is one rectangle;
// anything else gets one per row.
function replicaBoxes(shape, runs) {
  const boxes = [];
  for (const { first, size } of runs) {
    const rows = new Map();
    for (let r = first; r < first + size; r++) {
      const { row, col } = tileXY(shape, r);
      const seg = rows.get(row) ?? { row, c0: col, c1: col, r0: r, r1: r };
      seg.c1 = col;
      seg.r1 = r;
      rows.set(row, seg);
    }
    const segs = [...rows.values()];
    const sameColumns = segs.every((s) => s.c0 === segs[0].c0 && s.c1 === segs[0].c1);
    for (const group of sameColumns ? [segs] : segs.map((s) => [s])) {
      const a = tileXY(shape, group[0].r0);
      const b = tileXY(shape, group.at(-1).r1);
      boxes.push({
        x: a.x - OUTLINE,
        y: a.y - OUTLINE,
        w: b.x + TILE - a.x + 2 * OUTLINE,
        h: b.y + TILE - a.y + 2 * OUTLINE,
      });
    }
  }
  return boxes;
}

// Draws the boxes on the rects already there (adding more if needed, hiding the rest).
function drawReplicas(layer, rects, boxes) {
  while (rects.length < boxes.length) rects.push(el('rect', { class: 'replica', rx: 9 }, layer));
  rects.forEach((rect, i) => {
    const box = boxes[i];
    rect.setAttribute('visibility', box ? 'visible' : 'hidden');
    if (!box) return;
    rect.setAttribute('x', box.x);
    rect.setAttribute('y', box.y);
    rect.setAttribute('width', box.w);
    rect.setAttribute('height', box.h);
  });
}

function labelNodes(svg, shape, report) {
  const s = report.scenario;
  shape.nodeLabels.forEach((label, n) => {
    const count = Math.min(shape.perNode, shape.gpus - n * shape.perNode);
    setText(label, `node ${n} · ${count} GPUs on NVLink (${s.nvlink_gb_s} GB/s peak)`);
  });
  for (const label of shape.gapLabels)
    setText(label, `↕ network between nodes (${s.network_gb_s} GB/s)`);
  svg.setAttribute(
    'aria-label',
    `${report.gpus} GPUs in ${report.nodes} nodes; ` +
      `DP×TP×PP = ${fmt.degrees(report.degrees)}; arrow keys move between GPUs`,
  );
}

function tileIndex(target) {
  const rank = target?.closest?.('rect.tile')?.getAttribute('data-rank');
  return rank == null ? -1 : Number(rank);
}

// Hover and focus pick a tile; the arrow keys, Home and End move the focus between tiles (the
// grid is one tab stop). `view` gives the tiles, the shape and highlight(rank).
function watchTiles(svg, view) {
  let focusIndex = 0;
  let highlighted = -1;
  const highlight = (r) => {
    highlighted = r;
    view.highlight(r);
  };
  function moveFocus(to) {
    const { tiles } = view;
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
    view.tiles[focusIndex]?.rect.setAttribute('tabindex', -1);
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
    const { cols } = view.shape;
    const last = view.tiles.length - 1;
    const step = {
      ArrowRight: 1,
      ArrowLeft: -1,
      ArrowDown: cols,
      ArrowUp: -cols,
      Home: -r,
      End: last - r,
    }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    moveFocus(r + step);
  });
  return {
    get highlighted() {
      return highlighted;
    },
    // A new set of tiles: the focus goes back to the first.
    reset() {
      focusIndex = 0;
      highlighted = -1;
    },
  };
}

export function createTiles({ svg, legend, readout, maxCols }) {
  const layers = {
    nodes: el('g', { class: 'nodes' }, svg),
    tiles: el('g', { class: 'tiles' }, svg),
    replicas: el('g', { class: 'replicas', 'aria-hidden': 'true' }, svg),
  };
  const legendView = createLegend(legend);
  const view = { shape: null, tiles: [], highlight };
  let replicaRects = [];
  let report = null;
  let ranks = null;
  const pointer = watchTiles(svg, view);

  function build(gpus, perNode) {
    const shape = shapeOf(gpus, perNode, maxCols());
    svg.setAttribute('viewBox', `0 0 ${shape.width} ${shape.height}`);
    // Past four node boxes the grid would shrink its labels to fit the screen's height: it
    // keeps their size and grows down instead (the readout stays in view, explorer.css).
    svg.classList.toggle('tall', shape.nodes > TALL_NODES);
    for (const layer of Object.values(layers)) layer.replaceChildren();
    replicaRects = [];
    Object.assign(shape, buildNodes(layers.nodes, shape));
    view.shape = shape;
    view.tiles = Array.from({ length: gpus }, (_, r) => buildTile(layers.tiles, shape, r));
    pointer.reset();
  }

  function highlight(r) {
    svg.classList.toggle('highlighting', r >= 0);
    const place = r >= 0 ? placeOf(ranks, r) : undefined;
    const groups = place ? groupsOf(ranks, place) : null;
    const roleOf = new Map();
    // A GPU in several of the picked GPU's groups shows the innermost one.
    if (groups) {
      for (const key of ['ep', 'dp', 'cp', 'pp', 'tp']) {
        if (groups[key].length > 1) for (const q of groups[key]) roleOf.set(q, key);
      }
    }
    if (r >= 0) roleOf.set(r, 'self');
    view.tiles.forEach((t, q) => {
      const role = roleOf.get(q);
      if (role) t.g.setAttribute('data-hl', role);
      else t.g.removeAttribute('data-hl');
    });
    describe(readout, report, r, place, groups);
  }

  return {
    update(next, nextRanks) {
      report = next;
      ranks = nextRanks;
      const perNode = report.scenario.gpus_per_node;
      const { shape } = view;
      if (
        !shape ||
        shape.gpus !== report.gpus ||
        shape.perNode !== perNode ||
        shape.cols !== Math.min(perNode, maxCols())
      ) {
        build(report.gpus, perNode);
      }
      view.tiles.forEach((t, r) => updateTile(t, r, placeOf(ranks, r), report.degrees));
      const runs = replicaRuns(ranks);
      drawReplicas(layers.replicas, replicaRects, replicaBoxes(view.shape, runs));
      labelNodes(svg, view.shape, report);
      legendView.update(report.degrees, { replicaNote: splitNote(runs, report.degrees.dp) });
      highlight(pointer.highlighted);
    },
    // Drops every tile (the fleet map has taken over); the next update builds them again.
    clear() {
      svg.classList.remove('tall');
      for (const layer of Object.values(layers)) layer.replaceChildren();
      view.shape = null;
      view.tiles = [];
      replicaRects = [];
      legendView.reset();
    },
  };
}

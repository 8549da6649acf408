// The GPU grid at fleet scale (past TILE_LIMIT GPUs, up to the core's largest fleet): a map
// with one small square per GPU, nodes as blocks of squares, rows of nodes. Same encodings as
// the tiles (hue = pipeline stage, shade = tensor slice, outlines = data-parallel replicas),
// drawn as one <path> per colour instead of an element per GPU: in headless Chromium on two
// cores a toggle at 10,240 GPUs took 16 / 41 ms (p50 / p95) that way against 208 / 310 ms
// with a rect per GPU.
//
// Positions depend only on the fleet's shape (GPU count, GPUs per node), so a toggle only
// regroups the squares by colour; each GPU's square outline is built once per shape.
// Hover, focus and the arrow keys pick a GPU by arithmetic on the layout (no element per GPU),
// and the readout names its groups as the tiles do.
import { svg as el } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import {
  createLegend,
  describe,
  groupsOf,
  placeOf,
  RANK_INTS,
  replicaRuns,
  splitNote,
  tileColour,
} from '../lib/grid-common.js';

const CELL = 8; // a GPU's square, SVG user units
const PITCH = 9; // square plus gap
const NODE_GAP = 5; // between node blocks in a row
const ROW_GAP = 3; // between rows of nodes
const TOP = 8;
const MAX_HUES = 48; // stages share hue bands past this (neighbouring hues look alike anyway)
const MAX_SHADES = 8; // and slices share shade bands past this
const MAX_OUTLINES = 4096; // replicas drawn as outlines; more than that would be a texture

// Rows of about sqrt(2·GPUs) GPUs, a power of two nodes wide: 10,240 GPUs in 8-GPU nodes give
// rows of 16 nodes (128 GPUs), so the book's 80×8×16 fleet shows one replica per row.
function layoutFor(gpus, perNode) {
  const target = 2 ** Math.round(Math.log2(Math.sqrt(2 * gpus)));
  let blockCols = perNode;
  let blockRows = 1;
  let nodesPerRow = Math.max(1, Math.floor(target / perNode));
  if (perNode > target) {
    blockCols = target;
    blockRows = Math.ceil(perNode / target);
    nodesPerRow = 1;
  }
  const nodes = Math.ceil(gpus / perNode);
  const nodeRows = Math.ceil(nodes / nodesPerRow);
  const blockW = blockCols * PITCH - (PITCH - CELL);
  const blockH = blockRows * PITCH - (PITCH - CELL);
  const mapW = nodesPerRow * (blockW + NODE_GAP);
  // Row labels keep about 10 px on screen when the map is scaled down to the page's width.
  const font = Math.max(10, Math.round(mapW / 110));
  const left = Math.round(font * 7.4);
  const width = left + mapW;
  const height = TOP + nodeRows * (blockH + ROW_GAP);
  return {
    gpus,
    perNode,
    blockCols,
    blockRows,
    nodesPerRow,
    nodes,
    nodeRows,
    blockW,
    blockH,
    width,
    height,
    font,
    left,
    rowGpus: nodesPerRow * perNode,
  };
}

// Where GPU r's square sits: its corner, and its visual row and column.
function xy(s, r) {
  const node = Math.floor(r / s.perNode);
  const i = r % s.perNode;
  const nodeRow = Math.floor(node / s.nodesPerRow);
  const nodeCol = node % s.nodesPerRow;
  return {
    x: s.left + nodeCol * (s.blockW + NODE_GAP) + (i % s.blockCols) * PITCH,
    y: TOP + nodeRow * (s.blockH + ROW_GAP) + Math.floor(i / s.blockCols) * PITCH,
    vr: nodeRow * s.blockRows + Math.floor(i / s.blockCols),
    vc: nodeCol * s.blockCols + (i % s.blockCols),
  };
}

// The GPU at visual row vr, column vc (-1 for a gap or past the end).
function at(s, vr, vc) {
  if (vr < 0 || vc < 0 || vc >= s.nodesPerRow * s.blockCols) return -1;
  const node = Math.floor(vr / s.blockRows) * s.nodesPerRow + Math.floor(vc / s.blockCols);
  const i = (vr % s.blockRows) * s.blockCols + (vc % s.blockCols);
  const r = node * s.perNode + i;
  return i < s.perNode && r < s.gpus ? r : -1;
}

// The GPU under a pointer event (-1 for none), by arithmetic on the layout.
function pointToRank(svg, s, event) {
  const m = svg.getScreenCTM();
  if (!m) return -1;
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(m.inverse());
  const nodeCol = Math.floor((p.x - s.left) / (s.blockW + NODE_GAP));
  const nodeRow = Math.floor((p.y - TOP) / (s.blockH + ROW_GAP));
  const inX = p.x - s.left - nodeCol * (s.blockW + NODE_GAP);
  const inY = p.y - TOP - nodeRow * (s.blockH + ROW_GAP);
  if (inX < 0 || inY < 0 || inX > s.blockW || inY > s.blockH) return -1;
  return at(
    s,
    nodeRow * s.blockRows + Math.floor(inY / PITCH),
    nodeCol * s.blockCols + Math.min(s.blockCols - 1, Math.floor(inX / PITCH)),
  );
}

// Each GPU's square as a path fragment, the node blocks' path and the row labels: what
// depends only on the shape.
function buildShape(s) {
  const cellPath = new Array(s.gpus);
  for (let r = 0; r < s.gpus; r++) {
    const { x, y } = xy(s, r);
    cellPath[r] = `M${x} ${y}h${CELL}v${CELL}h-${CELL}z`;
  }
  const nodes = [];
  for (let n = 0; n < s.nodes; n++) {
    const { x, y } = xy(s, n * s.perNode);
    const inNode = Math.min(s.perNode, s.gpus - n * s.perNode);
    const w = inNode < s.blockCols ? inNode * PITCH - (PITCH - CELL) : s.blockW;
    const h = Math.ceil(inNode / s.blockCols) * PITCH - (PITCH - CELL);
    nodes.push(`M${x - 2} ${y - 2}h${w + 4}v${h + 4}h${-w - 4}z`);
  }
  // A label every few rows: the first GPU of the row.
  const every = Math.max(1, Math.ceil(s.nodeRows / 20));
  const labels = [];
  for (let row = 0; row < s.nodeRows; row += every) {
    const first = row * s.rowGpus;
    if (first >= s.gpus) break;
    const t = el('text', {
      class: 'fleet-label',
      x: s.left - 8,
      y: xy(s, first).y + CELL / 2,
      'text-anchor': 'end',
      'dominant-baseline': 'central',
      'font-size': s.font,
    });
    t.textContent = `GPU ${fmt.integer(first)}`;
    labels.push(t);
  }
  return { cellPath, nodes: nodes.join(''), labels };
}

// The active GPUs grouped by colour band (hue = stage band, shade = slice band): band key ->
// path fragments.
function colourBands(ranks, cellPath, degrees, hues, shades) {
  const bands = new Map();
  for (let r = 0; r < ranks.length / RANK_INTS; r++) {
    const hue = Math.floor((ranks[RANK_INTS * r + 2] * hues) / degrees.pp);
    const shade = Math.floor((ranks[RANK_INTS * r + 1] * shades) / degrees.tp);
    const key = hue * shades + shade;
    let list = bands.get(key);
    if (!list) bands.set(key, (list = []));
    list.push(cellPath[r]);
  }
  return bands;
}

// One path per colour band on the paths already there (adding more, emptying the rest).
function drawBands(layer, paths, bands, degrees, shades) {
  const { pp: PP, tp: TP } = degrees;
  const hues = Math.min(PP, MAX_HUES);
  const keys = [...bands.keys()].sort((a, b) => a - b);
  while (paths.length < keys.length) paths.push(el('path', {}, layer));
  paths.forEach((path, i) => {
    const key = keys[i];
    if (key === undefined) {
      path.setAttribute('d', '');
      return;
    }
    const hue = Math.floor(key / shades);
    const shade = key % shades;
    // The band's colour is its first stage's and slice's, as the tiles would show them.
    const { fill } = tileColour(
      Math.ceil((hue * PP) / hues),
      PP,
      Math.ceil((shade * TP) / shades),
      TP,
    );
    path.style.fill = fill;
    path.setAttribute('d', bands.get(key).join(''));
    path.dataset.stageBand = String(hue);
  });
}

// One box per run of rows with the same extent, for the ranks first..first+size-1.
function replicaBoxes(s, first, size) {
  const boxes = [];
  let box = null;
  let seg = null;
  const flush = () => {
    if (!seg) return;
    if (box && box.x0 === seg.x0 && box.x1 === seg.x1 && seg.y0 - box.y1 <= ROW_GAP + PITCH) {
      box.y1 = seg.y1;
    } else {
      if (box) boxes.push(box);
      box = seg;
    }
    seg = null;
  };
  for (let r = first; r < first + size; r++) {
    const { x, y } = xy(s, r);
    if (seg && seg.y0 === y && x > seg.x1) {
      seg.x1 = x + CELL;
    } else {
      flush();
      seg = { x0: x, x1: x + CELL, y0: y, y1: y + CELL };
    }
  }
  flush();
  if (box) boxes.push(box);
  return boxes;
}

// One outline per run of a data-parallel replica (replicaRuns: the whole replica, TP×CP×PP
// consecutive ranks, in the chapter's order); returns the legend's note when the replicas are
// too many or too small to outline, or split by the nesting order.
function outlineReplicas(layer, s, degrees, ranks) {
  const DP = degrees.dp;
  const size = degrees.tp * degrees.pp * (degrees.cp ?? 1);
  const runs = DP < 2 ? [] : replicaRuns(ranks);
  if (DP < 2 || runs.length > MAX_OUTLINES || runs[0].size < 2) {
    layer.setAttribute('d', '');
    if (DP < 2) return undefined;
    if (runs.length > DP) return splitNote(runs, DP).replace(')', '; too fine to outline)');
    return DP > MAX_OUTLINES || size < 2
      ? `(${fmt.integer(DP)} replicas of ${size === 1 ? 'one GPU' : `${size} GPUs`}: too small to outline)`
      : undefined;
  }
  const parts = [];
  for (const run of runs) parts.push(...replicaBoxes(s, run.first, run.size));
  layer.setAttribute(
    'd',
    parts
      .map((b) => `M${b.x0 - 1.5} ${b.y0 - 1.5}H${b.x1 + 1.5}V${b.y1 + 1.5}H${b.x0 - 1.5}z`)
      .join(''),
  );
  return splitNote(runs, DP);
}

// GPUs per NVLink domain, the core's (0: one node).
const domainOf = (scenario) => scenario.nvlink_domain_gpus || scenario.gpus_per_node;

// One dashed outline per NVLink domain when a domain holds more than one node (GB200 NVL72:
// 18 trays of 4); none when the node is the domain.
function outlineDomains(layer, s, scenario) {
  const domain = domainOf(scenario);
  const parts = [];
  if (domain > s.perNode) {
    for (let first = 0; first < s.gpus; first += domain) {
      parts.push(...replicaBoxes(s, first, Math.min(domain, s.gpus - first)));
    }
  }
  layer.setAttribute(
    'd',
    parts.map((b) => `M${b.x0 - 3} ${b.y0 - 3}H${b.x1 + 3}V${b.y1 + 3}H${b.x0 - 3}z`).join(''),
  );
}

// The words under the map: what a square and a block are, and any colour bands.
function mapNote(s, report, hues, shades) {
  const { pp, tp } = report.degrees;
  const banded = [];
  if (hues < pp) banded.push(`${pp} stages in ${hues} hue bands`);
  if (shades < tp) banded.push(`${tp} slices in ${shades} shades`);
  const rows =
    s.blockRows > 1
      ? `each node is drawn as ${s.blockRows} rows of ${fmt.integer(s.blockCols)}`
      : `a row holds ${s.nodesPerRow} ${s.nodesPerRow === 1 ? 'node' : 'nodes'}, ` +
        `${fmt.integer(s.rowGpus)} GPUs`;
  const domain = domainOf(report.scenario);
  const links =
    domain > s.perNode
      ? `; dashed, NVLink domains of ${fmt.integer(domain)} GPUs (NVLink across their nodes, ` +
        `the ${report.scenario.network_gb_s} GB/s network between domains, one rail per GPU index)`
      : ` (NVLink inside, the ${report.scenario.network_gb_s} GB/s network between)`;
  return (
    `Each square is a GPU, each block of ${fmt.integer(s.perNode)} a node${links}; ${rows}.` +
    `${banded.length ? ` Colours: ${banded.join(', ')}.` : ''}`
  );
}

// Hover or a tap picks a GPU; focus, the arrow keys, Page Up/Down, Home and End move a cursor over the
// map (one tab stop, no element per GPU). `view` gives the shape and highlight(rank).
function watchMap(svg, view) {
  let cursor = 0;
  let highlighted = -1;
  const highlight = (r) => {
    highlighted = r;
    view.highlight(r);
  };
  svg.addEventListener('pointermove', (e) => {
    if (!view.shape) return;
    const r = pointToRank(svg, view.shape, e);
    if (r >= 0 && r !== highlighted) highlight(r);
  });
  // A tap (or a click) picks the GPU under it and puts the cursor there, so the focus that
  // follows it keeps that GPU, not the cursor's last place.
  const pick = (e) => {
    if (!view.shape) return;
    const r = pointToRank(svg, view.shape, e);
    if (r < 0) return;
    cursor = r;
    if (r !== highlighted) highlight(r);
  };
  svg.addEventListener('pointerdown', pick);
  svg.addEventListener('click', pick);
  svg.addEventListener('pointerleave', () => {
    if (view.shape) highlight(svg.contains(svg.getRootNode().activeElement) ? cursor : -1);
  });
  svg.addEventListener('focus', () => {
    if (view.shape) highlight(cursor);
  });
  svg.addEventListener('blur', () => {
    if (view.shape) highlight(-1);
  });
  svg.addEventListener('keydown', (e) => {
    const s = view.shape;
    if (!s) return;
    const { vr, vc } = xy(s, cursor);
    const target = {
      ArrowRight: () => cursor + 1,
      ArrowLeft: () => cursor - 1,
      ArrowDown: () => at(s, vr + 1, vc),
      ArrowUp: () => at(s, vr - 1, vc),
      PageDown: () => at(s, vr + 10, vc),
      PageUp: () => at(s, vr - 10, vc),
      Home: () => 0,
      End: () => s.gpus - 1,
    }[e.key];
    if (!target) return;
    e.preventDefault();
    const r = target();
    if (r < 0 || r >= s.gpus) return;
    cursor = r;
    highlight(r);
  });
  return {
    get highlighted() {
      return highlighted;
    },
    // A new shape: the cursor stays on the map, nothing is highlighted.
    reset(gpus) {
      cursor = Math.min(cursor, gpus - 1);
      highlighted = -1;
    },
  };
}

export function createFleet({ after, legend, readout }) {
  const svg = el('svg', { class: 'grid fleet', role: 'group', tabindex: 0 });
  after.after(svg);
  const note = Object.assign(document.createElement('p'), { className: 'fleet-note' });
  svg.after(note);
  const layers = {
    nodes: el('path', { class: 'fleet-nodes' }, svg),
    labels: el('g', { class: 'fleet-labels' }, svg),
    cells: el('g', { class: 'fleet-cells' }, svg),
    idle: el('path', { class: 'fleet-idle' }, svg),
    replicas: el('path', { class: 'replica fleet-replicas' }, svg),
    domains: el('path', { class: 'fleet-domains' }, svg),
    hl: el('g', { class: 'fleet-hl', 'aria-hidden': 'true' }, svg),
  };
  const legendView = createLegend(legend);
  const view = { shape: null, highlight };
  const pointer = watchMap(svg, view);
  let cellPath = []; // "M x y h8v8h-8z" per GPU, built once per shape
  let report = null;
  let ranks = null;
  let colourPaths = [];

  function build(gpus, perNode) {
    const s = layoutFor(gpus, perNode);
    view.shape = s;
    svg.setAttribute('viewBox', `0 0 ${s.width} ${s.height}`);
    // Squares stay at most ~14 px; a small fleet does not blow up to the page width.
    svg.style.maxWidth = `${Math.round(s.width * 1.6)}px`;
    const built = buildShape(s);
    cellPath = built.cellPath;
    layers.nodes.setAttribute('d', built.nodes);
    layers.labels.replaceChildren(...built.labels);
    pointer.reset(gpus);
  }

  function highlight(r) {
    const s = view.shape;
    const place = r >= 0 ? placeOf(ranks, r) : undefined;
    const groups = place ? groupsOf(ranks, place, report.degrees) : null;
    if (r < 0) {
      layers.hl.replaceChildren();
    } else {
      const path = (list, cls) =>
        el('path', { class: cls, d: list.map((q) => cellPath[q]).join('') });
      const veil = el('rect', { class: 'fleet-veil', width: s.width, height: s.height });
      const lit = groups
        ? [
            path(groups.ep.length > 1 ? groups.ep : [], 'hl-ep'),
            path(groups.dp, 'hl-dp'),
            path(groups.cp.length > 1 ? groups.cp : [], 'hl-cp'),
            path(groups.pp, 'hl-pp'),
            path(groups.tp, 'hl-tp'),
          ]
        : [];
      layers.hl.replaceChildren(veil, ...lit, path([r], 'hl-self'));
    }
    describe(readout, report, r, place, groups, {
      hint:
        'Hover or tap on the map, or focus it and use the arrow keys, to pick a GPU and see ' +
        'its tensor-parallel group, its pipeline and its data-parallel group.',
    });
  }

  return {
    update(next, nextRanks) {
      report = next;
      ranks = nextRanks;
      svg.style.display = '';
      note.hidden = false;
      legend.classList.add('fleet'); // no per-tile strip here
      const perNode = report.scenario.gpus_per_node;
      if (!view.shape || view.shape.gpus !== report.gpus || view.shape.perNode !== perNode) {
        build(report.gpus, perNode);
      }
      const s = view.shape;
      const { degrees } = report;
      const hues = Math.min(degrees.pp, MAX_HUES);
      const shades = Math.min(degrees.tp, MAX_SHADES);
      drawBands(
        layers.cells,
        colourPaths,
        colourBands(ranks, cellPath, degrees, hues, shades),
        degrees,
        shades,
      );
      outlineDomains(layers.domains, s, report.scenario);
      const active = ranks.length / RANK_INTS;
      layers.idle.setAttribute('d', active < s.gpus ? cellPath.slice(active).join('') : '');
      legendView.update(degrees, {
        replicaNote: outlineReplicas(layers.replicas, s, degrees, ranks),
      });
      note.textContent = mapNote(s, report, hues, shades);
      svg.setAttribute(
        'aria-label',
        `${fmt.integer(report.gpus)} GPUs in ` +
          `${fmt.integer(report.nodes)} nodes, drawn as a map; DP×TP×PP = ` +
          `${fmt.degrees(degrees)}; arrow keys move between GPUs`,
      );
      highlight(pointer.highlighted);
    },
    clear() {
      view.shape = null;
      cellPath = [];
      for (const layer of Object.values(layers)) {
        if (layer.tagName === 'path') layer.setAttribute('d', '');
        else layer.replaceChildren();
      }
      colourPaths = [];
      legendView.reset();
      legend.classList.remove('fleet');
      svg.style.display = 'none';
      note.hidden = true;
    },
  };
}

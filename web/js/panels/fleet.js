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
const MAX_DOMAIN_LABELS = 64; // NVLink domains named in a header; past that, a gap between bands
const BAND_GAP = 4; // between domain bands without a header
const BAND_PAD = 4; // a band's margin around its squares

// Rows of about sqrt(2·GPUs) GPUs, a power of two nodes wide: 10,240 GPUs in 8-GPU nodes give
// rows of 16 nodes (128 GPUs), so the book's 80×8×16 fleet shows one replica per row. When an
// NVLink domain holds several nodes (GB200 NVL72: 18 trays of 4) the row instead holds a whole
// number of domains, or a domain a whole number of rows, whichever is nearest that width, and
// each domain gets a tinted band with a header strip above it (`head` units; none when the
// node is the domain, so those maps keep their layout).
function layoutFor(gpus, perNode, domain = perNode) {
  const target = 2 ** Math.round(Math.log2(Math.sqrt(2 * gpus)));
  let blockCols = perNode;
  let blockRows = 1;
  let nodesPerRow = Math.max(1, Math.floor(target / perNode));
  const domainNodes = domain > perNode ? domain / perNode : 0;
  if (perNode > target) {
    blockCols = target;
    blockRows = Math.ceil(perNode / target);
    nodesPerRow = 1;
  } else if (domainNodes) {
    nodesPerRow = fitDomains(nodesPerRow, domainNodes);
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
  const domains = domainNodes && nodesPerRow > 0 ? Math.ceil(gpus / domain) : 0;
  // A band is a domain's rows (or one row of several domains); its header holds the labels.
  const rowsPerBand = domainNodes ? Math.max(1, domainNodes / nodesPerRow) : 1;
  const labelled = domains > 0 && domains <= MAX_DOMAIN_LABELS;
  const head = domains ? (labelled ? Math.round(font * 1.6) : BAND_GAP) : 0;
  const rowH = blockH + ROW_GAP;
  const bands = Math.ceil(nodeRows / rowsPerBand);
  const height = TOP + nodeRows * rowH + bands * head;
  return {
    gpus,
    perNode,
    domain: domainNodes ? domain : perNode,
    domains,
    labelled,
    blockCols,
    blockRows,
    nodesPerRow,
    nodes,
    nodeRows,
    blockW,
    blockH,
    rowH,
    rowsPerBand,
    head,
    bandH: rowsPerBand * rowH + head,
    width,
    height,
    font,
    left,
    rowGpus: nodesPerRow * perNode,
  };
}

// Nodes per row near `wanted` that tile NVLink domains of `domainNodes` nodes: a divisor of the
// domain (each domain a few whole rows) or a multiple of it (a few domains per row).
function fitDomains(wanted, domainNodes) {
  let best = domainNodes;
  const better = (n) => Math.abs(Math.log(n / wanted)) < Math.abs(Math.log(best / wanted));
  for (let n = 1; n <= domainNodes; n++) if (domainNodes % n === 0 && better(n)) best = n;
  for (let k = 2; k * domainNodes <= 4 * wanted; k++)
    if (better(k * domainNodes)) best = k * domainNodes;
  return best;
}

// The top of node row `row`: the rows above it and one header per band so far.
const rowTop = (s, row) => TOP + row * s.rowH + (Math.floor(row / s.rowsPerBand) + 1) * s.head;

// Where GPU r's square sits: its corner, and its visual row and column.
function xy(s, r) {
  const node = Math.floor(r / s.perNode);
  const i = r % s.perNode;
  const nodeRow = Math.floor(node / s.nodesPerRow);
  const nodeCol = node % s.nodesPerRow;
  return {
    x: s.left + nodeCol * (s.blockW + NODE_GAP) + (i % s.blockCols) * PITCH,
    y: rowTop(s, nodeRow) + Math.floor(i / s.blockCols) * PITCH,
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
  const band = Math.floor((p.y - TOP) / s.bandH);
  const inBand = p.y - TOP - band * s.bandH - s.head; // below the band's header
  if (inBand < 0) return -1;
  const nodeRow = band * s.rowsPerBand + Math.floor(inBand / s.rowH);
  const inX = p.x - s.left - nodeCol * (s.blockW + NODE_GAP);
  const inY = p.y - rowTop(s, nodeRow);
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

// One tinted band per NVLink domain when a domain holds more than one node (GB200 NVL72: 18
// trays of 4), alternating two tints, each with its name in the header strip above it where the
// map has one ("NVLink domain 2 · 72 GPUs", or just its number where that does not fit); none
// when the node is the domain. The rows were chosen to fit the domains (layoutFor), so a band
// is a rectangle.
function drawDomains(layers, s) {
  const paths = ['', ''];
  const labels = [];
  for (let i = 0; i < s.domains; i++) {
    const first = i * s.domain;
    const size = Math.min(s.domain, s.gpus - first);
    const boxes = replicaBoxes(s, first, size);
    const x0 = Math.min(...boxes.map((b) => b.x0)) - BAND_PAD;
    const x1 = Math.max(...boxes.map((b) => b.x1)) + BAND_PAD;
    const y0 = boxes[0].y0 - BAND_PAD - (s.labelled ? s.head - BAND_PAD : 0);
    const y1 = Math.max(...boxes.map((b) => b.y1)) + BAND_PAD;
    paths[i % 2] += `M${x0} ${y0}H${x1}V${y1}H${x0}z`;
    if (!s.labelled) continue;
    const name = `NVLink domain ${fmt.integer(i + 1)} · ${fmt.integer(size)} GPUs`;
    // About 0.6 em per character: the long name where it fits, else the number.
    const fits = name.length * 0.6 * s.font < x1 - x0 - 2 * BAND_PAD;
    const t = el('text', {
      class: 'fleet-label fleet-domain-label',
      x: x0 + BAND_PAD,
      y: y0 + (s.head - BAND_PAD) / 2 + 1,
      'dominant-baseline': 'central',
      'font-size': s.font,
    });
    t.textContent = fits ? name : fmt.integer(i + 1);
    labels.push(t);
  }
  layers.domains.setAttribute('d', paths[0]);
  layers.domainsOdd.setAttribute('d', paths[1]);
  layers.domainLabels.replaceChildren(...labels);
}

// A layer of domain bands in the accent colour at one tint (set here, not in the stylesheet:
// the first load's CSS budget has no room, and the map loads only when a fleet needs it).
function bandLayer(svg, tint) {
  const path = el('path', { class: 'fleet-domains', 'stroke-width': 0.9 }, svg);
  Object.assign(path.style, { fill: 'var(--accent)', fillOpacity: tint, stroke: 'var(--accent)' });
  path.style.strokeOpacity = 0.6;
  return path;
}

// The GPUs on GPU r's rail: the same local index of every node (a rail-optimised network wires
// GPU k of every node to rail switch k).
function railOf(s, r) {
  const members = [];
  for (let q = r % s.perNode; q < s.gpus; q += s.perNode) members.push(q);
  return members;
}

// The readout's groups (data-group: tp, pp, dp, cp, ep) whose seam rides one rail say which.
function nameRails(readout, report, rail) {
  for (const li of readout.querySelectorAll('.readout-groups li')) {
    if (report.comms[SEAM_OF[li.dataset.group]]?.level === 'rail') li.append(`, on rail ${rail}`);
  }
}
const SEAM_OF = { tp: 'tensor', pp: 'pipeline', dp: 'data', cp: 'context', ep: 'expert' };

// The seams whose groups ride one rail (the core's comms.*.level).
const RAIL_SEAMS = ['tensor', 'pipeline', 'data', 'context', 'expert'];
const railSeams = (report) => RAIL_SEAMS.filter((k) => report.comms[k]?.level === 'rail');

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
  const domain = report.domain_gpus;
  const links =
    domain > s.perNode
      ? `; each tinted band is an NVLink domain of ${fmt.integer(domain)} GPUs (NVLink across ` +
        `its nodes, the ${report.scenario.network_gb_s} GB/s network between domains, one rail ` +
        `per GPU index: pick a GPU to see its rail when a seam rides one)`
      : ` (NVLink inside, the ${report.scenario.network_gb_s} GB/s network between)`;
  return (
    `Each square is a GPU, each block of ${fmt.integer(s.perNode)} a node${links}; ${rows}.` +
    `${banded.length ? ` Colours: ${banded.join(', ')}.` : ''}`
  );
}

// What a picked GPU r lights up on the veiled map: its rail when a seam's groups ride one (its
// group lies along it), its groups (solid TP, dashed PP, dotted DP...) and itself.
function lit(s, cellPath, report, r, place, groups) {
  const path = (list, cls) => el('path', { class: cls, d: list.map((q) => cellPath[q]).join('') });
  const veil = el('rect', { class: 'fleet-veil', width: s.width, height: s.height });
  const rail = place && railSeams(report).length ? [path(railOf(s, r), 'hl-rail')] : [];
  for (const p of rail)
    Object.assign(p.style, { fill: 'var(--focus)', fillOpacity: 0.5, stroke: 'none' });
  const seams = groups
    ? [
        path(groups.ep.length > 1 ? groups.ep : [], 'hl-ep'),
        path(groups.dp, 'hl-dp'),
        path(groups.cp.length > 1 ? groups.cp : [], 'hl-cp'),
        path(groups.pp, 'hl-pp'),
        path(groups.tp, 'hl-tp'),
      ]
    : [];
  return [veil, ...rail, ...seams, path([r], 'hl-self')];
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
    domains: bandLayer(svg, 0.07),
    domainsOdd: bandLayer(svg, 0.15),
    domainLabels: el('g', { class: 'fleet-domain-labels' }, svg),
    nodes: el('path', { class: 'fleet-nodes' }, svg),
    labels: el('g', { class: 'fleet-labels' }, svg),
    cells: el('g', { class: 'fleet-cells' }, svg),
    idle: el('path', { class: 'fleet-idle' }, svg),
    replicas: el('path', { class: 'replica fleet-replicas' }, svg),
    hl: el('g', { class: 'fleet-hl', 'aria-hidden': 'true' }, svg),
  };
  const legendView = createLegend(legend);
  const view = { shape: null, highlight };
  const pointer = watchMap(svg, view);
  let cellPath = []; // "M x y h8v8h-8z" per GPU, built once per shape
  let report = null;
  let ranks = null;
  let colourPaths = [];

  function build(gpus, perNode, domain) {
    const s = layoutFor(gpus, perNode, domain);
    view.shape = s;
    svg.setAttribute('viewBox', `0 0 ${s.width} ${s.height}`);
    // Squares stay at most ~14 px; a small fleet does not blow up to the page width.
    svg.style.maxWidth = `${Math.round(s.width * 1.6)}px`;
    const built = buildShape(s);
    cellPath = built.cellPath;
    layers.nodes.setAttribute('d', built.nodes);
    layers.labels.replaceChildren(...built.labels);
    drawDomains(layers, s);
    pointer.reset(gpus);
  }

  function highlight(r) {
    const s = view.shape;
    const place = r >= 0 ? placeOf(ranks, r) : undefined;
    const groups = place ? groupsOf(ranks, place) : null;
    layers.hl.replaceChildren(...(r < 0 ? [] : lit(s, cellPath, report, r, place, groups)));
    describe(readout, report, r, place, groups, {
      hint:
        'Hover or tap on the map, or focus it and use the arrow keys, to pick a GPU and see ' +
        'its tensor-parallel group, its pipeline and its data-parallel group.',
    });
    if (place) nameRails(readout, report, r % s.perNode);
  }

  return {
    update(next, nextRanks) {
      report = next;
      ranks = nextRanks;
      svg.style.display = '';
      note.hidden = false;
      legend.classList.add('fleet'); // no per-tile strip here
      const perNode = report.scenario.gpus_per_node;
      const domain = Math.max(perNode, report.domain_gpus);
      const shape = view.shape;
      if (
        !shape ||
        shape.gpus !== report.gpus ||
        shape.perNode !== perNode ||
        shape.domain !== domain
      ) {
        build(report.gpus, perNode, domain);
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

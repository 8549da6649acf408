// What the two GPU grids share (panels/tiles.js: a tile per GPU; panels/fleet.js: the
// aggregate map past a few dozen GPUs): the colours, the legend, the rank coordinates read off
// the core's lab.ranks() array, and the hover/focus readout that names a GPU's groups.
import * as fmt from './format.js';

// Hue per stage, evenly spaced from blue; lightness per slice, light to dark. OKLCH keeps the
// perceived lightness equal across hues, so "shade" means the same thing on every stage.
export function tileColour(pp, ppDegree, tp, tpDegree) {
  const hue = ppDegree === 1 ? 250 : (250 + (pp * 360) / ppDegree) % 360;
  const lightness = tpDegree === 1 ? 0.72 : 0.88 - (tp * 0.4) / (tpDegree - 1);
  return { fill: `oklch(${lightness.toFixed(3)} 0.13 ${hue.toFixed(1)})`, dark: lightness < 0.58 };
}

// lab.ranks() is an Int32Array of [dp, tp, pp, cp, ep, node, expert group] per active rank (RANK_INTS
// each); ranks past its end are idle (no seam on: one GPU trains, the rest wait).
export const RANK_INTS = 7;
export function placeOf(ranks, r) {
  const i = RANK_INTS * r;
  if (r < 0 || i >= ranks.length) return undefined;
  return {
    rank: r,
    dp: ranks[i],
    tp: ranks[i + 1],
    pp: ranks[i + 2],
    cp: ranks[i + 3],
    ep: ranks[i + 4],
    node: ranks[i + 5],
    expertGroup: ranks[i + 6],
  };
}

// The runs of consecutive ranks in one data-parallel replica, { dp, first, size }: one run per
// replica in the chapter's nesting order (TP×PP consecutive ranks), more when the order nests
// DP inside another seam and interleaves the replicas.
export function replicaRuns(ranks) {
  const runs = [];
  for (let r = 0, i = 0; i < ranks.length; r++, i += RANK_INTS) {
    const last = runs.at(-1);
    if (last && last.dp === ranks[i]) last.size += 1;
    else runs.push({ dp: ranks[i], first: r, size: 1 });
  }
  return runs;
}

// The legend's words when the nesting order splits each replica into several runs.
export function splitNote(runs, dp) {
  if (runs.length <= dp) return undefined;
  const each = runs.length / dp;
  return `(${fmt.exactNumber(dp)} replicas, each in ${fmt.exactNumber(each)} runs of ${fmt.exactNumber(runs[0].size)}: the nesting order interleaves them)`;
}

// The ranks sharing a GPU's tensor group (same dp, pp, cp), pipeline (same dp, tp, cp),
// data-parallel group (same tp, pp, cp), context group (same dp, tp, pp) and expert group (same
// tp, pp and expert group, which the core numbers: layout.h), read off the core's coordinates.
export function groupsOf(ranks, place) {
  const groups = { tp: [], pp: [], dp: [], cp: [], ep: [] };
  for (let q = 0, i = 0; i < ranks.length; q++, i += RANK_INTS) {
    const sameDp = ranks[i] === place.dp;
    const sameTp = ranks[i + 1] === place.tp;
    const samePp = ranks[i + 2] === place.pp;
    const sameCp = ranks[i + 3] === place.cp;
    if (sameDp && samePp && sameCp) groups.tp.push(q);
    if (sameDp && sameTp && sameCp) groups.pp.push(q);
    if (sameTp && samePp && sameCp) groups.dp.push(q);
    if (sameDp && sameTp && samePp) groups.cp.push(q);
    if (sameTp && samePp && ranks[i + 6] === place.expertGroup) groups.ep.push(q);
  }
  return groups;
}

function chip(text, colour) {
  const span = document.createElement('span');
  span.className = 'chip';
  span.textContent = text;
  if (colour) {
    span.style.background = colour.fill;
    span.classList.add(colour.dark ? 'ink-light' : 'ink-dark');
  }
  return span;
}

// Chips for 0..n-1, all of them up to `max`, else the first few, an ellipsis and the last.
function chips(n, max, make) {
  if (n <= max) return Array.from({ length: n }, (_, i) => make(i));
  const head = Array.from({ length: max - 2 }, (_, i) => make(i));
  return [...head, chip('…'), make(n - 1)];
}

// Hues 360/16 = 22.5° apart at the tiles' chroma stay told apart (OKLab distance 0.05);
// closer than that they need the labels.
export const DISTINCT_HUES = 16;

export function createLegend(legend) {
  let key = '';
  return {
    update(degrees, { replicaNote } = {}) {
      const { dp, tp, pp, cp = 1, ep = 1 } = degrees;
      const next = `${dp}x${tp}x${pp}x${cp}x${ep}|${replicaNote ?? ''}`;
      if (next === key) return;
      key = next;
      const stages = legend.querySelector('[data-legend="stage"] .chips');
      const slices = legend.querySelector('[data-legend="slice"] .chips');
      const replicas = legend.querySelector('[data-legend="replica"] .legend-note');
      stages.replaceChildren(
        ...chips(pp, DISTINCT_HUES, (s) =>
          chip(`P${s}`, tileColour(s, pp, Math.floor((tp - 1) / 2), tp)),
        ),
      );
      slices.replaceChildren(...chips(tp, 16, (t) => chip(`T${t}`, tileColour(0, pp, t, tp))));
      replicas.textContent =
        replicaNote ?? (dp === 1 ? '(one replica)' : `(${fmt.exactNumber(dp)} replicas)`);
      // Past DISTINCT_HUES stages neighbouring hues look alike: the second cue is named.
      legend.querySelector('[data-legend="stage"] .legend-note').textContent =
        pp <= DISTINCT_HUES
          ? ''
          : legend.classList.contains('fleet')
            ? `(${pp} stages: neighbouring hues look alike, so pick a GPU to read its stage)`
            : `(${pp} stages: neighbouring hues look alike, so each tile's P number names its stage)`;
      // The fourth and fifth seams change no colour or outline: they show as groups when a
      // GPU is picked, and their legend entries show only when they are in use.
      const context = legend.querySelector('[data-legend="context"]');
      const expert = legend.querySelector('[data-legend="expert"]');
      if (context) {
        context.hidden = cp === 1;
        context.querySelector('.legend-note').textContent = `(${cp} GPUs split each sequence)`;
      }
      if (expert) {
        expert.hidden = ep === 1;
        expert.querySelector('.legend-note').textContent =
          `(${ep} GPUs of the data and context ranks share out the experts)`;
      }
    },
    reset() {
      key = '';
    },
  };
}

function describeGroup(report, name, members, seam) {
  const li = document.createElement('li');
  li.dataset.group = name.key;
  const swatch = Object.assign(document.createElement('span'), {
    className: `hl-swatch ${name.key}`,
  });
  const c = report.comms[seam];
  li.append(swatch, `${name.label} ${name.style}: `);
  li.append(
    members.length === 1
      ? `just this GPU (${name.off})`
      : `${fmt.gpuList(members)} — ${c.collective} over ${c.link === 'nvlink' ? 'NVLink' : 'the network'}`,
  );
  return li;
}

// The words under the grid for the GPU under the pointer or focus (r = -1: none).
export function describe(readout, report, r, place, groups, { hint } = {}) {
  const title = readout.querySelector('.readout-title');
  const list = readout.querySelector('.readout-groups');
  if (r < 0) {
    // A touch screen has no hover: its hint says tap.
    const touch = globalThis.matchMedia?.('(hover: none)').matches;
    title.textContent =
      hint ??
      `${touch ? 'Tap' : 'Hover over or focus'} a GPU to see its tensor-parallel group, ` +
        'its pipeline and its data-parallel group.';
    list.replaceChildren();
  } else if (!place) {
    title.textContent = `GPU ${r} is idle: with no seam on, one GPU trains the whole model.`;
    list.replaceChildren();
  } else {
    const { cp: CP = 1, ep: EP = 1 } = report.degrees;
    title.textContent =
      `GPU ${r} (node ${place.node}) is data-parallel replica ${place.dp}, ` +
      `pipeline stage ${place.pp}, tensor slice ${place.tp}` +
      (CP > 1 ? `, context chunk ${place.cp}` : '') +
      (EP > 1 ? `, expert rank ${place.ep}` : '') +
      '.';
    const beyond = [];
    if (CP > 1) {
      beyond.push(
        describeGroup(
          report,
          { key: 'cp', label: 'Its context-parallel group', style: '(double)', off: '' },
          groups.cp,
          'context',
        ),
      );
    }
    if (EP > 1) {
      beyond.push(
        describeGroup(
          report,
          { key: 'ep', label: 'Its expert-parallel group', style: '(coloured dashes)', off: '' },
          groups.ep,
          'expert',
        ),
      );
    }
    list.replaceChildren(
      describeGroup(
        report,
        {
          key: 'tp',
          label: 'Its tensor-parallel group',
          style: '(solid)',
          off: 'tensor parallelism is off',
        },
        groups.tp,
        'tensor',
      ),
      describeGroup(
        report,
        { key: 'pp', label: 'Its pipeline', style: '(dashed)', off: 'pipeline parallelism is off' },
        groups.pp,
        'pipeline',
      ),
      describeGroup(
        report,
        {
          key: 'dp',
          label: 'Its data-parallel group',
          style: '(dotted)',
          off: 'data parallelism is off',
        },
        groups.dp,
        'data',
      ),
      ...beyond,
    );
  }
}

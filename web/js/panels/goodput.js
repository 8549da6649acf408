// One day of the run, drawn to scale (the desk only): a 24-hour bar split into new work,
// checkpoint pauses, work done again after failures, and restarts with their reloads, in the
// core's seconds (report.goodput.day: they sum to a day), with the failures a day, the job's
// mean time between them and the checkpoint's interval, pause and write beside it in words.
// Every number is the report's; the page only lays the parts end to end.
import { make, panel, showNone, svg } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const BAR = 28; // the bar's height in pixels
const H = BAR + 18; // with the hours under it
const DAY_S = 24 * 3600; // the bar's length: one day
const HOURS = [0, 6, 12, 18, 24];
// Places along the bar as percentages of its width, so the bar fills its column and the hours
// keep their size in pixels at any width (a viewBox would shrink them on a phone).
const at = (fraction) => `${100 * fraction}%`;

// [report.goodput.day key, words, colour class (the memory parts' colours)].
const PARTS = [
  ['work_s', 'New work', 'part-weights'],
  ['checkpoint_s', 'Checkpoint pauses', 'part-overhead'],
  ['redone_s', 'Work done again after failures', 'part-grads'],
  ['restart_s', 'Restarts and reloads', 'part-activations'],
];

// A number of the sentence: its text, its exact value as the title, and its derivation when
// the core gives one (key), else none.
function number(node, value, text, exact, key = null) {
  node.textContent = text;
  node.title = exact;
  node.dataset.value = String(value);
  if (key) node.dataset.explain = key;
  else node.removeAttribute('data-explain');
}

// The bar and the hours under it; the text takes the reader's colour (currentColor), so it
// needs no rule of the stylesheet in either theme.
function drawing(box) {
  const figure = svg('svg', { width: '100%', height: H, role: 'img' }, box);
  figure.classList.add('goodput-day');
  const rects = PARTS.map(([key, , cls]) => {
    const r = svg('rect', { class: cls, y: 0, height: BAR }, figure);
    r.dataset.day = key;
    return r;
  });
  for (const h of HOURS) {
    const x = at(h / 24);
    svg('line', { x1: x, x2: x, y1: BAR, y2: BAR + 4, stroke: 'currentColor' }, figure);
    const anchor = h === 0 ? 'start' : h === 24 ? 'end' : 'middle';
    const t = svg(
      'text',
      { x, y: H - 2, 'text-anchor': anchor, 'font-size': 12, fill: 'currentColor' },
      figure,
    );
    t.textContent = `${h} h`;
  }
  return { figure, rects };
}

// "7.77 failures", "1 time": the failures a day, counted in `word`.
function times(g, word) {
  const n = fmt.count(g.failures_per_day);
  return `${n} ${word}${n === '1' ? '' : 's'}`;
}

// "7.77 failures a day, one every 3.09 hours" (or none at all: every rate 0).
function failureWords(g) {
  if (!(g.job_mtbf_s > 0)) return 'No failures (every failure rate is 0)';
  return `${times(g, 'failure')} a day, one every ${fmt.durationWords(g.job_mtbf_s)}`;
}

// The bar, its legend in words and the two sentences, built once.
function build(section) {
  const big = make('p', { className: 'big num' }, section);
  const none = make('p', { className: 'small', hidden: true }, section);
  const body = make('div', {}, section);
  const { figure, rects } = drawing(body);
  const facts = make('dl', { className: 'facts' }, body);
  const dd = {};
  for (const [key, label, cls] of PARTS) {
    const div = make('div', {}, facts);
    const dt = make('dt', {}, div);
    make('span', { className: `swatch ${cls}` }, dt).setAttribute('aria-hidden', 'true');
    dt.append(label);
    dd[key] = make('dd', {}, div);
  }
  // Each number of a sentence in a span of its own, which may show its math.
  const spans = (p, names) => Object.fromEntries(names.map((n) => [n, make('span', {}, p)]));
  const fail = spans(make('p', {}, body), ['count', 'mtbf', 'lost']);
  const ck = spans(make('p', {}, body), [
    'interval',
    'best',
    'bestValue',
    'bestEnd',
    'write',
    'pause',
  ]);
  return { big, none, body, figure, rects, dd, fail, ck };
}

// The day's parts end to end, each its share of the bar's width, and their lengths in words.
function drawDay({ rects, dd }, day) {
  let x = 0;
  PARTS.forEach(([key], i) => {
    const w = day[key] / DAY_S;
    rects[i].setAttribute('x', at(x));
    rects[i].setAttribute('width', at(w));
    x += w;
    dd[key].textContent = fmt.duration(day[key]);
    dd[key].title = `${fmt.exactNumber(day[key])} s of the day's ${fmt.integer(DAY_S)}`;
    dd[key].dataset.value = String(day[key]);
  });
}

// "The job fails 7.76 times a day: a failure every 3.09 hours. Each costs 10.2 minutes: ..."
function sayFailures(fail, g) {
  const any = g.job_mtbf_s > 0;
  fail.count.textContent = any
    ? `The job fails ${times(g, 'time')} a day: `
    : 'No failures: every failure rate is 0.';
  if (any) {
    number(
      fail.mtbf,
      g.job_mtbf_s,
      `a failure every ${fmt.durationWords(g.job_mtbf_s)}`,
      `${fmt.exactNumber(g.job_mtbf_s)} s between failures`,
      'goodput.job_mtbf_s',
    );
  } else {
    fail.mtbf.textContent = '';
  }
  fail.lost.textContent = any
    ? `. Each costs ${fmt.durationWords(g.lost_per_failure_s)}: the restart, the reload ` +
      'and the work since the last checkpoint, done again.'
    : '';
}

// "A checkpoint every 9.89 seconds, the best interval: 4.87 TB written in 2.44 seconds; ..."
// The scenario's interval 0 asks for the best; another shows the best beside it.
function sayCheckpoints(ck, g, s) {
  const best = s.reliability.checkpoint_interval_s === 0;
  number(
    ck.interval,
    g.checkpoint_interval_s,
    `A checkpoint every ${fmt.durationWords(g.checkpoint_interval_s)}`,
    `${fmt.exactNumber(g.checkpoint_interval_s)} s`,
    best ? 'goodput.best_interval_s' : null,
  );
  ck.best.textContent = best ? ', the best interval' : ' (the best: ';
  ck.bestEnd.textContent = best ? ': ' : '): ';
  ck.bestValue.hidden = best;
  if (!best) {
    number(
      ck.bestValue,
      g.best_interval_s,
      fmt.durationWords(g.best_interval_s),
      `${fmt.exactNumber(g.best_interval_s)} s`,
      'goodput.best_interval_s',
    );
  }
  number(
    ck.write,
    g.checkpoint_write_s,
    `${fmt.bytes(g.checkpoint_bytes)} written in ${fmt.durationWords(g.checkpoint_write_s)}`,
    `${fmt.exactNumber(g.checkpoint_write_s)} s for ${fmt.exactNumber(g.checkpoint_bytes)} bytes, ` +
      `${fmt.exactNumber(g.checkpoint_bytes_per_gpu)} from the busiest GPU`,
    'goodput.checkpoint_write_s',
  );
  ck.pause.textContent = s.reliability.async_checkpoint
    ? `; training pauses ${fmt.durationWords(g.checkpoint_pause_s)} for the copy to host ` +
      'memory, the write going on behind it.'
    : `; training pauses ${fmt.durationWords(g.checkpoint_pause_s)} while it is written.`;
}

// The same facts in words, for the drawing's label.
function label(g, s) {
  const parts = PARTS.map(
    ([key, words]) => `${words.toLowerCase()} ${fmt.durationWords(g.day[key])}`,
  );
  const best = s.reliability.checkpoint_interval_s === 0 ? ', the best interval' : '';
  return (
    `One day of the run, to scale: ${parts.join(', ')}. ${failureWords(g)}. ` +
    `A checkpoint every ${fmt.durationWords(g.checkpoint_interval_s)}${best}.`
  );
}

export function createGoodputDay(root) {
  const section = panel(root, 'goodput', 'One day of the run');
  const el = build(section);
  return {
    // Drawn only where shown (the desk); a run that does not fit its GPUs has no day.
    update(report, shown) {
      if (section.hidden === shown) section.hidden = !shown;
      if (!shown) return;
      const g = report.goodput;
      const s = report.scenario;
      const fits = report.memory.fits;
      el.none.hidden = fits;
      el.body.hidden = !fits;
      if (!fits) {
        el.none.textContent = 'The run does not fit its GPUs: it has no day to draw.';
        showNone(el.big, 'the run does not fit its GPUs');
        return;
      }
      number(
        el.big,
        g.effective_time,
        `${fmt.share(g.effective_time)} new work`,
        `${fmt.share(g.effective_time)} of the run's time is new work (goodput)`,
        'goodput.effective_time',
      );
      drawDay(el, g.day);
      el.figure.setAttribute('aria-label', label(g, s));
      sayFailures(el.fail, g);
      sayCheckpoints(el.ck, g, s);
    },
  };
}

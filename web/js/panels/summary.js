// The text around the panels: the badge, the core's warnings and facts, the numbers quoted in the prose
// (fleet size, model size), the grid's text alternative, and a polite spoken summary when the
// layout or the memory changes, so the words stay true to what is on screen.
import { markVerdict, verdictOf, verdictWords } from '../lib/fit-text.js';
import * as fmt from '../lib/format.js';

const ANNOUNCE_MS = 700; // one announcement after a burst of changes, not one per click

const plural = (n, one, many = `${one}s`) => `${fmt.integer(n)} ${n === 1 ? one : many}`;

// "16 GPUs: 2 data-parallel replicas × 4 tensor slices × 2 pipeline stages", from the report.
export function layoutSentence(report) {
  const { dp, tp, pp, cp = 1, ep = 1 } = report.degrees;
  const fleet = `${plural(report.gpus, 'GPU')} in ${plural(report.nodes, 'node')}`;
  const layout =
    `${plural(dp, 'data-parallel replica')} × ${plural(tp, 'tensor slice')} × ` +
    `${plural(pp, 'pipeline stage')}` +
    (cp > 1 ? ` × ${plural(cp, 'context chunk')}` : '') +
    (ep > 1 ? `, experts split ${ep} ways` : '');
  const idle = report.gpus - report.active_gpus;
  return `${fleet}: ${layout}${
    idle > 0 ? ` on ${plural(report.active_gpus, 'GPU')}, ` + `${fmt.integer(idle)} idle` : ''
  }.`;
}

// The core's warnings and facts (report.facts: what the layout is, in words) in a strip of one
// reserved line, so a line that appears moves nothing: the first one (cut to the line), and the
// whole list in a box that opens over the page below it. Warnings are marked as such; facts
// alone are not (the book's own states have only facts). A visually hidden status line reads
// them all out.
function createWarnings(strip) {
  const none = strip.querySelector('.warn-none');
  const more = strip.querySelector('.warn-more');
  const first = strip.querySelector('.warn-first');
  const list = strip.querySelector('.warnings');
  const factList = strip.querySelector('.warn-facts');
  const live = strip.querySelector('.warn-live');
  more.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && more.open) {
      more.open = false;
      first.focus();
    }
  });
  const items = (texts) =>
    texts.map((w) => Object.assign(document.createElement('li'), { textContent: w }));
  const count = (n, one) => (n === 0 ? '' : `${n} ${one}${n === 1 ? '' : 's'}`);
  return {
    update(warnings, facts = []) {
      list.replaceChildren(...items(warnings));
      factList.replaceChildren(...items(facts));
      const all = warnings.length + facts.length;
      none.hidden = all > 0;
      more.hidden = all === 0;
      more.classList.toggle('facts-only', warnings.length === 0);
      if (!all) more.open = false;
      // A warning says so in words, not by its colour alone; the counts say what the box holds.
      const counts = [count(warnings.length, 'warning'), count(facts.length, 'note')];
      const lead =
        all > 1 ? `${counts.filter(Boolean).join(', ')}: ` : warnings.length ? 'Warning: ' : '';
      first.textContent = lead + (warnings[0] ?? facts[0] ?? '');
      live.textContent = [
        warnings.length ? `${counts[0]}: ${warnings.join(' ')}` : '',
        facts.length ? `About this layout: ${facts.join(' ')}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    },
  };
}

const SEAM_SHORT = { data: 'DP', tensor: 'TP', pipeline: 'PP', context: 'CP', expert: 'EP' };

// The compact readout a narrow screen keeps in view with the switches and the badge: the
// memory per GPU against the GPU, and the seam whose traffic per GPU is the largest (the core's
// report.comms.busiest_seam).
function createStatus(line) {
  const memory = line.querySelector('.status-memory');
  const seam = line.querySelector('.status-seam');
  const set = (node, text) => {
    if (node.textContent !== text) node.textContent = text;
  };
  return {
    update(report) {
      const m = report.memory;
      const mark = { fits: '✓', tight: '⚠', over: '✗' }[verdictOf(m)];
      set(memory, `${fmt.bytes(m.per_gpu_bytes)} per GPU ${mark} ${verdictWords(m)}`);
      markVerdict(line, m);
      const busiest = report.comms.busiest_seam;
      set(
        seam,
        busiest
          ? ` · ${SEAM_SHORT[busiest]} sends the most: ` +
              `${fmt.bytes(report.comms[busiest].bytes_per_gpu_per_step)}/step`
          : ' · nothing crosses a link',
      );
    },
  };
}

// What the heading adds to say which model the numbers are from: the book's, or the fuller
// one of the Advanced section and the desk (activations and overhead on top of the book's
// weights and optimizer), and the run the model is calibrated to (report.calibration).
function modelWords(report) {
  const full = report.scenario.memory_model === 'full';
  const parts = full ? ['with activations and overhead'] : [];
  if (report.calibration) parts.push(report.calibration.says);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

// The desk's heading: the run it sizes.
const deskTitle = (report) =>
  `Planning desk: ${fmt.model(report.scenario.model)} on ` +
  `${fmt.integer(report.gpus)} × ${fmt.gpu(report.scenario.gpu)}, ${fmt.degrees(report.degrees)}`;

export function createSummary(root) {
  const badge = root.querySelector('.badge');
  const titleText = root.querySelector('.title-text');
  const titleModel = root.querySelector('.title-model');
  const bookTitle = titleText.innerHTML;
  let explicit = false; // the heading names an explicit layout instead of the book's title
  const warnings = createWarnings(root.querySelector('.warn-strip'));
  const status = createStatus(root.querySelector('.book-status'));
  const caption = root.querySelector('.layout-text');
  const announcer = root.querySelector('.pe-announce');
  const fill = (name, text) => {
    for (const node of root.querySelectorAll(`[data-text="${name}"]`)) {
      if (node.textContent !== text) node.textContent = text;
    }
  };
  let shownWarnings = '';
  let spoken = null; // null until the first report: the page's first state is not announced
  let timer = 0;

  function announce(text) {
    if (spoken === null) {
      spoken = text;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (text !== spoken) announcer.textContent = text;
      spoken = text;
    }, ANNOUNCE_MS);
  }

  return {
    // The lab's heading follows the layout: the book's auto-factoring, or an explicit one.
    // Called before update(), which fills the book title's numbers: the title is put back only
    // when the explicit layout's heading replaced it.
    heading(state, report) {
      const words = modelWords(report);
      if (titleModel.textContent !== words) titleModel.textContent = words;
      if (state.view === 'desk') {
        explicit = true;
        const text = deskTitle(report);
        if (titleText.textContent !== text) titleText.textContent = text;
        return;
      }
      if (state.degrees === 'auto') {
        if (explicit) titleText.innerHTML = bookTitle;
        explicit = false;
        return;
      }
      explicit = true;
      const text =
        `Layout ${fmt.degrees(report.degrees)} set explicitly on ${fmt.integer(report.gpus)} ` +
        'GPUs; a seam switch goes back to auto-factoring';
      if (titleText.textContent !== text) titleText.textContent = text;
    },
    update(report) {
      const text =
        `${fmt.degreesName(report.degrees)} = ${fmt.degrees(report.degrees)} = ` +
        `${report.active_gpus}`;
      if (badge.textContent !== text) badge.textContent = text;
      badge.classList.toggle('partial', report.active_gpus < report.gpus);
      badge.title =
        report.active_gpus < report.gpus
          ? `${report.active_gpus} of ${report.gpus} GPUs in use`
          : `all ${report.gpus} GPUs in use`;

      fill('gpus', fmt.integer(report.gpus));
      const size = fmt.countWords(report.model_params);
      fill('model-article', fmt.article(size));
      fill('model-size', size);
      fill('bytes-per-param', fmt.count(report.scenario.bytes_per_param));

      const sentence = layoutSentence(report);
      if (caption.textContent !== sentence) caption.textContent = sentence;
      const m = report.memory;
      announce(
        `${sentence} ${fmt.bytes(m.per_gpu_bytes)} per GPU: ` +
          `${verdictOf(m) === 'tight' ? 'tight in' : verdictWords(m)} the ` +
          `${fmt.bytes(m.gpu_memory_bytes)} GPU.`,
      );

      status.update(report);
      // Rewritten only when they change, so the live region does not repeat itself.
      const key = JSON.stringify([report.warnings, report.facts]);
      if (key !== shownWarnings) {
        shownWarnings = key;
        warnings.update(report.warnings, report.facts ?? []);
      }
    },
    destroy() {
      clearTimeout(timer);
    },
  };
}

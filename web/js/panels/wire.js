// "What crosses the wire": one row per seam with the collective, the bytes one GPU sends per
// step, and the link it rides, all from report.comms. The book's sentence about each seam's
// appetite for bandwidth is static text (app/markup.js). The context and expert rows show only
// when their seam is switched on or in use, so the book's view keeps its three.
import { make, showNumber } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const LINKS = { nvlink: 'NVLink (in a node)', network: 'network (between nodes)' };
const SEAMS = ['data', 'tensor', 'pipeline', 'context', 'expert'];
const DEGREE = { data: 'dp', tensor: 'tp', pipeline: 'pp', context: 'cp', expert: 'ep' };
const BEYOND_THE_BOOK = new Set(['context', 'expert']);

// The link in words: the book's two, with the fleet's level where it changes what they mean
// (report.comms.*.level): an NVLink domain wider than a node, one rail or the spine of an
// oversubscribed network.
function linkWords(c, report) {
  const s = report.scenario;
  if (c.link === 'nvlink' && report.domain_spans_nodes)
    return `NVLink (in its ${report.domain_gpus}-GPU domain)`;
  if (c.link === 'network' && s.network_oversubscription > 1) {
    return c.level === 'rail'
      ? 'network (one rail)'
      : `network (across rails, a ${s.network_oversubscription}:1 spine)`;
  }
  return LINKS[c.link] ?? c.link;
}

// A number that explains itself from the core's derivation of report key `key`.
function explained(key, value, text, title) {
  const span = make('span');
  span.dataset.explain = key;
  showNumber(span, value, text, title);
  return span;
}

// "52.4 MB × 25,600": the message and the count, each explained on its own (app/explain.js).
function messageRow(row, c) {
  const bytes = c.bytes_per_message;
  const count = c.messages_per_step;
  const message = explained(
    `comms.${row.seam}.bytes_per_message`,
    bytes,
    fmt.bytes(bytes),
    `${fmt.exactNumber(bytes)} bytes per message`,
  );
  const messages = explained(
    `comms.${row.seam}.messages_per_step`,
    count,
    fmt.exactNumber(count),
    `${fmt.exactNumber(count)} messages per step`,
  );
  row.message.replaceChildren(message, ' × ', messages);
  row.message.dataset.value = String(c.bytes_per_message);
}

export function createWire(root) {
  const rows = SEAMS.map((seam) => {
    const li = root.querySelector(`[data-seam="${seam}"]`);
    const field = (name) => li.querySelector(`[data-field="${name}"]`);
    return {
      seam,
      li,
      state: field('state'),
      collective: field('collective'),
      group: field('group'),
      bytes: field('bytes'),
      message: field('message'),
      link: field('link'),
      time: field('time'),
      book: li.querySelector('p.book'),
    };
  });
  const dataBook = rows[0].book.innerHTML; // the book's sentence, for ZeRO off
  const rates = root.closest('.wire-panel')?.querySelector('.link-rates');

  // Why a card's NVLink is slower than the node's: the cards give the rate a collective reaches
  // (the scenario's efficiencies), the grid's node headers the link's peak.
  function ratesSentence(s) {
    if (!rates) return;
    const text =
      'Each card’s link runs at the rate collectives reach on it (nccl-tests’ bus bandwidth): ' +
      `NVLink ${fmt.percent(s.nvlink_efficiency)} of its ${s.nvlink_gb_s} GB/s peak, the ` +
      `network ${fmt.percent(s.network_efficiency)} of its ${s.network_gb_s} GB/s.`;
    if (rates.textContent !== text) rates.textContent = text;
  }

  // The data seam's sentence follows ZeRO: reduce-scatter and all-gather in place of the
  // book's all-reduce (the collective's name is the core's).
  function dataSentence(report) {
    const zero = report.scenario.zero_stage ?? 0;
    const c = report.comms.data;
    const book = rows[0].book;
    if (zero === 0 || !c.active) {
      if (book.innerHTML !== dataBook) book.innerHTML = dataBook;
      return;
    }
    const b = make('b', { textContent: 'Data:' });
    book.replaceChildren(
      b,
      ` with ZeRO-${zero}, ${c.collective} across the replicas, in place of the book's ` +
        'one all-reduce — each GPU keeps only its shard of what ZeRO splits.',
    );
  }

  return {
    update(report) {
      dataSentence(report);
      ratesSentence(report.scenario);
      for (const row of rows) {
        const c = report.comms[row.seam];
        if (BEYOND_THE_BOOK.has(row.seam)) {
          row.li.hidden = !c.active && !report.scenario.seams?.[row.seam];
        }
        row.li.classList.toggle('idle', !c.active);
        row.li.dataset.active = String(c.active);
        row.state.textContent = c.active
          ? `on · ${DEGREE[row.seam].toUpperCase()} = ` + `${report.degrees[DEGREE[row.seam]]}`
          : 'off · idle';
        if (!c.active) {
          for (const k of ['collective', 'group', 'bytes', 'message', 'link', 'time']) {
            row[k].textContent = '—';
            row[k].removeAttribute('title');
            delete row[k].dataset.value;
          }
          row.bytes.dataset.value = '0';
          continue;
        }
        row.collective.textContent = c.collective;
        showNumber(
          row.group,
          c.group_size,
          `${fmt.integer(c.group_size)} GPUs`,
          `${fmt.integer(c.group_size)} GPUs`,
        );
        showNumber(
          row.bytes,
          c.bytes_per_gpu_per_step,
          `${fmt.bytes(c.bytes_per_gpu_per_step)}/step`,
          `${fmt.exactNumber(c.bytes_per_gpu_per_step)} bytes per GPU per step`,
        );
        messageRow(row, c);
        showNumber(
          row.link,
          c.link_bytes_per_s,
          `${linkWords(c, report)}, ${fmt.bytes(c.link_bytes_per_s)}/s`,
          `${fmt.exactNumber(c.link_bytes_per_s)} bytes per second`,
        );
        row.link.dataset.link = c.link;
        showNumber(row.time, c.time_s, fmt.seconds(c.time_s), `${c.time_s} s per step`);
      }
    },
  };
}

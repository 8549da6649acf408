// The desk's summary: a compact strip that stays in view (sticky) over the "Advanced" form,
// so the effect of a control shows beside it: memory on the busiest GPU against its capacity,
// the step time, MFU, goodput (the share of the run's time that is new work, with failures,
// checkpoints and restarts), the cost per trillion tokens and per day, and with a token budget
// the time to train with failures (none but memory and step for a run that does not fit: it
// would never run). Every number is the core's report's.
import { make, showNone, showNumber } from '../lib/dom.js';
import { markVerdict, verdictWords } from '../lib/fit-text.js';
import * as fmt from '../lib/format.js';

export function createDeskSummary(body) {
  const box = make('div', { className: 'desk-summary' });
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Run summary');
  body.prepend(box);
  // explain: the report key whose derivation the value shows (app/explain.js).
  const item = (key, label, explain) => {
    const div = make('div', { className: `desk-${key}` }, box);
    make('span', { className: 'desk-label', textContent: label }, div);
    const value = make('span', { className: 'desk-value num' }, div);
    value.dataset.field = key;
    value.dataset.explain = explain;
    return { div, value };
  };
  const memory = item('memory', 'Memory per GPU', 'memory.per_gpu_bytes');
  const meter = make('span', { className: 'desk-meter' }, memory.div);
  meter.setAttribute('aria-hidden', 'true');
  const fill = make('span', { className: 'desk-meter-fill' }, meter);
  const step = item('step', 'Step time', 'time.step_s');
  const mfu = item('mfu', 'MFU', 'time.mfu');
  const goodput = item('goodput', 'Goodput', 'goodput.effective_time');
  const perTokens = item('tokens-cost', 'Per trillion tokens', 'cost.usd_per_trillion_tokens');
  const cost = item('cost', 'Cost per day', 'cost.usd_per_day');
  const train = item('train', 'To train, with failures', 'goodput.time_to_train_s');
  const none = (it) => showNone(it.value, 'the run does not fit its GPUs');
  const explains = (it, key) => (it.value.dataset.explain = key);

  return {
    update(report) {
      const m = report.memory;
      showNumber(
        memory.value,
        m.per_gpu_bytes,
        `${fmt.bytes(m.per_gpu_bytes)} of ${fmt.bytes(m.gpu_memory_bytes)}`,
        `${fmt.exactNumber(m.per_gpu_bytes)} of ${fmt.exactNumber(m.gpu_memory_bytes)} bytes` +
          `: ${verdictWords(m)}`,
      );
      markVerdict(memory.div, m);
      fill.style.width = `${Math.min(100, (100 * m.per_gpu_bytes) / m.gpu_memory_bytes)}%`;
      const t = report.time;
      showNumber(step.value, t.step_s, fmt.seconds(t.step_s), `${t.step_s} s`);
      const c = report.cost;
      const g = report.goodput;
      // The time to train shows where a token budget is set.
      const budget = report.scenario.train_tokens > 0;
      if (train.div.hidden === budget) train.div.hidden = !budget;
      if (!m.fits) {
        for (const it of [mfu, goodput, perTokens, cost, train]) none(it);
        return;
      }
      explains(mfu, 'time.mfu');
      explains(goodput, 'goodput.effective_time');
      showNumber(
        goodput.value,
        g.effective_time,
        fmt.share(g.effective_time),
        `${fmt.share(g.effective_time)} of the run's time is new work; the rest goes to ` +
          'checkpoints, work done again after failures, and restarts',
      );
      if (g.time_to_train_s > 0) {
        explains(train, 'goodput.time_to_train_s');
        showNumber(
          train.value,
          g.time_to_train_s,
          `${fmt.duration(g.time_to_train_s)}, ${fmt.usd(g.usd_to_train)}`,
          `${fmt.exactNumber(g.time_to_train_s)} s and ${fmt.exactNumber(g.usd_to_train)} USD ` +
            `for ${fmt.count(report.scenario.train_tokens)} tokens, failures and restarts counted`,
        );
      } else if (budget) {
        none(train);
        train.value.title = 'never: failures leave no time for new work';
      }
      explains(perTokens, 'cost.usd_per_trillion_tokens');
      explains(cost, 'cost.usd_per_day');
      showNumber(mfu.value, t.mfu, fmt.percent(t.mfu), `model FLOPs utilisation ${t.mfu}`);
      showNumber(
        perTokens.value,
        c.usd_per_trillion_tokens,
        fmt.usd(c.usd_per_trillion_tokens),
        `${fmt.exactNumber(c.usd_per_trillion_tokens)} USD per trillion tokens`,
      );
      showNumber(
        cost.value,
        c.usd_per_day,
        fmt.usd(c.usd_per_day),
        `${fmt.exactNumber(c.usd_per_day)} USD per day at ${c.price_per_gpu_hour} USD per GPU-hour`,
      );
    },
  };
}

// The nesting order's effect, beside its control: each seam, innermost first, with whether its
// groups stay in a node or span nodes, the link it rides and the time that costs per step, and
// the order's cost per step against the chapter's rule. Everything from report.comms and
// report.order; the core's facts (TP spanning nodes) show with its warnings.
import { make } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const SEAM = { tp: 'tensor', pp: 'pipeline', dp: 'data' };
const WHERE = {
  nvlink: 'groups stay inside a node: NVLink',
  network: 'groups span nodes: the network',
};

// Where a seam's groups sit, by the level of the fleet the core says they ride.
function whereText(c, report) {
  const s = report.scenario;
  if (c.level === 'nvlink_domain' && report.domain_spans_nodes) {
    return 'groups stay inside an NVLink domain: NVLink, across its nodes';
  }
  if (c.level === 'rail') return 'groups span nodes, each on one rail: the network';
  if (c.level === 'spine') {
    const o = s.network_oversubscription;
    return `groups span nodes across rails: the network${o > 1 ? `'s spine, ${o}:1 oversubscribed` : ''}`;
  }
  return WHERE[c.link] ?? c.link;
}

// A number the show-the-math mechanism explains (app/explain.js).
function explained(parent, key, text) {
  const span = make('span', { className: 'num', textContent: text }, parent);
  span.dataset.explain = key;
  return span;
}

function seamItem(report, name, position) {
  const seam = SEAM[name];
  const c = report.comms[seam];
  const li = make('li');
  li.dataset.seam = seam;
  li.dataset.link = c.link;
  li.dataset.level = c.level;
  make('b', { textContent: name.toUpperCase() }, li);
  li.append(` (${position}) `);
  if (!c.active) {
    li.append('off');
    return li;
  }
  const where = explained(li, `comms.${seam}.link_bytes_per_s`, whereText(c, report));
  where.classList.remove('num');
  li.append(', ');
  explained(li, `comms.${seam}.time_s`, fmt.seconds(c.time_s));
  li.append(' per step');
  return li;
}

function costLine(p, report, ruleOrder) {
  const { order } = report.scenario;
  const cost = report.order.order_cost_s;
  const rule = 'TP, PP, DP';
  if (order === ruleOrder) {
    p.append(
      "The chapter's rule: TP innermost, PP next, DP outermost, so the chattiest seam " +
        'gets the fastest links.',
    );
    if (report.domain_spans_nodes) {
      p.append(
        ` On NVLink domains of ${fmt.integer(report.domain_gpus)} GPUs it reads: TP, ` +
          'EP and CP inside the domain, PP along a rail, DP across the spine.',
      );
    }
    return;
  }
  if (cost === 0) {
    p.append(`No seam changes its link: the same step time as the chapter's ${rule} (`);
    explained(p, 'time.step_s', fmt.seconds(report.time.step_s));
    p.append(').');
    return;
  }
  p.append(cost > 0 ? 'Costs ' : 'Saves ');
  explained(p, 'order.order_cost_s', fmt.seconds(Math.abs(cost)));
  p.append(` per step against the chapter's ${rule} (step `);
  explained(p, 'time.step_s', fmt.seconds(report.time.step_s));
  p.append(
    cost > 0
      ? ').'
      : '): with these degrees the rule is not the fastest; the seams that change links say why.',
  );
}

export function createOrder(root) {
  const list = root.querySelector('.order-seams');
  const cost = root.querySelector('.order-cost');
  const announcer = root.querySelector('.order-announce');
  let shownOrder = null; // the order last drawn: a change of order is announced, nothing else

  return {
    update(report, ruleOrder) {
      const { order } = report.scenario;
      const names = order.split(',');
      const positions = names.map((_, i) =>
        i === 0 ? 'innermost' : i === names.length - 1 ? 'outermost' : 'next',
      );
      list.replaceChildren(...names.map((n, i) => seamItem(report, n, positions[i])));
      cost.replaceChildren();
      costLine(cost, report, ruleOrder);
      if (shownOrder !== null && shownOrder !== order) {
        announcer.textContent = `Nesting order ${order.toUpperCase().replaceAll(',', ', ')}. ${[
          ...list.children,
        ]
          .map((li) => li.textContent)
          .join('. ')}. ${cost.textContent}`;
      }
      shownOrder = order;
    },
  };
}

// The lab's types as an embedder uses them: the lab API (web/lab/lab.d.ts, copied there from
// wasm/lab.d.ts by scripts/build-wasm), mount() (web/js/app/embed.d.ts) and the custom element
// (web/parallelism-explorer.d.ts), imported from where a page imports the JS. scripts/test
// type-checks it (tsc -p tests/types: strict, no output); it is never run. The lines marked as
// expected errors must stay errors: they show the types refuse what the API refuses.
import { createLab, LabError, type Report, type Scenario } from '../../web/lab/lab.js';
import { mount, type MountOptions } from '../../web/js/app/embed.js';
import '../../web/parallelism-explorer.js';

export async function sizeRun(): Promise<string> {
  const lab = await createLab({ planner: true });
  const scenario: Scenario = {
    gpus: 64,
    gpu: 'H100-80GB',
    model: 'llama3-70b',
    seams: { data: true, tensor: true, pipeline: true },
    recompute: 'selective',
    recompute_modules: ['core_attn', 'mlp'],
    reliability: { async_checkpoint: false },
  };
  const report: Report = lab.evaluate(scenario);
  const lines = [
    `${report.degrees.dp}x${report.degrees.tp}x${report.degrees.pp}: ` +
      `${(report.memory.per_gpu_bytes / 1e9).toFixed(1)} GB per GPU, ${report.memory.verdict}`,
    `step ${report.time.step_s.toFixed(2)} s, MFU ${report.time.mfu.toFixed(2)} ` +
      `(${report.time.mfu_peak} peak); busiest seam: ${report.comms.busiest_seam || 'none'}`,
  ];

  let cancelled = false;
  const result = lab.plan(scenario, 5, {
    headroom: 0.2,
    rank: 'time_with_failures',
    onProgress: (done, total) => !cancelled && done <= total,
  });
  const best = result.plans[0];
  if (best) lines.push(`${result.why_best} (${best.verdict}, ${best.variants.length} variants)`);
  for (const { what, why } of result.dropped) lines.push(`${what}: ${why}`);
  cancelled = true;

  const derivation = lab.explain(scenario, 'memory.per_gpu_bytes');
  lines.push(`${derivation.formula} = ${derivation.text}`);
  for (const term of derivation.terms) lines.push(`${term.symbol}: ${term.value} ${term.unit}`);
  const every = lab.explain(scenario);
  lines.push(every.explain['time.step_s']?.source ?? '');

  const summary = lab.evaluateSummary({ ...scenario, gpus: 4096 });
  const ranks: Int32Array = lab.ranks(summary.degrees, 8, 'tp,pp,dp');
  lines.push(`${ranks.length / 7} ranks`);

  const timeline = lab.timeline(4, 8, 'zb_h1', { drawn: 8 });
  const weightGradients = timeline.blocks.filter(([, , pass]) => pass === 2).length;
  lines.push(`${weightGradients} weight-gradient blocks over ${timeline.span}`);

  const gpus = lab.schema().fields.find((f) => f.key === 'gpus');
  lines.push(`up to ${gpus?.max} GPUs; headroom up to ${lab.schema().planner.headroom.max}`);
  lines.push(
    lab
      .presets()
      .gpus.map((g) => `${g.name} ${g.gpu_memory_gb} GB`)
      .join(', '),
  );
  for (const run of lab.referenceRuns()) {
    if (run.error !== null && Math.abs(run.error) > 0.1) lines.push(`${run.name}: ${run.error}`);
  }
  for (const layout of lab.layouts(scenario)) lines.push(layout.join('x'));

  try {
    lab.evaluate({ gpus: 0 });
  } catch (e) {
    if (e instanceof LabError) lines.push(`${e.key ?? 'the scenario'}: ${e.message}`);
  }

  // @ts-expect-error: not a GPU preset's name
  lab.evaluate({ gpu: 'H100' });
  // @ts-expect-error: not a scenario key
  lab.evaluate({ gpu_count: 64 });
  // @ts-expect-error: a rank's degrees need dp, tp and pp
  lab.ranks({ dp: 2 }, 8);
  return lines.join('\n');
}

export function embed(host: HTMLElement): void {
  const options: MountOptions = {
    gpus: 64,
    seams: ['data', 'tensor'],
    hide: ['planner', 'gpus_per_node'],
    theme: 'dark',
    url: 'hash',
    onReport: (report) => console.log(report.degrees, report.cost.usd_per_day),
  };
  const lab = mount(host, options);
  void lab.ready.then(() => {
    lab.update({ seams: 'pipeline', gpus: null });
    console.log(lab.state.gpus, lab.report?.time.step_s);
  });

  const element = document.createElement('parallelism-explorer');
  element.setAttribute('gpus-per-node', '4');
  element.addEventListener('report', (event) => console.log(event.detail.memory.verdict));
  host.append(element);
  document.querySelector('parallelism-explorer')?.lab?.update({ theme: 'light' });

  // @ts-expect-error: not a theme
  mount(host, { theme: 'blue' });
  // @ts-expect-error: not a state key
  mount(host, { gpu_count: 64 });
}

// The memory panel: what one GPU must hold (weights + gradients + optimizer states, and in
// the practitioner's model activations too), and whether that fits the GPU. Numbers from
// report.memory and report.precision; this file only formats them.
import { make, showNumber } from '../lib/dom.js';
import { fitParts, markVerdict } from '../lib/fit-text.js';
import * as fmt from '../lib/format.js';

// Bytes held per parameter are shown by their usual type (2 bytes: bf16, 4: fp32).
function typeName(bytesPerParam) {
  return { 2: 'bf16', 4: 'fp32' }[bytesPerParam] ?? `${fmt.count(bytesPerParam)}-byte`;
}

// What ZeRO shards, in words, from the core's report.memory.zero (its rule: memory.h).
function shardedWords(zero) {
  const parts = [
    zero.weights && 'weights',
    zero.grads && 'gradients',
    zero.optimizer && 'optimizer states',
  ].filter(Boolean);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0];
}

// The ranks it shards over: the data-parallel replicas, or with context parallelism the data-
// and context-parallel ranks of a stage (report.memory.zero.group).
function groupWords(report) {
  const n = fmt.integer(report.memory.zero.group);
  return report.degrees.cp > 1
    ? `${n} data- and context-parallel ranks (DP × CP)`
    : `${n} data-parallel replicas`;
}

// Why the number changed when Advanced opened: the practitioner's model counts what the
// book's leaves out, each part as the core reports it.
function modelNote(m) {
  const b = m.breakdown;
  return (
    "Advanced's memory is the practitioner's: besides the book's weights " +
    `(${fmt.bytes(b.weights_bytes)}), gradients (${fmt.bytes(b.grads_bytes)}) and ` +
    `optimizer states (${fmt.bytes(b.optimizer_bytes)}), it counts activations ` +
    `(${fmt.bytes(b.activations_bytes)}) and overhead for the CUDA context, NCCL and ` +
    `the allocator (${fmt.bytes(b.overhead_bytes)})` +
    (b.transient_bytes > 0
      ? `, and what lives for a moment (${fmt.bytes(b.transient_bytes)})`
      : '') +
    `: ${fmt.bytes(m.per_gpu_bytes)} on the busiest GPU.`
  );
}

export function createMemory(root) {
  const field = (name) => root.querySelector(`[data-field="${name}"]`);
  const heading = root.querySelector('h2');
  const f = {
    perGpu: field('per-gpu'),
    fit: field('fit'),
    meterFill: root.querySelector('.meter-fill'),
    meterCap: root.querySelector('.meter-cap'),
    meterCapLabel: root.querySelector('.meter-cap-label'),
    modelParams: field('model-params'),
    bytesPerParam: field('bytes-per-param'),
    paramsPerGpu: field('params-per-gpu'),
    shard: field('shard-factor'),
    breakdown: field('breakdown'),
    dpNote: field('dp-note'),
    shardLabel: field('shard-label'),
    modelNote: field('model-note'),
  };

  return {
    update(report) {
      const m = report.memory;
      const full = report.scenario.memory_model === 'full';
      const title = full
        ? 'Memory per GPU (busiest GPU, activations included)'
        : 'Memory per GPU (weights + optimizer)';
      if (heading.textContent !== title) heading.textContent = title;
      const note = full ? modelNote(m) : '';
      if (f.modelNote.textContent !== note) f.modelNote.textContent = note;
      if (f.modelNote.hidden !== !full) f.modelNote.hidden = !full;
      const gpuName = `${fmt.bytes(m.gpu_memory_bytes)} GPU`;
      showNumber(
        f.perGpu,
        m.per_gpu_bytes,
        fmt.bytes(m.per_gpu_bytes),
        `${fmt.exactNumber(m.per_gpu_bytes)} bytes`,
      );
      markVerdict(root, m);
      // The headroom explains itself (app/explain.js).
      const headroom = make('span');
      headroom.dataset.explain = 'memory.headroom_bytes';
      showNumber(
        headroom,
        m.headroom_bytes,
        fmt.bytes(Math.abs(m.headroom_bytes)),
        `headroom ${fmt.exactNumber(m.headroom_bytes)} bytes`,
      );
      f.fit.replaceChildren(...fitParts(m, gpuName, '', headroom));
      // The bar is drawn to the larger of need and capacity, so both always show.
      const scale = Math.max(m.per_gpu_bytes, m.gpu_memory_bytes);
      f.meterFill.style.width = `${(100 * m.per_gpu_bytes) / scale}%`;
      const cap = (100 * m.gpu_memory_bytes) / scale;
      f.meterCap.style.setProperty('--cap', String(cap));
      f.meterCap.classList.toggle('at-end', cap > 85); // keep its label inside the panel
      f.meterCapLabel.textContent = gpuName;

      showNumber(
        f.modelParams,
        report.model_params,
        `${fmt.count(report.model_params)} params`,
        `${fmt.exactNumber(report.model_params)} parameters`,
      );
      const bpp = report.scenario.bytes_per_param;
      showNumber(f.bytesPerParam, bpp, `${fmt.count(bpp)} B`, `${fmt.exactNumber(bpp)} bytes`);
      // "1 B params": the unit said, so a billion is never read as bytes.
      showNumber(
        f.paramsPerGpu,
        m.params_per_gpu,
        `${fmt.count(m.params_per_gpu)} params`,
        `${fmt.exactNumber(m.params_per_gpu)} parameters`,
      );
      showNumber(
        f.shard,
        m.shard_factor,
        `${m.shard_factor}×`,
        `TP×PP = ${report.degrees.tp}×${report.degrees.pp}`,
      );

      // Bytes per parameter of each state before sharding, as the core reports them.
      const p = report.precision;
      const parts = [
        [p.weight, 'weight'],
        [p.grad, 'grad'],
        [p.master, 'master'],
      ]
        .filter(([v]) => v > 0)
        .map(([v, what]) => `${typeName(v)} ${what} ${fmt.count(v)}`);
      parts.push(`Adam m ${fmt.count(p.adam_m)}`, `Adam v ${fmt.count(p.adam_v)}`);
      const extra = [];
      const zero = report.scenario.zero_stage;
      if (zero > 0) {
        extra.push(
          `ZeRO-${zero} shards the ${shardedWords(m.zero)} over the ${groupWords(report)}.`,
        );
      }
      if (m.breakdown.activations_bytes > 0) {
        extra.push(
          `Activations add ${fmt.bytes(m.breakdown.activations_bytes)} on the busiest GPU.`,
        );
      }
      // What data parallelism does to memory, as the state has it.
      const dpNote =
        zero > 0
          ? `With ZeRO-${zero}, data parallelism shrinks per-GPU memory too, by sharding ` +
            `the ${shardedWords(m.zero)}; the shard factor counts only the tensor and ` +
            'pipeline splits (TP×PP), not this DP sharding.'
          : 'Data parallelism replicates the model, so it does not shrink per-GPU memory ' +
            "(that is ZeRO/FSDP's job); only tensor and pipeline splits do.";
      if (f.dpNote.textContent !== dpNote) f.dpNote.textContent = dpNote;
      const label = zero > 0 ? 'Shard factor (TP×PP; ZeRO not counted)' : 'Shard factor (TP×PP)';
      if (f.shardLabel.textContent !== label) f.shardLabel.textContent = label;
      f.breakdown.textContent = [
        `${fmt.count(p.bytes_per_param)} B/param = ${parts.join(' + ')}.`,
        ...extra,
      ].join(' ');
    },
  };
}

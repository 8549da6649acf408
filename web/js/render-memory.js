// The memory panel: what one GPU must hold (weights + gradients + optimizer states), and
// whether that fits the GPU. Numbers from report.memory; this file only formats them.
import * as fmt from './format.js';

// Shows a number with its exact value on hover; data-value keeps the raw number for tests.
export function showNumber(node, value, text, exactText) {
  node.textContent = text;
  node.title = exactText;
  node.dataset.value = String(value);
}

// Bytes held per parameter are shown by their usual type (2 bytes: bf16, 4: fp32).
function typeName(bytesPerParam) {
  return { 2: 'bf16', 4: 'fp32' }[bytesPerParam] ?? `${fmt.count(bytesPerParam)}-byte`;
}

export function createMemory(root) {
  const field = (name) => root.querySelector(`[data-field="${name}"]`);
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
  };

  return {
    update(report) {
      const m = report.memory;
      const gpuName = `${fmt.bytes(m.gpu_memory_bytes)} GPU`;
      showNumber(f.perGpu, m.per_gpu_bytes, fmt.bytes(m.per_gpu_bytes),
        `${fmt.exactNumber(m.per_gpu_bytes)} bytes`);
      root.classList.toggle('over', !m.fits);
      if (m.fits) {
        f.fit.textContent = `✓ fits the ${gpuName} (${fmt.bytes(m.headroom_bytes)} to spare)`;
      } else {
        f.fit.textContent = `✗ exceeds the ${gpuName} by ${fmt.bytes(-m.headroom_bytes)}`;
      }
      f.fit.title = `headroom ${fmt.exactNumber(m.headroom_bytes)} bytes`;
      // The bar is drawn to the larger of need and capacity, so both always show.
      const full = Math.max(m.per_gpu_bytes, m.gpu_memory_bytes);
      f.meterFill.style.width = `${(100 * m.per_gpu_bytes) / full}%`;
      const cap = (100 * m.gpu_memory_bytes) / full;
      f.meterCap.style.left = `${cap}%`;
      f.meterCap.classList.toggle('at-end', cap > 85); // keep its label inside the panel
      f.meterCapLabel.textContent = gpuName;

      showNumber(f.modelParams, report.model_params, `${fmt.count(report.model_params)} params`,
        `${fmt.exactNumber(report.model_params)} parameters`);
      const bpp = report.scenario.bytes_per_param;
      showNumber(f.bytesPerParam, bpp, `${fmt.count(bpp)} B`, `${fmt.exactNumber(bpp)} bytes`);
      showNumber(f.paramsPerGpu, m.params_per_gpu, fmt.count(m.params_per_gpu),
        `${fmt.exactNumber(m.params_per_gpu)} parameters`);
      showNumber(f.shard, m.shard_factor, `${m.shard_factor}×`,
        `TP×PP = ${report.degrees.tp}×${report.degrees.pp}`);

      // Per-parameter bytes of each state: the busiest GPU's bytes over the params it holds.
      const b = m.breakdown;
      const per = (v) => (m.params_per_gpu > 0 ? v / m.params_per_gpu : 0);
      const parts = [
        [per(b.weights_bytes), 'weight'],
        [per(b.grads_bytes), 'grad'],
        [per(b.master_bytes), 'master'],
      ].map(([v, what]) => `${typeName(v)} ${what} ${fmt.count(v)}`);
      parts.push(`Adam m ${fmt.count(per(b.adam_m_bytes))}`, `Adam v ${fmt.count(per(b.adam_v_bytes))}`);
      if (b.activations_bytes > 0) parts.push(`activations ${fmt.count(per(b.activations_bytes))}`);
      f.breakdown.textContent = `${fmt.count(bpp)} B/param = ${parts.join(' + ')}.`;
    },
  };
}

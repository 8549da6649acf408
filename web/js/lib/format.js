// Numbers for people. Formatting only: every value comes from the core's report.
// Decimal units throughout (GB = 1e9 bytes), as the book and the page say.

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const exact = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

const byteUnits = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
const countUnits = ['', 'K', 'M', 'B', 'T'];

// Scales by 1000 until the mantissa is below 1000, keeping three significant digits:
// 256e9 -> [256, 3], 1.342e9 -> [1.34, 3].
function scale(value, units) {
  let i = 0;
  let v = Math.abs(value);
  while (v >= 999.5 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  return [Math.sign(value) * v, i];
}

// 256e9 -> "256 GB", 5242880 -> "5.24 MB".
export function bytes(value) {
  const [v, i] = scale(value, byteUnits);
  return `${sig3.format(v)} ${byteUnits[i]}`;
}

// 16e9 -> "16 B" (billion), 1e9 -> "1 B". The lab writes params this way ("16 B params").
export function count(value) {
  const [v, i] = scale(value, countUnits);
  return i === 0 ? sig3.format(v) : `${sig3.format(v)} ${countUnits[i]}`;
}

// For prose: 16e9 -> "16-billion" (as in "a 16-billion-parameter model").
export function countWords(value) {
  const words = ['', 'thousand', 'million', 'billion', 'trillion'];
  const [v, i] = scale(value, countUnits);
  return i === 0 ? sig3.format(v) : `${sig3.format(v)}-${words[i]}`;
}

// The exact value for a tooltip: 256000000000 -> "256,000,000,000".
export function exactNumber(value) {
  return exact.format(value);
}

export function seconds(value) {
  if (value === 0) return '0 s';
  if (value < 1e-3) return `${sig3.format(value * 1e6)} µs`;
  if (value < 1) return `${sig3.format(value * 1e3)} ms`;
  return `${sig3.format(value)} s`;
}

// The badge's "16×1×1"; with context parallelism a fourth factor, "8×8×16×16", and expert
// parallelism (carved out of DP×CP, not a factor of its own) after it: "128×1×16 (EP 64)".
export function degrees({ dp, tp, pp, cp = 1, ep = 1 }) {
  return `${dp}×${tp}×${pp}${cp > 1 ? `×${cp}` : ''}${ep > 1 ? ` (EP ${ep})` : ''}`;
}

// The badge's name for those factors: "DP×TP×PP", or "DP×TP×PP×CP" with context parallelism.
export function degreesName({ cp = 1 }) {
  return cp > 1 ? 'DP×TP×PP×CP' : 'DP×TP×PP';
}

// "GPUs 4–7" for a contiguous run, "GPUs 1, 5, 9" otherwise; a long list is cut short
// ("80 GPUs: 0, 128, 256, …, 10112, 128 apart": no ordinal to get wrong, "every 2th").
export function gpuList(ranks) {
  if (ranks.length === 1) return `GPU ${ranks[0]}`;
  const contiguous = ranks.every((r, i) => i === 0 || r === ranks[i - 1] + 1);
  if (contiguous) return `GPUs ${ranks[0]}–${ranks.at(-1)}`;
  if (ranks.length <= 8) return `GPUs ${ranks.join(', ')}`;
  const stride = ranks[1] - ranks[0];
  const even = ranks.every((r, i) => i === 0 || r - ranks[i - 1] === stride);
  return (
    `${exact.format(ranks.length)} GPUs: ${ranks.slice(0, 3).join(', ')}, …, ${ranks.at(-1)}` +
    (even ? `, ${exact.format(stride)} apart` : '')
  );
}

// 0.4735 -> "47.4%".
export function percent(fraction) {
  return `${sig3.format(fraction * 100)}%`;
}

// A share that is not all reads as less: 0.99984 -> "99.98%", never "100%" (goodput near 1).
export function share(fraction) {
  for (let digits = 3; digits < 7; digits += 1) {
    const text = `${new Intl.NumberFormat('en-US', { maximumSignificantDigits: digits }).format(fraction * 100)}%`;
    if (fraction >= 1 || text !== '100%') return text;
  }
  return '99.9999%';
}

// A share of a named peak: "41% of the FP8 peak", or past the peak a multiple of it ("1.04×
// the BF16 peak"), so no utilisation above 100% is ever written.
export function ofPeak(share, peak) {
  return share > 1
    ? `${sig3.format(share)}× the ${peak} peak`
    : `${percent(share)} of the ${peak} peak`;
}

// Long durations in the unit a person plans in: "45.3 s", "2.5 h", "31.2 days".
export function duration(value) {
  if (value < 120) return seconds(value);
  if (value < 2 * 3600) return `${sig3.format(value / 60)} min`;
  if (value < 2 * 86400) return `${sig3.format(value / 3600)} h`;
  return `${sig3.format(value / 86400)} days`;
}

// The same for a sentence read aloud, its unit in words: "45.3 seconds", "3.09 hours", "1 day".
const UNIT_WORDS = {
  µs: 'microseconds',
  ms: 'milliseconds',
  s: 'seconds',
  min: 'minutes',
  h: 'hours',
  days: 'days',
};
export function durationWords(value) {
  const [n, unit] = duration(value).split(' ');
  const words = UNIT_WORDS[unit];
  return `${n} ${n === '1' ? words.slice(0, -1) : words}`;
}

// The article before a number as it is read aloud: "an" before eight, eleven and eighteen
// ("an 8.96% bubble", "an 80 GB GPU", "an 11-billion-parameter model"), "a" otherwise ("a
// 16 GB GPU", "a 110 ms step"). The leading group is the digits before the first separator,
// so "18,000" is read "eighteen thousand" and "1,800" "one thousand eight hundred".
export function article(text) {
  const lead = /^\d+/.exec(String(text))?.[0] ?? '';
  return lead.startsWith('8') || lead === '11' || lead === '18' ? 'an' : 'a';
}

// Integers with separators: 10240 -> "10,240".
export function integer(value) {
  return exact.format(value);
}

// Money in US dollars, three significant digits: 98304 -> "$98.3K", 2.5 -> "$2.5".
const usdFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumSignificantDigits: 3,
});
export const usd = (value) => usdFormat.format(value);

// The pipeline schedules in words, beside the values the core's schema allows.
export const scheduleWords = {
  '1f1b': '1F1B',
  interleaved: 'interleaved 1F1B',
  zb_h1: 'Zero bubble (ZB-H1)',
  zb_v: 'Zero bubble, V (ZB-V)',
  dualpipe: 'DualPipe',
  dualpipe_v: 'DualPipeV',
};
export const schedule = (name) => scheduleWords[name] ?? String(name);

// The model presets in words, beside the names the core's schema allows; a custom model (an
// object) by the name the core gives it ("custom (from gpt3-175b)").
export const modelWords = {
  'book-16b': "the book's 16B model",
  'gpt-neox-20b': 'GPT-NeoX 20B',
  'megatron-22b': 'Megatron 22B',
  'llama3-8b': 'Llama 3 8B',
  'llama2-70b': 'Llama 2 70B',
  'llama3-70b': 'Llama 3 70B',
  'megatron-145b': 'Megatron 145B',
  'gpt3-175b': 'GPT-3 175B',
  'bloom-176b': 'BLOOM 176B',
  'llama3-405b': 'Llama 3 405B',
  'megatron-530b': 'Megatron 530B',
  'megatron-1t': 'Megatron 1T',
  'mixtral-8x7b': 'Mixtral 8x7B',
  'mixtral-8x22b': 'Mixtral 8x22B',
  'deepseek-v3': 'DeepSeek-V3',
};
export function model(m) {
  const name = typeof m === 'string' ? m : m?.name;
  return modelWords[name] ?? name ?? 'the model';
}

// The systems' presets as their makers write them; a chip's preset name is that already.
export const gpuWords = {
  'B200-DGX': 'DGX B200',
  'GB200-NVL72': 'GB200 NVL72',
  'B300-HGX': 'HGX B300',
  'GB300-NVL72': 'GB300 NVL72',
};

// A GPU preset's name as its maker writes it, or the reader's own GPU.
export const gpu = (name) =>
  name && name !== 'custom' ? (gpuWords[name] ?? String(name)) : 'custom GPU';

// Megatron-Core's recompute_modules (and torchtitan's policy) in words, beside the values the
// core's schema allows.
export const recomputeModuleWords = {
  core_attn: 'core attention',
  moe_act: 'MoE activation',
  layernorm: 'layer norms',
  mla_up_proj: 'MLA up-projections',
  mlp: 'MLP',
  moe: 'MoE layers',
  shared_experts: 'shared experts',
  every_other_matmul: 'every other matmul',
};

// The precision presets in words: the recipe's name and what it stores.
export const precisionWords = {
  mixed_bf16: 'BF16 mixed (FP32 master and Adam)',
  megatron_fp32_grads: 'BF16, FP32 gradients (Megatron)',
  fp32: 'FP32',
  fp8_hybrid: 'FP8 GEMMs (Transformer Engine hybrid)',
  nvfp4: 'NVFP4 GEMMs (Blackwell)',
};

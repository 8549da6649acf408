// One sentence on whether a GPU's need fits it, shared by the memory panel and the breakdown.
import * as fmt from './format.js';

// Fits: under the safe fraction (80%) of the GPU's memory (the core's report.h says why);
// between it and 100% the estimate is tight; past 100% it does not fit at all. The sentence in
// parts: words, and the headroom (a node for it, or by default its text).
export function fitParts(m, gpuName, where = '', headroom = fmt.bytes(Math.abs(m.headroom_bytes))) {
  const safe = fmt.percent(m.safe_fraction);
  if (m.fits) return [`✓ fits the ${gpuName} (${where}`, headroom, ` to spare, under ${safe})`];
  if (m.headroom_bytes >= 0) {
    return [`✗ tight: ${where}over ${safe} of the ${gpuName}, `, headroom, ' headroom'];
  }
  return [`✗ exceeds the ${gpuName} by ${where}`, headroom];
}

export const fitText = (m, gpuName, where = '') => fitParts(m, gpuName, where).join('');

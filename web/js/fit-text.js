// One sentence on whether a GPU's need fits it, shared by the memory panel and the breakdown.
import * as fmt from './format.js';

// Fits: under the safe fraction (80%) of the GPU's memory (the core's report.h says why);
// between it and 100% the estimate is tight; past 100% it does not fit at all.
export function fitText(m, gpuName, where = '') {
  const safe = fmt.percent(m.safe_fraction);
  if (m.fits) {
    return `✓ fits the ${gpuName} (${where}${fmt.bytes(m.headroom_bytes)} to spare, under ${safe})`;
  }
  if (m.headroom_bytes >= 0) {
    return `✗ tight: ${where}over ${safe} of the ${gpuName}, ${fmt.bytes(m.headroom_bytes)} headroom`;
  }
  return `✗ exceeds the ${gpuName} by ${where}${fmt.bytes(-m.headroom_bytes)}`;
}

// One sentence on whether a GPU's need fits it, shared by the memory panel and the breakdown.
import * as fmt from './format.js';

// The core's verdict (report memory.verdict, memory.h fit_verdict): "fits" under the safe
// fraction (80%) of the GPU's memory, "tight" between it and 100% (it runs, as tuned runs do,
// at a stated risk), "over" past 100%. A report without the key (an older one) reads from fits.
export const verdictOf = (m) => m.verdict ?? (m.fits ? 'fits' : 'over');

// The sentence in parts: words, and the headroom (a node for it, or by default its text).
export function fitParts(m, gpuName, where = '', headroom = fmt.bytes(Math.abs(m.headroom_bytes))) {
  const safe = fmt.percent(m.safe_fraction);
  const verdict = verdictOf(m);
  if (verdict === 'fits') {
    return [`✓ fits the ${gpuName} (${where}`, headroom, ` to spare, under ${safe})`];
  }
  if (verdict === 'tight') {
    return [
      `⚠ tight: ${where}over ${safe} of the ${gpuName}, `,
      headroom,
      ' headroom (tuned runs run here, at the risk of running out)',
    ];
  }
  return [`✗ exceeds the ${gpuName} by ${where}`, headroom];
}

// The verdict's classes on an element: "tight" or "over" (neither when it fits).
export function markVerdict(el, m) {
  const verdict = verdictOf(m);
  el.classList.toggle('over', verdict === 'over');
  el.classList.toggle('tight', verdict === 'tight');
}

// The verdict in a few words: "fits", "tight", "does not fit".
export const verdictWords = (m) =>
  ({ fits: 'fits', tight: 'tight', over: 'does not fit' })[verdictOf(m)];

export const fitText = (m, gpuName, where = '') => fitParts(m, gpuName, where).join('');

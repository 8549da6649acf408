// The host's side of embed.html: size each lab iframe to the height it posts. A page on
// another site checks e.origin against the lab's origin (README.md "Embedding").
const LAB_ORIGIN = new URL('../', import.meta.url).origin;

addEventListener('message', (e) => {
  if (e.origin !== LAB_ORIGIN || e.data?.context !== 'iframe.resize') return;
  const height = Number(e.data.height);
  if (!Number.isFinite(height) || height < 0 || height > 100_000) return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === e.source) frame.style.height = `${Math.ceil(height)}px`;
  }
});

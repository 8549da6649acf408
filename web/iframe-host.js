// The host's side of embed.html, for a page that frames the lab: it sizes each lab iframe to the
// height the lab posts ({ context: "iframe.resize", height }), on load and whenever it changes.
// A classic script, not a module, so a page on another site loads it as it is (a module from
// another origin would need CORS), and a file, so it runs under a CSP that refuses inline
// scripts, the lab's own included (README.md "Embedding"):
//   <script src="https://book.example/explorer/iframe-host.js"></script>
// It trusts messages only from the origin it was loaded from: the lab's.
// It also takes the lab frames' border off (the snippet carries no style attribute, which such a
// CSP refuses too).
(() => {
  const LAB_ORIGIN = new URL(document.currentScript.src).origin;
  const fromLab = (frame) => {
    try {
      return new URL(frame.src, location.href).origin === LAB_ORIGIN;
    } catch {
      return false;
    }
  };
  for (const frame of document.querySelectorAll('iframe'))
    if (fromLab(frame)) frame.style.border = '0';
  addEventListener('message', (e) => {
    if (e.origin !== LAB_ORIGIN || e.data?.context !== 'iframe.resize') return;
    const height = Number(e.data.height);
    if (!Number.isFinite(height) || height < 0 || height > 100_000) return;
    for (const frame of document.querySelectorAll('iframe')) {
      if (frame.contentWindow === e.source) frame.style.height = `${Math.ceil(height)}px`;
    }
  });
})();

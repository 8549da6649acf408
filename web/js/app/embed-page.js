// embed.html: one lab whose options are the page's query string, sized by its parent. The
// height goes to the parent as { context: "iframe.resize", height } (the shape iframe-resizing
// hosts already listen for) on load and whenever it changes; README.md has the host's side.
import { mount } from './embed.js';

// The query holds the options, read once; the lab leaves it alone. With url=hash the state
// then lives in the hash (as it differs from the options); with url=query the query is the
// lab's state, read and written as the standalone page's is, so the two never disagree.
const query = new URLSearchParams(location.search);
const where = query.getAll('url').at(-1)?.trim().toLowerCase();
const lab = mount(document.querySelector('#lab'), where === 'query' ? { url: 'query' } : query);

let sent = 0;
function sendHeight() {
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  if (height === sent || window.parent === window) return;
  sent = height;
  // The height is no secret, and the host may be any site: any origin may read it.
  window.parent.postMessage({ context: 'iframe.resize', height }, '*');
}
new ResizeObserver(sendHeight).observe(document.body);
addEventListener('load', sendHeight);
lab.ready.then(
  () => {
    sendHeight();
    document.documentElement.dataset.ready = '1';
  },
  () => {},
);

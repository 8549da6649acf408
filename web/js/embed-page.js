// embed.html: one lab whose options are the page's query string, sized by its parent. The
// height goes to the parent as { context: "iframe.resize", height } (the shape iframe-resizing
// hosts already listen for) on load and whenever it changes; README.md has the host's side.
import { mount } from './embed.js';

const options = [...new URLSearchParams(location.search)];
// The query holds the options, not a state to keep in step: the lab leaves it alone unless
// the query itself asks for url=query or url=hash.
const lab = mount(document.querySelector('#lab'), [['url', 'none'], ...options]);

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
lab.ready.then(() => {
  sendHeight();
  document.documentElement.dataset.ready = '1';
}, () => {});

// Two labs from the module API: each mount() has its own state; both share one wasm module.
import { mount } from '../js/app/embed.js';

export const labA = mount(document.querySelector('#lab-a'), {
  seams: ['tensor', 'pipeline'],
  hide: ['advanced', 'share'],
  theme: 'light',
});

export const labB = mount(document.querySelector('#lab-b'), {
  gpus: 64,
  seams: 'data,tensor,pipeline',
  hide: 'planner,references',
  theme: 'dark',
  url: 'hash',
});

Promise.all([labA.ready, labB.ready]).then(
  () => {
    document.documentElement.dataset.ready = '1';
  },
  () => {},
);

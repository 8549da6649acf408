// The controls, built from the state table: one switch per `control: 'switch'` row.
// A switch is a <button role="switch">, so Space and Enter work without extra code.
import { STATE } from './state.js';

export function createControls(root, { onChange }) {
  const switches = new Map();
  for (const e of STATE.filter((row) => row.control === 'switch')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'switch';
    button.setAttribute('role', 'switch');
    button.dataset.state = e.name;
    const track = document.createElement('span');
    track.className = 'switch-track';
    track.setAttribute('aria-hidden', 'true');
    track.append(Object.assign(document.createElement('span'), { className: 'switch-thumb' }));
    const label = Object.assign(document.createElement('span'), { textContent: e.label });
    button.append(track, label);
    button.addEventListener('click', () => {
      onChange(e.name, button.getAttribute('aria-checked') !== 'true');
    });
    root.append(button);
    switches.set(e.name, button);
  }
  return {
    update(state) {
      for (const [name, button] of switches) {
        button.setAttribute('aria-checked', String(state[name]));
      }
    },
  };
}

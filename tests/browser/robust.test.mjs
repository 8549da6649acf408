// Nothing is accepted silently, and nothing an author or a reader gives the lab stops it:
// mount() options that throw when read, an onReport that throws, a key given twice, a URL
// that tries to move the lab's state elsewhere, embed.html with its state in its own query,
// the core's refusal placed by the key it carries, and small quantities and long values
// shown as they are.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { openPage, settledForClick, settledUrl, startBrowser } from './harness.mjs';
import { setField } from './measure.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

const notesOf = async (root) =>
  (await root.locator('.pe-notes').textContent()).replace(/\s+/g, ' ');

// A switch still changes the layout. On a timeout, what the page said (its errors) and the
// lab's switch and notes, so a failure names its cause.
async function stillWorks(root, problems = []) {
  const tensor = root.getByRole('switch', { name: 'Tensor parallel', exact: true });
  await settledForClick(tensor);
  const badge = root.locator('.badge');
  const before = await badge.textContent();
  await tensor.click();
  try {
    await root.locator('.badge').filter({ hasNotText: before }).waitFor();
  } catch (e) {
    const checked = await tensor.getAttribute('aria-checked');
    const notes = await notesOf(root);
    throw new Error(
      `${e.message}\nbadge ${before}; tensor aria-checked ${checked}; notes: ${notes}; ` +
        `page: ${problems.join(' | ')}`,
    );
  }
}

describe('mount() and hostile options', () => {
  test('options that throw when read, Proxies and revoked Proxies: notes, never an exception', async () => {
    const lab = await openPage(env, 'examples/module.html');
    const { page } = lab;
    const result = await page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const boom = () => {
        throw new Error('boom');
      };
      const trap = new Proxy(
        {},
        {
          ownKeys: boom,
          get: boom,
          getOwnPropertyDescriptor: boom,
          getPrototypeOf: boom,
          has: boom,
        },
      );
      const { proxy: revoked, revoke } = Proxy.revocable({}, {});
      revoke();
      const getter = { gpus: 32 };
      Object.defineProperty(getter, 'theme', { enumerable: true, get: boom });
      Object.defineProperty(getter, 'onReport', { enumerable: true, get: boom });
      const nasty = { toString: boom, valueOf: boom, toJSON: boom, [Symbol.toPrimitive]: boom };
      const cases = [
        trap,
        revoked,
        getter,
        { gpus: nasty, seams: [nasty, 'data'], hide: nasty, model: Symbol('x'), degrees: 10n },
        [[nasty, 1], trap, ['gpus', trap]],
      ];
      const out = [];
      for (const options of cases) {
        const box = document.body.appendChild(document.createElement('div'));
        let threw = null;
        let handle = null;
        let notes = '';
        try {
          handle = mount(box, options);
          await handle.ready;
          notes = box.querySelector('.pe-notes').textContent.replace(/\s+/g, ' ');
          handle.update(options);
          handle.update(trap);
          handle.update(revoked);
        } catch (e) {
          threw = String(e);
        }
        out.push({
          threw,
          notes,
          ready: box.querySelector('.pe-lab').dataset.ready,
          state: handle?.state,
        });
      }
      return out;
    });
    for (const r of result) {
      assert.equal(r.threw, null);
      assert.equal(r.ready, '1');
    }
    assert.match(result[0].notes, /The options could not be read \(boom\); using the defaults\./);
    assert.match(result[1].notes, /The options could not be read/);
    assert.match(result[2].notes, /"theme" could not be read \(boom\); ignored\./);
    assert.match(result[2].notes, /"onReport" could not be read \(boom\); ignored\./);
    assert.equal(result[2].state.gpus, 32, 'what could be read is used');
    assert.match(result[3].notes, /gpus: "\[object\]" is not allowed|gpus: "[^"]*" is not allowed/);
    assert.match(result[3].notes, /model: "Symbol\(x\)" is not allowed/);
    assert.match(result[3].notes, /degrees: "10" is not allowed/);
    await stillWorks(page.locator('.pe-lab').last(), lab.problems);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('update() before the module has loaded is applied once it has; null puts a value back', async () => {
    const lab = await openPage(env, 'examples/module.html');
    const result = await lab.page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const box = document.body.appendChild(document.createElement('div'));
      const handle = mount(box, { seams: 'tensor' });
      handle.update({ gpus: 32, schedule: 'interleaved', virtual_stages: 4, bogus: 1 });
      await handle.ready;
      const early = { ...handle.state };
      const earlyNotes = box.querySelector('.pe-notes').textContent.replace(/\s+/g, ' ');
      handle.update({ virtual_stages: null, gpus: null });
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); // drawn
      const later = { ...handle.state };
      const laterNotes = box.querySelector('.pe-notes').textContent.replace(/\s+/g, ' ');
      return {
        early,
        earlyNotes,
        later,
        laterNotes,
        badge: box.querySelector('.badge').textContent,
      };
    });
    assert.equal(result.early.gpus, 32);
    assert.equal(result.early.virtual_stages, 4);
    assert.equal(result.early.tensor, true);
    assert.match(result.earlyNotes, /"bogus" is not an option of this lab/);
    assert.doesNotMatch(
      result.earlyNotes,
      /(gpus|virtual_stages|schedule): /,
      'no note for values read later',
    );
    assert.equal(result.later.virtual_stages, null, 'left to the core again');
    assert.equal(result.later.gpus, 16);
    assert.doesNotMatch(result.laterNotes, /not allowed/);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('an exception in onReport is reported once; ready resolves and the lab goes on', async () => {
    const lab = await openPage(env, 'examples/module.html');
    const { page } = lab;
    const calls = await page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const box = document.body.appendChild(document.createElement('div'));
      box.id = 'throws';
      window.__calls = 0;
      const handle = mount(box, {
        onReport() {
          window.__calls += 1;
          throw new Error('author bug');
        },
      });
      await handle.ready;
      return window.__calls;
    });
    assert.equal(calls, 1);
    const root = page.locator('#throws .pe-lab');
    await stillWorks(root);
    await stillWorks(root);
    assert.equal(await page.evaluate(() => window.__calls), 3, 'called for every report');
    assert.match(await notesOf(root), /onReport threw "author bug"; the lab goes on/);
    const reported = lab.problems.filter((p) => /author bug/.test(p));
    assert.equal(reported.length, 1, lab.problems.join('\n'));
    assert.deepEqual(
      lab.problems.filter((p) => !/author bug/.test(p)),
      [],
    );
    await lab.close();
  });
});

describe('URLs: one source of truth, and a note for anything not taken', () => {
  test('a key given twice gets a note; the last one counts', async () => {
    const lab = await openPage(env, '?gpus=32&seams=tensor&gpus=64&GPUS=128');
    const text = await notesOf(lab.page);
    assert.match(text, /gpus: given 3 times \("32", "64", "128"\); using the last, "128"\./);
    assert.equal(await lab.page.locator('.badge').textContent(), 'DP×TP×PP = 1×128×1 = 128');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('the standalone page keeps its state in the query: url=hash in it is refused, and a reload shows what the URL says', async () => {
    const lab = await openPage(env, '?url=hash&seams=tensor');
    const { page } = lab;
    assert.match(
      await notesOf(page),
      /url: "hash" is not allowed in this lab's own URL \(its state lives in the query\); ignored\./,
    );
    await page.getByRole('switch', { name: 'Pipeline parallel', exact: true }).click();
    const url = new URL(await settledUrl(page));
    assert.equal(url.search, '?seams=tensor,pipeline');
    assert.equal(url.hash, '');
    const again = await openPage(env, url.href);
    assert.equal(
      await again.page.locator('.badge').textContent(),
      await page.locator('.badge').textContent(),
    );
    assert.equal(await settledUrl(again.page), url.href, 'the URL is already what the lab shows');
    assert.deepEqual(lab.problems, []);
    assert.deepEqual(again.problems, []);
    await lab.close();
    await again.close();
  });

  test('embed.html with url=query: its state lives in the query alone, read once', async () => {
    const lab = await openPage(env, 'embed.html?url=query&x=1&gpus=32&hide=planner');
    const { page } = lab;
    const text = await notesOf(page);
    assert.equal(text.match(/"x" is not an option of this lab/g)?.length, 1, text);
    assert.doesNotMatch(text, /given 2 times/);
    await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).click();
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('gpus'), '32', 'the state stays in the query');
    assert.equal(url.searchParams.get('tensor') ?? url.searchParams.get('seams'), 'data,tensor');
    assert.equal(url.searchParams.get('url'), 'query');
    assert.equal(url.searchParams.get('hide'), 'planner');
    const again = await openPage(env, url.href);
    assert.equal(
      await again.page.locator('.badge').textContent(),
      await page.locator('.badge').textContent(),
      'opened again, the URL shows the same lab',
    );
    assert.equal(await settledUrl(again.page), url.href);
    assert.deepEqual(lab.problems, []);
    assert.deepEqual(again.problems, []);
    await lab.close();
    await again.close();
  });

  test('an unknown option gets the same note on every page', async () => {
    const texts = [];
    for (const path of ['?bogus=1', 'embed.html?bogus=1', 'embed.html?bogus=1&url=hash']) {
      const lab = await openPage(env, path);
      texts.push(
        (await notesOf(lab.page)).match(/"bogus" is not an option of this lab[^.]*\.[^.]*\./)?.[0],
      );
      assert.deepEqual(lab.problems, [], path);
      await lab.close();
    }
    assert.ok(texts[0], 'a note');
    assert.deepEqual(texts, [texts[0], texts[0], texts[0]]);
  });
});

describe('notes that stay true', () => {
  test("a change's notes replace the last change's; a preset clears them", async () => {
    const lab = await openPage(env, '?advanced=1&gpus=64&model=mixtral-8x7b&degrees=8x8x1x1x8');
    const { page } = lab;
    const notes = () => page.locator('.pe-notes-list li').allTextContents();
    assert.deepEqual(await notes(), []);
    // A dense model refuses EP 8: the note says so and what the lab uses instead.
    await setField(page, 'model', 'llama3-8b');
    const refused = await notes();
    assert.equal(refused.length, 1);
    assert.match(refused[0], /expert-parallel degree 8 needs a mixture-of-experts model/);
    // Another model: the note about the last one is gone.
    await setField(page, 'model', 'llama3-70b');
    assert.deepEqual(await notes(), []);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a preset clears the notes of the state it replaces', async () => {
    const lab = await openPage(env, '?advanced=1&gpus=64&model=llama3-8b&degrees=8x8x1x1x8');
    const { page } = lab;
    const notes = () => page.locator('.pe-notes-list li').allTextContents();
    assert.match((await notes()).join(), /expert-parallel degree 8 needs a mixture-of-experts/);
    await page.locator('button[data-preset="fleet"]').click();
    await page.waitForFunction(() =>
      document.querySelector('.badge').textContent.endsWith('= 10240'),
    );
    assert.deepEqual(await notes(), []);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('one core call per change', () => {
  test('a switch, a field and a preset each cost one evaluation, and no separate layouts call', async () => {
    const lab = await openPage(env, '?advanced=1');
    const { page } = lab;
    await page.locator('.advanced-out .breakdown').waitFor();
    await page.evaluate(async () => {
      const { getLab } = await import('/js/app/embed.js');
      const core = await getLab();
      window.__calls = { evaluateSummary: 0, evaluate: 0, layouts: 0 };
      for (const name of Object.keys(window.__calls)) {
        const original = core[name];
        core[name] = (...args) => {
          window.__calls[name] += 1;
          return original(...args);
        };
      }
    });
    const calls = () => page.evaluate(() => ({ ...window.__calls }));
    const reset = () =>
      page.evaluate(() => Object.keys(window.__calls).forEach((k) => (window.__calls[k] = 0)));
    const badge = page.locator('.badge');

    await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).click();
    await badge.filter({ hasText: '4×4×1' }).waitFor();
    assert.deepEqual(await calls(), { evaluateSummary: 1, evaluate: 0, layouts: 0 });

    await reset();
    const gpus = page.locator('details.advanced [data-state="gpus"]');
    await gpus.fill('64');
    await gpus.press('Tab');
    await page.waitForFunction(() => document.querySelector('.badge').textContent.endsWith('= 64'));
    assert.deepEqual(await calls(), { evaluateSummary: 1, evaluate: 0, layouts: 0 });
    // The layouts offered are the report's, for 64 GPUs.
    const options = await page
      .locator('details.advanced [data-state="degrees"] option')
      .evaluateAll((os) => os.map((o) => o.value));
    for (const o of options.slice(1))
      assert.equal(
        o
          .split('x')
          .map(Number)
          .reduce((a, b) => a * b),
        64,
        o,
      );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('what the lab shows', () => {
  test('the core refusal of a typed value sits beside the field its key names', async () => {
    const lab = await openPage(env, '?advanced=1&model=custom');
    const { page } = lab;
    await page.locator('.advanced-out .breakdown').waitFor();
    const heads = page.locator('details.advanced [data-state="heads"]');
    await heads.fill('30');
    await heads.press('Tab');
    const error = page.locator('[data-row="heads"] .field-error');
    await error.waitFor();
    assert.match(
      await error.textContent(),
      /model\.heads is 30: it must divide model\.hidden \(5120\)/,
    );
    assert.equal(await heads.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.locator('.lab-error').isHidden(),
      true,
      'not at the top: beside the field',
    );
    await heads.fill('32');
    await heads.press('Tab');
    await error.waitFor({ state: 'hidden' });
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a layout that no longer fits goes back to auto with a note, in one step', async () => {
    const lab = await openPage(env, '?advanced=1&degrees=2x4x2');
    const { page } = lab;
    await page.locator('.advanced-out .breakdown').waitFor();
    const gpus = page.locator('details.advanced [data-state="gpus"]');
    await gpus.fill('32');
    await gpus.press('Tab');
    await page.waitForFunction(() => document.querySelector('.badge').textContent.endsWith('= 32'));
    assert.equal(
      await page.locator('details.advanced [data-state="degrees"]').inputValue(),
      'auto',
    );
    assert.match(
      await notesOf(page),
      /degrees: "2x4x2" was refused by the model \(degrees: [^)]*\); using auto\./,
    );
    // The layouts offered are the report's: every one multiplies out to 32.
    const options = await page
      .locator('details.advanced [data-state="degrees"] option')
      .evaluateAll((os) => os.map((o) => o.value));
    assert.ok(options.length > 1);
    for (const o of options.slice(1))
      assert.equal(
        o
          .split('x')
          .map(Number)
          .reduce((a, b) => a * b),
        32,
        o,
      );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('small quantities keep their size: 0.5 GB reads 500 MB, never 0 GB', async () => {
    const lab = await openPage(
      env,
      '?advanced=1&gpu=custom&gpu_memory_gb=0.5&network_gb_s=0.5&seams=tensor&gpus=16',
    );
    const { page } = lab;
    await page.locator('.advanced-out .breakdown').waitFor();
    const text = (await page.locator('.pe-lab').textContent()).replace(/\s+/g, ' ');
    assert.doesNotMatch(text, /(^|[^\d.])0 (GB|MB|kB)\b/, 'no quantity rounded down to zero');
    assert.match(text, /500 MB GPU/);
    const facts = await page.locator('.warn-facts li').allTextContents();
    assert.ok(
      facts.some((w) => /500 MB/.test(w)),
      facts.join('\n'),
    );
    assert.ok(
      facts.some((w) => /network \(0\.5 GB\/s a GPU\)/.test(w)),
      facts.join('\n'),
    );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  // The network picker named its fabric (hdr, ndr) before the GPU presets carried their
  // network: such links keep their network, with no note.
  test('old links: network=hdr or ndr is the network they set', async () => {
    for (const [fabric, gb] of [
      ['ndr', '50'],
      ['hdr', '25'],
    ]) {
      const lab = await openPage(env, `?advanced=1&gpu=A100-80GB&network=${fabric}`);
      const { page } = lab;
      const field = page.locator('details.advanced [data-state="network_gb_s"]');
      await page.waitForFunction(
        (want) =>
          document.querySelector('details.advanced [data-state="network_gb_s"]')?.value === want,
        gb,
      );
      assert.equal(await field.inputValue(), gb, fabric);
      assert.doesNotMatch(await notesOf(page), /network/, fabric);
      assert.deepEqual(lab.problems, []);
      await lab.close();
    }
  });

  test('a long value is cut by characters, not by UTF-16 halves', async () => {
    const lab = await openPage(env, `?model=${encodeURIComponent('😀'.repeat(60))}`);
    const text = await notesOf(lab.page);
    const quoted = /model: "([^"]*)" is not allowed/.exec(text)?.[1];
    assert.ok(quoted, text);
    assert.equal([...quoted].length, 38, '37 characters and an ellipsis');
    assert.equal(quoted, `${'😀'.repeat(37)}…`);
    assert.doesNotMatch(quoted, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone surrogate');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

// A refusal names the key at fault, and only that value goes back. Here two values the table
// takes and the core refuses, one after the other: a sequence longer than the book model's
// learned position table allows, and a layout of 16 GPUs for 64. Each goes back with a note
// naming it; every other value given stays (before, the second refusal dropped them all).
const SEQ_NOTE =
  /seq_len: "200000" was refused by the model \(seq_len is 200000: [^]*allowed 1 to \d+ with this model[^]*\); using 2048\./;
const DEGREES_NOTE = /degrees: "2x4x2" was refused by the model \(degrees: [^)]*\); using auto\./;

describe('a refused value goes back alone', () => {
  test('a URL: seq_len and the layout go back, each with its note; gpus and the batch stay', async () => {
    const lab = await openPage(
      env,
      '?advanced=1&gpus=64&global_batch=1024&seq_len=200000&degrees=2x4x2&zero_stage=1',
    );
    const { page } = lab;
    const url = new URL(await settledUrl(page));
    assert.equal(await page.locator('.badge').textContent(), 'DP×TP×PP = 4×4×4 = 64');
    const notes = await notesOf(page);
    assert.match(notes, SEQ_NOTE);
    assert.match(notes, DEGREES_NOTE);
    assert.doesNotMatch(notes, /using the previous ones/);
    assert.equal(url.searchParams.get('gpus'), '64');
    assert.equal(url.searchParams.get('global_batch'), '1024');
    assert.equal(url.searchParams.get('zero_stage'), '1');
    assert.equal(url.searchParams.get('seq_len'), null, 'back to its default');
    assert.equal(url.searchParams.get('degrees'), null, 'back to auto');
    const field = (name) => page.locator(`details.advanced [data-state="${name}"]`).inputValue();
    assert.equal(await field('gpus'), '64');
    assert.equal(await field('seq_len'), '2048');
    assert.equal(await field('global_batch'), '1024');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('the one value at fault alone: ?advanced=1&gpus=64&seq_len=200000', async () => {
    const lab = await openPage(env, '?advanced=1&gpus=64&seq_len=200000');
    const url = new URL(await settledUrl(lab.page));
    assert.equal(url.search, '?advanced=1&gpus=64');
    assert.match(await notesOf(lab.page), SEQ_NOTE);
    assert.equal(await lab.page.locator('.badge').textContent(), 'DP×TP×PP = 64×1×1 = 64');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('mount() and update() options: the values at fault go back, the others stay', async () => {
    const lab = await openPage(env, 'examples/module.html');
    const result = await lab.page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const box = document.body.appendChild(document.createElement('div'));
      const notes = () => box.querySelector('.pe-notes').textContent.replace(/\s+/g, ' ');
      const handle = mount(box, {
        gpus: 64,
        global_batch: 1024,
        seq_len: 200000,
        degrees: '2x4x2',
        zero_stage: 1,
      });
      await handle.ready;
      const mounted = { state: { ...handle.state }, notes: notes() };
      handle.update({ seq_len: 200000, global_batch: 2048, recompute: 'full' });
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); // drawn
      const updated = { state: { ...handle.state }, notes: notes() };
      return { mounted, updated, badge: box.querySelector('.badge').textContent };
    });
    const { mounted, updated } = result;
    assert.equal(mounted.state.gpus, 64);
    assert.equal(mounted.state.global_batch, 1024);
    assert.equal(mounted.state.zero_stage, 1);
    assert.equal(mounted.state.seq_len, 2048);
    assert.equal(mounted.state.degrees, 'auto');
    assert.match(mounted.notes, SEQ_NOTE);
    assert.match(mounted.notes, DEGREES_NOTE);
    assert.doesNotMatch(mounted.notes, /using the previous ones/);
    // update(): seq_len goes back to where the lab was; the batch and recomputation are taken.
    assert.equal(updated.state.seq_len, 2048);
    assert.equal(updated.state.global_batch, 2048);
    assert.equal(updated.state.recompute, 'full');
    assert.equal(updated.state.gpus, 64);
    assert.match(updated.notes, SEQ_NOTE);
    assert.equal(result.badge, 'DP×TP×PP = 4×4×4 = 64');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a typed value the core refuses: beside its field, every other value kept', async () => {
    const lab = await openPage(env, '?advanced=1&gpus=64&global_batch=1024');
    const { page } = lab;
    await page.locator('.advanced-out .breakdown').waitFor();
    const seq = page.locator('details.advanced [data-state="seq_len"]');
    await seq.fill('200000');
    await seq.press('Tab');
    const error = page.locator('[data-row="seq_len"] .field-error');
    await error.waitFor();
    assert.match(
      await error.textContent(),
      /seq_len is 200000: .*allowed 1 to \d+ with this model/,
    );
    assert.equal(await seq.inputValue(), '200000', "the reader's value stays to be corrected");
    // The panels and the URL keep the last state the core accepted: every other value.
    const url = new URL(await settledUrl(page));
    assert.equal(url.search, '?advanced=1&gpus=64&global_batch=1024');
    assert.equal(await page.locator('.badge').textContent(), 'DP×TP×PP = 64×1×1 = 64');
    // Another field still changes the lab, from what was accepted.
    const batch = page.locator('details.advanced [data-state="global_batch"]');
    await seq.fill('4096');
    await seq.press('Tab');
    await error.waitFor({ state: 'hidden' });
    await batch.fill('2048');
    await batch.press('Tab');
    await page.waitForFunction(() => /global_batch=2048/.test(location.search));
    const after = new URL(await settledUrl(page));
    assert.equal(after.searchParams.get('gpus'), '64');
    assert.equal(after.searchParams.get('seq_len'), '4096');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

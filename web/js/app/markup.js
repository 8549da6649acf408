// The lab's markup, one copy per mounted lab (embed.js). "@@" stands for the lab's own id
// prefix, so two labs on one page never share an id. data-part names what an author can hide
// (state/options.js PARTS). Static text only: every number is filled in from the core's report.
// The `details.more` are open in the standalone page's layout (their summaries hidden) and
// closed in an embedded lab's (layout "embed"), where the book's view fits one screen.
// The lab is one region (named by its title); its panels are sections with headings but no
// names of their own, so two labs on a page do not make two "What crosses the wire" regions.
export const MARKUP = `
<div class="pe-notes" role="status">
  <div class="pe-notes-body" hidden>
    <p class="pe-notes-title">Some options were not understood; the lab uses these instead:</p>
    <ul class="pe-notes-list"></ul>
    <button type="button" class="pe-notes-dismiss">Dismiss</button>
  </div>
</div>
<p class="error lab-error" role="alert" hidden></p>

<div class="intro" data-part="intro">
  <h2 id="@@title"><span class="title-text">Toggle the three seams; degrees auto-factor to <span data-text="gpus">16</span> GPUs</span><span class="title-model"></span></h2>
</div>

<div class="toolbar">
  <div class="switches" role="group" aria-label="Seams" data-part="switches"></div>
  <p class="badge" data-part="badge">DP×TP×PP = …</p>
  <p class="book-status" data-part="status" aria-hidden="true"><span class="status-memory"></span><span
    class="status-seam"></span></p>
</div>
<div class="warn-strip" data-part="warnings">
  <p class="warn-none">No warnings for this layout.</p>
  <details class="warn-more" hidden><summary class="warn-first"></summary>
    <div class="warn-box"><ul class="warnings"></ul><ul class="warn-facts"></ul></div></details>
  <p class="visually-hidden warn-live" role="status"></p>
</div>

<div class="columns">
  <figure class="grid-panel" data-part="grid">
    <svg class="grid gpu-grid" role="group" aria-label="GPUs" aria-describedby="@@layout"
      tabindex="-1"></svg>
    <p class="layout-text" id="@@layout" data-part="caption"></p>
  </figure>
  <section class="panel memory" data-part="memory">
    <h2 id="@@memory-h">Memory per GPU (weights + optimizer)</h2>
    <div class="memory-head">
      <p class="big"><span class="num" data-field="per-gpu" data-explain="memory.per_gpu_bytes">…</span></p>
      <p class="fit" data-field="fit"></p>
    </div>
    <p class="small model-note" data-field="model-note" hidden></p>
    <div class="meter" aria-hidden="true">
      <div class="meter-fill"></div>
      <div class="meter-cap"><span class="meter-cap-label"></span></div>
    </div>
    <dl class="facts">
      <div><dt>Model size N</dt><dd><span data-field="model-params" data-explain="model_params"></span></dd></div>
      <div><dt>Bytes / param</dt><dd><span data-field="bytes-per-param" data-explain="precision.bytes_per_param"></span></dd></div>
      <div><dt>Params held per GPU</dt><dd><span data-field="params-per-gpu" data-explain="memory.params_per_gpu"></span></dd></div>
      <div><dt data-field="shard-label">Shard factor (TP×PP)</dt><dd><span data-field="shard-factor" data-explain="memory.shard_factor"></span></dd></div>
    </dl>
    <p class="small"><span data-field="breakdown"></span> <span data-field="dp-note">Data
      parallelism replicates the model, so it does not shrink per-GPU memory (that is
      ZeRO/FSDP's job); only tensor and pipeline splits do.</span></p>
  </section>
</div>

<section class="wire-panel" data-part="wire">
  <h2 id="@@wire-h">What crosses the wire</h2>
  <ul class="wire">
    ${['data', 'tensor', 'pipeline', 'context', 'expert']
      .map(
        (seam) => `
    <li data-seam="${seam}"${['context', 'expert'].includes(seam) ? ' hidden' : ''}>
      <h3>${seam[0].toUpperCase()}${seam.slice(1)} <span class="seam-state" data-field="state"></span></h3>
      <dl>
        <div><dt>Collective</dt><dd data-field="collective"></dd></div>
        <div><dt>Group</dt><dd><span data-field="group" data-explain="comms.${seam}.group_size"></span></dd></div>
        <div><dt>Per GPU per step</dt><dd class="num"><span data-field="bytes" data-explain="comms.${seam}.bytes_per_gpu_per_step"></span></dd></div>
        <div><dt>Message × count</dt><dd data-field="message"></dd></div>
        <div><dt>Link</dt><dd><span data-field="link" data-explain="comms.${seam}.link_bytes_per_s"></span></dd></div>
        <div><dt>Time on the link</dt><dd><span data-field="time" data-explain="comms.${seam}.time_s"></span></dd></div>
      </dl>
      <p class="book">${
        {
          data: '<b>Data:</b> all-reduce gradients across replicas — once per step, ~2× the gradient size per GPU.',
          tensor:
            '<b>Tensor:</b> all-gather / all-reduce activations every layer — only survivable on the fastest in-node links.',
          pipeline:
            '<b>Pipeline:</b> point-to-point activations between adjacent stages — only megabytes, so it tolerates slower links.',
          context:
            '<b>Context:</b> keys and values of every layer passed around the group that splits the sequence — gigabytes per step, hidden behind attention when the ring can.',
          expert:
            '<b>Expert:</b> all-to-alls that send each token to its experts and back, every MoE layer — the heaviest traffic of a mixture of experts.',
        }[seam]
      }</p>
    </li>`,
      )
      .join('')}
  </ul>
  <details class="more rule-more" open><summary>The chapter's rule of thumb</summary>
  <p class="rule">The chapter's rule of thumb: TP innermost (in a node), PP next, DP
    outermost — following each method's appetite for bandwidth. Context parallelism sits just
    outside TP (Megatron-Core's tp-cp order); expert groups are carved out of the data- and
    context-parallel ranks.</p>
  <p class="small link-rates"></p></details>
</section>

<div class="grid-more">
  <details class="more grid-key" open><summary>Key to the grid and its numbers</summary>
    <div class="intro-more" data-part="intro">
      <p class="explain">Each GPU tile is coloured by pipeline stage (hue) and
        tensor slice (shade); the outlined boxes are data-parallel replicas. The badge shows
        DP×TP×PP = <span data-text="gpus">16</span>. Memory and communication are computed
        for <span data-text="model-article">a</span>
        <span data-text="model-size">16-billion</span>-parameter model at <span data-text="bytes-per-param">16</span> bytes/parameter. Sizes are decimal:
        1 GB = 10<sup>9</sup> bytes. <span class="on-hover">Hover over, focus or click</span><span
        class="on-touch">Tap</span> a number for the math behind it and its exact value.</p>
    </div>
    <div class="legend" data-part="legend">
      <div data-legend="stage"><span class="legend-title">pipeline stage = hue</span>
        <span class="chips"></span><span class="legend-note"></span></div>
      <div data-legend="slice"><span class="legend-title">tensor slice = shade</span>
        <span class="chips"></span>
        <span class="legend-note">(and the mark's place in each tile's strip)</span></div>
      <div data-legend="replica"><span class="swatch-outline" aria-hidden="true"></span>
        <span class="legend-title">outlined box = data-parallel replica</span>
        <span class="legend-note"></span></div>
      <div data-legend="context" hidden><span class="hl-swatch cp" aria-hidden="true"></span>
        <span class="legend-title">context-parallel group: pick a GPU to see it</span>
        <span class="legend-note"></span></div>
      <div data-legend="expert" hidden><span class="hl-swatch ep" aria-hidden="true"></span>
        <span class="legend-title">expert-parallel group: pick a GPU to see it</span>
        <span class="legend-note"></span></div>
      <div data-legend="labels"><span class="legend-title">tile labels:</span>
        <span class="legend-note">D0 = data-parallel replica 0, T = tensor slice, P = pipeline
          stage, C = context chunk; "whole" when no seam splits it</span></div>
      <div data-legend="node"><span class="swatch-node" aria-hidden="true"></span>
        <span class="legend-title">shaded box = node</span>
        <span class="legend-note">(GPUs inside share NVLink)</span></div>
    </div>
  </details>
  <div class="readout" aria-live="polite" data-part="readout">
    <p class="readout-title"></p>
    <ul class="readout-groups"></ul>
  </div>
</div>
<div class="book-more">
  <div class="order-out" data-part="order">
    <div class="field order-field"></div>
    <ul class="order-seams" aria-label="Where each seam's groups sit"></ul>
    <p class="order-cost"></p>
    <p class="visually-hidden order-announce" aria-live="polite"></p>
  </div>
  <div class="fleet-box" data-part="fleet">
    <button type="button" class="tool fleet-toggle">Book's fleet (10,240 GPUs)</button>
    <p class="small fleet-hint"></p>
  </div>
</div>
<p class="small change-note" role="status"></p>

<div class="desk" hidden>
  <p class="desk-bar"><button type="button" class="tool to-book">← The book's view</button>
    <span class="small">The planning desk: the run's inputs beside its results, the planner and
      Compare side by side.</span></p>
  <div class="desk-cols">
    <div class="desk-inputs" role="group" aria-label="The run's inputs"></div>
    <div class="desk-results">
      <div class="desk-tabs" role="tablist" aria-label="Results">${[
        ['results', 'Results'],
        ['plan', 'Planner and Compare'],
        ['runs', 'Published runs'],
        ['calibrate', 'Calibrate to your run'],
      ]
        .map(
          ([name, label]) =>
            `<button type="button" role="tab" class="desk-tab" data-tab="${name}" id="@@tab-${name}" aria-controls="@@pane-${name}">${label}</button>`,
        )
        .join('')}</div>
      ${['results', 'plan', 'runs', 'calibrate']
        .map(
          (name) =>
            `<div class="desk-pane" role="tabpanel" data-pane="${name}" id="@@pane-${name}" aria-labelledby="@@tab-${name}" hidden></div>`,
        )
        .join('')}
    </div>
  </div>
</div>
<p class="desk-open" data-part="advanced"><button type="button" class="tool open-desk">Open the
  planning desk</button> <span class="small">to size a real run: inputs beside results, the
  planner and Compare together</span></p>
<div class="kept-run" data-part="advanced" hidden><p class="small kept-text"></p>
  <button type="button" class="tool restore-run">Reopen the sized run</button></div>
<details class="advanced" data-part="advanced">
  <summary>Advanced: size a real run</summary>
  <div class="advanced-body">
    <p class="explain">Beyond the book: any fleet up to <span data-text="max-gpus">the core's limit of</span> GPUs, real models, GPUs and
      networks, ZeRO, activation memory with recomputation, and the pipeline schedule. Open,
      the memory is the practitioner's (whole layers per stage, the embedding on the first
      stage and the output layer on the last, activations in flight), and the panels below
      add the step time, the pipeline timeline, a layout planner and published runs. Closed,
      the lab is the book's.</p>
  </div>
</details>

<section class="compare" data-part="compare">
  <details class="more compare-more" open><summary>Compare: pin a state, change something, see
    both</summary>
  <h2 id="@@compare-h">Compare</h2>
  <p class="compare-bar"><button type="button" class="tool pin">Pin…</button>
    <span class="small">keeps the current state in the table (and the link) to compare with
      what you change next</span></p>
  <p class="small compare-status" role="status"></p>
  <div class="compare-wrap"></div>
  </details>
</section>

<section class="exercises" data-part="exercises"></section>

<div class="advanced-out" hidden></div>

<div class="share-bar">
  <div class="share" role="group" aria-label="Share" data-part="share">
    <button type="button" class="tool" data-action="copy-link">Copy link</button>
    <button type="button" class="tool" data-action="copy-snippet">Copy embed snippet</button>
  </div>
  <div class="export" role="group" aria-label="Export" data-part="export">
    <button type="button" class="tool" data-action="export-json">Report (JSON)</button>
    <button type="button" class="tool" data-action="export-svg">Grid (SVG)</button>
    <button type="button" class="tool" data-action="export-png">Grid (PNG)</button>
  </div>
  <p class="share-status" role="status"></p>
  <label class="copy-fallback" hidden><span>Copying was not allowed here: the text is selected,
    press Ctrl+C (⌘C) to copy it.</span>
    <textarea readonly rows="3"></textarea></label>
</div>
<p class="visually-hidden pe-announce" aria-live="polite"></p>
`;

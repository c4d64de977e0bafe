// The "Under load" section of a serving question (issue #30 item 4): the engine under a
// request load, simulated request by request by the engine's serveSim (`dlcost serve-sim`)
// when the user presses Simulate, never on a keystroke. Inputs: a request rate, requests in
// flight or a trace file (read in this browser by loadTrace, never uploaded); lengths fixed,
// uniform or normal; objectives; replicas. Output: latency percentiles, throughput, the
// capacity answer (also in the verdict card), KV use and the queue over time, and P99 latency
// against request rate from one serveSim call per rate, made one at a time. Each call runs in
// a module Web Worker (serve_sim_runner.js, serve_sim_worker.js: the same engine, its JSON
// relayed as it is) so the page stays responsive, with a progress bar and Cancel (which
// terminates the worker); a change to the inputs cancels the run going on. Every figure is the
// engine's; the page only writes the load the user typed into the document.
// @ts-check

import dlcost, { DlcostError, loadExtra } from './dlcost.js';
import { h, replace } from './dom.js';
import { createSimRunner } from './serve_sim_runner.js';
import { applyI18n, engineText, getLang, t } from './i18n.js';
import { formatRate, formatSignificant as num } from './units.js';
import { xyChart } from './under_load_chart.js';
import './under_load_i18n.js';

/** The sweep's request rates as multiples of the capacity (or of the asked rate). */
const SWEEP_FACTORS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5];
/** The load's fields (their key in the document's "load") and the input ids they come from. */
const FIELD_OF = {
  rate: 'ul-rate',
  concurrency: 'ul-concurrency',
  trace: 'ul-trace',
  requests: 'ul-requests',
  prompt: 'ul-prompt',
  output: 'ul-output',
  replicas: 'ul-replicas',
  slo_ttft_ms: 'ul-slo-ttft',
  slo_itl_ms: 'ul-slo-itl',
};

/** Typed text as the CLI's flags hand it to the engine: a JSON number stays a number, other
 *  text goes as it is (the engine names the field it cannot read); empty = not sent.
 *  @param {string} text */
function value(text) {
  const v = text.trim();
  if (v === '') return undefined;
  try {
    const j = JSON.parse(v);
    if (typeof j === 'number') return j;
  } catch {
    // not JSON: the text itself, for the engine's message
  }
  return v;
}

/** A labelled field with its error line. @param {string} id @param {string} key
 *  @param {...HTMLElement} controls */
function field(id, key, ...controls) {
  return h(
    'div',
    { class: 'field', id: `${id}-field` },
    h('label', { for: controls[0].id, 'data-i18n': key, text: t(key) }),
    ...controls,
    h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' }),
  );
}

/** @param {string} id @param {string} [text] @param {string} [errorId] */
function input(id, text = '', errorId = id) {
  return h('input', {
    id,
    type: 'text',
    inputmode: 'decimal',
    autocomplete: 'off',
    value: text,
    'aria-describedby': `${errorId}-error`,
  });
}

/** @param {string} id @param {Array<[string, string]>} options value and label key */
function select(id, options) {
  return h(
    'select',
    { id },
    options.map(([v, key]) => h('option', { value: v, 'data-i18n': key, text: t(key) })),
  );
}

/** A length field: fixed N, uniform lo–hi or normal mean, sd. @param {string} id @param {string} key */
function lengthField(id, key) {
  const kind = select(`${id}-kind`, [
    ['fixed', 'ulFixed'],
    ['uniform', 'ulUniform'],
    ['normal', 'ulNormal'],
  ]);
  const a = input(`${id}-a`, '', id);
  const b = input(`${id}-b`, '', id);
  a.setAttribute('data-i18n-placeholder', 'ulFromWorkload');
  a.placeholder = t('ulFromWorkload');
  const sync = () => {
    const k = kind.value;
    b.hidden = k === 'fixed';
    a.setAttribute('aria-label', t(k === 'uniform' ? 'ulLo' : k === 'normal' ? 'ulMean' : 'ulTokens'));
    b.setAttribute('aria-label', t(k === 'uniform' ? 'ulHi' : 'ulSd'));
  };
  kind.addEventListener('change', sync);
  sync();
  const box = field(id, key, kind, h('div', { class: 'ul-pair' }, a, b));
  return { box, kind, a, b, sync };
}

/** The load a length field holds. @param {{kind: HTMLSelectElement, a: HTMLInputElement, b: HTMLInputElement}} f */
function lengthOf(f) {
  if (f.kind.value === 'fixed') return value(f.a.value);
  return { [f.kind.value]: [value(f.a.value) ?? f.a.value, value(f.b.value) ?? f.b.value] };
}

/** Milliseconds of a time in seconds, three significant digits (drawing units, not a figure). */
const ms = (seconds) => num(seconds * 1000);

/** The section's inputs, built once (their values survive every redraw of the page).
 *  @param {(file: File) => void} onFile */
function buildForm(onFile) {
  const kind = select('ul-kind', [
    ['rate', 'ulByRate'],
    ['concurrency', 'ulByConcurrency'],
    ['trace', 'ulByTrace'],
  ]);
  const rate = input('ul-rate', '4');
  const concurrency = input('ul-concurrency', '16');
  const requests = input('ul-requests', '1000');
  const prompt = lengthField('ul-prompt', 'ulPrompt');
  const output = lengthField('ul-output', 'ulOutput');
  const sloTtft = input('ul-slo-ttft');
  const sloItl = input('ul-slo-itl');
  const replicas = input('ul-replicas', '1');
  const file = h('input', { id: 'ul-trace-file', type: 'file', accept: '.csv,.jsonl,.json,.txt,text/plain' });
  const traceInfo = h('p', { class: 'hint', id: 'ul-trace-info' });
  const drop = h(
    'div',
    { class: 'ul-drop', id: 'ul-trace' },
    h('span', { 'data-i18n': 'ulTraceDrop', text: t('ulTraceDrop') }),
    file,
    traceInfo,
  );
  file.setAttribute('aria-describedby', 'ul-trace-error');
  file.addEventListener('change', () => file.files && file.files[0] && onFile(file.files[0]));
  drop.addEventListener('dragover', (e) => e.preventDefault());
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) onFile(f);
  });
  const boxes = {
    rate: field('ul-rate', 'ulRate', rate),
    concurrency: field('ul-concurrency', 'ulConcurrency', concurrency),
    trace: field('ul-trace', 'ulTrace', drop),
  };
  // The trace field's label names the file input.
  boxes.trace.querySelector('label')?.setAttribute('for', 'ul-trace-file');
  const syncKind = () => {
    for (const [k, box] of Object.entries(boxes)) box.hidden = kind.value !== k;
  };
  kind.addEventListener('change', syncKind);
  syncKind();
  const grid = h(
    'div',
    { class: 'grid2' },
    field('ul-kind', 'ulArrivals', kind),
    boxes.rate,
    boxes.concurrency,
    field('ul-requests', 'ulRequests', requests),
    prompt.box,
    output.box,
    field('ul-slo-ttft', 'ulSloTtft', sloTtft),
    field('ul-slo-itl', 'ulSloItl', sloItl),
    field('ul-replicas', 'ulReplicas', replicas),
  );
  return {
    node: h('div', {}, grid, boxes.trace),
    fields: { kind, rate, concurrency, requests, prompt, output, sloTtft, sloItl, replicas, traceInfo },
    relabel: () => [prompt, output].forEach((f) => f.sync()),
  };
}

/** The document's "load" from the form. @param {ReturnType<typeof buildForm>['fields']} f
 *  @param {{rows: any[]} | null} trace */
function loadOf(f, trace) {
  /** @type {Record<string, unknown>} */
  const load = {};
  const put = (key, v) => {
    if (v !== undefined) load[key] = v;
  };
  if (f.kind.value === 'rate') load.rate = value(f.rate.value) ?? null;
  if (f.kind.value === 'concurrency') load.concurrency = value(f.concurrency.value) ?? null;
  if (f.kind.value === 'trace' && trace) load.trace = trace.rows;
  if (f.kind.value !== 'trace') put('requests', value(f.requests.value));
  put('prompt', lengthOf(f.prompt));
  put('output', lengthOf(f.output));
  put('replicas', value(f.replicas.value));
  put('slo_ttft_ms', value(f.sloTtft.value));
  put('slo_itl_ms', value(f.sloItl.value));
  // null: the field was left empty; the engine's "give exactly one of rate, ..." names it.
  for (const key of ['rate', 'concurrency']) if (load[key] === null) delete load[key];
  return load;
}

/** The percentiles as a table, in milliseconds. @param {any} result */
function percentileTable(result) {
  const rows = [
    ['ulTtft', result.ttft_s],
    ['ulItl', result.itl_s],
    ['ulE2e', result.e2e_s],
    ['ulQueue', result.queue_s],
  ];
  const cols = ['mean', 'p50', 'p90', 'p99'];
  return h(
    'div',
    { class: 'ul-table-wrap' },
    h(
      'table',
      { class: 'ul-table', id: 'ul-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { text: t('ulMetric') }),
          cols.map((c) => h('th', { text: c === 'mean' ? t('ulMean2') : c.toUpperCase() })),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map(([key, p]) =>
          h(
            'tr',
            { dataset: { metric: key } },
            h('th', { scope: 'row', text: t(key) }),
            cols.map((c) => h('td', { class: 'num', text: ms(p[c]) })),
          ),
        ),
      ),
    ),
  );
}

/** The capacity answer in words, or '' without a capacity. @param {any} capacity */
export function capacityText(capacity) {
  if (!capacity) return '';
  const usd =
    typeof capacity.usd_per_hour === 'number' ? t('ulCapacityUsd', { usd: formatRate(capacity.usd_per_hour) }) : '';
  return (
    t('ulCapacity', { rate: formatRate(capacity.max_rate), replicas: capacity.replicas, gpus: capacity.gpus }) + usd
  );
}

/** The run's figures: capacity, objectives, table, throughput, notes, timeline charts.
 *  @param {any} out serveSim's answer */
function resultNodes(out) {
  const r = out.result;
  const tl = r.timeline;
  const sec = (v) => num(v, 3);
  return [
    out.capacity ? h('p', { class: 'ul-capacity', id: 'ul-capacity', text: capacityText(out.capacity) }) : null,
    typeof r.meets_slo === 'boolean'
      ? h('p', {
          class: r.meets_slo ? 'inference-verdict ok' : 'inference-verdict bad',
          id: 'ul-meets',
          text: t(r.meets_slo ? 'ulMeets' : 'ulMisses'),
        })
      : null,
    percentileTable(r),
    h('p', {
      id: 'ul-throughput',
      text: t('ulThroughput', {
        requests: formatRate(r.requests_per_s),
        output: formatRate(r.output_tokens_per_s),
        total: formatRate(r.total_tokens_per_s),
      }),
    }),
    h('p', {
      id: 'ul-preemptions',
      text: t('ulPreemptions', {
        preemptions: r.preemptions,
        waiting: r.max_waiting,
        rejected: r.rejected ?? 0,
      }),
    }),
    ...(r.notes || []).map((n) => h('p', { class: 'note', text: n })),
    h(
      'div',
      { class: 'inference-charts', id: 'ul-timeline' },
      xyChart({
        title: t('ulChartKv'),
        fmtX: sec,
        fmtY: (v) => num(v, 2),
        id: 'ul-chart-kv',
        series: [{ label: 'KV', cls: 's0', points: tl.time_s.map((x, i) => [x, tl.kv_used[i] * 100]) }],
      }),
      xyChart({
        title: t('ulChartQueue'),
        fmtX: sec,
        fmtY: (v) => String(v),
        id: 'ul-chart-queue',
        series: [
          { label: t('ulRunningS'), cls: 's0', points: tl.time_s.map((x, i) => [x, tl.running[i]]) },
          { label: t('ulWaitingS'), cls: 's1', points: tl.time_s.map((x, i) => [x, tl.waiting[i]]) },
        ],
      }),
    ),
  ];
}

/** P99 TTFT and P99 ITL against request rate. @param {Array<{rate: number, ttft: number, itl: number}>} points
 *  @param {Record<string, unknown>} load */
function kneeNodes(points, load) {
  const rate = (v) => num(v, 3);
  const slo = (key) =>
    typeof load[key] === 'number' ? { y: /** @type {number} */ (load[key]), label: t('ulObjective') } : undefined;
  return [
    xyChart({
      title: t('ulChartTtft'),
      fmtX: rate,
      fmtY: (v) => num(v, 3),
      id: 'ul-chart-ttft',
      hline: slo('slo_ttft_ms'),
      series: [{ label: 'P99', cls: 's0', dots: true, points: points.map((p) => [p.rate, p.ttft]) }],
    }),
    xyChart({
      title: t('ulChartItl'),
      fmtX: rate,
      fmtY: (v) => num(v, 3),
      id: 'ul-chart-itl',
      hline: slo('slo_itl_ms'),
      series: [{ label: 'P99', cls: 's1', dots: true, points: points.map((p) => [p.rate, p.itl]) }],
    }),
  ];
}

/** The rates of the latency sweep: around the capacity, or the asked rate without one; none
 *  for a closed loop or a trace. @param {any} out @param {Record<string, unknown>} load */
function sweepRates(out, load) {
  const base = out.capacity ? out.capacity.max_rate : typeof load.rate === 'number' ? load.rate : 0;
  return base > 0 ? SWEEP_FACTORS.map((f) => base * f) : [];
}

/** The section's state: its elements, the form (built when first shown), the trace read, the
 *  last run (the document it read, serveSim's answer, the sweep's points), the run going on
 *  (the document it read), the runner that makes the engine calls and the progress line's
 *  message (redrawn in a new language).
 *  @typedef {{
 *    root: HTMLElement, verdictLine: HTMLElement, getDocument: () => any,
 *    form: ReturnType<typeof buildForm> | null, trace: {name: string, rows: any[]} | null,
 *    last: {key: string, out: any, load: Record<string, unknown>, points: any[], via: string} | null,
 *    running: {cancelled: boolean, key: string} | null, shownLang: string,
 *    runner: ReturnType<typeof createSimRunner>, message: [string, object] | null,
 *    runButton: HTMLButtonElement, cancelButton: HTMLButtonElement, progress: HTMLElement,
 *    progressBar: HTMLProgressElement, error: HTMLElement,
 *    results: HTMLElement, knee: HTMLElement, stale: HTMLElement,
 *  }} UnderLoad */

/** The section's state with its elements, not yet on the page.
 *  @param {HTMLElement} root @param {HTMLElement} verdictLine @param {() => any} getDocument
 *  @returns {UnderLoad} */
function sectionState(root, verdictLine, getDocument) {
  return {
    root,
    verdictLine,
    getDocument,
    form: null,
    trace: null,
    last: null,
    running: null,
    shownLang: '',
    runner: createSimRunner(),
    message: null,
    runButton: h('button', { type: 'button', id: 'ul-run', 'data-i18n': 'ulRun', text: t('ulRun') }),
    cancelButton: h('button', {
      type: 'button',
      id: 'ul-cancel',
      'data-i18n': 'ulCancel',
      text: t('ulCancel'),
      disabled: true,
    }),
    progress: h('p', { class: 'hint', id: 'ul-progress', 'aria-live': 'polite' }),
    progressBar: /** @type {HTMLProgressElement} */ (
      h('progress', {
        id: 'ul-progress-bar',
        'data-i18n-aria': 'ulProgress',
        'aria-label': t('ulProgress'),
        hidden: true,
      })
    ),
    error: h('p', { class: 'field-error', id: 'ul-error', role: 'alert' }),
    results: h('div', { id: 'ul-results', 'aria-live': 'polite' }),
    knee: h('div', { class: 'inference-charts', id: 'ul-knee' }),
    stale: h('p', { class: 'hint', id: 'ul-stale', 'data-i18n': 'ulStale', text: t('ulStale'), hidden: true }),
  };
}

/** @param {UnderLoad} ul */
function clearErrors(ul) {
  for (const el of ul.root.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of ul.root.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** An engine error next to the field its path names (/load/rate ...), else under the button.
 *  @param {UnderLoad} ul @param {unknown} e */
function showError(ul, e) {
  if (!(e instanceof DlcostError)) throw e;
  const { form } = ul;
  const message = engineText(e.message, e.message_zh);
  const key = String(e.path || '').startsWith('/load/') ? String(e.path).split('/')[2] : '';
  let id = FIELD_OF[key];
  // "give exactly one of rate, concurrency or trace": the arrivals the user chose.
  if (key === 'rate' && form && form.fields.kind.value !== 'rate') id = FIELD_OF[form.fields.kind.value];
  const at = id ? document.getElementById(`${id}-error`) : null;
  (at || ul.error).textContent = at ? message : `${e.path ? `${e.path}: ` : ''}${message}`;
  const control = id && ul.root.querySelector(`#${id}-field input, #${id}-field select`);
  if (control) control.setAttribute('aria-invalid', 'true');
}

/** @param {UnderLoad} ul @param {File} file */
function readTrace(ul, file) {
  clearErrors(ul);
  const reader = new FileReader();
  reader.onload = () => {
    loadExtra().then(() => {
      try {
        ul.trace = { name: file.name, rows: dlcost.loadTrace(String(reader.result)).trace };
        if (ul.form)
          ul.form.fields.traceInfo.textContent = t('ulTraceRows', { file: file.name, rows: ul.trace.rows.length });
      } catch (e) {
        ul.trace = null;
        showError(ul, e);
      }
    });
  };
  reader.readAsText(file);
}

/** @param {UnderLoad} ul */
function drawResults(ul) {
  const { last, verdictLine } = ul;
  if (!last) return;
  replace(ul.results, ...resultNodes(last.out));
  ul.results.dataset.via = last.via; // which thread ran the engine: "worker" or "main-thread"
  replace(ul.knee, ...(last.points.length ? kneeNodes(last.points, last.load) : []));
  const line = capacityText(last.out.capacity);
  verdictLine.hidden = !line;
  verdictLine.textContent = line ? `${t('ulVerdict')}: ${line}` : '';
}

/** @param {UnderLoad} ul @param {boolean} busy */
function setBusy(ul, busy) {
  ul.runButton.disabled = busy;
  ul.cancelButton.disabled = !busy;
  ul.root.dataset.running = String(busy);
}

/** The progress line (a message key and its values, or null for none) and the bar under it:
 *  simulations done of total, "busy" (a bar without a value) or null (hidden).
 *  @param {UnderLoad} ul @param {[string, object] | null} message
 *  @param {{done: number, total: number} | 'busy' | null} bar */
function setProgress(ul, message, bar) {
  ul.message = message;
  ul.progress.textContent = message ? t(...message) : '';
  const { progressBar } = ul;
  progressBar.hidden = !bar;
  if (bar === 'busy') progressBar.removeAttribute('value');
  else if (bar) {
    progressBar.max = bar.total;
    progressBar.value = bar.done;
  }
}

/** One serveSim call per rate, each awaited before the next; stops at Cancel.
 *  @param {UnderLoad} ul @param {{cancelled: boolean}} token @param {any} base @param {number[]} rates */
async function sweep(ul, token, base, rates) {
  if (!ul.last) return;
  const run = ul.last;
  const { slo_ttft_ms, slo_itl_ms, replicas, ...rest } = run.load;
  const total = rates.length;
  for (const [done, rate] of rates.entries()) {
    setProgress(ul, ['ulSweepProgress', { done, total }], { done, total });
    // Per instance at the capacity (its rate is one instance's); the asked replicas otherwise.
    const load = { ...rest, rate, ...(run.out.capacity ? {} : { replicas }) };
    const answer = token.cancelled ? null : await ul.runner.run({ ...base, load });
    if (!answer || token.cancelled) {
      setProgress(ul, ['ulSweepCancelled', { done, total }], null);
      return;
    }
    const r = answer.out.result;
    run.points.push({ rate, ttft: r.ttft_s.p99 * 1000, itl: r.itl_s.p99 * 1000 });
    replace(ul.knee, ...kneeNodes(run.points, run.load));
  }
  setProgress(ul, null, null);
}

/** @param {UnderLoad} ul */
async function simulate(ul) {
  if (!ul.form || ul.running) return;
  clearErrors(ul);
  const base = ul.getDocument();
  const token = { cancelled: false, key: JSON.stringify(base) };
  ul.running = token;
  setBusy(ul, true);
  setProgress(ul, ['ulRunning', {}], 'busy');
  try {
    const load = loadOf(ul.form.fields, ul.trace);
    const answer = await ul.runner.run({ ...base, load });
    if (!answer || token.cancelled) {
      // The results on screen (if any) stay those of the last finished run.
      setProgress(ul, [ul.last ? 'ulCancelledKept' : 'ulCancelled', {}], null);
      return;
    }
    const { out, via } = answer;
    ul.last = { key: token.key, out, load, points: [], via };
    ul.stale.hidden = true;
    drawResults(ul);
    await sweep(ul, token, base, sweepRates(out, load));
  } catch (e) {
    setProgress(ul, null, null);
    showError(ul, e);
  } finally {
    ul.running = null;
    setBusy(ul, false);
  }
}

/** Stops the run going on (Cancel, or an input changed under it). @param {UnderLoad} ul */
function cancelRun(ul) {
  if (!ul.running) return;
  ul.running.cancelled = true;
  ul.runner.cancel();
}

/** Builds the form and puts the section's parts on the page (the first time it is shown).
 *  @param {UnderLoad} ul */
function mountSection(ul) {
  ul.form = buildForm((file) => readTrace(ul, file));
  // A newer input cancels the older run: its answer would be for a load no longer asked.
  for (const type of ['input', 'change']) ul.form.node.addEventListener(type, () => cancelRun(ul));
  replace(
    ul.root,
    h('h3', { 'data-i18n': 'ulTitle', text: t('ulTitle') }),
    h('p', { class: 'hint', 'data-i18n': 'ulIntro', text: t('ulIntro') }),
    ul.form.node,
    h('div', { class: 'ul-actions' }, ul.runButton, ul.cancelButton),
    ul.progress,
    ul.progressBar,
    ul.error,
    ul.stale,
    ul.results,
    ul.knee,
  );
}

/** Shows the section for a serving plan, hides it otherwise. @param {UnderLoad} ul @param {any} report */
function updateSection(ul, report) {
  const { root, verdictLine, last } = ul;
  const serving = Boolean(report && report.serving);
  root.hidden = !serving;
  if (!serving) {
    verdictLine.hidden = true;
    return;
  }
  if (!ul.form) mountSection(ul);
  // The labels made before the page's language was set, or in another language.
  if (getLang() !== ul.shownLang) {
    ul.shownLang = getLang();
    applyI18n(root);
    ul.form.relabel();
    drawResults(ul);
    if (ul.message) ul.progress.textContent = t(...ul.message);
  }
  // The model or workload changed under a run: it answers for a document no longer shown.
  if (ul.running && ul.running.key !== JSON.stringify(ul.getDocument())) cancelRun(ul);
  const isStale = Boolean(last) && last?.key !== JSON.stringify(ul.getDocument());
  ul.stale.hidden = !isStale;
  ul.results.classList.toggle('stale', isStale);
  ul.knee.classList.toggle('stale', isStale);
  verdictLine.hidden = !last || isStale || !capacityText(last.out.capacity);
}

/**
 * Sets up the section in `root` and the capacity line of the verdict card in `verdictLine`.
 * `getDocument()` is the page's current {model, workload}. Returns update(report), called
 * with each estimate: shows the section for a serving plan, hides it otherwise.
 * @param {HTMLElement} root @param {HTMLElement} verdictLine @param {() => any} getDocument
 */
export function createUnderLoad(root, verdictLine, getDocument) {
  const ul = sectionState(root, verdictLine, getDocument);
  ul.runButton.addEventListener('click', () => {
    simulate(ul);
  });
  ul.cancelButton.addEventListener('click', () => cancelRun(ul));

  /** @param {any} report the page's last report */
  return function update(report) {
    updateSection(ul, report);
  };
}

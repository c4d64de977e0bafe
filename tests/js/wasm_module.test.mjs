// The WebAssembly module against the native CLI: same document in, same JSON out, for every
// preset and a spread of workloads; errors come back as structured values, never exceptions.
// No figure is written here: the CLI (tested against published figures in tests/*.cpp) is
// the reference, so native and wasm cannot drift.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { cliEstimate, cliPresets, ROOT, runCli, WASM_MODULE } from './native_cli.mjs';

let engine;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});

const presets = cliPresets();

const WORKLOADS = [
  {},
  { mode: 'train', batch: 32, dtype: 'fp32', optimizer: 'adam', memory_gib: 24 },
  { mode: 'train', batch: 7, dtype: 'mixed', optimizer: 'adamw', memory_gib: 80 },
  { mode: 'train', batch: 1, dtype: 'bf16', optimizer: 'sgd', overhead_bytes: 536870912 },
  { mode: 'infer', batch: 256, dtype: 'fp16', memory_bytes: 16000000000 },
  { mode: 'train', batch: 64, dtype: 'fp16', optimizer: 'momentum', memory_gib: 0.5 },
];

// The CLI starts a workload from the task it implies (core's startingDocument: the page's
// first screen for the same model); the raw engine reads a document as written.
const started = (doc) => engine.startingDocument(JSON.stringify(doc));

describe('every preset estimates the same in wasm as in the native CLI', () => {
  test('the wasm preset list equals `dlcost presets --json`', () => {
    assert.ok(presets.length > 0);
    assert.deepEqual(JSON.parse(engine.presets()), presets);
  });

  for (const { name } of presets) {
    test(`${name}: preset(name) is the model document \`dlcost preset ${name}\` prints`, () => {
      const r = runCli(['preset', name]);
      assert.equal(r.status, 0);
      assert.deepEqual(JSON.parse(engine.preset(name)), r.json);
    });
    for (const workload of WORKLOADS) {
      test(`${name} with ${JSON.stringify(workload)}: report equals the CLI's --json`, () => {
        const doc = { model: { preset: name }, workload };
        const cli = cliEstimate(doc);
        assert.equal(cli.status, 0, cli.stderr);
        assert.deepEqual(JSON.parse(engine.estimate(started(doc))), cli.json);
        // The page's one-call update carries the same report.
        const both = JSON.parse(new TextDecoder().decode(engine.estimateWithSweep(started(doc), 25)));
        assert.deepEqual(both.report, cli.json);
        assert.equal(both.sweep.per_gpu, false);  // no GPU in these workloads
        const at = both.sweep.points.find((p) => p.batch === cli.json.workload.batch);
        assert.equal(at.total, cli.json.memory.total);
      });
    }
    test(`${name}: the full model document estimates as the preset reference does`, () => {
      const doc = { model: JSON.parse(engine.preset(name)), workload: { batch: 16, memory_gib: 12 } };
      const cli = cliEstimate(doc);
      assert.equal(cli.status, 0, cli.stderr);
      assert.deepEqual(JSON.parse(engine.estimate(started(doc))), cli.json);
    });
    test(`${name}: CLI flags and the wasm workload object give the same report`, () => {
      const r = runCli(['estimate', '--preset', name, '--batch', '8', '--dtype', 'mixed', '--memory-gib', '40', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const doc = { model: { preset: name }, workload: { batch: 8, dtype: 'mixed', memory_gib: 40 } };
      assert.deepEqual(JSON.parse(engine.estimate(started(doc))), r.json);
    });
  }
});

// Each class of bad input: the wasm error object equals the CLI's --json error (exit code 2).
const BAD = [
  ['not JSON', '{"model": ', 'parse', ''],
  ['a document that is not an object', '[1, 2]', 'type', ''],
  ['an unknown preset', { model: { preset: 'no_such_model' } }, 'value', '/model/preset'],
  ['a missing input shape', { model: { layers: [{ type: 'relu' }] } }, 'missing_field', '/model/input'],
  ['an unknown field', { model: { input: [4], layers: [{ type: 'linear', out_features: 2, colour: 1 }] } }, 'unknown_field', '/model/layers/0/colour'],
  ['a wrong type', { model: { input: [4], layers: [{ type: 'linear', out_features: 'two' }] } }, 'type', '/model/layers/0/out_features'],
  ['a zero batch', { model: { preset: 'alexnet' }, workload: { batch: 0 } }, 'value', '/workload/batch'],
  ['an unknown dtype', { model: { preset: 'alexnet' }, workload: { dtype: 'fp8x' } }, 'value', '/workload/dtype'],
  ['shapes that do not fit', { model: { input: [3, 4, 4], layers: [{ type: 'conv2d', out_channels: 2, kernel: 9 }] } }, 'shape', '/model/layers/0'],
  ['an unknown layer name', { model: { input: [4], layers: [{ type: 'relu', inputs: 'nowhere' }] } }, 'graph', '/model/layers/0/inputs'],
  ['sizes that overflow', { model: { input: [1099511627776, 1099511627776], layers: [{ type: 'relu' }] }, workload: { batch: 4294967296 } }, 'too_large', null],
];

describe('bad input comes back as {error: {code, path, message}}, as the CLI reports it', () => {
  for (const [what, doc, code, pathPrefix] of BAD) {
    test(`${what}`, () => {
      const text = typeof doc === 'string' ? doc : JSON.stringify(doc);
      const out = JSON.parse(engine.estimate(text));
      assert.ok(out.error, `expected an error, got ${text}`);
      assert.equal(out.error.code, code);
      if (pathPrefix !== null) assert.ok(out.error.path.startsWith(pathPrefix), out.error.path);
      assert.ok(out.error.message.length > 0);
      const cli = cliEstimate(text);
      assert.equal(cli.status, 2);
      assert.deepEqual(out, cli.json);
    });
  }
  test('a sweep with a bad batch list names the entry', () => {
    const out = JSON.parse(engine.sweepBatch('{"model":{"preset":"alexnet"}}', '[1, -3]'));
    assert.deepEqual(Object.keys(out), ['error']);
    assert.equal(out.error.path, '/batches/1');
  });
  test('an unknown preset name is an error object, not an exception', () => {
    assert.equal(JSON.parse(engine.preset('nope')).error.path, '/model/preset');
  });
  test('the exception-message helper reads nothing from a null pointer', () => {
    assert.equal(engine.exceptionMessage(0), '');
  });
});

describe('the batch sweep', () => {
  for (const { name } of presets) {
    test(`${name}: each point equals the CLI's total at that batch`, () => {
      const batches = [1, 3, 50, 1000];
      const doc = { model: { preset: name }, workload: { mode: 'train', memory_gib: 16 } };
      const sweep = JSON.parse(engine.sweepBatch(started(doc), JSON.stringify(batches)));
      assert.equal(sweep.points.length, batches.length);
      for (const [i, batch] of batches.entries()) {
        const cli = cliEstimate({ ...doc, workload: { ...doc.workload, batch } }).json;
        assert.equal(sweep.points[i].batch, batch);
        assert.equal(sweep.points[i].total, cli.memory.total);
        assert.equal(sweep.points[i].fits, cli.memory.total <= cli.workload.memory_bytes);
        assert.equal(sweep.max_batch, cli.memory_fit.max_batch);
        assert.equal(sweep.points[i].fits, cli.memory_fit.fits);
      }
    });
  }
});

describe('the page\'s wrapper (web/js/dlcost.js)', () => {
  test('returns values and throws DlcostError with code and path', async () => {
    const dist = join(ROOT, 'dist', 'js', 'dlcost.js');
    readFileSync(dist);  // built by scripts/build-web
    const { default: api, DlcostError, ready } = await import(dist);
    await ready();
    const report = api.estimate({ model: { preset: presets[0].name } });
    assert.equal(report.schema, 'dlcost.report/2');
    assert.deepEqual(api.presets(), presets);
    assert.deepEqual(api.gpus(), JSON.parse(typeof engine.gpus === 'function' ? engine.gpus() : '[]'));
    assert.throws(() => api.estimate({ model: { preset: 'alexnet' }, workload: { batch: -1 } }),
      (e) => e instanceof DlcostError && e.code === 'value' && e.path === '/workload/batch' && e.message.length > 0);
    assert.throws(() => api.sweepBatch({ model: { preset: 'alexnet' } }, []),
      (e) => e instanceof DlcostError && e.path === '/batches');
  });
});

describe('the two engine modules (wasm/CMakeLists.txt)', () => {
  const BINDINGS = (file) => [...readFileSync(join(ROOT, 'wasm', file), 'utf8')
    .matchAll(/emscripten::function\("(\w+)"/g)].map((m) => m[1]);

  test('each module has exactly its bindings file\'s calls, and the two share none but exceptionMessage', async () => {
    const { MODULES } = await import('./engine_modules.mjs');
    const [first, second] = await Promise.all(MODULES.map(async (p) => (await import(p)).default()));
    const core = BINDINGS('bindings_core.cpp');
    const extra = BINDINGS('bindings.cpp');
    assert.ok(core.includes('estimateWithSweep') && extra.includes('explain'));
    for (const name of core) assert.equal(typeof first[name], 'function', `dlcost_wasm.${name}`);
    for (const name of extra) assert.equal(typeof second[name], 'function', `dlcost_extra.${name}`);
    for (const name of extra.filter((n) => n !== 'exceptionMessage')) {
      assert.equal(first[name], undefined, `${name} is not in the first module`);
    }
  });

  test('the page\'s wrapper routes the second module\'s calls to it and names loadExtra until it is loaded', async () => {
    const dist = join(ROOT, 'dist', 'js', 'dlcost.js');
    readFileSync(dist);  // built by scripts/build-web
    const wrapper = await import(dist);
    await wrapper.ready();
    const extra = BINDINGS('bindings.cpp').filter((n) => n !== 'exceptionMessage');
    const source = readFileSync(join(ROOT, 'web', 'js', 'dlcost.js'), 'utf8');
    const listed = source.match(/const EXTRA = new Set\(\[([^\]]*)\]/)[1];
    for (const name of extra) assert.ok(listed.includes(`'${name}'`), `EXTRA names ${name}`);
    const doc = { model: { preset: presets[0].name }, workload: { mode: 'train', batch: 8, gpu: 'a100-sxm4-80gb' } };
    if (!wrapper.extraLoaded()) assert.throws(() => wrapper.default.compare(doc), /loadExtra/);
    await wrapper.loadExtra();
    assert.ok(wrapper.extraLoaded());
    assert.deepEqual(wrapper.default.compare(doc), JSON.parse(engine.compare(JSON.stringify(doc), 'samples_per_s')));
  });
});

// Your own run beside the prediction (#28 item 3) through the wasm module: the result equals
// the native CLI's `dlcost timeline FILE --measured SNAPSHOT --json` for the fixture snapshots
// (tests/measured/make_snapshots.py: written from the format, not recorded on a GPU), and a bad
// snapshot gives the CLI's error: the same code and message, the field under "/measured" where
// the CLI names "--measured FILE".

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, runCli, WASM_MODULE } from './native_cli.mjs';

const SNAPSHOTS = join(ROOT, 'tests', 'fixtures', 'memory-snapshots');
const DOC = { model: { preset: 'resnet18' }, workload: { batch: 8 } };

let engine;
let dir;
let docFile;
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
  dir = mkdtempSync(join(tmpdir(), 'dlcost-measured-'));
  docFile = join(dir, 'doc.json');
  writeFileSync(docFile, JSON.stringify(DOC));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The wasm call as the page makes it: the size first, then the bytes it asks for. */
function wasmMeasured(bytes, device = -1) {
  const doc = engine.startingDocument(JSON.stringify(DOC));
  const first = JSON.parse(engine.measuredTimeline(doc, new Uint8Array(0), bytes.length, device));
  if (first.error) return first;
  assert.deepEqual(first, { need_bytes: bytes.length });
  return JSON.parse(engine.measuredTimeline(doc, bytes, bytes.length, device));
}

const cliMeasured = (file, ...extra) => runCli(['timeline', docFile, '--measured', file, ...extra, '--json']);

for (const name of ['train_step', 'segments_only', 'two_devices']) {
  test(`${name}.pickle: the wasm result equals the CLI's JSON`, () => {
    const file = join(SNAPSHOTS, `${name}.pickle`);
    const cli = cliMeasured(file);
    assert.equal(cli.status, 0, cli.stderr);
    const wasm = wasmMeasured(new Uint8Array(readFileSync(file)));
    assert.deepEqual(wasm, cli.json);
    assert.equal(wasm.comparison.measured_peak_bytes, wasm.measured.peak.bytes);
  });
}

test('two_devices.pickle --device 0: the device asked for, as the CLI reads it', () => {
  const file = join(SNAPSHOTS, 'two_devices.pickle');
  const cli = cliMeasured(file, '--device', '0');
  assert.equal(cli.status, 0, cli.stderr);
  const wasm = wasmMeasured(new Uint8Array(readFileSync(file)), 0);
  assert.deepEqual(wasm, cli.json);
  assert.equal(wasm.measured.device, 0);
});

/** The wasm error and the CLI's for the same bytes. */
function sameError(file, bytes, device = -1) {
  const cli = device < 0 ? cliMeasured(file) : cliMeasured(file, '--device', String(device));
  assert.equal(cli.status, 2, cli.stderr);
  const wasm = wasmMeasured(bytes, device);
  assert.ok(wasm.error, JSON.stringify(wasm));
  assert.equal(wasm.error.code, cli.json.error.code);
  assert.equal(wasm.error.message, cli.json.error.message);
  const cliField = cli.json.error.path.slice(`--measured ${file}`.length).trim();
  assert.equal(wasm.error.path, `/measured${cliField}`);
  return wasm.error;
}

test('a truncated snapshot: the CLI error', () => {
  const bytes = readFileSync(join(SNAPSHOTS, 'train_step.pickle')).subarray(0, 700);
  const file = join(dir, 'cut.pickle');
  writeFileSync(file, bytes);
  assert.match(sameError(file, new Uint8Array(bytes)).message, /truncated/);
});

test('a pickle of protocol 1: the CLI error', () => {
  const bytes = new Uint8Array([0x80, 0x01, 0x4e, 0x2e]); // PROTO 1, NONE, STOP
  const file = join(dir, 'proto1.pickle');
  writeFileSync(file, bytes);
  assert.equal(sameError(file, bytes).code, 'parse');
});

test('a bad field: the CLI error, named by its path', () => {
  const file = join(SNAPSHOTS, 'negative_size.pickle');
  const error = sameError(file, new Uint8Array(readFileSync(file)));
  assert.equal(error.path, '/measured/device_traces/0/0/size');
});

test('a device the snapshot lacks: the CLI error', () => {
  const file = join(SNAPSHOTS, 'two_devices.pickle');
  sameError(file, new Uint8Array(readFileSync(file)), 3);
});

test('a file past the limit is refused from its size alone, as the CLI refuses it', () => {
  const file = join(dir, 'huge.pickle');
  writeFileSync(file, '');
  const size = 300 * 2 ** 20;
  truncateSync(file, size); // sparse: no 300 MiB written
  const cli = cliMeasured(file);
  assert.equal(cli.status, 2, cli.stderr);
  const doc = engine.startingDocument(JSON.stringify(DOC));
  const wasm = JSON.parse(engine.measuredTimeline(doc, new Uint8Array(0), size, -1));
  assert.equal(wasm.error.code, 'too_large');
  assert.equal(wasm.error.path, '/measured');
  assert.equal(wasm.error.message, cli.json.error.message);
  assert.ok(wasm.error.message_zh);
});

// The page's number formatter (web/js/units.js) prints what the engine's (core/src/units.cpp)
// prints: the unit tables and the decimals of a figure scaled to a prefix are the engine's
// (numberUnits, dlcost::numberUnitsJson), so the CLI's text and the page agree figure for
// figure and units.js writes neither again.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { CLI, ROOT, runCli, WASM_MODULE } from './native_cli.mjs';
import { fixedAsPrintf, formatBytes, formatCount, setNumberUnits } from '../../web/js/units.js';

before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  const engine = await createDlcostModule();
  setNumberUnits(JSON.parse(engine.numberUnits()));
});

/** The CLI's text report. */
function cliText(args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe("the page's formatter and the CLI's", () => {
  // Scaled figures: two decimals, one from 100 up (tests/test_workload_schema.cpp, [units]).
  test('print the same texts at the edge of the decimals rule', () => {
    assert.equal(formatBytes(99 * 2 ** 20, 'GiB'), '99.00 MiB');
    assert.equal(formatBytes(100 * 2 ** 20, 'GiB'), '100.0 MiB');
    assert.equal(formatBytes(1536, 'GiB'), '1.50 KiB');
    assert.equal(formatBytes(1536, 'GB'), '1.54 kB');
    assert.equal(formatBytes(512, 'GiB'), '512 B');
    assert.equal(formatCount(99994999), '99.99 M');
    assert.equal(formatCount(100049999), '100.0 M');
  });

  for (const [preset, units, flag] of [
    ['resnet50', 'GiB', 'binary'],
    ['densenet169', 'GB', 'decimal'],
    ['vgg11', 'GiB', 'binary'],
  ]) {
    test(`print every layer's activations of ${preset} alike (${units})`, () => {
      const args = ['estimate', '--preset', preset, '--units', flag];
      const report = runCli([...args, '--json']).json;
      const lines = cliText(args).split('\n');
      const header = lines.findIndex((l) => l.startsWith('layer '));
      assert.ok(header > 0);
      let compared = 0;
      report.layers.forEach((layer, i) => {
        const line = lines[header + 1 + i].trimEnd();
        assert.ok(line.startsWith(`${layer.name} `), line);
        assert.ok(line.endsWith(` ${formatBytes(layer.activation_bytes, units)}`), line);
        compared += 1;
      });
      assert.equal(compared, report.layers.length);
      const text = lines.join('\n');
      assert.ok(text.includes(`(${formatCount(report.params.total)})`));
      assert.ok(text.includes(`(${formatCount(report.macs.forward)}MACs`));
    });
  }

  // vgg11's features.3 is 6,422,528 B = 6.125 MiB exactly: printf (the CLI) "6.12", toFixed "6.13".
  test('round a value exactly halfway to the even digit, as C printf does', () => {
    assert.equal(formatBytes(6422528, 'GiB'), '6.12 MiB');
    assert.equal(fixedAsPrintf(0.375, 2), '0.38');
    assert.equal(fixedAsPrintf(100.25, 1), '100.2');
    assert.equal(fixedAsPrintf(2.5, 0), '2');
    // Against the C library's printf itself (coreutils printf, glibc), on values halfway
    // exactly (k / 2^j), near halfway and arbitrary, at the decimals the engine uses.
    const values = [];
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 400; i += 1) {
      values.push(Math.floor(random() * 2 ** 20) / 2 ** (1 + Math.floor(random() * 12)));
      values.push(Math.round(random() * 1e6) / 1e3 + 0.0005);
      values.push(random() * 10 ** Math.floor(random() * 6));
    }
    for (const decimals of [0, 1, 2]) {
      const r = spawnSync('printf', [`%.${decimals}f\\n`, ...values.map((v) => v.toPrecision(17))], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      const expected = r.stdout.trimEnd().split('\n');
      values.forEach((v, i) => assert.equal(fixedAsPrintf(v, decimals), expected[i], `${v} to ${decimals} decimals`));
    }
  });

  test('units.js holds no decimals or thresholds of its own for scaled figures', () => {
    const code = readFileSync(join(ROOT, 'web', 'js', 'units.js'), 'utf8');
    assert.doesNotMatch(code, /\.to(?:Fixed|Precision)\(\s*\d/);
    const scaled = code.slice(code.indexOf('function scaledDigits'), code.indexOf('function scaled('));
    assert.ok(scaled.length > 0);
    assert.doesNotMatch(scaled.replace(/\/\*\*[\s\S]*?\*\//g, ''), /\d/);
  });
});

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
import { formatBytes, formatCount, setNumberUnits } from '../../web/js/units.js';

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

/** Whether `bytes` scaled to its prefix lies exactly halfway between two shown values
 *  (vgg11's features.3: 6,422,528 B = 6.125 MiB). There the two round apart: C's printf to
 *  the even digit ("6.12 MiB"), JavaScript's toFixed away from zero ("6.13 MiB"); left out of
 *  the comparison, a difference of the rounding rule's, not of the decimals the engine sets.
 *  @param {number} bytes @param {string} units */
function exactTie(bytes, units) {
  const text = formatBytes(bytes, units);
  const decimals = text.split(' ')[0].split('.')[1]?.length ?? 0;
  const step = units === 'GB' ? 1000 : 1024;
  let v = bytes;
  while (v >= step) v /= step;
  return decimals > 0 && (v * 10 ** decimals) % 1 === 0.5;
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
        if (exactTie(layer.activation_bytes, units)) return;
        assert.ok(line.endsWith(` ${formatBytes(layer.activation_bytes, units)}`), line);
        compared += 1;
      });
      assert.ok(compared > report.layers.length / 2);
      const text = lines.join('\n');
      assert.ok(text.includes(`(${formatCount(report.params.total)})`));
      assert.ok(text.includes(`(${formatCount(report.macs.forward)}MACs`));
    });
  }

  test('units.js holds no decimals or thresholds of its own for scaled figures', () => {
    const code = readFileSync(join(ROOT, 'web', 'js', 'units.js'), 'utf8');
    assert.doesNotMatch(code, /\.to(?:Fixed|Precision)\(\s*\d/);
    const scaled = code.slice(code.indexOf('function scaledDigits'), code.indexOf('function scaled('));
    assert.ok(scaled.length > 0);
    assert.doesNotMatch(scaled.replace(/\/\*\*[\s\S]*?\*\//g, ''), /\d/);
  });
});

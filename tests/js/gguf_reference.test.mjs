// dlcost's GGUF reader against a well-kept reference parser, @huggingface/gguf (npm), on
// files generated with known contents (tests/model_files/make_model_files.py): the same
// metadata, tensors, shapes, types, offsets and parameter count, and bytes per tensor equal
// to the package's bits per weight for each ggml type.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gguf, GGMLQuantizationType } from '@huggingface/gguf';

import { ROOT, runCli } from './native_cli.mjs';

/** The package's GGML_QUANT_SIZES (bits per weight by type), which it does not export. */
async function quantSizes() {
  const dist = join(ROOT, 'node_modules', '@huggingface', 'gguf', 'dist');
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.mjs'))) {
    if (!readFileSync(join(dist, file), 'utf8').includes('GGML_QUANT_SIZES,')) continue;
    const mod = await import(pathToFileURL(join(dist, file)).href);
    if (mod.GGML_QUANT_SIZES) return mod.GGML_QUANT_SIZES;
  }
  throw new Error('GGML_QUANT_SIZES not found in @huggingface/gguf/dist');
}

/** A metadata value as dlcost writes it: numbers, long arrays as {array_of, length}. */
function expected(value, key) {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) {
    if (value.length > 16) return { length: value.length };
    return value.map((v) => expected(v, key));
  }
  return value;
}

const dir = mkdtempSync(join(tmpdir(), 'dlcost-gguf-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const made = spawnSync('python3', [join(ROOT, 'tests', 'model_files', 'make_model_files.py'), dir]);
assert.equal(made.status, 0, String(made.stderr));

for (const name of ['tiny-llama-q4km.gguf', 'tiny-moe.gguf']) {
  test(`${name}: dlcost inspect agrees with @huggingface/gguf`, async () => {
    const file = join(dir, name);
    const ref = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
    const ours = runCli(['inspect', file, '--json']);
    assert.equal(ours.status, 0, ours.stderr);
    const s = ours.json;
    assert.equal(s.parameters, ref.parameterCount);
    assert.equal(s.gguf.version, ref.metadata.version);
    assert.equal(s.gguf.data_offset, Number(ref.tensorDataOffset));
    assert.equal(s.tensor_count, ref.tensorInfos.length);

    for (const [key, value] of Object.entries(ref.metadata)) {
      if (['version', 'tensor_count', 'kv_count'].includes(key)) continue;
      const want = expected(value, key);
      const got = s.gguf.metadata[key];
      if (want && typeof want === 'object' && 'length' in want && !Array.isArray(want)) {
        assert.equal(got.length, want.length, key);
      } else {
        assert.deepEqual(got, want, key);
      }
    }

    const bits = await quantSizes();
    ref.tensorInfos.forEach((t, i) => {
      const mine = s.tensors[i];
      assert.equal(mine.name, t.name);
      assert.deepEqual(mine.shape, t.shape.map(Number), t.name);
      assert.equal(mine.dtype, GGMLQuantizationType[t.dtype], t.name);
      assert.equal(mine.offset, Number(t.offset), t.name);
      assert.equal(mine.bytes, (mine.parameters * bits[t.dtype]) / 8, t.name);
    });
    for (const row of s.by_dtype) {
      assert.equal(row.bits_per_weight, bits[GGMLQuantizationType[row.dtype]], row.dtype);
    }
  });
}

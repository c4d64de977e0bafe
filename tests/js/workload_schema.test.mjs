// The workload schema is one table: the wasm module exports what `dlcost schema --json`
// prints, the page's form offers exactly the schema's values, and text typed into the page is
// read as the CLI reads the same text given as a flag.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { runCli, WASM_MODULE } from './native_cli.mjs';
import { controlKind, formFields, selectValues, setSchema } from '../../web/js/llm_fields.js';

let engine;
let schema;
const call = (name, ...args) => JSON.parse(engine[name](...args));

before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
  schema = call('workloadSchema');
  setSchema(schema);
});

describe('the workload schema', () => {
  test('the wasm module exports what `dlcost schema --json` prints', () => {
    const cli = runCli(['schema', '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(schema, cli.json);
  });

  test('the form offers every value of every enum field, adam8bit included', () => {
    const enums = formFields().filter((f) => f.type === 'enum');
    assert.ok(enums.length >= 8);
    for (const f of enums) {
      assert.equal(controlKind(f), 'select', f.key);
      assert.deepEqual(selectValues(f), f.values.map((v) => v.name), f.key);
    }
    const optimizer = formFields().find((f) => f.key === 'optimizer');
    assert.ok(selectValues(optimizer).includes('adam8bit'));
    // Small integer ranges are menus of every value in the range.
    const zero = formFields().find((f) => f.key === 'zero');
    assert.deepEqual(selectValues(zero), ['0', '1', '2', '3']);
  });

  test('the form renders every field of the schema except the GPU picker\'s', () => {
    const rendered = new Set(formFields().map((f) => f.key));
    for (const f of schema.fields) {
      assert.equal(rendered.has(f.key), !['gpu', 'memory_gib', 'memory_bytes'].includes(f.key), f.key);
    }
  });

  // The same text as a CLI flag and as a page field: the same workload value, or the same error.
  const TEXTS = [
    ['batch', '1e3'], ['batch', '2.0'], ['batch', ' 4 '], ['batch', '2.5'], ['batch', 'many'],
    ['batch', '0x10'], ['overhead_bytes', '1.5GiB'], ['overhead_bytes', '-2'], ['optimizer', 'adam8bit'],
    ['optimizer', 'lion'], ['utilization', '.5'], ['fragmentation', '0.5'],
  ];
  for (const [key, text] of TEXTS) {
    test(`"${text}" for ${key} reads the same on the page as on the command line`, () => {
      const flag = schema.fields.find((f) => f.key === key).flag;
      const args = ['estimate', '--preset', 'mlp_mnist', flag, text, '--json'];
      if (key === 'utilization' || key === 'fragmentation') args.push('--gpu', 'a10');
      const cli = runCli(args);
      const page = call('workloadFromText', JSON.stringify({ fields: { [key]: text }, byte_unit: 'B' }));
      if (cli.status === 0) {
        const resolved = cli.json.workload[key];
        assert.equal(page.error, undefined, JSON.stringify(page.error));
        assert.deepEqual(page[key], resolved);
      } else {
        assert.equal(cli.status, 2);
        assert.equal(page.error.path, `/workload/${key}`);
        assert.equal(page.error.message, cli.json.error.message);
        assert.equal(cli.json.error.path, flag);
      }
    });
  }
});

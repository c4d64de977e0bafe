// "Compare with your run" in "Memory over the step" (#28 item 3): a PyTorch memory snapshot
// picked or dropped, read in the page (no request carries it), drawn over the prediction with
// both peaks and their difference and the engine's list of what it does not model; a bad file
// shows the engine's message and field beside the control; Remove clears the overlay. In
// English and Chinese, at 1366 and 390 px; screenshots go to /tmp/page-shots/measured-*.png.
// The snapshots are tests/measured/make_snapshots.py's: written from the format, not recorded.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openPage, ROOT, sessionPerFile } from './harness.mjs';

const T = { timeout: 120000 };
const session = sessionPerFile(T.timeout);
const SHOTS = '/tmp/page-shots';
mkdirSync(SHOTS, { recursive: true });
const SNAPSHOTS = join(ROOT, 'tests', 'fixtures', 'memory-snapshots');

/** Drops `bytes` as a file named `name` on the control, as a drag from the desktop does. */
async function dropFile(page, name, bytes) {
  await page.evaluate(
    ([fileName, data]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], fileName));
      const box = document.getElementById('tm-box');
      box.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      box.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    [name, [...bytes]],
  );
}

describe('your own run beside the prediction', () => {
  for (const [device, viewport] of [
    ['desktop', { width: 1366, height: 768 }],
    ['phone', { width: 390, height: 844 }],
  ]) {
    test(`resnet18 with train_step.pickle: both peaks, the curve, a bad file, remove (${device})`, T, async () => {
      const { page, problems } = await openPage(session, { viewport });
      const sent = [];
      page.on('request', (r) => r.method() !== 'GET' && sent.push(`${r.method()} ${r.url()}`));
      try {
        await page.selectOption('#preset', 'resnet18');
        await page.fill('#wl-batch', '8');
        await page.click('#timeline-box > summary');
        await page.locator('#tm-file').waitFor();
        assert.equal(await page.locator('#tm-curve').count(), 0);

        // Picked: the engine's figures (make_snapshots.py: active peak 27 MiB - 512 B).
        await page.setInputFiles('#tm-file', join(SNAPSHOTS, 'train_step.pickle'));
        await page.locator('#tm-measured-peak').waitFor();
        assert.equal(await page.textContent('#tm-measured-peak'), 'Measured peak (active memory): 27.00 MiB');
        const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
        const predicted = await page.textContent('#tm-predicted-peak');
        const mib = Number(/: ([\d.]+) MiB$/.exec(predicted)?.[1]);
        assert.ok(Math.abs(mib - report.memory.total / 2 ** 20) < 0.1, `${predicted} vs ${report.memory.total} B`);
        assert.match(
          await page.textContent('#tm-difference'),
          /^Difference, measured − predicted: [+−][\d.]+ MiB \([+−][\d.]+%\)$/,
        );
        assert.match(await page.getAttribute('#tm-curve', 'd'), /^M[\d.]+,[\d.]+H/);
        assert.match(await page.textContent('#tm-axes'), /trace events, stretched to the same width/);
        assert.match(await page.textContent('#tm-not-modelled li[data-id="allocator_cache"]'), /caching allocator/);
        assert.match(await page.textContent('#tm-status'), /^train_step\.pickle: device 0, \d+ trace events$/);
        await page.evaluate(() =>
          document.querySelector('#timeline-box .tl-chart').scrollIntoView({ block: 'center' }),
        );
        await page.screenshot({ path: `${SHOTS}/measured-${device}-en.png`, fullPage: false });
        await page.locator('#tm-box').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/measured-${device}-en-summary.png` });

        // Dropped, cut short: the engine's message with its field; the prediction stays drawn.
        const cut = readFileSync(join(SNAPSHOTS, 'train_step.pickle')).subarray(0, 700);
        await dropFile(page, 'cut.pickle', cut);
        await page.locator('#tm-error').waitFor();
        assert.match(
          await page.textContent('#tm-error'),
          /^cut\.pickle: memory snapshot: .*truncated.* \(at \/measured\)$/,
        );
        assert.equal(await page.locator('#tm-curve').count(), 0);
        assert.equal(await page.locator('#tl-peak').count(), 1);
        await page.locator('#tm-box').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/measured-${device}-error-en.png` });

        // A bad field is named by its path.
        await page.setInputFiles('#tm-file', join(SNAPSHOTS, 'negative_size.pickle'));
        await page.locator('#tm-error', { hasText: 'negative_size' }).waitFor();
        assert.match(await page.textContent('#tm-error'), /\(at \/measured\/device_traces\/0\/0\/size\)$/);

        // Dropped, good: then Chinese, the engine's own Chinese for what is not modelled.
        await dropFile(page, 'train_step.pickle', readFileSync(join(SNAPSHOTS, 'train_step.pickle')));
        await page.locator('#tm-measured-peak').waitFor();
        await page.selectOption('#lang', 'zh');
        await page.locator('#tm-measured-peak', { hasText: '实测峰值' }).waitFor();
        assert.equal(await page.textContent('#tm-measured-peak'), '实测峰值（活跃显存）：27.00 MiB');
        assert.match(await page.textContent('#tm-difference'), /^差值（实测 − 预测）：/);
        assert.match(await page.textContent('#tm-not-modelled li[data-id="cuda_context"]'), /CUDA 上下文/);
        assert.match(await page.textContent('#tm-remove'), /^移除$/);
        assert.equal(await page.textContent('#tm-pick'), '选择快照…');
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `document ${width} px wide`);
        await page.evaluate(() =>
          document.querySelector('#timeline-box .tl-chart').scrollIntoView({ block: 'center' }),
        );
        await page.screenshot({ path: `${SHOTS}/measured-${device}-zh.png` });
        await page.locator('#tm-box').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/measured-${device}-zh-summary.png` });

        // A new question keeps the snapshot: the prediction changes, the measured peak does not.
        const before = await page.textContent('#tm-predicted-peak');
        await page.fill('#wl-batch', '16');
        await page.locator('#tm-predicted-peak', { hasNotText: before }).waitFor();
        assert.equal(await page.textContent('#tm-measured-peak'), '实测峰值（活跃显存）：27.00 MiB');

        // A snapshot of two GPUs: the engine's pick (the device with the trace), then the other.
        await page.setInputFiles('#tm-file', join(SNAPSHOTS, 'two_devices.pickle'));
        await page.locator('#tm-device').waitFor();
        assert.equal(await page.inputValue('#tm-device'), '1');
        await page.selectOption('#tm-device', '0');
        await page.locator('#tm-status', { hasText: '设备 0（' }).waitFor();
        assert.match(
          await page.textContent('#tm-status'),
          /^two_devices\.pickle：设备 0（快照中的设备：0, 1），0 个跟踪事件$/,
        );

        // Remove clears the overlay.
        await page.click('#tm-remove');
        await page.locator('#tm-curve').waitFor({ state: 'detached' });
        assert.equal(await page.locator('#tm-measured-peak').count(), 0);
        assert.equal(await page.locator('#tm-remove').count(), 0);
        assert.deepEqual(sent, [], 'no request sends anything');
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }
});

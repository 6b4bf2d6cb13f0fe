import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { waitUntil } from '../../test/helpers/eventually.ts';
import { BatchedLineWriter } from './batched-line-writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'line-writer-'));
const open: number[] = [];
after(() => {
  for (const fd of open) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

function logFile(name: string): { fd: number; text: () => string } {
  const path = join(dir, name);
  const fd = openSync(path, 'a');
  open.push(fd);
  return { fd, text: () => readFileSync(path, 'utf8') };
}

const flushed = (writer: BatchedLineWriter) => new Promise<void>((resolve) => writer.flush(() => resolve()));

const NEVER = 60_000;

describe('BatchedLineWriter', () => {
  it('holds short lines until flushed, then writes them all in order', async () => {
    const file = logFile('flush.log');
    const writer = new BatchedLineWriter(file.fd, {
      batchChars: 1e6,
      maxDelayMs: NEVER,
      maxQueuedChars: 1e7,
    });
    for (let n = 0; n < 100; n += 1) writer.write(`line ${n} é\n`);
    await sleep(20);
    assert.equal(file.text(), '');
    await flushed(writer);
    assert.equal(file.text(), Array.from({ length: 100 }, (_, n) => `line ${n} é\n`).join(''));
    writer.flushSync();
  });

  it('writes a batch once it holds batchChars, without a flush', async () => {
    const file = logFile('batch.log');
    const writer = new BatchedLineWriter(file.fd, {
      batchChars: 100,
      maxDelayMs: NEVER,
      maxQueuedChars: 1e7,
    });
    writer.write(`${'a'.repeat(60)}\n`);
    await sleep(20);
    assert.equal(file.text(), '');
    writer.write(`${'b'.repeat(60)}\n`);
    await waitUntil(async () => file.text().length === 122, 'the batch written');
    writer.flushSync();
  });

  it('writes a lone line after maxDelayMs', async () => {
    const file = logFile('delay.log');
    const writer = new BatchedLineWriter(file.fd, { batchChars: 1e6, maxDelayMs: 30, maxQueuedChars: 1e7 });
    writer.write('alone\n');
    await waitUntil(async () => file.text() === 'alone\n', 'the lone line written');
    writer.write('again\n');
    await waitUntil(async () => file.text() === 'alone\nagain\n', 'the next line written');
    writer.flushSync();
  });

  it('keeps every line written while a write is in flight', async () => {
    const file = logFile('in-flight.log');
    const writer = new BatchedLineWriter(file.fd, { batchChars: 50, maxDelayMs: 10, maxQueuedChars: 1e7 });
    const lines = Array.from({ length: 2000 }, (_, n) => `${JSON.stringify({ n })}\n`);
    for (const line of lines) writer.write(line);
    await flushed(writer);
    assert.equal(file.text(), lines.join(''));
    writer.flushSync();
  });

  it('writes every line once, in order, whatever their sizes and characters, the batches and the writes in flight', async () => {
    const line = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('é'.repeat(300), '🙂'.repeat(100), 'x'.repeat(700)),
    );
    const step = fc.oneof(
      { weight: 8, arbitrary: line.map((text) => ({ write: `${text}\n` })) },
      { weight: 1, arbitrary: fc.constant({ flush: true as const }) },
      { weight: 1, arbitrary: fc.constant({ tick: true as const }) },
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 120 }),
        fc.integer({ min: 8, max: 400 }),
        async (steps, batchChars) => {
          const file = logFile(`property-${run++}.log`);
          const writer = new BatchedLineWriter(file.fd, { batchChars, maxDelayMs: 1, maxQueuedChars: 1e7 });
          const expected: string[] = [];
          for (const next of steps) {
            if ('write' in next) {
              writer.write(next.write);
              expected.push(next.write);
            } else if ('flush' in next) await flushed(writer);
            else await sleep(0);
          }
          await flushed(writer);
          writer.flushSync();
          assert.equal(file.text(), Buffer.from(expected.join('')).toString());
        },
      ),
      { numRuns: 60 },
    );
  });

  it('drops lines past maxQueuedChars and says how many once it writes again', async () => {
    const file = logFile('dropped.log');
    const writer = new BatchedLineWriter(file.fd, {
      batchChars: 1e6,
      maxDelayMs: NEVER,
      maxQueuedChars: 100,
    });
    for (let n = 0; n < 10; n += 1) writer.write(`${String(n).repeat(29)}\n`);
    await flushed(writer);
    const [warning, ...rest] = file.text().trimEnd().split('\n');
    assert.deepEqual(
      { ...JSON.parse(warning), time: undefined },
      {
        level: 'warn',
        time: undefined,
        pid: process.pid,
        dropped: 7,
        msg: 'log lines dropped: stdout did not keep up',
      },
    );
    assert.deepEqual(rest, ['0'.repeat(29), '1'.repeat(29), '2'.repeat(29)]);
    writer.flushSync();
  });

  it('drops lines without throwing once the descriptor fails, and flushes still finish', async () => {
    const path = join(dir, 'read-only.log');
    writeFileSync(path, '');
    const fd = openSync(path, 'r');
    open.push(fd);
    const writer = new BatchedLineWriter(fd, { batchChars: 1e6, maxDelayMs: NEVER, maxQueuedChars: 1e7 });
    writer.write('lost\n');
    await flushed(writer);
    assert.equal(writer.write('after\n'), true);
    await flushed(writer);
    writer.flushSync();
    assert.equal(readFileSync(path, 'utf8'), '');
  });

  it('writes what is queued when the process exits on its own', () => {
    const module = new URL('./batched-line-writer.ts', import.meta.url).href;
    const script = `import { BatchedLineWriter } from ${JSON.stringify(module)};
      const writer = new BatchedLineWriter(1, { batchChars: 40, maxDelayMs: 60000, maxQueuedChars: 1e7 });
      for (let n = 0; n < 50; n += 1) writer.write('exit line ' + n + '\\n');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, Array.from({ length: 50 }, (_, n) => `exit line ${n}\n`).join(''));
  });
});

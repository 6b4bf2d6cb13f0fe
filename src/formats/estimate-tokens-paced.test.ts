import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { estimateInputTokens, estimateInputTokensPaced, LARGE_INPUT_CHARS } from './estimate-tokens.ts';
import { SLICE_CHARS } from './token-counter.ts';

const PROSE = 'Pacing keeps the gateway answering while a long prompt is counted. ';

function chat(...contents: string[]) {
  return { model: 'm', messages: contents.map((content) => ({ role: 'user', content })) };
}

/** Turns of the event loop that ran while `work` was pending. */
async function turnsWhile<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work;
  done = true;
  return { value, turns };
}

describe('estimateInputTokensPaced', () => {
  test('a small input is counted at once: a number, equal to the estimate', () => {
    const body = chat('hello world', PROSE);
    const paced = estimateInputTokensPaced('chat.completions', body);
    assert.equal(typeof paced, 'number');
    assert.equal(paced, estimateInputTokens('chat.completions', body));
  });

  test('an input of more than one slice is a promise of the same count', async () => {
    const body = chat(PROSE.repeat(Math.ceil((3 * SLICE_CHARS) / PROSE.length)));
    const paced = estimateInputTokensPaced('chat.completions', body);
    assert.ok(paced instanceof Promise);
    assert.equal(await paced, estimateInputTokens('chat.completions', body));
  });

  test('regression: the exact count of 64 Ki characters held the main thread; other work runs between slices', async () => {
    const body = chat(PROSE.repeat(Math.ceil(65_536 / PROSE.length)));
    const { value, turns } = await turnsWhile(
      Promise.resolve(estimateInputTokensPaced('chat.completions', body)),
    );
    assert.equal(value, estimateInputTokens('chat.completions', body));
    // 64 Ki characters are 8 slices, with a turn between each two; the first slice is counted
    // before this loop's first turn is queued. Counted at once, it would see at most one.
    assert.ok(turns >= 65_536 / SLICE_CHARS - 2, `${turns} turns`);
  });

  test('many small texts are paced too, not only one long one', async () => {
    const body = chat(...Array.from({ length: 40 }, () => PROSE.repeat(30)));
    const { value, turns } = await turnsWhile(
      Promise.resolve(estimateInputTokensPaced('chat.completions', body)),
    );
    assert.equal(value, estimateInputTokens('chat.completions', body));
    assert.ok(turns >= 5, `${turns} turns`);
  });

  test('a large input is estimated from its characters at once, as before', () => {
    const body = chat('x'.repeat(LARGE_INPUT_CHARS + 1));
    const paced = estimateInputTokensPaced('chat.completions', body);
    assert.equal(typeof paced, 'number');
    assert.equal(paced, estimateInputTokens('chat.completions', body));
  });

  test('property: paced or not, every body gets the same estimate', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 50 }),
      fc
        .nat({ max: 30_000 })
        .map((length) => PROSE.repeat(Math.ceil(length / PROSE.length)).slice(0, length)),
    );
    const part = fc.oneof(text, fc.record({ type: fc.constant('text'), text }));
    const body = fc.record({
      model: fc.constant('m'),
      messages: fc.array(
        fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.array(part, { maxLength: 3 })) }),
        {
          maxLength: 4,
        },
      ),
      tools: fc.option(fc.array(fc.record({ type: fc.constant('function'), name: text }), { maxLength: 2 }), {
        nil: undefined,
      }),
    });
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        assert.equal(
          await estimateInputTokensPaced('chat.completions', value),
          estimateInputTokens('chat.completions', value),
        );
      }),
      { numRuns: 60 },
    );
  });
});

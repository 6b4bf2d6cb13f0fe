import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerJsonText } from './attempt-result.ts';

describe('answerJsonText', () => {
  const text = '{"model":"m","content":"é€𝄞"}';

  it('reads text, bytes and parts as the same JSON', () => {
    assert.equal(answerJsonText(text), text);
    assert.equal(answerJsonText(Buffer.from(text)), text);
  });

  it('decodes parts as their join: a character cut between two parts is read whole', () => {
    const bytes = Buffer.from(text);
    // Every cut, the 2-, 3- and 4-byte characters' inner bytes among them.
    for (let cut = 0; cut <= bytes.length; cut++) {
      const parts = [bytes.subarray(0, cut), bytes.subarray(cut)];
      assert.equal(answerJsonText(parts), text, `cut at byte ${cut}`);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withPublicModel } from './public-model.ts';

describe('public model names in answers', () => {
  it('replaces the top-level model of an answer and leaves text and model-less answers alone', () => {
    assert.deepEqual(withPublicModel({ id: 'x', model: 'gpt-4o-2024-08-06' }, 'gpt'), {
      id: 'x',
      model: 'gpt',
    });
    assert.deepEqual(withPublicModel({ created: 1, data: [] }, 'img'), { created: 1, data: [] });
    assert.equal(withPublicModel('a transcript', 'whisper'), 'a transcript');
  });
});

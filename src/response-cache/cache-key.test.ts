import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, responseCacheKey } from './cache-key.ts';

const body = (fields: Record<string, unknown>) => ({ model: 'gpt', ...fields });

describe('responseCacheKey', () => {
  it('is the same for the same body whatever the order of its keys, at every depth', () => {
    const a = body({ messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
    const b = { temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'gpt' };
    assert.equal(
      responseCacheKey('chat.completions', 'gpt', a),
      responseCacheKey('chat.completions', 'gpt', b),
    );
  });

  it('differs by operation, public model and any field that changes the answer', () => {
    const base = body({ input: 'x' });
    const key = responseCacheKey('embeddings', 'gpt', base);
    assert.notEqual(responseCacheKey('chat.completions', 'gpt', base), key);
    assert.notEqual(responseCacheKey('embeddings', 'gpt-b', base), key);
    assert.notEqual(responseCacheKey('embeddings', 'gpt', body({ input: 'y' })), key);
    assert.notEqual(responseCacheKey('embeddings', 'gpt', body({ input: ['x'] })), key);
    assert.notEqual(responseCacheKey('embeddings', 'gpt', body({ input: 'x', dimensions: 8 })), key);
  });

  it('keys on the client headers sent to the provider (anthropic-beta), whatever their order', () => {
    const request = body({ messages: [] });
    const key = responseCacheKey('messages', 'claude', request, { 'anthropic-version': '2023-06-01' });
    const beta = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-1m-2025-08-07' };
    assert.notEqual(responseCacheKey('messages', 'claude', request, beta), key);
    assert.notEqual(responseCacheKey('messages', 'claude', request), key);
    assert.equal(
      responseCacheKey('messages', 'claude', request, {
        'anthropic-beta': 'context-1m-2025-08-07',
        'anthropic-version': '2023-06-01',
      }),
      responseCacheKey('messages', 'claude', request, beta),
    );
  });

  it('leaves out stream, stream_options, user and metadata (top level only)', () => {
    const key = responseCacheKey('chat.completions', 'gpt', body({ messages: [] }));
    const extras = { stream: true, stream_options: { include_usage: true }, user: 'u', metadata: { a: 1 } };
    assert.equal(responseCacheKey('chat.completions', 'gpt', body({ messages: [], ...extras })), key);
    const nested = body({ messages: [{ role: 'user', content: 'x', metadata: 1 }] });
    const plain = body({ messages: [{ role: 'user', content: 'x' }] });
    assert.notEqual(
      responseCacheKey('chat.completions', 'gpt', nested),
      responseCacheKey('chat.completions', 'gpt', plain),
    );
  });

  it('is a digest: the body never appears in the key', () => {
    const key = responseCacheKey(
      'chat.completions',
      'gpt',
      body({ messages: [{ role: 'user', content: 'secret text' }] }),
    );
    assert.match(key, /^rc:v1:[A-Za-z0-9_-]{43}$/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys and drops what JSON.stringify drops', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [3, undefined, { d: null, c: 'x' }], u: undefined }),
      '{"a":[3,null,{"c":"x","d":null}],"b":1}',
    );
    assert.deepEqual(JSON.parse(canonicalJson({ z: 'é"\n', n: 1.5 })), { z: 'é"\n', n: 1.5 });
  });
});

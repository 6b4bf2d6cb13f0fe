import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import type { SseMessage } from '../providers/types.ts';
import { SseParser } from './sse-parser.ts';

/** Feeds `text` to a parser in chunks of `size` bytes and collects every event. */
function parseInChunks(parser: SseParser, text: string, size: number): SseMessage[] {
  const bytes = new TextEncoder().encode(text);
  const messages: SseMessage[] = [];
  for (let at = 0; at < bytes.length; at += size)
    messages.push(...parser.push(bytes.subarray(at, at + size)));
  messages.push(...parser.end());
  return messages;
}

describe('SseParser', () => {
  it('reads events split anywhere, CRLF and CR line ends, multi-line data and comments', () => {
    const text = ': hello\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: é\r\r\ndata: x\n\nid: 7\ndata: y';
    for (const size of [1, 2, 3, 5, 64]) {
      assert.deepEqual(
        parseInChunks(new SseParser(), text, size),
        [
          { event: 'a', data: '1\n2', id: undefined },
          { event: undefined, data: 'é', id: undefined },
          { event: undefined, data: 'x', id: undefined },
          { event: undefined, data: 'y', id: '7' },
        ],
        `chunks of ${size}`,
      );
    }
  });

  // Regression: the parser rescanned its whole buffer on every chunk, so a 16 MB line sent in
  // small pieces cost quadratic time (over 10 s of CPU for one line in 64 KiB chunks).
  it('parses a 16 MB line sent in 1 KiB chunks', () => {
    const payload = 'x'.repeat(16_000_000);
    const [message] = parseInChunks(new SseParser(), `data: ${payload}\n\n`, 1024);
    assert.equal(message.data.length, payload.length);
  });

  it('refuses a line longer than its bound with upstream_error, mid-line', () => {
    const parser = new SseParser(1000);
    assert.deepEqual(parser.push('data: short\n\n'), [{ event: undefined, data: 'short', id: undefined }]);
    assert.throws(
      () => parseInChunks(parser, `data: ${'y'.repeat(5000)}`, 100),
      (error) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });

  it('refuses an event whose data lines together pass the bound', () => {
    const parser = new SseParser(1000);
    const lines = Array.from({ length: 20 }, () => `data: ${'z'.repeat(99)}\n`).join('');
    assert.throws(
      () => parser.push(lines),
      (error) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });
});

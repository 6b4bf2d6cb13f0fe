import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endOfFirstEvent } from './first-event.ts';

/** The split point of `first + rest` when `first` is the first event. */
const endIn = (first: string, rest: string) => endOfFirstEvent(new TextEncoder().encode(first + rest));

describe('endOfFirstEvent', () => {
  it('ends after the first blank line, LF or CRLF', () => {
    assert.equal(endIn('data: {"a":1}\n\n', 'data: {"b":2}\n\n'), 15);
    assert.equal(endIn('event: ping\r\ndata: {}\r\n\r\n', 'data: x\r\n\r\n'), 25);
  });

  it('passes over single line ends inside an event', () => {
    assert.equal(endIn('event: message_start\ndata: {}\n\n', 'event: ping\n\n'), 31);
  });

  it('is the whole chunk when it holds one event or part of one', () => {
    assert.equal(endIn('data: {"a":1}\n\n', ''), 15);
    assert.equal(endIn('data: {"a":', ''), 11);
    assert.equal(endIn('data: {"a":1}\n', ''), 14);
    assert.equal(endIn('', ''), 0);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallSignal, delayUnlessAborted } from './call-signal.ts';

describe('CallSignal', () => {
  it('runs its listeners once, in order, when it aborts, with the reason set first', () => {
    const signal = new CallSignal();
    const seen: string[] = [];
    signal.addEventListener('abort', () => seen.push(`a:${String(signal.reason)}`));
    signal.addEventListener('abort', () => seen.push('b'));
    signal.abort('gone');
    signal.abort('again');
    assert.deepEqual(seen, ['a:gone', 'b']);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, 'gone');
  });

  it('does not run a listener removed before it aborts, and keeps the others', () => {
    const signal = new CallSignal();
    const seen: string[] = [];
    const removed = () => seen.push('removed');
    signal.addEventListener('abort', removed);
    signal.addEventListener('abort', () => seen.push('kept'));
    signal.removeEventListener('abort', removed);
    signal.abort();
    assert.deepEqual(seen, ['kept']);
  });

  it("aborts without a reason with the AbortError an AbortController's signal would carry", () => {
    const signal = new CallSignal();
    signal.abort();
    const reason = signal.reason as DOMException;
    assert.equal(reason.name, 'AbortError');
    assert.equal(signal.aborted, true);
  });

  it('never runs a listener added once it has aborted', () => {
    const signal = new CallSignal();
    signal.abort();
    let ran = false;
    signal.addEventListener('abort', () => {
      ran = true;
    });
    signal.abort();
    assert.equal(ran, false);
  });

  it('is what undici aborts a request by: a request to a server that never answers ends when it aborts', async () => {
    const { createServer } = await import('node:http');
    const { request } = await import('undici');
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const signal = new CallSignal();
    const pending = request(`http://127.0.0.1:${port}/`, { signal });
    setTimeout(() => signal.abort(new Error('client left')), 20);
    await assert.rejects(pending, /client left/);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('delayUnlessAborted', () => {
  it('resolves after the delay when the signal stays quiet, taking its listener off', async () => {
    const signal = new CallSignal();
    const listeners = new Set<() => void>();
    const watched = {
      get aborted() {
        return signal.aborted;
      },
      get reason() {
        return signal.reason;
      },
      addEventListener: (type: 'abort', listener: () => void) => {
        listeners.add(listener);
        signal.addEventListener(type, listener);
      },
      removeEventListener: (type: 'abort', listener: () => void) => {
        listeners.delete(listener);
        signal.removeEventListener(type, listener);
      },
    };
    const started = Date.now();
    await delayUnlessAborted(20, watched);
    assert.ok(Date.now() - started >= 15);
    assert.equal(listeners.size, 0);
  });

  it('rejects with the reason as soon as the signal aborts, and at once when it had', async () => {
    const signal = new CallSignal();
    const started = Date.now();
    const pending = delayUnlessAborted(60_000, signal);
    setTimeout(() => signal.abort(new Error('client left')), 10);
    await assert.rejects(pending, /client left/);
    assert.ok(Date.now() - started < 5_000);
    await assert.rejects(delayUnlessAborted(60_000, signal), /client left/);
  });

  it('takes an AbortSignal as well', async () => {
    const controller = new AbortController();
    const pending = delayUnlessAborted(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(pending, /stop/);
  });
});

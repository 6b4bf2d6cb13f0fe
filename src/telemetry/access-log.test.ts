import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../diagnostics/logger.ts';
import { type AccessLine, createAccessLog } from './access-log.ts';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger(level, sink) };
}

const LINE: AccessLine = {
  requestId: 'req-1',
  method: 'POST',
  url: '/v1/chat/completions',
  status: 200,
  ms: 1.5,
};

describe('access log', () => {
  it('writes one request completed line with the request id', () => {
    const { lines, logger } = capture();
    createAccessLog(logger)(LINE);
    assert.equal(lines.length, 1);
    const { time, pid, ...rest } = lines[0];
    assert.equal(typeof time, 'string');
    assert.equal(pid, process.pid);
    assert.deepEqual(rest, {
      level: 'info',
      service: 'switchyard',
      requestId: 'req-1',
      method: 'POST',
      url: '/v1/chat/completions',
      status: 200,
      ms: 1.5,
      msg: 'request completed',
    });
  });

  it('redacts the api_key query parameter', () => {
    const { lines, logger } = capture();
    createAccessLog(logger)({ ...LINE, url: '/v1/models?api_key=sk-secret-123&x=1' });
    assert.equal(lines[0].url, '/v1/models?api_key=%5Bredacted%5D&x=1');
  });

  it('logs only its own fields, so an object carrying more cannot leak it', () => {
    const { lines, logger } = capture();
    const carrying = { ...LINE, authorization: 'Bearer sk-secret-123', headers: { 'x-api-key': 'k' } };
    createAccessLog(logger)(carrying);
    assert.ok(!JSON.stringify(lines).includes('sk-secret-123'));
    assert.ok(!('headers' in lines[0]));
  });

  it('writes nothing above info', () => {
    const { lines, logger } = capture('warn');
    createAccessLog(logger)(LINE);
    assert.deepEqual(lines, []);
  });
});

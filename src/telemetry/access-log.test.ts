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

  it('writes the text pino writes for the same fields, escapes and all, but its time', () => {
    const raw: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        raw.push(String(chunk).replace(/"time":"[^"]*"/, '"time":"T"'));
        done();
      },
    });
    const logger = createLogger('info', sink);
    const line = { ...LINE, requestId: 'req-"1\\é', url: '/v1/x?q=%22a', ms: 12.345678901 };
    createAccessLog(logger)(line);
    logger.info({ ...line }, 'request completed');
    assert.equal(raw.length, 2);
    assert.equal(raw[0], raw[1]);
  });

  it('writes a time that is not a finite number as null, as pino does', () => {
    const { lines, logger } = capture();
    createAccessLog(logger)({ ...LINE, ms: Number.NaN });
    assert.equal(lines[0].ms, null);
  });

  it('goes through the pretty format when the logger has it', () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    createAccessLog(createLogger('info', sink, 'pretty'))(LINE);
    assert.equal(written.length, 1);
    assert.ok(written[0].includes('request completed') && written[0].includes('req-1'), written[0]);
    assert.throws(() => JSON.parse(written[0]));
  });
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify, { LogController } from 'fastify';
import { createLogger, type Logger } from '../diagnostics/logger.ts';
import { DeferredRequestLogger, deferRequestLoggers } from './request-logger.ts';

function capture(level = 'info'): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
  children: () => number;
} {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  const logger = createLogger(level, sink);
  let children = 0;
  const child = logger.child;
  // pino children inherit from their parent object, so this counts children of children too.
  logger.child = function (this: Logger, ...args: Parameters<Logger['child']>) {
    children += 1;
    return child.apply(this, args);
  } as Logger['child'];
  return { logger, lines: () => written.map((line) => JSON.parse(line)), children: () => children };
}

describe('DeferredRequestLogger', () => {
  it('makes no pino child until something logs', () => {
    const { logger, children } = capture();
    const request = new DeferredRequestLogger(logger, { requestId: 'req_1' }, {});
    assert.equal(request.level, 'info');
    assert.equal(children(), 0);
  });

  it('logs with the bindings, the parent level and the redaction of the parent', () => {
    const { logger, lines, children } = capture('warn');
    const request = new DeferredRequestLogger(logger, { requestId: 'req_2' }, {});
    request.info('below the level');
    request.warn({ code: 'upstream_error', headers: { authorization: 'Bearer sk-secret' } }, 'call failed');
    request.error(new Error('boom'), 'request failed');
    assert.equal(children(), 1);
    const [warned, failed, ...rest] = lines();
    assert.deepEqual(rest, []);
    assert.equal(warned.requestId, 'req_2');
    assert.equal(warned.msg, 'call failed');
    assert.deepEqual(warned.headers, { authorization: '[redacted]' });
    assert.equal(failed.requestId, 'req_2');
    assert.equal((failed.err as { message: string }).message, 'boom');
  });

  it('takes a level of its own and makes children that keep its bindings', () => {
    const { logger, lines } = capture('warn');
    const request = new DeferredRequestLogger(logger, { requestId: 'req_3' }, { level: 'debug' });
    assert.equal(request.level, 'debug');
    assert.equal(request.isLevelEnabled('debug'), true);
    request.debug('own level');
    request.child({ stage: 'limits' }).warn('from a child');
    assert.deepEqual(
      lines().map(({ requestId, stage, msg }) => ({ requestId, stage, msg })),
      [
        { requestId: 'req_3', stage: undefined, msg: 'own level' },
        { requestId: 'req_3', stage: 'limits', msg: 'from a child' },
      ],
    );
  });
});

describe('deferRequestLoggers', () => {
  it("makes each request's logger deferred through fastify's own factory; its children keep its bindings", async () => {
    const { logger, lines, children } = capture();
    const app = Fastify({
      loggerInstance: logger,
      genReqId: () => 'req_5',
      logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    });
    deferRequestLoggers(app.log as Logger);
    let requestLogger: unknown;
    app.get('/', async (request) => {
      requestLogger = request.log;
      return 'ok';
    });
    const before = children();
    await app.inject({ method: 'GET', url: '/' });
    assert.ok(requestLogger instanceof DeferredRequestLogger);
    assert.equal(children(), before, 'no pino child until the request logs');
    const request = requestLogger as DeferredRequestLogger;
    request.info('from the request');
    request.child({ stage: 'limits' }).warn('from a child');
    app.log.info('from the server');
    assert.deepEqual(
      lines()
        .filter(({ msg }) => typeof msg === 'string' && msg.startsWith('from'))
        .map(({ requestId, stage, msg }) => ({ requestId, stage, msg })),
      [
        { requestId: 'req_5', stage: undefined, msg: 'from the request' },
        { requestId: 'req_5', stage: 'limits', msg: 'from a child' },
        { requestId: undefined, stage: undefined, msg: 'from the server' },
      ],
    );
    assert.ok(!(app.log instanceof DeferredRequestLogger));
    await app.close();
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const GUARDS = fileURLToPath(new URL('./process-guards.ts', import.meta.url));
const FATAL_ERRORS = fileURLToPath(new URL('./fatal-errors.ts', import.meta.url));
const LOGGER = fileURLToPath(new URL('../diagnostics/logger.ts', import.meta.url));

/** Runs `body` in a child that imports the guards (both modules) and a logger; `fault` follows on the next tick. */
function runInChild(body: string, fault: string): { status: number | null; stdout: string } {
  const script = `
    import { installProcessGuards } from ${JSON.stringify(GUARDS)};
    import { guardServingProcess } from ${JSON.stringify(FATAL_ERRORS)};
    import { createLogger } from ${JSON.stringify(LOGGER)};
    const logger = createLogger('info');
    ${body}
    setImmediate(() => { ${fault}; });
    setTimeout(() => { console.log('still serving'); }, 200);
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: child.status, stdout: child.stdout };
}

/** Runs a script that installs the guards, then rejects a promise nobody awaits with `error`. */
function rejectInChild(error: string): { status: number | null; stdout: string } {
  return runInChild('installProcessGuards(logger);', `Promise.reject(${error})`);
}

/** The JSON log lines of a child's stdout, as objects. */
function lines(stdout: string): { level: string; msg: string; err?: { message: string } }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** A serving process whose drain logs when it starts and ends; `drain` is its body. */
function servingWith(drain: string, timeoutMs: number): string {
  return `
    guardServingProcess(logger).drainBeforeExit(async () => {
      console.log('drain started');
      ${drain}
      console.log('drain finished');
    }, ${timeoutMs});
  `;
}

describe('process guards', () => {
  it('end the process on an unhandled rejection, logged', () => {
    const { status, stdout } = rejectInChild(`new TypeError('a real defect')`);
    assert.equal(status, 1);
    assert.match(stdout, /unhandled rejection/);
    assert.doesNotMatch(stdout, /still serving/);
  });

  it('log an uncaught exception at fatal level, run the drain, then exit 1', () => {
    const drain = `await new Promise((resolve) => setTimeout(resolve, 50));`;
    const { status, stdout } = runInChild(servingWith(drain, 10_000), `throw new RangeError('a real fault')`);
    assert.equal(status, 1);
    const fatal = lines(stdout).find((line) => line.msg === 'uncaught exception');
    assert.equal(fatal?.level, 'fatal');
    assert.equal(fatal?.err?.message, 'a real fault');
    const started = stdout.indexOf('drain started');
    assert.ok(started > -1 && started < stdout.indexOf('drain finished'), stdout);
    assert.doesNotMatch(stdout, /drain did not finish/);
  });

  it('drain an unhandled rejection of a serving process the same way', () => {
    const { status, stdout } = runInChild(servingWith('', 10_000), `Promise.reject(new Error('lost'))`);
    assert.equal(status, 1);
    assert.ok(lines(stdout).some((line) => line.msg === 'unhandled rejection' && line.level === 'fatal'));
    assert.match(stdout, /drain finished/);
  });

  it('exit 1 when the drain outlasts its bound, saying so', () => {
    const hang = `await new Promise(() => { setInterval(() => {}, 1_000); });`;
    const { status, stdout } = runInChild(servingWith(hang, 100), `throw new Error('fault')`);
    assert.equal(status, 1);
    assert.match(stdout, /drain started/);
    assert.doesNotMatch(stdout, /drain finished/);
    assert.ok(lines(stdout).some((line) => line.msg === 'drain did not finish in time; exiting anyway'));
  });

  it('drain once, logging a second fault that happens during the drain', () => {
    const drain = `setImmediate(() => { throw new Error('second'); }); await new Promise((r) => setTimeout(r, 50));`;
    const { status, stdout } = runInChild(servingWith(drain, 10_000), `throw new Error('first')`);
    assert.equal(status, 1);
    const faults = lines(stdout).filter((line) => line.msg === 'uncaught exception');
    assert.deepEqual(
      faults.map((line) => line.err?.message),
      ['first', 'second'],
    );
    assert.equal(stdout.match(/drain started/g)?.length, 1);
    assert.match(stdout, /drain finished/);
  });
});

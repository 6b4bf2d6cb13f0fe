import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const GUARDS = fileURLToPath(new URL('./process-guards.ts', import.meta.url));
const LOGGER = fileURLToPath(new URL('../telemetry/logger.ts', import.meta.url));

/** Runs a script that installs the guards, then rejects a promise nobody awaits with `error`. */
function rejectInChild(error: string): { status: number | null; stdout: string } {
  const script = `
    import { installProcessGuards } from ${JSON.stringify(GUARDS)};
    import { createLogger } from ${JSON.stringify(LOGGER)};
    installProcessGuards(createLogger('info'));
    Promise.reject(${error});
    setTimeout(() => { console.log('still serving'); }, 200);
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: child.status, stdout: child.stdout };
}

describe('process guards', () => {
  it('end the process on an unhandled rejection, logged', () => {
    const { status, stdout } = rejectInChild(`new TypeError('a real defect')`);
    assert.equal(status, 1);
    assert.match(stdout, /unhandled rejection/);
    assert.doesNotMatch(stdout, /still serving/);
  });
});

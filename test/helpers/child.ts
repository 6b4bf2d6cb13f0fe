import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type OutputChild = ChildProcess & { output: () => string };

/** Runs `node src/main.ts <args>` with exactly `env` (plus PATH), collecting its output. */
export function spawnMain(args: string[], env: Record<string, string>): OutputChild {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collectOutput(child);
}

/**
 * Runs the README's `npm start` in the repository (its `prestart` build included) with exactly
 * `env` (plus PATH), in a process group of its own, so `interrupt()` reaches npm and the gateway
 * together, as Ctrl-C in a terminal does. Under `npm test` it uses the same npm; else `npm` on PATH.
 */
export function spawnNpmStart(env: Record<string, string>): OutputChild & { interrupt: () => void } {
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli === undefined ? ['npm', ['start']] : [process.execPath, [npmCli, 'start']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const interrupt = () => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
  };
  return Object.assign(collectOutput(child), { interrupt });
}

function collectOutput(child: ChildProcess): OutputChild {
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return Object.assign(child, { output: () => output });
}

export async function runMain(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawnMain(args, env);
  const [code] = await once(child, 'exit');
  return { code: code as number | null, output: child.output() };
}

/** Waits until the child logs the line "switchyard listening" and returns the port. */
export async function waitForListening(
  child: ChildProcess & { output: () => string },
  timeoutMs = 30_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const line of child.output().split('\n')) {
      if (!line.includes('switchyard listening')) continue;
      const address = (JSON.parse(line) as { address: string }).address;
      return Number(address.slice(address.lastIndexOf(':') + 1));
    }
    if (child.exitCode !== null) throw new Error(`child exited early:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // A child left running holds the test process open through its pipes, so the run hangs
  // instead of failing: kill it (its worker exits with it) before reporting.
  child.kill('SIGKILL');
  throw new Error(`child did not listen in time:\n${child.output()}`);
}

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** Runs `node src/main.ts <args>` with exactly `env` (plus PATH), collecting its output. */
export function spawnMain(
  args: string[],
  env: Record<string, string>,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  throw new Error(`child did not listen in time:\n${child.output()}`);
}

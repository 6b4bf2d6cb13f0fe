/**
 * Times `npm start` to a 200 from `/health/ready` (docs/performance.md, First start and restart):
 * in a clone with `npm ci` done, each round removes `dist/` and the data directory and times a
 * first start, then a restart. Prints every round, the spread and the load average, since a
 * shared machine moves these figures by several times.
 *
 *   node scripts/time-start.ts /path/to/clone [rounds=3] [port=4711]
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const [dir, roundsArg = '3', port = '4711'] = process.argv.slice(2);
if (dir === undefined) {
  process.stderr.write('usage: node scripts/time-start.ts CLONE [rounds] [port]\n');
  process.exit(2);
}

/** Milliseconds from spawning `npm start` to the first 200 of /health/ready; the process is then stopped. */
async function timeStart(): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: port, LOG_FORMAT: 'json' },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    while (performance.now() - started < 180_000) {
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('not ready within 180 s');
  } finally {
    process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const firsts: number[] = [];
const restarts: number[] = [];
for (let round = 1; round <= Number(roundsArg); round++) {
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  rmSync(join(dir, '.switchyard'), { recursive: true, force: true });
  const load = loadavg()[0].toFixed(1);
  firsts.push(await timeStart());
  restarts.push(await timeStart());
  process.stdout.write(
    `round ${round}: first start ${seconds(firsts.at(-1) ?? 0)} s, restart ${seconds(restarts.at(-1) ?? 0)} s (load ${load})\n`,
  );
}
const spread = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `median ${seconds(sorted[Math.floor(sorted.length / 2)])} s, ${seconds(sorted[0])}-${seconds(sorted[sorted.length - 1])} s`;
};
process.stdout.write(`first start: ${spread(firsts)}\nrestart: ${spread(restarts)}\n`);

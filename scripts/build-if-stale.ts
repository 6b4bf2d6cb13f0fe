/**
 * `npm start`'s build (issue 33, a quick first run): builds the gateway (tsc) and the console
 * (Vite) only when a source is newer than its output, both at once when both are. A restart with
 * nothing changed used to spend 1-3 s of its start in `npm run build` (three npm processes, tsc's
 * incremental check of every file, a full Vite build); it now spends a directory walk.
 * `npm run build` still builds everything.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Target {
  name: string;
  /** Files and folders whose newest modification makes the output stale. */
  inputs: string[];
  /** What the build writes that must exist (tsc's entry point, Vite's page). */
  output: string;
  /** Touched after each build of this script: tsc leaves its output alone when no file's content changed. */
  stamp: string;
  command: string[];
}

const TARGETS: Target[] = [
  {
    name: 'gateway',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'],
    output: 'dist/main.js',
    stamp: 'dist/.built-gateway',
    command: ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
  },
  {
    name: 'console',
    inputs: ['console', 'package.json'],
    output: 'dist/console/index.html',
    stamp: 'dist/.built-console',
    command: ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts'],
  },
];

/** The newest modification time under `path` (a file, or a folder walked whole), 0 when absent. */
function newest(path: string): number {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function stale(target: Target): boolean {
  const built = newest(join(ROOT, target.stamp));
  if (built === 0 || newest(join(ROOT, target.output)) === 0) return true;
  return target.inputs.some((input) => newest(join(ROOT, input)) > built);
}

function run(target: Target): Promise<void> {
  // The stamp gets the build's start: a file saved while it ran is newer, and builds next time.
  const started = new Date();
  const child = spawn(process.execPath, target.command, { cwd: ROOT, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`building the ${target.name} failed (exit ${code})`));
      const stamp = join(ROOT, target.stamp);
      writeFileSync(stamp, '');
      utimesSync(stamp, started, started);
      resolve();
    });
  });
}

const due = TARGETS.filter(stale);
if (due.length > 0) {
  process.stdout.write(`building ${due.map((target) => target.name).join(' and ')} ...\n`);
  try {
    await Promise.all(due.map(run));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}

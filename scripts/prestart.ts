/**
 * What `npm start` does before the server (issue 33, a quick first run): builds the gateway (tsc)
 * and the console (Vite) only when a source is newer than its last build, and on a first start
 * creates the embedded database, all at once. A restart with nothing changed used to spend 1-3 s
 * in `npm run build` (three npm processes, tsc's incremental check of every file, a full Vite
 * build); it now spends a directory walk. On a first start the database's creation (initdb, the
 * longest step) overlaps the build instead of following it. `npm run build` still builds
 * everything, and a server started otherwise creates its database itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** config.ts's default; only a shortcut: loadConfig decides when the folder is missing. */
const DEFAULT_DATA_DIR = './.switchyard';

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

/**
 * The embedded database, when this start will use one and it does not exist yet. Any failure is
 * left to the server, which creates the database itself and reports what is wrong (a setting, a
 * DATA_DIR in use).
 */
async function createDatabase(): Promise<void> {
  try {
    // Imported here: a restart pays for neither the settings' schemas nor PGlite.
    if (process.env.DATABASE_URL || existsSync(join(process.env.DATA_DIR || DEFAULT_DATA_DIR, 'db'))) return;
    const { loadConfig } = await import('../src/config.ts');
    const config = loadConfig(process.env);
    const { createEmbeddedDatabase, embeddedDatabaseExists } = await import('../src/store/embedded-postgres.ts');
    if (config.databaseUrl !== undefined || embeddedDatabaseExists(config.dataDir)) return;
    process.stdout.write(`creating the embedded database in ${join(config.dataDir, 'db')} (first start) ...\n`);
    await createEmbeddedDatabase(config.dataDir);
  } catch {
    // The server says it.
  }
}

const due = TARGETS.filter(stale);
if (due.length > 0) process.stdout.write(`building ${due.map((target) => target.name).join(' and ')} ...\n`);
try {
  await Promise.all([...due.map(run), createDatabase()]);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}

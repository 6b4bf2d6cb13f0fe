import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const CONFIG = fileURLToPath(new URL('../../console/vite.config.ts', import.meta.url));

/** Builds the console from its source into a fresh folder, so a test serves what the source says now. */
export async function buildConsole(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'sy-console-'));
  await build({ configFile: CONFIG, logLevel: 'error', build: { outDir, emptyOutDir: true } });
  return outDir;
}

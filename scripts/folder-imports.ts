/**
 * The import graph of `src/` by top-level folder: which folder imports which, and the pairs that
 * import each other (a two-way pair is a layering smell; docs/architecture.md lists the ones kept
 * and why). Run: `node scripts/folder-imports.ts` (add `--edges` for every folder-to-folder edge).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The top-level folder of a file under `src/` (a file directly in `src/` is its own unit). */
function unitOf(srcDir: string, file: string): string {
  const [first, ...rest] = relative(srcDir, file).split(sep);
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `from -> to` with the files of `from` that import `to`, for every edge between two folders. */
export function folderImports(srcDir: string): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(srcDir)) {
    const from = unitOf(srcDir, file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith('.')) continue;
      const to = unitOf(srcDir, resolve(dirname(file), specifier));
      if (to === from) continue;
      const targets = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, targets);
      const files = targets.get(to) ?? [];
      targets.set(to, files);
      files.push(relative(srcDir, file));
    }
  }
  return edges;
}

/** The pairs of folders that import each other, each as `a <-> b` with `a` before `b`. */
export function twoWayPairs(edges: Map<string, Map<string, string[]>>): string[] {
  const pairs: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets.keys()) {
      if (from < to && edges.get(to)?.has(from) === true) pairs.push(`${from} <-> ${to}`);
    }
  }
  return pairs.sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const edges = folderImports(srcDir);
  if (process.argv.includes('--edges')) {
    for (const [from, targets] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`${from} -> ${[...targets.keys()].sort().join(', ')}`);
    }
    console.log('');
  }
  const pairs = twoWayPairs(edges);
  console.log(`${pairs.length} pairs of folders import each other:`);
  for (const pair of pairs) {
    const [a, b] = pair.split(' <-> ');
    console.log(`  ${pair}`);
    console.log(`    ${a} -> ${b}: ${edges.get(a)!.get(b)!.join(', ')}`);
    console.log(`    ${b} -> ${a}: ${edges.get(b)!.get(a)!.join(', ')}`);
  }
}

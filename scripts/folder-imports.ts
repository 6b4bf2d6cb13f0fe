/**
 * The import graph of `src/` by top-level folder, checked against the layer table of
 * docs/architecture.md: a folder imports only from its own layer or the layers below it, and no
 * folders import each other in a cycle, however long. Run: `node scripts/folder-imports.ts`
 * (add `--edges` for every folder-to-folder edge); `test/foundation/folder-imports.test.ts`
 * fails on what it reports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export type FolderEdges = Map<string, Map<string, string[]>>;

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

/** Every unit of `src/`: its top-level folders and the files directly in it. */
export function units(srcDir: string): string[] {
  return [...new Set(sourceFiles(srcDir).map((file) => unitOf(srcDir, file)))].sort();
}

/** `from -> to` with the files of `from` that import `to`, for every edge between two folders. */
export function folderImports(srcDir: string): FolderEdges {
  const edges: FolderEdges = new Map();
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

/**
 * The layer of each unit, from the table under "## Layers" in docs/architecture.md: one row per
 * layer, top first; the units are the backquoted paths of the second column (`api/v1/` names
 * `api`, `config.ts` names `config`). Layer 0 is the top.
 */
export function layerTable(markdown: string): Map<string, number> {
  const section = markdown.split(/^## Layers$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => /^\|[^-|]/.test(line) && !line.startsWith('| layer '));
  const layers = new Map<string, number>();
  rows.forEach((row, index) => {
    const folders = row.split('|')[2] ?? '';
    for (const [, path] of folders.matchAll(/`([^`]+)`/g)) {
      layers.set(path.split('/')[0].replace(/\.ts$/, ''), index);
    }
  });
  return layers;
}

/** Each edge that points up the layer table, as `from -> to (files)`. */
export function upwardEdges(edges: FolderEdges, layers: Map<string, number>): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) {
    for (const [to, files] of targets) {
      if ((layers.get(to) ?? -1) < (layers.get(from) ?? -1)) found.push(`${from} -> ${to} (${files.join(', ')})`);
    }
  }
  return found.sort();
}

/** The strongly connected groups of more than one folder (Tarjan), each sorted: every cycle lies in one. */
export function folderCycles(edges: FolderEdges): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const srcDir = join(root, 'src');
  const edges = folderImports(srcDir);
  if (process.argv.includes('--edges')) {
    for (const [from, targets] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`${from} -> ${[...targets.keys()].sort().join(', ')}`);
    }
    console.log('');
  }
  const layers = layerTable(readFileSync(join(root, 'docs', 'architecture.md'), 'utf8'));
  const unlisted = units(srcDir).filter((unit) => !layers.has(unit));
  const upward = upwardEdges(edges, layers);
  const cycles = folderCycles(edges);
  console.log(`${unlisted.length} folders missing from the layer table: ${unlisted.join(', ')}`);
  console.log(`${upward.length} imports pointing up the layer table:`);
  for (const edge of upward) console.log(`  ${edge}`);
  console.log(`${cycles.length} cycles of folders:`);
  for (const cycle of cycles) console.log(`  ${cycle.join(', ')}`);
}

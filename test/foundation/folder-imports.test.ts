import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { folderCycles, folderImports, layerTable, units, upwardEdges } from '../../scripts/folder-imports.ts';

const SRC = new URL('../../src/', import.meta.url).pathname;
const ARCHITECTURE = new URL('../../docs/architecture.md', import.meta.url);

describe('src/ folder layering (the layer table of docs/architecture.md)', () => {
  const edges = folderImports(SRC);
  const layers = layerTable(readFileSync(ARCHITECTURE, 'utf8'));

  it('reads the table and the graph (the routes sit above the pipeline and import it)', () => {
    assert.ok((layers.get('api') ?? Infinity) < (layers.get('pipeline') ?? -1));
    assert.ok(edges.get('api')?.has('pipeline'));
  });

  it('places every folder of src/ in one layer', () => {
    assert.deepEqual(
      units(SRC).filter((unit) => !layers.has(unit)),
      [],
    );
  });

  it('has no import pointing up the table', () => {
    assert.deepEqual(upwardEdges(edges, layers), []);
  });

  it('has no cycle of folders, however long', () => {
    assert.deepEqual(folderCycles(edges), []);
  });

  it('finds an upward edge and a three-folder cycle when there is one', () => {
    const graph = new Map([
      ['a', new Map([['b', ['a/x.ts']]])],
      ['b', new Map([['c', ['b/y.ts']]])],
      ['c', new Map([['a', ['c/z.ts']]])],
    ]);
    assert.deepEqual(folderCycles(graph), [['a', 'b', 'c']]);
    const table = layerTable(
      '## Layers\n\n| layer | folders |\n|---|---|\n| top | `a/` |\n| low | `b/`, `c.ts` |\n',
    );
    assert.deepEqual(upwardEdges(graph, table), ['c -> a (c/z.ts)']);
  });
});

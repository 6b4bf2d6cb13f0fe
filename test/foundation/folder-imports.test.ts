import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { folderImports, twoWayPairs } from '../../scripts/folder-imports.ts';

const SRC = new URL('../../src/', import.meta.url).pathname;
const ARCHITECTURE = new URL('../../docs/architecture.md', import.meta.url);

/** The pairs of src/ folders that import each other on purpose; docs/architecture.md says why. */
const KEPT_PAIRS = ['cache <-> config', 'records <-> telemetry'];

describe('src/ folder layering', () => {
  const edges = folderImports(SRC);

  it('reads the import graph (the routes import the pipeline, nothing imports the composition root)', () => {
    assert.ok(edges.get('api')?.has('pipeline'));
    for (const [from, targets] of edges) {
      if (from !== 'commands') assert.ok(!targets.has('gateway'), `${from} imports gateway/`);
    }
  });

  it('has no pair of folders importing each other beyond the ones docs/architecture.md explains', () => {
    assert.deepEqual(twoWayPairs(edges), KEPT_PAIRS);
    const doc = readFileSync(ARCHITECTURE, 'utf8');
    for (const pair of KEPT_PAIRS)
      assert.ok(doc.includes(`\`${pair}\``), `docs/architecture.md names ${pair}`);
  });
});

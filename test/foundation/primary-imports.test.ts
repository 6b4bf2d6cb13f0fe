import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Value imports and re-exports loaded with the module (not `import type`, not `import()`). */
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm;

/** The packages a module loads before any of its code runs: its static imports, followed through src/. */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  }
  return packages;
}

/**
 * The cluster primary runs `main.ts` and `commands/serve.ts` and supervises: it never opens the
 * database nor serves a call, so it must not load their modules (docs/decisions/hot-path.md,
 * "Modules loaded only where used"). Importing `SchemaBehindError` from migrate.ts once loaded
 * Kysely, pg and every migration into it: 74 MB resident instead of 55.
 */
describe('the cluster primary', () => {
  it('loads no database, HTTP or provider package', () => {
    const loaded = packagesLoadedBy(`${SRC}main.ts`);
    for (const pkg of packagesLoadedBy(`${SRC}commands/serve.ts`)) loaded.add(pkg);
    const heavy = [...loaded].filter((pkg) =>
      /^(kysely|pg|@electric-sql\/|fastify|undici|ioredis|@redis\/|isolated-vm|gpt-tokenizer|zod)/.test(pkg),
    );
    assert.deepEqual(heavy, []);
    assert.ok(loaded.has('pino'), 'the walk reads the logger the primary does load');
  });
});

/**
 * A serving worker loads a cloud SDK, the YAML config reader, PGlite or the OpenTelemetry SDK only
 * when its configuration needs it, at first use (docs/decisions/hot-path.md, "Modules loaded only
 * where used"): a gateway on Postgres and Redis with key-authenticated deployments holds none.
 */
describe('the serving worker', () => {
  it('loads no cloud SDK, config-file reader, PGlite or OpenTelemetry SDK at start', () => {
    const loaded = packagesLoadedBy(`${SRC}gateway/gateway.ts`);
    const optional = [...loaded].filter((pkg) =>
      /^(@aws-sdk\/|@azure\/|google-auth-library|yaml|@electric-sql\/|@opentelemetry\/(?!api$))/.test(pkg),
    );
    assert.deepEqual(optional, []);
    assert.ok(loaded.has('fastify'), 'the walk reaches the modules a worker does load');
  });
});

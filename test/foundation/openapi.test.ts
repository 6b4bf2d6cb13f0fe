import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('GET /openapi.json', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(() => gw.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await fetch(`${gw.url}/openapi.json`);
    assert.equal(res.status, 200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(document.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
  });

  it('covers every registered route', async () => {
    const document = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
      paths: Record<string, object>;
    };
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    assert.ok(gw.gateway.routes.length > 3);
    for (const route of listRoutes(gw)) {
      assert.ok(documented.has(route), `${route} is documented`);
    }
  });
});

/** Every method+path fastify serves, except HEAD twins and the document itself. */
function listRoutes(gw: TestGateway): string[] {
  const found: string[] = [];
  for (const route of gw.gateway.routes) {
    if (route.method === 'HEAD' || route.url === '/openapi.json') continue;
    found.push(`${route.method} ${route.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  }
  return found;
}

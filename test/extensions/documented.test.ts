import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const apiDoc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('extension error codes are documented', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(() => gw.close());

  it('the OpenAPI document names extension_rejected and extension_disabled on the inference routes', async () => {
    const document = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { responses: Record<string, { description: string }> } }>;
    };
    for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/responses']) {
      const responses = document.paths[path]?.post?.responses ?? {};
      assert.match(responses['4XX']?.description ?? '', /extension_rejected/, path);
      assert.match(responses['503']?.description ?? '', /extension_disabled/, path);
    }
    for (const path of ['/admin/extensions', '/admin/extensions/{id}', '/admin/extensions/{id}/reset']) {
      assert.ok(document.paths[path], `${path} is documented`);
    }
  });

  it('docs/api.md lists both codes with their status', () => {
    assert.ok(apiDoc.includes('| `extension_rejected` | 400 |'));
    assert.ok(apiDoc.includes('| `extension_disabled` | 503 |'));
    assert.ok(apiDoc.includes('`POST /admin/extensions/:id/reset`'));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import type * as Console from '../../console/src/types.ts';
import { pageSchema } from '../../src/admin-kit/pagination.ts';
import { auditEventSchema } from '../../src/api/admin/audit.ts';
import { gatewayOperationSchema } from '../../src/api/admin/logs.ts';
import { usageReportSchema } from '../../src/api/admin/usage.ts';
import { deploymentViewSchema } from '../../src/deployments/deployment-view.ts';
import { resolvedDeploymentSchema } from '../../src/deployments/resolved-deployment-schema.ts';
import { extensionViewSchema } from '../../src/extensions/extension-view.ts';
import { issuedVirtualKeySchema, virtualKeyViewSchema } from '../../src/keys/virtual-key-view.ts';
import { teamViewSchema } from '../../src/teams/team-view.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * Compile-time (the type check fails otherwise): every admin answer the console reads, as its
 * schema has it, is what the console's own declaration says (console/src/types.ts declares only
 * what the console reads; a field the server drops or changes breaks the build here).
 */
type Satisfies<Answer extends Read, Read> = [Answer, Read];
export type ConsoleReadsTheAdminAnswers = [
  Satisfies<z.infer<typeof deploymentViewSchema>, Console.Deployment>,
  Satisfies<z.infer<typeof resolvedDeploymentSchema>, Console.Resolved>,
  Satisfies<z.infer<typeof virtualKeyViewSchema>, Console.VirtualKey>,
  Satisfies<z.infer<typeof issuedVirtualKeySchema>, Console.VirtualKeyWithSecret>,
  Satisfies<z.infer<typeof teamViewSchema>, Console.Team>,
  Satisfies<z.infer<typeof extensionViewSchema>, Console.Extension>,
  Satisfies<z.infer<typeof gatewayOperationSchema>, Console.Operation>,
  Satisfies<z.infer<typeof usageReportSchema>, Console.UsageReport>,
  Satisfies<z.infer<typeof auditEventSchema>, Console.AuditRow>,
];

/**
 * At run time, the other half: the answers the console reads, from the real admin API after real
 * calls, hold what their schemas say (the schemas are what /openapi.json documents and what the
 * declarations above are checked against). A route answering a field null that its schema calls a
 * string, or without a field, fails here.
 */
describe('the admin answers the console reads match their schemas', () => {
  const UPSTREAM_KEY = 'sk-upstream-shapes-0001';
  let fake: OpenAIFake;
  let gw: TestGateway;
  let keyId = '';

  before(async () => {
    fake = await new OpenAIFake({ apiKey: UPSTREAM_KEY }).start();
    gw = await startTestGateway();
    await admin(gw, 'POST', '/deployments', {
      publicModel: 'shapes-gpt',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      apiKey: UPSTREAM_KEY,
      baseUrl: fake.baseUrl,
    });
    const team = await admin<{ id: string }>(gw, 'POST', '/teams', { name: 'shapes', budgetCents: 1_000 });
    const key = issuedVirtualKeySchema.parse(
      await admin(gw, 'POST', '/keys', { name: 'shapes', allowedModels: ['shapes-gpt'], teamId: team.id }),
    );
    keyId = key.id;
    await admin(gw, 'POST', '/extensions', {
      id: 'shapes-observer',
      source: 'export function afterUpstream() {}',
      models: ['shapes-gpt'],
    });
    const answer = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'shapes-gpt', messages: [{ role: 'user', content: 'shapes' }] }),
    });
    assert.equal(answer.status, 200, await answer.text());
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('deployments and their resolution', async () => {
    const page = pageSchema(deploymentViewSchema, 'DeploymentPage').parse(
      await admin(gw, 'GET', '/deployments'),
    );
    assert.equal(page.data.length, 1);
    const { provider, publicModel, upstreamModel, baseUrl } = page.data[0];
    resolvedDeploymentSchema.parse(
      await admin(gw, 'POST', '/deployments/resolve', {
        provider,
        publicModel,
        upstreamModel,
        baseUrl,
        apiKey: UPSTREAM_KEY,
      }),
    );
  });

  it('keys and teams', async () => {
    const keys = pageSchema(virtualKeyViewSchema, 'VirtualKeyPage').parse(await admin(gw, 'GET', '/keys'));
    assert.deepEqual(
      keys.data.map((key) => key.id),
      [keyId],
    );
    const teams = pageSchema(teamViewSchema, 'TeamPage').parse(await admin(gw, 'GET', '/teams'));
    assert.equal(teams.data.length, 1);
  });

  it('extensions', async () => {
    const page = pageSchema(extensionViewSchema, 'ExtensionPage').parse(
      await admin(gw, 'GET', '/extensions'),
    );
    assert.deepEqual(
      page.data.map((extension) => extension.id),
      ['shapes-observer'],
    );
  });

  it("the call's record, the usage and the audit trail", async () => {
    await eventually(async () => {
      const logs = pageSchema(gatewayOperationSchema, 'GatewayOperationPage').parse(
        await admin(gw, 'GET', '/logs'),
      );
      assert.equal(logs.data.length, 1);
      assert.equal(logs.data[0].attempts.length, 1);
      assert.equal(logs.data[0].extensions.length, 1);
    }, 15_000);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const usage = usageReportSchema.parse(
      await admin(gw, 'GET', `/usage?groupBy=key&bucket=hour&from=${from}`),
    );
    assert.equal(usage.totals.requests, 1);
    await eventually(async () => {
      const audit = pageSchema(auditEventSchema, 'AuditEventPage').parse(await admin(gw, 'GET', '/audit'));
      assert.ok(audit.data.length >= 4, `the four creations are audited: ${audit.data.length}`);
    }, 15_000);
  });
});

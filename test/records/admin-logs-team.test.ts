import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, chat, createDeployment, createKey, eventually } from './support.ts';

interface Page {
  data: { requestId: string; keyId: string | null }[];
}

/** `GET /admin/logs?teamId=`: the calls of keys in the team at the time of the call (the console's Team filter). */
describe('GET /admin/logs by team', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let teamId: string;
  const inTeam = `team-call-${randomUUID()}`;
  const outside = `solo-call-${randomUUID()}`;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'alpha', baseUrl: fake.baseUrl });
    const team = await admin<{ id: string }>(gw, 'POST', '/admin/teams', { name: 'records-team' });
    assert.equal(team.status, 201, team.text);
    teamId = team.body.id;
    const member = await createKey(gw);
    const patched = await admin(gw, 'PATCH', `/admin/keys/${member.id}`, { teamId });
    assert.equal(patched.status, 200, patched.text);
    const solo = await createKey(gw);
    assert.equal((await chat(gw, { token: member.key, model: 'alpha', requestId: inTeam })).status, 200);
    assert.equal((await chat(gw, { token: solo.key, model: 'alpha', requestId: outside })).status, 200);
    await eventually(async () => {
      const all = await admin<Page>(gw, 'GET', '/admin/logs');
      return all.body.data.length === 2 ? true : undefined;
    });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it("finds only the team's calls", async () => {
    const res = await admin<Page>(gw, 'GET', `/admin/logs?teamId=${teamId}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((op) => op.requestId),
      [inTeam],
    );
  });

  it('finds nothing for a team without calls', async () => {
    const res = await admin<Page>(gw, 'GET', '/admin/logs?teamId=team_none');
    assert.deepEqual(res.body.data, []);
  });
});

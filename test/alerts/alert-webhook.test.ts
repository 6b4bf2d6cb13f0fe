import assert from 'node:assert/strict';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AlertEvent } from '../../src/alerts/alert-event.ts';
import { loadConfig } from '../../src/config.ts';
import { type BudgetThresholdEvent, DIAGNOSTICS } from '../../src/diagnostics/diagnostics-channels.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  chat,
  createDeployment,
  errorCode,
  eventually,
  modelName,
  putRouterSettings,
  upstreamError,
} from '../router/support.ts';
import { type ReceivedAlert, WebhookReceiver } from './webhook-receiver.ts';

const SECRET = `whsec-${randomBytes(16).toString('hex')}`;
const URL_TOKEN = `T0KEN${randomBytes(8).toString('hex')}`;
const BROKEN = { status: 500, body: upstreamError(null) };
const COOLDOWN = { failureThreshold: 1, windowMs: 60_000, durationMs: 60_000 };

/** Recomputes the signature over the raw body, as a receiver must, and compares in constant time. */
function assertSigned(alert: ReceivedAlert): void {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(alert.rawBody).digest('hex')}`);
  const given = Buffer.from(String(alert.headers['x-switchyard-signature']));
  assert.ok(given.length === expected.length && timingSafeEqual(given, expected), 'valid signature');
  assert.equal(alert.headers['content-type'], 'application/json');
}

const events = (receiver: WebhookReceiver) =>
  receiver.received.map((alert) => JSON.parse(alert.rawBody) as AlertEvent);

describe('alert webhook (ALERT_WEBHOOK_URL)', () => {
  let receiver: WebhookReceiver;
  let fake: OpenAIFake;
  let gw: TestGateway;

  before(async () => {
    receiver = await new WebhookReceiver().start();
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({
      env: { ALERT_WEBHOOK_URL: receiver.urlWithToken(URL_TOKEN), ALERT_WEBHOOK_SECRET: SECRET },
    });
    await putRouterSettings(gw, { cooldown: COOLDOWN });
  });
  after(async () => {
    await gw.close();
    await fake.close();
    await receiver.close();
  });

  /** Makes one call fail on the upstream, which puts the model's only deployment in cooldown. */
  async function coolDown(model: string): Promise<{ deploymentId: string; elapsedMs: number }> {
    const deploymentId = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.failNext(1, BROKEN);
    const failed = await chat(gw, model);
    assert.equal(failed.status, 502);
    return { deploymentId, elapsedMs: failed.elapsedMs };
  }

  const forDeployment = (deploymentId: string) =>
    receiver.received.filter((alert) => {
      const event = JSON.parse(alert.rawBody) as AlertEvent;
      return event.type === 'deployment.cooldown' && event.data.deploymentId === deploymentId;
    });

  it('POSTs a signed deployment.cooldown event once when a deployment enters cooldown', async () => {
    const model = modelName('alerted');
    const startedAt = Date.now();
    const { deploymentId } = await coolDown(model);
    const cooling = await chat(gw, model);
    assert.equal(errorCode(cooling), 'deployments_in_cooldown');

    await eventually(() => assert.equal(forDeployment(deploymentId).length, 1));
    const [alert] = forDeployment(deploymentId);
    assertSigned(alert);
    const event = JSON.parse(alert.rawBody) as Extract<AlertEvent, { type: 'deployment.cooldown' }>;
    assert.match(event.id, /^evt_[0-9a-f]{24}$/);
    const time = Date.parse(event.time);
    assert.ok(time >= startedAt && time <= Date.now(), event.time);
    const { until, ...data } = event.data;
    assert.deepEqual(data, { deploymentId, publicModel: model, provider: 'openai', reason: 'server' });
    assert.ok(Math.abs(Date.parse(until) - (time + COOLDOWN.durationMs)) < 1_000, until);

    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(forDeployment(deploymentId).length, 1, 'once per entry into cooldown');
  });

  it('retries an event the receiver failed, with the same id and a valid signature', async () => {
    receiver.reply({ status: 500 });
    const { deploymentId } = await coolDown(modelName('retried'));
    await eventually(() => assert.equal(forDeployment(deploymentId).length, 2), 10_000);
    const [first, second] = forDeployment(deploymentId);
    assertSigned(first);
    assertSigned(second);
    assert.equal(second.rawBody, first.rawBody, 'the same event, byte for byte');
    assert.ok(second.receivedAtMs - first.receivedAtMs >= 900, 'after the backoff');
    assert.ok(
      gw.logs.some(
        (line) => line.includes('alert webhook attempt failed; retrying') && line.includes('"status":500'),
      ),
      'the failed attempt is logged',
    );
  });

  it('never slows a call: a receiver that takes seconds to answer is waited on in the background', async () => {
    const delayMs = 4_000;
    receiver.reply({ status: 200, delayMs });
    const before = receiver.received.length;
    const { deploymentId, elapsedMs } = await coolDown(modelName('slow'));
    assert.ok(elapsedMs < delayMs / 2, `the call took ${Math.round(elapsedMs)} ms`);
    await eventually(() => assert.equal(forDeployment(deploymentId).length, 1));
    assert.ok(receiver.received.length > before);
  });

  it('delivers budget.threshold events published by the budget', async () => {
    const message: BudgetThresholdEvent = {
      scope: 'team',
      id: 'team_alerts',
      percent: 80,
      period: 'monthly',
      periodStart: '2026-11-01T00:00:00.000Z',
      spendCents: 812.5,
      budgetCents: 1000,
    };
    DIAGNOSTICS.budgetThreshold.publish(message);
    await eventually(
      () => assert.ok(events(receiver).some((event) => event.type === 'budget.threshold')),
      10_000,
    );
    const index = events(receiver).findIndex((event) => event.type === 'budget.threshold');
    assertSigned(receiver.received[index]);
    assert.deepEqual(events(receiver)[index].data, message);
  });

  it('delivers extension.tripped for a critical extension only', async () => {
    const channel = DIAGNOSTICS.extensionTripped;
    channel.publish({
      extensionId: 'spell-check',
      critical: false,
      reason: '5 consecutive failures',
      kind: 'timeout',
    });
    channel.publish({
      extensionId: 'pii-redactor',
      critical: true,
      reason: '5 consecutive failures',
      kind: 'timeout',
    });
    const tripped = () => events(receiver).filter((event) => event.type === 'extension.tripped');
    await eventually(() => assert.equal(tripped().length, 1), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      tripped().map((event) => event.data),
      [{ extensionId: 'pii-redactor', critical: true, reason: '5 consecutive failures' }],
    );
  });

  it('never writes the secret or the webhook URL to the log', async () => {
    assert.ok(
      gw.logs.some((line) => line.includes('alert webhook')),
      'alert lines were written',
    );
    for (const line of gw.logs) {
      assert.ok(!line.includes(SECRET), 'secret in a log line');
      assert.ok(!line.includes(URL_TOKEN), 'webhook URL in a log line');
    }
  });
});

describe('alert webhook settings', () => {
  it('refuses a URL without a secret of at least 16 characters, one that is not http(s), one with credentials', () => {
    const url = 'http://127.0.0.1:9/hooks';
    for (const env of [
      { ALERT_WEBHOOK_URL: url },
      { ALERT_WEBHOOK_URL: url, ALERT_WEBHOOK_SECRET: 'short' },
    ]) {
      assert.throws(() => loadConfig(env), /ALERT_WEBHOOK_SECRET must be set, at least 16 characters/);
    }
    assert.throws(
      () => loadConfig({ ALERT_WEBHOOK_URL: 'ftp://example.com/x', ALERT_WEBHOOK_SECRET: SECRET }),
      /ALERT_WEBHOOK_URL must use http: or https:/,
    );
    assert.throws(
      () => loadConfig({ ALERT_WEBHOOK_URL: 'https://ops:pa55@example.com/x', ALERT_WEBHOOK_SECRET: SECRET }),
      (error: Error) => /must not hold credentials/.test(error.message) && !error.message.includes('pa55'),
    );
    assert.equal(loadConfig({ ALERT_WEBHOOK_URL: url, ALERT_WEBHOOK_SECRET: SECRET }).alertWebhookUrl, url);
  });
});

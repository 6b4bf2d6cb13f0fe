import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { connectSql } from '../helpers/sql.ts';
import { OtlpReceiver } from '../records/otlp-receiver.ts';
import { adminRaw, chat, type ExtensionsRig, startRig } from './support.ts';

/**
 * Issue 30 finding 3: with the PII redactor of examples/extensions/ active, the provider saw
 * `[CARD]` and `[EMAIL]`, but `/admin/logs` kept the raw card number and e-mail in the call's
 * prompt. What `beforeUpstream` returns is the call from then on: the original is in no table
 * (pg_dump), no log line, no payload sample and no span (its payload events included).
 */
const EMAIL = 'jane.redacted@example.com';
const CARD = '4111 1111 1111 1111';

async function installRedactor(rig: ExtensionsRig): Promise<void> {
  const source = await readFile(
    new URL('../../examples/extensions/pii-redactor.js', import.meta.url),
    'utf8',
  );
  const created = await adminRaw(rig.gw, 'POST', '/extensions', {
    id: 'pii-redactor',
    critical: true,
    source,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

describe('a redactor keeps what it redacts out of every store (variant B)', () => {
  let rig: ExtensionsRig;

  before(async () => {
    rig = await startRig({ env: { OBSERVABILITY_PAYLOAD_SAMPLE_RATE: '1' } });
    await installRedactor(rig);
  });
  after(() => rig.close());

  it('leaves the original text in no table, log line or payload sample', async () => {
    const answer = await chat(rig, `Mail ${EMAIL}, card ${CARD}, please.`);
    assert.equal(answer.status, 200);
    const requestId = answer.headers.get('x-request-id') ?? '';
    const sent = JSON.stringify(rig.openai.lastRequest?.body);
    assert.ok(sent.includes('[EMAIL]') && sent.includes('[CARD]'), sent);

    const databaseUrl = rig.gw.database?.url ?? '';
    const sql = connectSql(databaseUrl, 1);
    try {
      await eventually(async () => {
        const rows = await sql<{ prompt: string | null; sampled: boolean }>`
          select o.prompt, exists(select 1 from payload_samples s where s.request_id = o.request_id) as sampled
          from gateway_operations o where o.request_id = ${requestId} and o.status <> 'in_progress'`;
        assert.equal(rows.length, 1);
        assert.ok(rows[0].sampled, 'the payload sample is written');
        assert.match(rows[0].prompt ?? '', /\[EMAIL\].*\[CARD\]/);
      });
    } finally {
      await sql.end();
    }
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--data-only', databaseUrl], {
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const secret of [EMAIL, CARD]) {
      assert.ok(!dump.includes(secret), `pg_dump holds ${secret}`);
      assert.ok(!rig.gw.logs.some((line) => line.includes(secret)), `a log line holds ${secret}`);
    }
    const sample = await fetch(`${rig.gw.url}/admin/logs/${requestId}/payload?reason=redaction-test`, {
      headers: { authorization: `Bearer ${rig.gw.masterKey}` },
    });
    const text = await sample.text();
    assert.equal(sample.status, 200, text);
    assert.ok(text.includes('[EMAIL]'), text);
    for (const secret of [EMAIL, CARD])
      assert.ok(!text.includes(secret), `the payload sample holds ${secret}`);
  });
});

describe('a redactor keeps what it redacts out of spans with OTEL_LOG_PAYLOADS=true', () => {
  it("runs before the span's payload events: they carry the redacted call, never the original", async () => {
    const receiver = await new OtlpReceiver().start();
    const rig = await startRig({
      redis: false,
      env: { OTEL_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_LOG_PAYLOADS: 'true' },
    });
    let requestId = '';
    try {
      await installRedactor(rig);
      const answer = await chat(rig, `Mail ${EMAIL}, card ${CARD}, please.`);
      assert.equal(answer.status, 200);
      requestId = answer.headers.get('x-request-id') ?? '';
    } finally {
      // Closing flushes the spans to the receiver.
      await rig.close();
      await receiver.close();
    }
    const exported = JSON.stringify(receiver.traces);
    assert.ok(exported.includes(requestId), 'the call was exported');
    const request = receiver
      .spans()
      .flatMap((span) => span.events ?? [])
      .find((event) => event.name === 'switchyard.request');
    assert.ok(request !== undefined, 'the request payload event is there');
    assert.match(JSON.stringify(request), /\[EMAIL\].*\[CARD\]/);
    for (const secret of [EMAIL, CARD]) assert.ok(!exported.includes(secret), `a span holds ${secret}`);
  });
});

/**
 * A test gateway in front of an upstream that answers with scripted SSE streams, byte for byte as
 * the test wrote them: for tests of what the gateway does with an upstream's exact text (events
 * passed on unparsed), which a provider's fake, writing its own JSON, cannot script.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, recordedCostCents } from '../limits/support.ts';
import { createDeployment } from './admin-api.ts';
import { waitUntil } from './eventually.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';

/** A stream to answer with; `cut`: written, then the connection destroyed before any end. */
export interface ScriptedStream {
  text: string;
  cut?: boolean;
}

/** 1 cent a token: a call's recorded cost in cents is its billed token count. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

export interface ScriptedStreamGateway {
  gw: TestGateway;
  /**
   * What a call made with a new key, `call`, is recorded to cost once its record is final, its
   * answer read to the end (or to where the upstream cut it).
   */
  recordedCost(call: (key: string) => Promise<Response>): Promise<{ calls: number; cents: number }>;
  close(): Promise<void>;
}

/**
 * The gateway (no Redis) with one deployment per stream, its public model the stream's name, of
 * `provider` and `upstreamModel`, priced a cent a token; each calls the upstream that answers it
 * with that stream.
 */
export async function startScriptedStreamGateway(
  streams: Readonly<Record<string, ScriptedStream>>,
  deployment: { provider: string; upstreamModel: string },
): Promise<ScriptedStreamGateway> {
  const upstream = await startUpstream(streams);
  const port = (upstream.address() as AddressInfo).port;
  const gw = await startTestGateway({ redis: false });
  for (const name of Object.keys(streams)) {
    await createDeployment(gw, {
      ...deployment,
      publicModel: name,
      baseUrl: `http://127.0.0.1:${port}/${name}`,
      pricing: CENT_A_TOKEN,
    });
  }
  return {
    gw,
    recordedCost: (call) => recordedCost(gw, call),
    close: async () => {
      await gw.close();
      upstream.close();
    },
  };
}

async function recordedCost(
  gw: TestGateway,
  call: (key: string) => Promise<Response>,
): Promise<{ calls: number; cents: number }> {
  const key = await createKey(gw);
  await (await call(key.key)).text().catch(() => '');
  const databaseUrl = gw.database!.url;
  await waitUntil(
    async () => (await recordedCostCents(databaseUrl, key.id)).calls === 1,
    'the call recorded',
  );
  return recordedCostCents(databaseUrl, key.id);
}

/** Serves `streams` by the first path segment of each request (`/<name>/...`), on port 0. */
async function startUpstream(streams: Readonly<Record<string, ScriptedStream>>): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const stream = streams[req.url?.split('/')[1] ?? ''];
      if (stream === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (stream.cut === true) res.write(stream.text, () => res.destroy());
      else res.end(stream.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * How many files of `src/` one streamed chat call enters, from the moment the gateway has its
 * request to its last byte: a Chat Completions client, streaming, on an Anthropic deployment (the
 * Chat -> Messages translation), against the Anthropic fake, on the embedded default. Counted with
 * V8's precise coverage (function call counts): after a warm-up call the counters are reset, one
 * call is made, and every `src/` file with a function that ran is listed, by top-level folder.
 * Start-up, timers and the warm-up do not count; what the call's observers do after its last byte
 * (records, settlement) does, as it runs in the same turns. Then the walk of each upstream event:
 * the files whose calls grow with the answer's length, from two calls 100 events apart.
 *
 * Run: `node scripts/streamed-walk.ts` (`--files` lists the files).
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnthropicFake } from '../test/fakes/anthropic-fake.ts';
import { startTestGateway } from '../test/helpers/gateway.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

async function streamedCall(url: string, key: string, content = 'one two three four five'): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude',
      stream: true,
      messages: [{ role: 'user', content }],
    }),
  });
  if (response.status !== 200) throw new Error(`the call answered ${response.status}: ${await response.text()}`);
  await response.text();
}

/** Calls of each `src/` file's functions since the last take, for the files with any. */
async function callsByFile(session: Session): Promise<Map<string, number>> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const calls = new Map<string, number>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(SRC)) continue;
    const count = script.functions.reduce((sum, fn) => sum + fn.ranges[0].count, 0);
    if (count > 0) calls.set(relative(SRC, path), count);
  }
  return calls;
}

/**
 * The files entered once or more per upstream event: those whose calls grow by at least the
 * number of events a longer answer adds (the fake streams one delta event per word).
 */
async function perEventFiles(session: Session, url: string, key: string): Promise<string[]> {
  const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
  await callsByFile(session);
  await streamedCall(url, key, words(5));
  const short = await callsByFile(session);
  await streamedCall(url, key, words(5 + EXTRA_EVENTS));
  const long = await callsByFile(session);
  return [...long]
    .filter(([file, count]) => count - (short.get(file) ?? 0) >= EXTRA_EVENTS)
    .map(([file]) => file)
    .sort();
}

const EXTRA_EVENTS = 100;

const anthropic = await new AnthropicFake({ apiKey: 'sk-ant-walk' }).start();
const gateway = await startTestGateway({ storage: 'embedded', redis: false });
try {
  const created = await fetch(`${gateway.url}/admin/deployments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: anthropic.url,
      apiKey: 'sk-ant-walk',
    }),
  });
  if (created.status !== 201) throw new Error(`deployment not created: ${await created.text()}`);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await streamedCall(gateway.url, gateway.masterKey);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await callsByFile(session);
  await streamedCall(gateway.url, gateway.masterKey);
  const files = [...(await callsByFile(session)).keys()].sort();
  const folders = new Set(files.map((file) => file.split('/')[0]));
  console.log(`one streamed chat call on an Anthropic deployment enters ${files.length} files in ${folders.size} folders`);
  if (process.argv.includes('--files')) for (const file of files) console.log(`  ${file}`);
  const perEvent = await perEventFiles(session, gateway.url, gateway.masterKey);
  const eventFolders = new Set(perEvent.map((file) => file.split('/')[0]));
  console.log(`each upstream event enters ${perEvent.length} files in ${eventFolders.size} folders`);
  if (process.argv.includes('--files')) for (const file of perEvent) console.log(`  ${file}`);
  session.disconnect();
} finally {
  await gateway.close();
  await anthropic.close();
}

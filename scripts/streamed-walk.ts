/**
 * How many files of `src/` one streamed chat call enters, from the moment the gateway has its
 * request to its last byte: a Chat Completions client, streaming, on an Anthropic deployment (the
 * Chat -> Messages translation), against the Anthropic fake, on the embedded default. Counted with
 * V8's precise coverage (function call counts): after a warm-up call the counters are reset, one
 * call is made, and every `src/` file with a function that ran is listed, by top-level folder.
 * Start-up, timers and the warm-up do not count; what the call's observers do after its last byte
 * (records, settlement) does, as it runs in the same turns.
 *
 * Run: `node scripts/streamed-walk.ts` (`--files` lists the files).
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnthropicFake } from '../test/fakes/anthropic-fake.ts';
import { startTestGateway } from '../test/helpers/gateway.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

async function streamedCall(url: string, key: string): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude',
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five' }],
    }),
  });
  if (response.status !== 200) throw new Error(`the call answered ${response.status}: ${await response.text()}`);
  await response.text();
}

/** The `src/` files with a function that ran since the last take. */
async function filesEntered(session: Session): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(SRC)) continue;
    if (script.functions.some((fn) => fn.ranges[0].count > 0)) files.add(relative(SRC, path));
  }
  return [...files].sort();
}

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
  await filesEntered(session);
  await streamedCall(gateway.url, gateway.masterKey);
  const files = await filesEntered(session);
  const folders = new Set(files.map((file) => file.split('/')[0]));
  console.log(`one streamed chat call on an Anthropic deployment enters ${files.length} files in ${folders.size} folders`);
  if (process.argv.includes('--files')) for (const file of files) console.log(`  ${file}`);
  session.disconnect();
} finally {
  await gateway.close();
  await anthropic.close();
}

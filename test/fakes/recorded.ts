/**
 * Recorded upstream answers, kept beside each provider's adapter (src/providers/<provider>/fixtures/)
 * and named after what they protect. Three kinds:
 *   <name>.http  a whole HTTP answer as the provider sends it: status line, headers, a blank line,
 *                the body (an error's status and headers, Retry-After or x-amzn-errortype, matter);
 *   <name>.json  a JSON body;
 *   <name>.sse   stream text, written as it is: a whole stream, or the event a broken stream ends with.
 */
import { readFileSync } from 'node:fs';
import type { FakeReply } from './fake-responder.ts';

export type RecordedProvider = 'openai' | 'azure' | 'anthropic' | 'gemini' | 'bedrock';

/** A fixture file's text. */
export function recordedText(provider: RecordedProvider, name: string): string {
  return readFileSync(new URL(`../../src/providers/${provider}/fixtures/${name}`, import.meta.url), 'utf8');
}

/** A `.json` fixture, parsed. */
export function recordedJson(provider: RecordedProvider, name: string): unknown {
  return JSON.parse(recordedText(provider, name));
}

/** A `.http` fixture as a fake's answer: its status, headers and body (JSON parsed, text otherwise). */
export function recordedReply(provider: RecordedProvider, name: string): FakeReply {
  const text = recordedText(provider, name);
  const split = text.indexOf('\n\n');
  if (split < 0) throw new Error(`${name}: no blank line between the headers and the body`);
  const [statusLine, ...headerLines] = text.slice(0, split).split('\n');
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`${name}: no status line`);
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const raw = text.slice(split + 2).trim();
  const isJson = headers['content-type']?.startsWith('application/json') ?? false;
  return { status, headers, body: isJson ? (JSON.parse(raw) as unknown) : raw };
}

/** The provider's own wording in a recorded error body: what no client may see (SPEC.md, Errors). */
export function providerWording(reply: FakeReply): string {
  const body = reply.body as { message?: string; error?: { message?: string } };
  const wording = body.error?.message ?? body.message;
  if (typeof wording !== 'string' || wording === '') throw new Error('the recorded error has no message');
  return wording;
}

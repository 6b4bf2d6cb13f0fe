import type { Deployment } from '../deployments/deployment.ts';
import { catalogEntryOf } from '../deployments/deployment-catalog.ts';
import { answerBytesWithModel } from '../formats/answer-text.ts';
import { heapText } from '../formats/heap-text.ts';
import { isRecord } from '../formats/json.ts';
import { valueReplacedParts } from '../formats/json-members.ts';
import { shareRequestText } from '../formats/request-text.ts';
import { isUtf8Chunks } from '../formats/utf8-chunks.ts';
import { type AttemptResult, answerJsonText } from '../pipeline/attempt-result.ts';
import type { AbortSource } from '../pipeline/call-signal.ts';
import { type EndpointBody, multipartUploadOf } from '../pipeline/endpoint.ts';
import { withPublicModel } from '../pipeline/public-model.ts';
import type { OperationPlan } from '../providers/registry.ts';
import type {
  DeploymentTarget,
  MultipartPassThrough,
  ProviderAdapter,
  StreamEvent,
  TranslationTarget,
  Usage,
} from '../providers/types.ts';
import { eventReaderOf } from './event-reader.ts';
import { exchange, joined, readAnswerChunks } from './exchange.ts';
import { endOfFirstEvent } from './first-event.ts';
import type { UpstreamClient, UpstreamResponse, UpstreamTimeouts } from './upstream-client.ts';
import { parseUpstreamBody, transportFailure } from './upstream-failure.ts';

type JsonResult = Extract<AttemptResult, { kind: 'json' }>;

export interface AttemptInput {
  deployment: Deployment;
  target: DeploymentTarget;
  provider: ProviderAdapter;
  plan: OperationPlan;
  /** The client's body; its `model` is the public model the answer will name. */
  body: EndpointBody;
  stream: boolean;
  signal: AbortSource;
  timeouts: UpstreamTimeouts;
  /** The client's headers a provider may forward (CallContext.clientHeaders). */
  clientHeaders?: Readonly<Record<string, string>>;
  /** The call's input estimate when a stage already made it, for a stream translator's first event. */
  inputTokens?: number;
}

/**
 * The body in the provider's operation format, with the upstream model. One shallow copy: the
 * adapter serialises it once, or sends the client's text with the model edited when it changes
 * nothing else (formats/request-text.ts; docs/decisions/hot-path.md, Client text sent with the
 * model edited).
 */
function upstreamBody(input: AttemptInput): Record<string, unknown> {
  const translated =
    input.plan.kind === 'translated'
      ? input.plan.translator.request(input.body, translationTarget(input.deployment))
      : input.body;
  const source = translated as Record<string, unknown>;
  const copy = { ...source, model: input.target.upstreamModel };
  // The client's text, with the fields it is true of, goes with the copy (formats/request-text.ts).
  shareRequestText(copy, source);
  return copy;
}

/** What a translator reads of the deployment's model (catalog entry with the deployment's overrides). */
function translationTarget(deployment: Deployment): TranslationTarget {
  const entry = catalogEntryOf(deployment);
  return { maxOutputTokens: entry.maxOutputTokens, reasoning: entry.capabilities.reasoning };
}

/** A multipart call's upload, opened for this attempt (it throws when an earlier attempt took it). */
function multipartOf(input: AttemptInput): MultipartPassThrough | undefined {
  return multipartUploadOf(input.body)?.open();
}

/**
 * One upstream attempt (DESIGN.md section 4: translate request -> upstream attempt -> classify).
 * Throws a classified GatewayError on failure, or ClientAbortedError when the client left.
 */
export async function attemptUpstream(client: UpstreamClient, input: AttemptInput): Promise<AttemptResult> {
  const body = upstreamBody(input);
  const built = input.plan.adapter.buildRequest({
    target: input.target,
    body,
    stream: input.stream,
    multipart: multipartOf(input),
    clientHeaders: input.clientHeaders,
  });
  // Only providers with fetched credentials pay for the await (the cloud credential chains).
  const authorize = input.provider.authorize;
  const request = authorize === undefined ? built : await authorize(built, input.target);
  const native = input.plan.kind === 'native';
  const response = await exchange(client, request, input.signal, input.timeouts, input.provider, native);
  return input.stream
    ? streamResult(input, response, body)
    : jsonResult(input, response, body, client.maxAnswerBytes);
}

/**
 * The media type of a text answer (`text/plain`, `text/vtt`, ...), or null for anything else,
 * which is read as JSON (RFC 8259 section 11: `application/json`; also `+json` types and the
 * untyped or mislabelled answers of some compatible servers).
 */
function textType(contentType: string | undefined): string | null {
  const type = contentType?.split(';', 1)[0].trim().toLowerCase() ?? '';
  return /^text\/[a-z0-9.+-]+$/.test(type) ? contentType!.trim() : null;
}

async function jsonResult(
  input: AttemptInput,
  response: UpstreamResponse,
  sentBody: Record<string, unknown>,
  maxAnswerBytes: number,
): Promise<AttemptResult> {
  const chunks = await readAnswerChunks(response, input.signal, maxAnswerBytes);
  // A text answer (transcription text, srt, vtt) is never JSON-parsed: "42" is a transcript.
  // The adapter decides whether its operation may answer text (image answers may not).
  const contentType = textType(response.headers['content-type']);
  const passed = contentType === null ? passedOnResult(input, chunks) : null;
  if (passed !== null) return passed;
  const bytes = joined(chunks);
  const text = heapText(bytes);
  const upstreamAnswer = contentType === null ? parseUpstreamBody(text) : text;
  const parsed = input.plan.adapter.parseResponse(upstreamAnswer, input.target, sentBody);
  const usage = input.plan.adapter.usageOf(parsed);
  if (typeof parsed === 'string') {
    return {
      kind: 'json',
      answer: parsed,
      usage,
      textContentType: contentType ?? 'text/plain; charset=utf-8',
    };
  }
  const result = objectResult(input, bytes, text, upstreamAnswer, parsed, usage);
  // Read on the upstream's own answer, before a translator made it another format's.
  const filtered = input.plan.adapter.contentFilterOf?.(parsed);
  if (filtered != null) result.contentFilter = filtered;
  return result;
}

/**
 * A native answer passed on unparsed (docs/decisions/hot-path.md, Native answers not parsed): its
 * bytes with the model renamed, its usage read from them, parsed only if a stage reads `answer`
 * (an extension's afterUpstream, a payload sample). Null where the route or the bytes do not
 * allow it: a translated route, an upstream with a content filter to read, an operation with no
 * way to read its answers unparsed, bytes that are not UTF-8 or not provably of its shape.
 */
function passedOnResult(input: AttemptInput, chunks: readonly Buffer[]): JsonResult | null {
  const { adapter, kind } = input.plan;
  if (kind !== 'native' || adapter.readPassedOn === undefined || adapter.contentFilterOf !== undefined) {
    return null;
  }
  const read = isUtf8Chunks(chunks) ? adapter.readPassedOn(chunks) : null;
  if (read === null) return null;
  const json = valueReplacedParts(chunks, read.model, Buffer.from(JSON.stringify(input.body.model)));
  return new PassedOnAnswer(json, read.usage);
}

/**
 * A passed-on answer: its parts and usage, `answer` parsed on first read. A class rather than an
 * object literal with a getter: each literal's own getter closure put its result in dictionary
 * mode, and those results were a large share of what a worker promoted
 * (docs/decisions/hot-path.md, Passed-on answers as class instances). The getter is the
 * prototype's, so a copy of a result names `answer` itself (response-cache.ts).
 */
class PassedOnAnswer {
  readonly kind = 'json';
  readonly json: readonly Buffer[];
  readonly usage: Usage | null;
  #answer: unknown;

  constructor(json: readonly Buffer[], usage: Usage | null) {
    this.json = json;
    this.usage = usage;
  }

  get answer(): unknown {
    this.#answer ??= parseUpstreamBody(answerJsonText(this.json));
    return this.#answer;
  }
}

/** A JSON answer that is an object: translated, or the upstream's own text bar the model name. */
function objectResult(
  input: AttemptInput,
  bytes: Buffer,
  text: string,
  upstreamAnswer: unknown,
  parsed: unknown,
  usage: Usage | null,
): JsonResult {
  if (input.plan.kind === 'translated') {
    const answer = input.plan.translator.response(parsed, input.body);
    return { kind: 'json', answer: withPublicModel(answer, input.body.model), usage };
  }
  // The adapter validated the upstream's own object: its bytes are the answer, bar the model name.
  const json =
    parsed === upstreamAnswer && isRecord(parsed)
      ? answerBytesWithModel(bytes, text, parsed, input.body.model)
      : null;
  const answer = withPublicModel(parsed, input.body.model);
  return json === null ? { kind: 'json', answer, usage } : { kind: 'json', answer, json, usage };
}

function streamResult(
  input: AttemptInput,
  response: UpstreamResponse,
  sentBody: Record<string, unknown>,
): AttemptResult {
  const decoder = input.plan.adapter.createStreamDecoder?.(input.target, {
    body: sentBody,
    publicModel: input.body.model,
    passedOn: input.plan.kind === 'native',
  });
  if (decoder === undefined) throw new Error(`adapter for ${input.target.provider} cannot stream`);
  const reader = eventReaderOf(decoder);
  const translator =
    input.plan.kind === 'translated'
      ? input.plan.translator.createStreamTranslator(input.body, { inputTokens: input.inputTokens })
      : null;
  // The decoder names the public model; a translator carries it over from the events it reads.
  const through = (events: StreamEvent[]): StreamEvent[] =>
    translator === null ? events : events.flatMap((event) => translator.push(event));
  let firstByteAtMs: number | null = null;
  async function* events(): AsyncGenerator<readonly StreamEvent[]> {
    try {
      for await (const received of response.body) {
        let chunk = received as Uint8Array;
        if (firstByteAtMs === null) {
          firstByteAtMs = Date.now();
          // The first event goes to the client on its own (api/v1/respond.ts lets it leave),
          // not after every other event of the upstream's first chunk has been decoded.
          const end = endOfFirstEvent(chunk);
          if (end < chunk.length) {
            const head = through(reader.push(chunk.subarray(0, end)));
            if (head.length > 0) yield head;
            chunk = chunk.subarray(end);
          }
        }
        const batch = through(reader.push(chunk));
        if (batch.length > 0) yield batch;
      }
    } catch (error) {
      throw transportFailure(error, input.signal);
    }
    const last = [...through(reader.finish()), ...(translator === null ? [] : translator.finish())];
    if (last.length > 0) yield last;
  }
  return {
    kind: 'stream',
    events: events(),
    usage: () => reader.usage(),
    contentFilter: decoder.contentFilter?.bind(decoder),
    firstByteAtMs: () => firstByteAtMs,
  };
}

/**
 * A Bedrock Runtime stand-in on port 0 speaking the documented wire formats: Converse JSON and
 * ConverseStream as an `application/vnd.amazon.eventstream` body with valid CRCs. It verifies every
 * request's SigV4 signature against known credentials (403 `InvalidSignatureException` /
 * `UnrecognizedClientException` when wrong), records what it received, and takes scripted failures
 * (see fake-server.ts).
 *
 * Answers are deterministic: the text is `echo: <last user text>`; with tools offered and either a
 * forced tool choice or the word "tool" in the last user text (and no Claude `tool_choice: none`),
 * it calls the chosen (or first) tool with `{ "echo": <last user text> }`. Prompt caching, extended
 * thinking and the toolConfig check: see bedrock-fake-converse.ts.
 *
 * CountTokens (`POST /model/{id}/count-tokens`) takes an `invokeModel` body for Claude foundation
 * models only, as Bedrock does, and counts the words of its system prompt and messages.
 *
 * InvokeModel and InvokeModelWithResponseStream (`/invoke`, `/invoke-with-response-stream`) serve
 * Claude models: the body Claude takes on Bedrock is checked, answered as the Anthropic fake
 * answers (a signed thinking block first when thinking is asked for), and streamed as `chunk`
 * events carrying each Anthropic event base64 in `bytes`.
 */
import {
  encodeEventMessage,
  encodeExceptionMessage,
} from '../../src/providers/bedrock/event-stream-encoder.ts';
import type { AwsCredentials } from '../../src/providers/bedrock/sigv4.ts';
import { claudeAnswer, inputTokensOf } from './anthropic-fake.ts';
import {
  type CacheUsage,
  type ConverseBody,
  type ConverseStop,
  converseValidationError,
  FakePromptCache,
  fakeReasoning,
  stopAt,
} from './bedrock-fake-converse.ts';
import { structuredOutputRefusal } from './claude-schema-limits.ts';
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { countWords, FakeServer, type RecordedRequest } from './fake-server.ts';
import { scriptedToolCall } from './scripted-tool-call.ts';
import { verifySigV4 } from './sigv4-verify.ts';

export const BEDROCK_FAKE_CREDENTIALS: Readonly<AwsCredentials> = Object.freeze({
  accessKeyId: 'AKIDFAKEBEDROCK0001',
  secretAccessKey: 'fakeSecret/K7MDENG+bPxRfiCYFAKEKEY',
});
export const BEDROCK_FAKE_REGION = 'us-east-1';

export interface BedrockRecordedRequest extends RecordedRequest {
  /** The model id from the path, decoded. */
  modelId: string | null;
  operation: Operation | null;
}

export interface BedrockFakeOptions {
  credentials?: AwsCredentials;
  region?: string;
}

interface Reply {
  text: string;
  reasoning: string | null;
  tool: { toolUseId: string; name: string; input: unknown } | null;
  stop: ConverseStop | null;
  cache: CacheUsage;
}

const AMZN_REQUEST = { 'x-amzn-requestid': 'fake-request' };

const OPERATIONS = [
  'converse',
  'converse-stream',
  'count-tokens',
  'invoke',
  'invoke-with-response-stream',
] as const;
type Operation = (typeof OPERATIONS)[number];

export class BedrockFake extends FakeServer<BedrockRecordedRequest> {
  readonly #credentials: AwsCredentials;
  readonly #region: string;
  readonly #cache = new FakePromptCache();
  #toolCalls = 0;
  #invocations = 0;

  constructor(options: BedrockFakeOptions = {}) {
    super(
      (request, responder) => this.#route(request, responder),
      (request) => {
        const route = parseRoute(request.url);
        return { ...request, modelId: route?.modelId ?? null, operation: route?.operation ?? null };
      },
    );
    this.#credentials = options.credentials ?? BEDROCK_FAKE_CREDENTIALS;
    this.#region = options.region ?? BEDROCK_FAKE_REGION;
  }

  static async start(options: BedrockFakeOptions = {}): Promise<BedrockFake> {
    return new BedrockFake(options).start();
  }

  /** Use as the deployment's `baseUrl`. */
  get baseUrl(): string {
    return this.url;
  }

  get region(): string {
    return this.#region;
  }

  /** The deployment `apiKey` these credentials make. */
  get apiKey(): string {
    const { accessKeyId, secretAccessKey, sessionToken } = this.#credentials;
    return sessionToken
      ? `${accessKeyId}:${secretAccessKey}:${sessionToken}`
      : `${accessKeyId}:${secretAccessKey}`;
  }

  /** The next request gets this answer instead of the echo. */
  enqueueAnswer(answer: FakeReply): void {
    this.enqueue(answer);
  }

  /** The next stream sends `afterEvents` events, then an exception message (e.g. `throttlingException`). */
  failNextStream(afterEvents: number, exceptionType: string, message: string): void {
    this.faultNextStream({ afterEvents, action: { raw: encodeExceptionMessage(exceptionType, message) } });
  }

  #route(request: BedrockRecordedRequest, res: FakeResponder): void | Promise<void> {
    const authFailure = verifySigV4(request, {
      credentials: this.#credentials,
      region: this.#region,
      service: 'bedrock',
    });
    if (authFailure) return sendError(res, 403, authFailure.type, authFailure.message);
    if (request.method !== 'POST' || request.operation === null) {
      return sendError(res, 404, 'UnknownOperationException', 'Unknown operation');
    }
    if (request.operation === 'count-tokens') return countTokens(request, res);
    if (request.operation === 'invoke' || request.operation === 'invoke-with-response-stream') {
      return this.#invoke(request, res);
    }
    const body = request.body as ConverseBody | undefined;
    if (!body || !Array.isArray(body.messages) || body.messages.length === 0) {
      return sendError(
        res,
        400,
        'ValidationException',
        'Malformed input request: messages must not be empty',
      );
    }
    const invalid = converseValidationError(body);
    if (invalid) return sendError(res, 400, 'ValidationException', invalid);
    const reply = this.#reply(body, request.modelId ?? '');
    if (request.operation === 'converse') return res.json(200, converseAnswer(reply), AMZN_REQUEST);
    return res.frames(streamFrames(reply), {
      'content-type': 'application/vnd.amazon.eventstream',
      ...AMZN_REQUEST,
    });
  }

  /**
   * InvokeModel for Claude: the body Claude takes on Bedrock (`anthropic_version`
   * `bedrock-2023-05-31`, betas as `anthropic_beta`, no `model`, no `stream`), answered as Claude
   * answers (anthropic-fake.ts); the stream is an event stream of `chunk` events, each one
   * Anthropic stream event as base64 JSON in `bytes`, with Bedrock's invocation metrics on
   * message_stop.
   */
  #invoke(request: BedrockRecordedRequest, res: FakeResponder): void | Promise<void> {
    const refusal = invokeRefusal(request);
    if (refusal !== null) return sendError(res, 400, 'ValidationException', refusal);
    const { message, events } = claudeAnswer(
      request.body as Record<string, unknown>,
      request.modelId ?? '',
      ++this.#invocations,
    );
    if (request.operation === 'invoke') return res.json(200, message, AMZN_REQUEST);
    const frames = events.map(({ data }) => {
      const event = data as Record<string, unknown>;
      const withMetrics =
        event.type === 'message_stop'
          ? { ...event, 'amazon-bedrock-invocationMetrics': { inputTokenCount: 1, outputTokenCount: 1 } }
          : event;
      return encodeEventMessage('chunk', {
        bytes: Buffer.from(JSON.stringify(withMetrics)).toString('base64'),
      });
    });
    return res.frames(frames, { 'content-type': 'application/vnd.amazon.eventstream', ...AMZN_REQUEST });
  }

  #reply(body: ConverseBody, modelId: string): Reply {
    const messages = body.messages ?? [];
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const lastText = (lastUser?.content ?? [])
      .flatMap((block) => (typeof block.text === 'string' ? [block.text] : []))
      .join(' ');
    const tools = (body.toolConfig?.tools ?? []).filter((tool) => tool.toolSpec);
    const choice = body.toolConfig?.toolChoice;
    const wantsTool =
      tools.length > 0 &&
      body.additionalModelRequestFields?.tool_choice?.type !== 'none' &&
      (choice?.any !== undefined || choice?.tool !== undefined || /\btool\b/i.test(lastText));
    const name = choice?.tool?.name ?? tools[0]?.toolSpec?.name;
    const scripted =
      body.additionalModelRequestFields?.tool_choice?.type === 'none'
        ? null
        : scriptedToolCall(
            lastText,
            tools.map((tool) => String(tool.toolSpec?.name)),
          );
    const call = scripted ?? (wantsTool && name ? { name, input: { echo: lastText } } : null);
    const { text, stop } = stopAt(body, `echo: ${lastText}`, modelId);
    return {
      text,
      reasoning: fakeReasoning(body, lastText),
      tool: call === null ? null : { toolUseId: `tooluse_fake${++this.#toolCalls}`, ...call },
      stop: call === null ? stop : null,
      cache: this.#cache.usage(body),
    };
  }
}

function usageOf(reply: Reply): Record<string, number> {
  const { uncached, ...cache } = reply.cache;
  const outputTokens = countWords(reply.text);
  const cached = (cache.cacheReadInputTokens ?? 0) + (cache.cacheWriteInputTokens ?? 0);
  return { inputTokens: uncached, outputTokens, totalTokens: uncached + cached + outputTokens, ...cache };
}

function converseAnswer(reply: Reply): unknown {
  const content: unknown[] = [{ text: reply.text }];
  if (reply.reasoning)
    content.unshift({
      reasoningContent: { reasoningText: { text: reply.reasoning, signature: 'c2lnbmF0dXJl' } },
    });
  if (reply.tool) content.push({ toolUse: reply.tool });
  return {
    output: { message: { role: 'assistant', content } },
    ...stopOf(reply),
    usage: usageOf(reply),
    metrics: { latencyMs: 1 },
  };
}

/** `stopReason`, and the model's fields the request asked for (a stop sequence's, see stopAt). */
function stopOf(reply: Reply): Record<string, unknown> {
  if (reply.tool) return { stopReason: 'tool_use' };
  if (reply.stop === null) return { stopReason: 'end_turn' };
  const fields = reply.stop.fields;
  return { stopReason: 'stop_sequence', ...(fields ? { additionalModelResponseFields: fields } : {}) };
}

/** The ConverseStream events of a reply; `p` is the padding Bedrock adds to every event. */
function streamFrames(reply: Reply): Uint8Array[] {
  const event = (type: string, payload: Record<string, unknown>) =>
    encodeEventMessage(type, { ...payload, p: 'abcdefgh' });
  const frames = [event('messageStart', { role: 'assistant' })];
  // Reasoning, when there is any, is block 0; the text and the tool call follow.
  const at = reply.reasoning ? 1 : 0;
  if (reply.reasoning) {
    frames.push(
      event('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { text: reply.reasoning } },
      }),
      event('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { signature: 'c2lnbmF0dXJl' } },
      }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
    );
  }
  const pieces = reply.text.split(' ');
  for (const [i, piece] of pieces.entries()) {
    frames.push(
      event('contentBlockDelta', { contentBlockIndex: at, delta: { text: i === 0 ? piece : ` ${piece}` } }),
    );
  }
  frames.push(event('contentBlockStop', { contentBlockIndex: at }));
  if (reply.tool) {
    const input = JSON.stringify(reply.tool.input);
    const half = Math.floor(input.length / 2);
    frames.push(
      event('contentBlockStart', {
        contentBlockIndex: at + 1,
        start: { toolUse: { toolUseId: reply.tool.toolUseId, name: reply.tool.name } },
      }),
      event('contentBlockDelta', {
        contentBlockIndex: at + 1,
        delta: { toolUse: { input: input.slice(0, half) } },
      }),
      event('contentBlockDelta', {
        contentBlockIndex: at + 1,
        delta: { toolUse: { input: input.slice(half) } },
      }),
      event('contentBlockStop', { contentBlockIndex: at + 1 }),
    );
  }
  frames.push(
    event('messageStop', stopOf(reply)),
    event('metadata', { usage: usageOf(reply), metrics: { latencyMs: 1 } }),
  );
  return frames;
}

function parseRoute(url: string): { modelId: string; operation: Operation } | null {
  const path = url.split('?')[0];
  const segments = path.split('/');
  // ['', 'model', '<encoded id>', 'converse' | 'converse-stream' | 'count-tokens']
  if (segments.length !== 4 || segments[1] !== 'model') return null;
  const operation = OPERATIONS.find((name) => name === segments[3]);
  if (operation === undefined) return null;
  return { modelId: decodeURIComponent(segments[2]), operation };
}

/** First-party betas Bedrock answers 400 "invalid beta flag" to (what Claude Code sends it as they are). */
const REFUSED_BETAS =
  /^(advanced-tool-use-|thinking-token-count-|prompt-caching-scope-|oauth-|token-counting-)/;

/** Why Bedrock would refuse an InvokeModel body for Claude, or null. */
function invokeRefusal(request: BedrockRecordedRequest): string | null {
  if (!/(^|\.)anthropic\.claude-/.test(request.modelId ?? ''))
    return 'This fake serves InvokeModel for Claude only.';
  const body = request.body as Record<string, unknown> | undefined;
  if (body === undefined || body.anthropic_version !== 'bedrock-2023-05-31') {
    return 'Malformed input request: #: required key [anthropic_version] not found';
  }
  for (const key of ['model', 'stream']) {
    if (key in body) return `Malformed input request: #: extraneous key [${key}] is not permitted`;
  }
  if (typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
    return 'Malformed input request: #: required key [max_tokens] not found';
  }
  const betas = body.anthropic_beta;
  if (betas !== undefined && !(Array.isArray(betas) && betas.every((beta) => typeof beta === 'string'))) {
    return 'Malformed input request: #/anthropic_beta: expected type: JSONArray';
  }
  if (Array.isArray(betas) && betas.some((beta) => REFUSED_BETAS.test(String(beta))))
    return 'invalid beta flag';
  if (JSON.stringify(body.system ?? '').includes('x-anthropic-billing-header')) {
    return 'x-anthropic-billing-header is a reserved keyword and may not be used in the system prompt.';
  }
  return structuredOutputRefusal(body);
}

/**
 * CountTokens with an InvokeModel body: a Claude foundation model (not an inference profile), and
 * the body Claude takes on Bedrock (`anthropic_version`, `max_tokens`, no `model`).
 */
function countTokens(request: BedrockRecordedRequest, res: FakeResponder): void {
  const refusal = countTokensRefusal(request);
  if (refusal !== null) sendError(res, 400, 'ValidationException', refusal);
  else res.json(200, { inputTokens: inputTokensOf(invokeBodyOf(request)!) }, AMZN_REQUEST);
}

/** Why Bedrock would refuse the count, or null. */
function countTokensRefusal(request: BedrockRecordedRequest): string | null {
  if (!/^anthropic\.claude-/.test(request.modelId ?? '')) {
    return "The provided model doesn't support counting tokens.";
  }
  const body = invokeBodyOf(request);
  if (body === null) return 'input is required';
  if (
    body.anthropic_version !== 'bedrock-2023-05-31' ||
    typeof body.max_tokens !== 'number' ||
    'model' in body ||
    !Array.isArray(body.messages)
  ) {
    return 'Malformed input request';
  }
  return null;
}

/** The InvokeModel body of a CountTokens request (base64 JSON), or null. */
function invokeBodyOf(request: BedrockRecordedRequest): Record<string, unknown> | null {
  const encoded = (request.body as { input?: { invokeModel?: { body?: unknown } } } | undefined)?.input
    ?.invokeModel?.body;
  if (typeof encoded !== 'string') return null;
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<string, unknown>;
}

/** `AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request, SignedHeaders=a;b, Signature=hex`. */
function sendError(res: FakeResponder, status: number, type: string, message: string): void {
  res.json(
    status,
    { message },
    { ...AMZN_REQUEST, 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  );
}

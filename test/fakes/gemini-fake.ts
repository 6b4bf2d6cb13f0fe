/**
 * A Gemini API stand-in on port 0 speaking the documented wire formats: `generateContent` (JSON),
 * `streamGenerateContent?alt=sse` (server-sent events, `data: <GenerateContentResponse>` with CRLF
 * line ends, as Google sends them) and `batchEmbedContents`. It checks `x-goog-api-key` the way the
 * real API does (a wrong key is 400 INVALID_ARGUMENT / API_KEY_INVALID, a missing one 403
 * PERMISSION_DENIED), records what it received, and takes scripted failures (see fake-server.ts).
 *
 * Answers are deterministic: each candidate's text is `echo: <last user text>` (candidate i > 0:
 * `echo <i>: ...`); with function declarations and either mode ANY or the word "tool" in the last
 * user text, it calls the allowed (or first) function with `{ "echo": <last user text> }`.
 * Embeddings are derived from the text, `outputDimensionality` long (default 8).
 */
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { countWords, FakeServer, type RecordedRequest } from './fake-server.ts';
import { scriptedToolCall } from './scripted-tool-call.ts';

export const GEMINI_FAKE_API_KEY = 'fake-gemini-key-0001';

const METHODS = ['generateContent', 'streamGenerateContent', 'batchEmbedContents', 'countTokens'] as const;

export interface GeminiRecordedRequest extends RecordedRequest {
  /** `models/<name>` from the path. */
  model: string | null;
  /** The RPC: generateContent, streamGenerateContent or batchEmbedContents. */
  rpc: (typeof METHODS)[number] | null;
}

interface GenerateBody {
  contents?: Array<{ role?: string; parts?: Array<{ text?: string }> }>;
  systemInstruction?: { parts?: Array<{ text?: string }> };
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: { candidateCount?: number };
}

const JSON_TYPE = { 'content-type': 'application/json; charset=UTF-8' };

export class GeminiFake extends FakeServer<GeminiRecordedRequest> {
  readonly #apiKey: string;

  constructor(options: { apiKey?: string } = {}) {
    super(
      (request, responder) => this.#route(request, responder),
      (request) => {
        const route = parseRoute(request.url);
        return { ...request, model: route?.model ?? null, rpc: route?.method ?? null };
      },
    );
    this.#apiKey = options.apiKey ?? GEMINI_FAKE_API_KEY;
  }

  static async start(options: { apiKey?: string } = {}): Promise<GeminiFake> {
    return new GeminiFake(options).start();
  }

  /** Use as the deployment's `baseUrl` (the API version is part of it, as in the default). */
  get baseUrl(): string {
    return `${this.url}/v1beta`;
  }

  get apiKey(): string {
    return this.#apiKey;
  }

  /** The next request gets this answer instead of the echo. */
  enqueueAnswer(answer: FakeReply): void {
    this.enqueue(answer);
  }

  /** The next stream sends `afterEvents` events, then an `{ error }` event, and ends. */
  failNextStream(afterEvents: number, error: { code: number; status: string; message: string }): void {
    this.faultNextStream({ afterEvents, action: { raw: sseEvent({ error }) } });
  }

  #route(request: GeminiRecordedRequest, res: FakeResponder): void | Promise<void> {
    const key = request.headers['x-goog-api-key'];
    if (key === undefined) {
      return sendError(
        res,
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity).",
      );
    }
    if (key !== this.#apiKey) {
      return sendError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
        },
      ]);
    }
    if (request.method !== 'POST' || request.rpc === null || request.model === null) {
      return sendError(res, 404, 'NOT_FOUND', 'Method not found.');
    }
    if (request.rpc === 'streamGenerateContent' && !request.url.includes('alt=sse')) {
      return sendError(res, 400, 'INVALID_ARGUMENT', 'The fake streams only with alt=sse.');
    }
    if (request.rpc === 'batchEmbedContents') return res.json(200, embedAnswer(request.body), JSON_TYPE);
    if (request.rpc === 'countTokens') return countTokens(request.body, res);
    const body = request.body as GenerateBody | undefined;
    if (!body || !Array.isArray(body.contents) || body.contents.length === 0) {
      return sendError(
        res,
        400,
        'INVALID_ARGUMENT',
        '* GenerateContentRequest.contents: contents is not specified',
      );
    }
    const answer = generateAnswer(body, request.model);
    if (request.rpc === 'generateContent') return res.json(200, answer.whole, JSON_TYPE);
    // CRLF line ends, as Google sends them.
    return res.frames(answer.chunks.map(sseEvent), {
      'content-type': 'text/event-stream',
      'x-content-type-options': 'nosniff',
    });
  }
}

interface Answer {
  whole: unknown;
  chunks: unknown[];
}

function generateAnswer(body: GenerateBody, model: string): Answer {
  const contents = body.contents ?? [];
  const lastUser = [...contents].reverse().find((content) => content.role === 'user');
  const lastText = (lastUser?.parts ?? [])
    .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join(' ');
  const promptTokens = countWords(
    [...(body.systemInstruction?.parts ?? []), ...contents.flatMap((content) => content.parts ?? [])]
      .map((part) => part.text ?? '')
      .join(' '),
  );
  const config = body.toolConfig?.functionCallingConfig;
  const declarations = (body.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
  const wantsCall =
    declarations.length > 0 &&
    config?.mode !== 'NONE' &&
    (config?.mode === 'ANY' || /\btool\b/i.test(lastText));
  const functionName = config?.allowedFunctionNames?.[0] ?? declarations[0]?.name;
  const count = body.generationConfig?.candidateCount ?? 1;
  const texts = Array.from({ length: count }, (_, i) =>
    i === 0 ? `echo: ${lastText}` : `echo ${i}: ${lastText}`,
  );
  const scripted =
    config?.mode === 'NONE'
      ? null
      : scriptedToolCall(
          lastText,
          declarations.map((declaration) => declaration.name),
        );
  const call =
    scripted !== null
      ? { functionCall: { name: scripted.name, args: scripted.input } }
      : wantsCall && functionName
        ? { functionCall: { name: functionName, args: { echo: lastText } } }
        : null;
  const outputTokens = texts.reduce((sum, text) => sum + countWords(text), 0);
  const usage = {
    promptTokenCount: promptTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: promptTokens + outputTokens,
  };
  const meta = { modelVersion: model.slice('models/'.length), responseId: 'fakeResponse01' };
  const whole = {
    candidates: texts.map((text, index) => ({
      content: { role: 'model', parts: call && index === 0 ? [{ text }, call] : [{ text }] },
      finishReason: 'STOP',
      index,
    })),
    usageMetadata: usage,
    ...meta,
  };
  // Streamed: one chunk per word of every candidate, then a closing chunk with the finish reasons.
  const chunks: unknown[] = [];
  const pieces = texts.map((text) => text.split(' '));
  const longest = Math.max(...pieces.map((list) => list.length));
  for (let w = 0; w < longest; w++) {
    const candidates = pieces.flatMap((list, index) =>
      w < list.length
        ? [{ content: { role: 'model', parts: [{ text: w === 0 ? list[w] : ` ${list[w]}` }] }, index }]
        : [],
    );
    chunks.push({
      candidates,
      usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens },
      ...meta,
    });
  }
  chunks.push({
    candidates: texts.map((_, index) => ({
      content: { role: 'model', parts: call && index === 0 ? [call] : [{ text: '' }] },
      finishReason: 'STOP',
      index,
    })),
    usageMetadata: usage,
    ...meta,
  });
  return { whole, chunks };
}

function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

function embedAnswer(body: unknown): unknown {
  const requests = (
    body as {
      requests?: Array<{ content?: { parts?: Array<{ text?: string }> }; outputDimensionality?: number }>;
    }
  )?.requests;
  return {
    embeddings: (requests ?? []).map((request) => {
      const text = (request.content?.parts ?? []).map((part) => part.text ?? '').join('');
      const dimensions = request.outputDimensionality ?? 8;
      return {
        values: Array.from(
          { length: dimensions },
          (_, i) => ((text.charCodeAt(i % Math.max(1, text.length)) || 0) % 97) / 97,
        ),
      };
    }),
  };
}

/**
 * countTokens with a `generateContentRequest` (Gemini API reference, "Counting tokens"): the
 * words of its system instruction and contents, as the fake counts a prompt.
 */
function countTokens(body: unknown, res: FakeResponder): void {
  const request = (body as { generateContentRequest?: GenerateBody } | undefined)?.generateContentRequest;
  if (request === undefined || !Array.isArray(request.contents) || request.contents.length === 0) {
    sendError(res, 400, 'INVALID_ARGUMENT', '* CountTokensRequest.contents: contents is not specified');
    return;
  }
  const parts = [
    ...(request.systemInstruction?.parts ?? []),
    ...request.contents.flatMap((content) => content.parts ?? []),
  ];
  res.json(200, { totalTokens: countWords(parts.map((part) => part.text ?? '').join(' ')) }, JSON_TYPE);
}

/** `/v1beta/models/<name>:<method>` (the query, such as `alt=sse`, aside). */
function parseRoute(url: string): { model: string; method: (typeof METHODS)[number] } | null {
  const path = url.split('?')[0];
  const colon = path.lastIndexOf(':');
  if (colon === -1) return null;
  const method = path.slice(colon + 1);
  const resource = path
    .slice(0, colon)
    .split('/')
    .filter((segment) => segment !== '');
  // ['v1beta', 'models', '<name>']
  if (resource.length !== 3 || resource[1] !== 'models') return null;
  if (!(METHODS as readonly string[]).includes(method)) return null;
  return { model: `models/${decodeURIComponent(resource[2])}`, method: method as (typeof METHODS)[number] };
}

function sendError(
  res: FakeResponder,
  code: number,
  status: string,
  message: string,
  details?: unknown[],
): void {
  res.json(code, { error: { code, message, status, ...(details ? { details } : {}) } }, JSON_TYPE);
}

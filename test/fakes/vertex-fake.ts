/**
 * Vertex AI's model endpoints on port 0 (Vertex AI REST reference, `publishers.models`):
 * `POST /v1/projects/{project}/locations/{region}/publishers/google/models/{model}:generateContent`
 * (`:streamGenerateContent?alt=sse`) and `.../publishers/anthropic/models/{model}:rawPredict`
 * (`:streamRawPredict`; `.../models/count-tokens:rawPredict` counts a Claude body's tokens), each with an OAuth bearer token the Google OAuth fake issued. Vertex serves
 * Gemini's and Anthropic's own wire formats, so after checking what is Vertex's (the path, the
 * token, Claude's body: `anthropic_version: "vertex-2023-10-16"`, no `model`) the call is answered
 * by the Gemini and Anthropic fakes, to which it is passed on with their keys. Text embeddings
 * (`:predict`, `instances[].content`) it answers itself: `outputDimensionality` values (8 by
 * default) derived from the text, and the text's word count as `statistics.token_count`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { request } from 'undici';
import type { AnthropicFake } from './anthropic-fake.ts';
import { countWords } from './fake-server.ts';
import type { GeminiFake } from './gemini-fake.ts';
import type { GoogleOAuthFake } from './google-oauth-fake.ts';

const MODEL_PATH =
  /^\/v1\/projects\/([a-z][a-z0-9-]+)\/locations\/([a-z0-9-]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

export interface VertexRecordedRequest {
  path: string;
  project: string;
  region: string;
  publisher: string;
  model: string;
  method: string;
  authorization: string | undefined;
  body: Json;
}

export interface VertexUpstreams {
  oauth: GoogleOAuthFake;
  gemini: GeminiFake;
  anthropic: AnthropicFake;
  anthropicKey: string;
}

export class VertexFake {
  readonly #server: Server;
  readonly #upstreams: VertexUpstreams;
  readonly requests: VertexRecordedRequest[] = [];
  #url = '';

  constructor(upstreams: VertexUpstreams) {
    this.#upstreams = upstreams;
    this.#server = createServer((req, res) => {
      this.#serve(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`vertex fake failure: ${String(error)}`);
      });
    });
  }

  get url(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://vertex.invalid');
    const match = MODEL_PATH.exec(url.pathname);
    const body = JSON.parse((await buffer(req)).toString('utf8') || '{}') as Json;
    if (req.method !== 'POST' || match === null) return googleError(res, 404, 'NOT_FOUND', 'Not found');
    const [, project, region, publisher, model, method] = match;
    const authorization = req.headers.authorization;
    this.requests.push({
      path: url.pathname,
      project,
      region,
      publisher,
      model,
      method,
      authorization,
      body,
    });
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
    if (!this.#upstreams.oauth.issued(token)) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    }
    if (publisher === 'google') return this.#gemini(res, model, method, url.search, body);
    return this.#claude(res, model, method, body);
  }

  async #gemini(
    res: ServerResponse,
    model: string,
    method: string,
    search: string,
    body: Json,
  ): Promise<void> {
    if (method === 'predict') return predictEmbeddings(res, body);
    if (method !== 'generateContent' && method !== 'streamGenerateContent') {
      return googleError(res, 400, 'INVALID_ARGUMENT', `Unknown method ${method}`);
    }
    const { gemini } = this.#upstreams;
    const target = `${gemini.baseUrl}/models/${model}:${method}${search}`;
    await passOn(res, target, { 'x-goog-api-key': gemini.apiKey }, body);
  }

  async #claude(
    res: ServerResponse,
    model: string,
    method: string,
    body: Record<string, unknown>,
  ): Promise<void> {
    if (model === 'count-tokens') return this.#countTokens(res, method, body);
    const stream = method === 'streamRawPredict';
    if (!stream && method !== 'rawPredict')
      return googleError(res, 400, 'INVALID_ARGUMENT', `Unknown method ${method}`);
    if (
      body.anthropic_version !== 'vertex-2023-10-16' ||
      'model' in body ||
      (body.stream === true) !== stream
    ) {
      return googleError(
        res,
        400,
        'INVALID_ARGUMENT',
        'anthropic_version vertex-2023-10-16, no model, stream as the method',
      );
    }
    const { anthropic_version: _version, ...messages } = body;
    const headers = { 'x-api-key': this.#upstreams.anthropicKey, 'anthropic-version': '2023-06-01' };
    await passOn(res, `${this.#upstreams.anthropic.url}/v1/messages`, headers, { ...messages, model });
  }

  /**
   * Claude's token count on Vertex ("Count tokens for Claude models"): `rawPredict` on the model
   * `count-tokens`, the Messages body naming the Claude model in `model`; answers `{ input_tokens }`
   * (the Anthropic fake's count).
   */
  async #countTokens(res: ServerResponse, method: string, body: Json): Promise<void> {
    if (method !== 'rawPredict' || typeof body.model !== 'string' || !body.model.startsWith('claude-')) {
      return googleError(
        res,
        400,
        'INVALID_ARGUMENT',
        'count-tokens:rawPredict with a Claude model in the body',
      );
    }
    const headers = { 'x-api-key': this.#upstreams.anthropicKey, 'anthropic-version': '2023-06-01' };
    await passOn(res, `${this.#upstreams.anthropic.url}/v1/messages/count_tokens`, headers, body);
  }
}

async function passOn(
  res: ServerResponse,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<void> {
  const answer = await request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const contentType = String(answer.headers['content-type'] ?? 'application/json');
  res.writeHead(answer.statusCode, { 'content-type': contentType });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
}

type Json = Record<string, unknown>;

function predictEmbeddings(res: ServerResponse, body: Json): void {
  const instances = body.instances as Array<{ content?: unknown }> | undefined;
  if (!Array.isArray(instances) || instances.some((instance) => typeof instance.content !== 'string')) {
    googleError(res, 400, 'INVALID_ARGUMENT', 'instances[].content must be text');
    return;
  }
  const dimensions = Number((body.parameters as Json | undefined)?.outputDimensionality ?? 8);
  const predictions = instances.map(({ content }) => {
    const text = String(content);
    const values = Array.from({ length: dimensions }, (_, i) => ((text.length + i) % 7) / 8);
    return { embeddings: { values, statistics: { token_count: countWords(text), truncated: false } } };
  });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ predictions }));
}

function googleError(res: ServerResponse, code: number, status: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message, status } }));
}

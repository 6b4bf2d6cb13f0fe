/**
 * An OpenAI API stand-in on port 0 (see fake-server.ts for recording and failure injection). It
 * speaks the documented wire formats of chat completions (JSON and SSE, tool calls, the usage
 * chunk), responses (JSON and SSE), embeddings, image generations, edits and variations
 * (multipart), audio transcriptions (multipart) and `GET /models`, under both OpenAI's paths
 * (`/v1/...`, Bearer key) and Azure's: the v1 API (`/openai/v1/...`, the deployment as the body's
 * model), the dated one (`/openai/deployments/{deployment}/...?api-version=`, and
 * `/openai/responses?api-version=`), with the `api-key` header or an Entra ID bearer token the
 * `azureBearer` check accepts; chat answers carry Azure's content-filter annotations
 * (openai-fake-azure.ts). Answers are deterministic: see
 * openai-fake-plan.ts and openai-fake-media.ts.
 *
 *   const fake = await new OpenAIFake({ apiKey: 'sk-test', models: ['gpt-4o-mini'] }).start();
 *   fake.baseUrl            // `${fake.url}/v1`: an openai or openai-compatible deployment's baseUrl
 *   fake.url                // an azure deployment's baseUrl
 */
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { FakeServer, type MultipartBody, type RecordedRequest } from './fake-server.ts';
import {
  type AzureContentFilterMode,
  type AzureFilterVerdict,
  azureChatEvents,
  azureCompletion,
} from './openai-fake-azure.ts';
import { chatCompletion, chatCompletionEvents, planChat } from './openai-fake-chat.ts';
import {
  embeddings,
  imageEdit,
  imageGeneration,
  imageVariation,
  transcription,
  uploadedImage,
} from './openai-fake-media.ts';
import { FAKE_CREATED } from './openai-fake-plan.ts';
import { response, responseEvents } from './openai-fake-responses.ts';

export interface OpenAIFakeOptions {
  /** When set, every request must carry this key (Bearer on OpenAI paths, `api-key` on Azure ones). */
  apiKey?: string;
  /** When set, a model (or Azure deployment) outside this list is answered 404 model_not_found. */
  models?: string[];
  /** When set, chat prompts longer than this many words are answered 400 context_length_exceeded. */
  contextWindow?: number;
  /**
   * How chat answers on Azure paths carry Azure's content-filter annotations (openai-fake-azure.ts):
   * the default filter's, or the asynchronous filter's. Default: `default`.
   */
  azureContentFilter?: AzureContentFilterMode;
  /**
   * On Azure paths, what the content filter withholds from a chat answer to this body (the
   * completion stopped with `finish_reason: "content_filter"`), or null to let it pass. Default: none.
   */
  azureFilterVerdict?: (body: Json) => AzureFilterVerdict | null;
  /** On Azure paths, a bearer token this accepts authorizes the call too (Entra ID: EntraFake.issued). */
  azureBearer?: (token: string) => boolean;
}

/** Models listed by `GET /models` when no list is configured. */
export const DEFAULT_FAKE_MODELS = [
  'gpt-4o-mini',
  'text-embedding-3-small',
  'gpt-image-1',
  'dall-e-2',
  'whisper-1',
];

type Json = Record<string, unknown>;

interface Call {
  operation: string;
  model: string;
  azure: boolean;
}

export class OpenAIFake extends FakeServer {
  readonly #options: OpenAIFakeOptions;
  #sequence = 0;

  constructor(options: OpenAIFakeOptions = {}) {
    super((request, responder) => this.#route(request, responder));
    this.#options = options;
  }

  /** The base URL an `openai` or `openai-compatible` deployment uses to reach this fake. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  async #route(request: RecordedRequest, res: FakeResponder): Promise<void> {
    const azure = request.path.startsWith('/openai/');
    if (!this.#authorized(request, azure)) {
      res.json(
        401,
        azure
          ? azureError('401', 'Access denied due to invalid subscription key or wrong API endpoint.')
          : invalidKey(),
      );
      return;
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      const ids = this.#options.models ?? DEFAULT_FAKE_MODELS;
      res.json(200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created: FAKE_CREATED, owned_by: 'fake' })),
      });
      return;
    }
    const call = azure ? azureCall(request) : openAICall(request);
    if (call === null || request.method !== 'POST') {
      res.json(
        404,
        azure
          ? azureError('404', 'Resource not found')
          : openAIError(`Invalid URL (${request.method} ${request.path})`, null, null),
      );
      return;
    }
    if (this.#options.models !== undefined && !this.#options.models.includes(call.model)) {
      res.json(
        404,
        azure
          ? azureError('DeploymentNotFound', 'The API deployment for this resource does not exist.')
          : openAIError(
              `The model \`${call.model}\` does not exist or you do not have access to it.`,
              null,
              'model_not_found',
            ),
      );
      return;
    }
    const sequence = ++this.#sequence;
    await this.#answer(call, request, res, sequence);
  }

  #authorized(request: RecordedRequest, azure: boolean): boolean {
    const key = this.#options.apiKey;
    const bearer = request.headers.authorization?.startsWith('Bearer ')
      ? request.headers.authorization.slice('Bearer '.length)
      : undefined;
    if (azure && bearer !== undefined && this.#options.azureBearer !== undefined) {
      return this.#options.azureBearer(bearer);
    }
    if (key === undefined) return true;
    return azure ? request.headers['api-key'] === key : bearer === key;
  }

  async #answer(call: Call, request: RecordedRequest, res: FakeResponder, sequence: number): Promise<void> {
    if (isMultipart(request.body)) {
      res.send(this.#multipart(call, request.body, sequence));
      return;
    }
    if (typeof request.body !== 'object' || request.body === null) {
      res.json(400, openAIError('We could not parse the JSON body of your request.', null, null));
      return;
    }
    const body = request.body as Json;
    switch (call.operation) {
      case '/chat/completions':
        return this.#chat(call, body, res, sequence);
      case '/responses':
        if (body.stream === true) return res.sse(responseEvents(body, call.model, sequence));
        return res.json(200, response(body, call.model, sequence));
      case '/embeddings':
        if (body.input === undefined) return res.json(400, missing('input'));
        return res.json(200, embeddings(body, call.model));
      case '/images/generations':
        if (typeof body.prompt !== 'string') return res.json(400, missing('prompt'));
        return res.json(200, imageGeneration(body, call.model, sequence));
      default:
        return res.json(400, openAIError(`Unsupported content type for ${call.operation}.`, null, null));
    }
  }

  async #chat(call: Call, body: Json, res: FakeResponder, sequence: number): Promise<void> {
    if (!Array.isArray(body.messages)) return res.json(400, missing('messages'));
    if (body.stream_options != null && body.stream !== true) {
      return res.json(
        400,
        openAIError(
          "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
          'stream_options',
          null,
        ),
      );
    }
    const window = this.#options.contextWindow;
    if (window !== undefined && planChat(body).promptTokens > window) {
      const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${planChat(body).promptTokens} tokens. Please reduce the length of the messages.`;
      return res.json(400, openAIError(message, 'messages', 'context_length_exceeded'));
    }
    const mode = this.#options.azureContentFilter ?? 'default';
    const verdict = call.azure ? (this.#options.azureFilterVerdict?.(body) ?? null) : null;
    if (body.stream === true) {
      const events = chatCompletionEvents(body, call.model, sequence);
      return res.sse(call.azure ? azureChatEvents(events, mode, verdict) : events);
    }
    const completion = chatCompletion(body, call.model, sequence);
    res.json(200, call.azure ? azureCompletion(completion, verdict) : completion);
  }

  #multipart(call: Call, body: MultipartBody, sequence: number): FakeReply {
    // OpenAI reads the model from the form; Azure from the path.
    const model = call.azure ? call.model : (body.fields.model ?? '');
    if (!call.azure && model === '') return { status: 400, body: missing('model') };
    if (!call.azure && this.#options.models !== undefined && !this.#options.models.includes(model)) {
      const text = `The model \`${model}\` does not exist or you do not have access to it.`;
      return { status: 404, body: openAIError(text, null, 'model_not_found') };
    }
    switch (call.operation) {
      case '/images/edits':
        if (uploadedImage(body) === undefined) return { status: 400, body: missing('image') };
        if (body.fields.prompt === undefined) return { status: 400, body: missing('prompt') };
        return { status: 200, body: imageEdit(body, model, sequence) };
      case '/images/variations':
        if (uploadedImage(body) === undefined) return { status: 400, body: missing('image') };
        return { status: 200, body: imageVariation(body, sequence) };
      case '/audio/transcriptions': {
        if (!body.files.some((file) => file.field === 'file')) return { status: 400, body: missing('file') };
        const answer = transcription(body, model);
        return { status: 200, body: answer.body, headers: { 'content-type': answer.contentType } };
      }
      default:
        return {
          status: 400,
          body: openAIError(`Unsupported content type for ${call.operation}.`, null, null),
        };
    }
  }
}

const OPERATIONS = new Set([
  '/chat/completions',
  '/responses',
  '/embeddings',
  '/images/generations',
  '/images/edits',
  '/images/variations',
  '/audio/transcriptions',
]);

function openAICall(request: RecordedRequest): Call | null {
  if (!request.path.startsWith('/v1/')) return null;
  const operation = request.path.slice('/v1'.length);
  if (!OPERATIONS.has(operation)) return null;
  const body = request.body;
  const model = isMultipart(body)
    ? (body.fields.model ?? '')
    : String((body as Json | undefined)?.model ?? '');
  return { operation, model, azure: false };
}

/**
 * Azure OpenAI REST reference: the v1 API, `/openai/v1/{operation}` with the deployment in the body;
 * the dated one, `/openai/deployments/{deployment}/{operation}?api-version=...`, and
 * `/openai/responses?api-version=...` (the deployment in the body).
 */
function azureCall(request: RecordedRequest): Call | null {
  if (request.path.startsWith('/openai/v1/')) {
    const call = openAICall({ ...request, path: request.path.slice('/openai'.length) });
    return call === null ? null : { ...call, azure: true };
  }
  if (request.path === '/openai/responses' && request.query['api-version'] !== undefined) {
    return {
      operation: '/responses',
      model: String((request.body as Json | undefined)?.model ?? ''),
      azure: true,
    };
  }
  if (!request.path.startsWith('/openai/deployments/')) return null;
  const rest = request.path.slice('/openai/deployments/'.length);
  const slash = rest.indexOf('/');
  if (slash === -1 || request.query['api-version'] === undefined) return null;
  const operation = rest.slice(slash);
  if (!OPERATIONS.has(operation)) return null;
  return { operation, model: decodeURIComponent(rest.slice(0, slash)), azure: true };
}

function isMultipart(body: unknown): body is MultipartBody {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'multipart';
}

export function openAIError(
  message: string,
  param: string | null,
  code: string | null,
  type = 'invalid_request_error',
): Json {
  return { error: { message, type, param, code } };
}

function missing(param: string): Json {
  return openAIError(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function invalidKey(): Json {
  return openAIError('Incorrect API key provided.', null, 'invalid_api_key');
}

function azureError(code: string, message: string): Json {
  return { error: { code, message } };
}

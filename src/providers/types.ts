/**
 * The adapter contract between the pipeline and a provider (DESIGN.md section 4). Nothing here
 * knows fastify, undici or Kysely: an adapter turns a request in an operation's wire format into
 * an upstream HTTP request description, and upstream answers back into that wire format.
 */

import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { PriceLookups } from '../catalog/price-lookup.ts';
import type { ErrorClass } from '../errors/error-classes.ts';
import type { ErrorCode } from '../errors/error-codes.ts';
import type { ContentFilterHit } from '../formats/content-filter.ts';
import type { Span } from '../formats/json-members.ts';
import { OPERATIONS, type Operation } from '../formats/operation.ts';
import type { BodyParts } from '../formats/request-text.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { Usage } from '../formats/usage.ts';

export type { ContentFilterHit, Operation, StreamEvent, Usage };
// The operations, the adapters' events, usage and filter verdicts are the client formats'
// (formats/); re-exported because every adapter reads them beside the contract below.
export { OPERATIONS };

export const TRANSPORTS = ['json', 'sse', 'multipart'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** What an adapter needs to know of a deployment; the API key is already decrypted. */
export interface DeploymentTarget {
  id: string;
  provider: string;
  upstreamModel: string;
  apiKey: string | null;
  baseUrl: string | null;
  providerOptions: Readonly<Record<string, unknown>>;
  /**
   * True when the model catalog's own overlay says the upstream model reasons (a model it does
   * not know is granted every capability by default, which is no evidence): the OpenAI family
   * asks such a model for its encrypted reasoning (stateless-responses.ts).
   */
  knownReasoning?: boolean;
}

/** What an operation plan may depend on of a deployment: its model and provider options. */
export interface DeployedModel {
  upstreamModel: string;
  providerOptions: Readonly<Record<string, unknown>>;
}

/** A multipart body passed through to the upstream: the raw client stream and its content type. */
export interface MultipartPassThrough {
  kind: 'multipart';
  contentType: string;
  stream: Readable;
}

export interface UpstreamRequest {
  /** Absolute URL: origin, path and query. */
  url: string;
  method: 'POST' | 'GET' | 'DELETE';
  headers: Record<string, string>;
  /** Serialised JSON, raw bytes, bytes in parts, or a multipart stream passed through. */
  body: string | Uint8Array | BodyParts | MultipartPassThrough | null;
}

/**
 * One raw server-sent event (WHATWG HTML, "Server-sent events": event stream interpretation), as
 * the upstream engine's parser hands it to an SSE decoder (upstream/sse-parser.ts).
 */
export interface SseMessage {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** What a stream decoder is told of its call. */
export interface StreamDecoderCall<Body = unknown> {
  /** The body sent upstream; absent, the decoder assumes the client asked for nothing optional. */
  body?: Body;
  /**
   * The public model the client asked for: the events name it where their format carries a model,
   * from the moment they are decoded (the upstream's own model name never reaches a client).
   */
  publicModel: string;
  /**
   * Whether the events go to the client as the decoder makes them (a native route): a decoder may
   * then pass an event on as the upstream's text, unparsed. Absent or false when a translator
   * reads every event.
   */
  passedOn?: boolean;
}

/** What every stream decoder has: stateful, one per call. */
interface StreamDecoderBase {
  /** Called at the upstream's end; returns the closing events. Throws a GatewayError if the stream ended short. */
  finish(): StreamEvent[];
  /** Usage seen so far (complete after finish()). */
  usage(): Usage | null;
  /**
   * The categories the upstream's content filter withheld so far (formats/content-filter.ts), or
   * null when none did; absent for an upstream that names none.
   */
  contentFilter?(): readonly ContentFilterHit[] | null;
}

/**
 * Turns an upstream's server-sent events into events of the operation's wire format. The upstream
 * engine parses the bytes (upstream/sse-parser.ts) and hands over one message at a time; a
 * decoder throws a GatewayError on an error event or a malformed one.
 */
export interface SseDecoder extends StreamDecoderBase {
  readonly framing: 'sse';
  read(message: SseMessage): StreamEvent[];
}

/** Turns an upstream's own binary framing into events (Bedrock's AWS event-stream encoding). */
export interface ByteStreamDecoder extends StreamDecoderBase {
  readonly framing: 'bytes';
  push(chunk: Uint8Array): StreamEvent[];
}

/** How an operation's upstream stream is read: SSE for most providers, bytes for Bedrock. */
export type StreamDecoder = SseDecoder | ByteStreamDecoder;

export interface BuildRequestInput<Body> {
  target: DeploymentTarget;
  /** The request in the operation's wire format, with `model` already the upstream model. */
  body: Body;
  stream: boolean;
  /** Present for multipart operations. */
  multipart?: MultipartPassThrough;
  /**
   * The client's values of the headers the provider lists in `forwardedClientHeaders`
   * (lower-case names); absent ones are not set.
   */
  clientHeaders?: Readonly<Record<string, string>>;
}

/** A native JSON answer as read from its bytes (OperationAdapter.readPassedOn). */
export interface PassedOnAnswer {
  usage: Usage;
  /** Where the answer's top-level `model` string is written, quotes included, in bytes. */
  model: Span;
}

export interface OperationAdapter<Body = unknown, Answer = unknown> {
  buildRequest(input: BuildRequestInput<Body>): UpstreamRequest;
  /**
   * Parses a successful (2xx) JSON answer into the operation's wire format. `request` is the body
   * given to buildRequest, for adapters whose answer depends on a client option the upstream does
   * not take (embeddings: `encoding_format: "base64"` on an upstream that only returns floats).
   */
  parseResponse(body: unknown, target: DeploymentTarget, request?: Body): Answer;
  /** Usage of a parsed answer (in the operation's wire format). */
  usageOf(answer: Answer): Usage | null;
  /**
   * The categories the upstream's content filter withheld in a parsed answer, or null when none
   * did; absent for an upstream whose answers name none (every provider but Azure OpenAI).
   */
  contentFilterOf?(answer: Answer): readonly ContentFilterHit[] | null;
  /**
   * What the gateway reads of a native JSON answer it passes on unparsed (docs/decisions/hot-path.md,
   * Native answers not parsed): its usage and where its top-level model is written. Null when the
   * answer's bytes are not provably of the operation's shape at their top level: the answer is then
   * parsed and checked whole, as it always is without this. The answer is given as the chunks it
   * was received in, never joined (docs/decisions/hot-path.md, Answer chunks never joined).
   */
  readPassedOn?(chunks: readonly Buffer[]): PassedOnAnswer | null;
  /**
   * Present when the upstream can stream this operation. `body` is the body given to
   * buildRequest: a decoder reads the client's own stream options from it (chat: whether the
   * client asked for the usage chunk, which the upstream is always asked for). Without it the
   * decoder assumes the client asked for nothing optional.
   */
  createStreamDecoder?(target: DeploymentTarget, call: StreamDecoderCall<Body>): StreamDecoder;
}

/** An upstream failure classified into SPEC.md's classes; providerMessage is private detail. */
export interface UpstreamErrorInfo {
  errorClass: ErrorClass;
  code: ErrorCode;
  retryAfterSeconds?: number;
  providerMessage?: string;
  /** The request field the upstream named (OpenAI's `param`), for a bad_request. */
  param?: string;
  /** The upstream's code when it is one a client may see (errors/upstream-codes.ts). */
  upstreamCode?: string;
  /** Input and window tokens, when a context-window refusal gave them. */
  tokenCounts?: { inputTokens: number; limitTokens: number; outputTokens?: number };
}

/**
 * A provider's own token-count endpoint (Anthropic's `POST /v1/messages/count_tokens`): a Messages
 * body in, the input tokens out. Not an operation: nothing is generated, billed or recorded.
 */
export interface TokenCountAdapter {
  /** Whether the provider counts for this upstream model; absent: for every model. */
  supports?(upstreamModel: string): boolean;
  buildRequest(input: {
    target: DeploymentTarget;
    /** The client's Messages body, `model` already the upstream model. */
    body: Record<string, unknown>;
    clientHeaders?: Readonly<Record<string, string>>;
  }): UpstreamRequest;
  /** The input tokens of a 2xx answer; throws a GatewayError on a malformed one. */
  parseResponse(body: unknown, target: DeploymentTarget): number;
}

/**
 * Where a deployment's credential comes from (`POST /admin/deployments/resolve`, `credentialSource`):
 * the stored key, a cloud's credential chain, or nothing (a keyless OpenAI-compatible server).
 */
export const CREDENTIAL_SOURCES = [
  'static-key',
  'aws-default-chain',
  'aws-assume-role',
  'google-service-account',
  'google-default',
  'azure-entra-id',
  'azure-api-key',
  'none',
] as const;
export type CredentialSource = (typeof CREDENTIAL_SOURCES)[number];

/** What a provider reads of a deployment to name its credential source; the options already valid. */
export interface CredentialFacts {
  hasApiKey: boolean;
  providerOptions: Readonly<Record<string, unknown>>;
}

/**
 * Turns a built request into an authorized one with a credential that has to be fetched (a cloud
 * token or role credentials, cached by the provider): the async step after the synchronous
 * `buildRequest`. Absent for providers whose credential is the deployment's stored key.
 */
export type RequestAuthorizer = (
  request: UpstreamRequest,
  target: DeploymentTarget,
) => Promise<UpstreamRequest>;

export interface ProviderAdapter {
  readonly id: string;
  /**
   * The deployment's `providerOptions`, checked when it is saved (create, PATCH, resolve): a strict
   * object, so an unknown or mistyped option is refused by name rather than met by a call.
   */
  readonly optionsSchema: z.ZodType<Record<string, unknown>>;
  /** The credential a deployment of this provider will use. */
  credentialSource(facts: CredentialFacts): CredentialSource;
  /** Present when some of the provider's credentials are fetched per call (see RequestAuthorizer). */
  readonly authorize?: RequestAuthorizer;
  /** Operations this provider serves natively. Others may be reached through a translator. */
  readonly operations: Readonly<Partial<Record<Operation, OperationAdapter>>>;
  /**
   * The operations served natively for one deployment's model, when that depends on the model
   * (Bedrock: Claude speaks Messages through InvokeModel, other models Chat through Converse;
   * Vertex AI: Claude Messages through rawPredict, Gemini Chat through generateContent);
   * absent: `operations`, whatever the model.
   */
  readonly operationsFor?: (model: DeployedModel) => Readonly<Partial<Record<Operation, OperationAdapter>>>;
  /** True when a deployment must name `baseUrl` (openai-compatible, azure). */
  readonly requiresBaseUrl: boolean;
  /**
   * Request headers of the client the provider's adapters may send on (lower case): Anthropic's
   * `anthropic-beta` and `anthropic-version`. Nothing else of the client's headers reaches an upstream.
   */
  readonly forwardedClientHeaders?: readonly string[];
  /** Present when the provider counts a Messages body's tokens itself (for the models it `supports`). */
  readonly countTokens?: TokenCountAdapter;
  /** Classifies a non-2xx answer (status, parsed JSON body or text, headers). */
  classifyError(status: number, body: unknown, headers: Readonly<Record<string, string>>): UpstreamErrorInfo;
  /** Where the model catalog finds the price of one of the provider's upstream model ids. */
  readonly priceLookups: PriceLookups;
}

/** What the pipeline already knows of a call when a stream translator starts. */
export interface StreamTranslatorContext {
  inputTokens?: number;
}

/** What a translator may know of the model it translates for (the deployment's catalog entry). */
export interface TranslationTarget {
  /** The model's documented output limit; null when the catalog does not know it. */
  maxOutputTokens: number | null;
  /** Whether the model reasons: a request's optional thinking is left out for one that does not. */
  reasoning: boolean;
}

/**
 * A cross-format bridge: serves operation `from` (what the client called) through operation
 * `to` (what the provider serves natively), e.g. messages -> chat.completions.
 */
export interface OperationTranslator<
  FromBody = unknown,
  ToBody = unknown,
  FromAnswer = unknown,
  ToAnswer = unknown,
> {
  readonly from: Operation;
  readonly to: Operation;
  /** `target` is absent where no deployment is known (tests, a cached answer's replay). */
  request(body: FromBody, target?: TranslationTarget): ToBody;
  response(answer: ToAnswer, request: FromBody): FromAnswer;
  /**
   * Incremental: each `to` event becomes zero or more `from` events; never buffers the whole
   * answer. `known.inputTokens`: the call's input estimate, when the pipeline already made one.
   */
  createStreamTranslator(
    request: FromBody,
    known?: StreamTranslatorContext,
  ): {
    /**
     * Each translator's own class takes the typed events of its `to` format
     * (`StreamEvent<AnthropicStreamEvent>`, `StreamEvent<ChatStreamData>`): planOperation pairs
     * it with the decoder of that operation, which a list of translators cannot say in types.
     */
    push(event: StreamEvent): StreamEvent[];
    finish(): StreamEvent[];
  };
}

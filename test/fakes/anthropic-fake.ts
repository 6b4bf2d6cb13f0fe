/**
 * An Anthropic Messages API stand-in on port 0 (see fake-server.ts for recording and failure
 * injection). `POST /v1/messages`, JSON or SSE, with the documented event sequence (message_start,
 * ping, content blocks with text_delta / input_json_delta, message_delta, message_stop) and error
 * bodies, and `POST /v1/messages/count_tokens` (`{ input_tokens }`, words of the system prompt
 * and messages). It requires `anthropic-version`, checks the key when configured, and answers
 * deterministically: `echo: <last user text>` (images as `[image:<media type or url>]`), or
 * `tool result: <content>` after a tool_result; with tools offered, a forcing tool_choice or the word
 * "tool" in the last user text makes it call the chosen (or first) tool with `{"echo": <text>}`.
 * Tokens are words; `max_tokens` cuts the text (stop_reason max_tokens) and a stop sequence found
 * in it ends it there (stop_reason stop_sequence). With thinking asked for (`thinking.type:
 * enabled`), a signed thinking block comes first (claudeAnswer). A JSON Schema beyond what
 * Claude's structured outputs take is refused as Claude refuses it (claude-schema-limits.ts).
 *
 *   const fake = await new AnthropicFake({ apiKey: 'sk-ant-test' }).start();
 *   fake.url   // an anthropic deployment's baseUrl
 */
import type { StreamEvent } from '../../src/providers/types.ts';
import { structuredOutputRefusal } from './claude-schema-limits.ts';
import type { FakeResponder } from './fake-responder.ts';
import { countWords, FakeServer, type RecordedRequest } from './fake-server.ts';
import { scriptedToolCall } from './scripted-tool-call.ts';

export interface AnthropicFakeOptions {
  apiKey?: string;
  /** When set, a model outside this list is answered 404 not_found_error. */
  models?: string[];
  /** When set, prompts longer than this many words are answered 400 "prompt is too long". */
  contextWindow?: number;
}

export const ANTHROPIC_TOOL_USE_TOKENS = 10;

type Json = Record<string, unknown>;

interface Plan {
  text: string;
  toolUse: { id: string; name: string; input: Json } | null;
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
}

export class AnthropicFake extends FakeServer {
  readonly #options: AnthropicFakeOptions;
  #sequence = 0;

  constructor(options: AnthropicFakeOptions = {}) {
    super((request, responder) => this.#route(request, responder));
    this.#options = options;
  }

  /** `x-api-key`, or `Authorization: Bearer` as recent official SDKs send the same key. */
  #authorized(request: RecordedRequest): boolean {
    const key = this.#options.apiKey;
    if (key === undefined) return true;
    return request.headers['x-api-key'] === key || request.headers.authorization === `Bearer ${key}`;
  }

  async #route(request: RecordedRequest, res: FakeResponder): Promise<void> {
    const countTokens = request.path === '/v1/messages/count_tokens';
    if (request.method !== 'POST' || (request.path !== '/v1/messages' && !countTokens)) {
      return res.json(404, anthropicError('not_found_error', 'Not found'));
    }
    if (!this.#authorized(request)) {
      return res.json(401, anthropicError('authentication_error', 'invalid x-api-key'));
    }
    if (request.headers['anthropic-version'] === undefined) {
      return res.json(400, anthropicError('invalid_request_error', 'anthropic-version: header is required'));
    }
    const body = request.body as Json | undefined;
    if (typeof body !== 'object' || body === null) {
      return res.json(
        400,
        anthropicError('invalid_request_error', 'There was an issue with the request body.'),
      );
    }
    // count_tokens takes a Messages body without max_tokens (API reference, "Count tokens in a message").
    for (const field of countTokens ? ['model', 'messages'] : ['model', 'max_tokens', 'messages']) {
      if (body[field] === undefined)
        return res.json(400, anthropicError('invalid_request_error', `${field}: Field required`));
    }
    const model = String(body.model);
    if (this.#options.models !== undefined && !this.#options.models.includes(model)) {
      return res.json(404, anthropicError('not_found_error', `model: ${model}`));
    }
    if (countTokens) return res.json(200, { input_tokens: inputTokensOf(body) });
    const schemaRefusal = structuredOutputRefusal(body);
    if (schemaRefusal !== null) return res.json(400, anthropicError('invalid_request_error', schemaRefusal));
    const sequence = ++this.#sequence;
    const plan = planMessage(body, sequence);
    const window = this.#options.contextWindow;
    if (window !== undefined && plan.inputTokens > window) {
      return res.json(
        400,
        anthropicError(
          'invalid_request_error',
          `prompt is too long: ${plan.inputTokens} tokens > ${window} maximum`,
        ),
      );
    }
    const answer = claudeAnswer(body, model, sequence);
    if (body.stream === true) return res.sse(answer.events);
    res.json(200, answer.message);
  }
}

export function anthropicError(type: string, message: string): Json {
  return { type: 'error', error: { type, message } };
}

function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: Json) => {
      if (block.type === 'text') return String(block.text);
      if (block.type === 'image') {
        const source = block.source as Json;
        return source.type === 'base64'
          ? ` [image:${String(source.media_type)}]`
          : ` [image:${String(source.url)}]`;
      }
      if (block.type === 'tool_result') return blocksText(block.content);
      return '';
    })
    .join('');
}

/** Tokens are words: the system prompt's and every message's. */
/** The input tokens of a Messages body: the words of its system prompt and messages. */
export function inputTokensOf(body: Json): number {
  const messages = body.messages as Json[];
  const system = typeof body.system === 'string' ? body.system : blocksText(body.system);
  return countWords([system, ...messages.map((m) => blocksText(m.content))].join(' '));
}

function planMessage(body: Json, sequence: number): Plan {
  const messages = body.messages as Json[];
  const last = messages.at(-1);
  const lastBlocks = Array.isArray(last?.content) ? (last.content as Json[]) : [];
  const toolResult = lastBlocks.find((block) => block.type === 'tool_result');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const lastUserText = blocksText(
    Array.isArray(lastUser?.content)
      ? (lastUser.content as Json[]).filter((b) => b.type !== 'tool_result')
      : lastUser?.content,
  );
  const inputTokens = inputTokensOf(body);
  const tools = (body.tools as Json[] | undefined) ?? [];
  const choice = body.tool_choice as Json | undefined;
  const forced = choice?.type === 'any' || choice?.type === 'tool';
  const scripted =
    toolResult === undefined && choice?.type !== 'none'
      ? scriptedToolCall(
          lastUserText,
          tools.map((tool) => String(tool.name)),
        )
      : null;
  if (scripted !== null) {
    return {
      text: '',
      toolUse: { id: `toolu_fake${sequence}`, name: scripted.name, input: scripted.input },
      stopReason: 'tool_use',
      stopSequence: null,
      inputTokens,
      outputTokens: ANTHROPIC_TOOL_USE_TOKENS,
    };
  }
  if (
    toolResult === undefined &&
    tools.length > 0 &&
    choice?.type !== 'none' &&
    (forced || /\btool\b/i.test(lastUserText))
  ) {
    const name = choice?.type === 'tool' ? String(choice.name) : String(tools[0].name);
    return {
      text: '',
      toolUse: { id: `toolu_fake${sequence}`, name, input: { echo: lastUserText } },
      stopReason: 'tool_use',
      stopSequence: null,
      inputTokens,
      outputTokens: ANTHROPIC_TOOL_USE_TOKENS,
    };
  }
  let text =
    toolResult === undefined ? `echo: ${lastUserText}` : `tool result: ${blocksText(toolResult.content)}`;
  let stopReason: Plan['stopReason'] = 'end_turn';
  let stopSequence: string | null = null;
  for (const candidate of (body.stop_sequences as string[] | undefined) ?? []) {
    const at = text.indexOf(candidate);
    if (at !== -1) {
      text = text.slice(0, at);
      stopReason = 'stop_sequence';
      stopSequence = candidate;
      break;
    }
  }
  const words = text.split(' ');
  const maxTokens = Number(body.max_tokens);
  if (words.length > maxTokens) {
    text = words.slice(0, maxTokens).join(' ');
    stopReason = 'max_tokens';
    stopSequence = null;
  }
  return { text, toolUse: null, stopReason, stopSequence, inputTokens, outputTokens: countWords(text) };
}

function usage(plan: Plan, outputTokens: number): Json {
  return {
    input_tokens: plan.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function content(plan: Plan): Json[] {
  if (plan.toolUse !== null) return [{ type: 'tool_use', ...plan.toolUse }];
  return [{ type: 'text', text: plan.text }];
}

function message(plan: Plan, model: string, sequence: number): Json {
  return {
    id: `msg_fake${sequence}`,
    type: 'message',
    role: 'assistant',
    model,
    content: content(plan),
    stop_reason: plan.stopReason,
    stop_sequence: plan.stopSequence,
    usage: usage(plan, plan.outputTokens),
  };
}

function messageEvents(plan: Plan, model: string, sequence: number): StreamEvent[] {
  const events: StreamEvent[] = [];
  const emit = (type: string, fields: Json): void => {
    events.push({ event: type, data: { type, ...fields } });
  };
  emit('message_start', {
    message: {
      id: `msg_fake${sequence}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(plan, 1),
    },
  });
  emit('ping', {});
  if (plan.toolUse !== null) {
    emit('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: plan.toolUse.id, name: plan.toolUse.name, input: {} },
    });
    const json = JSON.stringify(plan.toolUse.input);
    const middle = Math.ceil(json.length / 2);
    for (const partial of [json.slice(0, middle), json.slice(middle)]) {
      emit('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: partial } });
    }
  } else {
    emit('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    plan.text.split(' ').forEach((word, i) => {
      emit('content_block_delta', {
        index: 0,
        delta: { type: 'text_delta', text: i === 0 ? word : ` ${word}` },
      });
    });
  }
  emit('content_block_stop', { index: 0 });
  emit('message_delta', {
    delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence },
    usage: { output_tokens: plan.outputTokens },
  });
  emit('message_stop', {});
  return events;
}

/** The signed thinking block a Claude fake puts first when a request asks for thinking. */
export function fakeThinkingBlock(sequence: number): Json {
  return { type: 'thinking', thinking: 'Considering the request.', signature: `c2lnbmVkLWZha2U${sequence}` };
}

/**
 * Claude's answer to `body`, as a message and as stream events, for fakes of the platforms that
 * serve Claude (bedrock-fake.ts: InvokeModel). With thinking asked for (`thinking.type: enabled`),
 * a signed thinking block comes first, as Claude answers.
 */
export function claudeAnswer(
  body: Json,
  model: string,
  sequence: number,
): { message: Json; events: StreamEvent[] } {
  const plan = planMessage(body, sequence);
  const answer = message(plan, model, sequence);
  const events = messageEvents(plan, model, sequence);
  if ((body.thinking as Json | undefined)?.type !== 'enabled') return { message: answer, events };
  const block = fakeThinkingBlock(sequence);
  answer.content = [block, ...(answer.content as Json[])];
  const shifted = events.map((event) => {
    const data = event.data as Json;
    return typeof data.index === 'number' ? { ...event, data: { ...data, index: data.index + 1 } } : event;
  });
  const thinking: StreamEvent[] = [
    { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { index: 0, delta: { type: 'thinking_delta', thinking: block.thinking } },
    { index: 0, delta: { type: 'signature_delta', signature: block.signature } },
    { index: 0 },
  ].map((fields, i) => {
    const type = ['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop'][
      i
    ];
    return { event: type, data: { type, ...fields } };
  });
  // After message_start and ping.
  return { message: answer, events: [...shifted.slice(0, 2), ...thinking, ...shifted.slice(2)] };
}

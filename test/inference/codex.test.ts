import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FakeReply } from '../fakes/fake-responder.ts';
import { type Json, lastJson, post, startUpstreams, type Upstreams } from './support.ts';

/**
 * Codex (`codex exec`) on every kind of deployment, through the HTTP surface, with the body the
 * real CLI sent (fixtures/codex-exec-first-turn.json, captured from codex-cli 0.171.0 and trimmed:
 * `client_metadata`, `include`, `prompt_cache_key`, `reasoning.summary`, `store: false`,
 * `parallel_tool_calls`, and function, `namespace` and `web_search` tools), then the second turn
 * it sends after a tool call: the reasoning item echoed with `"content": null` and its
 * `encrypted_content`, the call and its output.
 */
const FIRST_TURN = JSON.parse(
  readFileSync(new URL('./fixtures/codex-exec-first-turn.json', import.meta.url), 'utf8'),
) as Json;

/** Codex's freeform `apply_patch` tool (a `custom` tool with a grammar), as it offers it to GPT-5 models. */
const APPLY_PATCH = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};

function codexBody(model: string, extraInput: Json[] = []): Json {
  return {
    ...FIRST_TURN,
    model,
    tools: [...(FIRST_TURN.tools as Json[]), APPLY_PATCH],
    input: [...(FIRST_TURN.input as Json[]), ...extraInput],
  };
}

/** What Codex sends back after the model's reasoning and a call of `exec_command`. */
const SECOND_TURN_ITEMS: Json[] = [
  {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Running it.' }],
    content: null,
    encrypted_content: 'gAAAAABpEncryptedByOpenAI==',
  },
  { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'call_1' },
  { type: 'function_call_output', call_id: 'call_1', output: 'README.md\n' },
  {
    type: 'custom_tool_call',
    name: 'apply_patch',
    input: '*** Begin Patch\n*** End Patch',
    call_id: 'call_2',
  },
  { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Done!' },
  {
    type: 'function_call',
    namespace: 'multi_agent_v1',
    name: 'wait_agent',
    arguments: '{"targets":["a1"]}',
    call_id: 'call_3',
  },
  { type: 'function_call_output', call_id: 'call_3', output: 'completed' },
];

/** The data of each SSE event of a streamed answer. */
function sseData(text: string): Json[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);
}

function completedResponse(text: string): Json {
  const completed = sseData(text).find((event) => event.type === 'response.completed');
  assert.ok(completed, `the stream ends with response.completed: ${text.slice(-300)}`);
  return completed.response as Json;
}

describe('Codex on every route', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
  });
  after(() => up?.close());

  it('native Responses: the second turn with a reasoning item whose content is null reaches OpenAI as sent', async () => {
    const answer = await post(up.gw, up.key, '/responses', codexBody('gpt', SECOND_TURN_ITEMS));
    assert.equal(answer.status, 200, answer.text);
    completedResponse(answer.text);
    const input = lastJson(up.openai).input as Json[];
    const reasoning = input.find((item) => item.type === 'reasoning');
    assert.deepEqual(reasoning, SECOND_TURN_ITEMS[0]);
    assert.equal(lastJson(up.openai).client_metadata !== undefined, true, 'OpenAI reads its own field');
  });

  it('native Responses: a stream that breaks mid-way ends with response.failed, as Codex reads it', async () => {
    up.openai.faultNextStream({ afterEvents: 3, action: 'destroy' });
    const answer = await post(up.gw, up.key, '/responses', codexBody('gpt'));
    const events = sseData(answer.text);
    assert.equal(events[0]?.type, 'response.created');
    const last = events.at(-1);
    assert.equal(last?.type, 'response.failed', answer.text.slice(-400));
    const response = last?.response as Json;
    assert.equal(response.status, 'failed');
    assert.ok((response.error as Json).code && (response.error as Json).message);
  });

  it('a malformed item is a 400 naming the item, not the whole input', async () => {
    const bad = codexBody('gpt', [{ type: 'message', role: 'user', content: null }]);
    const answer = await post(up.gw, up.key, '/responses', bad);
    assert.equal(answer.status, 400);
    const error = answer.json().error as Json;
    assert.equal(error.param, `input.${(FIRST_TURN.input as Json[]).length}.content`);
    const missing = codexBody('gpt', [{ type: 'function_call_output', output: 'x' }]);
    const second = await post(up.gw, up.key, '/responses', missing);
    assert.equal(second.status, 400);
    assert.match(
      String((second.json().error as Json).message),
      /call_id is required for type function_call_output/,
    );
    assert.equal(up.openai.requests.length, 0);
  });

  it('Chat upstream: the first turn is served; namespaced and custom tools become functions, hosted ones are left out', async () => {
    const answer = await post(up.gw, up.key, '/responses', codexBody('compat'));
    assert.equal(answer.status, 200, answer.text);
    const sent = lastJson(up.openai);
    const names = (sent.tools as Json[]).map((tool) => (tool.function as Json).name);
    assert.ok(names.includes('exec_command'));
    assert.ok(names.includes('multi_agent_v1__spawn_agent'), `namespace members flattened: ${names}`);
    assert.ok(names.includes('apply_patch'));
    assert.equal(names.length, (sent.tools as Json[]).length);
    assert.ok(!(sent.tools as Json[]).some((tool) => tool.type !== 'function'), 'web_search left out');
    const patch = (sent.tools as Json[]).find((tool) => (tool.function as Json).name === 'apply_patch');
    assert.ok(patch);
    assert.deepEqual(((patch.function as Json).parameters as Json).required, ['input']);
    assert.equal(sent.client_metadata, undefined);
    assert.equal(sent.prompt_cache_key, 'codex-session-1');
    assert.equal(sent.parallel_tool_calls, true);
    // The fake calls the first tool when the user says "tool": Codex gets a function_call.
    const output = completedResponse(answer.text).output as Json[];
    assert.equal(output.at(-1)?.type, 'function_call');
    assert.equal(output.at(-1)?.name, 'exec_command');
  });

  it('Chat upstream: a call of a namespaced or custom tool comes back as Codex offered it', async () => {
    up.openai.enqueue(chatToolCallStream('multi_agent_v1__spawn_agent', '{"message":"go"}'));
    const first = completedResponse((await post(up.gw, up.key, '/responses', codexBody('compat'))).text);
    const call = (first.output as Json[]).at(-1);
    assert.deepEqual(
      [call?.type, call?.namespace, call?.name, call?.arguments],
      ['function_call', 'multi_agent_v1', 'spawn_agent', '{"message":"go"}'],
    );
    up.openai.enqueue(chatToolCallStream('apply_patch', '{"input":"*** Begin Patch\\n*** End Patch"}'));
    const second = completedResponse((await post(up.gw, up.key, '/responses', codexBody('compat'))).text);
    const custom = (second.output as Json[]).at(-1);
    assert.deepEqual(
      [custom?.type, custom?.name, custom?.input],
      ['custom_tool_call', 'apply_patch', '*** Begin Patch\n*** End Patch'],
    );
  });

  it('Chat upstream: the second turn maps every item Codex sends back', async () => {
    const answer = await post(up.gw, up.key, '/responses', codexBody('compat', SECOND_TURN_ITEMS));
    assert.equal(answer.status, 200, answer.text);
    const messages = lastJson(up.openai).messages as Json[];
    const calls = messages.flatMap((message) => (message.tool_calls as Json[] | undefined) ?? []);
    assert.deepEqual(
      calls.map((call) => [(call.function as Json).name, (call.function as Json).arguments]),
      [
        ['exec_command', '{"cmd":"ls"}'],
        ['apply_patch', JSON.stringify({ input: '*** Begin Patch\n*** End Patch' })],
        ['multi_agent_v1__wait_agent', '{"targets":["a1"]}'],
      ],
    );
    const outputs = messages.filter((message) => message.role === 'tool').map((message) => message.content);
    assert.deepEqual(outputs, ['README.md\n', 'Done!', 'completed']);
  });

  it('Claude upstream: both turns are served; the tools reach Claude as functions', async () => {
    const first = await post(up.gw, up.key, '/responses', codexBody('claude'));
    assert.equal(first.status, 200, first.text);
    const sent = lastJson(up.anthropic);
    const names = (sent.tools as Json[]).map((tool) => tool.name);
    assert.ok(names.includes('multi_agent_v1__close_agent') && names.includes('apply_patch'));
    // Codex marks nothing; the gateway marks the last tool, the system prompt and the conversation end.
    assert.equal(JSON.stringify(sent).match(/"cache_control"/g)?.length, 3);
    assert.ok((sent.tools as Json[]).at(-1)?.cache_control);
    const output = completedResponse(first.text).output as Json[];
    assert.equal(output.at(-1)?.type, 'function_call');
    const second = await post(up.gw, up.key, '/responses', codexBody('claude', SECOND_TURN_ITEMS));
    assert.equal(second.status, 200, second.text);
    const results = (lastJson(up.anthropic).messages as Json[])
      .flatMap((message) => (Array.isArray(message.content) ? (message.content as Json[]) : []))
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.tool_use_id);
    assert.deepEqual(results, ['call_1', 'call_2', 'call_3']);
  });
});

/** A Chat stream calling `name` with `args`; the first delta carries no name, as some servers send. */
function chatToolCallStream(name: string, args: string): FakeReply {
  const chunk = (delta: Json, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-codex',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  const body = [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { name } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
  return { status: 200, body, headers: { 'content-type': 'text/event-stream' } };
}

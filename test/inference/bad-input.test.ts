import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Json, post, startUpstreams, type Upstreams } from './support.ts';

type Answer = Awaited<ReturnType<typeof post>>;

/** A 400 in the OpenAI shape, with `param` when given. */
function assertOpenAI400(res: Answer, param?: string): void {
  assert.equal(res.status, 400, res.text);
  const error = res.json().error as Json;
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.code, 'invalid_request');
  if (param !== undefined) assert.equal(error.param, param);
}

function assertAnthropic400(res: Answer): void {
  assert.equal(res.status, 400, res.text);
  const body = res.json();
  assert.equal(body.type, 'error');
  assert.equal((body.error as Json).type, 'invalid_request_error');
}

/** Sends raw bytes and resolves with the whole answer once the server closes the connection. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/**
 * Issue 19, item 5: each input that answered a bare 500 is a 400 in the endpoint's shape, and the
 * client errors of Node.js and fastify come in the gateway's shape with an `x-request-id`.
 */
describe('bad input is a 4xx in the endpoint shape', () => {
  let up: Upstreams;
  const adminCall = async (method: string, path: string, body?: string): Promise<Answer> => {
    const res = await fetch(`${up.gw.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${up.gw.masterKey}`, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Json };
  };

  before(async () => {
    up = await startUpstreams();
  });
  after(() => up.close());

  const user = [{ role: 'user', content: 'hi' }];

  for (const model of ['claude', 'gpt', 'gemini']) {
    it(`/v1/messages refuses tools: null, content: null and system: {} (${model})`, async () => {
      const base = { model, max_tokens: 10 };
      assertAnthropic400(await post(up.gw, up.key, '/messages', { ...base, messages: user, tools: null }));
      assertAnthropic400(
        await post(up.gw, up.key, '/messages', { ...base, messages: [{ role: 'user', content: null }] }),
      );
      assertAnthropic400(await post(up.gw, up.key, '/messages', { ...base, messages: user, system: {} }));
    });

    it(`/v1/responses refuses input: [{}] (${model})`, async () => {
      assertOpenAI400(await post(up.gw, up.key, '/responses', { model, input: [{}] }), 'input.0');
      const noContent = { model, input: [{ role: 'user' }] };
      assertOpenAI400(await post(up.gw, up.key, '/responses', noContent), 'input.0.content');
    });

    it(`/v1/chat/completions refuses a user message without content and tools: null (${model})`, async () => {
      const nullContent = { model, messages: [{ role: 'user', content: null }] };
      assertOpenAI400(await post(up.gw, up.key, '/chat/completions', nullContent), 'messages.0.content');
      const nullTools = { model, messages: user, tools: null };
      assertOpenAI400(await post(up.gw, up.key, '/chat/completions', nullTools), 'tools');
    });
  }

  // Found by the OpenAPI fuzz test (openapi-fuzz.test.ts): each reached a translator and threw.
  it('refuses parts, tool calls and tool choices of the wrong shape, naming the field', async () => {
    const chat = (messages: unknown[], extra: Json = {}) => ({ model: 'claude', messages, ...extra });
    const cases: Array<[string, Json, string]> = [
      ['/chat/completions', chat(user, { response_format: null }), 'response_format'],
      ['/chat/completions', chat(user, { tool_choice: 42 }), 'tool_choice'],
      ['/chat/completions', chat(user, { tools: [{ type: 'function' }] }), 'tools.0.function'],
      [
        '/chat/completions',
        {
          ...chat([{ role: 'user', content: [{ type: 'image_url', image_url: { url: null } }] }]),
          model: 'gemini',
        },
        // The deepest failing field, not the union around it.
        'messages.0.content.0.image_url.url',
      ],
      [
        '/chat/completions',
        chat([...user, { role: 'assistant', content: null, tool_calls: [null] }]),
        'messages.1.tool_calls.0',
      ],
      ['/chat/completions', chat([...user, { role: 'tool', content: 'x' }]), 'messages.1.tool_call_id'],
      [
        '/responses',
        { model: 'claude', input: [{ type: 'function_call_output', call_id: 'c1' }] },
        'input.0.output',
      ],
      ['/responses', { model: 'claude', input: 'hi', tool_choice: 42 }, 'tool_choice'],
      // A tool's schema must be an object: an array or a text is refused where it is.
      [
        '/chat/completions',
        { ...chat(user), tools: [{ type: 'function', function: { name: 'f', parameters: [] } }] },
        'tools.0.function.parameters',
      ],
      [
        '/responses',
        { model: 'claude', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: 'x' }] },
        'tools.0.parameters',
      ],
    ];
    for (const [path, body, param] of cases) assertOpenAI400(await post(up.gw, up.key, path, body), param);
    const messages = (extra: Json) => ({ model: 'gpt', max_tokens: 10, messages: user, ...extra });
    assertAnthropic400(await post(up.gw, up.key, '/messages', messages({ tool_choice: 42 })));
    assertAnthropic400(
      await post(up.gw, up.key, '/messages', messages({ tools: [{ name: 'f', input_schema: [] }] })),
    );
    assertAnthropic400(
      await post(up.gw, up.key, '/messages', {
        ...messages({}),
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: null }] }],
      }),
    );
    assertAnthropic400(
      await post(up.gw, up.key, '/messages', {
        ...messages({}),
        messages: [{ role: 'user', content: [{ type: 'tool_result' }] }],
      }),
    );
  });

  it('keeps an assistant message that carries tool calls instead of content', async () => {
    const res = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [
        { role: 'user', content: 'tool please' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
    });
    assert.equal(res.status, 200, res.text);
  });

  it('refuses JSON nested 5,000 levels deep, on /v1 and /admin', async () => {
    const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    assertOpenAI400(
      await post(up.gw, up.key, '/chat/completions', `{"model":"gpt","messages":[],"x":${nested}}`),
    );
    assertOpenAI400(
      await adminCall('POST', '/keys', `{"name":"n","allowedModels":["*"],"metadata":{"x":${nested}}}`),
    );
    assert.equal((await fetch(`${up.gw.url}/health/live`)).status, 200);
  });

  it('refuses a __proto__ key, and a constructor.prototype, anywhere in a body, on /v1 and /admin', async () => {
    const poisons = [
      '{"__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"isAdmin":true}}}',
      '{"\\u005f_proto__":{"isAdmin":true}}',
    ];
    for (const poison of poisons) {
      const chat = `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"metadata":${poison}}`;
      assertOpenAI400(await post(up.gw, up.key, '/chat/completions', chat));
      assertOpenAI400(
        await adminCall('POST', '/keys', `{"name":"n","allowedModels":["*"],"metadata":${poison}}`),
      );
    }
    // A key named constructor without a prototype inside is data like any other.
    const plain = '{"name":"n","allowedModels":["*"],"metadata":{"constructor":"a builder"}}';
    assert.equal((await adminCall('POST', '/keys', plain)).status, 201);
  });

  it('refuses a NUL or a lone surrogate in an admin string, naming the field', async () => {
    const cases: Array<[string, string, string]> = [
      ['/keys', '{"name":"a\\u0000b","allowedModels":["*"]}', 'name'],
      ['/keys', '{"name":"a\\ud800b","allowedModels":["*"]}', 'name'],
      ['/keys', '{"name":"a","allowedModels":["*"],"metadata":{"k":"\\u0000"}}', 'metadata.k'],
      ['/keys', '{"name":"a","allowedModels":["*"],"metadata":{"k":["\\udfff"]}}', 'metadata.k.0'],
      ['/deployments', '{"publicModel":"x\\u0000","provider":"openai","upstreamModel":"y"}', 'publicModel'],
    ];
    for (const [path, body, param] of cases) assertOpenAI400(await adminCall('POST', path, body), param);
  });

  it('refuses date-times in year 0000', async () => {
    const key = '{"name":"a","allowedModels":["*"],"expiresAt":"0000-01-01T00:00:00Z"}';
    assertOpenAI400(await adminCall('POST', '/keys', key), 'expiresAt');
    assertOpenAI400(await adminCall('GET', '/logs?since=0000-01-01T00:00:00Z'), 'since');
    assertOpenAI400(await adminCall('GET', '/usage?until=0001-01-01T00:00:00%2B01:00'), 'until');
  });

  it('answers invalid JSON, a wrong content type and a body too large in the gateway shape', async () => {
    assertOpenAI400(await post(up.gw, up.key, '/chat/completions', '{"model":'));
    assertAnthropic400(await post(up.gw, up.key, '/messages', '{"model":'));
    const wrongType = await post(up.gw, up.key, '/chat/completions', '<a/>', {
      'content-type': 'application/xml',
    });
    assert.equal(wrongType.status, 415);
    assert.equal((wrongType.json().error as Json).code, 'invalid_request');
    assert.ok(wrongType.headers.get('x-request-id'));
    const big = await post(up.gw, up.key, '/chat/completions', `"${'x'.repeat(27 * 1024 * 1024)}"`);
    assert.equal(big.status, 413);
    assert.equal((big.json().error as Json).code, 'request_too_large');
  });

  it('answers 431, 414 and a malformed request in the gateway shape with an x-request-id', async () => {
    const cases: Array<[string, number]> = [
      [`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      [`GET /admin/keys/${'k'.repeat(500)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`, 414],
      ['GET /health/live HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n', 400],
      ['NOT-HTTP\r\n\r\n', 400],
    ];
    for (const [request, status] of cases) {
      const answer = await rawExchange(up.gw.url, request);
      const [head, body] = answer.split('\r\n\r\n');
      assert.equal(Number(head.split(' ')[1]), status, answer.slice(0, 300));
      assert.match(head.toLowerCase(), /x-request-id: \S+/);
      const error = (JSON.parse(body) as Json).error as Json;
      assert.equal(error.code, 'invalid_request');
      assert.ok(!body.includes('kkkk'), 'the URL is not echoed');
    }
  });

  it('logs a client that aborts its upload at info, not as service_unavailable', async () => {
    const { hostname, port } = new URL(up.gw.url);
    const before = up.gw.logs.length;
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${up.key}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"model":"gpt",`,
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = up.gw.logs.slice(before).join('');
    assert.ok(!lines.includes('service_unavailable'), lines);
    assert.ok(!lines.includes('"level":"error"'), lines);
    assert.match(lines, /client aborted the request/);
  });
});

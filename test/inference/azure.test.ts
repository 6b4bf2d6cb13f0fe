import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { recordedJson, recordedReply, recordedText } from '../fakes/recorded.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, anthropicClient, createDeployment, createKey, type Json, openaiClient } from './support.ts';

const AZURE_KEY = 'azure-upstream-key-0001';
const fixture = (name: string): string => recordedText('azure', name);

async function streamedText(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  const finishes: string[] = [];
  for await (const chunk of stream) {
    // What a client written for OpenAI does: the first choice's delta, unguarded.
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    text += choice.delta.content ?? '';
    if (choice.finish_reason) finishes.push(choice.finish_reason);
  }
  return { text, finishes };
}

/** A gateway with one Azure deployment (`azure-gpt`) on an OpenAI fake speaking Azure. */
async function azureGateway(fake: OpenAIFake, upstreamModel: string) {
  const gw = await startTestGateway({ redis: false });
  await createDeployment(gw, {
    publicModel: 'azure-gpt',
    provider: 'azure',
    upstreamModel,
    baseUrl: fake.url,
    apiKey: AZURE_KEY,
  });
  return { gw, client: openaiClient(gw, await createKey(gw)) };
}

/**
 * Azure deployments streamed through the official clients: the fake speaks Azure's documented
 * stream, content-filter annotations included (test/fakes/openai-fake-azure.ts), and replays the
 * recorded fixtures of src/providers/azure/fixtures/.
 */
describe('Azure OpenAI streams through the gateway', () => {
  for (const mode of ['default', 'asynchronous'] as const) {
    describe(`with the ${mode} content filter`, () => {
      let fake: OpenAIFake;
      let gw: TestGateway;
      let client: OpenAI;
      before(async () => {
        fake = await new OpenAIFake({ apiKey: AZURE_KEY, azureContentFilter: mode }).start();
        ({ gw, client } = await azureGateway(fake, 'gpt-4o-mini'));
      });
      beforeEach(() => fake.reset());
      after(async () => {
        await gw?.close();
        await fake?.close();
      });

      it('streams chat to the openai client (the prompt annotation chunk no longer fails the call)', async () => {
        const stream = await client.chat.completions.create({
          model: 'azure-gpt',
          messages: [{ role: 'user', content: 'hello from the gateway' }],
          stream: true,
        });
        const { text, finishes } = await streamedText(stream);
        assert.equal(text, 'echo: hello from the gateway');
        assert.deepEqual(finishes, ['stop']);
        assert.equal(fake.lastRequest?.path, '/openai/v1/chat/completions');
        assert.equal((fake.lastRequest!.body as { model: string }).model, 'gpt-4o-mini');
      });

      it("assembles the final completion with the SDK's stream helper, usage included", async () => {
        const completion = await client.chat.completions
          .stream({
            model: 'azure-gpt',
            messages: [{ role: 'user', content: 'assemble me' }],
            stream_options: { include_usage: true },
          })
          .finalChatCompletion();
        assert.equal(completion.choices[0].message.content, 'echo: assemble me');
        assert.equal(completion.model, 'azure-gpt');
        assert.ok((completion.usage?.prompt_tokens ?? 0) > 0);
      });

      it('streams to an Anthropic client through the Messages translation', async () => {
        const anthropic = anthropicClient(gw, await createKey(gw));
        const message = await anthropic.messages
          .stream({ model: 'azure-gpt', max_tokens: 50, messages: [{ role: 'user', content: 'hi claude' }] })
          .finalMessage();
        assert.deepEqual(
          message.content.map((block) => (block.type === 'text' ? block.text : block.type)),
          ['echo: hi claude'],
        );
      });
    });
  }

  describe('recorded Azure streams', () => {
    let fake: OpenAIFake;
    let gw: TestGateway;
    let client: OpenAI;
    before(async () => {
      fake = await new OpenAIFake({ apiKey: AZURE_KEY }).start();
      ({ gw, client } = await azureGateway(fake, 'gpt-4o'));
    });
    after(async () => {
      await gw?.close();
      await fake?.close();
    });

    const replay = (name: string) =>
      fake.enqueue({ status: 200, body: fixture(name), headers: { 'content-type': 'text/event-stream' } });
    const request = {
      model: 'azure-gpt',
      messages: [{ role: 'user' as const, content: 'x' }],
      stream: true as const,
    };

    it('azure-prompt-filter-first-chunk.sse', async () => {
      replay('azure-prompt-filter-first-chunk.sse');
      assert.deepEqual(await streamedText(await client.chat.completions.create(request)), {
        text: 'Hello from Azure!',
        finishes: ['stop'],
      });
    });

    it('azure-async-content-filter.sse', async () => {
      replay('azure-async-content-filter.sse');
      assert.deepEqual(await streamedText(await client.chat.completions.create(request)), {
        text: 'Color is light.',
        finishes: ['stop'],
      });
    });

    it('azure-async-content-filter-blocked.sse: the verdict reaches the client as finish_reason content_filter', async () => {
      replay('azure-async-content-filter-blocked.sse');
      assert.deepEqual(await streamedText(await client.chat.completions.create(request)), {
        text: 'Hey Jude,',
        finishes: ['content_filter'],
      });
    });
  });

  describe('content filter verdicts in each client format', () => {
    let fake: OpenAIFake;
    let fallback: OpenAIFake;
    let gw: TestGateway;
    let client: OpenAI;
    before(async () => {
      fake = await new OpenAIFake({ apiKey: AZURE_KEY }).start();
      fallback = await new OpenAIFake({ apiKey: AZURE_KEY }).start();
      ({ gw, client } = await azureGateway(fake, 'gpt-4o-mini'));
      await createDeployment(gw, {
        publicModel: 'azure-fallback',
        provider: 'azure',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: fallback.url,
        apiKey: AZURE_KEY,
      });
      await admin(gw, 'PUT', '/router-settings', {
        retries: { maxAttempts: 1, backoffMs: 0 },
        fallbacks: { content_policy: { 'azure-gpt': ['azure-fallback'] } },
      });
    });
    after(async () => {
      await gw?.close();
      await Promise.all([fake?.close(), fallback?.close()]);
    });
    const filtered = () =>
      fake.enqueue({
        status: 200,
        body: recordedJson('azure', 'azure-chat-completion-content-filter-finish.json'),
      });

    it('Chat: finish_reason content_filter, with the category and severity Azure sent', async () => {
      filtered();
      const completion = await client.chat.completions.create({
        model: 'azure-gpt',
        messages: [{ role: 'user', content: 'tell a story' }],
      });
      const [choice] = completion.choices;
      assert.equal(choice.finish_reason, 'content_filter');
      assert.deepEqual((choice as unknown as Record<string, Json>).content_filter_results.violence, {
        filtered: true,
        severity: 'medium',
      });
    });

    it('Messages (Anthropic SDK): stop_reason refusal', async () => {
      filtered();
      const message = await anthropicClient(gw, await createKey(gw)).messages.create({
        model: 'azure-gpt',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'tell a story' }],
      });
      assert.equal(message.stop_reason, 'refusal');
    });

    it('Responses: status incomplete, reason content_filter', async () => {
      filtered();
      const response = await client.responses.create({ model: 'azure-gpt', input: 'tell a story' });
      assert.equal(response.status, 'incomplete');
      assert.equal(response.incomplete_details?.reason, 'content_filter');
    });

    it('azure-400-content-filter.http is content_policy: the content_policy fallback serves the call', async () => {
      fake.enqueue(recordedReply('azure', 'azure-400-content-filter.http'));
      const answer = await client.chat.completions
        .create({ model: 'azure-gpt', messages: [{ role: 'user', content: 'tell a story' }] })
        .withResponse();
      assert.equal(answer.data.choices[0].message.content, 'echo: tell a story');
      assert.equal(answer.response.headers.get('x-switchyard-fallback-model'), 'azure-fallback');
      assert.equal(fallback.requests.length, 1);
    });
  });
});

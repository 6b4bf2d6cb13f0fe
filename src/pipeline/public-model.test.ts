import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatCompletionsFormat } from '../formats/chat-completions/index.ts';
import { messagesFormat } from '../formats/messages/index.ts';
import { responsesFormat } from '../formats/responses/index.ts';
import { withPublicModel } from './public-model.ts';

describe('public model names in answers', () => {
  it('replaces the top-level model of an answer and leaves text and model-less answers alone', () => {
    assert.deepEqual(withPublicModel({ id: 'x', model: 'gpt-4o-2024-08-06' }, 'gpt'), {
      id: 'x',
      model: 'gpt',
    });
    assert.deepEqual(withPublicModel({ created: 1, data: [] }, 'img'), { created: 1, data: [] });
    assert.equal(withPublicModel('a transcript', 'whisper'), 'a transcript');
  });

  it('replaces the model of chat chunks, Messages message_start and Responses response events', () => {
    const chunk = chatCompletionsFormat.eventWithPublicModel(
      { data: { object: 'chat.completion.chunk', model: 'up' } },
      'pub',
    );
    assert.equal((chunk.data as { model: string }).model, 'pub');
    const start = messagesFormat.eventWithPublicModel(
      { event: 'message_start', data: { type: 'message_start', message: { model: 'claude-up' } } },
      'pub',
    );
    assert.equal((start.data as { message: { model: string } }).message.model, 'pub');
    const created = responsesFormat.eventWithPublicModel(
      { event: 'response.created', data: { type: 'response.created', response: { model: 'up' } } },
      'pub',
    );
    assert.equal((created.data as { response: { model: string } }).response.model, 'pub');
    assert.deepEqual(chatCompletionsFormat.eventWithPublicModel({ data: '[DONE]' }, 'pub'), {
      data: '[DONE]',
    });
  });
});

import { chatCompletionsFormat } from '../formats/chat-completions/index.ts';
import type { ClientFormat } from '../formats/format.ts';
import { messagesFormat } from '../formats/messages/index.ts';
import { responsesFormat } from '../formats/responses/index.ts';
import type { Operation } from '../providers/types.ts';
import type { CallContext } from './call-context.ts';
import { newCallSlots } from './call-slot.ts';
import type { Endpoint } from './endpoint.ts';

const FORMATS: Readonly<Partial<Record<Operation, ClientFormat>>> = Object.freeze({
  'chat.completions': chatCompletionsFormat,
  messages: messagesFormat,
  responses: responsesFormat,
});

/**
 * An endpoint for unit tests: the fields the stages read (operation, client format, error shape,
 * JSON request). The cast stands in for the body schema and the documentation, which no stage reads.
 */
export function testEndpoint(operation: Operation): Endpoint {
  const format = FORMATS[operation];
  return { operation, format, path: `/${operation}`, shape: 'openai', requestFormat: 'json' } as Endpoint;
}

const CHAT = testEndpoint('chat.completions');

let sequence = 0;

/**
 * The call context of the unit tests, without HTTP: a master-key Chat call to model `m` with no
 * messages unless `fields` say otherwise; `publicModel` and `stream` follow the body.
 */
export function testCallContext(fields: Partial<CallContext> = {}): CallContext {
  const body = fields.body ?? { model: 'm', messages: [] };
  return {
    requestId: `req_${++sequence}`,
    endpoint: CHAT,
    principal: { kind: 'master' },
    startedAtMs: Date.now(),
    signal: new AbortController().signal,
    body,
    stream: body.stream === true,
    tags: [],
    publicModel: body.model,
    responseHeaders: {},
    attempts: [],
    servedBy: null,
    usage: null,
    costCents: 0,
    slots: newCallSlots(),
    ...fields,
  };
}

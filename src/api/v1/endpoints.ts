import type { z } from 'zod';
import { chatCompletionsFormat } from '../../formats/chat-completions/index.ts';
import type { ClientFormat } from '../../formats/format.ts';
import { messagesFormat } from '../../formats/messages/index.ts';
import { responsesFormat } from '../../formats/responses/index.ts';
import type { Endpoint, EndpointBody } from '../../pipeline/endpoint.ts';
import {
  embeddingsBody,
  imageEditsForm,
  imageFormFields,
  imageGenerationsBody,
  imageVariationsForm,
  transcriptionForm,
  transcriptionFormFields,
} from './body-schemas.ts';

const body = (schema: z.ZodType) => schema as z.ZodType<EndpointBody>;

/** What an endpoint of a client wire format takes from its format: operation, error shape, body schema. */
const ofFormat = (format: ClientFormat) => ({
  operation: format.operation,
  format,
  shape: format.errorShape,
  bodySchema: body(format.bodySchema),
});

/**
 * The inference endpoints (SPEC.md, Endpoints: Inference), one descriptor each for the one
 * generic handler. `streamable` follows what the adapters can stream: images and transcriptions
 * answer in one piece.
 */
export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  {
    ...ofFormat(chatCompletionsFormat),
    path: '/chat/completions',
    requestFormat: 'json',
    streamable: true,
    summary: 'Chat Completions (OpenAI format)',
  },
  {
    ...ofFormat(responsesFormat),
    path: '/responses',
    requestFormat: 'json',
    streamable: true,
    summary: 'Responses (OpenAI format); `store` (default true) keeps the answer for `previous_response_id`',
  },
  {
    operation: 'embeddings',
    path: '/embeddings',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(embeddingsBody),
    streamable: false,
    summary: 'Embeddings (OpenAI format)',
  },
  {
    operation: 'images.generations',
    path: '/images/generations',
    shape: 'openai',
    requestFormat: 'json',
    bodySchema: body(imageGenerationsBody),
    streamable: false,
    summary: 'Image generation (OpenAI format)',
  },
  {
    operation: 'images.edits',
    path: '/images/edits',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(imageFormFields),
    docSchema: imageEditsForm,
    streamable: false,
    summary: 'Image edit (OpenAI format, multipart/form-data)',
  },
  {
    operation: 'images.variations',
    path: '/images/variations',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(imageFormFields),
    docSchema: imageVariationsForm,
    streamable: false,
    summary: 'Image variation (OpenAI format, multipart/form-data)',
  },
  {
    operation: 'audio.transcriptions',
    path: '/audio/transcriptions',
    shape: 'openai',
    requestFormat: 'multipart',
    bodySchema: body(transcriptionFormFields),
    docSchema: transcriptionForm,
    streamable: false,
    summary: 'Audio transcription (OpenAI format, multipart/form-data)',
  },
  {
    ...ofFormat(messagesFormat),
    path: '/messages',
    requestFormat: 'json',
    streamable: true,
    summary: 'Messages (Anthropic format; errors in the Anthropic shape)',
  },
]);
